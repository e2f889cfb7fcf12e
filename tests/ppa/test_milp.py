"""The MILP's exact reductions: every dominance constraint is a true dominance (brute force over
all plans), and the reduced program finds the optimum of the plain one."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppa import FULL, Topology, TopologySpec, plan_milp, random_topology
from ppa.fidelity import of_batch, tree_masks
from ppa.planners import plan_dp
from ppa.planners.milp import dominance_pairs
from ppa.planners.plan import bits
from tests.examples import examples
from tests.ppa.strategies import brute_force, topologies


def groups_and_pairs(topology):
    """The MILP's task groups (as lists of task indices) and its dominance pairs."""
    trees, weights = tree_masks(topology)
    member_of = [0] * len(topology.tasks)
    for k, tree in enumerate(trees):
        for i in bits(tree):
            member_of[i] |= 1 << k
    groups = {}
    for i, key in enumerate(member_of):
        groups.setdefault(key, []).append(i)
    keys = list(groups)
    rows, cols = [], []
    for g, key in enumerate(keys):
        members = list(bits(key))
        rows += members
        cols += [g] * len(members)
    size = np.array([len(groups[key]) for key in keys], dtype=float)
    return [groups[key] for key in keys], dominance_pairs(size, weights, rows, cols)


@settings(max_examples=examples(30), deadline=None)
@given(topologies(max_operators=3, max_parallelism=3))
def test_each_dominance_pair_is_a_swap_that_never_costs_of_or_tasks(topology):
    groups, pairs = groups_and_pairs(topology)
    n = len(topology.tasks)
    for g, h in pairs:
        assert len(groups[g]) <= len(groups[h])
        others = [i for i in range(n) if i not in groups[g] + groups[h]]
        plans = [
            set(c) | set(groups[h])
            for k in range(len(others) + 1)
            for c in itertools.combinations(others, k)
        ]
        swapped = [p - set(groups[h]) | set(groups[g]) for p in plans]
        alive = np.zeros((2 * len(plans), n), dtype=bool)
        for row, p in enumerate(plans + swapped):
            alive[row, list(p)] = True
        of = of_batch(topology, alive)
        assert np.all(of[len(plans) :] >= of[: len(plans)] - 1e-12)


@settings(max_examples=examples(30), deadline=None)
@given(topologies(max_operators=3, max_parallelism=3), st.data())
def test_the_reduced_program_finds_the_brute_force_optimum(topology, data):
    R = data.draw(st.integers(0, min(len(topology.tasks), 9)))
    best, _ = brute_force(topology, R)
    assert plan_milp(topology, R).of == pytest.approx(best, abs=1e-9)
    assert plan_milp(topology, R, dominance=False).of == pytest.approx(best, abs=1e-9)


def test_dominance_orders_the_tasks_of_a_full_chain_by_weight():
    # 2 x 3 x 2 full chain, uneven workloads: each operator's tasks are alternatives.
    topology = Topology.partitioned(
        parallelism={"A": 2, "B": 3, "C": 2},
        edges={("A", "B"): FULL, ("B", "C"): FULL},
        workloads={"A": [1, 2], "B": [3, 1, 2], "C": [1, 1]},
    )
    groups, pairs = groups_and_pairs(topology)
    name = [[topology.tasks[i] for i in g] for g in groups]
    named = {(name[g][0], name[h][0]) for g, h in pairs}
    assert {("A.2", "A.1"), ("B.1", "B.3"), ("B.3", "B.2")} <= named
    assert ("B.1", "B.2") not in named  # implied through B.3 (transitive reduction)
    assert len(named) == 4  # C.1 and C.2 tie: one order, by index
    assert all(len(g) == 1 for g in groups)


@pytest.mark.parametrize("seed", range(8))
def test_reduced_and_plain_programs_agree_on_fig14_topologies(seed):
    rng = np.random.default_rng(seed)
    spec = TopologySpec(
        parallelism=(1, 4),
        workload="zipf",
        structure=["structured", "full"][seed % 2],
        join_fraction=[0.0, 0.5][seed // 2 % 2],
        operators=(5, 7),
    )
    topology = random_topology(spec, rng)
    R = int(rng.integers(len(topology.operators), len(topology.tasks) + 1))
    fast, plain = plan_milp(topology, R), plan_milp(topology, R, dominance=False)
    assert fast.of == pytest.approx(plain.of, abs=1e-9)
    assert len(fast.tasks) <= R


@settings(max_examples=examples(30), deadline=None)
@given(topologies(max_operators=3, max_parallelism=3), st.data())
def test_the_milp_plan_is_a_smallest_optimal_plan_by_brute_force(topology, data):
    R = data.draw(st.integers(0, min(len(topology.tasks), 9)))
    best, fewest = brute_force(topology, R)
    plan = plan_milp(topology, R)
    assert plan.of == pytest.approx(best, abs=1e-9)
    assert len(plan.tasks) == fewest


def _tied(seed):
    """Random topologies where OF ties between plans of different sizes (found by comparing the
    first solve's plan with DP's on 513 (topology, R))."""
    rng = np.random.default_rng(seed)
    spec = TopologySpec(
        parallelism=(1, 4),
        workload=["uniform", "zipf"][seed % 2],
        structure=["structured", "full"][seed // 2 % 2],
        join_fraction=[0.0, 0.5][seed // 4 % 2],
        operators=(4, 6),
    )
    return random_topology(spec, rng)


@pytest.mark.parametrize(("seed", "R"), [(8, 9), (8, 11), (56, 11), (58, 7), (69, 14)])
def test_the_second_solve_returns_dp_s_smallest_plan_where_the_first_ties_larger(seed, R):
    topology = _tied(seed)
    dp, milp = plan_dp(topology, R), plan_milp(topology, R)
    first = plan_milp(topology, R, smallest=False)
    assert milp.of == pytest.approx(dp.of, abs=1e-9) and first.of == pytest.approx(dp.of, abs=1e-9)
    assert len(first.tasks) > len(dp.tasks)  # the tie the second solve is there for
    assert len(milp.tasks) == len(dp.tasks)
