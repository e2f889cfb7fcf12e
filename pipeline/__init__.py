"""Shared machinery of the reproduction: paths, Spark session, sweeps, notebooks, reports.

Per-paper packages never import this package (nor Spark): they are pure and take an explicit
``numpy.random.Generator``; the pipeline runs them at scale and records what they reproduce.
"""

from pipeline.paper import claims, paper_table
from pipeline.report import Report
from pipeline.spark import get_spark
from pipeline.sweep import SweepError, sweep

__all__ = ["Report", "SweepError", "claims", "get_spark", "paper_table", "sweep"]
