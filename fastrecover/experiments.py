"""Sweep functions ``fn(params, rng) -> dict`` for pipeline.sweep: one random topology per call.

params: n, omega, ch_max, z (and f, f_max for trees); optional bandwidth and snapshot_bandwidth
(Δ_log and Δ_snap: ``storage_from``), rho_variance (the ρ_i Gaussian's variance), rsrfs (also run
the Section 3.3 step), failures (simulated machine failures for RT_Computational and RT_Latency).
Infeasible results are NaN with an explicit feasible_* flag.
"""

import time
from functools import partial

import numpy as np
import pandas as pd

from fastrecover.chain import chain_methods, optimize_chain
from fastrecover.generate import Attributes, random_chain, random_tree
from fastrecover.model import DEFAULT_BANDWIDTH, DEFAULT_SNAPSHOT_BANDWIDTH, Storage
from fastrecover.rsrfs import redistribute
from fastrecover.simulate import simulate_failures
from fastrecover.tree import DEFAULT_F, DEFAULT_F_MAX, optimize_tree, tree_feasible, tree_methods


def _rt(result) -> float:
    return result.expected_recovery_time if result.feasible else float("nan")


def _record(name: str, result) -> dict:
    overhead = result.checkpoint_overhead if result.feasible else float("nan")
    return {f"RT_{name}": _rt(result), f"CH_{name}": overhead, f"feasible_{name}": result.feasible}


def _extras(params, topology, best, storage, rng) -> dict:
    out = {"anchors": len(best.anchors) if best.feasible else 0}
    if params.get("failures") and best.feasible:
        out.update(
            simulate_failures(topology, best.configuration, storage, rng, params["failures"])
        )
    return out


def storage_from(params: dict) -> Storage:
    """The storage model a sweep point names (defaults: fastrecover.model)."""
    return Storage(
        params.get("bandwidth", DEFAULT_BANDWIDTH),
        params.get("snapshot_bandwidth", DEFAULT_SNAPSHOT_BANDWIDTH),
    )


def attributes_from(params: dict) -> Attributes:
    """Operator attributes of a sweep point: Table 4.1's, with ρ's variance if given."""
    if "rho_variance" in params:
        return Attributes(rho_variance=params["rho_variance"])
    return Attributes()


def chain_point(params: dict, rng: np.random.Generator) -> dict:
    """A random chain: FastRecover (Algorithm 1), NSegments and 1Segment on one budget grid."""
    topology = random_chain(
        params["n"], rng, omega=params["omega"], attributes=attributes_from(params)
    )
    storage = storage_from(params)
    results = chain_methods(topology, params["ch_max"], params["z"], storage)
    best = results["FastRecover"]
    out = {k: v for name, result in results.items() for k, v in _record(name, result).items()}
    if params.get("rsrfs"):
        out.update(_record("RSRFS", redistribute(topology, best, params["ch_max"], storage)))
    return {**out, **_extras(params, topology, best, storage, rng)}


def _tree_setup(params: dict, rng: np.random.Generator):
    topology = random_tree(
        params["n"], rng, omega=params["omega"], attributes=attributes_from(params)
    )
    grid = {
        "f": params.get("f", DEFAULT_F),
        "f_max": params.get("f_max", DEFAULT_F_MAX),
        "storage": storage_from(params),
    }
    return topology, (topology, params["ch_max"], params["z"]), grid


def tree_point(params: dict, rng: np.random.Generator) -> dict:
    """A random tree: FastRecover (exact Algorithm 2 and the thesis's recurrence), NSegments,
    1Segment on one (z, f) grid."""
    topology, args, grid = _tree_setup(params, rng)
    results = tree_methods(*args, **grid)
    best = results["exact"]
    out = {
        **_record("FastRecover", best),
        **_record("Thesis", results["thesis_knapsack"]),
        **_record("NSegments", results["NSegments"]),
        **_record("1Segment", results["1Segment"]),
    }
    return {**out, **_extras(params, topology, best, grid["storage"], rng)}


