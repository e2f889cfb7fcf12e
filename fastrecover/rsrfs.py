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
from numba import njit

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


@njit(cache=True)
def _pairwise_sum(values, start, n, step):
    """np.add.reduce of values[start], values[start + step], ... (n of them): NumPy's pairwise
    summation (eight partial sums, blocks of 128), so the same result to the last bit (tests)."""
    if n < 8:
        total = 0.0
        for k in range(n):
            total += values[start + k * step]
        return total
    if n <= 128:
        r = np.empty(8)
        for k in range(8):
            r[k] = values[start + k * step]
        i = 8
        while i < n - n % 8:
            for k in range(8):
                r[k] += values[start + (i + k) * step]
            i += 8
        total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            total += values[start + i * step]
            i += 1
        return total
    half = n // 2
    half -= half % 8
    return _pairwise_sum(values, start, half, step) + _pairwise_sum(
        values, start + half * step, n - half, step
    )


@njit(cache=True)
def _cascade(eta, segment, start, step) -> int:
    """How many of op_start and its neighbours in direction ``step`` share its subchain and
    frequency (the group a halving or doubling of op_start moves)."""
    k = start + step
    while 0 <= k < len(eta) and segment[k] == segment[start] and eta[k] == eta[start]:
        k += step
    return (k - start) * step


@njit(cache=True)
def _moves(eta, segment, weight, state, overhead, ch_max, max_rounds):
    """The rounds of moves on ``eta`` (in place). Halving a group raises Σ ρ a / η by Σ ρ a / η
    and saves half its state overhead; doubling lowers it by half and costs its state overhead
    again; the best allowed pair (the first on ties, row-major as np.argmin) is taken."""
    n = len(eta)
    up, down = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    rt_up, ch_down, rt_down, ch_up = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    gain, cost = np.empty((n, n)), np.empty((n, n))
    for _ in range(max_rounds):
        rt_i, ch_i = weight / eta, state * eta
        for i in range(n):
            up[i], down[i] = _cascade(eta, segment, i, 1), _cascade(eta, segment, i, -1)
            rt_up[i] = _pairwise_sum(rt_i, i, up[i], 1)
            ch_down[i] = _pairwise_sum(ch_i, i, up[i], 1) / 2
            rt_down[i] = _pairwise_sum(rt_i, i, down[i], -1) / 2
            ch_up[i] = _pairwise_sum(ch_i, i, down[i], -1)
        largest = 0.0
        for i in range(n):
            for j in range(n):
                gain[i, j] = rt_up[i] - rt_down[j]
                cost[i, j] = overhead - ch_down[i] + ch_up[j]
                largest = max(largest, abs(gain[i, j]))
        limit, tolerance = ch_max * (1 + 1e-12), -1e-12 * max(1.0, largest)
        best, at_i, at_j = np.inf, -1, -1
        for i in range(n):
            for j in range(n):
                if segment[i] == segment[j] and i < j:
                    continue  # op_i precedes op_j in their subchain
                if i <= j < i + up[i]:
                    continue  # op_j is in op_i's halving group
                if cost[i, j] <= limit and gain[i, j] < tolerance and gain[i, j] < best:
                    best, at_i, at_j = gain[i, j], i, j
        if at_i < 0:
            break
        for k in range(at_i, at_i + up[at_i]):
            eta[k] /= 2
        for k in range(at_j, at_j - down[at_j], -1):
            eta[k] *= 2
        overhead = cost[at_i, at_j]
    return eta


def satisfies_rsrfs(eta, anchors) -> bool:
    """Each frequency is an integer multiple of its successor's within a subchain."""
    eta = np.asarray(eta, dtype=float)
    for k in range(len(eta) - 1):
        if (k + 2) not in anchors:
            ratio = eta[k] / eta[k + 1]
            if ratio < 1 - 1e-12 or abs(ratio - round(ratio)) > 1e-9:
                return False
    return True


def _move_inputs(topology: Topology, config: Configuration, storage: Storage, ch_max: float):
    """``_moves``' arguments but max_rounds, from a configuration: a fresh copy of its
    frequencies (``_moves`` changes them in place), each operator's segment head, ρ_i a_i
    (rt_i = a_i / η_i + b_i), state_i with ch_i = state_i η_i + const, CH_all and CH_max."""
    return (
        np.array(config.frequencies, dtype=float),
        heads(topology, config.anchors),
        topology.rho * recovery_time_terms(topology, config.anchors, storage)[0],
        topology.pi / storage.snapshot,
        total_overhead(topology, config, storage),
        float(ch_max),
    )


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
    eta = _moves(*_move_inputs(topology, config, storage, ch_max), int(max_rounds))
    final = Configuration(config.anchors, tuple(float(e) for e in eta))
    return Result(
        True,
        expected_recovery_time(topology, final, storage),
        total_overhead(topology, final, storage),
        start.anchors,
        final.frequencies,
    )
