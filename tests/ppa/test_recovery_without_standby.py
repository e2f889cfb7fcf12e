"""PPA recovery without standby nodes (ppa.recovery_times with ready): recovery_times when every
node is ready at once, the hand-worked delay and catch-up of one task, and its invariants."""

import numpy as np
import pytest

from ppa import LatencyParams, Phases, ppa_plan, recovery_times, shapes
from ppa.latency import non_sources

P = LatencyParams()
FIG6 = shapes.fig6()
COMMON = {"rate": 2000.0, "window": 20.0, "checkpoint_interval": 10.0, "sync_period": 1.0}


@pytest.fixture(scope="module")
def phases():
    return Phases.draw(FIG6, 32, np.random.default_rng(7))


def test_ready_at_once_is_recovery_times(phases):
    failed = non_sources(FIG6)
    active = ppa_plan(FIG6, 0.5) & failed
    got = recovery_times(FIG6, failed=failed, active=active, ready={}, phases=phases, **COMMON)
    want = recovery_times(FIG6, failed=failed, active=active, phases=phases, **COMMON)
    assert got.keys() == want.keys()
    for task in want:
        np.testing.assert_allclose(got[task], want[task])


def test_one_task_waits_for_its_node_then_catches_up_the_queued_input(phases):
    task, delay = "O2.3", 120.0
    base = recovery_times(FIG6, failed={task}, phases=phases, **COMMON)[task]
    got = recovery_times(FIG6, failed={task}, ready={task: delay}, phases=phases, **COMMON)[task]
    lam = 2 * COMMON["rate"]  # as in tests/ppa/test_latency.py: two upstream tasks
    np.testing.assert_allclose(got, base + delay + lam * delay / (P.process_rate - lam))


def test_input_rates_replace_the_split_flows(phases):
    task, delay, lam = "O2.3", 60.0, 5000.0
    got = recovery_times(
        FIG6,
        failed={task},
        ready={task: delay},
        phases=phases,
        input_rates={task: lam},
        **COMMON,
    )[task]
    k = FIG6.tasks.index(task)
    expected = (
        P.coordination
        + delay
        + P.restart
        + lam * COMMON["window"] * P.tuple_bytes / P.load_bandwidth
        + lam * phases.checkpoint[:, k] * COMMON["checkpoint_interval"] / P.process_rate
        + lam * delay / (P.process_rate - lam)
    )
    np.testing.assert_allclose(got, expected)


def test_a_later_node_delays_the_task_and_its_passive_downstream_never_the_replicas(phases):
    failed = non_sources(FIG6)
    active = ppa_plan(FIG6, 0.5) & failed
    passive = sorted(failed - active)
    early = {t: 30.0 for t in passive}
    late = dict(early)
    late[passive[0]] = 300.0
    a = recovery_times(FIG6, failed=failed, active=active, ready=early, phases=phases, **COMMON)
    b = recovery_times(FIG6, failed=failed, active=active, ready=late, phases=phases, **COMMON)
    assert np.all(b[passive[0]] >= a[passive[0]] + 270.0)
    for task in failed:
        assert np.all(b[task] >= a[task] - 1e-12)
    for task in active:
        np.testing.assert_array_equal(a[task], b[task])


def test_per_draw_ready_times_broadcast(phases):
    task = "O2.3"
    delays = np.linspace(0.0, 100.0, phases.checkpoint.shape[0])
    got = recovery_times(FIG6, failed={task}, ready={task: delays}, phases=phases, **COMMON)[task]
    for d in (0, 5, len(delays) - 1):
        one = recovery_times(
            FIG6, failed={task}, ready={task: float(delays[d])}, phases=phases, **COMMON
        )[task]
        assert got[d] == pytest.approx(one[d])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"ready": {"O2.3": -1.0}}, "ready"),
        ({"ready": {"O2.3": float("inf")}}, "ready"),
        ({"ready": {"O3.1": 5.0}}, "ready must name failed passive"),
        ({"ready": {"O2.3": 5.0}, "active": {"O2.3"}}, "ready must name failed passive"),
        ({"ready": {}, "input_rates": {"O2.3": 1e9}}, "input_rates"),
        ({"ready": {}, "input_rates": {"nope": 10.0}}, "input_rates"),
    ],
)
def test_bad_input_names_the_parameter(phases, kwargs, match):
    with pytest.raises(ValueError, match=match):
        recovery_times(FIG6, failed={"O2.3"}, phases=phases, **COMMON, **kwargs)
