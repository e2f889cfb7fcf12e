"""One operator partition at run time: Algorithm 1, checkpoint alignment, dedup and buffering.

- Normal mode processes messages in arrival order; a checkpoint punctuation P_k blocks its channel
  until P_k has come on every channel, then the partition checkpoints (Section 4.1, Fig 4).
- Order-preserving mode (Algorithm 1) processes mini-batch BID only when its barrier has come on
  every input channel, channel by channel in InputList order, so the output order is the same in
  every replay (Assumption 1). Two fixes to the algorithm as printed:
  * BID is never incremented (lines 9-16): it is incremented after the batch's barrier is sent;
  * line 3 compares with lastSeq, which line 14 sets for processed data only, so a replayed
    barrier passes and line 8 counts it again, and a tuple received twice before its batch runs is
    queued twice. Here barriers carry sequence numbers too, line 3 compares with the highest
    sequence number received on the channel, and a batch's barriers are counted as a set of
    channels (BO[j] of line 8), ignoring barriers of batches already processed.
- Per-channel sequence numbers drop duplicates on arrival (line 3); the checkpoint holds the last
  processed sequence number per input channel and the output counters per output channel.
- Adaptive buffering (Section 4.2) keeps every output envelope per downstream partition while on.

A source partition reads its durable log: at each boundary time it emits the records of the
mini-batch and its marker (barriers only under order-preserving processing, punctuations always).
"""

import math
import pickle
from collections import deque

from incremental.engine import operators
from incremental.engine.messages import Marker
from incremental.engine.topology import Source, Topology, key_code


