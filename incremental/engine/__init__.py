"""In-process exactly-once incremental recovery engine in virtual time (Section 4 of Su & Zhou).

Real tuples, operator state, pickled checkpoints, durable source logs, per-downstream output
buffers, barriers and per-channel sequence numbers, run by a discrete-event clock with per-tuple
CPU costs and node capacities: punctuation-triggered consistent checkpoints (4.1), adaptive
buffering (4.2), order-preserving processing (Algorithm 1, two printed bugs fixed), recovery plans
executed as nodes arrive (Algorithm 2, Fig 6), and the blocking and source-replay baselines.
"""

from incremental.engine.config import STRATEGIES, EngineConfig, FailureSchedule
from incremental.engine.messages import Marker
from incremental.engine.runtime import (
    Cluster,
    Engine,
    RunResult,
    kills_during_recovery,
    recoveries,
    run,
)
from incremental.engine.topology import (
    Filter,
    Join,
    Map,
    Operator,
    Source,
    Topology,
    WindowCount,
    key_code,
    route,
)

__all__ = [
    "STRATEGIES",
    "Cluster",
    "Engine",
    "EngineConfig",
    "FailureSchedule",
    "Filter",
    "Join",
    "Map",
    "Marker",
    "Operator",
    "RunResult",
    "Source",
    "Topology",
    "WindowCount",
    "key_code",
    "kills_during_recovery",
    "recoveries",
    "route",
    "run",
]
