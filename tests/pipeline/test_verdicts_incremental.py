"""Each incremental claim rule on data that agrees with the paper, and on contrary data that must
change its verdict (``test_*_fails_on_*``)."""

import numpy as np
import pandas as pd
import pytest

from incremental import experiments
from pipeline.scorecard import (
    DEPENDS,
    EXECUTED,
    INPUT,
    MEASURED,
    NOT_CHECKABLE,
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
)
from pipeline.verdicts import incremental as rules

BASE = {"max_share": 3, "zipf_s": 0.2, "priorities": "random"}
SETTINGS = [
    BASE,
    {**BASE, "max_share": 6},
    {**BASE, "zipf_s": 0.5},
    {**BASE, "max_share": 6, "zipf_s": 0.5},
    {**BASE, "priorities": "linear"},
]
GRID = [round(0.1 * k, 1) for k in range(1, 11)]
# share = x ** exponent: a larger exponent recovers less at every x < 1.
EXPONENT = {"DP": 1.0, "BestDensity": 1.01, "BestDensity_printed": 1.01, "OC": 1.6}


def paper_exponent(method: str, setting: dict) -> float:
    """Fig 16 as the paper describes it: all methods lower at max share 6; more skew raises DP
    and BestDensity and lowers OC; linear priorities slightly lower DP and BestDensity."""
    e = EXPONENT[method] + 0.3 * (setting["max_share"] == 6)
    e += (0.3 if method == "OC" else -0.1) * (setting["zipf_s"] == 0.5)
    return e + (0.1 if method != "OC" else 0.0) * (setting["priorities"] == "linear")


def paper_like(exponent=paper_exponent, instances=60, seed=0, opt_queries=2):
    """Synthetic Fig 16 sweep rows with common random numbers: instance i has the same level u_i
    in every setting and for every method, plus small independent noise."""
    rng = np.random.default_rng(seed)
    level = rng.normal(0, 0.05, instances)
    rows = []
    for setting in SETTINGS:
        for x in GRID:
            noise = rng.normal(0, 0.005, (instances, len(EXPONENT)))
            shares = {
                f"share_{m}": np.clip(x ** exponent(m, setting) * (1 + level + noise[:, k]), 0, 1)
                for k, m in enumerate(EXPONENT)
            }
            rows.append(
                pd.DataFrame(
                    {
                        **setting,
                        "iteration": np.arange(instances),
                        "x": x,
                        "d": setting["max_share"],
                        "opt_queries": opt_queries,
                        "priority_total": 100,
                        **shares,
                    }
                )
            )
    return pd.concat(rows, ignore_index=True)


def with_variants(exponent=paper_exponent, flip=None, others=paper_exponent):
    """Rows for every generator variant (``rules.generator_variants``) on every setting, 30
    instances each; the variant ``flip`` (a dict of generator parameters) draws its shares with
    ``exponent``, the others with ``others``."""
    frames = []
    for k, g in enumerate(rules.generator_variants()):
        law = exponent if g == flip else others
        rows = paper_like(law, instances=30, seed=10 + k)
        frames.append(rows.assign(**{name: [value] * len(rows) for name, value in g.items()}))
    return pd.concat(frames, ignore_index=True)


def same_variants(runs: pd.DataFrame) -> pd.DataFrame:
    """``runs`` again under every generator variant: the generator changes nothing."""
    return pd.concat(
        [
            runs.assign(**{n: [v] * len(runs) for n, v in g.items()})
            for g in rules.generator_variants()
        ],
        ignore_index=True,
    )


FREQUENCY = {"pool": 36, "query_size": [2, 6], "cost": [1, 10], "sharing": "frequency"}


def tweaked(methods, change):
    """paper_exponent with ``change(setting)`` added to the exponents of ``methods``."""
    return lambda m, s: paper_exponent(m, s) + (change(s) if m in methods else 0.0)


