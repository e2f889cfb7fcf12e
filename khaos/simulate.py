"""A streaming-job simulator in virtual time, calibrated on the published IoT measurements; phase
2's profiling deployments and the replay of Khaos and the static CIs over the measured day (their
sweep functions: :mod:`khaos.experiments`).

The job (one step per second, fluid events):
- arrivals a(t) join the Kafka backlog (the lag, events); while up, the job consumes
  min(capacity, a + lag, a + lag / drain_tau_s) events (lag: the backlog carried over from the
  second before): a backlog drains at most at
  ``capacity`` and otherwise exponentially with time constant ``drain_tau_s`` (the published
  catch-ups slow down as partitions finish at different times);
- a checkpoint starts every CI s of up time and records the consumed offset;
- a failure (injected ``inject_before_s`` s before the next checkpoint starts, the worst case of
  Section III-C) rewinds the offset to the last checkpoint (the replay becomes lag) and stops the
  job for ``restart_s`` s; the checkpoint timer restarts with the job;
- a reconfiguration (Khaos) takes a savepoint (no replay) and stops the job for
  ``savepoint_restart_s`` s;
- latency: lat0 + lat_per_event * a, plus ``checkpoint_ms`` during the first ``checkpoint_s`` s
  of every checkpoint, plus ``recovery_latency_ms`` while down or catching up;
- observations: throughput with relative noise; the consumer lag as the published metric
  (``lag_scale`` * (lag + a * base_lag_s), relative noise); latency with relative noise.

Calibration (:func:`calibrate`, static IoT runs only): the lag jump of a failure in published units
is k(CI) * a with k = lag_scale * (CI - inject_before_s + restart_s) (fitted line of
:func:`khaos.schedule.fit_jump`: slope lag_scale, intercept -> restart_s); capacity and
drain_tau_s by least squares on the measured drain times (failure to the end of the catch-up);
savepoint_restart_s from the Khaos run's restart bumps; latency terms by least squares on
failure-free 300 s means.
Units: s, events, events/s, ms.
"""

import math
from dataclasses import dataclass, fields, replace
from functools import lru_cache

import numpy as np
import pandas as pd

from khaos.data import CONFIGURATIONS, STATIC_CI_S, load_experiment
from khaos.detector import recovery_times
from khaos.failures import detect_failures
from khaos.params import DEFAULT_DETECTOR, DEFAULT_RULE, PAPER_QOS, QoS
from khaos.schedule import fit_jump
from khaos.tables import recovery_totals

DRAIN_FRACTION = DEFAULT_RULE.drain_fraction  # catch-up ends at 5% of the jump, as in the data


@dataclass(frozen=True, kw_only=True)
class SimParams:
    """The simulated job. The defaults are round values of the right order for tests that need
    not load the data; they are not the calibrated values (:func:`calibrate` on the IoT data
    differs notably in capacity, lat_per_event_ms, base_lag_s and checkpoint_ms, and the
    notebooks print what it gives). Every notebook calibrates afresh."""

    capacity: float = 38000.0  # events/s, catch-up limit
    drain_tau_s: float = 30.0  # s, exponential drain below capacity
    restart_s: float = 20.0  # s down after a failure
    savepoint_restart_s: float = 6.0  # s down for a reconfiguration
    inject_before_s: int = 3  # artifact: failures 3 s before the next checkpoint starts
    lag_scale: float = 0.09  # published lag units per event of backlog
    base_lag_s: float = 0.06  # normal published lag, in s of arrivals (before lag_scale)
    lat0_ms: float = 400.0
    lat_per_event_ms: float = 0.01  # ms per event/s of arrivals
    checkpoint_ms: float = 300.0  # added latency while a checkpoint runs
    checkpoint_s: int = 5  # ours: the paper gives no checkpoint duration
    recovery_latency_ms: float = 4000.0  # added latency while down or catching up
    thr_noise: float = 0.01  # relative SD of observed throughput
    con_noise: float = 0.05  # relative SD of the observed lag
    lat_noise: float = 0.1  # relative SD of observed latency

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
                raise ValueError(f"{f.name} must be a finite number >= 0, got {value!r}")
        for name in ("capacity", "drain_tau_s", "lag_scale", "checkpoint_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)!r}")
        if not isinstance(self.inject_before_s, int) or not isinstance(self.checkpoint_s, int):
            raise ValueError("inject_before_s and checkpoint_s must be integers (s)")


