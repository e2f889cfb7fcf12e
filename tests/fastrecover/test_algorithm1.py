"""Algorithm 1 and the chain baselines against brute force, the budget and each other."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrecover.chain import nsegments, one_segment, optimize_chain
from fastrecover.generate import random_chain
from fastrecover.model import Operator, Storage, checkpoint_overheads, total_overhead
from tests.examples import examples
from tests.fastrecover.reference import algorithm1_loops, brute_force_chain

# The two-cost default, the single-bandwidth model and dear snapshots.
STORAGES = st.sampled_from(
    [Storage(), Storage(20_000.0, snapshot_bandwidth=None), Storage(60_000.0, 8_000.0)]
)


@settings(max_examples=examples(30), deadline=None)
@given(
    st.integers(1, 6),
    st.integers(1, 9),
    st.integers(0, 2**32 - 1),
    st.sampled_from([0.2, 0.4, 0.8]),
    STORAGES,
)
def test_dp_optimum_equals_brute_force(n, z, seed, ch_max, storage):
    topology = random_chain(n, np.random.default_rng(seed))
    result = optimize_chain(topology, ch_max, z, storage)
    expected = brute_force_chain(topology, ch_max, z, storage)
    if np.isinf(expected):
        assert not result.feasible and result.expected_recovery_time is None
    else:
        assert result.feasible
        assert result.expected_recovery_time == pytest.approx(expected, rel=1e-9)


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(1, 20), st.integers(1, 60), st.integers(0, 2**32 - 1))
def test_configurations_respect_the_budget_and_rsfs(n, z, seed):
    topology = random_chain(n, np.random.default_rng(seed))
    storage = Storage()
    for method in (optimize_chain, nsegments, one_segment):
        result = method(topology, 0.4, z, storage)
        if not result.feasible:
            continue
        assert result.checkpoint_overhead <= 0.4 * (1 + 1e-9)
        assert 1 in result.anchors
        eta = np.array(result.frequencies)
        bounds = [*(a - 1 for a in result.anchors), n]
        for start, end in zip(bounds, bounds[1:], strict=False):  # RSFS: one frequency per segment
            assert np.allclose(eta[start:end], eta[start])
        assert total_overhead(topology, result.configuration, storage) == pytest.approx(
            checkpoint_overheads(topology, result.configuration, storage).sum()
        )


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(1, 25), st.integers(0, 2**32 - 1), st.sampled_from([20, 60]))
def test_baselines_are_never_better_than_fastrecover(n, seed, z):
    topology = random_chain(n, np.random.default_rng(seed))
    best = optimize_chain(topology, 0.4, z)
    for baseline in (nsegments(topology, 0.4, z), one_segment(topology, 0.4, z)):
        if baseline.feasible:
            assert best.feasible
            assert best.expected_recovery_time <= baseline.expected_recovery_time * (1 + 1e-12)


def test_baselines_equal_brute_force_over_their_anchor_sets():
    topology = random_chain(5, np.random.default_rng(3))
    storage = Storage()
    ns = nsegments(topology, 0.8, 12, storage)
    assert ns.expected_recovery_time == pytest.approx(
        brute_force_chain(topology, 0.8, 12, storage, anchor_sets=[tuple(range(5))])
    )
    one = one_segment(topology, 0.8, 12, storage)
    assert one.anchors == (1,)
    assert one.expected_recovery_time == pytest.approx(
        brute_force_chain(topology, 0.8, 12, storage, anchor_sets=[(0,)])
    )


def test_vectorized_dp_equals_the_plain_loop_reference():
    for seed in range(5):
        topology = random_chain(8, np.random.default_rng(seed))
        storage = Storage()
        result = optimize_chain(topology, 0.4, 20, storage)
        assert result.expected_recovery_time == pytest.approx(
            algorithm1_loops(topology, 0.4, 20, storage), rel=1e-9
        )


def test_more_budget_never_hurts():
    topology = random_chain(12, np.random.default_rng(7))
    values = [
        optimize_chain(topology, ch, 60).expected_recovery_time for ch in (0.2, 0.3, 0.4, 0.6)
    ]
    assert all(b <= a for a, b in zip(values, values[1:], strict=False))


def test_infeasible_is_explicit():
    topology = random_chain(10, np.random.default_rng(0), omega=1e7)
    result = optimize_chain(topology, 0.4, 60)
    assert not result.feasible
    assert result.expected_recovery_time is None and result.configuration is None


@pytest.mark.parametrize(
    ("ch_max", "z", "message"), [(0.0, 60, "ch_max"), (0.4, 0, "z must"), (0.4, 2.5, "z must")]
)
def test_bad_budget(ch_max, z, message):
    with pytest.raises(ValueError, match=message):
        optimize_chain(random_chain(3, np.random.default_rng(0)), ch_max, z)


@settings(max_examples=examples(20), deadline=None)
@given(st.integers(1, 15), st.integers(0, 2**32 - 1), st.sampled_from([5e3, 2e4, 1e5]))
def test_two_cost_storage_with_equal_bandwidths_is_the_single_bandwidth_model(n, seed, b):
    topology = random_chain(n, np.random.default_rng(seed))
    one, two = Storage(b, snapshot_bandwidth=None), Storage(b, snapshot_bandwidth=b)
    for method in (optimize_chain, nsegments, one_segment):
        assert method(topology, 0.4, 30, one) == method(topology, 0.4, 30, two)


def test_storage_bandwidths_are_validated_by_name():
    with pytest.raises(ValueError, match="snapshot_bandwidth must be a positive number"):
        Storage(2e4, snapshot_bandwidth=0.0)
    with pytest.raises(ValueError, match="bandwidth must be a positive number"):
        Storage(float("nan"))


@settings(max_examples=examples(20), deadline=None)
@given(st.integers(1, 20), st.integers(0, 2**32 - 1), st.sampled_from([0.5, 3.0, 40.0]))
def test_snapshot_bandwidth_scales_every_chain_rt_and_keeps_feasibility(n, seed, k):
    # η ∝ B_snap and restores ∝ 1/B_snap: on a chain B_snap is a pure scale of RT (what lets
    # fastrecover_delta map the (B_log, B_snap) plane from one B_snap per B_log).
    topology = random_chain(n, np.random.default_rng(seed))
    base, scaled = Storage(2e4, 1e6), Storage(2e4, 1e6 * k)
    for method in (optimize_chain, nsegments, one_segment):
        a, b = method(topology, 0.4, 30, base), method(topology, 0.4, 30, scaled)
        assert a.feasible == b.feasible and a.anchors == b.anchors
        if a.feasible:
            assert b.expected_recovery_time == pytest.approx(a.expected_recovery_time / k, rel=1e-9)


@pytest.mark.parametrize(
    ("field", "value", "allowed"),
    [
        ("s", "a", "in \\(0, 1\\]"),
        ("s", 1.5, "in \\(0, 1\\]"),
        ("tau", None, ">= 0"),
        ("pi", 0, "> 0"),
        ("theta", True, "> 0"),
        ("rho", float("nan"), ">= 0"),
    ],
)
def test_operator_fields_are_validated_by_name(field, value, allowed):
    fields = {"s": 0.5, "tau": 1e-5, "pi": 15_000, "theta": 1.0, "rho": 0.2} | {field: value}
    with pytest.raises(ValueError, match=f"operator {field} must be a number {allowed}; got"):
        Operator(**fields)
