"""incremental engine benchmark (make bench): wall-clock tuples/s of the in-process engine,
failure-free, with and without order-preserving processing and adaptive buffering switched on
(Appendix C.1 compares the two modes). Reported, not asserted."""

import io
import os
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import numpy as np
import pytest

from incremental.engine import Engine, EngineConfig, Source, Topology, WindowCount

N = 20_000  # records over 10 s of event time


def engine(order_preserving: bool) -> Engine:
    # Appendix C, Fig 17: a source, two sliding-window counts with parallelism 4.
    topology = Topology(
        [
            Source(name="source"),
            WindowCount(
                name="win1", input="source", parallelism=4, size=1.0, slide=0.5, output=True
            ),
            WindowCount(
                name="win2", input="source", parallelism=4, size=2.0, slide=1.0, output=True
            ),
        ]
    )
    rng = np.random.default_rng(0)
    ts = np.sort(rng.uniform(0, 10, N))
    keys = rng.zipf(1.5, N) % 1000
    records = [(float(t), int(k), None) for t, k in zip(ts, keys, strict=True)]
    nodes = {f"n{i}": 2.0 for i in range(5)}
    placement = {pid: f"n{i % 5}" for i, pid in enumerate(topology.partitions)}
    built = Engine(
        topology,
        {"source": records},
        nodes=nodes,
        placement=placement,
        end=10.0,
        rng=np.random.default_rng(1),
        config=EngineConfig(checkpoint_interval=2.0),
    )
    if order_preserving:  # as during an incremental recovery
        for partition in built.parts.values():
            partition.order_preserving = True
            partition.buffering = True
    return built


@pytest.mark.parametrize("order_preserving", [False, True])
def test_engine_tuples_per_second(benchmark, order_preserving):
    def once():
        began = time.perf_counter()
        result = engine(order_preserving).run()
        return result, time.perf_counter() - began

    result, seconds = benchmark.pedantic(once, rounds=3, iterations=1)
    rate = result.processed / seconds
    benchmark.extra_info.update({"tuples_per_s": rate, "processed": result.processed})
    mode = "order-preserving + buffering" if order_preserving else "arrival order"
    print(f"\nengine, {mode}: {result.processed} tuples in {seconds:.2f} s = {rate:,.0f} tuples/s")


def test_engine_recovery_cpu_seconds(benchmark):
    """A representative notebook run: Fig 9 (15 queries on 10 nodes), 8 nodes killed at 80 s,
    incremental recovery as new nodes arrive, plus a failure during the recovery (INC10). CPU
    seconds of this process, robust to other load on the machine (unlike the wall clock)."""
    from incremental import timelines

    def once():
        rng = np.random.default_rng(0)
        began = time.process_time()
        _, result = timelines.fig9_run(
            scheme="incremental",
            killed=timelines.FAILURE_SETS["all"],
            rate=4.0,
            rho=timelines.RHO,
            acquisition=timelines.acquisition_times(9, rng),
            t_fail=80.0,
            end=300.0,
            rng=rng,
            later=timelines.DURING_RECOVERY["buffer holder"],
        )
        return result, time.process_time() - began

    result, cpu = benchmark.pedantic(once, rounds=3, iterations=1)
    benchmark.extra_info.update({"cpu_seconds": cpu, "processed": result.processed})
    print(
        f"\nengine, Fig 9 recovery: {result.processed} tuples in {cpu:.2f} CPU s "
        f"= {result.processed / cpu:,.0f} tuples per CPU s"
    )


BASELINE = os.environ.get("ENGINE_BASELINE", "453feb0")  # the engine before issue 19's speed-up
ROUNDS = 5
FIG9_RUNS = """
import time, numpy as np
from incremental import timelines
began = time.process_time()
for seed, scheme, later in [(0, "incremental", "buffer holder"), (1, "blocking", "none"),
                            (2, "bestcase", "none")]:
    rng = np.random.default_rng(seed)
    timelines.fig9_run(scheme=scheme, killed=timelines.FAILURE_SETS["all"], rate=1.0,
        rho=timelines.RHO, acquisition=timelines.acquisition_times(9, rng), t_fail=80.0,
        end=560.0, rng=rng, later=timelines.DURING_RECOVERY[later])
print(time.process_time() - began)
"""


def test_engine_against_a_baseline_revision(benchmark, tmp_path):
    """The engine against its code at git revision ``$ENGINE_BASELINE`` (default: before issue
    19's speed-up) on three Fig 9 runs (one per scheme, full-profile size), each side in a fresh
    process, alternated ROUNDS times so that both see the same load: CPU seconds and the
    new/old ratio (median and min over rounds). Reported, not asserted; skipped without git or
    the revision (a shallow clone)."""
    root = Path(__file__).resolve().parents[2]
    try:
        archive = subprocess.run(
            ["git", "-C", str(root), "archive", BASELINE, "incremental"],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip(f"git revision {BASELINE} not available")
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(tmp_path, filter="data")

    def cpu(path):
        env = {**os.environ, "PYTHONPATH": str(path)}  # run in path: `-c` puts the cwd first
        out = subprocess.run(
            [sys.executable, "-c", FIG9_RUNS],
            env=env,
            cwd=path,
            capture_output=True,
            text=True,
            check=True,
        )
        return float(out.stdout)

    old, new = [], []
    for _ in range(ROUNDS):
        old.append(cpu(tmp_path))
        new.append(cpu(root))
    ratios = sorted(n / o for n, o in zip(new, old, strict=True))
    figures = {
        "old CPU s (median)": statistics.median(old),
        "new CPU s (median)": statistics.median(new),
        "new/old (median of rounds)": statistics.median(ratios),
        "new/old (min of rounds)": ratios[0],
    }
    benchmark.extra_info.update(figures)
    print(f"\nengine vs {BASELINE}, 3 Fig 9 runs, {ROUNDS} alternated rounds:")
    print("\n".join(f"  {k}: {v:.3f}" for k, v in figures.items()))
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
