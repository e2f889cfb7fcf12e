"""Recovery timelines on the engine: the scenarios of Section 7.1-7.2 (Figs 7, 9-15) and
Appendix C (Figs 17-20) of Su & Zhou, built and measured in virtual time.

Units: seconds of virtual time, cores (node capacity 1), tuples per second.

**Input stream** (Section 7: 569,382 tweets, 894,098 hashtags, 309,555 distinct). Each tweet
carries 1 + Geometric hashtags (mean 894,098 / 569,382 = 1.570; every tweet of a hashtag crawl has
one). Hashtag ranks follow Zipf with exponent 1 over a vocabulary of V ranks, discretized in
closed form as ``floor((V + 1) ** u)`` (P(k) = ln(1 + 1/k) / ln(V + 1)), so numpy and Spark SQL
draw the same ranks from the same uniforms. V is the one free parameter, fitted so that 894,098
draws give 309,555 distinct hashtags in expectation: V = 9,459,782 (``fit_vocabulary``). The
exponent 1 is a choice (the paper gives none). Tweets are emitted at a fixed rate, event time
``tweet / rate``; one source record per hashtag (the parser's flattening done in the log), keyed
``hashtag · SHARDS + tweet mod SHARDS``: the source is partitioned by tweet and the parser (a
``Map`` dividing by SHARDS) re-keys by hashtag. Without the tweet shard every parser partition
would feed one window partition only, and the engine's idle channels advance their watermark
only at checkpoint punctuations outside order-preserving processing.

**Fig 9 (Topology 2), reconstructed.** Source -> Parser -> O0-O3 (sliding-window hashtag counts,
"various window settings": (size, slide) = (10, 5), (20, 10), (30, 10), (40, 20) s, chosen) ->
O4-O14. The text says only that O_i (4 <= i <= 14) "maintains the states of sliding-window
aggregates that it subscribes to"; 11 operators are exactly the combinations of two or more of
O0-O3 (6 pairs, 4 triples, 1 quadruple), in that order: O4-O9 the pairs (01, 02, 03, 12, 13, 23),
O10-O13 the triples (012, 013, 023, 123), O14 all four. Each is a ``Merge``: a 20 s tumbling
event-time count per hashtag of the updates of its inputs. One partition per operator; Q_i's
output partition is O_i (Definition 1: Q_i = O_i plus its upstream closure). Ten nodes: the
source and the parser alone on one node each (share 0.8: no spare room under the 80% cap), O_2k
and O_2k+1 on node k (share 0.4 each, so a new node holds two; eight nodes hold all 15).

**Load.** Rates are scaled down from the paper's (1,000 tweets/s) for speed and per-tuple costs
scaled up so that the busiest node's utilization stays ``rho``; ``RHO`` = 1,570 / 12,000, the
paper's hashtag rate over the maximal throughput of Appendix C (Fig 18), the only load figure it
gives. The busiest node's load is bounded with every window update counted as a distinct key.

**Metrics (Section 7.2).** A query's latency is the mean end-to-end latency of the source tuples
contributing to its outputs: the engine records each result's write time minus its window end;
the contributing tuples are on average ``latency_offset`` older than the window end (uniform
arrivals). RL = l_r / l_s with l_s the mean before the failure; a query is available in a bin of
``DELTA_T`` when its mean RL there is below THETA = 1.2. ΔT is not given: 20 s, the period at
which every query outputs. A bin without output is unavailable, unless it is a single one between
two available bins (firing times shift by a bin during recovery). A failed query's recovery time is
the end of the first bin after the failure from which it stays available, minus the failure
time.

**Fig 7** is an input (INC1): node acquisition times between 2 and 6 minutes; the CDF's data are
not published. Default: uniform on [120, 360] s, independent per node, requested at detection;
sensitivity: "early" 120 + 240·Beta(1, 3) and "late" 120 + 240·Beta(3, 1).
"""

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize

from incremental.best_density import schedule_best_density
from incremental.engine import (
    Cluster,
    EngineConfig,
    FailureSchedule,
    Map,
    Source,
    Topology,
    WindowCount,
    kills_during_recovery,
    recoveries,
    run,
)
from incremental.placement import recover_as_nodes_arrive
from incremental.problem import problem_from_topology

