"""Algorithm 2 (Section 3.4.1): recovery configurations of operator trees, and the tree baselines.

Budget and frequency grids: CH_max in Z increments of CH_inc = CH_max / Z; frequencies
f in {F_inc, 2 F_inc, ..., F_max}, F_inc = F_max / F (the thesis writes F_max / Z, a typo). An
operator checkpointing at f uses need(i, f, inp) = ceil(ch(i, f, inp) / CH_inc) increments, so
every returned configuration keeps CH_all <= CH_max. Failures cost ρ_i rt(i, f, inp) with
rt(i, f, inp) = inp Δ_log(Ω_i θ_i / f) + Δ_snap(π_i) + τ_i Ω_i / f. (The thesis's leaf case omits
the factor ρ_i that its non-leaf case (3.5) and RT_all = Σ ρ_i rt_i carry; here every operator
has it.)

Three solvers:
- ``thesis_enumeration``: the recurrence (3.5)-(3.6) as printed, trying every split of a node's
  remaining budget among its children: for a node with k children that is O(Z^(k+1)) splits,
  polynomial in Z of a degree that grows with the fan-out (the thesis calls it exponential in
  Z, Fig. 4.14; it is exponential in the number of children).
- ``thesis_knapsack``: the same recurrence with the children merged one at a time by a min-plus
  convolution (polynomial); it returns the same optimum as the enumeration.
- ``exact``: the default. (3.5) decides each non-anchor child by its own DP_rt and only then
  charges its failure frequency DP_fr to the parent's restart, so a child configuration with a
  slightly higher DP_rt but fewer dependent failures is never considered: the recurrence is not
  always optimal. The exact DP adds the segment's anchor h to the state: a failure of op_m then
  costs ρ_m times the rt of every operator on its path up to h, known locally, and children
  become independent given (f, h). It equals brute force (tests) and its state grows only with
  the tree's depth.
"""

import itertools

import numpy as np
from numba import njit

from fastrecover.chain import (
    INFEASIBLE,
    Result,
    compiled_result,
    configured_result,
    validate_budget,
)
from fastrecover.model import (
    Storage,
    Topology,
    children,
    recovery_time_terms,
)
from fastrecover.settings import TREE

# Frequency grid default: Table 4.1's F = 100 increments of F_max = 200 per minute (settings.TREE).
# It is feasible under the default two-cost Δ (fastrecover.model): with a single bandwidth
# B = 20,000 KB/min, one 10-20 MB state at the lowest grid frequency, 2 per minute, would cost
# 2-4 times CH_max = 0.5 and every tree would be infeasible (fastrecover_tree's sensitivity
# table shows F_max = 0.1-200).
DEFAULT_F = TREE.f
DEFAULT_F_MAX = TREE.f_max


def validate_frequencies(f: int, f_max: float) -> None:
    if isinstance(f, bool) or int(f) != f or f < 1:
        raise ValueError(f"f must be an integer >= 1 (increments of f_max); got {f}")
    if not (np.isfinite(f_max) and f_max > 0):
        raise ValueError(f"f_max must be a positive frequency (per minute); got {f_max}")


class _Grid:
    """Per-operator tables over the frequency grid: need[i, inp, f] and rt[i, inp, f]."""

    def __init__(
        self, topology: Topology, storage: Storage, ch_max: float, z: int, f: int, f_max: float
    ):
        validate_budget(ch_max, z)
        validate_frequencies(f, f_max)
        self.z = int(z)
        self.freqs = np.arange(1, int(f) + 1) * (f_max / f)
        fr = self.freqs[None, None, :]
        inp = np.array([0.0, 1.0])[None, :, None]
        rates, theta = topology.rates[:, None, None], topology.theta[:, None, None]
        pi, tau = topology.pi[:, None, None], topology.tau[:, None, None]
        ch = storage.delta_snap(fr * pi) + inp * storage.delta_log(rates * theta)
        self.need = np.ceil(ch / (ch_max / z) - 1e-9).astype(int)
        self.rt = (
            inp * storage.delta_log(rates * theta / fr) + storage.delta_snap(pi) + tau * rates / fr
        )
        self.rho = topology.rho
        self.kids = children(topology)
        self.root = topology.upstream.index(-1)
        self.order = _leaves_first(topology, self.kids, self.root)


