"""Section II-A: partitionings inferred from substreams, the builders, and validation errors
that name the problem."""

import pytest

from ppa import FULL, MERGE, ONE_TO_ONE, SPLIT, Topology


def chain(kind_ab, n_a, n_b, n_c=1):
    return Topology.partitioned(
        parallelism={"A": n_a, "B": n_b, "C": n_c},
        edges={("A", "B"): kind_ab, ("B", "C"): FULL},
    )


@pytest.mark.parametrize(
    ("kind", "n_a", "n_b"),
    [(ONE_TO_ONE, 3, 3), (SPLIT, 2, 6), (MERGE, 6, 3), (FULL, 2, 3), (FULL, 1, 4)],
)
def test_builder_partitionings_are_inferred_back(kind, n_a, n_b):
    topology = chain(kind, n_a, n_b)
    assert topology.partitioning == {("A", "B"): kind, ("B", "C"): FULL}
    again = Topology.from_substreams(operators=topology.operators, rates=topology.rates)
    assert again.partitioning == topology.partitioning


@pytest.mark.parametrize(("kind", "n_a"), [(MERGE, 4), (ONE_TO_ONE, 1), (SPLIT, 1)])
def test_an_edge_into_or_out_of_a_one_task_operator_is_full(kind, n_a):
    n_b = 1 if kind != SPLIT else 3
    topology = chain(kind, n_a, n_b)
    assert topology.partitioning["A", "B"] == FULL


def test_operators_come_in_topological_order_with_one_sink():
    topology = Topology.from_substreams(
        operators={"C": ["c"], "B": ["b"], "A": ["a"]}, rates={("a", "b"): 1, ("b", "c"): 1}
    )
    assert list(topology.operators) == ["A", "B", "C"]
    assert topology.sink == "C" and topology.upstream["C"] == ("B",)


def test_substream_rates_share_a_senders_workload_by_key_share():
    topology = Topology.partitioned(
        parallelism={"A": 1, "B": 2},
        edges={("A", "B"): FULL},
        workloads={"A": [6.0], "B": [1.0, 2.0]},
    )
    assert topology.rates == {("A.1", "B.1"): 2.0, ("A.1", "B.2"): 4.0}
    assert topology.sink_rates == {"B.1": 1.0, "B.2": 2.0}


OPS = {"O1": ["a1", "a2"], "O2": ["b1", "b2"], "O3": ["c"]}
GOOD = {("a1", "b1"): 1, ("a2", "b2"): 1, ("b1", "c"): 1, ("b2", "c"): 1}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({("c", "a1"): 1.0}, "cycle"),
        ({("a1", "a2"): 1.0}, "subscribes to itself"),
        ({("a1", "b1"): 0.0}, "must be finite and > 0"),
        ({("a1", "b1"): -2.0}, "must be finite and > 0"),
        ({("a1", "x"): 1.0}, "unknown task 'x'"),
        ({("a1", "b2"): 1.0}, "fit no partitioning"),
    ],
)
def test_from_substreams_rejects_bad_input_naming_the_problem(change, message):
    with pytest.raises(ValueError, match=message):
        Topology.from_substreams(operators=OPS, rates={**GOOD, **change})


def test_two_sinks_and_unknown_joins_are_rejected():
    with pytest.raises(ValueError, match="one sink operator"):
        Topology.from_substreams(
            operators={**OPS, "O4": ["d"]}, rates={**GOOD, ("a1", "d"): 1, ("a2", "d"): 1}
        )
    with pytest.raises(ValueError, match="joins names unknown operators"):
        Topology.from_substreams(operators=OPS, joins={"O9"}, rates=GOOD)


@pytest.mark.parametrize(
    ("kind", "n_a", "n_b", "message"),
    [
        (SPLIT, 2, 5, "split edge .* needs N2 = M2·N1"),
        (MERGE, 5, 2, "merge edge .* needs N1 = M1·N2"),
        (ONE_TO_ONE, 2, 3, "one-to-one edge .* needs N1 = N2"),
        ("scatter", 2, 2, "must be one of"),
    ],
)
def test_builder_rejects_task_counts_that_do_not_fit(kind, n_a, n_b, message):
    with pytest.raises(ValueError, match=message):
        chain(kind, n_a, n_b)


def test_builder_rejects_bad_parallelism_and_workloads():
    with pytest.raises(ValueError, match="parallelism of 'A' must be an integer >= 1"):
        chain(FULL, 0, 2)
    with pytest.raises(ValueError, match="workloads of 'A' must be 2 finite values > 0"):
        Topology.partitioned(
            parallelism={"A": 2, "B": 1}, edges={("A", "B"): FULL}, workloads={"A": [1.0, 0.0]}
        )