TWEETS, HASHTAGS, DISTINCT = 569_382, 894_098, 309_555  # Section 7
HASHTAGS_PER_TWEET = HASHTAGS / TWEETS
VOCABULARY = 9_459_782  # fit_vocabulary(): Zipf-1 ranks giving 309,555 distinct of 894,098
PAPER_TWEET_RATE = 1000.0  # Section 7.2
RHO = 1570.0 / 12000.0  # paper's hashtag rate / Appendix C's maximal throughput
THETA = 1.2  # Section 7.2
DELTA_T = 20.0  # no value in the paper: the merge window, every query's output period
ACQUISITION = (120.0, 360.0)  # Fig 7: 2-6 minutes
DISTRIBUTIONS = ("uniform", "early", "late")
AGGREGATE_WINDOWS = ((10.0, 5.0), (20.0, 10.0), (30.0, 10.0), (40.0, 20.0))  # chosen
MERGE_WINDOW = 20.0  # chosen: a multiple of every slide
COMBINATIONS = tuple(c for r in (2, 3, 4) for c in itertools.combinations(range(4), r))
SHARE_AGGREGATE, SHARE_ALONE = 0.4, 0.8
BESTCASE_DELAY = 180.0  # Section 7.2: BestCase starts recovery 3 minutes after the failure
SCHEMES = ("incremental", "blocking", "bestcase")
SHARDS = 8


# --- the input stream ----------------------------------------------------------------------


def expected_distinct(vocabulary: float, draws: int = HASHTAGS) -> float:
    """Expected distinct ranks among ``draws`` from P(k) = ln(1 + 1/k) / ln(V + 1), k <= V."""
    if not vocabulary >= 1 or not draws >= 1:
        raise ValueError("vocabulary and draws must be >= 1")
    head_end = int(min(vocabulary, 1e6))
    k = np.arange(1, head_end + 1, dtype=float)
    log_v = math.log(vocabulary + 1)
    head = float(np.sum(-np.expm1(draws * np.log1p(-np.log1p(1 / k) / log_v))))
    if vocabulary <= head_end:
        return head
    # Beyond 10^6, p_k ~ 1/(k ln(V+1)): the sum becomes an integral over log k.
    y = np.linspace(math.log(head_end + 1), log_v, 100_001)
    x = np.exp(y)
    return head + float(np.trapezoid(x * -np.expm1(-draws / (x * log_v)), y))


def fit_vocabulary(draws: int = HASHTAGS, distinct: int = DISTINCT) -> int:
    """V such that ``draws`` hashtags give ``distinct`` distinct ones in expectation."""
    if not 1 <= distinct < draws:
        raise ValueError(f"need 1 <= distinct < draws; got {distinct}, {draws}")
    root = optimize.brentq(
        lambda lv: expected_distinct(math.exp(lv), draws) - distinct,
        math.log(distinct),
        math.log(distinct) + 30,
    )
    return int(round(math.exp(root)))


def hashtag_ranks(u, vocabulary: int = VOCABULARY) -> np.ndarray:
    """Zipf-1 ranks from uniforms in [0, 1)."""
    return np.floor((vocabulary + 1.0) ** np.asarray(u, dtype=float)).astype(np.int64)


def hashtag_counts(u, mean: float = HASHTAGS_PER_TWEET) -> np.ndarray:
    """Hashtags per tweet, 1 + Geometric with the given mean, from uniforms in (0, 1]."""
    if not mean > 1:
        raise ValueError(f"mean must be > 1; got {mean}")
    return 1 + np.floor(np.log(np.asarray(u, dtype=float)) / math.log(1 - 1 / mean)).astype(
        np.int64
    )


def hashtag_stream(tweets: int, tweet_rate: float, rng: np.random.Generator) -> list:
    """Source records (ts, hashtag · SHARDS + tweet mod SHARDS, (tweet, j)) of ``tweets`` tweets
    at ``tweet_rate``."""
    if tweets < 1 or not 0 < tweet_rate < math.inf:
        raise ValueError("tweets must be >= 1 and tweet_rate finite and > 0")
    counts = hashtag_counts(1.0 - rng.random(tweets))
    ranks = hashtag_ranks(rng.random(int(counts.sum())))
    tweet = np.repeat(np.arange(tweets), counts)
    j = np.arange(ranks.size) - np.repeat(np.cumsum(counts) - counts, counts)
    ts = tweet / tweet_rate
    keys = ranks * SHARDS + tweet % SHARDS
    return [
        (float(t), int(k), (int(i), int(n))) for t, k, i, n in zip(ts, keys, tweet, j, strict=True)
    ]


