"""The engine's pieces: validation, Algorithm 1's two fixes, the recovery methods of Fig 6 and
the baselines, latency timelines."""

import dataclasses
import math

import numpy as np
import pytest

from incremental.engine import (
    Cluster,
    EngineConfig,
    FailureSchedule,
    Filter,
    Marker,
    Source,
    Topology,
    WindowCount,
    kills_during_recovery,
    recoveries,
    run,
)
from incremental.engine.partition import Partition
from incremental.engine.runtime import _Settings
from tests.incremental.engine.scenarios import (
    BASE,
    replay_of_a_multi_input_partition,
    run_scenario,
    violations,
)


def plans(result):
    return [event for event in result.events if event[1] == "plan"]


def test_failure_free_run_equals_the_oracle():
    scenario = dict(replay_of_a_multi_input_partition(), failures=FailureSchedule())
    result = run_scenario(scenario)
    assert violations(scenario, result) == []
    assert result.duplicates_dropped == 0 and not plans(result)


def test_incremental_recovery_installs_later_plans_without_rollback():
    scenario = replay_of_a_multi_input_partition()
    result = run_scenario(scenario)
    assert violations(scenario, result) == []
    rollbacks = [event[3] for event in plans(result)]
    assert rollbacks[0] and not any(rollbacks[1:]) and len(rollbacks) >= 3
    assert result.duplicates_dropped > 0  # the recovered filter's replay was deduplicated


@pytest.mark.parametrize("strategy", ["blocking", "source_replay"])
def test_baselines_are_exactly_once_and_always_roll_back(strategy):
    scenario = replay_of_a_multi_input_partition()
    result = run_scenario(scenario, dataclasses.replace(BASE, strategy=strategy))
    assert violations(scenario, result) == []
    assert all(event[3] for event in plans(result))


def test_blocking_recovery_waits_for_room_for_every_failed_partition():
    scenario = replay_of_a_multi_input_partition()
    result = run_scenario(scenario, dataclasses.replace(BASE, strategy="blocking"))
    first = plans(result)[0]
    assert first[0] >= 6.0  # only the spare node has room for all of them


def test_incremental_outputs_resume_before_blocking_ones():
    scenario = replay_of_a_multi_input_partition()
    incremental = run_scenario(scenario)
    blocking = run_scenario(scenario, dataclasses.replace(BASE, strategy="blocking"))
    window = ("w", 0)
    lat_inc, lat_blk = incremental.latency[window], blocking.latency[window]
    assert (lat_inc[:, 1] >= 0).all() and (lat_blk[:, 1] >= 0).all()
    # The window query has all its partitions back at 2.5 s with incremental recovery, 6 s
    # with blocking: its worst output latency is smaller.
    assert lat_inc[:, 1].max() < lat_blk[:, 1].max()


def test_recoveries_span_from_the_detection_to_the_global_checkpoint_that_ends_them():
    held = (("o", 0),)
    events = [
        (1.0, "kill", "a", held),
        (1.2, "recovering", ()),
        (1.5, "kill", "b", held),
        (3.0, "global checkpoint", 5),
        (3.0, "recovered", "incremental"),
        (3.0, "kill", "c", held),
        (4.0, "kill", "d", held),
        (4.2, "recovering", ()),
        (4.5, "kill", "e", held),
    ]
    assert recoveries(events) == [(1.2, 3.0), (4.2, math.inf)]
    # a: before its recovery's detection; c: at the end; d: between recoveries
    assert kills_during_recovery(events) == [(1.5, "b"), (4.5, "e")]


def test_kills_during_recovery_fails_on_a_kill_of_a_node_that_held_nothing():
    """INC10 counts a kill as a failure during recovery only if the node held a partition: a new
    node killed before a plan placed anything on it failed nothing."""
    events = [
        (1.0, "kill", "a", (("o", 0),)),
        (1.2, "recovering", ()),
        (1.5, "kill", "new0", ()),
        (2.0, "kill", "b", (("s", 1),)),
    ]
    assert kills_during_recovery(events) == [(2.0, "b")]
    result = run_scenario(replay_of_a_multi_input_partition())
    kills = [e for e in result.events if e[1] == "kill"]
    assert kills and all(e[3] for e in kills)  # each of its kills took partitions down


