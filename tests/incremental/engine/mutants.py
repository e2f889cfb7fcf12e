"""Bugs written into the engine, each as a patch the exactly-once property must catch.

Each mutant wraps an engine method rather than copying it, so it follows the engine as it
changes. ``CONFIG_MUTANTS`` switch a mechanism of Section 4 off through the configuration.
"""

import contextlib

from incremental.engine.partition import Partition
from incremental.engine.runtime import Engine

CONFIG_MUTANTS = ("dedup", "order_preserving", "buffering")


def _arrival_order(original):
    """Algorithm 1 processes a batch channel by channel in barrier-arrival order, not InputList
    order: a replayed partition emits its batch in another order than its killed incarnation."""

    def step_batch(self):
        channels = self.channels
        self.channels = list(self.barriers[self.next_boundary])
        try:
            original(self)
        finally:
            self.channels = channels

    return step_batch


def _dedup_off_by_one(original):
    """Line 3 drops only ``seq < last``: a message with the last received number passes."""

    def receive(self, ch, env):
        if env[0] == self.received[ch]:
            self.received[ch] -= 1
        return original(self, ch, env)

    return receive


def _no_incarnation_check(original):
    """Delivery does not check that the message was sent to the destination's live incarnation:
    a message to a killed incarnation reaches its replacement."""

    def deliver(self, src, sent_by, depart, dst, incarnation, gen, env):
        if dst in self.parts:
            original(self, src, sent_by, depart, dst, self.incarnation[dst], gen, env)

    return deliver


def _trim_past_live_source(original):
    """A global checkpoint during a recovery trims the source logs to its offsets, past what a
    source that a later plan restores from the recovery's checkpoint ck(P_k) must replay."""

    def complete(self, ckpt):
        original(self, ckpt)
        for pid, offset in self.offsets[ckpt].items():
            self.logs[pid].trim(offset)

    return complete


def _ends_while_failed(original):
    """The recovery ends at a global checkpoint even while partitions are still failed."""

    def recovered(self):
        failed, lost = self.failed, self.lost
        self.failed, self.lost = set(), set()
        try:
            return original(self)
        finally:
            self.failed, self.lost = failed, lost

    return recovered


def _ends_before_caught_up(original):
    """Cause A of issue 17: the recovery ends at the first global checkpoint with no partition
    failed, while a recovered partition is still behind what its downstream received."""

    def recovered(self):
        return not (self.failed or self.lost)

    return recovered


def _ends_one_behind(original):
    """The catch-up test of ``Engine._recovered`` is off by one: a partition one message behind
    what its downstream partitions received counts as caught up."""

    def recovered(self):
        high = self.chan_high
        self.chan_high = {channel: seq - 1 for channel, seq in high.items()}
        try:
            return original(self)
        finally:
            self.chan_high = high

    return recovered


def _unsend_below_earlier_incarnation(original):
    """``Engine._unsend`` lowers a channel's high to just below the first message of the killed
    step that never left, even when an earlier incarnation (the killed one was replaying) had
    delivered further: the recovery then ends while the replacement is still behind."""

    def unsend(self, partition, now):
        start, capacity, outbox, _ = partition.sent
        for dst, env, spent in outbox:
            key = (partition.pid, dst)
            if start + spent / capacity >= now and key in self.chan_high:
                self.chan_high[key] = min(self.chan_high[key], env[0] - 1)

    return unsend


def _ack_at_step_start(original):
    """A unit of work acks its checkpoints when it starts rather than when it ends: a node killed
    mid-step has then acked a snapshot whose outputs (sink writes, messages) never left."""

    def flush(self, partition, start, capacity):
        original(self, partition, start, capacity)
        persisted, partition.persisted = partition.persisted, []
        for ckpt, blob, offset in persisted:
            self._persist(ckpt, partition.pid, blob, offset)

    return flush


def _keeps_dead_acks(original):
    """Checkpoint acks of a killed incarnation stay counted (half of cause B of issue 17)."""

    def kill(self, name):
        pending = {c: dict(acks) for c, acks in self.checkpoints.items() if c > self.global_ckpt}
        original(self, name)
        for ckpt, acks in pending.items():
            self.checkpoints[ckpt].update(acks)

    return kill


def _restores_from_latest(original):
    """A later plan restores its partitions from the latest global checkpoint, not from the
    recovery's ck(P_k) (the other half of cause B)."""

    def execute(self, chosen, *, rollback):
        self.base = self.global_ckpt
        return original(self, chosen, rollback=rollback)

    return execute


def _empties_buffers_at_checkpoints(original):
    """Every global checkpoint during a recovery empties the output buffers, as the end of a
    recovery does: a partition failing in the catch-up window after it is restored from the
    recovery's ck(P_k) and misses what its upstream sent since (Section 4.2.2 empties them only
    when the recovery ends)."""

    def complete(self, ckpt):
        original(self, ckpt)
        if self.recovery is not None:
            for partition in self.parts.values():
                for buffer in partition.buffers.values():
                    buffer.clear()

    return complete


def _keeps_abandoned_acks(original):
    """A rollback keeps the acks the abandoned run gave for checkpoints not yet complete: a
    checkpoint can then complete on states of two runs, an inconsistent cut."""

    def execute(self, chosen, *, rollback):
        pending = {}
        if rollback:
            pending = {
                c: (dict(acks), dict(self.offsets.get(c, {})))
                for c, acks in self.checkpoints.items()
                if c > self.global_ckpt
            }
        original(self, chosen, rollback=rollback)
        for ckpt, (acks, offsets) in pending.items():
            self.checkpoints.setdefault(ckpt, {}).update(acks)
            self.offsets.setdefault(ckpt, {}).update(offsets)

    return execute


PATCH_MUTANTS = {  # name -> the (class, method, mutation) patches it makes
    "arrival_order": [(Partition, "_step_batch", _arrival_order)],
    "dedup_off_by_one": [(Partition, "receive", _dedup_off_by_one)],
    "no_incarnation_check": [(Engine, "_deliver", _no_incarnation_check)],
    "trim_past_live_source": [(Engine, "_complete", _trim_past_live_source)],
    "empties_buffers_at_checkpoints": [(Engine, "_complete", _empties_buffers_at_checkpoints)],
    "keeps_abandoned_acks": [(Engine, "_execute", _keeps_abandoned_acks)],
    "ends_while_failed": [(Engine, "_recovered", _ends_while_failed)],
    "ends_before_caught_up": [(Engine, "_recovered", _ends_before_caught_up)],
    "ends_one_behind": [(Engine, "_recovered", _ends_one_behind)],
    "unsend_below_earlier_incarnation": [(Engine, "_unsend", _unsend_below_earlier_incarnation)],
    "ack_at_step_start": [(Engine, "_flush", _ack_at_step_start)],
    "keeps_dead_acks_restores_latest": [
        (Engine, "_kill", _keeps_dead_acks),
        (Engine, "_execute", _restores_from_latest),
    ],
}


@contextlib.contextmanager
def patched(name):
    """The engine with mutant ``name`` of PATCH_MUTANTS written into it."""
    originals = []
    for cls, method, mutate in PATCH_MUTANTS[name]:
        originals.append((cls, method, getattr(cls, method)))
        setattr(cls, method, mutate(getattr(cls, method)))
    try:
        yield
    finally:
        for cls, method, original in reversed(originals):
            setattr(cls, method, original)
