"""Notebook runner and report builder, on the fixture notebooks under fixtures/notebooks/."""

import contextlib
import importlib.resources
import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from pipeline import paths
from pipeline.cli import main
from pipeline.export import mathjax_dir
from pipeline.index import claim_anchors, stylesheet
from pipeline.notebooks import UsageError, parameters_for, parse_assignment
from pipeline.scorecard import LEGEND, VERDICTS
from pipeline.spark import MASTER_ENV

FIXTURES = Path(__file__).parent / "fixtures" / "notebooks"
pytestmark = pytest.mark.notebook

# An asset fetched from another host: a script, stylesheet, image or font by src/href, a CSS
# @import or url(), or a JavaScript module import. Links to papers (<a href>) are not assets.
REMOTE_ASSET = re.compile(
    r"<(?:script|link|img|source|iframe)\b[^>]*\b(?:src|href)\s*=\s*[\"']?(?:https?:)?//"
    r"|@import\s+(?:url\()?[\"']?(?:https?:)?//"
    r"|url\(\s*[\"']?(?:https?:)?//"
    r"|import\(\s*[\"'](?:https?:)?//",
    re.IGNORECASE,
)


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def reports(tmp_path, monkeypatch):
    monkeypatch.setenv(paths.REPORTS_ENV, str(tmp_path / "reports"))
    monkeypatch.setenv(paths.RESULTS_ENV, str(tmp_path / "results"))
    return tmp_path / "reports"


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    """`repro reports --profile quick` over the fixtures, run once, on a (fake) terminal."""
    root = tmp_path_factory.mktemp("quick")
    terminal = _Terminal()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(terminal):
        mp.setenv(paths.REPORTS_ENV, str(root / "reports"))
        mp.setenv(paths.RESULTS_ENV, str(root / "results"))
        code = main(["reports", "--notebooks", str(FIXTURES), "--profile", "quick"])
    reports = root / "reports"
    return SimpleNamespace(
        code=code,
        reports=reports,
        out=terminal.getvalue(),
        index=(reports / "index.html").read_text(),
    )


def test_reports_records_failure_and_finishes_the_rest(quick):
    reports, index = quick.reports, quick.index
    assert quick.code == 1  # one notebook failed

    assert "Failed and interrupted runs" in index
    assert "khaos_fixture_fails" in index and "deliberate failure x=1" in index
    status = json.loads((reports / "status" / "khaos_fixture_fails.json").read_text())
    assert status["status"] == "failed" and "ValueError: deliberate failure x=1" in status["error"]
    # The failed notebook's HTML exists, with the traceback in it, and is linked.
    assert (reports / "khaos" / "khaos_fixture_fails.html").exists()
    assert 'href="khaos/khaos_fixture_fails.html"' in index

    # The other notebooks ran in the quick profile, with their figure, table and verdicts.
    ok = json.loads((reports / "status" / "multilevel_fixture_ok.json").read_text())
    assert ok["status"] == "ok" and ok["parameters"] == {"value": 0.8, "label": "quick"}
    assert (reports / "multilevel" / "multilevel_fixture_ok.html").exists()
    for suffix in ("png", "svg"):
        assert (reports / "multilevel" / "figures" / f"fixture_fig.{suffix}").stat().st_size > 0
    assert "Fixture figure (quick)" in index
    table = pd.read_csv(reports / "tables" / "multilevel_section4_3.csv")
    printed = pd.read_csv(paths.PAPER_DATA / "multilevel_section4_3.csv")
    assert list(table.columns) == list(printed.columns)

    card = pd.read_csv(reports / "scorecard.csv").set_index("claim")
    assert card.loc["ML1", "verdict"] == "not reproduced"  # 0.8 vs 0.8206 at atol 5e-5
    assert card.loc["ML3", "verdict"] == "partly"
    assert "value above 1" in card.loc["ML3", "reason"]
    assert "index:" in quick.out


