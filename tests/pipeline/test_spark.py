"""Java detection before Spark starts, and the session's settings."""

import os
import subprocess
import sys

import pytest

from pipeline import spark as spark_module
from pipeline.spark import JavaError, MasterError, check_java, check_master


def _fake_java(folder, version_line):
    java = folder / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text(f"#!/bin/sh\necho '{version_line}' >&2\n")
    java.chmod(0o755)
    return folder


@pytest.mark.parametrize(
    ("line", "major"),
    [
        ('openjdk version "17.0.15" 2025-04-15', 17),
        ('java version "1.8.0_292"', 8),
        ('openjdk version "21" 2023-09-19', 21),
        ('openjdk version "11.0.2" 2019-01-15', 11),
    ],
)
def test_java_version_reads_the_major_version(tmp_path, monkeypatch, line, major):
    monkeypatch.setenv("JAVA_HOME", str(_fake_java(tmp_path, line)))
    assert spark_module.java_version() == major


def test_old_java_gives_one_actionable_line(tmp_path, monkeypatch):
    monkeypatch.setenv("JAVA_HOME", str(_fake_java(tmp_path, 'openjdk version "11.0.2"')))
    with pytest.raises(JavaError, match=r"needs Java 17\+ but found Java 11") as err:
        check_java()
    assert "\n" not in str(err.value)


def test_cli_without_java_prints_one_line_and_exits_2(tmp_path):
    fixtures = os.path.join(os.path.dirname(__file__), "fixtures", "notebooks")
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = str(tmp_path)  # no java on it
    env["REPRO_REPORTS_DIR"] = str(tmp_path / "reports")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pipeline.cli",
            "run",
            "multilevel_fixture_ok",
            "--notebooks",
            fixtures,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 2
    assert out.stderr.startswith("repro: Spark needs Java 17+ and none was found")
    assert out.stderr.count("\n") == 1


@pytest.mark.spark
def test_session_settings(spark):
    conf = spark.sparkContext.getConf()
    assert conf.get("spark.ui.enabled") == "false"  # the tests turn the UI off
    assert conf.get("spark.ui.showConsoleProgress") == "false"
    assert spark.sparkContext.pythonExec == sys.executable
    # the JVM's result servers and the Python side (pyspark reads it from the JVM) wait 300 s
    assert conf.get("spark.python.authenticate.socketTimeout") == "300s"
    assert os.environ["SPARK_AUTH_SOCKET_TIMEOUT"] == "300"


def test_kernels_get_one_blas_thread_unless_the_user_chose(monkeypatch):
    from pipeline.spark import single_thread_blas

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    env = single_thread_blas()
    assert env["OMP_NUM_THREADS"] == "1" and env["OPENBLAS_NUM_THREADS"] == "4"


@pytest.mark.parametrize(
    "url", ["local", "local[*]", "local[4]", "local[2, 3]", "local-cluster[2, 1, 1024]", "yarn"]
)
def test_master_urls_of_spark_pass(url):
    assert check_master(url) == url


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("garbage://nowhere:99", "is not a master URL"),
        ("local[two]", "is not a master URL"),
        ("spark://", "is not a master URL"),
        ("spark://host-without-port", "expected spark://host:port"),
        ("spark://127.0.0.1:1", "does not answer within"),
    ],
)
def test_bad_master_urls_are_named_before_java_starts(url, message):
    with pytest.raises(MasterError, match=message):
        check_master(url, timeout=1.0)


def test_a_spark_master_that_answers_passes():
    import socket

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        url = f"spark://127.0.0.1:{server.getsockname()[1]}"
        assert check_master(url, timeout=1.0) == url


def test_java_build_names_the_exact_java(tmp_path, monkeypatch):
    java = _fake_java(tmp_path, 'openjdk version "17.0.15"\nOpenJDK Runtime (build 17.0.15+6-Deb)')
    monkeypatch.setenv("JAVA_HOME", str(java))
    assert spark_module.java_build() == "17.0.15+6-Deb"


def test_the_class_archive_is_named_by_spark_and_java_and_used_only_if_built(tmp_path, monkeypatch):
    import pyspark

    from pipeline import class_archive

    java = _fake_java(tmp_path, 'openjdk version "17.0.15"\nOpenJDK Runtime (build 17.0.15+6-Deb)')
    monkeypatch.setenv("JAVA_HOME", str(java))
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "env"))
    archive = class_archive.path()
    assert archive.name == f"spark-{pyspark.__version__}-java-17.0.15_6-Deb.jsa"
    monkeypatch.delenv(class_archive.ARCHIVE_ENV, raising=False)
    assert class_archive.java_option() == ""  # not built: Spark starts as before
    archive.parent.mkdir(parents=True)
    archive.write_bytes(b"")
    assert class_archive.java_option() == f"-XX:SharedArchiveFile={archive}"
    monkeypatch.setenv(class_archive.ARCHIVE_ENV, "0")
    assert class_archive.java_option() == ""


def test_a_sweep_worker_imports_neither_scipy_stats_nor_statsmodels():
    # A Python worker unpickles pipeline.sweep._run_task; Report's dependencies load on first use.
    code = (
        "import sys, pipeline.sweep\n"
        "from pipeline import sweep, Report\n"
        "assert callable(sweep) and sweep.__module__ == 'pipeline.sweep', sweep\n"
        "print(sorted(m for m in ('scipy.stats', 'statsmodels') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code.replace(", Report", "")], capture_output=True, text=True
    )
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stderr
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "['scipy.stats', 'statsmodels']", (
        out.stderr
    )