def _leaves_first(topology, kids, root) -> list[int]:
    order, stack = [], [root]
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(kids[i])
    return order[::-1]


@njit(cache=True)
def _minplus_rows(acc: np.ndarray, value: np.ndarray):
    """Row-wise min-plus convolution of two (rows, z + 1) arrays with the first argmin."""
    rows, width = acc.shape
    out = np.empty((rows, width))
    arg = np.zeros((rows, width), dtype=np.int64)
    for k in range(rows):
        for r in range(width):
            best, at = np.inf, 0
            for c in range(r + 1):
                total = acc[k, r - c] + value[k, c]
                if total < best:
                    best, at = total, c
                elif np.isnan(total):  # as np.argmin: the first NaN wins
                    best, at = total, c
                    break
            out[k, r] = best
            arg[k, r] = at
    return out, arg


def _convolve(acc: np.ndarray, value: np.ndarray):
    """Min-plus merge over the last (budget) axis, with the argmin c (the smallest on ties):
    out[..., r] = min_{c <= r} acc[..., r - c] + value[..., c]. Compiled (numba); equal to
    the vectorized NumPy form kept in tests/fastrecover/reference.py."""
    acc, value = np.broadcast_arrays(np.asarray(acc, dtype=float), np.asarray(value, dtype=float))
    shape = acc.shape
    out, arg = _minplus_rows(
        np.ascontiguousarray(acc).reshape(-1, shape[-1]),
        np.ascontiguousarray(value).reshape(-1, shape[-1]),
    )
    return out.reshape(shape), arg.reshape(shape)


@njit(cache=True)
def _carry_rows(carry: np.ndarray, carry_value: np.ndarray, arg: np.ndarray):
    """out[k, r] = carry[k, r - arg[k, r]] + carry_value[k, arg[k, r]]: a quantity summed along
    the split a min-plus merge chose (the thesis's failure frequencies DP_fr)."""
    rows, width = arg.shape
    out = np.empty((rows, width))
    for k in range(rows):
        for r in range(width):
            c = arg[k, r]
            out[k, r] = carry[k, r - c] + carry_value[k, c]
    return out


def _rows(x: np.ndarray, shape) -> np.ndarray:
    return np.ascontiguousarray(np.broadcast_to(np.asarray(x, dtype=float), shape)).reshape(
        -1, shape[-1]
    )


@njit(cache=True)
def _place_rows(merged: np.ndarray, own_cost: np.ndarray, need: np.ndarray):
    rows, width = merged.shape
    out = np.full((rows, width), np.inf)
    for k in range(rows):
        for c in range(need[k], width):
            out[k, c] = own_cost[k] + merged[k, c - need[k]]
    return out


def _place(grid: _Grid, i: int, merged: np.ndarray, own_cost: np.ndarray, need: np.ndarray):
    """DP over a node: own_cost + merged children at (c - need), inf where c < need."""
    shape = merged.shape
    out = _place_rows(
        _rows(merged, shape),
        _rows(own_cost, shape[:-1]).ravel(),
        np.ascontiguousarray(np.broadcast_to(need, shape[:-1]), dtype=np.int64).ravel(),
    )
    return out.reshape(shape)


