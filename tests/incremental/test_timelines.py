"""The recovery-timeline scenarios of Section 7 (incremental.timelines): the input model, the Fig 9
reconstruction, the metrics of Section 7.2 and the scenarios run on the engine."""

import dataclasses
import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from incremental import experiments as E
from incremental import timelines as T
from incremental.problem import problem_from_topology

# --- the input stream ----------------------------------------------------------------------


def test_fitted_vocabulary_gives_the_papers_distinct_count_in_expectation_and_in_a_draw():
    assert T.expected_distinct(T.VOCABULARY) == pytest.approx(T.DISTINCT, rel=1e-4)
    assert T.fit_vocabulary() == pytest.approx(T.VOCABULARY, rel=1e-3)
    ranks = T.hashtag_ranks(np.random.default_rng(0).random(T.HASHTAGS))
    assert np.unique(ranks).size == pytest.approx(T.DISTINCT, rel=0.005)


def test_expected_distinct_equals_the_monte_carlo_mean_on_a_small_vocabulary():
    rng = np.random.default_rng(1)
    counts = [np.unique(T.hashtag_ranks(rng.random(300), 2000)).size for _ in range(400)]
    assert np.mean(counts) == pytest.approx(T.expected_distinct(2000, 300), rel=0.01)


def test_expected_distinct_integral_tail_matches_the_exact_sum():
    # Above 10^6 ranks the sum is an integral: compare with the exact sum just above the switch.
    v, draws = 3_000_000, 200_000
    k = np.arange(1, v + 1, dtype=float)
    exact = float(np.sum(-np.expm1(draws * np.log1p(-np.log1p(1 / k) / math.log(v + 1)))))
    assert T.expected_distinct(v, draws) == pytest.approx(exact, rel=1e-4)


def test_ranks_follow_the_discrete_zipf_law_of_the_closed_form():
    v = 9
    ranks = T.hashtag_ranks(np.random.default_rng(2).random(200_000), v)
    assert ranks.min() == 1 and ranks.max() == v
    k = np.arange(1, v + 1)
    expected = np.log1p(1 / k) / math.log(v + 1)
    observed = np.bincount(ranks, minlength=v + 1)[1:] / ranks.size
    np.testing.assert_allclose(observed, expected, atol=0.004)


def test_hashtags_per_tweet_have_the_papers_mean_and_at_least_one():
    counts = T.hashtag_counts(1.0 - np.random.default_rng(3).random(200_000))
    assert counts.min() == 1
    assert counts.mean() == pytest.approx(T.HASHTAGS / T.TWEETS, rel=0.01)
    with pytest.raises(ValueError, match="mean"):
        T.hashtag_counts([0.5], mean=1.0)


def test_stream_is_in_event_time_order_and_keys_carry_the_hashtag_and_the_tweet_shard():
    stream = T.hashtag_stream(500, 4.0, np.random.default_rng(4))
    ts = np.array([r[0] for r in stream])
    assert (np.diff(ts) >= 0).all() and ts.max() < 500 / 4.0
    for t, key, (tweet, _) in stream:
        assert t == tweet / 4.0 and key % T.SHARDS == tweet % T.SHARDS and key // T.SHARDS >= 1
    per_tweet = pd.Series([r[2][0] for r in stream]).value_counts()
    assert len(per_tweet) == 500
    js = sorted(r[2] for r in stream)
    assert all(j == 0 or js[i - 1] == (tweet, j - 1) for i, (tweet, j) in enumerate(js))
    with pytest.raises(ValueError, match="tweets"):
        T.hashtag_stream(0, 1.0, np.random.default_rng(0))


# --- Fig 9 ---------------------------------------------------------------------------------


def test_fig9_merges_are_the_eleven_combinations_of_two_or_more_aggregates():
    topology = T.fig9_topology(rate=10.0)
    merges = [topology.operators[f"O{i}"].inputs for i in range(4, 15)]
    assert len(set(map(frozenset, merges))) == 11
    assert all(len(m) >= 2 and set(m) <= {"O0", "O1", "O2", "O3"} for m in merges)
    assert [len(m) for m in merges] == [2] * 6 + [3] * 4 + [4]
    assert all(topology.operators[f"O{a}"].inputs == ("parser",) for a in range(4))


