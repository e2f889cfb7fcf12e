"""Notebook runner and report builder, on the fixture notebooks under fixtures/notebooks/."""

import json
from pathlib import Path

import pandas as pd
import pytest

from pipeline import paths
from pipeline.cli import main
from pipeline.notebooks import UsageError, parameters_for, parse_assignment

FIXTURES = Path(__file__).parent / "fixtures" / "notebooks"
pytestmark = pytest.mark.notebook


@pytest.fixture
def reports(tmp_path, monkeypatch):
    monkeypatch.setenv(paths.REPORTS_ENV, str(tmp_path / "reports"))
    monkeypatch.setenv(paths.RESULTS_ENV, str(tmp_path / "results"))
    return tmp_path / "reports"


def test_reports_records_failure_and_finishes_the_rest(reports, capsys):
    code = main(["reports", "--notebooks", str(FIXTURES), "--profile", "quick"])
    assert code == 1  # one notebook failed

    index = (reports / "index.html").read_text()
    assert "Failed notebooks" in index
    assert "khaos_fixture_fails" in index and "deliberate failure x=1" in index
    status = json.loads((reports / "status" / "khaos_fixture_fails.json").read_text())
    assert status["status"] == "failed" and "ValueError: deliberate failure x=1" in status["error"]
    # The failed notebook's HTML exists, with the traceback in it, and is linked.
    assert (reports / "khaos" / "khaos_fixture_fails.html").exists()
    assert 'href="khaos/khaos_fixture_fails.html"' in index

    # The other notebook ran in the quick profile, with its figure, table and verdicts.
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
    assert "index:" in capsys.readouterr().out


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


def test_stale_verdicts_of_a_failed_rerun_are_dropped(reports):
    assert main(["run", "multilevel_fixture_ok", "--notebooks", str(FIXTURES)]) == 0
    assert len(pd.read_csv(reports / "scorecard.csv")) == 2
    # value=None breaks the figure cell before any verdict is recorded.
    assert (
        main(["run", "multilevel_fixture_ok", "--notebooks", str(FIXTURES), "-p", "value=None"])
        == 1
    )
    assert len(pd.read_csv(reports / "scorecard.csv")) == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "no_such_notebook"], "unknown notebook 'no_such_notebook'"),
        (["run", "multilevel_fixture_ok", "--profile", "huge"], "invalid choice: 'huge'"),
        (["run", "multilevel_fixture_ok", "-p", "novalue"], "malformed parameter 'novalue'"),
        (["run", "multilevel_fixture_ok", "-p", "1x=2"], "malformed parameter '1x=2'"),
        (["run", "multilevel_fixture_ok", "-p", "nope=1"], "has no parameter nope"),
        (["reports", "--only", "zzz*"], "no notebook matches"),
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
