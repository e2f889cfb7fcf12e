"""The Fig 16 sweep: its exact optimum by enumeration against brute force and Algorithm 4, the
generator choices it takes, and Theorem 5.1's counterexample for the printed starts."""

import numpy as np
import pytest
from hypothesis import given, settings

from incremental.best_density import schedule_best_density, schedule_best_density_both
from incremental.experiments import (
    fig16_point,
    level_rows,
    optimum_by_level,
    printed_counterexample,
)
from incremental.instances import Fig16Setting, fig16_instance
from incremental.schedule_dp import dp_priorities, schedule_dp
from tests.examples import examples
from tests.incremental.reference import (
    brute_force,
    former_best_density,
    former_level_rows,
    former_optimum_by_level,
    problems,
)


@settings(max_examples=examples(100), deadline=None)
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


def test_fig16_point_draws_with_the_generator_choices_it_is_given():
    params = {"max_share": 3, "zipf_s": 0.2, "priorities": "random", "x_grid": [0.5, 1.0]}
    default = fig16_point(params, np.random.default_rng(0))
    narrow = fig16_point({**params, "cost": [5, 10]}, np.random.default_rng(0))
    # The same draws give the same queries; only the costs change, within 5-10.
    assert default[1]["share_DP"] == narrow[1]["share_DP"] == 1.0
    problem = fig16_instance(Fig16Setting(cost=(5, 10)), np.random.default_rng(0))
    assert problem.cost_array.min() >= 5 and problem.cost_array.max() <= 10
    with pytest.raises(ValueError, match="pool"):
        fig16_point({**params, "pool": 12}, np.random.default_rng(0))


def test_the_printed_counterexample_falls_below_theorem51_bound_with_the_printed_starts():
    problem, R = printed_counterexample()
    (row,) = level_rows(problem, [R / float(problem.cost_array.sum())])
    total = row["priority_total"]
    assert (row["d"], total) == (1, 7)
    assert row["share_BestDensity_printed"] * total == pytest.approx(2)
    assert row["share_DP"] * total == row["share_BestDensity"] * total == pytest.approx(5)


GENERATORS = [{}, {"pool": 72}, {"query_size": (1, 4)}, {"cost": (1, 30)}, {"sharing": "frequency"}]


@pytest.mark.parametrize("generator", GENERATORS)
@pytest.mark.parametrize("max_share", [3, 6])
def test_level_rows_equal_the_former_calls_per_start_and_level(generator, max_share):
    # one greedy pass for both starts and one Algorithm 4 run for the checked levels: the same
    # rows, to the last bit, as a BestDensity call per start and an Algorithm 4 call per level
    grid = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    setting = Fig16Setting(max_share=max_share, zipf_s=0.5, **generator)
    for seed in range(8):
        problem = fig16_instance(setting, np.random.default_rng(seed))
        assert level_rows(problem, grid) == former_level_rows(problem, grid)


@settings(max_examples=examples(100), deadline=None)
@given(problems())
def test_best_density_both_equals_a_call_per_start(case):
    problem, R = case
    both = schedule_best_density_both(problem, R)
    assert both == (former_best_density(problem, R), former_best_density(problem, R, "printed"))
    assert both == (
        schedule_best_density(problem, R),
        schedule_best_density(problem, R, starts="printed"),
    )


@settings(max_examples=examples(100), deadline=None)
@given(problems())
def test_dp_priorities_equal_a_schedule_dp_call_per_budget(case):
    problem, R = case
    budgets = [0, R / 3, R / 2, R, float(problem.cost_array.sum())]
    assert dp_priorities(problem, budgets) == [schedule_dp(problem, b).priority for b in budgets]


@settings(max_examples=examples(100), deadline=None)
@given(problems(max_queries=12))
def test_optimum_by_level_equals_the_former_numpy_passes(case):
    problem, _ = case
    budgets = np.arange(int(problem.cost_array.sum()) + 2)
    new, old = optimum_by_level(problem, budgets), former_optimum_by_level(problem, budgets)
    assert all(np.array_equal(a, b) for a, b in zip(new, old, strict=True))
