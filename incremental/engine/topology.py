"""Operators, topologies and their partitions (Section 2.1 of Su & Zhou).

An operator is parallelized into partitions ``(name, index)``. Each input stream is split into key
groupings, so every upstream partition has a channel to every downstream partition and routes a
tuple to partition ``key_code(key) % parallelism``. A tuple is ``(uid, key, ts, value)``: ``uid``
is its deterministic lineage id (what makes exactly-once checkable at the output), ``ts`` its event
time. Units: seconds of virtual time; ``cost`` is CPU seconds per input tuple on a one-core node;
``share`` is the partition's CPU share (cores) reserved for it when it is placed, the scheduler's
partition cost (Section 2.3).
"""

import math
import zlib
from dataclasses import dataclass
from functools import cached_property

DEFAULT_COST = 1e-4  # no value in the paper: 10,000 tuples/s per core, near Fig 18's 12,000
DEFAULT_SHARE = 0.1  # no value in the paper


def key_code(key) -> int:
    """A process-independent integer for a key (``hash`` of a str changes with PYTHONHASHSEED)."""
    if isinstance(key, int):
        return key
    return zlib.crc32(str(key).encode())


def route(key, parallelism: int) -> int:
    """The key grouping (downstream partition index) of ``key``."""
    return key_code(key) % parallelism


@dataclass(frozen=True, kw_only=True)
class Operator:
    name: str
    parallelism: int = 1
    cost: float = DEFAULT_COST
    share: float = DEFAULT_SHARE
    output: bool = False  # an output operator: its partitions write results to the sink

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty str; got {self.name!r}")
        if isinstance(self.parallelism, bool) or not isinstance(self.parallelism, int):
            raise ValueError(f"parallelism of {self.name} must be an int >= 1")
        if self.parallelism < 1:
            raise ValueError(f"parallelism of {self.name} must be >= 1; got {self.parallelism}")
        if not 0 <= self.cost < math.inf:
            raise ValueError(f"cost of {self.name} must be finite and >= 0; got {self.cost}")
        if not 0 < self.share < math.inf:
            raise ValueError(f"share of {self.name} must be finite and > 0; got {self.share}")

    @property
    def inputs(self) -> tuple[str, ...]:
        return ()


@dataclass(frozen=True, kw_only=True)
class Source(Operator):
    """Reads its partitions of the durable source log (the Kafka stand-in); ``cost`` per record."""


@dataclass(frozen=True, kw_only=True)
class Filter(Operator):
    """Deterministic filter: drops tuples whose ``key_code(key) % modulus == drop``."""

    input: str
    modulus: int = 2
    drop: int = 0

    def __post_init__(self):
        super().__post_init__()
        if self.modulus < 1 or not 0 <= self.drop < self.modulus:
            raise ValueError(f"{self.name}: need modulus >= 1 and 0 <= drop < modulus")

    @property
    def inputs(self) -> tuple[str, ...]:
        return (self.input,)


@dataclass(frozen=True, kw_only=True)
class Map(Operator):
    """Re-keys a tuple to ``key_code(key) // divisor`` (so it may move to another partition)."""

    input: str
    divisor: int = 2

    def __post_init__(self):
        super().__post_init__()
        if self.divisor < 1:
            raise ValueError(f"divisor of {self.name} must be >= 1; got {self.divisor}")

    @property
    def inputs(self) -> tuple[str, ...]:
        return (self.input,)


@dataclass(frozen=True, kw_only=True)
class WindowCount(Operator):
    """Event-time window count per key; tumbling when ``slide`` is None (= ``size``), else
    sliding with ``size`` a multiple of ``slide``. Emits ``((name, i, key), key, end, count)``
    for window i = [i·slide, i·slide + size) once the watermark passes its end."""

    input: str
    size: float
    slide: float | None = None

    def __post_init__(self):
        super().__post_init__()
        slide = self.size if self.slide is None else self.slide
        if not 0 < slide <= self.size < math.inf:
            raise ValueError(f"{self.name}: need 0 < slide <= size < inf")
        ratio = self.size / slide
        if abs(ratio - round(ratio)) > 1e-9:
            raise ValueError(f"{self.name}: size must be a multiple of slide")

    @property
    def inputs(self) -> tuple[str, ...]:
        return (self.input,)

    @cached_property  # read per input tuple
    def step(self) -> float:
        return self.size if self.slide is None else self.slide

    @cached_property
    def span(self) -> int:
        """Windows a tuple belongs to (size / slide)."""
        return round(self.size / self.step)


@dataclass(frozen=True, kw_only=True)
class Join(Operator):
    """Equi-join on key within tumbling event-time windows of ``size``: a left and a right tuple
    with the same key and window emit ``((name, uid_l, uid_r), key, max ts, (v_l, v_r))``."""

    left: str
    right: str
    size: float

    def __post_init__(self):
        super().__post_init__()
        if self.left == self.right:
            raise ValueError(f"{self.name}: left and right must be different operators")
        if not 0 < self.size < math.inf:
            raise ValueError(f"size of {self.name} must be finite and > 0; got {self.size}")

    @property
    def inputs(self) -> tuple[str, ...]:
        return (self.left, self.right)


class Topology:
    """A DAG of operators; partitions, channels and topological order derived from it."""

    def __init__(self, operators):
        operators = list(operators)
        if not operators:
            raise ValueError("operators must not be empty")
        self.operators: dict[str, Operator] = {}
        for op in operators:
            if not isinstance(op, Operator):
                raise ValueError(f"operators must be Operator instances; got {op!r}")
            if op.name in self.operators:
                raise ValueError(f"operator names must be unique; {op.name!r} repeats")
            self.operators[op.name] = op
        for op in operators:
            for name in op.inputs:
                if name not in self.operators:
                    raise ValueError(f"{op.name} reads unknown operator {name!r}")
        self.order = self._topological_order()
        self.downstream: dict[str, list[str]] = {name: [] for name in self.order}
        for name in self.order:
            for up in self.operators[name].inputs:
                self.downstream[up].append(name)
        self.partitions = [
            (name, i) for name in self.order for i in range(self.operators[name].parallelism)
        ]
        self.sources = [p for p in self.partitions if isinstance(self.operators[p[0]], Source)]

    def _topological_order(self) -> list[str]:
        order, state = [], {}

        def visit(name, path):
            if state.get(name) == "done":
                return
            if state.get(name) == "open":
                raise ValueError(f"topology is cyclic through {' -> '.join([*path, name])}")
            state[name] = "open"
            for up in self.operators[name].inputs:
                visit(up, [*path, name])
            state[name] = "done"
            order.append(name)

        for name in self.operators:
            visit(name, [])
        return order

    def upstream_partitions(self, pid) -> list[tuple[str, int]]:
        """The input channels of ``pid``, sorted by upstream partition id (Algorithm 1's
        InputList)."""
        ups = [
            (up, i)
            for up in self.operators[pid[0]].inputs
            for i in range(self.operators[up].parallelism)
        ]
        return sorted(ups)

    def downstream_partitions(self, pid) -> list[tuple[str, int]]:
        return [
            (down, i)
            for down in self.downstream[pid[0]]
            for i in range(self.operators[down].parallelism)
        ]
