"""Simulated machine failures against the expected recovery time they approximate."""

import numpy as np
import pytest

from fastrecover.chain import nsegments, optimize_chain
from fastrecover.generate import random_chain, random_tree
from fastrecover.model import Configuration, Storage, expected_recovery_time, recovery_times
from fastrecover.simulate import simulate_failures
from fastrecover.tree import optimize_tree


def test_one_failed_instance_costs_rt_all_over_total_rate_on_average():
    """With one instance per machine, op_i fails with probability ρ_i / Σρ and costs rt_i."""
    topology = random_chain(10, np.random.default_rng(2))
    storage = Storage()
    config = optimize_chain(topology, 0.4, 60).configuration
    out = simulate_failures(
        topology, config, storage, np.random.default_rng(0), failures=40_000, multiplicity=1
    )
    rt = recovery_times(topology, config, storage)
    p = topology.rho / topology.rho.sum()
    se = np.sqrt(p @ (rt - p @ rt) ** 2 / 40_000)
    expected = expected_recovery_time(topology, config, storage) / topology.rho.sum()
    assert out["RT_Computational"] == pytest.approx(expected, abs=4 * se)
    assert out["RT_Latency"] == pytest.approx(out["RT_Computational"])


def test_latency_is_at_most_computation_and_parallel_segments_shorten_it():
    topology = random_chain(12, np.random.default_rng(4))
    storage = Storage()
    result = nsegments(topology, 0.6, 60, storage)
    out = simulate_failures(topology, result.configuration, storage, np.random.default_rng(1))
    assert out["RT_Latency"] < out["RT_Computational"]
    assert 1 <= out["failed_operators"] <= 5


def test_trees_and_reproducibility():
    topology = random_tree(15, np.random.default_rng(3))
    config = optimize_tree(topology, 0.5, 20).configuration
    a = simulate_failures(topology, config, Storage(), np.random.default_rng(5))
    b = simulate_failures(topology, config, Storage(), np.random.default_rng(5))
    assert a == b and a["RT_Latency"] <= a["RT_Computational"]


def test_rsfs_is_required():
    topology = random_chain(3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="RSFS"):
        simulate_failures(
            topology,
            Configuration(frozenset({1}), (2.0, 1.0, 1.0)),
            Storage(),
            np.random.default_rng(0),
        )
