"""Sweep functions ``fn(params, rng) -> list[dict]`` for pipeline.sweep (Fig 16, Section 7.3).

``fig16_point`` draws one Fig 16 instance and schedules it at every resource level of the grid:
x = R / Σ failed cost, one row per x. Each row holds the recovered priority share (recovered
queries' priorities over all failed queries' priorities, Fig 16's y) of

- ``DP``: the optimum, for every level at once by ``optimum_by_level`` (every union of queries'
  failed sets, as Algorithm 4 reaches them). Algorithm 4 itself (``schedule_dp``) is run at the
  levels up to ``DP_CHECK`` and must agree, else the sweep fails;
- ``BestDensity``: Algorithm 3 with every feasible single query among the starts (the default);
- ``BestDensity_printed``: Algorithm 3 with the printed starts;
- ``OC``: the operator-centric baseline;

and, for Theorem 5.1, the instance's d (the largest share frequency over failed partitions) and
the most queries an optimal plan recovers (``opt_queries``).

The generator's choices the paper does not print (``Fig16Setting.pool``, ``query_size``,
``cost``) may be given in params too (``pipeline.verdicts.incremental.GENERATOR`` re-judges the
claims at the ends of their ranges); absent, they are the package's defaults.
"""

import numpy as np

from incremental.best_density import schedule_best_density
from incremental.instances import Fig16Setting, fig16_instance
from incremental.operator_centric import schedule_operator_centric
from incremental.problem import TOLERANCE, RecoveryProblem, max_share_frequency
from incremental.schedule_dp import schedule_dp

# Algorithm 4 takes 0.4 s per call at x = 0.9 on 18 queries and the MILP up to 0.3 s at x = 0.4
# (on two shared cores), 0.7 s per instance and grid; the enumeration below answers every level
# in about 0.05 s. Algorithm 4 stays as a check where it is cheap (0.02 s for x <= 0.3).
DP_CHECK = 0.3
MAX_QUERIES, MAX_PARTITIONS = 20, 64  # 2^20 plans; one uint64 bit mask per plan
METHODS = ("DP", "BestDensity", "BestDensity_printed", "OC")


def optimum_by_level(problem: RecoveryProblem, budgets) -> tuple[np.ndarray, np.ndarray]:
    """The optimal priority of Definition 2 within each budget, and the most queries an optimal
    plan recovers (by closure), over all 2^M unions of queries' failed sets (an optimal plan is
    one of them, Appendix B). Integer costs, as Algorithm 4."""
    incidence = problem.incidence
    M, P = incidence.shape
    if M > MAX_QUERIES or P > MAX_PARTITIONS:
        raise ValueError(
            f"optimum_by_level enumerates 2^M plans as 64-bit masks: needs M <= {MAX_QUERIES} "
            f"and at most {MAX_PARTITIONS} failed partitions; got M = {M}, {P} partitions"
        )
    costs = problem.cost_array.astype(np.int64)
    if not np.array_equal(costs, problem.cost_array):
        raise ValueError("optimum_by_level needs integer costs (one budget level per unit)")
    bit = np.left_shift(np.uint64(1), np.arange(P, dtype=np.uint64))
    queries = np.bitwise_or.reduce(np.where(incidence, bit, np.uint64(0)), axis=1)
    plans = np.zeros(1, dtype=np.uint64)
    for q in queries:  # plans[s] is the union of the queries in subset s (bit i: query i)
        plans = np.concatenate([plans, plans | q])
    per_bit = np.zeros(MAX_PARTITIONS, dtype=np.int64)
    per_bit[:P] = costs
    byte_bits = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
    tables = byte_bits.astype(np.int64) @ per_bit.reshape(8, 8).T  # cost of byte b at byte j
    data = plans.view(np.uint8).reshape(-1, 8)  # little-endian: byte j holds partitions 8j..8j+7
    cost = np.zeros(plans.size, dtype=np.int64)
    for j in range(8):
        cost += tables[data[:, j], j]
    key = np.zeros(plans.size, dtype=np.int64)  # priority * (M + 1) + recovered queries
    for q, priority in zip(queries, problem.priority_array, strict=True):
        key += ((plans & q) == q) * (priority * (M + 1) + 1)
    best = np.zeros(int(costs.sum()) + 1, dtype=np.int64)
    np.maximum.at(best, cost, key)
    best = np.maximum.accumulate(best)  # within a budget: the best plan of any lower cost
    at = np.clip(np.floor(np.asarray(budgets, dtype=float) + TOLERANCE).astype(np.int64), 0, None)
    top = best[np.minimum(at, best.size - 1)]
    return top // (M + 1), top % (M + 1)


GENERATOR_PARAMS = ("pool", "query_size", "cost")  # Fig16Setting's unprinted choices


def fig16_point(params: dict, rng: np.random.Generator) -> list[dict]:
    """One Fig 16 instance (params: max_share, zipf_s, priorities, optionally the generator's
    ``GENERATOR_PARAMS``; x_grid, the resource levels as fractions of the failed cost) scheduled
    by every method at every level."""
    chosen = {
        k: tuple(params[k]) if k != "pool" else params[k] for k in GENERATOR_PARAMS if k in params
    }
    setting = Fig16Setting(
        max_share=params["max_share"],
        zipf_s=params["zipf_s"],
        priorities=params["priorities"],
        **chosen,
    )
    return level_rows(fig16_instance(setting, rng), params["x_grid"])


def level_rows(problem: RecoveryProblem, x_grid) -> list[dict]:
    """``problem`` scheduled by every method at each level x of ``x_grid`` (R = x · Σ failed
    cost): one row per level, with the recovered priority shares, d, ``opt_queries`` and the
    total priority of the failed queries."""
    total_cost = float(problem.cost_array.sum())
    total_priority = int(problem.priority_array.sum())
    d = max_share_frequency(problem)
    budgets = [x * total_cost for x in x_grid]
    optimum, opt_queries = optimum_by_level(problem, budgets)
    rows = []
    for x, R, best, count in zip(x_grid, budgets, optimum, opt_queries, strict=True):
        if x <= DP_CHECK and schedule_dp(problem, R).priority != best:
            raise RuntimeError(
                f"Algorithm 4 and the enumeration disagree at x = {x}: "
                f"{schedule_dp(problem, R).priority} against {best}"
            )
        plans = {
            "BestDensity": schedule_best_density(problem, R),
            "BestDensity_printed": schedule_best_density(problem, R, starts="printed"),
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


def printed_counterexample() -> tuple[RecoveryProblem, float]:
    """Theorem 5.1 against Algorithm 3 as printed (``incremental.best_density``): three
    single-partition queries, costs 2, 19, 2 and priorities 1, 5, 1, R = 20 (d = 1). The printed
    starts (the densest single query and the pairs) return 2; the optimum is 5 (query B alone);
    the bound is (1 − e^(−1)) · 5 = 3.16. Returns (problem, R)."""
    problem = RecoveryProblem(
        costs={"a": 2, "b": 19, "x": 2},
        queries={"A": ({"a"}, 1), "B": ({"b"}, 5), "X": ({"x"}, 1)},
    )
    return problem, 20.0