def test_no_produced_page_fetches_from_another_host(quick):
    pages = sorted(quick.reports.rglob("*.html"))
    assert len(pages) == 4  # index and the three notebooks
    for page in pages:
        text = page.read_text()
        assert not REMOTE_ASSET.search(text), f"{page.name}: {REMOTE_ASSET.search(text)[0]}"
    # The pattern does catch what nbconvert's stock template would write.
    for remote in (
        '<script src="https://cdnjs.cloudflare.com/ajax/libs/require.js/2.1.10/require.min.js">',
        "<link rel=stylesheet href='//fonts.googleapis.com/css?family=Roboto'>",
        '@import url("https://fonts.googleapis.com/css2?family=Inter");',
        "src: url(https://example.org/font.woff2)",
        'const m = (await import("https://cdnjs.cloudflare.com/mermaid.esm.min.mjs"))',
    ):
        assert REMOTE_ASSET.search(remote), remote
    assert not REMOTE_ASSET.search('<a href="https://doi.org/10.1109/ICDE.2016.7498295">')


def test_notebook_math_is_typeset_by_the_local_mathjax(quick):
    page = quick.reports / "multilevel" / "multilevel_fixture_math.html"
    text = page.read_text()
    # The TeX reaches the page as MathJax reads it: SymPy's output and the markdown's math.
    assert r"$\displaystyle \frac{1}{\lambda}$" in text
    assert r"\sum_{i=1}^{L} p_i c_i" in text
    scripts = re.findall(r'<script[^>]*\bsrc="([^"]+)"', text)
    assert scripts == ["../assets/mathjax/tex-svg-full.js"]
    script = (page.parent / scripts[0]).resolve()
    assert script == (mathjax_dir(quick.reports) / "tex-svg-full.js").resolve()
    # MathJax 3's single-file TeX-to-SVG component, from the installed package.
    shipped = (
        importlib.resources.files("mathjax") / "static" / "mathjax" / "es5" / "tex-svg-full.js"
    )
    assert script.read_bytes() == shipped.read_bytes()
    assert (mathjax_dir(quick.reports) / "LICENSE").exists()


def test_notebook_page_shows_a_progress_bar_in_its_last_state_only(quick):
    page = (quick.reports / "multilevel" / "multilevel_fixture_math.html").read_text()
    assert page.count("fixture sweep: 100%") == 1
    assert "| 1/3 [" not in page and "| 2/3 [" not in page  # the redraws, collapsed


def test_running_notebook_shows_its_progress_on_a_terminal(quick):
    # The fixture's tqdm bar, redrawn in place on one line while the notebook runs, then erased.
    draws = re.findall(r"\r\x1b\[K([^\r\n]*)", quick.out)
    bars = [d for d in draws if "fixture sweep" in d]
    assert bars[-1].startswith("  multilevel_fixture_math · fixture sweep: 3/3 done")
    assert "elapsed, ETA" in bars[-1]
    assert any("1/3 done" in b for b in bars)
    assert "\r\x1b[K[2/3] multilevel_fixture_math: ok" in quick.out  # erased for the next line


def _repro(argv, tmp_path, *, terminal: bool, env=None) -> tuple[int, str]:
    """``repro ARGV`` in a subprocess, its stdout and stderr on a pseudo-terminal (a real one, as
    a person's shell gives it) or on a pipe; returns the exit code and what it printed."""
    env = {
        **os.environ,
        paths.REPORTS_ENV: str(tmp_path / "reports"),
        paths.RESULTS_ENV: str(tmp_path / "results"),
        **(env or {}),
    }
    command = [sys.executable, "-m", "pipeline.cli", *argv]
    if not terminal:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        return done.returncode, done.stdout + done.stderr
    controller, terminal_end = os.openpty()
    process = subprocess.Popen(
        command, stdin=terminal_end, stdout=terminal_end, stderr=terminal_end, env=env
    )
    os.close(terminal_end)
    out = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # EIO: the terminal's last writer is gone
            break
        if not chunk:
            break
        out += chunk
    os.close(controller)
    return process.wait(timeout=60), out.decode()