DEFAULT_SIM = SimParams()


@dataclass(frozen=True)
class SimResult:
    """A simulated run: ``run`` (index seconds; thr, lat, con observed; arrivals, lag, ci, down
    true), ``failures`` (scheduled, injected, recovered seconds and the true recovery_s: from the
    injection until the backlog is back within 5% of its peak), ``reconfigurations`` (second,
    old, new CI) and the controller's ``decisions`` (empty for a static CI)."""

    run: pd.DataFrame
    failures: pd.DataFrame
    reconfigurations: pd.DataFrame
    decisions: pd.DataFrame


def _check_ci(ci) -> None:
    if not (
        isinstance(ci, int | float | np.integer | np.floating) and ci > 0 and math.isfinite(ci)
    ):
        raise ValueError(f"ci must be a finite number > 0, got {ci!r}")


def simulate(
    arrivals: pd.Series,
    ci: float,
    failure_seconds=(),
    params: SimParams = DEFAULT_SIM,
    rng: np.random.Generator | None = None,
    controller=None,
) -> SimResult:
    """Run the job over ``arrivals`` (events/s on contiguous seconds, no NaN) with initial CI
    ``ci`` (s, rounded to whole seconds), failures armed at ``failure_seconds`` and injected at
    the next second that lies ``inject_before_s`` before a checkpoint. ``controller`` (optional,
    :class:`khaos.method.Khaos`) is called every ``controller.period_s`` s as
    ``controller(second, ci, thr_history, lat_history, up_s)`` and returns a new CI or None.
    ``rng`` draws the observation noise (None: no noise)."""
    if not isinstance(arrivals, pd.Series) or arrivals.empty:
        raise ValueError("arrivals must be a non-empty pandas Series")
    if np.any(np.diff(arrivals.index.to_numpy()) != 1):
        raise ValueError("arrivals' index must be contiguous, increasing seconds")
    a = arrivals.to_numpy(dtype=float)
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ValueError("arrivals must be finite and >= 0")
    _check_ci(ci)
    first, n = int(arrivals.index[0]), len(a)
    pending = sorted(int(s) - first for s in failure_seconds)
    if pending and (pending[0] < 0 or pending[-1] >= n):
        raise ValueError("a failure second lies outside the arrivals' seconds")
    p = params
    ci = int(round(ci))
    thr = np.zeros(n)
    lag = np.zeros(n)
    lat = np.zeros(n)
    down_flags = np.zeros(n, dtype=bool)
    ci_track = np.zeros(n)
    backlog, consumed, at_checkpoint = 0.0, 0.0, 0.0
    next_checkpoint, checkpoint_start = ci, -(10**9)
    down_until, up_since, armed = 0, 0, None
    failures, reconfigurations = [], []
    catching, peak, failure_row = False, 0.0, None
    period = controller.period_s if controller is not None else 0
    for t in range(n):
        backlog += a[t]
        if pending and t >= pending[0] and armed is None:
            armed = pending.pop(0)
        up = t >= down_until
        if up and armed is not None and next_checkpoint - t == p.inject_before_s:
            # Rewind to the last checkpoint's offset: the replay joins the backlog.
            backlog += consumed - at_checkpoint
            consumed = at_checkpoint
            down_until = t + int(round(p.restart_s))
            next_checkpoint = down_until + ci
            failure_row = {"scheduled": armed + first, "injected": t + first}
            failures.append(failure_row)
            armed, up, catching, peak = None, False, True, 0.0
        if up and t == next_checkpoint:
            at_checkpoint, checkpoint_start = consumed, t
            next_checkpoint = t + ci
        if up:
            # backlog - a[t] is the backlog carried over: it decays by 1/drain_tau_s a second.
            rate = min(p.capacity, backlog, a[t] + (backlog - a[t]) / p.drain_tau_s)
            backlog -= rate
            consumed += rate
            thr[t] = rate
        down_flags[t] = not up
        lag[t] = backlog
        if catching:
            peak = max(peak, backlog)
            if up and backlog <= DRAIN_FRACTION * peak:
                catching = False
                failure_row["recovered"] = t + first
        recovering = (not up) or catching
        lat[t] = (
            p.lat0_ms
            + p.lat_per_event_ms * a[t]
            + (p.checkpoint_ms if 0 <= t - checkpoint_start < p.checkpoint_s else 0.0)
            + (p.recovery_latency_ms if recovering else 0.0)
        )
        ci_track[t] = ci
        if controller is not None and t > 0 and t % period == 0:
            new = controller(t + first, ci, thr[: t + 1], lat[: t + 1], t - up_since)
            if new is not None:
                reconfigurations.append({"second": t + first, "old_ci": ci, "new_ci": int(new)})
                ci = int(new)
                down_until = t + 1 + int(round(p.savepoint_restart_s))
                at_checkpoint = consumed  # the savepoint: no replay
                next_checkpoint, up_since = down_until + ci, t + 1
    observed_thr, observed_con, observed_lat = _observe(thr, lag, lat, a, p, rng)
    run = pd.DataFrame(
        {
            "thr": observed_thr,
            "lat": observed_lat,
            "con": observed_con,
            "arrivals": a,
            "lag": lag,
            "ci": ci_track,
            "down": down_flags,
        },
        index=pd.RangeIndex(first, first + n, name="second"),
    )
    table = pd.DataFrame(failures, columns=["scheduled", "injected", "recovered"])
    table["recovery_s"] = table["recovered"] - table["injected"]
    decisions = pd.DataFrame(getattr(controller, "decisions", []))
    return SimResult(
        run,
        table,
        pd.DataFrame(reconfigurations, columns=["second", "old_ci", "new_ci"]),
        decisions,
    )


