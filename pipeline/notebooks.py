"""Running the parameterized notebooks: papermill execution, profiles, HTML export, status.

Every notebook under notebooks/ has a cell tagged ``parameters`` whose values are the paper's
scale (the ``full`` profile). ``notebooks/profiles.toml`` holds the overrides of each profile::

    [multilevel_figures.quick]
    runs = 5

A run executes the notebook with the profile's values and the user's ``-p`` overrides. Everything
it writes (executed notebook and HTML, figures, tables, scorecard rows, manifest, the kernel's log)
goes to reports/.staging/<notebook>/ first and replaces the previous outputs only when the run
finishes, with a status record in reports/status/<notebook>.json that the index reads (profile,
overrides, start and end). A failed or interrupted run leaves the last complete run in place and
is noted on its status (``later``); a run killed outright leaves its staging folder, which the
index reports as interrupted (``unfinished_runs``). A failing notebook never stops the others.
Parameter values are checked against the type of the cell's defaults and the ranges declared in
profiles.toml (pipeline.parameters) before any kernel starts. The kernel's own output (the JVM's
and Spark's messages) goes to reports/logs/<notebook>.log, not into the notebook.
"""

import ast
import contextlib
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TextIO

from pipeline import paths
from pipeline.export import export_html
from pipeline.files import write_text_atomic
from pipeline.paper import paper_of
from pipeline.parameters import emptiness, mismatch, out_of_range
from pipeline.progress import ProgressLine
from pipeline.report import clear_outputs, manifest_file
from pipeline.rerun import fingerprint
from pipeline.spark import UI_ENV, master_url, single_thread_blas

log = logging.getLogger(__name__)

PROFILES = ("quick", "full")
KERNEL_NAME = "stream-ft-repro"
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class UsageError(ValueError):
    """A bad notebook name, profile or parameter: the CLI prints it as one line, exit code 2."""


FAILED, INTERRUPTED, OK = "failed", "interrupted", "ok"
STAGING = ".staging"  # reports/.staging/<notebook>/: a run's outputs until it finishes


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S")


@dataclass
class Status:
    notebook: str
    paper: str
    profile: str
    parameters: dict
    status: str  # OK, FAILED or INTERRUPTED
    error: str = ""
    seconds: float = 0.0
    html: str = ""
    finished: str = field(default_factory=_now)  # when the run ended
    master: str = ""  # Spark master URL the notebook's sweeps used
    commit: str = ""  # git commit of the code, "+" when the work tree had changes
    fingerprint: str = ""  # of the notebook, its parameters and imported code (pipeline.rerun)
    started: str = ""
    overrides: dict = field(default_factory=dict)  # the user's -p values (in ``parameters`` too)
    log: str = ""  # the kernel's own output (JVM and Spark warnings), relative to reports/
    # A later run that failed or was interrupted and left these outputs in place: its status,
    # started, finished, error, profile, overrides, html (the failed page, if any).
    later: dict = field(default_factory=dict)

    @classmethod
    def read(cls, file: Path) -> "Status":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in json.loads(Path(file).read_text()).items() if k in known})


def available(notebooks_dir: Path = paths.NOTEBOOKS) -> list[str]:
    return sorted(p.stem for p in Path(notebooks_dir).glob("*.ipynb"))


def resolve(name: str, notebooks_dir: Path = paths.NOTEBOOKS) -> Path:
    file = Path(notebooks_dir) / f"{name}.ipynb"
    if not file.exists():
        raise UsageError(f"unknown notebook {name!r}; 'repro list' shows the notebooks")
    return file


def declared_parameters(notebook: Path) -> dict[str, str]:
    """Names and default values (source text) of the assignments in the notebook's cell tagged
    ``parameters``. Read with ``ast``, not papermill, so that a usage error is reported before
    the (slow) import of the notebook machinery."""
    for cell in json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "code" and "parameters" in cell["metadata"].get("tags", []):
            source = "".join(cell["source"])
            try:
                body = ast.parse(source).body
            except SyntaxError as exc:
                raise UsageError(f"{notebook.name}: parameters cell: {exc}") from None
            return {
                target.id: ast.get_source_segment(source, node.value)
                for node in body
                if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                if isinstance(target, ast.Name)
            }
    return {}


