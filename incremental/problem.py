"""The recovery-scheduling problem (Definitions 1-3, Section 2.3 and Appendix D.1).

A problem holds only what scheduling needs: the failed partitions FP with their costs c_k, and the
failed queries, each as its failed partitions Q_i ∩ FP and its priority prt_i (an integer 1-10,
Section 2.3). Costs are CPU shares in percent of one node (Section 2.3); R is in the same unit.
A query is recovered when all its failed partitions are in the plan: recovered queries are counted
by closure (failed set ⊆ plan), whichever queries a scheduler added explicitly.

``upstream`` (optional) gives each failed partition its failed ancestors and ``rank`` its
topological rank; only the operator-centric baseline uses them. ``problem_from_topology`` builds
a problem, both included, from a partition-level topology and the failed nodes.
"""

import math
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

PRIORITY_RANGE = (1, 10)  # Section 2.3: an integer between 1 and 10
DEFAULT_PRIORITY = 1  # Section 2.3: "with the default value as 1"
TOLERANCE = 1e-9  # absolute slack when comparing float sums of costs with R


def _priority(query, value) -> int:
    lo, hi = PRIORITY_RANGE
    if isinstance(value, bool) or not isinstance(value, Integral) or not lo <= value <= hi:
        raise ValueError(
            f"priority of query {query!r} must be an integer in {lo}..{hi}; got {value!r}"
        )
    return int(value)


def _cost(partition, value) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 < value < math.inf:
        raise ValueError(
            f"cost of partition {partition!r} must be a finite number > 0 (a CPU share); "
            f"got {value!r}"
        )
    return float(value)


def check_budget(R) -> float:
    """R, the available resources, validated: a finite number >= 0."""
    if isinstance(R, bool) or not isinstance(R, Real) or not 0 <= R < math.inf:
        raise ValueError(f"R (available resources) must be a finite number >= 0; got {R!r}")
    return float(R)


def _depths(partitions: tuple, upstream: Mapping) -> dict:
    """Longest chain of failed ancestors of each partition; ValueError on a cycle."""
    depth: dict = {}
    visiting: set = set()

    def visit(p) -> int:
        if p in depth:
            return depth[p]
        if p in visiting:
            raise ValueError(f"upstream is cyclic: partition {p!r} is its own ancestor")
        visiting.add(p)
        depth[p] = 1 + max((visit(a) for a in upstream.get(p, ())), default=-1)
        visiting.discard(p)
        return depth[p]

    for p in partitions:
        visit(p)
    return depth


@dataclass(frozen=True, kw_only=True)
class Schedule:
    """A recovery plan: the partitions to recover, the queries they recover (by closure), the sum
    of those queries' priorities and the plan's cost."""

    partitions: frozenset
    queries: frozenset
    priority: int
    cost: float


