"""Tables II and III offline (Table III also under other detector settings, for KH2:ysb), the YSB
per-failure table, the recovery-model error (KH1), the detector's validation on IoT and KH3's CI
inference checked on the static runs.

Table columns follow the transcriptions (data/paper/khaos_table2.csv, khaos_table3.csv):
configuration, avg_latency_ms, latency_violations_fraction, recovery_time_s,
recovery_violations_s; given the printed table, each gets ``<column>_paper`` and ``<column>_diff``
(reproduced - printed) beside it. Latency in ms, times in s.
"""

import dataclasses

import numpy as np
import pandas as pd
from scipy import stats
from scipy.optimize import linear_sum_assignment

from khaos.data import CONFIGURATIONS
from khaos.detector import lag_rule_recovery_times, recovery_times
from khaos.failures import detect_failures, injected_failures
from khaos.params import (
    DEFAULT_DETECTOR,
    DEFAULT_LAG_RULE,
    DEFAULT_RULE,
    PAPER_QOS,
    DetectorParams,
    FailureRule,
    LagRuleParams,
    QoS,
)
from khaos.schedule import ci_schedule, fit_jump

TABLE_COLUMNS = [
    "avg_latency_ms",
    "latency_violations_fraction",
    "recovery_time_s",
    "recovery_violations_s",
]
AVG_THR_WINDOW_S = 300  # avgThr: mean input throughput over the 300 s before the failure


def latency_summary(run: pd.DataFrame, qos: QoS = PAPER_QOS) -> tuple[float, float]:
    """(mean latency over the non-missing seconds, share of them above qos.latency_ms)."""
    latency = run["lat"].dropna()
    if latency.empty:
        raise ValueError("run has no latency sample")
    return float(latency.mean()), float((latency > qos.latency_ms).mean())


def recovery_totals(recovery_s, qos: QoS = PAPER_QOS) -> tuple[float, float]:
    """(total recovery time, total time above qos.recovery_s) over the failures (Tables II-III)."""
    values = np.asarray(recovery_s, dtype=float)
    return float(values.sum()), float(np.clip(values - qos.recovery_s, 0, None).sum())


def trailing_throughput(run: pd.DataFrame, second: int) -> float:
    """Mean throughput over the AVG_THR_WINDOW_S seconds before ``second`` (the prototype's
    avgThr)."""
    return float(run["thr"].loc[second - AVG_THR_WINDOW_S : second - 1].mean())


def static_inference(
    runs: dict[str, pd.DataFrame],
    events: dict[str, pd.DataFrame],
    *,
    with_throughput: bool = False,
) -> pd.DataFrame:
    """KH3's CI inference applied to each STATIC run, whose CI never changes: the jump line
    (``khaos.schedule.fit_jump``) fitted on the other runs' injected failures (a run is not
    inferred from itself), then inverted at the run's injected failures. A sound inference gives
    no trend of the estimate with the trailing throughput there. Returns one row per static run:
    configuration, failures, rho and two-sided p of Spearman(throughput, CI estimate)."""
    found = injected_failures(events)
    out = []
    for name in runs:
        if name == "Khaos":
            continue
        fit = fit_jump(found[found["configuration"] != name], with_throughput=with_throughput)
        own = found.loc[found["configuration"] == name, "second"]
        schedule, _ = ci_schedule(events[name], fit, only_seconds=own)
        throughput = [trailing_throughput(runs[name], s) for s in schedule["second"]]
        rho, p = (
            stats.spearmanr(throughput, schedule["ci_estimate_s"])
            if len(schedule) >= 3
            else (np.nan, np.nan)
        )
        out.append(
            {"configuration": name, "failures": len(schedule), "rho": float(rho), "p": float(p)}
        )
    return pd.DataFrame(out)


