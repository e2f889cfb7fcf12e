"""reports/index.html and reports/scorecard.csv, gathered from what the notebooks recorded.

Reads reports/status/*.json (one per notebook run), reports/manifests/*.json (figures and tables),
reports/scorecard/*.csv (verdicts) and the executed notebooks (to link each claim to the cell that
judged it). Writes the scorecard of all papers and one static landing page, its stylesheet and
filter script inline, so reports/ can be zipped and read offline. A reviewer asks which claims did
not reproduce, why, and where the evidence is; the page answers in that order: the verdict legend
and counts per paper, one row per claim with its reason and a link to the evidence (filterable by
paper and verdict), the figures of each paper, then how the run went (profile and -p overrides,
start and end, time per notebook, the kernel's log, Spark master, commit, package versions).

Honest counts: a notebook's outputs are those of its last complete run (``pipeline.notebooks``
publishes a run only when it finishes). The summary counts only the verdicts of runs that ended ok
without -p overrides; verdicts of a failed run, or of a run with overrides, are listed and marked
(the scorecard's ``run`` column) but counted apart. A later run that failed or was interrupted, or
a run still under way or killed, is named at the top with when and why.
"""

import html
import json
import platform
import re
import time
from importlib import metadata
from pathlib import Path

import pandas as pd

from pipeline import provenance, verify
from pipeline.files import write_text_atomic
from pipeline.notebooks import OK, Status, load_statuses, unfinished_runs
from pipeline.paper import CROSS_PAPER, PAPERS, claims
from pipeline.scorecard import COLUMNS, EVIDENCE_LEGEND, LEGEND, VERDICTS, summary

PACKAGES = (
    "stream-ft-repro",
    "numpy",
    "scipy",
    "pandas",
    "sympy",
    "statsmodels",
    "pyspark",
    "matplotlib",
    "seaborn",
    "papermill",
    "nbconvert",
    "django-static-mathjax",  # MathJax of the notebook pages
)