# --- Fig 9: the topology -------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Merge(WindowCount):
    """O4-O14: a tumbling window count of the updates of several aggregates (``subscribes``).
    The engine's window count ignores which input a tuple came from, so it merges as is."""

    subscribes: tuple = ()

    def __post_init__(self):
        super().__post_init__()
        if len(self.subscribes) < 2 or self.input != self.subscribes[0]:
            raise ValueError(f"{self.name}: subscribes must name >= 2 inputs, input the first")

    @property
    def inputs(self) -> tuple[str, ...]:
        return tuple(self.subscribes)


def _units() -> dict:
    """Tuples per source tuple reaching each Fig 9 operator, window updates counted as distinct
    keys (an upper bound)."""
    units = {"source": 1.0, "parser": 1.0}
    spans = [size / slide for size, slide in AGGREGATE_WINDOWS]
    for a in range(4):
        units[f"O{a}"] = 1.0
    for i, combo in enumerate(COMBINATIONS):
        units[f"O{4 + i}"] = sum(spans[a] for a in combo)
    return units


def fig9_placement() -> dict:
    placement = {("source", 0): "n8", ("parser", 0): "n9"}
    for i in range(15):
        placement[(f"O{i}", 0)] = f"n{i // 2}"
    return placement


def fig9_topology(rate: float, rho: float = RHO) -> Topology:
    """Fig 9 at ``rate`` hashtags/s with the busiest node's utilization at most ``rho``."""
    if not 0 < rate < math.inf or not 0 < rho < 1:
        raise ValueError(f"need rate > 0 and 0 < rho < 1; got rate {rate}, rho {rho}")
    units, placement = _units(), fig9_placement()
    load = {}
    for (name, _), node in placement.items():
        load[node] = load.get(node, 0.0) + units[name]
    cost = rho / (rate * max(load.values()))
    ops = [
        Source(name="source", cost=cost, share=SHARE_ALONE),
        Map(name="parser", input="source", divisor=SHARDS, cost=cost, share=SHARE_ALONE),
    ]
    for a, (size, slide) in enumerate(AGGREGATE_WINDOWS):
        ops.append(
            WindowCount(
                name=f"O{a}",
                input="parser",
                size=size,
                slide=slide,
                cost=cost,
                share=SHARE_AGGREGATE,
                output=True,
            )
        )
    for i, combo in enumerate(COMBINATIONS):
        names = tuple(f"O{a}" for a in combo)
        ops.append(
            Merge(
                name=f"O{4 + i}",
                input=names[0],
                subscribes=names,
                size=MERGE_WINDOW,
                cost=cost,
                share=SHARE_AGGREGATE,
                output=True,
            )
        )
    return Topology(ops)


def latency_offset(topology: Topology, name: str) -> float:
    """Mean age at its window end of a source tuple contributing to a result of ``name``, for
    uniform arrivals: size/2 for a sliding count; for a merge of width W over inputs of (size S,
    slide σ), (W + σ)/2 + S/2 per input, inputs weighted by their updates per tuple (S/σ)."""
    op = topology.operators[name]
    if isinstance(op, Merge):
        parts = [topology.operators[a] for a in op.subscribes]
        weights = np.array([p.span for p in parts], dtype=float)
        ages = np.array([(op.size + p.step) / 2 + p.size / 2 for p in parts])
        return float(weights @ ages / weights.sum())
    if isinstance(op, WindowCount):
        return op.size / 2
    return 0.0


# --- Fig 7 ---------------------------------------------------------------------------------


def acquisition_times(
    count: int, rng: np.random.Generator, distribution: str = "uniform"
) -> np.ndarray:
    """Seconds from the request to each of ``count`` new nodes being ready (unsorted: node k's
    time is the k-th draw whatever ``count``, so scenarios with fewer nodes share draws)."""
    if distribution not in DISTRIBUTIONS:
        raise ValueError(f"distribution must be one of {DISTRIBUTIONS}; got {distribution!r}")
    if count < 0:
        raise ValueError(f"count must be >= 0; got {count}")
    lo, hi = ACQUISITION
    u = rng.random(count)
    if distribution == "early":  # Beta(1, 3) by inversion
        u = 1 - (1 - u) ** (1 / 3)
    elif distribution == "late":  # Beta(3, 1)
        u = u ** (1 / 3)
    return lo + (hi - lo) * u


# --- relative latency and available queries ------------------------------------------------