def parse_assignment(text: str) -> tuple[str, object]:
    """``key=value`` from the command line; the value is a Python literal, else a string."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not _KEY.match(key):
        raise UsageError(f"malformed parameter {text!r}: expected key=value, e.g. -p seed=1")
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        value = raw
    return key, value


def _profiles(profiles_file: Path) -> dict:
    return tomllib.loads(Path(profiles_file).read_text()) if Path(profiles_file).exists() else {}


def profile_parameters(name: str, profile: str, profiles_file: Path) -> dict:
    if profile not in PROFILES:
        raise UsageError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    return dict(_profiles(profiles_file).get(name, {}).get(profile, {}))


def declared_ranges(name: str, profiles_file: Path) -> dict[str, str]:
    """The allowed values of a notebook's parameters (``[NAME.ranges]`` in profiles.toml)."""
    return dict(_profiles(profiles_file).get(name, {}).get("ranges", {}))


def parameters_for(
    name: str, profile: str, overrides: dict, notebooks_dir: Path = paths.NOTEBOOKS
) -> dict:
    """The profile's values then the overrides, each checked against the notebook's cell (its
    name, and the type and shape of its default) and the range declared in profiles.toml."""
    notebook = resolve(name, notebooks_dir)
    profiles_file = Path(notebooks_dir) / "profiles.toml"
    from_profile = profile_parameters(name, profile, profiles_file)
    params = {**from_profile, **overrides}
    declared = declared_parameters(notebook)
    unknown = sorted(set(params) - set(declared))
    if unknown:
        allowed = ", ".join(sorted(declared)) or "none"
        raise UsageError(f"{name} has no parameter {', '.join(unknown)} (parameters: {allowed})")
    ranges = declared_ranges(name, profiles_file)
    for key, value in params.items():
        problem = (
            mismatch(key, value, declared[key])
            or emptiness(key, value, declared[key])
            or (out_of_range(key, value, ranges[key]) if key in ranges else None)
        )
        if problem:
            where = "" if key in overrides else f" (profiles.toml [{name}.{profile}])"
            raise UsageError(f"{name}: {problem}{where}")
    return params


# The kernel process writes its own output (the JVM's warnings, the kernel's "KeyboardInterrupt
# caught in kernel") to a log file: fd-level output is not captured into the notebook, while what
# cells print (and tqdm bars) still is. On shutdown it stops Spark and waits for the driver JVM
# before ipykernel signals its children (pipeline.spark.stop_spark_jvm).
_KERNEL = (
    "import os, sys\n"
    "fd = os.open(sys.argv.pop(1), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)\n"
    "os.dup2(fd, 1); os.dup2(fd, 2); os.close(fd)\n"
    "from ipykernel import kernelapp\n"
    "from ipykernel.ipkernel import IPythonKernel\n"
    "class Kernel(IPythonKernel):\n"
    "    def do_shutdown(self, restart):\n"
    "        if 'pyspark' in sys.modules:\n"
    "            from pipeline.spark import stop_spark_jvm\n"
    "            stop_spark_jvm()\n"
    "        return super().do_shutdown(restart)\n"
    "kernelapp.IPKernelApp.launch_instance(kernel_class=Kernel)\n"
)
# How long the kernel may take to exit after the shutdown request before jupyter_client signals
# its process group (SIGTERM at half of it): room for stop_spark_jvm on a loaded machine.
SHUTDOWN_WAIT_S = 2 * 60.0
# How long papermill waits, after a cell's reply, for the kernel's last output and idle message
# (nbclient's default, 4 s, and papermill raises when it passes): a sweep a cell started in a
# background thread keeps both cores and the kernel's output busy after the cell returns.
IOPUB_TIMEOUT_S = 60.0


