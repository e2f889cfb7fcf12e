"""Which checkpoint interval? Every paper's answer for one scenario and workload (notebook
cross_interval), the interval the recovery QoS allows, their sensitivity and a decision map.

The answers: Young/Daly's first-order interval and multilevel's one- and two-level optima
(Jayasekara et al., Eq. (11)/(13)), FastRecover's per-segment frequencies (Algorithm 1), the best
static CI of Khaos's Tables II-III by its objective (8) and Khaos at runtime (phases 1-3), each
replayed on the khaos simulator (:mod:`khaos.simulate`) over a workload: the Khaos measured day of
the scenario's experiment, or a trace (:func:`read_trace`).

One per-failure recovery model: :func:`recovery_s`, the cross notebooks' shared model
(:func:`crosspaper.recovery.recovery_s`: restart, then the replayed backlog drained at the spare
capacity, as the khaos simulator drains it) at the simulator's parameters. Everything here that
needs the time a single failure takes to recover calls it.

Failures: the simulator replays node failures (the Khaos days' killed task managers; a trace gets
the scenario's node-failure rate, :func:`trace_failures`), which restart from the last remote
checkpoint: multilevel's level 2 (``to_multilevel``: level 1 = process failures, level 2 = node
failures). The analytical answers take every failure kind of the scenario.

Normal-time cost: the simulator checkpoints asynchronously (as Flink): a checkpoint adds
``checkpoint_ms`` of latency while it runs and costs no throughput, so the cost used to compare
intervals is the latency added (:func:`checkpoint_latency_ms`). Multilevel's utilization U charges
c seconds of blocked processing per checkpoint: it is reported beside it as the throughput share a
*blocking* checkpoint would cost, an upper bound for an asynchronous one.

The QoS interval takes the cross notebooks' one reading of the checkpoint cost
(``COST_READINGS``, as crosspaper.frontier and crosspaper.correlated): "blocking" by default (c =
processing time lost per checkpoint: a recovery catches up at C (1 - c/T), and an interval needs
c/T < 1 - a/C to progress at the load a), "async" (capacity C) a sensitivity row; the headline
depends on the reading where the two differ (rev20d #1).

Units: s, events/s, ms. Pure: no Spark, no pipeline (the notebook runs the ``*_point`` functions
through ``pipeline.sweep`` and passes printed tables in).
"""

import hashlib
import math
import warnings
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from crosspaper import recovery
from crosspaper.frontier import COST_READINGS
from crosspaper.scenarios import (
    DATA,
    DAY_RATE_TOLERANCE,
    SECONDS_PER_DAY,
    Scenario,
    snapshot_storage,
    to_fastrecover,
    to_khaos,
    to_multilevel,
)
from crosspaper.scenarios import with_headroom as with_scenario_headroom
from fastrecover import optimize_chain
from khaos import calibrate, failure_points, fit_models, objective, replay
from khaos.data import load_experiment
from khaos.experiments import sim_params, sim_point, static_replay
from khaos.params import DEFAULT_DETECTOR
from khaos.simulate import SimParams, profile_failures
from khaos.simulate import workload_of as khaos_workload
from multilevel.optimize import first_order_interval, optimal
from multilevel.utilization import utilization

# The simulator's latency and observation terms, refitted on the YSB series for YSB (the package's
# IoT-calibrated ones predict 1.1 s of latency at YSB's load; capacity, drain, restart stay).
LATENCY_TERMS = (
    "lat0_ms",
    "lat_per_event_ms",
    "checkpoint_ms",
    "recovery_latency_ms",
    "savepoint_restart_s",
    "lag_scale",
    "base_lag_s",
    "thr_noise",
    "con_noise",
    "lat_noise",
)
# Failure timing: "worst" = 3 s before a checkpoint (Khaos III-C); "mid" = the middle of the
# interval (CI/2 lost), which gives the MEDIAN recovery over a failure moment uniform in the
# interval (recovery is non-decreasing in the lost work), not its mean (recovery.TIMINGS'
# "uniform", the frontier's loss, is the mean).
TIMINGS = ("worst", "mid")
MAX_CI_S = 3600  # the longest interval searched for the QoS (s)
# The detector's recovery column (Khaos Tables II-III) disagrees with the simulator's true
# recoveries when a failure never recovers or their seconds above the limit differ by more than
# both of these (fixed before looking: a job near capacity is behind all day and the detector
# finds no recovery to count).
DISAGREE_ABS_S = 60.0
DISAGREE_REL = 0.25
TRACE_COLUMNS = ("second", "rate")


# -- the workload: the Khaos day or a trace ----------------------------------------------------
def read_trace(path) -> pd.Series:
    """A workload trace: a CSV with columns ``second`` (integers, contiguous and increasing) and
    ``rate`` (input events/s, finite and >= 0), one row per second, at least 600 rows (the Khaos
    method averages over 300 s windows). Returns the rates indexed by second. Raises ValueError
    naming the file, the column and the row (1-based, after the header) of the first bad value."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"trace: no such file {str(path)!r}")
    try:
        table = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise ValueError(f"trace {path.name}: not a CSV file ({error})") from error
    missing = [c for c in TRACE_COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(
            f"trace {path.name}: missing column(s) {missing}; needs {list(TRACE_COLUMNS)}, "
            f"has {list(table.columns)}"
        )
    if len(table) < 600:
        raise ValueError(f"trace {path.name}: needs at least 600 rows (s); got {len(table)}")
    for column in TRACE_COLUMNS:
        values = pd.to_numeric(table[column], errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(values) | (values < 0)
        if column == "second":
            bad |= values != np.round(values)
        if bad.any():
            row = int(np.argmax(bad))
            kind = "integer" if column == "second" else "number"
            value = table[column].iloc[row]
            value = value.item() if isinstance(value, np.generic) else value
            raise ValueError(
                f"trace {path.name}: column {column!r}, row {row + 1}: must be a finite {kind} "
                f">= 0; got {value!r}"
            )
    seconds = table["second"].to_numpy(dtype=np.int64)
    steps = np.diff(seconds)
    if np.any(steps != 1):
        row = int(np.argmax(steps != 1)) + 1
        raise ValueError(
            f"trace {path.name}: column 'second', row {row + 1}: seconds must be contiguous and "
            f"increasing; {seconds[row - 1]} is followed by {seconds[row]}"
        )
    index = pd.RangeIndex(int(seconds[0]), int(seconds[-1]) + 1, name="second")
    return pd.Series(table["rate"].to_numpy(dtype=float), index=index, name="arrivals")


def detector_history_s() -> int:
    """Seconds of history the Khaos detector needs before a failure (training_s + guard_s of
    :data:`khaos.params.DEFAULT_DETECTOR`): a replay refuses an earlier failure."""
    return DEFAULT_DETECTOR.training_s + DEFAULT_DETECTOR.guard_s


def trace_failures(workload: pd.Series, s: Scenario) -> tuple[int, ...]:
    """Failure instants on a trace: the scenario's node-failure rate (single + correlated per day;
    the simulator replays node failures, as the Khaos days' killed task managers) over the
    trace's duration, round(rate x duration) failures (at least one) evenly spaced after the
    detector's history (:func:`detector_history_s`), the i-th at the middle of the i-th of as
    many equal spans (deterministic: ours; the Khaos days use their measured instants). Raises
    ValueError on a trace no longer than that history."""
    first, n = int(workload.index[0]), len(workload)
    history = detector_history_s()
    if n <= history:
        raise ValueError(
            f"trace: {n:,} s long; failures need {history:,} s of history before them (the "
            f"Khaos detector's training_s + guard_s)"
        )
    rate = (s.failures.single_per_day + s.failures.correlated_per_day) / SECONDS_PER_DAY
    count = max(1, round(rate * n))
    # rev20m: spread over the whole trace, the first failure (n / 2 count) could fall inside the
    # detector's history and the replay failed on a trace with frequent failures
    return tuple(first + history + int((i + 0.5) * (n - history) / count) for i in range(count))


@lru_cache(maxsize=8)
def _trace_cached(path: str, sha256: str) -> pd.Series:
    return read_trace(path)


def _data_relative(folder) -> str:
    """``folder`` relative to the project's data/ when it lies inside it, else absolute."""
    path = Path(folder).resolve()
    return str(path.relative_to(DATA)) if path.is_relative_to(DATA) else str(path)


