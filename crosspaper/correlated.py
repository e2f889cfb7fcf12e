"""Replicate or schedule? One correlated failure of k nodes on a shared scenario, recovered by
each paper's scheme (notebook ``cross_correlated``).

Schemes, all on the same failure, node arrivals and checkpoint phases (common random numbers):
- ``PPA-0``, ``PPA-0.5``, ``PPA-1.0`` (Su & Zhou, ICDE 2016): the Fig 10 plans of
  ``ppa.ppa_plan`` on ``to_ppa(s)``; failed replicated tasks switch to their replicas, failed
  passive tasks restart where the one rule puts them and recover from their checkpoints
  through the shared models (``crosspaper.replication.failure`` with ``crosspaper.recovery``, as
  in the frontier). Meanwhile every query emits tentative output whose accuracy is its output
  task's completeness 1 - IL (Eqs. (1)-(3), ``ppa.fidelity``).
- ``incremental`` (Su & Zhou, incremental recovery): BestDensity plans as nodes arrive
  (``incremental.query_recovery_times`` gives when each query's partitions are placed); a query
  outputs again (exactly) once all its failed partitions are back, nothing before.
- ``blocking``: the incremental paper's baseline: wait until every failed partition is placed,
  roll back to the last global checkpoint.
- ``multilevel`` (Jayasekara et al.): blocking recovery from the last level-2 (remote)
  checkpoint of the two-level optimum (T*, p*) of ``to_multilevel(s)``: level-1 (local)
  checkpoints do not survive a correlated failure.

Every checkpoint scheme checkpoints at its own optimised interval by one criterion, multilevel's
utilization U (Eq. (13) on ``to_multilevel(s)``, every failure kind of the scenario): multilevel
at its two-level optimum (T*, p*), the schemes with remote checkpoints only (incremental,
blocking, PPA's passive tasks) at the optimum with p1 pinned to 0 (``setup()["interval"]``).
Comparing one scheme at its optimum with the others at the scenario's configured
``checkpoint.interval_s`` compared intervals, not schemes (rev20 #6); the configured interval is
not used here. Where p1* = 0 (every shipped scenario) the two optima coincide, and multilevel
is blocking recovery at the same interval.

Output availability at time t after the failure: the priority-weighted mean over all queries
(one per output partition) of each query's accuracy (1 when exact, its OF-style completeness
for PPA's tentative output, 0 without output). Mapping choices (each in ``ASSUMPTIONS``):
"""

import math
from dataclasses import replace
from functools import cache

import numpy as np
import pandas as pd
from scipy import stats

from crosspaper import recovery, replication, scenarios

SYNC_PERIOD_S = 1.0  # PPA's replica sync period: ppa_recovery_latency's Fig 10 default
CONFIDENCE = 0.95  # of every CI here, as the scorecard's (pipeline.scorecard.CONFIDENCE)
SCHEMES = ("PPA-0", "PPA-0.5", "PPA-1.0", "incremental", "blocking", "multilevel")
# The one experiment name of the notebook's sweeps (main, engine, sensitivity and map): with common
# random numbers the seed is keyed by (experiment, iteration), so the sensitivity's baseline point
# draws what the main point draws (its first draws) and differs from it only by its factor.
EXPERIMENT = "cross_correlated"
ASSUMPTIONS = {
    "failed nodes": "k nodes drawn uniformly among those holding a task, sources included (the "
    "one PPA model of the cross notebooks, crosspaper.replication: sources fail like any task and "
    "replay from the durable source log); nested in k (one permutation per draw)",
    "node acquisition": "one restart-location rule for every scheme (crosspaper.recovery."
    "restart_plan, as in cross_frontier and cross_interval): failed tasks go first-fit onto the "
    "survivors' spare under the CPU cap, then the scenario's resources.standby_nodes (at once), "
    "then as many new nodes as they need, delays of the scenario's law scaled by delay_factor, "
    "requested at detection",
    "detection": "inside checkpoint.remote_restart_s, which counts from the failure (rev20c "
    "#11: not added again); new nodes are requested at detection, so a task waiting t s for its "
    "node is down t + remote_restart_s",
    "PPA replicas": "crosspaper.replication: a replica runs on the next job node with room under "
    "the CPU cap, else on an extra node (ppa.replica_domain = same) and fails with it: a "
    "plan's correlated failure takes the k job nodes every scheme loses and each of its E extra "
    "nodes with the job nodes' probability k / N (rev20d #2: never k of N + E, which would "
    "dilute the failure by the plan's own replicas); "
    "or in another failure domain (separate), never failing; "
    "only a virtual sink never fails, so it is outside the plans' budget; PPA-1.0 (every "
    "non-source task in the plan) replicates the failing sources too (crosspaper.replication."
    "replicated: full replication, Su & Zhou Sec. VI-A; issue 20 MED 3)",
    "PPA passive tasks": "each restarts where the one rule puts it (crosspaper.recovery."
    "task_waits), then recovers like a restarted partition; a task with a live replica is back "
    "after the activation (crosspaper.replication.ACTIVATION_S)",
    "catch-up": "one recovery model for every scheme (crosspaper.recovery): from the failure, "
    "the wait for the node (the placement time) + remote restart (detection included), then "
    "the replay of the lost work and of the backlog built meanwhile at the spare capacity, to "
    "5% of the peak backlog; the checkpoint cost read as in the other cross notebooks, "
    "blocking by default (rev20d #1): each scheme's checkpoints keep taking their share of the "
    "time (its checkpoint_overhead), so it catches up at C (1 - overhead) - a; blocked_factor 0 "
    "(the sensitivity's async reading) at C - a",
    "checkpoints": "each scheme at its own utilization-optimal interval (multilevel's U, Eq. "
    "(13), one criterion for all): incremental and blocking take consistent remote checkpoints "
    "(remote_cost_s each) and PPA's passive tasks remote ones, every T_r = the optimum with p1 "
    "pinned to 0; multilevel local every T*, remote with probability p2* (its two-level "
    "optimum); phases uniform; the scenario's checkpoint.interval_s is not used",
    "availability": "tentative (PPA) output counts by its accuracy; exactly-once schemes output "
    "nothing for a failed query until it is back; queries not failed stay available. The "
    "decision map ranks on exact output only (exact_lost_s: a PPA query counts once its output "
    "is exact; rev20b #5), lost_output_s with PPA's tentative credit is shown beside",
    "normal-time cost": "replica CPU = the replicated tasks' cpu_share (nodes); buffering = KB "
    "held for replay (upstream backup until the downstream's checkpoint, replica output until "
    "the sync trim; the blocking schemes replay from the durable source log only); checkpoint "
    "overhead = cost per interval over the interval, times the share of the checkpointed "
    "(non-source) tasks' CPU that checkpoints: every one for every scheme, PPA plans too (Su & "
    "Zhou Sec. III: the passive plan checkpoints all the tasks, and a replicated task whose "
    "replica died recovers from its checkpoint; rev20f #4), c/T as in cross_frontier",
}
__doc__ += "\n".join(f"- {k}: {v}." for k, v in ASSUMPTIONS.items())