def test_fig9_queries_are_the_upstream_closures_and_all_fail_with_the_eight_nodes():
    topology = T.fig9_topology(rate=10.0)
    edges = [(up, pid) for pid in topology.partitions for up in topology.upstream_partitions(pid)]
    outputs = [p for p in topology.partitions if topology.operators[p[0]].output]
    assert len(outputs) == 15
    problem = problem_from_topology(
        edges=edges,
        outputs=outputs,
        costs={p: topology.operators[p[0]].share for p in topology.partitions},
        placement=T.fig9_placement(),
        failed_nodes=T.FAILURE_SETS["all"],
    )
    assert len(problem.queries) == 15
    # Q14 needs all four aggregates, its own partition and nothing alive counts
    failed14 = problem.queries[("O14", 0)][0]
    assert set(failed14) == {("O0", 0), ("O1", 0), ("O2", 0), ("O3", 0), ("O14", 0)}


def test_fig9_placement_respects_the_cap_and_the_failure_sets_name_its_nodes():
    topology = T.fig9_topology(rate=10.0)
    load = {}
    for pid, node in T.fig9_placement().items():
        load[node] = load.get(node, 0.0) + topology.operators[pid[0]].share
    assert len(load) == 10 and max(load.values()) <= 0.8 + 1e-12
    on = {}
    for pid, node in T.fig9_placement().items():
        on.setdefault(node, set()).add(pid[0])
    assert set().union(*(on[n] for n in T.FAILURE_SETS["upstream"])) == {"O0", "O1", "O2", "O3"}
    assert set().union(*(on[n] for n in T.FAILURE_SETS["downstream"])) == {"O12", "O13", "O14"}
    assert set().union(*(on[n] for n in T.FAILURE_SETS["all"])) == {f"O{i}" for i in range(15)}


def test_fig9_costs_put_the_busiest_node_at_rho():
    rate, rho = 50.0, 0.2
    topology = T.fig9_topology(rate, rho)
    per_node = {}
    for pid, node in T.fig9_placement().items():
        per_node[node] = per_node.get(node, 0.0) + topology.operators[pid[0]].cost * (
            rate * T._units()[pid[0]]
        )
    assert max(per_node.values()) == pytest.approx(rho)
    with pytest.raises(ValueError, match="rho"):
        T.fig9_topology(10.0, rho=1.5)


def test_merge_needs_two_inputs_named_in_order():
    with pytest.raises(ValueError, match="subscribes"):
        T.Merge(name="M", input="O0", subscribes=("O0",), size=20.0)
    with pytest.raises(ValueError, match="subscribes"):
        T.Merge(name="M", input="O1", subscribes=("O0", "O1"), size=20.0)


def test_latency_offset_is_the_mean_age_of_contributing_tuples_by_monte_carlo():
    topology = T.fig9_topology(rate=10.0)
    rng = np.random.default_rng(5)
    ts = rng.uniform(1000.0, 2000.0, 20_000)
    for name in ("O1", "O7", "O14"):
        op = topology.operators[name]
        ages = []
        for a in getattr(op, "subscribes", None) or (name,):
            agg = topology.operators[a]
            last = np.floor(ts / agg.step)
            for back in range(agg.span):  # every window of the tuple
                end = (last - back) * agg.step + agg.size
                ages.append(end - ts if a == name else (np.floor(end / op.size) + 1) * op.size - ts)
        assert T.latency_offset(topology, name) == pytest.approx(
            np.concatenate(ages).mean(), rel=0.01
        )


# --- Fig 7 ---------------------------------------------------------------------------------


def test_acquisition_laws_span_two_to_six_minutes_in_order_and_share_prefix_draws():
    means = {}
    for dist in T.DISTRIBUTIONS:
        times = T.acquisition_times(20_000, np.random.default_rng(6), dist)
        assert times.min() >= 120 and times.max() <= 360
        means[dist] = times.mean()
    assert means["early"] < means["uniform"] < means["late"]
    assert means["uniform"] == pytest.approx(240, abs=2)
    assert means["early"] == pytest.approx(180, abs=2)  # 120 + 240 / 4
    eight = T.acquisition_times(8, np.random.default_rng(7))
    four = T.acquisition_times(4, np.random.default_rng(7))
    np.testing.assert_array_equal(eight[:4], four)
    with pytest.raises(ValueError, match="distribution"):
        T.acquisition_times(3, np.random.default_rng(0), "normal")


