"""A real engine for Khaos's profiling phase: a Spark Structured Streaming job killed and restarted.

Geldenhuys et al., *Khaos*, Section III-C (phase 2): a profiling deployment replays the workload, a
failure is injected at the worst point relative to the next checkpoint, and an anomaly detector
trained on the normal run measures the recovery time. Here the deployment is a real Structured
Streaming query, run in a query process of its own (``python -m pipeline.jobs.khaos_streaming``:
Python, a local-mode JVM and its Python workers in one process group):

- source: one CSV file per second of workload in an input folder (written by a seeded generator
  thread of the parent, following per-second rates), read with ``maxFilesPerTrigger``, so that
  catch-up after a failure proceeds at a bounded capacity (``headroom`` times the mean input rate);
- an event-time tumbling-window count per key with a watermark (stateful, checkpointed state);
- a checkpoint location and an idempotent ``foreachBatch`` sink: each batch's updated window counts
  are written to ``sink/batch-<id>.json``, replacing a file of the same batch, so that a batch
  replayed after a failure rewrites instead of adding;
- the trigger interval (``processingTime``) is the checkpoint interval (CI): a trigger logs its
  offsets, runs the batch, writes the sink and commits (state and commit log), so every trigger is a
  checkpoint and a failure loses the work since the last commit.

Failure injection. The paper's worst case is a failure "right before the next checkpoint
completes" (Sections III-C, IV). ``kill_phase="before_commit"`` (default) kills the query's process
group as soon as the next trigger has logged its offsets, before it commits: the interval's input
has been read and must be read again after the restart (``replayed_rows``).
``kill_phase="before_trigger"`` kills ``kill_lead_s`` before the next trigger is due (Spark aligns
processing-time triggers to multiples of the interval since the epoch): the paper's literal "just
prior to the next scheduled checkpoint"; Spark has then read nothing of the interval, so nothing is
read twice, but the interval's rows are still uncommitted (``uncommitted_rows``). After
``restart_delay_s`` the query restarts from its checkpoint (in a standby process, or cold:
``standby``), while the generator keeps writing (the source keeps producing during the outage).

Processes and clean-up. The kill is ``SIGKILL`` to the query process's group, so the JVM and its
workers die with it (the process is not reaped before, so its id cannot be reused meanwhile). A
query process also kills its own group when its parent dies or its lifetime ends (a watchdog
thread), and every wait of the parent has a deadline (``timeout_s`` per deployment): a hung or
orphaned query cannot outlive the run. All files (input, checkpoint, sink, Spark's and the JVM's
temporary files) live in one temporary folder, removed on return, error or timeout. A query
process serves two deployments of a grid (:func:`profile_grid`), as a warm standby restarting
one and then running the next one's first query.

Measurements come from the engine's own durable logs, not from callbacks: a batch's rows are the
rows of the files its offsets cover (checkpoint ``offsets/`` and the file source's log), its commit
instant is the modification time of ``commits/<id>``. Per second: ``thr`` rows committed in that
second, ``con`` rows written by the generator but not yet committed (the consumer lag). Recovery is
measured with khaos's detector (:func:`khaos.detector.recovery_times`) with a scaled-down setting
(:func:`short_detector`), and with its consumer-lag baseline.

Determinism: the input (rows, keys, event times) is a function of the seed and the rates only; the
timing of batches, hence series and recovery times, depends on the machine's load.
Times in s, rates in rows/s.
"""

import argparse
import json
import logging
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

log = logging.getLogger(__name__)

KILL_PHASES = ("before_commit", "before_trigger")
# Event times are epoch milliseconds from this origin, so windows are exact integer arithmetic.
EVENT_EPOCH_MS = 1_700_000_000_000
POLL_S = 0.01  # how often the parent looks for the trigger to kill at
MIN_TRAINING_S = 12  # DetectorParams needs training_s > 10 * var_order + smoothing_s


