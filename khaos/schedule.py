"""The CI schedule of a Khaos run inferred from its series (Fig. 2 and KH3).

A failure's lag jump, in seconds of throughput, is k(CI) = a + b * CI (or, the other choice KH3
is judged at, k = a + b * CI + c * throughput): fitted by least squares on the injected failures of
the static runs (known CI), then inverted at each failure of the Khaos run to estimate the CI in
force. Reconfigurations restart the job from a savepoint: a throughput
collapse with a small lag bump (``kind == "restart"`` in :func:`khaos.detect_failures`).
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from khaos.data import STATIC_CI_S


@dataclass(frozen=True, kw_only=True)
class JumpFit:
    """k = intercept + slope * CI + b_thr * throughput (CI in s, throughput the reference rate in
    events/s before the failure; b_thr = 0 for the CI-only line), from ``n`` static failures."""

    intercept: float
    slope: float
    n: int
    b_thr: float = 0.0

    def ci(self, k, throughput=0.0) -> np.ndarray:
        """The CI (s) whose expected jump at ``throughput`` is ``k``."""
        k, throughput = np.asarray(k, dtype=float), np.asarray(throughput, dtype=float)
        return (k - self.intercept - self.b_thr * throughput) / self.slope


def fit_jump(injected: pd.DataFrame, with_throughput: bool = False) -> JumpFit:
    """Fit k(CI) (or k(CI, throughput) with ``with_throughput``, on column ref_thr) on the static
    rows of :func:`khaos.failures.injected_failures`' output."""
    static = injected[injected["configuration"].isin(list(STATIC_CI_S))]
    if static["configuration"].nunique() < 2:
        raise ValueError("k(CI) needs failures of at least two static CIs")
    ci = static["configuration"].map(STATIC_CI_S).to_numpy(dtype=float)
    k = static["k"].to_numpy(dtype=float)
    if not with_throughput:
        slope, intercept = np.polyfit(ci, k, 1)
        return JumpFit(intercept=float(intercept), slope=float(slope), n=len(static))
    design = np.column_stack([np.ones_like(ci), ci, static["ref_thr"].to_numpy(dtype=float)])
    (intercept, slope, b_thr), *_ = np.linalg.lstsq(design, k, rcond=None)
    return JumpFit(
        intercept=float(intercept), slope=float(slope), n=len(static), b_thr=float(b_thr)
    )


def ci_schedule(
    events: pd.DataFrame, fit: JumpFit, only_seconds=None
) -> tuple[pd.DataFrame, list[int]]:
    """(the Khaos run's failures with the estimated CI in force, reconfiguration seconds).

    ``events`` is :func:`khaos.detect_failures` of the Khaos run; failures inside a catch-up are
    skipped (their jump adds to the earlier one); with ``only_seconds``, only the failures at
    those seconds are kept (e.g. the injected ones)."""
    failures = events[(events["kind"] == "failure") & events["within"].isna()]
    if only_seconds is not None:
        failures = failures[failures["second"].isin(list(only_seconds))]
    table = failures[["second", "k"]].assign(
        ci_estimate_s=fit.ci(failures["k"], failures["ref_thr"])
    )
    restarts = events.loc[events["kind"] == "restart", "second"].astype(int).tolist()
    return table.reset_index(drop=True), restarts
