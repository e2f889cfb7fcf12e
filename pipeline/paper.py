"""The papers' printed tables and headline claims, as transcribed in data/paper/.

These are comparisons, never inputs to a model: a reproduced value is computed and placed beside
the printed one.
"""

from functools import cache

import pandas as pd

from pipeline import paths

PAPERS = ("fastrecover", "ppa", "incremental", "multilevel", "khaos")
CROSS_PAPER = "cross-paper"


def paper_of(notebook: str) -> str:
    """The package a notebook reproduces, from its name prefix (``multilevel_tables``)."""
    prefix = notebook.split("_", 1)[0]
    return prefix if prefix in PAPERS else CROSS_PAPER


def paper_table(table_id: str) -> pd.DataFrame:
    """A printed table, e.g. ``paper_table("multilevel_table1")``."""
    file = paths.PAPER_DATA / f"{table_id}.csv"
    if not file.exists():
        known = ", ".join(sorted(p.stem for p in paths.PAPER_DATA.glob("*.csv")))
        raise ValueError(f"table_id {table_id!r} is not in data/paper/ (known: {known})")
    return pd.read_csv(file)


@cache
def claims() -> pd.DataFrame:
    """Headline claims (id, paper, where, claim) that have no printed table."""
    return pd.read_csv(paths.PAPER_DATA / "claims.csv").set_index("id")
