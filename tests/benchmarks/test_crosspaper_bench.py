"""crosspaper benchmarks (make bench): a PPA point of cross_frontier's sweeps with its plan
remembered (crosspaper.frontier._plan, as every point after a worker's first one of that
topology) against one that searches the plan again (as every point did before); multilevel's
level-2 recovery (crosspaper.recovery.expected_recovery_s at keep 0.01, the costliest call of
its points) against the full quadrature it replaced; the longest interval meeting the QoS limit
(crosspaper.frontier.qos_interval, every headline row of the main, sensitivity and decision-map
grids, on the driver) as one array over the 3,600 intervals against the scan of one interval at
a time it replaced; the decision map's failure rates rescaled (frontier.rescaled) against every
point computed at its rate; cross_correlated's QoS intervals with one placement pass shared by
the variants against one per variant. Reported, not asserted."""

import math
import time

import numpy as np
import pandas as pd
import pytest

from crosspaper import frontier
from crosspaper import recovery as R
from crosspaper import scenarios as S
from tests.benchmarks.speedup import record_speedup

POINT = {"scenario": "khaos_iot", "approach": "ppa", "fraction": 0.5, "draws": 30}


def _point():
    return frontier.frontier_point(POINT, np.random.default_rng(0))


def test_ppa_point_with_its_plan_remembered(benchmark):
    _point()  # imports and the scenario's loading out of the timing
    frontier._PLANS.clear()
    began = time.perf_counter()
    fresh = _point()  # searches the plan, as every PPA point did before
    searched = time.perf_counter() - began
    remembered = benchmark(_point)
    assert remembered == fresh
    record_speedup(
        benchmark, searched, "PPA point (khaos_iot, PPA-0.5), plan remembered", "searching it"
    )


def _full_quadrature(interval_s, down_s, job, keep):
    """The expectation as every (G, moment) cell of the grid, as computed before."""
    moments, weights = R.lost_work(interval_s, "uniform")
    g = np.arange(1, 1 + R.remote_every(keep))  # the level law: G uniform on 1..ceil(1/keep)
    pg = np.ones(g.size)
    grid = R.recovery_s(moments[None, :] + ((g - 1) * interval_s)[:, None], down_s, job)
    return float(pg / pg.sum() @ grid @ weights)


def test_multilevel_level2_recovery_against_the_full_quadrature(benchmark):
    # cross_frontier's multilevel point at T = 5 s, p1 = 0.99 on khaos_iot: a node failure
    # loses G - 1 intervals more, G uniform on 1..100 (100 rows of 256 moments).
    s = S.load("khaos_iot")
    job, down, keep = R.job_of(s), s.checkpoint.remote_restart_s + 240.0, 0.01
    began = time.perf_counter()
    full = _full_quadrature(5.0, down, job, keep)
    before = time.perf_counter() - began
    fast = benchmark(R.expected_recovery_s, 5.0, down, job, "uniform", keep)
    assert fast == pytest.approx(full, rel=1e-12)
    record_speedup(
        benchmark, before, "multilevel level-2 recovery (T 5 s, keep 0.01)", "full quadrature"
    )


def _scanned_qos_interval(params):
    """frontier.qos_interval as computed before: one interval at a time, from the longest down,
    each through the QoS's _single_level (a catch_up job per interval)."""
    s, _ = frontier.scenario_of(params)
    job, standby = frontier.qos_job(params, s), s.resources.standby_nodes
    kinds = [k for k, v in frontier.per_hour(s).items() if v > 0 and k != "correlated"]
    reading, c = frontier.cost_reading(params), s.checkpoint.remote_cost_s

    def meets(T: int) -> bool:
        busy = c / T
        if not frontier.progresses(busy):
            return False
        at_T = (frontier.catch_up(job, busy, reading),)
        rec = frontier._single_level(s, float(T), "qos", standby, at_T)
        return all(rec[k] <= s.qos.recovery_s for k in kinds)

    intervals = range(frontier.MAX_INTERVAL_S, 0, -1)
    return next((float(T) for T in intervals if meets(T)), math.nan)