# --- metrics -------------------------------------------------------------------------------


def fake_result(latencies: dict):
    """A RunResult stand-in holding only what relative_latency reads: per output partition
    rows (write time, latency)."""
    return SimpleNamespace(
        latency={pid: np.asarray(rows, float).reshape(-1, 2) for pid, rows in latencies.items()}
    )


def test_relative_latency_and_recovery_time_on_a_known_timeline():
    topology = T.fig9_topology(rate=10.0)
    offset = T.latency_offset(topology, "O0")
    times = np.arange(5.0, 400.0, 5.0)
    # O0: latency 1 before 100 s, 20x after, normal again from 200 s (writes in every bin)
    slow = np.where((times >= 100) & (times < 200), 20.0 * (1 + offset) - offset, 1.0)
    # O1: no output between 100 and 300 s, then normal; O2: never back
    gap = times[(times < 100) | (times >= 300)]
    rows = {
        ("O0", 0): np.c_[times, slow],
        ("O1", 0): np.c_[gap, np.ones_like(gap)],
        ("O2", 0): np.c_[times, np.where(times < 100, 1.0, 50.0)],
    }
    rl = T.relative_latency(fake_result(rows), topology, t_fail=100.0, warmup=20.0, horizon=400.0)
    o0 = rl[rl["query"] == "O0"].set_index("bin_start")
    assert o0.loc[0.0, "rl"] == pytest.approx(1.0) and o0.loc[120.0, "rl"] == pytest.approx(20.0)
    assert not o0.loc[180.0, "available"] and o0.loc[200.0, "available"]
    o1 = rl[rl["query"] == "O1"].set_index("bin_start")
    assert np.isnan(o1.loc[200.0, "rl"]) and not o1.loc[200.0, "available"]
    rec = T.recovery_times(rl[rl["query"].isin(["O0", "O1", "O2"])], 100.0)
    assert rec["O0"] == pytest.approx(200.0 + T.DELTA_T - 100.0)
    assert rec["O1"] == pytest.approx(300.0 + T.DELTA_T - 100.0)
    assert np.isnan(rec["O2"])
    with pytest.raises(ValueError, match="warmup"):
        T.relative_latency(fake_result(rows), topology, t_fail=10.0, warmup=20.0, horizon=400.0)


def test_an_empty_bin_between_available_ones_is_available():
    topology = T.fig9_topology(rate=10.0)
    times = np.array([5.0, 25.0, 45.0, 85.0, 105.0])  # bin 60-80 empty
    rl = T.relative_latency(
        fake_result({("O0", 0): np.c_[times, np.ones(5)]}),
        topology,
        t_fail=50.0,
        warmup=0.0,
        horizon=120.0,
    )
    o0 = rl[rl["query"] == "O0"].set_index("bin_start")
    assert np.isnan(o0.loc[60.0, "rl"]) and o0.loc[60.0, "available"]


# --- the scenarios on the engine -----------------------------------------------------------

RATE, END = 3.0 * T.HASHTAGS_PER_TWEET, 120.0


@pytest.fixture(scope="module")
def stream():
    return T.hashtag_stream(int(END * 3.0), 3.0, np.random.default_rng(8))


@pytest.fixture(scope="module")
def failure_free(stream):
    _, result = T.fig9_run(
        scheme="blocking",
        killed=("n0",),
        rate=RATE,
        rho=T.RHO,
        acquisition=[1.0],
        t_fail=END - 1.0,
        end=END,
        rng=np.random.default_rng(0),
        stream=stream,
    )
    return result


