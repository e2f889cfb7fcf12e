"""khaos benchmarks (make bench): the detector over a 24-hour series (target < 30 s) and the
offline Tables II-III (target < 1 min). Figures are reported in extra_info and printed, never
asserted."""

from pathlib import Path

import numpy as np

from khaos import recovery_times, table2, table3
from khaos.data import load_experiment, load_failures
from khaos.detector import anomalies
from tests.khaos.synthetic import noise_run

DATA = Path(__file__).resolve().parents[2] / "data" / "khaos"


def test_detector_over_a_day(benchmark):
    """One model fitted on 1000 s, then every second of a 86,400-s day filtered, plus the
    recovery of 40 failures spread over the day (one fit each)."""
    run = noise_run(86_400, np.random.default_rng(0))
    failures = np.linspace(2_000, 84_000, 40).astype(int)

    def day():
        anomalies(run, 1_001)
        recovery_times(run, failures)

    benchmark.pedantic(day, rounds=3, iterations=1)
    seconds = benchmark.stats.stats.mean
    benchmark.extra_info["seconds"] = seconds
    print(f"\ndetector over 86,400 s (+40 recoveries): {seconds:.2f} s (target < 30 s)")


def test_offline_tables(benchmark):
    """Loading both experiments and building Tables II and III (the YSB detector included)."""

    def tables():
        iot, ysb = load_experiment(DATA, "iot"), load_experiment(DATA, "ysb")
        return table2(iot, load_failures(DATA)), table3(ysb)

    benchmark.pedantic(tables, rounds=2, iterations=1)
    seconds = benchmark.stats.stats.mean
    benchmark.extra_info["seconds"] = seconds
    print(f"\nTables II-III offline: {seconds:.2f} s (target < 60 s)")