def test_a_run_records_its_recovery_span():
    result = run_scenario(replay_of_a_multi_input_partition())
    ((start, end),) = recoveries(result.events)
    assert start == 1.2 and end > 6.0  # detection 0.2 s after the kills; the spare at 6 s
    assert [node for _, node in kills_during_recovery(result.events)] == ["n2"]


def settings(dedup=True):
    return _Settings(
        batch_interval=0.1,
        checkpoint_every=5,
        last_boundary=10,
        marker_cost=0.0,
        checkpoint_cost_per_byte=0.0,
        dedup=dedup,
        audit=False,
    )


@pytest.mark.parametrize("dedup", [True, False])
def test_a_replayed_barrier_does_not_complete_a_batch(dedup):
    """Algorithm 1 as printed counts a replayed barrier again (line 8): batch 1 would run
    before the barrier of the second channel came."""
    topology = Topology([Source(name="s", parallelism=2), Filter(name="f", input="s")])
    p = Partition(("f", 0), topology, settings(dedup))
    p.order_preserving = True
    a, b = ("s", 0), ("s", 1)
    p.receive(a, (1, 0.0, ((("s", 0, 0)), 1, 0.05, None)))
    p.receive(a, (2, 0.1, Marker(1)))
    p.receive(a, (2, 0.1, Marker(1)))  # replayed
    assert not p.ready(1.0)
    p.receive(b, (1, 0.1, Marker(1)))
    assert p.ready(1.0)
    p.step()
    assert p.next_boundary == 2  # BID advanced: the increment missing from Algorithm 1
    assert not p.ready(1.0)


def test_source_log_is_trimmed_at_global_checkpoints():
    topology = Topology([Source(name="s"), WindowCount(name="w", input="s", size=1.0, output=True)])
    records = [(t / 10, 0, t) for t in range(40)]
    from incremental.engine.runtime import Engine

    engine = Engine(
        topology,
        {"s": records},
        nodes={"n": 1.0},
        placement={("s", 0): "n", ("w", 0): "n"},
        end=4.0,
        rng=np.random.default_rng(0),
        config=EngineConfig(checkpoint_interval=1.0),
    )
    result = engine.run()
    assert result.completed
    assert engine.logs[("s", 0)].start == 40
    with pytest.raises(LookupError):
        engine.logs[("s", 0)][0]


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda: Topology([Filter(name="a", input="b"), Filter(name="b", input="a")]), "cyclic"),
        (lambda: Topology([Filter(name="a", input="x")]), "unknown operator"),
        (lambda: WindowCount(name="w", input="s", size=1.0, slide=0.3), "multiple of slide"),
        (lambda: Source(name="s", parallelism=0), "parallelism"),
        (lambda: EngineConfig(strategy="eager"), "strategy"),
        (lambda: EngineConfig(cpu_cap=1.5), "cpu_cap"),
        (lambda: EngineConfig(checkpoint_interval=0.15), "checkpoint_interval"),
        (lambda: FailureSchedule(arrivals=((1.0, "a", 0.0),)), "arrivals"),
    ],
)
def test_bad_parameters_raise(build, match):
    with pytest.raises(ValueError, match=match):
        build()


def test_bad_run_inputs_raise():
    topology = Topology([Source(name="s"), Filter(name="f", input="s", output=True)])
    cluster = Cluster(nodes={"n": 1.0}, placement={("s", 0): "n", ("f", 0): "n"})
    rng = np.random.default_rng(0)
    ok = {"s": [(0.5, 1, None)]}
    with pytest.raises(ValueError, match="placement"):
        run(
            topology,
            ok,
            cluster=Cluster(nodes={"n": 1.0}, placement={("s", 0): "n"}),
            end=1.0,
            rng=rng,
        )
    with pytest.raises(ValueError, match="streams"):
        run(topology, {"s": [(2.0, 1, None)]}, cluster=cluster, end=1.0, rng=rng)
    with pytest.raises(ValueError, match="plans"):
        run(topology, ok, cluster=cluster, end=1.0, rng=rng, plans=[{("x", 0)}])
    with pytest.raises(ValueError, match="unknown node"):
        run(
            topology,
            ok,
            cluster=cluster,
            end=1.0,
            rng=rng,
            failures=FailureSchedule(kills=((0.5, "m"),)),
        )
    with pytest.raises(ValueError, match="end"):
        run(topology, ok, cluster=cluster, end=math.inf, rng=rng)
