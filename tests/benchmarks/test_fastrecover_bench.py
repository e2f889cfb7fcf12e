"""fastrecover benchmarks (make bench): Algorithm 1 against its plain-loop reference, the tree DPs
at Z = 20 and Z = 100, and the thesis's enumeration of budget splits. Reported, not asserted."""

import time

import numpy as np

from fastrecover.chain import optimize_chain
from fastrecover.generate import random_chain, random_tree
from fastrecover.model import Storage
from fastrecover.tree import optimize_tree
from tests.benchmarks.speedup import record_speedup
from tests.fastrecover.reference import algorithm1_loops


def test_algorithm1_and_its_speedup_over_plain_loops(benchmark):
    topology = random_chain(15, np.random.default_rng(0))
    benchmark(optimize_chain, topology, 0.4, 60)
    began = time.perf_counter()
    algorithm1_loops(topology, 0.4, 60, Storage())
    slow = time.perf_counter() - began
    record_speedup(benchmark, slow, "Algorithm 1, n = 15, Z = 60", "plain loops")


def test_tree_dps_at_z20_and_z100(benchmark):
    topology = random_tree(15, np.random.default_rng(0))
    figures = {}
    for method in ("exact", "thesis_knapsack"):
        for z in (20, 100):
            began = time.perf_counter()
            optimize_tree(topology, 0.5, z, f=100, method=method)
            figures[f"{method} Z={z} s"] = time.perf_counter() - began
    for z in (8, 16, 24):
        began = time.perf_counter()
        optimize_tree(topology, 0.5, z, f=100, method="thesis_enumeration")
        figures[f"thesis_enumeration Z={z} s"] = time.perf_counter() - began
    # Fan-out <= 3 makes the enumeration O(Z^4) per node: extrapolate rather than wait for Z = 100.
    figures["thesis_enumeration Z=100 s (Z^4 extrapolation)"] = (
        figures["thesis_enumeration Z=24 s"] * (100 / 24) ** 4
    )
    benchmark.extra_info.update(figures)
    print("\n" + "\n".join(f"  {k}: {v:.3f}" for k, v in figures.items()))
    benchmark.pedantic(optimize_tree, (topology, 0.5, 20), {"f": 100}, rounds=3, iterations=1)


def test_compiled_kernels_against_their_numpy_forms(benchmark):
    """One sweep row's solvers: the compiled chain DP (chain_methods, the sweeps' path) against
    the three NumPy calls, and the compiled tree merge against the NumPy one (reference)."""
    from fastrecover.chain import chain_methods, nsegments, one_segment
    from fastrecover.tree import _convolve
    from tests.fastrecover.reference import convolve_numpy

    chain = random_chain(15, np.random.default_rng(0))
    figures = {}
    for name, run in {
        "chain, three methods, NumPy DP ms": lambda: (
            optimize_chain(chain, 0.4, 60),
            nsegments(chain, 0.4, 60),
            one_segment(chain, 0.4, 60),
        ),
        "chain, three methods, compiled (chain_methods) ms": lambda: chain_methods(chain, 0.4, 60),
    }.items():
        run()
        began = time.perf_counter()
        for _ in range(20):
            run()
        figures[name] = 1000 * (time.perf_counter() - began) / 20
    rng = np.random.default_rng(1)
    acc, value = rng.random((8, 100, 21)), rng.random((8, 100, 21))
    for name, merge in {"merge NumPy ms": convolve_numpy, "merge compiled ms": _convolve}.items():
        merge(acc, value)
        began = time.perf_counter()
        for _ in range(20):
            merge(acc, value)
        figures[name] = 1000 * (time.perf_counter() - began) / 20
    benchmark.extra_info.update(figures)
    print("\n" + "\n".join(f"  {k}: {v:.3f}" for k, v in figures.items()))
    benchmark.pedantic(chain_methods, (chain, 0.4, 60), rounds=3, iterations=1)


def _cpu_ms(run, calls: int) -> float:
    run()  # compiled kernels loaded, first-touch costs paid
    began = time.process_time()
    for _ in range(calls):
        run()
    return 1000 * (time.process_time() - began) / calls


