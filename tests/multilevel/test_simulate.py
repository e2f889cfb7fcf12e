"""The discrete-event simulator against the model where the model is exact, and its known bias."""

import numpy as np
import pytest

from multilevel.settings import fig12_system
from multilevel.simulate import simulate
from multilevel.utilization import System, utilization, utilization_one_kind


def _runs(T, p, system, horizon, runs, seed, **kwargs):
    rng = np.random.default_rng(seed)
    return np.array(
        [simulate(T, p, system, horizon, rng, **kwargs).utilization for _ in range(runs)]
    )


@pytest.mark.parametrize(
    "system",
    [
        System.per_day(lam=[400], c=[10], r=[0]),
        System.per_day(lam=[400], c=[10], r=[20]),
        System.per_day(lam=[400], c=[10], r=[20], n=40, delta=0.5),
    ],
    ids=["r=0", "restarts", "stream"],
)
def test_one_level_simulation_converges_to_the_exact_model(system):
    u = _runs(60.0, [1.0], system, 3e6, 40, seed=11)
    se = u.std(ddof=1) / np.sqrt(len(u))
    assert abs(u.mean() - float(utilization(60.0, [1.0], system))) < 4 * se


def test_one_checkpoint_kind_with_per_failure_restarts_matches_its_model():
    system = System.per_minute(
        lam=[0.02, 0.008], c=[0.18, 0.18], r=[10.16, 17.51], n=5, delta=0.012
    )
    u = _runs(1800.0, [0.0, 1.0], system, 1e7, 40, seed=3, restart_by="failure")
    se = u.std(ddof=1) / np.sqrt(len(u))
    assert abs(u.mean() - float(utilization_one_kind(1800.0, system))) < 4 * se


def test_short_runs_are_cut_at_their_last_checkpoint_and_stay_unbiased():
    # Table 3's run length: one day at T = 30 min. Charging each run its uncommitted tail would
    # bias the mean by about -0.01, twenty standard errors of this many runs.
    system = System.per_minute(
        lam=[0.02, 0.008], c=[0.18, 0.18], r=[10.16, 17.51], n=5, delta=0.012
    )
    u = _runs(1800.0, [0.0, 1.0], system, 86_400.0, 2000, seed=5, restart_by="failure")
    se = u.std(ddof=1) / np.sqrt(len(u))
    assert se < 0.002
    assert abs(u.mean() - float(utilization_one_kind(1800.0, system))) < 4 * se


def test_three_levels_near_the_optimum_stay_close_to_equation_13():
    system = fig12_system(10)
    p = (0.557, 0.307, 0.136)
    u = _runs(47.0, p, system, 2e6, 20, seed=5)
    assert abs(u.mean() - float(utilization(47.0, p, system))) < 0.005


def test_equation_13_is_pessimistic_for_long_intervals_with_two_levels():
    """Consecutive failures are each charged lost checkpoints the first already discarded."""
    system = System.per_day(lam=[400, 40], c=[5, 20], r=[0, 0])
    u = _runs(200.0, [0.7, 0.3], system, 2e6, 20, seed=2)
    assert u.mean() > float(utilization(200.0, [0.7, 0.3], system)) + 0.03


def test_runs_are_reproducible_from_the_generator():
    system = System.per_day(lam=[100, 10], c=[5, 20], r=[5, 20], n=3, delta=0.2)
    a = simulate(80.0, [0.6, 0.4], system, 1e6, np.random.default_rng(9))
    b = simulate(80.0, [0.6, 0.4], system, 1e6, np.random.default_rng(9))
    assert a == b and a.failures > 0 and 0 < a.utilization < 1


def test_no_failures_means_only_checkpoint_cost_is_lost():
    system = System(lam=[1e-12], c=[10.0], r=[5.0])
    result = simulate(100.0, [1.0], system, 1e4, np.random.default_rng(0))
    assert result.failures == 0
    assert result.utilization == pytest.approx(100 * 90.0 / 1e4)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"T": 5.0}, "T must be"),
        ({"horizon": -1.0}, "horizon"),
        ({"restart_by": "level"}, "restart_by"),
        ({"p": [0.5, 0.6]}, "sum to 1"),
    ],
)
def test_bad_input_raises(kwargs, message):
    args = {"T": 60.0, "p": [0.5, 0.5], "horizon": 1e4, "restart_by": "checkpoint"}
    args.update(kwargs)
    system = System(lam=[1e-3, 1e-4], c=[5.0, 20.0], r=[5.0, 20.0])
    with pytest.raises(ValueError, match=message):
        simulate(
            args["T"],
            args["p"],
            system,
            args["horizon"],
            np.random.default_rng(0),
            args["restart_by"],
        )
