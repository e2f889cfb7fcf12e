"""Plain-loop references for the scheduling tests: brute force over every set of queries, and
small problems drawn by Hypothesis (which shrinks a failure to a minimal instance) or a seed."""

import itertools

import numpy as np
from hypothesis import strategies as st

from incremental.best_density import profit_density
from incremental.experiments import DP_CHECK
from incremental.operator_centric import schedule_operator_centric
from incremental.problem import (
    TOLERANCE,
    RecoveryProblem,
    check_budget,
    max_share_frequency,
    problem_from_topology,
)
from incremental.schedule_dp import schedule_dp


def brute_force(problem: RecoveryProblem, R: float) -> tuple[int, float]:
    """(optimal priority, cheapest cost at that priority) over every union of queries' failed
    sets within R; recovered queries counted by closure."""
    queries = list(problem.queries.values())
    best = (0, 0.0)
    for r in range(1, len(queries) + 1):
        for chosen in itertools.combinations(queries, r):
            plan = frozenset().union(*(failed for failed, _ in chosen))
            cost = sum(problem.costs[p] for p in plan)
            if cost > R + 1e-9:
                continue
            priority = sum(prt for failed, prt in queries if failed <= plan)
            if priority > best[0] or (priority == best[0] and cost < best[1]):
                best = (priority, cost)
    return best


def random_problem(
    rng: np.random.Generator, partitions: int, queries: int, max_cost: int = 9
) -> RecoveryProblem:
    """Each query a random non-empty set of partitions; unused partitions dropped; integer costs
    1..max_cost, priorities 1..10."""
    incidence = rng.random((queries, partitions)) < rng.uniform(0.1, 0.7)
    for row in incidence:
        if not row.any():
            row[rng.integers(partitions)] = True
    used = np.flatnonzero(incidence.any(axis=0))
    return RecoveryProblem(
        costs={f"p{k}": int(rng.integers(1, max_cost + 1)) for k in used},
        queries={
            f"q{i}": (frozenset(f"p{k}" for k in np.flatnonzero(row)), int(rng.integers(1, 11)))
            for i, row in enumerate(incidence)
        },
    )


@st.composite
def problems(draw, max_partitions: int = 7, max_queries: int = 7, max_cost: int = 30):
    """(problem, integer R): queries are arbitrary non-empty sets of partitions; R is anything up
    to the total cost, or exactly what one query costs (where a single query can be optimal)."""
    n = draw(st.integers(1, max_partitions))
    costs = draw(st.lists(st.integers(1, max_cost), min_size=n, max_size=n))
    sets = draw(
        st.lists(st.sets(st.integers(0, n - 1), min_size=1), min_size=1, max_size=max_queries)
    )
    priorities = draw(st.lists(st.integers(1, 10), min_size=len(sets), max_size=len(sets)))
    used = sorted(set().union(*sets))
    problem = RecoveryProblem(
        costs={f"p{k}": costs[k] for k in used},
        queries={
            f"q{i}": (frozenset(f"p{k}" for k in chosen), priorities[i])
            for i, chosen in enumerate(sets)
        },
    )
    alone = [int(sum(problem.costs[p] for p in failed)) for failed, _ in problem.queries.values()]
    return problem, draw(st.sampled_from(alone) | st.integers(0, int(problem.cost_array.sum())))


@st.composite
def disjoint_problems(draw, max_queries: int = 9, max_cost: int = 30):
    """(problem, R) with d = 1: every partition in exactly one query (a plain knapsack)."""
    sizes = draw(st.lists(st.integers(1, 3), min_size=1, max_size=max_queries))
    costs, queries = {}, {}
    for i, size in enumerate(sizes):
        names = [f"p{i}_{k}" for k in range(size)]
        drawn = draw(st.lists(st.integers(1, max_cost), min_size=size, max_size=size))
        costs.update(zip(names, drawn, strict=True))
        queries[f"q{i}"] = (frozenset(names), draw(st.integers(1, 10)))
    problem = RecoveryProblem(costs=costs, queries=queries)
    alone = [int(sum(problem.costs[p] for p in failed)) for failed, _ in problem.queries.values()]
    return problem, draw(st.sampled_from(alone) | st.integers(0, int(problem.cost_array.sum())))


def fig2() -> RecoveryProblem:
    """Fig 2: A, B -> C -> D, two chains, every partition failed, cost 1 each."""
    edges = [
        (f"{u}{i}", f"{v}{i}") for i in (1, 2) for u, v in (("A", "C"), ("B", "C"), ("C", "D"))
    ]
    partitions = {p for edge in edges for p in edge}
    return problem_from_topology(
        edges=edges,
        outputs=["D1", "D2"],
        costs=dict.fromkeys(partitions, 1),
        placement=dict.fromkeys(partitions, "lost"),
        failed_nodes={"lost"},
    )


# "each node is capable of recovering 2 partitions": capacity 2.5 at the 80% cap.
FIG2_NODES = [(60.0 * k, 2.5) for k in (1, 2, 3, 4)]


