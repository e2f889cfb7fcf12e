"""Pipeline benchmarks (make bench): Spark start-up, sweep overhead, and 2-core speed-up.

Figures are reported, never asserted: ratios come from runs in the same process.
"""

import time

from pipeline.spark import get_spark, stop_spark
from pipeline.sweep import sweep
from tests.pipeline import sweep_fns


def test_spark_session_startup(benchmark):
    def start():
        stop_spark()
        get_spark("local[2]")

    benchmark.pedantic(start, rounds=2, iterations=1)


def test_trivial_sweep_of_1000_points(benchmark, tmp_path):
    spark = get_spark("local[2]")
    grid = [{"i": i} for i in range(1000)]
    runs = iter(range(100))

    def run():  # a fresh results folder each round: nothing cached
        sweep(
            "trivial",
            grid,
            sweep_fns.trivial,
            spark=spark,
            progress=False,
            results_dir=tmp_path / str(next(runs)),
        )

    benchmark.pedantic(run, rounds=3, iterations=1)
    benchmark.extra_info["points"] = len(grid)


def test_cpu_bound_sweep_speedup_on_two_cores(benchmark, tmp_path):
    """About 10 s of work on one core, best of two runs per core count."""
    grid = [{"repeats": 20, "k": k} for k in range(192)]
    seconds = {}
    for cores in (1, 2):
        stop_spark()
        spark = get_spark(f"local[{cores}]")
        warm = [{"repeats": 1, "k": k} for k in range(4 * cores)]  # start every Python worker
        sweep(
            "warm",
            warm,
            sweep_fns.busy,
            spark=spark,
            progress=False,
            results_dir=tmp_path / f"warm{cores}",
        )
        times = []
        for run in range(2):
            began = time.perf_counter()
            sweep(
                "busy",
                grid,
                sweep_fns.busy,
                spark=spark,
                progress=False,
                results_dir=tmp_path / f"busy{cores}-{run}",
            )
            times.append(time.perf_counter() - began)
        seconds[cores] = min(times)
    stop_spark()
    ratio = seconds[1] / seconds[2]
    benchmark.extra_info.update(
        {"seconds_1_core": seconds[1], "seconds_2_cores": seconds[2], "speedup": ratio}
    )
    print(
        f"\nCPU-bound sweep: 1 core {seconds[1]:.2f} s, 2 cores {seconds[2]:.2f} s, "
        f"speed-up {ratio:.2f}x"
    )
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
