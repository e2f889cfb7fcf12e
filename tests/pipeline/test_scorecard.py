"""The verdict vocabulary, ``judge`` and the paired trend rule every trend claim uses."""

import numpy as np
import pandas as pd
import pytest

from pipeline.scorecard import (
    BY_CONSTRUCTION,
    CALIBRATED,
    DEPENDS,
    LEGEND,
    MODELLED,
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    VERDICTS,
    Assumption,
    Corner,
    Verdict,
    bootstrap_ci,
    judge,
    mean_ci,
    robust,
    trend,
)

TEXTS = {"paper_value": "p", "reproduced": "r", "rule": "x > 0"}


def test_the_legend_explains_every_verdict():
    assert set(LEGEND) == set(VERDICTS) and len(VERDICTS) == 8


def test_headline_decides_and_details_only_lower_to_partly():
    assert judge({"a": True}, {"b": True}, **TEXTS).verdict == REPRODUCED
    assert judge({"a": True}, {"b": False}, **TEXTS).verdict == PARTLY
    # No floor: a failing headline is "not reproduced" however many details hold.
    failed = judge({"a": False}, {"b": True, "c": True}, **TEXTS)
    assert failed.verdict == NOT_REPRODUCED
    assert failed.reason == "fails: a; holds: b; c"
    # Failing details are named too when the headline fails.
    assert judge({"a": False}, {"b": False}, **TEXTS).reason == "fails: a; b"


def test_claims_that_cannot_fail_are_labelled_but_still_fail_on_contrary_data():
    assert judge({"a": True}, **TEXTS, when_holds=CALIBRATED).verdict == CALIBRATED
    assert judge({"a": True}, **TEXTS, when_holds=BY_CONSTRUCTION).verdict == BY_CONSTRUCTION
    assert judge({"a": False}, **TEXTS, when_holds=BY_CONSTRUCTION).verdict == NOT_REPRODUCED


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"verdict": "fine"}, "verdict must be one of"),
        ({"rule": ""}, "rule must be a non-empty text"),
    ],
)
def test_a_verdict_row_names_what_is_wrong(kwargs, message):
    fields = {
        "verdict": REPRODUCED,
        "paper_value": "p",
        "reproduced": "r",
        "rule": "x",
        "reason": "y",
    }
    with pytest.raises(ValueError, match=message):
        Verdict(**{**fields, **kwargs})


def _line(means, topologies=200, noise=1.0, seed=0):
    """Paired data along a line: topology i has its own level, shared by every value."""
    rng = np.random.default_rng(seed)
    level = rng.normal(0, 5, topologies)
    rows = [
        {"x": x, "iteration": i, "y": level[i] + m + rng.normal(0, noise)}
        for x, m in enumerate(means)
        for i in range(topologies)
    ]
    return pd.DataFrame(rows)


def test_paired_trend_sees_a_small_rise_that_independent_samples_would_hide():
    # A rise of 0.5 under a topology spread of 5: the paired CI excludes 0.
    t = trend(_line([0.0, 0.25, 0.5]), "x", "y", +1)
    assert t.holds and t.monotone


def test_trend_fails_on_a_reversed_line_and_reports_the_reversed_step():
    falling = trend(_line([1.0, 0.0, -1.0]), "x", "y", +1)
    assert not falling.holds
    hump = trend(_line([0.0, 3.0, 1.0, 2.0]), "x", "y", +1)
    assert hump.holds and hump.reversals == [1]


def test_trend_fails_on_the_issue_example_of_a_non_growing_advantage():
    # Means 0.6, 1.5, 1.1, 0.3 once passed "grows with Ω" with a one-point slack.
    t = trend(_line([0.6, 1.5, 1.1, 0.3], noise=0.3), "x", "y", +1)
    assert not t.holds and not t.monotone


def test_trend_leaves_out_a_value_without_data_and_names_it():
    # No topology feasible at the first value: judged on the others, never a NaN verdict.
    line = _line([9.0, 0.0, 1.0, 2.0])
    line.loc[line["x"] == line["x"].min(), "y"] = np.nan
    t = trend(line, "x", "y", +1)
    assert t.holds and t.without_data == (line["x"].min(),)
    assert "no data at" in t.text() and "nan" not in t.text()
    line.loc[line["x"] != line["x"].max(), "y"] = np.nan
    lone = trend(line, "x", "y", +1)
    assert not lone.holds and "not judged" in lone.text()


def test_mean_ci_covers_and_bootstrap_ci_brackets_the_statistic():
    rng = np.random.default_rng(1)
    mean, lo, hi = mean_ci(rng.normal(3.0, 1.0, 400))
    assert lo < 3.0 < hi and hi - lo < 0.25
    a, b = rng.normal(0, 2, 300), rng.normal(0, 1, 300)
    ratio, lo, hi = bootstrap_ci(
        lambda x, y: np.var(x, ddof=1) / np.var(y, ddof=1), [a, b], rng=rng
    )
    assert lo < ratio < hi and lo < 4.0 < hi


def _threshold_rule(measured: float):
    """A toy modelled rule: the claim holds when the measured value exceeds a threshold that
    the paper leaves open (a vague word such as "slight")."""

    def rule(threshold: float, scale: float = 1.0) -> Verdict:
        value = measured * scale
        return judge(
            {f"value {value:g} > {threshold:g}": value > threshold},
            paper_value="> threshold",
            reproduced=f"{value:g}",
            rule="value > threshold",
            evidence=MODELLED,
        )

    return rule


