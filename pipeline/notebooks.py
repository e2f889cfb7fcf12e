"""Running the parameterized notebooks: papermill execution, profiles, HTML export, status.

Every notebook under notebooks/ has a cell tagged ``parameters`` whose values are the paper's
scale (the ``full`` profile). ``notebooks/profiles.toml`` holds the overrides of each profile::

    [multilevel_figures.quick]
    runs = 5

A run executes the notebook with the profile's values and the user's ``-p`` overrides, writes
the executed notebook and its HTML to reports/<paper>/, and a status record to
reports/status/<notebook>.json that the index reads. A failing notebook is recorded, with its
error, and never stops the others. Parameter values are checked against the type of the cell's
defaults (pipeline.parameters) before any kernel starts.
"""

import ast
import contextlib
import json
import logging
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TextIO

from pipeline import paths
from pipeline.export import export_html
from pipeline.files import write_text_atomic
from pipeline.paper import paper_of
from pipeline.parameters import mismatch
from pipeline.progress import ProgressLine
from pipeline.report import clear_outputs
from pipeline.rerun import fingerprint
from pipeline.spark import master_url, single_thread_blas

log = logging.getLogger(__name__)

PROFILES = ("quick", "full")
KERNEL_NAME = "stream-ft-repro"
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class UsageError(ValueError):
    """A bad notebook name, profile or parameter: the CLI prints it as one line, exit code 2."""


@dataclass
class Status:
    notebook: str
    paper: str
    profile: str
    parameters: dict
    status: str  # "ok" or "failed"
    error: str = ""
    seconds: float = 0.0
    html: str = ""
    finished: str = field(default_factory=lambda: time.strftime("%Y-%m-%d %H:%M:%S"))
    master: str = ""  # Spark master URL the notebook's sweeps used
    commit: str = ""  # git commit of the code, "+" when the work tree had changes
    fingerprint: str = ""  # of the notebook, its parameters and imported code (pipeline.rerun)


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
        raise UsageError(f"malformed parameter {text!r}: expected key=value, e.g. -p runs=100")
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        value = raw
    return key, value


def profile_parameters(name: str, profile: str, profiles_file: Path) -> dict:
    if profile not in PROFILES:
        raise UsageError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    if not Path(profiles_file).exists():
        return {}
    table = tomllib.loads(Path(profiles_file).read_text())
    return dict(table.get(name, {}).get(profile, {}))


def parameters_for(
    name: str, profile: str, overrides: dict, notebooks_dir: Path = paths.NOTEBOOKS
) -> dict:
    """The profile's values then the overrides, each checked against the notebook's cell:
    its name, and the type and shape of its default."""
    notebook = resolve(name, notebooks_dir)
    from_profile = profile_parameters(name, profile, Path(notebooks_dir) / "profiles.toml")
    params = {**from_profile, **overrides}
    declared = declared_parameters(notebook)
    unknown = sorted(set(params) - set(declared))
    if unknown:
        allowed = ", ".join(sorted(declared)) or "none"
        raise UsageError(f"{name} has no parameter {', '.join(unknown)} (parameters: {allowed})")
    for key, value in params.items():
        problem = mismatch(key, value, declared[key])
        if problem:
            where = "" if key in overrides else f" (profiles.toml [{name}.{profile}])"
            raise UsageError(f"{name}: {problem}{where}")
    return params


@contextlib.contextmanager
def _kernel_environment(reports: Path, results: Path | None):
    """A kernel spec for this very interpreter, and the output folders, for the kernels."""
    saved = {k: os.environ.get(k) for k in ("JUPYTER_PATH", paths.REPORTS_ENV, paths.RESULTS_ENV)}
    with tempfile.TemporaryDirectory(prefix="repro-kernel-") as tmp:
        spec = Path(tmp) / "kernels" / KERNEL_NAME
        spec.mkdir(parents=True)
        # Log level ERROR: the kernel's start-up warnings are noise here; cell errors still
        # reach the executed notebook.
        argv = [
            sys.executable,
            "-m",
            "ipykernel_launcher",
            "-f",
            "{connection_file}",
            "--IPKernelApp.log_level=ERROR",
        ]
        kernel = {"argv": argv, "display_name": "stream-ft-repro", "language": "python"}
        (spec / "kernel.json").write_text(json.dumps(kernel | {"env": single_thread_blas()}))
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


def run_notebook(
    name: str,
    profile: str = "full",
    overrides: dict | None = None,
    *,
    notebooks_dir: Path = paths.NOTEBOOKS,
    reports_dir: Path | None = None,
    results_dir: Path | None = None,
    progress: TextIO | None = None,
) -> Status:
    """Execute one notebook; never raises for a failure inside the notebook (see Status).

    ``progress``: a terminal to show the notebook's progress bars on while it runs.
    """
    import papermill

    params = parameters_for(name, profile, overrides or {}, notebooks_dir)
    reports = Path(reports_dir or paths.reports_dir())
    paper = paper_of(name)
    out_dir = reports / paper
    out_dir.mkdir(parents=True, exist_ok=True)
    executed, html = out_dir / f"{name}.ipynb", out_dir / f"{name}.html"
    clear_outputs(reports, name)
    status = Status(name, paper, profile, params, "ok", master=master_url(), commit=git_commit())
    status.fingerprint = fingerprint(resolve(name, notebooks_dir), profile, params)
    line = ProgressLine(name, progress) if progress is not None else None
    began = time.perf_counter()
    with _kernel_environment(reports, results_dir):
        try:
            papermill.execute_notebook(
                str(resolve(name, notebooks_dir)),
                str(executed),
                parameters=params,
                kernel_name=KERNEL_NAME,
                cwd=str(notebooks_dir),
                progress_bar=False,
                stderr_file=line,
            )
        except papermill.PapermillExecutionError as exc:
            status.status = "failed"
            status.error = _one_line(f"cell {exc.exec_count}: {exc.ename}: {exc.evalue}")
        except Exception as exc:  # kernel died, timeout, bad notebook: recorded, not raised
            status.status = "failed"
            status.error = _one_line(f"{type(exc).__name__}: {exc}")
        finally:
            if line is not None:
                line.close()
    status.seconds = round(time.perf_counter() - began, 1)
    if executed.exists():
        try:
            export_html(executed, html, reports)
            status.html = str(html.relative_to(reports))
        except Exception as exc:
            log.warning("HTML export of %s failed: %s", name, exc)
    write_text_atomic(reports / "status" / f"{name}.json", json.dumps(asdict(status), indent=1))
    return status


def load_statuses(reports: Path) -> list[Status]:
    return [
        Status(**json.loads(f.read_text())) for f in sorted((reports / "status").glob("*.json"))
    ]
