"""The overhead-recovery frontier of the cross-paper notebook ``cross_frontier``: each approach's
own knob swept on a shared scenario (crosspaper.scenarios), every point put on two common axes,
and the Pareto front of the points.

Common axes (units and conversions; ``axes()`` prints them with their sources):

- x, ``overhead``: the share of the job's failure-free resources spent on fault tolerance,
  dimensionless. The job's resources are Σ cpu_share over its tasks (node equivalents,
  scenario ``topology.operators.cpu_share``). A checkpoint costing c s of processing every T s
  costs the share c/T (the scenario's definition of ``checkpoint.*_cost_s``; multilevel's Eq. (1)
  loss); an active replica or a standby node costs its CPU share (a standby node: 1).
- y, ``unavailability``: expected seconds of lost output per hour of operation,
  Σ_kind λ_kind x E[output-seconds lost per failure of that kind], with λ_single and
  λ_correlated = the scenario's ``failures.*_per_day`` / 24 (per hour). A failure that stops the
  whole job loses all output while it lasts (restart, replay, catch-up); a partial scheme loses
  the share of output it does not deliver (PPA: 1 - OF of its tentative output; incremental:
  the priority share of queries not yet recovered).
- Replacement nodes: a failure of k nodes with S standby nodes (scenario
  ``resources.standby_nodes``) waits for k - S new nodes (``resources.acquisition_*``; expected
  max of k - S draws: a + (b - a) m / (m + 1) for uniform draws on [a, b]) before a
  checkpoint-restart scheme resumes; incremental recovery uses spare capacity meanwhile.

Each point also keeps its approach's own measures (``own_*`` columns, in the paper's units).
The paper packages are used through their public APIs only; what they lack (the conversions,
the per-failure loss of PPA and incremental recovery over time) is computed here from them.
Units: s, events/s, hours for rates on the y axis.
"""

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from crosspaper import scenarios as S
from crosspaper.scenarios import DATA

SECONDS_PER_HOUR = 3600.0
APPROACHES = ("multilevel", "fastrecover", "khaos", "ppa", "incremental")


# -- the Pareto front ------------------------------------------------------------------------
def pareto_front(x, y) -> np.ndarray:
    """Boolean mask of the points no other point dominates, both axes minimized.

    A point (x_i, y_i) is dominated when some point has x_j <= x_i and y_j <= y_i with at least
    one strict; equal points are all on the front. NaN or infinite points are never on the
    front and dominate nothing. O(n log n): sorted by x then y, a point is on the front when its
    y is below every y of a point with smaller x, and no equal-x point has smaller y."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"x and y must be 1-d of one length; got shapes {x.shape}, {y.shape}")
    front = np.zeros(x.shape, dtype=bool)
    ok = np.flatnonzero(np.isfinite(x) & np.isfinite(y))
    order = ok[np.lexsort((y[ok], x[ok]))]
    best = math.inf  # smallest y among points of strictly smaller x
    i = 0
    while i < len(order):
        j = i
        while j < len(order) and x[order[j]] == x[order[i]]:
            j += 1
        group = order[i:j]  # equal x, sorted by y: only the smallest y (and its ties) can win
        low = y[group[0]]
        if low < best:
            front[group[y[group] == low]] = True
            best = low
        i = j
    return front


# -- conversions shared by the approaches ------------------------------------------------------
def per_hour(s: S.Scenario) -> tuple[float, float]:
    """(λ_single, λ_correlated) per hour from the scenario's rates per day."""
    return s.failures.single_per_day / 24.0, s.failures.correlated_per_day / 24.0


def job_resources(s: S.Scenario) -> float:
    """Σ cpu_share over every task: the job's failure-free resources in node equivalents."""
    return sum(op.parallelism * op.cpu_share for op in s.topology.operators)


