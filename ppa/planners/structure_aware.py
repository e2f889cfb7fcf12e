"""The Structure-Aware planner (Algorithms 3-5) of Su & Zhou, Section IV-C.

Reconstructions where the paper is silent (Figs 3 and 4, which define units and sub-topologies,
are images), each a documented choice:
- Sub-topologies (IV-C3, ``decompose``): the connected components of the non-full edges are the
  structured sub-topologies; the operators all of whose edges are full, grouped by the full edges
  between them, are the full sub-topologies. Every edge between two sub-topologies is then full,
  which meets the paper's requirement ("at least one partitioning function between any two
  neighboring sub-topologies is Full"); a chain of full edges stays one full sub-topology.
- Units (IV-C1): a unit boundary is a merge edge into an operator that splits its output within
  the sub-topology, or a merge edge into a join; units are the components of the other edges.
  A segment is an MC-tree of its unit taken as a topology (ppa.fidelity.tree_masks).
- Within a sub-topology, OF_P is the OF of the whole topology with every task outside the
  sub-topology alive ("the selection of the replication segments in the sub-topologies
  independent from each other"); Alg 4's δ_ij likewise fails only operator O_i's other tasks.
- Alg 5's profit density Δ_i compares the OF of the whole plan with P_i and with its expansion
  P_i': OF is multiplicative across full boundaries, so a sub-topology's own OF gain would ignore
  how much the others let through.
- Alg 5 takes an expansion only if it raises the objective; the loop ends otherwise.

Slips of the printed pseudocode, each fixed where it occurs and cited by line in a comment.
Lines count the printed statements as the paper's text refers to them (Alg 3: line 9 the OF
test, lines 10-15 the BFS, line 16 the candidate pool; Alg 4: lines 4-7 and 10-16; Alg 5:
lines 11-17); the issue's list cites Alg 3's budget test as line 14 and Alg 4's P_i as line 17,
lines 13 and 14 here:
- Alg 3 line 13 "|CG_i| + |g_j| <= usage": the remaining budget R - usage is meant;
- Alg 3 line 18 "P = P ∩ CG_opt": P ∪ CG_opt is meant;
- Alg 3 line 19 "if CG_opt ≠ ∅ then return P" returns after one expansion: as a planner Alg 3
  goes on and stops when CG_opt = ∅; Alg 5 takes one expansion at a time (``step``);
- Alg 4 line 14 "Candidates ∪ P_i ∪ {p_ik}": P is meant (P_i is not defined in Alg 4);
- Alg 5 line 7 "PlanSubTopology(∅, R_i, TS_i)": R_i is not defined; N_i (line 6, and the name
  of PlanSubTopology's budget) is meant; line 10 "usage += N_i" counts tasks that a sub-topology
  may not have used: usage grows by |P_i|; lines 15-17 never add C_i to usage (an endless
  loop as printed).

Two deviations from the printed Algorithm 5, each a choice of ours; ``printed=True`` selects the
printed behaviour instead (Fig 14's verdict is judged both ways):
- An expansion of a full sub-topology adds one task (one iteration of Alg 4's lines 13-20). As
  printed, Alg 5 line 10 expands P_i by PlanSubTopology(P_i, R_i, TS_i) (R_i read as N_i, see
  above), and Alg 4 then adds tasks one at a time until N_i more are replicated: an expansion of a
  full sub-topology costs C_i = N_i tasks (fewer only when fewer are left), and is skipped when
  that does not fit (line 19). One task at a time lets Δ_i rank every single task.
- ``_bfs`` (Alg 3 lines 14-19) stops the whole search when a visited unit has no segment connected
  to CG_i. As printed, the BFS visits every unit ("traversing through all the units") and stops
  only when a segment does not fit the budget (line 19): a unit without a connected segment
  contributes nothing and the search goes on to its neighbours. Stopping early keeps CG_i one
  connected piece.

``objective="ic"`` plans for internal completeness instead of OF (IC-SA of Fig 12).
"""

from collections import deque
from dataclasses import dataclass

import numpy as np

from ppa.fidelity import DEFAULT_TREE_LIMIT, tree_masks
from ppa.planners.plan import METRICS, Plan, bits, check_budget, masks_to_alive
from ppa.topology import FULL, MERGE, SPLIT, Topology

TIE = 1e-12  # a gain below this is no gain (float noise of equal OF values)
STRUCTURED = "structured"


@dataclass(frozen=True, kw_only=True)
class SubTopology:
    """A set of operators planned together: ``kind`` is "full" or "structured" (IV-C)."""

    operators: tuple[str, ...]
    kind: str


def decompose(topology: Topology) -> tuple[SubTopology, ...]:
    """Sub-topologies (module docstring), the sink's first and then by their most downstream
    operator, as the DFS from the sink of IV-C3 meets them."""
    names = list(topology.operators)
    nonfull = [e for e, kind in topology.partitioning.items() if kind != FULL]
    touched = {op for edge in nonfull for op in edge}
    groups = _components(sorted(touched, key=names.index), nonfull)
    rest = [op for op in names if op not in touched]
    full_edges = [(a, b) for (a, b) in topology.partitioning if a in rest and b in rest]
    subs = [SubTopology(operators=g, kind=STRUCTURED) for g in groups]
    subs += [SubTopology(operators=g, kind=FULL) for g in _components(rest, full_edges)]
    return tuple(sorted(subs, key=lambda s: -max(map(names.index, s.operators))))