def _observe(thr, lag, lat, a, p: SimParams, rng):
    con = p.lag_scale * (lag + a * p.base_lag_s)
    if rng is None:
        return thr, con, lat
    n = len(thr)
    return (
        thr * (1 + p.thr_noise * rng.standard_normal(n)),
        con * (1 + p.con_noise * rng.standard_normal(n)),
        lat * (1 + p.lat_noise * rng.standard_normal(n)),
    )


def drain_time(a, ci, params: SimParams = DEFAULT_SIM) -> np.ndarray:
    """Closed form of the simulator at constant arrivals ``a``: seconds from a worst-case failure
    until the backlog is back within 5% of its peak a * (CI - inject_before_s + restart_s)."""
    p = params
    return _drain_time(a, ci, p.capacity, p.drain_tau_s, p.restart_s, p.inject_before_s)


def _drain_time(a, ci, capacity, tau, restart_s, inject_before_s) -> np.ndarray:
    """:func:`drain_time` with capacity and drain constant as arrays that broadcast against
    ``a`` (the calibration's grid in one evaluation)."""
    a, ci = np.asarray(a, dtype=float), np.asarray(ci, dtype=float)
    peak = a * (ci - inject_before_s + restart_s)
    target = DRAIN_FRACTION * peak
    spare = np.maximum(capacity - a, 1e-9)
    knee = tau * spare  # below this backlog the drain is exponential
    linear = np.maximum(peak - knee, 0) / spare
    start = np.minimum(peak, knee)
    with np.errstate(divide="ignore", invalid="ignore"):
        exponential = np.where(target < start, tau * np.log(start / target), 0.0)
        linear = np.where(target < start, linear, (peak - target) / spare)
    return restart_s + linear + exponential


# -- calibration --
def _failure_windows(events: pd.DataFrame, restart_s: int = 120) -> list[tuple[int, int]]:
    """(start, end) seconds disturbed by each outage: failures until their catch-up ends,
    restarts for ``restart_s`` s."""
    spans = []
    for row in events.itertuples():
        end = row.catch_up_end if np.isfinite(row.catch_up_end) else row.second + restart_s
        spans.append((int(row.second) - 60, int(end) + 60))
    return spans


def estimate_workload(runs: dict[str, pd.DataFrame], events: dict[str, pd.DataFrame]) -> pd.Series:
    """The arrival rate of a set of runs fed by one stream: per second, the median input
    throughput of the runs not disturbed then (outages and catch-ups masked out, from 60 s before
    to 60 s after), gaps interpolated. Ours: the paper records the stream itself."""
    index = runs[CONFIGURATIONS[0]].index
    for run in runs.values():
        index = index.union(run.index)
    columns = {}
    for name, run in runs.items():
        thr = run["thr"].reindex(index).copy()
        for start, end in _failure_windows(events[name]):
            thr.loc[start:end] = np.nan
        columns[name] = thr
    median = pd.DataFrame(columns).median(axis=1)
    return median.interpolate(limit_direction="both").rename("arrivals")


