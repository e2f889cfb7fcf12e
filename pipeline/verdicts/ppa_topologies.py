"""Rules of the PPA random-topology claims PPA8 and PPA9 (Fig 14, data/paper/claims.csv).

Each takes the rows of ``ppa.experiments.fig14_point`` (one row per random topology, spec and
active replication ratio; ``iteration`` the topology index: the sweep uses common random numbers,
and SA and Greedy plan the same topology at every ratio) and returns a Verdict. A panel is the
line of specs that vary one factor around ``base`` (``panel``).

Tolerances, fixed before the data:
- "beats": the 95% t CI of the mean paired difference OF_SA - OF_Greedy lies above 0;
- "close" (full topologies): that CI lies within ±0.05 OF;
- "up to an order of magnitude when few tasks can be replicated": some setting with ratio
  <= 0.3 (and at least 10 topologies) has a ratio of mean OFs SA / Greedy of at least 5 (10
  within a factor 2) with a paired bootstrap 95% CI above 1. (Revised from "the largest ratio's
  CI reaching 5" before the full run: where Greedy's mean is near 0 that upper bound is
  unbounded, so the test could not fail.)
- trends (PPA9): the paired change from the first to the last value of a panel, each topology's
  OF averaged over the ratios, has a 95% CI on the claimed side of 0 (``scorecard.trend``).
"""

import dataclasses

import numpy as np
import pandas as pd

