"""Sweep functions ``fn(params, rng)`` for pipeline.sweep: Fig 16 (Section 7.3, ``fig16_point``)
and the engine's timelines (:mod:`incremental.timelines`): one Fig 9 run (``correlated_point``,
Figs 7, 9-15), Fig 8 on 5 nodes (``fig8_point``, Figs 10-11) and Fig 17's overhead
(``overhead_point``, Appendix C).

``fig16_point`` draws one Fig 16 instance and schedules it at every resource level of the grid:
x = R / Σ failed cost, one row per x. Each row holds the recovered priority share (recovered
queries' priorities over all failed queries' priorities, Fig 16's y) of

- ``DP``: the optimum, for every level at once by ``optimum_by_level`` (every union of queries'
  failed sets, as Algorithm 4 reaches them). Algorithm 4 itself is run at the levels up to
  ``DP_CHECK`` (``dp_priorities``: one run to the largest of them) and must agree, else the sweep
  fails;
- ``BestDensity``: Algorithm 3 with every feasible single query among the starts (the default);
- ``BestDensity_printed``: Algorithm 3 with the printed starts (both from one greedy pass,
  ``schedule_best_density_both``);
- ``OC``: the operator-centric baseline;

and, for Theorem 5.1, the instance's d (the largest share frequency over failed partitions) and
the most queries an optimal plan recovers (``opt_queries``).

The generator's choices the paper does not print (``Fig16Setting.pool``, ``query_size``,
``cost``) may be given in params too (``pipeline.verdicts.incremental.GENERATOR`` re-judges the
claims at the ends of their ranges); absent, they are the package's defaults.
"""

import math
import time

import numpy as np
from numba import njit

from incremental.best_density import schedule_best_density_both
from incremental.engine import Cluster, Engine, EngineConfig, FailureSchedule, Topology, run
from incremental.instances import Fig16Setting, fig16_instance
from incremental.operator_centric import schedule_operator_centric
from incremental.problem import TOLERANCE, RecoveryProblem, max_share_frequency
from incremental.replays import replay_work
from incremental.schedule_dp import dp_priorities
from incremental.timelines import (
    BESTCASE_DELAY,
    DURING_RECOVERY,
    FAILURE_SETS,
    FIG8_NODES,
    FIG8_WINDOW,
    FIG17_WINDOWS,
    HASHTAGS_PER_TWEET,
    MERGE_WINDOW,
    ORACLE_COUNTS,
    acquisition_times,
    fig8_topology,
    fig9_counts,
    fig9_placement,
    fig9_run,
    fig17_topology,
    hashtag_stream,
    oracle_check,
    recovery_times,
    relative_latency,
)

# Algorithm 4 takes 0.4 s per call at x = 0.9 on 18 queries and the MILP up to 0.3 s at x = 0.4
# (on two shared cores), 0.7 s per instance and grid; the enumeration below answers every level
# in about 0.05 s. Algorithm 4 stays as a check where it is cheap (0.02 s for x <= 0.3).
DP_CHECK = 0.3
MAX_QUERIES, MAX_PARTITIONS = 20, 64  # 2^20 plans; one uint64 bit mask per plan
METHODS = ("DP", "BestDensity", "BestDensity_printed", "OC")


