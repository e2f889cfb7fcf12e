"""fastrecover.settings against Table 4.1 as transcribed (data/paper/fastrecover_defaults.csv)."""

import pandas as pd
import pytest

from fastrecover.settings import CHAIN, TREE
from pipeline import paths

FIELDS = {"n": "n", "omega": "Omega", "ch_max": "CH_max", "z": "Z", "f": "F", "f_max": "F_max"}


@pytest.mark.parametrize(("setting", "column"), [(CHAIN, "chain_default"), (TREE, "tree_default")])
def test_settings_equal_the_transcribed_defaults(setting, column):
    printed = pd.read_csv(paths.PAPER_DATA / "fastrecover_defaults.csv").set_index("parameter")
    for field, row in FIELDS.items():
        cell, ours = printed.loc[row, column], getattr(setting, field)
        assert (pd.isna(cell) and ours is None) or float(cell) == ours, (field, cell, ours)
    assert setting.point() == {k: getattr(setting, k) for k in ("n", "omega", "ch_max", "z")}
