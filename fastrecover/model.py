"""The FastRecover model: operators, chain and tree topologies, recovery configurations,
checkpointing overhead (2.1) and recovery time (3.2).

Yaduvanshi, FastRecover (MS thesis, UIUC 2016), Chapters 2-3. Units: time in minutes, data in KB
(Section 4.1). Operators are numbered from 1 as in the thesis; arrays here are 0-based.

A topology is described by each operator's *upstream* operator, the one it receives tuples from:
in a chain op_{i-1} (data flows op_1 -> op_n); in a tree the parent (the root op_n receives the
topology's input; trees are numbered from the leaves up, so a parent's index exceeds its
children's). When op_i fails, every operator on the path from op_i up to its segment's anchor
(head_i) restores its state, and the anchor replays its input since op_i's last checkpoint.

The storage overhead Δ(x) is left abstract by the thesis; ``Storage`` makes it linear with two
costs: Δ_log(x) = x / B_log for logging an anchor's input tuples (and replaying them), and
Δ_snap(x) = x / B_snap for state snapshots (and restoring them). B_log = B_snap is the
single-bandwidth model Δ(x) = x / B. See ``Storage`` for the defaults and their justification.
"""

import math
import numbers
from dataclasses import dataclass, field

import numpy as np

MAX_FANOUT = 3  # Section 4.2.2: trees with a maximum fan-out of three

# Default bandwidths, KB per minute. The thesis gives no Δ; fastrecover_delta maps which of its
# observations each (B_log, B_snap) satisfies. Chain feasibility depends on B_log alone (anchors
# log their input), and B_snap scales every chain RT by one factor (η ∝ B_snap, restores ∝
# 1/B_snap).
# - B_log = 20,000 (about 330 KB/s, per-tuple logging to a remote store) makes NSegments infeasible
#   for a share of chains growing with n, almost 100% at n = 35 (Fig. 4.1; measured on 200 chains:
#   20%, 44%, 73%, 95% at n = 5, 15, 25, 35). FR3 is therefore calibrated, not evidence.
# - B_snap = 2,000,000 (about 33 MB/s, bulk snapshots to a local disk) is the smallest round value
#   at which the thesis's tree default F_max = 200 per minute is feasible (the lowest grid
#   frequency, 2 per minute, must fit one CH_inc per operator: every default tree is feasible at
#   2e6, 77% at 1.5e6, none at 1e6). It also brings NSegments' largest RT to the printed magnitudes
#   (1.211 at n = 10, 0.49 at n = 15) within a factor of about 2 and 4; no B_snap meets both, since
#   their ratio is set by B_log alone.
# The single-bandwidth model (B_snap = B_log): Storage(b, snapshot_bandwidth=None).
DEFAULT_BANDWIDTH = 20_000.0
DEFAULT_SNAPSHOT_BANDWIDTH = 2_000_000.0


