"""Each FastRecover claim rule on data that agrees with the thesis, and on contrary data that must
change its verdict (``test_*_fails_on_*``)."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fastrecover.experiments import on_line
from fastrecover.settings import CHAIN
from pipeline.report import Report
from pipeline.scorecard import (
    BY_CONSTRUCTION,
    CALIBRATED,
    DEPENDS,
    EXECUTED,
    MODELLED,
    NOT_CHECKABLE,
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
)
from pipeline.verdicts import fastrecover as rules

LINES = {
    "n": [5, 15, 25, 35],
    "omega": [1000, 3000, 5000],
    "ch_max": [0.2, 0.4, 0.6],
    "z": [20, 60, 100],
}
DEFAULTS = CHAIN.point()


def thesis_like(rt=None, infeasible=None, ratio=None, topologies=300, seed=0):
    """Synthetic one-at-a-time sweep rows with common random numbers (topology i has the same
    level and the same uniform at every point). Defaults follow the thesis: RT grows with n and
    Ω, falls with CH_max and weakly with Z; NSegments' infeasibility grows with n and Ω and falls
    with CH_max and Z; both baselines cost about twice FastRecover."""
    rt = rt or (
        lambda p: (
            (p["n"] / CHAIN.n)
            * (p["omega"] / CHAIN.omega)
            * (CHAIN.ch_max / p["ch_max"])
            * (CHAIN.z / p["z"]) ** 0.1
        )
    )
    infeasible = infeasible or (
        lambda p: np.clip(
            (p["n"] / 35)
            * (p["omega"] / CHAIN.omega) ** 0.5
            * (CHAIN.ch_max / p["ch_max"])
            * (CHAIN.z / p["z"]) ** 0.3
            - 0.05,
            0,
            0.97,
        )
    )
    ratio = ratio or (lambda p: {"NSegments": 2.0, "1Segment": 2.0})
    rng = np.random.default_rng(seed)
    level = rng.lognormal(0, 0.3, topologies)
    u = rng.random(topologies)
    noise = rng.normal(0, 0.02, (topologies, 3))
    points = [dict(DEFAULTS, **{k: v}) for k, values in LINES.items() for v in values]
    points = [dict(t) for t in dict.fromkeys(tuple(sorted(p.items())) for p in points)]
    rows = []
    for p in points:
        fr = rt(p) * level * (1 + noise[:, 0])
        r = ratio(p)
        rows.append(
            pd.DataFrame(
                {
                    **p,
                    "iteration": np.arange(topologies),
                    "RT_FastRecover": fr,
                    "feasible_FastRecover": True,
                    "RT_NSegments": fr * r["NSegments"] * (1 + abs(noise[:, 1])),
                    "feasible_NSegments": u >= infeasible(p),
                    "RT_1Segment": fr * r["1Segment"] * (1 + abs(noise[:, 2])),
                    "feasible_1Segment": True,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def test_fr1_is_by_construction_and_fails_on_a_fastrecover_above_a_baseline():
    runs = thesis_like()
    assert rules.fr1(runs, "chain").verdict == BY_CONSTRUCTION
    assert rules.fr1(runs, "chain").evidence == EXECUTED
    runs.loc[3, "RT_FastRecover"] = runs.loc[3, "RT_1Segment"] * 1.01
    bad = rules.fr1(runs, "chain")
    assert bad.verdict == NOT_REPRODUCED and "above 1Segment on 1 of" in bad.reason


def test_fr2_fails_on_reductions_far_from_50_percent_against_either_baseline():
    assert rules.fr2(thesis_like()).verdict == REPRODUCED
    assert rules.fr2(thesis_like()).evidence == MODELLED
    # 15% and 87%: their average is about 50%, but neither baseline is (CIs wholly outside).
    far = thesis_like(ratio=lambda p: {"NSegments": 1.18, "1Segment": 7.7})
    verdict = rules.fr2(far)
    assert verdict.verdict == NOT_REPRODUCED and "about 50% vs NSegments" in verdict.reason
    worse = thesis_like(ratio=lambda p: {"NSegments": 0.8, "1Segment": 2.0})
    assert rules.fr2(worse).verdict == NOT_REPRODUCED


def test_fr2_fails_on_a_tight_reduction_wholly_outside_about_50_percent():
    # 20% less than both baselines, pinned by the data: less, but not "about 50%" less.
    verdict = rules.fr2(thesis_like(ratio=lambda p: {"NSegments": 1.25, "1Segment": 1.25}))
    assert verdict.verdict == NOT_REPRODUCED
    assert re.search(
        r"fails: about 50% vs NSegments \(%\): CI \[[\d., ]+\] wholly outside", verdict.reason
    )


def test_fr2_fails_on_a_ci_that_only_overlaps_the_band():
    # Per-topology reductions vs NSegments of 40 ± 20% on 20 topologies: the mean's CI reaches
    # into 40-60% without lying inside it, too imprecise to call "about 50%": partly.
    runs = thesis_like(topologies=20)
    spread = np.random.default_rng(3).normal(0.4, 0.2, 20)[runs["iteration"]]
    runs["RT_NSegments"] = runs["RT_FastRecover"] / (1 - spread)
    near = rules.fr2(runs)
    assert near.verdict == PARTLY
    assert re.search(r"fails: about 50% vs NSegments \(%\): CI \[[\d., ]+\] overlaps", near.reason)


def test_band_conditions_fail_on_outside_and_on_only_overlapping():
    inside = rules.band_conditions("x", 1.6, 2.4, (1.5, 2.5))
    assert list(inside[0].values()) == [True] and list(inside[1].values()) == [True]
    overlapping = rules.band_conditions("x", 1.2, 1.7, (1.5, 2.5))
    assert list(overlapping[0].values()) == [True] and list(overlapping[1].values()) == [False]
    outside = rules.band_conditions("x", 1.2, 1.4, (1.5, 2.5))
    assert list(outside[0].values()) == [False] and list(outside[1].values()) == [False]
    unknown = rules.band_conditions("x", np.nan, np.nan, (1.5, 2.5))
    assert list(unknown[1].values()) == [False] and "not estimable" in next(iter(unknown[1]))


def test_fr3_is_calibrated_and_fails_on_a_flat_infeasible_share():
    assert rules.fr3(thesis_like(), DEFAULTS).verdict == CALIBRATED
    flat = thesis_like(infeasible=lambda p: 0.5)
    assert rules.fr3(flat, DEFAULTS).verdict == NOT_REPRODUCED


def test_fr4_fails_on_infeasibility_falling_with_omega():
    holds = rules.fr4(thesis_like(), DEFAULTS)
    assert holds.verdict == BY_CONSTRUCTION and holds.reason.startswith("By construction: the")
    reversed_omega = thesis_like(infeasible=lambda p: 0.9 - 0.15 * p["omega"] / 1000)
    verdict = rules.fr4(reversed_omega, DEFAULTS)
    assert verdict.verdict == NOT_REPRODUCED and "over omega grows" in verdict.reason


def test_fr5_fails_on_rt_falling_with_n_and_is_partly_on_rt_rising_with_z():
    assert rules.fr5(thesis_like(), DEFAULTS).verdict == BY_CONSTRUCTION
    falling_n = thesis_like(
        rt=lambda p: (35 / p["n"]) * (CHAIN.ch_max / p["ch_max"]) * p["omega"] / CHAIN.omega
    )
    assert rules.fr5(falling_n, DEFAULTS).verdict == NOT_REPRODUCED
    rising_z = thesis_like(rt=lambda p: p["n"] * p["omega"] / p["ch_max"] * p["z"] / 1e6)
    assert rules.fr5(rising_z, DEFAULTS).verdict == PARTLY


def _spread_chains(scale_nseg, scale_1seg, chains=400, seed=1):
    rng = np.random.default_rng(seed)
    rows = []
    for n in (5, 15):
        fr = rng.lognormal(0, 0.3, chains)
        rows.append(
            pd.DataFrame(
                {
                    "n": n,
                    "RT_FastRecover": fr,
                    # var(a + b·z) = b² var(z): scale a zero-mean spread to set the variance ratio.
                    "RT_NSegments": fr.mean() * 2 + np.sqrt(scale_nseg) * (fr - fr.mean()),
                    "RT_1Segment": fr.mean() * 3 + np.sqrt(scale_1seg) * (fr - fr.mean()),
                    **{f"feasible_{m}": True for m in ("FastRecover", "NSegments", "1Segment")},
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def test_fr6_fails_on_variance_ratios_far_beyond_two_to_five():
    rng = np.random.default_rng(0)
    good = rules.spread_ratios(_spread_chains(2.0, 5.0), rng)
    assert rules.fr6(good).verdict == REPRODUCED
    far = rules.fr6(rules.spread_ratios(_spread_chains(32.0, 779.0), rng))
    # FastRecover is still the most predictable: that alone is not the claim.
    assert far.verdict == NOT_REPRODUCED and "CI above 1 at every n" in far.reason


def _independent_chains(chains, seed=2):
    """Baselines drawn independently of FastRecover with variances 2x and 5x its own."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in (5, 15):
        fr, nseg, one = (rng.normal(0, 1, chains) for _ in range(3))
        rows.append(
            pd.DataFrame(
                {
                    "n": n,
                    "RT_FastRecover": 10 + fr,
                    "RT_NSegments": 20 + np.sqrt(2.0) * nseg,
                    "RT_1Segment": 30 + np.sqrt(5.0) * one,
                    **{f"feasible_{m}": True for m in ("FastRecover", "NSegments", "1Segment")},
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def test_fr6_fails_on_ratio_cis_that_only_overlap_their_bands():
    # True ratios 2 and 5, the bands' centres: on 4,000 chains per n the CIs lie inside the bands;
    # on 20 they are too wide to lie inside and only overlap them: partly, never reproduced.
    rng = np.random.default_rng(0)
    assert rules.fr6(rules.spread_ratios(_independent_chains(4000), rng)).verdict == REPRODUCED
    wide = rules.fr6(rules.spread_ratios(_independent_chains(20), rng))
    assert wide.verdict == PARTLY and "not inside" in wide.reason


def test_fr6_fails_on_a_strict_reading_of_roughly_and_reads_depends():
    # Variance ratios exactly 1.5 and 5: 1.5 lies inside 2 within a factor 1.5 (1.33-3) but
    # outside 2 within a factor 1.25 (1.6-2.5): the reading of "roughly" decides.
    chains = _spread_chains(1.5, 5.0)
    alone = rules.fr6_on_runs(chains, {}, 0)
    assert alone.verdict == REPRODUCED
    verdict = rules.across(rules.fr6_on_runs, chains, {}, (), {}, 0, readings=[rules.FR6_ABOUT])
    assert verdict.verdict == DEPENDS
    assert "'roughly' as a factor: reproduced at 1.5, not reproduced at 1.25" in verdict.reason


def test_fr6_reads_the_spread_the_thesis_names_and_keeps_ratios_far_beyond_any_reading():
    # Variance ratios 2 and 5 are standard-deviation ratios of about 1.4 and 2.2: the reading of
    # "variance" is an open choice that can decide the verdict.
    verdict = rules.across(
        rules.fr6_on_runs, _spread_chains(2.0, 5.0), {}, (), {}, 0, readings=rules.FR6_READINGS
    )
    assert verdict.verdict == DEPENDS and "the spread compared" in verdict.reason
    # Ratios of 32 and 779 are outside every reading's bands: not reproduced at every end.
    far = rules.across(
        rules.fr6_on_runs, _spread_chains(32.0, 779.0), {}, (), {}, 0, readings=rules.FR6_READINGS
    )
    assert far.verdict == NOT_REPRODUCED
    assert {v for _, _, v in far.robustness} == {NOT_REPRODUCED}
    assert "iqr(NSegments)/iqr(FastRecover)" not in far.reason  # the default's reason, variance
    with pytest.raises(ValueError, match="spread must be one of"):
        rules.spread_ratios(_spread_chains(2.0, 5.0), np.random.default_rng(0), spread="range")


def test_fr6_across_reruns_and_readings_fails_on_a_rerun_far_from_the_print():
    # The model's range ends come from reruns, the readings from the same chains: every end is
    # re-judged, and a rerun whose ratios are far from 2 and 5 makes the verdict depends.
    good, far = _spread_chains(1.8, 5.0), _spread_chains(32.0, 779.0)
    alternatives = _alternatives(
        rules.CHAIN_ASSUMPTIONS,
        lambda name, value: far if (name, value) == ("bandwidth", 15_000.0) else good,
    )
    verdict = rules.across(
        rules.fr6_on_runs,
        good,
        alternatives,
        rules.CHAIN_ASSUMPTIONS,
        {},
        0,
        readings=[rules.FR6_ABOUT],
    )
    assert verdict.verdict == DEPENDS
    assert "B_log (KB/min): reproduced at 20000.0, not reproduced at 15000.0" in verdict.reason
    ends = {(name, value) for name, value, _ in verdict.robustness}
    assert ends == {*alternatives, ("about", 1.25), ("about", 2.0)}


def _trees(advantage_by_point):
    """Tree rows where FastRecover's reduction vs both baselines is advantage(p)% (CRN noise)."""
    return thesis_like(
        ratio=lambda p: {
            b: 1 / (1 - advantage_by_point(p) / 100) for b in ("NSegments", "1Segment")
        },
        infeasible=lambda p: 0.0,
    )


def test_fr7_fails_on_an_advantage_that_rises_then_falls_with_omega():
    growing = _trees(lambda p: 20 + p["n"] + p["omega"] / 500 - 40 * p["ch_max"])
    assert rules.fr7(growing, DEFAULTS).verdict == REPRODUCED
    # The example along Ω: 0.6, 1.5, 1.1, 0.3 (here 3 values: 0.6, 1.5, 0.3).
    hump = {1000: 0.6, 3000: 1.5, 5000: 0.3}
    verdict = rules.fr7(
        _trees(lambda p: 20 + p["n"] - 40 * p["ch_max"] + hump[p["omega"]]), DEFAULTS
    )
    assert verdict.verdict == NOT_REPRODUCED and "over omega" in verdict.reason


def _trees_by_baseline(advantage_by_point, infeasible=None):
    """Tree rows where FastRecover's reduction vs each baseline is advantage(p)[base]% (CRN)."""
    return thesis_like(
        ratio=lambda p: {b: 1 / (1 - a / 100) for b, a in advantage_by_point(p).items()},
        infeasible=infeasible or (lambda p: 0.0),
    )


def test_fr7_fails_on_an_advantage_falling_against_one_baseline_and_reads_depends():
    # Grows against 1Segment on every line, falls with n against NSegments: the reading "each
    # baseline in its own panel" keeps the 1Segment panel reproduced, the literal reading fails.
    def advantage(p):
        grows = 20 + p["n"] + p["omega"] / 500 - 40 * p["ch_max"]
        return {"NSegments": grows - 2 * p["n"], "1Segment": grows}

    runs = _trees_by_baseline(advantage)
    assert rules.fr7(runs, DEFAULTS).verdict == NOT_REPRODUCED
    assert rules.fr7(runs, DEFAULTS, baselines="1Segment").verdict == REPRODUCED
    verdict = rules.across(rules.fr7, runs, {}, (), DEFAULTS, readings=rules.FR7_READINGS)
    assert verdict.verdict == DEPENDS
    assert "baselines in the headline: not reproduced at 'both', reproduced at '1Segment'" in (
        verdict.reason
    )
    with pytest.raises(ValueError, match="growth must be one of"):
        rules.fr7(runs, DEFAULTS, growth="spearman")


def test_fr7_fails_on_one_line_under_the_literal_reading_and_is_partly_under_most_lines():
    hump = {1000: 0.6, 3000: 1.5, 5000: 0.3}
    runs = _trees(lambda p: 20 + p["n"] - 40 * p["ch_max"] + hump[p["omega"]])
    assert rules.fr7(runs, DEFAULTS).verdict == NOT_REPRODUCED
    most = rules.fr7(runs, DEFAULTS, lines="most")
    assert most.verdict == PARTLY and "2 of 3 lines grow (at least 2)" in most.reason
    # The same hump under the per-tree slope: Ω's slope is negative too.
    assert rules.fr7(runs, DEFAULTS, growth="slope").verdict == NOT_REPRODUCED


def test_fr7_fails_on_a_sparse_last_value_only_when_sparse_values_count():
    # NSegments is feasible on 4% of the trees at n = 35, where its advantage drops: with every
    # value counted the n line fails; with values under a tenth of the trees left out it grows.
    def advantage(p):
        grows = 20 + p["n"] + p["omega"] / 500 - 40 * p["ch_max"]
        return {"NSegments": grows - (40 if p["n"] == 35 else 0), "1Segment": grows}

    runs = _trees_by_baseline(advantage, infeasible=lambda p: 0.96 if p["n"] == 35 else 0.0)
    assert rules.fr7(runs, DEFAULTS).verdict == NOT_REPRODUCED
    thinned = rules.fr7(runs, DEFAULTS, min_share=0.1)
    assert thinned.verdict == REPRODUCED and "no data at 35" in thinned.reproduced


def _proxy(sim_sign):
    runs = thesis_like()
    runs["RT_Computational"] = runs["RT_FastRecover"] * 3 + runs["iteration"] * 0.001
    runs["RT_Latency"] = (
        runs["RT_FastRecover"] if sim_sign > 0 else 1 / runs["RT_FastRecover"]
    ) + 1
    return {f"chain {k}": on_line(runs, k, DEFAULTS) for k in ("omega", "ch_max", "z")}


def test_fr8_fails_on_a_simulated_measure_moving_against_the_model():
    assert rules.fr8(_proxy(+1)).verdict == REPRODUCED
    verdict = rules.fr8(_proxy(-1))
    assert verdict.verdict == NOT_REPRODUCED and "RT_Latency moves with" in verdict.reason


def _times(exponent_n, exponent_z, rng, fixed=0.0, noise=0.05, per_point=10):
    """Chain times 1e-5·x^k plus a fixed cost per call, with lognormal noise."""

    def time(x, k):
        return (fixed + 1e-5 * x**k) * np.exp(rng.normal(0, noise))

    rows = [
        {"n": n, "z": CHAIN.z, rules.TIME: time(n, exponent_n)}
        for n in (5, 10, 15, 20, 35, 50)
        for _ in range(per_point)
    ]
    rows_z = [
        {"n": 15, "z": z, rules.TIME: time(z, exponent_z)}
        for z in (20, 40, 60, 80, 100, 160)
        for _ in range(per_point)
    ]
    return pd.DataFrame(rows), pd.DataFrame(rows_z)


def test_fr9_fails_on_cubic_growth_and_on_no_growth():
    rng = np.random.default_rng(2)
    ranges = {"n": (5, 35), "z": (20, 100)}
    assert rules.fr9(*_times(2, 2, rng), ranges).verdict == REPRODUCED
    assert rules.fr9(*_times(2, 2, rng), ranges).evidence == EXECUTED
    cubic = rules.fr9(*_times(3, 2, rng), ranges)
    assert cubic.verdict == NOT_REPRODUCED
    # A failing band condition reads as failing, not as "fails: ... meets 1.5-2.5".
    assert re.search(
        r"fails: quadratic in n: exponent: CI \[[\d., ]+\] wholly outside 1.5-2.5", cubic.reason
    )
    assert rules.fr9(*_times(0, 2, rng), ranges).verdict == NOT_REPRODUCED


def test_fr9_fails_on_linear_growth_with_a_tight_exponent_ci():
    rng = np.random.default_rng(6)
    verdict = rules.fr9(*_times(1, 1, rng), {"n": (5, 35), "z": (20, 100)})
    assert verdict.verdict == NOT_REPRODUCED
    assert "fails: quadratic in n: exponent" in verdict.reason


def test_fr9_is_not_checkable_on_a_grid_too_small_for_the_exponent_fit():
    rng = np.random.default_rng(7)
    chain_n, chain_z = _times(2, 2, rng)
    chain_n = chain_n[chain_n["n"].isin([5, 20, 50])]
    verdict = rules.fr9(chain_n, chain_z, {"n": (5, 35), "z": (20, 100)})
    assert verdict.verdict == NOT_CHECKABLE and "3 sizes of n" in verdict.reason


def test_fr9_fits_the_fixed_cost_beside_the_exponent():
    # Quadratic work under a fixed cost per call as large as the work at n = 10: the plain
    # log-log slope is well below 1.5, the exponent fitted beside the fixed cost is 2.
    rng = np.random.default_rng(4)
    lines = _times(2, 2, rng, fixed=1e-3)
    assert rules.loglog_slope(lines[0]["n"], lines[0][rules.TIME])[0] < 1.5
    verdict = rules.fr9(*lines, {"n": (5, 35), "z": (20, 100)})
    assert verdict.verdict == REPRODUCED, verdict.reason
    k, lo, hi, fixed = rules.growth_exponent(lines[0]["n"], lines[0][rules.TIME])
    assert lo < 2 < hi and 0.5e-3 < fixed < 2e-3


def test_fr9_fails_on_a_wide_exponent_ci_that_only_overlaps_the_band():
    # Quadratic, but 2 calls per point with 60% noise: the CI is too wide to lie inside 1.5-2.5,
    # so the detail fails (partly) instead of passing because the CI merely reaches the band.
    rng = np.random.default_rng(5)
    verdict = rules.fr9(*_times(2, 2, rng, noise=0.6, per_point=2), {"n": (5, 35), "z": (20, 100)})
    assert verdict.verdict == PARTLY and "overlaps, not inside" in verdict.reason


def test_fr10_fails_on_power_law_growth_in_z():
    rng = np.random.default_rng(3)
    zs, ns = (2, 4, 8, 12, 16, 24), (5, 8, 11, 14, 18)

    def frame(z_time):
        enum_z = pd.DataFrame(
            [
                {"z": z, rules.TIME: z_time(z) * np.exp(rng.normal(0, 0.05))}
                for z in zs
                for _ in range(5)
            ]
        )
        enum_n = pd.DataFrame(
            [
                {"n": n, rules.TIME: 1e-3 * n * np.exp(rng.normal(0, 0.05))}
                for n in ns
                for _ in range(5)
            ]
        )
        knap = pd.DataFrame(
            [
                {"z": z, rules.TIME: 1e-4 * z * np.exp(rng.normal(0, 0.05))}
                for z in zs
                for _ in range(5)
            ]
        )
        return enum_z, enum_n, knap

    assert rules.fr10(*frame(lambda z: 1e-4 * np.exp(0.4 * z))).verdict == REPRODUCED
    assert rules.fr10(*frame(lambda z: 1e-4 * z**2)).verdict == NOT_REPRODUCED


def test_fr11_is_by_construction_and_fails_on_a_raised_rt_or_a_broken_budget():
    runs = pd.DataFrame(
        {
            "RT_FastRecover": [1.0, 2.0],
            "RT_RSRFS": [0.9, 2.0],
            "CH_RSRFS": [0.3, 0.4],
            "ch_max": 0.4,
        }
    )
    assert rules.fr11(runs).verdict == BY_CONSTRUCTION
    assert rules.fr11(runs).evidence == EXECUTED
    assert rules.fr11(runs.assign(RT_RSRFS=[1.1, 2.0])).verdict == NOT_REPRODUCED
    assert rules.fr11(runs.assign(CH_RSRFS=[0.3, 0.41])).verdict == NOT_REPRODUCED


def test_sensitivity_cis_shrink_with_more_topologies():
    def widths(topologies):
        runs = thesis_like(topologies=topologies, infeasible=lambda p: 0.4, seed=4)
        table = rules.sensitivity(runs, {("all", "points"): runs["n"] > 0})
        row = table.iloc[0]
        return [
            row[f"{name}_ci95_high"] - row[f"{name}_ci95_low"]
            for name in ("nsegments_infeasible", "reduction_vs_nsegments_pct")
        ]

    small, large = widths(40), widths(400)
    assert all(b < a / 2 for a, b in zip(small, large, strict=True))
    # A share's interval stays within 0-100%.
    runs = thesis_like(topologies=5)
    table = rules.sensitivity(runs, {("all", "points"): runs["n"] > 0})
    assert 0 <= table["nsegments_infeasible_ci95_low"].iloc[0] <= 100


def _alternatives(assumptions, make):
    """A rerun per range end: ``make(name, value)`` gives that rerun's rows."""
    return {(a.name, v): make(a.name, v) for a in assumptions for v in a.alternatives}


def test_across_keeps_a_modelled_verdict_that_holds_at_every_range_end(tmp_path):
    runs = thesis_like()
    # Each rerun: other chains (another seed), the same thesis-like trends.
    seeds = iter(range(10, 20))
    alternatives = _alternatives(
        rules.CHAIN_ASSUMPTIONS, lambda name, value: thesis_like(seed=next(seeds))
    )
    verdict = rules.across(rules.fr2, runs, alternatives, rules.CHAIN_ASSUMPTIONS)
    assert verdict.verdict == REPRODUCED and verdict.evidence == MODELLED
    ends = {(name, value) for name, value, _ in verdict.robustness}
    assert ends == set(alternatives)
    assert "B_log (KB/min) = 25000.0" in verdict.reason
    # Only a verdict re-judged across its ranges may be recorded as modelled and reproduced.
    assert Report("fastrecover_chain", tmp_path).record("FR2", verdict) == REPRODUCED
    with pytest.raises(ValueError, match="modelled and reads reproduced"):
        Report("fastrecover_chain", tmp_path).record("FR2", rules.fr2(runs))


def test_fr5_fails_on_rt_falling_with_n_at_a_range_end_and_reads_depends():
    runs = thesis_like()
    falling_n = thesis_like(rt=lambda p: (35 / p["n"]) * (0.4 / p["ch_max"]) * p["omega"] / 3000)
    alternatives = _alternatives(
        rules.CHAIN_ASSUMPTIONS,
        lambda name, value: falling_n if (name, value) == ("bandwidth", 25_000.0) else runs,
    )
    verdict = rules.across(rules.fr5, runs, alternatives, rules.CHAIN_ASSUMPTIONS, DEFAULTS)
    assert verdict.verdict == DEPENDS
    assert "B_log (KB/min): by construction at 20000.0, not reproduced at 25000.0" in verdict.reason


def test_fr8_across_the_proxy_assumptions_reads_depends_on_a_flip_at_one_end():
    agree, against = _proxy(+1), _proxy(-1)
    alternatives = _alternatives(
        rules.PROXY_ASSUMPTIONS,
        lambda name, value: against if name == "snapshot_bandwidth" and value > 2e6 else agree,
    )
    verdict = rules.across(rules.fr8, agree, alternatives, rules.PROXY_ASSUMPTIONS)
    assert verdict.verdict == DEPENDS and "B_snap (KB/min)" in verdict.reason
    steady = _alternatives(rules.PROXY_ASSUMPTIONS, lambda name, value: agree)
    assert rules.across(rules.fr8, agree, steady, rules.PROXY_ASSUMPTIONS).verdict == REPRODUCED


def test_across_fails_on_a_range_end_without_its_rerun():
    runs = thesis_like(topologies=20)
    alternatives = {("bandwidth", 15_000.0): runs}
    with pytest.raises(ValueError, match="missing"):
        rules.across(rules.fr4, runs, alternatives, rules.CHAIN_ASSUMPTIONS, DEFAULTS)


# Chain times of two full runs of fastrecover_runtime on one commit (n 5-35 at Z = 60, Z 20-100 at
# n = 15; 100 chains per point): the machine as it was, and with two CPU-bound processes beside it.
IDLE_HOG = Path(__file__).parent / "fixtures" / "fastrecover_runtime_idle_hog.csv"


def _fr9_by_run(measure):
    samples = pd.read_csv(IDLE_HOG).rename(columns={measure: "measured"})
    out = {}
    for run, part in samples.groupby("run"):
        lines = [
            part[part["line"] == line].assign(**{rules.TIME: part["measured"]}) for line in "nz"
        ]
        out[run] = rules.fr9(*lines, {"n": (5, 35), "z": (20, 100)})
    return out


def test_fr9_gives_one_verdict_on_cpu_times_measured_idle_and_beside_a_cpu_hog():
    cpu = _fr9_by_run(rules.TIME)
    assert cpu["idle"].verdict == cpu["hog"].verdict == REPRODUCED


def test_fr8_judges_a_measure_missing_at_one_value_on_the_values_both_have():
    # The full profile once stopped here: a simulated measure with no data at one value of a line
    # gave the model and the simulation different numbers of steps (zip strict).
    lines = _proxy(+1)
    line = lines["chain omega"]
    first = line["omega"].min()
    line.loc[line["omega"] == first, "RT_Latency"] = np.nan
    verdict = rules.fr8(lines)
    assert verdict.verdict == REPRODUCED
    lines["chain omega"].loc[lines["chain omega"]["omega"] != first, "RT_Latency"] = np.nan
    assert "RT_Latency has data at fewer than two values" in rules.fr8(lines).reproduced
