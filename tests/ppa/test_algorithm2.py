"""Algorithm 2 (Greedy) on the full chain of Section IV-C and the budget of every planner."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppa import plan_greedy, plan_milp, plan_structure_aware
from tests.examples import examples
from tests.ppa.strategies import topologies
from tests.ppa.test_output_fidelity import full_chain


@pytest.mark.parametrize(("R", "greedy", "optimum"), [(6, 0.0, 2 / 15), (8, 1 / 5, 3 / 10)])
def test_greedy_fills_whole_small_operators_on_the_3x4x5_full_chain(R, greedy, optimum):
    topology = full_chain(3, 4, 5)
    plan = plan_greedy(topology, R)
    assert len(plan.tasks) == R
    assert plan.of == pytest.approx(greedy, abs=1e-12)
    assert plan_milp(topology, R).of == pytest.approx(optimum)


@settings(max_examples=examples(40), deadline=None)
@given(topologies(max_operators=5, max_parallelism=4), st.data())
def test_no_plan_exceeds_r(topology, data):
    R = data.draw(st.integers(0, len(topology.tasks)))
    for planner in (plan_greedy, plan_structure_aware, plan_milp):
        plan = planner(topology, R)
        assert len(plan.tasks) <= R
        assert plan.tasks <= set(topology.tasks)