def expected_wait_s(s: S.Scenario, failed_nodes: int, standby: int) -> float:
    """Expected wait (s) until ``failed_nodes`` replacements are there when ``standby`` wait
    idle: the max of m = failed - standby acquisition draws (0 if m <= 0)."""
    m = failed_nodes - standby
    if m <= 0:
        return 0.0
    r = s.resources
    if r.acquisition_law == "fixed":
        return r.acquisition_low_s
    return r.acquisition_low_s + (r.acquisition_high_s - r.acquisition_low_s) * m / (m + 1)


def acquisition_draws(s: S.Scenario, failed_nodes: int, rng) -> np.ndarray:
    """One acquisition time (s) per failed node, in draw order; a scheme with S standby nodes
    acquires the first failed - S of them (the same draws whatever S: common random numbers)."""
    r = s.resources
    u = rng.random(failed_nodes)
    if r.acquisition_law == "fixed":
        return np.full(failed_nodes, r.acquisition_low_s)
    return r.acquisition_low_s + (r.acquisition_high_s - r.acquisition_low_s) * u


def acquired(draws: np.ndarray, standby: int) -> np.ndarray:
    """Sorted arrival times of the nodes acquired beyond ``standby`` (of ``draws``)."""
    return np.sort(draws[: max(0, len(draws) - standby)])


def wait_term(s: S.Scenario, standby: int) -> float:
    """s/h the whole job waits for replacement nodes: λ1 W(1) + λ2 W(k)."""
    lam1, lam2 = per_hour(s)
    k = s.failures.correlated_nodes
    return lam1 * expected_wait_s(s, 1, standby) + lam2 * expected_wait_s(s, k, standby)


def restart_s(s: S.Scenario, interval_s: float | None = None) -> float:
    """Duration (s) of a restart from the remote checkpoint until the backlog is drained:
    r2 + a (T/2 + r2) / (capacity - a), with the failure uniform within the interval T (lost
    work T/2), a = topology.input_rate and capacity = checkpoint.catch_up_rate (the linear
    part of the khaos simulator's catch-up)."""
    c = s.checkpoint
    T = c.interval_s if interval_s is None else interval_s
    a = s.topology.input_rate
    if not c.catch_up_rate > a:
        raise ValueError(
            f"checkpoint.catch_up_rate ({c.catch_up_rate}) must exceed the input rate ({a})"
        )
    return c.remote_restart_s + a * (T / 2 + c.remote_restart_s) / (c.catch_up_rate - a)


def failed_node_draws(s: S.Scenario, kind: str, draws: int, rng) -> list[tuple[int, ...]]:
    """Node sets (0-based) failing: ``single`` = every node once (exact average), ``correlated``
    = ``draws`` random subsets of correlated_nodes nodes."""
    n = s.resources.nodes
    if kind == "single":
        return [(i,) for i in range(n)]
    k = s.failures.correlated_nodes
    return [tuple(sorted(rng.choice(n, size=k, replace=False).tolist())) for _ in range(draws)]


def _row(approach, label, overhead, single_s, correlated_s, wait, feasible=True, **own) -> dict:
    """One point on the common axes; single_s / correlated_s: output-seconds lost per failure.
    (``approach`` names the caller; the sweep's parameters carry it into the table.)"""
    return {
        "label": label,
        "feasible": bool(feasible),
        "overhead": float(overhead),
        "loss_single_s": float(single_s),
        "loss_correlated_s": float(correlated_s),
        "wait_s_per_h": float(wait),
        **{f"own_{k}": float(v) for k, v in own.items()},
    }


def _finish(row: dict, s: S.Scenario) -> dict:
    lam1, lam2 = per_hour(s)
    row["unavailability_s_per_h"] = (
        lam1 * row["loss_single_s"] + lam2 * row["loss_correlated_s"] + row["wait_s_per_h"]
    )
    return row


