"""Sensitivity and decision map of ``cross_correlated``'s headline: one correlated failure of k
nodes, every scheme of ``crosspaper.correlated`` on the same draws, re-run on variants of the
scenario (failure rates, capacity headroom, checkpoint cost) and node acquisition delays.

The decision a practitioner takes from it (``decide``): the scheme with the lowest normal-time
cost whose time to full output after the failure meets the scenario's per-recovery limit
``qos.recovery_s`` in its worst recovery (``correlated.worst_full_s``: the worst of every k-node
set, or of a fixed sample of ``recovery.MAX_NODE_SETS`` of them where there are more, with the
failure at the worst moment, 3 s before the next checkpoint; not the mean: rev20c #4, rev20e
#1). Normal-time cost = replica CPU share + checkpoint overhead (both shares of the job's CPU,
``correlated.normal_costs``); ties broken by less exact output lost, then less buffered KB
(memory); schemes tied on all three are named together. A checkpoint scheme that misses the
limit at its utilization optimum competes at its setting that meets it too (blocking every T s,
multilevel every T s with a remote checkpoint every m-th: ``qos_intervals``). Where no scheme
meets the limit, the decision is "none" and the fastest scheme is named.

Factors (each a plain multiplier of the scenario's value, 1 = as given):
- ``rate_factor``: single_per_day and correlated_per_day (moves multilevel's optimum T*, p*);
- ``headroom_factor``: the spare capacity catch_up_rate - input_rate (the catch-up speed),
  ``scenarios.with_headroom``: the one definition of the cross notebooks (±30% = x0.7 to x1.3);
- ``cost_factor``: local_cost_s and remote_cost_s (checkpoint overhead, multilevel's optimum);
- ``delay_factor``: the node acquisition delays (0: standby nodes ready at detection), as in
  ``correlated.correlated_point``;
- ``blocked_factor``: the share of each scheme's checkpoint overhead that blocks processing
  during a catch-up (``correlated.catch_up_jobs``): 1 the blocking reading of the checkpoint
  cost (the cross notebooks' default), 0 the async reading (rev20d #1), in [0, 1].
"""

import math
from functools import cache

import numpy as np
import pandas as pd

from crosspaper import correlated as cc
from crosspaper import scenarios

FACTORS = ("rate_factor", "headroom_factor", "cost_factor", "delay_factor", "blocked_factor")
NONE = "none"  # the decision when no scheme meets the recovery limit
NO_CORRELATED = "no correlated failures"  # the decision where correlated_per_day = 0
TIE_RTOL = 1e-6  # schemes closer than this in cost, loss and buffer are tied (named together)


def _factor(params: dict, name: str) -> float:
    """params[name] (default 1): a finite number > 0 (delay_factor: >= 0; blocked_factor: in
    [0, 1])."""
    value = params.get(name, 1.0)
    zero_ok = name in ("delay_factor", "blocked_factor")
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not (value >= 0 if zero_ok else value > 0)
        or (name == "blocked_factor" and value > 1)
    ):
        bound = "in [0, 1]" if name == "blocked_factor" else ">= 0" if zero_ok else "> 0"
        raise ValueError(f"{name} must be a finite number {bound}; got {value!r}")
    return float(value)


@cache  # every draw of a sensitivity point asks for it (the file read and parsed again)
def variant(name, rate_factor=1.0, headroom_factor=1.0, cost_factor=1.0) -> scenarios.Scenario:
    """Scenario ``name`` (a name, path or Scenario) with its failure rates x rate_factor, its
    spare capacity (catch_up_rate - input_rate) x headroom_factor (``scenarios.with_headroom``)
    and its checkpoint costs x cost_factor (each > 0); remembered per process."""
    given = dict(rate_factor=rate_factor, headroom_factor=headroom_factor, cost_factor=cost_factor)
    rate, headroom, cost = (_factor(given, k) for k in FACTORS[:3])
    s = scenarios.with_headroom(scenarios.load(name), headroom)  # the one definition
    if (rate, cost) == (1.0, 1.0):
        return s
    f, c = s.failures, s.checkpoint
    return scenarios.with_values(
        s,
        {
            "failures.process_per_day": f.process_per_day * rate,
            "failures.single_per_day": f.single_per_day * rate,
            "failures.correlated_per_day": f.correlated_per_day * rate,
            "checkpoint.local_cost_s": c.local_cost_s * cost,
            "checkpoint.remote_cost_s": c.remote_cost_s * cost,
        },
        source=f"sensitivity: rate x{rate:g}, checkpoint cost x{cost:g}",
    )


