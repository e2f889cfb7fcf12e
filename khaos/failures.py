"""Failures and restarts found in a run's per-second series, and the injected failures of a set of
runs.

A run is a DataFrame indexed by second (strictly increasing, contiguous after
:func:`khaos.data.load_experiment`) with columns ``thr`` (events/s) and ``con`` (consumer lag,
events); ``lat`` is not used here.
"""

import numpy as np
import pandas as pd

from khaos.params import DEFAULT_RULE, FailureRule


def check_run(run: pd.DataFrame, columns=("thr", "con")) -> None:
    """Raise ValueError unless ``run`` is a non-empty, strictly increasing, contiguous per-second
    series holding ``columns``."""
    if not isinstance(run, pd.DataFrame) or run.empty:
        raise ValueError("run must be a non-empty DataFrame")
    missing = [c for c in columns if c not in run.columns]
    if missing:
        raise ValueError(f"run lacks the columns {missing}")
    steps = np.diff(run.index.to_numpy())
    if np.any(steps <= 0):
        raise ValueError("run's index (seconds) must be strictly increasing")
    if np.any(steps != 1):
        raise ValueError("run's index must be contiguous seconds (reindex gaps to NaN)")


def _forward_max(values: np.ndarray, window: int) -> np.ndarray:
    """max(values[i : i + window]) for each i, NaN ignored."""
    reversed_ = pd.Series(values[::-1]).rolling(window, min_periods=1).max().to_numpy()
    return reversed_[::-1]


def detect_failures(run: pd.DataFrame, rule: FailureRule = DEFAULT_RULE) -> pd.DataFrame:
    """Outages in one run: failures (with their catch-up) and savepoint restarts.

    Rule (thresholds in :class:`FailureRule`):
    1. a *collapse* at second t: thr[t] < collapse_fraction * ref(t), where ref(t) is the median
       throughput over the ``reference_s`` s before t and ref(t) >= min_reference; collapses less
       than ``separation_s`` apart are one event (its first second);
    2. its lag jump J = max(con[t - w : t + w]) - median(con over the reference window ending w
       before t), w = ``jump_window_s`` (the lag may start climbing before the collapse);
       k = J / ref(t). A failure replays about one checkpoint interval, so k ~ k(CI) grows with the
       CI (~2 at 10 s, ~12 at 120 s); a restart from a savepoint replays almost nothing (k < 1);
       the end of a catch-up (throughput falling back from the catch-up rate) has a falling lag:
       k >= failure_min_k is a ``failure``; restart_min_k <= k < failure_min_k is a ``restart``
       if the lag's maximum over the w s after t exceeds that over the w s before; anything else
       is dropped. (A failure at a very low rate, ~300 events/s in IoT, may show no collapse at
       one-second resolution and is then missed.)
    3. a failure's catch-up lasts until the lag is back within ``drain_fraction`` of its jump
       above the pre-failure level; an outage starting inside it belongs to that failure (column
       ``within`` holds the second of the failure it belongs to, NaN otherwise).
    Returns columns second, kind, ref_thr, lag_jump, k, catch_up_end, within."""
    check_run(run)
    seconds = run.index.to_numpy()
    thr = run["thr"].to_numpy(dtype=float)
    con = run["con"].to_numpy(dtype=float)
    ref = pd.Series(thr).rolling(rule.reference_s, min_periods=10).median().shift(1).to_numpy()
    # The lag level before the outage, taken a jump window earlier: in some runs (IoT 30 s) the lag
    # already climbs up to ~30 s before the throughput collapses.
    con_ref = (
        pd.Series(con)
        .rolling(rule.reference_s, min_periods=5)
        .median()
        .shift(1 + rule.jump_window_s)
        .to_numpy()
    )
    with np.errstate(invalid="ignore"):
        collapse = (thr < rule.collapse_fraction * ref) & (ref >= rule.min_reference)
    positions = np.flatnonzero(collapse)
    if positions.size:
        first = np.concatenate(([True], np.diff(positions) >= rule.separation_s))
        positions = positions[first]
    window = 2 * rule.jump_window_s + 1
    peak = np.roll(_forward_max(con, window), rule.jump_window_s)  # max of con[t - w : t + w]
    peak[: rule.jump_window_s] = np.nan
    after = _forward_max(con, rule.jump_window_s + 1)
    before = np.roll(after, rule.jump_window_s + 1)
    before[: rule.jump_window_s + 1] = np.nan
    rows = []
    catch_up_until, owner = -1, np.nan
    for i in positions:
        jump = peak[i] - (con_ref[i] if np.isfinite(con_ref[i]) else 0.0)
        k = jump / ref[i] if np.isfinite(jump) else np.nan
        if not k >= rule.restart_min_k:
            continue
        kind = "failure" if k >= rule.failure_min_k else "restart"
        if kind == "restart" and not after[i] > before[i]:
            continue  # a restart's lag rises after it; the end of a catch-up has the lag falling
        within = owner if i <= catch_up_until else np.nan
        end = np.nan
        if kind == "failure":
            # Catch-up: from the lag peak until the lag is back near its pre-failure level.
            level = (con_ref[i] if np.isfinite(con_ref[i]) else 0.0) + rule.drain_fraction * jump
            start = i + int(np.nanargmax(con[i : i + rule.jump_window_s + 1]))
            below = np.flatnonzero(con[start:] <= level)
            stop = start + below[0] if below.size else len(con) - 1
            end = seconds[stop]
            if np.isnan(within):
                owner = seconds[i]
            catch_up_until = max(catch_up_until, stop)
        rows.append(
            {
                "second": int(seconds[i]),
                "kind": kind,
                "ref_thr": ref[i],
                "lag_jump": jump,
                "k": k,
                "catch_up_end": end,
                "within": within,
            }
        )
    columns = ["second", "kind", "ref_thr", "lag_jump", "k", "catch_up_end", "within"]
    return pd.DataFrame(rows, columns=columns)


