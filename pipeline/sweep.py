"""Parameter sweeps as Spark jobs, with deterministic seeds and a resumable Parquet cache.

A sweep runs ``fn(params, rng)`` for every point of a grid (a list of dicts) and every iteration
``0 .. iterations-1``. ``fn`` must be a pure, picklable function (defined in a package module,
not in a notebook) returning a dict (one row) or a list of dicts (several rows).

Seeds: the generator of each (point, iteration) comes from
``SeedSequence(seed, spawn_key=(experiment, point, iteration))`` where experiment and point are
stable hashes of the experiment name and of the point's parameters. A result therefore never
depends on partitioning, executor count, run order, or the point's position in the grid. With
``common_random_numbers=True`` the point is left out of the key: iteration i draws the same
numbers at every point (the same random topology or failure draws along a line), so differences
between points can be judged on paired data.

Cache: every finished point is written at once to
``data/results/<experiment>/<key>.parquet``, where the key hashes the parameters, the iteration
count, the seed and the code version (by default a hash of the source of ``fn``'s module and of
every project module it imports, transitively: ``source_files``). Rerunning skips finished
points, so an interrupted sweep resumes where it stopped.

Points run in batches, one Spark job per batch; batch sizes adapt to the measured task time so
that each job lasts a few seconds, which keeps the progress bar and the cache current without
paying Spark's per-job overhead for every point.
"""

import gc
import hashlib
import inspect
import json
import logging
import os
import re
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from tqdm import tqdm

from pipeline import paths
from pipeline.files import temporary_beside
from pipeline.imports import import_closure

log = logging.getLogger(__name__)

SweepFn = Callable[[dict, np.random.Generator], dict | list[dict]]

_EXPERIMENT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
TARGET_BATCH_SECONDS = 5.0
IN_FLIGHT = 2  # batch jobs queued at once: cores never wait for the driver between batches


class SweepError(RuntimeError):
    """A sweep function failed at some points; finished points are cached all the same."""


@dataclass(frozen=True)
class _Point:
    index: int
    params: dict
    key: int  # stable hash of the parameters, part of the seed
    file: Path


