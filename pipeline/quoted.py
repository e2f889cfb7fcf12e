"""The numbers prose quotes, and whether each is backed by what that prose may quote.

A reproduced number is never typed in (DESIGN.md): notebook markdown has it formatted from the
data by a code cell, and the README quotes only the reference run (data/reference/). These
functions find the numbers a text quotes; tests/notebooks/test_numbers.py holds the notebooks'
markdown to them, and ``unbacked_by_reference`` is the README's rule (tests/test_readme.py).

**A quoted number** (``quoted``) is a number written with a decimal point, a thousands separator
or an exponent (0.49, 1,570, 1e-6, −0.01, 0.094%), in prose: outside math ($…$, $$…$$) and code
(`…`, ```…```). Not quoted numbers:

- integers written plainly (n = 15, 30 s, 95% CI, 2-6 minutes): counts, sizes and settings;
- references: Section 4.2.1, Figs. 4.2-4.3, Table 4.1, Eq. (3.5), Theorem 5.1, Python 3.11;
- numbers glued to a word or an exponent sign (PPA-0.5, Apache-2.0, rank^-0.1, C.1): names.
"""

import ast
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from pipeline import paths

# Math ($$…$$, then $…$) and code (```…```, `…`) are where TeX and identifiers stand; the rest is
# prose.
_MATH_OR_CODE = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$|```.*?```|`[^`\n]*`", re.DOTALL)
_PART = r"\(?\d+(?:\.\d+)*[a-z]?\)?"
_REFERENCE = re.compile(
    r"\b(?:Sections?|Secs?\.?|Figures?|Figs?\.?|Tables?|Eqs?\.?|Equations?|Theorems?|Lemmas?|"
    r"Appendix|Appendices|Chapters?|Ch\.|Algorithms?|Python)\s*"
    rf"{_PART}(?:\s*(?:[-–]|and)\s*{_PART})*"
)
_NUMBER = re.compile(
    r"(?<![\w.,^])(?:\d+(?:\.\d+)?[eE][-−+]?\d+|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+)(?!\w|\.\d)"
)
_ANY_NUMBER = re.compile(r"\d+(?:[.,_]\d+)*(?:[eE][-+]?\d+)?")
_MINUS = "-−–"


def prose(markdown: str) -> str:
    """The markdown without its math and code (each replaced by a space)."""
    return _MATH_OR_CODE.sub(" ", markdown)


@dataclass(frozen=True)
class Quote:
    """A number as prose quotes it: its text, value, the decimal place it is rounded to
    (``_decimals``), whether it is a percentage, and the words around it."""

    text: str
    value: float
    decimals: int
    percent: bool
    context: str

    def rounds(self, value: float) -> bool:
        """Whether ``value``, rounded as quoted, reads as this quote (a percentage also reads
        a fraction: 8.7% quotes 0.087)."""
        half = 0.5 * 10.0**-self.decimals * (1 + 1e-9)
        candidates = (value, 100 * value) if self.percent else (value,)
        return any(abs(v - self.value) <= half for v in candidates)


def _decimals(text: str) -> int:
    """The decimal place a number is rounded to: 2.50 -> 2, 1e-6 -> 6, and an integer's trailing
    zeros are rounding (180,000 -> -4: to ten thousands)."""
    mantissa, _, exponent = text.replace("−", "-").replace(",", "").lower().partition("e")
    whole, point, places = mantissa.partition(".")
    if point or exponent:
        return len(places) - int(exponent or 0)
    return -(len(whole) - len(whole.rstrip("0"))) if whole.strip("0") else 0


def quoted(text: str, markdown: bool = True) -> list[Quote]:
    """The quoted numbers of ``text`` (its prose only when ``markdown``), in order."""
    body = _REFERENCE.sub(" ", prose(text) if markdown else text)
    out = []
    for m in _NUMBER.finditer(body):
        start, sign = m.start(), 1.0
        prev, prev2 = body[start - 1 : start], body[max(0, start - 2) : max(0, start - 1)]
        if prev and prev in _MINUS:
            if prev2.isalpha() or (prev2 and prev2 in "^_"):
                continue  # PPA-0.5, Apache-2.0, rank^-0.1: a name, not a number
            if not prev2.isdigit():  # "0.4-0.7" is a range, " −0.01" a negative number
                sign = -1.0
        token = m.group()
        value = sign * float(token.replace(",", "").replace("−", "-"))
        percent = body[m.end() : m.end() + 1] == "%"
        context = " ".join(body[max(0, m.start() - 50) : m.end() + 30].split())
        out.append(Quote(token, value, _decimals(token), percent, context))
    return out


def numbers_in(text: str) -> set[float]:
    """Every number written in ``text`` (1,570, 20_000, 1e-6, 0.49), as absolute values: the
    values a data file or a transcription holds."""
    out = set()
    for m in _ANY_NUMBER.finditer(text):
        token = m.group()
        try:
            out.add(float(token.replace(",", "").replace("_", "")))
        except ValueError:  # "4.2.1": a section number, not a value
            continue
    return out


def code_constants(source: str) -> set[float]:
    """The numeric literals of Python source, as absolute values (comments and strings are not
    code: a number typed there is not a value the code uses)."""
    return {
        abs(float(node.value))
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    }


def unbacked(text: str, allowed: Iterable[float]) -> list[Quote]:
    """The quoted numbers of markdown ``text`` whose (absolute) value is not in ``allowed``."""
    allowed = {abs(v) for v in allowed}
    return [q for q in quoted(text) if abs(q.value) not in allowed]


# -- the README against the reference run --------------------------------------------------


def reference_values(reference: Path) -> tuple[dict[str, set[float]], dict[str, set[float]]]:
    """The numbers of a reference run (``repro reference``): per claim, every number of its
    scorecard row (printed and reproduced value, rule, reason); per table, every numeric cell and
    the numbers its column names state (a threshold written into a header, "within x2 of 1.211")."""
    card = pd.read_csv(Path(reference) / "scorecard.csv", dtype=str, keep_default_na=False)
    claims: dict[str, set[float]] = {}
    for _, row in card.iterrows():
        fields = ("paper_value", "reproduced_value", "tolerance", "reason")
        numbers = numbers_in(" ".join(row[c] for c in fields if c in row))
        claims.setdefault(row["claim"], set()).update(numbers | {-v for v in numbers})
    tables = {}
    for file in sorted((Path(reference) / "tables").glob("*.csv")):
        frame = pd.read_csv(file)
        numeric = frame.select_dtypes("number").to_numpy().ravel()
        header = numbers_in(" ".join(map(str, frame.columns)))
        tables[file.stem] = {float(v) for v in numeric if math.isfinite(v)} | header
    return claims, tables


def _file_numbers(file: Path) -> set[float]:
    """Every number written in a CSV file's cells and header (a cell may be text: "10..20 MB")."""
    frame = pd.read_csv(file, dtype=str, keep_default_na=False)
    cells = [*frame.columns, *frame.to_numpy().ravel()]
    return set().union(*(numbers_in(str(c)) for c in cells))


_PAPER_FILE = re.compile(r"`data/paper/(\w+)\.csv`")
# A sentence ends at . ! or ? before a capital, a parenthesis or code; not after an abbreviation.
_SENTENCE_END = re.compile(
    r"(?<!\bEq)(?<!\bEqs)(?<!\bFig)(?<!\bFigs)(?<!\bSec)(?<!\bCh)(?<!\bAlg)(?<!\bvs)"
    r"(?<!\be\.g)(?<!\bi\.e)(?<!\bet al)[.!?]\s+(?=[A-Z(`])"
)
_BLOCKS = re.compile(r"^```.*?^```|\$\$.+?\$\$", re.DOTALL | re.MULTILINE)