def relative_latency(
    result,
    topology: Topology,
    *,
    t_fail: float,
    warmup: float,
    horizon: float,
    delta_t: float = DELTA_T,
) -> pd.DataFrame:
    """Per output partition and ΔT bin in [0, horizon): mean RL (NaN without output) and
    availability (mean RL < THETA). l_s is the mean latency of outputs written in
    [warmup, t_fail)."""
    if not 0 <= warmup < t_fail < horizon or not delta_t > 0:
        raise ValueError("need 0 <= warmup < t_fail < horizon and delta_t > 0")
    edges = np.arange(0.0, horizon + 1e-9, delta_t)
    rows = []
    for pid in sorted(p for p in topology.partitions if topology.operators[p[0]].output):
        lat = result.latency.get(pid, np.empty((0, 2)))
        written, latency = lat[:, 0], lat[:, 1] + latency_offset(topology, pid[0])
        before = (written >= warmup) & (written < t_fail)
        base = float(latency[before].mean()) if before.any() else math.nan
        index = np.digitize(written, edges) - 1
        for b in range(len(edges) - 1):
            mine = latency[index == b]
            rows.append(
                {
                    "query": pid[0],
                    "bin_start": edges[b],
                    "rl": float(mine.mean() / base) if mine.size else math.nan,
                }
            )
    frame = pd.DataFrame(rows)
    # A single bin without output between two available ones lost nothing: its output fell
    # into a neighbour as firing times shifted. Otherwise an empty bin is unavailable (a run of
    # empty bins is an outage, whatever comes before and after it).
    ok = frame["rl"] < THETA
    group = frame.groupby("query")["rl"]
    before = (group.shift(1) < THETA).to_numpy()
    after = (group.shift(-1) < THETA).to_numpy()
    frame["available"] = ok | (frame["rl"].isna() & before & after)
    return frame


def recovery_times(rl: pd.DataFrame, t_fail: float) -> pd.Series:
    """Per query: end of the first bin starting at or after ``t_fail`` from which the query
    stays available to the horizon, minus ``t_fail``; NaN if it never does (censored)."""
    after = rl[rl["bin_start"] >= t_fail].sort_values("bin_start")
    times = {}
    for query, part in after.groupby("query", sort=False):
        ok = part["available"].to_numpy()
        bad = np.flatnonzero(~ok)
        start = 0 if bad.size == 0 else bad[-1] + 1
        times[query] = (
            part["bin_start"].iloc[start] + DELTA_T - t_fail if start < len(part) else math.nan
        )
    return pd.Series(times, name="recovery_time")


# --- Figs 12-15: correlated failures on Fig 9 ----------------------------------------------


def _plans(topology, placement, killed, arrivals, alive_free):
    """BestDensity plans as nodes arrive (placement.recover_as_nodes_arrive): one for the
    detection, then one per arrival, as the engine asks for them."""
    edges = [(up, pid) for pid in topology.partitions for up in topology.upstream_partitions(pid)]
    outputs = [p for p in topology.partitions if topology.operators[p[0]].output]
    costs = {p: topology.operators[p[0]].share for p in topology.partitions}
    problem = problem_from_topology(
        edges=edges, outputs=outputs, costs=costs, placement=placement, failed_nodes=killed
    )
    steps = recover_as_nodes_arrive(
        problem,
        [(t, c) for t, _, c in arrivals],
        scheduler=schedule_best_density,
        alive_free=alive_free,
    )
    return [step.plan.partitions for step in steps]


