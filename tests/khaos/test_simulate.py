"""The streaming-job simulator: recovery grows with the CI, the closed form agrees with it, and
bad input is named."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from khaos import SimParams, simulate
from khaos.simulate import DEFAULT_SIM, _drain_time, drain_time


def _flat(rate, seconds=4000):
    return pd.Series(np.full(seconds, rate), index=pd.RangeIndex(1, seconds + 1))


@pytest.mark.parametrize("rate", [2000.0, 15000.0, 28000.0])
def test_recovery_grows_with_the_ci_and_matches_the_closed_form(rate):
    recoveries = []
    for ci in (10, 30, 60, 90, 120):
        result = simulate(_flat(rate), ci, [2000])
        (row,) = result.failures.itertuples()
        # Injected 3 s before a checkpoint, within one CI of the armed second.
        assert 2000 <= row.injected < 2000 + ci
        assert (row.injected - 1 + DEFAULT_SIM.inject_before_s) % ci == 0
        recoveries.append(row.recovery_s)
        assert row.recovery_s == pytest.approx(float(drain_time(rate, ci)), abs=3.0)
    # Below capacity the drain to 5% of the jump is exponential, the same time at every CI (as
    # in the IoT data at ~5000 events/s); at capacity it grows with the replay.
    assert np.all(np.diff(recoveries) >= 0)
    if rate >= 15000:
        assert recoveries[-1] > recoveries[0] + 20
    if rate >= 28000:
        assert np.all(np.diff(recoveries) > 0)


def test_calibration_grid_equals_drain_time_point_by_point():
    """calibrate evaluates its capacity x tau grid in one broadcast: every drain time and every
    mean squared log error is the one of drain_time at that point, to the last bit."""
    rng = np.random.default_rng(0)
    a, ci = rng.uniform(2000, 30000, 37), rng.choice([10.0, 30.0, 60.0, 90.0, 120.0], 37)
    measured = rng.uniform(20, 200, 37)
    capacities, taus = np.arange(25000.0, 50001.0, 2500.0), np.arange(5.0, 121.0, 7.0)
    grid = _drain_time(
        a, ci, capacities[:, None, None], taus[None, :, None], 17.7, DEFAULT_SIM.inject_before_s
    )
    errors = np.mean((np.log(grid) - np.log(measured)) ** 2, axis=-1)
    for i, capacity in enumerate(capacities):
        for j, tau in enumerate(taus):
            point = replace(DEFAULT_SIM, capacity=capacity, drain_tau_s=tau, restart_s=17.7)
            model = drain_time(a, ci, point)
            np.testing.assert_array_equal(grid[i, j], model)
            assert errors[i, j] == float(np.mean((np.log(model) - np.log(measured)) ** 2))


def test_a_failure_replays_about_one_ci_of_events_and_drains_to_zero():
    rate, ci = 10000.0, 60
    result = simulate(_flat(rate), ci, [2000])
    run, injected = result.run, int(result.failures["injected"].iloc[0])
    peak = run["lag"].loc[injected : injected + 100].max()
    expected = rate * (ci - DEFAULT_SIM.inject_before_s + round(DEFAULT_SIM.restart_s))
    assert peak == pytest.approx(expected, rel=0.02)
    assert run["lag"].iloc[-1] == pytest.approx(0.0, abs=1.0)
    assert run["thr"].sum() == pytest.approx(run["arrivals"].sum() + rate * (ci - 3), rel=0.01)


def test_observation_noise_is_seeded():
    a = simulate(_flat(5000.0), 30, [2000], rng=np.random.default_rng(4)).run
    b = simulate(_flat(5000.0), 30, [2000], rng=np.random.default_rng(4)).run
    pd.testing.assert_frame_equal(a, b)


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="ci"):
        simulate(_flat(1000.0), 0, [])
    with pytest.raises(ValueError, match="outside"):
        simulate(_flat(1000.0), 10, [10**6])
    with pytest.raises(ValueError, match="contiguous"):
        simulate(pd.Series([1.0, 2.0], index=[1, 3]), 10, [])
    with pytest.raises(ValueError, match="capacity"):
        SimParams(capacity=0.0)
    with pytest.raises(ValueError, match="restart_s"):
        SimParams(restart_s=-1.0)