def workload(point: dict) -> pd.Series:
    """The workload a sweep point names: ``trace`` (path, with ``trace_sha256`` so the sweep
    cache follows the file's content) or the Khaos ``folder`` (relative to the project's data/,
    or absolute) and ``experiment``."""
    if point.get("trace"):
        return _trace_cached(point["trace"], point["trace_sha256"])
    return khaos_workload(DATA / point["folder"], point["experiment"])


def _check_trace_rate(workload: pd.Series, s: Scenario, path: Path) -> None:
    """Refuses a trace whose mean rate and the scenario's topology.input_rate disagree by more
    than DAY_RATE_TOLERANCE (the rule of a measured day, scenarios._check_day): the trace is
    replayed at its own rates and input_rate is used everywhere else, so one job would be two."""
    mean, rate = float(workload.mean()), s.topology.input_rate
    if abs(rate - mean) > DAY_RATE_TOLERANCE * mean:
        raise ValueError(
            f"trace {path.name}: its mean rate ({mean:,.0f} events/s) and topology.input_rate "
            f"of scenario {s.name} ({rate:,.0f} events/s) disagree by more than "
            f"{DAY_RATE_TOLERANCE:.0%}: the trace is replayed at its own rates; set input_rate "
            f"to {mean:.0f} in your scenario (-p scenario=your_job.toml)"
        )


def trace_min_seconds(levels: int, method) -> int:
    """The shortest trace Khaos's phase 1 can place ``levels`` failure points on
    (:func:`khaos.method.failure_points`): ``skip_s`` skipped at both ends and the points
    ``min_separation_s`` apart, 2 skip_s + (levels - 1) min_separation_s + 1 seconds."""
    return 2 * method.skip_s + (levels - 1) * method.min_separation_s + 1


def _check_trace_length(workload: pd.Series, levels: int, method, path: Path) -> None:
    """Refuses, when it is read, a trace too short for phase 1 (:func:`trace_min_seconds`)."""
    need = trace_min_seconds(levels, method)
    if len(workload) < need:
        raise ValueError(
            f"trace {path.name}: {len(workload):,} s long; the Khaos method needs at least "
            f"{need:,} s for levels = {levels} (2 x {method.skip_s} s skipped at the ends + "
            f"(levels - 1) x {method.min_separation_s} s between failure points): give a longer "
            f"trace or a smaller -p levels=N (>= 2)"
        )


# -- the simulated job of a scenario ------------------------------------------------------------
class Job:
    """The simulated job of a scenario on its workload: ``setup`` (:func:`to_khaos`), ``sim``
    (YSB's latency terms refitted on the YSB series), ``method`` (the Khaos method with the
    notebook's levels and profiling CIs), ``workload`` (events/s by second), ``failure_seconds``,
    ``source`` (the workload's keys for a sweep point) and ``cost_reading`` (COST_READINGS: how
    the QoS interval reads the checkpoint cost)."""

    def __init__(
        self,
        s: Scenario,
        folder,
        trace=None,
        levels=12,
        profile_configurations=0,
        cost_reading=COST_READINGS[0],
    ):
        if cost_reading not in COST_READINGS:
            raise ValueError(f"cost_reading must be one of {COST_READINGS}; got {cost_reading!r}")
        self.scenario = s
        self.cost_reading = cost_reading  # the QoS interval's reading of the checkpoint cost
        self.setup = setup = to_khaos(s)
        if trace is None:
            if setup.experiment == "none":
                raise ValueError(
                    f"trace: scenario {s.name} has khaos.experiment = 'none'; give a trace CSV"
                )
            # relative to the project's data/ where it lies there: a sweep point (whose hash
            # seeds the profiling draws) must not change with the checkout's location
            self.source = {"folder": _data_relative(folder), "experiment": setup.experiment}
            self.failure_seconds = tuple(int(x) for x in setup.failure_seconds)
            self.workload = workload(self.source)
        else:
            path = Path(trace).resolve()
            self.workload = read_trace(path)
            _check_trace_rate(self.workload, s, path)
            _check_trace_length(self.workload, levels, setup.method, path)
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            self.source = {"trace": str(path), "trace_sha256": digest}
            self.failure_seconds = trace_failures(self.workload, s)
        # the replayed node failures restart where the cross notebooks' one rule puts them
        # (crosspaper.recovery.restart_plan): without room on the survivors or a standby node
        # they wait for an acquired node, the expected wait added to the restart
        self.wait_s = recovery.node_failure_wait_s(s)
        sim = replace(setup.sim, restart_s=setup.sim.restart_s + self.wait_s)
        if setup.experiment == "ysb":
            fitted, _ = calibrate(load_experiment(folder, "ysb"))
            sim = replace(sim, **{k: getattr(fitted, k) for k in LATENCY_TERMS})
        self.sim = sim
        # the QoS bounds every recovery: its restart waits the longest (rev20c #4)
        worst = setup.sim.restart_s + recovery.node_failure_worst_wait_s(s)
        self.qos_sim = replace(sim, restart_s=worst)
        self.method = replace(
            setup.method,
            levels=levels,
            profile_configurations=profile_configurations or setup.method.profile_configurations,
        )
        self.peak = float(self.workload.rolling(min(300, len(self.workload))).mean().max())
        if self.peak >= sim.capacity:
            warnings.warn(
                f"{s.name}: checkpoint.catch_up_rate ({sim.capacity:,.0f} events/s) is at or "
                f"below the workload's peak 300-s load ({self.peak:,.0f} events/s): at the peak "
                f"a backlog never drains and no interval meets the recovery limit there",
                stacklevel=2,
            )

    def point(self, ci: int, sim: SimParams | None = None, **extra) -> dict:
        """A replay point of this job at CI ``ci`` (s)."""
        return {
            **self.source,
            "ci": int(ci),
            "failure_seconds": list(self.failure_seconds),
            "qos_latency_ms": self.setup.qos.latency_ms,
            "qos_recovery_s": self.setup.qos.recovery_s,
            **sim_point(sim or self.sim),
            **extra,
        }


