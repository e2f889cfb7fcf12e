"""multilevel benchmarks (make bench): U evaluation rate, one table row's optimum, Fig. 12 at
paper scale on Spark. Figures are reported in extra_info and printed, never asserted."""

import time

import numpy as np

from multilevel import experiments
from multilevel.optimize import optimal
from multilevel.settings import FIG12_COST, FIG12_DELTA, FIG12_LAMBDA, fig12_system, table2_system
from multilevel.simulate import simulate
from multilevel.utilization import utilization
from pipeline.spark import get_spark
from pipeline.sweep import sweep


def test_utilization_points_per_second(benchmark):
    system = table2_system(0.1, 20)
    rng = np.random.default_rng(0)
    points = 1_000_000
    w = rng.uniform(0.05, 1, size=(points, 3))
    p = w / w.sum(axis=1, keepdims=True)
    T = p @ np.asarray(system.c) + rng.uniform(10, 1000, size=points)
    benchmark(utilization, T, p, system)
    rate = points / benchmark.stats.stats.mean
    benchmark.extra_info["points_per_second"] = rate
    print(f"\nU of Eq. (13), 3 levels: {rate:.3g} points/s")


def test_one_table2_row_optimum(benchmark):
    """A Table 2 row: the 3-level optimum and the 2-level (p2 = 0) one."""
    system = table2_system(0.1, 20)
    benchmark(lambda: (optimal(system), optimal(system, zero_levels=(2,))))
    print(f"\nTable 2 row (two optima): {1000 * benchmark.stats.stats.mean:.1f} ms")


def test_one_simulated_run_of_fig12_length(benchmark):
    system = fig12_system(10)
    best = optimal(system)
    rng = np.random.default_rng(1)
    horizon = 1000 / FIG12_LAMBDA[2] * 86_400
    simulate(best.T, best.p, system, 1e4, rng)  # compile
    benchmark(simulate, best.T, best.p, system, horizon, rng)
    print(f"\nOne run of 1000/λ3 days: {1000 * benchmark.stats.stats.mean:.1f} ms")


def test_fig12_full_profile_on_two_cores(benchmark, tmp_path):
    """The full profile of Fig. 12: 4 n x 6 intervals x 100 runs of 1000/λ3 days, on Spark."""
    spark = get_spark("local[2]")
    lam, cost = list(FIG12_LAMBDA), list(FIG12_COST)
    grid = []
    for n in (1, 10, 50, 100):
        best = optimal(fig12_system(n))
        grid += [
            {
                "lam_per_day": lam,
                "c": cost,
                "r": cost,
                "n": n,
                "delta": FIG12_DELTA,
                "T": f * best.T,
                "p": list(best.p),
                "horizon_days": 1000 / lam[2],
            }
            for f in (0.5, 0.75, 1.0, 1.5, 2.0, 3.0)
        ]
    began = time.perf_counter()
    sweep(
        "bench_fig12",
        grid,
        experiments.simulation_point,
        100,
        spark=spark,
        progress=False,
        results_dir=tmp_path,
    )
    seconds = time.perf_counter() - began
    benchmark.extra_info["seconds"] = seconds
    print(f"\nFig. 12 full profile (2400 runs): {seconds:.1f} s on local[2]")
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
