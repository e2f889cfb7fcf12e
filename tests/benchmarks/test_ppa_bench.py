"""ppa benchmarks (make bench): OF of a 10-operator topology of 16 tasks per operator (target
< 10 ms), Structure-Aware on it (< 1 s), its MILP optimum (< 10 s), the MILP optimum of a random
structured topology of the same size (whose interchangeable tasks are fewer: the harder case),
and Greedy + SA on 100 random Fig 14 topologies. Figures are reported in extra_info and printed,
never asserted."""

import numpy as np

from ppa import (
    FULL,
    Topology,
    TopologySpec,
    output_fidelity,
    plan_greedy,
    plan_milp,
    plan_structure_aware,
    random_topology,
)
from ppa.fidelity import mc_trees


def ten_operators() -> Topology:
    """Two joins of one-to-one branches (A-B, C-D into E; F-G, H-I into J) and a full edge
    between them: 160 tasks, 256 MC-trees, two structured sub-topologies."""
    one = "one-to-one"
    rng = np.random.default_rng(0)
    names = "ABCDEFGHIJ"
    return Topology.partitioned(
        parallelism=dict.fromkeys(names, 16),
        edges={
            ("A", "B"): one,
            ("C", "D"): one,
            ("B", "E"): one,
            ("D", "E"): one,
            ("E", "F"): FULL,
            ("F", "G"): one,
            ("H", "I"): one,
            ("G", "J"): one,
            ("I", "J"): one,
        },
        joins={"E", "J"},
        workloads={name: rng.uniform(0.5, 2, 16) for name in names},
    )


TOPOLOGY = ten_operators()
R = 40


def test_output_fidelity_of_160_tasks(benchmark):
    failed = set(np.random.default_rng(1).choice(TOPOLOGY.tasks, 80, replace=False).tolist())
    of = benchmark(output_fidelity, TOPOLOGY, failed)
    ms = 1000 * benchmark.stats.stats.mean
    benchmark.extra_info.update({"ms": ms, "of": of})
    print(f"\nOF, 10 operators x 16 tasks: {ms:.3f} ms (target < 10 ms)")


def test_structure_aware_on_160_tasks(benchmark):
    plan = benchmark(plan_structure_aware, TOPOLOGY, R)
    seconds = benchmark.stats.stats.mean
    benchmark.extra_info.update({"seconds": seconds, "of": plan.of})
    print(f"\nSA, R = {R}: {seconds:.3f} s (target < 1 s), OF {plan.of:.4f}")


def test_milp_optimum_on_160_tasks(benchmark):
    trees = len(mc_trees(TOPOLOGY))
    plan = benchmark.pedantic(plan_milp, (TOPOLOGY, R), rounds=1, iterations=1)
    seconds = benchmark.stats.stats.mean
    sa = plan_structure_aware(TOPOLOGY, R).of
    benchmark.extra_info.update({"seconds": seconds, "of": plan.of, "sa_of": sa, "trees": trees})
    print(
        f"\nMILP, R = {R}, {trees} MC-trees: {seconds:.3f} s (target < 10 s), "
        f"OF {plan.of:.4f} (SA {sa:.4f})"
    )


def test_milp_optimum_on_a_random_160_task_topology(benchmark):
    """Fig 14's generator at 10 operators of 16 tasks (Zipf, structured, no joins), seed 0:
    one-to-one lanes into a full edge to the sink, 1280 MC-trees."""
    spec = TopologySpec(operators=(10, 10), parallelism=(16, 16), workload="zipf")
    topology = random_topology(spec, np.random.default_rng(0))
    trees = len(mc_trees(topology))
    plan = benchmark.pedantic(plan_milp, (topology, R), rounds=1, iterations=1)
    seconds = benchmark.stats.stats.mean
    sa = plan_structure_aware(topology, R).of
    benchmark.extra_info.update({"seconds": seconds, "of": plan.of, "sa_of": sa, "trees": trees})
    print(
        f"\nMILP, random 10 x 16 topology, R = {R}, {trees} MC-trees: {seconds:.3f} s, "
        f"OF {plan.of:.4f} (SA {sa:.4f})"
    )


