"""Algorithm 1 (Section 3.2.2): the optimal recovery configuration of an operator chain, and the
baselines NSegments (every operator an anchor) and 1Segment (only op_1), on the same grid.

The budget CH_max is split into Z increments of CH_inc = CH_max / Z. A recovery subchain
op_j..op_i given c increments spends all of them (expected recovery time falls as overhead
grows): its common frequency is Ctoη(j, i, c) = (c CH_inc - Δ_log(Ω_j θ_j)) / Δ_snap(Σ π_k), and

    CtoR(j, i, c) = W1(j, i) / η + W0(j, i)
    W1 = Δ_log(Ω_j θ_j) P + Σ_m ρ_m Σ_{k=j..m} τ_k Ω_k,   W0 = Σ_m ρ_m Σ_{k=j..m} Δ_snap(π_k),
    P = Σ_{m=j..i} ρ_m

(Eq. (3.2) summed with weights ρ_m). All CtoR values come from prefix sums as one array; the DP
(3.3), DP(c, i) = min_{k <= i, 1 <= c' <= c} DP(c - c', k - 1) + CtoR(k, i, c'), is vectorized
over k and c'. (3.3) as printed takes c' < c, so the first subchain could never spend the whole
budget; here c' <= c (the last subchain may take every increment when it is the only one), which
can only lower the optimum, and equals brute force over all budget splits in the tests.
Units: minutes and KB.
"""

from dataclasses import dataclass

import numpy as np
from numba import njit

from fastrecover.model import (
    Configuration,
    Storage,
    Topology,
    expected_recovery_time,
    total_overhead,
)


@dataclass(frozen=True)
class Result:
    """An optimized configuration, or an explicit infeasible result (fields None)."""

    feasible: bool
    expected_recovery_time: float | None = None
    checkpoint_overhead: float | None = None
    anchors: tuple[int, ...] | None = None  # 1-based
    frequencies: tuple[float, ...] | None = None

    @property
    def configuration(self) -> Configuration | None:
        return Configuration(frozenset(self.anchors), self.frequencies) if self.feasible else None


INFEASIBLE = Result(feasible=False)


def validate_budget(ch_max: float, z: int) -> None:
    if not (np.isfinite(ch_max) and ch_max > 0):
        raise ValueError(f"ch_max must be > 0 (a fraction of time); got {ch_max}")
    if isinstance(z, bool) or int(z) != z or z < 1:
        raise ValueError(f"z must be an integer >= 1 (increments of ch_max); got {z}")


def _is_chain(topology: Topology) -> None:
    if topology.upstream != tuple(range(-1, topology.n - 1)):
        raise ValueError("expected a chain topology (fastrecover.model.chain)")


def segment_tables(
    topology: Topology, storage: Storage, ch_max: float, z: int, compiled: bool = False
):
    """CtoR and Ctoη for every subchain j..i (0-based, j <= i) and c = 0..z increments.

    Returns (rt, eta), each of shape (n, n, z + 1); rt is inf where the subchain is empty or its
    budget cannot pay even the anchor's input storage (η <= 0). compiled: fill the (n, n, z + 1)
    tables in one compiled loop (``_fill_tables``, the sweeps' path) instead of NumPy broadcasts
    (optimize_chain's, which fastrecover_runtime times); the same operations, equal tables.
    """
    B = storage.snapshot  # states are snapshotted and restored at B_snap
    n = topology.n
    rho, pi = topology.rho, topology.pi
    load = topology.tau * topology.rates  # τ_k Ω_k
    anchor_input = storage.delta_log(topology.rates * topology.theta)  # Δ_log(Ω_j θ_j)
    cum = lambda x: np.concatenate([[0.0], np.cumsum(x)])  # noqa: E731  (prefix sums)
    Pc, Tc, R = cum(pi), cum(load), cum(rho)
    RT, RP = cum(rho * Tc[1:]), cum(rho * Pc[1:])
    j, i = np.arange(n)[:, None], np.arange(n)[None, :]
    P = R[i + 1] - R[j]
    W1 = anchor_input[:, None] * P + (RT[i + 1] - RT[j]) - Tc[j] * P
    W0 = ((RP[i + 1] - RP[j]) - Pc[j] * P) / B
    state = (Pc[i + 1] - Pc[j]) / B  # Δ_snap(Σ π_k): overhead per unit of frequency
    budget = np.arange(z + 1) * (ch_max / z)
    if compiled:
        return _fill_tables(budget, anchor_input, state, W1, W0)
    with np.errstate(divide="ignore", invalid="ignore"):
        eta = (budget[None, None, :] - anchor_input[:, None, None]) / state[:, :, None]
        rt = W1[:, :, None] / eta + W0[:, :, None]
    bad = (eta <= 0) | (j > i)[:, :, None]
    eta = np.where(bad, np.nan, eta)
    return np.where(bad, np.inf, rt), eta


