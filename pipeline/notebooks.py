"""Running the parameterized notebooks: papermill execution, profiles, HTML export, status.

Every notebook under notebooks/ has a cell tagged ``parameters`` whose values are the paper's
scale (the ``full`` profile). ``notebooks/profiles.toml`` holds the overrides of each profile::

    [multilevel_figures.quick]
    runs = 5

A run executes the notebook with the profile's values and the user's ``-p`` overrides, writes
the executed notebook and its HTML to reports/<paper>/, and a status record to
reports/status/<notebook>.json that the index reads. A failing notebook is recorded, with its
error, and never stops the others.
"""

import ast
import contextlib
import json
import logging
import os
import re
import sys
import tempfile
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pipeline import paths
from pipeline.files import write_text_atomic
from pipeline.paper import paper_of
from pipeline.report import clear_outputs

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


def available(notebooks_dir: Path = paths.NOTEBOOKS) -> list[str]:
    return sorted(p.stem for p in Path(notebooks_dir).glob("*.ipynb"))


def resolve(name: str, notebooks_dir: Path = paths.NOTEBOOKS) -> Path:
    file = Path(notebooks_dir) / f"{name}.ipynb"
    if not file.exists():
        raise UsageError(f"unknown notebook {name!r}; 'repro list' shows the notebooks")
    return file


def declared_parameters(notebook: Path) -> dict:
    """Names and default values of the notebook's ``parameters`` cell."""
    import papermill

    found = papermill.inspect_notebook(str(notebook))
    return {name: info["default"] for name, info in found.items()}


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
    """The profile's values then the overrides, each checked against the notebook's cell."""
    notebook = resolve(name, notebooks_dir)
    params = {
        **profile_parameters(name, profile, Path(notebooks_dir) / "profiles.toml"),
        **overrides,
    }
    declared = declared_parameters(notebook)
    unknown = sorted(set(params) - set(declared))
    if unknown:
        allowed = ", ".join(sorted(declared)) or "none"
        raise UsageError(f"{name} has no parameter {', '.join(unknown)} (parameters: {allowed})")
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
        (spec / "kernel.json").write_text(
            json.dumps({"argv": argv, "display_name": "stream-ft-repro", "language": "python"})
        )
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


def export_html(executed: Path, html: Path) -> None:
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter().from_filename(str(executed))
    write_text_atomic(html, body)


def run_notebook(
    name: str,
    profile: str = "full",
    overrides: dict | None = None,
    *,
    notebooks_dir: Path = paths.NOTEBOOKS,
    reports_dir: Path | None = None,
    results_dir: Path | None = None,
) -> Status:
    """Execute one notebook; never raises for a failure inside the notebook (see Status)."""
    import papermill

    params = parameters_for(name, profile, overrides or {}, notebooks_dir)
    reports = Path(reports_dir or paths.reports_dir())
    paper = paper_of(name)
    out_dir = reports / paper
    out_dir.mkdir(parents=True, exist_ok=True)
    executed, html = out_dir / f"{name}.ipynb", out_dir / f"{name}.html"
    clear_outputs(reports, name)
    status = Status(name, paper, profile, params, "ok")
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
            )
        except papermill.PapermillExecutionError as exc:
            status.status = "failed"
            status.error = _one_line(f"cell {exc.exec_count}: {exc.ename}: {exc.evalue}")
        except Exception as exc:  # kernel died, timeout, bad notebook: recorded, not raised
            status.status = "failed"
            status.error = _one_line(f"{type(exc).__name__}: {exc}")
    status.seconds = round(time.perf_counter() - began, 1)
    if executed.exists():
        try:
            export_html(executed, html)
            status.html = str(html.relative_to(reports))
        except Exception as exc:
            log.warning("HTML export of %s failed: %s", name, exc)
    write_text_atomic(reports / "status" / f"{name}.json", json.dumps(asdict(status), indent=1))
    return status


def load_statuses(reports: Path) -> list[Status]:
    return [
        Status(**json.loads(f.read_text())) for f in sorted((reports / "status").glob("*.json"))
    ]
