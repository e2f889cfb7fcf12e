"""The overhead-recovery frontier of the cross-paper notebook ``cross_frontier``: each approach's
own knob swept on a shared scenario (crosspaper.scenarios), every point put on two common axes,
and the Pareto front of the feasible points.

Common axes (``axes()`` prints every conversion with its source):

- x, ``overhead``: normal-time cost as **resources reserved for fault tolerance**, a share of the
  job's failure-free resources (Σ cpu_share over its tasks, node equivalents): a checkpoint
  costing c s of processing every T s reserves c/T (the scenarios' definition of
  ``checkpoint.*_cost_s``; multilevel's Eq. (1) loss); an active replica its task's CPU share; a
  standby node 1. The other cost measures are columns: ``checkpoint_share`` (c/T alone: the
  throughput a blocking checkpoint would take; an asynchronous one adds latency instead) and
  ``reserved_nodes`` (replica and standby nodes, whole nodes at the CPU cap). One charge for one
  checkpoint: FastRecover's per-operator snapshots cost Σ ch_i (Eq. (2.1), each operator's state
  its share of remote_cost_s, scenarios.snapshot_storage), so every operator at interval T costs
  c/T, what a single-level checkpoint every T costs.
- y, ``unavailability_s_per_h``: expected seconds of lost output per hour,
  Σ_kind λ_kind x E[output-seconds lost per failure of that kind] over the scenario's failure
  kinds (process, single node, correlated; rates per day / 24), capped at 3,600 s/h; the
  expectation over the measured day's load too (day_loads: LOAD_LEVELS quantiles of its 300-s
  means; the recovery is convex in the load, so the mean load's loss, ``y_load`` = "mean", is a
  sensitivity row), a scenario without a day at its input_rate. A point
  whose recoveries never catch up (capacity at or below one of y's loads or the day's peak
  300-s load), whose checkpoints leave no time to process (c/T >= 1; FastRecover: some
  operator's ch_i >= 1, or no configuration within CH_max), whose expected loss
  reaches 3,600 s/h (the job would never be up) or whose expected loss per failure of some kind
  reaches the mean time between failures (λ E[loss] >= 1, MAX_RECOVERY_OVER_MTBF: y's
  first-order sum assumes a recovery ends before the next failure) is infeasible and never on
  the front; its ``infeasible_reason`` says which (NO_PROGRESS ... OVER_MTBF). Scaling every
  failure rate by one factor scales every point's y by it: Pareto dominance is kept, so the
  decision map's rate rows differ only through these two cut-offs.
- Per failure every checkpoint-based scheme (multilevel's levels, FastRecover's segments, Khaos's
  CI, the baselines, PPA's passive tasks, incremental recovery's queries) loses what the one
  recovery model ``crosspaper.recovery`` gives for its lost work and down time: waiting for a
  place to restart (one rule for every scheme, recovery.restart_plan: the survivors' spare
  capacity under the CPU cap, then the standby nodes, then m acquired nodes, the expected max of
  m uniform draws a + (b - a) m / (m + 1); a process failure waits for none), restore, replay,
  catch-up at the spare capacity with the backlog built meanwhile.
- One loss metric decides the front: output-seconds without exact output. Incremental loses the
  priority share of queries not yet back, PPA the share of output tasks (queries) whose output
  is not exact yet (crosspaper.replication.exact_lost_s); PPA's credit for its tentative output,
  ∫ (1 - OF), is the column ``own_tentative_s_per_h`` beside it.
- ``meets_qos``: every failure kind's recovery (time until the output is complete and current
  again; the ``recovery_*_s`` columns) within the scenario's ``qos.recovery_s``, judged as
  cross_interval judges it: at a high load (qos_load: LOAD_QUANTILE of the measured day's 300-s
  means, its peak; the scenario's input_rate without a day) and a failure at the worst moment
  (3 s before a checkpoint), not over the day's loads and the expected moment of the y axis; and on
  every recovery, not the mean (rev20c #4): the worst failed node or correlated node set (every
  k-node set for PPA and incremental; FastRecover's drawn sets), a new node at the acquisition
  law's upper end (worst_wait_s), multilevel's node failures at the remote interval m T of its
  level pattern (m = ceil(1 / p2), recovery.remote_every); ``meets_qos_single``: the process
  and single-node failures' (correlated failures aside): cross_interval's criterion (its
  replayed failures are node failures), which ``qos_interval``, the figure's filled markers and
  the headlines' cheapest QoS point use; ``meets_qos`` adds cross_correlated's (a correlated
  failure's worst k-node set), which a k-node failure's wait for new nodes often breaks alone.
  ``qos_interval`` searches the longest single-level interval meeting ``meets_qos_single``.

Sensitivity factors (point parameters, 1 by default): ``rate_factor`` (every failure rate),
``headroom_factor`` (the spare capacity C - a), ``cost_factor`` (checkpoint costs),
``delay_factor`` (node acquisition delays), ``process_factor`` (the process failures alone: their
rate is an assumption of the scenarios), ``tau_factor`` (the drain constant τ),
``drain_fraction`` (the catch-up criterion), ``load_quantile`` (the QoS load level) and
``timing`` (``uniform`` failure moment in the interval, or Khaos's ``worst``). Baselines:
Young/Daly's first-order interval (multilevel.optimize.first_order_interval on the one-level
system) and PRODUCTION_INTERVAL_S.
Each point also keeps its approach's own measures (``own_*`` columns, in the paper's units).
Units: s, events/s, hours for rates on the y axis.
"""

import collections
import math
from collections.abc import Sequence
from dataclasses import replace
from functools import cache

import numpy as np
import pandas as pd

from crosspaper import recovery as R
from crosspaper import replication
from crosspaper import scenarios as S
from crosspaper.scenarios import DATA

SECONDS_PER_HOUR = 3600.0
APPROACHES = ("multilevel", "fastrecover", "khaos", "ppa", "incremental", "baseline")
KINDS = ("process", "single", "correlated")
# The one experiment name of every sweep of the notebook (main grid, sensitivity, decision map):
# with common random numbers the seed is keyed by (experiment, iteration), so a sensitivity or map
# point at factor 1 draws what the main point draws and differs from it only by its factor.
EXPERIMENT = "cross_frontier"
FACTORS = (
    "rate_factor",
    "headroom_factor",
    "cost_factor",
    "delay_factor",
    "process_factor",
    "tau_factor",
    "drain_fraction",
)
# The load at which the per-recovery QoS limit is judged: this quantile of the measured day's
# 300-s mean input rate (1.0: its peak, cross_interval's ``Job.peak``, so both notebooks judge the
# limit at one load); a scenario without a day (khaos.experiment = none) uses its input_rate.
LOAD_QUANTILE = 1.0
LOAD_WINDOW_S = 300  # the Khaos method's averaging window (cross_interval's peak)
# Amazon Managed Service for Apache Flink's DEFAULT checkpoint configuration: CheckpointInterval
# 60,000 ms (docs.aws.amazon.com/managed-flink/latest/apiv2/API_CheckpointConfiguration.html);
# open-source Flink leaves checkpointing off until an interval is set.
PRODUCTION_INTERVAL_S = 60.0


# -- the Pareto front ------------------------------------------------------------------------
# relative: overheads or losses this close are one value (Σ ch_i and c/T differ in float only)
TIE = 1e-9


def _close(a: float, b: float, rtol: float) -> bool:
    """a and b equal within rtol (relative); an infinite value only equals itself."""
    return a == b or abs(a - b) <= rtol * max(abs(a), abs(b)) < math.inf


