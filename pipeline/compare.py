"""Reproduced tables beside the printed ones, with differences and printed rounding.

A printed number carries its own precision: "268.0672" is known to ±0.00005. ``side_by_side``
reads the transcription as text to keep that, so a cell can be judged "within its printed
rounding" without typing any tolerance in.
"""

import numpy as np
import pandas as pd

from pipeline import paths


def printed_table(table_id: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The printed table as numbers, and the half-unit of the last printed digit of each cell."""
    text = pd.read_csv(paths.PAPER_DATA / f"{table_id}.csv", dtype=str)

    def half_unit(cell: str) -> float:
        if not isinstance(cell, str) or not cell.strip():
            return np.nan
        digits = cell.strip().lstrip("-").split(".")
        return 0.5 * 10.0 ** -(len(digits[1]) if len(digits) == 2 else 0)

    values = text.apply(pd.to_numeric, errors="coerce")
    return values, text.map(half_unit)


def side_by_side(
    reproduced: pd.DataFrame, table_id: str, keys: list[str], columns: list[str]
) -> pd.DataFrame:
    """One row per printed row: the keys, then for each column the reproduced value, the printed
    value, the difference, whether it lies within the printed rounding (plus 1e-9) and that
    half-unit."""
    printed, half = printed_table(table_id)
    if len(printed) != len(reproduced):
        raise ValueError(
            f"{table_id}: {len(reproduced)} reproduced rows for {len(printed)} printed rows"
        )
    for key in keys:
        if not np.allclose(reproduced[key].to_numpy(float), printed[key].to_numpy(float)):
            raise ValueError(f"{table_id}: rows are not in the printed order of {key!r}")
    out = printed[keys].copy()
    for col in columns:
        diff = reproduced[col].to_numpy(float) - printed[col].to_numpy(float)
        out[col] = reproduced[col].to_numpy(float)
        out[f"{col} (paper)"] = printed[col]
        out[f"{col} diff"] = diff
        out[f"{col} ok"] = np.abs(diff) <= half[col].to_numpy(float) + 1e-9
        out[f"{col} half"] = half[col].to_numpy(float)
    return out