def sentences(markdown: str) -> list[str]:
    """The sentences of markdown prose: fenced code and display math dropped, then split into
    paragraphs (a list item and a table row are each one) and those into sentences."""
    text = _BLOCKS.sub("\n\n", markdown)
    paragraphs = re.split(r"\n\s*\n|\n(?=\s*[-*] )|\n(?=\|)", text)
    return [s for p in paragraphs for s in _SENTENCE_END.split(p) if s.strip()]


def cited(sentence: str, claims: Iterable[str], tables: Iterable[str]) -> tuple[list, list]:
    """The claims (by id, ML1 or FR1:chains; a bare id cites its qualified rows too) and the
    tables (by file name in backticks, `incremental_engine_speed`) a sentence cites."""

    def named(word: str) -> bool:
        return re.search(rf"(?<![\w:]){re.escape(word)}(?!\w|:\w)", sentence) is not None

    in_backticks = set(re.findall(r"`(\w+)`", sentence))
    return (
        [c for c in claims if named(c) or named(c.split(":", 1)[0])],
        sorted(set(tables) & in_backticks),
    )


def unbacked_by_reference(
    text: str, reference: Path, paper: Path = paths.DATA / "paper"
) -> list[tuple[Quote, str]]:
    """The README's rule: every number it quotes appears, rounded as quoted, in what its sentence
    cites: the reference run's claim rows (by id: ML1, FR9) or tables (file name in backticks:
    `incremental_engine_speed`), or, for a number the paper prints, a file of the papers' printed
    values in ``paper`` (`data/paper/multilevel_table2.csv`). Returns each quote that fails, with
    why."""
    claims, tables = reference_values(reference)
    out = []
    for sentence in sentences(text):
        quotes = quoted(sentence)
        if not quotes:
            continue
        files = {
            f"data/paper/{n}.csv": Path(paper) / f"{n}.csv" for n in _PAPER_FILE.findall(sentence)
        }
        missing = [name for name, file in files.items() if not file.exists()]
        if missing:
            out += [(q, f"cites {missing[0]}, which does not exist") for q in quotes]
            continue
        named_claims, named_tables = cited(sentence, claims, tables)
        if not (named_claims or named_tables or files):
            out += [(q, "cites no claim or table of the reference run") for q in quotes]
            continue
        values = set().union(
            *(claims[c] for c in named_claims),
            *(tables[t] for t in named_tables),
            *(_file_numbers(file) for file in files.values()),
        )
        where = ", ".join(named_claims + named_tables + list(files))
        out += [
            (q, f"not in {where} (as rounded)") for q in quotes if not any(map(q.rounds, values))
        ]
    return out


def unbacked_text(failing: list[tuple[Quote, str]]) -> str:
    """One line per unbacked number: the number, why, and the words around it."""
    return "\n".join(f"{q.text!r}: {why}; in: ...{q.context}..." for q, why in failing)
