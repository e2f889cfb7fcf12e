"""Rules of the FastRecover claims FR1-FR11 (data/paper/claims.csv), one function per claim.

Each takes the sweep rows a notebook produced (one row per random topology and parameter point,
``iteration`` the topology index: the sweeps use common random numbers) and returns a Verdict.
Reductions are per topology, 100·(1 - RT_FastRecover / RT_baseline), where both are feasible.

Evidence. FR1, FR9, FR10 and FR11 are ``executed``: they judge what Algorithms 1-2, the
baselines and the RSRFS step do when run (FR1 and FR11 cannot fail given the method; FR9 and FR10
time the algorithms). FR2-FR8 are ``modelled``: their outcome is the model's expected recovery
time and feasibility, which rest on the storage overhead Δ the thesis leaves abstract (the
bandwidths B_log and B_snap of ``fastrecover.model``) and on the reading of ρ's "variance 0.03".
Those are declared as ``Assumption``s below, with their ranges from fastrecover_delta's map; the
modelled rules FR2, FR4, FR5, FR6 and FR8 are judged through ``across``, which reruns the same
sweep at each end of each range. FR6 and FR7 also declare the readings of their vague words
(``FR6_READINGS``, ``FR7_READINGS``), re-judged on the same rows; FR7's model constants are not
re-judged along the tree lines (see ``FR7_READINGS``). (F_max = 200 per minute is the thesis's
printed tree default, Table 4.1, so it is not an open choice.)
"""

import dataclasses
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import optimize, stats

from fastrecover.experiments import on_line
from fastrecover.model import DEFAULT_BANDWIDTH, DEFAULT_SNAPSHOT_BANDWIDTH
from pipeline.scorecard import (
    BY_CONSTRUCTION,
    CALIBRATED,
    EXECUTED,
    MODELLED,
    NOT_CHECKABLE,
    Assumption,
    Verdict,
    bootstrap_ci,
    ci_text,
    judge,
    mean_ci,
    robust,
    share_ci,
    trend,
    trend_conditions,
)

BASELINES = ("NSegments", "1Segment")
# "about 50%" read as 50 ± 10 percentage points (FR2).
ABOUT_50 = (40.0, 60.0)
# "roughly half" / "a fifth" (FR6): the printed ratios, each read within a factor FR6_ABOUT.
FR6_TARGETS = {"NSegments": 2.0, "1Segment": 5.0}
# "almost 100%" (FR3): the infeasible share's CI reaches 90%.
ALMOST_ALL = 90.0
# Growth exponents read from log-log slopes (FR9, FR10): quadratic 1.5-2.5, linear 0.5-1.5.
QUADRATIC, LINEAR = (1.5, 2.5), (0.5, 1.5)
# FR9's fit time = a + b·x^k has three parameters: with fewer than 4 distinct sizes on a line
# (one more than the fit's parameters) the curve passes through every size's mean and k rests on
# their noise (issue 18: at 3 sizes the quick run gave k 2.24 [1.80, 2.68] idle and 1.57 [1.39,
# 1.76] beside a CPU hog), so the claim is then not checkable.
MIN_SIZES = 4
# The runtime rules' measure (fastrecover.experiments.runtime_point): the minimum over repeats of
# one call's process CPU time, which other load on the machine does not stretch.
TIME = "cpu_seconds"

