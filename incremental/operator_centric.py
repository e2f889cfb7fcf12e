"""OC, the operator-centric baseline (Section 7 and Section 2.2.3, Fig 2).

Section 7 describes OC as "a greedy algorithm that always tries to recover the partition with
minimum recovery cost in topological order". Made precise: among the failed partitions not yet
planned whose failed ancestors (``RecoveryProblem.upstream``) are all planned, take the cheapest;
ties by topological order (``RecoveryProblem.rank``: by default the longest chain of failed
ancestors; from a topology, the longest path from a source), then by id (the order of
``costs``); a partition that does not fit in what is left of R is skipped for good (R
only shrinks). OC never looks at queries: recovered queries are whatever the plan closes.
"""

import numpy as np

from incremental.problem import TOLERANCE, RecoveryProblem, Schedule, check_budget


def schedule_operator_centric(problem: RecoveryProblem, R: float) -> Schedule:
    """OC's plan within R (see the module docstring)."""
    left = check_budget(R) + TOLERANCE
    costs = problem.cost_array
    index = {p: k for k, p in enumerate(problem.partitions)}
    ancestors = [[index[a] for a in problem.upstream.get(p, ())] for p in problem.partitions]
    order = np.lexsort((np.arange(costs.size), problem.rank_array, costs))
    planned = np.zeros(costs.size, dtype=bool)
    skipped = np.zeros(costs.size, dtype=bool)
    progress = True
    while progress:  # rescan: a planned partition can make a cheaper one eligible
        progress = False
        for k in order:
            if planned[k] or skipped[k] or not planned[ancestors[k]].all():
                continue
            if costs[k] <= left:
                planned[k], left, progress = True, left - costs[k], True
                break
            skipped[k] = True
    return problem.schedule_mask(planned)
