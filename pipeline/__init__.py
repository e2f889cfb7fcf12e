"""The machinery that runs a reproduction: paths, Spark session, sweeps (and the import closure
their cache is keyed by), notebooks, parameters, reports, the scorecard and the repro CLI;
``pipeline.jobs`` holds each paper's Spark jobs, named by paper, and ``pipeline.verdicts`` each
paper's claim rules.

Paper packages and ``crosspaper`` never import this package (nor Spark; tests/test_architecture.py
checks it): they are pure and take an explicit ``numpy.random.Generator``; the pipeline runs them
at scale and records what they reproduce.
"""

from pipeline.sweep import SweepError, sweep

__all__ = ["Report", "SweepError", "claims", "get_spark", "paper_table", "sweep"]


def __getattr__(name: str):
    """The other public names load on first use: a Spark Python worker that runs a sweep's tasks
    imports ``pipeline.sweep`` (and so this package) without scipy.stats and statsmodels, which
    ``Report`` brings (``sweep`` itself stays eager: ``import pipeline.sweep`` would otherwise
    leave the module where ``from pipeline import sweep`` expects the function)."""
    if name == "Report":
        from pipeline.report import Report as value
    elif name == "get_spark":
        from pipeline.spark import get_spark as value
    elif name in ("claims", "paper_table"):
        from pipeline.paper import claims, paper_table

        value = {"claims": claims, "paper_table": paper_table}[name]
    else:
        raise AttributeError(f"module 'pipeline' has no attribute {name!r}")
    globals()[name] = value
    return value
