"""The CI schedule of a Khaos run inferred from its series (Fig. 2 and KH3).

A failure's lag jump, in seconds of throughput, is k(CI) = a + b * CI: fitted by least squares on
the injected failures of the static runs (known CI), then inverted at each failure of the Khaos run
to estimate the CI in force. Reconfigurations restart the job from a savepoint: a throughput
collapse with a small lag bump (``kind == "restart"`` in :func:`khaos.detect_failures`).
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from khaos.data import STATIC_CI_S


@dataclass(frozen=True, kw_only=True)
class JumpFit:
    """k(CI) = intercept + slope * CI (CI in s), from ``n`` static failures."""

    intercept: float
    slope: float
    n: int

    def ci(self, k) -> np.ndarray:
        """The CI (s) whose expected jump is ``k``."""
        return (np.asarray(k, dtype=float) - self.intercept) / self.slope


def fit_jump(injected: pd.DataFrame) -> JumpFit:
    """Fit k(CI) on the static rows of :func:`khaos.failures.injected_failures`' output."""
    static = injected[injected["configuration"].isin(list(STATIC_CI_S))]
    if static["configuration"].nunique() < 2:
        raise ValueError("k(CI) needs failures of at least two static CIs")
    ci = static["configuration"].map(STATIC_CI_S).to_numpy(dtype=float)
    slope, intercept = np.polyfit(ci, static["k"].to_numpy(dtype=float), 1)
    return JumpFit(intercept=float(intercept), slope=float(slope), n=len(static))


def ci_schedule(events: pd.DataFrame, fit: JumpFit) -> tuple[pd.DataFrame, list[int]]:
    """(the Khaos run's failures with the estimated CI in force, reconfiguration seconds).

    ``events`` is :func:`khaos.detect_failures` of the Khaos run; failures inside a catch-up are
    skipped (their jump adds to the earlier one)."""
    failures = events[(events["kind"] == "failure") & events["within"].isna()]
    table = failures[["second", "k"]].assign(ci_estimate_s=fit.ci(failures["k"]))
    restarts = events.loc[events["kind"] == "restart", "second"].astype(int).tolist()
    return table.reset_index(drop=True), restarts
