"""One recovery model for every checkpoint-based scheme of the cross-paper notebooks
(multilevel's levels, FastRecover's segments, Khaos's CIs, blocking and incremental recovery).

A failure stops the output it hits and costs, in this order:

1. detection and waiting for a node: ``wait_s`` (0 for a process failure or when a standby node
   is ready), during which input keeps arriving at ``a`` events/s (Kafka holds it);
2. restore: ``restart_s`` s (redeploy and load the checkpoint; the scenario's
   ``checkpoint.*_restart_s`` count from the failure, so they include detection);
3. reprocessing of the lost work: the ``lost_s`` seconds of input since the checkpoint restored
   are replayed, so at restart the backlog is its peak B = a (lost_s + wait_s + restart_s);
4. catch-up at the spare capacity: the job consumes min(C, a + b / τ) for a backlog b above the
   arrivals (C = ``capacity``, τ = ``drain_tau_s``; the khaos simulator's drain, calibrated on the
   published catch-ups), so the backlog falls linearly at C - a until it reaches the knee
   K = τ (C - a), then exponentially with time constant τ. Recovery ends when the backlog is back
   within DRAIN_FRACTION of its peak (as the khaos simulator and data define it).

Closed form (derivation: db/dt = -(C - a) for b > K, db/dt = -b / τ below it):

    recovery_s = wait + restart + max(B - K, 0) / (C - a) + τ ln(min(B, K) / (f B))

when f B < min(B, K); otherwise (the target lies above the knee, e.g. τ = 0) the linear part
alone, (1 - f) B / (C - a). With C <= a the backlog never drains: the recovery is infinite
(``math.inf``), and a scheme there is infeasible. The output-seconds lost per failure are this
recovery time: the output is missing or stale (behind by the backlog) until it ends.

Failure timing (``lost_work``): ``worst`` = INJECT_BEFORE_S before the next checkpoint (Khaos's
artifact, lost work T - 3 s), ``uniform`` = a uniform moment in the interval (the expectation is
taken over the moment, not applied to the mean moment: the drain is not linear in it). A
level-l failure under multilevel loses G - 1 whole intervals more, with a checkpoint of level >= l
(probability p) every m = ceil(1/p)-th interval: G uniform on 1..m, the one level law of the cross
notebooks (rev20e #2: the deterministic pattern a deployment runs, whose worst case G = m bounds
every recovery; Section 3's random levels, G geometric(p), bound none).

The khaos simulator (khaos.simulate) is this model's check: ``simulator_table`` runs both on
constant arrivals over a grid of CIs and failure moments; they agree within
``tolerance_s(model)`` = TOLERANCE_ABS_S + TOLERANCE_REL x model (the simulator steps whole
seconds and rounds its restart to one).
Where a failed task restarts (``restart_plan``, one rule for every scheme of the three cross
notebooks): first on the surviving nodes' spare capacity under the CPU cap, then on the
scenario's standby nodes, then on newly acquired nodes, requested at the failure and ready after
the scenario's acquisition delay (``acquired_wait_s``); the input of the wait builds the backlog
the catch-up drains (``down_s`` above). A process failure keeps its node: no wait.
Units: s, events/s.
"""

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

DRAIN_FRACTION = 0.05  # khaos.simulate.DRAIN_FRACTION: catch-up ends at 5% of the peak backlog
INJECT_BEFORE_S = 3  # khaos.simulate.SimParams.inject_before_s: the artifact's worst case
TIMINGS = ("uniform", "worst")
UNIFORM_POINTS = 256  # midpoints of the uniform failure moment (the expectation's quadrature)
TOLERANCE_ABS_S = 2.0  # fixed before comparing: two simulator steps (1 s each, restart rounded)
TOLERANCE_REL = 0.02  # and 2% of the model's recovery (the simulator's backlog is per second)
# The simulator steps 1 s: with a drain constant τ below two steps it drains the exponential
# tail in one step (fig9: τ = 1 s, model tail τ ln(K/(fB)) ~ 3 s), so it cannot check the model
# there (rev20d #4): such rows are marked unresolved and left out of the agreement claim.
MIN_RESOLVED_TAU_S = 2.0


