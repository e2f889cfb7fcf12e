"""A run against the committed reference run (data/reference/): what differs, and whether it may.

The reference run is the scorecard and every table of a cold full-profile run, with its metadata
(commit, lock hash, Python, Java, Spark, machine, seconds per notebook), written by
``repro reference`` after a change that moves a result. ``repro verify`` compares the current
reports/ with it:

- every scorecard verdict (and evidence kind) must match, claim by claim; a claim missing from
  either side is a difference;
- every cell of every table must lie within the table's tolerance, declared in
  data/reference/tolerances.toml: exact where the computation is deterministic, a relative
  tolerance where floating sums may run in another order, ``machine = true`` for timings (shown,
  never failing). Text cells must be equal; a table whose shape or columns changed fails whole.
"""

import json
import math
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from pipeline import paths, provenance
from pipeline.files import write_text_atomic
from pipeline.notebooks import OK, UsageError, load_statuses

REFERENCE = paths.DATA / "reference"
TOLERANCES = "tolerances.toml"


@dataclass(frozen=True)
class Tolerance:
    """|now - reference| <= atol + rtol·|reference| for every numeric cell; ``machine``: a
    machine-dependent table (timings), compared and shown but never failing."""

    rtol: float = 0.0
    atol: float = 0.0
    machine: bool = False

    def __post_init__(self):
        for name in ("rtol", "atol"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and value >= 0 and math.isfinite(value)):
                raise ValueError(f"{name} must be a finite number >= 0; got {value!r}")

    def text(self) -> str:
        if self.machine:
            return "machine-dependent"
        if not self.rtol and not self.atol:
            return "exact"
        parts = [f"{self.atol:g}"] if self.atol else []
        if self.rtol:
            parts.append(f"{self.rtol:g}·|ref|")
        return "|diff| <= " + " + ".join(parts)

    def allows(self, reference: float, now: float) -> bool:
        if math.isnan(reference) and math.isnan(now):
            return True
        if math.isinf(reference) or math.isinf(now):
            return reference == now
        return abs(now - reference) <= self.atol + self.rtol * abs(reference)


@dataclass(frozen=True)
class Difference:
    """One line of the verify table; ``fails`` when it is outside what is allowed."""

    item: str
    reference: str
    now: str
    allowed: str
    fails: bool


def tolerances(reference: Path = REFERENCE) -> tuple[Tolerance, dict[str, Tolerance]]:
    """The default tolerance and the per-table ones of ``tolerances.toml``."""
    file = Path(reference) / TOLERANCES
    if not file.exists():
        raise FileNotFoundError(f"{file} is missing: it declares each table's tolerance")
    spec = tomllib.loads(file.read_text())
    default = Tolerance(**spec.get("default", {}))
    tables = {
        name: Tolerance(**{**spec.get("default", {}), **t})
        for name, t in spec.get("tables", {}).items()
    }
    return default, tables


def _scorecard(folder: Path) -> pd.DataFrame:
    card = pd.read_csv(folder / "scorecard.csv", dtype=str, keep_default_na=False)
    return card.set_index("claim")


COMPARED = ("verdict", "evidence")  # what must match per claim


def compare_claim(reference: pd.DataFrame, now: pd.DataFrame, claim: str) -> list[Difference]:
    """One claim (frames indexed by claim): missing from a side, or its verdict or evidence kind
    changed; empty when it matches. A column absent from a side reads as empty."""
    if claim not in now.index:
        return [
            Difference(claim, reference.at[claim, "verdict"], "(missing)", "same verdict", True)
        ]
    if claim not in reference.index:
        return [
            Difference(
                claim, "(not in the reference)", now.at[claim, "verdict"], "same verdict", True
            )
        ]
    out = []
    for column in COMPARED:
        ref = reference.at[claim, column] if column in reference.columns else ""
        cur = now.at[claim, column] if column in now.columns else ""
        if ref != cur:
            out.append(Difference(f"{claim} ({column})", ref, cur, f"same {column}", True))
    return out


def compare_scorecards(reference: pd.DataFrame, now: pd.DataFrame) -> list[Difference]:
    """Claim by claim (``compare_claim``), every claim of either side."""
    claims = sorted(set(reference.index) | set(now.index))
    return [d for claim in claims for d in compare_claim(reference, now, claim)]


def _number(value) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def compare_table(
    table: str, reference: pd.DataFrame, now: pd.DataFrame, tol: Tolerance
) -> list[Difference]:
    """Cell by cell, by position; a changed shape or header fails the table as a whole."""
    if list(reference.columns) != list(now.columns) or reference.shape != now.shape:
        return [
            Difference(
                table,
                f"{reference.shape[0]} rows, columns {list(reference.columns)}",
                f"{now.shape[0]} rows, columns {list(now.columns)}",
                "same shape and columns",
                not tol.machine,
            )
        ]
    out = []
    for column in reference.columns:
        for row, (ref, cur) in enumerate(zip(reference[column], now[column], strict=True)):
            a, b = _number(ref), _number(cur)
            same = tol.allows(a, b) if a is not None and b is not None else str(ref) == str(cur)
            if not same:
                out.append(
                    Difference(
                        f"{table}[{row}, {column}]", str(ref), str(cur), tol.text(), not tol.machine
                    )
                )
    return out