@dataclass(frozen=True, kw_only=True)
class StreamParams:
    """One profiling deployment. Defaults are this project's choices (the paper's deployments are
    Flink jobs on Kubernetes at production rates, scaled down here to a laptop)."""

    trigger_s: float = 2.0  # the CI: processing-time trigger interval
    rates: tuple[float, ...] = (200.0,) * 60  # mean rows per second of the workload, one per s
    kill_after_s: float = 30.0  # the failure hits the first eligible trigger after this
    kill_phase: str = "before_commit"  # see the module docstring
    kill_lead_s: float = 0.3  # before_trigger only: how long before the due trigger
    restart_delay_s: float = 2.0  # from the kill until the restarted query is launched
    # True: the restart runs in a standby process started (and warmed up) with the first, as a
    # job rescheduled on a running cluster; False: a cold start (a new Python, JVM and session,
    # whose start and first batch take tens of seconds on a busy 2-core machine).
    standby: bool = True
    headroom: float = 2.0  # maxFilesPerTrigger = ceil(headroom * trigger_s) one-second files
    window_s: int = 5  # tumbling event-time window
    watermark_s: int = 10  # allowed event-time lateness (the input is never late: no row drops)
    keys: int = 8  # distinct keys of the windowed count
    seed: int = 0
    master: str = "local[1]"  # the query's process runs Spark locally (2 shared cores)
    shuffle_partitions: int = 1  # state store partitions: each costs time per batch
    driver_memory: str = "512m"
    timeout_s: float = 600.0  # the whole run, start to final stop

    def __post_init__(self):
        if not self.trigger_s > 0:
            raise ValueError(f"trigger_s must be > 0, got {self.trigger_s!r}")
        rates = np.asarray(self.rates, dtype=float)
        if rates.ndim != 1 or rates.size == 0 or not np.all(np.isfinite(rates) & (rates >= 0)):
            raise ValueError("rates must be a non-empty sequence of finite rates >= 0")
        if not 0 < self.kill_after_s < rates.size - self.trigger_s:
            raise ValueError(
                f"kill_after_s must lie in (0, len(rates) - trigger_s) = "
                f"(0, {rates.size - self.trigger_s:g}), got {self.kill_after_s!r}"
            )
        if self.kill_phase not in KILL_PHASES:
            raise ValueError(f"kill_phase must be one of {KILL_PHASES}, got {self.kill_phase!r}")
        if not 0 < self.kill_lead_s < self.trigger_s:
            raise ValueError(
                f"kill_lead_s must lie in (0, trigger_s = {self.trigger_s:g}), "
                f"got {self.kill_lead_s!r}"
            )
        if not self.restart_delay_s >= 0:
            raise ValueError(f"restart_delay_s must be >= 0, got {self.restart_delay_s!r}")
        if not self.headroom > 1:
            raise ValueError(
                f"headroom must be > 1 (else the backlog never drains), got {self.headroom!r}"
            )
        for name in ("window_s", "watermark_s", "keys", "shuffle_partitions"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {self.seed!r}")
        if not self.master.startswith("local"):
            # Killing the process group only takes down a query whose executors live in it.
            raise ValueError(f"master must be a local[...] URL, got {self.master!r}")
        if not self.timeout_s > 0:
            raise ValueError(f"timeout_s must be > 0, got {self.timeout_s!r}")
        object.__setattr__(self, "rates", tuple(float(r) for r in rates))

    @property
    def max_files_per_trigger(self) -> int:
        return math.ceil(self.headroom * self.trigger_s)


def scaled_workload(throughput, mean_rate: float) -> tuple[float, ...]:
    """Per-second rates following a measured throughput slice (e.g. some minutes of a Khaos IoT
    ``thr`` series), scaled to average ``mean_rate``; a missing second takes the slice's mean."""
    values = np.asarray(throughput, dtype=float)
    if values.ndim != 1 or not np.isfinite(values).any():
        raise ValueError("throughput must be a 1-d series with finite values")
    if not mean_rate > 0:
        raise ValueError(f"mean_rate must be > 0, got {mean_rate!r}")
    values = np.where(np.isfinite(values), values, np.nanmean(values))
    if not values.mean() > 0:
        raise ValueError("throughput must have a positive mean")
    return tuple(float(r) for r in values * (mean_rate / values.mean()))


def short_detector(params: StreamParams):
    """khaos's detector scaled down to a run of a minute or two (the paper's trains on 1000 s).

    A micro-batch engine commits in bursts, one per trigger: a trailing mean over one trigger
    interval (at least 2 s) turns them into a level, as the 20 s window turns scraped metric steps
    into ramps. Training uses every smoothed second before the kill (ending ``guard_s`` = 1 s
    before it); recovery ends after more than ``normal_run`` = 5 normal seconds; factor 5 as the
    paper's."""
    from khaos.params import DetectorParams  # the query process imports this module: keep it light

    smoothing = max(2, math.ceil(params.trigger_s))
    guard = 1
    training = math.floor(params.kill_after_s) - guard - smoothing
    if training < max(MIN_TRAINING_S, 10 + smoothing + 1):
        raise ValueError(
            f"kill_after_s = {params.kill_after_s:g} leaves {training} s of detector training; "
            f"it needs {max(MIN_TRAINING_S, 11 + smoothing) + guard + smoothing} s or more"
        )
    return DetectorParams(
        training_s=training,
        smoothing_s=smoothing,
        guard_s=guard,
        normal_run=5,
        max_recovery_s=len(params.rates),
    )


# -- the input ---------------------------------------------------------------------------------


def generate_second(params: StreamParams, second: int) -> pd.DataFrame:
    """Rows of the workload's second ``second``: Poisson(rate) rows, uniform keys, event times
    uniform within the second. Drawn from SeedSequence(seed, spawn_key=(second,)), so each second
    is the same whatever the timing."""
    rng = np.random.default_rng(np.random.SeedSequence(params.seed, spawn_key=(second,)))
    n = int(rng.poisson(params.rates[second]))
    ms = np.sort(rng.integers(0, 1000, n))
    return pd.DataFrame(
        {"key": rng.integers(0, params.keys, n), "ts_ms": EVENT_EPOCH_MS + 1000 * second + ms}
    )


def expected_window_counts(input_dir: Path, window_s: int) -> pd.DataFrame:
    """Window counts computed directly from the input files (pandas, no Spark)."""
    files = sorted(Path(input_dir).glob("part-*.csv"))
    frames = [pd.read_csv(f, header=None, names=["key", "ts_ms"]) for f in files]
    rows = pd.concat(frames, ignore_index=True)
    window_ms = 1000 * window_s
    start = (rows["ts_ms"] // window_ms * window_ms // 1000).astype("int64")
    counts = rows.groupby([start.rename("window_start"), rows["key"].astype("int64")]).size()
    counts = counts.rename("count").reset_index()
    return counts.sort_values(["window_start", "key"], ignore_index=True)


class _Generator(threading.Thread):
    """Writes second i's file at t0 + i + 1 (written to a staging folder, then renamed in, so the
    source never lists a half-written file). Records (file, rows, written_at)."""

    def __init__(self, params: StreamParams, input_dir: Path, staging: Path, t0: float):
        super().__init__(name="khaos-generator", daemon=True)
        self.params, self.input_dir, self.staging, self.t0 = params, input_dir, staging, t0
        self.stop_event = threading.Event()
        self.written: list[tuple[str, int, float]] = []
        self.error: BaseException | None = None

    def run(self):
        try:
            for second in range(len(self.params.rates)):
                rows = generate_second(self.params, second)
                name = f"part-{second:06d}.csv"
                rows.to_csv(self.staging / name, header=False, index=False)
                if self.stop_event.wait(max(0.0, self.t0 + second + 1 - time.time())):
                    return
                os.replace(self.staging / name, self.input_dir / name)
                self.written.append((name, len(rows), time.time()))
        except BaseException as err:  # surfaced by the parent, which is waiting on the run
            self.error = err


# -- the query processes -------------------------------------------------------------------------

# A JVM of its own per query process, tuned for short runs on a small machine: the C1 compiler only
# and the serial collector (about a third less start-up and warm-up CPU than the defaults); no
# perf-data file (a killed JVM would leave it behind); temporary files in the worker's folder.
JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData"
WATCHDOG_S = 0.5  # how often a query process checks that its parent is alive


class _Worker:
    """A query process in its own session (process group): Python, its JVM and the JVM's Python
    workers. It starts Spark (and warms up if asked), then runs queries one after the other.

    Protocol through files in ``<folder>/control``: the process starts Spark, then waits for
    ``config.json`` (:meth:`configure`: the warm-up and the lifetime), so that it can be
    launched before the grid's parameters are known (:func:`launch`); it touches ``ready`` once
    Spark is up and warm; for each job the parent writes ``job-<name>.json``, the process starts
    the query and touches ``started-<name>``; on ``stop-<name>`` it processes what is available,
    stops the query and touches ``stopped-<name>``; it exits on ``exit``. It kills its own group
    when its parent dies or after ``lifetime_s``, so a killed notebook or test leaves no JVM
    behind.

    The process is never reaped before :meth:`kill` (liveness is read with ``WNOWAIT``): its id
    stays the group's id until then, so the group kill cannot reach a process of someone else."""

    def __init__(self, root: Path, index: int, master: str, driver_memory: str, lifetime_s):
        self.folder = root / f"worker-{index}"
        self.control = self.folder / "control"
        self.master, self.driver_memory = master, driver_memory
        tmp = self.folder / "tmp"
        for sub in (self.control, tmp, self.folder / "warmup"):
            sub.mkdir(parents=True)
        self.log_file = self.folder / "query.log"
        env = dict(os.environ)
        env.update(
            TMPDIR=str(tmp),
            SPARK_LOCAL_DIRS=str(tmp),
            REPRO_DRIVER_MEMORY=driver_memory,
            REPRO_SPARK_UI="0",
            JAVA_TOOL_OPTIONS=f"{JAVA_OPTIONS} -Djava.io.tmpdir={tmp}",
        )
        command = [
            sys.executable, "-m", "pipeline.jobs.khaos_streaming",
            "--folder", str(self.folder),
            "--parent", str(os.getpid()),
            "--lifetime-s", repr(float(lifetime_s)),
            "--master", master,
        ]  # fmt: skip
        with open(self.log_file, "w") as out:
            self.proc = subprocess.Popen(
                command, cwd=self.folder, env=env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        self.killed = False

    def configure(self, params: StreamParams, warmup: bool, lifetime_s: float) -> None:
        """Warm up (if asked) on second 0 of ``params``'s workload with its plan options; the
        process's lifetime (its watchdog) becomes ``lifetime_s`` from now."""
        generate_second(params, 0).to_csv(
            self.folder / "warmup" / "part.csv", header=False, index=False
        )
        config = {
            "warmup": bool(warmup),
            "max_files": params.max_files_per_trigger,
            "window_s": params.window_s,
            "watermark_s": params.watermark_s,
            "lifetime_s": float(lifetime_s),
        }
        tmp = self.control / ".config.json"
        tmp.write_text(json.dumps(config))
        os.replace(tmp, self.control / "config.json")

    def exit_status(self) -> int | None:
        """None while the process runs; its exit status (without reaping it) once it has ended."""
        if self.killed:
            return self.proc.returncode
        found = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        return None if found is None else found.si_status

    def check_alive(self) -> None:
        status = self.exit_status()
        if status is not None:
            tail = self.log_file.read_text(errors="replace").strip().splitlines()[-15:]
            raise RuntimeError(
                f"the streaming query process exited with status {status}: " + " | ".join(tail)
            )

    def wait_for(self, flag: str, deadline: float) -> float:
        """Wait until the process touches ``flag``; return when it was seen."""
        path = self.control / flag
        while not path.exists():
            self.check_alive()
            if time.time() > deadline:
                raise TimeoutError(f"the streaming query did not reach {flag!r} before timeout_s")
            time.sleep(POLL_S)
        return time.time()

    def submit(self, name: str, run: Path, params: StreamParams) -> None:
        job = {
            "run": str(run),
            "trigger_s": params.trigger_s,
            "max_files": params.max_files_per_trigger,
            "window_s": params.window_s,
            "watermark_s": params.watermark_s,
            "shuffle_partitions": params.shuffle_partitions,
        }
        tmp = self.control / f".job-{name}.json"
        tmp.write_text(json.dumps(job))
        os.replace(tmp, self.control / f"job-{name}.json")

    def request(self, flag: str) -> None:
        (self.control / flag).touch()

    def kill(self) -> None:
        """SIGKILL to the whole process group (Python, JVM, Python workers), then reap."""
        if self.killed:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:  # the group has already ended entirely
            pass
        self.proc.wait()
        self.killed = True


def _watchdog(parent: int, deadline: list) -> None:
    """Kill this process's group once the parent is gone or the deadline (``deadline[0]``, which
    the configuration moves) has passed."""
    while os.getppid() == parent and time.time() < deadline[0]:
        time.sleep(WATCHDOG_S)
    os.killpg(0, signal.SIGKILL)


def _query_main(argv=None) -> None:
    """Entry point of a query process (``python -m pipeline.jobs.khaos_streaming --folder ...``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, kind in [
        ("folder", str), ("parent", int), ("lifetime-s", float), ("master", str),
    ]:  # fmt: skip
        parser.add_argument(f"--{name}", type=kind, required=True)
    args = parser.parse_args(argv)
    deadline = [time.time() + args.lifetime_s]
    threading.Thread(target=_watchdog, args=(args.parent, deadline), daemon=True).start()
    folder = Path(args.folder)
    control = folder / "control"

    from pyspark.sql import functions as F

    from pipeline.spark import get_spark

    spark = get_spark(args.master, app_name="khaos-profiling")
    # Keep every batch's offsets and commit for the measurements (default: the last 100).
    spark.conf.set("spark.sql.streaming.minBatchesToRetain", "1000000")
    # Only batches with input: a trigger is then exactly one checkpoint of new data.
    spark.conf.set("spark.sql.streaming.noDataMicroBatches.enabled", "false")

    def window_counts(source: Path, max_files: int, window_s: int, watermark_s: int):
        return (
            spark.readStream.schema("key INT, ts_ms LONG")
            .option("maxFilesPerTrigger", max_files)
            .csv(str(source))
            .withColumn("event_time", F.timestamp_millis("ts_ms"))
            .withWatermark("event_time", f"{watermark_s} seconds")
            .groupBy(F.window("event_time", f"{window_s} seconds"), "key")
            .count()
            .select(F.col("window.start").cast("long").alias("window_start"), "key", "count")
        )

    config_file = control / "config.json"
    while not config_file.exists():
        time.sleep(POLL_S)
    config = json.loads(config_file.read_text())
    deadline[0] = time.time() + config["lifetime_s"]
    if config["warmup"]:
        # The first batch of a fresh JVM compiles and loads for many seconds on a busy machine:
        # run the same plan once over the warm-up input, so that a query started later (a
        # restart on a running cluster) runs at its steady pace from its first batch.
        spark.conf.set("spark.sql.shuffle.partitions", "1")
        warmup = (
            window_counts(
                folder / "warmup", config["max_files"], config["window_s"], config["watermark_s"]
            )
            .writeStream.outputMode("update")
            .foreachBatch(lambda batch, _: batch.collect())
            .option("checkpointLocation", str(folder / "tmp" / "warmup-checkpoint"))
            .trigger(availableNow=True)
            .start()
        )
        warmup.awaitTermination()
    (control / "ready").touch()

    done: set[str] = set()
    while not (control / "exit").exists():
        jobs = [f for f in control.glob("job-*.json") if f.stem.removeprefix("job-") not in done]
        if not jobs:
            time.sleep(POLL_S)
            continue
        name = jobs[0].stem.removeprefix("job-")
        done.add(name)
        job = json.loads(jobs[0].read_text())
        run = Path(job["run"])
        sink = run / "sink"

        def write_batch(batch, batch_id, sink=sink):
            rows = [[r.window_start, r.key, r["count"]] for r in batch.collect()]
            tmp = sink / f".batch-{batch_id:08d}.tmp"
            tmp.write_text(json.dumps(rows))
            os.replace(tmp, sink / f"batch-{batch_id:08d}.json")  # a replay replaces: idempotent

        spark.conf.set("spark.sql.shuffle.partitions", str(job["shuffle_partitions"]))
        query = (
            window_counts(run / "input", job["max_files"], job["window_s"], job["watermark_s"])
            .writeStream.outputMode("update")
            .foreachBatch(write_batch)
            .option("checkpointLocation", str(run / "checkpoint"))
            .trigger(processingTime=f"{int(round(job['trigger_s'] * 1000))} milliseconds")
            .start()
        )
        (control / f"started-{name}").touch()
        stop = control / f"stop-{name}"
        while not query.awaitTermination(0.1):
            if stop.exists():
                query.processAllAvailable()
                query.stop()
        if query.exception() is not None:
            raise SystemExit(f"query failed: {query.exception()}")
        (control / f"stopped-{name}").touch()
    spark.stop()


# -- reading the engine's logs -------------------------------------------------------------------


def _log_entries(file: Path) -> list[dict]:
    """JSON lines of a Spark metadata-log file after its version line."""
    lines = file.read_text().splitlines()[1:]
    return [json.loads(line) for line in lines if line.strip()]


def _batch_ids(folder: Path) -> set[int]:
    return {int(f.name) for f in folder.iterdir() if f.name.isdigit()} if folder.exists() else set()


def _batches(work: Path, rows_of: dict[str, int]) -> pd.DataFrame:
    """One row per committed batch: batch_id, rows (input rows it read), committed_at."""
    checkpoint = work / "checkpoint"
    file_batch = {}  # file name -> the file source's log id that added it
    for f in sorted((checkpoint / "sources" / "0").iterdir()):
        if not f.name.startswith("."):
            for entry in _log_entries(f):
                file_batch[Path(entry["path"]).name] = int(entry["batchId"])
    source_rows = pd.Series(rows_of).groupby(pd.Series(file_batch)).sum()
    out, previous = [], -1
    for batch_id in sorted(_batch_ids(checkpoint / "offsets")):
        # The last line holds the one source's offset: the file source log id read up to.
        offset = int(_log_entries(checkpoint / "offsets" / str(batch_id))[-1]["logOffset"])
        commit = checkpoint / "commits" / str(batch_id)
        out.append(
            {
                "batch_id": batch_id,
                "rows": int(source_rows[(source_rows.index > previous)
                                        & (source_rows.index <= offset)].sum()),
                "committed_at": commit.stat().st_mtime if commit.exists() else np.nan,
            }
        )  # fmt: skip
        previous = offset
    return pd.DataFrame(out, columns=["batch_id", "rows", "committed_at"])


def _sink_counts(sink: Path) -> pd.DataFrame:
    """Final window counts: each window's count in the last batch that updated it."""
    latest: dict[tuple[int, int], int] = {}
    for f in sorted(sink.glob("batch-*.json")):  # in batch order
        for window_start, key, count in json.loads(f.read_text()):
            latest[(window_start, key)] = count
    frame = pd.DataFrame(
        [(w, k, c) for (w, k), c in latest.items()], columns=["window_start", "key", "count"]
    ).astype("int64")
    return frame.sort_values(["window_start", "key"], ignore_index=True)


def _series(written: list, batches: pd.DataFrame, t0: float, end: float) -> pd.DataFrame:
    """Per second s (the interval [t0 + s, t0 + s + 1)): rows written and committed by its end,
    thr (committed in it) and con (written but not committed at its end)."""
    edges = t0 + np.arange(1, math.ceil(end - t0) + 2)
    w_time = np.array([w[2] for w in written])
    w_rows = np.array([w[1] for w in written])
    done = batches.dropna(subset=["committed_at"]).sort_values("committed_at")
    w_cum = np.concatenate([[0], np.cumsum(w_rows[np.argsort(w_time)])])
    c_cum = np.concatenate([[0], np.cumsum(done["rows"].to_numpy())])
    written_by = w_cum[np.searchsorted(np.sort(w_time), edges, side="right")]
    committed_by = c_cum[np.searchsorted(done["committed_at"].to_numpy(), edges, side="right")]
    frame = pd.DataFrame(
        {"written": written_by, "committed": committed_by},
        index=pd.RangeIndex(len(edges), name="second"),
    )
    frame["thr"] = frame["committed"].diff().fillna(frame["committed"]).astype(float)
    frame["con"] = (frame["written"] - frame["committed"]).astype(float)
    return frame


# -- one profiling run ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StreamRun:
    """What one profiling run measured (seconds count from the generator's start)."""

    params: StreamParams
    series: pd.DataFrame  # per second: written, committed, thr, con
    batches: pd.DataFrame  # per batch: batch_id, rows, committed_at (s), replayed
    kill_second: int
    kill_time_s: float  # the kill instant
    restart_time_s: float  # the restarted query has started (its first trigger fires)
    replayed_rows: int  # rows read by a batch the kill cut short, read again after the restart
    uncommitted_rows: int  # rows written but not committed at the kill
    first_batch_rows: int  # rows of the first batch committed after the restart
    window_counts: pd.DataFrame  # final counts of the sink: window_start (s), key, count
    expected_counts: pd.DataFrame  # the same, computed directly from the input files

    @property
    def exactly_once(self) -> bool:
        return self.window_counts.equals(self.expected_counts)


def _kill_instant(params: StreamParams, query: _Worker, offsets: Path, t0: float, deadline: float):
    """Wait for the failure point (module docstring) and return when to kill (now or later)."""
    not_before = t0 + params.kill_after_s
    if params.kill_phase == "before_trigger":
        # Spark's ProcessingTimeExecutor fires at multiples of the interval since the epoch.
        ms = int(round(params.trigger_s * 1000))
        due = (int(not_before * 1000) // ms + 1) * ms / 1000
        return due - params.kill_lead_s
    while time.time() < not_before:
        query.check_alive()
        time.sleep(POLL_S)
    known = _batch_ids(offsets)
    while not (_batch_ids(offsets) - known):
        query.check_alive()
        if time.time() > deadline:
            raise TimeoutError("no trigger fired after kill_after_s before timeout_s")
        time.sleep(POLL_S)
    return time.time()


def _run_once(params, run_dir: Path, name: str, first: _Worker, restart, deadline: float):
    """One deployment on ``first`` (warm, idle); ``restart()`` returns the worker that takes
    over after the kill (a warm standby, or a cold one started then). Returns the run and that
    worker, idle again (its query stopped) for the next deployment."""
    for sub in ("input", "staging", "sink"):
        (run_dir / sub).mkdir(parents=True)
    generator = None
    try:
        first.submit(f"{name}-0", run_dir, params)
        t0 = first.wait_for(f"started-{name}-0", deadline)
        generator = _Generator(params, run_dir / "input", run_dir / "staging", t0)
        generator.start()

        offsets, commits = run_dir / "checkpoint" / "offsets", run_dir / "checkpoint" / "commits"
        kill_at = _kill_instant(params, first, offsets, t0, deadline)
        while time.time() < kill_at:
            first.check_alive()
            time.sleep(POLL_S)
        kill_time = time.time()
        first.kill()
        # The dead process writes nothing more: what the logs say now is the state at the kill.
        cut_short = _batch_ids(offsets) - _batch_ids(commits)
        written_at_kill = sum(rows for _, rows, at in generator.written if at <= kill_time)
        log.info("killed the query at %.1f s; batches cut short: %s", kill_time - t0, cut_short)

        time.sleep(max(0.0, kill_time + params.restart_delay_s - time.time()))
        second = restart()
        second.wait_for("ready", deadline)
        second.submit(f"{name}-1", run_dir, params)
        restart_time = second.wait_for(f"started-{name}-1", deadline)

        while generator.is_alive():
            second.check_alive()
            if time.time() > deadline:
                raise TimeoutError("the run did not finish before timeout_s")
            generator.join(0.1)
        if generator.error is not None:
            raise generator.error
        second.request(f"stop-{name}-1")
        end = second.wait_for(f"stopped-{name}-1", deadline)
    finally:
        if generator is not None:
            generator.stop_event.set()
            generator.join()

    rows_of = {file: rows for file, rows, _ in generator.written}
    batches = _batches(run_dir, rows_of)
    if batches["committed_at"].isna().any():
        raise RuntimeError("a batch was never committed after the restart")
    committed_at_kill = int(batches.loc[batches["committed_at"] <= kill_time, "rows"].sum())
    after = batches[batches["committed_at"] > restart_time]
    series = _series(generator.written, batches, t0, end)
    batches = batches.assign(
        committed_at=batches["committed_at"] - t0, replayed=batches["batch_id"].isin(cut_short)
    )
    run = StreamRun(
        params=params,
        series=series,
        batches=batches,
        kill_second=int(kill_time - t0),
        kill_time_s=kill_time - t0,
        restart_time_s=restart_time - t0,
        replayed_rows=int(batches.loc[batches["replayed"], "rows"].sum()),
        uncommitted_rows=written_at_kill - committed_at_kill,
        first_batch_rows=int(after["rows"].iloc[0]) if len(after) else 0,
        window_counts=_sink_counts(run_dir / "sink"),
        expected_counts=expected_window_counts(run_dir / "input", params.window_s),
    )
    return run, second


@dataclass(frozen=True)
class Launched:
    """Query processes launched ahead of a grid (:func:`launch`), in the folder ``root``."""

    root: Path
    workers: tuple


LAUNCHED_LIFETIME_S = 600.0  # a launched process not configured by then kills itself


def launch(
    count: int,
    master: str = StreamParams.master,
    driver_memory: str = StreamParams.driver_memory,
    work_dir: str | os.PathLike | None = None,
) -> Launched:
    """Start ``count`` query processes now (Python, a JVM and a Spark session each), before the
    grid's parameters are known: a notebook launches the first deployment's pair, then imports
    and calibrates while the JVMs start. :func:`profile_grid` warms them up with the run's
    parameters as the first processes it needs (the same warm-up as a process it starts), kills
    them all and removes their folder; one it never receives kills itself after
    ``LAUNCHED_LIFETIME_S`` or with its parent."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"count must be an integer >= 1, got {count!r}")
    if not master.startswith("local"):
        raise ValueError(f"master must be a local[...] URL, got {master!r}")
    root = Path(tempfile.mkdtemp(prefix="khaos-spark-launched-", dir=work_dir))
    workers = []
    try:
        for index in range(count):
            workers.append(_Worker(root, index, master, driver_memory, LAUNCHED_LIFETIME_S))
    except BaseException:
        for worker in workers:
            worker.kill()
        shutil.rmtree(root, ignore_errors=True)
        raise
    return Launched(root, tuple(workers))


def _checked_grid(trigger_intervals, params, stagger_s, launched) -> list[float]:
    """profile_grid's arguments checked; the trigger intervals as floats."""
    grid = [float(t) for t in trigger_intervals]
    if not grid or any(not (math.isfinite(t) and t > 0) for t in grid):
        raise ValueError(f"trigger_intervals must be a non-empty list of values > 0, got {grid}")
    if stagger_s is not None and not (math.isfinite(stagger_s) and stagger_s >= 0):
        raise ValueError(f"stagger_s must be None or a finite value >= 0, got {stagger_s!r}")
    if launched is not None and not isinstance(launched, Launched):
        raise ValueError(f"launched must be None or launch()'s result, got {launched!r}")
    for worker in launched.workers if launched is not None else ():
        if (worker.master, worker.driver_memory) != (params.master, params.driver_memory):
            raise ValueError(
                f"launched processes run {worker.master!r} with {worker.driver_memory!r}; "
                f"params ask for {params.master!r} with {params.driver_memory!r}"
            )
    return grid


def profile_grid(
    trigger_intervals,
    params: StreamParams = StreamParams(),
    progress: bool = True,
    work_dir: str | os.PathLike | None = None,
    stagger_s: float | None = None,
    launched: Launched | None = None,
) -> list[StreamRun]:
    """One deployment per trigger interval (``params`` with that ``trigger_s``), one kill each:
    start the query, replay the workload, kill the query's process group at the failure point,
    restart from the checkpoint after ``restart_delay_s``, drain, stop, and measure.

    Deployments run one after the other (on a shared 2-core machine parallel ones would slow
    each other's recovery). A query process serves two of them: the process that restarts
    deployment i's query (a warm standby) runs deployment i + 1's first query, and the next
    standby starts (and warms up) between deployments, so a grid of n intervals starts n + 1
    JVMs instead of 2n. Each deployment has ``timeout_s`` from its start. Every query process is
    killed and the temporary folder (under ``work_dir``, default the system's) removed on return,
    error or timeout.

    ``stagger_s`` (default None: one after the other, as above): run the deployments concurrently
    instead, deployment i starting ``i * stagger_s`` after deployment 0 (or once its own query
    processes are up, if later), each with a query process and a warm standby of its own (2n
    JVMs, started and warmed up pair by pair, a pair while the previous deployment runs). The
    stagger keeps one deployment's kill and restart apart from the next one's: choose it longer
    than ``kill_after_s``'s spread of kill instants plus the restart, so that restarts do not
    compete for the cores. Wall time about one pair's start + n * stagger_s + one run instead of
    n runs.

    ``launched``: query processes started ahead (:func:`launch`, same master and driver memory),
    used before any new one is started."""
    from tqdm import tqdm  # text bar: no widget warning in a papermill run

    try:
        grid = _checked_grid(trigger_intervals, params, stagger_s, launched)
        points = [replace(params, trigger_s=t) for t in grid]  # validates each point
    except BaseException:  # launched processes are ours from here on
        if isinstance(launched, Launched):
            for worker in launched.workers:
                worker.kill()
            shutil.rmtree(launched.root, ignore_errors=True)
        raise
    spare = list(launched.workers) if launched is not None else []
    root = Path(tempfile.mkdtemp(prefix="khaos-spark-", dir=work_dir))
    lifetime = params.timeout_s * (len(points) + 1) + (stagger_s or 0.0) * len(points)
    workers: list[_Worker] = []
    starting = threading.Lock()  # cold restarts start workers from several threads

    def start(warmup: bool) -> _Worker:
        with starting:
            if spare:
                worker = spare.pop(0)
            else:
                worker = _Worker(root, len(workers), params.master, params.driver_memory, lifetime)
            workers.append(worker)
        worker.configure(params, warmup, lifetime)
        return worker

    def clean_up() -> None:
        for worker in workers + spare:
            worker.kill()
        shutil.rmtree(root, ignore_errors=True)
        if launched is not None:
            shutil.rmtree(launched.root, ignore_errors=True)

    if stagger_s is not None:
        try:
            return _concurrent(points, root, start, stagger_s, params.standby)
        finally:
            clean_up()

    try:
        current = start(warmup=True)
        standby = start(warmup=True) if params.standby else None
        runs = []
        for index, point in enumerate(tqdm(points, disable=not progress)):
            deadline = time.time() + point.timeout_s
            current.wait_for("ready", deadline)
            if standby is not None:
                standby.wait_for("ready", deadline)
            restart = (lambda s=standby: s) if standby is not None else (lambda: start(False))
            run_dir = root / f"run-{index}"
            run, current = _run_once(point, run_dir, str(index), current, restart, deadline)
            runs.append(run)
            shutil.rmtree(run_dir, ignore_errors=True)
            for worker in workers:  # remove the killed ones' folders as we go
                if worker.killed:
                    shutil.rmtree(worker.folder, ignore_errors=True)
            if params.standby and index + 1 < len(points):
                standby = start(warmup=True)
        return runs
    finally:
        clean_up()


def _concurrent(points, root: Path, start, stagger_s: float, standby: bool) -> list[StreamRun]:
    """profile_grid's concurrent mode: one thread per deployment, started stagger_s apart.

    The query processes start pair by pair: deployment i's pair starts once pair i - 1 is ready
    (while deployment i - 1 runs its first seconds), and deployment i begins at i * stagger_s
    after deployment 0, or once its pair is ready if that is later. Starting every JVM at once
    before the first deployment made the whole grid wait for all of them on 2 cores."""
    runs: list = [None] * len(points)
    errors: list = []
    pairs: list = []
    begin = None

    def deploy(index: int) -> None:
        try:
            time.sleep(max(0.0, begin + index * stagger_s - time.time()))
            first, spare = pairs[index]
            restart = (lambda: spare) if spare is not None else (lambda: start(False))
            deadline = time.time() + points[index].timeout_s
            runs[index], _ = _run_once(
                points[index], root / f"run-{index}", str(index), first, restart, deadline
            )
        except BaseException as err:  # re-raised by the caller's thread below
            errors.append(err)

    threads = []
    for index, point in enumerate(points):
        pairs.append((start(True), start(True) if standby else None))
        ready_by = time.time() + point.timeout_s
        for worker in pairs[-1]:
            if worker is not None:
                worker.wait_for("ready", ready_by)
        if errors:
            break
        begin = time.time() if begin is None else begin
        threads.append(threading.Thread(target=deploy, args=(index,), daemon=True))
        threads[-1].start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return runs


def profile(params: StreamParams, work_dir: str | os.PathLike | None = None) -> StreamRun:
    """One deployment (:func:`profile_grid` of the single interval ``params.trigger_s``)."""
    return profile_grid([params.trigger_s], params, progress=False, work_dir=work_dir)[0]


def recovery(run: StreamRun, detector=None) -> dict:
    """Recovery of the run's failure by khaos's detector (default :func:`short_detector`) and by
    its consumer-lag baseline, plus the outage (kill to the first commit after the restart)."""
    from khaos.detector import lag_rule_recovery_times, recovery_times
    from khaos.params import LagRuleParams

    detector = detector or short_detector(run.params)
    found = recovery_times(run.series[["thr", "con"]], [run.kill_second], detector).iloc[0]
    lag_rule = LagRuleParams(
        training_s=detector.training_s,
        normal_run=detector.normal_run,
        max_recovery_s=detector.max_recovery_s,
        guard_s=detector.guard_s,
    )
    baseline = lag_rule_recovery_times(run.series[["con"]], [run.kill_second], lag_rule).iloc[0]
    first_commit = run.batches.loc[
        run.batches["committed_at"] >= run.restart_time_s, "committed_at"
    ]
    return {
        "recovery_time_s": float(found["recovery_time_s"]),
        "censored": bool(found["censored"]),
        "lag_rule_recovery_s": float(baseline["recovery_time_s"]),
        "outage_s": float(first_commit.min() - run.kill_time_s),
    }


def summary(runs: list[StreamRun], detector=None) -> pd.DataFrame:
    """One row per run: the trigger interval (CI), what the kill cost, and the recovery."""
    rows = []
    for run in runs:
        rows.append(
            {
                "trigger_s": run.params.trigger_s,
                "kill_phase": run.params.kill_phase,
                "max_files_per_trigger": run.params.max_files_per_trigger,
                "replayed_rows": run.replayed_rows,
                "uncommitted_rows": run.uncommitted_rows,
                "first_batch_rows": run.first_batch_rows,
                **recovery(run, detector),
                "exactly_once": run.exactly_once,
            }
        )
    return pd.DataFrame(rows)


if __name__ == "__main__":
    _query_main()
