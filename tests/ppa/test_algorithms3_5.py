"""Structure-Aware (Algorithms 3-5, the printed slips fixed): decomposition, valid plans,
the empty plan below one task per operator, IC as the objective (IC-SA of Fig 12), and the
printed behaviour of the two deviations (``printed=True``)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppa import (
    FULL,
    Topology,
    TopologySpec,
    internal_completeness,
    output_fidelity,
    plan_milp,
    plan_structure_aware,
    random_topology,
)
from ppa.fidelity import DEFAULT_TREE_LIMIT
from ppa.planners import decompose
from ppa.planners.plan import METRICS
from ppa.planners.structure_aware import _StructuredTopology
from ppa.shapes import q1
from tests.examples import examples
from tests.ppa.strategies import topologies
from tests.ppa.test_output_fidelity import full_chain


@settings(max_examples=examples(40), deadline=None)
@given(topologies(max_operators=5, max_parallelism=4), st.data())
def test_sa_returns_the_empty_plan_below_one_task_per_operator(topology, data):
    R = data.draw(st.integers(0, len(topology.operators) - 1))
    plan = plan_structure_aware(topology, R)
    assert plan.tasks == frozenset() and plan.of == 0


@settings(max_examples=examples(60), deadline=None)
@given(topologies(max_operators=5, max_parallelism=4), st.data(), st.sampled_from(["of", "ic"]))
def test_fixed_sa_gives_valid_plans_scored_under_the_complement_failure(topology, data, objective):
    R = data.draw(st.integers(len(topology.operators), len(topology.tasks)))
    plan = plan_structure_aware(topology, R, objective=objective)
    assert len(plan.tasks) <= R and plan.tasks <= set(topology.tasks)
    failed = set(topology.tasks) - plan.tasks
    assert plan.of == pytest.approx(output_fidelity(topology, failed))
    assert plan.ic == pytest.approx(internal_completeness(topology, failed))
    assert plan.of <= plan_milp(topology, R).of + 1e-9
    # the fixed Alg 3 and Alg 4 keep expanding: with every task affordable, SA reaches OF = 1
    if R == len(topology.tasks) and objective == "of":
        assert plan.of == pytest.approx(1)


def test_sa_is_optimal_on_the_3x4x5_full_chain():
    topology = full_chain(3, 4, 5)
    for R, optimum in ((3, 1 / 60), (6, 2 / 15), (8, 3 / 10), (12, 1.0)):
        plan = plan_structure_aware(topology, R)
        assert plan.of == pytest.approx(optimum) and len(plan.tasks) == R


def test_decomposition_cuts_at_full_edges():
    topology = Topology.partitioned(
        parallelism={"A": 4, "B": 4, "C": 2, "D": 3, "E": 3, "F": 1},
        edges={
            ("A", "B"): "one-to-one",
            ("B", "C"): "merge",
            ("C", "D"): FULL,
            ("D", "E"): FULL,
            ("E", "F"): FULL,
        },
    )
    subs = decompose(topology)
    assert [(s.operators, s.kind) for s in subs] == [
        (("D", "E", "F"), "full"),
        (("A", "B", "C"), "structured"),
    ]


def test_sa_follows_merges_in_a_structured_topology():
    topology = q1()  # O1 (8) merge O2 (4) full O3 (1): a best MC-tree has 3 tasks
    plan = plan_structure_aware(topology, 3)
    assert plan.of == pytest.approx(1 / 8)
    assert plan_structure_aware(topology, 5).of == pytest.approx(plan_milp(topology, 5).of)


def test_ic_sa_prefers_the_busier_join_task_and_of_sa_the_more_productive_one():
    """J.1 joins 10 + 1 tuples/s and outputs 1; J.2 joins 1 + 1 and outputs 2. IC counts the
    tuples processed, OF the output (Fig 12's contrast)."""
    topology = Topology.partitioned(
        parallelism={"A": 2, "B": 2, "J": 2, "S": 1},
        edges={("A", "J"): "one-to-one", ("B", "J"): "one-to-one", ("J", "S"): FULL},
        joins={"J"},
        workloads={"A": [10.0, 1.0], "B": [1.0, 1.0], "J": [1.0, 2.0], "S": [1.0]},
    )
    of_plan = plan_structure_aware(topology, 4)
    ic_plan = plan_structure_aware(topology, 4, objective="ic")
    assert of_plan.tasks == {"A.2", "B.2", "J.2", "S.1"} and of_plan.of == pytest.approx(2 / 3)
    assert ic_plan.tasks == {"A.1", "B.1", "J.1", "S.1"} and ic_plan.of == pytest.approx(1 / 3)
    # IC: (11 at J.1 + 1 at S.1) / (11 + 2 + 3) against (2 at J.2 + 2 at S.1) / 16
    assert ic_plan.ic == pytest.approx(12 / 16) and of_plan.ic == pytest.approx(4 / 16)


def test_unknown_objective_is_rejected():
    with pytest.raises(ValueError, match="objective must be one of"):
        plan_structure_aware(q1(), 3, objective="accuracy")


def test_sa_breaks_ties_toward_the_earlier_operator_deterministically():
    topology = full_chain(3, 4, 5)  # (1,1,1) -> (2,1,1) -> (2,2,1) -> (2,2,2) -> (3,2,2)
    plans = {plan_structure_aware(topology, 7).tasks for _ in range(3)}
    assert len(plans) == 1
    (plan,) = plans
    assert sorted(t.split(".")[0] for t in plan).count("O1") == 3
    assert plan_structure_aware(topology, 7).of == pytest.approx(3 * 2 * 2 / 60)


@settings(max_examples=examples(40), deadline=None)
@given(topologies(max_operators=5, max_parallelism=4), st.data())
def test_printed_sa_gives_valid_plans_no_better_than_the_optimum(topology, data):
    R = data.draw(st.integers(len(topology.operators), len(topology.tasks)))
    plan = plan_structure_aware(topology, R, printed=True)
    assert len(plan.tasks) <= R and plan.tasks <= set(topology.tasks)
    assert plan.of == pytest.approx(output_fidelity(topology, set(topology.tasks) - plan.tasks))
    assert plan.of <= plan_milp(topology, R).of + 1e-9


def test_printed_sa_expands_a_full_sub_topology_by_n_i_tasks():
    # one full sub-topology of N_i = 3 operators: the first round takes 3 tasks; as printed an
    # expansion takes 3 more (Alg 5 line 10 with Alg 4 run to N_i), ours one at a time
    topology = full_chain(3, 4, 5)
    assert len(plan_structure_aware(topology, 5).tasks) == 5
    assert len(plan_structure_aware(topology, 5, printed=True).tasks) == 3  # 3 more do not fit
    assert len(plan_structure_aware(topology, 6, printed=True).tasks) == 6
    assert len(plan_structure_aware(topology, 12, printed=True).tasks) == 12  # 3 + 3 + 3 + 3


def test_printed_bfs_visits_on_past_a_unit_without_a_connected_segment():
    # Fig 14's generator, seed 32: from unit 1 the BFS meets a unit with no segment connected to
    # CG; the package stops there, the printed BFS goes on and adds segments further away
    topology = random_topology(
        TopologySpec(parallelism=(1, 10), workload="zipf", structure="structured"),
        np.random.default_rng(32),
    )
    names = list(topology.operators)
    sub = next(s for s in decompose(topology) if s.kind == "structured")
    ops = [names.index(op) for op in sub.operators]
    grown = {
        printed: _StructuredTopology(
            topology, ops, METRICS["of"], DEFAULT_TREE_LIMIT, printed
        )._bfs(1, 1 << 19, 0, 7)
        for printed in (False, True)
    }
    assert grown[False] & ~grown[True] == 0 and grown[True] != grown[False]
    assert (grown[True]).bit_count() <= 7


def test_printed_must_be_a_bool():
    with pytest.raises(ValueError, match="printed must be True or False"):
        plan_structure_aware(full_chain(2, 2), 2, printed="yes")
