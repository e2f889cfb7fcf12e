"""Which notebooks ``repro reports`` reruns: those whose notebook, parameters or imported project
code changed since their last ok run (``--force`` reruns every one).

A notebook's fingerprint hashes its cells' sources (not their outputs), the profile and the
parameters it runs with, and the source of every project module its code cells import,
transitively (``pipeline.imports.source_closure``): editing one verdict module changes the
fingerprint of the notebooks that import it only, editing the index or the CLI none. The status
record of a run keeps the fingerprint it ran with. Not in it: the data files a notebook reads
(data/paper, data/khaos) and the installed libraries; ``--force`` reruns after changing those.
"""

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from pipeline.imports import source_closure


def _cells(notebook: Path) -> list[dict]:
    return json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]


def _code(source: str) -> str:
    """A cell's Python: IPython's magics and shell lines (``%``, ``!``) left out."""
    return "\n".join(
        line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))
    )


def notebook_sources(notebook: Path, roots: Sequence[Path] | None = None) -> list[Path]:
    """The project source files the notebook's code cells import, transitively."""
    code = [_code("".join(c["source"])) for c in _cells(notebook) if c["cell_type"] == "code"]
    return source_closure("\n".join(code), roots)


def fingerprint(
    notebook: Path, profile: str, params: dict, roots: Sequence[Path] | None = None
) -> str:
    """Hash of the notebook's cell sources, the profile, the parameters and its imported code."""
    digest = hashlib.sha256()
    cells = [(c["cell_type"], "".join(c["source"])) for c in _cells(notebook)]
    digest.update(json.dumps([cells, profile, params], sort_keys=True, default=repr).encode())
    for file in notebook_sources(notebook, roots):
        digest.update(file.name.encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def is_current(status_file: Path, current: str) -> bool:
    """Whether the run recorded in ``status_file`` was ok with the fingerprint ``current``."""
    try:
        status = json.loads(Path(status_file).read_text())
    except (OSError, ValueError):
        return False
    return status.get("status") == "ok" and status.get("fingerprint") == current
