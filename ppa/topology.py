"""Query topologies of parallel tasks (Section II-A of Su & Zhou).

Operators are made of tasks; an operator subscribes to other operators (never itself). A task has
one input stream per upstream operator, made of the substreams it receives from that operator's
tasks. Rates are nominal, failure-free substream rates (tuples/s), inputs to the model: a join's
"effective" rate λ1·λ2 (Section III-A1) is never propagated as its output rate.

Partitionings between an upstream operator of N1 tasks and a downstream one of N2 tasks
(Section II-A, after Zhou et al. [28]), inferred from the substreams:
- one-to-one: every upstream task sends to one downstream task, which receives from it alone;
- split: N2 = M2·N1 with M2 >= 2; each upstream task sends to M2 tasks, each of which receives
  from it alone;
- merge: N1 = M1·N2 with M1 >= 2; each upstream task sends to one task, which receives from M1;
- full: every upstream task sends to every downstream task.
The paper requires M2 < N2 and M1 < N1, so an edge into a one-task operator (a merge of all N1
tasks, or one-to-one from one task) and an edge out of a one-task operator (a split to all N2
tasks) are full: the four definitions then describe the same substreams and full is the one that
holds whatever the task counts.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

ONE_TO_ONE, SPLIT, MERGE, FULL = "one-to-one", "split", "merge", "full"
PARTITIONINGS = (ONE_TO_ONE, SPLIT, MERGE, FULL)


@dataclass(frozen=True)
class _Compiled:
    """Dense per-edge rate matrices for the vectorized loss model (ppa.fidelity)."""

    slices: tuple[slice, ...]  # tasks of each operator, in topological order
    inputs: tuple[tuple[tuple[int, np.ndarray], ...], ...]  # per operator: (upstream, N_b x N_a)
    joins: tuple[bool, ...]
    sink_weights: np.ndarray  # λ_out of the sink tasks, normalized (Eq. (4))
    # Per operator, computed once for ppa.fidelity.completeness: each task's total input rate
    # (Eq. (3)'s denominator; None for a source), and for a join each input stream's substream
    # shares, transposed (Eq. (1)'s weights: (upstream, N_a x N_b)).
    input_totals: tuple[np.ndarray | None, ...]
    join_shares: tuple[tuple[tuple[int, np.ndarray], ...], ...]
    neighbours: tuple[int, ...]  # bit mask of the tasks sharing a substream with each task


@dataclass(frozen=True, kw_only=True, eq=False)
class Topology:
    """A DAG of operators of tasks with nominal substream rates.

    operators: operator name -> its task names (task names unique across the topology);
    joins: the correlated-input (join) operators, Eq. (2); the others are independent-input,
    Eq. (3);
    rates: (upstream task, downstream task) -> rate > 0 of that substream; the substreams define
    the subscriptions and each edge's partitioning (inferred and checked);
    sink_rates: λ_out of each sink task for Eq. (4); by default its nominal input rate (the sum of
    its input substreams' rates, i.e. selectivity 1), which the paper leaves unspecified.

    After construction ``operators`` is in topological order (sources first, the one sink last)
    and ``partitioning[(upstream, downstream)]`` names each edge's partitioning."""

    operators: Mapping[str, Sequence[str]]
    joins: Iterable[str] = frozenset()
    rates: Mapping[tuple[str, str], float]
    sink_rates: Mapping[str, float] | None = None
    partitioning: Mapping[tuple[str, str], str] = field(init=False)
    upstream: Mapping[str, tuple[str, ...]] = field(init=False)
    downstream: Mapping[str, tuple[str, ...]] = field(init=False)
    tasks: tuple[str, ...] = field(init=False)
    operator_of: Mapping[str, str] = field(init=False)
    sink: str = field(init=False)
    _compiled: _Compiled = field(init=False, repr=False)

    def __post_init__(self):
        if not isinstance(self.operators, Mapping) or len(self.operators) < 2:
            raise ValueError("operators must map at least two operator names (a source and a sink)")
        operator_of: dict[str, str] = {}
        for name, tasks in self.operators.items():
            if isinstance(tasks, str) or len(tasks) == 0:
                raise ValueError(f"operator {name!r} must have a non-empty list of task names")
            for task in tasks:
                if task in operator_of:
                    raise ValueError(f"task {task!r} belongs to two operators")
                operator_of[task] = name
        joins = frozenset(self.joins)
        if unknown := sorted(joins - set(self.operators)):
            raise ValueError(f"joins names unknown operators: {unknown}")

        pairs: dict[tuple[str, str], dict[tuple[str, str], float]] = {}
        for key, rate in self.rates.items():
            if not (isinstance(key, tuple) and len(key) == 2):
                raise ValueError(
                    f"rates keys must be (upstream task, downstream task); got {key!r}"
                )
            for task in key:
                if task not in operator_of:
                    raise ValueError(f"rates name an unknown task {task!r}")
            a, b = operator_of[key[0]], operator_of[key[1]]
            if a == b:
                raise ValueError(f"operator {a!r} subscribes to itself (substream {key})")
            if not (isinstance(rate, int | float | np.number) and np.isfinite(rate) and rate > 0):
                raise ValueError(f"rate of substream {key} must be finite and > 0; got {rate!r}")
            pairs.setdefault((a, b), {})[key] = float(rate)

        order = _topological_order(list(self.operators), list(pairs))
        upstream = {name: tuple(a for a in order if (a, name) in pairs) for name in order}
        downstream = {name: tuple(b for b in order if (name, b) in pairs) for name in order}
        sinks = [name for name in order if not downstream[name]]
        if len(sinks) != 1:
            raise ValueError(
                f"a topology has one sink operator; {sinks} have no downstream operator"
            )
        partitioning = {
            (a, b): _infer(a, self.operators[a], b, self.operators[b], pairs[a, b])
            for a, b in sorted(pairs, key=lambda e: (order.index(e[1]), order.index(e[0])))
        }
        operators = {name: tuple(self.operators[name]) for name in order}
        tasks = tuple(t for name in order for t in operators[name])
        sink_tasks = operators[sinks[0]]
        if self.sink_rates is None:
            inflow = dict.fromkeys(sink_tasks, 0.0)
            for (_, b), rate in self.rates.items():
                if b in inflow:
                    inflow[b] += float(rate)
            sink_rates = inflow
        else:
            sink_rates = dict(self.sink_rates)
            if set(sink_rates) != set(sink_tasks):
                raise ValueError(f"sink_rates must name exactly the sink tasks {list(sink_tasks)}")
            for task, rate in sink_rates.items():
                if not (np.isfinite(rate) and rate > 0):
                    raise ValueError(f"sink rate of {task!r} must be finite and > 0; got {rate!r}")
        set_ = object.__setattr__
        set_(self, "operators", operators)
        set_(self, "joins", joins)
        set_(self, "rates", {key: float(r) for key, r in self.rates.items()})
        set_(self, "sink_rates", sink_rates)
        set_(self, "partitioning", partitioning)
        set_(self, "upstream", upstream)
        set_(self, "downstream", downstream)
        set_(self, "tasks", tasks)
        set_(self, "operator_of", {t: operator_of[t] for t in tasks})
        set_(self, "sink", sinks[0])
        set_(self, "_compiled", self._compile())

    @classmethod
    def from_substreams(
        cls,
        *,
        operators: Mapping[str, Sequence[str]],
        joins: Iterable[str] = (),
        rates: Mapping[tuple[str, str], float],
        sink_rates: Mapping[str, float] | None = None,
    ) -> "Topology":
        """The topology of the given substreams, each edge's partitioning inferred and checked."""
        return cls(operators=operators, joins=joins, rates=rates, sink_rates=sink_rates)

    @classmethod
    def partitioned(
        cls,
        *,
        parallelism: Mapping[str, int],
        edges: Mapping[tuple[str, str], str],
        joins: Iterable[str] = (),
        workloads: Mapping[str, Sequence[float]] | None = None,
    ) -> "Topology":
        """Operators of ``parallelism[name]`` tasks named ``f"{name}.{k}"`` (k from 1, as t_ik in
        the paper), joined by partitioned edges {(upstream, downstream): partitioning}.

        workloads[name]: each task's output rate λ_out (default 1 per task; the paper gives no
        rates). A substream's rate is its sender's λ_out shared among the tasks it sends to in
        proportion to their workloads (their key shares), so under full partitioning a heavier
        task also receives more. Sink tasks' λ_out are their workloads. An edge into a one-task
        operator is full whatever its declared partitioning (but for one-to-one from several
        tasks, which cannot fit); a bad partitioning or task count raises ValueError."""
        for name, n in parallelism.items():
            if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
                raise ValueError(f"parallelism of {name!r} must be an integer >= 1; got {n!r}")
        names = {name: [f"{name}.{k + 1}" for k in range(n)] for name, n in parallelism.items()}
        weights = {}
        for name, n in parallelism.items():
            w = np.ones(n) if workloads is None or name not in workloads else workloads[name]
            w = np.asarray(w, dtype=float)
            if w.shape != (n,) or not np.all(np.isfinite(w) & (w > 0)):
                raise ValueError(f"workloads of {name!r} must be {n} finite values > 0")
            weights[name] = w
        if workloads is not None and (unknown := sorted(set(workloads) - set(parallelism))):
            raise ValueError(f"workloads name unknown operators: {unknown}")
        rates = {}
        for (a, b), kind in edges.items():
            for name in (a, b):
                if name not in parallelism:
                    raise ValueError(f"edge ({a!r}, {b!r}) names an unknown operator {name!r}")
            n1, n2 = parallelism[a], parallelism[b]
            for i, receivers in enumerate(_receivers(kind, a, n1, b, n2)):
                share = weights[b][receivers] / weights[b][receivers].sum()
                for j, s in zip(receivers, share, strict=True):
                    rates[names[a][i], names[b][j]] = weights[a][i] * s
        sink_rates = None
        sinks = [name for name in parallelism if not any(a == name for a, _ in edges)]
        if len(sinks) == 1:  # otherwise construction reports the sinks
            sink_rates = dict(zip(names[sinks[0]], weights[sinks[0]].tolist(), strict=True))
        return cls(operators=names, joins=joins, rates=rates, sink_rates=sink_rates)

    def mask(self, tasks: Iterable[str], *, name: str = "tasks") -> np.ndarray:
        """Boolean vector over ``self.tasks``; unknown names raise ValueError naming ``name``."""
        if isinstance(tasks, str):
            raise ValueError(f"{name} must be a set of task names, not the string {tasks!r}")
        tasks = set(tasks)
        if unknown := sorted(map(str, tasks - set(self.operator_of))):
            raise ValueError(f"{name} names unknown tasks: {unknown}")
        return np.fromiter((t in tasks for t in self.tasks), dtype=bool, count=len(self.tasks))

    def _compile(self) -> _Compiled:
        index = {t: i for i, t in enumerate(self.tasks)}
        order = list(self.operators)
        starts = np.cumsum([0] + [len(ts) for ts in self.operators.values()])
        slices = tuple(slice(int(s), int(e)) for s, e in zip(starts[:-1], starts[1:], strict=True))
        inputs = []
        for b in order:
            blocks = []
            for a in self.upstream[b]:
                matrix = np.zeros((len(self.operators[b]), len(self.operators[a])))
                blocks.append((order.index(a), matrix))
            inputs.append(tuple(blocks))
        neighbours = [0] * len(self.tasks)
        for (u, d), rate in self.rates.items():
            b, a = order.index(self.operator_of[d]), order.index(self.operator_of[u])
            matrix = next(m for k, m in inputs[b] if k == a)
            matrix[index[d] - slices[b].start, index[u] - slices[a].start] = rate
            neighbours[index[u]] |= 1 << index[d]
            neighbours[index[d]] |= 1 << index[u]
        sink = np.array([self.sink_rates[t] for t in self.operators[self.sink]])
        joins = tuple(name in self.joins for name in order)
        return _Compiled(
            slices=slices,
            inputs=tuple(inputs),
            joins=joins,
            sink_weights=sink / sink.sum(),
            neighbours=tuple(neighbours),
            input_totals=tuple(
                sum(rates.sum(axis=1) for _, rates in blocks) if blocks else None
                for blocks in inputs
            ),
            join_shares=tuple(
                tuple((a, (rates / rates.sum(axis=1, keepdims=True)).T) for a, rates in blocks)
                if join
                else ()
                for blocks, join in zip(inputs, joins, strict=True)
            ),
        )


def _topological_order(names: list[str], edges: list[tuple[str, str]]) -> list[str]:
    """Kahn's algorithm, ties in the given order; a cycle raises ValueError naming its operators."""
    indegree = dict.fromkeys(names, 0)
    for _, b in edges:
        indegree[b] += 1
    order, ready = [], [n for n in names if indegree[n] == 0]
    while ready:
        name = ready.pop(0)
        order.append(name)
        for a, b in edges:
            if a == name:
                indegree[b] -= 1
                if indegree[b] == 0:
                    ready.append(b)
    if len(order) < len(names):
        raise ValueError(
            f"the subscriptions form a cycle through operators {sorted(set(names) - set(order))}"
        )
    return order


def _infer(a, tasks_a, b, tasks_b, substreams) -> str:
    """The partitioning of the substreams from operator a to operator b (Section II-A)."""
    n1, n2 = len(tasks_a), len(tasks_b)
    sends = {t: 0 for t in tasks_a}
    receives = {t: 0 for t in tasks_b}
    for u, d in substreams:
        sends[u] += 1
        receives[d] += 1
    out, inn = set(sends.values()), set(receives.values())
    if len(substreams) == n1 * n2:
        return FULL
    if out == {1} and inn == {1}:
        return ONE_TO_ONE
    if inn == {1} and len(out) == 1 and (m := out.pop()) >= 2 and n2 == m * n1:
        return SPLIT
    if out == {1} and len(inn) == 1 and (m := inn.pop()) >= 2 and n1 == m * n2:
        return MERGE
    raise ValueError(
        f"the substreams from {a!r} ({n1} tasks) to {b!r} ({n2} tasks) fit no partitioning "
        f"(one-to-one, split, merge or full): every task must send and receive, and the counts fit"
    )


def _receivers(kind: str, a: str, n1: int, b: str, n2: int) -> list[np.ndarray]:
    """For each upstream task, the downstream tasks it sends to under ``kind``."""
    if kind == FULL or (kind in PARTITIONINGS and n2 == 1 and (kind != ONE_TO_ONE or n1 == 1)):
        return [np.arange(n2)] * n1
    if kind == ONE_TO_ONE and n1 == n2:
        return [np.array([i]) for i in range(n1)]
    if kind == SPLIT and n2 % n1 == 0 and n2 // n1 >= 2:
        m = n2 // n1
        return [np.arange(i * m, (i + 1) * m) for i in range(n1)]
    if kind == MERGE and n1 % n2 == 0 and n1 // n2 >= 2:
        return [np.array([i // (n1 // n2)]) for i in range(n1)]
    if kind not in PARTITIONINGS:
        raise ValueError(
            f"partitioning of ({a!r}, {b!r}) must be one of {PARTITIONINGS}; got {kind!r}"
        )
    need = {
        ONE_TO_ONE: "N1 = N2",
        SPLIT: "N2 = M2·N1 with M2 >= 2",
        MERGE: "N1 = M1·N2 with M1 >= 2",
    }[kind]
    raise ValueError(f"a {kind} edge from {a!r} ({n1} tasks) to {b!r} ({n2} tasks) needs {need}")