def test_inc6_fails_on_bestdensity_far_from_dp_and_on_shares_rising_with_max_share():
    assert rules.inc6_rule(paper_like(), BASE).verdict == REPRODUCED
    # BestDensity at 0.1^0.1 ~ 80% of the optimum at the scarcest level: not close.
    far = rules.inc6_rule(paper_like(tweaked(("BestDensity",), lambda s: 0.1)), BASE)
    assert far.verdict == NOT_REPRODUCED and "BestDensity close to DP at max share 3" in far.reason
    rising = rules.inc6_rule(
        paper_like(tweaked(("OC",), lambda s: -0.6 * (s["max_share"] == 6))), BASE
    )
    assert rising.verdict == NOT_REPRODUCED and "OC grid share over max share" in rising.reason


def test_inc6_fails_on_oc_better_than_bestdensity():
    better = rules.inc6_rule(paper_like(tweaked(("OC",), lambda s: -0.65)), BASE)
    assert better.verdict == NOT_REPRODUCED and "fails: " in better.reason
    assert "OC worst at max share 3" in better.reason.split("; holds:")[0]


def test_inc6_is_partly_on_oc_level_with_bestdensity_at_one_level():
    # OC's curve meets BestDensity's at x = 0.9 only: worst on the grid, not at every level.
    runs = paper_like()
    meet = (runs["max_share"] == 3) & (runs["x"] == 0.9)
    runs.loc[meet, "share_OC"] = runs.loc[meet, "share_BestDensity"]
    verdict = rules.inc6_rule(runs, BASE)
    assert verdict.verdict == PARTLY and "OC below BestDensity at every level" in verdict.reason


def test_inc7_fails_on_oc_rising_with_skew():
    assert rules.inc7_rule(paper_like(), BASE).verdict == REPRODUCED
    verdict = rules.inc7_rule(
        paper_like(tweaked(("OC",), lambda s: -0.6 * (s["zipf_s"] == 0.5))), BASE
    )
    assert verdict.verdict == NOT_REPRODUCED and "OC grid share over s" in verdict.reason


def test_inc7_is_partly_on_bestdensity_falling_with_skew_at_the_smaller_cap():
    against = tweaked(
        ("BestDensity",), lambda s: 0.3 * (s["zipf_s"] == 0.5 and s["max_share"] == 3)
    )
    verdict = rules.inc7_rule(paper_like(against), BASE)
    assert verdict.verdict == PARTLY and "at max share 3: not significantly" in verdict.reason


def test_inc6_and_inc7_are_judged_at_every_end_of_the_generator_ranges():
    for rule in (rules.inc6, rules.inc7):
        verdict = rule(paper_like(), with_variants(), BASE)
        assert verdict.verdict == REPRODUCED and verdict.evidence == EXECUTED
        assert len(verdict.robustness) == len(rules.generator_variants()) == 6
        assert "30 instances per setting against the defaults on the same 30 (all 60" in (
            verdict.rule
        )


def test_inc6_fails_on_a_flip_from_sample_size_alone_only_when_judged_at_unequal_size():
    # The default generator's first 30 instances are flat (OC as good as DP), the last 30 follow
    # the paper; every variant is the first 30 again. Judged at unequal size (60 against 30) the
    # variants "flip" the verdict; at equal size (the defaults cut to 30) nothing changes.
    flat = lambda m, s: 1.0  # noqa: E731
    first, last = paper_like(flat, instances=30), paper_like(instances=30, seed=1)
    runs = pd.concat([first, last.assign(iteration=last["iteration"] + 30)], ignore_index=True)
    variants = same_variants(first)
    full = rules.inc6_rule(runs, BASE).verdict
    small = rules.inc6_rule(first, BASE).verdict
    assert full != small
    verdict = rules.inc6(runs, variants, BASE)
    assert verdict.verdict == full and verdict.verdict != DEPENDS
    assert f"the defaults read {full} on all instances" in verdict.reason


