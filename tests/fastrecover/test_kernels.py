"""The compiled kernels against their vectorized NumPy forms, Algorithm 1's DP (chain._dp), its
segment tables, the results' totals (chain.compiled_result against the model) and the trees'
min-plus convolution (tests/fastrecover/reference.py): equal to the last bit, argmins (ties)
included. The sweeps' shared-table solvers and shortened sweep functions return the same values
as the single calls."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrecover import experiments
from fastrecover.chain import (
    _dp,
    _dp_compiled,
    chain_methods,
    compiled_result,
    configured_result,
    nsegments,
    one_segment,
    optimize_chain,
    segment_tables,
)
from fastrecover.generate import random_chain, random_tree
from fastrecover.model import Storage
from fastrecover.settings import CHAIN, TREE
from fastrecover.tree import (
    _carry_rows,
    _convolve,
    _exact,
    _exact_compiled,
    _grid,
    _nsegments,
    _nsegments_compiled,
    _place_rows,
    _thesis,
    _thesis_compiled,
    optimize_tree,
    tree_feasible,
    tree_methods,
    tree_nsegments,
    tree_one_segment,
)
from tests.examples import examples
from tests.fastrecover.reference import convolve_numpy


@settings(max_examples=examples(40), deadline=None)
@given(
    st.integers(1, 12),
    st.integers(1, 40),
    st.integers(0, 2**32 - 1),
    st.floats(0.05, 0.8),
    st.booleans(),
)
def test_compiled_dp_equals_the_numpy_dp(n, z, seed, ch_max, singletons):
    topology = random_chain(n, np.random.default_rng(seed))
    rt, _ = segment_tables(topology, Storage(), ch_max, z)
    for got, expected in zip(_dp_compiled(rt, z, singletons), _dp(rt, z, singletons), strict=True):
        np.testing.assert_array_equal(got, expected)


@settings(max_examples=examples(40), deadline=None)
@given(
    st.integers(1, 14),
    st.integers(1, 40),
    st.integers(0, 2**32 - 1),
    st.floats(0.001, 0.8),
    st.sampled_from([5_000.0, 20_000.0, 100_000.0]),
)
def test_compiled_segment_tables_equal_the_numpy_ones(n, z, seed, ch_max, bandwidth):
    # Small budgets and bandwidths make many entries infeasible (eta <= 0): the masks must agree.
    topology = random_chain(n, np.random.default_rng(seed))
    storage = Storage(bandwidth)
    numpy_tables = segment_tables(topology, storage, ch_max, z)
    compiled_tables = segment_tables(topology, storage, ch_max, z, compiled=True)
    for got, expected in zip(compiled_tables, numpy_tables, strict=True):
        np.testing.assert_array_equal(got, expected)


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(1, 25), st.integers(0, 2**32 - 1), st.booleans())
def test_compiled_result_equals_the_models_totals_to_the_last_bit(n, seed, as_tree):
    rng = np.random.default_rng(seed)
    topology = (random_tree if as_tree else random_chain)(n, rng)
    source = topology.upstream.index(-1) + 1
    anchors = {source} | {int(a) for a in rng.choice(n, size=rng.integers(0, n + 1)) + 1}
    frequencies = rng.uniform(0.01, 50.0, size=n)
    got = compiled_result(topology, Storage(), anchors, frequencies)
    assert got == configured_result(topology, Storage(), anchors, frequencies)


def test_compiled_result_refuses_a_configuration_without_the_source_as_anchor():
    topology = random_chain(4, np.random.default_rng(0))
    with pytest.raises(ValueError, match="source"):
        compiled_result(topology, Storage(), {2, 4}, np.ones(4))


def test_compiled_dp_breaks_ties_as_the_numpy_argmin():
    # Integer-valued tables: many equal totals, so the first-minimum order is exercised.
    rng = np.random.default_rng(3)
    for _ in range(30):
        n, z = int(rng.integers(1, 7)), int(rng.integers(1, 9))
        rt = rng.integers(0, 3, size=(n, n, z + 1)).astype(float)
        rt[rng.random(rt.shape) < 0.3] = np.inf
        for singletons in (False, True):
            for got, expected in zip(
                _dp_compiled(rt, z, singletons), _dp(rt, z, singletons), strict=True
            ):
                np.testing.assert_array_equal(got, expected)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from([(), (1,), (3,), (2, 4)]),
    st.integers(0, 25),
    st.booleans(),
)
def test_compiled_convolution_equals_the_numpy_one(seed, lead, z, ties):
    rng = np.random.default_rng(seed)
    shape = (*lead, z + 1)
    draw = (
        (lambda: rng.integers(0, 4, size=shape).astype(float))
        if ties
        else (lambda: rng.exponential(size=shape))
    )
    acc, value = draw(), draw()
    acc[rng.random(shape) < 0.2] = np.inf
    value[rng.random(shape) < 0.2] = np.inf
    got, got_arg = _convolve(acc, value)
    expected, expected_arg = convolve_numpy(acc, value)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(got_arg, expected_arg)
    # broadcasting a smaller accumulator against the values, as the DPs do
    got_b, arg_b = _convolve(np.zeros(z + 1), value)
    expected_b, expected_arg_b = convolve_numpy(np.broadcast_to(np.zeros(z + 1), shape), value)
    np.testing.assert_array_equal(got_b, expected_b)
    np.testing.assert_array_equal(arg_b, expected_arg_b)


def test_carry_and_place_kernels_equal_their_numpy_forms():
    rng = np.random.default_rng(5)
    for _ in range(20):
        rows, z = int(rng.integers(1, 6)), int(rng.integers(0, 12))
        carry, carry_value = rng.random((rows, z + 1)), rng.random((rows, z + 1))
        _, arg = _convolve(rng.random((rows, z + 1)), rng.random((rows, z + 1)))
        r = np.arange(z + 1)
        expected = np.take_along_axis(carry, np.maximum(r - arg, 0), axis=-1) + np.take_along_axis(
            carry_value, arg, axis=-1
        )
        np.testing.assert_array_equal(_carry_rows(carry, carry_value, arg), expected)
        merged, own = rng.random((rows, z + 1)), rng.random(rows)
        need = rng.integers(0, z + 3, size=rows)
        rest = r - need[:, None]
        vals = np.take_along_axis(merged, np.maximum(rest, 0), axis=-1)
        expected = np.where(rest >= 0, own[:, None] + vals, np.inf)
        np.testing.assert_array_equal(_place_rows(merged, own, need), expected)


@pytest.mark.parametrize("seed", range(5))
def test_chain_methods_share_tables_and_equal_the_single_calls(seed):
    topology = random_chain(12, np.random.default_rng(seed))
    results = chain_methods(topology, 0.4, 30)
    assert results == {
        "FastRecover": optimize_chain(topology, 0.4, 30),
        "NSegments": nsegments(topology, 0.4, 30),
        "1Segment": one_segment(topology, 0.4, 30),
    }


@pytest.mark.parametrize("seed", range(6))
def test_tree_methods_share_the_grid_and_equal_the_single_calls(seed):
    topology = random_tree(9, np.random.default_rng(seed))
    # At CH_max = 0.5 some trees are infeasible for some or all methods; at 2.0 most are not.
    ch_max = (2.0, 0.5)[seed % 2]
    grid = {"f": 40, "f_max": 200.0}
    results = tree_methods(topology, ch_max, 20, **grid)
    assert results == {
        "exact": optimize_tree(topology, ch_max, 20, **grid),
        "thesis_knapsack": optimize_tree(topology, ch_max, 20, method="thesis_knapsack", **grid),
        "NSegments": tree_nsegments(topology, ch_max, 20, **grid),
        "1Segment": tree_one_segment(topology, ch_max, 20, **grid),
    }
    with pytest.raises(ValueError, match="methods"):
        tree_methods(topology, ch_max, 20, methods=("thesis_enumeration",))


TREE_SOLVERS = [
    (_exact, _exact_compiled),
    (lambda t, g: _thesis(t, g, False), _thesis_compiled),
    (_nsegments, _nsegments_compiled),
]


def _same_configuration(got, expected):
    assert (got is None) == (expected is None)
    if expected is not None:
        assert got[0] == set(expected[0])
        np.testing.assert_array_equal(got[1], expected[1])


@settings(max_examples=examples(80), deadline=None)
@given(
    st.integers(1, 18),
    st.integers(0, 2**32 - 1),
    st.sampled_from([1, 3, 10, 20, 40]),
    st.sampled_from([0.1, 0.3, 0.5, 0.7, 2.0]),
    st.sampled_from([1, 5, 20, 100]),
    st.sampled_from([0.1, 1.0, 200.0]),
)
def test_compiled_tree_solvers_choose_the_numpy_solvers_configuration(n, seed, z, ch_max, f, f_max):
    # tree_methods' compiled exact DP, recurrence (3.5) and NSegments against the forms
    # optimize_tree runs: the same anchors and frequencies, or both infeasible.
    topology = random_tree(n, np.random.default_rng(seed))
    _, grid = _grid(topology, None, ch_max, z, f, f_max)
    for numpy_form, compiled in TREE_SOLVERS:
        _same_configuration(compiled(topology, grid), numpy_form(topology, grid))


def test_compiled_tree_solvers_break_ties_as_the_numpy_solvers():
    # Small-integer tables: many equal totals, so every first-minimum choice is exercised.
    rng = np.random.default_rng(7)
    for _ in range(60):
        n, z, f = int(rng.integers(1, 9)), int(rng.integers(1, 8)), int(rng.integers(1, 4))
        topology = random_tree(n, rng)
        _, grid = _grid(topology, None, 0.5, z, f, 200.0)
        grid.rt = rng.integers(0, 3, size=grid.rt.shape).astype(float)
        grid.need = rng.integers(0, 3, size=grid.need.shape)
        grid.rho = rng.integers(1, 3, size=n).astype(float)
        for numpy_form, compiled in TREE_SOLVERS:
            _same_configuration(compiled(topology, grid), numpy_form(topology, grid))


@settings(max_examples=examples(80), deadline=None)
@given(
    st.integers(1, 12),
    st.integers(0, 2**32 - 1),
    st.floats(0.05, 1.0),
    st.sampled_from([20_000.0, 500_000.0, 1_500_000.0, 2_000_000.0, 10_000_000.0]),
    st.sampled_from([1.0, 200.0]),
)
def test_tree_feasible_agrees_with_every_solver(n, seed, ch_max, snapshot, f_max):
    # B_snap 1.5e6-2e6 at F_max = 200 is fastrecover_delta's feasibility edge.
    topology = random_tree(n, np.random.default_rng(seed))
    grid = {"f": 20, "f_max": f_max, "storage": Storage(20_000.0, snapshot)}
    feasible = tree_feasible(topology, ch_max, 10, **grid)
    # NSegments anchors every operator, so it may be infeasible where the others are not.
    results = tree_methods(topology, ch_max, 10, **grid, methods=("exact", "thesis_knapsack"))
    one_segment = tree_one_segment(topology, ch_max, 10, **grid)
    assert {r.feasible for r in [*results.values(), one_segment]} == {feasible}


@pytest.mark.parametrize(
    ("full", "short", "omega"),
    [
        (experiments.chain_point, experiments.chain_proxy_point, CHAIN.omega),
        (experiments.tree_point, experiments.tree_proxy_point, TREE.omega),
    ],
)
def test_proxy_points_return_the_full_points_values(full, short, omega):
    for seed in range(8):
        params = {"n": 10, "omega": omega, "ch_max": CHAIN.ch_max, "z": 20, "failures": 100}
        a = full(dict(params), np.random.default_rng(seed))
        b = short(dict(params), np.random.default_rng(seed))
        assert set(b) < set(a)
        for key, value in b.items():
            assert value == a[key] or (np.isnan(value) and np.isnan(a[key]))


def test_runtime_point_times_one_run_and_rejects_an_unknown_shape_or_repeat_count():
    params = {"shape": "chain", "n": 5, "z": 10, "ch_max": CHAIN.ch_max, "repeats": 2}
    first = experiments.runtime_point(params, np.random.default_rng(0))
    assert first["cpu_seconds"] > 0 and first["wall_seconds"] > 0
    with pytest.raises(ValueError, match="shape"):
        experiments.runtime_point(dict(params, shape="ring"), np.random.default_rng(0))
    with pytest.raises(ValueError, match="repeats"):
        experiments.runtime_point(dict(params, repeats=0), np.random.default_rng(0))


def test_longest_first_keeps_every_point_and_puts_the_largest_work_first():
    grid = [
        {"n": n, "z": z, "line": line}
        for n, z, line in [(5, 60, "n"), (80, 60, "n"), (15, 320, "z"), (15, 20, "z")]
    ]
    ordered = experiments.longest_first(grid)
    assert [(p["n"], p["z"]) for p in ordered] == [(80, 60), (15, 320), (5, 60), (15, 20)]
    assert sorted(map(str, ordered)) == sorted(map(str, grid)) and grid[0]["n"] == 5


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(2, 35), st.integers(0, 2**32 - 1), st.sampled_from([0.2, 0.4, 0.6]))
def test_compiled_rsrfs_moves_equal_the_numpy_moves(n, seed, ch_max):
    from fastrecover.rsrfs import _move_inputs, _moves
    from tests.fastrecover.reference import rsrfs_moves_numpy

    topology = random_chain(n, np.random.default_rng(seed))
    start = optimize_chain(topology, ch_max, 60)
    if not start.feasible:
        return
    args = _move_inputs(topology, start.configuration, Storage(), ch_max)
    np.testing.assert_array_equal(_moves(*args, 10_000), rsrfs_moves_numpy(*args))
