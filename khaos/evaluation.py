"""Inputs of Fig. 3 and of the KH2-KH4 rules, from the published series and from simulated runs.

Latency in ms, times in s.
"""

import numpy as np
import pandas as pd


def fig3_bars(table: pd.DataFrame) -> pd.DataFrame:
    """Fig. 3's bars: per configuration the share of time above the latency constraint and the
    recovery violations normalised so that Khaos's two bars have the same height (Section IV-D):
    recovery_normalised = recovery_violations_s * (Khaos's latency share / Khaos's violations).

    When Khaos has no recovery violation (possible on a simulated day) there is nothing to align
    to; the bars are then aligned on the configuration with the most recovery violations, and
    ``aligned_to`` names the configuration used. Raises ValueError when no configuration has a
    recovery violation or the aligning one has no latency violation (no scale at all)."""
    rows = table.set_index("configuration")
    if "Khaos" not in rows.index:
        raise ValueError(f"the table has no Khaos row (configurations: {list(rows.index)})")
    anchor = "Khaos"
    if not rows.loc[anchor, "recovery_violations_s"] > 0:
        anchor = rows["recovery_violations_s"].idxmax()
    ref = rows.loc[anchor]
    if not (ref["recovery_violations_s"] > 0 and ref["latency_violations_fraction"] > 0):
        raise ValueError(
            f"no configuration has both recovery and latency violations to align the bars on "
            f"(tried {anchor!r})"
        )
    scale = ref["latency_violations_fraction"] / ref["recovery_violations_s"]
    return pd.DataFrame(
        {
            "configuration": rows.index,
            "latency_violations_fraction": rows["latency_violations_fraction"].to_numpy(),
            "recovery_normalised": rows["recovery_violations_s"].to_numpy() * scale,
            "aligned_to": anchor,
        }
    )


def hourly_latency(runs: dict[str, pd.DataFrame], block_s: int = 3600) -> pd.DataFrame:
    """Mean latency per ``block_s`` block of each run (columns configuration, hour, latency_ms):
    the runs share one workload, so blocks pair by hour (KH4)."""
    parts = []
    for name, run in runs.items():
        blocks = run["lat"].groupby(run.index // block_s).mean()
        parts.append(
            pd.DataFrame({"configuration": name, "hour": blocks.index, "latency_ms": blocks})
        )
    return pd.concat(parts, ignore_index=True).dropna()


def simulated_recovery_error(
    run: pd.DataFrame, per_failure: pd.DataFrame, models, averaging_s: int = 300
) -> float:
    """KH1's recovery error of a simulated Khaos run: mean |predicted - measured| / measured over
    its failures, predicted by the recovery model at the mean observed throughput of the
    ``averaging_s`` s before the failure and the CI in force (as phase 3 predicts it), measured
    by the detector (``per_failure``: failure_second, recovery_time_s). Failures with no
    recovery measured (0 s) have no relative error and are left out."""
    measured = per_failure[per_failure["recovery_time_s"] > 0]
    if measured.empty:
        raise ValueError("no failure with a measured recovery")
    seconds = measured["failure_second"].to_numpy()
    throughput = [run["thr"].loc[s - averaging_s : s - 1].mean() for s in seconds]
    predicted = models.recovery.predict(throughput, run["ci"].reindex(seconds).to_numpy())
    actual = measured["recovery_time_s"].to_numpy()
    return float(np.mean(np.abs(predicted - actual) / actual))


def latency_model_error(decisions: pd.DataFrame, models) -> float:
    """KH1's latency error of a Khaos run: mean |rho * predicted - actual| / actual over its
    optimisation rounds (predicted at the round's throughput and CI, rho the correction then in
    force, from the rounds before, as in the optimisation loop)."""
    if decisions.empty:
        raise ValueError("no optimisation round")
    predicted = models.latency.predict(decisions["throughput"], decisions["ci"]) * decisions["rho"]
    actual = decisions["latency_ms"]
    return float(np.mean(np.abs(predicted - actual) / actual))
