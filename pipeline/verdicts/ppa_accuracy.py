"""Rules of the PPA query-accuracy claims PPA6 (Fig 12) and PPA7 (Fig 13), data/paper/claims.csv.

Inputs are the frames of ``pipeline.jobs.ppa_queries``: ``random`` (one row per random plan: query,
R, OF, IC, accuracy) and ``plans`` (one row per planner and R: query, planner, R, OF, IC,
accuracy). Planners are compared on paired data: the same query and R. Only R from the number of
operators to |M| - 1 enters a comparison: below it SA returns the empty plan by design (ties at
0, reported separately by the notebook) and at |M| every plan is the whole topology.

Tolerances, fixed before looking at the data:
- "predicts" / "tracks": Spearman's ρ between the metric and accuracy over random plans, 95%
  bootstrap CI lower bound >= 0.5 (headline); a "good" prediction: lower bound >= 0.8 (detail);
- "IC does not track" (Q2): ρ(OF) - ρ(IC), paired bootstrap CI lower bound > 0 (headline) and
  ρ(IC)'s CI upper bound < 0.5 (detail); "accuracy close to OF" (Q2): mean |accuracy - OF|,
  CI upper bound <= 0.1 (detail);
- "OF-SA plans reach higher accuracy than IC-SA plans": mean paired accuracy difference over
  (query, R), 95% t CI lower bound > 0 (headline);
- "SA close to DP": mean paired gap DP - SA, CI upper bound <= 0.05, in OF (headline) and in
  accuracy (detail); "Greedy worst": mean paired SA - Greedy and DP - Greedy, CI lower bound > 0
  pooled over both queries in OF (headline), and per query and in accuracy (details).
"""

import numpy as np
import pandas as pd
from scipy import stats

from pipeline.scorecard import Verdict, ci_text, judge, mean_ci

PREDICTS = 0.5
GOOD = 0.8
CLOSE_TO_OF = 0.1
CLOSE_TO_DP = 0.05
QUERIES = ("Q1", "Q2")