def plan_structure_aware(
    topology: Topology,
    R: int,
    *,
    objective: str = "of",
    tree_limit: int = DEFAULT_TREE_LIMIT,
    printed: bool = False,
) -> Plan:
    """Algorithm 5 (StructureAware) with Algorithms 3 and 4 for its sub-topologies. The empty plan
    when R is below the number of operators (line 3): no MC-tree fits the first round.
    ``printed``: the printed behaviour in place of the two deviations of the module docstring."""
    R = check_budget(topology, R)
    if objective not in METRICS:
        raise ValueError(f"objective must be one of {sorted(METRICS)}; got {objective!r}")
    if not isinstance(printed, bool):
        raise ValueError(f"printed must be True or False; got {printed!r}")
    metric = METRICS[objective]
    n = len(topology.tasks)
    if R < len(topology.operators):  # line 3
        return Plan.of_tasks(topology, ())
    names = list(topology.operators)
    planners = []
    for sub in decompose(topology):  # line 1
        ops = [names.index(op) for op in sub.operators]
        kind = _FullTopology if sub.kind == FULL else _StructuredTopology
        planners.append(kind(topology, ops, metric, tree_limit, printed))
    # line 7 (fixed): PlanSubTopology(∅, N_i, TS_i), the budget of one task per operator
    plans = [p.plan(0, len(p.ops)) for p in planners]
    usage = sum(p.bit_count() for p in plans)  # line 10 (fixed): |P_i|, not N_i
    expansions: list = [None] * len(planners)
    while usage < R:  # line 11
        total = 0
        for p in plans:
            total |= p
        for i, planner in enumerate(planners):  # line 8: P_i' one expansion in the budget left
            cached = expansions[i]
            if cached is None or (cached & ~plans[i]).bit_count() > R - usage:
                expansions[i] = planner.step(plans[i], R - usage)
        live = [i for i, e in enumerate(expansions) if e is not None]
        if not live:
            break  # line 18: nothing fits
        values = metric(
            topology, masks_to_alive([total] + [total | expansions[i] for i in live], n)
        )
        cost = np.array([(expansions[i] & ~plans[i]).bit_count() for i in live])
        gain = values[1:] - values[0]
        best = int(np.argmax(gain / cost))  # lines 13-15: the largest Δ_i that fits
        if gain[best] <= TIE:
            break
        i = live[best]
        plans[i], expansions[i] = expansions[i], None  # line 16
        usage += int(cost[best])  # line 17 (fixed): usage grows by C_i
    total = 0
    for p in plans:
        total |= p
    return Plan.of_mask(topology, total)


class _SubPlanner:
    """A sub-topology's objective: the metric with every task outside it alive."""

    def __init__(self, topology: Topology, ops: list[int], metric, tree_limit: int, printed: bool):
        self.topology, self.ops, self.metric, self.tree_limit = topology, ops, metric, tree_limit
        self.printed = printed
        c = topology._compiled
        self.n = len(topology.tasks)
        self.tasks = {b: list(range(c.slices[b].start, c.slices[b].stop)) for b in ops}
        inside = sum(1 << t for b in ops for t in self.tasks[b])
        self.outside = ((1 << self.n) - 1) & ~inside

    def value(self, plans: list[int]) -> np.ndarray:
        return self.metric(self.topology, masks_to_alive([p | self.outside for p in plans], self.n))

    def plan(self, plan: int, budget: int) -> int:
        """Expand ``plan`` step by step while ``budget`` more tasks allow."""
        while (expanded := self.step(plan, budget)) is not None:
            budget -= (expanded & ~plan).bit_count()
            plan = expanded
        return plan


class _FullTopology(_SubPlanner):
    """Algorithm 4 (PlanFullTopology)."""

    def __init__(self, topology, ops, metric, tree_limit, printed):
        super().__init__(topology, ops, metric, tree_limit, printed)
        everything = (1 << self.n) - 1
        self.ranked = {}
        for b in ops:  # line 3: sort each operator's tasks by δ_ij, largest first
            without = everything & ~sum(1 << t for t in self.tasks[b])
            rows = [without] + [without | 1 << t for t in self.tasks[b]]
            value = self.metric(topology, masks_to_alive(rows, self.n))
            delta = value[1:] - value[0]
            self.ranked[b] = [self.tasks[b][k] for k in np.argsort(-delta, kind="stable")]

    def _best(self, b: int, plan: int) -> int | None:
        return next((t for t in self.ranked[b] if not plan >> t & 1), None)

    def step(self, plan: int, budget: int) -> int | None:
        if plan == 0:  # lines 4-9: one task per operator, or nothing
            if budget < len(self.ops):
                return None
            return sum(1 << self.ranked[b][0] for b in self.ops)
        if not self.printed:
            return self._add_one(plan) if budget >= 1 else None
        # printed Alg 5 line 10: N_i more tasks (all that are left if fewer), or nothing
        size = min(len(self.ops), sum(len(self.tasks[b]) for b in self.ops) - plan.bit_count())
        if size < 1 or size > budget:
            return None
        for _ in range(size):
            plan = self._add_one(plan)
        return plan

    def _add_one(self, plan: int) -> int | None:
        # lines 11-16, one iteration; line 14 (fixed): P ∪ {p_ik}, not P_i ∪ {p_ik}
        candidates = [plan | 1 << t for b in self.ops if (t := self._best(b, plan)) is not None]
        if not candidates:
            return None
        return candidates[int(np.argmax(self.value(candidates)))]  # line 15


