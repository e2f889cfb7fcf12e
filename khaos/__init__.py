"""Khaos: runtime checkpoint-interval tuning by chaos experiments.

Geldenhuys et al., *Khaos: Dynamically Optimizing Checkpointing for Dependable Distributed Stream
Processing*.

The measurement side: the artifact's published series (:mod:`khaos.data`), failures found in them
(:mod:`khaos.failures`), an open recovery-time detector (:mod:`khaos.detector`), Tables II-III
offline (:mod:`khaos.tables`) and the Khaos runs' CI schedule (:mod:`khaos.schedule`).
The method: phases 1 and 3 (:mod:`khaos.method`), the calibrated streaming-job simulator with
phase 2's profiling deployments and the replay of the day (:mod:`khaos.simulate`), Fig. 3 and the
claim rules' inputs (:mod:`khaos.evaluation`).
"""

from khaos.data import (
    CONFIGURATIONS,
    convert_to_parquet,
    load_experiment,
    load_failures,
    parse_failures,
    read_series_csv,
)
from khaos.detector import anomalies, lag_rule_recovery_times, recovery_times
from khaos.evaluation import fig3_bars, hourly_latency, latency_model_error
from khaos.failures import detect_failures, injected_failures
from khaos.method import (
    Khaos,
    LinearModel,
    MethodParams,
    Models,
    choose_interval,
    failure_points,
    fit_models,
    forecast_change,
    objective,
)
from khaos.params import ARTIFACT_QOS, PAPER_QOS, DetectorParams, FailureRule, LagRuleParams, QoS
from khaos.schedule import JumpFit, ci_schedule, fit_jump
from khaos.simulate import (
    SimParams,
    SimResult,
    calibrate,
    day_failures,
    estimate_workload,
    profile_deployment,
    replay,
    reproduce_failures,
    simulate,
)
from khaos.tables import (
    detector_validation,
    recovery_model_error,
    table2,
    table3,
    validation_summary,
    ysb_failures,
)

__all__ = [
    "ARTIFACT_QOS",
    "CONFIGURATIONS",
    "DetectorParams",
    "FailureRule",
    "JumpFit",
    "Khaos",
    "LagRuleParams",
    "LinearModel",
    "MethodParams",
    "Models",
    "PAPER_QOS",
    "QoS",
    "SimParams",
    "SimResult",
    "anomalies",
    "calibrate",
    "choose_interval",
    "ci_schedule",
    "convert_to_parquet",
    "day_failures",
    "detect_failures",
    "detector_validation",
    "estimate_workload",
    "failure_points",
    "fig3_bars",
    "fit_jump",
    "fit_models",
    "forecast_change",
    "hourly_latency",
    "injected_failures",
    "lag_rule_recovery_times",
    "latency_model_error",
    "load_experiment",
    "load_failures",
    "objective",
    "parse_failures",
    "profile_deployment",
    "read_series_csv",
    "recovery_model_error",
    "recovery_times",
    "replay",
    "reproduce_failures",
    "simulate",
    "table2",
    "table3",
    "validation_summary",
    "ysb_failures",
]
