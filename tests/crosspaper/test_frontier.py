"""crosspaper.frontier: the Pareto front against brute force, the common-axis conversions against
their definitions, and each approach's point against a property its model must have."""

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crosspaper import frontier as F
from crosspaper import recovery as R
from crosspaper import scenarios as S
from multilevel.utilization import utilization
from pipeline.sweep import sweep
from tests.examples import examples


def brute_front(x, y, rtol: float = F.TIE) -> np.ndarray:
    """Values within rtol (relative) are equal (no chains of near values in these tests)."""
    ok = np.isfinite(x) & np.isfinite(y)
    out = np.zeros(len(x), dtype=bool)
    with np.errstate(invalid="ignore"):

        def lt(a, b):
            return a < b - rtol * np.maximum(np.abs(a), np.abs(b))

        def le(a, b):
            return a <= b + rtol * np.maximum(np.abs(a), np.abs(b))

        for i in np.flatnonzero(ok):
            smaller = lt(x, x[i]) | lt(y, y[i])
            dominated = ok & le(x, x[i]) & le(y, y[i]) & smaller
            out[i] = not dominated.any()
    return out


# few values, many ties; 1 + 1e-15 ties 1.0 within F.TIE (float rounding: Σ ch_i against c/T)
values = st.sampled_from([0.0, 1.0, 1.0 + 1e-15, 2.0, 3.0, np.nan, np.inf])


@settings(max_examples=examples(100))
@given(st.lists(st.tuples(values, values), min_size=0, max_size=25))
def test_pareto_front_equals_brute_force(points):
    x = np.array([p[0] for p in points], dtype=float)
    y = np.array([p[1] for p in points], dtype=float)
    np.testing.assert_array_equal(F.pareto_front(x, y), brute_front(x, y))


def test_pareto_front_fails_on_splitting_float_ties():
    """The read-through: a point 1e-16 cheaper (FastRecover's Σ ch_i against the checkpoint's
    c/T) with the same loss dominated its twin exactly; within F.TIE both are on the front,
    whichever comes first, and exact comparison (rtol 0) splits them."""
    x, y = np.array([0.25, 0.25 * (1 - 1e-16), 0.5]), np.array([10.0, 10.0, 5.0])
    x[1] = np.nextafter(0.25, 0.0)
    for order in ([0, 1, 2], [1, 0, 2]):
        assert F.pareto_front(x[order], y[order]).tolist() == [True, True, True]
    assert F.pareto_front(x, y, rtol=0.0).tolist() == [False, True, True]
    with pytest.raises(ValueError, match="rtol"):
        F.pareto_front(x, y, rtol=1.0)


def test_pareto_front_random_points_and_bad_input():
    rng = np.random.default_rng(1)
    x, y = rng.random(300), rng.random(300)
    front = F.pareto_front(x, y)
    np.testing.assert_array_equal(front, brute_front(x, y))
    # On the front, y falls strictly as x grows.
    order = np.argsort(x[front])
    assert np.all(np.diff(y[front][order]) < 0)
    with pytest.raises(ValueError, match="x and y"):
        F.pareto_front([1.0, 2.0], [1.0])


def test_expected_wait_matches_draws():
    s = S.load("incremental_fig9")  # no standby, uniform 120-360 s
    rng = np.random.default_rng(2)
    for m, n in [(1, 1), (8, 8), (5, 5), (3, 8), (1, 7)]:
        draws = [np.sort(F.acquisition_draws(s, n, rng))[m - 1] for _ in range(20_000)]
        assert R.acquired_wait_s(s, m, n) == pytest.approx(np.mean(draws), abs=1.5)
    assert R.acquired_wait_s(s, 0, 2) == 0.0
    with pytest.raises(ValueError, match="n must be"):
        R.acquired_wait_s(s, 3, 2)


@pytest.mark.parametrize("name", ["khaos_ysb", "khaos_iot"])
def test_same_failure_loses_the_same_under_every_checkpoint_scheme(name):
    """The review found 55 / 96 / 180 s for one 60 s remote checkpoint on YSB: one model now."""
    s = S.load(name)
    rows = [
        F.multilevel_point(
            {"cost_reading": "async", "scenario": name, "T_s": 60.0, "p1": 0.0}, None
        ),
        F.khaos_point({"cost_reading": "async", "scenario": name, "ci_s": 60}, None),
        F.baseline_point(
            {"cost_reading": "async", "scenario": name, "T_s": 60.0, "baseline": "x"}, None
        ),
    ]
    jobs, c = F.day_jobs({"scenario": name}, s, 0.0, "async"), s.checkpoint  # y's loads
    # full nodes (0.78 of a 0.8 cap): the 2 failed nodes' tasks take the standby node and the
    # first of the new nodes requested
    assert R.acquired_nodes(s, (0, 1), s.resources.standby_nodes) == (1, 1)
    wait = R.acquired_wait_s(s, 1, 1)
    expected = {
        "process": R.mean_recovery_s(60.0, c.remote_restart_s, jobs),
        "single": R.mean_recovery_s(60.0, c.remote_restart_s, jobs),  # a standby node
        "correlated": R.mean_recovery_s(60.0, wait + c.remote_restart_s, jobs),
    }
    for row in rows:
        for kind, value in expected.items():
            assert row[f"loss_{kind}_s"] == pytest.approx(value)
        assert row["overhead"] == pytest.approx(c.remote_cost_s / 60.0)


def test_unavailability_capped_and_infeasible_points_off_the_front():
    row = F.multilevel_point({"scenario": "khaos_ysb", "T_s": 1800.0, "p1": 0.99}, None)
    assert not row["feasible"] and row["unavailability_s_per_h"] <= F.SECONDS_PER_HOUR
    assert not row["meets_qos"]
    slow = F.baseline_point(
        {"scenario": "khaos_ysb", "T_s": 60.0, "baseline": "x", "headroom_factor": 1e-9}, None
    )
    assert not slow["feasible"]  # capacity below the input rate: never catches up
    table = pd.DataFrame(
        [
            {"scenario": "a", "overhead": 0.1, "unavailability_s_per_h": 10.0, "feasible": True},
            {"scenario": "a", "overhead": 0.01, "unavailability_s_per_h": 5.0, "feasible": False},
        ]
    )
    assert F.mark_front(table)["pareto"].tolist() == [True, False]


def test_mark_front_fails_on_ignoring_feasibility():
    table = pd.DataFrame(
        [
            {"scenario": "a", "overhead": 0.1, "unavailability_s_per_h": 10.0, "feasible": True},
            {"scenario": "a", "overhead": 0.01, "unavailability_s_per_h": 5.0, "feasible": True},
        ]
    )
    # The same points, both feasible: the cheaper one now dominates (the rule can flip).
    assert F.mark_front(table)["pareto"].tolist() == [False, True]


def test_multilevel_levels_follow_the_paper():
    s = S.load("khaos_ysb")
    c = s.checkpoint
    rows = {
        p1: F.multilevel_point({"scenario": "khaos_ysb", "T_s": 60.0, "p1": p1}, None)
        for p1 in (0.0, 0.5, 0.9)
    }
    for p1, row in rows.items():
        cost = p1 * c.local_cost_s + (1 - p1) * c.remote_cost_s
        assert row["overhead"] == pytest.approx(cost / 60.0)
        system = S.to_multilevel(s, levels=2 if p1 else 1)
        p = np.array([p1, 1 - p1]) if p1 else np.array([1.0])
        assert row["own_utilization"] == pytest.approx(float(utilization(60.0, p, system)))
    # Level 1 helps process failures only; node failures lose more level-1 intervals.
    assert rows[0.9]["loss_process_s"] < rows[0.0]["loss_process_s"]
    assert rows[0.9]["loss_single_s"] > rows[0.5]["loss_single_s"] > rows[0.0]["loss_single_s"]


def test_fastrecover_point_leaves_the_source_log_out():
    import fastrecover as fr

    rng = np.random.default_rng(3)
    row = F.fastrecover_point(
        {"cost_reading": "async", "scenario": "khaos_ysb", "ch_max": 1.0, "draws": 3}, rng
    )
    topo, storage, _, _ = S.to_fastrecover(S.load("khaos_ysb"))
    source_log = storage.delta_log(topo.rates[0] * topo.theta[0])
    assert row["feasible"] and row["own_ch_all"] <= 1.0 + source_log + 1e-9
    # Every operator's snapshots charged whole (Σ ch_i), the source's log left out.
    assert row["overhead"] == pytest.approx(row["own_ch_all"] - source_log)
    assert row["loss_single_s"] > S.load("khaos_ysb").checkpoint.local_restart_s
    more = F.fastrecover_point(
        {"cost_reading": "async", "scenario": "khaos_ysb", "ch_max": 8.0, "draws": 3}, rng
    )
    assert more["unavailability_s_per_h"] <= row["unavailability_s_per_h"] + 1e-6
    assert isinstance(storage, fr.Storage)