CURVE, SUMMARY, QUERY, ENGINE_CURVE, ENGINE_QUERY = (
    "curve",
    "summary",
    "query",
    "engine_curve",
    "engine_query",
)
_COLUMNS = (
    "kind",
    "scheme",
    "t",
    "availability",
    "query",
    "recovery_s",
    "lost_output_s",
    "exact_lost_s",
    "t50_s",
    "t90_s",
    "t_full_s",
    "failed_queries",
    "failed_nodes",
    "worst_full_s",
)


def _row(**values) -> dict:
    row = dict.fromkeys(_COLUMNS, math.nan)
    row.update(kind=None, scheme=None, query=None, failed_nodes=None)
    row.update(values)
    return row


def _source_ops(s) -> set[str]:
    return {op.name for op in s.topology.operators if not s.topology.upstream(op.name)}


@cache
def setup(name: str) -> dict:
    """What every draw of scenario ``name`` shares: the mappings, the PPA plans, the multilevel
    optimum, the candidate nodes and the loads."""
    from crosspaper import frontier
    from ppa import ppa_plan

    s = scenarios.load(name)
    topo = s.topology
    where = scenarios.placement(s)
    nodes = [f"n{k}" for k in range(s.resources.nodes)]
    candidates = [n for n in nodes if n in where.values()]  # any node holding a task can fail
    ppa_topology, fractions = scenarios.to_ppa(s)
    never_fail = {"sink[0]"} if s.papers["ppa"]["virtual_sink"] else set()
    plans = {
        "PPA-0" if f == 0 else f"PPA-{f:.1f}": frozenset(ppa_plan(ppa_topology, f) - never_fail)
        for f in fractions
    }
    load = {n: 0.0 for n in nodes}
    for (op, _), node in where.items():
        load[node] += topo.operator(op).cpu_share
    outputs = [op for op in topo.operators if op.output]
    system = scenarios.to_multilevel(s, levels=2)
    ml = frontier.multilevel_optimum(system)  # remembered: the headroom variants share it
    return {
        "scenario": s,
        "where": where,
        "candidates": candidates,
        "nodes": nodes,
        "load": load,
        "ppa_topology": ppa_topology,
        "plans": plans,
        # replicas' extra nodes failing with the job's (replica_domain same; 0: separate)
        "extra": {scheme: replication.extra_nodes(s, plan) for scheme, plan in plans.items()},
        "multilevel": ml,
        # remote checkpoints of incremental, blocking, PPA: the same criterion, p1 pinned to 0
        "interval": frontier.remote_interval_s(s),  # as in cross_frontier (rev20e #5)
        "job": recovery.job_of(s),
        "rho": topo.input_rate / s.checkpoint.catch_up_rate,  # the engine's utilization
        "cap": s.papers["incremental"]["cpu_cap"],
        "output_tasks": [f"{op.name}[{i}]" for op in outputs for i in range(op.parallelism)],
        "priority": s.papers["incremental"]["priority"],
    }


def _acquisition(s, u: np.ndarray, factor: float) -> np.ndarray:
    r = s.resources
    if r.acquisition_law == "fixed":
        return np.full(u.shape, r.acquisition_low_s * factor)
    return factor * (r.acquisition_low_s + (r.acquisition_high_s - r.acquisition_low_s) * u)


def _summarize(times: np.ndarray, avail: np.ndarray) -> dict:
    """Exact figures of a right-continuous step curve A (value avail[j] on [times[j],
    times[j+1]), 1 after the last): lost output ∫(1 - A) dt and the first times A reaches 0.5,
    0.9 and 1."""
    widths = np.diff(np.append(times, times[-1]))
    lost = float(np.sum((1 - avail) * widths))

    def first(level):
        hit = np.flatnonzero(avail >= level - 1e-12)
        return float(times[hit[0]]) if hit.size else float(times[-1])

    return {"lost_output_s": lost, "t50_s": first(0.5), "t90_s": first(0.9), "t_full_s": first(1.0)}


def _curve(times: np.ndarray, avail: np.ndarray, grid: np.ndarray) -> np.ndarray:
    at = np.searchsorted(times, grid, side="right") - 1
    return np.where(at >= 0, avail[np.clip(at, 0, None)], avail[0])


def _query_curve(back: dict, n_queries: int) -> tuple[np.ndarray, np.ndarray]:
    """Availability steps when failed query q returns exactly at back[q] (s after failure)."""
    up = n_queries - len(back)
    finite = np.sort([b for b in back.values() if math.isfinite(b)])
    times = np.concatenate([[0.0], finite])
    avail = (up + np.arange(len(times))) / n_queries
    return times, avail


