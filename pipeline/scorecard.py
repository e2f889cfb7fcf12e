"""Scorecard verdicts: what reproduced, computed from data with a stated tolerance.

A verdict is one of ``reproduced``, ``partly``, ``not reproduced``. Numeric comparisons use
``|reproduced - paper| <= atol + rtol * |paper|``; a looser second tolerance, when given, marks
``partly``. Qualitative claims are split into named conditions, each checked on data: all hold
is ``reproduced``, none is ``not reproduced``, some is ``partly`` (the reason lists which failed).
"""

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

REPRODUCED, PARTLY, NOT_REPRODUCED = "reproduced", "partly", "not reproduced"
VERDICTS = (REPRODUCED, PARTLY, NOT_REPRODUCED)
COLUMNS = [
    "paper",
    "notebook",
    "claim",
    "paper_value",
    "reproduced_value",
    "tolerance",
    "verdict",
    "reason",
]


def _within(paper: float, reproduced: float, atol: float, rtol: float) -> bool:
    return abs(reproduced - paper) <= atol + rtol * abs(paper)


def tolerance_text(atol: float, rtol: float) -> str:
    parts = [f"{atol:g}"] if atol else []
    if rtol:
        parts.append(f"{rtol:g}·|paper|")
    return "|diff| <= " + (" + ".join(parts) or "0")


def numeric_verdict(
    paper: float,
    reproduced: float,
    *,
    atol: float = 0.0,
    rtol: float = 0.0,
    partly_atol: float | None = None,
    partly_rtol: float | None = None,
) -> str:
    """Verdict of one number against the printed one; NaN or inf is never reproduced."""
    for name, value in (("atol", atol), ("rtol", rtol)):
        if not (value >= 0 and math.isfinite(value)):
            raise ValueError(f"{name} must be a finite number >= 0; got {value}")
    if not (math.isfinite(paper) and math.isfinite(reproduced)):
        return NOT_REPRODUCED
    if _within(paper, reproduced, atol, rtol):
        return REPRODUCED
    if partly_atol is not None or partly_rtol is not None:
        if _within(paper, reproduced, partly_atol or 0.0, partly_rtol or 0.0):
            return PARTLY
    return NOT_REPRODUCED


def conditions_verdict(conditions: Mapping[str, bool]) -> tuple[str, str]:
    """Verdict and a reason naming the failed conditions."""
    if not conditions:
        raise ValueError("conditions must name at least one checked condition")
    failed = [name for name, held in conditions.items() if not bool(held)]
    if not failed:
        return REPRODUCED, "all conditions hold"
    verdict = NOT_REPRODUCED if len(failed) == len(conditions) else PARTLY
    return verdict, "fails: " + "; ".join(failed)


def summary(card: pd.DataFrame) -> pd.DataFrame:
    """Counts of each verdict per paper."""
    counts = pd.crosstab(card["paper"], card["verdict"]).reindex(
        columns=list(VERDICTS), fill_value=0
    )
    counts["total"] = counts.sum(axis=1)
    return counts


def monotone(values, direction: int, slack: float = 0.0) -> bool:
    """Whether ``values`` (in the order of the varied parameter) never move against
    ``direction`` (+1 rising, -1 falling) by more than ``slack``: a trend claim checked on data."""
    if direction not in (1, -1):
        raise ValueError(f"direction must be +1 (rising) or -1 (falling); got {direction}")
    steps = np.diff(np.asarray(values, dtype=float)) * direction
    return bool(np.all(steps >= -slack))