def fig9_run(
    *,
    scheme: str,
    killed,
    rate: float,
    rho: float,
    acquisition,
    t_fail: float,
    end: float,
    rng: np.random.Generator,
    stream=None,
    audit: bool = False,
    later=(),
):
    """One correlated failure on Fig 9: ``killed`` nodes at ``t_fail``; one new node per killed
    node, ready ``acquisition[k]`` after the detection (BestCase: all at t_fail + 180 s).
    ``later``: failures during the recovery, ``(after, delay, node)`` kills ``delay`` s after
    the failure (``after`` = "fail") or after the arrival of new node ``after``, each replaced
    by one more new node (the next acquisition time). New nodes are named in the order they
    arrive: "new0" is the first. Returns (topology, RunResult)."""
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}; got {scheme!r}")
    killed = tuple(killed)
    if not killed or len(acquisition) < len(killed) + len(later):
        raise ValueError("killed must name nodes, acquisition one time per killed node")
    if not 0 < t_fail < end:
        raise ValueError(f"need 0 < t_fail < end; got {t_fail}, {end}")
    topology = fig9_topology(rate, rho)
    placement = fig9_placement()
    # Section 7.2: checkpoints every 10 s. Mini-batches of 0.5 s, not Appendix C's 0.1 s: five
    # times fewer barriers to simulate, at most 0.5 s more latency against minutes of recovery.
    config = EngineConfig(
        strategy="blocking" if scheme == "blocking" else "incremental",
        batch_interval=0.5,
        checkpoint_interval=10.0,
        audit=audit,
    )
    detect = t_fail + config.detection_delay
    if scheme == "bestcase":
        ready = [t_fail + BESTCASE_DELAY] * len(killed)
    else:
        ready = [detect + float(a) for a in acquisition[: len(killed)]]
    kills = [(t_fail, n) for n in killed]
    for after, delay, node in later:
        if after != "fail" and after not in {f"new{k}" for k in range(len(ready))}:
            raise ValueError(f"later: kill after 'fail' or a new node's arrival; got {after!r}")
        at = (t_fail if after == "fail" else sorted(ready)[int(after[3:])]) + delay
        kills.append((at, node))
        ready.append(at + config.detection_delay + float(acquisition[len(ready)]))
    arrivals = tuple((t, f"new{k}", 1.0) for k, t in enumerate(sorted(ready)))
    nodes = {f"n{k}": 1.0 for k in range(10)}
    load = {}
    for pid, node in placement.items():
        load[node] = load.get(node, 0.0) + topology.operators[pid[0]].share
    alive_free = [
        max(0.0, config.cpu_cap - load.get(n, 0.0)) for n in sorted(nodes) if n not in killed
    ]
    plans = None
    if scheme != "blocking":
        plans = _plans(topology, placement, killed, arrivals, alive_free)
    if stream is None:
        tweet_rate = rate / HASHTAGS_PER_TWEET
        stream = hashtag_stream(int(end * tweet_rate), tweet_rate, rng)
    result = run(
        topology,
        {"source": stream},
        cluster=Cluster(nodes=nodes, placement=placement),
        end=end,
        rng=rng,
        config=config,
        plans=plans,
        failures=FailureSchedule(kills=tuple(kills), arrivals=arrivals),
    )
    return topology, result


def fig9_counts(stream) -> dict:
    """Failure-free results of O0-O14 by plain counting over ``stream`` (the sweep's oracle; the
    notebook's Spark SQL oracle computes the same on the generated data set), as the engine's
    sink holds them: (operator, window, hashtag) -> (window end, count)."""
    ts = np.array([r[0] for r in stream], dtype=float)
    hashtag = np.array([r[1] for r in stream], dtype=np.int64) // SHARDS
    frames = []
    for a, (size, slide) in enumerate(AGGREGATE_WINDOWS):
        span = round(size / slide)
        last = np.floor(ts / slide).astype(np.int64)
        windows = pd.DataFrame(
            {
                "window": np.concatenate([last - j for j in range(span)]),
                "hashtag": np.tile(hashtag, span),
            }
        )
        counts = windows.value_counts().rename("count").reset_index()
        counts["end"] = (counts["window"] + span) * slide
        frames.append(counts.assign(operator=f"O{a}"))
    aggregates = pd.concat(frames, ignore_index=True)
    for i, combo in enumerate(COMBINATIONS):
        part = aggregates[aggregates["operator"].isin([f"O{a}" for a in combo])]
        windows = pd.DataFrame(
            {
                "window": np.floor(part["end"] / MERGE_WINDOW).astype(np.int64),
                "hashtag": part["hashtag"],
            }
        )
        counts = windows.value_counts().rename("count").reset_index()
        counts["end"] = (counts["window"] + 1) * MERGE_WINDOW
        frames.append(counts.assign(operator=f"O{4 + i}"))
    rows = pd.concat(frames, ignore_index=True)
    return {
        (o, int(w), int(h)): (float(e), int(c))
        for o, w, h, e, c in zip(
            rows["operator"],
            rows["window"],
            rows["hashtag"],
            rows["end"],
            rows["count"],
            strict=True,
        )
    }


