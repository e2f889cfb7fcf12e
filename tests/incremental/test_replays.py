"""Fig 10's mechanism: wasted source replays from a run's events, on hand-made event lists and on
the engine (Fig 8 with source replay at two loads)."""

import numpy as np
import pytest

from incremental import experiments
from incremental.replays import replay_work

BATCH = 0.1  # checkpoint ids count mini-batches of 0.1 s


def plan(t, rollback=True):
    return (t, "plan", (("win1", 1),), rollback)


def checkpoint(t, event_time):
    return (t, "global checkpoint", round(event_time / BATCH))


def test_a_replay_that_caught_up_before_the_next_failure_wastes_nothing():
    events = [
        checkpoint(50.5, 50.0),
        plan(90.0),
        checkpoint(95.0, 90.0),
        checkpoint(100.2, 100.0),
        checkpoint(110.1, 110.0),
        plan(150.0),
    ]
    assert replay_work(events, BATCH) == {"rollbacks": 2, "replayed": 80.0, "wasted_replay": 0.0}


def test_a_failure_during_a_replay_wastes_what_the_replay_had_redone():
    # Rollback at 90 s to the checkpoint of 50 s; the replay has completed the checkpoint of 70 s
    # only when the next rollback comes at 150 s: [70, 90) s of event time is replayed again.
    events = [
        checkpoint(50.5, 50.0),
        plan(90.0),
        checkpoint(120.0, 60.0),
        checkpoint(140.0, 70.0),
        plan(150.0),
    ]
    work = replay_work(events, BATCH)
    assert work == {"rollbacks": 2, "replayed": 120.0, "wasted_replay": 20.0}


def test_plans_without_rollback_are_not_replays():
    events = [checkpoint(10.0, 10.0), plan(20.0, rollback=False), plan(30.0)]
    assert replay_work(events, BATCH)["rollbacks"] == 1
    with pytest.raises(ValueError, match="batch_interval"):
        replay_work(events, 0.0)


@pytest.mark.parametrize(("rho", "wasted"), [(0.13, False), (0.6, True)])
def test_fig8_source_replay_wastes_replays_only_when_catch_up_outlasts_the_next_failure(
    rho, wasted
):
    params = {
        "rate": 10.0,
        "first": 60.0,
        "interval": 60.0,
        "end": 300.0,
        "cpu_cap": 1.0,
        "strategy": "source_replay",
        "failures": 3,
        "rho": rho,
        "detection_delay": 30.0,
    }
    row = experiments.fig8_point(params, np.random.default_rng(0))[0]
    assert row["rollbacks"] == 3
    assert (row["wasted_replay"] > 0) == wasted