class _StructuredTopology(_SubPlanner):
    """Algorithm 3 (PlanStructuredTopology) over units and their segments."""

    def __init__(self, topology, ops, metric, tree_limit, printed):
        super().__init__(topology, ops, metric, tree_limit, printed)
        names = list(topology.operators)
        inside = {names[b] for b in ops}
        edges = [(a, b) for (a, b) in topology.partitioning if a in inside and b in inside]
        boundary = {
            (a, b)
            for a, b in edges
            if topology.partitioning[a, b] == MERGE
            and (
                b in topology.joins
                or any(topology.partitioning.get((b, d)) == SPLIT for d in inside)
            )
        }
        units = _components(
            [names[b] for b in ops], [e for e in edges if e not in boundary]
        )  # line 1
        self.units = []  # lines 2-3: each unit's segments, heaviest first
        for unit in units:
            masks, weights = tree_masks(
                topology, [names.index(op) for op in unit], limit=tree_limit
            )
            order = np.argsort(-weights, kind="stable")
            self.units.append([masks[k] for k in order])
        unit_of = {op: u for u, unit in enumerate(units) for op in unit}
        self.adjacent = [set() for _ in units]
        for a, b in boundary:
            self.adjacent[unit_of[a]].add(unit_of[b])
            self.adjacent[unit_of[b]].add(unit_of[a])
        self.neighbours = topology._compiled.neighbours

    def step(self, plan: int, budget: int) -> int | None:
        """One iteration of Alg 3's while loop (lines 5-18); None when no candidate raises the
        objective within ``budget`` (line 19, fixed: return when CG_opt = ∅)."""
        singles = [
            (u, g)
            for u, segments in enumerate(self.units)  # line 6
            for g in segments  # line 7: the non-replicated segments
            if g & ~plan and (g & ~plan).bit_count() <= budget
        ]
        if not singles:
            return None
        values = self.value([plan] + [plan | g for _, g in singles])
        candidates = []
        for (u, g), value in zip(singles, values[1:], strict=True):
            if value - values[0] > TIE:  # line 9
                candidates.append(g)
            elif (grown := self._bfs(u, g, plan, budget)) != g:  # lines 10-15
                candidates.append(grown)
        if not candidates:
            return None
        values = self.value([plan] + [plan | cg for cg in candidates])
        gain = values[1:] - values[0]
        cost = np.array([(cg & ~plan).bit_count() for cg in candidates])
        best = int(np.argmax(gain / cost))  # line 17: the largest profit density
        if gain[best] <= TIE:
            return None
        return plan | candidates[best]  # line 18 (fixed): P ∪ CG_opt, not P ∩ CG_opt

    def _bfs(self, start: int, segment: int, plan: int, budget: int) -> int:
        """Lines 10-15: add, unit by unit in BFS order, the heaviest segment connected to CG."""
        grown, cost = segment, (segment & ~plan).bit_count()
        visited, queue = {start}, deque(sorted(self.adjacent[start]))
        while queue:
            u = queue.popleft()
            if u in visited:
                continue
            visited.add(u)
            near = 0
            for t in bits(grown):
                near |= self.neighbours[t]
            best = next((g for g in self.units[u] if g & near), None)  # line 12: max_of(U_j)
            if best is None:
                if not self.printed:
                    break  # deviation: stop at a unit without a connected segment
                queue.extend(sorted(self.adjacent[u] - visited))  # printed: visit on
                continue
            extra = (best & ~plan & ~grown).bit_count()
            if cost + extra > budget:  # line 13 (fixed): within R - usage, not usage
                break  # line 15
            grown, cost = grown | best, cost + extra  # line 14
            queue.extend(sorted(self.adjacent[u] - visited))
        return grown


def _components(nodes: list[str], edges) -> list[tuple[str, ...]]:
    """Connected components of an undirected graph, each in the order of ``nodes``."""
    parent = {v: v for v in nodes}

    def find(v):
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for a, b in edges:
        parent[find(a)] = find(b)
    groups: dict[str, list[str]] = {}
    for v in nodes:
        groups.setdefault(find(v), []).append(v)
    return [tuple(g) for g in groups.values()]
