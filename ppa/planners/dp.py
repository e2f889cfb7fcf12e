"""Algorithm 1 (dynamic programming, PlanCorrelatedFailure) of Su & Zhou, Section IV-A.

Plans are unions of MC-trees (bit masks over ``topology.tasks``), grown one unit of resource at a
time: at usage u, a candidate plan CP is expanded by every MC-tree with exactly u - |CP|
non-replicated tasks, and dropped from SC once u - |CP| exceeds every MC-tree's count (all its
expansions are made). Exponential in the number of MC-trees: for small topologies and as the
reference the other planners are checked against.
"""

import numpy as np

from ppa.fidelity import DEFAULT_TREE_LIMIT, of_batch, tree_masks
from ppa.planners.plan import Plan, check_budget, masks_to_alive
from ppa.topology import Topology

TIE = 1e-12  # OF values closer than this are one value (float sums of the same tree weights)


def plan_dp(topology: Topology, R: int, *, tree_limit: int = DEFAULT_TREE_LIMIT) -> Plan:
    """The optimal plan of at most R tasks. Theorem 1: among the plans reaching its OF, it has
    the fewest tasks (ties between equal-size plans go to the smallest bit mask).

    Line 14 returns the best plan left in SC; a plan dropped from SC on line 12 is kept as a
    candidate, since the full plan (every MC-tree replicated) is dropped with no expansion."""
    R = check_budget(topology, R)
    trees, _ = tree_masks(topology, limit=tree_limit)
    seen = {0}
    sc = {0}
    for usage in range(1, R + 1):  # line 2
        for cp in sorted(sc):  # line 3
            dif = usage - cp.bit_count()  # line 4
            nonrep = [(tree & ~cp).bit_count() for tree in trees]  # lines 5-6
            if dif <= max(nonrep):  # line 7
                for tree, k in zip(trees, nonrep, strict=True):  # line 8
                    if k == dif and (expanded := cp | tree) not in seen:  # lines 9-11
                        seen.add(expanded)
                        sc.add(expanded)
            else:
                sc.discard(cp)  # line 12
    plans = sorted(seen, key=lambda m: (m.bit_count(), m))
    of = of_batch(topology, masks_to_alive(plans, len(topology.tasks)))
    best = int(np.flatnonzero(of >= of.max() - TIE)[0])  # the first is the smallest (Theorem 1)
    return Plan.of_mask(topology, plans[best])