# -- the exact DP -------------------------------------------------------------------------------
def _exact(topology: Topology, grid: _Grid):
    """G[i][j, f, c]: best cost of subtree(i) within c increments when i's segment is anchored at
    option j (0: i itself, j >= 1: its j-th ancestor) at frequency index f; every failure in the
    subtree is charged its whole path up to the anchor."""
    n, z = topology.n, grid.z
    path = [None] * n  # path[i][j, f]: Σ rt on the path from i up to anchor option j
    for i in reversed(grid.order):  # root first
        up = topology.upstream[i]
        own = grid.rt[i, 1][None, :]
        path[i] = own if up < 0 else np.vstack([own, grid.rt[i, 0][None, :] + path[up]])
    G, star, star_f, plans = [None] * n, [None] * n, [None] * n, [None] * n
    for i in grid.order:
        options = path[i].shape[0]
        merged = np.zeros((options, len(grid.freqs), z + 1))
        plan = []
        for k in grid.kids[i]:
            anchor_k = np.broadcast_to(star[k], merged.shape)
            follow_k = G[k][1:]  # k in i's segment: k's option j+1 is i's option j
            value = np.minimum(anchor_k, follow_k)
            merged, arg = _convolve(merged, value)
            plan.append((k, arg, follow_k < anchor_k))
        need = np.vstack(
            [grid.need[i, 1][None, :], np.repeat(grid.need[i, 0][None, :], options - 1, axis=0)]
        )
        G[i] = _place(grid, i, merged, grid.rho[i] * path[i], need)
        star_f[i] = G[i][0].argmin(axis=0)
        star[i] = G[i][0].min(axis=0)
        plans[i] = plan
    if not np.isfinite(star[grid.root][z]):
        return None
    anchors, freq = set(), np.empty(n)

    def assign(i, j, f, c):
        if j == 0:
            anchors.add(i)
        freq[i] = grid.freqs[f]
        r = c - (grid.need[i, 1, f] if j == 0 else grid.need[i, 0, f])
        for k, arg, follows in reversed(plans[i]):
            c_k = arg[j, f, r]
            if follows[j, f, c_k]:
                assign(k, j + 1, f, c_k)
            else:
                assign(k, 0, star_f[k][c_k], c_k)
            r -= c_k

    assign(grid.root, 0, star_f[grid.root][z], z)
    return anchors, freq


# -- the thesis's recurrence (3.5)-(3.6) ---------------------------------------------------------
def _thesis_values(grid: _Grid, i: int, kid_tables):
    """Per child k of i: v_k[inp, f, c] = min(DP_rt*(c, k), DP_fr(c, k, f, 0) rt(i, f, inp) +
    DP_rt(c, k, f, 0)), its failure frequency passed up when k follows, and whether k follows."""
    out = []
    for k in grid.kids[i]:
        rt_k, fr_k, star_k, _ = kid_tables[k]
        follow = fr_k[0][None] * grid.rt[i][:, :, None] + rt_k[0][None]  # (inp, f, c)
        anchor = np.broadcast_to(star_k, follow.shape)
        follows = follow < anchor
        out.append((k, np.minimum(follow, anchor), np.where(follows, fr_k[0][None], 0.0), follows))
    return out


def _thesis(topology: Topology, grid: _Grid, enumerate_splits: bool):
    n, z = topology.n, grid.z
    tables = [None] * n  # (DP_rt[inp, f, c], DP_fr[inp, f, c], DP_rt*[c], argmin f)
    plans = [None] * n
    for i in grid.order:
        values = _thesis_values(grid, i, tables)
        shape = (2, len(grid.freqs), z + 1)
        if enumerate_splits:
            merged, fr_up, plan = _enumerate(values, shape)
        else:
            merged, fr_up, plan = np.zeros(shape), np.zeros(shape), []
            for k, value, fr_k, follows in values:
                merged, arg = _convolve(merged, value)
                fr_up = _carry_rows(
                    _rows(fr_up, shape), _rows(fr_k, shape), arg.reshape(-1, z + 1)
                ).reshape(shape)
                plan.append((k, arg, follows))
        rt_table = _place(grid, i, merged, grid.rho[i] * grid.rt[i], grid.need[i])
        need = grid.need[i]
        rest = np.maximum(np.arange(z + 1) - need[..., None], 0)
        fr_table = grid.rho[i] + np.take_along_axis(fr_up, rest, axis=-1)
        tables[i] = (rt_table, fr_table, rt_table[1].min(axis=0), rt_table[1].argmin(axis=0))
        plans[i] = plan
    if not np.isfinite(tables[grid.root][2][z]):
        return None
    anchors, freq = set(), np.empty(n)

    def assign(i, inp, f, c):
        if inp:
            anchors.add(i)
        freq[i] = grid.freqs[f]
        r = c - grid.need[i, inp, f]
        if enumerate_splits:
            for k, c_k, follows in plans[i][inp][f][r]:
                if follows:
                    assign(k, 0, f, c_k)
                else:
                    assign(k, 1, tables[k][3][c_k], c_k)
            return
        for k, arg, follows in reversed(plans[i]):
            c_k = arg[inp, f, r]
            if follows[inp, f, c_k]:
                assign(k, 0, f, c_k)
            else:
                assign(k, 1, tables[k][3][c_k], c_k)
            r -= c_k

    assign(grid.root, 1, tables[grid.root][3][z], z)
    return anchors, freq


