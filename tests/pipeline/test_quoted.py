"""Numbers quoted in prose (pipeline.quoted), and the README's rule against a reference run."""

from pathlib import Path

from pipeline.quoted import code_constants, numbers_in, quoted, unbacked_by_reference

REFERENCE = Path(__file__).parent / "fixtures" / "reference"  # a small `repro reference` output


def test_quoted_numbers_are_decimals_thousands_and_exponents_in_prose():
    text = (
        "Figs. 4.2-4.3 (Section 4.2.1, Eq. (3.5), Python 2.7): n = 15 in 30 s gives 1.211 and "
        "0.49, a rate of 1,570/s within 1e-6; PPA-0.5 on Apache-2.0 with rank^-0.1; between "
        "0.4-0.7 s, a bias of −0.01 and 8.7%; `x = 2.5` and $\\lambda = 0.25$ are code and math. "
        "It ends at 2.25."
    )
    assert [(q.text, q.value) for q in quoted(text)] == [
        ("1.211", 1.211),
        ("0.49", 0.49),
        ("1,570", 1570.0),
        ("1e-6", 1e-6),
        ("0.4", 0.4),
        ("0.7", 0.7),
        ("0.01", -0.01),
        ("8.7", 8.7),
        ("2.25", 2.25),
    ]
    assert [q.text for q in quoted("Table 1, 0.8206; Figs. 4.2 and 4.3 at n 1.5")] == [
        "0.8206",
        "1.5",
    ]
    # the place each is rounded to: trailing zeros of an integer are rounding, a decimal's not
    assert [q.decimals for q in quoted("1e-6, 2.50, 1,570, 180,000, 2.5e-3")] == [6, 2, -1, -4, 4]


def test_a_quote_reads_the_values_that_round_to_it():
    [slope, speed, share] = quoted("slopes 1.55, about 180,000 per s, and 8.7%")
    assert slope.rounds(1.5549) and slope.rounds(1.5451) and not slope.rounds(1.5449)
    assert speed.rounds(181_234.5) and not speed.rounds(186_000)
    assert share.rounds(0.087) and share.rounds(8.66)


def test_numbers_in_data_and_code_are_read_as_values():
    assert numbers_in("x,1,570.5,y 20_000 and 1e-6; Section 4.2.1") >= {1570.5, 20000.0, 1e-6}
    source = "A = 20_000  # not 0.5 here\nB = -0.49\nC = True\nD = 'text 3.3'\n"
    assert code_constants(source) == {20000.0, 0.49}


def test_readme_numbers_cited_from_the_reference_run_pass():
    readme = """
# Results

ML1 reproduces Table 1's U* = 0.8206 (ours 0.82061, within 5e-05). For Q2 the Spearman correlation
of OF with accuracy is 0.985 (PPA6). Algorithm 1's time grows with slopes 1.55 in n and 1.40 in Z
(FR9).

- The engine processes about 180,000 tuples per CPU second (`incremental_engine_speed`).

| claim | ours |
|---|---|
| FR9 | 1.55 |

```sh
repro run multilevel_tables -p table3_runs=2.5
```
"""
    assert unbacked_by_reference(readme, REFERENCE) == []


def test_readme_rule_fails_on_a_planted_wrong_or_uncited_number():
    readme = (
        "FR9: slopes 1.41 in n and 1.40 in Z.\n\n"  # 1.41: the slope typed before a rerun
        "The engine processes 96,500 tuples per CPU second with order preserved.\n\n"
        "The engine processes about 180,000 tuples per CPU second (ML1).\n"
    )
    failing = [(q.text, why) for q, why in unbacked_by_reference(readme, REFERENCE)]
    assert failing == [
        ("1.41", "not in FR9 (as rounded)"),
        ("96,500", "cites no claim or table of the reference run"),
        ("180,000", "not in ML1 (as rounded)"),
    ]


def test_readme_numbers_the_paper_prints_cite_its_file(tmp_path):
    (tmp_path / "multilevel_table2.csv").write_text("lambda3_per_day,n,U_2level\n1,50,0.780\n")
    readme = (
        "Table 2 prints U = 0.780 at n = 50 (`data/paper/multilevel_table2.csv`).\n\n"
        "The thesis prints 1.211 (`data/paper/fastrecover_maxima.csv`).\n\n"
        "Table 2 prints U = 0.781 (`data/paper/multilevel_table2.csv`).\n"
    )
    failing = [(q.text, why) for q, why in unbacked_by_reference(readme, REFERENCE, tmp_path)]
    assert failing == [
        ("1.211", "cites data/paper/fastrecover_maxima.csv, which does not exist"),
        ("0.781", "not in data/paper/multilevel_table2.csv (as rounded)"),
    ]


def test_a_number_is_backed_only_by_what_its_own_sentence_cites():
    # FR9 backs 1.55 in its own sentence, not in the next one, and code blocks quote nothing.
    readme = (
        "Algorithm 1 grows with slope 1.55 in n, as Eq. (3) says, and 1.40 in Z (FR9).\n\n"
        "```python\nx = 0.123. Then = 4.56\n```\n"
    )
    assert [q.text for q, _ in unbacked_by_reference(readme, REFERENCE)] == []
    readme = "Algorithm 1 grows with slope 1.55 (FR9). In Z the slope is 1.40.\n"
    assert [q.text for q, _ in unbacked_by_reference(readme, REFERENCE)] == ["1.40"]