def _task_id(task: str) -> tuple[str, int]:
    """("op", i) of the task name "op[i]"."""
    op, i = task[:-1].split("[")
    return op, int(i)


def _query_label(s, q) -> str:
    """A query's label in the QUERY rows: its output operator's name when that operator has one
    partition (as the engine names it), else "op[i]" (one query per output partition)."""
    op, i = q if isinstance(q, tuple) else (q, 0)
    return op if s.topology.operator(op).parallelism == 1 else f"{op}[{i}]"


@cache
def catch_up_jobs(name, blocked_factor: float = 1.0, load: str = "mean") -> dict[str, recovery.Job]:
    """Each scheme's catch-up job on scenario ``name``: capacity C (1 - blocked_factor x its
    checkpoint_overhead) (normal_costs; ASSUMPTIONS["catch-up"]): 1 the blocking reading of the
    checkpoint cost (the cross notebooks' default), 0 the async one (capacity C). ``load``:
    "mean" the topology's input rate (the draws), "qos" frontier.qos_load, the day's peak 300-s
    mean where the QoS limit is judged in every cross notebook (rev20e #0)."""
    from crosspaper import frontier

    if not 0 <= blocked_factor <= 1:
        raise ValueError(f"blocked_factor must be in [0, 1]; got {blocked_factor!r}")
    if load not in ("mean", "qos"):
        raise ValueError(f"load must be 'mean' or 'qos'; got {load!r}")
    job = setup(name)["job"]
    if load == "qos":
        job = recovery.job_of(setup(name)["scenario"], frontier.qos_load(name))
    overhead = normal_costs(name).set_index("scheme")["checkpoint_overhead"]
    return {
        x: replace(job, capacity=job.capacity * max(1.0 - blocked_factor * overhead[x], 1e-12))
        for x in SCHEMES
    }


@cache  # the worst pass asks again for the same recoveries over its node sets
def _recovered(job: recovery.Job, lost_s: float, down_s: float) -> float:
    """s from the failure until a partition down ``down_s`` s with ``lost_s`` s of lost work is
    back (crosspaper.recovery, catching up as ``job``); inf when it is never placed."""
    if not math.isfinite(down_s):
        return math.inf
    return float(recovery.recovery_s(lost_s, down_s, job))


def _ppa_curve(su, failed_tasks, back: dict[str, float]):
    """Availability steps of PPA's tentative output: at each event the alive tasks are those
    not failed or back, and each query's accuracy is its output task's completeness."""
    from ppa.fidelity import completeness

    topo = su["ppa_topology"]
    times = np.unique(np.concatenate([[0.0], list(back.values())]))
    alive = np.ones((len(times), len(topo.tasks)), dtype=bool)
    index = {t: k for k, t in enumerate(topo.tasks)}
    for task in failed_tasks:
        alive[:, index[task]] = times >= back[task]
    a = np.concatenate(completeness(topo, alive), axis=1)
    outputs = [index[t] for t in su["output_tasks"]]
    per_query = a[:, outputs]
    return times, per_query.mean(axis=1), dict(zip(su["output_tasks"], per_query.T, strict=True))


def _remote_every(ml) -> int:
    """m = ceil(1 / p2): multilevel's remote checkpoint every m-th interval T* (the one level law
    of the cross notebooks, recovery.remote_every): a failure strikes after G - 1 whole intervals
    and a part of the G-th since the last remote one, G uniform on 1..m."""
    return recovery.remote_every(ml.p[-1])