@pytest.mark.parametrize("name", ["khaos_ysb", "khaos_iot"])
def test_fastrecover_fails_on_a_cheaper_charge(name):
    """rev20b HIGH 1: the same checkpoint costs the same under every scheme. FastRecover at
    CH_max = 0.25 snapshots every operator every 20 s on both jobs (the whole state every T):
    it must cost what a single-level checkpoint every 20 s costs, c/T = 0.25; the CPU-weighted
    charge it replaced gave 0.05 (YSB) and 0.04 (IoT)."""
    import fastrecover as fr

    s = S.load(name)
    topo, _, _, z = S.to_fastrecover(s)
    storage = S.snapshot_storage(s)
    source_log = float(storage.delta_log(topo.rates[0] * topo.theta[0]))
    config = fr.optimize_chain(topo, 0.25 + source_log, z, storage).configuration
    intervals = 60.0 / np.asarray(config.frequencies, dtype=float)
    assert np.allclose(intervals, intervals[0])  # the premise: one interval for every operator
    row = F.fastrecover_point(
        {"scenario": name, "ch_max": 0.25, "draws": 3}, np.random.default_rng(0)
    )
    single = F.baseline_point({"scenario": name, "T_s": float(intervals[0]), "baseline": "x"}, None)
    assert row["overhead"] == pytest.approx(single["overhead"]) == pytest.approx(0.25)
    # The rule tells the charges apart: the CPU-weighted one is well below c/T here.
    ch = fr.checkpoint_overheads(topo, config, storage)
    ch[0] -= source_log
    cpu = np.array([op.parallelism * op.cpu_share for op in s.topology.operators])
    assert float(ch @ cpu) / cpu.sum() < 0.5 * single["overhead"]


def test_feasible_fails_on_checkpoints_that_leave_no_time_to_process():
    """rev20b HIGH 2 and rev20c #3: a checkpoint costing c >= T leaves no time to process under
    every scheme (multilevel's U = 0): khaos and the baselines at c/T = 5 (cost x10) and
    FastRecover where an operator's ch_i >= 1 are infeasible (PPA and incremental sit at the
    remote-only optimum, rev20e #5, whose T exceeds c: they never reach c/T >= 1). Under the default
    blocking reading (c = processing time lost per checkpoint, the template's definition) the
    job also needs C (1 - c/T) > a, c/T < 1 - a/C: the old test asserted YSB at CI = 51 s with
    c = 50 s feasible (98% busy while the input needs 56% of C); it is feasible only under the
    asynchronous reading (c/T < 1). With y over the day's load (rev20c #5) a is every load
    level of y (frontier.day_loads), so c/T < 1 - max(a)/C."""
    ysb = {"scenario": "khaos_ysb", "cost_factor": 10.0}  # c = 50 s
    fig9 = {"scenario": "incremental_fig9"}
    c9 = S.load("incremental_fig9").checkpoint
    for point, params in (
        (F.khaos_point, {**ysb, "ci_s": 10, "replay": False}),
        (F.baseline_point, {**ysb, "T_s": 10.0, "baseline": "x"}),
        (F.multilevel_point, {**ysb, "T_s": 10.0, "p1": 0.0}),
        (F.fastrecover_point, {"scenario": "khaos_ysb", "ch_max": 2.0, "draws": 2}),
    ):
        for reading in F.COST_READINGS:
            row = point({**params, "cost_reading": reading}, np.random.default_rng(0))
            assert not row["feasible"] and not row["meets_qos_single"], (params, reading)
    slow = {**ysb, "ci_s": 51, "replay": False}
    assert not F.khaos_point(slow, None)["feasible"]  # blocking: 98% busy, 56% needed
    assert F.khaos_point({**slow, "cost_reading": "async"}, None)["feasible"]
    s = S.load("khaos_ysb")
    room = 1.0 - max(F.day_loads("khaos_ysb")) / s.checkpoint.catch_up_rate  # c/T stays below
    c = s.checkpoint.remote_cost_s
    below, above = math.ceil(c / room) + 0.5, math.floor(c / room) - 0.5
    assert c / below < room < c / above
    ok = F.baseline_point({"scenario": "khaos_ysb", "T_s": below, "baseline": "x"}, None)
    no = F.baseline_point({"scenario": "khaos_ysb", "T_s": above, "baseline": "x"}, None)
    assert ok["feasible"] and not no["feasible"]
    calm = 0.5 * room * c9.interval_s / c9.remote_cost_s  # c/T at half the room of fig9's
    for point, params in (
        (F.ppa_point, {**fig9, "fraction": 0.0, "draws": 2, "cost_factor": calm}),
        (F.incremental_point, {**fig9, "extra_standby": 0, "draws": 2, "cost_factor": calm}),
        (
            F.fastrecover_point,
            {"scenario": "khaos_ysb", "ch_max": 0.9, "draws": 2, "cost_reading": "async"},
        ),
    ):
        assert point(params, np.random.default_rng(0))["feasible"], params


def test_recoveries_catch_up_at_the_capacity_checkpoints_leave():
    """rev20c #3: one reading of c for x, feasibility and catch-up. Blocking: a recovery drains
    at C (1 - c/T), so the same failure recovers slower than under the asynchronous reading
    (capacity C), and the frontier's single-level loss is the shared model at that capacity."""
    s = S.load("khaos_ysb")
    T, c = 30.0, s.checkpoint.remote_cost_s
    rows = {
        r: F.baseline_point(
            {"scenario": "khaos_ysb", "T_s": T, "baseline": "x", "cost_reading": r}, None
        )
        for r in F.COST_READINGS
    }
    slow = [
        replace(R.job_of(s, a), capacity=s.checkpoint.catch_up_rate * (1 - c / T))
        for a in F.day_loads("khaos_ysb")
    ]
    expected = R.mean_recovery_s(T, s.checkpoint.remote_restart_s, slow)
    assert rows["blocking"]["loss_process_s"] == pytest.approx(expected)
    assert rows["blocking"]["loss_process_s"] > rows["async"]["loss_process_s"]
    assert rows["blocking"]["overhead"] == rows["async"]["overhead"] == pytest.approx(c / T)
    with pytest.raises(ValueError, match="cost_reading must be one of"):
        F.baseline_point(
            {"scenario": "khaos_ysb", "T_s": T, "baseline": "x", "cost_reading": "x"}, None
        )


def test_multilevel_feasibility_fails_on_its_own_utilization():
    """rev20b LOW 6: multilevel's own U (Eq. (13)) does not decide feasibility; every scheme's
    rule does (U kept as its own column). Fig 9 at T = 1800 s, p1 = 0.9: U well below 1 and
    feasible; IoT at T = 600 s, p1 = 0.9: U > 0 and infeasible, a failure's expected loss
    outlasting the mean time between failures (rev20c #6)."""
    row = F.multilevel_point({"scenario": "incremental_fig9", "T_s": 1800.0, "p1": 0.9}, None)
    assert 0 < row["own_utilization"] < 0.6 and row["feasible"]
    row = F.multilevel_point({"scenario": "khaos_iot", "T_s": 600.0, "p1": 0.9}, None)
    assert row["own_utilization"] > 0 and row["unavailability_s_per_h"] < F.SECONDS_PER_HOUR
    assert row["recovery_over_mtbf"] >= 1 and not row["feasible"]
    assert F.progresses(0.999) and not F.progresses(1.0)


def test_khaos_point_longer_ci_recovers_longer_and_needs_a_workload():
    short = F.khaos_point({"scenario": "khaos_iot", "ci_s": 60}, None)
    long = F.khaos_point({"scenario": "khaos_iot", "ci_s": 120}, None)
    assert short["overhead"] == pytest.approx(5.0 / 60)
    assert long["loss_single_s"] > short["loss_single_s"]
    assert long["own_sim_recovery_mean_s"] > short["own_sim_recovery_mean_s"]
    with pytest.raises(ValueError, match="khaos workload"):
        F.khaos_point({"scenario": "incremental_fig9", "ci_s": 60}, None)


def test_ppa_more_replication_never_loses_more():
    seed = np.random.default_rng
    base = {"scenario": "khaos_iot", "draws": 8}
    rows = [F.ppa_point({**base, "fraction": f}, seed(4)) for f in (0.0, 0.5, 1.0)]
    for a, b in zip(rows, rows[1:], strict=False):
        for kind in F.KINDS:  # paired draws
            assert b[f"loss_{kind}_s"] <= a[f"loss_{kind}_s"] + 1e-9
        assert b["overhead"] > a["overhead"] and b["reserved_nodes"] >= a["reserved_nodes"]
    # Sources fail too, and PPA-1 (full replication) replicates them (issue 20 MED 3): a
    # single-node failure loses the switch to the replicas only (before: the sources' restart).
    assert rows[-1]["loss_single_s"] == pytest.approx(0.2)
    assert rows[-2]["loss_single_s"] > 0.2  # PPA-0.5's passive tasks, sources among them