# Open choices of the model (names: the sweep parameters of fastrecover.experiments). Ranges from
# fastrecover_delta's map of which thesis observations each (B_log, B_snap) meets.
B_LOG = Assumption(
    "bandwidth",
    DEFAULT_BANDWIDTH,
    (15_000.0, 25_000.0),
    source="fastrecover_delta's map (200 chains per value): FR3's 'almost 100% infeasible at "
    "n = 35' holds at B_log <= 20,000 (96%) and fades above it (78% at 25,000); below 15,000 "
    "NSegments is infeasible on 99% of chains already at n = 10, emptying the NSegments boxes "
    "of Figs. 4.2-4.3. The range is read off which printed thesis observations it meets, so it "
    "is not independent of the thesis: a verdict that holds across it is consistent with the "
    "thesis's setting, not separate evidence",
    label="B_log (KB/min)",
    constant=True,
)
B_SNAP = Assumption(
    "snapshot_bandwidth",
    DEFAULT_SNAPSHOT_BANDWIDTH,
    (1_600_000.0, 5_000_000.0),
    source="fastrecover_delta's map: the thesis's tree default F_max = 200/min is feasible on "
    "every default tree from 1.6e6 (75% at 1.5e6); up to 5e6 both printed NSegments maxima "
    "(1.211 at n = 10, 0.49 at n = 15) stay within a factor of about 2 of ours",
    label="B_snap (KB/min)",
    constant=True,
)
RHO = Assumption(
    "rho_variance",
    0.03,
    (0.03**2,),
    source="Table 4.1: ρ_i Gaussian with mean 0.1 and 'variance 0.03'; read as a standard "
    "deviation of 0.03 the other way (fastrecover_delta, fastrecover_tree's sensitivity)",
    label="ρ's variance",
)
# FR6's readings of the thesis's words (Section 4.2.1, "the variance of RT_FastRecover is roughly
# half that of RT_NSegments and a fifth that of RT_1Segment, as can be seen ... in Figure (4.3)
# and Figure (4.2)"), re-judged on the same chains.
FR6_ABOUT = Assumption(
    "about",
    1.5,
    (1.25, 2.0),
    source="own reading of 'roughly': the ratio within a factor 1.5 of 2 and of 5 keeps the two "
    "bands (1.33-3, 3.33-7.5) apart (they touch at a factor √2.5 ≈ 1.58); 1.25 is a strict "
    "reading, 2 a loose one under which 'half' and 'a fifth' overlap (1-4, 2.5-10)",
    label="'roughly' as a factor",
)
FR6_SPREAD = Assumption(
    "spread",
    "variance",
    ("sd", "iqr"),
    source="the thesis says 'variance' but reads it off box plots (Figs. 4.2-4.3: quartiles and "
    "whiskers), which show the interquartile range; 'variance' may also stand for spread in "
    "general, read as the standard deviation",
    label="the spread compared",
)
FR6_READINGS = (FR6_ABOUT, FR6_SPREAD)
# Each reduces along ``axis`` (``bootstrap_ci`` evaluates every resample in one call).
SPREADS = {
    "variance": lambda x, axis=-1: np.var(x, ddof=1, axis=axis),
    "sd": lambda x, axis=-1: np.std(x, ddof=1, axis=axis),
    "iqr": lambda x, axis=-1: np.subtract(*np.percentile(x, [75, 25], axis=axis)),
}
# FR7's readings of the thesis's sentence (Section 4.2.2: "the performance advantage of
# FastRecover over the other two schemes grows larger as we increase n, increase Ω, or decrease
# CH_max"), re-judged on the same trees. FR7 rests on the model's constants too (B_log, B_snap,
# ρ's reading); they are not re-judged along the tree lines (that is a second sweep of every
# line), only at the default point in fastrecover_tree's sensitivity table, so FR7 cannot be
# recorded as reproduced (Report.record refuses a modelled row without a re-judged constant).
FR7_BASELINES = Assumption(
    "baselines",
    "both",
    ("NSegments", "1Segment"),
    source="the sentence names 'the other two schemes' (both, the literal reading); Figs. "
    "4.7-4.10 plot each baseline in a panel of its own, so a reading per panel takes one",
    label="baselines in the headline",
)
FR7_LINES = Assumption(
    "lines",
    "all",
    ("most",),
    source="the sentence lists n, Ω and CH_max (all three, the literal reading) and opens 'In "
    "general': at least two of the three per baseline is the loosest reading that still says "
    "the advantage grows",
    label="lines that must grow",
)
FR7_GROWTH = Assumption(
    "growth",
    "first-last",
    ("slope",),
    source="'grows larger as we increase n': the paired change from the first to the last value "
    "(default) ignores the values between; the mean per-tree least-squares slope over every "
    "value with data uses them all",
    label="the 'grows' test",
)
FR7_MIN_SHARE = Assumption(
    "min_share",
    0.0,
    (0.1,),
    source="own choice: a value of a line where FastRecover and the baseline are both feasible "
    "on under a tenth of the trees (NSegments at large n or Ω) describes those few trees, not "
    "the figure's mean; 0 keeps every value with data",
    label="least share of trees with both feasible at a value",
)
FR7_READINGS = (FR7_BASELINES, FR7_LINES, FR7_GROWTH, FR7_MIN_SHARE)
# Chains: B_snap scales every chain RT by one factor and leaves feasibility alone
# (tests/fastrecover/test_algorithm1.py), so no chain trend or share can move with it.
CHAIN_ASSUMPTIONS = (B_LOG, RHO)
PROXY_ASSUMPTIONS = (B_LOG, B_SNAP, RHO)


def across(
    rule,
    data,
    alternatives: Mapping[tuple[str, object], object],
    assumptions: Sequence[Assumption],
    *args,
    readings: Sequence[Assumption] = (),
) -> Verdict:
    """``rule(data, *args)`` judged through ``robust``: at the defaults on ``data``, and with one
    assumption at a time at each alternative on ``alternatives[(name, value)]``, the same sweep
    rerun with that choice changed (the same topology indices: common random numbers).
    ``readings`` are the claim's own open readings (a threshold for a vague word, which
    statistic): the rule takes them as keywords and they are re-judged on ``data`` itself."""
    defaults = {a.name: a.default for a in assumptions}
    missing = [
        (a.name, v) for a in assumptions for v in a.alternatives if (a.name, v) not in alternatives
    ]
    if missing:
        raise ValueError(f"alternatives must hold a rerun for every range end; missing {missing}")

    def at(**choices):
        changed = [(k, v) for k, v in choices.items() if k in defaults and v != defaults[k]]
        keywords = {a.name: choices[a.name] for a in readings}
        return rule(alternatives[changed[0]] if changed else data, *args, **keywords)

    return robust(at, [*assumptions, *readings])


def _meets(holds) -> str:
    """A band condition's verb, so that a failing one reads as failing ("fails: ... outside")."""
    return "meets" if holds else "outside"


def _listed(values) -> str:
    return ", ".join(f"{v:g}" for v in values)


def _never_above(runs: pd.DataFrame, what: str) -> tuple[dict, int]:
    conditions, pairs = {}, 0
    for base in BASELINES:
        both = runs[runs["feasible_FastRecover"] & runs[f"feasible_{base}"]]
        worse = int((both["RT_FastRecover"] > both[f"RT_{base}"] * (1 + 1e-9)).sum())
        conditions[f"FastRecover above {base} on {worse} of {len(both)} {what}"] = worse == 0
        pairs += len(both)
    return conditions, pairs


