"""The Fig 16 sweep's exact optimum by enumeration against brute force and Algorithm 4."""

import numpy as np
import pytest
from hypothesis import given, settings

from incremental.experiments import optimum_by_level
from incremental.instances import Fig16Setting, fig16_instance
from incremental.schedule_dp import schedule_dp
from tests.incremental.reference import brute_force, problems


@settings(max_examples=100, deadline=None)
@given(problems())
def test_optimum_by_level_equals_brute_force_at_every_budget(case):
    problem, _ = case
    budgets = np.arange(int(problem.cost_array.sum()) + 2)
    priority, _ = optimum_by_level(problem, budgets)
    expected = [brute_force(problem, float(b))[0] for b in budgets]
    assert priority.tolist() == pytest.approx(expected)


def test_optimum_by_level_equals_algorithm4_on_a_fig16_instance():
    problem = fig16_instance(Fig16Setting(queries=12, pool=24), np.random.default_rng(3))
    budgets = np.linspace(0, problem.cost_array.sum(), 7).astype(int)
    priority, _ = optimum_by_level(problem, budgets)
    assert priority.tolist() == [schedule_dp(problem, float(b)).priority for b in budgets]
