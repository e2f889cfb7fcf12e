"""One PPA model for the cross-paper notebooks (frontier and correlated): passive plus partially
active replication (Su & Zhou, ICDE 2016) of a scenario's tasks on its nodes.

- Every task can fail, sources included: a task fails when its node fails (the scenario's
  placement, ``crosspaper.scenarios.placement``). PPA's virtual sink, where the scenario adds one,
  is a collector outside the job and never fails.
- Active replicas (the plan, ``ppa.ppa_plan``; a plan holding every non-source task is full
  replication and replicates the sources too, ``replicated``) occupy nodes: with
  ``ppa.replica_domain = "same"`` the replica of a task on node k runs on the first of nodes k + 1,
  k + 2, ... (mod N, never its primary's node) whose load stays within the CPU cap
  (``papers.incremental.cpu_cap``) and fails with that node; replicas that fit no job node go to
  extra nodes (indices N, N + 1, ..., each filled up to the cap), which the cost charges and which
  join the job's failure domain: a correlated failure of k nodes takes the k job nodes every scheme
  loses and each of the E (``extra_nodes``) extra nodes with the job nodes' probability k / N, so
  the plan's own nodes never dilute it (``crosspaper.frontier.failed_node_draws``,
  ``crosspaper.correlated``; rev20d #2); a single-node failure of an extra node alone takes
  replicas only and loses no output. With ``"separate"`` replicas sit in another failure domain and
  never fail with the job's nodes (before rev20c "same" behaved so for the extra nodes). A failed
  task whose replica is alive takes over after ``ACTIVATION_S``.
- A failed task without a live replica is passive: it restarts where the cross notebooks' one
  rule puts it (crosspaper.recovery.task_waits: the survivors' spare under the CPU cap at once,
  then a standby node at once, then an acquired node when it arrives) and then recovers from its
  checkpoint through the shared recovery model (crosspaper.recovery): PPA's passive plan
  checkpoints EVERY task (Su & Zhou Sec. III: "checkpoints will be periodically created for all
  the tasks"), so every plan pays c/T and a task whose replica died has its checkpoint
  (rev20f #4; before, a plan paid only its unreplicated tasks' share). The
  survivors' spare is counted from the job's own tasks (the replicas' CPU aside).
- Meanwhile the output is tentative with fidelity OF (``ppa.output_fidelity``, Eq. (4)) of the
  tasks not yet back; the output-seconds lost are ∫ (1 - OF(t)) dt.
- Cost: the replicas' CPU (Σ cpu_share of the replicated tasks, node equivalents) and the extra
  nodes their placement uses (``replica_cost``; "separate": the nodes they need at the cap), so the
  nodes charged are the nodes the replicas run on.
"""

import math
from collections.abc import Iterable

import numpy as np

ACTIVATION_S = 0.2  # ppa.LatencyParams().activation: switching to a live replica


def replicated(s, plan: Iterable[str]) -> frozenset[str]:
    """The tasks the plan actively replicates on scenario ``s``: the plan's, and every task where
    the plan holds every non-source task of the job. ``ppa.ppa_plan`` budgets the non-source
    tasks only, the sources never failing in the paper's experiments (Su & Zhou Sec. VI-A:
    the correlated failure kills the nodes of the 15 synthetic tasks, the 16 source tasks run
    on 4 other nodes); here sources fail like any task, and PPA-1.0 is full replication: "In
    PPA-1.0, all the tasks in the topology will be actively replicated" (Sec. VI-A, Recovery
    with PPA), the active plan a subset of "the whole set of tasks M" (Sec. II-B), so its failed
    sources switch to replicas instead of waiting passively for a node (issue 20 MED 3)."""
    plan = frozenset(plan)
    tasks = task_nodes(s)
    sources = {op.name for op in s.topology.operators if not s.topology.upstream(op.name)}
    inner = {t for t in tasks if t.split("[")[0] not in sources}
    return plan | frozenset(tasks) if inner and inner <= plan else plan


def replica_placement(s, plan: Iterable[str]) -> dict[str, int | None]:
    """{task: node of its active replica} for the ``replicated(s, plan)`` tasks ("op[i]", placed
    in sorted order); None = another failure domain (``ppa.replica_domain = "separate"``) or a
    task outside the scenario (virtual sink); an index >= resources.nodes = an extra node
    (module docstring)."""
    n = s.resources.nodes
    separate = s.papers["ppa"].get("replica_domain", "same") == "separate"
    where, cpu = task_nodes(s), task_cpu(s)
    cap = s.papers["incremental"]["cpu_cap"]
    load = [0.0] * n
    for t, k in where.items():
        load[k] += cpu[t]
    out = {}
    for t in sorted(replicated(s, plan)):
        if separate or t not in where:
            out[t] = None
            continue
        home = where[t]
        # the job's other nodes first, then the extra nodes: the first with room under the cap
        order = [(home + j) % n for j in range(1, n)] + list(range(n, len(load)))
        k = next((k for k in order if load[k] + cpu[t] <= cap + 1e-9), len(load))
        if k == len(load):
            load.append(0.0)
        load[k] += cpu[t]
        out[t] = k
    return out


