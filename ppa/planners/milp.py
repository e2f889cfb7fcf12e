"""The exact optimum as a set-union knapsack integer program, solved with scipy.optimize.milp.

OF(P) = Σ_{T ⊆ P} w_T over the MC-trees T (ppa.fidelity.MCTree), so with x_t = 1 when task t is
replicated and y_T = 1 when every task of T is:
    maximize Σ_T w_T y_T   subject to   y_T <= x_t (t ∈ T),   Σ_t x_t <= R,   x binary,
y in [0, 1] (at an optimum y_T = min_{t ∈ T} x_t, integral). The paper reduces the problem from
the set-union knapsack problem (Section III-B) but solves it by enumeration (Algorithm 1); this
is the oracle beyond Algorithm 1's reach, as large as the number of MC-trees.
"""

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_array, hstack, vstack

from ppa.fidelity import DEFAULT_TREE_LIMIT, tree_masks
from ppa.planners.plan import Plan, bits, check_budget
from ppa.topology import Topology


def plan_milp(topology: Topology, R: int, *, tree_limit: int = DEFAULT_TREE_LIMIT) -> Plan:
    """An optimal plan of at most R tasks, made of whole MC-trees (other tasks add nothing).

    Tasks that lie in exactly the same MC-trees (a one-to-one chain, say) are one variable of
    their group's size: a plan holding part of a group gains nothing from it. Exact, and it
    shrinks the branching by the length of such chains."""
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
        groups.setdefault(key, []).append(i)
    keys = list(groups)
    size = np.array([len(groups[key]) for key in keys], dtype=float)
    rows, cols = [], []  # one row per (T, group): y_T - x_g <= 0
    for g, key in enumerate(keys):
        members = list(bits(key))
        rows += members
        cols += [g] * len(members)
    count, k = len(rows), len(keys)
    pick_tree = coo_array((np.ones(count), (np.arange(count), rows)), shape=(count, m))
    pick_group = coo_array((np.ones(count), (np.arange(count), cols)), shape=(count, k))
    a = vstack([hstack([-pick_group, pick_tree]), coo_array(np.r_[size, np.zeros(m)][None, :])])
    result = milp(
        c=np.r_[np.zeros(k), -weights],
        constraints=LinearConstraint(a.tocsr(), -np.inf, np.r_[np.zeros(count), R]),
        integrality=np.r_[np.ones(k), np.zeros(m)],
        bounds=Bounds(0, 1),
        options={"mip_rel_gap": 0.0},
    )
    if not result.success:
        raise RuntimeError(f"milp failed: {result.message}")
    chosen = [i for g, key in enumerate(keys) if result.x[g] > 0.5 for i in groups[key]]
    plan = sum(1 << i for i in chosen)
    kept = 0
    for tree in trees:
        if tree & ~plan == 0:
            kept |= tree
    return Plan.of_mask(topology, kept)