def former_best_density(problem: RecoveryProblem, R: float, starts: str = "all_singles"):
    """Algorithm 3 as ``incremental.best_density`` ran it before the two starts shared one
    greedy pass (one call per start): the reference its single and paired calls must equal."""
    budget = check_budget(R)
    incidence, costs = problem.incidence, problem.cost_array
    single = incidence.astype(float) @ costs
    feasible = single <= budget + TOLERANCE
    shared = (incidence * costs).astype(float) @ incidence.T.astype(float)
    pair = single[:, None] + single[None, :] - shared
    first, second = np.triu_indices(single.size, k=1)
    ok = pair[first, second] <= budget + TOLERANCE
    pairs = incidence[first[ok]] | incidence[second[ok]]
    if starts == "all_singles":
        singles = incidence[feasible]
    elif feasible.any():
        density = profit_density(problem)[0]
        singles = incidence[[int(np.argmax(np.where(feasible, density, -np.inf)))]]
    else:
        singles = np.zeros((0, costs.size), dtype=bool)
    plans = np.concatenate([singles, pairs])
    if plans.shape[0] == 0:
        return problem.schedule_mask(np.zeros(costs.size, dtype=bool))
    query_costs = (incidence * costs).T.astype(float)
    last = incidence.shape[0] - 1
    active = np.ones(plans.shape[0], dtype=bool)
    while active.any():
        density = profit_density(problem, plans)
        extra = (~plans).astype(float) @ query_costs
        spent = plans.astype(float) @ costs
        fits = (spent[:, None] + extra <= budget + TOLERANCE) & (extra > 0)
        density = np.where(fits, density, -np.inf)
        pick = last - np.argmax(density[:, ::-1], axis=1)
        active &= fits.any(axis=1)
        plans[active] |= incidence[pick[active]]
    covered = ~(incidence[None, :, :] & ~plans[:, None, :]).any(axis=2)
    value = covered.astype(np.int64) @ problem.priority_array
    spent = plans.astype(float) @ costs
    best = np.lexsort((np.arange(value.size), spent, -value))[0]
    return problem.schedule_mask(plans[best])


def former_level_rows(problem: RecoveryProblem, x_grid) -> list[dict]:
    """``incremental.experiments.level_rows`` before the shared greedy pass and the single
    Algorithm 4 run: Algorithm 4 called at every checked level, BestDensity once per start."""
    total_cost = float(problem.cost_array.sum())
    total_priority = int(problem.priority_array.sum())
    d = max_share_frequency(problem)
    budgets = [x * total_cost for x in x_grid]
    optimum, opt_queries = former_optimum_by_level(problem, budgets)
    rows = []
    for x, R, best, count in zip(x_grid, budgets, optimum, opt_queries, strict=True):
        if x <= DP_CHECK and schedule_dp(problem, R).priority != best:
            raise RuntimeError(f"Algorithm 4 and the enumeration disagree at x = {x}")
        plans = {
            "BestDensity": former_best_density(problem, R),
            "BestDensity_printed": former_best_density(problem, R, starts="printed"),
            "OC": schedule_operator_centric(problem, R),
        }
        rows.append(
            {
                "x": float(x),
                "R": R,
                "d": d,
                "opt_queries": int(count),
                "priority_total": total_priority,
                "share_DP": int(best) / total_priority,
                **{f"share_{m}": s.priority / total_priority for m, s in plans.items()},
            }
        )
    return rows


def former_optimum_by_level(problem: RecoveryProblem, budgets) -> tuple[np.ndarray, np.ndarray]:
    """``incremental.experiments.optimum_by_level`` as NumPy passes over the 2^M plans, before
    its compiled loop: the reference the loop must equal."""
    incidence = problem.incidence
    M, P = incidence.shape
    costs = problem.cost_array.astype(np.int64)
    bit = np.left_shift(np.uint64(1), np.arange(P, dtype=np.uint64))
    queries = np.bitwise_or.reduce(np.where(incidence, bit, np.uint64(0)), axis=1)
    plans = np.zeros(1, dtype=np.uint64)
    for q in queries:
        plans = np.concatenate([plans, plans | q])
    per_bit = np.zeros(64, dtype=np.int64)
    per_bit[:P] = costs
    byte_bits = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
    tables = byte_bits.astype(np.int64) @ per_bit.reshape(8, 8).T
    data = plans.view(np.uint8).reshape(-1, 8)
    cost = np.zeros(plans.size, dtype=np.int64)
    for j in range(8):
        cost += tables[data[:, j], j]
    key = np.zeros(plans.size, dtype=np.int64)
    for q, priority in zip(queries, problem.priority_array, strict=True):
        key += ((plans & q) == q) * (priority * (M + 1) + 1)
    best = np.zeros(int(costs.sum()) + 1, dtype=np.int64)
    np.maximum.at(best, cost, key)
    best = np.maximum.accumulate(best)
    at = np.clip(np.floor(np.asarray(budgets, dtype=float) + TOLERANCE).astype(np.int64), 0, None)
    top = best[np.minimum(at, best.size - 1)]
    return top // (M + 1), top % (M + 1)
