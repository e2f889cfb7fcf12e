"""BestDensity (Algorithm 3, Section 5) with profit density (Definition 3).

Profit density, conditional on a candidate plan CP (the C_m^i, PD_m^i of line 26):

    PD_i = prt_i / Σ_k c_k / f_k   over the failed partitions p_k of Q_i not yet in CP,

f_k the number of failed queries sharing p_k (fixed: a query sharing a partition not in CP is not
recovered either). A query whose failed set CP already covers costs 0 and counts as recovered.

Starts (lines 1-19):
- ``"printed"``: the densest feasible single query (lines 9-10) and every feasible pair
  (lines 11-19).
- ``"all_singles"`` (default): every feasible single query and every feasible pair. As printed,
  Theorem 5.1's bound fails when the optimum is a single query that is not the densest (costs
  a = 2, b = 19, x = 2; queries {a}, {b}, {x} with priorities 1, 5, 1; R = 20: the printed start
  returns 2, the optimum is 5): Appendix D.2's proof starts from "the first 2 queries in RP*",
  which must exist and be among the starts. Same complexity: M singles beside M(M-1)/2 pairs.

Every candidate plan is extended greedily (lines 20-31) by the feasible, not yet recovered query
of the largest conditional density, ties to the last query as line 25's ">=" gives; all candidates
at once, as NumPy matrices (candidates x partitions). Line 32 returns the candidate recovering the
most priority; ties here go to the cheaper plan (unused resources carry over), then the first.
"""

import numpy as np

from incremental.problem import TOLERANCE, RecoveryProblem, Schedule, check_budget

STARTS = ("all_singles", "printed")


def profit_density(problem: RecoveryProblem, plan: np.ndarray | None = None) -> np.ndarray:
    """Definition 3's PD_i of every failed query given the plans in ``plan`` ((K, P) bool, or
    none recovered); (K, M), infinite for a query the plan already covers."""
    member = np.zeros((1, problem.cost_array.size), dtype=bool) if plan is None else plan
    weights = problem.cost_array / problem.share_frequencies  # c_k / f_k
    weighted = (~member).astype(float) @ (problem.incidence * weights).T
    with np.errstate(divide="ignore"):
        return np.where(weighted > 0, problem.priority_array / weighted, np.inf)


def _starts(problem: RecoveryProblem, budget: float) -> tuple[np.ndarray, np.ndarray, int]:
    """The candidate plans (every feasible single query, then every feasible pair: lines 7 and
    15-16) beside the rows of the printed starts among them: the densest feasible single query
    (lines 9-10, one of the singles) and the pairs."""
    incidence, costs = problem.incidence, problem.cost_array
    single = incidence.astype(float) @ costs  # C_i of line 7
    feasible = single <= budget + TOLERANCE
    shared = (incidence * costs).astype(float) @ incidence.T.astype(float)
    pair = single[:, None] + single[None, :] - shared  # C_{m,n} of line 15: the union's cost
    first, second = np.triu_indices(single.size, k=1)
    ok = pair[first, second] <= budget + TOLERANCE  # line 16
    pairs = incidence[first[ok]] | incidence[second[ok]]
    singles = incidence[feasible]
    rows = np.arange(len(singles), len(singles) + len(pairs))
    if feasible.any():
        density = profit_density(problem)[0]
        densest = int(np.argmax(np.where(feasible, density, -np.inf)))
        rows = np.concatenate([[np.count_nonzero(feasible[:densest])], rows])
    return np.concatenate([singles, pairs]), rows


def schedule_best_density(
    problem: RecoveryProblem, R: float, *, starts: str = "all_singles"
) -> Schedule:
    """Algorithm 3 (see the module docstring for the starts and the tie rules)."""
    budget = check_budget(R)
    if starts not in STARTS:
        raise ValueError(f"starts must be one of {STARTS}; got {starts!r}")
    plans, printed = _starts(problem, budget)
    if starts == "printed":
        plans = plans[printed]
    return _best(problem, _extend(problem, plans, budget))


def schedule_best_density_both(problem: RecoveryProblem, R: float) -> tuple[Schedule, Schedule]:
    """``schedule_best_density`` with both starts, (all_singles, printed), from one greedy pass:
    the printed starts are rows of the all-singles starts and every candidate is extended on its
    own (lines 20-31 never compare candidates), so the printed answer is line 32 over its rows."""
    budget = check_budget(R)
    plans, printed = _starts(problem, budget)
    plans = _extend(problem, plans, budget)
    return _best(problem, plans), _best(problem, plans[printed])


def _extend(problem: RecoveryProblem, plans: np.ndarray, budget: float) -> np.ndarray:
    """Lines 20-31: every candidate plan extended greedily, all at once (each row on its own)."""
    incidence, costs = problem.incidence, problem.cost_array
    query_costs = (incidence * costs).T.astype(float)  # (P, M)
    last = incidence.shape[0] - 1
    active = np.ones(plans.shape[0], dtype=bool)
    while active.any():  # lines 23-31, every candidate plan at once
        density = profit_density(problem, plans)
        extra = (~plans).astype(float) @ query_costs  # C_m^i
        spent = plans.astype(float) @ costs
        fits = (spent[:, None] + extra <= budget + TOLERANCE) & (extra > 0)  # line 25
        density = np.where(fits, density, -np.inf)
        pick = last - np.argmax(density[:, ::-1], axis=1)  # line 25's ">=": the last maximum
        active &= fits.any(axis=1)
        plans[active] |= incidence[pick[active]]  # line 28
    return plans


def _best(problem: RecoveryProblem, plans: np.ndarray) -> Schedule:
    """Line 32: the candidate recovering the most priority (the empty plan without one)."""
    incidence, costs = problem.incidence, problem.cost_array
    if plans.shape[0] == 0:  # no single query fits: the empty plan
        return problem.schedule_mask(np.zeros(costs.size, dtype=bool))
    covered = ~(incidence[None, :, :] & ~plans[:, None, :]).any(axis=2)
    value = covered.astype(np.int64) @ problem.priority_array
    spent = plans.astype(float) @ costs
    best = np.lexsort((np.arange(value.size), spent, -value))[0]  # line 32
    return problem.schedule_mask(plans[best])