def measured_failures(runs: dict[str, pd.DataFrame], events: dict[str, pd.DataFrame]):
    """The static runs' failures that start a catch-up, with CI, arrivals a (reference
    throughput), k, lag jump, drain time (failure to the end of the catch-up) and the excess
    latency over the catch-up."""
    rows = []
    for name, ci in STATIC_CI_S.items():
        found = events[name]
        found = found[(found["kind"] == "failure") & found["within"].isna()]
        lat = runs[name]["lat"]
        for row in found.itertuples():
            before = lat.loc[row.second - 360 : row.second - 60].mean()
            during = lat.loc[row.second : row.catch_up_end].mean()
            rows.append(
                {
                    "configuration": name,
                    "ci": ci,
                    "second": int(row.second),
                    "a": row.ref_thr,
                    "k": row.k,
                    "lag_jump": row.lag_jump,
                    "drain_s": row.catch_up_end - row.second,
                    "excess_latency_ms": during - before,
                }
            )
    return pd.DataFrame(rows)


def calibrate(runs: dict[str, pd.DataFrame], min_rate: float = 2000.0):
    """Calibrate :class:`SimParams` on one workload's six runs (the IoT ones: the YSB recovery
    times are a blind check). Failures at arrivals below ``min_rate`` (ours) are left out: their
    lag and drain are at the metrics' resolution. Returns (SimParams, the measured failures used,
    with the simulator's closed-form drain time, model_drain_s, beside them)."""
    events = {c: detect_failures(runs[c]) for c in CONFIGURATIONS}
    measured = measured_failures(runs, events)
    # A jump far from its CI's median k (a second outage inside the catch-up) is no clean drain.
    typical = measured.groupby("ci")["k"].transform("median")
    clean = (measured["a"] >= min_rate) & ((measured["k"] / typical - 1).abs() < 0.3)
    measured = measured[clean].reset_index(drop=True)
    jump = fit_jump(measured)
    lag_scale = jump.slope
    restart_s = max(jump.intercept / jump.slope + DEFAULT_SIM.inject_before_s, 1.0)
    base = replace(DEFAULT_SIM, lag_scale=lag_scale, restart_s=restart_s)
    # Capacity and drain constant: least squares on log drain times over a grid, evaluated at
    # once (capacity x tau x failure); the first best point in capacity-then-tau order.
    capacities, taus = np.arange(25000.0, 50001.0, 500.0), np.arange(5.0, 121.0, 1.0)
    model = _drain_time(
        measured["a"].to_numpy(),
        measured["ci"].to_numpy(),
        capacities[:, None, None],
        taus[None, :, None],
        base.restart_s,
        base.inject_before_s,
    )
    errors = np.mean((np.log(model) - np.log(measured["drain_s"].to_numpy())) ** 2, axis=-1)
    best = np.unravel_index(np.argmin(np.where(np.isnan(errors), np.inf, errors)), errors.shape)
    capacity, tau = capacities[best[0]], taus[best[1]]
    base = replace(base, capacity=float(capacity), drain_tau_s=float(tau))
    khaos = events["Khaos"]
    restarts = khaos[khaos["kind"] == "restart"]
    if len(restarts):
        base = replace(base, savepoint_restart_s=float(restarts["k"].median() / lag_scale))
    base = replace(base, **_latency_terms(runs, events, base), **_noise_terms(runs, events, base))
    base = replace(base, recovery_latency_ms=float(max(measured["excess_latency_ms"].median(), 0)))
    measured = measured.assign(model_drain_s=drain_time(measured["a"], measured["ci"], base))
    return base, measured