def _failure_rows(
    su, jobs, order, acquisition, lost, extra_failed, grid=None, only=SCHEMES
) -> list[dict]:
    """Every scheme's rows on the failure of job nodes ``order`` (ints, in draw order) with
    node delays ``acquisition`` (after detection, one per failed node), ``lost`` s of work lost
    per exactly-once scheme (PPA's passive tasks lose incremental's) and the PPA plans' extra
    node j failing where ``extra_failed[j]``; the curve rows on ``grid`` (None: summaries only);
    the schemes in ``only``."""
    from incremental import query_recovery_times

    s = su["scenario"]
    k = len(order)
    failed_nodes = sorted(f"n{x}" for x in order)
    # the one restart-location rule (crosspaper.recovery.restart_plan, as cross_frontier): the
    # survivors' spare (alive_free), the standby nodes at once, then the n requested nodes
    # (one per failed node no standby node replaces) at acquisition[standby:standby + n]
    standby = s.resources.standby_nodes
    _, n = recovery.acquired_nodes(s, order, standby)
    common = {"failed_nodes": ",".join(failed_nodes)}
    later = np.sort(acquisition[standby : standby + n])
    arrivals = [(0.0, 1.0)] * min(standby, k) + [(float(t), 1.0) for t in later]
    alive = [n for n in su["nodes"] if n not in failed_nodes]
    alive_free = [max(0.0, su["cap"] - su["load"][n]) for n in alive]
    n_queries = len(su["output_tasks"])
    rows = []

    def emit(scheme, times, avail, failed_queries, exact=None, common=common):
        """``exact``: the share of queries with exact output (PPA; else ``avail`` is)."""
        if grid is not None:
            rows.extend(
                _row(kind=CURVE, scheme=scheme, t=float(t), availability=float(a), **common)
                for t, a in zip(grid, _curve(times, avail, grid), strict=True)
            )
        rows.append(
            _row(
                kind=SUMMARY,
                scheme=scheme,
                failed_queries=failed_queries,
                **_summarize(times, avail),
                exact_lost_s=_summarize(times, avail if exact is None else exact)["lost_output_s"],
                **common,
            )
        )

    # Exactly-once schemes (incremental paper's problem; times after detection).
    problem = scenarios.to_incremental(s, failed_nodes)
    restart = s.checkpoint.remote_restart_s
    placements = {}  # blocking and multilevel place alike
    for scheme in [x for x in ("incremental", "blocking", "multilevel") if x in only]:
        blocking = scheme != "incremental"
        if blocking not in placements:  # when each query's partitions are placed
            placements[blocking] = query_recovery_times(
                problem, arrivals, blocking=blocking, cpu_cap=su["cap"], alive_free=alive_free
            )
        placed = placements[blocking]
        # keyed by the full query id (operator, partition): an output operator of parallelism
        # > 1 has one query per partition, each counted (rev20d #0)
        back = {q: _recovered(jobs[scheme], lost[scheme], t + restart) for q, t in placed.items()}
        times, avail = _query_curve(back, n_queries)
        emit(scheme, times, avail, len(back))
        rows.extend(
            _row(kind=QUERY, scheme=scheme, query=_query_label(s, q), recovery_s=t, **common)
            for q, t in back.items()
        )
    # PPA plans (crosspaper.replication, as the frontier): passive tasks restart by the one
    # rule.
    n_job = s.resources.nodes
    for scheme, plan in su["plans"].items():
        if scheme not in only:
            continue
        extra = n_job + np.arange(su["extra"][scheme])
        hit = extra[np.asarray(extra_failed, dtype=bool)[: len(extra)]]
        jobs_down = list(order)  # the k job nodes every scheme loses
        mine = [*jobs_down, *(int(x) for x in hit)]
        down = {f"n{x}" for x in jobs_down}
        failed_tasks = sorted(f"{op}[{i}]" for (op, i), n in su["where"].items() if n in down)
        switched = replication.active_tasks(s, plan, mine)  # need no place to restart
        waits = recovery.task_waits(s, jobs_down, standby, acquisition, switched)
        passive_back = {
            t: _recovered(jobs[scheme], lost["incremental"], w + restart) for t, w in waits.items()
        }
        back = replication.failure(s, su["ppa_topology"], plan, mine, passive_back)["back"]
        times, avail, per_query = _ppa_curve(su, failed_tasks, back)
        failed_queries = int(sum(q[0] < 1 for q in per_query.values()))
        exact = np.mean([acc >= 1 - 1e-12 for acc in per_query.values()], axis=0)
        plan_common = {"failed_nodes": ",".join(f"n{x}" for x in sorted(mine))}
        emit(scheme, times, avail, failed_queries, exact, plan_common)
        for task, acc in per_query.items():
            if acc[0] < 1:
                exact = times[np.flatnonzero(acc >= 1 - 1e-12)[0]]
                rows.append(
                    _row(
                        kind=QUERY,
                        scheme=scheme,
                        query=_query_label(s, _task_id(task)),
                        recovery_s=float(exact),
                        **plan_common,
                    )
                )
    return rows

    return rows


@cache
def worst_full_s(name, k: int, delay_factor: float, blocked_factor: float = 1.0) -> dict:
    """Each scheme's time to full output in its worst recovery after a correlated failure of
    ``k`` nodes (the per-recovery QoS, rev20e #1): the max over every k-set of the candidate
    nodes (recovery.node_sets: a fixed sample of MAX_NODE_SETS where there are more, stated by
    node_sets_text; deterministic, no draws), every node at the acquisition law's upper end x
    ``delay_factor``, the failure at the worst moment (recovery.lost_work(T, "worst"), Khaos's
    injection; multilevel: the last of its m = ceil(1/p2) intervals since a remote
    checkpoint), PPA's extra nodes at the worse of both fates (all failing with the set or
    none), catching up at the QoS load (qos_load: as cross_frontier and cross_interval)."""
    su = setup(name)
    s, ml = su["scenario"], su["multilevel"]
    jobs = catch_up_jobs(name, blocked_factor, "qos")
    worst_of = lambda T: float(recovery.lost_work(T, "worst")[0][0])  # noqa: E731
    lost = {
        "incremental": worst_of(su["interval"]),
        "blocking": worst_of(su["interval"]),
        "multilevel": worst_of(ml.T * _remote_every(ml)),
    }
    downs = _worst_downs(name, k, delay_factor)
    restart, worst = s.checkpoint.remote_restart_s, {}
    for scheme in ("incremental", "blocking", "multilevel"):
        place = downs["incremental" if scheme == "incremental" else "blocking"]
        worst[scheme] = _recovered(jobs[scheme], lost[scheme], place + restart)
    for scheme in su["plans"]:  # the last failed task back: a passive one after its wait
        wait, switched = downs[scheme]
        worst[scheme] = (
            _recovered(jobs[scheme], lost["incremental"], wait + restart)
            if wait is not None
            else replication.ACTIVATION_S
            if switched
            else 0.0
        )
    return {x: worst[x] for x in SCHEMES}


@cache
def _worst_downs(name, k: int, delay_factor: float) -> dict:
    """_placement_waits of scenario ``name``, remembered per process by what it reads (the
    topology, resources and paper sections): the sensitivity's failure rates, checkpoint costs
    and headroom (catch_up_rate) change none of it, so its variants share one pass."""
    s = setup(name)["scenario"]
    key = (s.topology, s.resources, repr(s.papers), k, delay_factor)
    if key not in _WAITS:
        _WAITS[key] = _placement_waits(name, k, delay_factor)
    return _WAITS[key]


_WAITS: dict[tuple, dict] = {}


