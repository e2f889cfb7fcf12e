"""The engine: nodes, network, coordinator and recovery plans, in virtual time (Section 4).

- Nodes run their partitions one unit of work at a time, round robin, at ``capacity`` CPU seconds
  per second; a channel delivers FIFO after a seeded random delay, so channels interleave
  differently in every run (Assumption 2 holds per channel only).
- A unit of work takes its CPU seconds on the node; each message and sink write leaves at the
  point of the step where it was produced, the checkpoint ack at its end, so a node killed
  mid-step has delivered only what it sent before the kill.
- The coordinator collects checkpoint acks; a global checkpoint completes when every partition has
  acked it (Section 4.1); the acks of a killed incarnation are discarded. Outside a recovery the
  source logs are then trimmed (4.2.4); a recovery ends at a global checkpoint once every live
  incarnation has caught up (4.2.2, see ``_recovered``).
- A node kill is detected ``detection_delay`` later; a recovery runs from the detection that
  starts it ("recovering") to the global checkpoint that ends it ("recovered", ``recoveries``).
  With at least X node failures since the last global checkpoint the recovery is incremental
  (4.2.1, Fig 6): the first plan rolls every alive partition back to the last global checkpoint
  and replays the sources, switching buffering and order-preserving processing on; each later
  plan (one per detection and per node arrival) installs only the partitions it recovers,
  restored from the same checkpoint as the first plan, and their upstream partitions send their
  buffers (Algorithm 2). Below X the recovery is blocking: it waits until all failed partitions
  can be placed, then rolls back.
- Plans are plain data: ``plans[i]`` is the set of partitions the i-th plan may recover (from a
  scheduler of Section 5); those that do not fit wait; after the last given plan every failed
  partition is a candidate. Placement: largest share first (upstream first among equals), each
  to the node with the most free capacity under the CPU cap (Section 5.3).
"""

import gc
import math
import pickle
from dataclasses import dataclass, field
from heapq import heappush

import numpy as np

from incremental.engine.clock import Clock
from incremental.engine.config import EngineConfig, FailureSchedule
from incremental.engine.partition import Partition
from incremental.engine.sink import SinkStore
from incremental.engine.source_log import SourceLog
from incremental.engine.topology import Topology, route

_DRAWS = 4096  # network delays drawn per block


@dataclass(frozen=True)
class _Settings:
    """What a partition needs from the run's parameters."""

    batch_interval: float
    checkpoint_every: int
    last_boundary: int
    marker_cost: float
    checkpoint_cost_per_byte: float
    dedup: bool
    audit: bool


class _Node:
    __slots__ = ("name", "capacity", "pids", "sources", "busy", "turn", "gen", "timer")

    def __init__(self, name, capacity):
        self.name = name
        self.capacity = capacity
        self.pids = []
        self.busy = False
        self.turn = 0
        self.gen = 0  # bumped at a kill or rollback: the unit of work in progress is void
        self.timer = None
        self.sources = 0  # of its partitions: only these set a timer (a mini-batch boundary)


@dataclass(frozen=True)
class RunResult:
    """What a run produced.

    ``outputs``: per output operator, uid -> (key, ts, value) as the sink holds it.
    ``latency``: per output partition (a query of Definition 1), rows (write time, latency) of
    each result's first write. ``final_states``: per partition, its checkpoint at the last global
    checkpoint ``global_checkpoint`` (``completed`` when that is the end-of-stream one), as a
    dict of state, last_seq, out_seq and audit. ``gaps`` and ``conflicts`` are violations:
    sequence numbers skipped on a channel, a result rewritten with another value.
    """

    outputs: dict
    latency: dict
    final_states: dict
    global_checkpoint: int
    completed: bool
    gaps: tuple
    conflicts: tuple
    duplicates_dropped: int
    sink_rewrites: int
    processed: int
    events: tuple
    end_time: float