@pytest.mark.parametrize("scheme", T.SCHEMES)
def test_fig9_schemes_give_the_failure_free_results_exactly_once(stream, failure_free, scheme):
    _, result = T.fig9_run(
        scheme=scheme,
        killed=T.FAILURE_SETS["all"],
        rate=RATE,
        rho=T.RHO,
        acquisition=[5.0, 9.0, 14.0, 20.0, 24.0, 30.0, 33.0, 40.0],
        t_fail=30.0,
        end=END,
        rng=np.random.default_rng(9),
        stream=stream,
        audit=True,
    )
    assert result.completed and not result.gaps and not result.conflicts
    assert result.outputs == failure_free.outputs
    plans = [e for e in result.events if e[1] == "plan" and e[2]]
    assert sum(len(p[2]) for p in plans) == 15
    if scheme == "blocking":  # all 15 partitions at once, after the last node
        assert len(plans) == 1 and plans[0][0] == 31.0 + 40.0
    elif scheme == "incremental":  # as nodes arrive, two partitions per node
        assert len({p[0] for p in plans}) >= 7 and max(len(p[2]) for p in plans) <= 2
    else:  # BestCase: every standby node at once, 3 minutes after the failure
        assert {p[0] for p in plans} == {30.0 + T.BESTCASE_DELAY}


@pytest.mark.parametrize("during", [d for d in T.DURING_RECOVERY if d != "none"])
def test_the_oracle_check_passes_with_a_failure_during_recovery_and_counts_each_fault(
    stream, during
):
    acquisition = [5.0, 9.0, 14.0, 20.0, 24.0, 30.0, 33.0, 40.0, 12.0]
    _, result = T.fig9_run(
        scheme="incremental",
        killed=T.FAILURE_SETS["all"],
        rate=RATE,
        rho=T.RHO,
        acquisition=acquisition,
        t_fail=30.0,
        end=END,
        rng=np.random.default_rng(9),
        stream=stream,
        later=T.DURING_RECOVERY[during],
    )
    assert sum(e[1] == "kill" for e in result.events) == 9
    expected = T.fig9_counts(stream)
    check = T.oracle_check(result, expected)
    assert check["results"] > 100 and not any(check[n] for n in T.ORACLE_COUNTS)
    # new0 is the first node to arrive (t = 36 s); every later kill falls before the last (71 s)
    assert check["failures_during_recovery"] == 1
    assert " in the recovery of [31.0, " in check["named_during_recovery"]
    outputs = {name: dict(results) for name, results in result.outputs.items()}
    (uid, (key, end, count)), *_ = outputs["O4"].items()
    outputs["O4"][uid] = (key, end, count + 1)  # wrong
    outputs["O5"].pop(next(iter(outputs["O5"])))  # missing
    outputs["O6"][("O6", 10**6, 1)] = (1, 0.0, 1)  # extra
    broken = dataclasses.replace(result, outputs=outputs, completed=False, gaps=((0, 1, 2, 3),))
    assert T.oracle_check(broken, expected) == {
        "results": check["results"],
        "missing": 1,
        "extra": 1,
        "wrong": 1,
        "stalled": 1,
        "gaps": 1,
        "conflicts": 0,
        "failures_during_recovery": 1,
        "named_during_recovery": check["named_during_recovery"],
    }


def test_incremental_recovers_the_first_queries_before_blocking_recovers_any():
    params = {
        "failure": "all",
        "rate": 1.0,
        "rho": T.RHO,
        "distribution": "uniform",
        "t_fail": 60.0,
        "end": 520.0,
    }
    rec = {}
    for scheme in ("incremental", "blocking"):
        rows = pd.DataFrame(
            E.correlated_point({**params, "scheme": scheme}, np.random.default_rng(10))
        )
        assert rows["failed"].all() and (rows["exactly_once_violations"] == 0).all()
        rec[scheme] = rows.groupby("query")["recovery_time"].first()
        last = rows["last_arrival"].iloc[0] - 60.0
    assert rec["incremental"].min() < rec["blocking"].min()
    assert rec["blocking"].min() >= last  # blocking waits for the last node
    assert rec["incremental"].max() <= rec["blocking"].max() + T.DELTA_T


def test_remembered_oracle_counts_are_the_counts_of_the_run_stream():
    # Two scenarios of one draw (common random numbers) run one stream: the second reuses the
    # first's counts, and every row equals a run that counted afresh.
    params = {"rate": 1.0, "rho": 0.1, "t_fail": 60.0, "end": 200.0, "distribution": "uniform"}
    points = [{**params, "scheme": s, "failure": "upstream"} for s in ("incremental", "blocking")]
    E._COUNTS.clear()
    remembered = [E.correlated_point(p, np.random.default_rng(3)) for p in points]
    assert len(E._COUNTS) == 1
    for point, rows in zip(points, remembered, strict=True):
        E._COUNTS.clear()
        assert pd.DataFrame(rows).equals(
            pd.DataFrame(E.correlated_point(point, np.random.default_rng(3)))
        )
    tweets = 40
    for seed in range(E.COUNTS_KEPT + 1):  # a bounded memory: the oldest stream goes
        E._oracle_counts(T.hashtag_stream(tweets, 1.0, np.random.default_rng(seed)))
    assert len(E._COUNTS) == E.COUNTS_KEPT