def _beside(table: pd.DataFrame, printed: pd.DataFrame | None) -> pd.DataFrame:
    if printed is None:
        return table
    paper = printed.set_index("configuration")[TABLE_COLUMNS]
    out = table.set_index("configuration")
    for column in TABLE_COLUMNS:
        out[f"{column}_paper"] = paper[column]
        out[f"{column}_diff"] = out[column] - paper[column]
    return out.reset_index()


def _rows(runs, recoveries: dict[str, np.ndarray], qos: QoS) -> pd.DataFrame:
    rows = []
    for configuration in CONFIGURATIONS:
        latency, violations = latency_summary(runs[configuration], qos)
        total, above = recovery_totals(recoveries[configuration], qos)
        rows.append(
            {
                "configuration": configuration,
                "avg_latency_ms": latency,
                "latency_violations_fraction": violations,
                "recovery_time_s": total,
                "recovery_violations_s": above,
            }
        )
    return pd.DataFrame(rows)


def table2(
    runs: dict[str, pd.DataFrame], failures: pd.DataFrame, printed=None, qos: QoS = PAPER_QOS
) -> pd.DataFrame:
    """Table II (IoT Vehicles): latency columns from the series, recovery columns as exact sums of
    iot/failures.txt's recTime per configuration (12 failures each)."""
    recoveries = {
        c: failures.loc[failures["configuration"] == c, "rec_time_s"].to_numpy()
        for c in CONFIGURATIONS
    }
    return _beside(_rows(runs, recoveries, qos), printed)


