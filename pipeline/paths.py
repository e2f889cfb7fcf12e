"""Every location the project reads or writes, defined once from the project root.

The output folders can be moved with environment variables (for example to scratch space on a
cluster, or to a temporary folder in tests); the notebook runner passes them on to the kernels.
"""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
DATA = ROOT / "data"
PAPER_DATA = DATA / "paper"
RAW_DATA = DATA / "raw"

REPORTS_ENV = "REPRO_REPORTS_DIR"
RESULTS_ENV = "REPRO_RESULTS_DIR"


def reports_dir() -> Path:
    """Generated HTML, figures, tables and the scorecard (``$REPRO_REPORTS_DIR`` or reports/)."""
    return Path(os.environ.get(REPORTS_ENV) or ROOT / "reports")


def results_dir() -> Path:
    """Sweep outputs as Parquet, a cache (``$REPRO_RESULTS_DIR`` or data/results/)."""
    return Path(os.environ.get(RESULTS_ENV) or DATA / "results")
