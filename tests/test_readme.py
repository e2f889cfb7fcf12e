"""Every command and snippet in README.md runs as a reader would run it.

The README is parsed at test time, so a command or snippet added later is covered too. Shell
commands (```sh blocks) run in the quick profile with the output folders in a
temporary place (REPRO_REPORTS_DIR, REPRO_RESULTS_DIR, shared by all commands so a rerun of the
same sweep is cached): `repro run`/`repro reports` without --profile get `--profile quick`, and
`make reports` and `repro reports --only GLOB` run only the cheapest notebook (of those the glob
matches), whose sweeps the README's own `repro run` of it has cached. `make test` is this very
suite and is not run again.
Python snippets (```python blocks) run as written, each in a fresh interpreter.
Every number the README quotes is the reference run's (data/reference/), cited in its sentence by
claim id or table name, or the paper's (data/paper/): ``pipeline.quoted.unbacked_by_reference``.
"""

import fnmatch
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import paths, verify
from pipeline.quoted import cited, quoted, sentences, unbacked_by_reference, unbacked_text

README = paths.ROOT / "README.md"
CHEAPEST = "multilevel_tables"  # quick, and its sweep is cached for the README's own run of it
NOT_RUN = {"make test": "the test suite itself (CI runs it)"}
PAPER = paths.DATA / "paper"
notebook = pytest.mark.notebook  # runs the README's commands and snippets


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced code block."""
    return re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def shell_commands(text: str) -> list[str]:
    """The commands of the ```sh blocks, comments dropped."""
    return [
        shlex.join(words)
        for language, body in fenced_blocks(text)
        if language == "sh"
        for line in body.splitlines()
        if (words := shlex.split(line, comments=True))
    ]


def python_snippets(text: str) -> list[str]:
    return [body for language, body in fenced_blocks(text) if language == "python"]


def as_run_here(command: str) -> list[str]:
    """The command with the quick profile and the cheapest notebook where the README leaves them
    open (the full profile, or every notebook)."""
    words = shlex.split(command)
    if words[:2] == ["make", "reports"]:
        return [*words, "PROFILE=quick", f"ONLY={CHEAPEST}", f"PYTHON={sys.executable}"]
    if words[:2] == ["repro", "reports"] and "--only" in words:
        at = words.index("--only") + 1
        if fnmatch.fnmatch(CHEAPEST, words[at]):
            words[at] = CHEAPEST
    if words[0] == "repro" and words[1] in ("run", "reports") and "--profile" not in words:
        return [*words, "--profile", "quick"]
    return words


def _environment(tmp: Path) -> dict:
    return {
        **os.environ,
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
        paths.REPORTS_ENV: str(tmp / "reports"),
        paths.RESULTS_ENV: str(tmp / "results"),
    }


@notebook
def test_the_readme_is_parsed_into_its_commands_and_snippets():
    text = README.read_text()
    # Every block says what it is, so that no command escapes the tests below.
    assert all(language in ("sh", "python", "text") for language, _ in fenced_blocks(text))
    commands = shell_commands(text)
    assert "make reports" in commands and "repro list" in commands
    assert any(c.startswith("repro run multilevel_figures --profile quick -p") for c in commands)
    assert len(python_snippets(text)) >= 6
    assert as_run_here("repro run multilevel_tables")[-2:] == ["--profile", "quick"]
    assert as_run_here("repro reports --only 'multilevel_*'") == [
        "repro", "reports", "--only", CHEAPEST, "--profile", "quick"
    ]  # fmt: skip
    assert as_run_here("repro reports --only 'ppa_*'")[3] == "ppa_*"


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("readme")


@notebook
@pytest.mark.parametrize("command", shell_commands(README.read_text()))
def test_readme_command_runs(command, scratch):
    if command in NOT_RUN:
        pytest.skip(NOT_RUN[command])
    done = subprocess.run(
        as_run_here(command),
        cwd=paths.ROOT,
        env=_environment(scratch),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"


@notebook
@pytest.mark.parametrize(
    "snippet",
    python_snippets(README.read_text()),
    ids=lambda s: s.strip().splitlines()[0][:40],
)
def test_readme_python_snippet_runs(snippet, scratch):
    done = subprocess.run(
        [sys.executable, "-c", snippet],
        cwd=scratch,
        env=_environment(scratch),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"{snippet}\n{done.stderr[-3000:]}"


def _unbacked_message(text: str) -> str:
    failing = unbacked_by_reference(text, verify.REFERENCE, PAPER)
    if not failing:
        return ""
    return (
        f"{len(failing)} numbers in README.md are not in what their sentence cites (a claim id or "
        "a `table` of data/reference/, or `data/paper/<file>.csv`), rounded as quoted; after a new "
        "reference run, quote its values or cite where they are:\n" + unbacked_text(failing)
    )


def test_every_number_the_readme_quotes_is_the_reference_runs():
    message = _unbacked_message(README.read_text())
    assert not message, message


def test_the_readme_number_rule_fails_on_a_planted_wrong_number():
    planted = README.read_text() + (
        "\n\nTable 3's maximum U is 0.97535 (ML7).\n\n"  # ML7 holds 0.97435
        "The engine processes 96,500 tuples per CPU second.\n"  # cites nothing
    )
    message = _unbacked_message(planted)
    assert message.startswith("2 numbers in README.md")
    assert "'0.97535': not in ML7 (as rounded); in: ...'s maximum U is 0.97535 (ML7)" in message
    assert "'96,500': cites no claim or table" in message


def _timings_not_about(text: str) -> list[str]:
    """Numbers of a sentence citing a machine-dependent table (tolerances.toml: machine = true)
    that are not quoted as "about": a timing moves with every run."""
    _, per_table = verify.tolerances()
    machine = [t for t, tol in per_table.items() if tol.machine]
    return [
        q.text
        for sentence in sentences(text)
        if cited(sentence, [], machine)[1]
        for q in quoted(sentence)
        if not re.search(rf"\babout\s+{re.escape(q.text)}(?![\d,.])", sentence)
    ]


def test_the_readme_quotes_timings_as_about():
    assert _timings_not_about(README.read_text()) == []
    planted = "The engine processes about 140,000 and 96,500 tuples/s (`incremental_engine_speed`)."
    assert _timings_not_about(planted) == ["96,500"]
