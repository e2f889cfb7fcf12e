"""Q1 and Q2 (Section VI-B) as Spark jobs: the Q1 job samples the documented law, no draw depends
on partitioning, Q2's jam detector finds exactly the jams, and the tentative output of a
plan follows the alive tasks."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from pipeline.jobs import ppa_queries as q
from ppa import output_fidelity, shapes
from tests.examples import examples

SMALL_Q1 = q.Q1Params(records=200_000, pages=300, window_hours=6)
SMALL_Q2 = dict(users=3000, segments=60, location_rate=3000, duration_seconds=120)


def test_delivered_follows_alive_paths_and_join_inputs():
    t1 = shapes.q1()
    alive = np.ones((1, len(t1.tasks)), dtype=bool)
    alive[0, t1.tasks.index("O2.1")] = False  # O1.1 and O1.2 merge into O2.1
    assert q.delivered(t1, alive, "O1").tolist() == [[False, False] + [True] * 6]
    alive[0, t1.tasks.index("O3.1")] = False
    assert not q.delivered(t1, alive, "O1").any()
    t2 = shapes.q2()
    alive = np.ones((1, len(t2.tasks)), dtype=bool)
    alive[0, t2.tasks.index("O2.3")] = False  # the join O3.3 loses one of its two inputs
    assert q.delivered(t2, alive, "O3").tolist() == [[True, True, False, True]]


@settings(max_examples=examples(100), deadline=None)
@given(
    counts=arrays(
        np.int64, st.tuples(st.integers(1, 4), st.integers(1, 60)), elements=st.integers(0, 4)
    ),
    k=st.integers(1, 80),
)
def test_q1_top_is_the_first_k_of_a_stable_descending_sort(counts, k):
    """Q1Partials.top, by a partition, picks the pages of the former stable argsort's first k
    with a positive count: ties at the k-th count go to the lowest page ids."""
    part = q.Q1Partials(params=replace(SMALL_Q1, top_k=k), counts=counts[:, None, :], run=None)
    order = np.argsort(-counts, axis=1, kind="stable")[:, :k]
    expected = [set(o[c[o] > 0].tolist()) for o, c in zip(order, counts, strict=True)]
    assert part.top(counts) == expected


@settings(max_examples=examples(100), deadline=None)
@given(
    counts=arrays(
        np.int64, st.tuples(st.integers(1, 4), st.integers(1, 60)), elements=st.integers(0, 6)
    ),
    k=st.integers(1, 80),
    share=st.floats(0.0, 1.0),
)
def test_q1_top_with_a_floor_equals_the_top_without(counts, k, share):
    """``top``'s floor (any count at or below a window's k-th largest, as ``accuracy`` bounds
    it) only skips pages: the top is the same."""
    part = q.Q1Partials(params=replace(SMALL_Q1, top_k=k), counts=counts[:, None, :], run=None)
    pages = counts.shape[1]
    kth = np.sort(counts, axis=1)[:, max(pages - k, 0)]
    assert part.top(counts, np.floor(share * kth)) == part.top(counts)


def test_q1_accuracy_bound_keeps_the_accuracy():
    """``accuracy`` floors each plan's top by its tasks' own k-th counts: the accuracies equal
    those of the top without a floor, on a draw of the default law (24 windows, 8 tasks)."""
    params = replace(q.Q1Params(), pages=2000)
    rng = np.random.default_rng(0)
    law = params.page_probabilities()
    counts = np.stack([[rng.multinomial(20_000, law[t // 2]) for t in range(8)] for _ in range(24)])
    part = q.Q1Partials(params=params, counts=counts, run=None)
    alive = rng.random((60, len(shapes.q1().tasks))) < 0.7
    truth = part.top(counts.sum(axis=1))
    sources = q.delivered(part.topology, alive, "O1")
    tops = [part.top(counts[:, row].sum(axis=1)) for row in sources]
    expected = [
        np.mean([len(t & a) / len(a) for t, a in zip(top, truth, strict=True)]) for top in tops
    ]
    assert part.accuracy(alive).tolist() == expected


@pytest.mark.parametrize(
    ("params", "name"),
    [
        (dict(records=0), "records"),
        (dict(window_hours=5), "window_hours"),
        (dict(regional_share=1.5), "regional_share"),
        (dict(region_weights=(1.0, 0.0)), "region_weights"),
        (dict(servers_per_region=1, region_weights=(1.0,)), "servers_per_region"),
    ],
)
def test_q1_params_reject_bad_values_naming_them(params, name):
    with pytest.raises(ValueError, match=name):
        q.Q1Params(**params)


@pytest.mark.parametrize(
    ("params", "name"),
    [
        (dict(users=0), "users"),
        (dict(jam_probability=-0.1), "jam_probability"),
        (dict(slide_seconds=7), "window_seconds"),
        (dict(jam_speed=(0.0, 1.0)), "jam_speed"),
    ],
)
def test_q2_params_reject_bad_values_naming_them(params, name):
    with pytest.raises(ValueError, match=name):
        q.Q2Params(**params)


def _q1_law(p: q.Q1Params) -> np.ndarray:
    """(window, O1 task, page): the documented law of one record (Q1Params)."""
    share = np.asarray(p.region_weights) / sum(p.region_weights)
    server = np.repeat(share / p.servers_per_region, p.servers_per_region)
    task = p.task_of_server(np.arange(p.servers))
    region = np.arange(p.servers) // p.servers_per_region
    law = np.zeros((24 // p.window_hours, 8, p.pages))
    hours = p.hour_weights().reshape(-1, p.window_hours).sum(axis=1)
    for s in range(p.servers):
        law[:, task[s], :] += server[s] * np.outer(hours, p.page_probabilities()[region[s]])
    return law


def _fit(counts: np.ndarray, law: np.ndarray) -> float:
    """Chi-square goodness-of-fit p-value of counts against law, cells expected < 5 pooled."""
    expected = law.ravel() * counts.sum()
    small = expected < 5
    observed = np.append(counts.ravel()[~small], counts.ravel()[small].sum())
    return stats.chisquare(observed, np.append(expected[~small], expected[small].sum())).pvalue


@pytest.mark.spark
def test_q1_job_samples_the_documented_law(spark):
    p = SMALL_Q1
    part = q.q1_partials(spark, p)
    assert part.counts.sum() == p.records
    law = _q1_law(p)
    # The joint (window, task, page) law, and the marginals' total variation distances (sampling
    # noise at 200,000 records is below 0.02).
    assert _fit(part.counts, law) > 1e-3
    distances = part.distances()
    assert distances["page"] < 0.02 and distances["task"] < 0.01 and distances["window"] < 0.01
    # Against a NumPy draw of the same law (the multinomial the former "counts" path drew):
    # a two-sample chi-square on the page counts.
    other = np.random.default_rng(1).multinomial(p.records, law.ravel()).reshape(law.shape)
    pages = np.stack([part.counts.sum(axis=(0, 1)), other.sum(axis=(0, 1))])
    assert stats.chi2_contingency(pages[:, pages.min(axis=0) >= 5]).pvalue > 1e-3


@pytest.mark.spark
@pytest.mark.parametrize(
    "other", [dict(zipf_s=1.2), dict(regional_share=0.0), dict(region_weights=(0.25,) * 4)]
)
def test_q1_law_check_fails_on_another_law(spark, other):
    """The goodness-of-fit check has power: a log drawn with another exponent, no regional pages
    or equal sites fails it."""
    part = q.q1_partials(spark, replace(SMALL_Q1, **other))
    assert _fit(part.counts, _q1_law(SMALL_Q1)) < 1e-6


@pytest.mark.spark
def test_q1_counts_do_not_depend_on_partitioning(spark):
    first = q.q1_partials(spark, SMALL_Q1, partitions=1).counts
    assert np.array_equal(first, q.q1_partials(spark, SMALL_Q1, partitions=7).counts)
    with pytest.raises(ValueError, match="partitions"):
        q.q1_partials(spark, SMALL_Q1, partitions=0)


@pytest.mark.spark
def test_q1_variants_in_one_job_equal_their_own_jobs(spark):
    """ppa_query_accuracy's sensitivity variants share one job's rows: each variant's counts are
    those of its own job (both ends of the regional share included)."""
    variants = [
        replace(SMALL_Q1, **v)
        for v in (dict(zipf_s=0.8), dict(regional_share=0.0), dict(regional_share=1.0), {})
    ]
    shared = q.q1_variants(spark, variants, partitions=3)
    assert len(shared) == len(variants) and q.q1_variants(spark, []) == []
    for variant, part in zip(variants, shared, strict=True):
        assert part.params == variant
        assert np.array_equal(part.counts, q.q1_partials(spark, variant).counts)
    with pytest.raises(ValueError, match="zipf_s"):
        q.q1_variants(spark, [SMALL_Q1, replace(SMALL_Q1, seed=1)])


@pytest.mark.spark
def test_q1_job_restores_the_session_settings_it_changes(spark):
    """The Q1 job's own settings (Arrow, the aggregation's fast map) last only for its run."""
    keys = ("spark.sql.execution.arrow.pyspark.enabled", q.FAST_MAP)
    before = {key: spark.conf.get(key, None) for key in keys}
    q.q1_partials(spark, SMALL_Q1)
    assert {key: spark.conf.get(key, None) for key in keys} == before


@pytest.mark.spark
@pytest.mark.parametrize("regional_share", [0.0, 1.0])
def test_q1_job_at_the_ends_of_the_regional_share(spark, regional_share):
    p = replace(SMALL_Q1, regional_share=regional_share)
    assert _fit(q.q1_partials(spark, p).counts, _q1_law(p)) > 1e-3


@pytest.mark.spark
def test_q1_accuracy_of_plans(spark):
    part = q.q1_partials(spark, SMALL_Q1)
    topology = part.topology
    loads = part.counts.sum(axis=(0, 2))
    # The measured rates enter the topology: OF when only O1.1 fails is 1 minus its share.
    assert output_fidelity(topology, {"O1.1"}) == pytest.approx(1 - loads[0] / loads.sum())
    all_alive = np.ones((1, len(topology.tasks)), dtype=bool)
    no_sink = all_alive.copy()
    no_sink[0, -1] = False
    assert part.accuracy(all_alive)[0] == 1.0 and part.accuracy(no_sink)[0] == 0.0
    # Only the tasks of region 0 (O1.1, O1.2): the regional pages of other sites drop out.
    one_region = topology.mask({"O1.1", "O1.2", "O2.1", "O3.1"})[None, :]
    accuracy = part.accuracy(one_region)[0]
    assert 0.0 < accuracy < 1.0
    truth = part.top(part.counts.sum(axis=1))
    tentative = part.top(part.counts[:, :2, :].sum(axis=1))
    assert accuracy == pytest.approx(
        np.mean([len(t & a) / len(a) for t, a in zip(tentative, truth, strict=True)])
    )


@pytest.mark.spark
@pytest.mark.parametrize("jam_probability", [0.0, 1.0])
def test_q2_detects_exactly_the_jams(spark, jam_probability):
    params = q.Q2Params(**SMALL_Q2, jam_probability=jam_probability)
    part = q.q2_partials(spark, params)
    incidents = int(np.ceil(params.duration_seconds / params.incident_interval))
    detected = part.outputs["incident"].nunique()
    assert detected == (incidents if jam_probability else 0)
    if jam_probability:
        # Each incident is output by one task, once per 5-minute window containing it (a
        # window every 10 s: 30).
        assert (part.outputs.groupby("incident")["task"].nunique() == 1).all()
        assert (part.outputs.groupby("incident").size() == 30).all()
        topology = part.topology
        plan = topology.mask({"O1.2", "O2.2", "O3.2", "O4.1"})[None, :]
        share = (part.outputs["task"] == 1).mean()
        assert part.accuracy(plan)[0] == pytest.approx(share)
        # Through a one-to-one join keyed by segment OF weighs partitions by O3's output.
        failed = {t for t, up in zip(topology.tasks, plan[0], strict=True) if not up}
        assert output_fidelity(topology, failed) == pytest.approx(share)
        broken = topology.mask({"O1.2", "O3.2", "O4.1"})[None, :]  # O2.2 failed
        assert part.accuracy(broken)[0] == 0.0


@pytest.mark.spark
def test_random_plans_and_planners_on_q2(spark):
    part = q.q2_partials(spark, q.Q2Params(**SMALL_Q2, jam_probability=1.0))
    rng = np.random.default_rng(0)
    random = q.random_plans(part, plans=40, rng=rng)
    assert len(random) == 40 and random["R"].between(1, 13).all()
    assert random[["OF", "IC", "accuracy"]].stack().between(0, 1).all()
    plans = q.planned(part)
    full = plans[plans["R"] == 13]
    assert (full["accuracy"] == 1.0).all() and (full["OF"] == 1.0).all()
    dp = plans[plans["planner"] == "DP"].set_index("R")
    milp = plans[plans["planner"] == "MILP"].set_index("R")
    assert np.allclose(dp["OF"], milp["OF"])
    assert (np.diff(dp.sort_index()["OF"]) >= -1e-12).all()  # the optimum grows with R
    ic = plans.pivot_table(index="R", columns="planner", values="IC")
    assert (ic.drop(columns="IC-opt").max(axis=1) <= ic["IC-opt"] + 1e-12).all()
    # Planned on the nominal shape (equal loads): its OF, the accuracy measured on the records.
    nominal = q.planned(part, planners=("DP", "Greedy"), topology=shapes.q2())
    whole = nominal[nominal["R"] == 13]
    assert (whole["accuracy"] == 1.0).all() and (whole["OF"] == 1.0).all()
    with pytest.raises(ValueError, match="topology"):
        q.planned(part, planners=("DP",), topology=shapes.q1())


def _partials(counts: np.ndarray, **params) -> q.Q1Partials:
    run = q.SparkRun(records=int(counts.sum()), seconds=1.0, method="rows")
    return q.Q1Partials(
        params=q.Q1Params(records=int(counts.sum()), **params), counts=counts, run=run
    )


def test_q1_distances_detect_a_log_from_another_law():
    p = q.Q1Params(records=10**6, pages=50, window_hours=6)
    share = np.asarray(p.region_weights) / sum(p.region_weights)
    law = np.einsum(
        "w,t,p->wtp",
        p.hour_weights().reshape(-1, 6).sum(axis=1),
        np.repeat(share / 2, 2),
        share @ p.page_probabilities(),
    )
    exact = _partials(np.round(law * 10**8).astype(np.int64), pages=50, window_hours=6)
    assert max(exact.distances().values()) < 1e-6
    # Every request for page 0, from task 0, in window 0: far from the law on every marginal.
    wrong = np.zeros_like(exact.counts)
    wrong[0, 0, 0] = 10**6
    far = _partials(wrong, pages=50, window_hours=6).distances()
    assert far["page"] > 0.5 and far["task"] > 0.5 and far["window"] > 0.5


def test_q1_rewindowed_sums_consecutive_windows():
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 5, size=(24, 8, 40))
    part = _partials(counts, pages=40)
    six = part.rewindowed(6)
    assert six.counts.shape == (4, 8, 40) and six.params.window_hours == 6
    assert np.array_equal(six.counts[1], counts[6:12].sum(axis=0))
    assert np.array_equal(six.rewindowed(24).counts, part.rewindowed(24).counts)
    for bad in (5, 0, 48):
        with pytest.raises(ValueError, match="window_hours"):
            part.rewindowed(bad)
    with pytest.raises(ValueError, match="window_hours"):
        six.rewindowed(3)  # not a multiple of the current 6 h


def test_ic_exhaustive_is_the_ic_optimum_and_can_leave_the_join_without_output():
    from itertools import combinations

    from ppa import internal_completeness, output_fidelity

    topology = shapes.q2()
    tasks = topology.tasks
    for R in (0, 2, 5, 9, 13):
        plan = q.plan_ic_exhaustive(topology, R)
        assert len(plan.tasks) <= R
        best = (
            max(
                internal_completeness(topology, set(tasks) - set(c))
                for r in range(R + 1)
                for c in combinations(tasks, r)
            )
            if R <= 5
            else None
        )
        if best is not None:
            assert plan.ic == pytest.approx(best)
        assert plan.of == pytest.approx(output_fidelity(topology, set(tasks) - plan.tasks))
    # Uniform rates: the IC optimum at R = 9 adds an O1 and an O3 task to two whole partitions,
    # raising IC above OF (Fig 12(b)'s "higher IC, not higher accuracy").
    nine = q.plan_ic_exhaustive(topology, 9)
    assert nine.ic > nine.of + 0.1
    with pytest.raises(ValueError, match="R must be"):
        q.plan_ic_exhaustive(topology, 14)