def test_greedy_and_sa_on_100_fig14_topologies(benchmark):
    spec = TopologySpec(workload="zipf", join_fraction=0.5)

    def run():
        rng = np.random.default_rng(14)
        scores = []
        for _ in range(100):
            topology = random_topology(spec, rng)
            r = max(len(topology.operators), len(topology.tasks) // 2)
            scores.append((plan_greedy(topology, r).of, plan_structure_aware(topology, r).of))
        return np.array(scores)

    scores = benchmark.pedantic(run, rounds=1, iterations=1)
    seconds = benchmark.stats.stats.mean
    benchmark.extra_info.update({"seconds": seconds, "mean_of": scores.mean(axis=0).tolist()})
    print(
        f"\nFig 14, 100 topologies x (Greedy, SA) at half the tasks: {seconds:.2f} s; "
        f"mean OF {scores[:, 0].mean():.3f} and {scores[:, 1].mean():.3f}"
    )


def test_latency_rules_selection_and_flows_against_the_old_way(benchmark):
    """ppa_recovery_latency's re-judging: the rules' row selection (_sel on the columns' arrays
    against frame[mask].set_index) and latency_table with the flows computed once per (topology,
    rate, params) against once per call (``_flows.__wrapped__``). CPU ms per call and old/new,
    reported, not asserted."""
    import time

    import pandas as pd

    from pipeline.verdicts import ppa_latency
    from ppa import LatencyParams, Phases, latency
    from ppa.shapes import fig6

    topology, params = fig6(), LatencyParams()
    phases = Phases.draw(topology, 200, np.random.default_rng(0))
    grid = {
        "rates": [1000, 2000],
        "windows": [10, 20, 30],
        "checkpoint_intervals": [5, 10, 30],
        "sync_periods": [1, 5, 10],
        "phases": phases,
    }
    frame = latency.latency_table(topology, failure="single", params=params, **grid)
    where = {"scheme": "checkpoint", "period": 10.0, "rate": 2000, "window": 20}

    def sel_old():
        mask = np.ones(len(frame), dtype=bool)
        for column, value in where.items():
            if isinstance(value, str):
                mask &= (frame[column] == value).to_numpy()
            else:
                mask &= np.isclose(frame[column].to_numpy(dtype=float), value)
        return frame[mask].set_index("draw")["latency"].sort_index()

    def table():
        return latency.latency_table(topology, failure="correlated", params=params, **grid)

    def cpu_ms(fn, calls):
        began = time.process_time()
        for _ in range(calls):
            fn()
        return 1000 * (time.process_time() - began) / calls

    pd.testing.assert_series_equal(ppa_latency._sel(frame, **where), sel_old())
    figures = {}
    for name, old, new, calls in (
        ("_sel", sel_old, lambda: ppa_latency._sel(frame, **where), 200),
        ("latency_table", None, table, 10),
    ):
        if old is None:
            cached = latency._flows
            latency._flows = cached.__wrapped__  # the flows computed at every call, as before
            try:
                before = cpu_ms(new, calls)
            finally:
                latency._flows = cached
        else:
            before = cpu_ms(old, calls)
        after = cpu_ms(new, calls)
        figures.update({f"{name}: old ms": before, f"{name}: new ms": after})
        figures[f"{name}: old/new"] = before / after
    benchmark.extra_info.update(figures)
    print("\n" + "\n".join(f"  {k}: {v:.3f}" for k, v in figures.items()))
    benchmark.pedantic(table, rounds=3, iterations=1)


def test_q1_top_k_by_partition_against_the_stable_sort(benchmark):
    """ppa_query_accuracy's Q1 accuracy: the top 100 of 24 hourly windows of 20,000 pages
    (Q1Partials.top, a partition) against the former stable argsort of every window, on a
    multinomial draw of the paper's records from the page law. CPU ms per call and old/new,
    reported, not asserted."""
    import time

    from pipeline.jobs import ppa_queries as q

    params = q.Q1Params()
    rng = np.random.default_rng(0)
    counts = rng.multinomial(q.PAPER_RECORDS // 8, params.page_probabilities()[0], size=24)
    part = q.Q1Partials(params=params, counts=counts[:, None, :], run=None)

    def old():
        order = np.argsort(-counts, axis=1, kind="stable")[:, : params.top_k]
        return [set(o[c[o] > 0].tolist()) for o, c in zip(order, counts, strict=True)]

    def cpu_ms(fn, calls=20):
        began = time.process_time()
        for _ in range(calls):
            fn()
        return 1000 * (time.process_time() - began) / calls

    assert part.top(counts) == old()
    before, after = cpu_ms(old), cpu_ms(lambda: part.top(counts))
    benchmark.extra_info.update({"old ms": before, "new ms": after, "old/new": before / after})
    print(
        f"\nQ1 top-100 of 24 x 20,000: old {before:.1f} ms, new {after:.1f} ms, "
        f"old/new {before / after:.1f}"
    )
    benchmark(part.top, counts)


def test_q1_accuracy_with_task_floors_against_whole_windows(benchmark):
    """ppa_query_accuracy's Q1 accuracy of 500 random plans (24 windows, 8 O1 tasks, 20,000
    pages): ``Q1Partials.accuracy``, whose top partitions only the pages at or above the
    delivering tasks' own k-th counts, against the former top that partitions whole windows.
    The accuracies are equal; CPU s of each and old/new, reported, not asserted."""
    import time

    from pipeline.jobs import ppa_queries as q
    from ppa import shapes

    params = q.Q1Params()
    rng = np.random.default_rng(0)
    law = params.page_probabilities()
    counts = np.stack(
        [
            [rng.multinomial(q.PAPER_RECORDS // 192, law[t // 2]) for t in range(8)]
            for _ in range(24)
        ]
    )
    part = q.Q1Partials(params=params, counts=counts, run=None)
    alive = rng.random((500, len(shapes.q1().tasks))) < 0.6

    def old():
        truth = part.top(counts.sum(axis=1))
        sources = q.delivered(part.topology, alive, "O1")
        cache = {}
        for row in sources:
            if row.tobytes() not in cache:
                top = part.top(counts[:, row, :].sum(axis=1))
                cache[row.tobytes()] = np.mean(
                    [len(t & a) / len(a) for t, a in zip(top, truth, strict=True)]
                )
        return np.array([cache[row.tobytes()] for row in sources])

    began = time.process_time()
    expected = old()
    before = time.process_time() - began
    began = time.process_time()
    new = part.accuracy(alive)
    after = time.process_time() - began
    assert new.tolist() == expected.tolist()
    benchmark.extra_info.update({"old s": before, "new s": after, "old/new": before / after})
    print(
        f"\nQ1 accuracy of 500 plans: old {before:.2f} s, new {after:.2f} s, "
        f"old/new {before / after:.1f}"
    )
    benchmark.pedantic(part.accuracy, (alive,), rounds=1, iterations=1)


def _completeness_recomputing_rates(topology, alive, *, union=False):
    """ppa.fidelity.completeness as it was: Eq. (3)'s total input rates and Eq. (1)'s join
    shares recomputed at every call instead of read from the compiled topology."""
    c = topology._compiled
    alive = np.atleast_2d(alive)
    out = []
    for b, s in enumerate(c.slices):
        a_b = alive[:, s].astype(float)
        blocks = c.inputs[b]
        if not blocks:
            out.append(a_b)
            continue
        if c.joins[b] and not union:
            for a, rates in blocks:
                a_b *= out[a] @ (rates / rates.sum(axis=1, keepdims=True)).T
        else:
            total = sum(rates.sum(axis=1) for _, rates in blocks)
            a_b *= sum(out[a] @ rates.T for a, rates in blocks) / total
        out.append(a_b)
    return out


def test_fig14_points_with_compiled_rate_totals(benchmark, monkeypatch):
    """ppa_random_topologies' sweep point (``fig14_point``: Greedy, SA and the printed SA at six
    ratios on a random topology) with completeness reading its rate totals and join shares from
    the compiled topology, against recomputing them per call: equal rows (timings aside), CPU s
    of 30 points each and old/new, reported, not asserted."""
    import time

    from ppa import experiments, fidelity

    params = dict(
        workload="zipf", zipf_s=0.1, parallelism_lo=1, parallelism_hi=10,
        structure="structured", join_fraction=0.5, ratios=[0.1, 0.2, 0.3, 0.5, 0.7, 0.9],
    )  # fmt: skip

    def points():
        rows = [r for i in range(30) for r in experiments.fig14_point(params, rng(i))]
        return [{k: v for k, v in r.items() if not k.startswith("seconds")} for r in rows]

    def rng(i):
        return np.random.default_rng(i)

    points()  # warm up
    began = time.process_time()
    new = points()
    after = time.process_time() - began
    with monkeypatch.context() as patch:
        patch.setattr(fidelity, "completeness", _completeness_recomputing_rates)
        began = time.process_time()
        old = points()
        before = time.process_time() - began
    assert new == old
    benchmark.extra_info.update({"old s": before, "new s": after, "old/new": before / after})
    print(f"\n30 fig14 points: old {before:.2f} s, new {after:.2f} s, old/new {before / after:.2f}")
    benchmark.pedantic(points, rounds=1, iterations=1)
