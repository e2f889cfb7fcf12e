"""Q1 and Q2 of Su & Zhou (PPA, ICDE 2016, Section VI-B, Figs 11-13) as PySpark DataFrame jobs,
and the tentative output of any partially active replication plan.

The Spark jobs generate each query's input and compute every task's partial result once, in the
failure-free run. The tentative output of a plan P under the worst-case correlated failure
F = M \\ P (every task outside P fails) is then assembled on the driver from the partials of the
tasks whose output still reaches the sink, and compared with the failure-free output:
accuracy = |S_T ∩ S_A| / |S_A| (Section VI-B). The topologies are ``ppa.shapes.q1`` and ``q2``
(reconstructions of Fig 11) with the rates measured in the failure-free run.

Q1 (top-100 pages over the World Cup 1998 log of 30 June 1998, 73,291,868 records). The real log
is not available offline; it is replaced by a synthetic log of the same size:
- page popularity: the discretized bounded power law floor(x) - 1 with density ∝ x^-s on
  [1, pages + 1) (a Zipf law of exponent s but for the first ranks); a request is for the
  global ranking with probability 1 - regional_share, otherwise for its region's own ranking
  (the global one rotated by region · pages / regions: the log's language mirrors, assumed);
- server ids with regional skew: ``region_weights`` over 4 sites (WC98 had 4), servers uniform
  within a site; O1's tasks take contiguous server-id ranges (the paper: "partitioned by server
  ids"), so each task serves one site;
- a diurnal rate: hour h has weight 1 + A·cos(2π(h + 1/2 - peak)/24);
- windows: the top-100 per tumbling window of ``window_hours`` (the paper updates it every 100
  tuples and prints no window); accuracy is the mean over windows.
The job (``q1_log``) materializes every record as a Spark row:
- on the driver, the number of records in each (hour, server) cell: one multinomial draw over the
  24 · servers cells (the counts i.i.d. records would have; 768 numbers by default), summed per
  (window, O1 task, region), and the layout of those records' row ids in blocks;
- in Spark, the rows of ``spark.range``, each row's group and region looked up from its id block,
  its page drawn from a hash of its id (``xxhash64``: no draw depends on partitioning) by the
  inverse CDF of the page law (analytic for the power law, one uniform for both the regional
  coin and the rank), and the count per (window, O1 task, page) (a hash aggregate on one long
  key: partial counts per Spark task, merged after a shuffle);
- the counts, one per (window, task, page) that occurs, are collected to the driver, where O2's
  and O3's merges (sums of the partials of the tasks that deliver, then the top-k) are computed
  for any plan (``Q1Partials.accuracy``).
Records of i.i.d. draws grouped by (hour, server) have this law exactly: the cell counts are
multinomial and, given its cell, each record's page is independent.

Q2 (traffic incidents): 100,000 users on 1000 segments (Zipf s = 0.5, a multinomial draw), one
incident every 2 s on a segment drawn in proportion to its users, reported by all of its users
(each after a uniform delay). Location records arrive at 20,000/s, users uniform; a record's
speed is Gaussian, slower while its segment is jammed. The generator emits per (segment, second)
the record count (Poisson) and the speed sum (exactly Gaussian given the count), so O1's
average speed per segment per second is their ratio. O2 merges the reports into distinct
incidents; O3 joins them with O1's speeds: an incident incurs a jam when the mean of the
per-second speeds over ``detect_seconds`` after it is below ``jam_threshold``; O4 collects them
per 5-minute window sliding every 10 s. All four operators partition by segment (segment mod
the parallelism). Unprinted values (duration, share of incidents causing a jam, speeds) are
assumptions, marked where they are defined.
"""

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ppa import Topology, shapes
from ppa.fidelity import ic_batch, of_batch
from ppa.planners import plan_dp, plan_greedy, plan_milp, plan_structure_aware
from ppa.planners.plan import Plan, check_budget, masks_to_alive

log = logging.getLogger(__name__)

PAPER_RECORDS = 73_291_868  # the World Cup 1998 log of 30 June 1998 (Section VI-B)


