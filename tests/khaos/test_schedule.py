"""The inferred CI schedule's lag-jump fits (KH3's two readings) on synthetic failures."""

import numpy as np
import pandas as pd
import pytest

from khaos.data import STATIC_CI_S
from khaos.schedule import ci_schedule, fit_jump


def _injected(b_thr, rng):
    rows = []
    for name, ci in STATIC_CI_S.items():
        for thr in rng.uniform(2000, 30000, 8):
            k = 1.5 + 0.08 * ci + b_thr * thr
            rows.append({"configuration": name, "k": k, "ref_thr": thr})
    return pd.DataFrame(rows)


def test_fit_jump_with_throughput_recovers_both_slopes_and_inverts():
    rng = np.random.default_rng(0)
    fit = fit_jump(_injected(5e-5, rng), with_throughput=True)
    assert (fit.intercept, fit.slope, fit.b_thr) == pytest.approx((1.5, 0.08, 5e-5))
    assert fit.ci(1.5 + 0.08 * 40 + 5e-5 * 10000, 10000) == pytest.approx(40)
    line = fit_jump(_injected(0.0, rng))
    assert line.b_thr == 0 and line.ci(1.5 + 0.08 * 40) == pytest.approx(40)


def test_ci_schedule_keeps_only_the_given_seconds():
    fit = fit_jump(_injected(0.0, np.random.default_rng(1)))
    events = pd.DataFrame(
        {
            "second": [100, 5000, 9000, 9100],
            "kind": ["failure", "failure", "restart", "failure"],
            "k": [1.5 + 0.08 * 60, 1.5 + 0.08 * 20, 0.5, 1.5 + 0.08 * 90],
            "ref_thr": [1000.0, 2000.0, 2000.0, 3000.0],
            "within": [np.nan, np.nan, np.nan, np.nan],
        }
    )
    every, restarts = ci_schedule(events, fit)
    assert every["ci_estimate_s"].round(6).tolist() == [60, 20, 90] and restarts == [9000]
    injected, _ = ci_schedule(events, fit, only_seconds=[100, 9100])
    assert injected["second"].tolist() == [100, 9100]
