"""Partially active replication planners (Section IV): each (topology, R) -> Plan."""

from ppa.planners.dp import plan_dp
from ppa.planners.greedy import plan_greedy
from ppa.planners.milp import plan_milp
from ppa.planners.plan import Plan
from ppa.planners.structure_aware import SubTopology, decompose, plan_structure_aware

__all__ = [
    "Plan",
    "SubTopology",
    "decompose",
    "plan_dp",
    "plan_greedy",
    "plan_milp",
    "plan_structure_aware",
]