def plan_ic_exhaustive(topology: Topology, R: int) -> Plan:
    """A plan of at most R tasks with the largest IC, by enumerating all 2^|M| plans (|M| <= 16);
    among IC ties, the largest OF (the benefit of the doubt to IC). Not a planner of the paper: a
    diagnostic of what optimizing IC itself gives, free of SA's MC-tree segments."""
    R = check_budget(topology, R)
    n = len(topology.tasks)
    if n > 16:
        raise ValueError(f"the topology must have at most 16 tasks to enumerate; got {n}")
    alive = masks_to_alive(range(2**n), n)
    size = alive.sum(axis=1)
    ic = np.where(size <= R, ic_batch(topology, alive), -1.0)
    of = of_batch(topology, alive)
    best = np.flatnonzero(ic >= ic.max() - 1e-12)
    chosen = best[np.argmax(of[best])]
    return Plan.of_tasks(
        topology, (t for t, up in zip(topology.tasks, alive[chosen], strict=True) if up)
    )


PLANNERS: dict[str, Callable] = {
    "DP": plan_dp,
    "MILP": plan_milp,
    "OF-SA": lambda t, r: plan_structure_aware(t, r, objective="of"),
    "IC-SA": lambda t, r: plan_structure_aware(t, r, objective="ic"),
    "Greedy": plan_greedy,
    "IC-opt": plan_ic_exhaustive,
}


def _positive_int(name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1; got {value!r}")


def _in_range(name: str, value, lo: float, hi: float) -> None:
    if not (isinstance(value, int | float) and lo <= value <= hi):
        raise ValueError(f"{name} must be a number in [{lo}, {hi}]; got {value!r}")


def _bounded_power_law(n: int, s: float) -> np.ndarray:
    """P(floor(x) - 1 = k), k < n, for x with density ∝ x^-s on [1, n + 1)."""
    edges = np.arange(1, n + 2, dtype=float)
    cdf = np.log(edges) if s == 1 else edges ** (1 - s) - 1
    return np.diff(cdf) / cdf[-1]


def _uniform(seed: int, salt: int):
    """A uniform in [0, 1) from a hash of the row id: independent of partitioning."""
    from pyspark.sql import functions as F

    h = F.xxhash64(F.lit(seed), F.lit(salt), F.col("id"))
    return F.shiftrightunsigned(h, 11).cast("double") / float(2**53)


def _rng(seed: int, *key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))


def _measured_topology(base: Topology, workloads: dict[str, float]) -> Topology:
    """``base`` with each substream's rate set to its sender's measured λ_out (every edge of the
    query shapes sends a task's output to one downstream task); a task that emitted nothing
    gets rate 1 (a rate must be > 0)."""
    rate = {t: max(float(workloads[t]), 1.0) for t in base.tasks}
    sink = base.operators[base.sink]
    return Topology.from_substreams(
        operators=base.operators,
        joins=base.joins,
        rates={(u, d): rate[u] for u, d in base.rates},
        sink_rates={t: rate[t] for t in sink},
    )


def delivered(topology: Topology, alive: np.ndarray, operator: str) -> np.ndarray:
    """(plans, tasks of ``operator``): whether each task of ``operator`` produces output under
    the failure (alive, and for a join every input stream has a producing substream, otherwise
    one) and that output reaches the sink through alive tasks."""
    alive = np.atleast_2d(alive)
    index = {t: i for i, t in enumerate(topology.tasks)}
    ups: dict[str, dict[str, list[str]]] = {t: {} for t in topology.tasks}
    downs: dict[str, list[str]] = {t: [] for t in topology.tasks}
    for u, d in topology.rates:
        ups[d].setdefault(topology.operator_of[u], []).append(u)
        downs[u].append(d)
    produce: dict[str, np.ndarray] = {}
    for t in topology.tasks:  # topological order
        streams = [np.any([produce[u] for u in us], axis=0) for us in ups[t].values()]
        ok = alive[:, index[t]].copy()
        if streams:
            joined = topology.operator_of[t] in topology.joins
            ok &= np.all(streams, axis=0) if joined else np.any(streams, axis=0)
        produce[t] = ok
    reach: dict[str, np.ndarray] = {}
    for t in reversed(topology.tasks):
        reach[t] = alive[:, index[t]] & (
            np.any([reach[d] for d in downs[t]], axis=0) if downs[t] else True
        )
    return np.stack([produce[t] & reach[t] for t in topology.operators[operator]], axis=1)


@dataclass(frozen=True, kw_only=True)
class SparkRun:
    """What a generation job cost: records represented, wall seconds, records per second."""

    records: int
    seconds: float
    method: str

    @property
    def throughput(self) -> float:
        return self.records / self.seconds


