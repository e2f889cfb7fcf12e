"""The random topologies of Fig 14: the specification's factors hold in what is generated."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppa import FULL, TopologySpec, random_topology
from tests.examples import examples

SPECS = st.builds(
    TopologySpec,
    parallelism=st.sampled_from([(1, 5), (1, 10), (5, 15)]),
    workload=st.sampled_from(["uniform", "zipf"]),
    structure=st.sampled_from(["structured", "full"]),
    join_fraction=st.sampled_from([0.0, 0.5]),
)


@settings(max_examples=examples(60), deadline=None)
@given(SPECS, st.integers(0, 2**32 - 1))
def test_generated_topologies_follow_their_specification(spec, seed):
    topology = random_topology(spec, np.random.default_rng(seed))
    assert 5 <= len(topology.operators) <= 10
    lo, hi = spec.parallelism
    assert all(lo <= len(tasks) <= hi for tasks in topology.operators.values())
    for (a, b), kind in topology.partitioning.items():
        if spec.structure == "full" or b == topology.sink:
            assert kind == FULL
        elif len(topology.operators[a]) > 1 and len(topology.operators[b]) > 1:
            assert kind != FULL  # structured: only the outputs' producers may be full
    multi_input = [name for name, ups in topology.upstream.items() if len(ups) >= 2]
    expected = min(round(spec.join_fraction * len(topology.operators)), len(multi_input))
    assert len(topology.joins) == expected and topology.joins <= set(multi_input)
    out = {}
    for (u, _), rate in topology.rates.items():
        out[u] = out.get(u, 0.0) + rate
    for name, tasks in topology.operators.items():
        if name != topology.sink:
            rates = np.array([out[t] for t in tasks])
            if spec.workload == "uniform":
                assert np.allclose(rates, 1)
            else:  # ranks^-0.1 scaled to mean 1
                assert rates.mean() == pytest.approx(1)
                assert rates.max() / rates.min() == pytest.approx(len(tasks) ** 0.1)


def test_the_same_seed_gives_the_same_topology():
    spec = TopologySpec(workload="zipf", join_fraction=0.5)
    one, two = (random_topology(spec, np.random.default_rng(3)) for _ in range(2))
    assert one.operators == two.operators and one.rates == two.rates and one.joins == two.joins


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("operators", (1, 4), "operators must be a range"),
        ("parallelism", (0, 4), "parallelism must be a range"),
        ("workload", "pareto", "workload must be one of"),
        ("structure", "mesh", "structure must be one of"),
        ("join_fraction", 1.5, r"join_fraction must be in \[0, 1\]"),
        ("zipf_s", -1.0, "zipf_s must be >= 0"),
    ],
)
def test_bad_specifications_are_rejected(field, value, message):
    with pytest.raises(ValueError, match=message):
        TopologySpec(**{field: value})