def test_inc6_depends_on_the_reading_of_zipf_sharing():
    # The cap reading: doubling the cap changes nothing (review18b: DP 0.576 -> 0.576); the
    # frequency reading lowers every method as the paper says.
    flat = lambda m, s: paper_exponent(m, {**s, "max_share": 3})  # noqa: E731
    verdict = rules.inc6(paper_like(flat), with_variants(flip=FREQUENCY, others=flat), BASE)
    assert verdict.verdict == DEPENDS
    assert (
        "Zipf sharing (cap on popularity / frequency distribution): not reproduced at 'cap', "
        "reproduced at 'frequency'" in verdict.reason
    )


def test_inc7_depends_on_a_generator_whose_instances_reverse_the_skew_effect():
    small = {"pool": 36, "query_size": [1, 4], "cost": [1, 10], "sharing": "cap"}
    reversed_skew = tweaked(("OC",), lambda s: -0.6 * (s["zipf_s"] == 0.5))
    verdict = rules.inc7(paper_like(), with_variants(reversed_skew, flip=small), BASE)
    assert verdict.verdict == DEPENDS
    assert "failed partitions per query: reproduced at (2, 6), not reproduced at (1, 4)" in (
        verdict.reason
    )


def test_generated_refuses_a_generator_that_was_not_swept():
    with pytest.raises(ValueError, match="no rows drawn with the generator"):
        rules.generated(paper_like(), with_variants(), pool=48)


def inc8(runs):
    return rules.inc8(runs, same_variants(runs), BASE)


def test_inc8_fails_on_linear_priorities_raising_bestdensity_and_on_a_large_drop():
    assert inc8(paper_like()).verdict == REPRODUCED
    raised = tweaked(("BestDensity",), lambda s: -0.3 * (s["priorities"] == "linear"))
    verdict = inc8(paper_like(raised))
    assert verdict.verdict == NOT_REPRODUCED and "BestDensity grid share" in verdict.reason
    steep = tweaked(("DP", "BestDensity"), lambda s: 1.5 * (s["priorities"] == "linear"))
    verdict = inc8(paper_like(steep))
    assert verdict.verdict == PARTLY and "drop slight" in verdict.reason


def test_inc8_depends_on_a_generator_where_linear_priorities_raise_bestdensity():
    raised = tweaked(("BestDensity",), lambda s: -0.3 * (s["priorities"] == "linear"))
    verdict = rules.inc8(paper_like(), with_variants(raised, flip=FREQUENCY), BASE)
    assert verdict.verdict == DEPENDS
    assert "reproduced at 'cap', not reproduced at 'frequency'" in verdict.reason


def drop(size: float):
    """paper_like rows where linear priorities lower DP and BestDensity by ``size`` at every
    level x < 1 (paired, a little noise)."""
    runs = paper_like()
    noise = np.random.default_rng(3).normal(0, 0.002, len(runs))
    linear = (runs["priorities"] == "linear") & (runs["x"] < 1)
    for method in ("DP", "BestDensity"):
        runs.loc[linear, f"share_{method}"] -= size + noise[linear]
    return runs


def test_inc8_depends_when_the_drop_is_slight_at_one_end_of_the_range_only():
    # A drop of 0.12: beyond 0.10 (partly), within 0.15 (reproduced): the word decides.
    verdict = inc8(drop(0.12))
    assert verdict.verdict == DEPENDS
    assert "'slight' (largest drop): partly at 0.1, reproduced at 0.15" in verdict.reason
    assert rules.inc8_rule(drop(0.12), BASE, slight=0.15).verdict == REPRODUCED
    # Beyond every reading of "slight": partly whatever the choice.
    assert inc8(drop(0.2)).verdict == PARTLY


def counterexample_rows() -> pd.DataFrame:
    problem, R = experiments.printed_counterexample()
    return pd.DataFrame(experiments.level_rows(problem, [R / float(problem.cost_array.sum())]))


NONE_KNOWN = paper_like().iloc[:0]