def _placement_waits(name, k: int, delay_factor: float) -> dict:
    """What worst_full_s needs of every k-node set (recovery.node_sets), every node at the
    acquisition law's upper end x ``delay_factor``: each scheme's recovery grows with its down
    time (the catch-up is the same for every set), so only the longest placement wait after
    detection matters: incremental's and blocking's (multilevel places as blocking; the last
    query placed), and per PPA plan over both extra-node fates the longest passive task's wait
    (None if no failed task recovers passively) and whether a task switched to its replica
    (rev21 speed: one recovery per scheme instead of every set's curves)."""
    from incremental import query_recovery_times

    su = setup(name)
    s = su["scenario"]
    standby = s.resources.standby_nodes
    upper = np.full(k, delay_factor * recovery.acquisition_upper_s(s))
    n_extra = max(su["extra"].values(), default=0)
    fates = [np.ones(n_extra, bool), np.zeros(n_extra, bool)] if n_extra else [np.zeros(0, bool)]
    out = {"incremental": 0.0, "blocking": 0.0, **{x: (None, False) for x in su["plans"]}}
    for order in recovery.node_sets([int(c[1:]) for c in su["candidates"]], k):
        order = list(order)
        failed = sorted(f"n{x}" for x in order)
        _, n = recovery.acquired_nodes(s, order, standby)
        later = np.sort(upper[standby : standby + n])
        arrivals = [(0.0, 1.0)] * min(standby, k) + [(float(t), 1.0) for t in later]
        alive_free = [max(0.0, su["cap"] - su["load"][x]) for x in su["nodes"] if x not in failed]
        problem = scenarios.to_incremental(s, failed)
        for scheme, blocking in (("incremental", False), ("blocking", True)):
            placed = query_recovery_times(
                problem, arrivals, blocking=blocking, cpu_cap=su["cap"], alive_free=alive_free
            )
            out[scheme] = max(out[scheme], max(placed.values(), default=0.0))
        down = set(failed)
        failed_tasks = {f"{op}[{i}]" for (op, i), x in su["where"].items() if x in down}
        for scheme, plan in su["plans"].items():
            extra = s.resources.nodes + np.arange(su["extra"][scheme])
            for fate in fates:
                mine = [*order, *(int(x) for x in extra[fate[: len(extra)]])]
                switched = replication.active_tasks(s, plan, mine)
                waits = recovery.task_waits(s, order, standby, upper, switched)
                wait, any_switched = out[scheme]
                passive = [w for t, w in waits.items() if t in failed_tasks]
                if passive:
                    wait = max(passive) if wait is None else max(wait, *passive)
                out[scheme] = (wait, any_switched or bool(failed_tasks & set(switched)))
    return out


def node_sets_text(name, k: int) -> str:
    """What the worst pass takes of scenario ``name``'s k-node sets (recovery.node_sets), for a
    finding: "every 2-node set (45)", or "a fixed sample of 2,000 of the 3,921,225 8-node sets"
    where there are more than recovery.MAX_NODE_SETS."""
    total = math.comb(len(setup(name)["candidates"]), k)
    if total <= recovery.MAX_NODE_SETS:
        return f"every {k}-node set ({total:,})"
    return f"a fixed sample of {recovery.MAX_NODE_SETS:,} of the {total:,} {k}-node sets"


def blocking_worst_down_s(name, k: int, delay_factor: float) -> float:
    """Blocking's longest time down (placement after detection + remote restart) over every
    k-node set (_worst_downs); its recovery grows with it at any interval, so its worst
    recovery at interval T is recovery_s(T - 3 s, this, C (1 - c/T)) (rev20f #1)."""
    down = _worst_downs(name, k, delay_factor)["blocking"]
    return down + setup(name)["scenario"].checkpoint.remote_restart_s


QOS_CI_MAX_S = 3600  # the longest (remote) interval scanned for a QoS setting (interval.MAX_CI_S)


def qos_worst_s(name, k: int, delay_factor: float, blocked_factor: float, interval_s, every=1):
    """The worst recovery (worst_full_s's: every k-node set, the failure at the worst moment, at
    the QoS load) of a blocking recovery from remote checkpoints taken every ``every``-th of
    checkpoints every ``interval_s`` s, local ones between (``every`` 1: blocking at that
    interval; > 1: multilevel's two levels, m = ceil(1/p2)), vectorized: down
    blocking_worst_down_s (multilevel places as blocking), lost m T - 3 s (the failure 3 s
    before the m-th checkpoint since the last remote one), the catch-up at C (1 - blocked_factor
    x cost) with cost ((m - 1) c1 + c2) / (m T) (normal_costs' law; c2/T at m = 1). Returns
    (worst, cost); worst is inf where no down time is finite."""
    from crosspaper import frontier

    s = setup(name)["scenario"]
    T, m = np.asarray(interval_s, dtype=float), np.asarray(every, dtype=float)
    c = s.checkpoint
    cost = ((m - 1) * c.local_cost_s + c.remote_cost_s) / (m * T)
    down = blocking_worst_down_s(name, k, delay_factor)
    if not math.isfinite(down):
        return np.full(np.broadcast(T, m).shape, math.inf), cost
    job = recovery.job_of(s, frontier.qos_load(name))
    capacity = job.capacity * np.maximum(1.0 - blocked_factor * np.minimum(cost, 1.0), 1e-12)
    lost = np.maximum(m * T - recovery.INJECT_BEFORE_S, 0.0)
    return np.asarray(recovery.recovery_s(lost, down, job, capacity=capacity)), cost