from pipeline.scorecard import (
    EXECUTED,
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

FACTORS = {
    "workload": ("workload",),
    "parallelism": ("parallelism_lo", "parallelism_hi"),
    "structure": ("structure",),
    "joins": ("join_fraction",),
}
COLUMNS = ["workload", "parallelism", "structure", "join_fraction"]  # of a spec, in its label
CLOSE = 0.05
FEW = 0.3
MAGNITUDE = 5.0
MIN_TOPOLOGIES = 10  # a setting's SA / Greedy ratio is judged on at least this many topologies
PACKAGE, PRINTED = "package", "printed"
# PPA8's open choice: SA as the package runs Algorithm 5 or as printed (the two deviations of
# ppa.planners.structure_aware); the rows carry both (of_sa, of_sa_printed).
ALG5 = Assumption(
    "alg5",
    PACKAGE,
    (PRINTED,),
    source="Algorithm 5 as printed (a full sub-topology's expansion adds N_i tasks; the BFS of "
    "Alg 3 visits every unit) against the package's reading (one task per expansion; the BFS "
    "stops at a unit without a connected segment): ppa.planners.structure_aware's docstring",
    label="Structure-Aware (Alg 5)",
)


# PPA8's other open choices: reconstructions of what the paper leaves undefined (Figs 3-4, which
# define units and sub-topologies, are lost; Alg 5 line 7's R_i is undefined). Each has a
# plausible range (``alternatives``), but no alternative is implemented, so none is re-judged:
# ``ppa8_both_ways`` names them in its reason beside the verdict at the package's choices
# (ppa.planners.structure_aware's docstring documents the package's choice of each).
UNVARIED = (
    Assumption(
        "budget_reading",
        "N_i",
        ("R - usage", "R_i = N_i / |P| of R"),
        source="Alg 5 line 7 PlanSubTopology(∅, R_i, TS_i): R_i is not defined; read as N_i "
        "(one segment per sub-topology at the start, so SA must replicate O1.1 in the printed "
        "example), or the remaining budget, or a share of R",
        label="Alg 5 line 7's budget R_i",
    ),
    Assumption(
        "decomposition",
        "components of non-full edges",
        ("one sub-topology per operator group between full edges", "the whole topology"),
        source="IV-C3's sub-topologies (Fig 4 lost): the connected components of the non-full "
        "edges, or finer groups split at every full edge, or no decomposition",
        label="sub-topology decomposition",
    ),
    Assumption(
        "evaluation",
        "independent (others alive)",
        ("joint (the current plan elsewhere)",),
        source="'the selection of the replication segments in the sub-topologies independent "
        "from each other': OF_P with every task outside alive, or with the plan chosen so far",
        label="sub-topology evaluation",
    ),
    Assumption(
        "stop",
        "first non-improving expansion",
        ("best expansion while budget remains",),
        source="Alg 5 stops at the first expansion that does not raise the objective; the text "
        "also allows spending the whole budget",
        label="Alg 5's stop",
    ),
)


def prepare(runs: pd.DataFrame) -> pd.DataFrame:
    """Rows with the derived columns the rules use: a spec label, gain = OF_SA - OF_Greedy,
    zipf and full as 0/1, the parallelism range's midpoint."""
    out = runs.copy()
    out["gain"] = out["of_sa"] - out["of_greedy"]
    out["zipf"] = (out["workload"] == "zipf").astype(int)
    out["full"] = (out["structure"] == "full").astype(int)
    out["parallelism"] = out["parallelism_lo"].astype(str) + "-" + out["parallelism_hi"].astype(str)
    out["parallelism_mean"] = (out["parallelism_lo"] + out["parallelism_hi"]) / 2
    out["spec"] = (
        out["workload"]
        + ", parallelism "
        + out["parallelism"]
        + ", "
        + out["structure"]
        + ", "
        + (100 * out["join_fraction"]).round().astype(int).astype(str)
        + "% joins"
    )
    return out


def panel(runs: pd.DataFrame, factor: str, base: dict) -> pd.DataFrame:
    """The rows of the specs that differ from ``base`` in ``factor`` alone (a Fig 14 panel)."""
    keep = pd.Series(True, index=runs.index)
    for other, columns in FACTORS.items():
        if other != factor:
            for column in columns:
                keep &= runs[column] == base[column]
    return runs[keep]


def settings(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (spec, ratio): topologies, clamped share, mean OF of SA and Greedy and their
    paired difference with 95% t CIs, the share of topologies where SA is below Greedy."""
    rows = []
    frame = prepare(runs)
    for (spec, ratio), part in frame.groupby(["spec", "ratio"], sort=True):
        row = {"spec": spec, **part[COLUMNS].iloc[0].to_dict(), "ratio": ratio}
        row["topologies"] = len(part)
        row["clamped_pct"] = 100 * float(part["clamped"].mean())
        for name, column in (("sa", "of_sa"), ("greedy", "of_greedy"), ("gain", "gain")):
            row[name], row[f"{name}_lo"], row[f"{name}_hi"] = mean_ci(part[column])
        row["sa_below_pct"] = share_ci(part["gain"] < -1e-12)[0]
        rows.append(row)
    return pd.DataFrame(rows)


def _where(row) -> str:
    gain = ci_text(row["gain"], row["gain_lo"], row["gain_hi"])
    return f"{row['spec']}, ratio {row['ratio']:g}: {gain}"


def _close_on_full(table: pd.DataFrame) -> dict:
    full = table[table["structure"] == "full"]
    far = full[(full["gain_lo"] < -CLOSE) | (full["gain_hi"] > CLOSE)]
    text = "; ".join(_where(r) for _, r in far.head(3).iterrows())
    key = (
        f"full topologies close: gain CI within ±{CLOSE:g} at {len(full) - len(far)} of "
        f"{len(full)} settings" + (f" (outside: {text})" if text else "")
    )
    return {key: far.empty and not full.empty}


def _ratio_ci(part: pd.DataFrame, rng: np.random.Generator) -> tuple[float, float, float]:
    """Mean OF_SA / mean OF_Greedy of one setting with its paired bootstrap 95% CI.

    The bootstrap runs on the inverse, mean OF_Greedy / mean OF_SA, which stays finite when a
    resample's Greedy mean is 0; a percentile CI maps through 1/x (monotone) unchanged. When
    Greedy is 0 on every topology: [inf, inf] if SA's mean has a t CI above 0, else a NaN lower
    bound."""
    if not part["of_greedy"].any():
        sure = mean_ci(part["of_sa"])[1] > 0
        return np.inf, np.inf if sure else np.nan, np.inf
    with np.errstate(divide="ignore"):
        inverse, lo, hi = bootstrap_ci(
            lambda greedy, sa: np.mean(greedy) / max(np.mean(sa), 1e-300),
            [part["of_greedy"], part["of_sa"]],
            rng=rng,
        )
        return tuple(float(np.divide(1.0, x)) for x in (inverse, hi, lo))


def magnitude(runs: pd.DataFrame, rng: np.random.Generator) -> tuple[str, float, float, float]:
    """Among the settings with ratio <= FEW (SA's mean OF > 0, at least MIN_TOPOLOGIES
    topologies), the one of largest mean OF_SA / mean OF_Greedy among those meeting the rule (at
    least MAGNITUDE, CI above 1), else the one of largest ratio; its ratio and paired bootstrap
    95% CI (``_ratio_ci``)."""
    frame = prepare(runs)
    few = frame[frame["ratio"] <= FEW + 1e-9]
    found = []
    for (spec, ratio), part in few.groupby(["spec", "ratio"], sort=True):
        if part["of_sa"].mean() > 0 and len(part) >= MIN_TOPOLOGIES:
            value, lo, hi = _ratio_ci(part, rng)
            meets = bool(value >= MAGNITUDE and lo > 1)
            found.append(((meets, value), (f"{spec}, ratio {ratio:g}", value, lo, hi)))
    if not found:
        return "none", np.nan, np.nan, np.nan
    return max(found, key=lambda f: f[0])[1]


def ppa8(runs: pd.DataFrame, rng: np.random.Generator, *, alg5: str = PACKAGE) -> Verdict:
    """PPA8: SA beats Greedy at every setting, by up to an order of magnitude when few tasks can
    be replicated; on full topologies the two are close. Headline: at every structured setting
    the paired gain's CI lies above 0, and at no full setting below 0; details: full settings
    close, a low-ratio SA / Greedy ratio of at least MAGNITUDE. ``alg5``: judge SA as the package
    runs it (``of_sa``) or as printed (``of_sa_printed``); judge it both ways with
    ``robust(lambda alg5: ppa8(runs, rng, alg5=alg5), [ALG5])``. The reason states the share of
    topologies whose R was raised to the number of operators at the smallest ratio."""
    if alg5 not in (PACKAGE, PRINTED):
        raise ValueError(f"alg5 must be {PACKAGE!r} or {PRINTED!r}; got {alg5!r}")
    if alg5 == PRINTED:
        runs = runs.assign(of_sa=runs["of_sa_printed"])
    table = settings(runs)
    structured = table[table["structure"] != "full"]
    full = table[table["structure"] == "full"]
    below = table[table["gain_hi"] < 0]
    not_above = structured[structured["gain_lo"] <= 0]
    full_below = full[full["gain_hi"] < 0]
    worst = structured.loc[structured["gain"].idxmin()] if len(structured) else None
    head = {
        f"SA above Greedy (gain CI > 0) at {len(structured) - len(not_above)} of "
        f"{len(structured)} structured settings (below, CI < 0, at "
        f"{len(below) - len(full_below)}"
        + (
            f"; the worst {_where(worst)})" if len(below) > len(full_below) else ")"
        ): not_above.empty and not structured.empty,
        f"SA not below Greedy (gain CI < 0) on full topologies: below at {len(full_below)} of "
        f"{len(full)} full settings": full_below.empty,
    }
    where, value, lo, hi = magnitude(runs, rng)
    detail = {
        **_close_on_full(table),
        f"order of magnitude with few replicas: best SA/Greedy at ratio <= {FEW:g} is "
        f"{ci_text(value, lo, hi)} ({where}), at least {MAGNITUDE:g} with CI > 1": bool(
            value >= MAGNITUDE and lo > 1
        ),
    }
    below_share = 100 * float((prepare(runs)["gain"] < -1e-12).mean())
    smallest = runs["ratio"].min()
    clamped = 100 * float(runs.loc[runs["ratio"] == smallest, "clamped"].astype(bool).mean())
    verdict = judge(
        head,
        detail,
        paper_value="SA beats Greedy at every setting, up to 10x with few replicas; close on "
        "full topologies",
        reproduced=f"gain CI > 0 at {len(structured) - len(not_above)}/{len(structured)} "
        f"structured settings, < 0 at {len(below)}/{len(table)} settings; SA below Greedy on "
        f"{below_share:.0f}% of (topology, ratio) pairs; best low-ratio SA/Greedy "
        f"{value:.3g}",
        rule=f"paired gain OF_SA - OF_Greedy per (spec, ratio), 95% t CI: > 0 at every "
        f"structured setting and not < 0 on full (headline); within ±{CLOSE:g} on full; the "
        f"SA/Greedy ratio of means of some setting at ratio <= {FEW:g} at least {MAGNITUDE:g}, its "
        f"bootstrap CI above 1",
        evidence=EXECUTED,
    )
    return dataclasses.replace(
        verdict,
        reason=f"SA as {'printed' if alg5 == PRINTED else 'the package runs it'}; at ratio "
        f"{smallest:g}, R was raised to the number of operators on {clamped:.0f}% of the "
        f"topologies (those settings compare the planners at R = operators). {verdict.reason}",
    )


def ppa8_both_ways(runs: pd.DataFrame, seed: int, unvaried=UNVARIED) -> Verdict:
    """PPA8 through ``robust`` over ``ALG5``: SA as the package runs it and as printed, on the
    same topologies, each with a fresh bootstrap generator from ``seed`` (common random
    numbers); ``depends`` when the two disagree, else the rule's own word (reproduced, partly or
    not reproduced), so the claim can fail. ``unvaried`` reconstructions (open choices no
    implementation here varies) are named in the reason as not re-judged: the verdict holds at
    the package's choice of each."""
    verdict = robust(lambda alg5: ppa8(runs, np.random.default_rng(seed), alg5=alg5), [ALG5])
    if not unvaried:
        return verdict
    choices = "; ".join(
        f"{a.title}: {a.default!r} (also plausible: {', '.join(map(repr, a.alternatives))}; "
        f"{a.source})"
        for a in unvaried
    )
    return dataclasses.replace(
        verdict,
        reason=f"{verdict.reason}. Not re-judged (no implementation here varies them; the "
        f"verdict holds at the package's choice of each): {choices}",
    )


PPA9_LINES = {
    # factor: (x column, y column of the headline, direction, words)
    "workload": ("zipf", "gain", +1, "SA's gain over Greedy grows from uniform to Zipf"),
    "parallelism": ("parallelism_mean", "of_sa", +1, "OF rises with parallelism"),
    "structure": ("full", "of_sa", -1, "OF falls from structured to full"),
    "joins": ("join_fraction", "of_sa", -1, "OF falls with more joins"),
}


def ppa9(runs: pd.DataFrame, base: dict) -> Verdict:
    """PPA9, one trend per panel on paired topologies (each topology's value averaged over the
    ratios): SA's gain rises with Zipf workloads; SA's OF rises with parallelism, falls from
    structured to full and with joins (headline); Greedy's OF the same way, no step reversed,
    and SA and Greedy close on full topologies (details)."""
    frame = prepare(runs)
    head, detail, shown = {}, {}, []
    for factor, (x, y, direction, words) in PPA9_LINES.items():
        line = panel(frame, factor, base)
        t = trend(line, x, y, direction)
        h, d = trend_conditions(f"{factor}: {y} over {x}", t, claimed=words)
        head.update(h)
        detail.update(d)
        shown.append(f"{factor} {y}: {t.text()}")
        if y == "of_sa":
            g = trend(line, x, "of_greedy", direction)
            h, d = trend_conditions(f"{factor}: of_greedy over {x}", g, claimed=words)
            detail.update(h)
            detail.update(d)
            shown.append(f"{factor} of_greedy: {g.text()}")
    detail.update(_close_on_full(settings(panel(runs, "structure", base))))
    return judge(
        head,
        detail,
        paper_value="SA gains more with Zipf; OF rises with parallelism; structured above full "
        "(SA close to Greedy there); more joins lower OF",
        reproduced="; ".join(shown),
        rule="per panel, 95% CI of the paired change from the first to the last value (each "
        "topology's value averaged over the ratios) on the claimed side of 0: SA's gain "
        "(workload), SA's OF (parallelism, structure, joins) headline; Greedy's OF, no step "
        f"significantly reversed and full gain CI within ±{CLOSE:g} details",
        evidence=EXECUTED,
    )


def milp_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (spec, ratio) of a MILP sweep: the share of small topologies whose MILP finished
    (Wilson CI) and, on those, mean OF of Greedy, SA and the optimum."""
    frame = prepare(runs)
    rows = []
    for (spec, ratio), part in frame[frame["milp_tried"]].groupby(["spec", "ratio"]):
        done = part[part["of_milp"].notna()]
        finished = share_ci(part["of_milp"].notna())
        rows.append(
            {
                "spec": spec,
                "ratio": ratio,
                "tried": len(part),
                "finished_pct": finished[0],
                "finished_lo": finished[1],
                "finished_hi": finished[2],
                "greedy": done["of_greedy"].mean(),
                "sa": done["of_sa"].mean(),
                "milp": done["of_milp"].mean(),
                "sa_below_greedy": int((done["gain"] < -1e-12).sum()),
            }
        )
    return pd.DataFrame(rows)
