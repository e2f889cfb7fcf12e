"""The exact optimum as a set-union knapsack integer program, solved with scipy.optimize.milp.

OF(P) = Σ_{T ⊆ P} w_T over the MC-trees T (ppa.fidelity.MCTree), so with x_t = 1 when task t is
replicated and y_T = 1 when every task of T is:
    maximize Σ_T w_T y_T   subject to   y_T <= x_t (t ∈ T),   Σ_t x_t <= R,   x binary,
y in [0, 1] (at an optimum y_T = min_{t ∈ T} x_t, integral). The paper reduces the problem from
the set-union knapsack problem (Section III-B) but solves it by enumeration (Algorithm 1); this
is the oracle beyond Algorithm 1's reach, as large as the number of MC-trees.

Two exact reductions keep the branch and bound small (the LP relaxation of y_T <= x_t is weak:
it spreads R over every task):
- aggregation: tasks that lie in exactly the same MC-trees (a one-to-one chain, say) are one
  variable of their group's size; a plan holding part of a group gains nothing from it;
- dominance: groups g and h are *alternatives* when the MC-trees through h are exactly those
  through g with g put in h's place (the tasks of one operator behind a full edge, say, or the
  sink tasks). If moreover |g| <= |h| and every tree through g weighs at least its counterpart
  through h, swapping h for g in any plan neither costs a task nor loses OF, so some optimum has
  x_g >= x_h; the constraint is added along a fixed order of each class of alternatives (so the
  constraints are acyclic and repeated swaps end in a plan meeting all of them). Weights are
  compared with a relative tolerance of DOMINANCE_RTOL (float sums of the same products), so
  the optimum is exact to that relative precision.

Theorem 1's plan is the *smallest* optimal one; the first solve only maximizes OF, and where
plans of different sizes tie on it (a task whose trees all weigh 0, an operator whose
replication adds nothing) it may return a larger one. A second, lexicographic solve therefore
minimizes the number of tasks subject to OF >= the first optimum less TIE·max(1, OF). The
dominance constraints stay valid there: the swap that justifies them costs no task. The
second plan is kept only if its OF (recomputed exactly from the trees) is within TIE of the
first's, as HiGHS meets the OF constraint to its feasibility tolerance.
"""

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_array, hstack, vstack

from ppa.fidelity import DEFAULT_TREE_LIMIT, tree_masks
from ppa.planners.plan import Plan, bits, check_budget
from ppa.topology import Topology

DOMINANCE_RTOL = 1e-12
TIE = 1e-9  # relative: OF values closer than this are one optimum (sums of the same products)