# -- one point per approach --------------------------------------------------------------------
def multilevel_point(params: dict, rng) -> dict:
    """Multilevel (Jayasekara et al.) at interval T_s with level-1 probability p1: overhead
    Σ p_l c_l / T (Eq. (1)'s failure-free loss); the share of time lost to failures is
    1 - T / T_eff = 1 - U / U0 with U of Eq. (13) (multilevel.utilization.utilization) and
    U0 = (T - Σ p c) / T; it is spread over the failure rates as loss per failure."""
    from multilevel.utilization import utilization

    s = S.load(params["scenario"])
    system = S.to_multilevel(s, levels=2)
    T, p1 = float(params["T_s"]), float(params["p1"])
    p = np.array([p1, 1.0 - p1])
    cost = float(p @ np.asarray(system.c))
    u = float(utilization(T, p, system))
    u0 = (T - cost) / T
    lost = 1.0 - u / u0  # share of wall time lost to failures
    lam1, lam2 = per_hour(s)
    per_failure = lost * SECONDS_PER_HOUR / (lam1 + lam2)  # s of output lost per failure
    return _finish(
        _row(
            "multilevel",
            f"T={T:g}s p1={p1:g}",
            cost / T,
            per_failure,
            per_failure,
            wait_term(s, s.resources.standby_nodes),
            utilization=u,
        ),
        s,
    )


def fastrecover_point(params: dict, rng) -> dict:
    """FastRecover (Yaduvanshi, Algorithm 1) at budget ch_max on the scenario's chain
    (crosspaper.scenarios.to_fastrecover; b_log_kb_per_min None = the scenario's B_log): the
    optimum's per-operator overheads ch_i (Eq. (2.1)) weighted by each operator's CPU share of
    the job; a node failure fails a task of every operator with a task on it, recovered in
    parallel by segments, so the output is down for max rt_i (Eq. (3.2), minutes -> s) over the
    operators hit, plus checkpoint.local_restart_s (rt_i counts the state restore Δ_snap(π) but
    no redeploy; the scenario's local restart is its remote one less the state download).
    Own measures: CH_all and RT_all = Σ ρ_i rt_i (recovery minutes per minute)."""
    import fastrecover as fr

    s = S.load(params["scenario"])
    topo, storage, _, z = S.to_fastrecover(s)
    if params.get("b_log_kb_per_min") is not None:
        storage = fr.Storage(
            bandwidth=float(params["b_log_kb_per_min"]),
            snapshot_bandwidth=storage.snapshot_bandwidth,
        )
    ch_max = float(params["ch_max"])
    result = fr.optimize_chain(topo, ch_max, z, storage)
    wait = wait_term(s, s.resources.standby_nodes)
    if not result.feasible:
        return _finish(
            _row("fastrecover", f"CH_max={ch_max:g}", np.nan, np.nan, np.nan, wait, False), s
        )
    config = result.configuration
    ch = fr.checkpoint_overheads(topo, config, storage)
    rt_s = fr.recovery_times(topo, config, storage) * 60.0
    ops = s.topology.operators
    weight = np.array([op.parallelism * op.cpu_share for op in ops])
    losses = {}
    for kind in ("single", "correlated"):
        sets = failed_node_draws(s, kind, int(params.get("draws", 20)), rng)
        hit = [[any(n in nodes for n in op.nodes) for op in ops] for nodes in sets]
        restart = s.checkpoint.local_restart_s  # rt_i has no redeploy time: added
        losses[kind] = restart + float(np.mean([rt_s[np.array(h)].max() for h in hit]))
    return _finish(
        _row(
            "fastrecover",
            f"CH_max={ch_max:g}",
            float(ch @ weight) / weight.sum(),
            losses["single"],
            losses["correlated"],
            wait,
            ch_all=result.checkpoint_overhead,
            rt_all=result.expected_recovery_time,
            segments=len(result.anchors),
        ),
        s,
    )


