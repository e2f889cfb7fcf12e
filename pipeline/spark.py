"""The Spark session: local mode by default, a real cluster through ``SPARK_MASTER``.

``SPARK_MASTER`` (or ``get_spark(master=...)``, or ``repro --master``) takes any Spark master URL:
``local[*]``, ``spark://host:7077`` (standalone), ``yarn``, ``k8s://https://host:443``. Executors
must run the same Python with this project installed (set ``PYSPARK_PYTHON`` on the cluster).
"""

import functools
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

log = logging.getLogger(__name__)

BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
MIN_JAVA = 17
MASTER_ENV = "SPARK_MASTER"
UI_ENV = "REPRO_SPARK_UI"  # "0" turns the web UI off (the test suite does)
DRIVER_MEMORY_ENV = "REPRO_DRIVER_MEMORY"
LOG_CONFIG = Path(__file__).with_name("log4j2.properties")


class JavaError(RuntimeError):
    """Java is missing or too old for Spark; the message is one actionable line."""


def _java_executable() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = os.path.join(home, "bin", "java")
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("java")


@functools.cache
def _java_banner(java: str) -> str | None:
    """What ``java -version`` prints (run once per executable)."""
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stderr + out.stdout


def java_version() -> int | None:
    """Major version of the Java that Spark would start, or None if there is none."""
    java = _java_executable()
    banner = _java_banner(java) if java is not None else None
    if banner is None:
        return None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', banner)
    if match is None:
        return None
    major = int(match.group(1))
    # Java 8 and older report "1.8.0_…".
    return int(match.group(2) or 0) if major == 1 else major


def java_build() -> str:
    """The exact build of the Java that Spark would start (``17.0.15+6-Debian-1deb12u1``), which
    a class archive is tied to; raises JavaError if there is no Java."""
    java = _java_executable()
    banner = _java_banner(java) if java is not None else None
    if banner is None:
        raise JavaError(f"no Java to read the build of ({java or 'java not found'})")
    match = re.search(r"\(build ([^)]+)\)", banner)
    return match.group(1) if match else banner.splitlines()[0]


def check_java() -> int:
    """Return Java's major version, or raise JavaError with a one-line fix."""
    version = java_version()
    if version is None:
        raise JavaError(
            f"Spark needs Java {MIN_JAVA}+ and none was found: install OpenJDK {MIN_JAVA} "
            f"(apt-get install openjdk-{MIN_JAVA}-jre-headless, or conda install -c conda-forge "
            f"openjdk={MIN_JAVA}) or set JAVA_HOME"
        )
    if version < MIN_JAVA:
        raise JavaError(
            f"Spark needs Java {MIN_JAVA}+ but found Java {version} "
            f"({_java_executable()}): install OpenJDK {MIN_JAVA} and point JAVA_HOME at it"
        )
    return version


def master_url(master: str | None = None) -> str:
    return master or os.environ.get(MASTER_ENV) or "local[*]"


class MasterError(ValueError):
    """A Spark master URL that cannot work; the message is one line naming the URL."""


_LOCAL = re.compile(r"^local(\[(\*|\d+)(,\s*\d+)?\])?$|^local-cluster\[\d+,\s*\d+,\s*\d+\]$")
_SCHEMES = ("spark://", "k8s://", "mesos://")
CONNECT_SECONDS = 3.0


def check_master(url: str, timeout: float = CONNECT_SECONDS) -> str:
    """Check a master URL before Java starts: its form (``local[*]``, ``local[4]``, ``yarn``,
    ``spark://host:port[,host:port]``, ``k8s://…``, ``mesos://…``) and, for ``spark://``, that
    some listed master accepts a connection within ``timeout`` seconds. Raises MasterError."""
    import socket

    known = "local, local[N], local[*], yarn, spark://host:port, k8s://https://host:port"
    if _LOCAL.match(url) or url == "yarn":
        return url
    if not url.startswith(_SCHEMES) or not url.split("://", 1)[1].strip("/"):
        raise MasterError(f"Spark master {url!r} is not a master URL; use one of: {known}")
    if url.startswith("spark://"):
        refused = []
        for address in url.removeprefix("spark://").split(","):
            host, sep, port = address.rstrip("/").rpartition(":")
            if not sep or not host or not port.isdigit():
                raise MasterError(f"Spark master {url!r}: expected spark://host:port")
            try:
                with socket.create_connection((host, int(port)), timeout=timeout):
                    return url
            except OSError as exc:
                refused.append(f"{host}:{port} ({exc.strerror or exc or type(exc).__name__})")
        raise MasterError(
            f"Spark master {url!r} does not answer within {timeout:g} s: {', '.join(refused)}"
        )
    return url