def _enumerate(values, shape):
    """Every split of every remaining budget among the children, as the thesis describes."""
    _, nf, width = shape
    merged = np.full(shape, np.inf)
    fr_up = np.zeros(shape)
    plan = [[[[] for _ in range(width)] for _ in range(nf)] for _ in range(2)]
    if not values:
        return np.zeros(shape), fr_up, plan
    for r in range(width):
        for split in itertools.product(range(r + 1), repeat=len(values)):
            if sum(split) > r:
                continue
            total = sum(v[:, :, c] for (_, v, _, _), c in zip(values, split, strict=True))
            better = total < merged[:, :, r]
            if not better.any():
                continue
            merged[:, :, r] = np.where(better, total, merged[:, :, r])
            fr = sum(fk[:, :, c] for (_, _, fk, _), c in zip(values, split, strict=True))
            fr_up[:, :, r] = np.where(better, fr, fr_up[:, :, r])
            for inp, f in zip(*np.nonzero(better), strict=True):
                plan[inp][f][r] = [
                    (k, c, bool(fol[inp, f, c]))
                    for (k, _, _, fol), c in zip(values, split, strict=True)
                ]
    return merged, fr_up, plan


def _nsegments(topology: Topology, grid: _Grid):
    """NSegments on a tree: every operator an anchor at its own grid frequency."""
    width = grid.z + 1
    best_f, plans, merged = [], [], np.zeros(width)
    for i in range(topology.n):
        cost = grid.rho[i] * grid.rt[i, 1]  # per frequency
        need = grid.need[i, 1]
        within = np.where(need[None, :] <= np.arange(width)[:, None], cost[None, :], np.inf)
        value = within.min(axis=1)  # per budget c: the best frequency that fits
        best_f.append(within.argmin(axis=1))
        merged, arg = _convolve(merged, value)
        plans.append(arg)
    if not np.isfinite(merged[grid.z]):
        return None
    freq, r = np.empty(topology.n), grid.z
    for i in reversed(range(topology.n)):
        c_i = plans[i][r]
        freq[i] = grid.freqs[best_f[i][c_i]]
        r -= c_i
    return set(range(topology.n)), freq


def _one_segment(topology: Topology, grid: _Grid, storage: Storage):
    """1Segment on a tree: only the root an anchor, one grid frequency for every operator."""
    needs = grid.need[:, 0, :].copy()
    needs[grid.root] = grid.need[grid.root, 1, :]
    a, b = recovery_time_terms(topology, [grid.root + 1], storage)
    rt_all = topology.rho @ (a[:, None] / grid.freqs[None, :] + b[:, None])  # per grid frequency
    rt_all = np.where(needs.sum(axis=0) <= grid.z, rt_all, np.inf)
    if not np.isfinite(rt_all.min()):
        return None
    best_f = int(rt_all.argmin())
    return {grid.root}, np.full(topology.n, grid.freqs[best_f])