def khaos_point(params: dict, rng) -> dict:
    """A static CI ci_s replayed on the khaos simulator over the measured day (khaos.simulate,
    parameters of crosspaper.scenarios.to_khaos, the day's failure instants, no observation
    noise): loss per failure = the simulator's true recovery time (injection, at Khaos's worst
    case 3 s before a checkpoint, until the backlog is within 5% of its peak), applied to both
    failure kinds (Flink restarts the whole job from the remote checkpoint either way, as
    to_multilevel's r2 and to_khaos's restart_s); overhead = remote_cost_s / CI. Own measures:
    the day's total recovery time and mean latency (Tables II-III columns)."""
    from khaos.simulate import simulate, workload_of

    s = S.load(params["scenario"])
    setup = S.to_khaos(s)
    if setup.experiment == "none":
        raise ValueError(f"scenario {s.name!r} has no khaos workload (khaos.experiment = none)")
    ci = float(params["ci_s"])
    workload = workload_of(str(DATA / "khaos"), setup.experiment)
    result = simulate(workload, ci, setup.failure_seconds, setup.sim)
    recovery = result.failures["recovery_s"].to_numpy(dtype=float)
    latency = result.run["lat"]
    per_failure = float(recovery.mean())
    return _finish(
        _row(
            "khaos",
            f"CI={ci:g}s",
            s.checkpoint.remote_cost_s / ci,
            per_failure,
            per_failure,
            wait_term(s, s.resources.standby_nodes),
            recovery_total_s=recovery.sum(),
            avg_latency_ms=latency.mean(),
            latency_violations=(latency > s.qos.latency_ms).mean(),
        ),
        s,
    )


def ppa_point(params: dict, rng) -> dict:
    """PPA-fraction (Su & Zhou, Fig 10's plans: ppa.ppa_plan, the fraction of non-source tasks
    with the best OF when all fail) on the scenario's topology (to_ppa). Every task is
    checkpointed at the scenario's interval (passive), the plan's tasks are also actively
    replicated on nodes outside the failure: overhead = c2/T + replicated CPU share. Per
    failure (every node once; ``draws`` random correlated sets), the failed tasks outside the
    plan recover from checkpoints after the replacement nodes arrive (restart_s); meanwhile the
    output is tentative with fidelity OF (ppa.output_fidelity, Eq. (4)), so 1 - OF of it is
    lost; a failure hitting only replicated tasks loses the activation (LatencyParams)."""
    from ppa import LatencyParams, output_fidelity, ppa_plan

    s = S.load(params["scenario"])
    topology, _ = S.to_ppa(s)
    fraction = float(params["fraction"])
    plan = ppa_plan(topology, fraction)
    source = s.topology.operators[0].name
    where = {f"{op}[{i}]": k for (op, i), k in _placement(s).items() if op != source}
    cpu = {
        f"{op.name}[{i}]": op.cpu_share
        for op in s.topology.operators
        for i in range(op.parallelism)
    }
    standby = s.resources.standby_nodes
    d = restart_s(s)
    activation = LatencyParams().activation
    losses = {}
    for kind in ("single", "correlated"):
        sets = failed_node_draws(s, kind, int(params.get("draws", 20)), rng)
        lost = []
        for nodes in sets:
            waits = acquired(acquisition_draws(s, len(nodes), rng), standby)
            failed = {t for t, k in where.items() if k in nodes}
            passive = failed - plan
            if not failed:
                lost.append(0.0)
            elif not passive:
                lost.append(activation)
            else:
                wait = float(waits.max()) if len(waits) else 0.0
                lost.append((1.0 - output_fidelity(topology, passive)) * (wait + d))
        losses[kind] = float(np.mean(lost))
    replicated = sum(cpu.get(t, 0.0) for t in plan)  # the virtual sink costs nothing
    return _finish(
        _row(
            "ppa",
            f"PPA-{fraction:g}",
            s.checkpoint.remote_cost_s / s.checkpoint.interval_s + replicated / job_resources(s),
            losses["single"],
            losses["correlated"],
            0.0,  # the waits are inside the per-failure losses
            replicated_tasks=len(plan),
        ),
        s,
    )


def _placement(s: S.Scenario) -> dict:
    return {key: int(node[1:]) for key, node in S.placement(s).items()}


