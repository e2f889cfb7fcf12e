"""The PPA random-topology claim rules (PPA8, PPA9) on data that agrees with Fig 14, and on
contrary data that must change their verdict (``test_*_fails_on_*``)."""

import numpy as np
import pandas as pd
import pytest

from pipeline.scorecard import (
    DEPENDS,
    EXECUTED,
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
)
from pipeline.verdicts import ppa_topologies as rules

BASE = {
    "workload": "zipf",
    "zipf_s": 0.1,
    "parallelism_lo": 1,
    "parallelism_hi": 10,
    "structure": "structured",
    "join_fraction": 0.0,
}
VARIANTS = [
    {"workload": "uniform"},
    {},
    {"parallelism_lo": 1, "parallelism_hi": 5},
    {"parallelism_lo": 5, "parallelism_hi": 15},
    {"structure": "full"},
    {"join_fraction": 0.5},
]
RATIOS = [0.1, 0.3, 0.5, 0.9]


def paper_of(p, r, full=0.7):
    """Fig 14's Greedy level: grows with the ratio and parallelism, times ``full`` on full
    topologies, halved with joins."""
    level = r * (1 + 0.1 * (p["parallelism_lo"] + p["parallelism_hi"]) / 2)
    level *= full if p["structure"] == "full" else 1.0
    return level * (0.5 if p["join_fraction"] else 1.0)


def paper_like(of=None, gain=None, topologies=100, seed=0):
    """Synthetic fig14_point rows with common random numbers (topology i has the same level at
    every spec). By default as Fig 14: Greedy's OF grows with the ratio, with parallelism, falls
    on full topologies and with joins; SA's gain is largest with few replicas (10x at 0.1), larger
    with Zipf, and about 0 on full topologies."""
    default_of = paper_of

    def default_gain(p, r):
        if p["structure"] == "full":
            return 0.005
        return (1.5 if p["workload"] == "zipf" else 1.0) * 0.08 * (1.2 - r)

    of, gain = of or default_of, gain or default_gain
    rng = np.random.default_rng(seed)
    level = rng.uniform(0.8, 1.2, topologies)
    noise = rng.normal(0, 0.01, (topologies, len(RATIOS)))
    rows = []
    for variant in VARIANTS:
        p = dict(BASE, **variant)
        for k, r in enumerate(RATIOS):
            greedy = np.clip(of(p, r) * level / 2, 0, 1)
            # Few replicas: Greedy forms almost no complete MC-tree, SA ten times more.
            greedy = greedy * (0.1 if r == RATIOS[0] and p["structure"] != "full" else 1)
            sa = np.clip(greedy + gain(p, r) * level + noise[:, k], 0, 1)
            if r == RATIOS[0] and p["structure"] != "full":
                sa = np.clip(10 * greedy + noise[:, k] ** 2, 0, 1)
            rows.append(
                pd.DataFrame(
                    {
                        **p,
                        "iteration": np.arange(topologies),
                        "ratio": r,
                        "clamped": r == RATIOS[0],
                        "of_greedy": greedy,
                        "of_sa": sa,
                        "of_sa_printed": sa,
                    }
                )
            )
    return pd.concat(rows, ignore_index=True)


def test_paper_like_data_reproduces_both_claims():
    runs = paper_like()
    assert rules.ppa8(runs, np.random.default_rng(0)).verdict == REPRODUCED
    assert rules.ppa9(runs, BASE).verdict == REPRODUCED


def test_panel_holds_every_other_factor_at_the_base():
    runs = rules.prepare(paper_like(topologies=3))
    assert set(rules.panel(runs, "parallelism", BASE)["parallelism"]) == {"1-5", "1-10", "5-15"}
    assert set(rules.panel(runs, "joins", BASE)["spec"]) == {
        "zipf, parallelism 1-10, structured, 0% joins",
        "zipf, parallelism 1-10, structured, 50% joins",
    }