class Engine:
    def __init__(
        self,
        topology: Topology,
        streams,
        *,
        nodes,
        placement,
        end: float,
        rng: np.random.Generator,
        failures: FailureSchedule | None = None,
        plans=None,
        config: EngineConfig | None = None,
    ):
        failures = FailureSchedule() if failures is None else failures
        config = EngineConfig() if config is None else config
        if not isinstance(topology, Topology):
            raise ValueError("topology must be a Topology")
        if not 0 < end < math.inf:
            raise ValueError(f"end must be finite and > 0; got {end}")
        self.topology = topology
        self.config = config
        self.rng = rng
        self.settings = _Settings(
            batch_interval=config.batch_interval,
            checkpoint_every=config.checkpoint_every,
            last_boundary=max(1, math.ceil(end / config.batch_interval)),
            marker_cost=config.marker_cost,
            checkpoint_cost_per_byte=config.checkpoint_cost_per_byte,
            dedup=config.dedup,
            audit=config.audit,
        )
        self.logs = self._split_streams(streams, end)
        self.plans = self._check_plans(plans)
        self.clock = Clock()
        self.sink = SinkStore()
        self.nodes = {}
        for name, capacity in dict(nodes).items():
            if not 0 < capacity < math.inf:
                raise ValueError(f"nodes: capacity of {name!r} must be finite and > 0")
            self.nodes[name] = _Node(name, capacity)
        self.parts = {}
        self.location = {}
        self.incarnation = dict.fromkeys(topology.partitions, 0)
        self._place_initially(dict(placement))
        self._schedule_failures(failures)
        self.gen = 0  # bumped at every rollback: messages in flight are void
        self.chan_last = {}
        self.chan_high = {}  # channel -> highest sequence number sent since the last rollback
        self.out_channels = {  # partition -> its output channels, in the order of its targets
            pid: tuple((pid, dst) for dst in topology.downstream_partitions(pid))
            for pid in topology.partitions
        }
        self.death = {}  # (partition, incarnation) -> kill time
        self.failed = set()  # detected, awaiting a plan
        self.lost = set()  # killed, not yet detected
        self.detecting = {}  # detection time -> {node: its partitions}
        self.recovery = None  # None, "incremental", "blocking" or "source_replay"
        self.failures_since = 0  # node failures detected since the last global checkpoint
        self.plan_count = 0
        self.gaps = []
        self.duplicates = 0
        self.work_of_dead = 0
        self.events = []
        self._delays = []
        self._next_delay = 0
        initial = {pid: p.snapshot(0) for pid, p in self.parts.items()}
        self.checkpoints = {0: initial}
        self.offsets = {0: dict.fromkeys(topology.sources, 0)}
        self.global_ckpt = 0
        self.base = 0  # the checkpoint the current recovery rolled back to, ck(P_k) of 4.4

    # --- construction ------------------------------------------------------------------------

    def _split_streams(self, streams, end):
        """Each source's records into its partitions' logs by key, in event-time order."""
        streams = dict(streams)
        names = {pid[0] for pid in self.topology.sources}
        if set(streams) != names:
            raise ValueError(f"streams must have one record list per source {sorted(names)}")
        logs = {}
        for name in sorted(names):
            parallelism = self.topology.operators[name].parallelism
            split = [[] for _ in range(parallelism)]
            for record in sorted(streams[name], key=lambda r: r[0]):
                ts, key, _ = record
                if not 0 <= ts < end:
                    raise ValueError(f"streams: event time {ts} of {name} outside [0, end)")
                split[route(key, parallelism)].append(tuple(record))
            for index, records in enumerate(split):
                logs[(name, index)] = SourceLog(records)
        return logs

    def _check_plans(self, plans):
        if plans is None:
            return None
        known = set(self.topology.partitions)
        checked = []
        for plan in plans:
            plan = frozenset(plan)
            if not plan <= known:
                raise ValueError(f"plans name unknown partitions {sorted(plan - known)}")
            checked.append(plan)
        return checked

    def _place_initially(self, placement):
        missing = set(self.topology.partitions) - set(placement)
        if missing:
            raise ValueError(f"placement misses partitions {sorted(missing)}")
        for pid in self.topology.partitions:
            name = placement[pid]
            if name not in self.nodes:
                raise ValueError(f"placement puts {pid} on unknown node {name!r}")
            self._install(pid, name)
        for node in self.nodes.values():
            if self._load(node) > node.capacity + 1e-9:
                raise ValueError(f"placement overloads node {node.name!r}")

    def _schedule_failures(self, failures):
        known = set(self.nodes) | {arrival[1] for arrival in failures.arrivals}
        if set(self.nodes) & {arrival[1] for arrival in failures.arrivals}:
            raise ValueError("failures: an arriving node has the name of an initial node")
        for time, name in failures.kills:
            if name not in known:
                raise ValueError(f"failures: kill of unknown node {name!r}")
            self.clock.at(time, self._kill, name)
        for time, name, capacity in failures.arrivals:
            self.clock.at(time, self._arrive, name, capacity)

    # --- running -----------------------------------------------------------------------------

    def run(self, until: float = math.inf) -> RunResult:
        for node in list(self.nodes.values()):
            self._dispatch(node)
        # The run allocates millions of short-lived tuples and creates no reference cycles: the
        # cyclic collector would only traverse the growing buffers and sink, a third of the time.
        collecting = gc.isenabled()
        gc.disable()
        try:
            self.clock.run(until)
        finally:
            if collecting:
                gc.enable()
        blobs = self.checkpoints[self.global_ckpt]
        final = {}
        for pid, blob in blobs.items():
            _, state, last_seq, out_seq, _, _, _, audit = pickle.loads(blob)
            final[pid] = {"state": state, "last_seq": last_seq, "out_seq": out_seq, "audit": audit}
        return RunResult(
            outputs={name: dict(results) for name, results in self.sink.results.items()},
            latency={
                pid: np.asarray(rows, dtype=float).reshape(-1, 2)
                for pid, rows in self.sink.latency.items()
            },
            final_states=final,
            global_checkpoint=self.global_ckpt,
            completed=self.global_ckpt == self.settings.last_boundary,
            gaps=tuple(self.gaps),
            conflicts=tuple(self.sink.conflicts),
            duplicates_dropped=self.duplicates,
            sink_rewrites=self.sink.rewrites,
            processed=self.work_of_dead + sum(p.processed for p in self.parts.values()),
            events=tuple(self.events),
            end_time=self.clock.now,
        )

    def _dispatch(self, node: _Node) -> None:
        if node.busy:
            return
        now = self.clock.now
        parts = self.parts
        pids = node.pids
        count = len(pids)
        turn = node.turn
        for k in range(count):
            i = (turn + k) % count
            partition = parts[pids[i]]
            if partition.is_source or partition.order_preserving:
                ready = partition.ready(now)
            else:  # Partition.ready in normal mode, without the call: most steps are messages
                queue = partition.queue
                if queue and partition.blocked:
                    partition.hold()
                ready = bool(queue)
            if ready:
                node.turn = i + 1
                capacity = node.capacity
                finish = now + partition.step() / capacity
                self._flush(partition, now, capacity)
                node.busy = True
                clock = self.clock  # clock.at, without the call
                heappush(
                    clock.heap,
                    (
                        finish,
                        next(clock.order),
                        self._free,
                        (node, node.gen, partition.pid, partition.persisted),
                    ),
                )
                partition.persisted = []
                return
        if not node.sources:
            return
        dues = [d for pid in pids if (p := parts[pid]).is_source and (d := p.due()) is not None]
        if dues and (node.timer is None or min(dues) < node.timer):
            node.timer = min(dues)
            self.clock.at(node.timer, self._wake, node, node.gen)

    def _free(self, node: _Node, gen: int, pid, persisted) -> None:
        """The end of a unit of work: its checkpoints are acked, unless the node was killed or
        rolled back meanwhile."""
        if gen == node.gen:
            for ckpt, blob, offset in persisted:
                self._persist(ckpt, pid, blob, offset)
            node.busy = False
            self._dispatch(node)

    def _wake(self, node: _Node, gen: int) -> None:
        if gen == node.gen:
            node.timer = None
            self._dispatch(node)

    def _flush(self, partition: Partition, start: float, capacity: float) -> None:
        pid = partition.pid
        outbox = partition.outbox
        if outbox:
            # for a kill mid-step (_unsend): each channel's high before the step, in the order
            # of partition.targets (a list over the channels' keys: no tuple built per step)
            get = self.chan_high.get
            before = [get(key, 0) for key in self.out_channels[pid]]
            self._transmit(pid, outbox, start, capacity)
            partition.sent = (start, capacity, outbox, before)
            partition.outbox = []
        written = partition.written
        if written:
            heap, order, write = self.clock.heap, self.clock.order, self._write
            incarnation, gen = self.incarnation[pid], self.gen
            for data, spent in written:
                heappush(
                    heap,
                    (start + spent / capacity, next(order), write, (pid, incarnation, gen, data)),
                )
            partition.written = []

    def _write(self, pid, incarnation: int, gen: int, data) -> None:
        if gen == self.gen and incarnation == self.incarnation[pid]:  # not killed or rolled back
            self.sink.write(pid, data, self.clock.now)

    # --- network -----------------------------------------------------------------------------

    def _draw_delays(self) -> list:
        """The next block of network delays, drawn when the last block is used up."""
        config = self.config
        return (
            config.network_latency + self.rng.exponential(config.network_jitter, _DRAWS)
            if config.network_jitter > 0
            else np.full(_DRAWS, config.network_latency)
        ).tolist()  # Python floats: fast

    def _transmit(self, src, outbox, start: float, capacity: float) -> None:
        """Send ``outbox`` of ``src``: ``(destination, envelope, CPU seconds into the step)``,
        each leaving at ``start + spent / capacity`` and arriving after a network delay."""
        parts, chan_last, chan_high, incarnation = (
            self.parts,
            self.chan_last,
            self.chan_high,
            self.incarnation,
        )
        sent_by, gen = incarnation[src], self.gen
        heap, order, deliver = self.clock.heap, self.clock.order, self._deliver
        delays, i = self._delays, self._next_delay
        for dst, env, spent in outbox:
            if dst not in parts:  # down: lost (its buffered copy, if any, waits upstream)
                continue
            if i == len(delays):
                delays, i = self._draw_delays(), 0
            depart = start + spent / capacity
            time = depart + delays[i]
            i += 1
            key = (src, dst)
            last = chan_last.get(key, time)
            if time < last:
                time = last  # FIFO per channel; equal times keep their scheduling order
            chan_last[key] = time
            seq = env[0]
            if seq > chan_high.get(key, 0):
                chan_high[key] = seq
            heappush(
                heap,
                (
                    time,
                    next(order),
                    deliver,
                    (src, sent_by, depart, dst, incarnation[dst], gen, env),
                ),
            )
        self._delays, self._next_delay = delays, i

    def _deliver(
        self, src, sent_by: int, depart: float, dst, incarnation: int, gen: int, env
    ) -> None:
        if (
            gen != self.gen
            or incarnation != self.incarnation[dst]
            or (self.death and depart >= self.death.get((src, sent_by), math.inf))
        ):
            return  # rolled back, sent to a dead incarnation, or never sent (killed first)
        status = self.parts[dst].receive(src, env)
        if status is not None:
            if status == "duplicate":
                self.duplicates += 1
            else:  # "gap"
                self.gaps.append((self.clock.now, src, dst, env[0]))
        node = self.nodes[self.location[dst]]
        if not node.busy:  # (_dispatch's own test, without the call: most arrivals wait)
            self._dispatch(node)

    # --- coordinator -------------------------------------------------------------------------

    def _persist(self, ckpt: int, pid, blob: bytes, offset: int) -> None:
        if ckpt <= self.global_ckpt:
            return
        acks = self.checkpoints.setdefault(ckpt, {})
        acks[pid] = blob
        if pid in self.logs:
            self.offsets.setdefault(ckpt, {})[pid] = offset
        if len(acks) == len(self.topology.partitions):
            self._complete(ckpt)

    def _complete(self, ckpt: int) -> None:
        self.global_ckpt = ckpt
        self.failures_since = 0
        self.events.append((self.clock.now, "global checkpoint", ckpt))
        if self.recovery is not None and self._recovered():
            for partition in self.parts.values():
                partition.end_recovery()
            self.events.append((self.clock.now, "recovered", self.recovery))
            self.recovery = None
        # During a recovery every failed partition is restored from ck(P_k) of the rollback and
        # replays from its source offsets (Section 4.4), so they are kept, untrimmed.
        keep = {ckpt} if self.recovery is None else {ckpt, self.base}
        for old in [c for c in self.checkpoints if c < ckpt and c not in keep]:
            del self.checkpoints[old]
            self.offsets.pop(old, None)
        if self.recovery is None:
            for pid, offset in self.offsets[ckpt].items():
                self.logs[pid].trim(offset)

    def _recovered(self) -> bool:
        """Whether the recovery may end (Section 4.2.2: at a global checkpoint, once all failed
        partitions are recovered). The checkpoint completed on acks of live incarnations only, so
        each has passed it; each must also have caught up with what it (or a killed incarnation
        of it) already sent downstream: ending order-preserving processing stops the barriers, so
        a partition still replaying would number its output differently from what its downstream
        partitions hold, and they would drop it as duplicates."""
        if self.failed or self.lost:
            return False
        chan_high = self.chan_high
        for pid, partition in self.parts.items():
            out_seq = partition.out_seq
            for dst in partition.targets:
                if out_seq[dst] < chan_high.get((pid, dst), 0):
                    return False
        return True

    def _kill(self, name) -> None:
        node = self.nodes.pop(name, None)
        if node is None:
            return
        node.gen += 1
        now = self.clock.now
        pending = [acks for c, acks in self.checkpoints.items() if c > self.global_ckpt]
        for pid in node.pids:
            partition = self.parts.pop(pid)
            self.work_of_dead += partition.processed
            self._unsend(partition, now)
            del self.location[pid]
            self.death[(pid, self.incarnation[pid])] = now
            self.incarnation[pid] += 1
            for acks in pending:  # Section 4.4: a dead incarnation's acks are void
                acks.pop(pid, None)
        self.lost.update(node.pids)
        self.events.append((self.clock.now, "kill", name, tuple(node.pids)))
        when = self.clock.now + self.config.detection_delay
        if when not in self.detecting:  # kills at one instant are detected together
            self.detecting[when] = {}
            self.clock.at(when, self._detect, when)
        self.detecting[when][name] = node.pids

    def _unsend(self, partition: Partition, now: float) -> None:
        """Lower ``chan_high`` to what was really sent on a killed partition's channels: the
        messages of its last step that would have left at or after the kill ``now`` never leave
        (``_deliver`` drops them), so ``_recovered`` must not wait for them. Never below the
        channel's high before that step: an earlier incarnation (this one may be a replay) may
        have delivered further, and a live downstream partition holds what it received."""
        start, capacity, outbox, before = partition.sent
        # per downstream partition: the highest sequence number that left
        left = dict(zip(partition.targets, before, strict=False))  # () before any step sent
        for dst, env, spent in outbox:
            if start + spent / capacity < now and env[0] > left[dst]:
                left[dst] = env[0]
        chan_high, pid = self.chan_high, partition.pid
        for dst, high in left.items():
            key = (pid, dst)
            if key in chan_high and high < chan_high[key]:
                chan_high[key] = high

    def _detect(self, when) -> None:
        detected = self.detecting.pop(when)
        for pids in detected.values():
            pids = self.lost.intersection(pids)
            self.lost -= pids
            self.failed |= pids
        self.failures_since += len(detected)
        self.events.append((self.clock.now, "detect", tuple(detected)))
        self._recover()

    def _arrive(self, name, capacity: float) -> None:
        self.nodes[name] = _Node(name, capacity)
        self.events.append((self.clock.now, "arrive", name))
        self._recover()

    # --- recovery ----------------------------------------------------------------------------

    def _recover(self) -> None:
        """Fig 6: choose the recovery method and execute the next plan, if any."""
        if not self.failed:
            return
        if self.recovery is None:  # the span INC10's failures during recovery are timed against
            self.events.append((self.clock.now, "recovering", tuple(sorted(self.failed))))
        config = self.config
        if config.strategy == "source_replay":
            self.recovery = "source_replay"
            chosen = self._next_plan()
            if chosen:
                self._execute(chosen, rollback=True)
        elif config.strategy == "incremental" and (
            self.recovery == "incremental" or self.failures_since >= config.correlated_failures
        ):
            first = self.recovery != "incremental"
            self.recovery = "incremental"
            self._execute(self._next_plan(), rollback=first)
        else:
            self.recovery = "blocking"
            chosen = self._place(self.failed)
            if len(chosen) == len(self.failed):
                self._execute(chosen, rollback=True)

    def _next_plan(self) -> dict:
        index = self.plan_count
        self.plan_count += 1
        if self.plans is None or index >= len(self.plans):
            return self._place(self.failed)
        return self._place(self.failed & self.plans[index])

    def _load(self, node: _Node) -> float:
        return sum(self.topology.operators[pid[0]].share for pid in node.pids)

    def _place(self, candidates) -> dict:
        """Largest share first (then upstream first), each to the node with the most free capacity
        under the cap."""
        free = {
            name: node.capacity * self.config.cpu_cap - self._load(node)
            for name, node in sorted(self.nodes.items())
        }
        chosen = {}
        if not free:
            return chosen
        share = {pid: self.topology.operators[pid[0]].share for pid in candidates}
        rank = {name: i for i, name in enumerate(self.topology.order)}
        for pid in sorted(candidates, key=lambda p: (-share[p], rank[p[0]], p)):
            best = max(free, key=free.get)
            if share[pid] <= free[best] + 1e-12:
                chosen[pid] = best
                free[best] -= share[pid]
        return chosen

    def _execute(self, chosen: dict, *, rollback: bool) -> None:
        """Algorithm 2 for plan ``chosen`` (partition -> node)."""
        incremental = self.recovery == "incremental"
        modes = {
            "order_preserving": incremental and self.config.order_preserving,
            "buffering": incremental and self.config.buffering,
        }
        if rollback:  # lines 7-11
            self.base = self.global_ckpt
            self.gen += 1
            self.chan_last.clear()
            self.chan_high.clear()
            for pending in [c for c in self.checkpoints if c > self.global_ckpt]:
                del self.checkpoints[pending]  # acks of the abandoned run
                self.offsets.pop(pending, None)
            for pid, partition in self.parts.items():
                partition.restore(self.checkpoints[self.base][pid], **modes)
            for node in self.nodes.values():
                node.gen += 1
                node.busy = False
                node.timer = None
        # Section 4.4: ck(P_k) of the rollback restores every failed partition of the recovery,
        # also those of later plans: their upstream buffers hold all output since P_k.
        blobs = self.checkpoints[self.base]
        for pid in sorted(chosen):  # lines 3-6 and 13-16
            self._install(pid, chosen[pid])
            self.parts[pid].restore(blobs[pid], **modes)
            self.failed.discard(pid)
        now = self.clock.now
        for pid in sorted(chosen):  # lines 17-21
            for up in self.topology.upstream_partitions(pid):
                upstream = self.parts.get(up)
                if upstream is not None:  # all leaving now (+ 0 CPU seconds)
                    self._transmit(up, [(pid, env, 0.0) for env in upstream.buffers[pid]], now, 1.0)
        self.events.append((now, "plan", tuple(sorted(chosen)), rollback))
        for node in list(self.nodes.values()):
            self._dispatch(node)

    def _install(self, pid, name) -> None:
        self.parts[pid] = Partition(pid, self.topology, self.settings, self.logs.get(pid))
        self.location[pid] = name
        node = self.nodes[name]
        node.pids.append(pid)
        node.sources += pid in self.logs
        self.incarnation[pid] += 1