def test_incremental_more_standby_never_loses_more():
    seed = np.random.default_rng
    rows = [
        F.incremental_point(
            {
                "cost_reading": "async",
                "scenario": "incremental_fig9",
                "extra_standby": e,
                "draws": 6,
            },
            seed(5),
        )
        for e in (0, 1, 4, 8)
    ]
    for a, b in zip(rows, rows[1:], strict=False):
        assert b["loss_correlated_s"] <= a["loss_correlated_s"] + 1e-9
        assert b["overhead"] > a["overhead"]
    s = S.load("incremental_fig9")
    # 8 standby nodes for 8 failed ones: every query back one recovery after the failure.
    at_once = R.expected_recovery_s(
        F.remote_interval_s(s), s.checkpoint.remote_restart_s, R.job_of(s)
    )
    assert rows[-1]["loss_correlated_s"] <= at_once + 1e-9
    assert rows[-1]["own_unrecovered_queries"] == 0
    with pytest.raises(ValueError, match="extra_standby"):
        F.incremental_point(
            {"cost_reading": "async", "scenario": "incremental_fig9", "extra_standby": -1}, seed(5)
        )


def test_grid_applies_each_approach_where_it_fits():
    points = F.grid(
        ["khaos_ysb", "incremental_fig9"],
        intervals_s=[3.0, 60.0],
        p1_values=[0.0],
        ch_max_values=[1.0],
        b_log_values=[None],
        cis_s=[60],
        fractions=[0.5],
        extra_standby=[0, 1, 2],
        draws=2,
        rate_factor=2.0,
    )
    table = pd.DataFrame(points)
    assert (table["rate_factor"] == 2.0).all()
    fig9 = table[table["scenario"] == "incremental_fig9"]
    assert set(fig9["approach"]) == {"multilevel", "ppa", "incremental", "baseline"}
    ysb = table[table["scenario"] == "khaos_ysb"]
    assert set(ysb["approach"]) == set(F.APPROACHES)
    # T = 3 s is shorter than the remote checkpoint (5 s): skipped.
    assert ysb.loc[ysb["approach"] == "multilevel", "T_s"].tolist() == [60.0]
    # One standby already, two nodes fail: at most one extra.
    assert ysb.loc[ysb["approach"] == "incremental", "extra_standby"].tolist() == [0, 1]
    labels = ysb.loc[ysb["approach"] == "baseline", "baseline"].tolist()
    assert labels == ["Young/Daly", "production default"]
    empty = dict(
        intervals_s=[],
        p1_values=[],
        ch_max_values=[],
        b_log_values=[],
        cis_s=[],
        fractions=[],
        extra_standby=[],
    )
    with pytest.raises(ValueError, match="draws"):
        F.grid(["khaos_ysb"], **empty, draws=0)
    with pytest.raises(ValueError, match="factors"):
        F.grid(["khaos_ysb"], **empty, draws=1, speed=2.0)


def test_points_carry_the_scenarios_digest_so_an_edited_file_is_run_again(tmp_path):
    """The sweep cache keys a point by its parameters: a scenario file edited under the same
    path must change them (its digest), or the cache returns the old file's results."""
    path = tmp_path / "my_job.toml"
    text = (S.SCENARIOS / f"{S.TEMPLATE}.toml").read_text()
    kwargs = dict(
        intervals_s=[60.0],
        p1_values=[0.0],
        ch_max_values=[],
        b_log_values=[],
        cis_s=[],
        fractions=[],
        extra_standby=[],
        draws=1,
    )
    path.write_text(text)
    before = F.grid([str(path)], **kwargs)
    path.write_text(text.replace("remote_restart_s = 17.69", "remote_restart_s = 30.0"))
    after = F.grid([str(path)], **kwargs)
    assert {p["digest"] for p in before} == {S.load(S.TEMPLATE).digest()}
    assert [p["scenario"] for p in before] == [p["scenario"] for p in after]
    assert before != after and {p["digest"] for p in after} == {S.load(str(path)).digest()}


def test_sweep_on_spark_and_front_per_scenario(spark, tmp_path):
    points = [
        {"scenario": "khaos_iot", "approach": "multilevel", "T_s": 60.0, "p1": 0.5},
        {"scenario": "khaos_iot", "approach": "ppa", "fraction": 1.0, "draws": 2},
        {"scenario": "incremental_fig9", "approach": "incremental", "extra_standby": 0, "draws": 2},
    ]
    runs = sweep(
        "frontier_test",
        points,
        F.frontier_point,
        spark=spark,
        results_dir=tmp_path,
        progress=False,
        common_random_numbers=True,
    )
    assert len(runs) == 3 and runs["unavailability_s_per_h"].gt(0).all()
    marked = F.mark_front(runs)
    assert marked.loc[marked["scenario"] == "incremental_fig9", "pareto"].all()  # alone
    with pytest.raises(ValueError, match="approach"):
        F.frontier_point({"approach": "raid"}, None)


def test_variations_change_one_input_at_a_time_and_headlines_read_the_front():
    kwargs = dict(
        intervals_s=[60.0],
        p1_values=[0.0],
        ch_max_values=[],
        b_log_values=[],
        cis_s=[60],
        fractions=[],
        extra_standby=[],
        draws=1,
    )
    points = F.variations(["khaos_iot"], kwargs, cases=(("failure rate", "rate_factor", (3.0,)),))
    table = pd.DataFrame(points)
    assert set(table["case"]) == {"default", "failure rate"}
    assert table.loc[table["case"] == "failure rate", "rate_factor"].eq(3.0).all()
    assert not table.loc[table["approach"] == "khaos", "replay"].any()
    runs = pd.DataFrame([{**p, **F.frontier_point(p, None)} for p in points])
    heads = F.headlines(runs, ["scenario", "case"]).set_index("case")
    # Three times the failures: about three times the best checkpoint-only loss (linear in the
    # rates; Young/Daly's interval shortens with them; x10 crosses the MTBF cut-off).
    ratio = (
        heads.loc["failure rate", "best_checkpoint_s_per_h"]
        / heads.loc["default", "best_checkpoint_s_per_h"]
    )
    assert ratio == pytest.approx(3.0, rel=0.01)
    assert heads.loc["default", "front"]  # some approach is on the front


def test_cheapest_qos_fails_on_row_order():
    """Equal overheads (FastRecover at CH_max = 0.25 and the checkpoint every 20 s on IoT, which
    differ in the 16th digit) are one cost: the lower loss wins whatever the rows' order."""
    rows = pd.DataFrame(
        {
            "approach": ["fastrecover", "baseline", "ppa"],
            "overhead": [0.25 - 3e-16, 0.25, 0.5],
            "unavailability_s_per_h": [132.0, 127.0, 10.0],
        }
    )
    assert F._cheapest(rows)["approach"] == "baseline"
    assert F._cheapest(rows.iloc[::-1])["approach"] == "baseline"
    rows.loc[1, "overhead"] = 0.26  # no longer a tie: the cheaper point wins
    assert F._cheapest(rows)["approach"] == "fastrecover"


@pytest.mark.parametrize("reading", F.COST_READINGS)
@pytest.mark.parametrize("name", ["khaos_ysb", "khaos_iot"])
def test_qos_interval_agrees_across_notebooks(name, reading):
    """rev20 HIGH 1: the frontier judged the limit at the mean load and the expected moment
    (YSB allowed 141 s where cross_interval allows 50 s). Now at the day's peak 300-s mean and
    the worst moment: the searched interval is cross_interval's, and the grid's marks follow it.
    rev20d #1: under BOTH readings of the checkpoint cost (cross_interval read it async only, so
    the notebooks gave 50 s and none for one job)."""
    from crosspaper import interval
    from khaos.simulate import workload_of

    s = S.load(name)
    setup = S.to_khaos(s)
    day = workload_of(str(S.DATA / "khaos"), setup.experiment)
    peak = float(day.rolling(300).mean().max())
    assert F.qos_load(name) == pytest.approx(peak)
    cost = interval.blocked_s(s, reading)
    allowed = interval.qos_interval(peak, setup.sim, s.qos.recovery_s, "worst", cost)
    assert F.qos_interval({"cost_reading": reading, "scenario": name}) == pytest.approx(
        allowed, nan_ok=True
    )
    job = interval.Job(s, S.DATA / "khaos", cost_reading=reading)
    assert interval.headline(s, job.qos_sim, job.peak, reading)["qos_interval_worst_s"] == (
        pytest.approx(allowed, nan_ok=True)
    )
    if reading == "async":
        assert np.isfinite(allowed)
        for T, meets in ((allowed, True), (allowed + 1, False), (F.PRODUCTION_INTERVAL_S, None)):
            row = F.baseline_point(
                {"cost_reading": "async", "scenario": name, "T_s": float(T), "baseline": "x"},
                None,
            )
            assert row["meets_qos_single"] == (T <= allowed if meets is None else meets)


def test_qos_interval_fails_on_async_capacity_under_blocking():
    """rev20d #1/#6 (mutant blocking_ignored_in_qos_interval): under the blocking reading the
    catch-up runs at C (1 - c/T), and on YSB no interval meets 240 s at the peak; at capacity C
    (the async reading) 50 s does. Both notebooks agree on both."""
    from crosspaper import interval

    assert math.isnan(F.qos_interval({"scenario": "khaos_ysb"}))
    assert F.qos_interval({"cost_reading": "async", "scenario": "khaos_ysb"}) == 50.0
    job = interval.Job(S.load("khaos_ysb"), S.DATA / "khaos")
    assert job.cost_reading == "blocking"
    head = interval.headline(job.scenario, job.qos_sim, job.peak, job.cost_reading)
    assert math.isnan(head["qos_interval_worst_s"]) and head["status"] == "infeasible"
    sens = interval.sensitivity(job).set_index("knob")
    assert sens.loc["checkpoint cost reading", "qos_interval_worst_s"] == 50.0