def fr1(runs: pd.DataFrame, shape: str) -> Verdict:
    """FR1 (per shape): never above either baseline. By construction: the baselines are the
    same optimizer restricted to fixed anchor sets, so a violation would be a bug."""
    conditions, pairs = _never_above(runs, f"{shape}s")
    return judge(
        conditions,
        paper_value=f"never above NSegments or 1Segment ({shape}s)",
        reproduced=f"{pairs} paired comparisons",
        rule="RT_FastRecover <= RT_baseline·(1 + 1e-9) on every topology where both are feasible",
        when_holds=BY_CONSTRUCTION,
        evidence=EXECUTED,
    )


def reductions(runs: pd.DataFrame, base: str) -> pd.Series:
    both = runs[runs["feasible_FastRecover"] & runs[f"feasible_{base}"]]
    return 100 * (1 - both["RT_FastRecover"] / both[f"RT_{base}"])


def fr2(runs: pd.DataFrame) -> Verdict:
    """FR2: about 50% less than each naive method on average. Statistic: the mean of
    per-topology reductions, its CI over topology indices (each index's points averaged first,
    as common random numbers make them dependent); the ratio of means is reported beside it."""
    head, detail, shown = {}, {}, []
    lo_band, hi_band = ABOUT_50
    for base in BASELINES:
        both = runs[runs["feasible_FastRecover"] & runs[f"feasible_{base}"]]
        per_topology = reductions(runs, base).groupby(both["iteration"]).mean()
        mean, lo, hi = mean_ci(per_topology)
        ratio = 100 * (1 - both["RT_FastRecover"].mean() / both[f"RT_{base}"].mean())
        shown.append(f"vs {base}: {ci_text(mean, lo, hi, unit='%')} (ratio of means {ratio:.1f}%)")
        head[f"less than {base}: mean reduction {mean:.1f}%, CI lower {lo:.1f}% > 0"] = lo > 0
        reaches, inside = band_conditions(f"about 50% vs {base} (%)", lo, hi, ABOUT_50)
        head.update(reaches)
        detail.update(inside)
    return judge(
        head,
        detail,
        paper_value="about 50% less than the naive methods, on average",
        reproduced="; ".join(shown),
        rule=f"per baseline: 95% CI of the mean per-topology reduction > 0 and reaching "
        f"{lo_band:g}-{hi_band:g}% (about 50%; a CI wholly outside it: not reproduced), inside "
        "it (a CI only overlapping it: partly)",
        evidence=MODELLED,
    )


def _infeasible(runs: pd.DataFrame) -> pd.DataFrame:
    return runs.assign(infeasible_pct=100.0 * ~runs["feasible_NSegments"].astype(bool))


def fr3(runs: pd.DataFrame, defaults: dict) -> Verdict:
    """FR3: NSegments' infeasible share grows with n, almost 100% at n = 35. Calibrated: Δ's
    bandwidth was chosen so that it holds (fastrecover.model)."""
    line = _infeasible(on_line(runs, "n", defaults))
    t = trend(line, "n", "infeasible_pct", +1)
    head, detail = trend_conditions("NSegments infeasible % over n", t, claimed="grows")
    last = line[line["n"] == t.values[-1]]["infeasible_pct"] / 100
    mean, lo, hi = share_ci(last)
    head[f"at n = {t.values[-1]}: {ci_text(mean, lo, hi, unit='%')} reaches {ALMOST_ALL:g}%"] = (
        hi >= ALMOST_ALL
    )
    return judge(
        head,
        detail,
        paper_value="a growing share, almost 100% at n = 35",
        reproduced=t.text(),
        rule=f"CI of share(n_max) - share(n_min) > 0 (paired chains); CI at n_max reaches "
        f"{ALMOST_ALL:g}% (Wilson); Δ's bandwidth was set for this",
        when_holds=CALIBRATED,
        evidence=MODELLED,
    )


def _trends(runs, defaults, column, claims: dict, frame_fn=None) -> tuple[dict, dict, list]:
    head, detail, shown = {}, {}, []
    for name, (direction, words, headline) in claims.items():
        line = on_line(runs, name, defaults)
        line = frame_fn(line) if frame_fn else line
        t = trend(line, name, column, direction)
        h, d = trend_conditions(f"{column} over {name}", t, claimed=words)
        (head if headline else detail).update(h)
        detail.update(d)
        shown.append(f"{name}: {t.text()}")
    return head, detail, shown


# Why FR4's and FR5's directions cannot fail in the model (``by construction``).
MODEL_FIXES_DIRECTION = (
    "By construction: the model fixes these directions. Ω multiplies every operator's "
    "checkpoint and recovery cost; a larger CH_max scales the Z budget increments, so every "
    "plan feasible at a lower CH_max stays feasible at the same frequencies; a larger Z refines "
    "the budget grid (nested where the values divide); more operators add their costs to RT. "
    "The rule can fail only where a share saturates at 0 or 100% or where the Z grids do not "
    "nest (an independent review: 0 reversals in 4,000 paired steps along Ω, CH_max and Z at "
    "1,000 chains per value, 5 for RT along Z). "
)


def _by_model(verdict: Verdict) -> Verdict:
    if verdict.verdict != BY_CONSTRUCTION:
        return verdict
    return dataclasses.replace(verdict, reason=MODEL_FIXES_DIRECTION + verdict.reason)