def test_progress_shows_on_a_real_terminal(tmp_path):
    code, out = _repro(
        ["run", "multilevel_fixture_math", "--notebooks", str(FIXTURES)], tmp_path, terminal=True
    )
    assert code == 0, out
    draws = re.findall(r"\r\x1b\[K([^\r\n]*)", out)
    assert any("multilevel_fixture_math · fixture sweep: 1/3 done" in d for d in draws), out
    assert any("fixture sweep: 3/3 done" in d for d in draws)
    assert "\r\x1b[K[1/1] multilevel_fixture_math: ok" in out


def test_progress_is_a_plain_line_when_stdout_is_not_a_terminal(tmp_path):
    code, out = _repro(
        ["run", "multilevel_fixture_math", "--notebooks", str(FIXTURES)], tmp_path, terminal=False
    )
    assert code == 0, out
    assert "\x1b[" not in out and "\r" not in out  # no redraws in a log
    lines = [line for line in out.splitlines() if "fixture sweep" in line]
    # The first state, then at most one line per 30 s, and the last state.
    assert lines[0].startswith("  multilevel_fixture_math · fixture sweep: 0/3 done")
    assert lines[-1].startswith("  multilevel_fixture_math · fixture sweep: 3/3 done")
    assert len(lines) == 2


def test_landing_page_leads_with_legend_summary_and_filterable_claims(quick):
    index = quick.index
    # The legend states every verdict, and each verdict has a colour of its own.
    legend = index[index.index('id="legend"') : index.index('id="summary"')]
    for verdict in VERDICTS:
        assert f'class="v v-{verdict.replace(" ", "-")}"' in legend
        assert LEGEND[verdict].replace("'", "&#x27;") in legend
        assert f".v-{verdict.replace(' ', '-')}{{background:" in stylesheet()
    # Legend, summary, claims, figures, run: in that order.
    order = [index.index(f'id="{part}"') for part in ("legend", "summary", "claims", "figures")]
    assert order == sorted(order) and index.index('id="run"') > order[-1]
    # The summary counts per paper link to the claims they count.
    assert 'data-filter data-paper="multilevel" data-verdict="not reproduced">1</a>' in index
    assert 'data-filter data-paper="multilevel" data-verdict="partly">1</a>' in index
    # One row per claim, with the data the filter reads, its statement, values, rule and reason.
    rows = re.findall(r'<tr data-paper="([^"]+)" data-verdict="([^"]+)">(.*?)</tr>', index)
    assert [(p, v) for p, v, _ in rows] == [
        ("multilevel", "not reproduced"),
        ("multilevel", "partly"),
    ]
    ml1 = rows[0][2]
    assert "<b>ML1</b>" in ml1 and "0.8206" in ml1 and "|diff| &lt;= 5e-05" in ml1
    assert "fails: ML1 0.8 against printed 0.8206" in ml1
    # Its evidence link opens the executed notebook at the cell that recorded it.
    executed = json.loads(
        (quick.reports / "multilevel" / "multilevel_fixture_ok.ipynb").read_text()
    )
    recording = next(c for c in executed["cells"] if 'rep.compare("ML1"' in "".join(c["source"]))
    link = f'href="multilevel/multilevel_fixture_ok.html#cell-id={recording["id"]}"'
    assert link in ml1
    page = (quick.reports / "multilevel" / "multilevel_fixture_ok.html").read_text()
    assert f'id="cell-id={recording["id"]}"' in page
    # The filter: a select per paper and verdict, and the few lines of script that apply them.
    assert '<select id="f-paper"><option value="">all</option><option value="multilevel">' in index
    assert all(f'<option value="{v}">' in index for v in VERDICTS)
    assert "byPaper.onchange = byVerdict.onchange = filter;" in index


