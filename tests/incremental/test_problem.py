"""Definitions 1-3 and the input checks: the problem, the topology builder, d and the bound."""

import math

import numpy as np
import pytest

from incremental.problem import (
    RecoveryProblem,
    max_share_frequency,
    problem_from_topology,
    theorem51_bound,
)


def fig1_like():
    """Fig 1's shape: O1 -> O3, O2 -> O4, O3 and O4 -> O5, with sparse key groupings so that
    p51's query is exactly {p11, p21, p31, p41, p51}; outputs O3, O4, O5 (8 partitions)."""
    edges = [
        ("p11", "p31"), ("p12", "p32"), ("p12", "p33"),
        ("p21", "p41"), ("p22", "p42"), ("p22", "p43"),
        ("p31", "p51"), ("p41", "p51"),
        ("p32", "p52"), ("p33", "p52"), ("p42", "p52"), ("p43", "p52"),
    ]  # fmt: skip
    outputs = ["p31", "p32", "p33", "p41", "p42", "p43", "p51", "p52"]
    partitions = {p for edge in edges for p in edge}
    return edges, outputs, partitions


def test_definition1_query_is_the_partition_level_upstream_closure():
    edges, outputs, partitions = fig1_like()
    problem = problem_from_topology(
        edges=edges,
        outputs=outputs,
        costs={p: 1 for p in partitions},
        placement={p: "n" for p in partitions},
        failed_nodes={"n"},
        priorities={"p51": 7},
    )
    assert len(problem.queries) == 8
    assert problem.queries["p51"] == (frozenset({"p11", "p21", "p31", "p41", "p51"}), 7)
    assert problem.queries["p31"] == (frozenset({"p11", "p31"}), 1)  # default priority 1
    assert problem.upstream["p51"] == {"p11", "p21", "p31", "p41"}
    assert (problem.rank["p11"], problem.rank["p31"], problem.rank["p51"]) == (0, 1, 2)
    # p11 feeds p31 (itself an output) and p51: f = 2; p12 feeds p32, p33 and p52: f = 3.
    f = dict(zip(problem.partitions, problem.share_frequencies, strict=True))
    assert (f["p11"], f["p12"], f["p52"]) == (2, 3, 1)
    assert max_share_frequency(problem) == 3


def test_only_failed_partitions_and_failed_queries_enter_the_problem():
    edges, outputs, partitions = fig1_like()
    placement = {p: ("dead" if p in {"p21", "p43"} else "alive") for p in partitions}
    problem = problem_from_topology(
        edges=edges,
        outputs=outputs,
        costs={p: 1 for p in partitions},
        placement=placement,
        failed_nodes={"dead"},
    )
    assert set(problem.costs) == {"p21", "p43"}
    assert problem.queries == {
        "p41": (frozenset({"p21"}), 1),
        "p51": (frozenset({"p21"}), 1),
        "p43": (frozenset({"p43"}), 1),
        "p52": (frozenset({"p43"}), 1),
    }
    # d counts failed queries on failed partitions only: 2 here, not the 8 queries.
    assert max_share_frequency(problem) == 2


def test_recovered_queries_are_counted_by_closure():
    problem = RecoveryProblem(
        costs={"a": 1, "b": 1}, queries={"big": ({"a", "b"}, 3), "small": ({"a"}, 2)}
    )
    schedule = problem.schedule({"a", "b"})
    assert schedule.queries == {"big", "small"}
    assert (schedule.priority, schedule.cost) == (5, 2.0)


def test_remaining_problem_keeps_what_is_still_failed():
    problem = RecoveryProblem(
        costs={"a": 1, "b": 2, "c": 3},
        queries={"x": ({"a", "b"}, 3), "y": ({"a"}, 2), "z": ({"c"}, 1)},
        upstream={"b": {"a"}},
    )
    left = problem.remaining({"a"})
    assert left.queries == {"x": (frozenset({"b"}), 3), "z": (frozenset({"c"}), 1)}
    assert left.costs == {"b": 2.0, "c": 3.0}
    assert left.upstream == {"b": frozenset()}
    assert left.rank == {"b": 1, "c": 0}  # b's rank outlives the recovery of its ancestor a
    assert problem.remaining({"a", "b", "c"}) is None


def test_theorem51_bound():
    assert theorem51_bound(1) == pytest.approx(1 - math.exp(-1))
    assert theorem51_bound(3) == pytest.approx(1 - math.exp(-1 / 3))
    with pytest.raises(ValueError, match="d"):
        theorem51_bound(0)


@pytest.mark.parametrize(
    ("costs", "queries", "match"),
    [
        ({"a": 1, "b": 1}, {"q": ({"a"}, 1)}, "partitions in no query"),
        ({"a": 1}, {"q": ({"a", "zz"}, 1)}, "no cost"),
        ({"a": 1}, {"q": ({"a"}, 0)}, "priority of query 'q' must be an integer in 1..10"),
        ({"a": 1}, {"q": ({"a"}, 11)}, "priority"),
        ({"a": 1}, {"q": ({"a"}, 2.5)}, "priority"),
        ({"a": 1}, {"q": ({"a"}, True)}, "priority"),
        ({"a": 0}, {"q": ({"a"}, 1)}, "cost of partition 'a' must be a finite number > 0"),
        ({"a": math.inf}, {"q": ({"a"}, 1)}, "cost"),
        ({"a": 1}, {"q": (set(), 1)}, "no failed partition"),
        ({"a": 1}, {"q": {"a"}}, r"\(failed_partitions, priority\)"),
        ({}, {"q": ({"a"}, 1)}, "costs must be a non-empty"),
    ],
)
def test_bad_problems_are_rejected(costs, queries, match):
    with pytest.raises(ValueError, match=match):
        RecoveryProblem(costs=costs, queries=queries)


def test_cyclic_upstream_and_topology_are_rejected():
    with pytest.raises(ValueError, match="cyclic"):
        RecoveryProblem(
            costs={"a": 1, "b": 1},
            queries={"q": ({"a", "b"}, 1)},
            upstream={"a": {"b"}, "b": {"a"}},
        )
    with pytest.raises(ValueError, match="topology is cyclic"):
        problem_from_topology(
            edges=[("a", "b"), ("b", "c"), ("c", "a")],
            outputs=["c"],
            costs={"a": 1, "b": 1, "c": 1},
            placement={"a": 0, "b": 0, "c": 0},
            failed_nodes={0},
        )


def test_builder_rejects_failed_dead_ends_and_missing_inputs():
    common = {"costs": {"a": 1, "b": 1, "c": 1}, "placement": {"a": 0, "b": 0, "c": 0}}
    with pytest.raises(ValueError, match="upstream of no output"):
        problem_from_topology(
            edges=[("a", "b"), ("a", "c")], outputs=["b"], failed_nodes={0}, **common
        )
    with pytest.raises(ValueError, match="placement misses"):
        problem_from_topology(edges=[("a", "z")], outputs=["z"], failed_nodes={0}, **common)
    with pytest.raises(ValueError, match="no partition"):
        problem_from_topology(edges=[("a", "b")], outputs=["b"], failed_nodes={9}, **common)


def test_problem_arrays_are_read_only():
    problem = RecoveryProblem(costs={"a": 1}, queries={"q": ({"a"}, 1)})
    with pytest.raises(ValueError):
        problem.cost_array[0] = 5
    assert np.array_equal(problem.incidence, [[True]])
