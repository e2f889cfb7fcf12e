"""Optimal multi-level interval-based checkpointing.

Jayasekara, Harwood & Karunasekera, *Optimal Multi-Level Interval-based Checkpointing for
Exascale Stream Processing Systems*.
"""

from multilevel.optimize import lambert_w_optimum, optimal
from multilevel.simulate import simulate
from multilevel.utilization import System, utilization

__all__ = [
    # the model: Eq. (13)'s utilization of a checkpointed process or DAG
    "System",
    "utilization",
    # the optimum and its Lambert-W approximation (4)-(5)
    "optimal",
    "lambert_w_optimum",
    # the discrete-event simulation; sweep points in multilevel.experiments, the papers'
    # systems in multilevel.settings, Tables 1-3 in multilevel.tables
    "simulate",
]