def extra_nodes(s, plan: Iterable[str]) -> int:
    """E, the extra nodes (indices N .. N + E - 1) the plan's replicas run on and that fail with
    the job (``replica_domain = "same"``); 0 with ``"separate"`` (another failure domain)."""
    if s.papers["ppa"].get("replica_domain", "same") == "separate":
        return 0
    placed = [k for k in replica_placement(s, plan).values() if k is not None]
    return max(0, max(placed, default=-1) + 1 - s.resources.nodes)


def task_cpu(s) -> dict[str, float]:
    """{"op[i]": cpu_share} of every task of the scenario (node equivalents)."""
    return {
        f"{op.name}[{i}]": op.cpu_share
        for op in s.topology.operators
        for i in range(op.parallelism)
    }


def task_nodes(s) -> dict[str, int]:
    """{"op[i]": node index} of every task of the scenario."""
    return {f"{op.name}[{i}]": k for op in s.topology.operators for i, k in enumerate(op.nodes)}


def replica_cost(s, plan: Iterable[str]) -> tuple[float, int]:
    """(CPU in node equivalents, extra nodes) of the plan's replicas (``replicated``: full
    replication's sources too): the extra nodes replica_placement uses ("separate": the nodes
    the CPU needs at the incremental CPU cap)."""
    cpu = task_cpu(s)
    total = sum(cpu.get(t, 0.0) for t in replicated(s, plan))
    if s.papers["ppa"].get("replica_domain", "same") == "separate":
        return total, math.ceil(total / s.papers["incremental"]["cpu_cap"] - 1e-9)
    placed = replica_placement(s, plan).values()
    return total, len({k for k in placed if k is not None and k >= s.resources.nodes})


def failure(
    s,
    topology,
    plan: frozenset,
    failed_nodes: Iterable[int],
    passive_back: dict[str, float],
) -> dict:
    """One failure of ``failed_nodes`` under the PPA plan ``plan`` on ``topology``
    (``crosspaper.scenarios.to_ppa(s)``): ``passive_back[t]`` = s from the failure until failed
    task t is back if it recovers passively (the shared model's recovery after its wait for a
    restart place, crosspaper.recovery.task_waits: restore and catch-up included). Returns back
    (task -> s), lost_output_s (∫ 1 - OF), exact_lost_s (exact output only), t_full_s (the
    last task back), active and passive (the failed tasks by how they recover)."""
    from ppa import output_fidelity

    failed_nodes = set(failed_nodes)
    where = task_nodes(s)
    switched = active_tasks(s, plan, failed_nodes)
    failed = [t for t in topology.tasks if t in where and where[t] in failed_nodes]
    back, active, passive = {}, [], []
    for t in failed:
        if t in switched:
            back[t] = ACTIVATION_S
            active.append(t)
        else:
            back[t] = float(passive_back[t])
            passive.append(t)
    if not failed:
        return {
            "back": {},
            "lost_output_s": 0.0,
            "exact_lost_s": 0.0,
            "t_full_s": 0.0,
            "active": [],
            "passive": [],
        }
    times = np.unique([0.0, *back.values()])
    lost = 0.0
    for start, end in zip(times[:-1], times[1:], strict=True):
        down = [t for t in failed if back[t] > start]
        lost += (1.0 - output_fidelity(topology, down)) * (end - start)
    return {
        "back": back,
        "lost_output_s": float(lost),
        "exact_lost_s": exact_lost_s(s, topology, back),
        "t_full_s": float(times[-1]),
        "active": active,
        "passive": passive,
    }


def active_tasks(s, plan: Iterable[str], failed_nodes) -> set[str]:
    """The tasks on ``failed_nodes`` whose active replica (the plan's) lives: they switch to it
    and need no place to restart (the others are passive, crosspaper.recovery.task_waits)."""
    failed_nodes = set(failed_nodes)
    where = task_nodes(s)
    return {
        t
        for t, k in replica_placement(s, plan).items()
        if t in where and where[t] in failed_nodes and (k is None or k not in failed_nodes)
    }


def exact_lost_s(s, topology, back: dict[str, float]) -> float:
    """Output-seconds lost counting exact output only, the metric of every other scheme: the
    mean over the scenario's output tasks (one query each, equal priority, as incremental
    recovery's queries) of the time until the task's output is exact again (its completeness,
    ppa.fidelity Eqs. (1)-(3), back to 1: every failed task feeding it back). ``back``: failed
    task -> s until it is back."""
    from ppa.fidelity import completeness

    outputs = [
        f"{op.name}[{i}]" for op in s.topology.operators if op.output for i in range(op.parallelism)
    ]
    times = np.unique([0.0, *back.values()])
    index = {t: k for k, t in enumerate(topology.tasks)}
    alive = np.ones((len(times), len(topology.tasks)), dtype=bool)
    for task, at in back.items():
        alive[:, index[task]] = times >= at
    whole = np.concatenate(completeness(topology, alive), axis=1)[:, [index[t] for t in outputs]]
    exact = whole >= 1 - 1e-12
    return float(np.mean([times[np.flatnonzero(col)[0]] for col in exact.T]))
