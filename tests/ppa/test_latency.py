"""The recovery latency model (ppa.latency) against its equations worked by hand, a
time-stepped simulation of its fluid synchronization, and its invariants."""

import dataclasses

import numpy as np
import pytest

from ppa import LatencyParams, Phases, output_fidelity, ppa_plan, recovery_times, shapes
from ppa.latency import (
    checkpoint_cpu_ratio,
    correlated_failure,
    non_sources,
    ppa_recovery,
    single_failure,
    source_replay_times,
)

P = LatencyParams()
FIG6 = shapes.fig6()


@pytest.fixture(scope="module")
def phases():
    return Phases.draw(FIG6, 64, np.random.default_rng(1))


def test_single_checkpoint_recovery_is_restart_load_and_reprocessing(phases):
    rate, window, interval = 2000.0, 20.0, 10.0
    got = recovery_times(
        FIG6,
        failed={"O2.3"},
        rate=rate,
        window=window,
        checkpoint_interval=interval,
        sync_period=1.0,
        phases=phases,
    )["O2.3"]
    lam = 2 * rate  # two upstream tasks, each emitting rate x selectivity^depth x 2^depth
    k = FIG6.tasks.index("O2.3")
    expected = (
        P.coordination
        + P.restart
        + lam * window * P.tuple_bytes / P.load_bandwidth
        + lam * phases.checkpoint[:, k] * interval / P.process_rate
    )
    np.testing.assert_allclose(got, expected)


def test_single_active_recovery_resends_the_buffer_since_the_last_trim(phases):
    got = recovery_times(
        FIG6,
        failed={"O4.1"},
        active={"O4.1"},
        rate=1000.0,
        window=30.0,
        checkpoint_interval=10.0,
        sync_period=5.0,
        phases=phases,
    )["O4.1"]
    k = FIG6.tasks.index("O4.1")
    expected = P.coordination + P.activation + 0.5 * 2000 * phases.sync[:, k] * 5 / P.resend_rate
    np.testing.assert_allclose(got, expected)


def test_storm_replay_is_bounded_by_the_slowest_stage():
    rate, window = 1000.0, 30.0
    # O1.1 reads two sources on one node (4 sources per node, live load 4 x rate).
    o1 = source_replay_times(FIG6, failed={"O1.1"}, rate=rate, window=window)["O1.1"]
    node = 2 * rate * window / (P.source_replay_rate - 4 * rate)
    assert o1 == pytest.approx(
        P.coordination + P.restart + max(node, 2 * rate * window / P.process_rate)
    )
    # O4.1 reads all 16 sources: 4 per node, and its alive ancestors only have spare capacity.
    o4 = source_replay_times(FIG6, failed={"O4.1"}, rate=rate, window=window)["O4.1"]
    slowest = max(
        4 * rate * window / (P.source_replay_rate - 4 * rate),
        2 * rate * window / (P.process_rate - 2 * rate),
    )
    assert o4 == pytest.approx(P.coordination + P.restart + slowest)
    assert o4 > o1  # the position effect of Section VI-A


def test_correlated_checkpoint_matches_a_time_stepped_fluid_simulation():
    """Progress (stream time behind the failure) of every task stepped in dt: a task advances at
    μ/λ while its failed upstream tasks are ahead of it; recovered at progress 0."""
    params = LatencyParams(coordination=0.0)
    phases = Phases.draw(FIG6, 3, np.random.default_rng(7))
    rate, window, interval = 1000.0, 10.0, 30.0
    got = recovery_times(
        FIG6,
        failed=non_sources(FIG6),
        rate=rate,
        window=window,
        checkpoint_interval=interval,
        sync_period=1.0,
        phases=phases,
        params=params,
    )
    failed = sorted(non_sources(FIG6), key=FIG6.tasks.index)
    ups = {t: [a for (a, b) in FIG6.rates if b == t and a in non_sources(FIG6)] for t in failed}
    lam, dt = 2 * rate, 1e-3
    ready = params.restart + lam * window * params.tuple_bytes / (params.store_bandwidth / 15)
    for d in range(3):
        progress = {t: -phases.checkpoint[d, FIG6.tasks.index(t)] * interval for t in failed}
        done, time = {}, ready
        while len(done) < len(failed):
            time += dt
            for t in failed:  # topological: upstream progress of this step is already known
                if t in done:
                    continue
                cap = min([progress[u] for u in ups[t]], default=0.0)
                progress[t] = min(progress[t] + dt * params.process_rate / lam, cap, 0.0)
                if progress[t] >= 0.0:
                    done[t] = time
        for t in failed:
            assert got[t][d] == pytest.approx(done[t], abs=5 * dt)


