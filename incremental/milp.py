"""Exact recovery scheduling by integer programming: a second oracle beside Algorithm 4.

Appendix D.1's formulation (1) as a set-union knapsack, with x_k = 1 when failed partition p_k is
in the plan and y_i = 1 when query Q_i is recovered:

    maximize  Σ_i prt_i y_i - ε Σ_k c_k x_k
    subject to  Σ_k c_k x_k <= R,   y_i <= x_k for every p_k in Q_i,   x, y binary.

ε = 1 / (2 (Σ_k c_k + 1)) keeps the cost term below one priority unit (priorities are integers),
so it only picks the cheapest of the best plans, as schedule_dp does. Costs may be fractional.
"""

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_array

from incremental.problem import TOLERANCE, RecoveryProblem, Schedule, check_budget


def schedule_milp(problem: RecoveryProblem, R: float) -> Schedule:
    """The optimal plan of Definition 2 by scipy.optimize.milp (HiGHS), gap 0."""
    budget = check_budget(R)
    costs, incidence = problem.cost_array, problem.incidence
    n_queries, n_partitions = incidence.shape
    eps = 0.5 / (costs.sum() + 1.0)
    objective = np.concatenate([eps * costs, -problem.priority_array.astype(float)])
    query, partition = np.nonzero(incidence)
    rows = np.arange(query.size)
    links = coo_array(  # y_i - x_k <= 0
        (
            np.concatenate([np.ones(query.size), -np.ones(query.size)]),
            (np.concatenate([rows, rows]), np.concatenate([n_partitions + query, partition])),
        ),
        shape=(query.size, n_partitions + n_queries),
    )
    constraints = [
        LinearConstraint(
            np.concatenate([costs, np.zeros(n_queries)])[None, :], -np.inf, budget + TOLERANCE
        ),
        LinearConstraint(links.tocsr(), -np.inf, 0.0),
    ]
    result = milp(
        objective,
        constraints=constraints,
        integrality=np.ones(n_partitions + n_queries),
        bounds=Bounds(0, 1),
        options={"mip_rel_gap": 0.0},
    )
    if not result.success:
        raise RuntimeError(
            f"milp failed on a feasible problem (x = 0 is feasible): {result.message}"
        )
    return problem.schedule_mask(result.x[:n_partitions] > 0.5)
