"""`repro verify`: a run against the reference run, verdict by verdict and cell by cell."""

import json
import re
from dataclasses import asdict, replace

import pandas as pd
import pytest

from pipeline import cli, verify
from pipeline.notebooks import Status
from pipeline.verify import Tolerance

CARD = pd.DataFrame(
    {
        "paper": ["multilevel", "multilevel"],
        "notebook": ["multilevel_tables"] * 2,
        "claim": ["ML1", "ML2"],
        "paper_value": ["0.82", "0.005"],
        "reproduced_value": ["0.8206", "0.0036"],
        "tolerance": ["x", "y"],
        "evidence": ["executed", "executed"],
        "verdict": ["reproduced", "partly"],
        "reason": ["r", "s"],
    }
)
TABLE = pd.DataFrame({"n": [1, 5], "u": [0.8206123, 0.79], "label": ["a", "b"]})
TIMES = pd.DataFrame({"records_per_s": [1.0e6, 2.0e6]})


STATUS = Status("multilevel_tables", "multilevel", "full", {}, "ok", seconds=12.5, commit="abc1234")


def _run(folder, card=CARD, table=TABLE, times=TIMES, statuses=(STATUS,)):
    (folder / "tables").mkdir(parents=True)
    card.to_csv(folder / "scorecard.csv", index=False)
    table.to_csv(folder / "tables" / "multilevel_table1.csv", index=False)
    times.to_csv(folder / "tables" / "ppa_query_throughput.csv", index=False)
    (folder / "status").mkdir()
    for status in statuses:
        (folder / "status" / f"{status.notebook}.json").write_text(json.dumps(asdict(status)))
    return folder


@pytest.fixture
def reference(tmp_path):
    folder = verify.write_reference(_run(tmp_path / "first"), tmp_path / "reference")
    (folder / "tolerances.toml").write_text(
        "[default]\nrtol = 1e-6\n[tables.ppa_query_throughput]\nmachine = true\n"
    )
    return folder


def test_the_reference_keeps_the_scorecard_tables_and_metadata(reference):
    meta = json.loads((reference / "metadata.json").read_text())
    assert meta["seconds"] == {"multilevel_tables": 12.5} and meta["total_seconds"] == 12.5
    assert meta["commit"] == ["abc1234"] and meta["profile"] == ["full"]
    assert set(meta) >= {"commit", "lock_sha256", "python", "java", "spark", "machine"}
    assert set(meta["machine"]) >= {"cpus", "cpu", "memory_gb"}
    assert sorted(p.name for p in (reference / "tables").iterdir()) == [
        "multilevel_table1.csv",
        "ppa_query_throughput.csv",
    ]


def test_a_rerun_within_tolerance_and_with_other_timings_verifies(tmp_path, reference):
    table = TABLE.assign(u=TABLE.u * (1 + 1e-8))
    now = _run(tmp_path / "now", table=table, times=TIMES * 3)
    differences = verify.verify(now, reference)
    assert not any(d.fails for d in differences)
    # the timings differ and are shown, never failing
    assert [d.allowed for d in differences] == ["machine-dependent"] * 2


def test_a_changed_verdict_fails_naming_the_claim(tmp_path, reference, monkeypatch, capsys):
    card = CARD.copy()
    card.loc[1, "verdict"] = "reproduced"
    now = _run(tmp_path / "now", card=card)
    monkeypatch.setenv("REPRO_REPORTS_DIR", str(now))
    assert cli.main(["verify", "--reference", str(reference)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  ML2 (verdict)" in out and "partly" in out
    assert verify.claim_status(now, reference) == {"ML1": "matches", "ML2": "differs"}


def test_a_cell_outside_its_tolerance_or_a_changed_shape_fails(tmp_path, reference):
    moved = _run(tmp_path / "moved", table=TABLE.assign(u=[0.8207, 0.79]))
    [diff] = verify.verify(moved, reference)
    assert (
        diff.fails
        and diff.item == "multilevel_table1[0, u]"
        and diff.allowed == "|diff| <= 1e-06·|ref|"
    )
    shorter = _run(tmp_path / "shorter", table=TABLE.head(1))
    assert [d.item for d in verify.verify(shorter, reference) if d.fails] == ["multilevel_table1"]


def test_a_claim_missing_from_the_run_fails(tmp_path, reference):
    now = _run(tmp_path / "now", card=CARD.head(1))
    assert [(d.item, d.now) for d in verify.verify(now, reference)] == [("ML2", "(missing)")]


def test_verify_without_a_reference_run_is_a_usage_error(tmp_path, capsys):
    assert cli.main(["verify", "--reference", str(tmp_path)]) == 2
    assert "no reference run" in capsys.readouterr().err


@pytest.mark.parametrize("bad", [{"rtol": -1}, {"atol": float("nan")}])
def test_a_tolerance_names_what_is_wrong(bad):
    with pytest.raises(ValueError, match="must be a finite number >= 0"):
        Tolerance(**bad)


def test_the_index_status_and_verify_judge_a_claim_alike(tmp_path, reference):
    # One comparison serves both: a changed evidence kind fails verify and reads "differs".
    card = pd.concat([CARD, CARD.tail(1).assign(claim="ML3")], ignore_index=True)
    card.loc[0, "evidence"] = "modelled"
    now = _run(tmp_path / "now", card=card)
    failing = {d.item for d in verify.verify(now, reference) if d.fails}
    assert failing == {"ML1 (evidence)", "ML3"}
    assert verify.claim_status(now, reference) == {"ML1": "differs", "ML2": "matches", "ML3": "new"}


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"status": "failed"}, "multilevel_tables: status failed"),
        ({"profile": "quick"}, "multilevel_tables: profile quick"),
        ({"overrides": {"runs": 2}}, "multilevel_tables: -p overrides"),
        ({"notebook": "ppa_x", "commit": "def5678"}, "commits ['abc1234', 'def5678']"),
    ],
)
def test_a_run_that_is_not_one_cold_full_run_is_refused_as_the_reference(tmp_path, change, named):
    other = replace(STATUS, **change)
    statuses = (STATUS, other) if "notebook" in change else (other,)
    run = _run(tmp_path / "run", statuses=statuses)
    with pytest.raises(ValueError, match=re.escape(named)):
        verify.write_reference(run, tmp_path / "reference")
    assert not (tmp_path / "reference" / "scorecard.csv").exists()


def test_the_committed_reference_run_is_small_text_files_with_its_metadata():
    files = [f for f in verify.REFERENCE.rglob("*") if f.is_file()]
    assert {f.suffix for f in files} <= {".csv", ".json", ".toml"}  # no figures
    sizes = {f.relative_to(verify.REFERENCE).as_posix(): f.stat().st_size for f in files}
    assert max(sizes.values()) < 1_000_000, sizes
    assert sum(sizes.values()) < 3_000_000
    meta = json.loads((verify.REFERENCE / "metadata.json").read_text())
    assert len(meta["commit"]) == 1 and meta["profile"] == ["full"]
    assert set(meta["status"].values()) == {"ok"}
    assert set(meta["seconds"]) == set(meta["status"])
    assert meta["lock_sha256"] not in ("", "none") and meta["java"] and meta["spark"]
