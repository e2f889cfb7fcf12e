"""The Khaos artifact's published measurements: loaders, the failures.txt parser, the Parquet copy.

Source: dos-group/khaos (Apache License 2.0), folder ``data/``. One sample per second per series:
``thr`` input throughput (events/s), ``lat`` end-to-end latency (ms), ``con`` consumer lag (events),
for five static checkpoint intervals (CIs) and the Khaos run, on two workloads (``iot``, ``ysb``).

Two layouts are read, both given as a folder:
- the artifact's CSVs, ``<folder>/<exp>/<exp>_<metric>_<ci>.csv`` with ``second|value`` lines, a few
  of them holding a stray repeated header line (skipped);
- the project's copy, ``<folder>/<exp>.parquet`` (one column per ``<metric>_<ci>``, seconds as the
  index, absent samples as missing), written by :func:`convert_to_parquet`.
A run is returned on a contiguous one-second index, so gaps in the published series (IoT lat_60000,
lat_90000, lat_120000: one of about two minutes each) stay as missing values, never interpolated.
"""

import os
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

EXPERIMENTS = ("iot", "ysb")
METRICS = ("thr", "lat", "con")
CI_FILE_KEYS = ("10000", "30000", "60000", "90000", "120000", "optimized")
# Configuration labels as in Tables II-III (data/paper/khaos_table2.csv).
CONFIGURATIONS = ("static 10s", "static 30s", "static 60s", "static 90s", "static 120s", "Khaos")
STATIC_CI_S = {
    "static 10s": 10,
    "static 30s": 30,
    "static 60s": 60,
    "static 90s": 90,
    "static 120s": 120,
}
_LABEL_OF_KEY = dict(zip(CI_FILE_KEYS, CONFIGURATIONS, strict=True))
FAILURES_FILE = "iot_failures.txt"


def _check_experiment(experiment: str) -> None:
    if experiment not in EXPERIMENTS:
        raise ValueError(f"experiment must be one of {EXPERIMENTS}, got {experiment!r}")


def read_series_csv(path: str | os.PathLike) -> pd.Series:
    """One ``second|value`` file as a float Series indexed by second (int), header lines skipped.

    Raises ValueError if the file holds no sample or a second appears twice."""
    raw = pd.read_csv(path, sep="|", header=None, names=["second", "value"], dtype=str)
    numeric = raw["second"].str.strip().str.fullmatch(r"\d+")  # a header line is not a number
    data = raw[numeric]
    if data.empty:
        raise ValueError(f"{path}: no samples")
    series = pd.Series(
        data["value"].astype(float).to_numpy(),
        index=pd.Index(data["second"].astype(np.int64).to_numpy(), name="second"),
        name="value",
    )
    if series.index.has_duplicates:
        raise ValueError(f"{path}: a second appears more than once")
    return series.sort_index()


def _read_csv_experiment(folder: Path, experiment: str) -> pd.DataFrame:
    columns = {
        f"{metric}_{key}": read_series_csv(folder / experiment / f"{experiment}_{metric}_{key}.csv")
        for key in CI_FILE_KEYS
        for metric in METRICS
    }
    return pd.DataFrame(columns).sort_index()


def _publish(temporary: str, target: Path) -> None:
    os.chmod(temporary, 0o644)  # NamedTemporaryFile creates 0600; the copy is shared data
    os.replace(temporary, target)


def convert_to_parquet(source: str | os.PathLike, destination: str | os.PathLike) -> list[Path]:
    """Write the artifact's CSVs under ``source`` as ``destination/<exp>.parquet`` (zstd) and copy
    ``source/iot/failures.txt`` to ``destination/iot_failures.txt``; each file is written to a
    temporary name and renamed. Returns the written paths."""
    source, destination = Path(source), Path(destination)
    destination.mkdir(parents=True, exist_ok=True)
    written = []
    for experiment in EXPERIMENTS:
        table = _read_csv_experiment(source, experiment)
        target = destination / f"{experiment}.parquet"
        with tempfile.NamedTemporaryFile(dir=destination, suffix=".tmp", delete=False) as tmp:
            table.to_parquet(tmp.name, compression="zstd", compression_level=19)
        _publish(tmp.name, target)
        written.append(target)
    target = destination / FAILURES_FILE
    with tempfile.NamedTemporaryFile(dir=destination, suffix=".tmp", delete=False) as tmp:
        shutil.copyfile(source / "iot" / "failures.txt", tmp.name)
    _publish(tmp.name, target)
    written.append(target)
    return written