def fr4(runs: pd.DataFrame, defaults: dict) -> Verdict:
    """FR4: NSegments' infeasibility grows with Ω, falls with CH_max and with Z. ``by
    construction`` when it holds (``MODEL_FIXES_DIRECTION``). Modelled (feasibility follows
    B_log): the notebook judges it ``across`` CHAIN_ASSUMPTIONS."""
    claims = {
        "omega": (+1, "grows", True),
        "ch_max": (-1, "falls", True),
        "z": (-1, "falls", True),
    }
    head, detail, shown = _trends(runs, defaults, "infeasible_pct", claims, _infeasible)
    return _by_model(
        judge(
            head,
            detail,
            paper_value="NSegments infeasibility grows with Ω, falls with CH_max and with Z",
            reproduced="; ".join(shown),
            rule="per line: 95% CI of the paired change from the first to the last value on the "
            "claimed side of 0; detail: no step's CI entirely on the wrong side; by "
            "construction when it holds (the model fixes the directions)",
            when_holds=BY_CONSTRUCTION,
            evidence=MODELLED,
        )
    )


def fr5(runs: pd.DataFrame, defaults: dict) -> Verdict:
    """FR5: RT_FastRecover grows with n and Ω, falls with CH_max, and falls (weakly) with Z (the
    weak Z trend is a detail, the other three the headline). ``by construction`` when it holds
    (``MODEL_FIXES_DIRECTION``). Modelled (RT follows Δ and ρ): the notebook judges it
    ``across`` CHAIN_ASSUMPTIONS."""
    claims = {
        "n": (+1, "grows", True),
        "omega": (+1, "grows", True),
        "ch_max": (-1, "falls", True),
        "z": (-1, "falls (weakly)", False),
    }
    head, detail, shown = _trends(runs, defaults, "RT_FastRecover", claims)
    return _by_model(
        judge(
            head,
            detail,
            paper_value="RT grows with n and Ω, falls with CH_max and (weakly) with Z",
            reproduced="; ".join(shown),
            rule="per line: 95% CI of the paired change of RT_FastRecover from the first to the "
            "last value on the claimed side of 0 (n, Ω, CH_max headline; Z detail); detail: no "
            "step significantly reversed; by construction when it holds (the model fixes the "
            "directions)",
            when_holds=BY_CONSTRUCTION,
            evidence=MODELLED,
        )
    )


def spread_ratios(
    on_n: pd.DataFrame,
    rng: np.random.Generator,
    min_chains: int = 10,
    spread: str = "variance",
):
    """spread(RT_baseline) / spread(RT_FastRecover) per n on the chains where all three are
    feasible, each with a paired bootstrap 95% CI; ``spread`` one of ``SPREADS`` (the thesis's
    variance by default), named in the column ``spread``."""
    if spread not in SPREADS:
        raise ValueError(f"spread must be one of {sorted(SPREADS)}; got {spread!r}")
    of = SPREADS[spread]
    feasible = on_n[
        on_n[[f"feasible_{m}" for m in ("FastRecover", *BASELINES)]].astype(bool).all(axis=1)
    ]
    rows = []
    for n, part in feasible.groupby("n"):
        if len(part) < min_chains:
            continue
        row = {"n": n, "chains": len(part), "spread": spread}
        for base in BASELINES:
            ratio, lo, hi = bootstrap_ci(
                lambda a, b, axis=-1: of(a, axis) / of(b, axis),
                [part[f"RT_{base}"], part["RT_FastRecover"]],
                rng=rng,
                vectorized=True,
            )
            row.update({f"{base} ratio": ratio, f"{base} lo": lo, f"{base} hi": hi})
        rows.append(row)
    return pd.DataFrame(rows)


def fr6(ratios: pd.DataFrame, *, about: float = FR6_ABOUT.default) -> Verdict:
    """FR6: the variance of RT_FastRecover is about half of NSegments' and a fifth of
    1Segment's. The magnitude is the headline; FastRecover having the smallest spread is a
    detail (it alone does not make the claim). ``ratios`` from ``spread_ratios``; ``about``
    reads "roughly": each ratio within that factor of 2 and of 5 (``FR6_ABOUT``)."""
    bands = {base: (t / about, t * about) for base, t in FR6_TARGETS.items()}
    band_text = " and ".join(f"{lo:.3g}-{hi:.3g}" for lo, hi in bands.values())
    if ratios.empty:
        return judge(
            {"at least one n with 10 chains where all three methods are feasible": False},
            paper_value="variance ratios about 2 (NSegments) and 5 (1Segment)",
            reproduced="no n with enough chains",
            rule=f"ratio CIs meet {band_text} at every n",
            evidence=MODELLED,
        )
    spread = ratios["spread"].iloc[0] if "spread" in ratios else "variance"
    what = "var" if spread == "variance" else spread
    head, detail, shown = {}, {}, []
    for base, (lo_band, hi_band) in bands.items():
        meets = (ratios[f"{base} hi"] >= lo_band) & (ratios[f"{base} lo"] <= hi_band)
        inside = (ratios[f"{base} lo"] >= lo_band) & (ratios[f"{base} hi"] <= hi_band)
        name = f"{what}({base})/{what}(FastRecover)"
        text = ", ".join(
            f"n={int(r['n'])}: {r[f'{base} ratio']:.3g} "
            f"[{r[f'{base} lo']:.3g}, {r[f'{base} hi']:.3g}]"
            for _, r in ratios.iterrows()
        )
        shown.append(f"{name} {text}")
        head[
            f"{name} CI {_meets(meets.all())} {lo_band:.3g}-{hi_band:.3g} "
            + ("at every n" if meets.all() else f"at n = {_listed(ratios['n'][~meets])}")
        ] = bool(meets.all())
        detail[
            f"{name} CI "
            + (
                f"inside {lo_band:.3g}-{hi_band:.3g} at every n"
                if inside.all()
                else f"not inside {lo_band:.3g}-{hi_band:.3g} at n = "
                f"{_listed(ratios['n'][~inside])}"
            )
        ] = bool(inside.all())
        detail[f"{name} CI above 1 at every n"] = bool((ratios[f"{base} lo"] > 1).all())
    return judge(
        head,
        detail,
        paper_value="variance about half of NSegments', a fifth of 1Segment's (2-5x)",
        reproduced="; ".join(shown),
        rule=f"per n (chains where all three are feasible, >= 10): bootstrap 95% CI of the "
        f"{spread} ratio reaches {band_text} (NSegments, 1Segment: 2 and 5 within a factor "
        f"{about:g}; headline: a CI wholly outside fails), and lies inside them (detail: only "
        "overlapping gives partly)",
        evidence=MODELLED,
    )


