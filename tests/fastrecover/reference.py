"""Plain-loop references for the tests: brute force over every anchor set and budget split,
Algorithm 1 written with Python loops (the speed baseline of the benchmark), and the vectorized
NumPy form of the trees' compiled min-plus convolution."""

import itertools
import math

import numpy as np

from fastrecover.model import Configuration, Storage, Topology, expected_recovery_time


def _compositions(total: int, parts: int):
    """Every way to give each of ``parts`` subchains at least one increment, at most ``total``."""
    for cuts in itertools.combinations(range(1, total + 1), parts):
        yield [b - a for a, b in zip((0, *cuts[:-1]), cuts, strict=True)]


def chain_frequency(topology: Topology, storage: Storage, j: int, i: int, budget: float) -> float:
    """Ctoη(j, i, c) from Eq. (2.1): all of op_j..op_i at one frequency, op_j storing its input."""
    state = sum(topology.pi[j : i + 1]) / storage.snapshot
    return (budget - topology.rates[j] * topology.theta[j] / storage.bandwidth) / state


def brute_force_chain(
    topology: Topology, ch_max: float, z: int, storage: Storage, anchor_sets=None
) -> float:
    """min RT_all over every anchor set (op_1 always) and every split of the z increments."""
    n = topology.n
    best = math.inf
    sets = anchor_sets or [
        (0, *rest) for r in range(n) for rest in itertools.combinations(range(1, n), r)
    ]
    for anchors in sets:
        bounds = [*anchors, n]
        for split in _compositions(z, len(anchors)):
            eta = [0.0] * n
            ok = True
            for (j, end), c in zip(zip(bounds, bounds[1:], strict=False), split, strict=True):
                f = chain_frequency(topology, storage, j, end - 1, c * ch_max / z)
                ok &= f > 0
                eta[j:end] = [f] * (end - j)
            if ok:
                config = Configuration(frozenset(a + 1 for a in anchors), tuple(eta))
                best = min(best, expected_recovery_time(topology, config, storage))
    return best


def algorithm1_loops(topology: Topology, ch_max: float, z: int, storage: Storage) -> float:
    """Algorithm 1 with plain loops: the optimal RT_all only."""
    n = topology.n
    cost = {}
    for j in range(n):
        for i in range(j, n):
            for c in range(1, z + 1):
                eta = chain_frequency(topology, storage, j, i, c * ch_max / z)
                if eta <= 0:
                    cost[j, i, c] = math.inf
                    continue
                total = 0.0
                for m in range(j, i + 1):
                    rt = topology.rates[j] * topology.theta[j] / storage.bandwidth / eta
                    for k in range(j, m + 1):
                        rt += (
                            topology.pi[k] / storage.snapshot
                            + topology.tau[k] * topology.rates[k] / eta
                        )
                    total += topology.rho[m] * rt
                cost[j, i, c] = total
    dp = [[0.0] + [math.inf] * n for _ in range(z + 1)]  # empty prefix free; none else at c = 0
    for i in range(1, n + 1):
        for c in range(1, z + 1):
            best = math.inf
            for k in range(1, i + 1):
                for spent in range(1, c + 1):
                    best = min(best, dp[c - spent][k - 1] + cost[k - 1, i - 1, spent])
            dp[c][i] = best
    return dp[z][n]


def brute_force_tree(
    topology: Topology, ch_max: float, z: int, f: int, f_max: float, storage: Storage
) -> float:
    """min RT_all over every anchor set (the root always) and every grid frequency per segment,
    with each operator paying ceil(ch / CH_inc) increments, at most z in all."""
    from fastrecover.model import heads

    n = topology.n
    root = topology.upstream.index(-1)
    freqs = [(k + 1) * f_max / f for k in range(f)]
    inc = ch_max / z
    best = math.inf
    others = [i for i in range(n) if i != root]
    for r in range(n):
        for rest in itertools.combinations(others, r):
            anchors = (root, *rest)
            head = heads(topology, [a + 1 for a in anchors])
            for choice in itertools.product(freqs, repeat=len(anchors)):
                of = dict(zip(anchors, choice, strict=True))
                eta = [of[head[i]] for i in range(n)]
                used = 0
                for i in range(n):
                    ch = eta[i] * topology.pi[i] / storage.snapshot
                    if i in of:
                        ch += topology.rates[i] * topology.theta[i] / storage.bandwidth
                    used += math.ceil(ch / inc - 1e-9)
                if used <= z:
                    config = Configuration(frozenset(a + 1 for a in anchors), tuple(eta))
                    best = min(best, expected_recovery_time(topology, config, storage))
    return best


def convolve_numpy(acc: np.ndarray, value: np.ndarray):
    """fastrecover.tree._convolve vectorized with NumPy: out[..., r] = min_{c <= r}
    acc[..., r - c] + value[..., c] and its first argmin."""
    z = acc.shape[-1] - 1
    r = np.arange(z + 1)
    c = r[None, :]
    rest = r[:, None] - c
    ok = rest >= 0
    total = acc[..., np.where(ok, rest, 0)] + value[..., None, :]  # (..., r, c)
    total = np.where(ok, total, np.inf)
    arg = total.argmin(axis=-1)
    return np.take_along_axis(total, arg[..., None], axis=-1)[..., 0], arg


def rsrfs_moves_numpy(eta, segment, weight, state, overhead, ch_max, max_rounds=10_000):
    """The vectorized NumPy form of fastrecover.rsrfs._moves (its former body): every pair
    scored at once, group sums by np.add.reduce, the best allowed pair by argmin."""
    eta = np.array(eta, dtype=float)
    n = len(eta)

    def cascade(start, step):
        group, k = [start], start + step
        while 0 <= k < n and segment[k] == segment[start] and eta[k] == eta[start]:
            group.append(k)
            k += step
        return group

    order = np.arange(n)
    for _ in range(max_rounds):
        halves = [cascade(i, +1) for i in range(n)]
        doubles = [cascade(j, -1) for j in range(n)]
        rt_i, ch_i = weight / eta, state * eta
        rt_up = np.array([np.add.reduce(rt_i[g]) for g in halves])
        ch_down = np.array([np.add.reduce(ch_i[g]) / 2 for g in halves])
        rt_down = np.array([np.add.reduce(rt_i[g]) / 2 for g in doubles])
        ch_up = np.array([np.add.reduce(ch_i[g]) for g in doubles])
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
    return eta