def incremental_point(params: dict, rng) -> dict:
    """Incremental recovery (Su & Zhou) with extra_standby idle nodes beside the scenario's:
    overhead = c2/T (its checkpoints) + extra_standby / job resources. Per failure (every node
    once; ``draws`` random correlated sets; the problem of crosspaper.scenarios.to_incremental),
    BestDensity plans run as nodes come (incremental.recover_as_nodes_arrive: the standby nodes
    at once, the others at acquisition draws, alive nodes' spare capacity under the CPU cap at
    the failure); a query's output is back restart_s after the plan that recovers it, so the
    loss is Σ_q priority_q (t_q + restart) / Σ priorities over all queries."""
    from incremental import recover_as_nodes_arrive

    s = S.load(params["scenario"])
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
    d = restart_s(s)
    losses, unrecovered = {}, 0
    for kind in ("single", "correlated"):
        sets = failed_node_draws(s, kind, int(params.get("draws", 20)), rng)
        lost = []
        for nodes in sets:
            problem = S.to_incremental(s, [f"n{k}" for k in nodes])
            now = min(standby, len(nodes))
            draws = acquisition_draws(s, len(nodes), rng)
            arrivals = [(0.0, 1.0)] * now + [(float(t), 1.0) for t in acquired(draws, standby)]
            alive = [max(0.0, cap - load[k]) for k in range(len(load)) if k not in nodes]
            steps = recover_as_nodes_arrive(problem, arrivals, cpu_cap=cap, alive_free=alive)
            when = {}
            for step in steps:
                for q in step.recovered_queries:
                    when.setdefault(q, step.time)
            end = steps[-1].time
            seconds = 0.0
            for q, (_, priority) in problem.queries.items():
                if q not in when:
                    unrecovered += 1
                seconds += priority * (when.get(q, end) + d)
            lost.append(seconds / total_priority)
        losses[kind] = float(np.mean(lost))
    return _finish(
        _row(
            "incremental",
            f"+{extra} standby",
            s.checkpoint.remote_cost_s / s.checkpoint.interval_s + extra / job_resources(s),
            losses["single"],
            losses["correlated"],
            0.0,  # the waits are inside the per-failure losses
            unrecovered_queries=unrecovered,
        ),
        s,
    )


POINTS = {
    "multilevel": multilevel_point,
    "fastrecover": fastrecover_point,
    "khaos": khaos_point,
    "ppa": ppa_point,
    "incremental": incremental_point,
}


def frontier_point(params: dict, rng) -> dict:
    """Sweep function (pipeline.sweep): the point of ``params["approach"]``."""
    approach = params.get("approach")
    if approach not in POINTS:
        raise ValueError(f"approach must be one of {APPROACHES}; got {approach!r}")
    return POINTS[approach](params, rng)


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
) -> list[dict]:
    """Every point of every approach that applies to each scenario: FastRecover needs a chain,
    Khaos a measured workload; multilevel skips T <= Σ p c; extra standby nodes stop at the
    correlated failure's size (more are never used)."""
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 1:
        raise ValueError(f"draws must be an integer >= 1; got {draws!r}")
    points = []
    for name in scenarios:
        s = S.load(name)
        system = S.to_multilevel(s, levels=2)
        for T in intervals_s:
            for p1 in p1_values:
                if not 0 <= p1 < 1:
                    raise ValueError(f"p1_values must lie in [0, 1); got {p1}")
                if T > p1 * system.c[0] + (1 - p1) * system.c[1]:
                    points.append({"scenario": name, "approach": "multilevel", "T_s": T, "p1": p1})
        try:
            S.to_fastrecover(s)
            chain = True
        except ValueError:
            chain = False
        if chain:
            for b in b_log_values:
                for ch in ch_max_values:
                    points.append(
                        {
                            "scenario": name,
                            "approach": "fastrecover",
                            "ch_max": ch,
                            "b_log_kb_per_min": b,
                            "draws": draws,
                        }
                    )
        if s.papers["khaos"]["experiment"] != "none":
            points += [{"scenario": name, "approach": "khaos", "ci_s": ci} for ci in cis_s]
        points += [
            {"scenario": name, "approach": "ppa", "fraction": f, "draws": draws} for f in fractions
        ]
        k = s.failures.correlated_nodes
        points += [
            {"scenario": name, "approach": "incremental", "extra_standby": e, "draws": draws}
            for e in extra_standby
            if s.resources.standby_nodes + e <= k
        ]
    return points


