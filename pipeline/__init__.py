"""The machinery that runs a reproduction: paths, Spark session, sweeps (and the import closure
their cache is keyed by), notebooks, parameters, reports, the scorecard and the repro CLI;
``pipeline.jobs`` holds each paper's Spark jobs, named by paper, and ``pipeline.verdicts`` each
paper's claim rules.

Paper packages and ``crosspaper`` never import this package (nor Spark; tests/test_architecture.py
checks it): they are pure and take an explicit ``numpy.random.Generator``; the pipeline runs them
at scale and records what they reproduce.
"""

from pipeline.paper import claims, paper_table
from pipeline.report import Report
from pipeline.spark import get_spark
from pipeline.sweep import SweepError, sweep

__all__ = ["Report", "SweepError", "claims", "get_spark", "paper_table", "sweep"]