@njit(cache=True)
def _fill_tables(budget, anchor_input, state, W1, W0):
    """segment_tables' broadcasts as one loop: η = (budget - anchor input) / state and
    rt = W1 / η + W0 for j <= i, inf / NaN where η <= 0 or j > i."""
    n, width = state.shape[0], budget.shape[0]
    rt = np.full((n, n, width), np.inf)
    eta = np.full((n, n, width), np.nan)
    for j in range(n):
        for i in range(j, n):
            for c in range(width):
                e = (budget[c] - anchor_input[j]) / state[j, i]
                if not e <= 0:  # NaN passes, as in NumPy's mask
                    eta[j, i, c] = e
                    rt[j, i, c] = W1[j, i] / e + W0[j, i]
    return rt, eta


def _dp(rt: np.ndarray, z: int, singletons: bool = False):
    """DP (3.3) over prefixes: best[c, i] for the first i operators within c increments, with
    the head and the increments of the last subchain for backtracking."""
    n = rt.shape[0]
    c_idx = np.arange(z + 1)
    rest = c_idx[:, None] - c_idx[None, :]  # c - c'
    # Row z + 1 of the padded table is inf: c' > c, and c' = 0 (a subchain gets >= 1 increment).
    rest = np.where((rest >= 0) & (c_idx[None, :] >= 1), rest, z + 1)
    best = np.full((z + 2, n + 1), np.inf)
    best[: z + 1, 0] = 0.0
    head = np.zeros((z + 1, n + 1), dtype=int)
    used = np.zeros((z + 1, n + 1), dtype=int)
    for i in range(1, n + 1):
        first = i - 1 if singletons else 0  # 0-based first operator of the last subchain
        # total[c, c', k] = best[c - c', k] + CtoR(k, i - 1, c') for k = first .. i - 1
        total = best[rest, first:i] + rt[first:i, i - 1, :].T[None, :, :]
        total = total.reshape(z + 1, -1)
        arg = total.argmin(axis=1)
        best[: z + 1, i] = total[c_idx, arg]
        used[:, i], k = np.divmod(arg, i - first)
        head[:, i] = first + k
    return best[: z + 1], head, used


@njit(cache=True)
def _dp_kernel(rt: np.ndarray, z: int, singletons: bool):
    n = rt.shape[0]
    best = np.full((z + 1, n + 1), np.inf)
    best[:, 0] = 0.0
    head = np.zeros((z + 1, n + 1), dtype=np.int64)
    used = np.zeros((z + 1, n + 1), dtype=np.int64)
    for i in range(1, n + 1):
        first = i - 1 if singletons else 0
        for c in range(z + 1):
            # c' = 0 and c' > c are infeasible (inf): the first of them, (c' = 0, k = first),
            # is the answer when nothing is finite, as in _dp's argmin over (c', k) in that order.
            value, spent, at = np.inf, 0, first
            for c_last in range(1, c + 1):
                for k in range(first, i):
                    total = best[c - c_last, k] + rt[k, i - 1, c_last]
                    if total < value:
                        value, spent, at = total, c_last, k
            best[c, i] = value
            head[c, i] = at
            used[c, i] = spent
    return best, head, used


def _dp_compiled(rt: np.ndarray, z: int, singletons: bool = False):
    """``_dp`` as a compiled loop (numba): the same tables, ties broken alike (tests)."""
    return _dp_kernel(np.ascontiguousarray(rt, dtype=float), int(z), bool(singletons))


def configured_result(topology: Topology, storage: Storage, anchors, frequencies) -> Result:
    """A feasible result for anchors (1-based) and frequencies, its totals from the model."""
    config = Configuration(frozenset(int(a) for a in anchors), tuple(float(x) for x in frequencies))
    return Result(
        True,
        expected_recovery_time(topology, config, storage),
        total_overhead(topology, config, storage),
        tuple(sorted(config.anchors)),
        config.frequencies,
    )


@njit(cache=True)
def _path_terms(upstream, anchor, replay, load, restore):
    """model.recovery_time_terms' loop compiled: the same additions in the same order (equal to
    the last bit), the head found by walking up to the nearest anchor."""
    n = upstream.shape[0]
    a, b = np.empty(n), np.empty(n)
    for i in range(n):
        h = i
        while not anchor[h]:
            h = upstream[h]
            if h < 0:
                raise ValueError("the source operator must be an anchor")
        a_i, b_i, k = replay[h], 0.0, i
        while True:
            a_i += load[k]
            b_i += restore[k]
            if k == h:
                break
            k = upstream[k]
        a[i], b[i] = a_i, b_i
    return a, b


