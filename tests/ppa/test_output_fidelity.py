"""OF (Eq. (4)), IC and MC-trees (Definition 1): invariants on random DAGs, and the full chain
of Section IV-C whose number of MC-trees is Π M_i."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppa import Topology, internal_completeness, mc_trees, output_fidelity
from ppa.fidelity import of_batch
from ppa.topology import FULL
from tests.examples import examples
from tests.ppa.strategies import topologies


def failed_sets(topology, seed, count=8):
    rng = np.random.default_rng(seed)
    return [{t for t in topology.tasks if rng.random() < p} for p in np.linspace(0, 1, count)]


@settings(max_examples=examples(60), deadline=None)
@given(topologies(), st.integers(0, 2**32 - 1))
def test_of_and_ic_lie_in_unit_interval_with_of_empty_zero_and_all_one(topology, seed):
    everything = set(topology.tasks)
    assert output_fidelity(topology, failed=everything) == 0
    assert output_fidelity(topology, failed=set()) == pytest.approx(1)
    assert internal_completeness(topology, failed=everything) == 0
    assert internal_completeness(topology, failed=set()) == pytest.approx(1)
    for failed in failed_sets(topology, seed):
        assert -1e-12 <= output_fidelity(topology, failed) <= 1 + 1e-12
        assert -1e-12 <= internal_completeness(topology, failed) <= 1 + 1e-12


@settings(max_examples=examples(60), deadline=None)
@given(topologies(), st.integers(0, 2**32 - 1))
def test_of_is_monotone_in_the_plan(topology, seed):
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(topology.tasks))
    alive = np.zeros((len(order) + 1, len(order)), dtype=bool)
    for k, i in enumerate(order):  # row k + 1 adds one more task to the plan
        alive[k + 1 :, i] = True
    assert np.all(np.diff(of_batch(topology, alive)) >= -1e-12)


@settings(max_examples=examples(40), deadline=None)
@given(topologies(), st.integers(0, 2**32 - 1), st.floats(1e-3, 1e3))
def test_of_is_invariant_to_scaling_all_rates(topology, seed, factor):
    scaled = Topology.from_substreams(
        operators=topology.operators,
        joins=topology.joins,
        rates={key: factor * r for key, r in topology.rates.items()},
        sink_rates={t: factor * r for t, r in topology.sink_rates.items()},
    )
    for failed in failed_sets(topology, seed):
        assert output_fidelity(scaled, failed) == pytest.approx(output_fidelity(topology, failed))


@settings(max_examples=examples(40), deadline=None)
@given(topologies(), st.integers(0, 2**32 - 1))
def test_a_one_input_join_equals_an_independent_operator(topology, seed):
    one_input = {name for name, ups in topology.upstream.items() if len(ups) == 1}
    as_joins, as_independent = (
        Topology.from_substreams(
            operators=topology.operators,
            joins=joins,
            rates=topology.rates,
            sink_rates=topology.sink_rates,
        )
        for joins in (topology.joins | one_input, topology.joins - one_input)
    )
    for failed in failed_sets(topology, seed):
        assert output_fidelity(as_joins, failed) == pytest.approx(
            output_fidelity(as_independent, failed)
        )


@settings(max_examples=examples(60), deadline=None)
@given(topologies(), st.integers(0, 2**32 - 1))
def test_of_is_the_weight_of_the_mc_trees_inside_the_plan(topology, seed):
    trees = mc_trees(topology)
    assert sum(tree.weight for tree in trees) == pytest.approx(1)
    assert all(tree.weight > 0 for tree in trees)
    for failed in failed_sets(topology, seed):
        plan = set(topology.tasks) - failed
        expected = sum(tree.weight for tree in trees if tree.tasks <= plan)
        assert output_fidelity(topology, failed) == pytest.approx(expected, abs=1e-12)


def full_chain(*sizes):
    names = [f"O{i + 1}" for i in range(len(sizes))]
    return Topology.partitioned(
        parallelism=dict(zip(names, sizes, strict=True)),
        edges={(a, b): FULL for a, b in itertools.pairwise(names)},
    )


def test_a_uniform_full_chain_has_prod_m_mc_trees_and_of_prod_a_over_m():
    topology = full_chain(3, 4, 5)
    trees = mc_trees(topology)
    assert len(trees) == 60
    assert {len(tree.tasks) for tree in trees} == {3}
    assert all(tree.weight == pytest.approx(1 / 60) for tree in trees)
    rng = np.random.default_rng(7)
    for _ in range(20):
        failed = {t for t in topology.tasks if rng.random() < 0.4}
        alive = [
            sum(f"O{i}.{k}" not in failed for k in range(1, m + 1))
            for i, m in ((1, 3), (2, 4), (3, 5))
        ]
        expected = alive[0] / 3 * alive[1] / 4 * alive[2] / 5
        assert output_fidelity(topology, failed) == pytest.approx(expected)


def test_fig1_text_counts_of_mc_trees_for_a_join_and_an_independent_operator():
    """Section III-B: in a topology where O1 and O2 feed O3, a join's MC-tree takes a task of
    each input operator, an independent operator's a task of one."""
    topology = Topology.partitioned(
        parallelism={"O1": 2, "O2": 2, "O3": 2, "O4": 1},
        edges={("O1", "O3"): "one-to-one", ("O2", "O3"): "one-to-one", ("O3", "O4"): FULL},
        joins={"O3"},
    )
    assert len(mc_trees(topology)) == 2
    assert {len(tree.tasks) for tree in mc_trees(topology)} == {4}
    independent = Topology.from_substreams(operators=topology.operators, rates=topology.rates)
    assert len(mc_trees(independent)) == 4
    assert {len(tree.tasks) for tree in mc_trees(independent)} == {3}


def test_too_many_mc_trees_raise():
    with pytest.raises(ValueError, match="more than limit = 10 MC-trees"):
        mc_trees(full_chain(3, 4, 5), limit=10)