def fr6_on_runs(
    runs: pd.DataFrame,
    defaults: dict,
    seed: int,
    *,
    about: float = FR6_ABOUT.default,
    spread: str = FR6_SPREAD.default,
) -> Verdict:
    """FR6 on a chain sweep's n line (``spread_ratios`` with a generator seeded by ``seed``, so
    every re-judging resamples alike): the form ``across`` re-judges over CHAIN_ASSUMPTIONS
    (reruns) and FR6_READINGS (the same chains)."""
    ratios = spread_ratios(on_line(runs, "n", defaults), np.random.default_rng(seed), spread=spread)
    return fr6(ratios, about=about)


def tree_advantage(runs: pd.DataFrame) -> pd.DataFrame:
    """Per-topology reductions against each baseline as columns ``reduction_<base>`` (NaN where
    either is infeasible)."""
    out = runs.copy()
    for base in BASELINES:
        both = out["feasible_FastRecover"].astype(bool) & out[f"feasible_{base}"].astype(bool)
        out[f"reduction_{base}"] = np.where(
            both, 100 * (1 - out["RT_FastRecover"] / out[f"RT_{base}"]), np.nan
        )
    return out


# FR7's lines: (direction, the claimed words).
FR7_CLAIMS = {"n": (+1, "grows"), "omega": (+1, "grows"), "ch_max": (-1, "grows as CH_max shrinks")}


def _thinned(line: pd.DataFrame, x: str, y: str, min_share: float) -> pd.DataFrame:
    """``line`` with ``y`` blanked at the values of ``x`` where under ``min_share`` of the rows
    have it (``trend`` then leaves those values out and names them)."""
    share = line[y].notna().groupby(line[x]).transform("mean")
    return line.assign(**{y: line[y].where(share >= min_share)})


def _per_tree_slope(line: pd.DataFrame, x: str, y: str) -> tuple[float, float, float]:
    """Mean and 95% CI over trees of each tree's least-squares slope of ``y`` on ``x`` (trees
    with data at two values or more)."""
    wide = line.pivot_table(index="iteration", columns=x, values=y, aggfunc="mean")
    xs = wide.columns.to_numpy(float)
    slopes = [
        np.polyfit(xs[ok], row[ok], 1)[0]
        for row in wide.to_numpy()
        if (ok := np.isfinite(row)).sum() >= 2
    ]
    return mean_ci(slopes)


def fr7(
    runs: pd.DataFrame,
    defaults: dict,
    *,
    baselines: str = FR7_BASELINES.default,
    lines: str = FR7_LINES.default,
    growth: str = FR7_GROWTH.default,
    min_share: float = FR7_MIN_SHARE.default,
) -> Verdict:
    """FR7: on trees the advantage (paired reduction) grows with n and Ω and as CH_max shrinks,
    against both baselines. The keywords are the sentence's open readings (``FR7_READINGS``):
    which baselines make the headline ("both" or one), whether every line must grow ("all") or
    two of the three per baseline ("most", the rest then detail), the "grows" test (the paired
    first-to-last change, or the mean per-tree slope), and the least share of trees with both
    methods feasible for a value to count."""
    for name, value, allowed in (
        ("baselines", baselines, ("both", *BASELINES)),
        ("lines", lines, ("all", "most")),
        ("growth", growth, ("first-last", "slope")),
    ):
        if value not in allowed:
            raise ValueError(f"{name} must be one of {allowed}; got {value!r}")
    if not 0 <= min_share < 1:
        raise ValueError(f"min_share must be in [0, 1); got {min_share}")
    frame = tree_advantage(runs)
    head, detail, shown = {}, {}, []
    for base in BASELINES:
        column = f"reduction_{base}"
        line_head = {}
        for name, (direction, words) in FR7_CLAIMS.items():
            line = _thinned(on_line(frame, name, defaults), name, column, min_share)
            t = trend(line, name, column, direction)
            h, d = trend_conditions(f"{column} over {name}", t, claimed=words)
            if growth == "slope":
                mean, lo, hi = _per_tree_slope(line, name, column)
                side = "> 0" if direction > 0 else "< 0"
                h = {
                    f"{column} over {name} {words}: per-tree slope {ci_text(mean, lo, hi)} "
                    f"(CI {side})": bool(lo > 0 if direction > 0 else hi < 0)
                }
            line_head.update(h)
            shown.append(f"vs {base} {name}: {t.text()}")
            if baselines in ("both", base):
                detail.update(d)
        if baselines not in ("both", base):
            continue
        if lines == "all":
            head.update(line_head)
        else:
            held = sum(line_head.values())
            head[f"vs {base}: {held} of {len(line_head)} lines grow (at least 2)"] = held >= 2
            detail.update(line_head)
    growth_text = (
        "mean per-tree least-squares slope" if growth == "slope" else "paired first-to-last change"
    )
    return judge(
        head,
        detail,
        paper_value="the advantage grows with n and Ω and as CH_max shrinks",
        reproduced="; ".join(shown),
        rule=f"per baseline ({baselines}) and line ({lines}): 95% CI of the {growth_text} of the "
        f"per-tree reduction (%) on the claimed side of 0, at values where both methods are "
        f"feasible on at least {min_share:.0%} of the trees; detail: no step significantly "
        "reversed",
        evidence=MODELLED,
    )


