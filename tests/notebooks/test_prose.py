"""The notebooks' prose as a student reads it: every formula typeset, no raw TeX."""

import json
import re

import pytest

from pipeline import paths
from pipeline.notebooks import available
from pipeline.quoted import prose

# Math ($$…$$, then $…$) and code (```…```, `…`) are where TeX may stand; the rest is prose.
RAW_TEX = re.compile(r"_\{|\^\{|\\frac|\\sum|\\lambda")


def raw_tex(markdown: str) -> list[str]:
    text = prose(markdown)
    return [text[max(0, m.start() - 20) : m.end() + 20] for m in RAW_TEX.finditer(text)]


def test_raw_tex_is_found_outside_math_only():
    assert len(raw_tex("loses Σ_{i<l} p_i and e^{-ΛT}, \\frac12")) == 3
    assert raw_tex("loses $\\sum_{i<l} p_i$ and $$e^{-\\Lambda T}$$, `x_{i}`") == []


@pytest.mark.parametrize("name", available())
def test_notebook_prose_has_no_raw_tex(name):
    notebook = json.loads((paths.NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"])
            assert not raw_tex(source), f"{name}, cell {cell.get('id')}: {raw_tex(source)}"
            assert prose(source).count("$") == 0, f"{name}, cell {cell.get('id')}: unpaired $"