def test_qos_mark_fails_on_the_mean_load():
    """The rule can flip: at the mean load (quantile 0.5 of a day whose mean sits below its
    peak) the same interval meets the limit that the peak breaks."""
    name = "khaos_ysb"
    at_peak = F.qos_interval({"cost_reading": "async", "scenario": name})
    at_median = F.qos_interval({"cost_reading": "async", "scenario": name, "load_quantile": 0.5})
    assert at_median > at_peak
    T = float(at_peak + 1)
    row = F.baseline_point(
        {"cost_reading": "async", "scenario": name, "T_s": T, "baseline": "x"}, None
    )
    calm = F.baseline_point(
        {
            "cost_reading": "async",
            "scenario": name,
            "T_s": T,
            "baseline": "x",
            "load_quantile": 0.5,
        },
        None,
    )
    assert not row["meets_qos_single"] and calm["meets_qos_single"]
    # the y axis stays at the mean load: only the QoS columns move
    assert row["unavailability_s_per_h"] == calm["unavailability_s_per_h"]


def test_fastrecover_pays_what_every_scheme_pays(tmp_path):
    """rev20 HIGH 2, rev20b #7: every failure restarts with local_restart_s plus FastRecover's
    own restore b_i (the download, Eq. (3.2)), so remote_restart_s (whose excess over
    local_restart_s is that download) does not count it again; snapshots cost remote_cost_s for
    the whole state, whatever b_snap says."""
    text = (S.SCENARIOS / "khaos_ysb.toml").read_text()
    paths = {}
    for label, old, new in (
        ("local", "local_restart_s = 15.0", "local_restart_s = 1.0"),
        ("remote", "remote_restart_s = 25.09", "remote_restart_s = 60.0"),
        ("snap", "b_snap_kb_per_min = 2000000.0", "b_snap_kb_per_min = 20000.0"),
    ):
        assert old in text
        paths[label] = tmp_path / f"{label}.toml"
        paths[label].write_text(text.replace(old, new))

    def point(scenario):
        params = {"cost_reading": "async", "scenario": scenario, "ch_max": 1.0, "draws": 3}
        return F.fastrecover_point(params, np.random.default_rng(3))

    base, local, snap = point("khaos_ysb"), point(str(paths["local"])), point(str(paths["snap"]))
    for kind in F.KINDS:
        assert local[f"loss_{kind}_s"] < base[f"loss_{kind}_s"]
    assert snap["unavailability_s_per_h"] == base["unavailability_s_per_h"]
    assert base["loss_single_s"] > S.load("khaos_ysb").checkpoint.local_restart_s
    storage = S.snapshot_storage(S.load("khaos_ysb"))
    topo, _, _, _ = S.to_fastrecover(S.load("khaos_ysb"))
    assert storage.delta_snap(float(np.sum(topo.pi))) * 60 == pytest.approx(5.0)


def test_fastrecover_fails_on_counting_the_download_twice(tmp_path):
    """rev20b #7: with r2 + restore a node failure paid the download twice, so a slower remote
    restart raised FastRecover's node-failure loss; now it changes none of its losses."""
    text = (S.SCENARIOS / "khaos_ysb.toml").read_text()
    old = "remote_restart_s = 25.09"
    assert old in text
    path = tmp_path / "remote.toml"
    path.write_text(text.replace(old, "remote_restart_s = 60.0"))
    rows = [
        F.fastrecover_point({"scenario": name, "ch_max": 1.0, "draws": 3}, np.random.default_rng(3))
        for name in ("khaos_ysb", str(path))
    ]
    for kind in F.KINDS:
        assert rows[0][f"loss_{kind}_s"] == rows[1][f"loss_{kind}_s"]
    # a single-level checkpoint does pay r2: the same edit moves it
    base = [
        F.baseline_point({"scenario": n, "T_s": 60.0, "baseline": "x"}, None)
        for n in ("khaos_ysb", str(path))
    ]
    assert base[1]["loss_single_s"] > base[0]["loss_single_s"]


def test_drain_criterion_and_tau_move_the_loss():
    """rev20 MED 7: the catch-up criterion and τ are sensitivity inputs; a looser criterion or
    no exponential tail loses less per failure."""
    params = {"cost_reading": "async", "scenario": "khaos_ysb", "T_s": 10.0, "baseline": "x"}
    base = F.baseline_point(params, None)["loss_single_s"]
    looser = F.baseline_point({**params, "drain_fraction": 0.2}, None)["loss_single_s"]
    linear = F.baseline_point({**params, "tau_factor": 0.0}, None)["loss_single_s"]
    assert looser < base and linear < base
    cases = {case for case, _, _ in F.SENSITIVITY}
    assert {"QoS load level", "catch-up criterion", "drain constant tau"} <= cases
    with pytest.raises(ValueError, match="drain_fraction"):
        F.adjust(S.load("khaos_ysb"), drain_fraction=1.0)


def test_single_level_checkpoint_is_one_design_on_the_front():
    """rev20 MED 6: baseline, khaos and multilevel at p1 = 0 are the same remote checkpoint on
    the same model; which appeared on the front hung on which grid held a T."""
    name = "khaos_ysb"
    params = [
        {
            "cost_reading": "async",
            "scenario": name,
            "approach": "khaos",
            "ci_s": 120.0,
            "replay": False,
        },
        {
            "cost_reading": "async",
            "scenario": name,
            "approach": "baseline",
            "baseline": "x",
            "T_s": 60.0,
        },
        {
            "cost_reading": "async",
            "scenario": name,
            "approach": "multilevel",
            "T_s": 30.0,
            "p1": 0.0,
        },
    ]
    runs = pd.DataFrame([{**p, **F.frontier_point(p, None)} for p in params])
    heads = F.headlines(runs).iloc[0]
    assert heads["front"] == F.SINGLE_LEVEL
    assert heads["best_checkpoint"].startswith(F.SINGLE_LEVEL + " T=")
    assert heads["longest_qos_interval_s"] == F.qos_interval(
        {"cost_reading": "async", "scenario": name}
    )


def test_a_remembered_ppa_plan_is_the_searched_one():
    from ppa import Topology, ppa_plan

    for name, fraction in (("khaos_iot", 0.5), ("incremental_fig9", 0.375)):
        topology, _ = S.to_ppa(F.scenario_of({"scenario": name, "headroom_factor": 1.3})[0])
        assert F._plan(topology, fraction) == ppa_plan(topology, fraction)
    # the same tasks with other rates are another topology: not served the first one's plan
    operators = {"S": ["s0"], "A": ["a0"], "B": ["b0"], "K": ["k0"]}

    def fan_in(rate_a, rate_b):
        rates = {("s0", "a0"): 1.0, ("s0", "b0"): 1.0, ("a0", "k0"): rate_a, ("b0", "k0"): rate_b}
        return Topology(operators=operators, rates=rates)

    assert F._plan(fan_in(9.0, 1.0), 0.5) == frozenset({"a0", "k0"})
    assert F._plan(fan_in(1.0, 9.0), 0.5) == frozenset({"b0", "k0"})


# -- common random numbers across the notebook's sweeps -----------------------------------------
def test_a_sensitivity_point_at_factor_1_equals_the_main_point(spark, tmp_path):
    """The notebook runs its main grid, sensitivity and map under F.EXPERIMENT: the sensitivity's
    default point (every factor 1) draws the same failures and delays as the main point, so a
    headline and its sensitivity rows differ only by the factor; under another experiment name
    (the notebook's former "cross_frontier_sensitivity") the draws differ."""
    main = [
        {"scenario": "incremental_fig9", "approach": "ppa", "fraction": 0.0, "draws": 2},
        {"scenario": "incremental_fig9", "approach": "incremental", "extra_standby": 0, "draws": 2},
    ]
    default = [{**p, "case": "default", "value": "1"} for p in main]
    kw = dict(results_dir=tmp_path, spark=spark, progress=False, common_random_numbers=True)
    columns = ["unavailability_s_per_h", "loss_correlated_s", "recovery_correlated_s"]
    a = sweep(F.EXPERIMENT, main, F.frontier_point, **kw)[columns]
    b = sweep(F.EXPERIMENT, default, F.frontier_point, **kw)[columns]
    pd.testing.assert_frame_equal(a, b)
    other = sweep("cross_frontier_sensitivity", default, F.frontier_point, **kw)[columns]
    assert not np.allclose(a.to_numpy(), other.to_numpy())


def _forget():
    F._expected_recovery_s.cache_clear()
    F._PLANS.clear()
    F._FAILURES.clear()
    F._PLACED.clear()