@dataclass(frozen=True, kw_only=True)
class RecoveryProblem:
    """Definition 2's input: failed partitions with costs, failed queries with priorities.

    costs: {partition: cost > 0}, every failed partition, each in at least one query.
    queries: {query: (failed partitions of the query, priority in 1..10)}.
    upstream: {partition: failed partitions upstream of it}; acyclic; default none.
    rank: {partition: topological rank, an integer >= 0} for every partition; default the
        longest chain of failed ancestors in ``upstream``. A fixed property of the topology:
        ``remaining`` keeps it while the ancestors recover.
    """

    costs: Mapping[Hashable, float]
    queries: Mapping[Hashable, tuple[frozenset, int]]
    upstream: Mapping[Hashable, frozenset] = field(default_factory=dict)
    rank: Mapping[Hashable, int] = field(default_factory=dict)
    partitions: tuple = field(init=False, repr=False, compare=False)
    query_ids: tuple = field(init=False, repr=False, compare=False)
    cost_array: np.ndarray = field(init=False, repr=False, compare=False)
    priority_array: np.ndarray = field(init=False, repr=False, compare=False)
    incidence: np.ndarray = field(init=False, repr=False, compare=False)
    rank_array: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if not isinstance(self.costs, Mapping) or not self.costs:
            raise ValueError("costs must be a non-empty mapping {failed partition: cost}")
        costs = {p: _cost(p, c) for p, c in self.costs.items()}
        if not isinstance(self.queries, Mapping) or not self.queries:
            raise ValueError("queries must be a non-empty mapping {query: (failed, priority)}")
        queries = {}
        for q, spec in self.queries.items():
            if not isinstance(spec, tuple) or len(spec) != 2:
                raise ValueError(
                    f"query {q!r} must map to (failed_partitions, priority); got {spec!r}"
                )
            failed, prt = frozenset(spec[0]), _priority(q, spec[1])
            if not failed:
                raise ValueError(f"query {q!r} has no failed partition: it is not a failed query")
            unknown = failed - costs.keys()
            if unknown:
                raise ValueError(
                    f"query {q!r} names failed partitions with no cost: "
                    f"{sorted(map(repr, unknown))}"
                )
            queries[q] = (failed, prt)
        in_some = frozenset().union(*(failed for failed, _ in queries.values()))
        orphans = costs.keys() - in_some
        if orphans:
            raise ValueError(
                f"partitions in no query: {sorted(map(repr, orphans))}; every failed partition "
                f"must belong to a failed query (Definition 1)"
            )
        upstream = {}
        for p, ancestors in self.upstream.items():
            ancestors = frozenset(ancestors)
            unknown = ({p} | ancestors) - costs.keys()
            if unknown:
                raise ValueError(
                    f"upstream names partitions that are not failed: {sorted(map(repr, unknown))}"
                )
            upstream[p] = ancestors
        partitions = tuple(costs)
        depth = _depths(partitions, upstream)  # also rejects a cyclic upstream
        rank = dict(self.rank) if self.rank else depth
        if rank.keys() != costs.keys() or any(
            isinstance(r, bool) or not isinstance(r, Integral) or r < 0 for r in rank.values()
        ):
            raise ValueError("rank must give every failed partition an integer >= 0")
        index = {p: k for k, p in enumerate(partitions)}
        incidence = np.zeros((len(queries), len(partitions)), dtype=bool)
        for i, (failed, _) in enumerate(queries.values()):
            incidence[i, [index[p] for p in failed]] = True
        derived = {
            "costs": costs,
            "queries": queries,
            "upstream": upstream,
            "rank": {p: int(rank[p]) for p in partitions},
            "partitions": partitions,
            "query_ids": tuple(queries),
            "cost_array": np.array([costs[p] for p in partitions]),
            "priority_array": np.array([prt for _, prt in queries.values()], dtype=np.int64),
            "incidence": incidence,
            "rank_array": np.array([rank[p] for p in partitions], dtype=np.int64),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)
        for array in ("cost_array", "priority_array", "incidence", "rank_array"):
            getattr(self, array).flags.writeable = False

    @property
    def share_frequencies(self) -> np.ndarray:
        """f_k of Definition 3: the number of failed queries sharing each failed partition."""
        return self.incidence.sum(axis=0)

    def schedule(self, plan: Iterable) -> Schedule:
        """The Schedule of a set of failed partitions: its recovered queries by closure."""
        plan = frozenset(plan)
        unknown = plan - self.costs.keys()
        if unknown:
            raise ValueError(
                f"plan names partitions that are not failed: {sorted(map(repr, unknown))}"
            )
        member = np.array([p in plan for p in self.partitions], dtype=bool)
        return self.schedule_mask(member)

    def schedule_mask(self, member: np.ndarray) -> Schedule:
        """The Schedule of a plan given as a bool mask over ``partitions``."""
        covered = ~(self.incidence & ~member).any(axis=1)
        return Schedule(
            partitions=frozenset(p for p, m in zip(self.partitions, member, strict=True) if m),
            queries=frozenset(q for q, c in zip(self.query_ids, covered, strict=True) if c),
            priority=int(self.priority_array[covered].sum()),
            cost=float(self.cost_array[member].sum()),
        )

    def remaining(self, recovered: Iterable) -> "RecoveryProblem | None":
        """The problem left once ``recovered`` partitions run again (None when nothing is left):
        each query keeps its failed partitions not yet recovered; recovered queries drop out."""
        recovered = frozenset(recovered)
        queries = {
            q: (failed - recovered, prt)
            for q, (failed, prt) in self.queries.items()
            if failed - recovered
        }
        if not queries:
            return None
        costs = {p: c for p, c in self.costs.items() if p not in recovered}
        upstream = {
            p: ancestors - recovered for p, ancestors in self.upstream.items() if p in costs
        }
        rank = {p: r for p, r in self.rank.items() if p in costs}
        return RecoveryProblem(costs=costs, queries=queries, upstream=upstream, rank=rank)


