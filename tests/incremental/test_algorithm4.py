"""The exact schedulers: Algorithm 4 (DP) and the integer program against brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from incremental.instances import Fig16Setting, fig16_instance
from incremental.milp import schedule_milp
from incremental.problem import RecoveryProblem
from incremental.schedule_dp import schedule_dp
from tests.examples import examples
from tests.incremental.reference import brute_force, problems, random_problem


@settings(max_examples=examples(200), deadline=None)
@given(problems(), st.floats(0, 1.1))
def test_dp_equals_milp_equals_brute_force(case, stretch):
    problem, R = case
    R = R * stretch  # fractional R: the DP rounds it down
    expected = brute_force(problem, R)
    for schedule in (schedule_dp(problem, R), schedule_milp(problem, R)):
        assert (schedule.priority, schedule.cost) == pytest.approx(expected)
        assert schedule.cost <= R + 1e-9
        assert schedule == problem.schedule(schedule.partitions)  # queries by closure


@settings(max_examples=examples(10), deadline=None)
@given(st.sampled_from([3, 6]), st.floats(0.1, 1.0), st.integers(0, 2**32 - 1))
def test_dp_equals_milp_on_fig16_instances(max_share, share, seed):
    setting = Fig16Setting(queries=12, max_share=max_share, pool=24, query_size=(1, 5))
    problem = fig16_instance(setting, np.random.default_rng(seed))
    R = share * problem.cost_array.sum()
    dp, milp = schedule_dp(problem, R), schedule_milp(problem, R)
    assert (dp.priority, dp.cost) == (milp.priority, milp.cost)


def test_line22_no_longer_empties_the_answer():
    """As printed, one query of cost 1 with R = 3 leaves SC empty at usage 2 (line 22)."""
    problem = RecoveryProblem(costs={"a": 1}, queries={"q": ({"a"}, 4)})
    schedule = schedule_dp(problem, 3)
    assert (schedule.partitions, schedule.queries, schedule.priority) == ({"a"}, {"q"}, 4)


def test_shared_partitions_are_paid_once():
    # q1 alone costs 6, q2 alone 6; together 7 (shared 5): both fit in R = 7.
    problem = RecoveryProblem(
        costs={"s": 5, "a": 1, "b": 1, "c": 7},
        queries={"q1": ({"s", "a"}, 2), "q2": ({"s", "b"}, 2), "q3": ({"c"}, 3)},
    )
    for schedule in (schedule_dp(problem, 7), schedule_milp(problem, 7)):
        assert schedule.queries == {"q1", "q2"}
        assert schedule.cost == 7


def test_dp_handles_more_than_64_partitions():
    """Plans are bit masks of several 64-bit words beyond 64 failed partitions."""
    problem = random_problem(np.random.default_rng(3), 150, 6, max_cost=3)
    R = 0.5 * problem.cost_array.sum()
    assert problem.cost_array.size > 64
    assert schedule_dp(problem, R).priority == brute_force(problem, R)[0]


def test_zero_budget_recovers_nothing():
    problem = RecoveryProblem(costs={"a": 1}, queries={"q": ({"a"}, 1)})
    for scheduler in (schedule_dp, schedule_milp):
        schedule = scheduler(problem, 0)
        assert (schedule.partitions, schedule.priority) == (frozenset(), 0)


def test_dp_rejects_fractional_costs_and_negative_budget():
    problem = RecoveryProblem(costs={"a": 1.5}, queries={"q": ({"a"}, 1)})
    with pytest.raises(ValueError, match="integer costs"):
        schedule_dp(problem, 3)
    assert schedule_milp(problem, 1.5).priority == 1  # the MILP takes fractional costs
    for scheduler in (schedule_dp, schedule_milp):
        with pytest.raises(ValueError, match="R .* must be a finite number >= 0"):
            scheduler(RecoveryProblem(costs={"a": 1}, queries={"q": ({"a"}, 1)}), -1)
