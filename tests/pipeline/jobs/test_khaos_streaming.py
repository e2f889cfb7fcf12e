"""The Structured Streaming profiling backend: exactly-once window counts across a kill and a
restart from the checkpoint, replay growing with the trigger interval (the CI), the recovery
measurement on a known outage, and parameter validation."""

import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pipeline.jobs.khaos_streaming import (
    StreamParams,
    StreamRun,
    expected_window_counts,
    generate_second,
    launch,
    profile,
    profile_grid,
    recovery,
    scaled_workload,
    short_detector,
)

RATE = 100.0
# Short runs: the detector is not used on them, so no training history is needed before the kill.
SHORT = StreamParams(rates=(RATE,) * 24, kill_after_s=6.0, restart_delay_s=1.0)
TRIGGERS = (1.0, 6.0)


@pytest.fixture(scope="module")
def work_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("streaming")


@pytest.fixture(scope="module", params=[None, 3.0], ids=["sequential", "concurrent"])
def runs(request, work_dir):
    # Sequential: the standby that restarts the first deployment runs the second one's query.
    # Concurrent (as khaos_spark_profiling runs it): every deployment at once, 3 s apart, the
    # first pair of query processes launched ahead.
    launched = None if request.param is None else launch(2, work_dir=work_dir)
    grid = profile_grid(
        TRIGGERS,
        SHORT,
        progress=False,
        work_dir=work_dir,
        stagger_s=request.param,
        launched=launched,
    )
    return {run.params.trigger_s: run for run in grid}


def _processes_using(folder: Path) -> dict[str, str]:
    """Processes (pid: command line) whose command line or environment names ``folder`` (the
    query processes get their folder as an argument, their JVMs inherit it in TMPDIR)."""
    found = {}
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (proc / "cmdline").read_bytes()
            text = cmdline + (proc / "environ").read_bytes()
        except OSError:  # gone, or not ours
            continue
        if str(folder).encode() in text:
            found[proc.name] = cmdline.replace(b"\0", b" ").decode(errors="replace")
    return found


@pytest.mark.spark
@pytest.mark.parametrize("trigger_s", TRIGGERS)
def test_window_counts_are_exactly_once_after_kill_and_restart(runs, trigger_s):
    run = runs[trigger_s]
    # The kill cut a batch short after it read its input, so the replay path was exercised.
    assert run.batches["replayed"].sum() == 1
    assert run.replayed_rows > 0
    assert len(run.expected_counts) > 0
    pd.testing.assert_frame_equal(run.window_counts, run.expected_counts)
    total = sum(len(generate_second(run.params, s)) for s in range(len(run.params.rates)))
    assert run.window_counts["count"].sum() == total
    # Every row committed once: the committed series ends at the rows written, with no lag left.
    assert run.series["committed"].iloc[-1] == total == run.batches["rows"].sum()
    assert run.series["con"].iloc[-1] == 0 and (run.series["con"] >= 0).all()


@pytest.mark.spark
def test_longer_trigger_replays_more_rows(runs):
    short, long = runs[TRIGGERS[0]], runs[TRIGGERS[1]]
    assert long.replayed_rows > short.replayed_rows
    # A trigger reads what arrived since the previous one: about rate x trigger_s rows.
    assert long.replayed_rows >= 0.6 * RATE * TRIGGERS[1]
    for run in runs.values():
        # Spark reruns the batch cut short first, with the offsets it logged before the kill.
        assert run.first_batch_rows == run.replayed_rows
        assert run.uncommitted_rows >= run.replayed_rows


@pytest.mark.spark
def test_no_process_or_folder_is_left_behind(runs, work_dir, tmp_path):
    assert not list(work_dir.iterdir())
    assert not _processes_using(work_dir)
    # A timeout while the query process is starting kills it and removes its folder too.
    with pytest.raises(TimeoutError, match="timeout_s"):
        profile(replace(SHORT, timeout_s=2.0), work_dir=tmp_path)
    assert not list(tmp_path.iterdir())
    assert not _processes_using(tmp_path)


@pytest.mark.spark
def test_launched_processes_of_another_setting_are_refused_and_removed(tmp_path):
    launched = launch(1, driver_memory="1g", work_dir=tmp_path)
    with pytest.raises(ValueError, match="driver memory|'1g'"):
        profile_grid(TRIGGERS, SHORT, launched=launched)
    assert not list(tmp_path.iterdir())
    assert not _processes_using(tmp_path)


@pytest.mark.spark
def test_query_process_and_its_jvm_die_with_their_parent(tmp_path):
    # A parent killed mid-run (a notebook kernel or a test run killed from outside) cannot clean
    # up: the query process's watchdog kills its own group, the JVM included.
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from pipeline.jobs.khaos_streaming import _Worker\n"
        "_Worker(Path(sys.argv[1]), 0, 'local[1]', '512m', lifetime_s=120)\n"
        "time.sleep(120)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)])
    try:
        deadline = time.time() + 120
        while not any("java" in cmd for cmd in _processes_using(tmp_path).values()):
            assert time.time() < deadline, "the query process started no JVM"
            time.sleep(0.2)
    finally:
        parent.kill()  # the parent only, as a SIGKILL from outside would
        parent.wait()
    deadline = time.time() + 15
    while _processes_using(tmp_path) and time.time() < deadline:
        time.sleep(0.2)
    assert not _processes_using(tmp_path)


