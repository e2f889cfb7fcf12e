"""Algorithm 2 on trees: the exact DP against brute force; the thesis's recurrence, by knapsack
and by enumeration, against each other; budgets, RSFS and the baselines."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrecover.generate import random_tree
from fastrecover.model import Operator, Storage, heads, tree
from fastrecover.tree import optimize_tree, tree_nsegments, tree_one_segment
from tests.examples import examples
from tests.fastrecover.reference import brute_force_tree

SMALL = {"f": 4, "f_max": 1.0}  # a coarse grid keeps enumeration and brute force fast


@settings(max_examples=examples(25), deadline=None)
@given(
    st.integers(1, 6),
    st.integers(3, 9),
    st.integers(0, 2**32 - 1),
    st.sampled_from([Storage(), Storage(20_000.0, snapshot_bandwidth=400_000.0)]),
)
def test_exact_dp_equals_brute_force(n, z, seed, storage):
    topology = random_tree(n, np.random.default_rng(seed))
    grid = {"f": 3, "f_max": 1.0}  # 3^6 frequency choices per anchor set at n = 6
    result = optimize_tree(topology, 1.5, z, storage=storage, **grid)
    expected = brute_force_tree(topology, 1.5, z, storage=storage, **grid)
    if np.isinf(expected):
        assert not result.feasible
    else:
        assert result.expected_recovery_time == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_exact_dp_equals_brute_force_on_six_operator_trees(seed):
    topology = random_tree(6, np.random.default_rng(seed))
    # One increment (0.25) pays any operator's state at the lowest frequency: room for choices.
    grid = {"f": 3, "f_max": 1.0}
    result = optimize_tree(topology, 3.0, 12, **grid)
    expected = brute_force_tree(topology, 3.0, 12, storage=Storage(), **grid)
    assert np.isfinite(expected)
    assert result.expected_recovery_time == pytest.approx(expected, rel=1e-9)


@settings(max_examples=examples(20), deadline=None)
@given(st.integers(1, 7), st.integers(2, 8), st.integers(0, 2**32 - 1))
def test_thesis_knapsack_equals_thesis_enumeration(n, z, seed):
    topology = random_tree(n, np.random.default_rng(seed))
    knap = optimize_tree(topology, 1.5, z, method="thesis_knapsack", **SMALL)
    enum = optimize_tree(topology, 1.5, z, method="thesis_enumeration", **SMALL)
    assert knap.feasible == enum.feasible
    if knap.feasible:
        assert knap.expected_recovery_time == pytest.approx(enum.expected_recovery_time, rel=1e-12)


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(1, 15), st.integers(0, 2**32 - 1))
def test_exact_is_never_worse_than_the_thesis_recurrence_or_the_baselines(n, seed):
    topology = random_tree(n, np.random.default_rng(seed))
    exact = optimize_tree(topology, 0.5, 20, f=30, f_max=1.0)
    others = [
        optimize_tree(topology, 0.5, 20, f=30, f_max=1.0, method="thesis_knapsack"),
        tree_nsegments(topology, 0.5, 20, f=30, f_max=1.0),
        tree_one_segment(topology, 0.5, 20, f=30, f_max=1.0),
    ]
    for other in others:
        if other.feasible:
            assert exact.feasible
            assert exact.expected_recovery_time <= other.expected_recovery_time * (1 + 1e-12)


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(1, 15), st.integers(0, 2**32 - 1), st.sampled_from(["exact", "thesis_knapsack"]))
def test_configurations_respect_the_budget_and_rsfs(n, seed, method):
    topology = random_tree(n, np.random.default_rng(seed))
    result = optimize_tree(topology, 0.5, 20, f=30, f_max=1.0, method=method)
    if not result.feasible:
        return
    assert result.checkpoint_overhead <= 0.5 * (1 + 1e-9)
    assert topology.n in result.anchors  # the root stores the topology's input
    head = heads(topology, result.anchors)
    eta = np.array(result.frequencies)
    assert np.allclose(eta, eta[head])  # one frequency per recovery segment


def test_thesis_recurrence_misses_an_optimum_the_exact_dp_finds():
    """(3.5) judges a following child by its own DP_rt only. On this default-size tree the exact
    DP finds a configuration on the same grid (grid frequencies, one per segment, at most Z
    increments) with a lower RT_all than the recurrence's answer, so that answer is not optimal."""
    topology = random_tree(15, np.random.default_rng(11))
    storage = Storage(20_000.0, snapshot_bandwidth=None)  # the single-bandwidth model
    grid = {"f": 50, "f_max": 1.0, "storage": storage}
    exact = optimize_tree(topology, 0.5, 20, **grid)
    thesis = optimize_tree(topology, 0.5, 20, method="thesis_knapsack", **grid)
    assert exact.expected_recovery_time < 0.95 * thesis.expected_recovery_time
    freqs = np.arange(1, 51) / 50
    eta = np.array(exact.frequencies)
    assert np.isin(np.round(eta, 12), np.round(freqs, 12)).all()
    assert np.allclose(eta, eta[heads(topology, exact.anchors)])
    anchor = np.isin(np.arange(1, 16), exact.anchors)
    ch = (eta * topology.pi + anchor * topology.rates * topology.theta) / storage.bandwidth
    assert np.ceil(ch / (0.5 / 20) - 1e-9).sum() <= 20


def _op():
    return Operator(s=0.5, tau=1e-5, pi=1e4, theta=1.0, rho=0.1)


@pytest.mark.parametrize(
    ("parent", "message"),
    [
        ([5, 5, 5, 5, 0], "fan-out must be at most 3"),
        ([2, 0, 3], "the root must be op_n"),
        ([3, 1, 0], "larger index"),
        ([0, 0], "the root must be op_n"),
    ],
)
def test_bad_trees_raise(parent, message):
    with pytest.raises(ValueError, match=message):
        tree([_op() for _ in parent], parent, 1000.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"f": 0}, "f must"), ({"f_max": -1.0}, "f_max"), ({"method": "greedy"}, "method")],
)
def test_bad_tree_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        optimize_tree(random_tree(3, np.random.default_rng(0)), 0.5, 20, **kwargs)


@pytest.mark.parametrize("seed", range(3))
def test_the_thesis_f_max_of_200_is_feasible_under_the_default_two_cost_storage(seed):
    # fastrecover_delta's finding: B_snap = 2e6 makes F_max = 200 usable; one bandwidth of
    # 20,000 KB/min for snapshots too makes every default tree infeasible on that grid.
    topology = random_tree(15, np.random.default_rng(seed))  # Ω: the tree default
    grid = {"f": 100, "f_max": 200.0}
    assert optimize_tree(topology, 0.5, 20, storage=Storage(), **grid).feasible
    single = Storage(20_000.0, snapshot_bandwidth=None)
    assert not optimize_tree(topology, 0.5, 20, storage=single, **grid).feasible