# One colour per verdict (background, text): green holds, amber partly, red fails; blue and
# slate for what holds without being evidence; greys for inputs and what cannot be decided.
_COLOURS = {
    "reproduced": ("#d9f2df", "#14532d"),
    "partly": ("#fdefc3", "#6b4405"),
    "not reproduced": ("#fbd9d9", "#7f1d1d"),
    "calibrated": ("#dfe5fb", "#1e3a8a"),
    "by construction": ("#dcecf2", "#164e63"),
    "input": ("#ececec", "#383838"),
    "not checkable": ("#f1eaf6", "#5b2e6e"),
    "depends": ("#fde7d4", "#7c2d12"),
}
_STYLE = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2125;max-width:1240px;
margin:0 auto;padding:1em 1.2em 3em;overflow-wrap:anywhere}
h1{font-size:1.55em;margin:.3em 0}h2{font-size:1.2em;margin:1.8em 0 .6em;padding-bottom:.2em;
border-bottom:1px solid #d8dbe0}h3{font-size:1.05em;margin:1.2em 0 .4em}
a{color:#0b57a4}.muted{color:#5f6670}.small{font-size:13px}
table{border-collapse:collapse}th,td{border-bottom:1px solid #e3e5e8;padding:4px 8px;
text-align:left;vertical-align:top;font-size:14px}th{background:#f4f5f7;position:sticky;top:0}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.v{display:inline-block;padding:0 .55em;border-radius:.8em;font-size:13px;white-space:nowrap;
text-decoration:none}.zero{color:#b5b9bf}
dl.legend{display:grid;grid-template-columns:max-content 1fr;gap:.25em 1em;margin:0}
dl.legend dd{margin:0}
.filters{display:flex;flex-wrap:wrap;gap:1em;align-items:center;margin:.4em 0 .6em}
#claim-table{width:100%;table-layout:fixed}#claim-table td{overflow-wrap:anywhere}
#claim-table col.c-paper{width:6.5em}#claim-table col.c-claim{width:13%}
#claim-table col.c-value{width:9%}#claim-table col.c-rule{width:12%}
#claim-table col.c-verdict{width:8.5em}#claim-table col.c-notebook{width:10%}
.run-note{display:block;font-size:12px;color:#7c2d12}
.wide{overflow-x:auto;max-width:100%}
.failed{color:#b00020}.ok{color:#176f2c}
.bar{display:inline-block;height:.7em;background:#4c78a8;vertical-align:middle;margin-right:.4em}
figure{display:inline-block;width:300px;margin:.4em .8em .8em 0;vertical-align:top}
figure img{width:100%;border:1px solid #d8dbe0;background:#fff}figcaption{font-size:13px}
"""
_SCRIPT = """
const rows = [...document.querySelectorAll('#claim-table tbody tr')];
const byPaper = document.getElementById('f-paper');
const byVerdict = document.getElementById('f-verdict');
function filter() {
  let shown = 0;
  for (const r of rows) {
    r.hidden = (byPaper.value && r.dataset.paper !== byPaper.value) ||
               (byVerdict.value && r.dataset.verdict !== byVerdict.value);
    shown += !r.hidden;
  }
  document.getElementById('shown').textContent = shown + ' of ' + rows.length + ' claims';
}
byPaper.onchange = byVerdict.onchange = filter;
for (const a of document.querySelectorAll('a[data-filter]')) {  // the summary's counts
  a.onclick = () => { byPaper.value = a.dataset.paper; byVerdict.value = a.dataset.verdict;
                      filter(); };
}
filter();
"""


def verdict_class(verdict: str) -> str:
    return "v v-" + verdict.replace(" ", "-")


def stylesheet() -> str:
    """The page's style: the layout above and one colour rule per verdict."""
    rules = "".join(
        f".v-{v.replace(' ', '-')}{{background:{_COLOURS[v][0]};color:{_COLOURS[v][1]}}}"
        for v in VERDICTS
    )
    return _STYLE + rules + "\n"


def run_label(status: Status | None) -> str:
    """How a notebook's verdicts were made, when not by a clean run: "failed run",
    "overrides: k=v, ..." (the user's -p values), or both; "" for a run that ended ok as its
    profile says."""
    if status is None:
        return ""
    parts = [] if status.status == OK else [f"{status.status} run"]
    if status.overrides:
        parts.append("overrides: " + ", ".join(f"{k}={v!r}" for k, v in status.overrides.items()))
    return "; ".join(parts)


def gather_scorecard(reports: Path, statuses: dict[str, Status]) -> pd.DataFrame:
    """Every notebook's verdicts, with the ``run`` each came from (``run_label``)."""
    frames = [
        pd.read_csv(f, dtype=str, keep_default_na=False).assign(run=run_label(statuses[f.stem]))
        for f in sorted((reports / "scorecard").glob("*.csv"))
        if f.stem in statuses
    ]
    columns = [*COLUMNS, "run"]
    card = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    card = card.reindex(columns=columns, fill_value="")
    return card.sort_values(["paper", "claim"], kind="stable").reset_index(drop=True)


def _manifests(reports: Path) -> dict[str, dict]:
    return {
        f.stem: json.loads(f.read_text()) for f in sorted((reports / "manifests").glob("*.json"))
    }


def _e(value) -> str:
    return html.escape(str(value))


def _source(cell: dict) -> str:
    return "".join(cell.get("source", ""))


def claim_anchors(executed: Path, claim_ids) -> dict[str, str]:
    """Each claim's anchor in the notebook's HTML (nbconvert gives each cell ``id="cell-id=…"``):
    the code cell that records it (names it in quotes and calls ``.record(`` or ``.compare(``),
    else the first code cell naming it, else a markdown cell headed "Verdicts". A table cell's
    claim ("multilevel_table1:U_opt@row0") is looked up by its table id too."""
    try:
        cells = json.loads(Path(executed).read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError):
        return {}
    code = [c for c in cells if c["cell_type"] == "code"]
    heading = re.compile(r"^#+\s.*\bverdicts\b", re.IGNORECASE | re.MULTILINE)
    verdicts = [c for c in cells if c["cell_type"] == "markdown" and heading.search(_source(c))]
    anchors = {}
    for claim in claim_ids:
        names = {claim, claim.split(":", 1)[0]}
        naming = [
            c for c in code if any(f'"{n}"' in _source(c) or f"'{n}'" in _source(c) for n in names)
        ]
        recording = [c for c in naming if re.search(r"\.(record|compare)\(", _source(c))]
        found = (recording or naming or verdicts or [{}])[0]
        if found.get("id"):
            anchors[claim] = f"#cell-id={found['id']}"
    return anchors


def _legend() -> str:
    items = "".join(
        f'<dt><span class="{verdict_class(v)}">{_e(v)}</span></dt><dd>{_e(LEGEND[v])}</dd>'
        for v in VERDICTS
    )
    kinds = "".join(
        f"<dt><b>{_e(k)}</b></dt><dd>{_e(text)}</dd>" for k, text in EVIDENCE_LEGEND.items()
    )
    return (
        f'<h2 id="legend">Verdicts</h2><dl class="legend">{items}</dl>'
        f'<h3>Evidence</h3><dl class="legend">{kinds}</dl>'
    )


def _summary(card: pd.DataFrame) -> str:
    counted = card[card["run"] == ""]
    apart = card[card["run"] != ""]
    note = ""
    if len(apart):
        runs = apart.drop_duplicates("notebook")
        listed = "; ".join(f"{r.notebook} ({r.run})" for r in runs.itertuples())
        note = (
            f'<p class="run-note">Not counted: {len(apart)} verdicts of runs that failed or used '
            f"-p overrides: {_e(listed)}. They are listed below, marked.</p>"
        )
    if not len(counted):
        return (
            '<h2 id="summary">Summary by paper</h2><p class="muted">No claim was judged by a '
            f"complete run without overrides.</p>{note}"
        )
    counts = summary(counted)
    counts.loc["all papers"] = counts.sum()
    head = "".join(f'<th class="num">{_e(v)}</th>' for v in [*VERDICTS, "total"])
    rows = []
    for paper, row in counts.iterrows():
        key = "" if paper == "all papers" else paper
        cells = []
        for v in VERDICTS:
            n = int(row[v])
            cells.append(
                f'<td class="num"><a class="{verdict_class(v)}" href="#claims" data-filter '
                f'data-paper="{_e(key)}" data-verdict="{_e(v)}">{n}</a></td>'
                if n
                else '<td class="num zero">0</td>'
            )
        name = f"<b>{_e(paper)}</b>" if not key else f'<a href="#figures-{_e(key)}">{_e(key)}</a>'
        rows.append(
            f"<tr><td>{name}</td>{''.join(cells)}"
            f'<td class="num"><a href="#claims" data-filter data-paper="{_e(key)}" '
            f'data-verdict="">{int(row["total"])}</a></td></tr>'
        )
    return (
        '<h2 id="summary">Summary by paper</h2><p class="muted small">A count shows its claims '
        "below. Counted: the verdicts of complete runs without -p overrides.</p>"
        f'<div class="wide"><table><tr><th>paper</th>{head}</tr>{"".join(rows)}</table></div>'
        f"{note}"
    )


def _claims(card: pd.DataFrame, statuses: dict[str, Status], reports: Path) -> str:
    statements = claims()["claim"].to_dict()
    anchors: dict[str, dict[str, str]] = {}
    for name, group in card.groupby("notebook"):
        status = statuses.get(name)
        if status is not None and status.html:
            executed = (reports / status.html).with_suffix(".ipynb")
            anchors[name] = claim_anchors(executed, group["claim"])
    against = verify.claim_status(reports)
    rows = []
    for r in card.itertuples(index=False):
        statement = statements.get(r.claim.split(":", 1)[0], "")
        match = against.get(r.claim)
        match = f'<div class="small muted">reference: {_e(match)}</div>' if match else ""
        status = statuses.get(r.notebook)
        if status is not None and status.html:
            href = status.html + anchors.get(r.notebook, {}).get(r.claim, "")
            where = f'<a href="{_e(href)}">{_e(r.notebook)}</a>'
        else:
            where = _e(r.notebook)
        rows.append(
            f'<tr data-paper="{_e(r.paper)}" data-verdict="{_e(r.verdict)}">'
            f"<td>{_e(r.paper)}</td>"
            f'<td><b>{_e(r.claim)}</b><div class="small muted">{_e(statement)}</div></td>'
            f'<td class="value">{_e(r.paper_value)}</td>'
            f'<td class="value">{_e(r.reproduced_value)}</td>'
            f'<td class="rule">{_e(r.tolerance)}</td>'
            f'<td><span class="{verdict_class(r.verdict)}">{_e(r.verdict)}</span>'
            f'<div class="small muted">{_e(r.evidence)}</div>{match}'
            + (f'<span class="run-note">{_e(r.run)}, not counted</span>' if r.run else "")
            + "</td>"
            f'<td class="reason">{_e(r.reason)}</td><td>{where}</td></tr>'
        )
    papers = "".join(f'<option value="{_e(p)}">{_e(p)}</option>' for p in sorted(set(card.paper)))
    verdicts = "".join(f'<option value="{_e(v)}">{_e(v)}</option>' for v in VERDICTS)
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "paper",
            "claim",
            "printed",
            "reproduced",
            "rule",
            "verdict (evidence)",
            "reason",
            "notebook",
        )
    )
    return (
        '<h2 id="claims">Claims</h2><div class="filters">'
        f'<label>paper <select id="f-paper"><option value="">all</option>{papers}</select></label>'
        f'<label>verdict <select id="f-verdict"><option value="">all</option>{verdicts}</select>'
        '</label><span id="shown" class="muted"></span></div>'
        '<table id="claim-table"><colgroup><col class="c-paper"><col class="c-claim">'
        '<col class="c-value"><col class="c-value"><col class="c-rule"><col class="c-verdict">'
        '<col class="c-reason"><col class="c-notebook"></colgroup>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody>"
        "</table>"
        '<p class="small muted">The notebook link opens the notebook at the cell that judged the '
        'claim. All rows: <a href="scorecard.csv">scorecard.csv</a>.</p>'
    )


def _figures(statuses: list[Status], manifests: dict[str, dict]) -> str:
    out = ['<h2 id="figures">Figures and tables</h2>']
    for paper in (*PAPERS, CROSS_PAPER):
        mine = [s for s in statuses if s.paper == paper]
        if not mine:
            continue
        out.append(f'<h3 id="figures-{_e(paper)}">{_e(paper)}</h3>')
        for s in mine:
            manifest = manifests.get(s.notebook, {})
            link = f'<a href="{_e(s.html)}">{_e(s.notebook)}</a>' if s.html else _e(s.notebook)
            tables = ", ".join(
                f'<a href="{_e(t["csv"])}">{_e(t["id"])}</a>' for t in manifest.get("tables", [])
            )
            out.append(f"<p>{link}" + (f" · tables: {tables}" if tables else "") + "</p>")
            for fig in manifest.get("figures", []):
                out.append(
                    f'<figure><a href="{_e(fig["png"])}"><img src="{_e(fig["png"])}" '
                    f'alt="{_e(fig["id"])}" loading="lazy"></a><figcaption>{_e(fig["caption"])} '
                    f'<span class="muted">(<a href="{_e(fig["png"])}">PNG</a>, '
                    f'<a href="{_e(fig["svg"])}">SVG</a>)</span></figcaption></figure>'
                )
    return "\n".join(out)


def _versions() -> str:
    found = []
    for name in PACKAGES:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            continue
    return ", ".join([f"Python {platform.python_version()}", *found])


def _overrides(overrides: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in overrides.items())


def later_note(s: Status) -> str:
    """One line (HTML) on a later run that failed or was interrupted and left ``s``'s outputs in
    place, or that is under way; "" if none."""
    later = s.later
    if not later:
        return ""
    label = later.get("profile", "") + (
        f"; {_overrides(later['overrides'])}" if later.get("overrides") else ""
    )
    what = {"running": "is running", "failed": "failed"}.get(
        later["status"], f"was {later['status']}"
    )
    when = later.get("finished") or later.get("started", "")
    links = [
        f'<a href="{_e(later[k])}">{t}</a>'
        for k, t in (("html", "page"), ("log", "log"))
        if later.get(k)
    ]
    return (
        f"a later run ({_e(label)}, started {_e(later.get('started', ''))}) {what}"
        + (f" at {_e(when)}" if what != "is running" else "")
        + f": {_e(later.get('error', ''))}"
        + (f" ({', '.join(links)})" if links else "")
        + "; the outputs shown are from the complete run before it"
    )


def _run(statuses: list[Status]) -> str:
    total = sum(s.seconds for s in statuses)
    rows = []
    for s in sorted(statuses, key=lambda s: -s.seconds):
        share = s.seconds / total if total else 0.0
        link = f'<a href="{_e(s.html)}">{_e(s.notebook)}</a>' if s.html else _e(s.notebook)
        log = f'<a href="{_e(s.log)}">log</a>' if s.log else ""
        profile = _e(s.profile) + (
            f'<div class="small">-p {_e(_overrides(s.overrides))}</div>' if s.overrides else ""
        )
        note = " ".join(filter(None, [_e(s.error), later_note(s)]))
        rows.append(
            f"<tr><td>{link}</td><td>{_e(s.paper)}</td><td>{profile}</td>"
            f'<td class="{_e(s.status)}">{_e(s.status)}</td><td class="num">{s.seconds:.1f}</td>'
            f'<td><span class="bar" style="width:{60 * share:.0f}px"></span>{share:.0%}</td>'
            f'<td class="small">{_e(s.started)}</td><td class="small">{_e(s.finished)}</td>'
            f'<td class="small">{log}</td><td class="small">{note}</td></tr>'
        )

    def distinct(values) -> str:
        return ", ".join(sorted({v for v in values if v})) or "unknown"

    commits = distinct(s.commit for s in statuses)
    overridden = [f"{s.notebook}: {_overrides(s.overrides)}" for s in statuses if s.overrides]
    facts = {
        "profile": distinct(s.profile for s in statuses),
        "-p overrides": "; ".join(overridden) or "none",
        "notebook time": f"{total:.0f} s ({total / 60:.1f} min) over {len(statuses)} notebooks",
        "Spark master": distinct(s.master for s in statuses),
        "commit": commits + (" (+: with uncommitted changes)" if "+" in commits else ""),
        "packages": _versions(),
        "lock": f"requirements.lock sha256 {provenance.lock_hash()}",
        "index built": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    return (
        '<h2 id="run">Run</h2><dl class="legend">'
        + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in facts.items())
        + '</dl><div class="wide"><table style="margin-top:.8em"><tr><th>notebook</th>'
        '<th>paper</th><th>profile</th><th>status</th><th class="num">seconds</th><th>share</th>'
        "<th>started</th><th>ended</th><th>kernel log</th><th>error, later runs</th></tr>"
        f"{''.join(rows)}"
        f'<tr><td><b>total</b></td><td></td><td></td><td></td><td class="num"><b>{total:.1f}'
        "</b></td><td>100%</td><td></td><td></td><td></td><td></td></tr></table></div>"
    )


def _with_unfinished(reports: Path) -> list[Status]:
    """The notebooks' statuses, a run under way or killed noted on its notebook's last status
    (``later``), or standing alone for a notebook that has none."""
    statuses = {s.notebook: s for s in load_statuses(reports)}
    for run in unfinished_runs(reports):
        known = statuses.get(run.notebook)
        if known is None:
            statuses[run.notebook] = run
        elif not known.later or known.later.get("started", "") <= run.started:
            known.later = {
                "status": run.status,
                "started": run.started,
                "finished": run.finished,
                "error": run.error,
                "profile": run.profile,
                "overrides": run.overrides,
            }
    return sorted(statuses.values(), key=lambda s: s.notebook)


def build_index(reports: Path) -> tuple[Path, pd.DataFrame]:
    """Write reports/scorecard.csv and reports/index.html; return the index path and scorecard."""
    reports = Path(reports)
    statuses = _with_unfinished(reports)
    by_name = {s.notebook: s for s in statuses}
    card = gather_scorecard(reports, by_name)
    write_text_atomic(reports / "scorecard.csv", card.to_csv(index=False))
    failed = [s for s in statuses if s.status != OK]
    later = [s for s in statuses if s.later]
    counted = int((card["run"] == "").sum())
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>Reproduction report</title><style>{stylesheet()}</style></head><body>"
        "<h1>Fault tolerance in stream processing: reproduction report</h1>"
        f'<p class="muted">{len(statuses)} notebooks, {len(failed)} failed or interrupted, '
        f"{len(card)} claims judged ({counted} counted: complete runs without overrides). "
        '<a href="#claims">Claims</a> · <a href="#figures">Figures</a> · '
        '<a href="#run">Run</a> · <a href="scorecard.csv">scorecard.csv</a></p>'
    ]
    if failed or later:
        items = [
            f'<li><b><a href="{_e(s.html)}">{_e(s.notebook)}</a></b>: {_e(s.status)}: '
            f"{_e(s.error)}</li>"
            if s.html
            else f"<li><b>{_e(s.notebook)}</b>: {_e(s.status)}: {_e(s.error)}</li>"
            for s in failed
        ] + [f"<li><b>{_e(s.notebook)}</b>: {later_note(s)}</li>" for s in later]
        parts.append(
            '<h2 class="failed">Failed and interrupted runs</h2><ul>' + "".join(items) + "</ul>"
        )
    parts += [
        _legend(),
        _summary(card),
        _claims(card, by_name, reports),
        _figures(statuses, _manifests(reports)),
        _run(statuses),
        f"<script>{_SCRIPT}</script></body></html>",
    ]
    index = reports / "index.html"
    write_text_atomic(index, "\n".join(parts))
    return index, card