# -- the one per-failure recovery model ----------------------------------------------------------
def recovery_s(
    arrivals, ci, sim: SimParams, timing: str = "worst", cost_s: float = 0.0
) -> np.ndarray:
    """Seconds one failure takes to recover at constant ``arrivals`` (events/s) and interval
    ``ci`` (s): :func:`crosspaper.recovery.recovery_s` with the simulator's capacity and drain
    constant, down ``sim.restart_s`` s (include any wait for a node there), then the work lost
    since the last checkpoint, replayed, and the arrivals meanwhile drain at the spare capacity
    (linear at capacity - arrivals, exponential below the knee, until within 5% of the peak
    backlog: the khaos simulator's drain). ``timing``: "worst" (failure ``inject_before_s`` = 3 s
    before the next checkpoint, Khaos III-C: CI - 3 s of work lost) or "mid" (CI/2 lost: the
    median recovery over a failure moment uniform in the interval, since recovery is
    non-decreasing in the lost work; not the mean). ``cost_s``: processing time each checkpoint
    blocks (the blocking reading, :func:`blocked_s`): the catch-up runs at C (1 - cost_s/ci);
    0 (the async reading): at C. Infinite where the arrivals reach that capacity (the backlog
    never drains; under blocking: cost_s/ci >= 1 - arrivals/C, the interval does not progress)."""
    if timing not in TIMINGS:
        raise ValueError(f"timing must be one of {TIMINGS}; got {timing!r}")
    ci = np.asarray(ci, dtype=float)
    if np.any(~(ci > 0)):
        raise ValueError(f"ci must be > 0; got {ci!r}")
    if not (math.isfinite(cost_s) and cost_s >= 0):
        raise ValueError(f"cost_s must be a finite number >= 0; got {cost_s!r}")
    lost = np.maximum(ci - sim.inject_before_s if timing == "worst" else ci / 2.0, 0.0)
    a = float(arrivals)
    job = recovery.Job(input_rate=a, capacity=sim.capacity, drain_tau_s=sim.drain_tau_s)
    capacity = sim.capacity * (1.0 - np.minimum(cost_s / ci, 1.0))  # C (1 - c/T)
    return np.asarray(recovery.recovery_s(lost, sim.restart_s, job, capacity=capacity))[()]


def blocked_s(s: Scenario, reading: str) -> float:
    """Processing time one remote checkpoint blocks under ``reading`` (COST_READINGS): the
    scenario's checkpoint.remote_cost_s ("blocking"), 0 ("async")."""
    if reading not in COST_READINGS:
        raise ValueError(f"cost_reading must be one of {COST_READINGS}; got {reading!r}")
    return s.checkpoint.remote_cost_s if reading == "blocking" else 0.0


def qos_interval(
    arrivals, sim: SimParams, limit_s: float, timing: str = "worst", cost_s: float = 0.0
) -> float:
    """The longest whole-second CI (1..MAX_CI_S) whose :func:`recovery_s` (``cost_s``: its
    blocked time per checkpoint) stays within ``limit_s`` at ``arrivals``; NaN where none does
    (infeasible: even CI = 1 s breaks the limit, e.g. the restart alone or arrivals at
    capacity). Every CI is scanned: under blocking short intervals catch up slower, so the
    recovery is not monotone in CI."""
    return qos_range(arrivals, sim, limit_s, timing, cost_s)[1]


def qos_meeting(arrivals, sim: SimParams, limit_s: float, timing: str = "worst", cost_s=0.0):
    """(the whole-second CIs 1..MAX_CI_S, whether each one's :func:`recovery_s` stays within
    ``limit_s``)."""
    cis = np.arange(1, MAX_CI_S + 1)
    return cis, recovery_s(arrivals, cis, sim, timing, cost_s) <= limit_s


def qos_range(
    arrivals, sim: SimParams, limit_s: float, timing: str = "worst", cost_s: float = 0.0
) -> tuple[float, float]:
    """(shortest, longest) whole-second CI meeting ``limit_s`` (:func:`qos_meeting`); (NaN, NaN)
    where none does. Under blocking (``cost_s`` > 0) the meeting CIs form a range [lo, hi]:
    too short an interval catches up at too little of C (rev20f #0)."""
    cis, ok = qos_meeting(arrivals, sim, limit_s, timing, cost_s)
    return (float(cis[ok].min()), float(cis[ok].max())) if ok.any() else (math.nan, math.nan)


def checkpoint_latency_ms(ci, sim: SimParams) -> np.ndarray:
    """Mean latency an asynchronous checkpoint adds at interval ``ci``: ``checkpoint_ms`` during
    the first ``checkpoint_s`` s of every interval (the simulator's normal-time cost)."""
    ci = np.asarray(ci, dtype=float)
    return sim.checkpoint_ms * np.minimum(sim.checkpoint_s, ci) / ci


# -- the analytical answers ----------------------------------------------------------------------
def utilization_system(s: Scenario):
    """(system, p of a remote-only checkpoint) for multilevel's U: the two-level system (level 1 =
    process failures) when the scenario has process failures, else the one-level one."""
    if s.failures.process_per_day > 0:
        return to_multilevel(s, levels=2), (0.0, 1.0)
    return to_multilevel(s, levels=1), (1.0,)


def remote_utilization(ci, s: Scenario) -> np.ndarray:
    """Multilevel's U of remote-only checkpoints every ``ci`` s (0 where ci <= c: no progress)."""
    system, p = utilization_system(s)
    ci = np.asarray(ci, dtype=float)
    u = utilization(np.maximum(ci, system.c[-1] + 1e-9), p, system)
    return np.where(ci > system.c[-1], u, 0.0)


def analytical_answers(s: Scenario, fr_log_bandwidth: float, ch_max_values=()):
    """Young, Daly, multilevel one- and two-level (level 1 = process failures, level 2 = node
    failures; two levels only when the scenario has process failures) and FastRecover (with
    input logged at ``fr_log_bandwidth`` KB/min, the full state snapshotted in the remote
    checkpoint cost; the window operator's interval). Returns
    (answers: list of dicts scenario/choice/interval_s/note[/p], FastRecover's per-operator
    intervals, its window interval per CH_max, the mapped-as-is note)."""
    one = to_multilevel(s, levels=1)
    best1 = optimal(one)
    answers = [
        {
            "choice": "Young",
            "interval_s": first_order_interval(one, daly=False),
            "note": "c + sqrt(2 c M), M = 1/Λ",
        },
        {
            "choice": "Daly",
            "interval_s": first_order_interval(one),
            "note": "c + sqrt(2 c (M + r))",
        },
        {
            "choice": "multilevel 1-level",
            "interval_s": best1.T,
            "note": f"Eq. (13) optimum, U = {best1.U:.4f}",
        },
    ]
    if s.failures.process_per_day > 0:
        best2 = optimal(to_multilevel(s, levels=2))
        answers.append(
            {
                "choice": "multilevel 2-level",
                "interval_s": best2.T,
                "p": best2.p,
                "note": f"p1 = {best2.p[0]:.3f} local, remote every {best2.T / best2.p[-1]:.0f} s, "
                f"U = {best2.U:.4f}",
            }
        )
    topo, storage, ch_max, z = to_fastrecover(s)
    mapped = optimize_chain(topo, ch_max, z, storage)
    source_log = topo.rates[0] * topo.theta[0] / storage.bandwidth
    note = (
        f"**{s.name}, FastRecover as mapped**: feasible = {mapped.feasible}. Logging the source's "
        f"input takes {source_log:.2f} min of every minute at B_log = {storage.bandwidth:,.0f} "
        f"KB/min, against a budget CH_max = {ch_max}."
    )
    names = [op.name for op in s.topology.operators]
    window = int(np.argmax(topo.pi))
    kafka = snapshot_storage(s, fr_log_bandwidth)
    per_operator, budget_rows = [], []
    for budget in sorted(set(ch_max_values) | {ch_max}):
        result = optimize_chain(topo, budget, z, kafka)
        intervals = 60.0 / np.array(result.frequencies) if result.feasible else None
        budget_rows.append(
            {
                "scenario": s.name,
                "ch_max": budget,
                "feasible": result.feasible,
                "anchors": ", ".join(names[a - 1] for a in result.anchors)
                if result.feasible
                else None,
                "window_interval_s": float(intervals[window]) if result.feasible else None,
                "expected_recovery_min": result.expected_recovery_time,
            }
        )
        if budget == ch_max and result.feasible:
            per_operator += [
                {
                    "scenario": s.name,
                    "operator": op,
                    "anchor": i + 1 in result.anchors,
                    "state_kb": float(topo.pi[i]),
                    "interval_s": float(intervals[i]),
                }
                for i, op in enumerate(names)
            ]
            answers.append(
                {
                    "choice": "FastRecover",
                    "interval_s": float(intervals[window]),
                    "note": f"{names[window]}'s segment at CH_max = {ch_max}",
                }
            )
    answers = [{"scenario": s.name, **a} for a in answers]
    return answers, pd.DataFrame(per_operator), pd.DataFrame(budget_rows), note