def recoveries(events) -> list[tuple[float, float]]:
    """The spans ``[start, end)`` of a run's recoveries from its ``events``: from the detection
    that starts one ("recovering") to the global checkpoint that ends it ("recovered"; ``inf``
    for one still under way when the run stopped)."""
    spans, start = [], None
    for event in events:
        if event[1] == "recovering":
            start = event[0]
        elif event[1] == "recovered" and start is not None:
            spans.append((start, event[0]))
            start = None
    if start is not None:
        spans.append((start, math.inf))
    return spans


def kills_during_recovery(events) -> list[tuple[float, str]]:
    """The node kills ``(time, node)`` of ``events`` that fell inside a recovery (``recoveries``)
    and failed something: a kill before the detection that starts a recovery, or after it ended,
    is not one, nor a kill of a node that held no partition (and so no buffer or source log
    reader) at that instant, such as a new node before any plan placed a partition on it."""
    spans = recoveries(events)
    return [
        (event[0], event[2])
        for event in events
        if event[1] == "kill" and event[3] and any(a <= event[0] < b for a, b in spans)
    ]


@dataclass(frozen=True, kw_only=True)
class Cluster:
    """Initial nodes ``{name: capacity (cores)}`` and placement ``{partition: node}``."""

    nodes: dict = field(default_factory=dict)
    placement: dict = field(default_factory=dict)


def run(
    topology: Topology,
    streams,
    *,
    cluster: Cluster,
    end: float,
    rng: np.random.Generator,
    failures: FailureSchedule | None = None,
    plans=None,
    config: EngineConfig | None = None,
    until: float = math.inf,
) -> RunResult:
    """Run ``topology`` on ``streams`` ({source: [(ts, key, value)]}, event times in [0, end))
    under ``failures``; the stream ends with a final global checkpoint at ``end`` (rounded up to
    a mini-batch boundary)."""
    engine = Engine(
        topology,
        streams,
        nodes=cluster.nodes,
        placement=cluster.placement,
        end=end,
        rng=rng,
        failures=failures,
        plans=plans,
        config=config,
    )
    return engine.run(until)
