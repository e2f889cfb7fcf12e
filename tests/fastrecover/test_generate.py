"""Random topologies honour Table 4.1 / Section 4.1; bad attributes and inputs are refused."""

import numpy as np
import pandas as pd
import pytest

from fastrecover import Operator, chain, nsegments, one_segment, optimize_chain
from fastrecover.generate import KB_PER_MB, Attributes, random_chain, random_tree
from fastrecover.model import MAX_FANOUT, children
from fastrecover.settings import CHAIN
from fastrecover.tree import DEFAULT_F, DEFAULT_F_MAX
from pipeline import paths


def test_chain_attributes_follow_table_4_1():
    topology = random_chain(2000, np.random.default_rng(0))  # Ω: the chain default
    assert np.all((topology.s > 0.1) & (topology.s <= 1))
    assert np.all(topology.tau == 1e-5) and np.all(topology.theta == 1.0)
    assert np.all((topology.pi >= 10 * KB_PER_MB) & (topology.pi <= 20 * KB_PER_MB))
    assert np.all(topology.rho > 0)
    # ρ = positive Gaussian part + 0.02 per instance (2..6): at least 0.04 above the Gaussian part.
    assert topology.rho.min() > 0.04 and 0.2 < topology.rho.mean() < 0.35
    assert topology.rates[0] == CHAIN.omega
    np.testing.assert_allclose(topology.rates[1:], topology.rates[:-1] * topology.s[:-1])


def test_trees_have_fanout_at_most_three_and_are_numbered_from_the_leaves():
    for seed in range(20):
        topology = random_tree(30, np.random.default_rng(seed))
        kids = children(topology)
        assert max(len(k) for k in kids) <= MAX_FANOUT
        assert topology.upstream[-1] == -1  # the root is op_n
        assert all(up > i for i, up in enumerate(topology.upstream[:-1]))
        for i, up in enumerate(topology.upstream[:-1]):
            assert topology.rates[i] == pytest.approx(topology.rates[up] * topology.s[up])


def test_same_seed_same_topology():
    a = random_tree(15, np.random.default_rng(5))
    b = random_tree(15, np.random.default_rng(5))
    assert a.upstream == b.upstream and np.array_equal(a.rho, b.rho)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"s": 0.0}, r"s must be a number in \(0, 1\]"),
        ({"s": 1.5}, r"s must be a number in \(0, 1\]"),
        ({"s": "a"}, r"s must be a number in \(0, 1\]; got 'a'"),
        ({"pi": -1.0}, "pi must be a number > 0"),
        ({"theta": 0.0}, "theta must be a number > 0"),
        ({"rho": -0.1}, "rho must be a number >= 0"),
        ({"tau": float("nan")}, "tau"),
    ],
)
def test_bad_operator_attributes(kwargs, message):
    args = {"s": 0.5, "tau": 1e-5, "pi": 1e4, "theta": 1.0, "rho": 0.1}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        Operator(**args)


def test_bad_generator_inputs():
    with pytest.raises(ValueError, match="n must be"):
        random_chain(0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="selectivity"):
        Attributes(selectivity=(0.0, 1.0))
    with pytest.raises(ValueError, match="omega"):
        chain([Operator(s=0.5, tau=0, pi=1.0, theta=1.0, rho=0.1)], omega=-5)


def test_baselines_dispatch_on_the_topology_shape():
    chain = random_chain(6, np.random.default_rng(1))
    tree = random_tree(6, np.random.default_rng(1))
    assert nsegments(chain, 0.8, 30).anchors == tuple(range(1, 7))
    assert nsegments(tree, 1.0, 30).anchors == tuple(range(1, 7))
    assert one_segment(chain, 0.8, 30).anchors == (1,)
    assert one_segment(tree, 1.0, 30).anchors == (6,)  # the root
    assert (
        optimize_chain(chain, 0.8, 30).expected_recovery_time
        <= nsegments(chain, 0.8, 30).expected_recovery_time
    )


def test_package_defaults_follow_the_printed_defaults_table():
    """data/paper/fastrecover_defaults.csv (Table 4.1) against the generators' and the tree
    grid's defaults."""
    printed = pd.read_csv(paths.PAPER_DATA / "fastrecover_defaults.csv").set_index("parameter")
    attrs = Attributes()
    assert float(printed.loc["F", "tree_default"]) == DEFAULT_F
    assert float(printed.loc["F_max", "tree_default"]) == DEFAULT_F_MAX
    assert float(printed.loc["tau_i", "chain_default"]) == attrs.tau
    assert printed.loc["theta_i", "chain_default"] == f"{attrs.theta:g} KB"
    assert printed.loc["pi_i", "chain_default"] == "random {:g}..{:g} MB".format(*attrs.state_mb)
    assert printed.loc["parallelism_i", "chain_default"] == "random {}..{}".format(
        *attrs.parallelism
    )
    assert printed.loc["s_i", "chain_default"].startswith(
        "random ({:g}..{:g}]".format(*attrs.selectivity)
    )
    rho = printed.loc["rho_i", "chain_default"]
    assert f"mean {attrs.rho_mean:g} var {attrs.rho_variance:g}" in rho
    assert (
        float(printed.loc["Omega", "chain_default"])
        == random_chain(2, np.random.default_rng(0)).omega
    )
    assert (
        float(printed.loc["Omega", "tree_default"])
        == random_tree(2, np.random.default_rng(0)).omega
    )
