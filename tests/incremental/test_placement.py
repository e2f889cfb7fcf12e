"""Placement under the 80% cap and plans executed as nodes arrive (Section 5, Fig 6), with the
Fig 2 example of operator-centric against query-centric recovery."""

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from incremental.best_density import schedule_best_density
from incremental.milp import schedule_milp
from incremental.operator_centric import schedule_operator_centric
from incremental.placement import place, recover_as_nodes_arrive
from incremental.problem import RecoveryProblem
from incremental.schedule_dp import schedule_dp
from tests.examples import examples
from tests.incremental.reference import FIG2_NODES, fig2, problems


def test_fig2_operator_centric_recovers_both_queries_only_at_the_fourth_node():
    steps = recover_as_nodes_arrive(fig2(), FIG2_NODES, scheduler=schedule_operator_centric)
    assert [len(s.recovered_queries) for s in steps] == [0, 0, 0, 0, 2]
    # Upstream first (topological rank), ties by id (first seen in the edges): A1 and B1, A2 and
    # B2, then the Cs, then the Ds.
    assert [sorted(s.placement.nodes) for s in steps[1:]] == [
        ["A1", "B1"],
        ["A2", "B2"],
        ["C1", "C2"],
        ["D1", "D2"],
    ]


@pytest.mark.parametrize(
    "scheduler",
    [
        schedule_best_density,
        functools.partial(schedule_best_density, starts="printed"),
        schedule_dp,
        schedule_milp,
    ],
)
def test_fig2_query_centric_recovers_one_query_at_the_second_node(scheduler):
    steps = recover_as_nodes_arrive(fig2(), FIG2_NODES, scheduler=scheduler)
    assert [len(s.recovered_queries) for s in steps] == [0, 0, 1, 1, 2]
    assert [s.priority for s in steps] == [0, 0, 1, 1, 2]
    assert steps[1].plan.partitions == frozenset()  # R = 2 cannot close a query: kept for later
    assert [s.time for s in steps] == [0.0, 60.0, 120.0, 180.0, 240.0]


def test_place_puts_the_largest_first_on_the_roomiest_node_and_defers_what_fits_nowhere():
    placement = place({"a": 3, "b": 2, "c": 2, "d": 5}, [4.0, 3.0])
    # a (3) -> node 0 (4 free); then b (2) -> node 1 (3 free); c (2) -> node 0? 1 left there,
    # node 1 has 1 left too: deferred; d (5) fits nowhere from the start.
    assert placement.nodes == {"a": 0, "b": 1}
    assert placement.deferred == {"c", "d"}
    assert placement.free == (1.0, 1.0)


def test_a_deferred_partition_defers_its_queries_and_unused_resources_carry_over():
    # Two alive nodes with 4 spare each: R = 8 plans q1 and q2 (cost 8), but after a (3) and b
    # (3) take one node each, c (2) fits nowhere: q2 waits for the next node.
    problem = RecoveryProblem(
        costs={"a": 3, "b": 3, "c": 2}, queries={"q1": ({"a", "b"}, 5), "q2": ({"c"}, 4)}
    )
    steps = recover_as_nodes_arrive(problem, [(1.0, 5.0)], alive_free=[4.0, 4.0])
    assert steps[0].plan.queries == {"q1", "q2"}
    assert steps[0].placement.deferred == {"c"}
    assert steps[0].recovered_queries == {"q1"}
    assert steps[0].placement.free == (1.0, 1.0)  # carried over to the next plan: R = 1 + 1 + 4
    assert steps[1].plan.partitions == {"c"}
    assert steps[1].placement.nodes == {"c": 2}
    assert steps[1].recovered_queries == {"q1", "q2"}
    assert steps[1].placement.free == pytest.approx((1.0, 1.0, 2.0))


@settings(max_examples=examples(100), deadline=None)
@given(
    problems(),
    st.lists(st.tuples(st.floats(0, 100), st.floats(0.5, 40)), max_size=5),
    st.sampled_from(["best_density", "printed", "operator_centric", "milp"]),
)
def test_plans_never_exceed_R_or_the_80_percent_cap(case, arrivals, name):
    problem, _ = case
    scheduler = {
        "best_density": schedule_best_density,
        "printed": functools.partial(schedule_best_density, starts="printed"),
        "operator_centric": schedule_operator_centric,
        "milp": schedule_milp,
    }[name]
    arrivals = sorted(arrivals)
    steps = recover_as_nodes_arrive(problem, arrivals, scheduler=scheduler)
    load = np.zeros(len(arrivals))
    free_before = 0.0
    for step in steps:
        if step.arrival:
            free_before += 0.8 * arrivals[step.arrival - 1][1]
        assert step.plan.cost <= free_before + 1e-9  # R of this plan: all free capacity
        for partition, node in step.placement.nodes.items():
            load[node] += problem.costs[partition]
        free_before -= sum(problem.costs[p] for p in step.placement.nodes)
        caps = 0.8 * np.array([c for _, c in arrivals[: step.arrival]])
        assert np.all(load[: step.arrival] <= caps + 1e-9)
        assert step.recovered_queries == problem.schedule(step.recovered).queries
    recovered = [s.recovered for s in steps]
    assert all(a <= b for a, b in zip(recovered, recovered[1:], strict=False))


def test_alive_spare_capacity_feeds_the_first_plan_and_bad_arrivals_are_rejected():
    steps = recover_as_nodes_arrive(fig2(), [], alive_free=[4.0])
    assert len(steps) == 1 and len(steps[0].recovered_queries) == 1
    with pytest.raises(ValueError, match="sorted by time"):
        recover_as_nodes_arrive(fig2(), [(2.0, 1.0), (1.0, 1.0)])
    with pytest.raises(ValueError, match="capacity > 0"):
        recover_as_nodes_arrive(fig2(), [(1.0, 0.0)])
    with pytest.raises(ValueError, match="cpu_cap must be in"):
        recover_as_nodes_arrive(fig2(), [(1.0, 2.0)], cpu_cap=1.5)