def test_landing_page_shows_figures_and_how_the_run_went(quick):
    index = quick.index
    figures = index[index.index('id="figures"') : index.index('id="run"')]
    assert (
        '<a href="multilevel/figures/fixture_fig.png"><img src="multilevel/figures/fixture_fig.png"'
        in figures
    )
    assert '<a href="multilevel/figures/fixture_fig.svg">SVG</a>' in figures
    assert '<a href="tables/multilevel_section4_3.csv">multilevel_section4_3</a>' in figures
    run = index[index.index('id="run"') :]
    statuses = [json.loads(f.read_text()) for f in (quick.reports / "status").glob("*.json")]
    total = sum(s["seconds"] for s in statuses)
    assert f"<b>{total:.1f}</b>" in run
    for s in statuses:
        assert f'<td class="num">{s["seconds"]:.1f}</td>' in run
        assert s["master"] == "local[*]" and s["commit"]
    assert "<dt>profile</dt><dd>quick</dd>" in run
    assert "<dt>Spark master</dt><dd>local[*]</dd>" in run
    assert statuses[0]["commit"] in run
    assert re.search(r"pyspark \d+\.\d+", run) and re.search(r"nbconvert \d+\.\d+", run)


def test_claim_anchor_prefers_the_recording_cell(tmp_path):
    cells = [
        {"cell_type": "markdown", "id": "head", "source": ["## Verdicts"]},
        {"cell_type": "code", "id": "mention", "source": ['# ML1 first: "ML1"']},
        {
            "cell_type": "code",
            "id": "rec",
            "source": ['for c in ("ML1", "ML2"):\n', "  rep.record(c, v)"],
        },
        {"cell_type": "code", "id": "tab", "source": ['rep.table(t, "multilevel_table1")']},
    ]
    executed = tmp_path / "nb.ipynb"
    executed.write_text(json.dumps({"cells": cells}))
    anchors = claim_anchors(executed, ["ML1", "ML2", "multilevel_table1:U_opt@row0", "ML9"])
    assert anchors == {
        "ML1": "#cell-id=rec",
        "ML2": "#cell-id=rec",
        "multilevel_table1:U_opt@row0": "#cell-id=tab",
        "ML9": "#cell-id=head",  # named nowhere: the Verdicts heading
    }
    assert claim_anchors(tmp_path / "missing.ipynb", ["ML1"]) == {}


def test_run_with_parameter_override_reproduces(reports):
    code = main(
        [
            "run",
            "multilevel_fixture_ok",
            "--notebooks",
            str(FIXTURES),
            "--profile",
            "quick",
            "-p",
            "value=0.8206",
        ]
    )
    assert code == 0
    card = pd.read_csv(reports / "scorecard.csv").set_index("claim")
    assert card.loc["ML1", "verdict"] == "reproduced"
    assert float(card.loc["ML1", "reproduced_value"]) == pytest.approx(0.8206)


def _variant(tmp_path, folder: str, *code: str) -> Path:
    """The fixture multilevel_fixture_ok with ``code`` cells after its own, in a folder."""
    variant = tmp_path / folder
    variant.mkdir()
    notebook = json.loads((FIXTURES / "multilevel_fixture_ok.ipynb").read_text())
    notebook["cells"] += [
        {
            "cell_type": "code",
            "id": f"extra{i}",
            "metadata": {},
            "execution_count": None,
            "outputs": [],
            "source": source.splitlines(keepends=True),
        }
        for i, source in enumerate(code)
    ]
    (variant / "multilevel_fixture_ok.ipynb").write_text(json.dumps(notebook))
    return variant


def test_a_failed_rerun_keeps_the_last_complete_run_and_says_so(reports, tmp_path):
    assert main(["run", "multilevel_fixture_ok", "--notebooks", str(FIXTURES)]) == 0
    figure = (reports / "multilevel" / "figures" / "fixture_fig.png").read_bytes()
    # The same notebook, now recording a third verdict and a figure, then failing.
    broken = _variant(
        tmp_path,
        "broken",
        'rep.compare("ML2", paper_value=1.0, reproduced=1.0, atol=0.1, evidence=EXECUTED)\n'
        'rep.figure(fig, "fixture_fig", "from the failed run")\n'
        'raise ValueError("fails after recording")\n',
    )
    argv = ["run", "multilevel_fixture_ok", "--notebooks", str(broken), "-p", "value=0.5"]
    assert main(argv) == 1
    card = pd.read_csv(reports / "scorecard.csv")
    assert sorted(card["claim"]) == ["ML1", "ML3"]  # the complete run's, not ML2
    assert (reports / "multilevel" / "figures" / "fixture_fig.png").read_bytes() == figure
    status = json.loads((reports / "status" / "multilevel_fixture_ok.json").read_text())
    assert status["status"] == "ok" and status["parameters"] == {}
    later = status["later"]
    assert later["status"] == "failed" and "fails after recording" in later["error"]
    assert later["overrides"] == {"value": 0.5} and later["finished"] >= status["finished"]
    index = (reports / "index.html").read_text()
    assert "a later run (full; value=0.5, started " in index and " failed at " in index
    assert 'href="multilevel/multilevel_fixture_ok.failed.html"' in index
    assert (reports / "multilevel" / "multilevel_fixture_ok.failed.html").exists()