def fr8(lines: dict[str, pd.DataFrame]) -> Verdict:
    """FR8: for fixed n, RT_FastRecover moves with the simulated RT_Computational and RT_Latency.

    ``lines`` maps "<shape> <parameter>" to that fixed-n line's rows. Headline: wherever
    RT_FastRecover changes significantly from the first to the last value, each simulated
    measure changes significantly the same way; detail: no step where the two change
    significantly in opposite directions. Modelled (both measures follow Δ and ρ): the notebook
    judges it ``across`` PROXY_ASSUMPTIONS."""
    head, detail, shown = {}, {}, []
    for label, line in lines.items():
        name = label.split()[-1]
        if line[name].nunique() < 2:
            shown.append(
                f"{label}: fewer than two values with a feasible configuration, not judged"
            )
            continue
        model = trend(line, name, "RT_FastRecover", +1)
        for measure in ("RT_Computational", "RT_Latency"):
            # the steps are compared one for one: both trends on the rows where both have data
            # (a simulated measure can be missing where the model has a value)
            both = line.dropna(subset=["RT_FastRecover", measure])
            if both[name].nunique() < 2:
                shown.append(f"{label}: {measure} has data at fewer than two values, not judged")
                continue
            model_here = trend(both, name, "RT_FastRecover", +1)
            sim = trend(both, name, measure, +1)
            sign = np.sign(model_here.overall[0])
            model_sig = model_here.overall[1] > 0 or model_here.overall[2] < 0
            sim_sig_same = (sim.overall[1] > 0) if sign > 0 else (sim.overall[2] < 0)
            key = (
                f"{label}: {measure} moves with RT_FastRecover "
                f"(model {ci_text(*model_here.overall)}, simulated {ci_text(*sim.overall)})"
            )
            if model_sig:
                head[key] = bool(sim_sig_same)
            opposite = [
                k
                for k, (m, s) in enumerate(zip(model_here.steps, sim.steps, strict=True))
                if (m[1] > 0 and s[2] < 0) or (m[2] < 0 and s[1] > 0)
            ]
            detail[
                f"{label}: no step where {measure} moves significantly against the model"
            ] = not opposite
        shown.append(f"{label}: {model.text()}")
    if not head:
        head["RT_FastRecover changes significantly along at least one fixed-n line"] = False
    return judge(
        head,
        detail,
        paper_value="for fixed n, RT_FastRecover moves with RT_Computational and RT_Latency",
        reproduced="; ".join(shown),
        rule="on each fixed-n line where RT_FastRecover's paired first-to-last change has a 95% "
        "CI excluding 0, each simulated measure's change has a CI excluding 0 on the same side",
        evidence=MODELLED,
    )


def loglog_slope(x, seconds) -> tuple[float, float, float]:
    """Slope of log(seconds) on log(x) over individual runs, with its 95% t CI."""
    fit = stats.linregress(np.log(np.asarray(x, float)), np.log(np.asarray(seconds, float)))
    half = stats.t.ppf(0.975, len(x) - 2) * fit.stderr if len(x) > 2 else np.nan
    return float(fit.slope), float(fit.slope - half), float(fit.slope + half)


def growth_exponent(x, seconds) -> tuple[float, float, float, float]:
    """Exponent k of seconds = a + b·x^k (a >= 0 the fixed cost of a call, b > 0), fitted on
    log(seconds) over individual runs; returns (k, CI low, CI high, a), the CI a 95% t interval
    from the fit's covariance. NaNs when the fit cannot be made (fewer than three distinct x, or
    no convergence): an exponent that cannot be estimated."""
    x, t = np.asarray(x, float), np.asarray(seconds, float)
    nan = (np.nan, np.nan, np.nan, np.nan)
    if len(np.unique(x)) < 3 or len(x) < 4:
        return nan
    unit = t.min()  # a in units of the fastest call, so that the three parameters are O(1)

    def model(v, a, log_b, k):
        return np.log(a + np.exp(log_b) * v**k)

    start = (0.5, np.log(t.max() / unit) - 2 * np.log(x.max()), 2.0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optimize.OptimizeWarning)
            p, cov = optimize.curve_fit(
                model,
                x,
                np.log(t / unit),
                p0=start,
                bounds=([0.0, -np.inf, -10.0], [np.inf, np.inf, 10.0]),
                maxfev=20_000,
            )
    except (RuntimeError, ValueError):
        return nan
    half = stats.t.ppf(0.975, len(x) - 3) * np.sqrt(cov[2, 2])
    if not np.isfinite(half):
        return nan
    return float(p[2]), float(p[2] - half), float(p[2] + half), float(p[0] * unit)