def compiled_result(topology: Topology, storage: Storage, anchors, frequencies) -> Result:
    """``configured_result`` with RT_all's path sums compiled: equal to the last bit (tests) and
    several times faster. The sweeps' solvers (chain_methods, tree.tree_methods) use it; the
    functions fastrecover_runtime times (optimize_chain, optimize_tree) keep configured_result."""
    config = Configuration(frozenset(int(a) for a in anchors), tuple(float(x) for x in frequencies))
    eta = np.asarray(config.frequencies, dtype=float)
    anchor = np.zeros(topology.n, dtype=bool)
    anchor[[a - 1 for a in config.anchors]] = True
    replay = storage.delta_log(topology.rates * topology.theta)
    a, b = _path_terms(
        np.asarray(topology.upstream, dtype=np.int64),
        anchor,
        replay,
        topology.tau * topology.rates,
        storage.delta_snap(topology.pi),
    )
    overheads = storage.delta_snap(eta * topology.pi) + anchor * replay  # Eq. (2.1)
    return Result(
        True,
        float(topology.rho @ (a / eta + b)),
        float(overheads.sum()),
        tuple(sorted(config.anchors)),
        config.frequencies,
    )


def _backtrack(topology, storage, eta_table, best, head, used, result) -> Result:
    n = topology.n
    c = best.shape[0] - 1
    if not np.isfinite(best[c, n]):
        return INFEASIBLE
    eta = np.empty(n)
    anchors = []
    i = n
    while i > 0:
        k, spent = head[c, i], used[c, i]
        eta[k:i] = eta_table[k, i - 1, spent]
        anchors.append(k + 1)
        c, i = c - spent, k
    return result(topology, storage, anchors, eta)


def _tables(
    topology: Topology, ch_max: float, z: int, storage: Storage | None, compiled: bool = False
):
    validate_budget(ch_max, z)
    _is_chain(topology)
    storage = storage or Storage()
    return (storage, *segment_tables(topology, storage, ch_max, int(z), compiled))


def _solve(
    topology, storage, rt, eta, z: int, method: str, dp=_dp, result=configured_result
) -> Result:
    if method == "1Segment":
        if not np.isfinite(rt[0, -1, z]):
            return INFEASIBLE
        return result(topology, storage, [1], [eta[0, -1, z]] * topology.n)
    return _backtrack(
        topology, storage, eta, *dp(rt, z, singletons=method == "NSegments"), result=result
    )


def optimize_chain(
    topology: Topology, ch_max: float, z: int, storage: Storage | None = None
) -> Result:
    """Algorithm 1: minimal RT_all over anchor sets and frequencies with CH_all <= ch_max."""
    storage, rt, eta = _tables(topology, ch_max, z, storage)
    return _solve(topology, storage, rt, eta, int(z), "FastRecover")


def nsegments(topology: Topology, ch_max: float, z: int, storage: Storage | None = None) -> Result:
    """NSegments: every operator an anchor, the budget split optimally on the same grid."""
    storage, rt, eta = _tables(topology, ch_max, z, storage)
    return _solve(topology, storage, rt, eta, int(z), "NSegments")


def one_segment(
    topology: Topology, ch_max: float, z: int, storage: Storage | None = None
) -> Result:
    """1Segment: only op_1 an anchor, one frequency spending the whole budget."""
    storage, rt, eta = _tables(topology, ch_max, z, storage)
    return _solve(topology, storage, rt, eta, int(z), "1Segment")


CHAIN_METHODS = ("FastRecover", "NSegments", "1Segment")


def chain_methods(
    topology: Topology,
    ch_max: float,
    z: int,
    storage: Storage | None = None,
    methods=CHAIN_METHODS,
) -> dict[str, Result]:
    """Algorithm 1, NSegments and 1Segment (any of CHAIN_METHODS) from one set of segment tables,
    all compiled (tables, DP and compiled_result): each equal to optimize_chain, nsegments and
    one_segment (tests), two to three times faster than the same with NumPy tables and the
    model's totals (benchmark); the sweeps over thousands of chains use it.

    optimize_chain keeps the vectorized NumPy DP, the form fastrecover_runtime times (Fig. 4.13,
    FR9). The compiled DP's fixed per-call cost (tables, result) outweighs its O(n^2 Z^2) work at
    the thesis's sizes, so its time grows more slowly there (log-log slopes about 1.4 in n and 1.0
    in Z over n 5-35, Z 20-100, against about 2 for the NumPy DP): timing it would measure that
    overhead rather than the recurrence's growth."""
    unknown = set(methods) - set(CHAIN_METHODS)
    if unknown:
        raise ValueError(f"methods must be among {', '.join(CHAIN_METHODS)}; got {sorted(unknown)}")
    storage, rt, eta = _tables(topology, ch_max, z, storage, compiled=True)
    return {
        m: _solve(topology, storage, rt, eta, int(z), m, _dp_compiled, compiled_result)
        for m in methods
    }
