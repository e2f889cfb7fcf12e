"""crosspaper.frontier: the Pareto front against brute force, the common-axis conversions against
their definitions, and each approach's point against a property its model must have."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from crosspaper import frontier as F
from crosspaper import scenarios as S
from multilevel.utilization import utilization
from pipeline.sweep import sweep


def brute_front(x, y) -> np.ndarray:
    ok = np.isfinite(x) & np.isfinite(y)
    out = np.zeros(len(x), dtype=bool)
    for i in np.flatnonzero(ok):
        dominated = ok & (x <= x[i]) & (y <= y[i]) & ((x < x[i]) | (y < y[i]))
        out[i] = not dominated.any()
    return out


values = st.sampled_from([0.0, 1.0, 2.0, 3.0, np.nan, np.inf])  # few values: many ties


@given(st.lists(st.tuples(values, values), min_size=0, max_size=25))
def test_pareto_front_equals_brute_force(points):
    x = np.array([p[0] for p in points], dtype=float)
    y = np.array([p[1] for p in points], dtype=float)
    np.testing.assert_array_equal(F.pareto_front(x, y), brute_front(x, y))


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
    for k, standby in [(1, 0), (8, 0), (8, 3), (2, 2)]:
        draws = [F.acquired(F.acquisition_draws(s, k, rng), standby) for _ in range(20_000)]
        mean = np.mean([d.max() if len(d) else 0.0 for d in draws])
        assert F.expected_wait_s(s, k, standby) == pytest.approx(mean, abs=1.5)
    assert F.expected_wait_s(s, 2, 2) == 0.0


def test_restart_is_restart_plus_linear_catch_up():
    s = S.load("khaos_ysb")
    c, a = s.checkpoint, s.topology.input_rate
    # The backlog a (T/2 + r) drains at capacity - a.
    expected = c.remote_restart_s + a * (c.interval_s / 2 + c.remote_restart_s) / (
        c.catch_up_rate - a
    )
    assert F.restart_s(s) == pytest.approx(expected)
    assert F.restart_s(s, 120.0) > F.restart_s(s, 10.0)


def test_multilevel_point_is_eq13_on_common_axes():
    s = S.load("khaos_ysb")
    system = S.to_multilevel(s)
    rows = [
        F.multilevel_point({"scenario": "khaos_ysb", "T_s": T, "p1": 0.8}, None)
        for T in (10.0, 60.0, 600.0)
    ]
    cost = 0.8 * s.checkpoint.local_cost_s + 0.2 * s.checkpoint.remote_cost_s
    for T, row in zip((10.0, 60.0, 600.0), rows, strict=True):
        assert row["overhead"] == pytest.approx(cost / T)
        u = float(utilization(T, np.array([0.8, 0.2]), system))
        # Overhead + failure loss + utilization account for all the time: U = U0 (1 - lost).
        lost = (row["unavailability_s_per_h"] - row["wait_s_per_h"]) / F.SECONDS_PER_HOUR
        assert u == pytest.approx((1 - cost / T) * (1 - lost), rel=1e-9)
    # Longer intervals: less overhead, more unavailability (past the optimum near 10-60 s).
    assert rows[0]["overhead"] > rows[1]["overhead"] > rows[2]["overhead"]
    assert rows[2]["unavailability_s_per_h"] > rows[1]["unavailability_s_per_h"]


def test_fastrecover_point_respects_budget_and_reports_infeasible():
    rng = np.random.default_rng(3)
    low = F.fastrecover_point({"scenario": "khaos_ysb", "ch_max": 1.0}, rng)
    assert not low["feasible"] and np.isnan(low["overhead"])  # source logging alone costs 41.6
    params = {"scenario": "khaos_ysb", "ch_max": 2.0, "b_log_kb_per_min": 2e6, "draws": 5}
    row = F.fastrecover_point(params, rng)
    assert row["feasible"] and row["own_ch_all"] <= 2.0 + 1e-9
    # Equal CPU per operator: the share is CH_all / n.
    assert row["overhead"] == pytest.approx(row["own_ch_all"] / 5)
    assert row["loss_single_s"] > S.load("khaos_ysb").checkpoint.local_restart_s
    more = F.fastrecover_point({**params, "ch_max": 8.0}, rng)
    assert more["unavailability_s_per_h"] <= row["unavailability_s_per_h"] + 1e-9


def test_khaos_point_longer_ci_recovers_longer_and_needs_a_workload():
    short = F.khaos_point({"scenario": "khaos_iot", "ci_s": 10}, None)
    long = F.khaos_point({"scenario": "khaos_iot", "ci_s": 120}, None)
    assert short["overhead"] == pytest.approx(5.0 / 10)
    assert long["loss_single_s"] > short["loss_single_s"]
    with pytest.raises(ValueError, match="khaos workload"):
        F.khaos_point({"scenario": "incremental_fig9", "ci_s": 60}, None)


def test_ppa_full_replication_loses_only_the_activation():
    seed = np.random.default_rng
    base = {"scenario": "khaos_iot", "draws": 8}
    none = F.ppa_point({**base, "fraction": 0.0}, seed(4))
    half = F.ppa_point({**base, "fraction": 0.5}, seed(4))
    full = F.ppa_point({**base, "fraction": 1.0}, seed(4))
    assert full["loss_single_s"] == pytest.approx(0.2)
    assert full["loss_correlated_s"] == pytest.approx(0.2)
    # Paired draws: replicating more never loses more output, and costs more.
    assert none["loss_correlated_s"] >= half["loss_correlated_s"] >= full["loss_correlated_s"]
    assert none["overhead"] < half["overhead"] < full["overhead"]
    # PPA-0 loses (1 - OF) of restart-long outputs: less than a whole-job restart.
    assert 0 < none["loss_single_s"] < F.restart_s(S.load("khaos_iot"))


def test_incremental_more_standby_never_loses_more():
    seed = np.random.default_rng
    rows = [
        F.incremental_point(
            {"scenario": "incremental_fig9", "extra_standby": e, "draws": 6}, seed(5)
        )
        for e in (0, 1, 4, 8)
    ]
    for a, b in zip(rows, rows[1:], strict=False):
        assert b["loss_correlated_s"] <= a["loss_correlated_s"] + 1e-9
        assert b["overhead"] > a["overhead"]
    s = S.load("incremental_fig9")
    # 8 standby nodes for 8 failed ones: every query back one restart after the failure.
    assert rows[-1]["loss_correlated_s"] <= F.restart_s(s) + 1e-9
    assert rows[-1]["own_unrecovered_queries"] == 0
    with pytest.raises(ValueError, match="extra_standby"):
        F.incremental_point({"scenario": "incremental_fig9", "extra_standby": -1}, seed(5))


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
    )
    table = pd.DataFrame(points)
    fig9 = table[table["scenario"] == "incremental_fig9"]
    assert set(fig9["approach"]) == {"multilevel", "ppa", "incremental"}  # no chain, no day
    ysb = table[table["scenario"] == "khaos_ysb"]
    assert set(ysb["approach"]) == set(F.APPROACHES)
    # T = 3 s is shorter than the remote checkpoint (5 s): skipped.
    assert ysb.loc[ysb["approach"] == "multilevel", "T_s"].tolist() == [60.0]
    # One standby already, two nodes fail: at most one extra.
    assert ysb.loc[ysb["approach"] == "incremental", "extra_standby"].tolist() == [0, 1]
    with pytest.raises(ValueError, match="draws"):
        F.grid(
            ["khaos_ysb"],
            **{
                **dict(
                    intervals_s=[],
                    p1_values=[],
                    ch_max_values=[],
                    b_log_values=[],
                    cis_s=[],
                    fractions=[],
                    extra_standby=[],
                ),
                "draws": 0,
            },
        )


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
