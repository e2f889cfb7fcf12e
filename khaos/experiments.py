"""Sweep functions ``fn(point, rng)`` for pipeline.sweep, on the simulator (:mod:`khaos.simulate`):
phase 2's profiling deployments (``profile_point``) and one static CI replayed over the measured
day (``replay_point``). A point carries the simulator's parameters as ``sim_<name>`` keys
(:func:`sim_point`; absent ones default) and the workload as its folder and experiment
(:func:`khaos.simulate.workload_of`).
"""

from dataclasses import asdict, fields

import numpy as np

from khaos.params import QoS
from khaos.simulate import SimParams, profile_failures, replay_summary, simulate, workload_of


def sim_point(params: SimParams) -> dict:
    """``SimParams`` as the ``sim_<name>`` keys of a sweep point."""
    return {f"sim_{k}": v for k, v in asdict(params).items()}


def sim_params(point: dict) -> SimParams:
    """The simulator's parameters a point carries as ``sim_<name>`` keys (the rest default)."""
    return SimParams(
        **{f.name: point[f"sim_{f.name}"] for f in fields(SimParams) if f"sim_{f.name}" in point}
    )


def profile_point(point: dict, rng: np.random.Generator) -> list[dict]:
    """One profiling deployment (phase 2, :func:`khaos.simulate.profile_failures`): ``point``
    holds folder, experiment, ci, failure_seconds and the simulator's parameters."""
    workload = workload_of(point["folder"], point["experiment"])
    return profile_failures(workload, point["ci"], point["failure_seconds"], sim_params(point), rng)


def replay_point(point: dict, rng: np.random.Generator) -> dict:
    """One static CI over the measured day: the Tables II-III row of
    :func:`khaos.simulate.replay_summary` (avg_latency_ms, latency_violations_fraction,
    recovery_time_s and recovery_violations_s, recovery by the detector as in the tables) of
    ``point``'s ci (s) on its experiment's workload with failures armed at failure_seconds, under
    the QoS limits qos_latency_ms and qos_recovery_s. Adds the simulator's true recoveries
    (recovery_true_s: their sum; recovery_true_max_s), the failures injected and
    checkpoint_share = min(checkpoint_s, CI) / CI, the share of time a checkpoint runs (its
    latency bump). ``rng`` draws the observation noise: with common random numbers every CI of a
    sweep sees the same noise, as :func:`khaos.simulate.replay` gives every static CI the same
    seed."""
    needed = ("folder", "experiment", "ci", "failure_seconds", "qos_latency_ms", "qos_recovery_s")
    _require(point, needed)
    return static_replay(workload_of(point["folder"], point["experiment"]), point, rng)


def _require(point: dict, needed: tuple[str, ...]) -> None:
    missing = [k for k in needed if k not in point]
    if missing:
        raise ValueError(f"point lacks the keys {missing} (needs {list(needed)})")


def static_replay(workload, point: dict, rng: np.random.Generator) -> dict:
    """The replay row of :func:`replay_point` for ``point``'s ci (s), failure_seconds, QoS and
    simulator parameters (``sim_<name>`` keys) over ``workload``; any sweep that replays a static
    CI over its own workload (cross_interval's traces) builds its row here."""
    _require(point, ("ci", "failure_seconds", "qos_latency_ms", "qos_recovery_s"))
    params = sim_params(point)
    qos = QoS(latency_ms=point["qos_latency_ms"], recovery_s=point["qos_recovery_s"])
    result = simulate(workload, point["ci"], point["failure_seconds"], params, rng)
    row, _ = replay_summary(result, f"static {point['ci']}s", qos)
    del row["configuration"]
    true = result.failures["recovery_s"]
    ci = int(round(point["ci"]))
    return {
        **row,
        "recovery_true_s": float(true.sum()),
        "recovery_true_max_s": float(true.max()) if len(true) else 0.0,
        # seconds of true recovery above the limit, and failures never recovered (NaN above)
        "recovery_true_violations_s": float((true - qos.recovery_s).clip(lower=0).sum()),
        "unrecovered": int(true.isna().sum()),
        "failures": len(true),
        "checkpoint_share": min(params.checkpoint_s, ci) / ci,
    }