def test_ppa8_fails_on_sa_below_greedy_at_a_structured_setting():
    # SA loses 0.05 at ratio 0.3 (as when it spends a task in every operator).
    runs = paper_like()
    at = (runs["ratio"] == 0.3) & (runs["structure"] == "structured")
    runs.loc[at, "of_sa"] = runs.loc[at, "of_greedy"] - 0.05
    verdict = rules.ppa8(runs, np.random.default_rng(0))
    assert verdict.verdict == NOT_REPRODUCED
    assert "at 15 of 20 structured settings (below, CI < 0, at 5" in verdict.reason


def test_ppa8_fails_on_sa_below_greedy_on_full_topologies():
    verdict = rules.ppa8(
        paper_like(gain=lambda p, r: -0.03 if p["structure"] == "full" else 0.05),
        np.random.default_rng(0),
    )
    assert verdict.verdict == NOT_REPRODUCED and "below at 4 of 4 full settings" in verdict.reason


def test_ppa8_is_partly_on_full_topologies_far_apart_and_on_a_small_low_ratio_gain():
    far = paper_like(gain=lambda p, r: 0.2 if p["structure"] == "full" else 0.05)
    verdict = rules.ppa8(far, np.random.default_rng(0))
    assert verdict.verdict == PARTLY and "fails: full topologies close" in verdict.reason
    runs = paper_like()
    few = (runs["ratio"] == 0.1) & (runs["structure"] == "structured")
    runs.loc[few, "of_sa"] = 2 * runs.loc[few, "of_greedy"]  # 2x, not 10x
    verdict = rules.ppa8(runs, np.random.default_rng(0))
    assert verdict.verdict == PARTLY and "fails: order of magnitude" in verdict.reason


def test_ppa9_fails_on_of_falling_with_parallelism():
    def falling(p, r):
        return r * (2.5 - 0.1 * (p["parallelism_lo"] + p["parallelism_hi"]) / 2)

    verdict = rules.ppa9(paper_like(of=falling), BASE)
    assert verdict.verdict == NOT_REPRODUCED and "parallelism: of_sa" in verdict.reason


def test_ppa9_fails_on_the_same_gain_with_uniform_and_zipf_workloads():
    def same(p, r):
        return 0.0 if p["structure"] == "full" else 0.08 * (1.2 - r)

    verdict = rules.ppa9(paper_like(gain=same), BASE)
    assert verdict.verdict == NOT_REPRODUCED and "fails: workload: gain" in verdict.reason


def test_ppa9_fails_on_joins_raising_of():
    def joins_up(p, r):
        return r * (1.3 if p["join_fraction"] else 1.0) * (0.7 if p["structure"] == "full" else 1)

    assert rules.ppa9(paper_like(of=joins_up), BASE).verdict == NOT_REPRODUCED


def test_ppa9_is_partly_when_only_greedy_rises_from_full_to_structured():
    # Greedy's OF higher on full topologies, SA's still lower there (its gain shrinks by more).
    runs = paper_like(of=lambda p, r: paper_of(p, r, full=1.1))
    full = runs["structure"] == "full"
    runs.loc[full, "of_sa"] = runs.loc[full, "of_greedy"] - 0.001
    verdict = rules.ppa9(runs, BASE)
    assert verdict.verdict == PARTLY and "structure: of_greedy" in verdict.reason


def test_ppa8_is_partly_when_greedy_is_near_zero_and_sa_only_doubles_it():
    # Greedy's OF tiny at few replicas: a ratio CI's upper end is then huge, the ratio is not.
    runs = paper_like()
    few = (runs["ratio"] <= 0.3) & (runs["structure"] == "structured")
    runs.loc[few, "of_greedy"] = 0.002 * np.random.default_rng(1).random(few.sum())
    runs.loc[few, "of_sa"] = 2 * runs.loc[few, "of_greedy"] + 1e-4
    verdict = rules.ppa8(runs, np.random.default_rng(0))
    assert verdict.verdict == PARTLY and "fails: order of magnitude" in verdict.reason


