"""Algorithm 1 (DP) and Theorem 1 against brute force and the set-union knapsack MILP."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppa import plan_dp, plan_milp, plan_structure_aware
from ppa.shapes import q2
from tests.examples import examples
from tests.ppa.strategies import brute_force, topologies


@settings(max_examples=examples(40), deadline=None)
@given(topologies(max_operators=3, max_parallelism=3), st.data())
def test_dp_equals_brute_force_equals_milp(topology, data):
    R = data.draw(st.integers(0, min(len(topology.tasks), 9)))
    best, fewest = brute_force(topology, R)
    dp, milp = plan_dp(topology, R), plan_milp(topology, R)
    assert dp.of == pytest.approx(best, abs=1e-9)
    assert milp.of == pytest.approx(best, abs=1e-9)
    assert len(dp.tasks) == fewest  # Theorem 1: the smallest optimal plan
    assert len(dp.tasks) <= R and len(milp.tasks) <= R


def test_dp_takes_whole_mc_trees_on_a_join_query():
    topology = q2()  # 4 MC-trees of 4 tasks each (a segment of O1, O2, O3, and the sink)
    assert plan_dp(topology, 3).tasks == frozenset()
    plan = plan_dp(topology, 9)
    assert len(plan.tasks) == 7 and plan.of == pytest.approx(1 / 2)
    assert plan_milp(topology, 9).of == pytest.approx(1 / 2)
    assert plan_structure_aware(topology, 9).of == pytest.approx(1 / 2)


@pytest.mark.parametrize("planner", [plan_dp, plan_milp])
@pytest.mark.parametrize("R", [-1, 14, 2.0, True])
def test_budget_outside_zero_to_the_number_of_tasks_is_rejected(planner, R):
    with pytest.raises(ValueError, match=r"R must be an integer in \[0, 13\]"):
        planner(q2(), R)