def sensitivity_point(params: dict, rng: np.random.Generator) -> list[dict]:
    """Sweep function: ``correlated.correlated_point`` on ``variant(scenario, rate_factor,
    headroom_factor, cost_factor)`` with ``k``, ``delay_factor``, ``horizon_s``, ``step_s``;
    the summary rows only (one per scheme and draw). With the sweep's common random numbers,
    every point sees the same failure, arrivals and checkpoint phases."""
    for name in ("scenario", "k", "delay_factor", "horizon_s", "step_s"):
        if name not in params:
            raise ValueError(f"params must give {name!r}")
    s = variant(params["scenario"], *(_factor(params, k) for k in FACTORS[:3]))
    point = {
        "scenario": s,
        "k": params["k"],
        "delay_factor": _factor(params, "delay_factor"),
        "blocked_factor": _factor(params, "blocked_factor"),
        "horizon_s": params["horizon_s"],
        "step_s": params["step_s"],
        "engine": False,
        "engine_rate": 1.0,
    }
    # the worst recovery (the QoS): over every k-node set at the QoS load, once per point
    worst = cc.worst_full_s(s, point["k"], point["delay_factor"], point["blocked_factor"])
    return [
        {
            key: row[key] if key != "worst_full_s" else worst[row["scheme"]]
            for key in (
                "scheme",
                "lost_output_s",
                "exact_lost_s",
                "t90_s",
                "t_full_s",
                "worst_full_s",
            )
        }
        for row in cc.correlated_point(point, rng)
        if row["kind"] == cc.SUMMARY
    ]


def costs(name: str, grid: list[dict]) -> pd.DataFrame:
    """``correlated.normal_costs`` of each distinct scenario variant in ``grid`` (its factor
    columns), with ``normal_cost`` = replica_cpu_share + checkpoint_overhead."""
    frames = []
    keys = sorted({tuple(p.get(k, 1.0) for k in FACTORS[:3]) for p in grid})
    for key in keys:
        frame = cc.normal_costs(variant(name, *key))
        frames.append(frame.assign(**dict(zip(FACTORS[:3], key, strict=True))))
    out = pd.concat(frames, ignore_index=True)
    out["normal_cost"] = out["replica_cpu_share"] + out["checkpoint_overhead"]
    return out


def qos_intervals(name: str, grid: list[dict], limit_s: float) -> pd.DataFrame:
    """Per distinct point of ``grid`` (factor columns and k) and checkpoint scheme: blocking at
    the interval meeting ``limit_s`` in its worst recovery (correlated.blocking_at_qos, rev20f
    #1) and multilevel at the two-level setting meeting it (correlated.multilevel_at_qos, issue
    20 HIGH 1): ``qos_interval_s`` (T), ``qos_remote_every`` (m: a remote checkpoint every m-th,
    1 for blocking), ``qos_worst_full_s`` and ``qos_overhead`` (its cost), NaN where no
    setting meets it."""
    rows, seen = [], set()
    for p in grid:
        key = (*(float(p.get(k, 1.0)) for k in FACTORS), int(p["k"]))
        if key in seen:
            continue
        seen.add(key)
        s = variant(name, *key[:3])
        for scheme, at_qos in (
            ("blocking", cc.blocking_at_qos),
            ("multilevel", cc.multilevel_at_qos),
        ):
            found = at_qos(s, key[-1], key[3], key[4], limit_s) or {}
            rows.append(
                {
                    **dict(zip([*FACTORS, "k"], key, strict=True)),
                    "scheme": scheme,
                    "qos_interval_s": found.get("interval_s", math.nan),
                    "qos_remote_every": found.get("remote_every", math.nan),
                    "qos_worst_full_s": found.get("worst_full_s", math.nan),
                    "qos_overhead": found.get("checkpoint_overhead", math.nan),
                }
            )
    return pd.DataFrame(rows)


