"""pipeline.rerun: a notebook reruns when its cells, parameters or imported project code change,
and only then; `repro reports` skips the others unless --force."""

import json
import shutil
from pathlib import Path

import pytest

from pipeline import paths
from pipeline.cli import main
from pipeline.notebooks import available
from pipeline.rerun import fingerprint, is_current, notebook_sources

FIXTURES = Path(__file__).parent / "fixtures" / "notebooks"


def _notebook(cells) -> dict:
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _cell(kind, source, outputs=None):
    cell = {"cell_type": kind, "metadata": {}, "source": source}
    return cell | ({"outputs": outputs or [], "execution_count": None} if kind == "code" else {})


def test_the_fingerprint_follows_cells_parameters_and_imported_code(tmp_path):
    (tmp_path / "pkg").mkdir()
    for name, source in {"__init__": "", "a": "from pkg import b\n", "b": "", "c": ""}.items():
        (tmp_path / "pkg" / f"{name}.py").write_text(source)
    cells = [_cell("markdown", "# A"), _cell("code", "%matplotlib inline\nfrom pkg import a\n")]
    notebook = tmp_path / "n.ipynb"
    notebook.write_text(json.dumps(_notebook(cells)))
    roots = [tmp_path]

    def current(profile="quick", params=None):
        return fingerprint(notebook, profile, params or {"runs": 5}, roots)

    before = current()
    assert [f.name for f in notebook_sources(notebook, roots)] == ["a.py", "b.py"]
    (tmp_path / "pkg" / "c.py").write_text("x = 1\n")  # imported by nothing
    cells[1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "ran"}]
    notebook.write_text(json.dumps(_notebook(cells)))
    assert current() == before
    assert current(profile="full") != before
    assert current(params={"runs": 6}) != before
    (tmp_path / "pkg" / "b.py").write_text("x = 2\n")  # imported through pkg.a
    edited = current()
    assert edited != before
    cells[0]["source"] = "# B"
    notebook.write_text(json.dumps(_notebook(cells)))
    assert current() != edited


def test_a_verdict_module_reruns_only_the_notebooks_that_import_it():
    sources = {name: notebook_sources(paths.NOTEBOOKS / f"{name}.ipynb") for name in available()}
    verdicts = sorted((paths.ROOT / "pipeline" / "verdicts").glob("[!_]*.py"))
    assert verdicts
    for module in verdicts:
        users = {n for n, files in sources.items() if module in files}
        importers = {
            n
            for n in sources
            if f"verdicts import {module.stem} " in (paths.NOTEBOOKS / f"{n}.ipynb").read_text()
        }
        assert users == importers and users, module.name
    machinery = {paths.ROOT / "pipeline" / f for f in ("index.py", "cli.py", "notebooks.py")}
    assert not any(machinery & set(files) for files in sources.values())


def test_only_an_ok_run_with_the_same_fingerprint_is_current(tmp_path):
    status = tmp_path / "n.json"
    assert not is_current(status, "abc")  # never ran
    status.write_text(json.dumps({"status": "ok", "fingerprint": "abc"}))
    assert is_current(status, "abc") and not is_current(status, "abd")
    status.write_text(json.dumps({"status": "failed", "fingerprint": "abc"}))
    assert not is_current(status, "abc")
    status.write_text(json.dumps({"status": "ok"}))  # a record from before fingerprints
    assert not is_current(status, "abc")


@pytest.mark.notebook
def test_reports_reruns_a_changed_notebook_only_and_everything_with_force(
    tmp_path, monkeypatch, capsys
):
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    for name in ("multilevel_fixture_ok.ipynb", "profiles.toml"):
        shutil.copy(FIXTURES / name, notebooks / name)
    monkeypatch.setenv(paths.REPORTS_ENV, str(tmp_path / "reports"))
    status = tmp_path / "reports" / "status" / "multilevel_fixture_ok.json"
    argv = ["reports", "--notebooks", str(notebooks), "--profile", "quick"]

    def run(*extra):
        assert main([*argv, *extra]) == 0
        return json.loads(status.read_text())["finished"], capsys.readouterr().out

    first, _ = run()
    again, out = run()
    assert again == first and "1 notebooks unchanged since their last ok run" in out
    notebook = json.loads((notebooks / "multilevel_fixture_ok.ipynb").read_text())
    notebook["cells"].append(_cell("markdown", "One more line."))
    (notebooks / "multilevel_fixture_ok.ipynb").write_text(json.dumps(notebook))
    edited, out = run()
    assert edited != again and "unchanged" not in out
    forced, out = run("--force")
    assert forced != edited and "unchanged" not in out