def chain_proxy_point(params: dict, rng: np.random.Generator) -> dict:
    """chain_point without the baselines (the proxy comparison needs FastRecover and the
    simulated failures only): the same chain and failure draws, the same values."""
    topology = random_chain(
        params["n"], rng, omega=params["omega"], attributes=attributes_from(params)
    )
    storage = storage_from(params)
    best = chain_methods(topology, params["ch_max"], params["z"], storage, ("FastRecover",))
    best = best["FastRecover"]
    return {**_record("FastRecover", best), **_extras(params, topology, best, storage, rng)}


def tree_proxy_point(params: dict, rng: np.random.Generator) -> dict:
    """tree_point without the thesis's recurrence and the baselines: the same tree and failure
    draws, the same values for FastRecover and the simulation."""
    topology, args, grid = _tree_setup(params, rng)
    best = tree_methods(*args, **grid, methods=("exact",))["exact"]
    return {**_record("FastRecover", best), **_extras(params, topology, best, grid["storage"], rng)}


_WARMED: set = set()  # (shape, method) already run once in this process


def _runner(shape: str, topology, params: dict):
    if shape == "chain":
        return partial(optimize_chain, topology, params["ch_max"], params["z"])
    return partial(
        optimize_tree,
        topology,
        params["ch_max"],
        params["z"],
        f=params["f"],
        method=params["method"],
    )


def runtime_point(params: dict, rng: np.random.Generator) -> dict:
    """CPU seconds of one algorithm call on a random topology (params: shape "chain" or "tree",
    method for trees, repeats).

    The measure is the minimum over ``repeats`` calls of the process's CPU time
    (``time.process_time``): CPU time does not count the time the process waits for a core, so
    other work on the machine does not stretch it as it stretches wall-clock time, and the
    minimum drops the calls an interrupt or a preemption's cache refill lengthened. The mean
    wall-clock time of the same calls is returned beside it (``wall_seconds``, the former
    measure), to show what load does to it.

    The first call of each (shape, method) in a process first runs the algorithm once on a small
    fixed topology (its own generator, so the measured topologies are unchanged): imports,
    compilation (numba, cached on disk) and first-touch costs are paid outside the timing, once
    per process rather than before every measured run."""
    shape = params["shape"]
    if shape not in ("chain", "tree"):
        raise ValueError(f"shape must be 'chain' or 'tree'; got {shape!r}")
    repeats = params.get("repeats", 1)
    if not (isinstance(repeats, int) and repeats >= 1):
        raise ValueError(f"repeats must be an integer >= 1; got {repeats!r}")
    warm_key = (shape, params.get("method"))
    if warm_key not in _WARMED:
        small = np.random.default_rng(0)
        topology = random_chain(5, small) if shape == "chain" else random_tree(5, small)
        _runner(shape, topology, dict(params, z=min(params["z"], 4)))()
        _WARMED.add(warm_key)
    make = random_chain if shape == "chain" else random_tree
    run = _runner(shape, make(params["n"], rng), params)
    cpu, wall = [], []
    for _ in range(repeats):
        began_wall, began_cpu = time.perf_counter(), time.process_time()
        run()
        cpu.append(time.process_time() - began_cpu)
        wall.append(time.perf_counter() - began_wall)
    return {"cpu_seconds": min(cpu), "wall_seconds": sum(wall) / repeats}


def longest_first(grid: list[dict]) -> list[dict]:
    """runtime_point's grid in decreasing n^2 Z^2 (the order of Algorithm 1's work; the tree
    methods' grows with Z faster still), for a sweep to start its longest points first and end on
    short ones: no core then waits alone for a long last point."""
    return sorted(grid, key=lambda p: -((p["n"] * p["z"]) ** 2))


def on_line(runs: pd.DataFrame, name: str, defaults: dict) -> pd.DataFrame:
    """The rows of the one-at-a-time line varying ``name``: every other parameter at its default."""
    others = [np.isclose(runs[k], v) for k, v in defaults.items() if k != name]
    return runs[np.logical_and.reduce(others)] if others else runs