# -- the sweeps' compiled forms (tree_methods) --------------------------------------------------
# _exact, _thesis (knapsack) and _nsegments as single compiled loops: the same additions,
# products and comparisons in the same order, so the same tables, ties and configurations (tests);
# optimize_tree keeps the forms above, which fastrecover_runtime times (Fig. 4.14, FR10).
@njit(cache=True)
def _merge_into(acc, value, out, arg):
    """_minplus_rows on (rows, f, z + 1) arrays: out = acc (+) value per (row, f), argmin in arg."""
    rows, nf, width = acc.shape
    for j in range(rows):
        for f in range(nf):
            for r in range(width):
                best, at = np.inf, 0
                for c in range(r + 1):
                    total = acc[j, f, r - c] + value[j, f, c]
                    if total < best:
                        best, at = total, c
                    elif np.isnan(total):  # as np.argmin: the first NaN wins
                        best, at = total, c
                        break
                out[j, f, r] = best
                arg[j, f, r] = at


@njit(cache=True)
def _star(table, star, star_f):
    """min and first argmin over f of a (f, z + 1) table, per budget (np.min / np.argmin)."""
    nf, width = table.shape
    for c in range(width):
        best, at = table[0, c], 0
        for f in range(1, nf):
            v = table[f, c]
            if np.isnan(best):
                break
            if v < best or np.isnan(v):
                best, at = v, f
        star[c], star_f[c] = best, at


@njit(cache=True)
def _traceback(
    root, anchored, next_state, side, need, arg, follows, star, star_f, kid_ptr, kid_idx, z
):
    """The kernels' walk from the root down: (feasible, anchor flags, frequency indices). A node
    in state s (``anchored`` or following) spends need[i, side[s], f] and splits the rest among
    its children as arg[k, s, f, .] chose; a child that ``follows`` keeps f in next_state[s],
    else it is anchored at its own best frequency for its budget."""
    n = need.shape[0]
    anchor = np.zeros(n, dtype=np.bool_)
    chosen = np.zeros(n, dtype=np.int64)
    if not np.isfinite(star[root, z]):
        return False, anchor, chosen
    stack = [(root, anchored, star_f[root, z], z)]
    while stack:
        i, s, f, c = stack.pop()
        if s == anchored:
            anchor[i] = True
        chosen[i] = f
        r = c - need[i, side[s], f]
        for kk in range(kid_ptr[i + 1] - 1, kid_ptr[i] - 1, -1):
            k = kid_idx[kk]
            c_k = arg[k, s, f, r]
            if follows[k, s, f, c_k]:
                stack.append((k, next_state[s], f, c_k))
            else:
                stack.append((k, anchored, star_f[k, c_k], c_k))
            r -= c_k
    return True, anchor, chosen


@njit(cache=True)
def _exact_kernel(rt, need, rho, upstream, order, kid_ptr, kid_idx, z):
    """_exact as one compiled loop: (feasible, anchor flags, frequency indices)."""
    n, nf, width = rt.shape[0], rt.shape[2], z + 1
    depth = np.zeros(n, dtype=np.int64)
    for pos in range(n - 1, -1, -1):  # root first
        i = order[pos]
        if upstream[i] >= 0:
            depth[i] = depth[upstream[i]] + 1
    options = depth.max() + 1
    path = np.empty((n, options, nf))  # path[i, j, f]: Σ rt from i up to anchor option j
    for pos in range(n - 1, -1, -1):
        i = order[pos]
        up = upstream[i]
        path[i, 0] = rt[i, 1]
        for j in range(1, depth[i] + 1):
            for f in range(nf):
                path[i, j, f] = rt[i, 0, f] + path[up, j - 1, f]
    G = np.empty((n, options, nf, width))
    arg = np.zeros((n, options, nf, width), dtype=np.int64)  # arg[k]: k's split in its parent
    follows = np.zeros((n, options, nf, width), dtype=np.bool_)  # k in its parent's segment
    star = np.empty((n, width))
    star_f = np.zeros((n, width), dtype=np.int64)
    for i in order:
        rows = depth[i] + 1
        merged = np.zeros((rows, nf, width))
        for kk in range(kid_ptr[i], kid_ptr[i + 1]):
            k = kid_idx[kk]
            value = np.empty((rows, nf, width))
            for j in range(rows):
                for f in range(nf):
                    for c in range(width):
                        value[j, f, c] = np.minimum(star[k, c], G[k, j + 1, f, c])
                        follows[k, j, f, c] = G[k, j + 1, f, c] < star[k, c]
            out = np.empty((rows, nf, width))
            _merge_into(merged, value, out, arg[k, :rows])
            merged = out
        for j in range(rows):
            side = 1 if j == 0 else 0
            for f in range(nf):
                own, needed = rho[i] * path[i, j, f], need[i, side, f]
                for c in range(width):
                    G[i, j, f, c] = np.inf
                for c in range(needed, width):
                    G[i, j, f, c] = own + merged[j, f, c - needed]
        _star(G[i, 0], star[i], star_f[i])
    # State j: anchored at i itself (0, i's need with its input log) or at i's j-th ancestor.
    side = np.zeros(options, dtype=np.int64)
    side[0] = 1
    return _traceback(
        order[n - 1],
        0,
        np.arange(1, options + 1),
        side,
        need,
        arg,
        follows,
        star,
        star_f,
        kid_ptr,
        kid_idx,
        z,
    )