class Partition:
    def __init__(self, pid, topology: Topology, settings, log=None):
        op = topology.operators[pid[0]]
        self.pid = pid
        self.op = op
        self.settings = settings
        self.is_source = isinstance(op, Source)
        self.log = log
        self.channels = topology.upstream_partitions(pid)
        self.side = {ch: op.inputs.index(ch[0]) for ch in self.channels}
        # per downstream operator: its parallelism and its partitions by route() residue
        self.routes = [
            (parallelism, tuple((name, i) for i in range(parallelism)))
            for name in topology.downstream[pid[0]]
            for parallelism in [topology.operators[name].parallelism]
        ]
        self.targets = topology.downstream_partitions(pid)
        # read per message: the operator's and the run's constants, as attributes
        self.cost, self.output, self.dedup = op.cost, op.output, settings.dedup
        self.on_data = operators.data_handler(op)
        self.processed = 0  # data tuples processed, replays included (throughput)
        self._load(
            0,
            operators.initial_state(op),
            {ch: 0 for ch in self.channels},
            {dst: 0 for dst in self.targets},
            {ch: -math.inf for ch in self.channels},
            -math.inf,
            0,
            {ch: [] for ch in self.channels} if settings.audit else None,
        )
        self.order_preserving = False
        self.buffering = False

    # --- checkpoints -------------------------------------------------------------------------

    def snapshot(self, boundary: int) -> bytes:
        return pickle.dumps(
            (
                boundary,
                self.state,
                self.last_seq,
                self.out_seq,
                self.ch_wm,
                self.out_wm,
                self.offset,
                self.audit,
            ),
            protocol=pickle.HIGHEST_PROTOCOL,
        )

    def restore(self, blob: bytes, *, order_preserving: bool, buffering: bool) -> None:
        """Roll back to a checkpoint, clearing the input and output buffers (Alg. 2, line 8)."""
        self._load(*pickle.loads(blob))
        self.order_preserving = order_preserving
        self.buffering = buffering

    def _load(self, boundary, state, last_seq, out_seq, ch_wm, out_wm, offset, audit):
        self.state = state
        self.last_seq = last_seq  # last processed sequence number per input channel
        self.received = dict(last_seq)  # highest received: line 3's test (see module doc)
        self.out_seq = out_seq
        self.ch_wm = ch_wm
        self.in_wm = min(ch_wm.values(), default=-math.inf)
        self.out_wm = out_wm
        self.offset = offset
        self.audit = audit
        self.next_boundary = boundary + 1  # BID, and a source's next marker
        self.queue = deque()  # normal mode: (channel, envelope) in arrival order
        self.held = deque()  # normal mode: arrivals on channels blocked by a punctuation
        self.blocked = set()
        self.lanes = {ch: deque() for ch in self.channels}  # IB[.][k] of Algorithm 1
        self.barriers = {}  # BO: batch -> {channel: None} in barrier-arrival order
        self.buffers = {dst: [] for dst in self.targets}
        self.spent = 0.0  # CPU seconds into the current step
        self.outbox = []  # (destination, envelope, CPU seconds into the step) of the current step
        # (start, node capacity, outbox, channel highs before it) of the last step that sent
        self.sent = (0.0, 1.0, [], ())
        self.written = []  # (result for the sink, CPU seconds into the step) of the current step
        self.persisted = []  # (checkpoint id, blob, source offset) taken by the current step

    def end_recovery(self) -> None:
        """Back to normal mode at a global checkpoint: buffers off and emptied (Section 4.2.2),
        order-preserving processing off, queued batches handed on in arrival order."""
        if self.order_preserving:
            for ch in self.channels:
                self.queue.extend((ch, env) for env in self.lanes[ch])
                self.lanes[ch].clear()
            self.barriers.clear()
            self.order_preserving = False
        self.buffering = False
        for buffer in self.buffers.values():
            buffer.clear()

    # --- input -------------------------------------------------------------------------------

    def receive(self, ch, env) -> str | None:
        """Accept an envelope from channel ``ch``; 'duplicate' if dropped, 'gap' if sequence
        numbers were skipped (a message was lost: never in a correct run)."""
        seq = env[0]
        last = self.received[ch]
        if seq <= last and self.dedup:
            return "duplicate"
        self.received[ch] = seq
        if self.order_preserving:
            self.lanes[ch].append(env)
            payload = env[2]
            if type(payload) is Marker and payload.boundary >= self.next_boundary:
                self.barriers.setdefault(payload.boundary, {})[ch] = None
        else:
            self.queue.append((ch, env))
        return "gap" if seq > last + 1 else None

    def due(self) -> float | None:
        """A source's next boundary time, when it has one left."""
        if self.next_boundary > self.settings.last_boundary:
            return None
        return self.next_boundary * self.settings.batch_interval

    def ready(self, now: float) -> bool:
        if self.is_source:
            due = self.due()
            return due is not None and now >= due
        if self.order_preserving:
            return len(self.barriers.get(self.next_boundary, ())) == len(self.channels)
        if self.queue and self.blocked:
            self.hold()
        return bool(self.queue)

    def hold(self) -> None:
        """Move the arrivals at the head of the queue on blocked channels to ``held``."""
        queue = self.queue
        while queue and queue[0][0] in self.blocked:
            self.held.append(queue.popleft())

    # --- processing --------------------------------------------------------------------------

    def step(self) -> float:
        """Process one unit of work (a message, or a whole mini-batch under order-preserving
        processing, or a source's mini-batch); return its CPU seconds. Each output is stamped
        with the CPU seconds spent when it was sent, so a node killed mid-step has sent only
        part of it."""
        self.spent = 0.0
        if self.is_source:
            self._step_source()
        elif self.order_preserving:
            self._step_batch()
        else:  # normal mode: the next message in arrival order
            ch, env = self.queue.popleft()
            if type(env[2]) is Marker:
                self._step_marker(ch, env)
            else:
                self._process(ch, env)
        return self.spent

    def _step_marker(self, ch, env) -> None:
        payload = env[2]
        self.spent += self.settings.marker_cost
        self._consume_marker(ch, env)
        if payload.ckpt is None:  # a barrier sent before order-preserving processing ended
            return
        self.blocked.add(ch)  # Fig 4: what follows P_k on ch waits for P_k on every channel
        if len(self.blocked) == len(self.channels):
            self.blocked.clear()
            self.queue.extendleft(reversed(self.held))
            self.held.clear()
            self._close_batch(payload)

    def _step_batch(self) -> None:
        """Algorithm 1, lines 9-16, for batch BID = self.next_boundary."""
        bid = self.next_boundary
        barrier = None
        for ch in self.channels:  # InputList order (line 10)
            lane = self.lanes[ch]
            while True:
                env = lane.popleft()
                payload = env[2]
                if type(payload) is not Marker:
                    self._process(ch, env)
                elif payload.boundary == bid:
                    self._consume_marker(ch, env)
                    barrier = payload
                    break
                # else: a replayed barrier of a processed batch, possible only without dedup
        del self.barriers[bid]
        self.spent += self.settings.marker_cost
        self._close_batch(barrier)

    def _step_source(self) -> None:
        bound = self.next_boundary * self.settings.batch_interval
        log, name, index = self.log, self.pid[0], self.pid[1]
        count = 0
        while self.offset < len(log):
            ts, key, value = log[self.offset]
            if ts >= bound:
                break
            self.spent += self.cost
            self._emit(((name, index, self.offset), key, ts, value))
            self.out_wm = ts
            self.offset += 1
            count += 1
        self.processed += count
        settings = self.settings
        m = self.next_boundary
        last = m == settings.last_boundary
        marker = Marker(m, m if last or m % settings.checkpoint_every == 0 else None, last)
        self.out_wm = math.inf if last else bound
        self.spent += settings.marker_cost
        self._close_batch(marker)

    def _close_batch(self, marker: Marker) -> None:
        """Forward the marker (line 16), checkpoint at a punctuation, advance BID."""
        if self.order_preserving or marker.ckpt is not None:
            for dst in self.targets:
                self._send(dst, marker)
        if marker.ckpt is not None:  # after the marker, as downstream's lastSeq counts it
            blob = self.snapshot(marker.boundary)
            self.persisted.append((marker.ckpt, blob, self.offset))
            self.spent += len(blob) * self.settings.checkpoint_cost_per_byte
        self.next_boundary = marker.boundary + 1  # the increment missing from Algorithm 1

    def _process(self, ch, env) -> None:
        seq, wm, data = env
        self.spent += self.cost
        self.last_seq[ch] = seq  # line 14
        if self.audit is not None:
            self.audit[ch].append((seq, data[0]))
        self.on_data(self.op, self.state, self.side[ch], data, self._emit)
        if wm > self.ch_wm[ch]:  # (_advance's own test, without the call: most do not raise it)
            self._advance(ch, wm)
        self.processed += 1

    def _consume_marker(self, ch, env) -> None:
        self.last_seq[ch] = env[0]
        if self.audit is not None:
            self.audit[ch].append((env[0], None))
        self._advance(ch, env[1])

    def _advance(self, ch, wm: float) -> None:
        """Raise channel ``ch``'s watermark; fire what the operator's input watermark passes.
        Outputs of this message already carry the old output watermark, which stays a valid
        promise for them; the new one is attached from the next message on."""
        old = self.ch_wm[ch]
        if wm <= old:
            return
        self.ch_wm[ch] = wm
        if old == self.in_wm:
            new = min(self.ch_wm.values())
            if new > self.in_wm:
                self.in_wm = new
                operators.on_watermark(self.op, self.state, new, self._emit)
                self.out_wm = operators.out_watermark(self.op, new)

    # --- output ------------------------------------------------------------------------------

    def _emit(self, data: tuple) -> None:
        spent = self.spent
        if self.output:
            self.written.append((data, spent))
        key = data[1]
        code = key if type(key) is int else key_code(key)  # route() without a call per target
        out_seq, wm, outbox = self.out_seq, self.out_wm, self.outbox
        buffers = self.buffers if self.buffering else None
        for parallelism, partitions in self.routes:  # _send, inlined: once per output tuple
            dst = partitions[code % parallelism]
            seq = out_seq[dst] + 1
            out_seq[dst] = seq
            env = (seq, wm, data)
            if buffers is not None:
                buffers[dst].append(env)
            outbox.append((dst, env, spent))

    def _send(self, dst, payload) -> None:
        out_seq = self.out_seq
        seq = out_seq[dst] + 1
        out_seq[dst] = seq
        env = (seq, self.out_wm, payload)
        if self.buffering:
            self.buffers[dst].append(env)
        self.outbox.append((dst, env, self.spent))
