"""PPA: passive plus partially active replication for correlated failures.

Su & Zhou, *Tolerating Correlated Failures in Massively Parallel Stream Processing Engines*,
ICDE 2016.
"""

from ppa.fidelity import (
    MCTree,
    information_loss,
    internal_completeness,
    mc_trees,
    output_fidelity,
)
from ppa.generate import TopologySpec, random_topology
from ppa.planners import (
    Plan,
    SubTopology,
    decompose,
    plan_dp,
    plan_greedy,
    plan_milp,
    plan_structure_aware,
)
from ppa.topology import FULL, MERGE, ONE_TO_ONE, PARTITIONINGS, SPLIT, Topology

__all__ = [
    "FULL",
    "MCTree",
    "MERGE",
    "ONE_TO_ONE",
    "PARTITIONINGS",
    "Plan",
    "SPLIT",
    "SubTopology",
    "Topology",
    "TopologySpec",
    "decompose",
    "information_loss",
    "internal_completeness",
    "mc_trees",
    "output_fidelity",
    "plan_dp",
    "plan_greedy",
    "plan_milp",
    "plan_structure_aware",
    "random_topology",
]
