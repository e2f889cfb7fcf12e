"""Khaos: runtime checkpoint-interval tuning by chaos experiments.

Geldenhuys et al., *Khaos: Dynamically Optimizing Checkpointing for Dependable Distributed Stream
Processing*.

The measurement side: the artifact's published series (:mod:`khaos.data`), failures found in them
(:mod:`khaos.failures`), an open recovery-time detector (:mod:`khaos.detector`), Tables II-III
offline (:mod:`khaos.tables`) and the Khaos runs' CI schedule (:mod:`khaos.schedule`).
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
from khaos.failures import detect_failures, injected_failures
from khaos.params import ARTIFACT_QOS, PAPER_QOS, DetectorParams, FailureRule, LagRuleParams, QoS
from khaos.schedule import JumpFit, ci_schedule, fit_jump
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
    "PAPER_QOS",
    "DetectorParams",
    "FailureRule",
    "JumpFit",
    "LagRuleParams",
    "QoS",
    "anomalies",
    "ci_schedule",
    "convert_to_parquet",
    "detect_failures",
    "detector_validation",
    "fit_jump",
    "injected_failures",
    "lag_rule_recovery_times",
    "load_experiment",
    "load_failures",
    "parse_failures",
    "read_series_csv",
    "recovery_model_error",
    "recovery_times",
    "table2",
    "table3",
    "validation_summary",
    "ysb_failures",
]