def injected_failures(
    events: dict[str, pd.DataFrame], rule: FailureRule = DEFAULT_RULE
) -> pd.DataFrame:
    """The injected failures of a set of runs sharing one failure schedule.

    ``events`` maps configuration -> :func:`detect_failures` output. Failures that start a catch-up
    (``within`` NaN) are pooled over the runs and chained into clusters (consecutive seconds at
    most ``cluster_s`` apart); a cluster seen in at least ``min_configurations`` runs is an
    injected failure, and each run keeps its earliest failure in it. A failure seen in fewer runs
    (e.g. one spontaneous outage each in the YSB 10 s and 30 s runs) is not injected.
    Returns columns configuration, failure_index (0-based, in time order of the clusters), second,
    k, ref_thr."""
    pooled = [
        frame.loc[
            (frame["kind"] == "failure") & frame["within"].isna(), ["second", "k", "ref_thr"]
        ].assign(configuration=name)
        for name, frame in events.items()
    ]
    columns = ["configuration", "failure_index", "second", "k", "ref_thr"]
    if not pooled or all(p.empty for p in pooled):
        return pd.DataFrame(columns=columns)
    table = pd.concat(pooled, ignore_index=True).sort_values("second", kind="stable")
    table["cluster"] = np.cumsum(
        np.diff(table["second"].to_numpy(), prepend=-np.inf) > rule.cluster_s
    )
    seen = table.groupby("cluster")["configuration"].nunique()
    kept = table[table["cluster"].isin(seen.index[seen >= rule.min_configurations])]
    kept = kept.groupby(["cluster", "configuration"], sort=True).first().reset_index()
    kept["failure_index"] = kept["cluster"].rank(method="dense").astype(int) - 1
    return kept[columns].sort_values(["configuration", "second"]).reset_index(drop=True)