def test_inc9_fails_on_the_printed_counterexample():
    runs = paper_like()
    assert rules.inc9(runs, NONE_KNOWN).verdict == REPRODUCED
    verdict = rules.inc9(runs, counterexample_rows())
    assert verdict.verdict == NOT_REPRODUCED and verdict.evidence == EXECUTED
    assert "printed 2, optimum 5, bound 3.16 (d = 1, known; corrected starts 5)" in verdict.reason
    assert "corrected starts (every feasible single query" in verdict.reason


def test_inc9_fails_on_one_fig16_instance_where_the_printed_starts_fall_below_the_bound():
    # d = 3: the bound is 1 - e^(-1/3) = 0.283 of the optimum.
    runs = paper_like()
    runs.loc[7, "share_BestDensity_printed"] = 0.25 * runs.loc[7, "share_DP"]
    verdict = rules.inc9(runs, NONE_KNOWN)
    assert verdict.verdict == NOT_REPRODUCED and "on 1 of" in verdict.reason


def test_inc9_does_not_judge_the_corrected_starts():
    runs = paper_like()
    runs.loc[7, "share_BestDensity"] = 0.25 * runs.loc[7, "share_DP"]
    verdict = rules.inc9(runs, NONE_KNOWN)
    assert verdict.verdict == REPRODUCED
    assert "fall below the bound on 1 of the same" in verdict.reason


def with_advantage(gap: dict) -> pd.DataFrame:
    """paper_like rows where OC's share is BestDensity's minus gap[x] (noisy, paired)."""
    runs = paper_like()
    noise = np.random.default_rng(5).normal(0, 0.01, len(runs))
    runs["share_OC"] = (runs["share_BestDensity"] - runs["x"].map(gap) + noise).clip(0, 1)
    return runs


SCARCE_LEADS = dict(
    zip(GRID, [0.1, 0.15, 0.22, 0.2, 0.18, 0.12, 0.08, 0.05, 0.02, 0.0], strict=True)
)


def inc13(runs):
    return rules.inc13_resources(runs, same_variants(runs))


def test_inc13_fails_on_an_advantage_growing_with_resources():
    assert inc13(with_advantage(SCARCE_LEADS)).verdict == REPRODUCED
    late = {x: gap for x, gap in zip(SCARCE_LEADS, sorted(SCARCE_LEADS.values()), strict=True)}
    verdict = inc13(with_advantage(late))
    assert verdict.verdict == NOT_REPRODUCED and "advantage larger when scarce" in verdict.reason


def test_inc13_is_partly_on_an_advantage_peaking_just_above_scarce():
    verdict = rules.inc13_resources_rule(with_advantage({**SCARCE_LEADS, 0.6: 0.25}))
    assert (
        verdict.verdict == PARTLY and "largest mean advantage at a scarce level" in verdict.reason
    )


def test_inc13_depends_on_the_cut_off_when_the_peak_lies_between_its_ends():
    verdict = inc13(with_advantage({**SCARCE_LEADS, 0.6: 0.25}))
    assert verdict.verdict == DEPENDS and verdict.evidence == EXECUTED
    assert "'scarce' (cut-off x): partly at 0.5, reproduced at 0.7" in verdict.reason


def test_inc13_costs_and_inc1_are_not_judged_from_data():
    assert rules.inc13_costs().verdict == NOT_CHECKABLE
    assert rules.inc1().verdict == INPUT and rules.inc1().evidence == MEASURED


def test_inc13_depends_on_a_generator_where_the_advantage_grows_with_resources():
    late = {x: gap for x, gap in zip(SCARCE_LEADS, sorted(SCARCE_LEADS.values()), strict=True)}
    runs = with_advantage(SCARCE_LEADS)
    variants = same_variants(runs)
    frequency = variants["sharing"] == "frequency"
    late_rows = with_advantage(late)
    variants.loc[frequency, "share_OC"] = late_rows["share_OC"].to_numpy()
    verdict = rules.inc13_resources(runs, variants)
    assert verdict.verdict == DEPENDS
    assert "reproduced at 'cap', not reproduced at 'frequency'" in verdict.reason
