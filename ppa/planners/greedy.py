"""Algorithm 2 (Greedy) of Su & Zhou, Section IV-B."""

import numpy as np

from ppa.fidelity import of_batch
from ppa.planners.plan import Plan, check_budget
from ppa.topology import Topology


def plan_greedy(topology: Topology, R: int) -> Plan:
    """Replicate the R tasks with the smallest A_i, the OF when only t_i fails (lines 2-8); ties
    go to the earlier task of ``topology.tasks``. Scored under F = M \\ P, like every plan."""
    R = check_budget(topology, R)
    n = len(topology.tasks)
    a = of_batch(topology, ~np.eye(n, dtype=bool))
    chosen = np.argsort(a, kind="stable")[:R]
    return Plan.of_tasks(topology, (topology.tasks[i] for i in chosen))
