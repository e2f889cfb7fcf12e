"""khaos.experiments.replay_point: one static CI replayed over the measured IoT day."""

import numpy as np
import pytest

from khaos.experiments import replay_point, sim_point
from khaos.params import QoS
from khaos.simulate import SimParams, replay_summary, simulate, workload_of
from tests.khaos.conftest import DATA

FAILURES = [20_000, 40_000, 60_000]  # three failures on the IoT day (any seconds would do)


def _point(ci, **changes):
    sim = SimParams(**changes)
    return {
        "folder": str(DATA),
        "experiment": "iot",
        "ci": ci,
        "failure_seconds": FAILURES,
        "qos_latency_ms": 1000.0,
        "qos_recovery_s": 240.0,
        **sim_point(sim),
    }


def _row(point, seed=0):
    return replay_point(point, np.random.default_rng(seed))


def test_longer_interval_means_longer_true_recovery():
    rows = [_row(_point(ci)) for ci in (10, 60, 120)]
    assert all(r["failures"] == len(FAILURES) for r in rows)
    true = [r["recovery_true_s"] for r in rows]
    assert true[0] < true[1] < true[2]
    assert rows[0]["recovery_violations_s"] <= rows[2]["recovery_violations_s"]
    assert [r["checkpoint_share"] for r in rows] == pytest.approx([0.5, 5 / 60, 5 / 120])


def test_sim_keys_reach_the_simulator():
    """A longer restart keeps the job down longer: each true recovery grows by at least the
    added downtime (the backlog grows meanwhile)."""
    short = _row(_point(60, restart_s=10.0))
    long = _row(_point(60, restart_s=40.0))
    assert long["recovery_true_s"] - short["recovery_true_s"] >= 30.0 * len(FAILURES)


def test_row_is_the_table_row_of_the_simulated_day():
    point = _point(30)
    row = _row(point, seed=3)
    workload = workload_of(str(DATA), "iot")
    result = simulate(workload, 30, FAILURES, SimParams(), np.random.default_rng(3))
    table, _ = replay_summary(result, "static 30s", QoS())
    for key in ("avg_latency_ms", "latency_violations_fraction", "recovery_time_s"):
        assert row[key] == pytest.approx(table[key])
    # Violations are the seconds above the limit: a looser limit can only lower them.
    loose = _row({**point, "qos_recovery_s": 10_000.0}, seed=3)
    assert loose["recovery_violations_s"] == 0.0
    assert row["recovery_violations_s"] <= row["recovery_time_s"]


def test_missing_key_is_named():
    point = _point(30)
    del point["qos_recovery_s"]
    with pytest.raises(ValueError, match="qos_recovery_s"):
        _row(point)
    with pytest.raises(ValueError, match="ci must be"):
        _row({**_point(30), "ci": 0})


# 60 s means (to 4 decimals) of the hour before a Khaos round on the IoT scenario's simulated
# day (full profile of notebooks/cross_interval): a catch-up spike late in the hour.
SPIKED_HOUR = [
    14942.2833, 15075.4250, 15128.0833, 15149.4333, 15139.5333, 15149.4750,
    15222.1333, 15598.8000, 16252.2667, 30113.4222, 17626.4151, 16354.7498,
    16509.2522, 16650.5157, 16912.0115, 17084.5178, 17570.5411, 17730.8511,
    17972.0346, 18223.6719, 18517.6835, 18829.1750, 19047.2000, 19210.7917,
    19340.8083, 19467.6833, 19550.2000, 19556.4083, 19599.9250, 19591.2333,
    19617.3417, 19565.5417, 19550.5250, 19528.8333, 19467.7667, 19499.9000,
    19495.7667, 19461.7583, 19481.7750, 19527.1750, 19565.0833, 19647.3083,
    19726.4250, 19759.1417, 19834.5417, 19903.4500, 20036.2750, 20156.5083,
    20345.2417, 20522.9250, 20772.7583, 20982.4750, 15879.5500, 31350.0000,
    25711.4329, 21685.6778, 21557.2341, 21594.9114, 21656.6852, 21661.2421,
]  # fmt: skip


def test_forecast_survives_a_catch_up_spike_in_the_hour():
    """The replayed day reaches hours with a catch-up spike, where statsmodels' innovations MLE
    ended at non-invertible MA parameters; the CSS fit (khaos.method.arma22_css) has no such
    failure and keeps its MA parameters invertible."""
    from khaos.method import arma22_css, forecast_change

    means = np.array(SPIKED_HOUR)
    _, theta = arma22_css(np.diff(means, 2))
    assert np.all(np.abs(np.roots([theta[1], theta[0], 1.0])) > 1)  # invertible
    assert np.isfinite(forecast_change(np.repeat(means, 60)))