# --------------------------------------------------------------------------------------- Q1
@dataclass(frozen=True, kw_only=True)
class Q1Params:
    records: int = PAPER_RECORDS
    pages: int = 20_000  # assumption: distinct pages requested in the day (not printed)
    zipf_s: float = 1.0  # assumption: web page popularity is Zipf-like with s near 1
    region_weights: tuple[float, ...] = (0.4, 0.3, 0.2, 0.1)  # assumption: skew over 4 sites
    servers_per_region: int = 8  # assumption: 32 servers, 4 per O1 task
    regional_share: float = 0.5  # assumption: requests for the region's own pages
    diurnal_amplitude: float = 0.5  # assumption
    peak_hour: float = 20.0  # assumption: evening matches
    window_hours: int = 1  # assumption: the paper prints no window for Q1
    top_k: int = 100  # Section VI-B
    seed: int = 0

    def __post_init__(self):
        for name in ("records", "pages", "servers_per_region", "window_hours", "top_k"):
            _positive_int(name, getattr(self, name))
        if 24 % self.window_hours:
            raise ValueError(f"window_hours must divide 24; got {self.window_hours}")
        _in_range("zipf_s", self.zipf_s, 0.0, 5.0)
        _in_range("regional_share", self.regional_share, 0.0, 1.0)
        _in_range("diurnal_amplitude", self.diurnal_amplitude, 0.0, 0.99)
        _in_range("peak_hour", self.peak_hour, 0.0, 24.0)
        w = np.asarray(self.region_weights, dtype=float)
        if w.ndim != 1 or len(w) < 1 or not np.all(np.isfinite(w) & (w > 0)):
            raise ValueError(f"region_weights must be values > 0; got {self.region_weights!r}")
        if self.servers < len(shapes.q1().operators["O1"]):
            raise ValueError("regions · servers_per_region must be >= the O1 tasks (8)")

    @property
    def servers(self) -> int:
        return len(self.region_weights) * self.servers_per_region

    def hour_weights(self) -> np.ndarray:
        h = np.arange(24) + 0.5
        w = 1 + self.diurnal_amplitude * np.cos(2 * np.pi * (h - self.peak_hour) / 24)
        return w / w.sum()

    def page_probabilities(self) -> np.ndarray:
        """(regions, pages): each region's page distribution."""
        pmf = _bounded_power_law(self.pages, self.zipf_s)
        n = len(self.region_weights)
        return np.stack(
            [
                (1 - self.regional_share) * pmf
                + self.regional_share * np.roll(pmf, r * self.pages // n)
                for r in range(n)
            ]
        )

    def task_of_server(self, server):
        """O1's task of a server id: contiguous ranges of server ids."""
        return server * len(shapes.q1().operators["O1"]) // self.servers


@dataclass(frozen=True, kw_only=True)
class Q1Partials:
    """counts[window, O1 task, page] of the failure-free run, and its topology."""

    params: Q1Params
    counts: np.ndarray
    run: SparkRun

    @property
    def topology(self) -> Topology:
        base = shapes.q1()
        load = dict(zip(base.operators["O1"], self.counts.sum(axis=(0, 2)).tolist(), strict=True))
        for u, d in base.rates:  # merge and full edges: a task's λ_out is its input
            load[d] = load.get(d, 0.0) + load[u]
        return _measured_topology(base, load)

    def top(self, counts: np.ndarray, floor: np.ndarray | None = None) -> list[set[int]]:
        """Top-k pages with a positive count per window; ties go to the lower page id.

        The first k of a stable descending sort, without the sort: every page above the k-th
        largest count, then the lowest ids among the pages at it (a partition is linear; the
        accuracy of a plan asks for the top of 24 windows of 20,000 pages). ``floor``: per
        window, a count at or below its k-th largest (``accuracy``'s bound), so that only the
        pages at or above it are partitioned (the same k-th count: at least k pages are there)."""
        k = self.params.top_k
        pages = counts.shape[1]
        if k >= pages:
            return [set(np.flatnonzero(c > 0).tolist()) for c in counts]
        if floor is None:
            kth = np.partition(counts, pages - k, axis=1)[:, pages - k]
        else:
            pools = [c[c >= f] for c, f in zip(counts, floor, strict=True)]
            kth = [np.partition(pool, len(pool) - k)[len(pool) - k] for pool in pools]
        top = []
        for c, v in zip(counts, kth, strict=True):
            above = set(np.flatnonzero(c > v).tolist())
            if v > 0:  # the lowest ids at the k-th count fill the top up to k
                above.update(np.flatnonzero(c == v)[: k - len(above)].tolist())
            top.append(above)
        return top

    def rewindowed(self, window_hours: int) -> "Q1Partials":
        """The same records counted in windows of ``window_hours`` (a multiple of the current
        window length dividing 24): the sums of consecutive windows, no new draw."""
        _positive_int("window_hours", window_hours)
        now = self.params.window_hours
        if window_hours % now or 24 % window_hours:
            raise ValueError(
                f"window_hours must be a multiple of {now} that divides 24; got {window_hours}"
            )
        group = window_hours // now
        counts = self.counts.reshape(-1, group, *self.counts.shape[1:]).sum(axis=1)
        params = replace(self.params, window_hours=window_hours)
        return Q1Partials(params=params, counts=counts, run=self.run)

    def distances(self) -> dict[str, float]:
        """Total variation distance between the generated and the specified law's marginals of
        page, O1 task and window (sampling noise shrinks as 1/sqrt(records))."""
        p = self.params
        share = np.asarray(p.region_weights, dtype=float)
        share = share / share.sum()
        n_tasks = self.counts.shape[1]
        server_share = np.repeat(share / p.servers_per_region, p.servers_per_region)
        task = np.bincount(p.task_of_server(np.arange(p.servers)), server_share, n_tasks)
        law = {
            "page": share @ p.page_probabilities(),
            "task": task,
            "window": p.hour_weights().reshape(-1, p.window_hours).sum(axis=1),
        }
        n = self.counts.sum()
        seen = {
            "page": self.counts.sum(axis=(0, 1)),
            "task": self.counts.sum(axis=(0, 2)),
            "window": self.counts.sum(axis=(1, 2)),
        }
        return {k: float(0.5 * np.abs(seen[k] / n - law[k]).sum()) for k in law}

    def accuracy(self, alive: np.ndarray) -> np.ndarray:
        """Mean over windows of |S_T ∩ S_A| / |S_A| for each row of ``alive`` (plans, tasks)."""
        # A sum of counts (>= 0) has a k-th largest count at or above each of its terms' k-th
        # largest (per window and O1 task here): a floor for ``top``.
        k, pages = self.params.top_k, self.counts.shape[2]
        kth = np.partition(self.counts, pages - k, axis=2)[:, :, pages - k] if k < pages else None
        truth = self.top(self.counts.sum(axis=1), None if kth is None else kth.max(axis=1))
        sources = delivered(self.topology, alive, "O1")
        cache: dict[bytes, float] = {}
        out = np.empty(len(sources))
        for i, row in enumerate(sources):
            key = row.tobytes()
            if key not in cache:
                floor = None if kth is None or not row.any() else kth[:, row].max(axis=1)
                tentative = self.top(self.counts[:, row, :].sum(axis=1), floor)
                cache[key] = float(
                    np.mean([len(t & a) / len(a) for t, a in zip(tentative, truth, strict=True)])
                )
            out[i] = cache[key]
        return out


def q1_partials(spark, params: Q1Params, *, partitions: int | None = None) -> Q1Partials:
    """Run the Q1 job (``q1_log``) and collect its counts per (window, O1 task, page)."""
    return q1_variants(spark, [params], partitions=partitions)[0]


# What a Q1 variant may change while sharing the rows of one job (``q1_variants``): the page law.
PAGE_LAW = ("zipf_s", "regional_share")


def q1_variants(
    spark, variants: list[Q1Params], *, partitions: int | None = None
) -> list[Q1Partials]:
    """Q1's counts for several parameter sets that differ only in the page law (``PAGE_LAW``)
    from one Spark job (``q1_logs``): every record is a row once, and each row's page is drawn
    for every variant from the same uniform, so each variant's counts are those its own job
    (``q1_log``) gives. Each variant's ``run`` is the shared job's."""
    if not variants:
        return []
    began = time.perf_counter()
    frame = _collect(
        q1_logs(spark, variants, partitions=partitions), {FAST_MAP: str(Q1_FAST_MAP_BITS)}
    )
    p = variants[0]
    windows = 24 // p.window_hours
    n_tasks = len(shapes.q1().operators["O1"])
    counts = np.zeros((len(variants), windows * n_tasks, p.pages), dtype=np.int64)
    counts[frame["variant"], frame["group"], frame["page"]] = frame["count"]
    run = SparkRun(records=p.records, seconds=time.perf_counter() - began, method="rows")
    log.info("Q1: %d records, %d variants in %.1f s", p.records, len(variants), run.seconds)
    return [
        Q1Partials(params=v, counts=c.reshape(windows, n_tasks, -1), run=run)
        for v, c in zip(variants, counts, strict=True)
    ]


def q1_cells(p: Q1Params) -> pd.DataFrame:
    """The driver's draw of the Q1 job: the records of each (hour, server) cell (a multinomial),
    with the cell's group window · tasks + O1 task and its region's rotation of the page ranking
    (pages · region // regions)."""
    servers = np.arange(p.servers)
    region = servers // p.servers_per_region
    share = np.asarray(p.region_weights, dtype=float)
    share = share[region] / share.sum() / p.servers_per_region
    n = _rng(p.seed, 0).multinomial(p.records, np.outer(p.hour_weights(), share).ravel())
    hour, server = np.divmod(np.arange(n.size), p.servers)
    n_tasks = len(shapes.q1().operators["O1"])
    cells = pd.DataFrame(
        {
            "group": (hour // p.window_hours) * n_tasks + p.task_of_server(server),
            "shift": region[server] * p.pages // len(p.region_weights),
            "n": n,
        }
    )
    return cells[cells["n"] > 0]


def _power_law_rank(v, p: Q1Params):
    """floor(x) - 1 for x = the inverse CDF at uniform ``v`` of the density ∝ x^-s on
    [1, pages + 1) (``_bounded_power_law``), clipped against rounding at the top."""
    from pyspark.sql import functions as F

    top = float(p.pages + 1)
    if p.zipf_s == 1:
        x = F.pow(F.lit(top), v)
    else:
        x = F.pow(1 + v * (top ** (1 - p.zipf_s) - 1), 1 / (1 - p.zipf_s))
    return F.least(F.floor(x).cast("int") - 1, F.lit(p.pages - 1))


def q1_log(spark, p: Q1Params, *, partitions: int | None = None):
    """The Q1 job as a DataFrame of (group, page, count): every record a row of ``spark.range``,
    its page drawn from a hash of its id, counted per group (window · tasks + O1 task) and page.

    The ids are laid out in blocks of ``size``: the records of each (group, region) fill whole
    blocks (the last one partly; the ids past its fill are filtered out), so a row's group and
    region follow from its block by ``element_at`` on literal arrays. The layout depends only on
    ``p``; ``partitions`` (Spark tasks, default one per four (group, region) pairs) does not
    change the counts."""
    return q1_logs(spark, [p], partitions=partitions).drop("variant")


def q1_logs(spark, variants: list[Q1Params], *, partitions: int | None = None):
    """``q1_log`` of several variants that differ only in the page law (``PAGE_LAW``), as one
    job over the same rows: a DataFrame of (variant, group, page, count), variant the index in
    ``variants``. The rows, their groups and their uniforms do not depend on the page law; each
    row's page is drawn once per variant (one key per variant, exploded before the count)."""
    from pyspark.sql import functions as F

    if not variants:
        raise ValueError("variants must hold at least one Q1Params")
    p = variants[0]
    for other in variants[1:]:
        if replace(other, **{k: getattr(p, k) for k in PAGE_LAW}) != p:
            raise ValueError(f"variants must differ only in {PAGE_LAW}; got {other} and {p}")
    parts = q1_cells(p).groupby(["group", "shift"], as_index=False)["n"].sum()
    if partitions is None:
        partitions = max(1, len(parts) // 4)
    _positive_int("partitions", partitions)
    n = parts["n"].to_numpy()
    size = -(-p.records // (2 * len(parts)))  # about two blocks per pair: little padding
    blocks = -(-n // size)
    fill = np.full(blocks.sum(), size)
    fill[np.cumsum(blocks) - 1] = n - (blocks - 1) * size

    def per_block(values) -> F.Column:
        return F.element_at(F.lit(np.repeat(values, blocks).tolist()), F.col("block"))

    rows = (
        spark.range(0, int(blocks.sum()) * size, 1, partitions)
        .withColumn("block", F.expr(f"id div {size}").cast("int") + 1)
        .where(F.col("id") % size < F.element_at(F.lit(fill.tolist()), F.col("block")))
    )
    u = _uniform(p.seed, 3)
    region_shift = per_block(parts["shift"].to_numpy())
    group = per_block(parts["group"].to_numpy())
    groups = (24 // p.window_hours) * len(shapes.q1().operators["O1"])
    # One long key per (variant, group, page), split again after the count: a hash aggregate on
    # one long costs about a quarter less than on two ints here.
    keys = [
        (i * groups + group).cast("long") * p.pages + _page(u, region_shift, v)
        for i, v in enumerate(variants)
    ]
    if len(keys) == 1:
        counts = rows.select(keys[0].alias("key")).groupBy("key").count()
    else:
        counts = rows.select(F.explode(F.array(*keys)).alias("key")).groupBy("key").count()
    return counts.select(
        F.expr(f"key div {groups * p.pages}").cast("int").alias("variant"),
        (F.expr(f"key div {p.pages}") % groups).cast("int").alias("group"),
        (F.col("key") % p.pages).cast("int").alias("page"),
        "count",
    )


def _page(u, region_shift, p: Q1Params):
    """A record's page from its uniform ``u`` and its region's rotation of the ranking: below
    regional_share it asks for the region's ranking, and it is rescaled to a uniform on [0, 1)
    for the rank (the same law as two independent draws)."""
    from pyspark.sql import functions as F

    a = p.regional_share
    regional = u < a
    if a in (0, 1):
        v, shift = u, region_shift * int(a)
    else:
        v = F.when(regional, u / a).otherwise((u - a) / (1 - a))
        shift = F.when(regional, region_shift).otherwise(0)
    return F.pmod(_power_law_rank(v, p) + shift, F.lit(p.pages))


# Slots of the first-level (fast) hash map of Spark's generated aggregation code, as a power of
# two (Spark's default 16): a Q1 partition counts about 10^5 (group, page) keys, which overflow
# 2^16 slots into the slower general map (about 15% of the job's CPU time here).
Q1_FAST_MAP_BITS = 18
FAST_MAP = "spark.sql.codegen.aggregate.fastHashMap.capacityBit"


def _collect(frame, settings: dict[str, str] | None = None) -> pd.DataFrame:
    # Arrow makes collecting millions of aggregate rows cheap; the settings are restored after.
    conf = frame.sparkSession.conf
    settings = {"spark.sql.execution.arrow.pyspark.enabled": "true", **(settings or {})}
    before = {key: conf.get(key, None) for key in settings}
    for key, value in settings.items():
        conf.set(key, value)
    try:
        return frame.toPandas()
    finally:
        for key, value in before.items():
            if value is None:
                conf.unset(key)
            else:
                conf.set(key, value)


# --------------------------------------------------------------------------------------- Q2
@dataclass(frozen=True, kw_only=True)
class Q2Params:
    users: int = 100_000  # Section VI-B
    segments: int = 1000  # Section VI-B
    zipf_s: float = 0.5  # Section VI-B
    location_rate: int = 20_000  # records per second, Section VI-B
    incident_interval: float = 2.0  # seconds between incidents, Section VI-B
    window_seconds: int = 300  # Section VI-B
    slide_seconds: int = 10  # Section VI-B
    duration_seconds: int = 1800  # assumption: the run length is not printed
    jam_probability: float = 0.5  # assumption: share of incidents that cause a jam
    free_speed: tuple[float, float] = (60.0, 10.0)  # assumption: km/h mean, sd
    jam_speed: tuple[float, float] = (15.0, 5.0)  # assumption
    jam_seconds: int = 120  # assumption: how long a jam slows its segment
    detect_seconds: int = 60  # assumption: O3's look-ahead after an incident
    jam_threshold: float = 30.0  # assumption: km/h
    report_delay: float = 5.0  # assumption: each report within this many seconds
    seed: int = 0

    def __post_init__(self):
        for name in (
            "users",
            "segments",
            "location_rate",
            "window_seconds",
            "slide_seconds",
            "duration_seconds",
            "jam_seconds",
            "detect_seconds",
        ):
            _positive_int(name, getattr(self, name))
        _in_range("zipf_s", self.zipf_s, 0.0, 5.0)
        _in_range("jam_probability", self.jam_probability, 0.0, 1.0)
        _in_range("incident_interval", self.incident_interval, 1e-3, self.duration_seconds)
        _in_range("report_delay", self.report_delay, 0.0, 3600.0)
        _in_range("jam_threshold", self.jam_threshold, 0.0, 1000.0)
        for name in ("free_speed", "jam_speed"):
            mean, sd = getattr(self, name)
            if not (mean > 0 and sd >= 0):
                raise ValueError(f"{name} must be (mean > 0, sd >= 0); got {getattr(self, name)}")
        if self.window_seconds % self.slide_seconds:
            raise ValueError("window_seconds must be a multiple of slide_seconds")

    @property
    def records(self) -> int:
        return self.location_rate * self.duration_seconds


@dataclass(frozen=True, kw_only=True)
class Q2Partials:
    """O3's jam incidents per window (task, window, incident) of the failure-free run, and the
    per-task loads measured in it."""

    params: Q2Params
    outputs: pd.DataFrame
    loads: dict[str, float]
    run: SparkRun

    @property
    def topology(self) -> Topology:
        return _measured_topology(shapes.q2(), self.loads)

    def accuracy(self, alive: np.ndarray) -> np.ndarray:
        """|I_T ∩ I_A| / |I_A| over (window, incident) pairs for each row of ``alive``: I_T is
        the union of the outputs of the O3 tasks that produce and reach O4 (the tasks' outputs
        are disjoint, as every incident has one segment)."""
        n_tasks = len(shapes.q2().operators["O3"])
        per_task = np.bincount(self.outputs["task"], minlength=n_tasks).astype(float)
        if per_task.sum() == 0:
            raise ValueError("the failure-free run produced no jam incident: lengthen the run")
        return delivered(self.topology, alive, "O3") @ per_task / per_task.sum()


def q2_partials(spark, params: Q2Params) -> Q2Partials:
    """Generate Q2's streams with Spark and run O1-O3 once, failure-free."""
    from pyspark.sql import functions as F

    p = params
    began = time.perf_counter()
    rng = _rng(p.seed, 0)
    n_tasks = len(shapes.q2().operators["O3"])
    users = rng.multinomial(p.users, _bounded_power_law(p.segments, p.zipf_s))
    times = np.arange(0, p.duration_seconds, p.incident_interval)
    segment = rng.choice(p.segments, size=len(times), p=users / users.sum())
    jam = rng.random(len(times)) < p.jam_probability
    incidents = pd.DataFrame(
        {"incident": np.arange(len(times)), "segment": segment, "t": times, "users": users[segment]}
    )
    jammed = np.zeros((p.duration_seconds, p.segments), dtype=bool)  # (second, segment)
    for t, s in zip(times[jam], segment[jam], strict=True):
        jammed[int(t) : int(t) + p.jam_seconds, s] = True
    lam = p.location_rate * users / users.sum()

    def locations(batches):
        for batch in batches:
            rows = []
            for second in batch["id"]:
                g = _rng(p.seed, 2, int(second))  # keyed by the second
                n = g.poisson(lam)
                mean = np.where(jammed[second], p.jam_speed[0], p.free_speed[0])
                sd = np.where(jammed[second], p.jam_speed[1], p.free_speed[1])
                speed_sum = g.normal(n * mean, np.sqrt(n) * sd)  # exact given n Gaussians
                keep = np.flatnonzero(n)
                rows.append(
                    pd.DataFrame(
                        {
                            "second": int(second),
                            "segment": keep,
                            "n": n[keep],
                            "sum": speed_sum[keep],
                        }
                    )
                )
            yield (
                pd.concat(rows) if rows else pd.DataFrame(columns=["second", "segment", "n", "sum"])
            )

    raw = spark.range(p.duration_seconds).mapInPandas(
        locations, schema="second long, segment long, n long, sum double"
    )
    o1 = (
        raw.groupBy("segment", "second")
        .agg(
            (F.sum("sum") / F.sum("n")).alias("speed"),
            F.count("*").alias("tuples"),
            F.sum("n").alias("records"),
        )
        .cache()
    )
    reports = (
        spark.createDataFrame(incidents)
        .withColumn("reporter", F.explode(F.sequence(F.lit(1), F.col("users"))))
        .withColumn("id", F.col("incident") * p.users + F.col("reporter"))
    )
    reports = reports.withColumn("report_t", F.col("t") + _uniform(p.seed, 6) * p.report_delay)
    o2 = reports.groupBy("incident", "segment").agg(F.min("report_t").alias("t"))
    start = F.floor("t").cast("long")
    o3 = (
        F.broadcast(o2)  # a few hundred incidents against every (segment, second)
        .join(o1.select("segment", "second", "speed"), on="segment")
        .where((F.col("second") >= start) & (F.col("second") < start + p.detect_seconds))
        .groupBy("incident", "segment", "t")
        .agg(F.avg("speed").alias("speed"))
        .where(F.col("speed") < p.jam_threshold)
    )
    window = F.window(
        F.col("t").cast("timestamp"), f"{p.window_seconds} seconds", f"{p.slide_seconds} seconds"
    )
    outputs = _collect(
        o3.select(
            (F.col("segment") % n_tasks).cast("int").alias("task"),
            F.col("incident"),
            window.start.cast("long").alias("window"),
        )
    )
    by_task = (F.col("segment") % n_tasks).alias("task")
    o1_load = o1.groupBy(by_task).agg(F.sum("tuples").alias("tuples")).toPandas()
    o2_load = o2.groupBy(by_task).count().toPandas()
    o1.unpersist()
    loads = {}
    for op, frame, column in (("O1", o1_load, "tuples"), ("O2", o2_load, "count")):
        series = frame.set_index("task")[column].reindex(range(n_tasks), fill_value=0)
        loads.update({f"{op}.{k + 1}": float(series[k]) for k in range(n_tasks)})
    o3_load = np.bincount(outputs["task"], minlength=n_tasks)
    loads.update({f"O3.{k + 1}": float(o3_load[k]) for k in range(n_tasks)})
    loads["O4.1"] = float(o3_load.sum())
    run = SparkRun(records=p.records, seconds=time.perf_counter() - began, method="counts")
    log.info("Q2: %d location records in %.1f s", p.records, run.seconds)
    return Q2Partials(params=p, outputs=outputs, loads=loads, run=run)


# ------------------------------------------------------------------------ plans and accuracy
def random_plans(partials, *, plans: int, rng: np.random.Generator) -> pd.DataFrame:
    """OF, IC and accuracy of ``plans`` random plans that contain the sink task (a plan without
    it has no tentative output at all): R uniform in 1..|M|, the other R - 1 tasks uniform."""
    _positive_int("plans", plans)
    topology = partials.topology
    n = len(topology.tasks)
    sink = topology.tasks.index(topology.operators[topology.sink][0])
    others = np.array([i for i in range(n) if i != sink])
    alive = np.zeros((plans, n), dtype=bool)
    alive[:, sink] = True
    size = rng.integers(1, n + 1, size=plans)
    for row, r in enumerate(size):
        alive[row, rng.choice(others, size=r - 1, replace=False)] = True
    return pd.DataFrame(
        {
            "plan": np.arange(plans),
            "R": size,
            "OF": of_batch(topology, alive),
            "IC": ic_batch(topology, alive),
            "accuracy": partials.accuracy(alive),
        }
    )


def planned(partials, planners=tuple(PLANNERS), topology: Topology | None = None) -> pd.DataFrame:
    """Every planner's plan at every R in 0..|M| (``PLANNERS``, with the IC-opt diagnostic): its
    OF, IC, accuracy and tasks. ``topology``: the loads the planners see (default the measured
    ``partials.topology``; e.g. the nominal ``shapes.q2()``), whose OF and IC are reported; the
    accuracy is measured on ``partials``' records either way."""
    measured = partials.topology
    topology = measured if topology is None else topology
    if sorted(topology.tasks) != sorted(measured.tasks):
        raise ValueError("topology must have the measured topology's tasks")
    rows = []
    for name in planners:
        for R in range(len(topology.tasks) + 1):
            plan = PLANNERS[name](topology, R)
            rows.append(
                {
                    "planner": name,
                    "R": R,
                    "OF": plan.of,
                    "IC": plan.ic,
                    "tasks": " ".join(sorted(plan.tasks)),
                    "alive": measured.mask(plan.tasks),
                }
            )
    frame = pd.DataFrame(rows)
    frame["accuracy"] = partials.accuracy(np.stack(frame.pop("alive").to_list()))
    return frame