def test_verdicts_of_failed_or_overridden_runs_are_marked_and_not_counted(reports, tmp_path):
    broken = _variant(tmp_path, "broken", 'raise ValueError("fails after recording")\n')
    assert main(["run", "multilevel_fixture_ok", "--notebooks", str(broken)]) == 1
    card = pd.read_csv(reports / "scorecard.csv", keep_default_na=False).set_index("claim")
    assert set(card["run"]) == {"failed run"}
    index = (reports / "index.html").read_text()
    assert "No claim was judged by a complete run without overrides." in index
    assert "Not counted: 2 verdicts" in index and "failed run, not counted" in index
    argv = ["run", "multilevel_fixture_ok", "--notebooks", str(FIXTURES), "-p", "value=0.8"]
    assert main(argv) == 0
    card = pd.read_csv(reports / "scorecard.csv", keep_default_na=False)
    assert set(card["run"]) == {"overrides: value=0.8"}
    index = (reports / "index.html").read_text()
    assert "<dt>-p overrides</dt><dd>multilevel_fixture_ok: value=0.8</dd>" in index
    assert "(0 counted: complete runs without overrides)" in index
    status = json.loads((reports / "status" / "multilevel_fixture_ok.json").read_text())
    assert status["started"] <= status["finished"] and status["overrides"] == {"value": 0.8}
    assert f'<td class="small">{status["started"]}</td>' in index