@njit(cache=True)
def _follow(fr_k, rt_i, rt_k):
    """(3.5)'s cost of a child that follows: DP_fr(c, k, f, 0) rt(i, f, inp) + DP_rt(c, k, f, 0)."""
    return fr_k * rt_i + rt_k


@njit(cache=True)
def _thesis_kernel(rt, need, rho, order, kid_ptr, kid_idx, z):
    """_thesis with the knapsack merge as one compiled loop: (feasible, anchors, frequencies)."""
    n, nf, width = rt.shape[0], rt.shape[2], z + 1
    rt_t = np.empty((n, 2, nf, width))  # DP_rt[inp, f, c]
    fr_t = np.empty((n, 2, nf, width))  # DP_fr[inp, f, c]
    arg = np.zeros((n, 2, nf, width), dtype=np.int64)
    follows = np.zeros((n, 2, nf, width), dtype=np.bool_)  # k follows its parent (inp = 0)
    star = np.empty((n, width))
    star_f = np.zeros((n, width), dtype=np.int64)
    for i in order:
        merged = np.zeros((2, nf, width))
        fr_up = np.zeros((2, nf, width))
        for kk in range(kid_ptr[i], kid_ptr[i + 1]):
            k = kid_idx[kk]
            value = np.empty((2, nf, width))
            fr_value = np.empty((2, nf, width))
            for inp in range(2):
                for f in range(nf):
                    for c in range(width):
                        follow = _follow(fr_t[k, 0, f, c], rt[i, inp, f], rt_t[k, 0, f, c])
                        value[inp, f, c] = np.minimum(follow, star[k, c])
                        follows[k, inp, f, c] = follow < star[k, c]
                        fr_value[inp, f, c] = fr_t[k, 0, f, c] if follows[k, inp, f, c] else 0.0
            out = np.empty((2, nf, width))
            _merge_into(merged, value, out, arg[k])
            carried = np.empty((2, nf, width))  # _carry_rows: DP_fr along the chosen split
            for inp in range(2):
                for f in range(nf):
                    for r in range(width):
                        c = arg[k, inp, f, r]
                        carried[inp, f, r] = fr_up[inp, f, r - c] + fr_value[inp, f, c]
            merged, fr_up = out, carried
        for inp in range(2):
            for f in range(nf):
                own, needed = rho[i] * rt[i, inp, f], need[i, inp, f]
                for c in range(width):
                    rt_t[i, inp, f, c] = np.inf
                    fr_t[i, inp, f, c] = rho[i] + fr_up[inp, f, max(c - needed, 0)]
                for c in range(needed, width):
                    rt_t[i, inp, f, c] = own + merged[inp, f, c - needed]
        _star(rt_t[i, 1], star[i], star_f[i])
    # State inp: 1 anchored (its input logged), 0 following its parent; a follower's child that
    # follows is in state 0 again.
    return _traceback(
        order[n - 1],
        1,
        np.zeros(2, dtype=np.int64),
        np.arange(2),
        need,
        arg,
        follows,
        star,
        star_f,
        kid_ptr,
        kid_idx,
        z,
    )