@pytest.mark.parametrize("reading", frontier.COST_READINGS)
def test_qos_interval_in_one_array_against_the_scan(benchmark, reading):
    # khaos_iot: none under the blocking reading (every interval scanned), 28 s under async
    params = {"scenario": "khaos_iot", "cost_reading": reading}
    frontier.qos_interval(params)  # imports and the scenario's loading out of the timing
    frontier._expected_recovery_s.cache_clear()
    began = time.perf_counter()
    scanned = _scanned_qos_interval(params)
    before = time.perf_counter() - began
    fast = benchmark(frontier.qos_interval, params)
    assert fast == scanned or (math.isnan(fast) and math.isnan(scanned))
    record_speedup(benchmark, before, f"QoS interval (khaos_iot, {reading})", "interval scan")


MAP_GRID = dict(
    intervals_s=[10.0, 60.0, 600.0],
    p1_values=[0.0, 0.9],
    ch_max_values=[1.0],
    b_log_values=[None],
    cis_s=[30, 120],
    fractions=[0.5],
    extra_standby=[0],
    draws=3,
)


def _swept(points) -> pd.DataFrame:
    rows = [{**p, **frontier.frontier_point(p, np.random.default_rng(0))} for p in points]
    return pd.DataFrame(rows)


def test_decision_map_rates_rescaled_against_every_point(benchmark):
    # cross_frontier's decision map on khaos_iot at 5 failure rates: multilevel's and khaos's
    # rows at rates other than 1 rescaled from their factor-1 rows (frontier.rescaled) against
    # every point computed at its own rate, as the sweep did before (both on warm caches)
    points = frontier.decision_points(["khaos_iot"], MAP_GRID, [0.1, 0.3, 1.0, 3.0, 10.0], [1.0])
    _swept(points)  # imports, loads and the per-process caches out of the timing
    began = time.perf_counter()
    every = _swept(points)
    before = time.perf_counter() - began
    fast = benchmark(lambda: frontier.rescaled(points, _swept(frontier.to_run(points))))
    assert np.allclose(fast["unavailability_s_per_h"], every["unavailability_s_per_h"], rtol=1e-12)
    assert fast["feasible"].tolist() == every["feasible"].tolist()
    record_speedup(benchmark, before, "decision-map rows, 5 rates (khaos_iot)", "every point")


def test_correlated_qos_intervals_with_shared_placement_waits(benchmark):
    # cross_correlated's qos_intervals over its decision map (25 rate x headroom variants, on the
    # driver): one placement pass (correlated._worst_downs) for every variant against one per
    # variant, as before
    from crosspaper import correlated as cc
    from crosspaper import correlated_map as cm

    name = "incremental_fig9"
    grid = cm.map_grid({"scenario": name, "k": 2}, [0.1, 0.3, 1.0, 3.0, 10.0], [0.3, 1.0, 3.0])
    limit = S.load(name).qos.recovery_s
    cm.qos_intervals(name, grid, limit)  # setups and optima out of the timing

    def per_variant():
        cc._worst_downs.cache_clear()
        cc._WAITS.clear()
        out = []
        for p in grid:  # the key of every variant its own, as before
            s = cm.variant(name, p["rate_factor"], p["headroom_factor"], p["cost_factor"])
            out.append(cc._placement_waits(s, 2, 1.0))
        return cm.qos_intervals(name, grid, limit), out

    began = time.perf_counter()
    old, _ = per_variant()
    before = time.perf_counter() - began

    def shared():
        cc._worst_downs.cache_clear()
        cc._WAITS.clear()
        return cm.qos_intervals(name, grid, limit)

    new = benchmark(shared)
    pd.testing.assert_frame_equal(new, old)
    record_speedup(benchmark, before, "cross_correlated qos_intervals (15 variants)", "per variant")