def khaos_tables_best(s: Scenario, printed: pd.DataFrame, failures_per_run: int = 12):
    """The static CI of a printed Khaos table (II or III) minimizing objective (8), 2 max(L, R),
    with L = average latency / the latency limit and R = mean recovery per failure (total /
    ``failures_per_run``, 12 in the paper) / the recovery limit. Returns (the static rows with
    L, R, objective_8; the answer, noting the CI with the fewest recovery-violation seconds)."""
    static = printed[printed["configuration"].str.startswith("static")].copy()
    static["ci_s"] = static["configuration"].str.extract(r"(\d+)").astype(float)[0]
    static["L"] = static["avg_latency_ms"] / s.qos.latency_ms
    static["R"] = static["recovery_time_s"] / failures_per_run / s.qos.recovery_s
    static["objective_8"] = objective(static["L"], static["R"])
    static.insert(0, "scenario", s.name)
    by_objective = float(static.loc[static["objective_8"].idxmin(), "ci_s"])
    by_violations = float(static.loc[static["recovery_violations_s"].idxmin(), "ci_s"])
    answer = {
        "scenario": s.name,
        "choice": "Khaos tables' best",
        "interval_s": by_objective,
        "note": f"objective (8) on the printed table; fewest recovery violations at "
        f"{by_violations:.0f} s",
    }
    return static.reset_index(drop=True), answer


# -- Khaos at runtime ----------------------------------------------------------------------------
def profile_grid(job: Job) -> list[dict]:
    """Phase 2's deployments: one point per profiling CI, with phase 1's failure points."""
    points = failure_points(job.workload, job.method)
    return [
        {
            **job.source,
            "ci": int(ci),
            "failure_seconds": [int(x) for x in points["second"]],
            **sim_point(job.sim),
        }
        for ci in job.method.profile_cis()
    ]


def profile_point(point: dict, rng: np.random.Generator) -> list[dict]:
    """One profiling deployment (:func:`khaos.simulate.profile_failures`) on the point's
    workload (:func:`workload`)."""
    return profile_failures(
        workload(point), point["ci"], point["failure_seconds"], sim_params(point), rng
    )


def khaos_runtime(job: Job, profile: pd.DataFrame, seed: int):
    """Phase 3: fit the models on ``profile`` and replay the day with the controller. Returns
    (the Tables II-III row with the true recoveries, the SimResult, the models, the answer)."""
    models = fit_models(profile, job.method)
    row, _, run = replay(
        job.workload,
        job.failure_seconds,
        models,
        static_cis=(),
        sim=job.sim,
        method=job.method,
        seed=seed,
        qos=job.setup.qos,
    )
    ci = run.run["ci"]
    true = run.failures["recovery_s"]
    row = {
        **row.iloc[0].to_dict(),
        "recovery_true_s": float(true.sum()),
        "recovery_true_max_s": float(true.max()) if len(true) else 0.0,
        "recovery_true_violations_s": float(
            (true - job.scenario.qos.recovery_s).clip(lower=0).sum()
        ),
        "unrecovered": int(true.isna().sum()),
        "reconfigurations": len(run.reconfigurations),
        "ci_min_s": float(ci.min()),
        "ci_max_s": float(ci.max()),
        "checkpoint_latency_ms": float(np.mean(checkpoint_latency_ms(ci.to_numpy(), job.sim))),
    }
    answer = {
        "scenario": job.scenario.name,
        "choice": "Khaos runtime",
        "interval_s": float(ci.mean()),
        "note": f"time-weighted mean; range {ci.min():.0f}-{ci.max():.0f} s, "
        f"{len(run.reconfigurations)} reconfigurations",
    }
    return row, run, models, answer


# -- replaying the answers -----------------------------------------------------------------------
def replayed_ci(choice: str, interval_s: float, p=None) -> int:
    """The static CI (whole s) an answer is replayed at: its interval, except multilevel's
    two-level answer (T, p), replayed at its remote interval T / p2: the days' failures are node
    failures, which lose the local checkpoints (level 2) and restart from the last remote one."""
    if choice == "multilevel 2-level":
        interval_s = interval_s / float(p[-1])
    return max(1, int(round(interval_s)))


def two_level_sim(job: Job, p) -> SimParams:
    """The simulator for multilevel's two-level answer, replayed at its remote interval T / p2
    (:func:`replayed_ci`): node failures restart from the remote checkpoint (the scenario's
    simulator), and the 1 / p2 checkpoints of each remote interval (Σ p c s each on average) make
    one checkpoint of their total time."""
    s = job.scenario
    total = float(np.dot(p, to_multilevel(s, levels=2).c)) / float(p[-1])
    return replace(job.sim, checkpoint_s=max(1, round(total)))


def variant_of(choice: str, timing: str = "worst") -> str:
    """The replay variant of an answer: "two-level" for multilevel's, else "remote"; mid-interval
    failures add " mid"."""
    base = "two-level" if choice == "multilevel 2-level" else "remote"
    return base if timing == "worst" else f"{base} mid"