@njit(cache=True)
def _nsegments_kernel(rt, need, rho, z):
    """_nsegments as one compiled loop: (feasible, frequency indices)."""
    n, nf, width = rt.shape[0], rt.shape[2], z + 1
    merged = np.zeros((1, 1, width))
    best_f = np.zeros((n, width), dtype=np.int64)
    arg = np.zeros((n, 1, 1, width), dtype=np.int64)
    within = np.empty((nf, width))
    value = np.empty((1, 1, width))
    for i in range(n):
        for f in range(nf):
            cost = rho[i] * rt[i, 1, f]
            for c in range(width):
                within[f, c] = cost if need[i, 1, f] <= c else np.inf
        _star(within, value[0, 0], best_f[i])
        out = np.empty((1, 1, width))
        _merge_into(merged, value, out, arg[i])
        merged = out
    chosen = np.zeros(n, dtype=np.int64)
    if not np.isfinite(merged[0, 0, z]):
        return False, chosen
    r = z
    for i in range(n - 1, -1, -1):
        c_i = arg[i, 0, 0, r]
        chosen[i] = best_f[i, c_i]
        r -= c_i
    return True, chosen


def _compiled_args(grid: _Grid):
    """The grid's tables and the tree's shape (leaves-first order, children as CSR) as arrays."""
    kid_ptr = np.cumsum([0] + [len(k) for k in grid.kids])
    kid_idx = np.array([k for kids in grid.kids for k in kids], dtype=np.int64)
    return (
        np.ascontiguousarray(grid.rt, dtype=float),
        np.ascontiguousarray(grid.need, dtype=np.int64),
        np.ascontiguousarray(grid.rho, dtype=float),
        np.asarray(grid.order, dtype=np.int64),
        kid_ptr.astype(np.int64),
        kid_idx,
    )


def _found(grid: _Grid, feasible: bool, anchor, chosen):
    return (set(np.flatnonzero(anchor).tolist()), grid.freqs[chosen]) if feasible else None


def _exact_compiled(topology: Topology, grid: _Grid):
    """``_exact`` compiled (``_exact_kernel``): the same configuration (tests)."""
    rt, need, rho, order, kid_ptr, kid_idx = _compiled_args(grid)
    upstream = np.asarray(topology.upstream, dtype=np.int64)
    return _found(grid, *_exact_kernel(rt, need, rho, upstream, order, kid_ptr, kid_idx, grid.z))


def _thesis_compiled(topology: Topology, grid: _Grid):
    """``_thesis`` with the knapsack merge, compiled (``_thesis_kernel``): the same result."""
    rt, need, rho, order, kid_ptr, kid_idx = _compiled_args(grid)
    return _found(grid, *_thesis_kernel(rt, need, rho, order, kid_ptr, kid_idx, grid.z))


def _nsegments_compiled(topology: Topology, grid: _Grid):
    """``_nsegments`` compiled (``_nsegments_kernel``): the same configuration (tests)."""
    feasible, chosen = _nsegments_kernel(
        np.ascontiguousarray(grid.rt, dtype=float),
        np.ascontiguousarray(grid.need, dtype=np.int64),
        np.ascontiguousarray(grid.rho, dtype=float),
        grid.z,
    )
    return (set(range(topology.n)), grid.freqs[chosen]) if feasible else None


METHODS = {
    "exact": _exact,
    "thesis_knapsack": lambda t, g: _thesis(t, g, False),
    "thesis_enumeration": lambda t, g: _thesis(t, g, True),
}


def _result(topology, storage, found, result=configured_result) -> Result:
    if found is None:
        return INFEASIBLE
    anchors, freq = found
    return result(topology, storage, [a + 1 for a in anchors], freq)


