"""The index and the notebook pages at a laptop's width, measured in headless Chromium.

Skipped where Chromium is absent (`apt-get install chromium`). The page is loaded at 1280 px and
its scroll width read back: no horizontal scroll of the page; a wide table scrolls in its own box.
"""

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pipeline.export import export_html
from pipeline.index import build_index
from pipeline.notebooks import Status
from pipeline.scorecard import COLUMNS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed")
WIDTH = 1280
_MEASURE = (
    "<script>window.addEventListener('load', () => setTimeout(() => document.body.setAttribute("
    "'data-scroll-width', document.documentElement.scrollWidth), 300));</script></body>"
)


def scroll_width(page: Path, width: int = WIDTH) -> int:
    """The page's scroll width in a window ``width`` px wide."""
    probe = page.with_name(f".probe-{page.name}")
    probe.write_text(page.read_text().replace("</body>", _MEASURE))
    dom = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--window-size={width},900",
            "--virtual-time-budget=3000",
            "--dump-dom",
            probe.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    probe.unlink()
    found = re.search(r'data-scroll-width="(\d+)"', dom)
    assert found, dom[-500:]
    return int(found[1])


def _long(words: int, seed: int) -> str:
    rng = np.random.default_rng(seed)
    vocabulary = ["slope", "CI", "[1.25, 1.36]", "outside", "1.5-2.5", "quadratic", "in", "n:"]
    return " ".join(rng.choice(vocabulary, words)) + " " + "x" * 60  # and one unbreakable word


def test_index_fits_1280_px_without_horizontal_scroll(tmp_path):
    reports = tmp_path / "reports"
    (reports / "status").mkdir(parents=True)
    (reports / "scorecard").mkdir()
    rows = []
    for i, paper in enumerate(["fastrecover", "khaos", "multilevel", "ppa", "incremental"]):
        notebook = f"{paper}_layout_notebook_with_a_long_name"
        status = Status(
            notebook,
            paper,
            "quick",
            {"n_values": list(range(30))},
            "ok" if i else "failed",
            error=_long(40, i) if not i else "",
            overrides={"n_values": list(range(30))} if i == 2 else {},
            started="2026-11-24 06:00:00",
            later={"status": "interrupted", "started": "x", "error": _long(30, 9)}
            if i == 3
            else {},
        )
        (reports / "status" / f"{notebook}.json").write_text(json.dumps(status.__dict__))
        for claim in ("FR1", "FR9", "ML1", "KH1", "PPA1"):
            rows.append(
                [paper, notebook, f"{claim}:{'a_long_qualifier' * 3}", _long(25, 1), _long(25, 2)]
                + [_long(30, 3), "modelled", "partly", _long(120, 4)]
            )
        pd.DataFrame(rows[-5:], columns=COLUMNS).to_csv(
            reports / "scorecard" / f"{notebook}.csv", index=False
        )
    index, _ = build_index(reports)
    assert scroll_width(index) <= WIDTH


def test_notebook_page_wide_tables_scroll_in_their_own_box(tmp_path):
    wide = pd.DataFrame(np.ones((3, 40)), columns=[f"column_{i}" for i in range(40)])
    provenance = pd.DataFrame({"source": ["a long provenance text " * 40]})
    outputs = [
        {
            "output_type": "execute_result",
            "execution_count": i,
            "metadata": {},
            "data": {"text/html": frame.to_html(), "text/plain": "frame"},
        }
        for i, frame in enumerate((wide, provenance), 1)
    ]
    cells = [
        {
            "cell_type": "code",
            "id": f"c{i}",
            "metadata": {},
            "execution_count": i,
            "source": ["frame"],
            "outputs": [output],
        }
        for i, output in enumerate(outputs, 1)
    ]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    executed = tmp_path / "multilevel" / "wide.ipynb"
    executed.parent.mkdir()
    executed.write_text(json.dumps(notebook))
    page = executed.with_suffix(".html")
    export_html(executed, page, tmp_path)
    assert scroll_width(page) <= WIDTH
