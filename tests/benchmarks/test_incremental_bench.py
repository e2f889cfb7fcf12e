"""incremental benchmarks (make bench): BestDensity on 18 failed queries (target < 10 ms) and the
exact optimum for 18 queries by Algorithm 4 and by the MILP (target < 1 s). Reported, not
asserted."""

import time

import numpy as np

from incremental.best_density import schedule_best_density
from incremental.experiments import level_rows
from incremental.instances import Fig16Setting, fig16_instance
from incremental.milp import schedule_milp
from incremental.schedule_dp import schedule_dp
from tests.benchmarks.speedup import record_speedup
from tests.incremental.reference import former_level_rows

SETTINGS = {
    "max_share 3": Fig16Setting(),
    "max_share 6, s 0.5": Fig16Setting(max_share=6, zipf_s=0.5),
}
SHARES = (0.2, 0.5, 0.8, 1.0)  # Fig 16's x: R over the failed partitions' total cost


def _instances():
    for name, setting in SETTINGS.items():
        for seed in range(5):
            problem = fig16_instance(setting, np.random.default_rng(seed))
            for share in SHARES:
                yield name, problem, share * problem.cost_array.sum()


def _worst(scheduler) -> float:
    worst = 0.0
    for _, problem, R in _instances():
        began = time.perf_counter()
        scheduler(problem, R)
        worst = max(worst, time.perf_counter() - began)
    return worst


def test_best_density_on_18_failed_queries(benchmark):
    problem = fig16_instance(Fig16Setting(), np.random.default_rng(0))
    benchmark(schedule_best_density, problem, 0.5 * problem.cost_array.sum())
    worst = _worst(schedule_best_density)
    benchmark.extra_info.update({"ms": 1000 * benchmark.stats.stats.mean, "worst_ms": 1000 * worst})
    print(
        f"\nBestDensity, 18 queries, R = 50%: {1000 * benchmark.stats.stats.mean:.2f} ms; "
        f"worst over {len(SETTINGS) * 5 * len(SHARES)} instances and budgets {1000 * worst:.2f} ms "
        f"(target < 10 ms)"
    )


def test_exact_optimum_for_18_queries(benchmark):
    problem = fig16_instance(Fig16Setting(), np.random.default_rng(0))
    R = 0.8 * problem.cost_array.sum()
    benchmark.pedantic(schedule_dp, (problem, R), rounds=3, iterations=1)
    figures = {"dp_worst_s": _worst(schedule_dp), "milp_worst_s": _worst(schedule_milp)}
    began = time.perf_counter()
    schedule_milp(problem, R)
    figures["milp_s"] = time.perf_counter() - began
    figures["dp_s"] = benchmark.stats.stats.mean
    benchmark.extra_info.update(figures)
    print("\n" + "\n".join(f"  {k}: {v:.3f} (target < 1 s)" for k, v in figures.items()))


def test_fig16_levels_against_a_call_per_start_and_level(benchmark):
    # fig16_point's scheduling of one instance at the notebook's ten levels: BestDensity's two
    # starts from one greedy pass and one Algorithm 4 run for the checked levels, against a call
    # per start and per level (the same rows)
    problem = fig16_instance(Fig16Setting(max_share=6, zipf_s=0.5), np.random.default_rng(0))
    grid = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    began = time.perf_counter()
    for _ in range(5):
        former = former_level_rows(problem, grid)
    before = (time.perf_counter() - began) / 5
    assert benchmark(level_rows, problem, grid) == former
    record_speedup(benchmark, before, "Fig 16 levels of one instance", "a call per start and level")
