"""PPA: passive plus partially active replication for correlated failures.

Su & Zhou, *Tolerating Correlated Failures in Massively Parallel Stream Processing Engines*,
ICDE 2016.
"""

from ppa.fidelity import internal_completeness, mc_trees, output_fidelity
from ppa.generate import TopologySpec, random_topology
from ppa.latency import LatencyParams, Phases, ppa_plan, recovery_times
from ppa.planners import Plan, plan_dp, plan_greedy, plan_milp, plan_structure_aware
from ppa.topology import FULL, MERGE, ONE_TO_ONE, SPLIT, Topology

__all__ = [
    # the model: topologies, output fidelity (Eqs. (1)-(3)), internal completeness, MC-trees
    "Topology",
    "FULL",
    "MERGE",
    "ONE_TO_ONE",
    "SPLIT",
    "output_fidelity",
    "internal_completeness",
    "mc_trees",
    # the planners: Algorithms 1-5 and the exact optimum
    "Plan",
    "plan_dp",
    "plan_greedy",
    "plan_structure_aware",
    "plan_milp",
    # the experiments: Fig 14's random topologies, the recovery latency model of Figs 7-10
    # (ppa.latency); sweep points in ppa.experiments
    "TopologySpec",
    "random_topology",
    "LatencyParams",
    "Phases",
    "ppa_plan",
    "recovery_times",
]