def single_thread_blas() -> dict[str, str]:
    """One BLAS/OpenMP thread per process unless the user set otherwise: sweeps already run one
    process per core, and threaded OpenBLAS made each small SciPy optimization (L-BFGS-B on a
    handful of variables) about 50x slower here through oversubscription. For the environment
    of notebook kernels and Spark's Python workers."""
    return {k: os.environ.get(k, "1") for k in BLAS_THREADS}


def get_spark(master: str | None = None, app_name: str = "stream-ft-repro", java_options: str = ""):
    """Return the active SparkSession, creating it with the project's settings if needed.

    Local settings: driver memory from ``REPRO_DRIVER_MEMORY`` (default 4g), shuffle partitions
    equal to twice the cores, Spark's own console progress bar off (sweeps draw their own), logs at
    WARN, the web UI off when ``REPRO_SPARK_UI=0``, and the driver JVM's classes mapped from the
    class archive when ``make`` built one (pipeline.class_archive). ``java_options``: more options
    for a new driver JVM.
    """
    from pyspark.sql import SparkSession

    from pipeline import class_archive

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    check_master(master_url(master))  # a bad URL, before Java starts
    check_java()
    # Python workers must use this interpreter (the project's environment) unless told otherwise.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    # Workers inherit one BLAS thread each; a BLAS library already loaded in this process keeps
    # its own setting.
    os.environ.update(single_thread_blas())
    url = master_url(master)
    if url.startswith("local"):
        # One machine: bind to loopback instead of warning that the hostname resolves to it.
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    cores = os.cpu_count() or 2
    builder = (
        SparkSession.builder.master(url)
        .appName(app_name)
        .config("spark.driver.memory", os.environ.get(DRIVER_MEMORY_ENV, "4g"))
        .config("spark.sql.shuffle.partitions", str(2 * cores))
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.ui.enabled", "false" if os.environ.get(UI_ENV) == "0" else "true")
        .config("spark.python.worker.reuse", "true")
        # Spark's 15 s for the Python side to connect to the JVM's result server and authenticate
        # ran out on a machine at load 30 (cross_frontier's cold run failed in a collect with
        # "UnboundLocalError: ... 'sockfile'"); a healthy handshake takes milliseconds.
        .config("spark.python.authenticate.socketTimeout", "300s")
        .config(
            "spark.driver.extraJavaOptions",
            " ".join(
                filter(
                    None,
                    [
                        f"-Dlog4j.configurationFile={LOG_CONFIG}",
                        class_archive.java_option(),
                        java_options,
                    ],
                )
            ),
        )
    )
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    log.info("Spark %s on %s", spark.version, url)
    return spark


def stop_spark() -> None:
    """Stop the active session (the next get_spark starts a fresh one, e.g. another master)."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        active.stop()


JVM_EXIT_S = 60.0


def stop_spark_jvm(timeout: float = JVM_EXIT_S) -> None:
    """Stop Spark and let the driver JVM exit on its own, waiting up to ``timeout`` s for it.

    For a notebook kernel about to exit: ipykernel sends SIGTERM to every process of its group on
    shutdown, and a JVM still running Spark's shutdown hook then lost the commands the hook runs
    (``getconf PAGESIZE exited with code 143``, temp folders left behind, an ERROR trace in the
    log). Here the context stops first, then the JVM sees its stdin close (pyspark's signal to
    exit) and runs its hooks with nothing left to stop."""
    from pyspark import SparkContext

    context, gateway = SparkContext._active_spark_context, SparkContext._gateway
    if context is not None:
        context.stop()
    proc = getattr(gateway, "proc", None)
    if proc is None or proc.poll() is not None:
        return
    gateway.shutdown()
    proc.stdin.close()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        log.warning("the Spark driver JVM did not exit within %g s of its stdin closing", timeout)