def _canonical(value: Any) -> Any:
    """JSON-able, order-stable form of a parameter value (numpy scalars and tuples included)."""
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in sorted(value.items())}
    if isinstance(value, list | tuple | np.ndarray):
        return [_canonical(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise ValueError(
        f"sweep parameters must be numbers, strings, booleans, None, lists or dicts; "
        f"got {type(value).__name__}: {value!r}"
    )


def _digest(*parts: Any) -> str:
    text = json.dumps([_canonical(p) for p in parts], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _hash63(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:15], 16)


def source_files(fn: Callable, roots: Sequence[Path] | None = None) -> list[Path]:
    """The source files whose content versions ``fn``: its module and every project module it
    imports, transitively (``pipeline.imports.import_closure``).

    A changed model invalidates the sweeps that import it, and nothing else: editing the
    notebook runner or a verdict rule keeps every cached point. A module outside the project
    (``roots``, default the project root and the folder of ``fn``'s top-level package) counts
    by its own file.
    """
    module = sys.modules.get(getattr(fn, "__module__", None) or "")
    file = getattr(module, "__file__", None)
    if file is None:
        return []
    if roots is None:
        depth = module.__name__.count(".") + (Path(file).name == "__init__.py")
        roots = list(dict.fromkeys([paths.ROOT, Path(file).resolve().parents[depth]]))
    return import_closure([module.__name__], roots) or [Path(file)]


def code_version(fn: Callable, roots: Sequence[Path] | None = None) -> str:
    """Hash of ``fn``'s name and its source files (``source_files``), or of its own source."""
    digest = hashlib.sha256(getattr(fn, "__qualname__", repr(fn)).encode())
    files = source_files(fn, roots)
    for file in files:
        digest.update(file.read_bytes())
    if not files:
        try:
            digest.update(inspect.getsource(fn).encode())
        except (OSError, TypeError):
            pass
    return digest.hexdigest()[:16]


_FROZEN: set = set()  # sweep functions after whose first run this process froze the GC


def _freeze_after_first_run(fn: SweepFn) -> None:
    """Move every object alive now (the modules ``fn`` imported, numba's loaded kernels) out of
    the garbage collector's reach, once per function and process. A reused PySpark worker runs a
    full ``gc.collect()`` after every task (partition): with NumPy, pandas, pyarrow and numba
    loaded that scans about 160,000 objects, some 35-70 ms per partition, which frozen objects
    skip. A collection just before the freeze frees the first run's cyclic garbage, so only
    live objects are frozen: no object is kept longer than it would be, and no result can move."""
    key = getattr(fn, "__module__", None), getattr(fn, "__qualname__", repr(fn))
    if key not in _FROZEN:
        _FROZEN.add(key)
        gc.collect()
        gc.freeze()


def _run_task(fn: SweepFn, seed: int, experiment_key: int, task: tuple) -> tuple:
    """Executor side: one (point, iteration); errors come back as data, not as a JVM trace."""
    index, point_key, iteration, params = task
    rng = np.random.default_rng(
        np.random.SeedSequence(seed, spawn_key=(experiment_key, point_key, iteration))
    )
    try:
        out = fn(params, rng)
    except Exception as exc:  # reported on the driver with the point that failed
        return index, iteration, None, f"{type(exc).__name__}: {exc}", traceback.format_exc()
    _freeze_after_first_run(fn)
    rows = [out] if isinstance(out, dict) else out
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        return index, iteration, None, f"returned {type(out).__name__}, not dict or list", ""
    return index, iteration, rows, None, None


def _validate(experiment: str, grid: Sequence[dict], fn: Any, iterations: int) -> None:
    if not isinstance(experiment, str) or not _EXPERIMENT_NAME.match(experiment):
        raise ValueError(
            f"experiment must be a name of letters, digits, '_', '.', '-'; got {experiment!r}"
        )
    if not isinstance(grid, Sequence) or not all(isinstance(p, dict) for p in grid):
        raise ValueError("grid must be a list of dicts (one dict of parameters per point)")
    if not callable(fn):
        raise ValueError(f"fn must be callable fn(params, rng); got {type(fn).__name__}")
    if isinstance(iterations, bool) or not isinstance(iterations, int | np.integer):
        raise ValueError(f"iterations must be an integer >= 1; got {iterations!r}")
    if iterations < 1:
        raise ValueError(f"iterations must be an integer >= 1; got {iterations}")


def _table(point: _Point, iterations: int, results: dict[int, list[dict]]) -> pa.Table:
    records = []
    for iteration in range(iterations):
        for row in results[iteration]:
            clash = (set(row) & set(point.params)) | ({"iteration"} & set(row))
            if clash:
                raise SweepError(
                    f"sweep function output {sorted(clash)} clashes with parameter names"
                )
            records.append({**point.params, "iteration": iteration, **row})
    return pa.Table.from_pylist(records)


def _write_atomic(table: pa.Table, file: Path) -> None:
    tmp = temporary_beside(file)
    pq.write_table(table, tmp)
    os.replace(tmp, file)


def sweep(
    experiment: str,
    grid: Sequence[dict],
    fn: SweepFn,
    iterations: int = 1,
    *,
    seed: int = 0,
    version: str | None = None,
    spark=None,
    partitions: int | None = None,
    results_dir: Path | None = None,
    progress: bool = True,
    common_random_numbers: bool = False,
) -> pd.DataFrame:
    """Run ``fn`` over ``grid`` x ``iterations`` as Spark jobs; return all rows as a DataFrame.

    Parameters
    ----------
    experiment: name of the results folder ``data/results/<experiment>/`` and part of every seed.
    grid: one dict of parameters per point (values: numbers, strings, bools, None, lists, dicts).
    fn: pure picklable ``fn(params, rng) -> dict | list[dict]``; output keys must not repeat
        parameter names or ``iteration``.
    iterations: independent repetitions per point, each with its own generator.
    seed: root of every random draw of the sweep.
    version: code version for the cache key; default :func:`code_version` of ``fn``.
    spark: a SparkSession; default :func:`pipeline.spark.get_spark`.
    partitions: Spark partitions per job; default four per core (results never depend on it).
    results_dir: default :func:`pipeline.paths.results_dir`.
    progress: draw a progress bar on the driver.
    common_random_numbers: seed by (experiment, iteration) only, the same draws at every point.

    Returns the rows of every point in grid order, iterations in order: the parameters, an
    ``iteration`` column, then ``fn``'s outputs. Raises SweepError naming the first failing point
    after caching every point that finished.
    """
    _validate(experiment, grid, fn, iterations)
    version = version or code_version(fn)
    folder = Path(results_dir or paths.results_dir()) / experiment
    points = []
    for index, params in enumerate(grid):
        canonical = _canonical(params)
        name = _digest(canonical, iterations, seed, version, common_random_numbers)[:24]
        key = 0 if common_random_numbers else _hash63(_digest(canonical))
        points.append(_Point(index, dict(params), key, folder / f"{name}.parquet"))
    missing = [p for p in points if not p.file.exists()]
    if missing:
        log.info("%s: %d of %d points to compute", experiment, len(missing), len(points))
        _compute(
            experiment, missing, fn, iterations, seed, spark, partitions, progress, len(points)
        )
    return _read(points)


def _compute(experiment, missing, fn, iterations, seed, spark, partitions, progress, n_points):
    if spark is None:
        from pipeline.spark import get_spark

        spark = get_spark()
    sc = spark.sparkContext
    parallelism = max(1, sc.defaultParallelism)
    experiment_key = _hash63(experiment)

    def run_job(batch: list[_Point]) -> tuple[list, float]:
        tasks = [(p.index, p.key, it, p.params) for p in batch for it in range(iterations)]
        began = time.perf_counter()
        outputs = (
            sc.parallelize(tasks, partitions or min(len(tasks), 4 * parallelism))
            .map(lambda task: _run_task(fn, seed, experiment_key, task))
            .collect()
        )
        return outputs, time.perf_counter() - began

    failures: list[tuple] = []
    batch_tasks = 2 * parallelism  # the first batches are small, to measure the task time
    start = 0
    pending: deque = deque()
    bar = tqdm(
        total=n_points * iterations,
        initial=(n_points - len(missing)) * iterations,
        desc=experiment,
        unit="run",
        disable=not progress,
    )
    with bar, ThreadPoolExecutor(IN_FLIGHT) as pool:
        try:
            while start < len(missing) or pending:
                while start < len(missing) and len(pending) < IN_FLIGHT:
                    stop = min(len(missing), start + max(1, batch_tasks // iterations))
                    if (len(missing) - stop) * iterations < batch_tasks // 2:
                        stop = len(missing)  # a short last batch would leave cores idle
                    pending.append((missing[start:stop], pool.submit(run_job, missing[start:stop])))
                    start = stop
                batch, job = pending.popleft()
                outputs, seconds = job.result()
                failures += _store(batch, outputs, iterations)
                bar.update(len(batch) * iterations)
                batch_tasks = next_batch_tasks(len(batch) * iterations, seconds, parallelism)
        except BaseException:
            sc.cancelAllJobs()  # an interrupt or error stops the queued batches too
            raise
    if failures:
        params, iteration, error, trace = failures[0]
        log.error("sweep %s failed at %s iteration %d:\n%s", experiment, params, iteration, trace)
        raise SweepError(
            f"{experiment}: fn failed at {len(failures)} point(s); first at {params} "
            f"iteration {iteration}: {error}"
        )


def next_batch_tasks(tasks: int, seconds: float, parallelism: int) -> int:
    """Tasks in the next batch, after a batch of ``tasks`` took ``seconds`` on ``parallelism``
    cores: enough for TARGET_BATCH_SECONDS at the measured time per task, and at least twice this
    batch while a batch is shorter than the target. The measured time includes Spark's fixed cost
    per job; read as time per task alone, it would keep an overhead-bound sweep (points of a few
    milliseconds, jobs of a second) at its first small batches for good."""
    target = TARGET_BATCH_SECONDS * tasks / max(seconds, 1e-6)
    if seconds < TARGET_BATCH_SECONDS:
        target = max(target, 2 * tasks)
    return int(min(max(2 * parallelism, target), 100_000))


def _store(batch: list[_Point], outputs: list, iterations: int) -> list[tuple]:
    """Cache every point of the batch whose iterations all succeeded; return the failures."""
    results: dict[int, dict[int, list[dict]]] = {p.index: {} for p in batch}
    params = {p.index: p.params for p in batch}
    failures = {}
    for index, iteration, rows, error, trace in outputs:
        if error is None:
            results[index][iteration] = rows
        else:
            failures.setdefault(index, (params[index], iteration, error, trace))
    for point in batch:
        if point.index not in failures:
            _write_atomic(_table(point, iterations, results[point.index]), point.file)
    return list(failures.values())


def _read(points: list[_Point]) -> pd.DataFrame:
    tables = [pq.read_table(p.file) for p in points]
    if not tables:
        return pd.DataFrame()
    return pa.concat_tables(tables, promote_options="permissive").to_pandas()