@dataclass(frozen=True, kw_only=True)
class Job:
    """What the catch-up needs: input_rate a and capacity C (events/s), drain_tau_s τ (s)."""

    input_rate: float
    capacity: float
    drain_tau_s: float = 0.0
    drain_fraction: float = DRAIN_FRACTION

    def __post_init__(self):
        for name in ("input_rate", "capacity"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
        if not (math.isfinite(self.drain_tau_s) and self.drain_tau_s >= 0):
            raise ValueError(f"drain_tau_s must be a finite number >= 0; got {self.drain_tau_s!r}")
        if not 0 < self.drain_fraction < 1:
            raise ValueError(f"drain_fraction must lie in (0, 1); got {self.drain_fraction!r}")

    @property
    def feasible(self) -> bool:
        """Whether a backlog ever drains (capacity above the input rate)."""
        return self.capacity > self.input_rate


def job_of(s, input_rate: float | None = None) -> Job:
    """The Job of a scenario: topology.input_rate (or ``input_rate``: a load level), checkpoint.
    catch_up_rate, papers.khaos.drain_tau_s (0, a linear drain, without it) and
    papers.khaos.drain_fraction (DRAIN_FRACTION without it: a sensitivity run sets it)."""
    khaos = s.papers.get("khaos", {}) if s.papers else {}
    return Job(
        input_rate=s.topology.input_rate if input_rate is None else float(input_rate),
        capacity=s.checkpoint.catch_up_rate,
        drain_tau_s=float(khaos.get("drain_tau_s", 0.0)),
        drain_fraction=float(khaos.get("drain_fraction", DRAIN_FRACTION)),
    )


def recovery_s(lost_s, down_s, job: Job, capacity=None):
    """Seconds from a failure until the backlog is back within job.drain_fraction of its peak, for
    ``lost_s`` s of input to reprocess and ``down_s`` s down (wait + restart); the closed form
    of the module docstring, vectorized; inf when the job cannot catch up. ``capacity``: the
    catch-up capacity per element instead of job.capacity (e.g. C (1 - c/T) of the blocking
    reading per interval T), broadcast with ``lost_s``."""
    lost, down = np.asarray(lost_s, dtype=float), np.asarray(down_s, dtype=float)
    if np.any(lost < 0) or np.any(down < 0) or not np.all(np.isfinite(lost + down)):
        raise ValueError("lost_s and down_s must be finite and >= 0")
    cap = job.capacity if capacity is None else np.asarray(capacity, dtype=float)
    shape = np.broadcast(lost, down, cap).shape
    drains = np.broadcast_to(cap > job.input_rate, shape)
    if not drains.any():
        return np.full(shape, math.inf)[()]
    with np.errstate(divide="ignore", invalid="ignore"):
        out = _closed_form(
            lost,
            down,
            job.input_rate,
            np.where(drains, cap, np.inf),
            job.drain_tau_s,
            job.drain_fraction,
        )
    return np.where(drains, out, math.inf)[()]


def _closed_form(lost, down, a, capacity, tau, fraction):
    """recovery_s's closed form, broadcast over every argument (feasible jobs: capacity > a)."""
    spare = capacity - a
    peak = a * (lost + down)
    target = fraction * peak
    knee = tau * spare
    start = np.minimum(peak, knee)
    exponential_part = target < start
    with np.errstate(divide="ignore", invalid="ignore"):
        # below the knee start / target is 1 / fraction exactly (rev20f #7: a subnormal peak)
        ratio = np.where(peak <= knee, 1.0 / fraction, start / target)
        tail = np.where(exponential_part, tau * np.log(ratio), 0.0)
    linear = np.where(exponential_part, np.maximum(peak - knee, 0.0), peak - target) / spare
    return down + linear + tail


JOB_TERMS = ("input_rate", "capacity", "drain_tau_s", "drain_fraction")


def _lost_intervals(interval_s: float, keep: float) -> tuple[np.ndarray, np.ndarray]:
    """(extra lost seconds (G - 1) T, P[G]) of a failure whose level's checkpoint comes every
    m = ceil(1/keep)-th interval (``keep``: its probability): G uniform on 1..m (the module's
    level law)."""
    if not 0 < keep <= 1:
        raise ValueError(f"keep must lie in (0, 1]; got {keep!r}")
    m = remote_every(keep)
    return np.arange(m) * float(interval_s), np.full(m, 1.0 / m)


MAX_NODE_SETS = 2000  # correlated node sets enumerated up to this many, else a fixed sample


def node_sets(nodes, k: int) -> list[tuple[int, ...]]:
    """The k-node sets a correlated failure of ``nodes`` (ints) may take, the one enumeration of
    the cross notebooks (rev20f #5): every k-subset up to MAX_NODE_SETS of them, else
    MAX_NODE_SETS drawn with seed 0 (a stated sample: "every set" then means every sampled set),
    the same for every scheme and both notebooks."""
    nodes = list(nodes)
    if math.comb(len(nodes), k) <= MAX_NODE_SETS:
        return list(itertools.combinations(nodes, k))
    rng = np.random.default_rng(0)
    return [
        tuple(sorted(int(x) for x in rng.choice(nodes, size=k, replace=False)))
        for _ in range(MAX_NODE_SETS)
    ]


def remote_every(p: float) -> int:
    """m = ceil(1/p): a checkpoint of probability ``p`` every m-th interval (the level law)."""
    return math.ceil(1.0 / p - 1e-9)


def mean_recovery_s(
    interval_s: float, down_s: float, jobs, timing: str = "uniform", keep: float = 1.0
) -> float:
    """The mean over ``jobs`` (equally likely: a day's load levels) of expected_recovery_s, in
    one array (inf where some job cannot catch up). A (job, row of G) pair that drains linearly
    (expected_recovery_s's shortcut) takes the mean moment; the others the moments' grid."""
    moments, weights = lost_work(interval_s, timing)
    extra, pg = _lost_intervals(interval_s, keep)
    if not (math.isfinite(down_s) and down_s >= 0):
        raise ValueError("lost_s and down_s must be finite and >= 0")
    if not all(j.feasible for j in jobs):
        return math.inf
    a, capacity, tau, f = (np.array([float(getattr(j, k)) for j in jobs]) for k in JOB_TERMS)
    knee = tau * (capacity - a)
    # per (job, row of G): linear when its every moment drains linearly to the target
    linear = f[:, None] * a[:, None] * (extra[None, :] + moments.min() + down_s) >= knee[
        :, None
    ] * (1 + 1e-9)
    total = np.zeros(len(jobs))
    mean = (np.array([float(moments @ weights)]), np.ones(1))  # a linear row: the mean moment
    for rows, (lost, w) in ((~linear, (moments, weights)), (linear, mean)):
        j, g = np.nonzero(rows)
        if j.size:
            grid = _closed_form(
                lost[None, :] + extra[g][:, None],
                float(down_s),
                *(v[j][:, None] for v in (a, capacity, tau, f)),
            )
            total += np.bincount(j, weights=(grid @ w) * pg[g], minlength=len(jobs))
    return float(total.mean())


def lost_work(interval_s: float, timing: str):
    """(moments, weights): seconds of input lost since the last checkpoint and their weights,
    ``worst`` = one moment INJECT_BEFORE_S before the next checkpoint, ``uniform`` = midpoints
    of a uniform moment in the interval."""
    if not (math.isfinite(interval_s) and interval_s > 0):
        raise ValueError(f"interval_s must be a finite number > 0; got {interval_s!r}")
    if timing == "worst":
        return np.array([max(interval_s - INJECT_BEFORE_S, 0.0)]), np.array([1.0])
    if timing == "uniform":
        u = (np.arange(UNIFORM_POINTS) + 0.5) / UNIFORM_POINTS
        return u * interval_s, np.full(UNIFORM_POINTS, 1.0 / UNIFORM_POINTS)
    raise ValueError(f"timing must be one of {TIMINGS}; got {timing!r}")


def expected_recovery_s(
    interval_s: float,
    down_s: float,
    job: Job,
    timing: str = "uniform",
    keep: float = 1.0,
) -> float:
    """E[recovery_s] of a failure recovered from the last checkpoint of its level: checkpoints
    every ``interval_s`` s, each usable for it with probability ``keep`` (multilevel: the
    probability of a checkpoint of its level or above; 1 for single-level schemes), so it loses
    G - 1 whole intervals plus the moment in the last one, G uniform on 1..ceil(1/keep)."""
    moments, weights = lost_work(interval_s, timing)
    extra, pg = _lost_intervals(interval_s, keep)
    # Rows of G whose every moment drains linearly to the target (f B >= K, the closed form's
    # last case, always when τ = 0) are linear in the lost work: their mean over the moments is
    # recovery_s at the mean moment. The tail of G (thousands of rows at keep 0.01) needs no grid.
    linear = np.zeros(extra.size, dtype=bool)
    if job.feasible and down_s >= 0:
        a, f = job.input_rate, job.drain_fraction
        knee = job.drain_tau_s * (job.capacity - a)
        linear = f * a * (extra + moments.min() + down_s) >= knee * (1 + 1e-9)
    grid = recovery_s(moments[None, :] + extra[~linear, None], down_s, job)
    total = float(pg[~linear] @ np.asarray(grid).reshape(-1, moments.size) @ weights)
    if linear.any():
        mean_lost = extra[linear] + float(moments @ weights)
        total += float(pg[linear] @ recovery_s(mean_lost, down_s, job))
    return total


# -- where a failed task restarts: one rule for every scheme ------------------------------------
def restart_plan(task_cpu, spare, cap: float, standby: int) -> np.ndarray:
    """Where each failed task (CPU shares ``task_cpu`` in node equivalents, in the order given)
    restarts, first-fit: on the surviving nodes' spare capacity (``spare``, one entry per
    survivor: cap - its load), then on ``standby`` idle nodes, then on newly acquired nodes (each
    filled up to ``cap``). Returns per task -1 where it restarts at once (a survivor or a standby
    node) or j >= 0, the acquired node it waits for (the j-th to arrive)."""
    if not (math.isfinite(cap) and cap > 0):
        raise ValueError(f"cap must be a finite number > 0; got {cap!r}")
    if isinstance(standby, bool) or not isinstance(standby, int | np.integer) or standby < 0:
        raise ValueError(f"standby must be an integer >= 0; got {standby!r}")
    free = [max(0.0, float(x)) for x in spare] + [float(cap)] * int(standby)
    at_once = len(free)
    out = np.empty(len(task_cpu), dtype=int)
    for i, cpu in enumerate(task_cpu):
        if not (math.isfinite(cpu) and 0 <= cpu <= cap + 1e-9):
            raise ValueError(f"task_cpu must lie in [0, cap = {cap:g}]; got {cpu!r}")
        k = next((k for k, room in enumerate(free) if cpu <= room + 1e-9), None)
        if k is None:
            free.append(float(cap))
            k = len(free) - 1
        free[k] -= cpu
        out[i] = k - at_once if k >= at_once else -1
    return out


def failed_tasks(s, failed_nodes, skip=frozenset()) -> tuple[list[str], list[float], list[float]]:
    """(tasks "op[i]" on ``failed_nodes`` in node then task order, their CPU shares, the
    survivors' spare capacity under papers.incremental.cpu_cap) of scenario ``s``; tasks in
    ``skip`` (PPA's tasks that switch to a live replica) need no place and are left out."""
    cap = s.papers["incremental"]["cpu_cap"]
    failed = set(failed_nodes)
    load = [0.0] * s.resources.nodes
    tasks = []
    for op in s.topology.operators:
        for i, k in enumerate(op.nodes):
            load[k] += op.cpu_share
            if k in failed and f"{op.name}[{i}]" not in skip:
                tasks.append((list(failed_nodes).index(k), f"{op.name}[{i}]", op.cpu_share))
    tasks.sort(key=lambda t: t[0])
    spare = [cap - load[k] for k in range(s.resources.nodes) if k not in failed]
    return [t for _, t, _ in tasks], [c for _, _, c in tasks], spare


def acquired_nodes(s, failed_nodes, standby: int) -> tuple[int, int]:
    """(m, n) of a failure of ``failed_nodes`` (indices) under ``restart_plan``: the job waits for
    m new nodes of the n it requests, one per failed node no standby node replaces (more if the
    tasks need more), and takes the first m to arrive."""
    _, cpu, spare = failed_tasks(s, failed_nodes)
    plan = restart_plan(cpu, spare, s.papers["incremental"]["cpu_cap"], standby)
    m = int(plan.max() + 1) if plan.size else 0
    return m, max(len(failed_nodes) - standby, m)


def acquired_wait_s(s, m: int, n: int) -> float:
    """Expected wait (s) until the first ``m`` of ``n`` requested nodes are there: the m-th
    smallest of n draws of the scenario's acquisition law (uniform a..b: a + (b - a) m / (n + 1);
    fixed: a; 0 for m = 0)."""
    if m <= 0:
        return 0.0
    if n < m:
        raise ValueError(f"n must be >= m = {m}; got {n}")
    r = s.resources
    if r.acquisition_law == "fixed":
        return r.acquisition_low_s
    return r.acquisition_low_s + (r.acquisition_high_s - r.acquisition_low_s) * m / (n + 1)


def acquisition_upper_s(s) -> float:
    """The longest wait for one acquired node under the scenario's law: uniform a..b: b; fixed:
    a. The per-recovery QoS bounds every recovery, so it is judged with this wait (rev20c #4),
    never with the law's mean."""
    r = s.resources
    return r.acquisition_low_s if r.acquisition_law == "fixed" else r.acquisition_high_s


def node_failure_wait_s(s) -> float:
    """Expected wait (s) for a place after a single node failure of scenario ``s`` under the one
    rule (``restart_plan`` with its resources.standby_nodes), over every node failing once: what
    cross_interval adds to the simulator's restart (its replayed failures are node failures)."""
    standby = s.resources.standby_nodes
    n = s.resources.nodes
    return sum(acquired_wait_s(s, *acquired_nodes(s, (k,), standby)) for k in range(n)) / n


def node_failure_worst_wait_s(s) -> float:
    """The longest wait (s) for a place after a single node failure of scenario ``s`` under the
    one rule: the acquisition law's upper end (acquisition_upper_s) where some node's failure
    needs an acquired node, else 0: what cross_interval's QoS adds to the restart (rev20c #4:
    the limit bounds every recovery, not the mean one)."""
    standby = s.resources.standby_nodes
    waits = any(acquired_nodes(s, (k,), standby)[0] > 0 for k in range(s.resources.nodes))
    return acquisition_upper_s(s) if waits else 0.0


def task_waits(s, failed_nodes, standby: int, draws, skip=frozenset()) -> dict[str, float]:
    """{failed task: s until its restart place is there} of one failure under ``restart_plan``
    (tasks in ``skip``, PPA's switching to a live replica, need none and are left out):
    0 on a survivor or a standby node, else the arrival of its acquired node: the n requested
    nodes (acquired_nodes) take ``draws[standby:standby + n]`` (one acquisition draw per failed
    node, the first ``standby`` unused: the same draws whatever the standby count) and the tasks
    fill the first m to arrive in arrival order."""
    tasks, cpu, spare = failed_tasks(s, failed_nodes, skip)
    plan = restart_plan(cpu, spare, s.papers["incremental"]["cpu_cap"], standby)
    m = int(plan.max() + 1) if plan.size else 0
    n = max(len(failed_nodes) - standby, m)
    later = np.sort(np.asarray(draws, dtype=float)[standby : standby + n])
    if later.size < n:
        raise ValueError(f"draws must hold standby + {n} acquisitions; got {len(draws)}")
    return {t: 0.0 if j < 0 else float(later[j]) for t, j in zip(tasks, plan, strict=True)}


# -- the check against the khaos simulator -------------------------------------------------------
def simulator_table(
    job: Job,
    restart_s: float,
    cis_s,
    before_s,
    *,
    horizon_s: int = 1800,
) -> pd.DataFrame:
    """Model against the khaos simulator (khaos.simulate.simulate, no noise) on constant
    arrivals ``job.input_rate``: per CI (s) and failure moment (``before_s``: s before the next
    checkpoint; INJECT_BEFORE_S is Khaos's worst case, CI - 1 just after a checkpoint), one
    failure after a warm-up of two intervals; columns ci_s, before_s, model_s, simulator_s,
    difference_s, tolerance_s, within, resolved (τ >= MIN_RESOLVED_TAU_S: the simulator's 1-s
    step resolves the tail; rows not resolved check nothing)."""
    from khaos.simulate import SimParams, simulate

    rows = []
    for ci in cis_s:
        for before in before_s:
            before = int(before)
            if not 1 <= before < ci:
                continue
            params = SimParams(
                capacity=job.capacity,
                drain_tau_s=max(job.drain_tau_s, 1e-9),
                restart_s=float(restart_s),
                inject_before_s=before,
            )
            n = int(3 * ci + horizon_s)
            arrivals = pd.Series(np.full(n, job.input_rate))
            result = simulate(arrivals, ci, [2 * ci], params)
            sim = float(result.failures["recovery_s"].iloc[0])
            # The simulator's down time is whole seconds: the model gets the same rounded restart.
            model = float(recovery_s(ci - before, round(restart_s), job))
            rows.append(
                {
                    "ci_s": int(ci),
                    "before_s": before,
                    "model_s": model,
                    "simulator_s": sim,
                    "difference_s": sim - model,
                    "tolerance_s": tolerance_s(model),
                }
            )
    table = pd.DataFrame(rows)
    table["within"] = table["difference_s"].abs() <= table["tolerance_s"]
    table["resolved"] = job.drain_tau_s >= MIN_RESOLVED_TAU_S
    return table


def duration_text(seconds: float) -> str:
    """A recovery time for a finding: "12 s", "never" where the backlog never drains (inf)."""
    return "never" if seconds == math.inf else f"{seconds:.0f} s"


def tolerance_s(model_s):
    """The agreement stated for ``simulator_table``: TOLERANCE_ABS_S + TOLERANCE_REL x model."""
    return TOLERANCE_ABS_S + TOLERANCE_REL * np.asarray(model_s, dtype=float)


def simulator_day_table(s, ci_s: float, sim_params, workload: pd.Series, failure_seconds):
    """Model against the khaos simulator replaying a measured day (``workload``, the day's
    ``failure_seconds``, the scenario's ``sim_params``) at a static CI: per failure, the
    simulator's true recovery (worst moment, the day's varying arrivals) beside the model at the
    arrival rate of the injection second (the scenario's capacity and drain constant, the
    simulator's whole-second restart). Columns as ``simulator_table`` plus second and rate."""
    from khaos.simulate import simulate

    result = simulate(workload, ci_s, failure_seconds, sim_params)
    base = job_of(s)
    rows = []
    for failure in result.failures.itertuples():
        rate = float(workload.loc[failure.injected])
        job = Job(input_rate=max(rate, 1e-9), capacity=base.capacity, drain_tau_s=base.drain_tau_s)
        lost = int(round(ci_s)) - sim_params.inject_before_s
        model = float(recovery_s(lost, round(sim_params.restart_s), job))
        rows.append(
            {
                "ci_s": ci_s,
                "second": int(failure.injected),
                "input_rate": rate,
                "model_s": model,
                "simulator_s": float(failure.recovery_s),
                "difference_s": float(failure.recovery_s) - model,
                "tolerance_s": float(tolerance_s(model)),
            }
        )
    table = pd.DataFrame(rows)
    table["within"] = table["difference_s"].abs() <= table["tolerance_s"]
    return table


def agreement_limits(table: pd.DataFrame, by: str = "scenario") -> pd.DataFrame:
    """Where the model stops agreeing with the simulator in ``table`` (simulator_day_table rows
    of several CIs, a ``by`` column): per group, the longest CI up to which every failure of
    every CI is within the tolerance (``agrees_up_to_s``, NaN if the shortest already misses)
    and the first CI with a failure outside it (``first_miss_s``, NaN if none), with the share
    within at that CI."""
    rows = []
    for key, g in table.groupby(by, sort=False):
        per_ci = g.groupby("ci_s")["within"].agg(["all", "mean"]).sort_index()
        missed = per_ci.index[~per_ci["all"].to_numpy(dtype=bool)]
        first = missed.min() if len(missed) else math.nan
        held = per_ci.index[per_ci.index < first] if len(missed) else per_ci.index
        rows.append(
            {
                by: key,
                "agrees_up_to_s": float(held.max()) if len(held) else math.nan,
                "first_miss_s": float(first),
                "within_at_first_miss": float(per_ci.loc[first, "mean"]) if len(missed) else 1.0,
            }
        )
    return pd.DataFrame(rows)