def test_remembered_points_equal_points_computed_afresh():
    # Points whose factors leave some remembered inputs unchanged (rate, headroom, delay, load)
    # reuse them; each must equal the point computed with nothing remembered.
    base = [
        {"scenario": "khaos_iot", "approach": "ppa", "fraction": 0.5, "draws": 4},
        {"scenario": "incremental_fig9", "approach": "ppa", "fraction": 1.0, "draws": 4},
        {"scenario": "incremental_fig9", "approach": "incremental", "extra_standby": 1, "draws": 4},
        {"scenario": "khaos_ysb", "approach": "multilevel", "T_s": 5.0, "p1": 0.99},
    ]
    factors = [{}, {"rate_factor": 10.0}, {"headroom_factor": 0.7}, {"delay_factor": 2.0}]
    points = [{**p, **f} for p in base for f in factors] + [{**base[1], "load_quantile": 0.5}]
    _forget()
    remembered = [F.frontier_point(p, np.random.default_rng(1)) for p in points]
    assert F._FAILURES and F._PLACED
    for point, row in zip(points, remembered, strict=True):
        _forget()
        assert row == F.frontier_point(point, np.random.default_rng(1)), point


# -- one restart-location rule for every scheme (rev20b #3) ------------------------------------
def _edited(tmp_path, name: str, *edits: tuple[str, str]) -> str:
    text = (S.SCENARIOS / f"{name}.toml").read_text()
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / f"{name}_edited.toml"
    path.write_text(text)
    return str(path)


def test_every_scheme_waits_the_same_for_the_same_failure(tmp_path):
    """khaos_ysb without a standby node and a fixed 120 s acquisition: its nodes are full, so a
    node failure waits 120 s for a new node under every scheme; single-level (baseline, Khaos,
    multilevel at p1 = 0), PPA-0 and incremental lose the same per single-node failure, and
    cross_interval adds the same wait to its simulator's restart."""
    from crosspaper import interval as I

    path = _edited(
        tmp_path,
        "khaos_ysb",
        ("standby_nodes = 1", "standby_nodes = 0"),
        ('acquisition_law = "uniform"', 'acquisition_law = "fixed"'),
    )
    s = S.load(path)
    T = F.remote_interval_s(s)  # PPA's and incremental's interval (rev20e #5)
    rng = np.random.default_rng
    rows = [
        F.baseline_point(
            {"cost_reading": "async", "scenario": path, "T_s": T, "baseline": "x"}, None
        ),
        F.khaos_point(
            {"cost_reading": "async", "scenario": path, "ci_s": T, "replay": False}, None
        ),
        F.multilevel_point({"cost_reading": "async", "scenario": path, "T_s": T, "p1": 0.0}, None),
        F.ppa_point(
            {"cost_reading": "async", "scenario": path, "fraction": 0.0, "draws": 2}, rng(0)
        ),
        F.incremental_point(
            {"cost_reading": "async", "scenario": path, "extra_standby": 0, "draws": 2}, rng(0)
        ),
    ]
    jobs = F.day_jobs({"scenario": path}, s, 0.0, "async")  # y's loads
    expected = R.mean_recovery_s(T, 120.0 + s.checkpoint.remote_restart_s, jobs)
    for row in rows:
        assert row["loss_single_s"] == pytest.approx(expected), row["label"]
    assert R.node_failure_wait_s(s) == 120.0
    assert I.Job(s, S.DATA / "khaos").sim.restart_s == pytest.approx(
        S.to_khaos(s).sim.restart_s + 120.0
    )


@pytest.mark.parametrize(
    ("name", "edits", "expected"),
    [
        ("template", (), 28.0),  # no standby, but the survivors' spare takes a node's tasks
        ("khaos_iot", (), 28.0),  # full nodes, a standby node
        ("khaos_iot", (("standby_nodes = 1", "standby_nodes = 0"),), math.nan),  # waits 240 s
    ],
)
def test_frontier_and_cross_interval_find_the_same_qos_interval(tmp_path, name, edits, expected):
    """rev20b #3: the template gave 28 s in cross_interval (which never waited for a node) and
    none in the frontier (which waited for a new node despite the survivors' spare). Both now
    restart by one rule; a job without standby nodes and without spare (khaos_iot edited) waits
    240 s for a node in both, so no interval meets its 240 s limit in either: the old
    cross_interval, restarting at once, found 28 s there (the planted old behaviour fails)."""
    from crosspaper import interval as I

    path = _edited(tmp_path, name, *edits)
    s = S.load(path)
    job = I.Job(s, S.DATA / "khaos")
    found = I.headline(s, job.qos_sim, job.peak, "async")["qos_interval_worst_s"]
    frontier = F.qos_interval({"cost_reading": "async", "scenario": path})
    np.testing.assert_equal([found, frontier], [expected, expected])


def test_front_fails_on_tentative_credit(tmp_path):
    """rev20b #5: PPA-0 (no replicas) checkpoints like the single-level scheme at its interval
    and restarts by the same rule, so on exact output it loses what that checkpoint loses and
    the two tie on the front; its tentative credit (∫ (1 - OF), own_tentative_s_per_h) is lower
    and, deciding the front, would push the checkpoint off it."""
    path = _edited(
        tmp_path, "khaos_ysb", ('acquisition_law = "uniform"', 'acquisition_law = "fixed"')
    )
    T = F.remote_interval_s(S.load(path))  # PPA's interval (rev20e #5)
    ppa = F.ppa_point({"scenario": path, "fraction": 0.0, "draws": 3}, np.random.default_rng(0))
    base = F.baseline_point({"scenario": path, "T_s": T, "baseline": "x"}, None)
    assert ppa["unavailability_s_per_h"] == pytest.approx(base["unavailability_s_per_h"])
    assert ppa["own_tentative_s_per_h"] < ppa["unavailability_s_per_h"]
    rows = pd.DataFrame([{**base, "scenario": "a"}, {**ppa, "scenario": "a"}])
    assert F.mark_front(rows)["pareto"].all()
    rows.loc[1, "unavailability_s_per_h"] = ppa["own_tentative_s_per_h"]
    assert F.mark_front(rows)["pareto"].tolist() == [False, True]


def _separate_replicas(tmp_path) -> str:
    """incremental_fig9 with its PPA replicas in another failure domain (and its source)."""
    return _edited(
        tmp_path,
        "incremental_fig9",
        ("virtual_sink = true", 'virtual_sink = true\nreplica_domain = "separate"'),
        ("[sources]\n", '[sources]\n"ppa.replica_domain" = "assumption: a test"\n'),
    )


def test_replicas_on_extra_nodes_fail_with_a_correlated_failure(tmp_path):
    """rev20c #2: PPA-1.0's replicas on Fig 9 sit mostly on extra nodes (index >= N), which the
    job's failures (drawn over its N nodes) never took, so replica_domain "same" behaved as
    "separate". A correlated failure of k nodes now also takes each extra node with the job
    nodes' probability k / N; "separate" keeps every replica outside the failures."""
    from crosspaper import replication as P

    s = S.load("incremental_fig9")
    topology, _ = S.to_ppa(s)
    plan = F._plan(topology, 1.0)
    n, k, extra = s.resources.nodes, s.failures.correlated_nodes, P.extra_nodes(s, plan)
    assert extra >= 1 and P.replica_cost(s, plan)[1] == extra
    sets = F.failed_node_draws(s, "correlated", 4000, np.random.default_rng(1), extra)
    counts = np.bincount(np.concatenate(sets), minlength=n + extra)
    share, p = counts / len(sets), k / n
    assert len(counts) == n + extra
    np.testing.assert_allclose(share, p, atol=4 * math.sqrt(p * (1 - p) / len(sets)))
    # the same uniforms whatever the extra nodes: the acquisition draws after them stay common
    a, b = np.random.default_rng(2), np.random.default_rng(2)
    F.failed_node_draws(s, "correlated", 5, a, 0), F.failed_node_draws(s, "correlated", 5, b, 9)
    assert a.random() == b.random()
    separate = _separate_replicas(tmp_path)
    assert P.extra_nodes(S.load(separate), plan) == 0


def test_ppa_correlated_failure_fails_on_diluting_the_job_nodes_by_the_replicas():
    """rev20d #2: with k of the N + E nodes, PPA-1.0's own extra nodes took part of every
    correlated failure (Fig 9: 4.4 job nodes of 8 on average), which no other scheme gets. Every
    plan now loses the same k job nodes as every scheme on the same draws (common random
    numbers), and plans share extra node j's fate."""
    s = S.load("incremental_fig9")
    n, k = s.resources.nodes, s.failures.correlated_nodes
    base = F.failed_node_draws(s, "correlated", 200, np.random.default_rng(3), 0)
    for extra in (1, 4, 8):
        sets = F.failed_node_draws(s, "correlated", 200, np.random.default_rng(3), extra)
        jobs = [tuple(x for x in nodes if x < n) for nodes in sets]
        assert jobs == base  # k job nodes, the same as without replicas
        assert all(len(j) == k for j in jobs)
    few = F.failed_node_draws(s, "correlated", 200, np.random.default_rng(3), 2)
    many = F.failed_node_draws(s, "correlated", 200, np.random.default_rng(3), 8)
    assert [[x for x in a if x >= n] for a in few] == [
        [x for x in b if n <= x < n + 2] for b in many
    ]