def test_magnitude_is_infinite_where_greedy_scores_zero_and_sa_does_not():
    runs = paper_like()
    few = runs["ratio"] == 0.1
    runs.loc[few, "of_greedy"] = 0.0
    where, value, lo, hi = rules.magnitude(runs, np.random.default_rng(0))
    assert value == lo == hi == np.inf and "ratio 0.1" in where
    runs.loc[few, "of_sa"] = 0.0
    runs.loc[few & (runs["iteration"] == 0), "of_sa"] = 0.5  # one topology: not sure
    runs.loc[(runs["ratio"] == 0.3), "of_sa"] = runs["of_greedy"]  # no other setting above 1x
    where, value, lo, hi = rules.magnitude(runs, np.random.default_rng(0))
    assert value == np.inf and np.isnan(lo)


def test_magnitude_ignores_settings_of_few_topologies():
    runs = paper_like()
    few = runs["ratio"] == 0.1
    runs.loc[few, "of_sa"] = runs.loc[few, "of_greedy"]  # 1x where all topologies are
    tiny = runs[(runs["ratio"] == 0.3) & (runs["iteration"] < 3)].copy()
    tiny["ratio"], tiny["of_greedy"], tiny["of_sa"] = 0.2, 0.0, 0.5  # inf on 3 topologies
    where, value, _, _ = rules.magnitude(pd.concat([runs, tiny]), np.random.default_rng(0))
    assert np.isfinite(value) and "ratio 0.2" not in where


def test_ppa8_fails_on_the_printed_sa_below_greedy_when_judged_as_printed():
    runs = paper_like()
    at = (runs["ratio"] == 0.3) & (runs["structure"] == "structured")
    runs.loc[at, "of_sa_printed"] = runs.loc[at, "of_greedy"] - 0.05
    assert rules.ppa8(runs, np.random.default_rng(0)).verdict == REPRODUCED
    verdict = rules.ppa8(runs, np.random.default_rng(0), alg5=rules.PRINTED)
    assert verdict.verdict == NOT_REPRODUCED and verdict.reason.startswith("SA as printed")
    assert verdict.evidence == EXECUTED


def test_ppa8_depends_when_only_the_printed_algorithm_5_fails():
    # the robustness machinery on a PPA rule: a flip at the assumption's other end is `depends`
    runs = paper_like()
    at = (runs["ratio"] == 0.3) & (runs["structure"] == "structured")
    runs.loc[at, "of_sa_printed"] = runs.loc[at, "of_greedy"] - 0.05
    verdict = rules.ppa8_both_ways(runs, 0)
    assert verdict.verdict == DEPENDS
    assert "Structure-Aware (Alg 5): reproduced at 'package', not reproduced at 'printed'" in (
        verdict.reason
    )
    assert rules.ppa8_both_ways(paper_like(), 0, unvaried=()).verdict == REPRODUCED


def test_ppa8_both_ways_fails_on_sa_planted_at_zero_and_names_the_unvaried_choices():
    # The rule can fail: SA planted at OF 0 (both readings) and at 10x Greedy give different words.
    runs = paper_like()
    worse = runs.assign(of_sa=0.0, of_sa_printed=0.0)
    better_of = (runs["of_greedy"] * 10 + 0.05).clip(upper=1)
    better = runs.assign(of_sa=better_of, of_sa_printed=better_of)
    low, high = rules.ppa8_both_ways(worse, 0), rules.ppa8_both_ways(better, 0)
    assert low.verdict == NOT_REPRODUCED
    assert high.verdict in (REPRODUCED, PARTLY) and high.verdict != low.verdict
    verdict = rules.ppa8_both_ways(runs, 0)
    assert verdict.verdict == REPRODUCED and "Not re-judged" in verdict.reason
    for a in rules.UNVARIED:
        assert a.title in verdict.reason


def test_ppa8_states_the_share_of_raised_budgets_at_the_smallest_ratio():
    reason = rules.ppa8(paper_like(), np.random.default_rng(0)).reason
    assert "at ratio 0.1, R was raised to the number of operators on 100% of the topologies" in (
        reason
    )


def test_ppa8_rejects_an_unknown_algorithm_5_reading():
    with pytest.raises(ValueError, match="alg5 must be"):
        rules.ppa8(paper_like(topologies=3), np.random.default_rng(0), alg5="other")
