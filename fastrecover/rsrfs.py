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
    recovery_time_terms,
    total_overhead,
)


def _cascade(eta: np.ndarray, segment: np.ndarray, start: int, step: int) -> list[int]:
    """op_start and its neighbours in direction ``step`` in the same subchain and frequency."""
    group, k = [start], start + step
    while 0 <= k < len(eta) and segment[k] == segment[start] and eta[k] == eta[start]:
        group.append(k)
        k += step
    return group


def _group_sum(values: np.ndarray, group: list[int]) -> float:
    # np.add.reduce: np.sum's own reduction, without its dispatch (the same result).
    return values[group[0]] if len(group) == 1 else np.add.reduce(values[group])


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
    """Improve an Algorithm 1 result by halving/doubling moves (module docstring).

    Both totals are separable in the frequencies: rt_i = a_i / η_i + b_i (the anchor's replay and
    the path's reprocessing scale with 1/η_i) and ch_i = Δ(η_i π_i) + const, so each move's effect
    is a sum over its two cascades and every pair is scored at once.
    """
    if not start.feasible:
        return start
    storage = storage or Storage()
    config = start.configuration
    n = topology.n
    segment = heads(topology, config.anchors)
    eta = np.array(config.frequencies, dtype=float)
    weight = topology.rho * recovery_time_terms(topology, config.anchors, storage)[0]  # ρ_i a_i
    state = topology.pi / storage.snapshot  # ch_i = state_i η_i + const
    overhead = total_overhead(topology, config, storage)
    order = np.arange(n)
    for _ in range(max_rounds):
        halves = [_cascade(eta, segment, i, +1) for i in range(n)]
        doubles = [_cascade(eta, segment, j, -1) for j in range(n)]
        # Halving a group raises Σ ρ a / η by Σ ρ a / η and saves half its state overhead;
        # doubling lowers it by half and costs its state overhead again. Each group's sums are
        # taken over the same elements in the same order as np.sum(weight[g] / eta[g]); a
        # group of one is its element, without the NumPy call (the loop's cost at n >= 20).
        rt_i, ch_i = weight / eta, state * eta
        rt_up = np.array([_group_sum(rt_i, g) for g in halves])
        ch_down = np.array([_group_sum(ch_i, g) / 2 for g in halves])
        rt_down = np.array([_group_sum(rt_i, g) / 2 for g in doubles])
        ch_up = np.array([_group_sum(ch_i, g) for g in doubles])
        gain = rt_up[:, None] - rt_down[None, :]
        cost = overhead - ch_down[:, None] + ch_up[None, :]
        allowed = (cost <= ch_max * (1 + 1e-12)) & (gain < -1e-12 * max(1.0, abs(gain).max()))
        allowed &= ~((segment[:, None] == segment[None, :]) & (order[:, None] < order[None, :]))
        for i, group in enumerate(halves):
            allowed[i, group] = False
        if not allowed.any():
            break
        i, j = np.unravel_index(np.where(allowed, gain, np.inf).argmin(), gain.shape)
        eta[halves[i]] /= 2
        eta[doubles[j]] *= 2
        overhead = cost[i, j]
    final = Configuration(config.anchors, tuple(float(e) for e in eta))
    return Result(
        True,
        expected_recovery_time(topology, final, storage),
        total_overhead(topology, final, storage),
        start.anchors,
        final.frequencies,
    )