def summarize(
    runs: pd.DataFrame,
    lines: dict,
    defaults: dict,
    methods: list[str],
    baselines=("NSegments", "1Segment"),
) -> pd.DataFrame:
    """One row per value of each one-at-a-time line: the mean RT of each method over the
    topologies where it is feasible, NSegments' infeasible share, FastRecover's paired mean
    reduction against each baseline and its mean on the topologies where that baseline is feasible
    (a baseline feasible only on easy topologies has a low mean for that reason alone)."""
    rows = []
    for name in lines:
        for value, part in on_line(runs, name, defaults).groupby(name):
            row = {
                "vary": name,
                "value": value,
                "topologies": len(part),
                "NSegments infeasible %": 100 * (1 - part["feasible_NSegments"].mean()),
            }
            for m in methods:
                row[f"RT {m}"] = part.loc[part[f"feasible_{m}"], f"RT_{m}"].mean()
            for base in baselines:
                both = part[part["feasible_FastRecover"] & part[f"feasible_{base}"]]
                ratio = both["RT_FastRecover"] / both[f"RT_{base}"]
                row[f"reduction vs {base} %"] = 100 * (1 - ratio).mean()
                # FastRecover on the same topologies: the baseline's own mean covers only those.
                row[f"RT FastRecover where {base} feasible"] = both["RT_FastRecover"].mean()
            rows.append(row)
    return pd.DataFrame(rows)


def tree_feasibility_point(params: dict, rng: np.random.Generator) -> dict:
    """Whether Algorithm 2 finds any configuration for a random tree (params as tree_point), by
    tree.tree_feasible's cheapest configuration rather than the DP (equal, tests)."""
    topology = random_tree(
        params["n"], rng, omega=params["omega"], attributes=attributes_from(params)
    )
    feasible = tree_feasible(
        topology,
        params["ch_max"],
        params["z"],
        f=params.get("f", DEFAULT_F),
        f_max=params.get("f_max", DEFAULT_F_MAX),
        storage=storage_from(params),
    )
    return {"feasible_FastRecover": feasible}


# The thesis's printed magnitudes (discussion of Figs. 4.2-4.3): NSegments' largest RT_all over
# 1000 chains at n = 10 and n = 15.
PRINTED_NSEGMENTS_MAX = {10: 1.211, 15: 0.49}


def storage_observations(
    chains: pd.DataFrame,
    trees: pd.DataFrame,
    snapshot_bandwidths,
    *,
    almost_all: float = 90.0,
    factor: float = 2.0,
    trees_feasible: float = 90.0,
) -> pd.DataFrame:
    """Which thesis observations each (B_log, B_snap) satisfies.

    chains: chain_point rows at n = 10, 15, 35 for each B_log (``bandwidth``), all at one
    ``snapshot_bandwidth``; a chain's RT at another B_snap is RT·(B_ref / B_snap) with the same
    feasibility (B_snap scales every chain RT: tests/fastrecover/test_algorithm1.py).
    trees: tree_feasibility_point rows at F_max = 200 for each (bandwidth, snapshot_bandwidth).
    Observations: FR3 (NSegments infeasible for >= almost_all % of chains at n = 35); the printed
    NSegments maxima at n = 10 and 15 within ``factor`` of ours; F_max = 200 feasible on at least
    trees_feasible % of default trees.
    """
    rows = []
    for b_log, part in chains.groupby("bandwidth"):
        reference = part["snapshot_bandwidth"].iloc[0]
        infeasible = 100 * (1 - part.loc[part["n"] == 35, "feasible_NSegments"].mean())
        raw_max = {
            n: part.loc[(part["n"] == n) & part["feasible_NSegments"], "RT_NSegments"].max()
            for n in PRINTED_NSEGMENTS_MAX
        }
        for b_snap in snapshot_bandwidths:
            tree_part = trees[
                (trees["bandwidth"] == b_log) & (trees["snapshot_bandwidth"] == b_snap)
            ]
            row = {
                "B_log": b_log,
                "B_snap": b_snap,
                "NSegments infeasible % at n=35": infeasible,
                "trees feasible % at F_max=200": 100 * tree_part["feasible_FastRecover"].mean(),
            }
            for n, printed in PRINTED_NSEGMENTS_MAX.items():
                ours = raw_max[n] * reference / b_snap
                row[f"NSegments max RT at n={n}"] = ours
                row[f"n={n} max within x{factor:g} of {printed}"] = bool(
                    1 / factor <= ours / printed <= factor
                )
            row[f"FR3 (>= {almost_all:g}% at n=35)"] = bool(infeasible >= almost_all)
            row["F_max = 200 feasible"] = bool(
                row["trees feasible % at F_max=200"] >= trees_feasible
            )
            rows.append(row)
    return pd.DataFrame(rows)