def test_ppa_loss_fails_on_replicas_outside_the_correlated_failure(tmp_path):
    """The planted old behaviour ("same" as "separate"): PPA-1.0 on Fig 9 loses more to a
    correlated failure when its replicas' nodes fail with the job's than in another domain, on
    the same draws; single-node failures (an extra node alone loses no output) are unchanged."""
    separate = _separate_replicas(tmp_path)
    rng = np.random.default_rng
    same = F.ppa_point({"scenario": "incremental_fig9", "fraction": 1.0, "draws": 20}, rng(0))
    apart = F.ppa_point({"scenario": separate, "fraction": 1.0, "draws": 20}, rng(0))
    assert same["loss_correlated_s"] > apart["loss_correlated_s"] + 1.0
    assert same["loss_single_s"] == pytest.approx(apart["loss_single_s"])


def test_meets_qos_fails_on_judging_the_mean():
    """rev20c #4: the per-recovery limit was judged on means: Fig 9 (no standby, new nodes in
    120-360 s, limit 300 s) had T = 142 s "meeting" it at the mean wait of 240 s while half of
    its single-node failures took longer (up to 437 s), and incremental + 0 standby was marked
    meeting on a 299 s mean over nodes. Every recovery now meets the limit or the point does
    not: the worst node, the acquisition at its law's upper end (360 s), the worst moment."""
    s = S.load("incremental_fig9")
    params = {"cost_reading": "async", "scenario": "incremental_fig9"}
    qjob, r2 = F.qos_job(params, s), s.checkpoint.remote_restart_s
    assert F.worst_wait_s(s, "single", 0) == R.acquisition_upper_s(s) == 360.0
    mean_wait = sum(w * p for w, p in F.wait_weights(s, "single", 0))
    assert mean_wait < 300.0
    worst = R.expected_recovery_s(30.0, 360.0 + r2, qjob, "worst")
    on_mean = R.expected_recovery_s(30.0, mean_wait + r2, qjob, "worst")
    assert on_mean <= s.qos.recovery_s < worst  # the mean passes, the worst failure does not
    base = F.baseline_point({**params, "T_s": 30.0, "baseline": "x"}, None)
    assert base["recovery_single_s"] == pytest.approx(worst)
    assert not base["meets_qos_single"] and not base["meets_qos"]
    assert math.isnan(F.qos_interval(params))  # was 142 s on the mean wait
    rng = np.random.default_rng
    ppa = F.ppa_point({**params, "fraction": 0.0, "draws": 2}, rng(0))
    incr = F.incremental_point({**params, "extra_standby": 0, "draws": 2}, rng(0))
    at_own = R.expected_recovery_s(F.remote_interval_s(s), 360.0 + r2, qjob, "worst")
    for row in (ppa, incr):  # the worst failed node (at their own interval), not the mean
        assert row["recovery_single_s"] >= at_own - 1e-6 > s.qos.recovery_s
        assert not row["meets_qos_single"]
    ml = F.multilevel_point({**params, "T_s": 10.0, "p1": 0.9}, None)
    # node failures: the remote interval of the level pattern, ceil(1 / p2) x T = 100 s
    assert ml["recovery_single_s"] == pytest.approx(
        R.expected_recovery_s(100.0, 360.0 + r2, qjob, "worst")
    )


def test_feasible_fails_on_recoveries_longer_than_the_time_between_failures():
    """rev20c #6: Fig 9's multilevel T = 1800 s, p1 = 0.99 loses below 3,600 s/h (the old rule,
    the cap alone, kept it feasible and on the front's left end) while its expected single-node
    recovery outlasts the mean time between failures: λ E[loss] >= 1 makes it infeasible. The
    rule's value is recomputed from its definition; a point well inside stays feasible."""
    row = F.multilevel_point({"scenario": "incremental_fig9", "T_s": 1800.0, "p1": 0.99}, None)
    lam = F.per_hour(S.load("incremental_fig9"))
    mtbf_s = F.SECONDS_PER_HOUR / sum(lam.values())
    assert row["unavailability_s_per_h"] < F.SECONDS_PER_HOUR  # the cap alone: feasible
    assert row["loss_single_s"] > mtbf_s
    longest = max(row[f"loss_{k}_s"] for k in F.KINDS if lam[k] > 0)
    assert row["recovery_over_mtbf"] == pytest.approx(longest / mtbf_s)
    assert not row["feasible"] and not row["meets_qos"]
    ok = F.multilevel_point({"scenario": "incremental_fig9", "T_s": 300.0, "p1": 0.5}, None)
    assert ok["feasible"] and ok["recovery_over_mtbf"] < F.MAX_RECOVERY_OVER_MTBF


def test_rate_scaling_keeps_pareto_dominance_but_the_cut_offs():
    """The decision map's rate rows (rev20c #6): every failure rate x3 multiplies every point's
    y by 3, so the front of the points feasible at both rates is the same; only the cap and the
    mean-time-between-failures cut-offs remove points."""
    params = [
        {"scenario": "khaos_iot", "approach": "multilevel", "T_s": T, "p1": p1}
        for T in (10.0, 60.0, 300.0, 1800.0)
        for p1 in (0.0, 0.5, 0.9)
    ]
    one = pd.DataFrame([F.frontier_point(p, None) for p in params])
    three = pd.DataFrame([F.frontier_point({**p, "rate_factor": 3.0}, None) for p in params])
    both = one["feasible"] & three["feasible"]
    assert np.allclose(
        three["unavailability_s_per_h"][both], 3 * one["unavailability_s_per_h"][both]
    )
    assert (one["feasible"] & ~three["feasible"]).any()  # the cut-offs bite at x3
    front = [
        F.pareto_front(f["overhead"][both], f["unavailability_s_per_h"][both]) for f in (one, three)
    ]
    assert (front[0] == front[1]).all()


def test_y_averages_the_days_load_fails_on_the_mean_load():
    """rev20c #5: y is the mean loss over the measured day's load, not the loss at the mean load
    (the recovery is convex in the load). IoT's remote checkpoint every 300 s: a process
    failure's loss recomputed over every 10th of the day's 300-s windows (the blocking reading:
    capacity C (1 - c/T)) agrees within 1% (the quadrature of frontier.LOAD_LEVELS quantiles);
    the mean load's value (y_load = "mean", kept as a sensitivity row) is far below it."""
    from khaos.simulate import workload_of

    s = S.load("khaos_iot")
    T, c = 300.0, s.checkpoint
    day = workload_of(str(S.DATA / "khaos"), "iot")
    windows = day.rolling(300).mean().dropna().to_numpy()[::10]
    base = R.job_of(s)
    capacity = base.capacity * (1 - c.remote_cost_s / T)

    def loss(a: float) -> float:
        job = R.Job(input_rate=a, capacity=capacity, drain_tau_s=base.drain_tau_s)
        return R.expected_recovery_s(T, c.remote_restart_s, job)

    brute = float(np.mean([loss(a) for a in windows]))
    params = {"scenario": "khaos_iot", "T_s": T, "baseline": "x"}
    row = F.baseline_point(params, None)
    assert row["loss_process_s"] == pytest.approx(brute, rel=0.01)
    at_mean = F.baseline_point({**params, "y_load": "mean"}, None)["loss_process_s"]
    assert at_mean == pytest.approx(loss(s.topology.input_rate))
    assert at_mean < 0.8 * brute  # Jensen: the mean-load y would fail the first assert


def test_mean_recovery_over_jobs_is_the_mean_of_each_jobs_recovery():
    """recovery.mean_recovery_s (y's loads in one array) against expected_recovery_s job by job,
    every timing and level probability."""
    jobs = [
        R.Job(input_rate=a, capacity=100.0, drain_tau_s=tau)
        for a in (10, 50, 90)
        for tau in (0, 5, 30)
    ]
    for T in (5.0, 60.0, 600.0):
        for down in (0.0, 15.0, 200.0):
            for timing in R.TIMINGS:
                for keep in (1.0, 0.5, 0.01):
                    each = [R.expected_recovery_s(T, down, j, timing, keep) for j in jobs]
                    got = R.mean_recovery_s(T, down, jobs, timing, keep)
                    assert got == pytest.approx(np.mean(each), rel=1e-9)
    slow = R.Job(input_rate=100.0, capacity=100.0 + 1e-9)
    assert R.mean_recovery_s(60.0, 0.0, [*jobs, replace(slow, capacity=99.0)]) == math.inf


def test_ppa_correlated_qos_fails_on_drawn_node_sets():
    """rev20e #1: PPA's correlated QoS recovery is the worst over EVERY k-node set (and both
    fates of the replicas' extra nodes), not over ``draws`` random sets: on khaos_iot two drawn
    sets gave 400.3 s or 2,604.7 s by the seed; now every seed and draw count gives the worst,
    which is at least every drawn set's (PPA-1.0 with 20 draws by the old rule)."""
    got = {
        F.ppa_point(
            {"scenario": "khaos_iot", "fraction": 1.0, "draws": draws},
            np.random.default_rng(seed),
        )["recovery_correlated_s"]
        for seed in range(4)
        for draws in (2, 20)
    }
    assert len(got) == 1
    s = S.load("khaos_iot")
    assert got.pop() > s.qos.recovery_s