def blocking_at_qos(name, k: int, delay_factor: float, blocked_factor: float, limit_s: float):
    """Blocking at the interval that meets ``limit_s`` in its worst recovery (rev20f #1: the
    interval, not only the scheme, decides; as cross_interval's QoS interval): over
    whole-second T in 1..QOS_CI_MAX_S, its worst recovery (qos_worst_s at m = 1: the failure at
    T - 3 s, the catch-up at C (1 - blocked_factor c/T) at the QoS load); of the meeting T the
    one next to the utilization optimum setup()["interval"] with the higher U (U is unimodal).
    Returns {"interval_s", "remote_every" (1), "worst_full_s", "checkpoint_overhead" (c/T)} or
    None where no T meets."""
    from crosspaper import interval as ci

    su = setup(name)
    T = np.arange(1, QOS_CI_MAX_S + 1, dtype=float)
    worst, cost = qos_worst_s(name, k, delay_factor, blocked_factor, T)
    ok = worst <= limit_s
    if not ok.any():
        return None
    best = su["interval"]
    near = [*T[ok & (T <= best)][-1:], *T[ok & (T > best)][:1]]
    chosen = max(near, key=lambda x: float(ci.remote_utilization(x, su["scenario"])))
    i = int(chosen) - 1
    return {
        "interval_s": float(chosen),
        "remote_every": 1,
        "worst_full_s": float(worst[i]),
        "checkpoint_overhead": float(cost[i]),
    }


