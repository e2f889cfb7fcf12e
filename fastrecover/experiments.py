"""Sweep functions ``fn(params, rng) -> dict`` for pipeline.sweep: one random topology per call.

params: n, omega, ch_max, z (and f, f_max for trees); optional bandwidth (Δ), rsrfs (also run the
Section 3.3 step), failures (simulated machine failures for RT_Computational and RT_Latency).
Infeasible results are NaN with an explicit feasible_* flag.
"""

import time
from functools import partial

import numpy as np
import pandas as pd

from fastrecover.chain import nsegments, one_segment, optimize_chain
from fastrecover.generate import random_chain, random_tree
from fastrecover.model import DEFAULT_BANDWIDTH, Storage
from fastrecover.rsrfs import redistribute
from fastrecover.simulate import simulate_failures
from fastrecover.tree import (
    DEFAULT_F,
    DEFAULT_F_MAX,
    optimize_tree,
    tree_nsegments,
    tree_one_segment,
)


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


def chain_point(params: dict, rng: np.random.Generator) -> dict:
    """A random chain: FastRecover (Algorithm 1), NSegments and 1Segment on one budget grid."""
    topology = random_chain(params["n"], rng, omega=params["omega"])
    storage = Storage(params.get("bandwidth", DEFAULT_BANDWIDTH))
    args = (topology, params["ch_max"], params["z"], storage)
    best = optimize_chain(*args)
    out = {
        **_record("FastRecover", best),
        **_record("NSegments", nsegments(*args)),
        **_record("1Segment", one_segment(*args)),
    }
    if params.get("rsrfs"):
        out.update(_record("RSRFS", redistribute(topology, best, params["ch_max"], storage)))
    return {**out, **_extras(params, topology, best, storage, rng)}


def tree_point(params: dict, rng: np.random.Generator) -> dict:
    """A random tree: FastRecover (exact Algorithm 2 and the thesis's recurrence), NSegments,
    1Segment on one (z, f) grid."""
    topology = random_tree(params["n"], rng, omega=params["omega"])
    storage = Storage(params.get("bandwidth", DEFAULT_BANDWIDTH))
    grid = {
        "f": params.get("f", DEFAULT_F),
        "f_max": params.get("f_max", DEFAULT_F_MAX),
        "storage": storage,
    }
    args = (topology, params["ch_max"], params["z"])
    best = optimize_tree(*args, **grid)
    out = {
        **_record("FastRecover", best),
        **_record("Thesis", optimize_tree(*args, method="thesis_knapsack", **grid)),
        **_record("NSegments", tree_nsegments(*args, **grid)),
        **_record("1Segment", tree_one_segment(*args, **grid)),
    }
    return {**out, **_extras(params, topology, best, storage, rng)}


def runtime_point(params: dict, rng: np.random.Generator) -> dict:
    """Seconds to run one algorithm on a random topology (params: shape "chain" or "tree",
    method for trees, repeats)."""
    if params["shape"] == "chain":
        run = partial(optimize_chain, random_chain(params["n"], rng), params["ch_max"], params["z"])
    else:
        run = partial(
            optimize_tree,
            random_tree(params["n"], rng),
            params["ch_max"],
            params["z"],
            f=params["f"],
            method=params["method"],
        )
    run()  # warm caches
    began = time.perf_counter()
    for _ in range(params.get("repeats", 1)):
        run()
    return {"seconds": (time.perf_counter() - began) / params.get("repeats", 1)}


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