def test_ppa_interval_fails_on_the_configured_interval():
    """rev20e #5: PPA and incremental sit at one interval rule in cross_frontier and
    cross_correlated (the remote-only optimum, frontier.remote_interval_s), not the scenario's
    configured interval (60 s on the template against its optimum of about 150 s): PPA-0's
    checkpoint share is the same in both notebooks, and so is incremental's."""
    from crosspaper import correlated as cc

    costs = cc.normal_costs(S.TEMPLATE).set_index("scheme")["checkpoint_overhead"]
    s = S.load(S.TEMPLATE)
    assert F.remote_interval_s(s) == cc.setup(S.TEMPLATE)["interval"] != s.checkpoint.interval_s
    rng = np.random.default_rng(0)
    ppa0 = F.ppa_point({"scenario": S.TEMPLATE, "fraction": 0.0, "draws": 2}, rng)
    assert ppa0["checkpoint_share"] == pytest.approx(costs["PPA-0"], rel=1e-12)
    incr = F.incremental_point({"scenario": S.TEMPLATE, "extra_standby": 0, "draws": 2}, rng)
    assert incr["checkpoint_share"] == pytest.approx(costs["incremental"], rel=1e-12)


def test_feasibility_fails_on_a_point_behind_at_the_days_peak():
    """x20i's find: y's 32 quadrature levels of the day's 300-s loads top out below the day's
    peak 300-s mean, so a point whose catch-up capacity C (1 - c/T) lies between them passed as
    feasible although it falls behind at the peak. khaos_iot at T = 30 s (blocking reading):
    every quadrature level drains, the peak (qos_load at quantile 1) does not: infeasible."""
    s = S.load("khaos_iot")
    c, T = s.checkpoint, 30.0
    capacity = c.catch_up_rate * (1 - c.remote_cost_s / T)
    assert max(F.day_loads("khaos_iot")) < capacity < F.qos_load("khaos_iot", 1.0)
    params = {"scenario": "khaos_iot", "baseline": "T", "T_s": T}
    assert not F.baseline_point(params, np.random.default_rng(0))["feasible"]
    assert F.baseline_point({**params, "T_s": 60.0}, np.random.default_rng(0))["feasible"]


def test_incremental_correlated_qos_fails_on_drawn_node_sets():
    """rev20e #1 for incremental: its correlated QoS recovery is the latest placement over EVERY
    k-node set (_incremental_worst_placed), the same whatever the seed and draw count."""
    params = {"scenario": "khaos_iot", "extra_standby": 0}
    got = {
        F.incremental_point({**params, "draws": draws}, np.random.default_rng(seed))[
            "recovery_correlated_s"
        ]
        for seed in range(3)
        for draws in (1, 10)
    }
    assert len(got) == 1
    s = S.load("khaos_iot")
    assert got.pop() > s.qos.recovery_s


def test_best_checkpoint_text_fails_on_printing_nan():
    """rev20f #6: where no checkpoint-only point is feasible (rev20f's my_job and nocorr quick
    runs) the finding said "nan s/h at best (, overhead nan%)"."""
    none = {
        "best_checkpoint_s_per_h": np.nan,
        "best_checkpoint": "",
        "best_checkpoint_overhead": np.nan,
    }
    text = F.best_checkpoint_text(none)
    assert "nan" not in text and text.startswith("no feasible point")
    some = {
        "best_checkpoint_s_per_h": 12.34,
        "best_checkpoint": "x",
        "best_checkpoint_overhead": 0.05,
    }
    assert F.best_checkpoint_text(some) == "12.3 s/h at best (x, overhead 5.0%)"


def test_multilevel_cost_fails_on_the_optimizers_p2():
    """rev20f #8: the loss reads p2 as a remote checkpoint every m = ceil(1/p2)-th interval; the
    cost now does too, in both notebooks. At p1 = 0.6 (p2 = 0.4: m = 3, one remote in three)
    the cost per interval is (2 c1 + c2) / 3, not 0.6 c1 + 0.4 c2; cross_correlated's optimum
    likewise, with its remote checkpoints every m T*."""
    s = S.load("khaos_ysb")
    c, T = s.checkpoint, 30.0
    row = F.multilevel_point({"scenario": "khaos_ysb", "T_s": T, "p1": 0.6}, None)
    assert row["checkpoint_share"] == pytest.approx((2 * c.local_cost_s + c.remote_cost_s) / 3 / T)
    from crosspaper import correlated as cc

    su = cc.setup("incremental_fig9")
    ml, ck = su["multilevel"], su["scenario"].checkpoint
    m = math.ceil(1 / ml.p[-1] - 1e-9)
    row = cc.normal_costs("incremental_fig9").set_index("scheme").loc["multilevel"]
    per_t = ((m - 1) * ck.local_cost_s + ck.remote_cost_s) / m
    assert row["checkpoint_overhead"] == pytest.approx(per_t / ml.T, rel=1e-12)
    assert row["checkpoint_interval_s"] == pytest.approx(m * ml.T, rel=1e-12)


RESCALE_GRID = dict(
    intervals_s=[10.0, 600.0, 1800.0],
    p1_values=[0.0, 0.9],
    ch_max_values=[1.0],
    b_log_values=[None],
    cis_s=[30, 120],
    fractions=[0.5],
    extra_standby=[1],
    draws=3,
)


def _rows(points) -> pd.DataFrame:
    """pipeline.sweep's rows with common random numbers: one generator state for every point."""
    rows = [{**p, **F.frontier_point(p, np.random.default_rng(7))} for p in points]
    return pd.DataFrame(rows)


def _mismatches(direct: pd.DataFrame, via: pd.DataFrame) -> list[str]:
    """The columns where ``via`` differs from ``direct`` (numbers: beyond 1e-12 relative)."""
    bad = sorted(set(direct.columns) ^ set(via.columns))
    for name in sorted(set(direct.columns) & set(via.columns)):
        a, b = direct[name], via[name]
        if pd.api.types.is_numeric_dtype(a) and not pd.api.types.is_bool_dtype(a):
            same = np.isclose(a.astype(float), b.astype(float), rtol=1e-12, atol=0, equal_nan=True)
        else:
            same = (a == b) | (a.isna() & b.isna())
        if not np.all(same):
            bad.append(name)
    return bad


def _points():
    names = ["khaos_iot", "incremental_fig9"]
    grid = F.decision_points(names, RESCALE_GRID, [0.1, 1.0, 30.0], [0.7, 1.0])
    cases = (("failure rate", "rate_factor", (0.1, 30.0)), ("headroom", "headroom_factor", (0.7,)))
    return grid, F.variations(names, RESCALE_GRID, cases=cases)


def test_rescaled_rates_equal_the_per_factor_sweep():
    """The decision map's and the sensitivity's rows from to_run's points (multilevel and khaos
    at factor 1, rescaled; factors at 1 dropped) equal every point computed at its own factors,
    every column, ``infeasible_reason`` too (x20m HIGH 0: a rescaled row keeps its drain reason
    and redoes y's cut-offs); the x30 rates cross y's cut-offs, so feasibility and the reasons
    move with the rate."""
    for points in _points():
        run = F.to_run(points)
        assert len(run) < len(points)
        via = F.rescaled(points, _rows(run))
        direct = _rows(points)
        assert _mismatches(direct, via) == []
        moved = direct.groupby("rate_factor")["feasible"].sum() if "rate_factor" in direct else None
        assert moved is None or moved.nunique() > 1
        reasons = set(direct["infeasible_reason"].str.split("; ").explode())
        assert {"", F.BEHIND_Y, F.OVER_MTBF} <= reasons


def test_rescaled_rates_fails_on_a_rate_dependent_loss(monkeypatch):
    """A RATE_FREE approach whose loss read a failure rate would make the rescaled rows wrong:
    the equality check above sees it."""
    point = F.POINTS["multilevel"]

    def planted(params, rng):
        row = point(params, rng)
        row["loss_single_s"] *= 1 + 1e-6 * float(params.get("rate_factor", 1.0))
        reason = "" if row["drains"] else row["infeasible_reason"]
        return F._finish(row, F.scenario_of(params)[0], reason)

    monkeypatch.setitem(F.POINTS, "multilevel", planted)
    grid, _ = _points()
    via = F.rescaled(grid, _rows(F.to_run(grid)))
    assert "loss_single_s" in _mismatches(_rows(grid), via)


# -- a job with no feasible point (x20m HIGH 0) ------------------------------------------------
ALL_INFEASIBLE_GRID = dict(
    intervals_s=[10.0, 600.0],
    p1_values=[0.0, 0.9],
    ch_max_values=[1.0],
    b_log_values=[None],
    cis_s=[5, 10, 120],
    fractions=[0.0, 1.0],
    extra_standby=[0],
    draws=2,
)


