"""crosspaper benchmarks (make bench): a PPA point of cross_frontier's sweeps with its plan
remembered (crosspaper.frontier._plan, as every point after a worker's first one of that
topology) against one that searches the plan again (as every point did before); multilevel's
level-2 recovery (crosspaper.recovery.expected_recovery_s at keep 0.01, the costliest call of
its points) against the full quadrature it replaced; the longest interval meeting the QoS limit
(crosspaper.frontier.qos_interval, every headline row of the main, sensitivity and decision-map
grids, on the driver) as one array over the 3,600 intervals against the scan of one interval at
a time it replaced. Reported, not asserted."""

import math
import time

import numpy as np
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
