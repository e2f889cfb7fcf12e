"""Incremental query-centric recovery from correlated failures.

Su & Zhou, *Incremental Recovery in Distributed Stream Processing Systems*, technical report.

Recovery scheduling (Section 5, Appendices B and D): the problem (Definitions 1-3), the exact
optimum by Algorithm 4 and by integer programming, BestDensity (Algorithm 3, with the corrected
starts by default), the operator-centric baseline OC, placement on nodes under the 80% cap and
plans executed as nodes arrive, and the random instances of Fig 16.
"""

from incremental.best_density import schedule_best_density
from incremental.instances import Fig16Setting, fig16_instance
from incremental.milp import schedule_milp
from incremental.operator_centric import schedule_operator_centric
from incremental.placement import query_recovery_times, recover_as_nodes_arrive
from incremental.problem import RecoveryProblem, Schedule, problem_from_topology, theorem51_bound
from incremental.schedule_dp import schedule_dp

__all__ = [
    # the model: the recovery problem (Definitions 1-3) and Theorem 5.1's bound
    "RecoveryProblem",
    "Schedule",
    "problem_from_topology",
    "theorem51_bound",
    # the algorithms: BestDensity (Algorithm 3), the optimum (Algorithm 4, integer
    # programming), the operator-centric baseline, plans placed as nodes arrive
    "schedule_best_density",
    "schedule_dp",
    "schedule_milp",
    "schedule_operator_centric",
    "recover_as_nodes_arrive",
    "query_recovery_times",
    # the experiments: Fig 16's instances; sweep points in incremental.experiments, the
    # engine's scenarios in incremental.timelines
    "Fig16Setting",
    "fig16_instance",
]
