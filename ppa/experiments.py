"""Sweep functions ``fn(params, rng) -> list[dict]`` for pipeline.sweep: Fig 14 of Su & Zhou.

One call draws one random topology (``ppa.generate``) and plans it with Greedy (Algorithm 2) and
Structure-Aware (Algorithms 3-5) at every active replication ratio, one row per ratio, so the two
planners and the ratios are paired on the same topology; with ``common_random_numbers=True``
topology i also starts from the same draws at every specification.

params: workload, zipf_s, parallelism_lo, parallelism_hi, structure, join_fraction (the
``TopologySpec`` fields; operators_lo/operators_hi optional, default 5-10), ratios (the x axis);
optional milp_ratios (also the MILP optimum at these ratios), milp_seconds (each solve's wall
clock limit) and milp_trees (only on topologies with at most that many MC-trees: "the small ones").

SA plans each topology twice: as the package's Algorithm 5 (``of_sa``) and with its printed
behaviour (``of_sa_printed``, ``plan_structure_aware(printed=True)``: the two deviations in
``ppa.planners.structure_aware``'s docstring), so PPA8 can be judged both ways on the same
topologies (``seconds_sa_printed``: the printed SA's time).

R at ratio r is round(r·|M|), raised to the number of operators where it falls below (SA's first
round needs a task per operator, Alg 5 line 3: the paper's x axis starts there); ``clamped`` says
when it was raised.
"""

import functools
import multiprocessing
import time

import numpy as np

from ppa.fidelity import tree_masks
from ppa.generate import TopologySpec, random_topology
from ppa.planners import plan_greedy, plan_milp, plan_structure_aware
from ppa.topology import Topology


def spec_from(params: dict) -> TopologySpec:
    """The TopologySpec a sweep point names (TopologySpec's defaults for what it leaves out)."""
    fields = {}
    for name in ("workload", "zipf_s", "structure", "join_fraction"):
        if name in params:
            fields[name] = params[name]
    for name in ("parallelism", "operators"):
        if f"{name}_lo" in params:
            fields[name] = (int(params[f"{name}_lo"]), int(params[f"{name}_hi"]))
    return TopologySpec(**fields)


def replicas(ratio: float, tasks: int, operators: int) -> int:
    """R for an active replication ratio: round(ratio·tasks), at least the number of operators."""
    if not 0 < ratio <= 1:
        raise ValueError(f"ratio must be in (0, 1]; got {ratio}")
    return min(tasks, max(operators, round(ratio * tasks)))


def _milp_child(connection, topology: Topology, R: int) -> None:
    connection.send(plan_milp(topology, R).of)
    connection.close()


def milp_within(topology: Topology, R: int, seconds: float) -> float:
    """The MILP optimum's OF, or NaN when the solve does not finish within ``seconds``.

    plan_milp has no time limit and HiGHS does not return to Python before it ends, so the
    solve runs in a forked process that is killed at the deadline."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_milp_child, args=(send, topology, R), daemon=True)
    child.start()
    send.close()
    try:
        return float(receive.recv()) if receive.poll(seconds) else float("nan")
    finally:
        child.kill()
        child.join()
        receive.close()


printed_sa = functools.partial(plan_structure_aware, printed=True)


def _timed(planner, topology: Topology, R: int) -> tuple[float, float]:
    start = time.perf_counter()
    of = planner(topology, R).of
    return of, time.perf_counter() - start


def fig14_point(params: dict, rng: np.random.Generator) -> list[dict]:
    """One random topology of the point's specification, planned at every ratio (module doc)."""
    topology = random_topology(spec_from(params), rng)
    tasks, operators = len(topology.tasks), len(topology.operators)
    milp_ratios = set(params.get("milp_ratios") or ())
    trees = None
    if milp_ratios:
        try:
            trees = len(tree_masks(topology, limit=int(params["milp_trees"]))[0])
        except ValueError:  # more MC-trees than the cap: not one of the small ones
            trees = None
    rows = []
    for ratio in params["ratios"]:
        R = replicas(ratio, tasks, operators)
        of_greedy, t_greedy = _timed(plan_greedy, topology, R)
        of_sa, t_sa = _timed(plan_structure_aware, topology, R)
        of_sa_printed, t_printed = _timed(printed_sa, topology, R)
        row = {
            "ratio": float(ratio),
            "R": R,
            "tasks": tasks,
            "operators": operators,
            "joins": len(topology.joins),
            "clamped": R > round(ratio * tasks),
            "of_greedy": of_greedy,
            "of_sa": of_sa,
            "of_sa_printed": of_sa_printed,
            "seconds_greedy": t_greedy,
            "seconds_sa": t_sa,
            "seconds_sa_printed": t_printed,
        }
        if milp_ratios:
            tried = trees is not None and ratio in milp_ratios
            row["milp_tried"] = tried
            row["of_milp"] = (
                milp_within(topology, R, float(params["milp_seconds"])) if tried else float("nan")
            )
        rows.append(row)
    return rows