def multilevel_at_qos(name, k: int, delay_factor: float, blocked_factor: float, limit_s: float):
    """Multilevel at the two-level setting that meets ``limit_s`` in its worst recovery (issue 20
    HIGH 1: blocking_at_qos's counterpart, which multilevel lacked): local checkpoints every
    whole-second T, a remote one every m-th (m = ceil(1/p2) >= 2; m = 1 is blocking at T,
    blocking_at_qos's), the remote interval m T up to QOS_CI_MAX_S; its worst recovery and cost
    ((m - 1) c1 + c2) / (m T) by qos_worst_s. Of the meeting settings the one of highest U (Eq.
    (13) at p = (1 - 1/m, 1/m)), blocking_at_qos's rule and the notebook's one criterion: the
    least cost alone would always take m = 2 (at the same remote interval m T, (m T / 2, 2)
    costs less and recovers no slower), a local level whatever its use. Returns {"interval_s"
    (T), "remote_every" (m), "worst_full_s", "checkpoint_overhead"} or None where none meets."""
    from multilevel.utilization import utilization

    s = setup(name)["scenario"]
    if s.failures.process_per_day <= 0:
        return None  # no level 1: multilevel is blocking (scenarios.to_multilevel)
    every = range(2, QOS_CI_MAX_S // 2 + 1)
    m = np.concatenate([np.full(QOS_CI_MAX_S // j, j) for j in every])
    T = np.concatenate([np.arange(1, QOS_CI_MAX_S // j + 1) for j in every]).astype(float)
    worst, cost = qos_worst_s(name, k, delay_factor, blocked_factor, T, m)
    ok = np.flatnonzero((worst <= limit_s) & (cost < 1.0))  # cost < 1: T above Σ p c
    if not ok.size:
        return None
    p = np.stack([1.0 - 1.0 / m[ok], 1.0 / m[ok]], axis=-1)
    u = utilization(T[ok], p, scenarios.to_multilevel(s, levels=2))
    i = ok[np.lexsort((worst[ok], -u))[0]]  # the highest U, then the shorter worst recovery
    return {
        "interval_s": float(T[i]),
        "remote_every": int(m[i]),
        "worst_full_s": float(worst[i]),
        "checkpoint_overhead": float(cost[i]),
    }


def correlated_point(params: dict, rng: np.random.Generator) -> list[dict]:
    """Sweep function: one correlated failure of ``k`` nodes of scenario ``scenario`` with node
    acquisition delays scaled by ``delay_factor``; every scheme on the same draws. Rows: the
    availability curve of each scheme on a grid of ``step_s`` up to ``horizon_s`` (kind
    "curve"), its exact summary ("summary": lost output ∫(1-A) dt in s of full output, times to
    A >= 0.5, 0.9, 1), per failed query the time its output is exact again ("query"), and with
    ``engine`` (incremental_fig9 only) the engine's timelines of incremental and blocking
    recovery on the same failure and arrivals ("engine_curve", "engine_query";
    ``engine_rate`` hashtags/s)."""

    for name in ("scenario", "k", "delay_factor", "horizon_s", "step_s", "engine", "engine_rate"):
        if name not in params:
            raise ValueError(f"params must give {name!r}")
    su = setup(params["scenario"])
    s = su["scenario"]
    k, factor = params["k"], params["delay_factor"]
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= len(su["candidates"]):
        raise ValueError(f"k must be an integer in [1, {len(su['candidates'])}]; got {k!r}")
    if not 0 <= factor < math.inf:
        raise ValueError(f"delay_factor must be finite and >= 0; got {factor!r}")
    jobs = catch_up_jobs(params["scenario"], float(params.get("blocked_factor", 1.0)))
    # Draws of fixed sizes in a fixed order: the same numbers at every (k, delay_factor).
    perm = rng.permutation(len(su["candidates"]))
    u_acquisition = rng.random(len(su["candidates"]))
    u_checkpoint = rng.random()
    ml = su["multilevel"]
    geometric = rng.integers(1, _remote_every(ml), endpoint=True)  # the one level law
    # the PPA plans' extra nodes (replicas failing with the job): each fails with the job
    # nodes' probability k / N, extra node j alike for every plan (rev20d #2)
    extra_fate = rng.random(max(su["extra"].values(), default=0))
    order = [int(su["candidates"][i][1:]) for i in perm[:k]]
    acquisition = _acquisition(s, u_acquisition, factor)[:k]  # after detection
    interval = su["interval"]
    # a failure in the last INJECT_BEFORE_S s before a checkpoint loses as much as one at Khaos's
    # worst moment (lost_work "worst"), the worst pass's: its supremum, so worst_full_s bounds
    # every draw at any load (rev20f #2; uniform u T alone exceeded it with probability 3/T)
    most = lambda T: float(recovery.lost_work(T, "worst")[0][0])  # noqa: E731
    lost = {
        "incremental": min(u_checkpoint * interval, most(interval)),
        "blocking": min(u_checkpoint * interval, most(interval)),
        "multilevel": min(ml.T * (geometric - 1 + u_checkpoint), most(ml.T * _remote_every(ml))),
    }
    grid = np.arange(0.0, params["horizon_s"] + 1e-9, params["step_s"])
    extra_failed = extra_fate < k / len(su["candidates"])
    # the worst recovery (the QoS): worst_full_s(), once per point, not per draw
    rows = _failure_rows(su, jobs, order, acquisition, lost, extra_failed, grid)

    if params["engine"]:
        failed_nodes = sorted(f"n{x}" for x in order)
        common = {"failed_nodes": ",".join(failed_nodes)}
        rows += _engine_rows(params, su, failed_nodes, acquisition, rng, common)
    return rows


def _engine_rows(params, su, failed_nodes, acquisition, rng, common) -> list[dict]:
    """The incremental engine's Fig 9 timelines (incremental.timelines.fig9_run) on the same
    failure and node delays, incremental and blocking on one shared stream."""
    from incremental import timelines

    s = su["scenario"]
    if s.name != "incremental_fig9" or scenarios.placement(s) != timelines.fig9_placement():
        raise ValueError("engine=True needs the incremental_fig9 scenario (the engine's Fig 9)")
    t_fail, warmup = 80.0, 40.0
    end = t_fail + params["horizon_s"] + 2 * timelines.MERGE_WINDOW
    rate = params["engine_rate"]
    tweet_rate = rate / timelines.HASHTAGS_PER_TWEET
    stream = timelines.hashtag_stream(int(end * tweet_rate), tweet_rate, rng)
    rows = []
    for scheme in ("incremental", "blocking"):
        topology, result = timelines.fig9_run(
            scheme=scheme,
            killed=tuple(failed_nodes),
            rate=rate,
            rho=su["rho"],
            acquisition=np.asarray(acquisition),
            t_fail=t_fail,
            end=end,
            rng=rng,
            stream=stream,
        )
        rl = timelines.relative_latency(
            result, topology, t_fail=t_fail, warmup=warmup, horizon=end - 2 * timelines.MERGE_WINDOW
        )
        per_bin = rl[rl["bin_start"] >= t_fail].groupby("bin_start")["available"].mean()
        rows.extend(
            _row(
                kind=ENGINE_CURVE,
                scheme=scheme,
                t=float(b - t_fail),
                availability=float(a),
                **common,
            )
            for b, a in per_bin.items()
        )
        failed_ops = {op for (op, _), n in su["where"].items() if n in failed_nodes}
        failed = [q for q in rl["query"].unique() if failed_ops & ({q} | set(_closure(s, q)))]
        rec = timelines.recovery_times(rl[rl["query"].isin(failed)], t_fail)
        rows.extend(
            _row(kind=ENGINE_QUERY, scheme=scheme, query=str(q), recovery_s=float(t), **common)
            for q, t in rec.items()
        )
    return rows


def _closure(s, name: str) -> set[str]:
    ups = set(s.topology.upstream(name))
    for up in list(ups):
        ups |= _closure(s, up)
    return ups


def normal_costs(name: str) -> pd.DataFrame:
    """Each scheme's normal-time cost on scenario ``name`` (ASSUMPTIONS["normal-time cost"]):
    replica CPU (node equivalents and share of the job's CPU), buffering (KB held for replay)
    and checkpoint overhead (share of the job's time spent checkpointing)."""
    su = setup(name)
    s, topo = su["scenario"], su["scenario"].topology
    rates = topo.input_rates()
    ops = {op.name: op for op in topo.operators}
    sources = _source_ops(s)
    tasks = [(op.name, i) for op in topo.operators for i in range(op.parallelism)]
    total_cpu = sum(ops[op].cpu_share for op, _ in tasks)
    checkpointed = [(op, i) for op, i in tasks if op not in sources]
    checkpointed_cpu = sum(ops[op].cpu_share for op, _ in checkpointed)
    c, interval = s.checkpoint, su["interval"]

    def out_kb(op):  # KB/s one task of op emits
        o = ops[op]
        return rates[op] * o.selectivity / o.parallelism * o.tuple_kb

    def in_kb(op):  # KB/s one task of op receives
        return sum(out_kb(u) * ops[u].parallelism for u in topo.upstream(op)) / ops[op].parallelism

    def ckpt_share(which):  # c/T x the checkpointing tasks' share of the checkpointed CPU
        cpu = sum(ops[op].cpu_share for op, _ in which)
        return c.remote_cost_s / interval * cpu / checkpointed_cpu

    rows = []
    for scheme, plan in su["plans"].items():
        active = replication.replicated(s, plan)  # PPA-1.0: the sources too (issue 20 MED 3)
        replicated = [(op, i) for op, i in tasks if f"{op}[{i}]" in active]
        rows.append(
            {
                "scheme": scheme,
                "replica_cpu_nodes": sum(ops[op].cpu_share for op, _ in replicated),
                # every task checkpoints and keeps its replay buffer (the paper's passive plan)
                "buffer_kb": sum(in_kb(op) * interval for op, _ in checkpointed)
                + sum(out_kb(op) * SYNC_PERIOD_S for op, _ in replicated),
                "checkpoint_overhead": ckpt_share(checkpointed),
                "checkpoint_interval_s": interval,
            }
        )
    rows.append(
        {
            "scheme": "incremental",
            "replica_cpu_nodes": 0.0,
            "buffer_kb": sum(in_kb(op) * interval for op, _ in checkpointed),
            "checkpoint_overhead": ckpt_share(checkpointed),
            "checkpoint_interval_s": interval,
        }
    )
    rows.append(
        {
            "scheme": "blocking",
            "replica_cpu_nodes": 0.0,
            "buffer_kb": 0.0,
            "checkpoint_overhead": ckpt_share(checkpointed),
            "checkpoint_interval_s": interval,
        }
    )
    ml = su["multilevel"]
    # the cost on the level law's reading of p2, as the loss (rev20f #8): a remote checkpoint
    # every m = ceil(1/p2)-th interval, local ones between (p = (0, 1): m = 1, c2)
    m = _remote_every(ml)
    per_t = (1 - 1 / m) * c.local_cost_s + c.remote_cost_s / m
    rows.append(
        {
            "scheme": "multilevel",
            "replica_cpu_nodes": 0.0,
            "buffer_kb": 0.0,
            # every checkpointed task checkpoints: the whole c/T, as incremental's and blocking's
            "checkpoint_overhead": per_t / ml.T,
            "checkpoint_interval_s": ml.T * m,
        }
    )
    frame = pd.DataFrame(rows)
    frame.insert(2, "replica_cpu_share", frame["replica_cpu_nodes"] / total_cpu)
    return frame.set_index("scheme").loc[list(SCHEMES)].reset_index()


def _mean_ci(values: pd.Series, keys: list) -> pd.DataFrame:
    """Per group of ``keys``: the mean of the finite values and its two-sided t CI at CONFIDENCE
    (as pipeline.scorecard.mean_ci, over groups at once); NaN bounds with fewer than two."""
    g = values.where(np.isfinite(values)).groupby(keys, sort=False)
    out = g.agg(["mean", "std", "count", "size"])
    dof = (out["count"] - 1).where(out["count"] > 1)
    half = stats.t.ppf(0.5 + CONFIDENCE / 2, dof) * out["std"] / np.sqrt(out["count"])
    return pd.DataFrame(
        {
            "mean": out["mean"],
            "low": out["mean"] - half,
            "high": out["mean"] + half,
            "n": out["size"],
        }
    )


def summary_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (k, delay_factor, scheme): mean and 95% t CI over draws of lost output and time to
    full output, and the mean times to 50% and 90%."""
    part = frame[frame["kind"] == SUMMARY]
    keys = [part[c] for c in ("k", "delay_factor", "scheme")]
    lost, full = _mean_ci(part["lost_output_s"], keys), _mean_ci(part["t_full_s"], keys)
    means = part.groupby(keys, sort=False)[["t50_s", "t90_s"]].mean()
    out = pd.DataFrame(
        {
            "draws": lost["n"],
            "lost_output_s": lost["mean"],
            "lost_ci_low": lost["low"],
            "lost_ci_high": lost["high"],
            "t50_s": means["t50_s"],
            "t90_s": means["t90_s"],
            "t_full_s": full["mean"],
            "t_full_ci_low": full["low"],
            "t_full_ci_high": full["high"],
        }
    )
    return out.rename_axis(["k", "delay_factor", "scheme"]).reset_index()


def mean_curves(frame: pd.DataFrame, kind: str = CURVE) -> pd.DataFrame:
    """Mean availability per (k, delay_factor, scheme, t) over draws, with its 95% t CI clipped
    to [0, 1] (availability is bounded; NaN with one draw)."""
    part = frame[frame["kind"] == kind].sort_values(["k", "delay_factor", "scheme", "t"])
    ci = _mean_ci(part["availability"], [part[c] for c in ("k", "delay_factor", "scheme", "t")])
    out = pd.DataFrame(
        {
            "availability": ci["mean"],
            "ci_low": ci["low"].clip(lower=0.0),
            "ci_high": ci["high"].clip(upper=1.0),
            "draws": ci["n"],
        }
    )
    return out.rename_axis(["k", "delay_factor", "scheme", "t"]).reset_index()


def paired_differences(frame: pd.DataFrame, pairs, metric: str = "lost_output_s") -> pd.DataFrame:
    """Per (k, delay_factor) and (scheme, baseline) pair: mean and 95% t CI of the paired
    difference scheme - baseline of ``metric`` over draws (the same failure and arrivals)."""
    part = frame[frame["kind"] == SUMMARY]
    wide = part.pivot_table(
        index=["k", "delay_factor", "iteration"], columns="scheme", values=metric
    )
    keys = [wide.index.get_level_values(c) for c in ("k", "delay_factor")]
    frames = []
    for order, (scheme, base) in enumerate(pairs):
        ci = _mean_ci(wide[scheme] - wide[base], keys).rename_axis(["k", "delay_factor"])
        frames.append(ci.reset_index().assign(order=order, scheme=scheme, baseline=base))
    out = pd.concat(frames).sort_values(["k", "delay_factor", "order"], kind="stable")
    out = out.rename(columns={"mean": "difference", "low": "ci_low", "high": "ci_high"})
    out["metric"], out["draws"] = metric, out["n"]
    columns = ["k", "delay_factor", "scheme", "baseline", "metric", "difference", "ci_low"]
    return out[[*columns, "ci_high", "draws"]].reset_index(drop=True)


def engine_comparison(frame: pd.DataFrame) -> pd.DataFrame:
    """Per scheme (incremental, blocking) and failed query: mean time its output is back, by the
    model and by the engine (on the same draws), and their mean paired difference."""
    out = []
    for scheme in ("incremental", "blocking"):
        model = frame[(frame["kind"] == QUERY) & (frame["scheme"] == scheme)]
        engine = frame[(frame["kind"] == ENGINE_QUERY) & (frame["scheme"] == scheme)]
        both = model.merge(engine, on=["iteration", "query"], suffixes=("_model", "_engine"))
        for query, g in both.groupby("query"):
            out.append(
                {
                    "scheme": scheme,
                    "query": query,
                    "draws": len(g),
                    "model_s": g["recovery_s_model"].mean(),
                    "engine_s": g["recovery_s_engine"].mean(),
                    "engine_minus_model_s": (g["recovery_s_engine"] - g["recovery_s_model"]).mean(),
                }
            )
    return pd.DataFrame(out)