@contextlib.contextmanager
def _kernel_environment(reports: Path, results: Path | None, log_file: Path):
    """A kernel spec for this very interpreter, and the output folders, for the kernels."""
    saved = {k: os.environ.get(k) for k in ("JUPYTER_PATH", paths.REPORTS_ENV, paths.RESULTS_ENV)}
    with tempfile.TemporaryDirectory(prefix="repro-kernel-") as tmp:
        spec = Path(tmp) / "kernels" / KERNEL_NAME
        spec.mkdir(parents=True)
        # Log level ERROR: the kernel's start-up warnings are noise here; cell errors still
        # reach the executed notebook.
        argv = [
            sys.executable,
            "-c",
            _KERNEL,
            str(log_file),
            "-f",
            "{connection_file}",
            "--IPKernelApp.log_level=ERROR",
            "--IPKernelApp.capture_fd_output=False",
        ]
        kernel = {"argv": argv, "display_name": "stream-ft-repro", "language": "python"}
        # No Spark web UI in a kernel unless asked for (REPRO_SPARK_UI=1): nobody sees a papermill
        # kernel's UI, and starting it cost about 1 CPU-s of each notebook's Spark start.
        env = single_thread_blas() | {UI_ENV: os.environ.get(UI_ENV, "0")}
        (spec / "kernel.json").write_text(json.dumps(kernel | {"env": env}))
        os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [tmp, saved["JUPYTER_PATH"]]))
        os.environ[paths.REPORTS_ENV] = str(reports)
        if results is not None:
            os.environ[paths.RESULTS_ENV] = str(results)
        try:
            yield
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def _one_line(text: str, limit: int = 300) -> str:
    # Error values from kernels carry ANSI colour codes and newlines.
    plain = re.sub(r"\x1b\[[0-9;]*m", "", str(text))
    line = " ".join(plain.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def git_commit() -> str:
    """Short commit of the project's work tree, "+" if it has uncommitted changes; "" if none."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=paths.ROOT, capture_output=True, text=True
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=paths.ROOT,
            capture_output=True,
            text=True,
        )
    except OSError:  # no git
        return ""
    if head.returncode != 0:
        return ""
    return head.stdout.strip() + ("+" if dirty.stdout.strip() else "")


def staging_dir(reports: Path, name: str) -> Path:
    return Path(reports) / STAGING / name


def status_file(reports: Path, name: str) -> Path:
    return Path(reports) / "status" / f"{name}.json"


def run_notebook(
    name: str,
    profile: str = "full",
    overrides: dict | None = None,
    *,
    notebooks_dir: Path = paths.NOTEBOOKS,
    reports_dir: Path | None = None,
    results_dir: Path | None = None,
    progress: TextIO | None = None,
    live: bool = True,
) -> Status:
    """Execute one notebook; never raises for a failure inside the notebook (see Status).

    The run writes into reports/.staging/<name>/ (the kernel's reports folder); only a finished
    run replaces the notebook's previous outputs (``_publish``). A failed or interrupted run
    leaves the last complete run's outputs in place and is noted in its status (``later``).
    Ctrl-C is recorded as an interrupted run, then raised again.

    ``progress``: where to show the notebook's progress bars while it runs; ``live`` redraws one
    line (a terminal), else a plain line now and then (a log).
    """
    import papermill
    from traitlets.config import Config

    overrides = dict(overrides or {})
    params = parameters_for(name, profile, overrides, notebooks_dir)
    reports = Path(reports_dir or paths.reports_dir())
    paper = paper_of(name)
    stage = staging_dir(reports, name)
    shutil.rmtree(stage, ignore_errors=True)  # what an earlier, killed run left
    (stage / paper).mkdir(parents=True)
    (stage / "logs").mkdir()
    status = Status(
        name,
        paper,
        profile,
        params,
        OK,
        master=master_url(),
        commit=git_commit(),
        started=_now(),
        overrides=overrides,
        log=f"logs/{name}.log",
        fingerprint=fingerprint(resolve(name, notebooks_dir), profile, params),
    )
    # Read by the index while the run is under way, or after it was killed (SIGKILL, power).
    write_text_atomic(stage / "run.json", json.dumps(asdict(status) | {"pid": os.getpid()}))
    executed = stage / paper / f"{name}.ipynb"
    line = ProgressLine(name, progress, live=live) if progress is not None else None
    began = time.perf_counter()
    interrupted = False
    with _kernel_environment(stage, results_dir, stage / status.log):
        try:
            papermill.execute_notebook(
                str(resolve(name, notebooks_dir)),
                str(executed),
                parameters=params,
                kernel_name=KERNEL_NAME,
                cwd=str(notebooks_dir),
                progress_bar=False,
                stderr_file=line,
                config=Config(KernelManager={"shutdown_wait_time": SHUTDOWN_WAIT_S}),
                iopub_timeout=IOPUB_TIMEOUT_S,
            )
        except KeyboardInterrupt:
            interrupted = True
            status.status, status.error = INTERRUPTED, "interrupted (Ctrl-C)"
        except papermill.PapermillExecutionError as exc:
            interrupted = exc.ename == "KeyboardInterrupt"
            status.status = INTERRUPTED if interrupted else FAILED
            status.error = _one_line(f"cell {exc.exec_count}: {exc.ename}: {exc.evalue}")
        except Exception as exc:  # kernel died, timeout, bad notebook: recorded, not raised
            status.status = FAILED
            status.error = _one_line(f"{type(exc).__name__}: {exc}")
        finally:
            if line is not None:
                line.close()
    status.seconds = round(time.perf_counter() - began, 1)
    status.finished = _now()
    if executed.exists() and not interrupted:
        html = stage / paper / f"{name}.html"
        try:
            export_html(executed, html, reports, url_from=reports / paper)
            status.html = f"{paper}/{name}.html"
        except Exception as exc:
            log.warning("HTML export of %s failed: %s", name, exc)
    _publish(stage, reports, status)
    if interrupted:
        raise KeyboardInterrupt
    return status


def _files(folder: Path) -> list[Path]:
    return sorted(p.relative_to(folder) for p in folder.rglob("*") if p.is_file())


def _publish(stage: Path, reports: Path, status: Status) -> None:
    """Move a finished run's outputs from ``stage`` into reports/, or keep the last complete run.

    A run that finished (ok) replaces the notebook's previous outputs, file by file, then its
    status. A failed or interrupted run after a complete one leaves that run's outputs and adds a
    note (``later``), with the failed page kept beside as <name>.failed.html. A failed run with
    no complete run before it is published, as failed (the index counts none of its verdicts); an
    interrupted one publishes only its status.
    """
    name, paper = status.notebook, status.paper
    (stage / "run.json").unlink(missing_ok=True)
    for folder in (reports / paper, reports / "logs"):
        folder.mkdir(parents=True, exist_ok=True)
    previous_file = status_file(reports, name)
    previous = Status.read(previous_file) if previous_file.exists() else None
    if status.status != OK and previous is not None and previous.status == OK:
        later = {k: getattr(status, k) for k in ("status", "started", "finished", "error")}
        later |= {"profile": status.profile, "overrides": status.overrides, "html": ""}
        for suffix in ("ipynb", "html"):
            page = stage / paper / f"{name}.{suffix}"
            if page.exists():
                os.replace(page, reports / paper / f"{name}.failed.{suffix}")
                later["html"] = f"{paper}/{name}.failed.html" if suffix == "html" else ""
        if (stage / status.log).exists():
            os.replace(stage / status.log, reports / "logs" / f"{name}.failed.log")
            later["log"] = f"logs/{name}.failed.log"
        previous.later = later
        write_text_atomic(previous_file, json.dumps(asdict(previous), indent=1))
    elif status.status == INTERRUPTED:
        status.html, status.log = "", ""
        clear_outputs(reports, name)
        write_text_atomic(previous_file, json.dumps(asdict(status), indent=1))
    else:
        manifest = manifest_file(reports, name)
        old = json.loads(manifest.read_text()) if manifest.exists() else {}
        clear_outputs(reports, name)
        for entry in old.get("figures", []) + old.get("tables", []):
            for key in ("png", "svg", "csv"):
                if key in entry:
                    (reports / entry[key]).unlink(missing_ok=True)
        for stale in (f"{name}.failed.ipynb", f"{name}.failed.html"):
            (reports / paper / stale).unlink(missing_ok=True)
        for relative in _files(stage):
            target = reports / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(stage / relative, target)
        if not (reports / status.log).exists():
            status.log = ""
        write_text_atomic(previous_file, json.dumps(asdict(status), indent=1))
    shutil.rmtree(stage, ignore_errors=True)


def unfinished_runs(reports: Path) -> list[Status]:
    """Runs under way, or killed before they could record anything (their staging folder is
    still there and its process is gone): status "running" or "interrupted"."""
    found = []
    for marker in sorted(Path(reports).glob(f"{STAGING}/*/run.json")):
        try:
            record = json.loads(marker.read_text())
        except (OSError, ValueError):
            continue
        pid = record.pop("pid", None)
        status = Status(**{k: v for k, v in record.items() if k in _FIELDS})
        if _alive(pid):
            status.status, status.error = "running", f"running since {status.started}"
        else:
            status.status = INTERRUPTED
            status.error = "the run stopped before it finished (its process was killed)"
            status.finished = ""
        found.append(status)
    return found


_FIELDS = {f.name for f in fields(Status)}


def _alive(pid) -> bool:
    if not isinstance(pid, int):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def load_statuses(reports: Path) -> list[Status]:
    return [Status.read(f) for f in sorted((Path(reports) / "status").glob("*.json"))]
