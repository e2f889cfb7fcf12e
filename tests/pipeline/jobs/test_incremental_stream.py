"""The Spark stream generator against the numpy model it writes in SQL, and the Spark SQL oracle
against the engine on a failure-free run and a correlated failure."""

from functools import partial

import numpy as np
import pytest
from numpy.random import default_rng as rng

from incremental import timelines
from pipeline import paths
from pipeline.jobs import incremental_stream as data

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def small(spark):
    return data.hashtags(spark, tweets=300, seed=3, tweet_rate=3.0).cache()


def test_ranks_and_counts_follow_the_numpy_closed_forms(small):
    rows = small.toPandas()
    assert (rows["hashtag"].to_numpy() == timelines.hashtag_ranks(rows["u_rank"])).all()
    per_tweet = rows.groupby("tweet").agg(n=("j", "size"), u=("u_count", "first"))
    assert (per_tweet["n"].to_numpy() == timelines.hashtag_counts(per_tweet["u"])).all()
    assert (rows["key"] // timelines.SHARDS == rows["hashtag"]).all()


def test_the_data_set_does_not_depend_on_partitioning(spark, small):
    again = data.hashtags(spark, tweets=300, seed=3, tweet_rate=3.0).repartition(7)
    a = small.select("tweet", "j", "key").orderBy("tweet", "j").toPandas()
    b = again.select("tweet", "j", "key").orderBy("tweet", "j").toPandas()
    assert a.equals(b)


def test_statistics_count_tweets_hashtags_and_distinct(small):
    stats = data.statistics(small)
    rows = small.toPandas()
    assert stats == {"tweets": 300, "hashtags": len(rows), "distinct": rows["hashtag"].nunique()}
    assert 1.3 < stats["hashtags"] / 300 < 1.9  # mean 1.57


END = 80.0


@pytest.fixture(scope="module")
def oracle(spark, small):
    return data.oracle_window_counts(spark, small, END)


@pytest.mark.parametrize(
    ("scheme", "killed"),
    [
        ("blocking", ("n8",)),  # the source's node
        ("incremental", ("n0", "n1", "n2")),
    ],
)
def test_oracle_equals_the_engine_under_failures(small, oracle, scheme, killed):
    _, result = timelines.fig9_run(
        scheme=scheme,
        killed=killed,
        acquisition=[5.0, 9.0, 14.0],
        rate=3.0 * timelines.HASHTAGS_PER_TWEET,
        rho=timelines.RHO,
        t_fail=30.0,
        end=END,
        rng=np.random.default_rng(0),
        stream=data.engine_stream(small, END),
    )
    assert result.completed
    check = data.compare_with_oracle(data.engine_window_counts(result.outputs), oracle)
    assert check["results"] > 100
    assert check == {**check, "missing": 0, "extra": 0, "wrong": 0}


def test_comparison_finds_a_wrong_count(oracle):
    engine = oracle.copy()
    engine.loc[0, "count"] += 1
    engine = engine.drop(index=1)
    check = data.compare_with_oracle(engine, oracle)
    assert (check["wrong"], check["missing"], check["extra"]) == (1, 1, 0)


def test_bad_sizes_raise(spark):
    with pytest.raises(ValueError, match="tweets"):
        data.hashtags(spark, tweets=0)
    with pytest.raises(ValueError, match="tweet_rate"):
        data.hashtags(spark, tweets=5, tweet_rate=0.0)


def test_engine_against_oracle_equals_its_steps_one_after_another(spark, tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "RAW_DATA", tmp_path)  # the data set is written under RAW_DATA
    run = partial(
        timelines.fig9_run,
        scheme="incremental",
        killed=("n0", "n1", "n2"),
        acquisition=[5.0, 9.0, 14.0],
        rate=3.0 * timelines.HASHTAGS_PER_TWEET,
        rho=timelines.RHO,
        t_fail=30.0,
        end=END,
    )
    stats, result, check = data.engine_against_oracle(
        spark, tweets=300, seed=3, tweet_rate=3.0, end=END, run=partial(run, rng=rng(0))
    )
    frame = spark.read.parquet(str(data.write_hashtags(spark, tweets=300, seed=3, tweet_rate=3.0)))
    _, alone = run(rng=rng(0), stream=data.engine_stream(frame, END))
    oracle = data.oracle_window_counts(spark, frame, END)
    assert stats == data.statistics(frame)
    assert result.outputs == alone.outputs and result.events == alone.events
    assert check == data.compare_with_oracle(data.engine_window_counts(alone.outputs), oracle)
    assert check["results"] > 100