def max_share_frequency(problem: RecoveryProblem) -> int:
    """d of Theorem 5.1: the largest f_k over FAILED partitions (alive partitions excluded: counting
    them would make d the number of queries and the bound vacuous)."""
    return int(problem.share_frequencies.max())


def theorem51_bound(d: int) -> float:
    """Theorem 5.1's approximation ratio 1 - e^(-1/d)."""
    if isinstance(d, bool) or not isinstance(d, Integral) or d < 1:
        raise ValueError(f"d (maximal share frequency) must be an integer >= 1; got {d!r}")
    return 1.0 - math.exp(-1.0 / d)


def problem_from_topology(
    *,
    edges: Iterable[tuple[Hashable, Hashable]],
    outputs: Iterable[Hashable],
    costs: Mapping[Hashable, float],
    placement: Mapping[Hashable, Hashable],
    failed_nodes: Iterable[Hashable],
    priorities: Mapping[Hashable, int] | None = None,
) -> RecoveryProblem:
    """A RecoveryProblem from a partition-level topology and the nodes that failed.

    edges: (upstream partition, downstream partition) pairs, the key groupings actually routed
        (sparse groupings allowed); the graph must be acyclic.
    outputs: the output partitions; each defines query Q_i (Definition 1): the output partition
        and the upstream closure of its inputs. Query ids are the output partitions.
    costs: {partition: cost}, at least every partition on a failed node.
    placement: {partition: node} for every partition.
    failed_nodes: the nodes lost; their partitions are FP.
    priorities: {output partition: priority 1..10}; default 1 (Section 2.3).
    """
    priorities = dict(priorities or {})
    parents: dict = {}
    for u, v in edges:
        parents.setdefault(v, set()).add(u)
        parents.setdefault(u, set())
    outputs = list(outputs)
    for p in outputs:
        parents.setdefault(p, set())
    missing = parents.keys() - placement.keys()
    if missing:
        raise ValueError(f"placement misses partitions: {sorted(map(repr, missing))}")
    unknown = priorities.keys() - set(outputs)
    if unknown:
        raise ValueError(f"priorities name non-output partitions: {sorted(map(repr, unknown))}")

    closure: dict = {}  # strict ancestors
    level: dict = {}  # longest path from a source: the topological rank
    visiting: set = set()

    def ancestors(p) -> frozenset:
        if p in closure:
            return closure[p]
        if p in visiting:
            raise ValueError(f"the topology is cyclic: partition {p!r} is its own upstream")
        visiting.add(p)
        closure[p] = frozenset().union(*({u} | ancestors(u) for u in parents[p]))
        level[p] = 1 + max((level[u] for u in parents[p]), default=-1)
        visiting.discard(p)
        return closure[p]

    for p in parents:
        ancestors(p)
    failed_nodes = frozenset(failed_nodes)
    failed = {p for p, node in placement.items() if node in failed_nodes and p in parents}
    queries = {}
    for out in outputs:
        hit = ({out} | closure[out]) & failed
        if hit:
            queries[out] = (frozenset(hit), priorities.get(out, DEFAULT_PRIORITY))
    dead_ends = failed - frozenset().union(*(q for q, _ in queries.values()))
    if dead_ends:
        raise ValueError(
            f"failed partitions upstream of no output partition: {sorted(map(repr, dead_ends))}"
        )
    if not failed:
        raise ValueError("failed_nodes hold no partition: nothing to recover")
    no_cost = failed - costs.keys()
    if no_cost:
        raise ValueError(f"costs miss failed partitions: {sorted(map(repr, no_cost))}")
    order = [p for p in parents if p in failed]  # first-seen order, for reproducible ids
    return RecoveryProblem(
        costs={p: costs[p] for p in order},
        queries=queries,
        upstream={p: closure[p] & failed for p in order},
        rank={p: level[p] for p in order},
    )
