"""What a run was made with: the lock's hash, the versions, the machine, the time per notebook.

Shown in the index's run facts and written beside the reference run (data/reference/metadata.json),
so a reviewer can tell whether a difference may come from another environment.
"""

import hashlib
import os
import platform
from importlib import metadata
from pathlib import Path

from pipeline import paths
from pipeline.notebooks import load_statuses
from pipeline.spark import java_version

LOCK = paths.ROOT / "requirements.lock"


def lock_hash() -> str:
    """sha256 of requirements.lock (first 16 hex digits), or "none" without a lock."""
    if not LOCK.exists():
        return "none"
    return hashlib.sha256(LOCK.read_bytes()).hexdigest()[:16]


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gb() -> float | None:
    try:
        return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):  # not a POSIX system
        return None


def run_metadata(reports: Path) -> dict:
    """Commit, lock hash, Python, Java, Spark, machine and seconds per notebook of the run whose
    status records are in ``reports/status``. The versions and the machine are read where this
    runs: call it in the run's own environment, right after the run (``repro reference``)."""
    statuses = load_statuses(reports)

    def distinct(key: str) -> list:
        return sorted({str(getattr(s, key)) for s in statuses if getattr(s, key)})

    try:
        spark = metadata.version("pyspark")
    except metadata.PackageNotFoundError:
        spark = "not installed"
    return {
        "commit": distinct("commit"),
        "profile": distinct("profile"),
        "master": distinct("master"),
        "started": min((s.started for s in statuses if s.started), default=""),
        "finished": max((s.finished for s in statuses if s.finished), default=""),
        "lock_sha256": lock_hash(),
        "python": platform.python_version(),
        "java": java_version(),
        "spark": spark,
        "machine": {
            "system": f"{platform.system()} {platform.machine()}",
            "cpus": os.cpu_count(),
            "cpu": _cpu_model(),
            "memory_gb": _memory_gb(),
        },
        "total_seconds": round(sum(float(s.seconds) for s in statuses), 1),
        "seconds": {s.notebook: round(float(s.seconds), 1) for s in statuses},
        "status": {s.notebook: s.status for s in statuses},
    }