def load_experiment(folder: str | os.PathLike, experiment: str) -> dict[str, pd.DataFrame]:
    """All six runs of ``experiment`` ('iot' or 'ysb') from ``folder`` (Parquet copy or the CSVs).

    Returns {configuration label: DataFrame with columns thr, lat, con} on a contiguous second
    index spanning that run's samples; absent samples are NaN."""
    _check_experiment(experiment)
    folder = Path(folder)
    parquet = folder / f"{experiment}.parquet"
    csvs = [
        folder / experiment / f"{experiment}_{metric}_{key}.csv"
        for key in CI_FILE_KEYS
        for metric in METRICS
    ]
    if not parquet.exists() and not all(csv.exists() for csv in csvs):
        missing = sum(not csv.exists() for csv in csvs)
        raise FileNotFoundError(
            f"no {experiment!r} experiment in {folder}: expected {parquet.name} (the Parquet "
            f"copy) or the artifact's {len(csvs)} CSVs under {experiment}/ "
            f"({experiment}_{{thr,lat,con}}_<CI>.csv; {missing} missing, e.g. {csvs[0].name})"
        )
    table = (
        pd.read_parquet(parquet) if parquet.exists() else _read_csv_experiment(folder, experiment)
    )
    runs = {}
    for key, label in _LABEL_OF_KEY.items():
        run = table[[f"{metric}_{key}" for metric in METRICS]]
        run.columns = list(METRICS)
        seconds = run.dropna(how="all").index
        full = pd.RangeIndex(seconds.min(), seconds.max() + 1, name="second")
        runs[label] = run.reindex(full)
    return runs


_LINE = re.compile(
    r"FailureMetrics\{experimentId=(?P<experiment_id>\d+), jobId='(?P<job_id>[^']+)', "
    r"avgThr=(?P<avg_thr>[-\d.eE]+), avgLat=(?P<avg_lat>[-\d.eE]+), "
    r"recTime=(?P<rec_time_s>[-\d.eE]+)\}(?:\s*\(actual:\s*(?P<predicted_s>[-\d.eE]+)\))?"
)


def parse_failures(text: str) -> pd.DataFrame:
    """Parse iot/failures.txt: one row per ``FailureMetrics{...}`` line.

    Columns: block (0-based, blocks separated by blank lines), index_in_block, experiment_id,
    job_id, configuration (``vehicles`` is the Khaos run, ``iot_<ms>`` a static CI), avg_thr
    (events/s, mean over the 300 s before the failure), avg_lat (ms), rec_time_s (the prototype
    detector's recovery time) and predicted_s (the ``(actual: N)`` suffix, which is the recovery
    model's prediction, see the data README; NaN where absent). Within a block the rows are in the
    order of the file (increasing throughput level), not in time order."""
    rows, block, in_block = [], 0, 0
    for line in text.splitlines():
        if not line.strip():
            if in_block:
                block, in_block = block + 1, 0
            continue
        match = _LINE.fullmatch(line.strip())
        if match is None:
            raise ValueError(f"unparsable failures line: {line!r}")
        fields = match.groupdict()
        job = fields["job_id"]
        ci_key = "optimized" if job == "vehicles" else job.removeprefix("iot_")
        if ci_key not in _LABEL_OF_KEY:
            raise ValueError(f"unknown jobId {job!r}")
        rows.append(
            {
                "block": block,
                "index_in_block": in_block,
                "experiment_id": int(fields["experiment_id"]),
                "job_id": job,
                "configuration": _LABEL_OF_KEY[ci_key],
                "avg_thr": float(fields["avg_thr"]),
                "avg_lat": float(fields["avg_lat"]),
                "rec_time_s": float(fields["rec_time_s"]),
                "predicted_s": float(fields["predicted_s"] or "nan"),
            }
        )
        in_block += 1
    if not rows:
        raise ValueError("no FailureMetrics line found")
    return pd.DataFrame(rows)


def load_failures(folder: str | os.PathLike) -> pd.DataFrame:
    """The IoT failures table (:func:`parse_failures`) from ``folder/iot_failures.txt`` (project
    copy) or ``folder/iot/failures.txt`` (artifact layout)."""
    folder = Path(folder)
    path = folder / FAILURES_FILE
    if not path.exists():
        path = folder / "iot" / "failures.txt"
    return parse_failures(path.read_text())