def _all_infeasible(tmp_path) -> str:
    """The template with its capacity 2.3% above the IoT day's peak 300-s load and 200 node
    failures a day: every point of ALL_INFEASIBLE_GRID is infeasible, for every reason but
    FastRecover's."""
    return _edited(
        tmp_path,
        S.TEMPLATE,
        ("catch_up_rate = 33000.0", "catch_up_rate = 28500.0"),
        ("single_per_day = 11.0", "single_per_day = 200.0"),
    )


def _expected_reason(row: pd.Series, s: S.Scenario, name: str) -> str:
    """A single-level or multilevel point's reason from the definitions: c/T >= 1, the
    capacity C (1 - c/T) at or below y's highest load level or the day's peak 300-s mean, then
    y's cut-offs (3,600 s/h; Σ λ x the longest expected loss per failure >= 1)."""
    busy, capacity = row["checkpoint_share"], s.checkpoint.catch_up_rate
    if busy >= 1:
        return F.NO_PROGRESS
    if capacity * (1 - busy) <= max(F.day_loads(name)):
        return F.BEHIND_Y
    if capacity * (1 - busy) <= F.qos_load(name, 1.0):
        return F.BEHIND_PEAK
    lam = sum(F.per_hour(s).values()) / F.SECONDS_PER_HOUR
    longest = max(row[f"loss_{k}_s"] for k in F.KINDS)
    y = sum(F.per_hour(s)[k] * row[f"loss_{k}_s"] for k in F.KINDS)
    cut = [(F.AT_CAP, y >= F.SECONDS_PER_HOUR), (F.OVER_MTBF, lam * longest >= 1)]
    return "; ".join(why for why, holds in cut if holds)


def test_a_job_with_no_feasible_point_fails_on_an_unexplained_infeasibility(tmp_path):
    """x20m HIGH 0: cross_frontier crashed on a job whose every point is infeasible (a
    log-scaled figure of no point) and no row said why a point was infeasible. Every point now
    carries ``infeasible_reason`` (the cut-off that applies, recomputed here from its definition
    for the checkpoint schemes), the headline counts the reasons, and the finding says that no
    point is feasible, why, and what the capacity leaves for checkpoints."""
    path = _all_infeasible(tmp_path)
    s = S.load(path)
    points = [
        {**p, "replay": False} if p["approach"] == "khaos" else p
        for p in F.grid([path], **ALL_INFEASIBLE_GRID)
    ]
    runs = F.mark_front(_rows(points))
    assert not runs["feasible"].any() and not runs["pareto"].any()
    assert runs["infeasible_reason"].str.len().gt(0).all()
    single = runs["approach"].isin(("baseline", "khaos", "multilevel"))
    for _, row in runs[single].iterrows():
        assert row["infeasible_reason"] == _expected_reason(row, s, path), row["label"]
    seen = set(runs["infeasible_reason"])
    assert {F.NO_PROGRESS, F.BEHIND_Y, F.BEHIND_PEAK, f"{F.AT_CAP}; {F.OVER_MTBF}"} <= seen
    # a rate-free point at another rate keeps its drain reason and redoes y's cut-offs
    rates = [{**p, "rate_factor": f} for p in points for f in (1e-3, 1.0)]
    direct = _rows(rates)
    assert _mismatches(direct, F.rescaled(rates, _rows(F.to_run(rates)))) == []
    assert direct["feasible"].any()  # at 1/1000 of the rates the long intervals pass y's cuts
    h = F.headlines(runs).iloc[0]
    assert (h["front"], h["points"], h["infeasible_points"]) == ("", len(runs), len(runs))
    counts = runs["infeasible_reason"].str.split("; ").explode().value_counts()
    assert h["infeasible_reasons"] == ", ".join(f"{w}: {n}" for w, n in counts.items())
    text = F.no_feasible_text(h, s)
    assert text.startswith("no point is feasible") and h["infeasible_reasons"] in text
    room = 1 - F.qos_load(path, 1.0) / s.checkpoint.catch_up_rate
    assert 0 < room and f"c/T = {room:.2%}" in text


def test_no_feasible_text_names_a_capacity_below_the_load(tmp_path):
    """Capacity at or below the day's peak: no checkpoint interval helps, and the text says so
    instead of a c/T bound (a negative one)."""
    path = _edited(tmp_path, S.TEMPLATE, ("catch_up_rate = 33000.0", "catch_up_rate = 8600.0"))
    s = S.load(path)
    point = {"scenario": path, "approach": "baseline", "T_s": 600.0, "baseline": "x"}
    row = F.frontier_point(point, None)
    assert row["infeasible_reason"] == F.BEHIND_Y and not row["feasible"]
    h = F.headlines(pd.DataFrame([{**point, **row}])).iloc[0]
    text = F.no_feasible_text(h, s)
    assert "no recovery ever catches up at that load" in text and "c/T =" not in text
    assert f"{F.qos_load(path, 1.0):,.0f} events/s" in text


def test_multilevel_remote_interval_fails_on_t_over_p2():
    """x20m LOW 6: the remote interval of a two-level point is m T, m = ceil(1/p2) (a remote
    checkpoint every m-th interval, the level law of the loss and cost), not T / p2: at T = 30 s
    and p1 = 0.6 (p2 = 0.4) it is 90 s, not 75 s, in the label and in the QoS recovery of a
    node failure (the worst moment of the last of m intervals)."""
    s = S.load("khaos_ysb")
    row = F.multilevel_point({"scenario": "khaos_ysb", "T_s": 30.0, "p1": 0.6}, None)
    assert row["label"] == "T=30s p1=0.6 (remote every 90s)"
    assert F.multilevel_label(30.0, 0.0) == "T=30s p1=0"  # single-level: T is remote
    qjob = F.catch_up(F.qos_job({"scenario": "khaos_ysb"}, s), row["checkpoint_share"], "blocking")
    down = F.worst_wait_s(s, "single", s.resources.standby_nodes) + s.checkpoint.remote_restart_s
    assert row["recovery_single_s"] == pytest.approx(
        R.expected_recovery_s(90.0, down, qjob, "worst")
    )
    assert row["recovery_single_s"] != pytest.approx(
        R.expected_recovery_s(75.0, down, qjob, "worst")
    )


# -- mutants of the decision logic the tests above let through (x20m mutation testing) --------
def test_baselines_fail_on_swapped_labels():
    """The Young/Daly baseline is the first-order interval of the one-level system, the
    production default PRODUCTION_INTERVAL_S, in baseline_intervals and in the grid's points
    (the grid test checked the labels only: swapped values passed)."""
    from multilevel.optimize import first_order_interval

    s = S.load("khaos_ysb")
    daly = first_order_interval(S.to_multilevel(s, levels=1), daly=True)
    assert daly != pytest.approx(F.PRODUCTION_INTERVAL_S)
    assert F.baseline_intervals(s) == {
        "Young/Daly": pytest.approx(daly),
        "production default": F.PRODUCTION_INTERVAL_S,
    }
    kwargs = dict.fromkeys(("intervals_s", "p1_values", "ch_max_values", "b_log_values"), [])
    kwargs |= dict.fromkeys(("cis_s", "fractions", "extra_standby"), [])
    points = F.grid(["khaos_ysb"], **kwargs, draws=1, approaches=("baseline",))
    assert {p["baseline"]: p["T_s"] for p in points} == F.baseline_intervals(s)


def test_qos_columns_and_headlines_fail_on_the_wrong_criterion():
    """meets_qos_single leaves correlated failures out, meets_qos does not (_finish); the
    headlines' cheapest QoS point reads meets_qos_single (cross_interval's criterion, as the
    finding's words say) and the best checkpoint-only point stays below MAX_OVERHEAD."""
    s = S.load("khaos_iot")
    limit = s.qos.recovery_s
    row = {
        "label": "x",
        "overhead": 0.1,
        **{f"loss_{k}_s": 1.0 for k in F.KINDS},
        "recovery_process_s": 0.5 * limit,
        "recovery_single_s": limit,
        "recovery_correlated_s": 2 * limit,
    }
    done = F._finish(dict(row), s)
    assert done["feasible"] and done["meets_qos_single"] and not done["meets_qos"]
    base = {"scenario": "khaos_iot", "feasible": True, "infeasible_reason": ""}
    runs = pd.DataFrame(
        [
            {**base, "approach": "baseline", "label": "a", "T_s": 60.0, "overhead": 0.05},
            {**base, "approach": "incremental", "label": "+1 standby", "overhead": 0.5},
            {**base, "approach": "fastrecover", "label": "CH_max=9", "overhead": 1.0},
            {**base, "approach": "ppa", "label": "PPA-1", "fraction": 1.0, "overhead": 0.9},
        ]
    ).assign(
        unavailability_s_per_h=[100.0, 50.0, 10.0, 20.0],
        meets_qos=[False, True, False, False],
        meets_qos_single=[True, True, False, False],
    )
    h = F.headlines(runs).iloc[0]
    assert h["cheapest_qos"] == f"{F.SINGLE_LEVEL} T=60s"  # not incremental (meets_qos)
    assert h["best_checkpoint"] == f"{F.SINGLE_LEVEL} T=60s"  # not FastRecover at overhead 1
    assert (h["ppa1_s_per_h"], h["infeasible_points"], h["infeasible_reasons"]) == (20.0, 0, "")