def test_a_verdict_that_flips_at_a_range_end_depends_and_names_both_outcomes():
    threshold = Assumption("threshold", 0.10, (0.05, 0.15), source="'slight': 5-15%")
    verdict = robust(_threshold_rule(0.12), [threshold])
    assert verdict.verdict == DEPENDS
    assert "threshold: reproduced at 0.1, not reproduced at 0.15" in verdict.reason
    assert dict(((n, v), w) for n, v, w in verdict.robustness) == {
        ("threshold", 0.05): REPRODUCED,
        ("threshold", 0.15): NOT_REPRODUCED,
    }


def test_a_verdict_that_holds_across_every_range_keeps_its_word_and_lists_each_end():
    assumptions = [
        Assumption("threshold", 0.10, (0.05, 0.15), source="'slight': 5-15%"),
        Assumption("scale", 1.0, (0.8, 1.2), source="assumed constant ±20%"),
    ]
    verdict = robust(_threshold_rule(0.5), assumptions)
    assert verdict.verdict == REPRODUCED and verdict.evidence == MODELLED
    assert len(verdict.robustness) == 4
    assert "scale = 0.8 (default 1.0)" in verdict.reason
    # Contrary data: the same rule at a value below every threshold fails at every end.
    assert robust(_threshold_rule(0.01), assumptions).verdict == NOT_REPRODUCED


def test_a_flip_in_a_second_assumption_is_found_with_the_first_at_its_default():
    assumptions = [
        Assumption("threshold", 0.10, (0.05, 0.15), source="s"),
        Assumption("scale", 1.0, (0.5, 1.5), source="s"),
    ]
    verdict = robust(_threshold_rule(0.18), assumptions)
    assert verdict.verdict == DEPENDS and "scale" in verdict.reason.split(";")[0]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"name": "not a name"}, "must be a Python identifier"),
        ({"alternatives": (0.1,)}, "must hold a value other than the default"),
        ({"source": " "}, "must say where its range comes from"),
    ],
)
def test_an_assumption_names_what_is_wrong(kwargs, message):
    fields = {"name": "threshold", "default": 0.1, "alternatives": (0.2,), "source": "s", **kwargs}
    with pytest.raises(ValueError, match=message):
        Assumption(**fields)


def test_an_unknown_evidence_kind_is_refused():
    with pytest.raises(ValueError, match="evidence must be one of"):
        judge({"a": True}, **TEXTS, evidence="guessed")


def test_a_report_refuses_a_modelled_reproduced_row_whose_assumptions_were_not_rejudged(tmp_path):
    from pipeline.report import Report

    rep = Report("multilevel_tables", reports_dir=tmp_path)
    bare = judge({"a": True}, **TEXTS, evidence=MODELLED)
    with pytest.raises(ValueError, match="without its assumptions re-judged"):
        rep.record("ML1", bare)
    readings_only = robust(_threshold_rule(0.5), [Assumption("threshold", 0.1, (0.2,), source="s")])
    with pytest.raises(ValueError, match="none of the model's constants"):
        rep.record("ML1", readings_only)
    judged = robust(
        _threshold_rule(0.5),
        [
            Assumption("threshold", 0.1, (0.2,), source="s"),
            Assumption("scale", 1.0, (0.9,), source="s", constant=True),
        ],
    )
    assert judged.constants == ("scale",)
    assert rep.record("ML1", judged) == REPRODUCED
    row = pd.read_csv(tmp_path / "scorecard" / "multilevel_tables.csv").iloc[0]
    assert row["evidence"] == MODELLED and row["verdict"] == REPRODUCED


def test_a_report_refuses_a_row_without_an_evidence_kind(tmp_path):
    from pipeline.report import Report

    with pytest.raises(ValueError, match="has no evidence kind"):
        Report("multilevel_tables", reports_dir=tmp_path).record("ML1", judge({"a": True}, **TEXTS))


def test_robust_fails_on_a_rule_that_holds_one_at_a_time_but_flips_at_a_declared_corner():
    # threshold 0.15 or scale 0.8 alone keep 0.18·scale above the threshold; together they do not
    assumptions = [
        Assumption("threshold", 0.10, (0.15,), source="s", label="'slight'"),
        Assumption("scale", 1.0, (0.8,), source="s"),
    ]
    rule = _threshold_rule(0.18)
    assert robust(rule, assumptions).verdict == REPRODUCED
    corner = Corner("strict and small", {"threshold": 0.15, "scale": 0.8}, source="both lower")
    verdict = robust(rule, assumptions, corners=[corner])
    assert verdict.verdict == DEPENDS
    assert "the joint corner 'strict and small' ('slight' = 0.15, scale = 0.8)" in verdict.reason
    assert verdict.corners == (("strict and small", NOT_REPRODUCED),)
    other = Corner("lenient and large", {"threshold": 0.10, "scale": 1.0}, source="defaults")
    held = robust(rule, assumptions, corners=[other])
    assert held.verdict == REPRODUCED and "joint corners 'lenient and large'" in held.reason


@pytest.mark.parametrize(
    "choices, message",
    [
        ({"threshold": 0.15, "other": 1.0}, "not an assumption"),
        ({"threshold": 0.15, "scale": 0.3}, "not an end of its declared range"),
    ],
)
def test_robust_refuses_a_corner_outside_the_declared_ranges(choices, message):
    assumptions = [
        Assumption("threshold", 0.10, (0.15,), source="s"),
        Assumption("scale", 1.0, (0.8,), source="s"),
    ]
    with pytest.raises(ValueError, match=message):
        robust(_threshold_rule(0.18), assumptions, corners=[Corner("c", choices, source="s")])
    with pytest.raises(ValueError, match="at least two"):
        Corner("c", {"threshold": 0.15}, source="s")
