"""Operator logic on explicit, picklable state: filter, map, event-time window count, join.

Each satisfies Assumption 1 of Su & Zhou: processing the same inputs in the same order emits the
same outputs in the same order. Event time is tracked by watermarks: every message on a channel
carries the sender's promise that later data on the channel has ``ts >= wm``. A window fires once
the input watermark passes its end, so a fired count is complete whatever the interleaving of the
input channels (though the order of its keys, first seen first, is not); windows are compared in
index space (``floor(ts / slide)``) so float rounding never puts a tuple into a fired window.
"""

import math

from incremental.engine.topology import Filter, Join, Map, Operator, WindowCount, key_code


def initial_state(op: Operator) -> dict:
    if isinstance(op, WindowCount):
        return {"open": {}}  # window index -> {key: count}
    if isinstance(op, Join):
        return {"tables": {}}  # window index -> {key: ([left tuples], [right tuples])}
    return {}


def on_data(op: Operator, state: dict, side: int, data: tuple, emit) -> None:
    """Apply one input tuple; ``side`` is the input's position in ``op.inputs``."""
    data_handler(op)(op, state, side, data, emit)


def data_handler(op: Operator):
    """``on_data`` for operators of ``op``'s type, chosen once (a partition calls it per tuple)."""
    for kind, handler in _HANDLERS:
        if isinstance(op, kind):
            return handler
    return _no_input


def _window_count(op: WindowCount, state: dict, side: int, data: tuple, emit) -> None:
    key, ts = data[1], data[2]
    last = math.floor(ts / op.step)
    open_ = state["open"]
    for i in range(last - op.span + 1, last + 1):
        counts = open_.get(i)
        if counts is None:  # (setdefault would build a dict per call)
            counts = open_[i] = {}
        counts[key] = counts.get(key, 0) + 1


def _filter(op: Filter, state: dict, side: int, data: tuple, emit) -> None:
    if key_code(data[1]) % op.modulus != op.drop:
        emit(data)


def _map(op: Map, state: dict, side: int, data: tuple, emit) -> None:
    uid, key, ts, value = data
    emit((uid, key_code(key) // op.divisor, ts, value))


def _join(op: Join, state: dict, side: int, data: tuple, emit) -> None:
    key, ts = data[1], data[2]
    sides = state["tables"].setdefault(math.floor(ts / op.size), {}).setdefault(key, ([], []))
    sides[side].append(data)
    for other in sides[1 - side]:
        left, right = (data, other) if side == 0 else (other, data)
        emit(((op.name, left[0], right[0]), key, max(left[2], right[2]), (left[3], right[3])))


def _no_input(op: Operator, state: dict, side: int, data: tuple, emit) -> None:
    raise ValueError(f"operator {op.name} of type {type(op).__name__} takes no input")


_HANDLERS = ((WindowCount, _window_count), (Filter, _filter), (Map, _map), (Join, _join))


def on_watermark(op: Operator, state: dict, wm: float, emit) -> None:
    """Fire the windows (or drop the join windows) that the input watermark ``wm`` has passed."""
    if isinstance(op, WindowCount):
        open_ = state["open"]
        limit = math.inf if wm == math.inf else math.floor(wm / op.step)
        for i in sorted(i for i in open_ if i + op.span <= limit):
            counts = open_.pop(i)
            end = (i + op.span) * op.step
            for key, count in counts.items():  # first-seen order, as a hash map would
                emit(((op.name, i, key), key, end, count))
    elif isinstance(op, Join):
        tables = state["tables"]
        limit = math.inf if wm == math.inf else math.floor(wm / op.size)
        for w in [w for w in tables if w < limit]:
            del tables[w]


def out_watermark(op: Operator, wm: float) -> float:
    """The operator's output watermark once its input watermark is ``wm``."""
    if isinstance(op, WindowCount) and math.isfinite(wm):
        # Windows ending at or before floor(wm / slide) have fired; the next ends one slide later.
        return (math.floor(wm / op.step) + 1) * op.step
    return wm