def test_correlated_point_rejects_bad_parameters():
    with pytest.raises(ValueError, match="failure"):
        E.correlated_point(
            {
                "scheme": "incremental",
                "failure": "some",
                "rate": 1.0,
                "rho": 0.1,
                "distribution": "uniform",
                "t_fail": 60.0,
                "end": 200.0,
            },
            np.random.default_rng(0),
        )
    with pytest.raises(ValueError, match="params must give"):
        E.correlated_point({"scheme": "incremental"}, np.random.default_rng(0))
    with pytest.raises(ValueError, match="scheme"):
        T.fig9_run(
            scheme="eager",
            killed=("n0",),
            rate=1.0,
            rho=0.1,
            acquisition=[1.0],
            t_fail=10.0,
            end=50.0,
            rng=np.random.default_rng(0),
        )


FIG8 = {"rate": 10.0, "first": 30.0, "interval": 30.0, "end": 150.0, "cpu_cap": 1.0}


def test_fig8_source_replay_spikes_after_each_failure_and_settles():
    rows = pd.DataFrame(
        E.fig8_point(
            {
                **FIG8,
                "strategy": "source_replay",
                "failures": 2,
                "rho": 0.2,
                "detection_delay": 10.0,
            },
            np.random.default_rng(11),
        )
    )
    assert rows["completed"].all() and (np.diff(rows["time"]) >= 0).all()
    normal = rows[rows["time"] < 30]["latency"].max()
    for kill in (30.0, 60.0):
        spike = rows[(rows["time"] >= kill) & (rows["time"] < kill + 30)]["latency"].max()
        assert spike > normal + 5  # detection (10 s) plus the replay
    assert rows[rows["time"] >= 120]["latency"].max() < normal + 1


def test_fig8_eager_recovery_diverges_only_when_survivors_are_overloaded():
    def slope(rho, failures):
        rows = pd.DataFrame(
            E.fig8_point(
                {
                    **FIG8,
                    "strategy": "blocking",
                    "failures": failures,
                    "rho": rho,
                    "detection_delay": 1.0,
                },
                np.random.default_rng(12),
            )
        )
        late = rows[rows["time"] >= 100]
        return np.polyfit(late["time"], late["latency"], 1)[0]

    assert slope(0.7, 2) > 0.1  # 3 nodes at 0.7 x 5 / 3 > 1
    assert abs(slope(0.7, 1)) < 0.05  # 4 nodes at 0.875
    with pytest.raises(ValueError, match="failures"):
        E.fig8_point(
            {**FIG8, "strategy": "blocking", "failures": 5, "rho": 0.1, "detection_delay": 1.0},
            np.random.default_rng(0),
        )


def test_overhead_keeps_up_below_capacity_and_order_preserving_adds_latency():
    base = {"rate": 40.0, "cost": 0.005, "end": 60.0, "checkpoint_interval": 20.0}
    off = E.overhead_point({**base, "order_preserving": False}, np.random.default_rng(13))
    on = E.overhead_point({**base, "order_preserving": True}, np.random.default_rng(13))
    for point in (off, on):
        assert point["completed"] and point["end_time"] < base["end"] + 1
        assert point["throughput"] == pytest.approx(40.0, rel=0.1)
        assert point["cpu_throughput"] > 0
    assert on["latency_mean"] > off["latency_mean"]
    # Per tuple: the source's 100 ms batching, three operators at 5 ms, two network hops.
    assert 0.05 < off["latency_mean"] < 0.1 + 3 * 0.005 + 0.05
    # Above capacity (the one source partition at 0.005 s per record: 200 records/s) the
    # throughput saturates and the run ends late.
    over = E.overhead_point(
        {**base, "rate": 2000.0, "end": 5.0, "order_preserving": False}, np.random.default_rng(13)
    )
    assert over["throughput"] < 1000 and over["end_time"] > 5.0 + 1
