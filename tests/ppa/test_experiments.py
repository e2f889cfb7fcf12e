"""The Fig 14 sweep function: rows paired on one topology, R as documented, the MILP oracle."""

import math

import numpy as np
import pytest

from ppa import TopologySpec, plan_greedy, plan_milp, plan_structure_aware, random_topology
from ppa.experiments import fig14_point, milp_within, replicas, spec_from

BASE = {
    "workload": "zipf",
    "zipf_s": 0.1,
    "parallelism_lo": 1,
    "parallelism_hi": 4,
    "structure": "structured",
    "join_fraction": 0.5,
    "ratios": [0.1, 0.4, 0.8],
}


def test_spec_from_maps_the_sweep_parameters():
    spec = spec_from(dict(BASE, operators_lo=5, operators_hi=6))
    assert spec == TopologySpec(
        workload="zipf", parallelism=(1, 4), join_fraction=0.5, operators=(5, 6)
    )
    assert spec_from({}) == TopologySpec()


@pytest.mark.parametrize(
    ("ratio", "tasks", "operators", "expected"),
    [(0.5, 40, 7, 20), (0.1, 40, 7, 7), (0.9, 10, 10, 10), (1.0, 33, 5, 33), (0.25, 10, 2, 2)],
)
def test_replicas_round_and_never_fall_below_the_operators(ratio, tasks, operators, expected):
    assert replicas(ratio, tasks, operators) == expected


@pytest.mark.parametrize("ratio", [0.0, -0.1, 1.5])
def test_bad_ratios_are_rejected(ratio):
    with pytest.raises(ValueError, match="ratio must be in"):
        replicas(ratio, 10, 5)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rows_are_the_planners_on_one_topology_per_call(seed):
    rows = fig14_point(BASE, np.random.default_rng(seed))
    topology = random_topology(spec_from(BASE), np.random.default_rng(seed))
    assert [r["ratio"] for r in rows] == BASE["ratios"]
    for row in rows:
        R = row["R"]
        assert len(topology.operators) <= R <= len(topology.tasks) == row["tasks"]
        assert row["clamped"] == (R > round(row["ratio"] * row["tasks"]))
        assert row["of_greedy"] == plan_greedy(topology, R).of
        assert row["of_sa"] == plan_structure_aware(topology, R).of
        assert row["of_sa_printed"] == plan_structure_aware(topology, R, printed=True).of
        assert "of_milp" not in row


def test_uniform_and_zipf_topologies_of_one_seed_differ_only_in_rates():
    """The pairing the notebook states: the workload draws come after the structure's."""
    zipf = random_topology(spec_from(BASE), np.random.default_rng(5))
    uniform = random_topology(spec_from(dict(BASE, workload="uniform")), np.random.default_rng(5))
    assert zipf.operators == uniform.operators and zipf.joins == uniform.joins
    assert zipf.partitioning == uniform.partitioning and zipf.rates != uniform.rates


def test_the_milp_optimum_bounds_both_heuristics_where_it_finishes():
    params = dict(BASE, milp_ratios=[0.4, 0.8], milp_seconds=30.0, milp_trees=500)
    finished = 0
    for seed in range(6):
        for row in fig14_point(params, np.random.default_rng(seed)):
            if row["ratio"] == 0.1:
                assert not row["milp_tried"] and math.isnan(row["of_milp"])
            elif row["milp_tried"] and not math.isnan(row["of_milp"]):
                finished += 1
                assert row["of_milp"] >= max(row["of_sa"], row["of_greedy"]) - 1e-9
    assert finished >= 6


def test_milp_within_returns_the_optimum_or_nan_past_its_limit():
    topology = random_topology(TopologySpec(parallelism=(1, 3)), np.random.default_rng(0))
    R = len(topology.operators)
    assert milp_within(topology, R, 30.0) == pytest.approx(plan_milp(topology, R).of)
    assert math.isnan(milp_within(topology, R, 0.0))