@dataclass(frozen=True)
class Storage:
    """Δ(x) = x / B: the fraction of time spent storing x KB per minute (or, for a one-off
    restore of x KB, the minutes it takes), B in KB per minute.

    bandwidth: B_log, for input logging at anchors (Δ(Ω_i θ_i)) and its replay.
    snapshot_bandwidth: B_snap, for state snapshots (Δ(η_i π_i)) and restores (Δ(π_i)); None
    means B_snap = B_log, the single-bandwidth model. Defaults: see DEFAULT_BANDWIDTH."""

    bandwidth: float = DEFAULT_BANDWIDTH
    snapshot_bandwidth: float | None = DEFAULT_SNAPSHOT_BANDWIDTH

    def __post_init__(self):
        for name in ("bandwidth", "snapshot_bandwidth"):
            value = getattr(self, name)
            if value is None and name == "snapshot_bandwidth":
                continue
            if not (isinstance(value, int | float) and np.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number of KB per minute; got {value}")

    @property
    def snapshot(self) -> float:
        """B_snap."""
        return self.bandwidth if self.snapshot_bandwidth is None else self.snapshot_bandwidth

    def delta_log(self, x):
        """Δ_log: logging or replaying x KB of input tuples."""
        return np.asarray(x, dtype=float) / self.bandwidth

    def delta_snap(self, x):
        """Δ_snap: snapshotting or restoring x KB of state."""
        return np.asarray(x, dtype=float) / self.snapshot


@dataclass(frozen=True)
class Operator:
    """op_i = <s, τ, π, θ, ρ>: selectivity (output tuples per input tuple, in (0, 1]), processing
    time per tuple (min), state size (KB), input tuple size (KB), failure frequency (per min)."""

    s: float
    tau: float
    pi: float
    theta: float
    rho: float

    def __post_init__(self):
        for name, ok, allowed in _OPERATOR_RANGES:
            value = getattr(self, name)
            # A number first: a str or None would fail the comparison with a TypeError. A float
            # is checked without the slower abstract-class test (random topologies make
            # millions of operators in a sweep).
            if type(value) is float:
                number = math.isfinite(value)
            else:
                number = isinstance(value, numbers.Real) and not isinstance(value, bool)
                number = number and np.isfinite(value)
            if not (number and ok(value)):
                raise ValueError(f"operator {name} must be a number {allowed}; got {value!r}")


_OPERATOR_RANGES = (
    ("s", lambda v: 0 < v <= 1, "in (0, 1]"),
    ("tau", lambda v: v >= 0, ">= 0"),
    ("pi", lambda v: v > 0, "> 0"),
    ("theta", lambda v: v > 0, "> 0"),
    ("rho", lambda v: v >= 0, ">= 0"),
)


@dataclass(frozen=True)
class Topology:
    """Operators and, for each, the index (0-based) of its upstream operator (-1: the source)."""

    operators: tuple[Operator, ...]
    upstream: tuple[int, ...]
    omega: float  # Ω, input tuples per minute into the topology
    rates: np.ndarray = field(init=False, repr=False)  # Ω_i
    s: np.ndarray = field(init=False, repr=False)
    tau: np.ndarray = field(init=False, repr=False)
    pi: np.ndarray = field(init=False, repr=False)
    theta: np.ndarray = field(init=False, repr=False)
    rho: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        n = len(self.operators)
        if n < 1:
            raise ValueError("a topology needs at least one operator")
        if not (np.isfinite(self.omega) and self.omega > 0):
            raise ValueError(
                f"omega must be a positive input rate (tuples per minute); got {self.omega}"
            )
        if len(self.upstream) != n:
            raise ValueError("upstream must give one upstream index per operator")
        for name in ("s", "tau", "pi", "theta", "rho"):
            object.__setattr__(self, name, np.array([getattr(op, name) for op in self.operators]))
        rates = np.full(n, np.nan)
        for i in self._source_first_order():
            up = self.upstream[i]
            rates[i] = self.omega if up < 0 else rates[up] * self.s[up]
        object.__setattr__(self, "rates", rates)

    def _source_first_order(self) -> list[int]:
        """Operators ordered so that every upstream comes first; rejects cycles and forests."""
        n = len(self.operators)
        sources = [i for i, up in enumerate(self.upstream) if up < 0]
        if len(sources) != 1:
            raise ValueError(f"a topology has exactly one source operator; got {len(sources)}")
        downstream = [[] for _ in range(n)]
        for i, up in enumerate(self.upstream):
            if up >= n:
                raise ValueError(f"upstream index {up} of operator {i + 1} is out of range")
            if up >= 0:
                downstream[up].append(i)
        order, stack = [], [sources[0]]
        while stack:
            i = stack.pop()
            order.append(i)
            stack.extend(downstream[i])
        if len(order) != n:
            raise ValueError("the topology has a cycle or an operator unreachable from the source")
        return order

    @property
    def n(self) -> int:
        return len(self.operators)


def chain(operators, omega: float) -> Topology:
    """A chain op_1 -> op_2 -> ... -> op_n; Ω_i = Ω Π_{k<i} s_k."""
    ops = tuple(operators)
    return Topology(ops, tuple(range(-1, len(ops) - 1)), float(omega))


def tree(operators, parent, omega: float, max_fanout: int = MAX_FANOUT) -> Topology:
    """A tree numbered from the leaves up: ``parent[i]`` is the 1-based parent of op_{i+1}
    (0 for the root, which must be op_n). Ω_i by (3.4); fan-out at most ``max_fanout``."""
    ops = tuple(operators)
    n = len(ops)
    parent = [int(p) for p in parent]
    if len(parent) != n:
        raise ValueError("parent must give one entry per operator")
    if parent[-1] != 0 or any(p == 0 for p in parent[:-1]):
        raise ValueError("the root must be op_n (parent 0) and only it")
    for i, p in enumerate(parent[:-1], start=1):
        if not i < p <= n:
            raise ValueError(
                f"parent of op_{i} must have a larger index (numbered from the leaves up); got {p}"
            )
    fanout = np.bincount(parent, minlength=n + 1)[1:]
    if fanout.max(initial=0) > max_fanout:
        worst = int(fanout.argmax())
        raise ValueError(
            f"fan-out must be at most {max_fanout}; op_{worst + 1} has {fanout[worst]} children"
        )
    return Topology(ops, tuple(p - 1 for p in parent), float(omega))


def children(topology: Topology) -> list[list[int]]:
    kids = [[] for _ in range(topology.n)]
    for i, up in enumerate(topology.upstream):
        if up >= 0:
            kids[up].append(i)
    return kids


@dataclass(frozen=True)
class Configuration:
    """A recovery configuration: the anchors (1-based, the source always among them) and each
    operator's checkpointing frequency η_i (per minute)."""

    anchors: frozenset[int]
    frequencies: tuple[float, ...]


def heads(topology: Topology, anchors) -> np.ndarray:
    """head_i (0-based): the nearest anchor on the path from op_i up to the source, Eq. (3.1)."""
    anchor = np.zeros(topology.n, dtype=bool)
    anchor[[a - 1 for a in anchors]] = True
    if not anchor[topology.upstream.index(-1)]:
        raise ValueError("the source operator must be an anchor (it stores the topology's input)")
    out = np.empty(topology.n, dtype=int)
    for i in topology._source_first_order():
        out[i] = i if anchor[i] else out[topology.upstream[i]]
    return out


def _check(topology: Topology, config: Configuration) -> np.ndarray:
    eta = np.asarray(config.frequencies, dtype=float)
    if eta.shape != (topology.n,) or not np.all(np.isfinite(eta)) or np.any(eta <= 0):
        raise ValueError("frequencies must give a positive checkpointing frequency per operator")
    return eta


def checkpoint_overheads(topology: Topology, config: Configuration, storage: Storage) -> np.ndarray:
    """ch_i, Eq. (2.1): Δ_snap(η_i π_i), plus Δ_log(Ω_i θ_i) for an anchor."""
    eta = _check(topology, config)
    anchor = np.isin(np.arange(1, topology.n + 1), list(config.anchors))
    return storage.delta_snap(eta * topology.pi) + anchor * storage.delta_log(
        topology.rates * topology.theta
    )


def recovery_time_terms(
    topology: Topology, anchors, storage: Storage
) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) with rt_i = a_i / η_i + b_i: a_i = Δ_log(Ω_h θ_h) + Σ_path τ_k Ω_k (replaying and
    reprocessing scale with the interval 1/η_i), b_i = Σ_path Δ_snap(π_k) (restoring the states)."""
    head = heads(topology, anchors)
    a, b = np.empty(topology.n), np.empty(topology.n)
    for i in range(topology.n):
        h, k = head[i], i
        a[i], b[i] = storage.delta_log(topology.rates[h] * topology.theta[h]), 0.0
        while True:
            a[i] += topology.tau[k] * topology.rates[k]
            b[i] += storage.delta_snap(topology.pi[k])
            if k == h:
                break
            k = topology.upstream[k]
    return a, b


def recovery_times(topology: Topology, config: Configuration, storage: Storage) -> np.ndarray:
    """rt_i, Eq. (3.2) generalized to trees: the anchor replays Δ_log(Ω_h θ_h / η_i), and every
    operator k on the path from the anchor to op_i restores Δ_snap(π_k) and reprocesses
    τ_k Ω_k / η_i (η_i: the failed operator's frequency; equal to the segment's under RSFS)."""
    eta = _check(topology, config)
    a, b = recovery_time_terms(topology, config.anchors, storage)
    return a / eta + b


def total_overhead(topology: Topology, config: Configuration, storage: Storage) -> float:
    """CH_all = Σ ch_i."""
    return float(checkpoint_overheads(topology, config, storage).sum())


def expected_recovery_time(topology: Topology, config: Configuration, storage: Storage) -> float:
    """RT_all = Σ ρ_i rt_i."""
    return float(topology.rho @ recovery_times(topology, config, storage))