def plan_milp(
    topology: Topology,
    R: int,
    *,
    tree_limit: int = DEFAULT_TREE_LIMIT,
    dominance: bool = True,
    smallest: bool = True,
) -> Plan:
    """An optimal plan of at most R tasks, made of whole MC-trees (other tasks add nothing);
    with ``smallest`` (the default) one with the fewest tasks among the optimal plans (Theorem
    1; the module docstring's second solve), otherwise whichever optimum the first solve finds.

    dominance=False drops the dominance constraints (module docstring): the same optimum, found
    more slowly; kept to check the reduction against the plain program."""
    R = check_budget(topology, R)
    n = len(topology.tasks)
    trees, weights = tree_masks(topology, limit=tree_limit)
    m = len(trees)
    member_of = [0] * n  # bit k: the task lies in tree k
    for k, tree in enumerate(trees):
        for i in bits(tree):
            member_of[i] |= 1 << k
    groups: dict[int, list[int]] = {}
    for i, key in enumerate(member_of):
        if key:  # a task in no MC-tree adds nothing (cannot occur in a valid topology)
            groups.setdefault(key, []).append(i)
    keys = list(groups)
    k = len(keys)
    size = np.array([len(groups[key]) for key in keys], dtype=float)
    rows, cols = [], []  # one row per (T, group): y_T - x_g <= 0
    for g, key in enumerate(keys):
        members = list(bits(key))
        rows += members
        cols += [g] * len(members)
    count = len(rows)
    pick_tree = coo_array((np.ones(count), (np.arange(count), rows)), shape=(count, m))
    pick_group = coo_array((np.ones(count), (np.arange(count), cols)), shape=(count, k))
    blocks = [hstack([-pick_group, pick_tree]), coo_array(np.r_[size, np.zeros(m)][None, :])]
    upper = [np.zeros(count), [R]]
    if dominance and (pairs := dominance_pairs(size, weights, rows, cols)):
        better, worse = np.array(pairs).T  # x_worse - x_better <= 0
        index = np.arange(len(pairs))
        data = np.r_[-np.ones(len(pairs)), np.ones(len(pairs))]
        order = coo_array(
            (data, (np.r_[index, index], np.r_[better, worse])), shape=(len(pairs), k + m)
        )
        blocks.append(order)
        upper.append(np.zeros(len(pairs)))
    matrix, upper = vstack(blocks).tocsr(), np.concatenate(upper)
    integrality = np.r_[np.ones(k), np.zeros(m)]

    def solve(c, matrix, lower, upper):
        result = milp(
            c=c,
            constraints=LinearConstraint(matrix, lower, upper),
            integrality=integrality,
            bounds=Bounds(0, 1),
            options={"mip_rel_gap": 0.0},
        )
        if not result.success:
            raise RuntimeError(f"milp failed: {result.message}")
        chosen = [i for g, key in enumerate(keys) if result.x[g] > 0.5 for i in groups[key]]
        plan = sum(1 << i for i in chosen)
        kept, of = 0, 0.0
        for tree, weight in zip(trees, weights, strict=True):
            if tree & ~plan == 0:
                kept |= tree
                of += weight
        return kept, of

    best, of = solve(np.r_[np.zeros(k), -weights], matrix, -np.inf, upper)
    if smallest:
        # second solve: fewest tasks with Σ w_T y_T >= OF - TIE·max(1, OF)
        floor = of - TIE * max(1.0, abs(of))
        fewer, of2 = solve(
            np.r_[size, np.zeros(m)],
            vstack([matrix, coo_array(np.r_[np.zeros(k), -weights][None, :])]).tocsr(),
            -np.inf,
            np.r_[upper, -floor],
        )
        if of2 >= of - TIE * max(1.0, abs(of)) and fewer.bit_count() <= best.bit_count():
            best = fewer
    return Plan.of_mask(topology, best)


def dominance_pairs(
    size: np.ndarray, weights: np.ndarray, tree_rows: list[int], group_cols: list[int]
) -> list[tuple[int, int]]:
    """Pairs (g, h) of groups with x_g >= x_h valid at some optimum (module docstring).

    size[g]: group g's task count; weights[t]: tree t's weight; tree_rows/group_cols list the
    (tree, group) incidences. Alternatives have the same contexts (a tree through g with g
    taken out); within a class, groups are ordered by size, then total weight descending, then
    index, and g before h gets x_g >= x_h when g dominates h, unless a group x after g that g
    dominates also dominates h (the transitive reduction: x_g >= x_x >= x_h is there)."""
    in_tree: dict[int, list[int]] = {}
    for t, g in zip(tree_rows, group_cols, strict=True):
        in_tree.setdefault(t, []).append(g)
    contexts: list[dict[frozenset, float]] = [{} for _ in size]
    for t, members in in_tree.items():
        for g in members:
            context = frozenset(x for x in members if x != g)
            contexts[g][context] = weights[t]
    classes: dict[frozenset, list[int]] = {}
    for g, ctx in enumerate(contexts):
        classes.setdefault(frozenset(ctx), []).append(g)
    pairs = []
    for signature, members in classes.items():
        if len(members) < 2:
            continue
        order = list(signature)
        members.sort(key=lambda g: (size[g], -sum(contexts[g].values()), g))
        w = np.array([[contexts[g][c] for c in order] for g in members])
        s = size[members]
        floor = w * (1 - DOMINANCE_RTOL)
        # dom[a, b]: members[a] dominates members[b]
        dom = np.array([(s[a] <= s) & np.all(w[a] >= floor, axis=1) for a in range(len(s))])
        for j in range(len(members)):
            above = [a for a in range(j) if dom[a, j]]
            for i, a in enumerate(above):
                if not any(dom[a, x] for x in above[i + 1 :]):
                    pairs.append((members[a], members[j]))
    return pairs
