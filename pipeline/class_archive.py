"""The driver JVM's class-data-sharing archive (AppCDS, JDK 13+): Spark's classes read and
verified once, then mapped by every later session.

Most of the 9-11 CPU-s of a Spark start in local mode is the driver JVM loading and verifying
Spark's classes; with this archive the session started in 5-6 CPU-s and a first small SQL job
took 4 instead of 6 (2 cores, measured side by side at load 12-19), while the 73 M-row Q1 job of
ppa_query_accuracy ran as before. ``make reports`` and ``make test`` build it once per Python
environment (``python -m pipeline.class_archive``): a short training session runs with
``-XX:ArchiveClassesAtExit`` and the JVM writes the classes it loaded when it exits.
``pipeline.spark.get_spark`` adds ``-XX:SharedArchiveFile`` when the archive exists.

The archive is valid only for the Java build and the Spark jars it was made with, so its name
carries both (``path``); a JVM that still cannot use it says so in the kernel log and starts as
before, without it. ``REPRO_SPARK_ARCHIVE=0`` leaves it out.
"""

import logging
import os
import subprocess
import sys
from pathlib import Path

from pipeline.spark import check_java, java_build

log = logging.getLogger(__name__)

ARCHIVE_ENV = "REPRO_SPARK_ARCHIVE"
DUMP_SECONDS = 1800  # the JVM writes the archive (about 160 MB) as it exits: 7 min at load 17


def path() -> Path:
    """Where the archive of this environment's Spark and the current Java lives."""
    import pyspark

    build = "".join(c if c.isalnum() or c in ".-" else "_" for c in java_build())
    return (
        Path(sys.prefix)
        / "share"
        / "stream-ft-repro"
        / f"spark-{pyspark.__version__}-java-{build}.jsa"
    )


def java_option() -> str:
    """``-XX:SharedArchiveFile=…`` for the driver JVM if the archive exists and is wanted."""
    if os.environ.get(ARCHIVE_ENV) == "0":
        return ""
    try:
        archive = path()
    except (OSError, RuntimeError):  # no Java: get_spark reports that itself
        return ""
    return f"-XX:SharedArchiveFile={archive}" if archive.is_file() else ""


def _train(target: str) -> None:
    """Child process: a session that loads the classes the notebooks' jobs use (SQL aggregates and
    joins, Arrow transfers both ways, pandas UDFs, Python RDD tasks as in sweeps), then a JVM exit
    that writes them to ``target``."""
    from pipeline.spark import get_spark

    spark = get_spark("local[2]", java_options=f"-XX:ArchiveClassesAtExit={target}")
    proc = spark.sparkContext._gateway.proc
    df = spark.range(100_000).selectExpr("id % 97 AS k", "rand(0) AS x")
    df.groupBy("k").agg({"x": "sum"}).join(df.groupBy("k").count(), "k").orderBy("k").toPandas()
    pdf = df.limit(1000).toPandas()
    spark.createDataFrame(pdf).groupBy("k").applyInPandas(lambda g: g.head(1), df.schema).count()
    spark.sparkContext.parallelize(range(8), 2).map(lambda v: v * v).collect()
    spark.stop()
    proc.stdin.close()  # the JVM exits on end of input, writing the archive
    proc.wait(timeout=DUMP_SECONDS)


def build(force: bool = False) -> Path | None:
    """Build the archive unless it exists (or ``force``); None, with a warning, if it cannot be
    built (no Java, a read-only environment, a failed training run): Spark then starts without."""
    try:
        check_java()
        target = path()
        if target.is_file() and not force:
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
    except (OSError, RuntimeError) as exc:
        log.warning("no Spark class archive: %s", exc)
        return None
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    log.warning(
        "building the Spark class archive %s (once per environment: a minute or more)", target
    )
    env = {**os.environ, ARCHIVE_ENV: "0", "REPRO_SPARK_UI": "0"}
    code = f"from pipeline.class_archive import _train; _train({str(partial)!r})"
    run = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=2 * DUMP_SECONDS,
    )
    if run.returncode != 0 or not partial.is_file():
        partial.unlink(missing_ok=True)
        tail = (run.stderr or run.stdout).strip().splitlines()[-3:]
        log.warning("the Spark class archive was not built: %s", " | ".join(tail))
        return None
    os.replace(partial, target)
    return target


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    built = build(force="--force" in sys.argv[1:])
    if built is not None:
        print(f"Spark class archive: {built}")