def mark_front(points: pd.DataFrame) -> pd.DataFrame:
    """``points`` with a ``pareto`` column: on its scenario's front over all approaches."""
    out = points.copy()
    out["pareto"] = False
    for _, index in out.groupby("scenario").groups.items():
        sub = out.loc[index]
        out.loc[index, "pareto"] = pareto_front(sub["overhead"], sub["unavailability_s_per_h"])
    return out


def axes() -> pd.DataFrame:
    """How each approach's overhead and recovery measure are put on the common axes, with the
    source of each conversion or 'assumption: ...'."""
    rows = [
        ("all", "rates", "λ per hour = failures.*_per_day / 24", "scenario failures"),
        (
            "all",
            "x",
            "overhead = fault-tolerance resources / Σ cpu_share of the job's tasks",
            "scenario topology.operators.cpu_share (node equivalents)",
        ),
        (
            "all",
            "y",
            "unavailability = Σ_kind λ_kind E[output-seconds lost per failure] (s/h)",
            "definition; a failure stopping the job loses all output while it lasts",
        ),
        (
            "all",
            "wait",
            "k failed nodes, S standby: wait E[max of k - S acquisitions]",
            "scenario resources (incremental Fig 7: uniform 2-6 min)",
        ),
        ("multilevel", "x", "Σ p_l c_l / T", "multilevel Eq. (1) failure-free utilization"),
        (
            "multilevel",
            "y",
            "3600 (1 - U/U0) + wait; U of Eq. (13), U0 = (T - Σpc)/T",
            "multilevel Eq. (13) with to_multilevel (c, r local/remote, n, δ)",
        ),
        (
            "fastrecover",
            "x",
            "Σ ch_i cpu_i / Σ cpu_i, ch_i of Eq. (2.1) at the optimum",
            "assumption: ch_i is a share of operator i's resources",
        ),
        (
            "fastrecover",
            "y",
            "λ (r1 + max rt_i over the operators hit, Eq. (3.2)) + wait",
            "assumption: segments recover in parallel; r1 = local restart (redeploy)",
        ),
        (
            "khaos",
            "x",
            "remote_cost_s / CI",
            "scenario checkpoint cost c (s of processing per checkpoint)",
        ),
        (
            "khaos",
            "y",
            "(λ1 + λ2) x mean true recovery of the simulated day + wait",
            "khaos.simulate, measured day; assumption: correlated = single",
        ),
        (
            "ppa",
            "x",
            "c2/T + replicated tasks' CPU / job CPU",
            "PPA Section III; assumption: a replica costs its task's CPU",
        ),
        (
            "ppa",
            "y",
            "λ x mean over failures of (1 - OF(passive failed)) (wait + restart)",
            "PPA Eq. (4) OF; assumption: replicas live off the failed nodes",
        ),
        (
            "incremental",
            "x",
            "c2/T + extra standby nodes / job CPU",
            "assumption: a standby node costs 1",
        ),
        (
            "incremental",
            "y",
            "λ x mean Σ_q prio_q (t_q + restart) / Σ prio",
            "incremental recover_as_nodes_arrive with BestDensity (Algorithm 3)",
        ),
        (
            "ppa, incremental",
            "restart",
            "r2 + a (T/2 + r2) / (capacity - a)",
            "assumption: failure uniform in T, linear catch-up at capacity",
        ),
    ]
    return pd.DataFrame(rows, columns=["approach", "axis", "conversion", "source"])
