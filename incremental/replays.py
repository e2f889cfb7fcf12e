"""Fig 10's mechanism: source replays, and the replay work a later failure wastes.

Section 7.1 explains why latency grows with consecutive failures under source replay (Storm):
"the recovery processes before the last failure are wasted due to repeated source replays". On
the engine (strategy "source_replay") every recovery plan rolls the whole topology back to the
last global checkpoint and replays the sources from there. Rollback k, at time p_k, restores the
checkpoint of event time g_k and replays the event time [g_k, p_k). The replay of rollback k-1
covered [g_(k-1), p_(k-1)); a failure that hits before that replay has caught up (before a
checkpoint past p_(k-1) completes) makes rollback k restore a checkpoint older than p_(k-1), and
the event time [max(g_k, g_(k-1)), p_(k-1)) is replayed again: that is the wasted replay. When
every replay has caught up before the next failure, nothing is wasted (up to the part of one
checkpoint interval that any rollback repeats).

Units: seconds of event time (the source's timestamps), which the sources replay at the speed of
the slowest partition.
"""


def replay_work(events, batch_interval: float) -> dict:
    """From a run's ``RunResult.events`` (checkpoint ids count mini-batches of
    ``batch_interval`` s): ``rollbacks``, the plans that rolled back; ``replayed``, the event
    seconds they replayed, Σ (p_k − g_k); ``wasted_replay``, the event seconds of an earlier
    rollback's replay that a later rollback replayed again (module docstring)."""
    if not batch_interval > 0:
        raise ValueError(f"batch_interval must be > 0; got {batch_interval}")
    checkpoint = 0.0  # event time of the last completed global checkpoint
    rollbacks = []  # (plan time, event time restored)
    for event in events:
        if event[1] == "global checkpoint":
            checkpoint = event[2] * batch_interval
        elif event[1] == "plan" and event[3]:
            rollbacks.append((event[0], checkpoint))
    wasted = sum(
        max(0.0, before - max(restored, earlier))
        for (before, earlier), (_, restored) in zip(rollbacks, rollbacks[1:], strict=False)
    )
    return {
        "rollbacks": len(rollbacks),
        "replayed": float(sum(at - restored for at, restored in rollbacks)),
        "wasted_replay": float(wasted),
    }