def test_ppa_extremes_are_pure_active_and_pure_checkpoint(phases):
    for scheme, fraction, period in (("active", 1.0, 5.0), ("checkpoint", 0.0, 10.0)):
        everything, _ = ppa_recovery(
            FIG6,
            active=ppa_plan(FIG6, fraction),
            rate=1000.0,
            window=30.0,
            checkpoint_interval=period,
            sync_period=period,
            phases=phases,
        )
        pure = correlated_failure(
            FIG6, scheme=scheme, rate=1000.0, window=30.0, period=period, phases=phases
        )
        np.testing.assert_allclose(everything, pure)


def test_hybrid_replicas_recover_first_and_fewer_than_full_replication(phases):
    plan = ppa_plan(FIG6, 0.5)
    kwargs = dict(
        rate=2000.0, window=30.0, checkpoint_interval=10.0, sync_period=1.0, phases=phases
    )
    hybrid, replicas = ppa_recovery(FIG6, active=plan, **kwargs)
    full, _ = ppa_recovery(FIG6, active=ppa_plan(FIG6, 1.0), **kwargs)
    assert np.all(replicas < hybrid) and np.all(replicas < full)
    # Without the coordination queue the replicas' advantage over PPA-1.0 is only the maximum
    # over fewer tasks: never negative on the same draws.
    free = LatencyParams(coordination=0.0)
    _, replicas0 = ppa_recovery(FIG6, active=plan, params=free, **kwargs)
    full0, _ = ppa_recovery(FIG6, active=ppa_plan(FIG6, 1.0), params=free, **kwargs)
    assert np.all(replicas0 <= full0)


def test_half_plan_is_the_best_half_subtree():
    plan = ppa_plan(FIG6, 0.5)
    assert len(plan) == 8
    assert output_fidelity(FIG6, failed=non_sources(FIG6) - plan) == pytest.approx(0.5)
    assert ppa_plan(FIG6, 0.0) == frozenset() and ppa_plan(FIG6, 1.0) == non_sources(FIG6)


def test_storm_averages_task_positions():
    per_op = [
        np.mean(
            [
                source_replay_times(FIG6, failed={t}, rate=1000.0, window=20.0)[t]
                for t in FIG6.operators[op]
            ]
        )
        for op in ("O1", "O2", "O3", "O4")
    ]
    got = single_failure(FIG6, scheme="storm", rate=1000.0, window=20.0)
    assert got[0] == pytest.approx(np.mean(per_op))


def test_checkpoint_cpu_cost_is_inverse_in_the_interval():
    ratio = checkpoint_cpu_ratio(input_rate=2000.0, window=30.0, interval=np.array([1.0, 2.0, 4.0]))
    np.testing.assert_allclose(ratio[:-1] / ratio[1:], 2.0)
    expected = (P.checkpoint_overhead + 2000 * 30 / P.serialize_rate) / (2000 / P.process_rate)
    assert ratio[0] == pytest.approx(expected)


@pytest.mark.parametrize(
    "change, name",
    [
        ({"restart": 0.0}, "restart"),
        ({"selectivity": 1.5}, "selectivity"),
        ({"source_nodes": 0}, "source_nodes"),
        ({"coordination": -1.0}, "coordination"),
        ({"store_bandwidth": float("inf")}, "store_bandwidth"),
    ],
)
def test_bad_parameters_name_themselves(change, name):
    with pytest.raises(ValueError, match=name):
        dataclasses.replace(P, **change)


def test_bad_inputs_raise(phases):
    base = dict(rate=1000.0, window=30.0, checkpoint_interval=10.0, sync_period=1.0, phases=phases)
    with pytest.raises(ValueError, match="source"):
        recovery_times(FIG6, failed={"S.1"}, **base)
    with pytest.raises(ValueError, match="subset of failed"):
        recovery_times(FIG6, failed={"O1.1"}, active={"O1.2"}, **base)
    with pytest.raises(ValueError, match="window"):
        recovery_times(FIG6, failed={"O1.1"}, **{**base, "window": 0})
    with pytest.raises(ValueError, match="process_rate"):
        recovery_times(FIG6, failed={"O1.1"}, params=LatencyParams(process_rate=2000.0), **base)
    with pytest.raises(ValueError, match="scheme"):
        single_failure(FIG6, scheme="replay", rate=1000.0, window=30.0)
    with pytest.raises(ValueError, match="failed must name"):
        recovery_times(FIG6, failed=set(), **base)