def _synthetic_run(kill_second=40, restart_second=50, seconds=120, trigger=2, cap=400):
    """A micro-batch engine by hand: each trigger (every ``trigger`` s while up) commits at most
    ``cap`` of the rows written so far; down from kill_second to restart_second."""
    params = StreamParams(trigger_s=float(trigger), rates=(RATE,) * seconds, kill_after_s=39.0)
    written = np.cumsum([len(generate_second(params, s)) for s in range(seconds)])
    committed, done, commits = np.zeros(seconds, dtype=int), 0, []
    for s in range(seconds):
        up = s < kill_second or s >= restart_second
        if up and s % trigger == 0:
            take = min(cap, written[s] - done)
            done += take
            commits.append((s, take))
        committed[s] = done
    series = pd.DataFrame(
        {"written": written, "committed": committed}, index=pd.RangeIndex(seconds, name="second")
    )
    series["thr"] = series["committed"].diff().fillna(series["committed"]).astype(float)
    series["con"] = (series["written"] - series["committed"]).astype(float)
    batches = pd.DataFrame(commits, columns=["committed_at", "rows"]).assign(
        batch_id=lambda f: np.arange(len(f)), replayed=False
    )
    # The drain ends at the first commit after the restart that leaves no more than one
    # trigger's input behind (the steady state's lag just after a commit).
    after = (series.index >= restart_second) & (series["con"] <= RATE * trigger * 1.2)
    run = StreamRun(
        params=params,
        series=series,
        batches=batches,
        kill_second=kill_second,
        kill_time_s=float(kill_second),
        restart_time_s=float(restart_second),
        replayed_rows=0,
        uncommitted_rows=0,
        first_batch_rows=0,
        window_counts=pd.DataFrame(),
        expected_counts=pd.DataFrame(),
    )
    return run, int(series.index[after][0])


def test_recovery_covers_the_outage_and_the_drain():
    run, drain_end = _synthetic_run()
    found = recovery(run)
    truth = drain_end - run.kill_second
    tolerance = short_detector(run.params).smoothing_s + run.params.trigger_s
    assert abs(found["recovery_time_s"] - truth) <= tolerance
    assert not found["censored"]
    assert found["outage_s"] == 10.0  # first commit after the restart, at second 50


def test_recovery_without_a_failure_effect_is_short():
    # Kill and restart within one trigger interval: no batch is missed, nothing to drain.
    run, _ = _synthetic_run(kill_second=41, restart_second=42)
    assert recovery(run)["recovery_time_s"] <= run.params.trigger_s


def test_expected_counts_are_computed_from_the_files(tmp_path):
    pd.DataFrame({"key": [1, 1, 2, 1], "ts_ms": [0, 4999, 5000, 10_000]}).to_csv(
        tmp_path / "part-000000.csv", header=False, index=False
    )
    counts = expected_window_counts(tmp_path, window_s=5)
    assert counts.to_dict("list") == {
        "window_start": [0, 5, 10],
        "key": [1, 2, 1],
        "count": [2, 1, 1],
    }


def test_generator_is_a_function_of_seed_and_second():
    a = generate_second(SHORT, 3)
    pd.testing.assert_frame_equal(a, generate_second(SHORT, 3))
    assert not a.equals(generate_second(replace(SHORT, seed=1), 3))
    assert a["ts_ms"].between(a["ts_ms"].min(), a["ts_ms"].min() // 1000 * 1000 + 999).all()


def test_scaled_workload_keeps_the_shape():
    rates = scaled_workload([1000.0, np.nan, 3000.0], mean_rate=50.0)
    assert rates == pytest.approx((25.0, 50.0, 75.0))


@pytest.mark.parametrize(
    ("changes", "name"),
    [
        ({"trigger_s": 0.0}, "trigger_s"),
        ({"rates": ()}, "rates"),
        ({"rates": (1.0, -1.0) * 20}, "rates"),
        ({"kill_after_s": 30.0}, "kill_after_s"),
        ({"kill_phase": "during"}, "kill_phase"),
        ({"kill_lead_s": 2.0}, "kill_lead_s"),
        ({"restart_delay_s": -1.0}, "restart_delay_s"),
        ({"headroom": 1.0}, "headroom"),
        ({"window_s": 0}, "window_s"),
        ({"watermark_s": 2.5}, "watermark_s"),
        ({"keys": 0}, "keys"),
        ({"shuffle_partitions": 0}, "shuffle_partitions"),
        ({"seed": -1}, "seed"),
        ({"master": "spark://host:7077"}, "master"),
        ({"timeout_s": 0.0}, "timeout_s"),
    ],
)
def test_bad_parameters_raise_naming_them(changes, name):
    with pytest.raises(ValueError, match=name) as err:
        replace(SHORT, **changes)
    assert "\n" not in str(err.value)


def test_bad_workload_grid_and_detector_inputs_raise_naming_them():
    with pytest.raises(ValueError, match="trigger_intervals"):
        profile_grid([], SHORT)
    with pytest.raises(ValueError, match="stagger_s"):
        profile_grid(TRIGGERS, SHORT, stagger_s=-1.0)
    with pytest.raises(ValueError, match="launched"):
        profile_grid(TRIGGERS, SHORT, launched=[])
    for count in (0, 1.5, True):
        with pytest.raises(ValueError, match="count"):
            launch(count)
    with pytest.raises(ValueError, match="master"):
        launch(1, master="spark://host:7077")
    with pytest.raises(ValueError, match="mean_rate"):
        scaled_workload([1.0], mean_rate=0.0)
    with pytest.raises(ValueError, match="throughput"):
        scaled_workload([np.nan], mean_rate=1.0)
    with pytest.raises(ValueError, match="kill_after_s"):
        short_detector(SHORT)  # 6 s before the kill: too little to train on
