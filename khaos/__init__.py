"""Khaos: runtime checkpoint-interval tuning by chaos experiments.

Geldenhuys et al., *Khaos: Dynamically Optimizing Checkpointing for Dependable Distributed Stream
Processing*.

The measurement side: the artifact's published series (:mod:`khaos.data`, its file I/O:
``load_experiment``, ``load_failures``), failures found in them
(:mod:`khaos.failures`), an open recovery-time detector (:mod:`khaos.detector`), Tables II-III
offline (:mod:`khaos.tables`) and the Khaos runs' CI schedule (:mod:`khaos.schedule`).
The method: phases 1 and 3 (:mod:`khaos.method`), the calibrated streaming-job simulator with
phase 2's profiling deployments and the replay of the day (:mod:`khaos.simulate`; their sweep
points in :mod:`khaos.experiments`), Fig. 3 and the claim rules' inputs (:mod:`khaos.evaluation`).
"""

from khaos.detector import recovery_times
from khaos.failures import detect_failures
from khaos.method import Khaos, MethodParams, choose_interval, failure_points, fit_models, objective
from khaos.params import PAPER_QOS, QoS
from khaos.simulate import SimParams, calibrate, replay, simulate
from khaos.tables import table2, table3

__all__ = [
    # the model: QoS constraints, the method's and the simulator's parameters
    "QoS",
    "PAPER_QOS",
    "MethodParams",
    "SimParams",
    # the measurement side: failures and their recovery times in a run, Tables II-III
    "detect_failures",
    "recovery_times",
    "table2",
    "table3",
    # the method: phases 1-3 and the runtime controller, objective (8)
    "failure_points",
    "fit_models",
    "choose_interval",
    "objective",
    "Khaos",
    # the experiments: the calibrated simulator and the replay of the day; sweep points in
    # khaos.experiments
    "calibrate",
    "simulate",
    "replay",
]