def _grid(topology, storage, ch_max, z, f, f_max) -> tuple[Storage, _Grid]:
    """The storage (default when None) and the (z, f) grid tables every entry point starts from."""
    storage = storage or Storage()
    return storage, _Grid(topology, storage, ch_max, z, f, f_max)


def optimize_tree(
    topology: Topology,
    ch_max: float,
    z: int,
    f: int = DEFAULT_F,
    f_max: float = DEFAULT_F_MAX,
    storage: Storage | None = None,
    method: str = "exact",
) -> Result:
    """Algorithm 2: minimal RT_all of a tree with CH_all <= ch_max on the (z, f) grids.

    method: "exact" (default), "thesis_knapsack" or "thesis_enumeration" (module docstring).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    storage, grid = _grid(topology, storage, ch_max, z, f, f_max)
    return _result(topology, storage, METHODS[method](topology, grid))


def tree_nsegments(
    topology: Topology,
    ch_max: float,
    z: int,
    f: int = DEFAULT_F,
    f_max: float = DEFAULT_F_MAX,
    storage: Storage | None = None,
) -> Result:
    """NSegments on a tree: every operator an anchor at its own grid frequency."""
    storage, grid = _grid(topology, storage, ch_max, z, f, f_max)
    return _result(topology, storage, _nsegments(topology, grid))


def tree_one_segment(
    topology: Topology,
    ch_max: float,
    z: int,
    f: int = DEFAULT_F,
    f_max: float = DEFAULT_F_MAX,
    storage: Storage | None = None,
) -> Result:
    """1Segment on a tree: only the root an anchor, one grid frequency for every operator."""
    storage, grid = _grid(topology, storage, ch_max, z, f, f_max)
    return _result(topology, storage, _one_segment(topology, grid, storage))


def tree_feasible(
    topology: Topology,
    ch_max: float,
    z: int,
    f: int = DEFAULT_F,
    f_max: float = DEFAULT_F_MAX,
    storage: Storage | None = None,
) -> bool:
    """Whether optimize_tree finds any configuration, without its DP: need(i, f, inp) grows with
    f and with inp (anchoring adds the input log) and every cost is finite, so the cheapest
    configuration checkpoints every operator at the lowest grid frequency with the root (the
    source) the only anchor, and a configuration exists iff that one fits in Z increments.
    Equal to optimize_tree(...).feasible for every method (tests)."""
    _, grid = _grid(topology, storage, ch_max, z, f, f_max)
    needs = grid.need[:, 0, 0].copy()
    needs[grid.root] = grid.need[grid.root, 1, 0]
    return bool(needs.sum() <= grid.z)


TREE_METHODS = ("exact", "thesis_knapsack", "NSegments", "1Segment")


def tree_methods(
    topology: Topology,
    ch_max: float,
    z: int,
    f: int = DEFAULT_F,
    f_max: float = DEFAULT_F_MAX,
    storage: Storage | None = None,
    methods=TREE_METHODS,
) -> dict[str, Result]:
    """optimize_tree's exact and thesis_knapsack methods, tree_nsegments and tree_one_segment (any
    of TREE_METHODS) on one set of grid tables, the first three as compiled loops and every total
    from chain.compiled_result: each equal to the single call (tests), about twice as fast
    (benchmark); the sweeps over thousands of trees use it. optimize_tree stays the form
    fastrecover_runtime times (Fig. 4.14, FR10)."""
    unknown = set(methods) - set(TREE_METHODS)
    if unknown:
        raise ValueError(f"methods must be among {', '.join(TREE_METHODS)}; got {sorted(unknown)}")
    storage, grid = _grid(topology, storage, ch_max, z, f, f_max)
    solvers = {
        "exact": lambda: _exact_compiled(topology, grid),
        "thesis_knapsack": lambda: _thesis_compiled(topology, grid),
        "NSegments": lambda: _nsegments_compiled(topology, grid),
        "1Segment": lambda: _one_segment(topology, grid, storage),
    }
    return {m: _result(topology, storage, solvers[m](), compiled_result) for m in methods}