SLOW = (
    'rep.compare("ML2", paper_value=1.0, reproduced=1.0, atol=0.1, evidence=EXECUTED)\n'
    'rep.figure(fig, "fixture_fig_2", "from the interrupted run")\n'
    "import time\n"
    "time.sleep(120)\n"
)


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGKILL"])
def test_an_interrupted_run_leaves_an_index_of_complete_runs(reports, tmp_path, signal_name):
    import signal

    from pipeline.index import build_index

    assert main(["run", "multilevel_fixture_ok", "--notebooks", str(FIXTURES)]) == 0
    figure = (reports / "multilevel" / "figures" / "fixture_fig.png").read_bytes()
    slow = _variant(tmp_path, "slow", SLOW)
    env = {**os.environ, paths.REPORTS_ENV: str(reports), paths.RESULTS_ENV: str(tmp_path)}
    argv = ["run", "multilevel_fixture_ok", "--notebooks", str(slow), "-p", "value=0.7"]
    process = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", *argv],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    staged = (
        reports / ".staging" / "multilevel_fixture_ok" / "scorecard" / "multilevel_fixture_ok.csv"
    )
    deadline = time.monotonic() + 120
    while not (staged.exists() and "ML2" in staged.read_text()):  # mid-notebook: in the sleep
        assert time.monotonic() < deadline and process.poll() is None, process.communicate()
        time.sleep(0.2)
    process.send_signal(getattr(signal, signal_name))
    out, err = process.communicate(timeout=60)
    if signal_name == "SIGINT":  # Ctrl-C: one line, exit 130, the index rebuilt
        assert process.returncode == 130
        assert err.strip() == "repro: interrupted" and "Traceback" not in out + err
        assert not (reports / ".staging" / "multilevel_fixture_ok").exists()
    else:  # killed outright: the next index says so
        build_index(reports)
    index = (reports / "index.html").read_text()
    card = pd.read_csv(reports / "scorecard.csv")
    assert sorted(card["claim"]) == ["ML1", "ML3"]
    assert "fixture_fig_2" not in index and "from the interrupted run" not in index
    assert (reports / "multilevel" / "figures" / "fixture_fig.png").read_bytes() == figure
    assert not (reports / "multilevel" / "figures" / "fixture_fig_2.png").exists()
    status = json.loads((reports / "status" / "multilevel_fixture_ok.json").read_text())
    assert status["status"] == "ok" and status["parameters"] == {}
    assert "a later run (full; value=0.7, started " in index and "was interrupted" in index


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "no_such_notebook"], "unknown notebook 'no_such_notebook'"),
        (["run", "multilevel_fixture_ok", "--profile", "huge"], "invalid choice: 'huge'"),
        (["run", "multilevel_fixture_ok", "-p", "novalue"], "malformed parameter 'novalue'"),
        (["run", "multilevel_fixture_ok", "-p", "1x=2"], "malformed parameter '1x=2'"),
        (["run", "multilevel_fixture_ok", "-p", "nope=1"], "has no parameter nope"),
        (["run", "multilevel_fixture_ok", "-p", "value=fast"], "value expects a float"),
        (["run", "khaos_fixture_fails", "-p", "x=1.5"], "x expects an int like 1; got 1.5"),
        (["run", "multilevel_fixture_ok", "-p", "label=5"], "label expects a str"),
        (["reports", "--only", "zzz*"], "no notebook matches"),
        (["run", "multilevel_fixture_ok", "--master", "garbage://nowhere:99"], "not a master URL"),
        (["run", "multilevel_fixture_ok", "--master", "spark://127.0.0.1:1"], "does not answer"),
        (["run", "multilevel_fixture_ok", "--master", "local[two]"], "not a master URL"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_usage_errors_print_one_line_and_exit_2(argv, message, reports, capsys):
    with pytest.raises(SystemExit) as exit_info:
        code = main([*argv, "--notebooks", str(FIXTURES)] if argv[0] != "frobnicate" else argv)
        raise SystemExit(code)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and err.startswith("repro: ")
    assert not (reports / "status").exists()  # nothing ran


def test_a_master_url_is_probed_once_and_then_set(reports, monkeypatch):
    import socket

    monkeypatch.setenv(MASTER_ENV, "local[1]")  # so that the URL main sets is undone afterwards
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(0.5)
        url = f"spark://127.0.0.1:{server.getsockname()[1]}"
        argv = ["run", "multilevel_fixture_ok", "--master", url, "--notebooks", str(FIXTURES)]
        assert main(argv) == 0
        probes = 0
        with contextlib.suppress(TimeoutError):
            while True:
                server.accept()[0].close()
                probes += 1
    assert probes == 1
    assert os.environ[MASTER_ENV] == url


@pytest.mark.parametrize("command", ["list", "reports", "run multilevel_tables"])
def test_a_missing_notebooks_folder_is_a_usage_error(command, tmp_path, capsys):
    assert main([*command.split(), "--notebooks", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err == f"repro: --notebooks {tmp_path / 'nowhere'}: no such folder\n"


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        (["run", "multilevel_figures", "-p", "n_values=[]"], {}, "n_values must not be empty"),
        (["run", "multilevel_tables", "-p", "table3_runs=-5"], {}, "table3_runs must be >= 1"),
        (["run", "multilevel_tables"], {"SPARK_MASTER": "garbage://nowhere:99"}, "master URL"),
        (["run", "multilevel_tables"], {"SPARK_MASTER": "spark://127.0.0.1:1"}, "answer"),
        (["reports", "--notebooks", "/nonexistent"], {}, "/nonexistent: no such folder"),
    ],
)
def test_bad_input_is_one_line_and_exit_2_within_10_s(argv, env, message, tmp_path):
    import resource

    def cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    began, cpu_before = time.monotonic(), cpu()
    code, out = _repro(argv, tmp_path, terminal=False, env=env)
    # No Java, no kernel: about 1.5 s on an idle machine, mostly imports. The CPU time bounds
    # the work; the wall clock bound allows for a loaded test machine.
    assert cpu() - cpu_before < 10 and time.monotonic() - began < 60
    assert code == 2 and out.count("\n") == 1 and out.startswith("repro: ") and message in out


def test_parse_assignment_reads_literals_else_strings():
    assert parse_assignment("n=5") == ("n", 5)
    assert parse_assignment("lam=[1e-3, 2]") == ("lam", [1e-3, 2])
    assert parse_assignment("name=quick run") == ("name", "quick run")
    with pytest.raises(UsageError):
        parse_assignment("=3")


def test_profile_values_are_checked_against_the_parameters_cell(tmp_path):
    (tmp_path / "multilevel_x.ipynb").write_text(
        (FIXTURES / "multilevel_fixture_ok.ipynb").read_text()
    )
    (tmp_path / "profiles.toml").write_text("[multilevel_x.quick]\nvalu = 1\n")
    with pytest.raises(UsageError, match="has no parameter valu"):
        parameters_for("multilevel_x", "quick", {}, tmp_path)
    assert parameters_for("multilevel_x", "full", {"value": 2}, tmp_path) == {"value": 2}
    (tmp_path / "profiles.toml").write_text('[multilevel_x.quick]\nvalue = "high"\n')
    with pytest.raises(UsageError, match=r"value expects a float.*profiles.toml \[multilevel_x"):
        parameters_for("multilevel_x", "quick", {}, tmp_path)


def test_clean_removes_the_folders_in_use_and_keeps_the_checkouts_when_moved(
    reports, tmp_path, monkeypatch, capsys
):
    raw = tmp_path / "raw"
    monkeypatch.setattr(paths, "RAW_DATA", raw)
    for folder in (reports / "status", tmp_path / "results" / "x", raw / "incremental"):
        folder.mkdir(parents=True)
    (reports / "README.md").write_text("kept")
    assert main(["clean"]) == 0
    assert [p.name for p in reports.iterdir()] == ["README.md"]
    assert not (tmp_path / "results").exists()
    assert raw.exists() and "kept" in capsys.readouterr().out  # REPRO_* set: data/raw stays
    monkeypatch.delenv(paths.REPORTS_ENV)
    monkeypatch.delenv(paths.RESULTS_ENV)
    monkeypatch.setattr(paths, "ROOT", tmp_path / "checkout")  # not the real checkout's files
    monkeypatch.setattr(paths, "reports_dir", lambda: tmp_path / "checkout" / "reports")
    monkeypatch.setattr(paths, "results_dir", lambda: tmp_path / "checkout" / "results")
    assert main(["clean"]) == 0
    assert not raw.exists()


def test_a_spark_notebook_stops_spark_before_its_kernel_exits(tmp_path):
    """The kernel stops Spark and waits for its JVM before ipykernel signals its children: no
    ERROR (a shutdown hook cut short: ``getconf PAGESIZE exited with code 143``) in the log."""
    import nbformat

    from pipeline.notebooks import run_notebook

    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    # A shuffle, a block on disk and Python workers: the JVM has folders to delete at exit.
    code = (
        "from pyspark import StorageLevel\n"
        "from pipeline.spark import get_spark\n"
        "spark = get_spark()\n"
        "frame = spark.range(200_000).selectExpr('id % 97 AS k').groupBy('k').count()\n"
        "frame.persist(StorageLevel.DISK_ONLY).collect()\n"
        "spark.sparkContext.parallelize(range(1000), 2).map(lambda x: x + 1).sum()"
    )
    book = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    nbformat.write(book, notebooks / "ppa_fixture_spark.ipynb")
    status = run_notebook(
        "ppa_fixture_spark", "quick", notebooks_dir=notebooks, reports_dir=tmp_path / "reports"
    )
    assert status.status == "ok", status.error
    log = (tmp_path / "reports" / status.log).read_text()
    # A shutdown hook cut short logs an ERROR (a command killed) or fails to delete a folder.
    cut_short = [line for line in log.splitlines() if "ERROR" in line or "Failed to delete" in line]
    assert not cut_short, log