def oracle_check(result, expected: dict) -> dict:
    """The complete exactly-once check of a Fig 9 run against ``fig9_counts``: results missing,
    extra and wrong (another count or window end), whether the run stalled (never reached its
    end-of-stream checkpoint), sequence gaps and conflicting sink writes; beside them the
    run's failures during recovery (``during_recovery``)."""
    got = {
        (name, uid[1], key): (end, value)
        for name, results in result.outputs.items()
        for uid, (key, end, value) in results.items()
    }
    extra = wrong = 0  # one pass over the results, no key sets
    for key, row in got.items():
        want = expected.get(key)
        if want is None:
            extra += 1
        elif want != row:
            wrong += 1
    return {
        "results": len(expected),
        "missing": len(expected) - (len(got) - extra),
        "extra": extra,
        "wrong": wrong,
        "stalled": int(not result.completed),
        "gaps": len(result.gaps),
        "conflicts": len(result.conflicts),
        **during_recovery(result),
    }


def during_recovery(result) -> dict:
    """INC10's failures during recovery, from the engine's own recovery events: the node kills
    inside a recovery's span (``incremental.engine.kills_during_recovery``), counted and named
    with the span, e.g. "n9 at 111.0 s in the recovery of [81.0, 402.3) s"."""
    spans = recoveries(result.events)
    named = []
    for time, node in kills_during_recovery(result.events):
        start, end = next((a, b) for a, b in spans if a <= time < b)
        named.append(f"{node} at {time:.1f} s in the recovery of [{start:.1f}, {end:.1f}) s")
    return {"failures_during_recovery": len(named), "named_during_recovery": "; ".join(named)}


ORACLE_COUNTS = ("missing", "extra", "wrong", "stalled", "gaps", "conflicts")  # violations
DURING_RECOVERY = {  # INC10: nodes failing while the recovery is under way (fig9_run's later)
    "none": (),
    "buffer holder": (("fail", 30.0, "n9"),),  # the parser: its buffers replay to O0-O3
    "source": (("fail", 30.0, "n8"),),  # the source: replays its log from ck(P_k)
    "recovered node": (("new0", 10.0, "new0"),),  # the first new node, after it took partitions
}
FAILURE_SETS = {  # nodes killed: Figs 12-15 (node k holds O_2k and O_2k+1)
    "all": tuple(f"n{k}" for k in range(8)),
    "upstream": ("n0", "n1"),  # O0-O3 (Fig 13-14, scenario 1)
    "downstream": ("n6", "n7"),  # O12-O14 (scenario 2)
    "topological4": ("n0", "n1", "n2", "n3"),  # O0-O7 (Fig 15(b))
    "reverse4": ("n7", "n6", "n5", "n4"),  # O8-O14 (Fig 15(a))
}


# --- Figs 10-11: Fig 8 (Topology 1) on 5 nodes ---------------------------------------------

FIG8_WINDOW = 5.0  # Section 7.1: window interval of 5 s
FIG8_NODES = 5


def fig8_topology(rate: float, rho: float, share: float = 0.05) -> Topology:
    """Source, Parser, Win1, Win2 (5 s tumbling counts), one partition of each per node; per
    node utilization ``rho``. Two window operators: the paper does not say how many."""
    if not 0 < rate < math.inf or not 0 < rho < math.inf:
        raise ValueError(f"need rate > 0 and rho > 0; got {rate}, {rho}")
    cost = rho * FIG8_NODES / (4 * rate)  # each node: 4 operators at rate / 5 each
    common = {"parallelism": FIG8_NODES, "cost": cost, "share": share}
    return Topology(
        [
            Source(name="source", **common),
            Map(name="parser", input="source", divisor=SHARDS, **common),
            WindowCount(name="win1", input="parser", size=FIG8_WINDOW, output=True, **common),
            WindowCount(name="win2", input="parser", size=FIG8_WINDOW, output=True, **common),
        ]
    )


# --- Appendix C: Fig 17 --------------------------------------------------------------------

FIG17_WINDOWS = ((10.0, 5.0), (20.0, 10.0))  # Win1, Win2 (T, S): Fig 17's values are not in
# the text; chosen


def fig17_topology(cost: float) -> Topology:
    """Source (1 partition), Parser, Win1, Win2 (4 partitions each), Appendix C."""
    if not 0 < cost < math.inf:
        raise ValueError(f"cost must be finite and > 0; got {cost}")
    common = {"cost": cost, "share": 0.2}
    (t1, s1), (t2, s2) = FIG17_WINDOWS
    return Topology(
        [
            Source(name="source", **common),
            Map(name="parser", input="source", divisor=SHARDS, parallelism=4, **common),
            WindowCount(
                name="win1", input="parser", size=t1, slide=s1, parallelism=4, output=True, **common
            ),
            WindowCount(
                name="win2", input="parser", size=t2, slide=s2, parallelism=4, output=True, **common
            ),
        ]
    )
