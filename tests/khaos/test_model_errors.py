"""KH1's errors of our own models on a simulated Khaos run."""

import numpy as np
import pandas as pd
import pytest

from khaos.evaluation import latency_model_error, simulated_recovery_error
from khaos.method import LinearModel, Models

MODELS = Models(
    latency=LinearModel(intercept=500, b_thr=0.0, b_ci=0.0, r2=1, n=10),
    recovery=LinearModel(intercept=0.0, b_thr=0.01, b_ci=1.0, r2=1, n=10),
)


def test_simulated_recovery_error_uses_the_trailing_throughput_and_the_ci_in_force():
    seconds = pd.RangeIndex(0, 2000, name="second")
    run = pd.DataFrame({"thr": 1000.0, "ci": np.where(seconds < 1000, 30.0, 60.0)}, index=seconds)
    # predicted: 10 + 30 = 40 s at 900, 10 + 60 = 70 s at 1500; a 0 s recovery is left out.
    per_failure = pd.DataFrame(
        {"failure_second": [900, 1500, 1800], "recovery_time_s": [50.0, 70.0, 0.0]}
    )
    assert simulated_recovery_error(run, per_failure, MODELS) == pytest.approx((0.2 + 0.0) / 2)


def test_simulated_recovery_error_fails_on_no_measured_recovery():
    run = pd.DataFrame({"thr": [1.0] * 10, "ci": [10.0] * 10})
    with pytest.raises(ValueError, match="no failure"):
        simulated_recovery_error(
            run, pd.DataFrame({"failure_second": [5], "recovery_time_s": [0.0]}), MODELS
        )


def test_latency_model_error_applies_the_rho_in_force():
    decisions = pd.DataFrame(
        {"throughput": [1.0, 1.0], "ci": [10, 10], "rho": [1.0, 0.8], "latency_ms": [500, 500]}
    )
    assert latency_model_error(decisions, MODELS) == pytest.approx(0.1)