def _rho(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman ρ along the last axis (average ranks for ties; NaN where either is constant),
    for many bootstrap resamples at once."""
    ra = stats.rankdata(a, axis=-1)
    rb = stats.rankdata(b, axis=-1)
    ra = ra - ra.mean(axis=-1, keepdims=True)
    rb = rb - rb.mean(axis=-1, keepdims=True)
    den = np.sqrt((ra**2).sum(axis=-1) * (rb**2).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (ra * rb).sum(axis=-1) / den, np.nan)


def rank_correlations(
    random: pd.DataFrame, rng: np.random.Generator, *, resamples: int = 2000
) -> pd.DataFrame:
    """Per query: Spearman ρ of OF and of IC with accuracy, and ρ(OF) - ρ(IC), each with a
    paired percentile bootstrap 95% CI over the random plans (the same resampled plans for all
    three); and mean |accuracy - OF| with its t CI."""
    rows = []
    for query, part in random.groupby("query"):
        of, ic, acc = (part[c].to_numpy(float) for c in ("OF", "IC", "accuracy"))
        row = {"query": query, "plans": len(part)}
        pick = rng.integers(0, len(part), size=(resamples, len(part)))
        rho_of, rho_ic = _rho(of, acc), _rho(ic, acc)
        boot_of, boot_ic = _rho(of[pick], acc[pick]), _rho(ic[pick], acc[pick])
        for name, value, boot in (
            ("rho_OF", rho_of, boot_of),
            ("rho_IC", rho_ic, boot_ic),
            ("rho_OF-rho_IC", rho_of - rho_ic, boot_of - boot_ic),
        ):
            lo, hi = (
                np.nanpercentile(boot, [2.5, 97.5]) if np.isfinite(boot).any() else (np.nan,) * 2
            )
            row.update({name: float(value), f"{name} lo": float(lo), f"{name} hi": float(hi)})
        row["|acc-OF|"], row["|acc-OF| lo"], row["|acc-OF| hi"] = mean_ci(np.abs(acc - of))
        rows.append(row)
    return pd.DataFrame(rows).set_index("query")


def paired(plans: pd.DataFrame, operators: dict, a: str, b: str, column: str) -> pd.DataFrame:
    """Rows (query, R, diff = column of planner a - of planner b) for R in [operators, |M|)."""
    parts = []
    for query, part in plans.groupby("query"):
        wide = part.pivot_table(index="R", columns="planner", values=column)
        wide = wide[(wide.index >= operators[query]) & (wide.index < wide.index.max())]
        parts.append(pd.DataFrame({"query": query, "R": wide.index, "diff": wide[a] - wide[b]}))
    return pd.concat(parts, ignore_index=True)


def conclusions(
    random: pd.DataFrame,
    plans: pd.DataFrame,
    operators: dict,
    rng: np.random.Generator,
    *,
    resamples: int = 2000,
) -> pd.DataFrame:
    """Per query, the numbers PPA6 and PPA7 are judged on (for sensitivity tables): ρ(OF, acc)
    and ρ(IC, acc) with their bootstrap CIs, mean |accuracy - OF|, and the mean paired
    differences over R in [operators, |M|) of OF-SA - IC-SA accuracy, DP - SA and SA - Greedy
    in OF and in accuracy. ``resamples``: bootstrap resamples of the ρ CIs."""
    rho = rank_correlations(random, rng, resamples=resamples)
    columns = ["rho_OF", "rho_OF lo", "rho_IC", "rho_IC lo", "rho_IC hi", "|acc-OF|"]
    out = rho[columns].copy()
    for name, (a, b, column) in {
        "acc OF-SA - IC-SA": ("OF-SA", "IC-SA", "accuracy"),
        "OF DP - SA": ("DP", "OF-SA", "OF"),
        "acc DP - SA": ("DP", "OF-SA", "accuracy"),
        "OF SA - Greedy": ("OF-SA", "Greedy", "OF"),
        "acc SA - Greedy": ("OF-SA", "Greedy", "accuracy"),
    }.items():
        out[name] = paired(plans, operators, a, b, column).groupby("query")["diff"].mean()
    return out


def _diff_text(d: pd.DataFrame) -> tuple[float, float, float, str]:
    mean, lo, hi = mean_ci(d["diff"])
    return mean, lo, hi, f"{ci_text(mean, lo, hi)} over {len(d)} (query, R)"


def ppa6(random: pd.DataFrame, plans: pd.DataFrame, operators: dict, rng) -> Verdict:
    """PPA6: OF and IC both predict Q1's accuracy; for Q2 OF tracks it and IC does not; OF-SA
    plans reach higher accuracy than IC-SA plans."""
    rho = rank_correlations(random, rng)
    head, detail = {}, {}
    for query, metrics in (("Q1", ("OF", "IC")), ("Q2", ("OF",))):
        for m in metrics:
            r = rho.loc[query]
            lo = r[f"rho_{m} lo"]
            text = ci_text(r[f"rho_{m}"], lo, r[f"rho_{m} hi"])
            head[f"{query}: ρ({m}, accuracy) {text}, CI lower >= {PREDICTS}"] = lo >= PREDICTS
            detail[f"{query}: ρ({m}, accuracy) CI lower {lo:.3g} >= {GOOD} (good)"] = lo >= GOOD
    q2 = rho.loc["Q2"]
    gap = ci_text(q2["rho_OF-rho_IC"], q2["rho_OF-rho_IC lo"], q2["rho_OF-rho_IC hi"])
    head[f"Q2: ρ(OF) - ρ(IC) {gap}, CI lower > 0"] = q2["rho_OF-rho_IC lo"] > 0
    ic = ci_text(q2["rho_IC"], q2["rho_IC lo"], q2["rho_IC hi"])
    detail[f"Q2: ρ(IC, accuracy) {ic}, CI upper < {PREDICTS} (IC does not track)"] = (
        q2["rho_IC hi"] < PREDICTS
    )
    close = ci_text(q2["|acc-OF|"], q2["|acc-OF| lo"], q2["|acc-OF| hi"])
    detail[f"Q2: mean |accuracy - OF| {close}, CI upper <= {CLOSE_TO_OF}"] = (
        q2["|acc-OF| hi"] <= CLOSE_TO_OF
    )
    d = paired(plans, operators, "OF-SA", "IC-SA", "accuracy")
    mean, lo, _, text = _diff_text(d)
    differ = int((d["diff"].abs() > 1e-12).sum())
    head[f"accuracy OF-SA - IC-SA {text} ({differ} differ), CI lower > 0"] = lo > 0
    return judge(
        head,
        detail,
        paper_value="Q1: OF and IC both predict accuracy; Q2: OF tracks it, IC does not; "
        "OF-SA more accurate than IC-SA",
        reproduced=f"ρ(OF, acc) Q1 {rho.loc['Q1', 'rho_OF']:.3g}, Q2 {q2['rho_OF']:.3g}; "
        f"ρ(IC, acc) Q1 {rho.loc['Q1', 'rho_IC']:.3g}, Q2 {q2['rho_IC']:.3g}; "
        f"OF-SA - IC-SA accuracy {mean:.3g}",
        rule=f"Spearman ρ over random plans (bootstrap 95% CI): lower >= {PREDICTS} predicts, "
        f">= {GOOD} good; Q2: ρ(OF) - ρ(IC) CI > 0, ρ(IC) CI upper < {PREDICTS}, mean "
        f"|acc - OF| CI upper <= {CLOSE_TO_OF}; paired OF-SA - IC-SA accuracy over R in "
        "[operators, |M|) CI > 0",
    )


def ppa7(plans: pd.DataFrame, operators: dict) -> Verdict:
    """PPA7: SA is close to DP in OF and accuracy; Greedy is worst (both queries)."""
    head, detail, shown = {}, {}, []
    for column, conditions in (("OF", head), ("accuracy", detail)):
        d = paired(plans, operators, "DP", "OF-SA", column)
        mean, lo, hi, text = _diff_text(d)
        conditions[f"{column} DP - SA {text}, CI upper <= {CLOSE_TO_DP}"] = hi <= CLOSE_TO_DP
        shown.append(f"{column}: DP - SA {mean:.3g}")
        for better in ("OF-SA", "DP"):
            d = paired(plans, operators, better, "Greedy", column)
            mean, lo, hi, text = _diff_text(d)
            name = "SA" if better == "OF-SA" else better
            conditions[f"{column} {name} - Greedy {text}, CI lower > 0"] = lo > 0
            shown.append(f"{name} - Greedy {mean:.3g}")
            for query in QUERIES:
                q = d[d["query"] == query]
                qmean, qlo, _, qtext = _diff_text(q)
                detail[f"{query} {column} {name} - Greedy {qtext}, CI lower > 0"] = qlo > 0
    return judge(
        head,
        detail,
        paper_value="SA close to DP in OF and accuracy; Greedy worst on both queries",
        reproduced="; ".join(shown),
        rule=f"paired over (query, R in [operators, |M|)): mean DP - SA CI upper <= "
        f"{CLOSE_TO_DP} (OF headline, accuracy detail); mean SA - Greedy and DP - Greedy CI "
        "lower > 0 (OF pooled headline; per query and accuracy details)",
    )