def verify(reports: Path, reference: Path = REFERENCE) -> list[Difference]:
    """Every difference between the run in ``reports`` and the reference run."""
    reports, reference = Path(reports), Path(reference)
    for folder, what in ((reference, "reference run"), (reports, "run")):
        if not (folder / "scorecard.csv").exists():
            raise FileNotFoundError(f"no {what} in {folder}: scorecard.csv is missing")
    default, per_table = tolerances(reference)
    out = compare_scorecards(_scorecard(reference), _scorecard(reports))
    ref_tables = {f.stem: f for f in sorted((reference / "tables").glob("*.csv"))}
    now_tables = {f.stem: f for f in sorted((reports / "tables").glob("*.csv"))}
    for table in sorted(set(ref_tables) | set(now_tables)):
        tol = per_table.get(table, default)
        if table not in now_tables or table not in ref_tables:
            missing = table not in now_tables
            out.append(
                Difference(
                    table,
                    "(table)" if missing else "(not in the reference)",
                    "(missing)" if missing else "(table)",
                    "the same tables",
                    not tol.machine,
                )
            )
            continue
        read = {"dtype": str, "keep_default_na": False}
        out += compare_table(
            table,
            pd.read_csv(ref_tables[table], **read),
            pd.read_csv(now_tables[table], **read),
            tol,
        )
    return out


def claim_status(reports: Path, reference: Path = REFERENCE) -> dict[str, str]:
    """For the index: per claim, whether its verdict matches the reference run ("matches",
    "differs" or "new"); empty when no reference run is committed."""
    if (
        not (Path(reference) / "scorecard.csv").exists()
        or not (Path(reports) / "scorecard.csv").exists()
    ):
        return {}
    ref, now = _scorecard(Path(reference)), _scorecard(Path(reports))
    return {
        claim: "new"
        if claim not in ref.index
        else ("differs" if compare_claim(ref, now, claim) else "matches")
        for claim in now.index
    }


def table_text(differences: list[Difference]) -> str:
    """The verify table: one line per difference, failing ones first."""
    if not differences:
        return (
            "every verdict matches the reference run and every table cell is within its tolerance"
        )
    rows = sorted(differences, key=lambda d: (not d.fails, d.item))
    header = ("", "claim or table cell", "reference", "now", "allowed")
    lines = [(("FAIL" if d.fails else "ok"), d.item, d.reference, d.now, d.allowed) for d in rows]
    widths = [min(60, max(len(str(r[i])) for r in [header, *lines])) for i in range(5)]
    fmt = "  ".join(f"{{:<{w}.{w}}}" for w in widths)
    failing = sum(d.fails for d in differences)
    return "\n".join(
        [
            fmt.format(*header),
            *(fmt.format(*map(str, r)) for r in lines),
            f"{failing} failing, {len(differences) - failing} within what is allowed",
        ]
    )


def check_reference_run(reports: Path) -> None:
    """Refuse, naming the notebooks, a run that is not one complete full-profile run of one
    commit: a notebook failed or interrupted, in another profile, with -p overrides, or run at
    another commit than the rest (a warm run that reran only some notebooks)."""
    statuses = load_statuses(reports)
    if not statuses:
        raise UsageError(f"reports {reports} has no status records: no notebook ran")
    problems = [
        f"{s.notebook}: {what}"
        for s in statuses
        for what, bad in (
            (f"status {s.status}", s.status != OK),
            (f"profile {s.profile}", s.profile != "full"),
            (f"-p overrides {s.overrides}", bool(s.overrides)),
        )
        if bad
    ]
    commits = {s.commit for s in statuses}
    if len(commits) > 1:
        problems.append(f"commits {sorted(commits)} (run it cold: make clean && make reports)")
    if problems:
        raise UsageError(
            "reports must be one complete full-profile run of one commit without -p overrides; "
            + "; ".join(problems)
        )


def write_reference(reports: Path, reference: Path = REFERENCE) -> Path:
    """Copy a run's scorecard and tables, with its metadata, into the reference folder (the
    tolerances file is kept), after ``check_reference_run``."""
    reports, reference = Path(reports), Path(reference)
    if not (reports / "scorecard.csv").exists():
        raise FileNotFoundError(f"no run in {reports}: scorecard.csv is missing")
    check_reference_run(reports)
    (reference / "tables").mkdir(parents=True, exist_ok=True)
    for old in (reference / "tables").glob("*.csv"):
        old.unlink()
    shutil.copy2(reports / "scorecard.csv", reference / "scorecard.csv")
    for table in sorted((reports / "tables").glob("*.csv")):
        shutil.copy2(table, reference / "tables" / table.name)
    write_text_atomic(
        reference / "metadata.json", json.dumps(provenance.run_metadata(reports), indent=1) + "\n"
    )
    return reference
