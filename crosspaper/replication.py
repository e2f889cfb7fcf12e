"""One PPA model for the cross-paper notebooks (frontier and correlated): passive plus partially
active replication (Su & Zhou, ICDE 2016) of a scenario's tasks on its nodes.

- Every task can fail, sources included: a task fails when its node fails (the scenario's
  placement, ``crosspaper.scenarios.placement``). PPA's virtual sink, where the scenario adds one,
  is a collector outside the job and never fails.
- Active replicas (the plan, ``ppa.ppa_plan``) occupy nodes: with ``ppa.replica_domain = "same"``
  the replica of a task on node k runs on the first of nodes k + 1, k + 2, ... (mod N, never its
  primary's node) whose load stays within the CPU cap (``papers.incremental.cpu_cap``) and fails
  with that node; replicas that fit no job node go to extra nodes (indices N, N + 1, ..., each
  filled up to the cap), which the cost charges and which the job's failures (drawn over its N
  nodes) never take. With ``"separate"`` replicas sit in another failure domain and never fail
  with the job's nodes. A failed task whose replica is alive takes over after ``ACTIVATION_S``.
- A failed task without a live replica is passive: it waits for its own node's replacement
  (``node_ready``: 0 for a standby node, else that node's acquisition) and then recovers from its
  checkpoint through the shared recovery model (``recover(wait_s)``: crosspaper.recovery).
- Meanwhile the output is tentative with fidelity OF (``ppa.output_fidelity``, Eq. (4)) of the
  tasks not yet back; the output-seconds lost are ∫ (1 - OF(t)) dt.
- Cost: the replicas' CPU (Σ cpu_share of the replicated tasks, node equivalents) and the extra
  nodes their placement uses (``replica_cost``; "separate": the nodes they need at the cap), so the
  nodes charged are the nodes the replicas run on.
"""

import math
from collections.abc import Callable, Iterable

import numpy as np

ACTIVATION_S = 0.2  # ppa.LatencyParams().activation: switching to a live replica


def replica_placement(s, plan: Iterable[str]) -> dict[str, int | None]:
    """{task: node of its active replica} for the plan's tasks ("op[i]", placed in sorted order);
    None = another failure domain (``ppa.replica_domain = "separate"``) or a task outside the
    scenario (virtual sink); an index >= resources.nodes = an extra node (module docstring)."""
    n = s.resources.nodes
    separate = s.papers["ppa"].get("replica_domain", "same") == "separate"
    where, cpu = task_nodes(s), task_cpu(s)
    cap = s.papers["incremental"]["cpu_cap"]
    load = [0.0] * n
    for t, k in where.items():
        load[k] += cpu[t]
    out = {}
    for t in sorted(plan):
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
    """(CPU in node equivalents, extra nodes) of the plan's replicas: the extra nodes
    replica_placement uses ("separate": the nodes the CPU needs at the incremental CPU cap)."""
    cpu = task_cpu(s)
    total = sum(cpu.get(t, 0.0) for t in plan)
    if s.papers["ppa"].get("replica_domain", "same") == "separate":
        return total, math.ceil(total / s.papers["incremental"]["cpu_cap"] - 1e-9)
    placed = replica_placement(s, plan).values()
    return total, len({k for k in placed if k is not None and k >= s.resources.nodes})


def failure(
    s,
    topology,
    plan: frozenset,
    failed_nodes: Iterable[int],
    node_ready: dict[int, float],
    recover: Callable[[float], float],
) -> dict:
    """One failure of ``failed_nodes`` under the PPA plan ``plan`` on ``topology``
    (``crosspaper.scenarios.to_ppa(s)``): ``node_ready[k]`` = s until failed node k's
    replacement is ready, ``recover(wait)`` = s from the failure until a passive task waiting
    ``wait`` s is back (restore and catch-up included). Returns back (task -> s), lost_output_s
    (∫ 1 - OF), t_full_s (the last task back), active and passive (the failed tasks by how they
    recover)."""
    from ppa import output_fidelity

    failed_nodes = set(failed_nodes)
    where = task_nodes(s)
    replicas = replica_placement(s, plan)
    failed = [t for t in topology.tasks if t in where and where[t] in failed_nodes]
    back, active, passive = {}, [], []
    for t in failed:
        if t in replicas and (replicas[t] is None or replicas[t] not in failed_nodes):
            back[t] = ACTIVATION_S
            active.append(t)
        else:
            back[t] = float(recover(node_ready[where[t]]))
            passive.append(t)
    if not failed:
        return {"back": {}, "lost_output_s": 0.0, "t_full_s": 0.0, "active": [], "passive": []}
    times = np.unique([0.0, *back.values()])
    lost = 0.0
    for start, end in zip(times[:-1], times[1:], strict=True):
        down = [t for t in failed if back[t] > start]
        lost += (1.0 - output_fidelity(topology, down)) * (end - start)
    return {
        "back": back,
        "lost_output_s": float(lost),
        "t_full_s": float(times[-1]),
        "active": active,
        "passive": passive,
    }


def node_ready(failed_nodes, draws: np.ndarray, standby: int) -> dict[int, float]:
    """{failed node: s until its replacement is ready}: the first ``standby`` failed nodes (in
    the given order) take standby nodes at once, the others their acquisition draw (``draws[j]``
    for the j-th failed node: the same draws whatever the standby count, common random
    numbers)."""
    return {k: 0.0 if j < standby else float(draws[j]) for j, k in enumerate(failed_nodes)}