def test_sweep_solvers_before_and_after_compiled_tables_and_totals(benchmark):
    """The sweeps' solvers against their former composition (the same functions still in use):
    chain_methods with NumPy segment tables and the model's totals (configured_result) against
    the compiled tables and compiled_result; tree_point's four single calls against tree_methods
    on one grid; tree_methods' NumPy solvers (the forms optimize_tree runs) against its compiled
    ones; RSRFS's moves as the former NumPy loop (tests/fastrecover/reference.py) against the
    compiled one; fastrecover_delta's feasibility by the exact DP against tree_feasible. CPU
    milliseconds per call and the old/new ratio, reported, not asserted."""
    from fastrecover.chain import (
        _dp_compiled,
        _solve,
        chain_methods,
        compiled_result,
        segment_tables,
    )
    from fastrecover.tree import (
        _exact,
        _grid,
        _nsegments,
        _one_segment,
        _result,
        _thesis,
        tree_feasible,
        tree_methods,
        tree_nsegments,
        tree_one_segment,
    )

    def chain_old(topology):
        storage = Storage()
        rt, eta = segment_tables(topology, storage, 0.4, 60)
        return {
            m: _solve(topology, storage, rt, eta, 60, m, _dp_compiled)
            for m in ("FastRecover", "NSegments", "1Segment")
        }

    def tree_old(topology):
        return (
            optimize_tree(topology, 0.5, 20),
            optimize_tree(topology, 0.5, 20, method="thesis_knapsack"),
            tree_nsegments(topology, 0.5, 20),
            tree_one_segment(topology, 0.5, 20),
        )

    pairs = {}
    for n in (15, 35):
        chain = random_chain(n, np.random.default_rng(0))
        pairs[f"chain_methods n={n} Z=60"] = (
            lambda c=chain: chain_old(c),
            lambda c=chain: chain_methods(c, 0.4, 60),
        )
    tree = random_tree(15, np.random.default_rng(0))
    pairs["tree_point solvers n=15 Z=20"] = (
        lambda: tree_old(tree),
        lambda: tree_methods(tree, 0.5, 20),
    )

    def tree_methods_numpy(topology):
        storage, grid = _grid(topology, None, 0.5, 20, 100, 200.0)
        found = (
            _exact(topology, grid),
            _thesis(topology, grid, False),
            _nsegments(topology, grid),
            _one_segment(topology, grid, storage),
        )
        return [_result(topology, storage, f, compiled_result) for f in found]

    pairs["tree_methods NumPy -> compiled solvers n=15 Z=20"] = (
        lambda: tree_methods_numpy(tree),
        lambda: tree_methods(tree, 0.5, 20),
    )
    from fastrecover.rsrfs import _move_inputs, _moves
    from tests.fastrecover.reference import rsrfs_moves_numpy

    chain = random_chain(25, np.random.default_rng(1))
    moves = _move_inputs(chain, optimize_chain(chain, 0.4, 60).configuration, Storage(), 0.4)
    pairs["RSRFS moves NumPy -> compiled n=25"] = (
        lambda: rsrfs_moves_numpy(*moves),
        lambda: _moves(moves[0].copy(), *moves[1:], 10_000),
    )
    pairs["tree feasibility n=15 Z=20"] = (
        lambda: optimize_tree(tree, 0.5, 20).feasible,
        lambda: tree_feasible(tree, 0.5, 20),
    )
    figures = {}
    for name, (old, new) in pairs.items():
        before, after = _cpu_ms(old, 50), _cpu_ms(new, 50)
        figures[f"{name}: old ms"] = before
        figures[f"{name}: new ms"] = after
        figures[f"{name}: old/new"] = before / after
    benchmark.extra_info.update(figures)
    print("\n" + "\n".join(f"  {k}: {v:.3f}" for k, v in figures.items()))
    chain = random_chain(35, np.random.default_rng(0))
    benchmark.pedantic(chain_methods, (chain, 0.4, 60), rounds=3, iterations=1)


def test_a_workers_collection_after_a_task_before_and_after_the_freeze(benchmark):
    """PySpark's reused worker runs gc.collect() after every task (partition); in a process that
    ran a FastRecover sweep point it scans every object the imports left, unless
    pipeline.sweep._run_task froze them after the function's first run (old/new reported)."""
    import gc

    import pyspark.daemon  # noqa: F401  (what a worker has loaded)

    from fastrecover import experiments
    from fastrecover.settings import CHAIN, TREE
    from pipeline.sweep import _FROZEN, _run_task

    def collect_ms():
        began = time.process_time()
        for _ in range(5):
            gc.collect()
        return (time.process_time() - began) / 5 * 1e3

    gc.unfreeze()
    _FROZEN.discard(("fastrecover.experiments", "tree_point"))
    experiments.chain_point(dict(CHAIN.point(), rsrfs=True), np.random.default_rng(0))
    try:
        before = collect_ms()
        _run_task(experiments.tree_point, 0, 1, (0, 0, 0, TREE.point()))  # freezes
        after = collect_ms()
        benchmark.pedantic(gc.collect, rounds=5, iterations=1)
    finally:
        gc.unfreeze()
    figures = {"gc.collect old ms": before, "gc.collect new ms": after, "old/new": before / after}
    benchmark.extra_info.update(figures)
    print("\n" + "\n".join(f"  {k}: {v:.3f}" for k, v in figures.items()))