def optimum_by_level(problem: RecoveryProblem, budgets) -> tuple[np.ndarray, np.ndarray]:
    """The optimal priority of Definition 2 within each budget, and the most queries an optimal
    plan recovers (by closure), over all 2^M unions of queries' failed sets (an optimal plan is
    one of them, Appendix B). Integer costs, as Algorithm 4."""
    incidence = problem.incidence
    M, P = incidence.shape
    if M > MAX_QUERIES or P > MAX_PARTITIONS:
        raise ValueError(
            f"optimum_by_level enumerates 2^M plans as 64-bit masks: needs M <= {MAX_QUERIES} "
            f"and at most {MAX_PARTITIONS} failed partitions; got M = {M}, {P} partitions"
        )
    costs = problem.cost_array.astype(np.int64)
    if not np.array_equal(costs, problem.cost_array):
        raise ValueError("optimum_by_level needs integer costs (one budget level per unit)")
    bit = np.left_shift(np.uint64(1), np.arange(P, dtype=np.uint64))
    queries = np.bitwise_or.reduce(np.where(incidence, bit, np.uint64(0)), axis=1)
    per_bit = np.zeros(MAX_PARTITIONS, dtype=np.int64)
    per_bit[:P] = costs
    byte_bits = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
    tables = np.ascontiguousarray((byte_bits.astype(np.int64) @ per_bit.reshape(8, 8).T).T)
    weights = problem.priority_array.astype(np.int64) * (M + 1) + 1  # key: priority, queries
    best = _best_key_by_cost(queries, weights, tables, -(-P // 8), int(costs.sum()))
    best = np.maximum.accumulate(best)  # within a budget: the best plan of any lower cost
    at = np.clip(np.floor(np.asarray(budgets, dtype=float) + TOLERANCE).astype(np.int64), 0, None)
    top = best[np.minimum(at, best.size - 1)]
    return top // (M + 1), top % (M + 1)


@njit(cache=True)
def _best_key_by_cost(queries, weights, tables, used_bytes, total):
    """best[c]: the largest key (priority * (M + 1) + recovered queries) over the plans costing
    exactly c, every union of queries' failed sets (plans[s] the union of the queries of the bits
    of s); a compiled loop, integer arithmetic: the array of the former NumPy passes (test)."""
    plans = np.zeros(1 << queries.size, dtype=np.uint64)
    for i in range(queries.size):
        half = 1 << i
        for s in range(half):
            plans[half + s] = plans[s] | queries[i]
    best = np.zeros(total + 1, dtype=np.int64)
    for plan in plans:
        cost = 0
        for j in range(used_bytes):  # byte j holds partitions 8j..8j+7
            cost += tables[j, (plan >> np.uint64(8 * j)) & np.uint64(255)]
        key = 0
        for i in range(queries.size):
            if (plan & queries[i]) == queries[i]:
                key += weights[i]
        best[cost] = max(best[cost], key)
    return best


GENERATOR_PARAMS = ("pool", "query_size", "cost", "sharing")  # Fig16Setting's unprinted choices


def fig16_point(params: dict, rng: np.random.Generator) -> list[dict]:
    """One Fig 16 instance (params: max_share, zipf_s, priorities, optionally the generator's
    ``GENERATOR_PARAMS``; x_grid, the resource levels as fractions of the failed cost) scheduled
    by every method at every level."""
    chosen = {
        k: tuple(params[k]) if isinstance(params[k], list) else params[k]
        for k in GENERATOR_PARAMS
        if k in params
    }
    setting = Fig16Setting(
        max_share=params["max_share"],
        zipf_s=params["zipf_s"],
        priorities=params["priorities"],
        **chosen,
    )
    return level_rows(fig16_instance(setting, rng), params["x_grid"])


def level_rows(problem: RecoveryProblem, x_grid) -> list[dict]:
    """``problem`` scheduled by every method at each level x of ``x_grid`` (R = x · Σ failed
    cost): one row per level, with the recovered priority shares, d, ``opt_queries`` and the
    total priority of the failed queries."""
    total_cost = float(problem.cost_array.sum())
    total_priority = int(problem.priority_array.sum())
    d = max_share_frequency(problem)
    budgets = [x * total_cost for x in x_grid]
    optimum, opt_queries = optimum_by_level(problem, budgets)
    checked = [(x, best) for x, best in zip(x_grid, optimum, strict=True) if x <= DP_CHECK]
    algorithm4 = dp_priorities(problem, [x * total_cost for x, _ in checked])
    for (x, best), priority in zip(checked, algorithm4, strict=True):
        if priority != best:
            raise RuntimeError(
                f"Algorithm 4 and the enumeration disagree at x = {x}: {priority} against {best}"
            )
    rows = []
    for x, R, best, count in zip(x_grid, budgets, optimum, opt_queries, strict=True):
        corrected, printed = schedule_best_density_both(problem, R)
        plans = {
            "BestDensity": corrected,
            "BestDensity_printed": printed,
            "OC": schedule_operator_centric(problem, R),
        }
        rows.append(
            {
                "x": float(x),
                "R": R,
                "d": d,
                "opt_queries": int(count),
                "priority_total": total_priority,
                "share_DP": int(best) / total_priority,
                **{f"share_{m}": s.priority / total_priority for m, s in plans.items()},
            }
        )
    return rows


def printed_counterexample() -> tuple[RecoveryProblem, float]:
    """Theorem 5.1 against Algorithm 3 as printed (``incremental.best_density``): three
    single-partition queries, costs 2, 19, 2 and priorities 1, 5, 1, R = 20 (d = 1). The printed
    starts (the densest single query and the pairs) return 2; the optimum is 5 (query B alone);
    the bound is (1 − e^(−1)) · 5 = 3.16. Returns (problem, R)."""
    problem = RecoveryProblem(
        costs={"a": 2, "b": 19, "x": 2},
        queries={"A": ({"a"}, 1), "B": ({"b"}, 5), "X": ({"x"}, 1)},
    )
    return problem, 20.0


# --- Figs 7, 9-15: one Fig 9 run ---


def correlated_point(params: dict, rng: np.random.Generator) -> list[dict]:
    """Sweep function (pipeline.sweep): one Fig 9 run; rows per query and ΔT bin with RL,
    availability, whether the query failed, and its recovery time (failed queries)."""
    for name in ("scheme", "failure", "rate", "rho", "distribution", "t_fail", "end"):
        if name not in params:
            raise ValueError(f"params must give {name!r}")
    if params["failure"] not in FAILURE_SETS:
        raise ValueError(f"failure must be one of {sorted(FAILURE_SETS)}")
    during = params.get("during_recovery", "none")
    if during not in DURING_RECOVERY:
        raise ValueError(f"during_recovery must be one of {sorted(DURING_RECOVERY)}")
    killed = FAILURE_SETS[params["failure"]]
    acquisition = acquisition_times(8 + len(DURING_RECOVERY[during]), rng, params["distribution"])
    tweet_rate = params["rate"] / HASHTAGS_PER_TWEET
    stream = hashtag_stream(int(params["end"] * tweet_rate), tweet_rate, rng)
    topology, result = fig9_run(
        scheme=params["scheme"],
        killed=killed,
        rate=params["rate"],
        rho=params["rho"],
        acquisition=acquisition,
        t_fail=params["t_fail"],
        end=params["end"],
        rng=rng,
        stream=stream,
        later=DURING_RECOVERY[during],
    )
    horizon = params["end"] - 2 * MERGE_WINDOW  # the end-of-stream flush is not a timeline
    rl = relative_latency(result, topology, t_fail=params["t_fail"], warmup=40.0, horizon=horizon)
    failed_ops = {pid[0] for pid, node in fig9_placement().items() if node in killed}
    failed = {q for q in rl["query"].unique() if failed_ops & ({q} | _ancestors(topology, q))}
    rec = recovery_times(rl[rl["query"].isin(failed)], params["t_fail"])
    rl["failed"] = rl["query"].isin(failed)
    rl["recovery_time"] = rl["query"].map(rec)
    check = oracle_check(result, _oracle_counts(stream))
    for name in ORACLE_COUNTS:
        rl[name] = check[name]
    rl["exactly_once_violations"] = sum(check[name] for name in ORACLE_COUNTS)
    rl["failures_during_recovery"] = check["failures_during_recovery"]  # genuine ones (INC10)
    rl["last_arrival"] = (
        params["t_fail"] + BESTCASE_DELAY
        if params["scheme"] == "bestcase"
        else params["t_fail"] + 1.0 + float(acquisition[: len(killed)].max())
    )
    return rl.to_dict("records")


COUNTS_KEPT = 16  # streams whose oracle counts a process keeps (a sweep's draws: 12 in full)
_COUNTS: dict[tuple, dict] = {}


def _oracle_counts(stream: list) -> dict:
    """``fig9_counts(stream)``, remembered per process for the last COUNTS_KEPT streams: with
    common random numbers every scenario of a draw runs the same stream (the 13 points of the
    Fig 9 sweep), and counting it was a tenth of a run's CPU time."""
    key = tuple(stream)
    if key not in _COUNTS:
        if len(_COUNTS) >= COUNTS_KEPT:
            del _COUNTS[next(iter(_COUNTS))]
        _COUNTS[key] = fig9_counts(stream)
    return _COUNTS[key]


def _ancestors(topology: Topology, name: str) -> set:
    ups = set(topology.operators[name].inputs)
    for up in list(ups):
        ups |= _ancestors(topology, up)
    return ups


# --- Figs 10-11: Fig 8 on 5 nodes ---


def fig8_point(params: dict, rng: np.random.Generator) -> list[dict]:
    """Sweep function: Fig 8 on 5 nodes, ``failures`` nodes killed ``interval`` s apart from
    ``first``, no new node. Shares (0.05) ignore the load, so the survivors take every failed
    partition at once (Storm's and Spark's schedulers place by slots, not load). Fig 10:
    strategy "source_replay" (Storm); Fig 11: "blocking" (eager recovery).
    Rows: the output latencies (write time, latency + half the window) of every result, each
    with the run's replay work (``incremental.replays.replay_work``) and tuples processed."""
    for name in (
        "strategy",
        "failures",
        "rate",
        "rho",
        "first",
        "interval",
        "end",
        "detection_delay",
        "cpu_cap",
    ):
        if name not in params:
            raise ValueError(f"params must give {name!r}")
    if not 0 <= params["failures"] < FIG8_NODES:
        raise ValueError(f"failures must be in 0..{FIG8_NODES - 1}")
    topology = fig8_topology(params["rate"], params["rho"])
    placement = {pid: f"n{pid[1]}" for pid in topology.partitions}
    kills = tuple(
        (params["first"] + k * params["interval"], f"n{k + 1}") for k in range(params["failures"])
    )
    tweet_rate = params["rate"] / HASHTAGS_PER_TWEET
    stream = hashtag_stream(int(params["end"] * tweet_rate), tweet_rate, rng)
    config = EngineConfig(
        strategy=params["strategy"],
        checkpoint_interval=10.0,
        detection_delay=params["detection_delay"],
        cpu_cap=params["cpu_cap"],
    )
    result = run(
        topology,
        {"source": stream},
        cluster=Cluster(nodes={f"n{k}": 1.0 for k in range(FIG8_NODES)}, placement=placement),
        end=params["end"],
        rng=rng,
        config=config,
        failures=FailureSchedule(kills=kills),
    )
    lat = np.concatenate([result.latency[p] for p in sorted(result.latency)])
    lat = lat[np.argsort(lat[:, 0], kind="stable")]
    work = {**replay_work(result.events, config.batch_interval), "processed": result.processed}
    return [
        {
            "time": float(t),
            "latency": float(x) + FIG8_WINDOW / 2,
            "completed": result.completed,
            **work,
        }
        for t, x in lat
    ]


# --- Appendix C: Fig 17 ---


def _probe_windows(engine: Engine, names) -> dict:
    """Instrument the partitions of operators ``names``: source tuple uid -> (the latest time one
    of them finished processing it, its event time). The engine records result latencies only;
    Appendix C's latency is per tuple ("emitted by the source ... completely processed by both
    window operators"). A step's tuples finish one after another at the node's speed, from the
    step's start (``Engine._dispatch``: a step of c CPU seconds ends c / capacity later)."""
    done: dict = {}
    for pid, partition in engine.parts.items():
        if pid[0] not in names:
            continue
        capacity = engine.nodes[engine.location[pid]].capacity
        clock = engine.clock
        state = {"start": 0.0}

        def step(step=partition.step, state=state, clock=clock):
            state["start"] = clock.now
            return step()

        def process(
            ch, env, process=partition._process, state=state, capacity=capacity, partition=partition
        ):
            process(ch, env)
            uid, _, ts, _ = env[2]
            finish = state["start"] + partition.spent / capacity  # CPU seconds into the step
            if finish > done.get(uid, (-math.inf,))[0]:
                done[uid] = (finish, ts)

        partition.step, partition._process = step, process
    return done


def overhead_point(params: dict, rng: np.random.Generator) -> dict:
    """Sweep function: Fig 17 at ``rate`` hashtags/s for ``end`` s on 10 one-core nodes,
    failure-free; ``order_preserving`` switches order-preserving processing and adaptive
    buffering on for the whole run (Appendix C.1 "manually switch on"; the buffers are then
    never cleared, which costs memory, not virtual time). Throughput: window inputs processed
    per second of virtual time (their total over the time to process them all, so at an
    offered rate above capacity it is the capacity). Latency, as Appendix C defines it: per
    hashtag, from its event time (the source emits it at the next 100 ms boundary in both
    modes) until both window operators have processed it; mean and 99th percentile over the
    hashtags after the first ``FIG17_WINDOWS[1][0]`` s (or half the run if shorter).
    ``cpu_throughput``: the engine's own speed, tuples processed by all partitions per CPU
    second of this process (``time.process_time``: robust to other processes on the machine,
    not to the machine)."""
    for name in ("rate", "cost", "end", "checkpoint_interval", "order_preserving"):
        if name not in params:
            raise ValueError(f"params must give {name!r}")
    topology = fig17_topology(params["cost"])
    nodes = {f"n{k}": 1.0 for k in range(10)}
    placement = {pid: f"n{k % 10}" for k, pid in enumerate(topology.partitions)}
    tweet_rate = params["rate"] / HASHTAGS_PER_TWEET
    stream = hashtag_stream(int(params["end"] * tweet_rate), tweet_rate, rng)
    config = EngineConfig(checkpoint_interval=params["checkpoint_interval"])
    engine = Engine(
        topology,
        {"source": stream},
        nodes=nodes,
        placement=placement,
        end=params["end"],
        rng=rng,
        config=config,
    )
    if params["order_preserving"]:  # the engine has no switch for this outside a recovery
        for partition in engine.parts.values():
            partition.order_preserving = partition.buffering = True
    done = _probe_windows(engine, {"win1", "win2"})
    cpu = time.process_time()
    result = engine.run()
    cpu = time.process_time() - cpu
    finish, ts = np.array(list(done.values())).T
    latency = (finish - ts)[ts >= min(FIG17_WINDOWS[1][0], params["end"] / 2)]
    windows = sum(p.processed for pid, p in engine.parts.items() if pid[0].startswith("win"))
    return {
        "throughput": windows / 2 / result.end_time,
        "cpu_seconds": cpu,
        "cpu_throughput": result.processed / max(cpu, 1e-9),
        "latency_mean": float(latency.mean()),
        "latency_p99": float(np.quantile(latency, 0.99)),
        "tuples": len(stream),
        "end_time": result.end_time,
        "completed": result.completed,
    }
