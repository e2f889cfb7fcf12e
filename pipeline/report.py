"""What a notebook produces: figures, tables and scorecard rows, written under reports/.

A notebook creates one ``Report`` with its own name and records through it::

    rep = Report("multilevel_tables")
    rep.table(frame, "multilevel_table1")             # reports/tables/multilevel_table1.csv
    rep.figure(fig, "fig8", "Fig. 8: U over T and p1") # reports/multilevel/figures/fig8.{png,svg}
    rep.record("ML1", verdicts.multilevel.ml1(...))  # a claim's rule (pipeline.verdicts)
    rep.compare("ML1", paper_value=0.8206, reproduced=u, atol=5e-5)  # or one printed number

Creating the Report clears what an earlier run of the same notebook recorded in its reports folder,
so the scorecard never keeps a verdict that the current run did not compute. Under ``repro`` that
folder is the run's staging folder (``pipeline.notebooks``): the published outputs are replaced
only when the run finishes. Every file is written to a temporary name and renamed into place.
``figure`` and ``table`` return nothing, so a cell ending with one shows no path.
"""

import json
import os
from pathlib import Path

import pandas as pd

from pipeline import paths
from pipeline.files import temporary_beside, write_text_atomic
from pipeline.paper import claims, paper_of
from pipeline.scorecard import COLUMNS, EVIDENCE, MODELLED, REPRODUCED, Verdict, number

FIGURE_FORMATS = ("png", "svg")


def scorecard_file(reports: Path, notebook: str) -> Path:
    return reports / "scorecard" / f"{notebook}.csv"


def manifest_file(reports: Path, notebook: str) -> Path:
    return reports / "manifests" / f"{notebook}.json"


def clear_outputs(reports: Path, notebook: str) -> None:
    """Forget a notebook's earlier scorecard rows and manifest."""
    for file in (scorecard_file(reports, notebook), manifest_file(reports, notebook)):
        file.unlink(missing_ok=True)


class Report:
    """Records one notebook's figures, tables and verdicts (see the module docstring)."""

    def __init__(self, notebook: str, reports_dir: Path | None = None):
        if not notebook or not notebook.replace("_", "").isalnum():
            raise ValueError(f"notebook must be the notebook's file name stem; got {notebook!r}")
        self.notebook = notebook
        self.paper = paper_of(notebook)
        self.root = Path(reports_dir or paths.reports_dir())
        self.rows: list[dict] = []
        self.manifest = {"notebook": notebook, "paper": self.paper, "figures": [], "tables": []}
        clear_outputs(self.root, notebook)

    # -- figures and tables -------------------------------------------------------------------
    def figure(self, fig, figure_id: str, caption: str) -> None:
        """Save a matplotlib figure as PNG and SVG; the caption names the paper figure."""
        folder = self.root / self.paper / "figures"
        folder.mkdir(parents=True, exist_ok=True)
        files = {}
        for fmt in FIGURE_FORMATS:
            file = folder / f"{figure_id}.{fmt}"
            tmp = temporary_beside(file)
            fig.savefig(tmp, format=fmt, bbox_inches="tight", dpi=150 if fmt == "png" else None)
            os.replace(tmp, file)
            files[fmt] = str(file.relative_to(self.root))
        self._replace("figures", {"id": figure_id, "caption": caption, **files})

    def table(self, frame: pd.DataFrame, table_id: str, caption: str = "") -> None:
        """Write reports/tables/<table_id>.csv; a table that reproduces a printed one must have
        exactly the printed table's columns (data/paper/<table_id>.csv)."""
        printed = paths.PAPER_DATA / f"{table_id}.csv"
        if printed.exists():
            expected = list(pd.read_csv(printed, nrows=0).columns)
            if list(frame.columns) != expected:
                raise ValueError(
                    f"table {table_id!r} must have the printed columns {expected}; "
                    f"got {list(frame.columns)}"
                )
        file = self.root / "tables" / f"{table_id}.csv"
        write_text_atomic(file, frame.to_csv(index=False))
        self._replace(
            "tables", {"id": table_id, "caption": caption, "csv": str(file.relative_to(self.root))}
        )

    def _replace(self, kind: str, entry: dict) -> None:
        self.manifest[kind] = [e for e in self.manifest[kind] if e["id"] != entry["id"]] + [entry]
        write_text_atomic(
            manifest_file(self.root, self.notebook), json.dumps(self.manifest, indent=1)
        )

    # -- scorecard ----------------------------------------------------------------------------
    def record(self, claim: str, verdict: Verdict) -> str:
        """Record a claim's verdict (its rule in ``pipeline.verdicts``); returns the verdict."""
        if not isinstance(verdict, Verdict):
            raise ValueError(
                f"verdict must be a pipeline.scorecard.Verdict; got {type(verdict).__name__}"
            )
        if verdict.evidence is None:
            raise ValueError(
                f"claim {claim!r} has no evidence kind: its rule must pass evidence= one of "
                f"{EVIDENCE}"
            )
        if (
            verdict.evidence == MODELLED
            and verdict.verdict == REPRODUCED
            and not verdict.robustness
        ):
            raise ValueError(
                f"claim {claim!r} is modelled and reads reproduced without its assumptions "
                "re-judged: declare them and judge through pipeline.scorecard.robust"
            )
        if verdict.evidence == MODELLED and verdict.verdict == REPRODUCED and not verdict.constants:
            raise ValueError(
                f"claim {claim!r} is modelled and reads reproduced with only readings of the claim "
                "re-judged, none of the model's constants: declare them (Assumption(..., "
                "constant=True)) and judge through pipeline.scorecard.robust"
            )
        self._record(
            claim,
            verdict.paper_value,
            verdict.reproduced,
            verdict.rule,
            verdict.evidence,
            verdict.verdict,
            verdict.reason,
        )
        return verdict.verdict

    def compare(
        self,
        claim: str,
        *,
        paper_value: float,
        reproduced: float,
        atol: float = 0.0,
        rtol: float = 0.0,
        evidence: str | None = None,
    ) -> str:
        """Score one number against the printed one within atol + rtol·|paper|."""
        return self.record(
            claim,
            number(
                float(paper_value),
                float(reproduced),
                atol=atol,
                rtol=rtol,
                what=claim,
                evidence=evidence,
            ),
        )

    def _record(self, claim, paper_value, reproduced, tolerance, evidence, verdict, reason) -> None:
        # A claim id of claims.csv, possibly with a qualifier ("FR1:trees"), or a printed table's
        # cell ("multilevel_table1:U_opt@row0").
        prefix = claim.split(":", 1)[0]
        if prefix not in claims().index and not (paths.PAPER_DATA / f"{prefix}.csv").exists():
            raise ValueError(f"claim {claim!r} is neither in claims.csv nor a printed table's cell")
        self.rows = [r for r in self.rows if r["claim"] != claim]
        self.rows.append(
            dict(
                zip(
                    COLUMNS,
                    [
                        self.paper,
                        self.notebook,
                        claim,
                        paper_value,
                        reproduced,
                        tolerance,
                        evidence,
                        verdict,
                        reason,
                    ],
                    strict=True,
                )
            )
        )
        write_text_atomic(
            scorecard_file(self.root, self.notebook),
            pd.DataFrame(self.rows, columns=COLUMNS).to_csv(index=False),
        )