def pareto_front(x, y, rtol: float = TIE) -> np.ndarray:
    """Boolean mask of the points no other point dominates, both axes minimized.

    A point (x_i, y_i) is dominated when some point has x_j <= x_i and y_j <= y_i with at least
    one strictly smaller; values within ``rtol`` (relative) of each other count as equal, so
    points that differ in float rounding only (FastRecover's Σ ch_i against c/T: 1e-16) are
    all on the front or all off it; equal points are all on the front. NaN or infinite points
    are never on the front and dominate nothing. O(n log n): sorted by x then y, a point is on
    the front when its y is below every y of a point with smaller x, and no equal-x point has
    smaller y."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"x and y must be 1-d of one length; got shapes {x.shape}, {y.shape}")
    if not (math.isfinite(rtol) and 0 <= rtol < 1):
        raise ValueError(f"rtol must lie in [0, 1); got {rtol!r}")
    front = np.zeros(x.shape, dtype=bool)
    ok = np.flatnonzero(np.isfinite(x) & np.isfinite(y))
    order = ok[np.lexsort((y[ok], x[ok]))]
    best = math.inf  # smallest y among points of strictly smaller x
    i = 0
    while i < len(order):
        j = i
        while j < len(order) and _close(x[order[j]], x[order[i]], rtol):
            j += 1
        group = order[i:j]  # equal x: only the smallest y (and its ties) can win
        low = y[group].min()
        if low < best and not _close(low, best, rtol):
            front[group[[_close(v, low, rtol) for v in y[group]]]] = True
            best = low
        i = j
    return front


# -- the scenario of a point, with its sensitivity factors ----------------------------------------
def adjust(
    s: S.Scenario,
    *,
    rate_factor: float = 1.0,
    headroom_factor: float = 1.0,
    cost_factor: float = 1.0,
    delay_factor: float = 1.0,
    process_factor: float = 1.0,
    tau_factor: float = 1.0,
    drain_fraction: float | None = None,
) -> S.Scenario:
    """The scenario with every failure rate, the spare capacity (headroom C - a,
    ``scenarios.with_headroom``: C becomes a + headroom_factor (C - a)), both checkpoint costs
    and the node acquisition delays scaled; ``process_factor`` scales the process failures
    alone (0: none, the scenarios' process rate being an assumption); ``tau_factor`` scales the
    drain constant τ (papers.khaos.drain_tau_s; 0: a linear drain) and ``drain_fraction``
    replaces the catch-up criterion (recovery.DRAIN_FRACTION of the peak backlog)."""
    for name, value in (
        ("rate_factor", rate_factor),
        ("headroom_factor", headroom_factor),
        ("cost_factor", cost_factor),
        ("delay_factor", delay_factor),
    ):
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    if not (math.isfinite(process_factor) and process_factor >= 0):
        raise ValueError(f"process_factor must be a finite number >= 0; got {process_factor!r}")
    if not (math.isfinite(tau_factor) and tau_factor >= 0):
        raise ValueError(f"tau_factor must be a finite number >= 0; got {tau_factor!r}")
    if drain_fraction is not None and not 0 < drain_fraction < 1:
        raise ValueError(f"drain_fraction must lie in (0, 1); got {drain_fraction!r}")
    s = S.with_headroom(s, headroom_factor)  # the cross notebooks' one definition
    f, c, r = s.failures, s.checkpoint, s.resources
    khaos = dict(s.papers.get("khaos", {}))
    khaos["drain_tau_s"] = float(khaos.get("drain_tau_s", 0.0)) * tau_factor
    if drain_fraction is not None:
        khaos["drain_fraction"] = float(drain_fraction)
    return replace(
        s,
        failures=replace(
            f,
            single_per_day=f.single_per_day * rate_factor,
            correlated_per_day=f.correlated_per_day * rate_factor,
            process_per_day=f.process_per_day * rate_factor * process_factor,
        ),
        checkpoint=replace(
            c,
            local_cost_s=c.local_cost_s * cost_factor,
            remote_cost_s=c.remote_cost_s * cost_factor,
        ),
        resources=replace(
            r,
            acquisition_low_s=r.acquisition_low_s * delay_factor,
            acquisition_high_s=r.acquisition_high_s * delay_factor,
        ),
        papers={**s.papers, "khaos": khaos},
    )


@cache
def _loaded(name: str) -> S.Scenario:
    return S.load(name)


@cache
def _window_loads(name: str) -> np.ndarray | None:
    """The measured day's LOAD_WINDOW_S-s mean input rates (events/s), None without a day."""
    from khaos.simulate import workload_of

    experiment = _loaded(name).papers.get("khaos", {}).get("experiment", "none")
    if experiment == "none":
        return None
    day = workload_of(str(DATA / "khaos"), experiment)
    return day.rolling(min(LOAD_WINDOW_S, len(day))).mean().dropna().to_numpy(dtype=float)


@cache  # every point asks for its scenario's: one quantile of a day per (name, quantile)
def qos_load(name: str, quantile: float = LOAD_QUANTILE) -> float:
    """The input rate (events/s) at which the QoS limit is judged: the ``quantile`` of scenario
    ``name``'s measured day's 300-s means, or its topology.input_rate without a day."""
    if not 0 <= quantile <= 1:
        raise ValueError(f"load_quantile must lie in [0, 1]; got {quantile!r}")
    loads = _window_loads(name)
    if loads is None:
        return _loaded(name).topology.input_rate
    return float(np.quantile(loads, quantile))


# y's load (rev20c #5): the recovery rises faster than linearly with the load (Jensen), so y is
# the mean of the loss over the measured day's load, not the loss at the mean load. A failure
# strikes any second alike: the day's LOAD_WINDOW_S-s means (the load a recovery of a few
# minutes sees) at the LOAD_LEVELS midpoint quantiles (k + 1/2) / LOAD_LEVELS, equally weighted.
LOAD_LEVELS = 32
Y_LOADS = ("day", "mean")  # "mean": the old reading, y at the mean load (a sensitivity row)


@cache
def day_loads(name: str, y_load: str = "day") -> tuple[float, ...]:
    """The input rates (events/s) y averages its losses over, equally weighted: LOAD_LEVELS
    midpoint quantiles of scenario ``name``'s measured day's 300-s means, or its
    topology.input_rate alone without a day or at ``y_load`` = "mean"."""
    if y_load not in Y_LOADS:
        raise ValueError(f"y_load must be one of {Y_LOADS}; got {y_load!r}")
    loads = _window_loads(name)
    if loads is None or y_load == "mean":
        return (_loaded(name).topology.input_rate,)
    q = (np.arange(LOAD_LEVELS) + 0.5) / LOAD_LEVELS
    return tuple(float(v) for v in np.quantile(loads, q))


def day_jobs(params: dict, s: S.Scenario, busy: float, reading: str) -> tuple[R.Job, ...]:
    """The point's jobs at y's loads (day_loads; ``params["y_load"]``, "day" by default), with
    the catch-up of its checkpoints' busy share."""
    loads = day_loads(params["scenario"], params.get("y_load") or Y_LOADS[0])
    return tuple(catch_up(R.job_of(s, a), busy, reading) for a in loads)


@cache
def _day_recovery_s(interval_s, down_s, jobs: tuple, timing="uniform", keep=1.0) -> float:
    """E[recovery] over y's loads (``jobs``, equally likely: day_jobs), remembered per process."""
    return R.mean_recovery_s(interval_s, down_s, jobs, timing, keep)


# Why a point is infeasible (its ``infeasible_reason``, "" where feasible), one phrase per cut-off
# the code applies. Before y (``drains``; no failure rate changes them), the first that holds:
NO_PROGRESS = "checkpoints for c/T >= 1"  # progresses: no time left to process
NO_PROGRESS_FASTRECOVER = "an operator checkpoints for ch_i >= 1"  # progresses(max_i ch_i)
NO_CONFIGURATION = "Algorithm 1 finds no configuration within CH_max"  # FastRecover infeasible
BEHIND_Y = "never catches up at y's load levels"  # capacity <= some load of day_loads
BEHIND_PEAK = "never catches up at the peak 300-s load"  # capacity <= qos_load at quantile 1
# y's cut-offs (_finish; the failure rates move them), every one that holds, joined by "; ":
AT_CAP = "reaches the 3,600 s/h cap"
OVER_MTBF = "expected loss outlasts the MTBF"  # MAX_RECOVERY_OVER_MTBF
NO_OVERHEAD = "overhead not finite"


def drain_reason(
    jobs: tuple,
    params: dict,
    s: S.Scenario,
    busy: float,
    reading: str,
    no_progress: str = NO_PROGRESS,
) -> str:
    """Why the point cannot run whatever the failure rates, "" where it can: its checkpoints
    leave no time to process (progresses(busy); ``no_progress`` names it), or some load level's
    backlog never drains (a failure at a load above the capacity never catches up on the model's
    constant load): y's levels ``jobs``, then the day's peak 300-s mean (qos_load at quantile 1;
    x20i's find: the 32 quadrature levels can miss windows above C (1 - c/T), so a point behind
    at the day's peak passed)."""
    if not progresses(busy):
        return no_progress
    if not all(j.feasible for j in jobs):
        return BEHIND_Y
    peak = catch_up(R.job_of(s, qos_load(params["scenario"], 1.0)), busy, reading)
    return "" if peak.feasible else BEHIND_PEAK


def qos_job(params: dict, s: S.Scenario) -> R.Job:
    """The job whose recoveries are checked against the QoS limit: the point's scenario (its
    capacity and drain) at the load of qos_load (``params["load_quantile"]``, LOAD_QUANTILE by
    default); failures at the worst moment (R's ``worst``, as cross_interval judges)."""
    q = params.get("load_quantile")
    return R.job_of(s, qos_load(params["scenario"], LOAD_QUANTILE if q is None else float(q)))


# How a checkpoint's cost c is read, one reading for the x axis, feasibility and catch-up:
# "blocking" (default: the template's definition, c = processing time lost per checkpoint) gives
# normal-time capacity C (1 - c/T), feasible only while c/T < 1 - a/C, and recoveries catch up
# at C (1 - c/T); "async" (c costs latency, not throughput: Flink's asynchronous snapshots)
# keeps capacity C and needs only c/T < 1. The sensitivity judges every headline under both.
COST_READINGS = ("blocking", "async")


def cost_reading(params: dict) -> str:
    """The point's reading of the checkpoint cost (``cost_reading``; COST_READINGS[0] if unset)."""
    reading = params.get("cost_reading") or COST_READINGS[0]
    if reading not in COST_READINGS:
        raise ValueError(f"cost_reading must be one of {COST_READINGS}; got {reading!r}")
    return reading


def catch_up(job: R.Job, busy: float, reading: str) -> R.Job:
    """The job as its recoveries and feasibility see it with checkpoints busy for the share
    ``busy`` of the time: "blocking" C (1 - busy) (none left at busy >= 1: a vanishing capacity,
    infeasible), "async" C."""
    if reading == "async":
        return job
    return replace(job, capacity=job.capacity * max(1.0 - busy, 1e-12))


def scenario_of(params: dict) -> tuple[S.Scenario, str]:
    """(the point's scenario with its factors applied, its failure timing)."""
    s = _loaded(params["scenario"])
    factors = {k: float(params[k]) for k in FACTORS if params.get(k) is not None}
    timing = params.get("timing") or "uniform"
    if timing not in R.TIMINGS:
        raise ValueError(f"timing must be one of {R.TIMINGS}; got {timing!r}")
    return (adjust(s, **factors) if factors else s), timing


# -- conversions shared by the approaches ------------------------------------------------------
@cache
def _expected_recovery_s(interval_s, down_s, job: R.Job, timing="uniform", keep=1.0) -> float:
    """crosspaper.recovery.expected_recovery_s, remembered per process: the sensitivity and
    decision-map grids ask for the same recoveries again at every failure rate and checkpoint
    cost (the rates and costs weigh the recoveries, they do not change them)."""
    return R.expected_recovery_s(interval_s, down_s, job, timing, keep)


def per_hour(s: S.Scenario) -> dict[str, float]:
    """λ per hour of each failure kind from the scenario's rates per day."""
    f = s.failures
    return {
        "process": f.process_per_day / 24.0,
        "single": f.single_per_day / 24.0,
        "correlated": f.correlated_per_day / 24.0,
    }


def job_resources(s: S.Scenario) -> float:
    """Σ cpu_share over every task: the job's failure-free resources in node equivalents."""
    return sum(op.parallelism * op.cpu_share for op in s.topology.operators)


def acquisition_draws(s: S.Scenario, failed_nodes: int, rng) -> np.ndarray:
    """One acquisition time (s) per failed node, in draw order; a scheme with S standby nodes
    takes its acquired nodes' times from draws S, S + 1, ... (recovery.task_waits: the same
    draws whatever S, common random numbers)."""
    r = s.resources
    u = rng.random(failed_nodes)
    if r.acquisition_law == "fixed":
        return np.full(failed_nodes, r.acquisition_low_s)
    return r.acquisition_low_s + (r.acquisition_high_s - r.acquisition_low_s) * u


def _remember(store: dict, key, compute):
    """store[key], computed once per process by ``compute()``: the sensitivity and decision-map
    grids ask again for what their factors leave unchanged."""
    if key not in store:
        store[key] = compute()
    return store[key]


def _node_sets(s: S.Scenario, kind: str) -> list[tuple[int, ...]]:
    """Every node set a failure of ``kind`` may take down, equally likely: each node for a
    single failure; every correlated_nodes-subset for a correlated one (R.node_sets, the one
    enumeration and cap of both notebooks: above R.MAX_NODE_SETS a fixed sample)."""
    n = s.resources.nodes
    if kind in ("process", "single"):
        return [(i,) for i in range(n)]
    return R.node_sets(range(n), s.failures.correlated_nodes)


_ACQUIRED: dict[tuple, tuple[int, int]] = {}
_WAITS: dict[tuple, dict[tuple[int, int], float]] = {}


def _acquired(s: S.Scenario, nodes, standby: int) -> tuple[int, int]:
    """recovery.acquired_nodes of a failure of ``nodes``, remembered per process."""
    key = (s.topology, s.resources.nodes, s.papers["incremental"]["cpu_cap"], standby, nodes)
    return _remember(_ACQUIRED, key, lambda: R.acquired_nodes(s, nodes, standby))


def wait_weights(s: S.Scenario, kind: str, standby: int) -> list[tuple[float, float]]:
    """(wait_s, probability) of a restart that waits for every failed task's place (the one
    rule, recovery.restart_plan: survivors' spare, ``standby`` nodes, then acquired nodes) after
    a failure of ``kind``: none after a process failure, else over _node_sets the expected
    arrival of the m-th of the n requested nodes (recovery.acquired_wait_s), grouped by (m, n)."""
    if kind == "process":
        return [(0.0, 1.0)]
    return [(R.acquired_wait_s(s, *mn), p) for mn, p in _shares(s, kind, standby).items()]


def _shares(s: S.Scenario, kind: str, standby: int) -> dict[tuple[int, int], float]:
    """{(m, n): share of _node_sets} of a node failure of ``kind`` (recovery.acquired_nodes)."""
    key = (s.topology, s.resources.nodes, s.papers["incremental"]["cpu_cap"], standby, kind)
    key += (s.failures.correlated_nodes,) if kind == "correlated" else ()

    def shares() -> dict[tuple[int, int], float]:
        sets = _node_sets(s, kind)
        counts = collections.Counter(_acquired(s, nodes, standby) for nodes in sets)
        return {mn: c / len(sets) for mn, c in sorted(counts.items())}

    return _remember(_WAITS, key, shares)


def worst_wait_s(s: S.Scenario, kind: str, standby: int) -> float:
    """The longest wait for every failed task's place after a failure of ``kind`` (the QoS's
    wait, rev20c #4): 0 after a process failure or where every node set restarts at once (the
    survivors' spare, standby nodes), else the acquisition law's upper end
    (recovery.acquisition_upper_s: the last requested node may come that late)."""
    if kind == "process":
        return 0.0
    waits = any(m > 0 for (m, _), p in _shares(s, kind, standby).items() if p > 0)
    return R.acquisition_upper_s(s) if waits else 0.0


def failed_node_draws(
    s: S.Scenario, kind: str, draws: int, rng, extra: int = 0
) -> list[tuple[int, ...]]:
    """Node sets (0-based) failing: ``process`` and ``single`` = every job node once (exact
    average; an extra node failing alone holds PPA replicas only and loses no output),
    ``correlated`` = ``draws`` random subsets of correlated_nodes = k of the N job nodes (each
    equally likely, k uniforms per subset: the same job nodes for every scheme, rev20d #2) and
    each of the ``extra`` nodes N .. N + extra - 1 (PPA replicas' extra nodes,
    replication.extra_nodes) with the job nodes' probability k / N: the failure keeps its share
    of the failure domain, so replicas' nodes never dilute it (k of N + E would fail fewer job
    nodes for a plan with more replicas). The extra nodes' fates come from a child stream per
    subset (rng.spawn), so the job nodes and the acquisition draws after them stay common random
    numbers across PPA plans, and plans sharing extra node j share its fate."""
    n = s.resources.nodes
    if kind in ("process", "single"):
        return [(i,) for i in range(n)]
    k, extra = s.failures.correlated_nodes, int(extra)
    fates = rng.spawn(draws) if extra else [None] * draws
    out = []
    for child in fates:
        pool = list(range(n))
        nodes = [pool.pop(int(u * (n - i))) for i, u in enumerate(rng.random(k))]
        if child is not None:
            nodes += [n + j for j, u in enumerate(child.random(extra)) if u < k / n]
        out.append(tuple(sorted(nodes)))
    return out


def _row(label, overhead, losses, recoveries, *, checkpoint_share, reserved_nodes, **own):
    """One point: per failure kind the output-seconds lost and the recovery time."""
    row = {
        "label": label,
        "overhead": float(overhead),
        "checkpoint_share": float(checkpoint_share),
        "reserved_nodes": float(reserved_nodes),
        **{f"loss_{k}_s": float(losses[k]) for k in KINDS},
        **{f"recovery_{k}_s": float(recoveries[k]) for k in KINDS},
        **{f"own_{k}": float(v) for k, v in own.items()},
    }
    return row


def progresses(busy: float) -> bool:
    """Whether checkpoints busy for the share ``busy`` of the time leave any to process: c/T < 1
    for a checkpoint costing c every T (the rule multilevel's U > 0 needs, T > Σ p_l c_l,
    Eq. (13)); FastRecover's operators checkpoint apart, so its max_i ch_i. Under the blocking
    reading the points also need a catch_up job that drains (C (1 - busy) > a: c/T < 1 - a/C)."""
    return busy < 1.0


# First-order validity (rev20c #6): y adds failures' losses as if each recovery ended before the
# next failure. A point whose expected loss per failure of some kind (its expected recovery for a
# checkpoint scheme) reaches the mean time between failures of every kind, λ E[loss_k] >= 1
# (λ = Σ λ_kind per second), expects another failure inside that recovery: infeasible.
MAX_RECOVERY_OVER_MTBF = 1.0


def _finish(row: dict, s: S.Scenario, reason: str = "") -> dict:
    """Adds unavailability (capped at 3,600 s/h), feasibility with its ``infeasible_reason``,
    the share of the mean time between failures a failure's expected loss takes
    (``recovery_over_mtbf``: infeasible at MAX_RECOVERY_OVER_MTBF) and the QoS mark. ``reason``
    is drain_reason's (or NO_CONFIGURATION), "" where the point drains: ``drains`` keeps it,
    since no failure rate changes it; where it holds it is the point's reason, else y's
    cut-offs that hold (AT_CAP, OVER_MTBF, NO_OVERHEAD)."""
    lam = per_hour(s)
    used = [k for k in KINDS if lam[k] > 0]
    y = sum(lam[k] * row[f"loss_{k}_s"] for k in used)
    longest = max((row[f"loss_{k}_s"] for k in used), default=0.0)
    share = sum(lam[k] for k in used) / SECONDS_PER_HOUR * longest if used else 0.0
    row["recovery_over_mtbf"] = float(share) if share == share else math.nan
    row["drains"] = not reason  # before y's cut-offs: what rescaled needs at other rates
    if not reason:
        cut = (
            (AT_CAP, not y < SECONDS_PER_HOUR),  # an infinite or NaN y included
            (OVER_MTBF, not share < MAX_RECOVERY_OVER_MTBF),
            (NO_OVERHEAD, not math.isfinite(row["overhead"])),
        )
        reason = "; ".join(why for why, holds in cut if holds)
    ok = not reason
    worst = max((row[f"recovery_{k}_s"] for k in used), default=0.0)
    row["feasible"] = ok
    row["infeasible_reason"] = reason
    row["unavailability_s_per_h"] = float(min(y, SECONDS_PER_HOUR)) if y == y else math.nan
    row["worst_recovery_s"] = float(worst)
    row["meets_qos"] = bool(ok and worst <= s.qos.recovery_s)
    frequent = max((row[f"recovery_{k}_s"] for k in used if k != "correlated"), default=0.0)
    row["meets_qos_single"] = bool(ok and frequent <= s.qos.recovery_s)
    return row


def _single_level(
    s: S.Scenario, interval_s: float, timing: str, standby: int, jobs: tuple[R.Job, ...]
) -> dict:
    """Per failure kind: E[recovery] over ``jobs`` (y's loads, day_jobs; one job for the QoS)
    restarting from its last remote checkpoint (every T s) once every failed task has its place
    (wait_weights: the one restart-location rule)."""
    r2 = s.checkpoint.remote_restart_s
    if timing == "qos":  # every recovery: the worst moment and the longest wait (worst_wait_s)
        return {
            k: max(
                _expected_recovery_s(interval_s, worst_wait_s(s, k, standby) + r2, j, "worst")
                for j in jobs
            )
            for k in KINDS
        }
    return {
        k: sum(
            p * _day_recovery_s(interval_s, wait + r2, jobs, timing)
            for wait, p in wait_weights(s, k, standby)
        )
        for k in KINDS
    }


MAX_INTERVAL_S = 3600  # the longest interval searched for the QoS (s; interval.MAX_CI_S)


def qos_interval(params: dict) -> float:
    """The longest whole-second single-level interval (1..MAX_INTERVAL_S) whose process and
    single-node recoveries (qos_job's load, worst moment: the ``meets_qos_single`` rule) stay
    within the scenario's qos.recovery_s; NaN where none does. Every interval at once, in one
    array per failure kind: _single_level's QoS recovery of a single-level checkpoint (worst
    moment, keep 1) is recovery_s of the lost work max(T - INJECT_BEFORE_S, 0) at the catch-up
    capacity of T (catch_up, per element). On a scenario with a measured day and a standby node
    this is cross_interval's qos_interval at the day's peak (the same load, moment and
    recovery)."""
    s, _ = scenario_of(params)
    job, standby, limit = qos_job(params, s), s.resources.standby_nodes, s.qos.recovery_s
    kinds = [k for k, v in per_hour(s).items() if v > 0 and k != "correlated"]
    reading, c = cost_reading(params), s.checkpoint.remote_cost_s
    # the longest T meeting it, scanned down: under the blocking reading short intervals catch
    # up slower too, so the recovery is not monotone in T (bisection would not do)
    T = np.arange(MAX_INTERVAL_S, 0, -1, dtype=float)
    busy = c / T
    meets = progresses(busy)
    capacity = job.capacity * np.maximum(1.0 - busy, 1e-12) if reading == "blocking" else None
    lost = np.maximum(T - R.INJECT_BEFORE_S, 0.0)  # R.lost_work's worst moment
    for k in kinds:
        down = worst_wait_s(s, k, standby) + s.checkpoint.remote_restart_s
        meets &= R.recovery_s(lost, down, job, capacity) <= limit
    first = np.flatnonzero(meets)
    return float(T[first[0]]) if first.size else math.nan


def _checkpoint_point(s, params, label, interval_s, timing, **own) -> dict:
    standby = s.resources.standby_nodes
    share, reading = s.checkpoint.remote_cost_s / interval_s, cost_reading(params)
    jobs = day_jobs(params, s, share, reading)
    loss = _single_level(s, interval_s, timing, standby, jobs)
    qjob = catch_up(qos_job(params, s), share, reading)
    qos = _single_level(s, interval_s, "qos", standby, (qjob,))
    return _finish(
        _row(
            label,
            share,
            loss,
            qos,
            checkpoint_share=share,
            reserved_nodes=s.resources.standby_nodes,
            **own,
        ),
        s,
        drain_reason(jobs, params, s, share, reading),
    )


# -- one point per approach --------------------------------------------------------------------
def baseline_point(params: dict, rng) -> dict:
    """A single-level remote checkpoint every ``T_s`` s (``baseline``: Young/Daly or the
    production default), recovered by the shared model."""
    s, timing = scenario_of(params)
    return _checkpoint_point(s, params, str(params["baseline"]), float(params["T_s"]), timing)


def _multilevel_utilization(s: S.Scenario, T: float, p1: float) -> float:
    """Multilevel's own measure: U of Eq. (13) (multilevel.utilization) at T and p1 on
    to_multilevel(s), 0 where T <= Σ p c; the failure rates change it (rescaled)."""
    from multilevel.utilization import utilization

    levels = 2 if p1 > 0 else 1
    system = S.to_multilevel(s, levels=levels)
    p = np.array([p1, 1.0 - p1]) if levels == 2 else np.array([1.0])
    return float(utilization(T, p, system)) if T > float(p @ np.asarray(system.c)) else 0.0


def multilevel_label(T: float, p1: float) -> str:
    """A multilevel point's label: T, p1 and, with local checkpoints (p1 > 0), its remote
    interval m T, m = ceil(1/p2) (recovery.remote_every: a remote checkpoint every m-th interval,
    the level law of the loss and the cost; not T / p2, which no deployment uses)."""
    label = f"T={T:g}s p1={p1:g}"
    return label if p1 == 0 else f"{label} (remote every {R.remote_every(1.0 - p1) * T:g}s)"


def multilevel_point(params: dict, rng) -> dict:
    """Multilevel (Jayasekara et al.) at interval T_s with level-1 probability p1 on
    to_multilevel(s) (level 1 = process failures, level 2 = node failures): overhead Σ p_l c_l / T
    (Eq. (1)). A process failure restores the last checkpoint of either level (r1 after a
    level-1 one, probability p1; r2 after a level-2 one: the paper's R_1 = p1 r1 + p2 r2) and
    loses the moment in the interval; a node failure (single or correlated) waits for its nodes,
    restores the last level-2 checkpoint (r2) and loses G - 1 intervals more, G uniform on
    1..ceil(1/p2) (a remote checkpoint every ceil(1/p2)-th interval: the package's level law,
    recovery._lost_intervals; Section 3's lost checkpoints). Own measure: U of Eq. (13)
    (multilevel.utilization, 0 where T <= Σ p c); feasibility is every scheme's (the shared
    model's loss, progresses(Σ p c / T)), not U, whose recovery model is not the frontier's."""
    s, timing = scenario_of(params)
    T, p1 = float(params["T_s"]), float(params["p1"])
    c = s.checkpoint
    # the cost on the level law's reading of p2, as the loss (rev20f #8): a remote checkpoint
    # every m = ceil(1/p2)-th interval, local ones between
    m = R.remote_every(1.0 - p1)
    cost = (1 - 1 / m) * c.local_cost_s + c.remote_cost_s / m
    reading = cost_reading(params)
    jobs, standby = day_jobs(params, s, cost / T, reading), s.resources.standby_nodes

    def per_kind(jobs: tuple, timing: str) -> dict:
        # only levels in use: an infinite recovery at p = 0 would give 0 x inf = NaN
        levels = ((p1, c.local_restart_s), (1 - p1, c.remote_restart_s))
        out = {"process": sum(w * _day_recovery_s(T, r, jobs, timing) for w, r in levels if w > 0)}
        for kind in ("single", "correlated"):
            out[kind] = sum(
                w * _day_recovery_s(T, wait + c.remote_restart_s, jobs, timing, keep=1.0 - p1)
                for wait, w in wait_weights(s, kind, standby)
            )
        return out

    def worst_kind(job: R.Job) -> dict:
        # every recovery (rev20c #4): a process failure after the costlier level's restart; a
        # node failure at the level pattern a deployment uses, a remote checkpoint every m T s
        # (m = ceil(1 / p2): a random level sequence bounds no recovery), with the longest wait;
        # the worst moment throughout
        out = {
            "process": max(
                _expected_recovery_s(T, r, job, "worst")
                for w, r in ((p1, c.local_restart_s), (1 - p1, c.remote_restart_s))
                if w > 0
            )
        }
        for kind in ("single", "correlated"):
            down = worst_wait_s(s, kind, standby) + c.remote_restart_s
            out[kind] = _expected_recovery_s(m * T, down, job, "worst")
        return out

    qjob = catch_up(qos_job(params, s), cost / T, reading)
    losses, recoveries = per_kind(jobs, timing), worst_kind(qjob)
    u = _multilevel_utilization(s, T, p1)
    return _finish(
        _row(
            multilevel_label(T, p1),
            cost / T,
            losses,
            recoveries,
            checkpoint_share=cost / T,
            reserved_nodes=standby,
            utilization=u,
        ),
        s,
        drain_reason(jobs, params, s, cost / T, reading),
    )


def fastrecover_point(params: dict, rng) -> dict:
    """FastRecover (Yaduvanshi, Algorithm 1) at budget ch_max on the scenario's chain
    (to_fastrecover; b_log_kb_per_min None = the scenario's B_log). The source's input log is
    Kafka's, kept for every scheme: Algorithm 1 gets ch_max plus its cost Δ_log(Ω θ_1), and the
    overhead leaves it out. Overhead: the optimum's other ch_i summed (Eq. (2.1); each
    operator's snapshot costs its state's share of remote_cost_s, so every operator at interval T
    costs c/T, what a single-level checkpoint every T costs); infeasible where some ch_i >= 1
    (progresses). A failure fails a task of every operator with a task on
    its node(s); each segment recovers in parallel through the shared model: lost work = the
    moment in the failed operator's checkpoint interval 1/η_i (min -> s), down = the wait for
    a place (the one rule, _acquired) + checkpoint.local_restart_s + the path's state restore
    Σ Δ_snap(π_k) (Eq. (3.2)'s b_i: the download, which remote_restart_s - local_restart_s would
    count again); the output is back when the slowest segment is. Snapshots cost what every scheme's
    checkpoint does (scenarios.snapshot_storage: the whole state in remote_cost_s). Own
    measures: CH_all (with the source log) and RT_all = Σ ρ_i rt_i (recovery minutes per
    minute)."""
    import fastrecover as fr
    from fastrecover.model import recovery_time_terms

    s, timing = scenario_of(params)
    topo, _, _, z = S.to_fastrecover(s)
    b_log = params.get("b_log_kb_per_min")
    storage = S.snapshot_storage(s, None if b_log is None else float(b_log))
    ch_max = float(params["ch_max"])
    source_log = float(storage.delta_log(topo.rates[0] * topo.theta[0]))
    result = fr.optimize_chain(topo, ch_max + source_log, z, storage)
    standby = s.resources.standby_nodes
    label = f"CH_max={ch_max:g}"
    nan = dict.fromkeys(KINDS, math.nan)
    if not result.feasible:
        row = _row(label, math.nan, nan, nan, checkpoint_share=math.nan, reserved_nodes=standby)
        return _finish(row, s, NO_CONFIGURATION)
    config = result.configuration
    ch = fr.checkpoint_overheads(topo, config, storage)
    ch[0] -= source_log
    _, restore_min = recovery_time_terms(topo, config.anchors, storage)
    interval_s = 60.0 / np.asarray(config.frequencies, dtype=float)
    ops = s.topology.operators
    busy, reading = float(ch.max()), cost_reading(params)  # the busiest operator's share
    jobs = day_jobs(params, s, busy, reading)
    qjob, c = catch_up(qos_job(params, s), busy, reading), s.checkpoint
    # r1 + the path's restore after every failure: r2 - r1 is the remote download, which
    # FastRecover prices itself as the restore b_i (Eq. (3.2)); r2 + b_i would count it twice.
    restart = c.local_restart_s
    losses, recoveries = {}, {}
    for kind in KINDS:
        sets = failed_node_draws(s, kind, int(params.get("draws", 20)), rng)
        acquired = [(0, 0) if kind == "process" else _acquired(s, nodes, standby) for nodes in sets]
        waits = [R.acquired_wait_s(s, *mn) if mn[0] else 0.0 for mn in acquired]
        upper = R.acquisition_upper_s(s)
        longest = [upper if mn[0] else 0.0 for mn in acquired]  # the QoS's wait
        hit = [np.array([any(n in nodes for n in op.nodes) for op in ops]) for nodes in sets]
        # y: the slowest segment at each of y's loads, averaged over sets and loads (the slowest
        # segment may change with the load); the QoS: the worst set at the QoS load
        for out, js, when, wait, over in (
            (losses, jobs, timing, waits, np.mean),
            (recoveries, (qjob,), "worst", longest, np.max),  # every recovery: the worst set
        ):
            per_set, seen = [], {}  # sets of one wait and hit operators: one slowest segment
            for w, h in zip(wait, hit, strict=True):
                if (w, h.tobytes()) not in seen:
                    seen[w, h.tobytes()] = [
                        max(
                            (
                                _expected_recovery_s(
                                    interval_s[i], w + restart + 60.0 * restore_min[i], j, when
                                )
                                for i in np.flatnonzero(h)
                            ),
                            default=0.0,
                        )
                        for j in js
                    ]
                per_set += seen[w, h.tobytes()]
            out[kind] = float(over(per_set))
    overhead = float(ch.sum())
    return _finish(
        _row(
            label,
            overhead,
            losses,
            recoveries,
            checkpoint_share=overhead,
            reserved_nodes=standby,
            ch_all=result.checkpoint_overhead,
            rt_all=result.expected_recovery_time,
            segments=len(result.anchors),
        ),
        s,
        drain_reason(jobs, params, s, busy, reading, NO_PROGRESS_FASTRECOVER),
    )


@cache
def khaos_simulator(name: str):
    """(khaos SimParams, workload) of scenario ``name``'s measured day: to_khaos's parameters,
    with the latency and observation terms calibrated on the scenario's own series
    (khaos.calibrate on its experiment; the package's defaults are IoT's) and the expected wait
    for a node added to the restart (recovery.node_failure_wait_s)."""
    from khaos import calibrate
    from khaos.data import load_experiment
    from khaos.simulate import workload_of

    s = _loaded(name)
    setup = S.to_khaos(s)
    if setup.experiment == "none":
        raise ValueError(f"scenario {name!r} has no khaos workload (khaos.experiment = none)")
    fitted, _ = calibrate(load_experiment(DATA / "khaos", setup.experiment))
    terms = ("lat0_ms", "lat_per_event_ms", "checkpoint_ms", "recovery_latency_ms")
    sim = replace(setup.sim, **{k: getattr(fitted, k) for k in terms})
    # its node failures restart by the one rule, as cross_interval's replay (recovery.restart_plan)
    sim = replace(sim, restart_s=sim.restart_s + R.node_failure_wait_s(s))
    return sim, setup, workload_of(str(DATA / "khaos"), setup.experiment)


def khaos_point(params: dict, rng) -> dict:
    """A static CI ci_s (Khaos's knob, Geldenhuys et al.): a single-level remote checkpoint
    every CI recovered by the shared model, overhead = remote_cost_s / CI. Own measures from
    the khaos simulator replaying the measured day at that CI (no observation noise, latency
    terms of the scenario's own series, khaos_simulator): mean true recovery per failure (at
    the artifact's worst moment, on the day's varying arrivals), mean latency and the share of
    seconds above the QoS latency (Tables II-III columns); ``replay`` False skips the replay."""
    from khaos.simulate import simulate

    s, timing = scenario_of(params)
    ci = float(params["ci_s"])
    if not params.get("replay", True):  # sensitivity runs: the day's replay is the same
        return _checkpoint_point(s, params, f"CI={ci:g}s", ci, timing)
    sim, setup, workload = khaos_simulator(params["scenario"])
    result = simulate(workload, ci, setup.failure_seconds, sim)
    latency = result.run["lat"]
    return _checkpoint_point(
        s,
        params,
        f"CI={ci:g}s",
        ci,
        timing,
        sim_recovery_mean_s=result.failures["recovery_s"].to_numpy(dtype=float).mean(),
        avg_latency_ms=latency.mean(),
        latency_violations=(latency > s.qos.latency_ms).mean(),
    )


def _topology_key(topology) -> tuple:
    """The defining data of a PPA topology (ppa.Topology), hashable."""
    return (
        tuple((name, tuple(tasks)) for name, tasks in topology.operators.items()),
        tuple(sorted(topology.joins)),
        tuple(sorted(topology.rates.items())),
        tuple(sorted((topology.sink_rates or {}).items())),
    )


def _plan(topology, fraction: float) -> frozenset[str]:
    """ppa.ppa_plan, remembered per process by the topology's defining data: the exhaustive
    search gives the same plan at every point whose factors leave the topology unchanged (most
    of the sensitivity and decision-map points); it was about half of a PPA point's CPU time."""
    from ppa import ppa_plan

    key = (*_topology_key(topology), fraction)
    return _remember(_PLANS, key, lambda: ppa_plan(topology, fraction))


_PLANS: dict[tuple, frozenset[str]] = {}


def _ppa_failure(s: S.Scenario, topology, plan, nodes, passive_back: dict) -> tuple:
    """(exact_lost_s, lost_output_s, t_full_s) of crosspaper.replication.failure, remembered per
    process by what it reads: the scenario's topology, node count and PPA and CPU-cap settings,
    the PPA topology, the plan, the failed nodes and when each failed task would be back
    passively. The factors of most sensitivity and decision-map points change none of them (the
    failure rates, the checkpoint cost, the QoS load of the loss), and the output fidelity of
    every interval was most of a PPA point's time."""
    key = (
        s.topology,
        s.resources.nodes,
        tuple(sorted(s.papers["ppa"].items())),
        s.papers["incremental"]["cpu_cap"],
        _topology_key(topology),
        plan,
        tuple(nodes),
        tuple(sorted(passive_back.items())),
    )

    def compute() -> tuple[float, float, float]:
        out = replication.failure(s, topology, plan, nodes, passive_back)
        return out["exact_lost_s"], out["lost_output_s"], out["t_full_s"]

    return _remember(_FAILURES, key, compute)


_FAILURES: dict[tuple, tuple[float, float, float]] = {}


@cache
def remote_interval_s(s: S.Scenario) -> float:
    """The checkpoint interval of PPA's passive tasks and of incremental recovery (rev20e #5):
    the remote-only optimum of multilevel's utilization (Eq. (13) on to_multilevel(s), p1 pinned
    to 0), cross_correlated's rule (correlated.setup()["interval"]), not the scenario's
    configured checkpoint.interval_s: the checkpoint-only schemes are swept over T, these two
    sit at an optimised interval, not an unoptimised one. Without process failures (no level 1)
    the one-level system is the same optimum."""
    if s.failures.process_per_day <= 0:
        return float(multilevel_optimum(S.to_multilevel(s, levels=1)).T)
    return float(multilevel_optimum(S.to_multilevel(s, levels=2), zero_levels=(1,)).T)


@cache
def multilevel_optimum(system, zero_levels: tuple = ()):
    """multilevel.optimize.optimal, remembered per process by the System (rates, costs,
    restarts): the scenario variants of the headroom, delay and QoS factors share it (no field
    of theirs enters the System), and each optimum is several L-BFGS-B runs."""
    from multilevel.optimize import optimal

    return optimal(system, zero_levels)


def _ppa_worst_waits(s: S.Scenario, plan, extra: int) -> tuple[float, bool]:
    """PPA's worst correlated recovery, deterministic (rev20e #1): over EVERY k-node set
    (_node_sets) and both fates of the plan's ``extra`` nodes (all failing with the set, or
    none), every requested node at the acquisition law's upper end: (the longest wait of a
    failed passive task, -1 where none ever restarts passively; whether a task ever switches to
    its replica). Its time to full output is the last task back, and a passive task's recovery
    rises with its wait, so these two give the worst time for any catch-up job. Remembered per
    process by what it reads."""
    standby, n = s.resources.standby_nodes, s.resources.nodes
    key = (
        s.topology,
        n,
        standby,
        s.papers["incremental"]["cpu_cap"],
        tuple(sorted(s.papers["ppa"].items())),
        s.failures.correlated_nodes,
        R.acquisition_upper_s(s),
        plan,
        extra,
    )

    def compute() -> tuple[float, bool]:
        longest, switches = -1.0, False
        fates = [(), tuple(range(n, n + extra))] if extra else [()]
        for nodes in _node_sets(s, "correlated"):
            upper = np.full(len(nodes), R.acquisition_upper_s(s))
            for fate in fates:
                switched = replication.active_tasks(s, plan, (*nodes, *fate))
                waits = R.task_waits(s, nodes, standby, upper, switched)
                longest = max(longest, *waits.values()) if waits else longest
                switches = switches or bool(switched)
        return longest, switches

    return _remember(_PPA_WORST, key, compute)


_PPA_WORST: dict[tuple, tuple[float, bool]] = {}


def ppa_point(params: dict, rng) -> dict:
    """PPA-fraction (Su & Zhou, Fig 10's plans: ppa.ppa_plan) on the scenario's topology
    (to_ppa) through crosspaper.replication: every task checkpointed every T =
    remote_interval_s (passive), the plan's tasks also actively replicated on nodes that can
    fail (or another failure domain). Overhead = c2/T (PPA's passive plan checkpoints EVERY
    task, replicated or not: Su & Zhou Sec. III, "checkpoints will be periodically created for
    all the tasks"; a task whose replica died recovers from that checkpoint, rev20f #4) + the
    replicas' CPU / the job's. Per failure
    (every node once for process and single failures, ``draws`` random correlated sets; the QoS
    over every correlated set, _ppa_worst_waits), a passive task restarts where the one rule
    puts it (recovery.task_waits; at once after a process failure) and recovers through the
    shared model. The loss is the exact output lost, the metric of every scheme
    (replication.exact_lost_s); the tentative output's credit, ∫ (1 - OF), is the
    column ``own_tentative_s_per_h`` beside it and never decides the front. y's loads
    (day_jobs): each passive task's back time is its mean over the loads, which gives the mean
    exact loss itself (an output is exact when its slowest failed task is back, and at every
    load that is the task waiting longest: the recovery rises with the wait, and a switched
    task's ACTIVATION_S is below any restart); the tentative credit is taken at those means."""
    s, timing = scenario_of(params)
    topology, _ = S.to_ppa(s)
    fraction = float(params["fraction"])
    plan = _plan(topology, fraction)
    standby = s.resources.standby_nodes
    c, reading = s.checkpoint, cost_reading(params)
    T = remote_interval_s(s)  # cross_correlated's interval (rev20e #5)
    share = c.remote_cost_s / T  # every task checkpoints (the paper's passive plan, rev20f #4)
    jobs = day_jobs(params, s, share, reading)
    qjob = catch_up(qos_job(params, s), share, reading)

    @cache
    def recover(wait: float) -> float:
        return _day_recovery_s(T, wait + c.remote_restart_s, jobs, timing)

    @cache
    def recover_qos(wait: float) -> float:
        return _expected_recovery_s(T, wait + c.remote_restart_s, qjob, "worst")

    losses, recoveries, tentative = {}, {}, {}
    extra = replication.extra_nodes(s, plan)  # replicas' nodes failing with the job's
    for kind in KINDS:
        sets = failed_node_draws(s, kind, int(params.get("draws", 20)), rng, extra)
        lost, credit, full = [], [], []
        for nodes in sets:
            draws = acquisition_draws(s, len(nodes), rng)
            switched = replication.active_tasks(s, plan, nodes)  # no place needed
            job_nodes = tuple(k for k in nodes if k < s.resources.nodes)  # hold job tasks
            if kind == "process":
                waits = dict.fromkeys(R.failed_tasks(s, job_nodes, switched)[0], 0.0)
                longest = waits
            else:
                waits = R.task_waits(s, job_nodes, standby, draws, switched)
                upper = np.full(len(draws), R.acquisition_upper_s(s))  # the QoS's wait
                longest = R.task_waits(s, job_nodes, standby, upper, switched)
            exact, tent, _ = _ppa_failure(
                s, topology, plan, nodes, {t: recover(w) for t, w in waits.items()}
            )
            lost.append(exact)
            credit.append(tent)
            if kind != "correlated":  # every node once: these sets are all of them
                back_qos = {t: recover_qos(w) for t, w in longest.items()}
                full.append(_ppa_failure(s, topology, plan, nodes, back_qos)[2])
        if kind == "correlated":  # every k-node set, not the drawn ones (rev20e #1)
            wait, switches = _ppa_worst_waits(s, plan, extra)
            full = [recover_qos(wait) if wait >= 0 else 0.0]
            full.append(replication.ACTIVATION_S if switches else 0.0)
        # the QoS bounds every recovery: the worst failed set (rev20c #4), not the mean
        losses[kind], recoveries[kind] = float(np.mean(lost)), float(np.max(full))
        tentative[kind] = float(np.mean(credit))
    lam = per_hour(s)
    cpu, nodes_needed = replication.replica_cost(s, plan)
    return _finish(
        _row(
            f"PPA-{fraction:g}",
            share + cpu / job_resources(s),
            losses,
            recoveries,
            checkpoint_share=share,
            reserved_nodes=standby + nodes_needed,
            replicated_tasks=len(plan),
            replica_cpu_nodes=cpu,
            tentative_s_per_h=min(
                sum(lam[k] * tentative[k] for k in KINDS if lam[k] > 0), SECONDS_PER_HOUR
            ),
        ),
        s,
        drain_reason(jobs, params, s, share, reading),
    )


def _placement(s: S.Scenario) -> dict:
    return {key: int(node[1:]) for key, node in S.placement(s).items()}


def _placed_queries(s: S.Scenario, nodes, arrivals, cap: float, alive) -> tuple:
    """Per query of the failure of ``nodes`` (to_incremental): (priority, seconds after the
    failure it is placed, whether it is) by BestDensity plans as nodes come
    (incremental.recover_as_nodes_arrive); a query never placed counts from the last step.
    Remembered per process by the topology, the priority and the arguments: the sensitivity and
    decision-map factors other than the acquisition delay leave them unchanged (common random
    numbers draw the same failed sets and arrivals), and the plans were most of a point's time."""
    key = (s.topology, s.papers["incremental"]["priority"], nodes, arrivals, cap, alive)

    def compute() -> tuple:
        from incremental import recover_as_nodes_arrive

        problem = S.to_incremental(s, [f"n{k}" for k in nodes])
        steps = recover_as_nodes_arrive(
            problem, list(arrivals), cpu_cap=cap, alive_free=list(alive)
        )
        when = {}
        for step in steps:
            for q in step.recovered_queries:
                when.setdefault(q, step.time)
        end = steps[-1].time
        return tuple(
            (priority, float(when.get(q, end)), q in when)
            for q, (_, priority) in problem.queries.items()
        )

    return _remember(_PLACED, key, compute)


_PLACED: dict[tuple, tuple] = {}


def _incremental_worst_placed(s: S.Scenario, standby: int, cap: float, load: tuple) -> float:
    """Incremental's worst correlated recovery, deterministic (rev20e #1): the latest time a
    query is placed (_placed_queries, every requested node at the acquisition law's upper end)
    over EVERY k-node set (_node_sets); -1 where no query fails. A query's recovery rises with
    its placement time, so this gives the worst time for any catch-up job."""

    def compute() -> float:
        latest = -1.0
        for nodes in _node_sets(s, "correlated"):
            now = min(standby, len(nodes))
            n = _acquired(s, nodes, standby)[1]
            arrivals = ((0.0, 1.0),) * now + ((R.acquisition_upper_s(s), 1.0),) * n
            alive = tuple(max(0.0, cap - load[k]) for k in range(len(load)) if k not in nodes)
            placed = _placed_queries(s, nodes, arrivals, cap, alive)
            latest = max(latest, *(t for _, t, _ in placed)) if placed else latest
        return latest

    key = (s.topology, s.papers["incremental"]["priority"], s.resources.nodes, standby, cap)
    key += (s.failures.correlated_nodes, R.acquisition_upper_s(s), load)
    return _remember(_INCREMENTAL_WORST, key, compute)


_INCREMENTAL_WORST: dict[tuple, float] = {}


def incremental_point(params: dict, rng) -> dict:
    """Incremental recovery (Su & Zhou) with extra_standby idle nodes beside the scenario's:
    overhead = c2/T (its checkpoints every T = remote_interval_s) + extra_standby / job
    resources. Per failure (every node once for process and single failures, ``draws`` random
    correlated sets; the problem of to_incremental), BestDensity plans run as nodes come
    (incremental.recover_as_nodes_arrive: standby nodes at once, the others at acquisition
    draws; after a process failure the node is there at once; alive nodes' spare capacity under
    the CPU cap); a query placed t_q s after the failure is back after the shared model's
    recovery with t_q + remote restart down (the backlog of the wait included); the loss is
    Σ_q priority_q back_q / Σ priorities over all queries."""
    s, timing = scenario_of(params)
    extra = int(params["extra_standby"])
    if extra < 0:
        raise ValueError(f"extra_standby must be an integer >= 0; got {extra}")
    standby = s.resources.standby_nodes + extra
    cap = s.papers["incremental"]["cpu_cap"]
    where = _placement(s)
    load = np.zeros(s.resources.nodes)
    for (op, _), k in where.items():
        load[k] += s.topology.operator(op).cpu_share
    outputs = [op for op in s.topology.operators if op.output]
    total_priority = s.papers["incremental"]["priority"] * sum(op.parallelism for op in outputs)
    c, reading = s.checkpoint, cost_reading(params)
    T = remote_interval_s(s)  # cross_correlated's interval (rev20e #5)
    share = c.remote_cost_s / T
    jobs = day_jobs(params, s, share, reading)  # y's loads: the loss is linear in recover
    qjob = catch_up(qos_job(params, s), share, reading)

    @cache
    def recover(placed: float) -> float:
        return _day_recovery_s(T, placed + c.remote_restart_s, jobs, timing)

    @cache
    def recover_qos(placed: float) -> float:
        return _expected_recovery_s(T, placed + c.remote_restart_s, qjob, "worst")

    losses, recoveries, unrecovered = {}, {}, 0
    for kind in KINDS:
        sets = failed_node_draws(s, kind, int(params.get("draws", 20)), rng)
        lost, full = [], []
        for nodes in sets:
            draws = acquisition_draws(s, len(nodes), rng)
            # the one rule's nodes (recovery.restart_plan): the survivors' spare (alive), the
            # standby nodes at once, then the n requested nodes at draws[now:now + n]
            now = len(nodes) if kind == "process" else min(standby, len(nodes))
            n = 0 if kind == "process" else _acquired(s, nodes, standby)[1]
            later = np.sort(draws[now : now + n])
            arrivals = ((0.0, 1.0),) * now + tuple((float(t), 1.0) for t in later)
            # the QoS's arrivals: every requested node at the law's upper end (rev20c #4)
            latest = ((0.0, 1.0),) * now + ((R.acquisition_upper_s(s), 1.0),) * len(later)
            alive = tuple(max(0.0, cap - load[k]) for k in range(len(load)) if k not in nodes)
            seconds = 0.0
            for priority, placed, recovered in _placed_queries(s, nodes, arrivals, cap, alive):
                unrecovered += not recovered
                seconds += priority * recover(placed)
            lost.append(seconds / total_priority)
            if kind != "correlated":  # every node once: these sets are all of them
                placed_qos = _placed_queries(s, nodes, latest, cap, alive)
                full.append(max((recover_qos(t) for _, t, _ in placed_qos), default=0.0))
        if kind == "correlated":  # every k-node set, not the drawn ones (rev20e #1)
            latest = _incremental_worst_placed(s, standby, cap, tuple(load))
            full = [recover_qos(latest) if latest >= 0 else 0.0]
        # the QoS bounds every recovery: the worst failed set, not the mean
        losses[kind], recoveries[kind] = float(np.mean(lost)), float(np.max(full))
    return _finish(
        _row(
            f"+{extra} standby",
            share + extra / job_resources(s),
            losses,
            recoveries,
            checkpoint_share=share,
            reserved_nodes=standby,
            unrecovered_queries=unrecovered,
        ),
        s,
        drain_reason(jobs, params, s, share, reading),
    )


POINTS = {
    "multilevel": multilevel_point,
    "fastrecover": fastrecover_point,
    "khaos": khaos_point,
    "ppa": ppa_point,
    "incremental": incremental_point,
    "baseline": baseline_point,
}


def frontier_point(params: dict, rng) -> dict:
    """Sweep function (pipeline.sweep): the point of ``params["approach"]``."""
    approach = params.get("approach")
    if approach not in POINTS:
        raise ValueError(f"approach must be one of {APPROACHES}; got {approach!r}")
    return POINTS[approach](params, rng)


def baseline_intervals(s: S.Scenario) -> dict[str, float]:
    """{label: interval (s)} of the baselines: Daly's first-order interval of the one-level
    system (every failure recovered from the remote checkpoint) and the production default."""
    from multilevel.optimize import first_order_interval

    daly = first_order_interval(S.to_multilevel(s, levels=1), daly=True)
    return {"Young/Daly": float(daly), "production default": PRODUCTION_INTERVAL_S}


def grid(
    scenarios: Sequence[str],
    *,
    intervals_s: Sequence[float],
    p1_values: Sequence[float],
    ch_max_values: Sequence[float],
    b_log_values: Sequence[float | None],
    cis_s: Sequence[float],
    fractions: Sequence[float],
    extra_standby: Sequence[int],
    draws: int,
    approaches: Sequence[str] = APPROACHES,
    **factors,
) -> list[dict]:
    """Every point of every approach in ``approaches`` that applies to each scenario: FastRecover
    needs a chain, Khaos a measured workload, multilevel's p1 > 0 process failures (and T
    above its checkpoint cost Σ p c); extra
    standby nodes stop at the correlated failure's size (more are never used); the baselines at
    baseline_intervals. ``factors``: sensitivity factors (FACTORS, ``timing``) on every point;
    every point carries its scenario's ``digest`` (``Scenario.digest``) beside its name."""
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 1:
        raise ValueError(f"draws must be an integer >= 1; got {draws!r}")
    allowed = (*FACTORS, "timing", "load_quantile", "cost_reading", "y_load")
    unknown = set(factors) - set(allowed)
    if unknown:
        raise ValueError(f"factors must be among {allowed}; got {sorted(unknown)}")
    unknown = set(approaches) - set(APPROACHES)
    if unknown:
        raise ValueError(f"approaches must be among {APPROACHES}; got {sorted(unknown)}")
    points = []
    for name in scenarios:
        # the digest of the file's values keys the sweep cache: an edited file is run again
        extra = {"scenario": name, "digest": S.load(name).digest(), **factors}
        s, _ = scenario_of(extra)
        if "baseline" in approaches:
            points += [
                {**extra, "approach": "baseline", "baseline": label, "T_s": T}
                for label, T in baseline_intervals(s).items()
            ]
        if "multilevel" in approaches:
            for T in intervals_s:
                for p1 in p1_values:
                    if not 0 <= p1 < 1:
                        raise ValueError(f"p1_values must lie in [0, 1); got {p1}")
                    if p1 > 0 and s.failures.process_per_day <= 0:
                        continue
                    cost = p1 * s.checkpoint.local_cost_s + (1 - p1) * s.checkpoint.remote_cost_s
                    if T <= cost:
                        continue
                    points.append({**extra, "approach": "multilevel", "T_s": T, "p1": p1})
        try:
            S.to_fastrecover(s)
            chain = True
        except ValueError:
            chain = False
        if chain and "fastrecover" in approaches:
            points += [
                {**extra, "approach": "fastrecover", "ch_max": ch, "b_log_kb_per_min": b}
                | {"draws": draws}
                for b in b_log_values
                for ch in ch_max_values
            ]
        if s.papers["khaos"]["experiment"] != "none" and "khaos" in approaches:
            points += [{**extra, "approach": "khaos", "ci_s": ci} for ci in cis_s]
        if "ppa" in approaches:
            points += [
                {**extra, "approach": "ppa", "fraction": f, "draws": draws} for f in fractions
            ]
        k = s.failures.correlated_nodes
        if "incremental" in approaches:
            points += [
                {**extra, "approach": "incremental", "extra_standby": e, "draws": draws}
                for e in extra_standby
                if s.resources.standby_nodes + e <= k
            ]
    return points


def mark_front(points: pd.DataFrame, by: Sequence[str] = ("scenario",)) -> pd.DataFrame:
    """``points`` with a ``pareto`` column: on its group's front over all approaches, feasible
    points only (an infeasible point is never on the front)."""
    out = points.copy()
    out["pareto"] = False
    for _, index in out.groupby(list(by)).groups.items():
        sub = out.loc[index]
        ok = sub["feasible"].to_numpy(dtype=bool)
        y = np.where(ok, sub["unavailability_s_per_h"], np.nan)
        out.loc[index, "pareto"] = pareto_front(sub["overhead"], y)
    return out


def axes() -> pd.DataFrame:
    """How each approach's overhead and recovery measure are put on the common axes, with the
    source of each conversion or 'assumption: ...'."""
    rows = [
        (
            "all",
            "rates",
            "λ per hour = failures.*_per_day / 24 (process, single, correlated)",
            "scenario failures",
        ),
        (
            "all",
            "x",
            "resources reserved / Σ cpu_share: checkpoints c/T, replicas' CPU, "
            "standby nodes 1 each",
            "scenario topology.operators.cpu_share (node equivalents)",
        ),
        (
            "all",
            "y",
            "Σ_kind λ_kind E[output-seconds lost per failure] (s/h), the expectation over the "
            "measured day's 300-s loads too, capped at 3,600; "
            "infeasible (infeasible_reason) at the cap, without catch-up at y's loads or the "
            "day's peak 300-s load, at c/T >= 1 (no time to process) or where a failure's "
            "expected loss reaches the mean time between failures",
            "definition",
        ),
        (
            "all",
            "recovery",
            "wait + restart + replay and catch-up at C - a to 5% of the peak "
            "backlog a (lost + wait + restart)",
            "crosspaper.recovery (khaos simulator's drain; checked against it)",
        ),
        (
            "all",
            "wait",
            "process: none; else the failed tasks go first-fit onto the survivors' spare under "
            "the CPU cap, then the S standby nodes, then m new nodes: E[max of m acquisitions]",
            "scenario resources (incremental Fig 7: uniform 2-6 min); one rule for every scheme",
        ),
        (
            "all",
            "QoS",
            "every recovery <= qos.recovery_s (worst node or node set, longest wait, worst "
            "moment, the day's peak 300-s load): meets_qos_single over process and single-node "
            "failures (cross_interval's criterion: the figure, the headlines), meets_qos over "
            "correlated failures too (cross_correlated's: the worst k-node set)",
            "scenario qos",
        ),
        (
            "baseline",
            "x, y",
            "remote checkpoint every T: Young/Daly T = c + sqrt(2c(M + r)), or "
            f"{PRODUCTION_INTERVAL_S:g} s",
            "multilevel.optimize.first_order_interval; Amazon "
            "Managed Service for Apache Flink's default CheckpointInterval",
        ),
        ("multilevel", "x", "Σ p_l c_l / T", "multilevel Eq. (1) failure-free utilization"),
        (
            "multilevel",
            "y",
            "process: p1 R(T, r1) + p2 R(T, r2); node: R(T(G - 1) + moment, "
            "wait + r2), G uniform on 1..m, m = ceil(1/p2): a remote checkpoint every m T "
            "(the label's remote interval; the QoS at G = m)",
            "multilevel Sections 3.1-3.3 (R_1, lost checkpoints); "
            "level 1 = process failures (Section 5)",
        ),
        (
            "fastrecover",
            "x",
            "Σ ch_i at the optimum, the source's log left out (every operator at T: c/T, "
            "a single-level checkpoint's charge); infeasible at max ch_i >= 1",
            "Eq. (2.1), snapshots priced by remote_cost_s (scenarios.snapshot_storage); "
            "assumption: Kafka logs the input for every scheme",
        ),
        (
            "fastrecover",
            "y",
            "max over hit operators of R(moment in 1/η_i, wait + r1 + restore_i): the remote "
            "download is restore_i, not r2 - r1 again",
            "Eq. (3.2)'s restore b_i; assumption: segments recover in parallel",
        ),
        ("khaos", "x", "remote_cost_s / CI", "scenario checkpoint cost c"),
        (
            "khaos",
            "y",
            "R(moment in CI, wait + r2)",
            "shared model; the day's simulator replay in own_* columns",
        ),
        (
            "ppa",
            "x",
            "c2/T x passive tasks' CPU share + replicated tasks' CPU / job CPU; T the "
            "remote-only optimum (remote_interval_s), as in cross_correlated",
            "PPA Section III; a replica costs its task's CPU",
        ),
        (
            "ppa",
            "y",
            "mean over output tasks of the time until their output is exact; passive tasks "
            "restart by the one rule; ∫ (1 - OF) of the tentative output in own_tentative_s_per_h",
            "PPA Eqs. (1)-(4); crosspaper.replication",
        ),
        (
            "incremental",
            "x",
            "c2/T + extra standby nodes / job CPU; T the remote-only optimum "
            "(remote_interval_s), as in cross_correlated",
            "assumption: a standby node costs 1",
        ),
        (
            "incremental",
            "y",
            "Σ_q prio_q R(moment, t_q + r2) / Σ prio",
            "incremental recover_as_nodes_arrive with BestDensity (Algorithm 3)",
        ),
    ]
    return pd.DataFrame(rows, columns=["approach", "axis", "conversion", "source"])


# -- sensitivity of the headlines and the decision map ----------------------------------------
SENSITIVITY = (
    ("failure rate", "rate_factor", (0.1, 10.0)),
    ("headroom", "headroom_factor", (0.7, 1.3)),
    ("checkpoint cost", "cost_factor", (0.1, 10.0)),
    ("checkpoint cost reading", "cost_reading", ("async",)),
    ("y's load", "y_load", ("mean",)),
    ("failure timing", "timing", ("worst",)),
    ("acquisition delay", "delay_factor", (0.5, 2.0)),
    ("process failures", "process_factor", (0.0,)),
    ("QoS load level", "load_quantile", (0.5, 0.95)),
    ("catch-up criterion", "drain_fraction", (0.1, 0.2)),
    ("drain constant tau", "tau_factor", (0.0, 2.0)),
)
CHECKPOINT_ONLY = ("baseline", "multilevel", "khaos", "fastrecover")
# headlines compare points spending less than the job's own resources: a point at overhead 1
# (e.g. FastRecover at CH_max = 1 under the async reading) checkpoints all the time (rev20d #10)
MAX_OVERHEAD = 1.0


def variations(scenarios, grid_kwargs: dict, cases=SENSITIVITY) -> list[dict]:
    """The grid (``grid(scenarios, **grid_kwargs)``) at the defaults (case "default") and at
    each case's values one at a time; every point carries ``case`` and ``value``."""
    points = [{**p, "case": "default", "value": "1"} for p in grid(scenarios, **grid_kwargs)]
    for case, factor, values in cases:
        for value in values:
            points += [
                {**p, "case": case, "value": str(value)}
                for p in grid(scenarios, **grid_kwargs, **{factor: value})
            ]
    return [{**p, "replay": False} if p["approach"] == "khaos" else p for p in points]


def _interval(frame: pd.DataFrame) -> pd.Series:
    """The checkpoint interval of single-level points (baseline, khaos, multilevel at p1 = 0)."""
    out = pd.Series(np.nan, index=frame.index)
    for column, approaches in (("T_s", ("baseline", "multilevel")), ("ci_s", ("khaos",))):
        if column in frame:
            use = frame["approach"].isin(approaches)
            if "p1" in frame:
                use &= ~(frame["approach"].eq("multilevel") & frame["p1"].fillna(0).gt(0))
            out[use] = frame.loc[use, column]
    return out


SINGLE_LEVEL = "single-level checkpoint"


def _design(row) -> str:
    """A point's design: single-level points (baseline, khaos, multilevel at p1 = 0: the same
    remote checkpoint every T on the same recovery model, identical rows) are one design,
    "single-level checkpoint T=...s"; the others their approach and label."""
    if row["interval_s"] == row["interval_s"]:
        return f"{SINGLE_LEVEL} T={row['interval_s']:g}s"
    return f"{row['approach']} {row['label']}"


def _cheapest(points: pd.DataFrame) -> pd.Series:
    """The point of least overhead, ties (within TIE) broken by the lower unavailability, never
    by row order: FastRecover with every operator at T costs what the checkpoint every T costs."""
    low = points["overhead"].min()
    tied = points[points["overhead"] <= low * (1 + TIE)]
    return tied.loc[tied["unavailability_s_per_h"].idxmin()]


def headlines(runs: pd.DataFrame, by: Sequence[str] = ("scenario",)) -> pd.DataFrame:
    """Per group of ``by``: the designs on the front (feasible points only; baseline, khaos and
    multilevel at p1 = 0 are one design, SINGLE_LEVEL, so the front does not hang on which grid
    holds a given T), the best checkpoint-only unavailability (CHECKPOINT_ONLY, overhead <
    MAX_OVERHEAD) with its setting and overhead, PPA-1's unavailability and overhead, the
    cheapest point meeting the QoS limit for process and single-node failures (_cheapest: ties
    by the lower loss), and the longest single-level interval meeting it (qos_interval:
    searched, not the grid's maximum)."""
    marked = mark_front(runs, by)
    marked["interval_s"] = _interval(marked)
    rows = []
    for key, g in marked.groupby(list(by), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        ok = g[g["feasible"]]
        front = ok[ok["pareto"]]
        designs = np.where(front["interval_s"].notna(), SINGLE_LEVEL, front["approach"])
        ckpt = ok[ok["approach"].isin(CHECKPOINT_ONLY) & (ok["overhead"] < MAX_OVERHEAD)]
        best = ckpt.loc[ckpt["unavailability_s_per_h"].idxmin()] if len(ckpt) else None
        ppa1 = ok[(ok["approach"] == "ppa") & (ok.get("fraction") == 1.0)]
        qos = ok[ok["meets_qos_single"]]
        cheapest = _cheapest(qos) if len(qos) else None
        first = g.iloc[0]
        params = {
            k: first[k]
            for k in ("scenario", *FACTORS, "load_quantile", "cost_reading")
            if k in g and not (isinstance(first[k], float) and math.isnan(first[k]))
        }
        rows.append(
            {
                **dict(zip(by, key, strict=True)),
                "front": ", ".join(sorted(set(designs))),
                "points": len(g),
                "infeasible_points": int((~g["feasible"]).sum()),
                "infeasible_reasons": reason_counts(g),
                "best_checkpoint_s_per_h": np.nan
                if best is None
                else best["unavailability_s_per_h"],
                "best_checkpoint": "" if best is None else _design(best),
                "best_checkpoint_overhead": np.nan if best is None else best["overhead"],
                "ppa1_s_per_h": ppa1["unavailability_s_per_h"].min() if len(ppa1) else np.nan,
                "ppa1_overhead": ppa1["overhead"].min() if len(ppa1) else np.nan,
                "cheapest_qos": "" if cheapest is None else _design(cheapest),
                "cheapest_qos_overhead": np.nan if cheapest is None else cheapest["overhead"],
                "longest_qos_interval_s": qos_interval(params),
            }
        )
    return pd.DataFrame(rows)


def best_checkpoint_text(h) -> str:
    """The finding's words for a :func:`headlines` row's best checkpoint-only point: "<x> s/h at
    best (<design>, overhead <o>%)", or that no checkpoint-only point is feasible (rev20f #6:
    not "nan s/h")."""
    if math.isnan(h["best_checkpoint_s_per_h"]):
        return f"no feasible point (every one is infeasible or costs {MAX_OVERHEAD:.0%} or more)"
    return (
        f"{h['best_checkpoint_s_per_h']:.1f} s/h at best ({h['best_checkpoint']}, overhead "
        f"{h['best_checkpoint_overhead']:.1%})"
    )


def reason_counts(points: pd.DataFrame) -> str:
    """The infeasible points' reasons (``infeasible_reason``, each of a joined one counted)
    with their counts, most frequent first: "never catches up at y's load levels: 40, ..."
    ("" where every point is feasible)."""
    reasons = points.loc[~points["feasible"].astype(bool), "infeasible_reason"]
    counts = collections.Counter(why for r in reasons for why in str(r).split("; ") if why)
    return ", ".join(f"{why}: {n}" for why, n in sorted(counts.items(), key=lambda c: -c[1]))


def no_feasible_text(h, s: S.Scenario) -> str:
    """The finding for a :func:`headlines` row with no feasible point (HIGH 0 of x20m: the
    notebook crashed on it): that none is, the reasons with their counts, and where a point
    never catches up, the capacity against the loads it must beat (under the blocking reading
    a checkpoint every T leaves C (1 - c/T): c/T below 1 - a/C at the day's peak a)."""
    name = h["scenario"]
    text = (
        f"no point is feasible (all {h['points']} infeasible: {h['infeasible_reasons']}), so "
        "there is no front and no setting to recommend"
    )
    if BEHIND_Y not in h["infeasible_reasons"] and BEHIND_PEAK not in h["infeasible_reasons"]:
        return text + "."
    capacity, peak = s.checkpoint.catch_up_rate, qos_load(name, 1.0)
    text += f". The job's capacity (checkpoint.catch_up_rate {capacity:,.0f} events/s) against "
    if _window_loads(name) is None:
        text += f"its input rate {peak:,.0f} events/s (no measured day)"
    else:
        text += (
            f"the day's peak 300-s load {peak:,.0f} events/s (y's highest load level "
            f"{max(day_loads(name)):,.0f})"
        )
    if capacity <= peak:
        return text + ": no recovery ever catches up at that load, whatever the checkpoints."
    return (
        text + f": blocking checkpoints must stay below c/T = {1 - peak / capacity:.2%} of the "
        f"time, which no point's does (c = {s.checkpoint.remote_cost_s:g} s remote)."
    )


def decision_points(scenarios, grid_kwargs: dict, rate_factors, headroom_factors) -> list[dict]:
    """The grid at every (rate_factor, headroom_factor) of the decision map."""
    points = []
    for rate in rate_factors:
        for headroom in headroom_factors:
            points += grid(
                scenarios, **grid_kwargs, rate_factor=float(rate), headroom_factor=float(headroom)
            )
    return [{**p, "replay": False} if p["approach"] == "khaos" else p for p in points]


# -- the failure-rate factor as post-processing ------------------------------------------------
# Approaches whose point at rate factor f is its point at factor 1 with y's rates x f: no loss,
# recovery, overhead or QoS mark of theirs reads a failure rate (the failure draws and counts do
# not either: every node once, ``draws`` correlated sets, whatever the rates), only _finish's
# weights and cut-offs and multilevel's own U (_multilevel_utilization). Not the others:
# baseline (Young/Daly's T), PPA and incremental (remote_interval_s, multilevel's optimum) and
# FastRecover (Algorithm 1 optimizes Σ ρ_i rt_i, ρ_i from the rates) read them.
RATE_FREE = ("multilevel", "khaos")
LABELS = ("case", "value")  # a point's labels (variations): no point function reads them


def _rescales(point: dict) -> bool:
    """Whether ``point``'s row is its rate-1 row finished again at its rate_factor."""
    return point["approach"] in RATE_FREE and point.get("rate_factor", 1.0) != 1.0


def _base(point: dict) -> dict:
    """The point a row of ``point`` is computed from: its labels dropped, factors (FACTORS) at
    1 dropped (adjust's x 1 changes no value: the map's rate 1 points are the sensitivity's
    headroom points, its (1, 1) the main grid's), a RATE_FREE point at rate_factor 1."""
    base = {k: v for k, v in point.items() if k not in LABELS}
    if _rescales(point):
        base["rate_factor"] = 1.0
    return {k: v for k, v in base.items() if not (k in FACTORS and v == 1.0)}


def _key(point: dict) -> tuple:
    return tuple(sorted(point.items()))


def to_run(points: Sequence[dict]) -> list[dict]:
    """The distinct points (_base) to sweep for ``points``; ``rescaled`` gives every point's row
    from their rows. A point shared by two grids (the sensitivity's default and the main grid)
    runs once, a RATE_FREE point once for every failure rate."""
    out, seen = [], set()
    for point in points:
        base = _base(point)
        if _key(base) not in seen:
            seen.add(_key(base))
            out.append(base)
    return out


def rescaled(points: Sequence[dict], runs: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``points`` (one each, in order, as ``sweep`` over ``points`` gives them) from
    ``runs``, the sweep of ``to_run(points)``: each point's base row with its labels and
    factors put back, and a RATE_FREE point at another rate finished again (_finish on the
    same losses, recoveries, overhead and ``drains`` with the scenario at that rate;
    multilevel's own U recomputed). Equal to sweeping ``points`` (tests/crosspaper)."""
    run = to_run(points)
    if len(runs) != len(run):
        raise ValueError(
            f"runs must hold one row per to_run(points) point ({len(run)}); got {len(runs)}"
        )
    where = {_key(p): i for i, p in enumerate(run)}
    out = runs.iloc[[where[_key(_base(p))] for p in points]].reset_index(drop=True)
    for name in (*LABELS, *FACTORS):  # as the points give them (_base drops some)
        if any(name in p for p in points):
            out[name] = [p.get(name, math.nan if name in FACTORS else None) for p in points]
    finished = ("recovery_over_mtbf", "feasible", "infeasible_reason", "unavailability_s_per_h")
    finished += ("worst_recovery_s",)
    finished += ("meets_qos", "meets_qos_single", "own_utilization")
    for i, point in enumerate(points):
        if not _rescales(point):
            continue
        s, _ = scenario_of(point)
        drained = bool(out.at[i, "drains"])
        row = _finish(out.loc[i].to_dict(), s, "" if drained else out.at[i, "infeasible_reason"])
        if point["approach"] == "multilevel":
            row["own_utilization"] = _multilevel_utilization(
                s, float(point["T_s"]), float(point["p1"])
            )
        for name in finished:
            if name in row:
                out.at[i, name] = row[name]
    return out