def _quiet_blocks(runs, events, block_s: int = 300) -> pd.DataFrame:
    """Failure-free ``block_s`` means of each static run: ci, thr, lat, con."""
    rows = []
    for name, ci in STATIC_CI_S.items():
        run = runs[name][["thr", "lat", "con"]].copy()
        for start, end in _failure_windows(events[name]):
            run.loc[start - 240 : end + 240] = np.nan  # latency settles minutes after a catch-up
        grouped = run.groupby(run.index // block_s)
        blocks = grouped.mean()[grouped["thr"].count() == block_s].dropna()
        rows.append(blocks.assign(ci=ci))
    return pd.concat(rows, ignore_index=True)


def _latency_terms(runs, events, params: SimParams) -> dict:
    """lat = lat0 + lat_per_event * a + checkpoint_ms * checkpoint_s / CI on failure-free 300 s
    means (least squares); a negative checkpoint term is set to 0."""
    blocks = _quiet_blocks(runs, events)
    design = np.column_stack([np.ones(len(blocks)), blocks["thr"], 1 / blocks["ci"]])
    (lat0, per_event, per_ci), *_ = np.linalg.lstsq(design, blocks["lat"], rcond=None)
    return {
        "lat0_ms": float(max(lat0, 0.0)),
        "lat_per_event_ms": float(max(per_event, 0.0)),
        "checkpoint_ms": float(max(per_ci, 0.0) / params.checkpoint_s),
    }


def _noise_terms(runs, events, params: SimParams) -> dict:
    """Relative noise of throughput and lag on failure-free seconds (robust SD, 1.4826 MAD, of
    the deviation from a centred 61 s median), of latency (SD), and the normal lag in seconds of
    arrivals."""
    thr_dev, con_dev, lat_dev, base = [], [], [], []
    for name in STATIC_CI_S:
        run = runs[name].copy()
        for start, end in _failure_windows(events[name]):
            run.loc[start:end] = np.nan
        smooth = run.rolling(61, center=True, min_periods=30).median()
        relative = ((run - smooth) / smooth).replace([np.inf, -np.inf], np.nan)
        mad = (relative - relative.median()).abs().median() * 1.4826
        thr_dev.append(mad["thr"])
        con_dev.append(mad["con"])
        # Latency is scraped in flat steps (MAD 0): its SD, clipped at +-100%, instead.
        lat_dev.append(relative["lat"].clip(-1, 1).std())
        base.append((run["con"] / run["thr"]).median() / params.lag_scale)
    return {
        "thr_noise": float(np.median(thr_dev)),
        "con_noise": float(np.median(con_dev)),
        "lat_noise": float(np.median(lat_dev)),
        "base_lag_s": float(np.median(base)),
    }


# -- how well the simulator reproduces the measured failures --
def reproduce_failures(
    workload: pd.Series, measured: pd.DataFrame, params: SimParams, rng: np.random.Generator
) -> pd.DataFrame:
    """Simulate each measured static failure on the workload around it (the 1200 s before to
    1500 s after) at its CI, and measure k and the drain time in the simulated series as in the
    data (:func:`khaos.detect_failures`). Adds sim_k and sim_drain_s to ``measured``."""
    sim_k, sim_drain = [], []
    for row in measured.itertuples():
        segment = workload.loc[row.second - 1200 : row.second + 1500]
        result = simulate(segment, row.ci, [row.second - row.ci], params, rng)
        found = detect_failures(result.run)
        found = found[(found["kind"] == "failure") & found["within"].isna()]
        if found.empty:
            sim_k.append(np.nan)
            sim_drain.append(np.nan)
            continue
        first = found.iloc[0]
        sim_k.append(first["k"])
        sim_drain.append(first["catch_up_end"] - first["second"])
    return measured.assign(sim_k=sim_k, sim_drain_s=sim_drain)


# -- phase 2: one profiling deployment (its sweep function: khaos.experiments.profile_point) --
@lru_cache(maxsize=4)
def workload_of(folder: str, experiment: str) -> pd.Series:
    """:func:`estimate_workload` of an experiment's six runs (cached per process)."""
    runs = load_experiment(folder, experiment)
    events = {c: detect_failures(runs[c]) for c in CONFIGURATIONS}
    return estimate_workload(runs, events)


def profile_failures(
    workload: pd.Series,
    ci: float,
    failure_seconds,
    params: SimParams,
    rng: np.random.Generator,
    window_s: int = 1200,
    latency_window_s: int = 300,
) -> list[dict]:
    """Phase 2 for one deployment (one CI): for each failure point, replay the ``window_s`` s
    around it (artifact: about +-1200 s), inject the failure, measure the recovery with the
    detector and the latency as the mean over the ``latency_window_s`` s before the injection
    (Eq. (6)). One row per failure point."""
    _check_ci(ci)
    rows = []
    for index, second in enumerate(failure_seconds):
        lo = max(int(workload.index[0]), int(second) - window_s)
        segment = workload.loc[lo : int(second) + window_s]
        result = simulate(segment, ci, [int(second)], params, rng)
        injected = int(result.failures["injected"].iloc[0])
        run = result.run
        detected = recovery_times(run, [injected], DEFAULT_DETECTOR)
        before = run.loc[injected - latency_window_s : injected - 1]
        rows.append(
            {
                "failure_index": index,
                "failure_second": injected,
                "throughput": float(before["thr"].mean()),
                "latency_ms": float(before["lat"].mean()),
                "recovery_time_s": float(detected["recovery_time_s"].iloc[0]),
                "recovery_true_s": float(result.failures["recovery_s"].iloc[0]),
            }
        )
    return rows


# -- replay over the measured day --
def replay_summary(
    result: SimResult, configuration: str, qos: QoS = PAPER_QOS
) -> tuple[dict, pd.DataFrame]:
    """A Tables II-III row of a simulated day (latency from the observed series, recovery from
    the detector at the injected failures), and the per-failure recoveries."""
    run = result.run
    latency = run["lat"]
    detected = recovery_times(run, result.failures["injected"], DEFAULT_DETECTOR)
    total, above = recovery_totals(detected["recovery_time_s"], qos)
    row = {
        "configuration": configuration,
        "avg_latency_ms": float(latency.mean()),
        "latency_violations_fraction": float((latency > qos.latency_ms).mean()),
        "recovery_time_s": total,
        "recovery_violations_s": above,
    }
    per_failure = detected[["failure_second", "recovery_time_s"]].assign(
        configuration=configuration,
        failure_index=np.arange(len(detected)),
        recovery_true_s=result.failures["recovery_s"].to_numpy(),
    )
    return row, per_failure


def day_failures(
    runs: dict[str, pd.DataFrame],
    configurations=("static 60s", "static 90s", "static 120s", "Khaos"),
) -> np.ndarray:
    """The failure instants of the measured day shared by ``configurations`` (default: the Khaos
    run and the static runs injected on its schedule; the 10 s and 30 s runs were injected on
    another): the median second of each :func:`khaos.failures.injected_failures` cluster."""
    from khaos.failures import injected_failures

    events = {c: detect_failures(runs[c]) for c in configurations}
    found = injected_failures(events)
    return found.groupby("failure_index")["second"].median().round().astype(int).to_numpy()


def replay(
    workload: pd.Series,
    failure_seconds,
    models,
    static_cis=(10, 30, 60, 90, 120),
    sim: SimParams = DEFAULT_SIM,
    method=None,
    seed: int = 0,
    qos: QoS = PAPER_QOS,
):
    """The measured day replayed on the simulator: each static CI and Khaos (phase 3 with
    ``models``) on the same arrivals and failure instants, with the same observation noise seed.
    Khaos starts at :func:`khaos.method.choose_interval` for the first ``averaging_s`` s (the
    middle profiling CI if none is feasible: ours). Returns (Tables II-III-like rows,
    per-failure recoveries, the Khaos SimResult)."""
    from khaos.method import DEFAULT_METHOD, Khaos, choose_interval

    method = method or DEFAULT_METHOD
    rows, parts = [], []
    for ci in static_cis:
        result = simulate(workload, ci, failure_seconds, sim, np.random.default_rng(seed))
        row, per = replay_summary(result, f"static {ci}s", qos)
        rows.append(row)
        parts.append(per)
    start = float(workload.iloc[: method.averaging_s].mean())
    initial = choose_interval(start, models, params=method)
    if initial is None:
        initial = int(method.profile_cis()[len(method.profile_cis()) // 2])
    controller = Khaos(models=models, params=method)
    khaos = simulate(
        workload, initial, failure_seconds, sim, np.random.default_rng(seed), controller
    )
    row, per = replay_summary(khaos, "Khaos", qos)
    rows.insert(0, row)
    parts.insert(0, per)
    return pd.DataFrame(rows), pd.concat(parts, ignore_index=True), khaos
