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
from ppa.latency import (
    LatencyParams,
    Phases,
    checkpoint_cpu_ratio,
    correlated_failure,
    latency_table,
    ppa_plan,
    ppa_recovery,
    ppa_table,
    recovery_times,
    single_failure,
    source_replay_times,
)
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
    "LatencyParams",
    "MCTree",
    "MERGE",
    "ONE_TO_ONE",
    "PARTITIONINGS",
    "Phases",
    "Plan",
    "SPLIT",
    "SubTopology",
    "Topology",
    "TopologySpec",
    "checkpoint_cpu_ratio",
    "correlated_failure",
    "decompose",
    "information_loss",
    "internal_completeness",
    "latency_table",
    "mc_trees",
    "output_fidelity",
    "plan_dp",
    "plan_greedy",
    "plan_milp",
    "plan_structure_aware",
    "ppa_plan",
    "ppa_recovery",
    "ppa_table",
    "random_topology",
    "recovery_times",
    "single_failure",
    "source_replay_times",
]