def ysb_failures(
    runs: dict[str, pd.DataFrame],
    rule: FailureRule = DEFAULT_RULE,
    params: DetectorParams = DEFAULT_DETECTOR,
) -> pd.DataFrame:
    """One row per injected YSB failure (static runs and Khaos): configuration, failure_index,
    failure_second, throughput (avgThr over the 300 s before), recovery_time_s (the detector)."""
    events = {c: detect_failures(runs[c], rule) for c in CONFIGURATIONS}
    injected = injected_failures(events, rule)
    parts = []
    for configuration in CONFIGURATIONS:
        mine = injected[injected["configuration"] == configuration]
        measured = recovery_times(runs[configuration], mine["second"], params)
        parts.append(
            pd.DataFrame(
                {
                    "configuration": configuration,
                    "failure_index": mine["failure_index"].to_numpy(),
                    "failure_second": mine["second"].to_numpy(),
                    "throughput": [
                        trailing_throughput(runs[configuration], s) for s in mine["second"]
                    ],
                    "recovery_time_s": measured["recovery_time_s"].to_numpy(),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def table3(
    runs: dict[str, pd.DataFrame],
    printed=None,
    qos: QoS = PAPER_QOS,
    per_failure: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Table III (YSB): latency columns from the series, recovery columns from the detector over
    the injected failures (:func:`ysb_failures`, computed unless given)."""
    if per_failure is None:
        per_failure = ysb_failures(runs)
    recoveries = {
        c: per_failure.loc[per_failure["configuration"] == c, "recovery_time_s"].to_numpy()
        for c in CONFIGURATIONS
    }
    return _beside(_rows(runs, recoveries, qos), printed)


def table3_with(runs: dict[str, pd.DataFrame], qos: QoS = PAPER_QOS, **detector) -> pd.DataFrame:
    """Table III's columns (configuration and TABLE_COLUMNS) with the detector settings
    ``detector`` (``DetectorParams`` fields) over the defaults: what KH2:ysb is re-judged on."""
    params = dataclasses.replace(DEFAULT_DETECTOR, **detector)
    table = table3(runs, None, qos, per_failure=ysb_failures(runs, params=params))
    return table[["configuration", *TABLE_COLUMNS]]


def recovery_model_error(failures: pd.DataFrame) -> float:
    """KH1, IoT recovery model: mean |prediction - recTime| / recTime over the Khaos run's
    failures, the prediction being the ``(actual: N)`` suffix (Table II(a))."""
    khaos = failures[(failures["configuration"] == "Khaos") & failures["predicted_s"].notna()]
    if khaos.empty:
        raise ValueError("no Khaos failure carries a prediction")
    return float((np.abs(khaos["predicted_s"] - khaos["rec_time_s"]) / khaos["rec_time_s"]).mean())


def match_failures(
    run: pd.DataFrame, seconds, logged: pd.DataFrame, tolerance: float = 0.03
) -> pd.DataFrame:
    """Pair failure instants of one run with logged failures (rows of iot/failures.txt) by their
    avgThr: one-to-one, maximising the pairs within ``tolerance`` (relative), then minimising the
    total relative difference. The log lists failures by throughput level, not in time order, so
    avgThr is the only key. Returns second, avg_thr_series, avg_thr_logged, rec_time_s."""
    seconds = np.asarray(seconds, dtype=np.int64)
    series = np.array([trailing_throughput(run, s) for s in seconds])
    logged_thr = logged["avg_thr"].to_numpy()
    relative = np.abs(np.subtract.outer(logged_thr, series)) / logged_thr[:, None]
    cost = np.where(relative <= tolerance, relative, 1.0)  # a miss costs more than any pair
    rows, cols = linear_sum_assignment(cost)
    keep = relative[rows, cols] <= tolerance
    rows, cols = rows[keep], cols[keep]
    return pd.DataFrame(
        {
            "second": seconds[cols],
            "avg_thr_series": series[cols],
            "avg_thr_logged": logged_thr[rows],
            "rec_time_s": logged["rec_time_s"].to_numpy()[rows],
        }
    )


def detector_validation(
    runs: dict[str, pd.DataFrame],
    failures: pd.DataFrame,
    rule: FailureRule = DEFAULT_RULE,
    params: DetectorParams = DEFAULT_DETECTOR,
    lag_params: LagRuleParams = DEFAULT_LAG_RULE,
) -> pd.DataFrame:
    """IoT: the detector and the lag rule against the prototype's recTime, per failure found in
    the series (:func:`detect_failures`, all failures including those inside a catch-up) and
    matched to iot/failures.txt (:func:`match_failures`). Columns: configuration, second,
    avg_thr_series, avg_thr_logged, rec_time_s, detector_s, lag_rule_s."""
    parts = []
    for configuration in CONFIGURATIONS:
        run = runs[configuration]
        events = detect_failures(run, rule)
        seconds = events.loc[events["kind"] == "failure", "second"].to_numpy()
        logged = failures[failures["configuration"] == configuration]
        matched = match_failures(run, seconds, logged).sort_values("second")
        detector = recovery_times(run, seconds, params).set_index("failure_second")
        lag = lag_rule_recovery_times(run, seconds, lag_params).set_index("failure_second")
        matched["detector_s"] = detector.loc[matched["second"], "recovery_time_s"].to_numpy()
        matched["lag_rule_s"] = lag.loc[matched["second"], "recovery_time_s"].to_numpy()
        parts.append(matched.assign(configuration=configuration))
    table = pd.concat(parts, ignore_index=True)
    return table[
        [
            "configuration",
            "second",
            "avg_thr_series",
            "avg_thr_logged",
            "rec_time_s",
            "detector_s",
            "lag_rule_s",
        ]
    ]


def validation_summary(validation: pd.DataFrame) -> pd.DataFrame:
    """MAPE, bias (mean signed relative error) and the worst relative error of each method."""
    rows = []
    for method in ("detector_s", "lag_rule_s"):
        error = (validation[method] - validation["rec_time_s"]) / validation["rec_time_s"]
        worst = error.abs().idxmax()
        rows.append(
            {
                "method": method.removesuffix("_s"),
                "failures": len(error),
                "mape": float(error.abs().mean()),
                "bias": float(error.mean()),
                "worst_error": float(error[worst]),
                "worst_configuration": validation.loc[worst, "configuration"],
                "worst_second": int(validation.loc[worst, "second"]),
            }
        )
    return pd.DataFrame(rows)