def band_conditions(name: str, lo: float, hi: float, band: tuple[float, float]):
    """A quantity's CI against a band, precision-honest: ``(not outside, inside)``. The first
    (the CI reaches the band) fails only when the CI lies wholly outside it; the second (the CI
    lies within the band) holds only when the data pin the quantity inside it, so a wide CI that
    merely overlaps the band never passes as reproduced. Each as {condition text: holds}."""
    low, high = band
    known = bool(np.isfinite(lo) and np.isfinite(hi))
    reaches = known and bool(hi >= low and lo <= high)
    inside = known and bool(lo >= low and hi <= high)
    ci = f"CI [{lo:.3g}, {hi:.3g}]" if known else "CI not estimable"
    where = "inside" if inside else ("overlaps, not inside" if reaches else "outside")
    verb = "reaches" if reaches else "wholly outside"
    return (
        {f"{name}: {ci} {verb} {low:.3g}-{high:.3g}": reaches},
        {f"{name}: {ci} {where} {low:.3g}-{high:.3g}": inside},
    )


def fr9(chain_n: pd.DataFrame, chain_z: pd.DataFrame, ranges: dict) -> Verdict:
    """FR9: Algorithm 1's running time grows quadratically in n and in Z.

    What is timed: Algorithm 1 as the vectorized NumPy DP (``fastrecover.chain.optimize_chain``,
    the thesis's recurrence with its loops over frequencies vectorized), not the compiled DP the
    sweeps run (``chain_methods``, the same plans). Both carry a fixed cost per call (Python and
    NumPy dispatch, table set-up) that the thesis's O(n² Z²) count leaves out and that flattens a
    plain log-log slope at small sizes. The measure is therefore the exponent k of
    time = a + b·x^k, the fixed cost a fitted beside the slope, over every measured value of the
    line (``growth_exponent``); time is ``TIME``, the minimum over repeats of a call's process CPU
    time, which load does not stretch. Headline: the plain log-log slope over the thesis's
    ranges (``ranges``: {"n": (5, 35), "z": (20, 100)}) has a CI above 0. Detail, precision-honest
    (``band_conditions``): k's CI wholly outside 1.5-2.5 fails the claim ("quadratically" is
    its substance: linear or cubic growth is not reproduced); inside it holds; overlapping it
    (too imprecise to say) gives ``partly``. A line of fewer than ``MIN_SIZES`` distinct sizes
    makes the claim ``not checkable`` (too few for a 3-parameter fit). The plain slopes are
    reported beside."""
    sizes = {name: frame[name].nunique() for name, frame in (("n", chain_n), ("z", chain_z))}
    rule = (
        f"Algorithm 1 as the NumPy DP, min-over-repeats CPU time; headline: log-log slope CI "
        f"over the thesis's ranges (n 5-35, Z 20-100) > 0 and the exponent k of time = a + b·x^k "
        f"(fixed cost a fitted beside it, at least {MIN_SIZES} sizes per line) over the measured "
        f"range, 95% CI reaching {QUADRATIC[0]}-{QUADRATIC[1]} (wholly outside: not reproduced); "
        f"detail: that CI inside it (only overlapping: partly)"
    )
    if min(sizes.values()) < MIN_SIZES:
        return Verdict(
            NOT_CHECKABLE,
            paper_value="Algorithm 1 time grows quadratically in n and in Z",
            reproduced=", ".join(f"{v} sizes of {k}" for k, v in sizes.items()),
            rule=rule,
            reason=f"the grid is too small for the exponent: {sizes['n']} sizes of n and "
            f"{sizes['z']} of Z, a 3-parameter fit needs at least {MIN_SIZES} per line",
            evidence=EXECUTED,
        )
    head, detail, shown = {}, {}, []
    for name, frame in (("n", chain_n), ("z", chain_z)):
        lo_r, hi_r = ranges[name]
        window = frame[frame[name].between(lo_r, hi_r)]
        slope, lo, hi = loglog_slope(window[name], window[TIME])
        k, k_lo, k_hi, fixed = growth_exponent(frame[name], frame[TIME])
        shown.append(
            f"{name} {frame[name].min()}-{frame[name].max()}: exponent with a fixed cost "
            f"{ci_text(k, k_lo, k_hi)} (fixed cost {1e3 * fixed:.3g} ms); plain slope in "
            f"{lo_r}-{hi_r}: {ci_text(slope, lo, hi)}"
        )
        head[f"time grows with {name}: slope CI lower {lo:.2f} > 0"] = lo > 0
        reaches, inside = band_conditions(f"quadratic in {name}: exponent", k_lo, k_hi, QUADRATIC)
        head.update(reaches)
        detail.update(inside)
    return judge(
        head,
        detail,
        paper_value="Algorithm 1 time grows quadratically in n and in Z",
        reproduced="; ".join(shown),
        rule=rule,
        evidence=EXECUTED,
    )


