"""OC, the operator-centric baseline: cheapest eligible partition first, upstream before
downstream, what does not fit skipped; queries recovered only as a side effect."""

from incremental.operator_centric import schedule_operator_centric
from incremental.problem import RecoveryProblem


def test_cheapest_eligible_first_and_what_does_not_fit_is_skipped():
    # a -> b (b eligible only once a is planned); c cheap; d too big for what is left.
    problem = RecoveryProblem(
        costs={"a": 3, "b": 1, "c": 2, "d": 4},
        queries={"qb": ({"a", "b"}, 1), "qc": ({"c"}, 1), "qd": ({"d"}, 10)},
        upstream={"b": {"a"}},
    )
    # Eligible a (3), c (2), d (4): c first, then a, then b (now eligible, 1); d no longer fits.
    schedule = schedule_operator_centric(problem, 7)
    assert schedule.partitions == {"a", "b", "c"}
    assert schedule.queries == {"qb", "qc"}
    # R = 4: c (2), then a (3) and d (4) do not fit in the 2 left; b never becomes eligible.
    assert schedule_operator_centric(problem, 4).partitions == {"c"}


def test_ties_go_to_the_lower_rank_then_the_first_listed():
    problem = RecoveryProblem(
        costs={"z": 1, "y": 1, "x": 1},
        queries={"q": ({"x", "y", "z"}, 1)},
        rank={"z": 1, "y": 0, "x": 0},
    )
    assert schedule_operator_centric(problem, 1).partitions == {"y"}
    assert schedule_operator_centric(problem, 2).partitions == {"y", "x"}


def test_oc_ignores_priorities_where_query_centric_would_not():
    problem = RecoveryProblem(
        costs={"cheap": 1, "key": 3},
        queries={"low": ({"cheap"}, 1), "high": ({"key"}, 10)},
    )
    assert schedule_operator_centric(problem, 3).queries == {"low"}