def replay_grid(job: Job, answers: pd.DataFrame, ci_grid, timings=TIMINGS) -> list[dict]:
    """Replay points of a job: each grid CI and each static answer (:func:`replayed_ci`), with
    remote checkpoints (and the two-level answer's own simulator), for each failure timing ("mid":
    ``inject_before_s`` = CI // 2)."""
    name = job.scenario.name
    mine = answers[answers["scenario"] == name]
    sims = {"remote": job.sim}
    two = mine[mine["choice"] == "multilevel 2-level"]
    if len(two):
        sims["two-level"] = two_level_sim(job, two.iloc[0]["p"])
    wanted = [(int(ci), "remote") for ci in ci_grid]
    for row in mine.itertuples():
        if row.choice != "Khaos runtime":
            p = row.p if row.choice == "multilevel 2-level" else None
            wanted.append((replayed_ci(row.choice, row.interval_s, p), variant_of(row.choice)))
    points, seen = [], set()
    for timing in timings:
        for ci, variant in wanted:
            key = (ci, variant if timing == "worst" else f"{variant} mid")
            if key in seen:
                continue
            seen.add(key)
            sim = sims[variant]
            if timing == "mid":
                sim = replace(sim, inject_before_s=max(1, ci // 2))
            points.append(job.point(ci, sim, scenario=name, variant=key[1]))
    return points


def replay_point(point: dict, rng: np.random.Generator) -> dict:
    """One static CI over the point's workload (:func:`workload`): the replay row of
    :func:`khaos.experiments.static_replay` (the Tables II-III row, the true recoveries, the
    failures, checkpoint_share) and checkpoint_latency_ms (:func:`checkpoint_latency_ms`). ``rng``
    draws the observation noise (common random numbers: the same at every CI)."""
    row = static_replay(workload(point), point, rng)
    return {
        **row,
        "checkpoint_latency_ms": float(
            checkpoint_latency_ms(int(round(point["ci"])), sim_params(point))
        ),
    }


REPLAY_COLUMNS = (
    "avg_latency_ms",
    "latency_violations_fraction",
    "recovery_time_s",
    "recovery_violations_s",
    "recovery_true_s",
    "recovery_true_max_s",
    "recovery_true_violations_s",
    "unrecovered",
    "checkpoint_latency_ms",
)


def detector_disagrees(true_s, detector_s, unrecovered) -> bool:
    """Whether the detector's seconds above the recovery limit (``recovery_violations_s``)
    misstate the simulator's true ones: a failure never recovered, or a difference above both
    DISAGREE_ABS_S and DISAGREE_REL of the larger."""
    if unrecovered > 0:
        return True
    gap = abs(true_s - detector_s)
    return bool(gap > DISAGREE_ABS_S and gap > DISAGREE_REL * max(true_s, detector_s))


def curve(replays: pd.DataFrame, loaded: dict, variant: str = "remote") -> pd.DataFrame:
    """The replayed CI grid of one variant, with multilevel's U of remote checkpoints."""
    out = replays[replays["variant"] == variant].sort_values(["scenario", "ci"])
    out = out[["scenario", "variant", "ci", *REPLAY_COLUMNS]].reset_index(drop=True)
    out["U_if_blocking"] = [
        float(remote_utilization(ci, loaded[sc]))
        for sc, ci in zip(out["scenario"], out["ci"], strict=True)
    ]
    return out


def choices(
    answers: pd.DataFrame, replays: pd.DataFrame, loaded: dict, runtime: dict
) -> pd.DataFrame:
    """Each answer beside its replays (worst-case failures, and mid-interval ones where replayed):
    interval, the replayed CI, U_if_blocking (multilevel's U: Khaos's as the time mean of
    U(CI(t))), the Tables II-III columns and mid-interval overrun. ``runtime``: {scenario: (row,
    SimResult)} of :func:`khaos_runtime`."""
    rows = []
    for a in answers.itertuples():
        s = loaded[a.scenario]
        mid = {}
        if a.choice == "Khaos runtime":
            row, run = runtime[a.scenario]
            ci_t = run.run["ci"].to_numpy()
            measured = row
            u = float(np.mean(remote_utilization(ci_t, s)))
            replayed = f"mean {ci_t.mean():.0f}"
        else:
            two = a.choice == "multilevel 2-level"
            ci = replayed_ci(a.choice, a.interval_s, a.p if two else None)
            variant = variant_of(a.choice)
            hit = replays[(replays["scenario"] == a.scenario) & (replays["ci"] == ci)]
            measured = hit[hit["variant"] == variant].iloc[0].to_dict()
            later = hit[hit["variant"] == f"{variant} mid"]
            if len(later):
                mid = {
                    "recovery_true_violations_mid_s": float(
                        later.iloc[0]["recovery_true_violations_s"]
                    )
                }
            if two:  # U at the answer's own (T, p)
                system = to_multilevel(s, levels=2)
                T = a.interval_s
                u = float(utilization(T, a.p, system)) if T > np.dot(a.p, system.c) else 0.0
            else:
                u = float(remote_utilization(ci, s))
            replayed = str(ci)
        rows.append(
            {
                "scenario": a.scenario,
                "choice": a.choice,
                "interval_s": a.interval_s,
                "replayed_ci_s": replayed,
                "U_if_blocking": u,
                **{c: measured.get(c, math.nan) for c in REPLAY_COLUMNS},
                "recovery_true_violations_mid_s": mid.get(
                    "recovery_true_violations_mid_s", math.nan
                ),
                "detector_disagrees": detector_disagrees(
                    measured.get("recovery_true_violations_s", math.nan),
                    measured.get("recovery_violations_s", math.nan),
                    measured.get("unrecovered", 0),
                ),
                "note": a.note,
            }
        )
    return pd.DataFrame(rows)


# -- the QoS-constrained interval, its sensitivity and the decision map ---------------------------
def headline(s: Scenario, sim: SimParams, peak: float, reading: str = COST_READINGS[0]) -> dict:
    """The headline numbers of one scenario at the peak load ``peak`` (events/s, the day's highest
    300 s mean) under the checkpoint cost ``reading`` (COST_READINGS): multilevel's one-level
    utilization optimum T*, the recovery of a failure there and the longest interval meeting the
    recovery limit (:func:`qos_interval`) and the shortest (:func:`qos_range`: under blocking the
    meeting intervals form a range), for worst-case and mid-interval failures; the cost-optimal
    interval that meets the QoS at worst-case failures and its status: "optimum meets QoS" where
    the recovery AT T* meets the limit (rev20f #0: not only T* <= the longest meeting interval),
    else "QoS binds" with the meeting CI of highest U next to T* (U is unimodal in T: the nearest
    meeting CI below or above T*), or "infeasible" (no interval meets the limit). The prices of
    that interval (rev20m HIGH 8: every number at the interval the finding names, not at the
    longest meeting one): its U, its recovery at the peak (worst moment) and the latency its
    checkpoints add (``sim``'s bump, :func:`checkpoint_latency_ms`)."""
    best = optimal(to_multilevel(s, levels=1))
    limit, cost = s.qos.recovery_s, blocked_s(s, reading)
    out = {
        "cost_reading": reading,
        "utilization_optimal_s": float(best.T),
        "U_at_optimum": float(best.U),
    }
    for timing in TIMINGS:
        lo, hi = qos_range(peak, sim, limit, timing, cost)
        out[f"qos_interval_{timing}_s"] = hi
        out[f"qos_interval_shortest_{timing}_s"] = lo
        out[f"recovery_at_optimum_{timing}_s"] = float(recovery_s(peak, best.T, sim, timing, cost))
    if math.isnan(out["qos_interval_worst_s"]):
        status, chosen = "infeasible", math.nan
    elif out["recovery_at_optimum_worst_s"] <= limit:
        status, chosen = "optimum meets QoS", float(best.T)
    else:
        cis, ok = qos_meeting(peak, sim, limit, "worst", cost)
        below, above = cis[ok & (cis < best.T)], cis[ok & (cis > best.T)]
        near = [float(c) for c in (below[-1:].tolist() + above[:1].tolist())]
        status = "QoS binds"
        chosen = max(near, key=lambda c: float(remote_utilization(c, s)))
    out["cost_optimal_s"] = chosen
    feasible = not math.isnan(chosen)
    out["U_at_cost_optimal"] = float(remote_utilization(chosen, s)) if feasible else math.nan
    out["recovery_at_cost_optimal_worst_s"] = (
        float(recovery_s(peak, chosen, sim, "worst", cost)) if feasible else math.nan
    )
    out["latency_at_cost_optimal_ms"] = (
        float(checkpoint_latency_ms(chosen, sim)) if feasible else math.nan
    )
    out["status"] = status
    return out


def with_rate(s: Scenario, factor: float) -> Scenario:
    """The scenario with every failure rate multiplied by ``factor`` (> 0)."""
    if not factor > 0:
        raise ValueError(f"failure-rate factor must be > 0; got {factor!r}")
    f = s.failures
    failures = replace(
        f,
        process_per_day=f.process_per_day * factor,
        single_per_day=f.single_per_day * factor,
        correlated_per_day=f.correlated_per_day * factor,
    )
    return replace(s, failures=failures)


def with_headroom(s: Scenario, sim: SimParams, factor: float):
    """Scenario and simulator with the spare capacity C - a x ``factor`` (> 0):
    :func:`crosspaper.scenarios.with_headroom`, the one definition of the cross notebooks (a the
    scenario's input rate, C its catch-up rate, the simulator's capacity)."""
    s2 = with_scenario_headroom(s, factor)
    return s2, replace(sim, capacity=s2.checkpoint.catch_up_rate)


def with_cost(s: Scenario, sim: SimParams, cost_s: float):
    """The remote checkpoint cost c (s) set to ``cost_s`` (> 0): multilevel's blocked time per
    checkpoint and the simulator's checkpoint duration (its latency bump); the local cost kept
    at most c."""
    if not cost_s > 0:
        raise ValueError(f"checkpoint cost must be > 0; got {cost_s!r}")
    ck = replace(
        s.checkpoint, remote_cost_s=cost_s, local_cost_s=min(s.checkpoint.local_cost_s, cost_s)
    )
    return replace(s, checkpoint=ck), replace(sim, checkpoint_s=max(1, round(cost_s)))


def with_acquisition(s: Scenario, sim: SimParams, delay_s: float):
    """``delay_s`` (>= 0) of waiting for a node added to every restart (no standby node)."""
    if not delay_s >= 0:
        raise ValueError(f"acquisition delay must be >= 0; got {delay_s!r}")
    ck = replace(
        s.checkpoint,
        local_restart_s=s.checkpoint.local_restart_s + delay_s,
        remote_restart_s=s.checkpoint.remote_restart_s + delay_s,
    )
    return replace(s, checkpoint=ck), replace(sim, restart_s=sim.restart_s + delay_s)


def sensitivity(
    job: Job, rate_factors=(), headroom_factors=(), costs_s=(), acquisition_s=()
) -> pd.DataFrame:
    """:func:`headline` with one choice moved at a time from the scenario's: failure rate x
    factor, headroom (spare capacity C - a x factor, :func:`with_headroom`), checkpoint cost c
    (s), node acquisition delay (s), and the other reading of the checkpoint cost (knob
    "checkpoint cost reading", COST_READINGS); each row has both failure timings. The first row
    is the scenario as given (at ``job.cost_reading``)."""
    s, sim = job.scenario, job.qos_sim
    cases = [("as given", "", s, sim)]
    cases += [("failure rate", f"x{f:g}", with_rate(s, f), sim) for f in rate_factors]
    cases += [("headroom", f"x{h:g}", *with_headroom(s, sim, h)) for h in headroom_factors]
    cases += [("checkpoint cost c", f"{c:g} s", *with_cost(s, sim, c)) for c in costs_s]
    cases += [
        ("node acquisition", f"+{d:g} s", *with_acquisition(s, sim, d)) for d in acquisition_s
    ]
    rows = [
        {
            "scenario": s.name,
            "knob": knob,
            "value": value,
            **headline(s2, sim2, job.peak, job.cost_reading),
        }
        for knob, value, s2, sim2 in cases
    ]
    rows += [
        {
            "scenario": s.name,
            "knob": "checkpoint cost reading",
            "value": other,
            **headline(s, sim, job.peak, other),
        }
        for other in COST_READINGS
        if other != job.cost_reading
    ]
    return pd.DataFrame(rows)


def decision_map(job: Job, rate_factors, headroom_factors) -> pd.DataFrame:
    """:func:`headline` over failure rate (x factor) and headroom (spare capacity x factor,
    :func:`with_headroom`): for each cell the interval that meets the QoS limit at worst-case
    failures (longest), multilevel's optimum, the cost-optimal interval meeting the QoS and its
    status."""
    rows = []
    for h in headroom_factors:
        s_h, sim_h = with_headroom(job.scenario, job.qos_sim, h)
        for f in rate_factors:
            rows.append(
                {
                    "scenario": job.scenario.name,
                    "rate_factor": f,
                    "headroom_factor": h,
                    **headline(with_rate(s_h, f), sim_h, job.peak, job.cost_reading),
                }
            )
    return pd.DataFrame(rows)


def decision_table(table: pd.DataFrame, scenario: str, column: str) -> pd.DataFrame:
    """One scenario's :func:`decision_map` ``column`` as text, rows headroom factor, columns
    failure-rate factor: "<n> s", "infeasible" where NaN, " (QoS)" added to a cost-optimal
    interval the limit binds; a QoS interval (qos_interval_<timing>_s) as the meeting range
    "<lo>-<hi> s" (rev20f #0)."""
    mine = table[table["scenario"] == scenario]
    values = mine.pivot(index="headroom_factor", columns="rate_factor", values=column)
    status = mine.pivot(index="headroom_factor", columns="rate_factor", values="status")
    text = values.map(_fmt)
    shortest = column.replace("qos_interval_", "qos_interval_shortest_")
    if column.startswith("qos_interval_") and shortest in mine:
        lo = mine.pivot(index="headroom_factor", columns="rate_factor", values=shortest)
        text = text.where(values.isna(), lo.map(lambda v: f"{v:.0f}-") + text)
    if column == "cost_optimal_s":
        text = text.where(status != "QoS binds", text + " (QoS)")
    return text


def disagreement(jobs: dict, curves: pd.DataFrame) -> pd.DataFrame:
    """Per scenario: the headline at the peak load (its prices at the interval to use,
    cost_optimal_s), the day's replayed failure count, and on the replayed day the longest grid
    CI whose worst true recovery meets the limit, for each failure timing (curve variants
    "remote" and "remote mid")."""
    rows = []
    for name, job in jobs.items():
        row = {
            "scenario": name,
            "peak_arrivals": job.peak,
            "capacity": job.sim.capacity,
            "failures_replayed": len(job.failure_seconds),
            **headline(job.scenario, job.qos_sim, job.peak, job.cost_reading),
        }
        # the QoS interval and the recovery at T* under the other reading of the checkpoint
        # cost: where the interval differs the headline depends on the reading (rev20d #1); the
        # simulator's day checkpoints asynchronously, so its replays match the async reading
        other = next(r for r in COST_READINGS if r != job.cost_reading)
        theirs = headline(job.scenario, job.qos_sim, job.peak, other)
        row[f"qos_interval_{other}_worst_s"] = theirs["qos_interval_worst_s"]
        row[f"recovery_at_optimum_{other}_worst_s"] = theirs["recovery_at_optimum_worst_s"]
        for timing, variant in zip(TIMINGS, ("remote", "remote mid"), strict=True):
            mine = curves[(curves["scenario"] == name) & (curves["variant"] == variant)]
            ok = mine[mine["recovery_true_max_s"] <= job.scenario.qos.recovery_s]
            row[f"qos_interval_replayed_grid_{timing}_s"] = (
                float(ok["ci"].max()) if len(ok) else math.nan
            )
        rows.append(row)
    return pd.DataFrame(rows)


def khaos_agreement(replayed: pd.DataFrame, printed: pd.DataFrame, tolerance: float = 0.5):
    """The mapping against Khaos's own numbers: for each static CI of a printed Table II/III
    (``printed``: configuration "static <CI>s", recovery_time_s) that the replayed day
    (``replayed``: ci, recovery_time_s by the detector) has, the ratio replayed / printed total
    recovery. Rule (fixed before comparing): the 30-120 s runs (the 10 s and 30 s runs were
    injected on another schedule than the day's, but 30 s is kept) agree when every ratio lies in
    [1 - tolerance, 1 + tolerance] and the replayed totals rise with CI as the printed ones do.
    Returns (the table, agrees)."""
    static = printed[printed["configuration"].str.startswith("static")]
    ci = static["configuration"].str.extract(r"(\d+)")[0].astype(int)
    table = pd.DataFrame({"ci": ci.to_numpy(), "printed_s": static["recovery_time_s"].to_numpy()})
    table = table.merge(
        replayed[["ci", "recovery_time_s"]].rename(columns={"recovery_time_s": "replayed_s"}),
        on="ci",
    )
    table["ratio"] = table["replayed_s"] / table["printed_s"]
    table["judged"] = table["ci"] >= 30
    judged = table[table["judged"]].sort_values("ci")
    if len(judged) < 2:
        return table, False
    within = bool(((judged["ratio"] - 1).abs() <= tolerance).all())
    same_order = bool(
        (np.sign(np.diff(judged["replayed_s"])) == np.sign(np.diff(judged["printed_s"]))).all()
    )
    return table, within and same_order


# -- findings, written from the tables ------------------------------------------------------------
def _fmt(value: float, missing: str = "infeasible") -> str:
    if math.isinf(value):
        return "never (the backlog does not drain)"
    return missing if math.isnan(value) else f"{value:.0f} s"


def load_ratio(peak: float, capacity: float) -> str:
    """ "arrivals / spare = x" at the peak, or why there is no spare (capacity <= peak)."""
    if capacity <= peak:
        return (
            f"no spare capacity: the peak {peak:,.0f} events/s reaches the capacity "
            f"{capacity:,.0f}, so a backlog never drains there"
        )
    return f"arrivals / spare = {peak / (capacity - peak):.1f}"


def _number(value: float, spec: str) -> str:
    return "none" if math.isnan(value) else format(value, spec)


def _span(table: pd.DataFrame, column: str) -> str:
    """A column's range over sensitivity rows ("22-136 s", "83 s"), naming the infeasible cases
    by their value."""
    values = table[column].to_numpy(dtype=float)
    finite = values[np.isfinite(values)]
    bad = table.loc[~np.isfinite(values), "value"].tolist()
    if not len(finite):
        return f"no feasible interval ({', '.join(bad)})"
    lo, hi = finite.min(), finite.max()
    text = f"{lo:.0f} s" if round(lo) == round(hi) else f"{lo:.0f}-{hi:.0f} s"
    return text + (f" (infeasible at {', '.join(bad)})" if bad else "")


def scenario_finding(job: Job, row: pd.Series, curve_rows: pd.DataFrame, sens: pd.DataFrame) -> str:
    """One scenario's finding (markdown bullet) from its :func:`disagreement` row, its replayed
    curve (variant "remote") and its :func:`sensitivity` rows."""
    s = job.scenario
    one = to_multilevel(s, levels=1)  # Λ: every failure kind, per second
    lam_c = one.lam[0] * one.c[0]
    fastest = curve_rows.loc[curve_rows["avg_latency_ms"].idxmin()]
    by = {k: sens[sens["knob"] == k] for k in sens["knob"].unique()}
    parts = [
        f"- **{s.name}**: U is highest at CI = {_interval(row.utilization_optimal_s)} (U = "
        f"{row.U_at_optimum:.3f} if checkpoints blocked, Λc = {lam_c:.1e}); a failure there at the "
        f"peak 300-s load ({row.peak_arrivals:,.0f} events/s against a capacity of "
        f"{row.capacity:,.0f}: {load_ratio(row.peak_arrivals, row.capacity)}) takes "
        f"{_fmt(row.recovery_at_optimum_worst_s)} to recover at the worst moment, "
        f"{_fmt(row.recovery_at_optimum_mid_s)} at the median moment (mid-interval). "
        + (
            f"Recovery there stays within {s.qos.recovery_s:.0f} s for CI = "
            f"{row.qos_interval_shortest_worst_s:.0f} to {_fmt(row.qos_interval_worst_s)} (worst "
            f"moment; "
            if not math.isnan(row.qos_interval_worst_s)
            else f"No interval keeps recovery within {s.qos.recovery_s:.0f} s at the peak (worst "
            f"moment; "
        )
        + f"{_fmt(row.qos_interval_mid_s)} at the median moment; the longest grid CI meeting it "
        f"over the replayed day, each failure at its own load with asynchronous checkpoints: "
        f"{_fmt(row.qos_interval_replayed_grid_worst_s)} / "
        f"{_fmt(row.qos_interval_replayed_grid_mid_s)}). The interval to use: "
        f"{interval_to_use(row)}"
        + (
            f", recovering in {_fmt(row.recovery_at_cost_optimal_worst_s)} at the peak."
            if row.status != "infeasible"
            else "."
        ),
        _reading_text(job, row),
    ]
    if "headroom" in by:
        room = by["headroom"]
        span = f"{room['value'].iloc[0]} to {room['value'].iloc[-1]}"
        parts.append(
            f"Headroom (spare capacity) {span} leaves no feasible interval."
            if not np.isfinite(room["cost_optimal_s"].to_numpy(dtype=float)).any()
            else f"Headroom (spare capacity) {span} moves the interval to use to "
            f"{_span(room, 'cost_optimal_s')}."
        )
    if "node acquisition" in by:
        waits = by["node acquisition"]
        none = not np.isfinite(waits["cost_optimal_s"].to_numpy(dtype=float)).any()
        parts.append(
            f"Waiting for a node ({', '.join(waits['value'])}) leaves no feasible interval."
            if none  # rev20d #9: the waits named once
            else f"Waiting for a node moves the interval to use to "
            f"{_span(waits, 'cost_optimal_s')}."
        )
    if "checkpoint cost c" in by:
        parts.append(
            f"The utilization optimum moves to "
            f"{_span(by['checkpoint cost c'], 'utilization_optimal_s')} with c "
            f"({', '.join(by['checkpoint cost c']['value'])}; the scenario assumes "
            f"{s.checkpoint.remote_cost_s:g} s)"
            + (
                f" and to {_span(by['failure rate'], 'utilization_optimal_s')} with the "
                f"failure rate ({', '.join(by['failure rate']['value'])}), which leaves the limit "
                f"where it is."
                if "failure rate" in by
                else "."
            )
        )
    parts.append(
        f"On the replayed day the average latency is lowest at CI = {fastest.ci:.0f} s "
        f"({fastest.avg_latency_ms:.0f} ms; {curve_rows['avg_latency_ms'].max():.0f} ms at worst "
        f"on the grid)."
    )
    return " ".join(parts)


def _other_reading(job: Job) -> str:
    return next(r for r in COST_READINGS if r != job.cost_reading)


def _reading_text(job: Job, row: pd.Series) -> str:
    """The QoS interval under the job's reading of the checkpoint cost against the other one
    (the disagreement row's qos_interval_<other>_worst_s): "depends" where they differ."""
    other = _other_reading(job)
    mine, theirs = row.qos_interval_worst_s, row[f"qos_interval_{other}_worst_s"]
    same = (math.isnan(mine) and math.isnan(theirs)) or mine == theirs
    return (
        f"The QoS interval reads the checkpoint cost as {job.cost_reading} (the cross notebooks' "
        f"one reading{': catch-up at C (1 - c/T)' if job.cost_reading == 'blocking' else ''}); "
        f"read as {other} it is {_fmt(theirs, 'none')}"
        + (", the same." if same else ": the QoS interval **depends** on the reading.")
    )


def _against_limit(recovery: float, limit: float) -> str:
    """A recovery at the peak against the limit: "<r> s, <r - limit> s above the limit", "<r> s,
    within the limit", or why there is none."""
    if math.isnan(recovery) or math.isinf(recovery):
        return _fmt(recovery, "none")
    above = f"{recovery - limit:.0f} s above the limit" if recovery > limit else "within the limit"
    return f"{recovery:.0f} s, {above}"


def _interval(value: float) -> str:
    """An interval: whole seconds as "30 s", else to a tenth ("22.5 s": T*, whose recovery is
    quoted, moves by thousands of seconds within a second near the capacity under blocking)."""
    if math.isnan(value):
        return "none"
    return f"{value:.0f} s" if value == round(value) else f"{value:.1f} s"


def interval_to_use(row) -> str:
    """The interval a :func:`headline` row says to use, with why (its status)."""
    if row["status"] == "infeasible":
        return "none (no interval meets the limit)"
    if row["status"] == "optimum meets QoS":
        return f"T* itself, {_interval(row['cost_optimal_s'])} (its recovery meets the limit)"
    return f"{row['cost_optimal_s']:.0f} s (the QoS binds: the meeting interval next to T*)"


def finding(jobs: dict, disagreement: pd.DataFrame, choices: pd.DataFrame, runtime: dict) -> str:
    """The notebook's finding with its numbers (scenarios joined by " / "): the utilization
    optimum T* over the replayed day (the simulator: asynchronous checkpoints, each failure at its
    own load) and at the day's peak 300-s load (the QoS verdict's criterion, at the job's reading
    of the checkpoint cost), the meeting range and the interval to use, priced at that interval
    (rev20m HIGH 8), how it moves with the failure timing and what Khaos did at runtime."""
    d = disagreement.set_index("scenario")
    c = choices.set_index(["scenario", "choice"])
    names = list(jobs)

    def each(fn) -> str:
        return " / ".join(fn(n) for n in names)

    def once(fn) -> str:  # a value every scenario shares, stated once
        values = [fn(n) for n in names]
        return values[0] if len(set(values)) == 1 else " / ".join(values)

    gap = max(
        abs(c.loc[(n, k), "interval_s"] - d.loc[n, "utilization_optimal_s"])
        for n in names
        for k in ("Young", "Daly")
    )
    optimum = each(lambda n: _interval(d.loc[n, "utilization_optimal_s"]))
    failures = each(lambda n: f"{d.loc[n, 'failures_replayed']:.0f}")

    def over_day(n, column="recovery_true_violations_s") -> str:
        row = c.loc[(n, "multilevel 1-level")]
        never = int(row["unrecovered"]) if column == "recovery_true_violations_s" else 0
        # a never-drained failure has no recovery to add: it is named, not dropped (rev20m MED)
        return f"{row[column]:.0f} s" + (f" (+ {never} never recovered)" if never else "")

    over = each(over_day)
    over_mid = each(lambda n: over_day(n, "recovery_true_violations_mid_s"))
    limits = once(lambda n: f"{jobs[n].scenario.qos.recovery_s:.0f} s")
    readings = once(lambda n: jobs[n].cost_reading)
    others = once(lambda n: _other_reading(jobs[n]))
    at_peak = each(
        lambda n: _against_limit(
            d.loc[n, "recovery_at_optimum_worst_s"], jobs[n].scenario.qos.recovery_s
        )
    )
    at_peak_other = each(
        lambda n: _fmt(d.loc[n, f"recovery_at_optimum_{_other_reading(jobs[n])}_worst_s"], "none")
    )
    allowed = each(  # the meeting range lo-hi (rev20f #0)
        lambda n: (
            _fmt(d.loc[n, "qos_interval_worst_s"], "none")
            if math.isnan(d.loc[n, "qos_interval_worst_s"])
            else f"{d.loc[n, 'qos_interval_shortest_worst_s']:.0f}-"
            + _fmt(d.loc[n, "qos_interval_worst_s"])
        )
    )
    other = each(
        lambda n: _fmt(d.loc[n, f"qos_interval_{_other_reading(jobs[n])}_worst_s"], "none")
    )
    depends = any(
        not (math.isnan(a) and math.isnan(b)) and a != b
        for a, b in (
            (
                d.loc[n, "qos_interval_worst_s"],
                d.loc[n, f"qos_interval_{_other_reading(jobs[n])}_worst_s"],
            )
            for n in names
        )
    )
    reading_note = f"; {other} read the other way" + (
        ", so the QoS headline **depends** on the reading" if depends else ", the same"
    )
    allowed_mid = each(lambda n: _fmt(d.loc[n, "qos_interval_mid_s"], "none"))
    use = once(lambda n: interval_to_use(d.loc[n]))
    if (d["capacity"] > d["peak_arrivals"]).all():
        peak, cap = d["peak_arrivals"], d["capacity"]
        spare = "arrivals / spare " + each(lambda n: f"{peak[n] / (cap[n] - peak[n]):.1f}")
    else:
        spare = each(lambda n: load_ratio(d.loc[n, "peak_arrivals"], d.loc[n, "capacity"]))
    # the prices of the interval to use, the one the sentence names (rev20m HIGH 8)
    chosen = each(lambda n: _interval(d.loc[n, "cost_optimal_s"]))
    latency = each(
        lambda n: (
            "none"
            if math.isnan(d.loc[n, "latency_at_cost_optimal_ms"])
            else f"{d.loc[n, 'latency_at_cost_optimal_ms']:.0f} ms"
        )
    )
    u_chosen = each(lambda n: _number(d.loc[n, "U_at_cost_optimal"], ".3f"))
    u_opt = each(lambda n: f"{d.loc[n, 'U_at_optimum']:.3f}")
    khaos_ci = each(lambda n: f"{c.loc[(n, 'Khaos runtime'), 'interval_s']:.0f}")
    khaos_over = each(lambda n: f"{c.loc[(n, 'Khaos runtime'), 'recovery_true_violations_s']:.0f}")
    never = int(c["unrecovered"].sum())
    disagree = c[c["detector_disagrees"].astype(bool)]
    parts = [f"{never} failures never recover on the simulator"] if never else []
    if len(disagree):
        parts.append(
            f"the Khaos detector's recovery column misstates the true recoveries for "
            f"{len(disagree)} of {len(c)} answers"
        )
    caveat = f" ({'; '.join(parts)})" if parts else ""
    moves = []
    for n in names:
        row = runtime[n][0]
        moves.append(
            f"never reconfigured on {n} (stayed at {row['ci_min_s']:.0f} s)"
            if row["reconfigurations"] == 0
            else f"reconfigured {row['reconfigurations']} time"
            f"{'s' if row['reconfigurations'] > 1 else ''} on {n} "
            f"({row['ci_min_s']:.0f}-{row['ci_max_s']:.0f} s)"
        )
    if d["status"].eq("infeasible").all():
        price = "No interval meets the limit at the peak, so none is priced"
    else:
        price = (
            f"Checkpointing at the interval to use ({chosen}) costs {latency} of added latency "
            f"on average (asynchronous checkpoints: the model's throughput price, U {u_chosen} "
            f"there instead of {u_opt} at T*, holds only if checkpoints blocked)"
        )
    return (
        f"**Finding ({' / '.join(names)}).** The utilization-optimal interval T* (multilevel's "
        f"one-level optimum, Young/Daly within {gap:.0f} s of it) is {optimum}. Replayed there "
        f"over the day's {failures} failures (the khaos simulator: each failure at its own load "
        f"and at the worst moment; its checkpoints are asynchronous, so a recovery catches up at "
        f"the capacity C), it leaves {over} of true recovery above the limit ({over_mid} with "
        f"every failure at the median moment, mid-interval){caveat}. At the day's peak 300-s "
        f"load, the "
        f"load the QoS verdict judges, a failure at the worst moment (T - 3 s of work lost) "
        f"recovers from T* in {at_peak} (limit {limits}; checkpoint cost read as {readings}; "
        f"{at_peak_other} read as {others}); the intervals whose recovery meets the limit there "
        f"are {allowed} ({allowed_mid} at the median moment{reading_note}), and the interval to "
        f"use is {use}. "
        + (
            f"The optimum meets the limit here: the jobs run far enough below their capacity "
            f"({spare} at the peak) for the catch-up to fit in it. "
            if (d["status"] == "optimum meets QoS").all()
            else f"They disagree because the utilization model amortizes each failure's lost "
            f"time over the mean time between failures, while a stream job drains the replayed "
            f"backlog at its spare capacity ({spare} at the peak) and the limit applies to one "
            f"recovery, whatever the failure rate. "
        )
        + f"{price}. Khaos's runtime choice (mean CI {khaos_ci} s) leaves {khaos_over} s of true "
        f"recovery above the limit over the day; it {', and '.join(moves)}."
    )
