"""Section 3.3: redistributing checkpoint overhead under the relaxed RSRFS restriction.

RSRFS: within a recovery subchain, each operator's frequency is a multiple of its successor's
(operators keep several checkpoints, so a faster predecessor can still restore to the failed
operator's checkpoint time). Starting from Algorithm 1's configuration (RSFS: one frequency per
subchain), a move halves η_i and doubles η_j: halving cascades to the successors of op_i in its
subchain that share its frequency, doubling to the predecessors of op_j that share op_j's; op_i
must not precede op_j in the same subchain. A move is taken if it lowers RT_all and keeps
CH_all <= CH_max; rounds repeat until no move helps. The thesis finds "such a pair" without saying
which; here each round takes the pair with the largest decrease (deterministic).

Each move lowers RT_all and keeps the budget, so the result is never worse than Algorithm 1's and
never over budget. Recovery times use the failed operator's own frequency (fastrecover.model).
"""

import numpy as np

from fastrecover.chain import Result
from fastrecover.model import (
    Configuration,
    Storage,
    Topology,
    expected_recovery_time,
    heads,
    total_overhead,
)


def _cascade(eta: np.ndarray, segment: np.ndarray, start: int, step: int) -> list[int]:
    """op_start and its neighbours in direction ``step`` in the same subchain and frequency."""
    group, k = [start], start + step
    while 0 <= k < len(eta) and segment[k] == segment[start] and eta[k] == eta[start]:
        group.append(k)
        k += step
    return group


def satisfies_rsrfs(eta, anchors) -> bool:
    """Each frequency is an integer multiple of its successor's within a subchain."""
    eta = np.asarray(eta, dtype=float)
    for k in range(len(eta) - 1):
        if (k + 2) not in anchors:
            ratio = eta[k] / eta[k + 1]
            if ratio < 1 - 1e-12 or abs(ratio - round(ratio)) > 1e-9:
                return False
    return True


def redistribute(
    topology: Topology,
    start: Result,
    ch_max: float,
    storage: Storage | None = None,
    max_rounds: int = 10_000,
) -> Result:
    """Improve an Algorithm 1 result by halving/doubling moves (module docstring)."""
    if not start.feasible:
        return start
    storage = storage or Storage()
    config = start.configuration
    segment = heads(topology, config.anchors)
    eta = np.array(config.frequencies, dtype=float)
    current = expected_recovery_time(topology, config, storage)
    for _ in range(max_rounds):
        best, best_eta = current, None
        for i in range(topology.n):
            halved = _cascade(eta, segment, i, +1)
            for j in range(topology.n):
                if j in halved or (segment[i] == segment[j] and i < j):
                    continue
                trial = eta.copy()
                trial[halved] /= 2
                trial[_cascade(eta, segment, j, -1)] *= 2
                candidate = Configuration(config.anchors, tuple(trial))
                if total_overhead(topology, candidate, storage) > ch_max * (1 + 1e-12):
                    continue
                value = expected_recovery_time(topology, candidate, storage)
                if value < best * (1 - 1e-12):
                    best, best_eta = value, trial
        if best_eta is None:
            break
        eta, current = best_eta, best
    final = Configuration(config.anchors, tuple(float(e) for e in eta))
    return Result(
        True, current, total_overhead(topology, final, storage), start.anchors, final.frequencies
    )