def at_interval(interval_s: float, remote_every: int = 1) -> str:
    """The decision naming a checkpoint scheme at its QoS setting (qos_intervals): "blocking
    every <T> s" (``remote_every`` 1), "multilevel every <T> s, remote every <m T> s"."""
    if remote_every == 1:
        return f"blocking every {interval_s:.0f} s"
    return f"multilevel every {interval_s:.0f} s, remote every {remote_every * interval_s:.0f} s"


def decide(
    runs: pd.DataFrame,
    normal: pd.DataFrame,
    limit_s: float,
    correlated_per_day: float = 1.0,
    qos: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Per point (the factor columns and k): each scheme's mean lost output and time to full
    output over draws, its normal-time cost, whether it meets ``limit_s`` in its worst
    recovery (``worst_full_s``, correlated.worst_full_s: the worst over every k-node set (a fixed
    sample of recovery.MAX_NODE_SETS where there are more), every node at the acquisition law's
    upper end, the failure at the worst moment, at the QoS load, as cross_frontier and
    cross_interval judge the QoS; rev20e #0, #1), and the decision: the cheapest scheme that
    meets it (ties: less exact output lost, ``exact_lost_s``: PPA's tentative credit never
    decides; then less buffered KB), ``NONE`` if none does. Schemes still tied on all three are
    named together, "blocking = multilevel" (order of ``correlated.SCHEMES``), so the decision
    never depends on row order (at p1* = 0 multilevel is blocking at the same interval).
    ``fastest`` and ``least_lost`` name the other extremes. A scenario without correlated
    failures (``correlated_per_day`` = 0; the rate factors keep it 0) has no correlated
    decision: NO_CORRELATED at every point. ``qos`` (qos_intervals): where blocking or
    multilevel misses the limit at its utilization optimum, it competes too at its QoS setting,
    at that setting's normal cost (decision ``at_interval(T, m)``: blocking every T s, rev20f
    #1; multilevel every T s, remote every m T s, issue 20 HIGH 1; its draws are not run, so it
    loses every tie on output lost); the blocking and multilevel rows carry the qos_* columns."""
    if not (isinstance(limit_s, int | float) and limit_s > 0):
        raise ValueError(f"limit_s must be a number > 0; got {limit_s!r}")
    if not (isinstance(correlated_per_day, int | float) and correlated_per_day >= 0):
        raise ValueError(f"correlated_per_day must be a number >= 0; got {correlated_per_day!r}")
    keys = [*FACTORS, "k"]
    means = runs.groupby([*keys, "scheme"], as_index=False)[
        ["lost_output_s", "exact_lost_s", "t90_s", "t_full_s"]
    ].mean()
    means = means.merge(
        normal[[*FACTORS[:3], "scheme", "normal_cost", "replica_cpu_nodes", "buffer_kb"]],
        on=[*FACTORS[:3], "scheme"],
    )
    # the limit bounds the worst recovery (rev20c #4, rev20e #1): worst_full_s is the same in
    # every draw (every node set, no draw); the mean stays a column
    worst = runs.groupby([*keys, "scheme"], as_index=False)["worst_full_s"].max()
    means = means.merge(worst, on=[*keys, "scheme"])
    means["meets_qos"] = means["worst_full_s"] <= limit_s
    if qos is not None:
        means = means.merge(qos, on=[*keys, "scheme"], how="left")
    rows = []
    for key, g in means.groupby(keys, sort=False):
        ranks = ["normal_cost", "exact_lost_s", "buffer_kb"]
        ok = g[g["meets_qos"]]
        # a checkpoint scheme missing the limit at its optimum competes at its QoS setting
        missed = g[~g["meets_qos"] & g["scheme"].isin(["blocking", "multilevel"])]
        for at in missed.itertuples() if qos is not None else ():
            if math.isfinite(at.qos_interval_s):
                extra = {
                    "scheme": at_interval(at.qos_interval_s, int(at.qos_remote_every)),
                    "normal_cost": at.qos_overhead,
                }
                extra.update(exact_lost_s=math.inf, buffer_kb=math.inf)
                ok = pd.concat([ok, pd.DataFrame([extra])], ignore_index=True)
        ok = ok.sort_values(ranks, kind="stable")
        first = ok[ranks].iloc[:1].to_numpy()
        # equal to the optimizer's precision (multilevel's T* and the remote-only optimum differ
        # in the 8th digit where both are p1 = 0)
        close = np.isclose(ok[ranks], first, rtol=TIE_RTOL, atol=1e-9).all(axis=1)
        tied = ok[close] if len(ok) else ok
        order = {s: i for i, s in enumerate(cc.SCHEMES)}
        named = sorted(tied["scheme"], key=lambda s: (order.get(s, len(order)), s))
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                "decision": NO_CORRELATED
                if correlated_per_day == 0
                else " = ".join(named)
                if len(ok)
                else NONE,
                "fastest": g.loc[g["t_full_s"].idxmin(), "scheme"],
                "least_lost": g.loc[g["exact_lost_s"].idxmin(), "scheme"],
            }
        )
    return means.merge(pd.DataFrame(rows), on=keys)


def one_at_a_time(base: dict, ranges: dict[str, list[float]]) -> list[dict]:
    """Grid points: ``base`` (every factor 1 unless given) and, per factor in ``ranges``,
    ``base`` with that factor at each listed value; ``varied`` names it ("baseline")."""
    for name in ranges:
        if name not in FACTORS:
            raise ValueError(f"ranges must name factors among {FACTORS}; got {name!r}")
    start = {**dict.fromkeys(FACTORS, 1.0), **base}
    points = [{**start, "varied": "baseline", "value": 1.0}]
    for name, values in ranges.items():
        points += [
            {**start, name: float(v), "varied": name, "value": float(v)}
            for v in values
            if v != start[name]
        ]
    return points


def map_grid(base: dict, rate_factors, headroom_factors) -> list[dict]:
    """Grid points of the decision map: ``base`` at every (rate_factor, headroom_factor)."""
    start = {**dict.fromkeys(FACTORS, 1.0), **base}
    return [
        {**start, "rate_factor": float(r), "headroom_factor": float(h)}
        for r in rate_factors
        for h in headroom_factors
    ]


def sweep_points(*grids: list[dict]) -> list[dict]:
    """The distinct sweep parameters of the grids' points, in order (``varied``/``value``
    dropped: a point shared by two grids runs once)."""
    out, seen = [], set()
    for point in (p for g in grids for p in g):
        params = {k: v for k, v in point.items() if k not in ("varied", "value")}
        key = tuple(sorted(params.items()))
        if key not in seen:
            seen.add(key)
            out.append(params)
    return out


def sensitivity_table(decided: pd.DataFrame, points: list[dict]) -> pd.DataFrame:
    """One row per one-at-a-time point (``one_at_a_time``): the factor varied and its value,
    each scheme's mean exact output lost (``lost_<scheme>``, s: exact_lost_s, the decision's
    metric) and time to full output
    (``full_<scheme>``, s), the decision, the fastest and least-lost schemes, and whether the
    decision differs from the baseline's (``flips``)."""
    index = [*FACTORS, "k"]
    lost = decided.pivot_table(index=index, columns="scheme", values="exact_lost_s")
    full = decided.pivot_table(index=index, columns="scheme", values="t_full_s")
    picks = decided.drop_duplicates(index).set_index(index)[["decision", "fastest", "least_lost"]]
    table = lost.add_prefix("lost_").join(full.add_prefix("full_")).join(picks).reset_index()
    order = pd.DataFrame(
        [{**{k: p[k] for k in FACTORS}, "varied": p["varied"], "value": p["value"]} for p in points]
    )
    table = order.merge(table, on=list(FACTORS), how="left")
    base = table.loc[table["varied"] == "baseline", "decision"].iloc[0]
    table["flips"] = table["decision"] != base
    return table
