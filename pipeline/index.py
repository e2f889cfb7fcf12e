"""reports/index.html and reports/scorecard.csv, gathered from what the notebooks recorded.

Reads reports/status/*.json (one per notebook run), reports/manifests/*.json (figures and tables)
and reports/scorecard/*.csv (verdicts); writes the scorecard of all papers and a landing page
with counts per paper, every notebook's HTML, figures and tables, and what failed and why.
"""

import html
import json
import time
from pathlib import Path

import pandas as pd

from pipeline.files import write_text_atomic
from pipeline.notebooks import load_statuses
from pipeline.paper import CROSS_PAPER, PAPERS
from pipeline.scorecard import COLUMNS, VERDICTS, summary

_STYLE = """
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 8px;
font-size:14px;vertical-align:top}th{background:#f3f3f3}.ok{color:#176f2c}.failed{color:#b00020}
.reproduced{background:#e3f4e6}.partly{background:#fff4d6}.not-reproduced{background:#fde2e2}
figure{display:inline-block;width:320px;margin:.5em;vertical-align:top}
figure img{width:100%;border:1px solid #ddd}figcaption{font-size:13px}
"""


def gather_scorecard(reports: Path, notebooks: set[str]) -> pd.DataFrame:
    frames = [
        pd.read_csv(f, dtype=str)
        for f in sorted((reports / "scorecard").glob("*.csv"))
        if f.stem in notebooks
    ]
    card = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)
    return card[COLUMNS].sort_values(["paper", "claim"], kind="stable").reset_index(drop=True)


def _manifests(reports: Path) -> dict[str, dict]:
    return {
        f.stem: json.loads(f.read_text()) for f in sorted((reports / "manifests").glob("*.json"))
    }


def _e(value) -> str:
    return html.escape(str(value))


def _section(paper: str, statuses, manifests, card: pd.DataFrame, counts: pd.DataFrame) -> str:
    out = [f'<h2 id="{paper}">{_e(paper)}</h2>']
    if paper in counts.index:
        row = counts.loc[paper]
        out.append("<p>" + ", ".join(f"{row[v]} {v}" for v in VERDICTS) + "</p>")
    out.append(
        "<table><tr><th>notebook</th><th>profile</th><th>status</th><th>seconds</th>"
        "<th>error</th></tr>"
    )
    for s in statuses:
        link = f'<a href="{_e(s.html)}">{_e(s.notebook)}</a>' if s.html else _e(s.notebook)
        out.append(
            f'<tr><td>{link}</td><td>{_e(s.profile)}</td><td class="{s.status}">'
            f"{s.status}</td><td>{s.seconds}</td><td>{_e(s.error)}</td></tr>"
        )
    out.append("</table>")
    for s in statuses:
        manifest = manifests.get(s.notebook, {})
        if manifest.get("tables"):
            links = ", ".join(
                f'<a href="{_e(t["csv"])}">{_e(t["id"])}</a>' for t in manifest["tables"]
            )
            out.append(f"<p>Tables of {_e(s.notebook)}: {links}</p>")
        for fig in manifest.get("figures", []):
            out.append(
                f'<figure><a href="{_e(fig["svg"])}"><img src="{_e(fig["png"])}" '
                f'alt="{_e(fig["id"])}"></a><figcaption>{_e(fig["caption"])}</figcaption></figure>'
            )
    rows = card[card["paper"] == paper]
    if len(rows):
        out.append(
            "<h3>Scorecard</h3><table><tr>"
            + "".join(f"<th>{c}</th>" for c in COLUMNS[2:])
            + "</tr>"
        )
        for _, r in rows.iterrows():
            cls = r["verdict"].replace(" ", "-")
            out.append(
                f'<tr class="{cls}">'
                + "".join(f"<td>{_e(r[c])}</td>" for c in COLUMNS[2:])
                + "</tr>"
            )
        out.append("</table>")
    return "\n".join(out)


def build_index(reports: Path) -> tuple[Path, pd.DataFrame]:
    """Write reports/scorecard.csv and reports/index.html; return the index path and scorecard."""
    reports = Path(reports)
    statuses = load_statuses(reports)
    card = gather_scorecard(reports, {s.notebook for s in statuses})
    write_text_atomic(reports / "scorecard.csv", card.to_csv(index=False))
    counts = summary(card) if len(card) else pd.DataFrame(columns=[*VERDICTS, "total"])
    manifests = _manifests(reports)
    failed = [s for s in statuses if s.status != "ok"]
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>Reproduction report</title>"
        f"<style>{_STYLE}</style></head><body><h1>Fault tolerance in stream processing: "
        f"reproduction report</h1><p>Built {time.strftime('%Y-%m-%d %H:%M')}; "
        f"{len(statuses)} notebooks, {len(failed)} failed. "
        f'<a href="scorecard.csv">scorecard.csv</a></p>'
    ]
    if failed:
        parts.append(
            '<h2 class="failed">Failed notebooks</h2><ul>'
            + "".join(f"<li><b>{_e(s.notebook)}</b>: {_e(s.error)}</li>" for s in failed)
            + "</ul>"
        )
    parts.append(
        "<h2>Scorecard by paper</h2><table><tr><th>paper</th>"
        + "".join(f"<th>{v}</th>" for v in [*VERDICTS, "total"])
        + "</tr>"
    )
    for paper in counts.index:
        parts.append(
            f'<tr><td><a href="#{paper}">{_e(paper)}</a></td>'
            + "".join(f"<td>{counts.loc[paper, v]}</td>" for v in [*VERDICTS, "total"])
            + "</tr>"
        )
    parts.append("</table>")
    for paper in (*PAPERS, CROSS_PAPER):
        mine = [s for s in statuses if s.paper == paper]
        if mine:
            parts.append(_section(paper, mine, manifests, card, counts))
    parts.append("</body></html>")
    index = reports / "index.html"
    write_text_atomic(index, "\n".join(parts))
    return index, card