def growth_fits(z, seconds) -> dict:
    """Residual sums of squares of log(time) fitted as exponential (linear in Z) and as power law
    (linear in log Z), on the per-Z mean times."""
    frame = pd.DataFrame({"z": z, "log_t": np.log(np.asarray(seconds, float))})
    means = frame.groupby("z")["log_t"].mean()
    zs, log_t = means.index.to_numpy(float), means.to_numpy()
    exp_fit = np.polyfit(zs, log_t, 1, full=True)
    pow_fit = np.polyfit(np.log(zs), log_t, 1, full=True)
    residual = lambda fit: float(fit[1][0]) if len(fit[1]) else 0.0  # noqa: E731
    return {
        "exponential": residual(exp_fit),
        "power": residual(pow_fit),
        "exponent": float(pow_fit[0][0]),
    }


def fr10(enum_z: pd.DataFrame, enum_n: pd.DataFrame, knap_z: pd.DataFrame) -> Verdict:
    """FR10: Algorithm 2 (the thesis's enumeration of budget splits) grows linearly in n and
    exponentially in Z. Headline: over the measured Z range an exponential fits the mean
    log-times better than a power law; details: the enumeration's power-law exponent exceeds the
    knapsack recurrence's (same trees) and the n slope's CI inside 0.5-1.5. Time is ``TIME``."""
    fits = growth_fits(enum_z["z"], enum_z[TIME])
    knap = loglog_slope(knap_z["z"], knap_z[TIME])
    enum_slope = loglog_slope(enum_z["z"], enum_z[TIME])
    n_slope = loglog_slope(enum_n["n"], enum_n[TIME])
    linear = bool(n_slope[1] >= LINEAR[0] and n_slope[2] <= LINEAR[1])
    return judge(
        {
            f"exponential in Z: residual {fits['exponential']:.3f} (exponential) < "
            f"{fits['power']:.3f} (power law)": fits["exponential"] < fits["power"]
        },
        {
            f"enumeration's Z exponent {ci_text(*enum_slope)} above the knapsack's "
            f"{ci_text(*knap)}": enum_slope[1] > knap[2],
            f"linear in n: slope {ci_text(*n_slope)} "
            f"{'inside' if linear else 'not inside'} {LINEAR[0]}-{LINEAR[1]}": linear,
        },
        paper_value="Algorithm 2 time grows linearly in n and exponentially in Z",
        reproduced=f"enumeration over Z = {enum_z['z'].min()}-{enum_z['z'].max()}: ~Z^"
        f"{fits['exponent']:.2f}; knapsack ~Z^{knap[0]:.2f}; slope in n {n_slope[0]:.2f}",
        rule="exponential fit of mean log-time over Z better than a power-law fit (residual "
        "sum of squares); enumeration's Z slope CI above the knapsack's; n slope CI inside "
        "0.5-1.5",
        evidence=EXECUTED,
    )


def fr11(runs: pd.DataFrame) -> Verdict:
    """FR11: RSRFS never raises RT above Algorithm 1's and never breaks CH_max. By construction:
    the step only accepts moves that lower RT within the budget."""
    raised = int((runs["RT_RSRFS"] > runs["RT_FastRecover"] * (1 + 1e-12)).sum())
    broken = int((runs["CH_RSRFS"] > runs["ch_max"] * (1 + 1e-9)).sum())
    gain = 100 * (1 - runs["RT_RSRFS"] / runs["RT_FastRecover"])
    return judge(
        {
            f"RT raised on {raised} of {len(runs)} chains": raised == 0,
            f"CH_max broken on {broken} of {len(runs)} chains": broken == 0,
        },
        paper_value="never raises RT above Algorithm 1's, never breaks the budget",
        reproduced=f"mean gain {gain.mean():.3f}%, max {gain.max():.2f}%, improves "
        f"{100 * (gain > 1e-9).mean():.0f}% of chains",
        rule="RT_RSRFS <= RT_Algorithm1·(1 + 1e-12) and CH <= CH_max·(1 + 1e-9) on every chain",
        when_holds=BY_CONSTRUCTION,
        evidence=EXECUTED,
    )


def sensitivity(runs: pd.DataFrame, settings: dict[tuple[str, str], pd.Series]) -> pd.DataFrame:
    """One row per (factor, value) setting: NSegments' infeasible share and FastRecover's mean
    per-topology reduction against each baseline, each with its 95% t CI. ``settings`` maps
    (factor, value label) to a boolean mask of ``runs`` selecting that setting's topologies."""
    rows = []
    for (factor, value), mask in settings.items():
        part = runs[mask]
        row = {"factor": factor, "value": value, "topologies": len(part)}
        infeasible = share_ci(~part["feasible_NSegments"].astype(bool))
        row["nsegments_infeasible_pct"] = infeasible[0]
        row["nsegments_infeasible_ci95_low"], row["nsegments_infeasible_ci95_high"] = infeasible[1:]
        for base in BASELINES:
            name = f"reduction_vs_{base.lower()}_pct"
            mean, lo, hi = mean_ci(reductions(part, base))
            row[name], row[f"{name}_ci95_low"], row[f"{name}_ci95_high"] = mean, lo, hi
        rows.append(row)
    return pd.DataFrame(rows)
