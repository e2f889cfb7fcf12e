"""Shared scenarios of the cross-paper notebooks: data/scenarios/<name>.toml, and their mapping to
each paper's parameter objects.

A scenario is data: a topology (operators with parallelism, selectivity, state and tuple sizes,
node placement; edges with their partitioning; the input rate), a failure process, resources, the
checkpoint costs, QoS limits and one section per paper. data/scenarios/template.toml documents
every field with its unit; the fields in ``DEFAULTS`` may be left out (each default carries its
source, marked as an assumption). Provenance: a shipped scenario has a ``[sources]`` table with an
entry for every field present, keyed by the field's dotted path ("failures.single_per_day";
"topology.operators.<field>" covers that field of every operator); a source beginning with
"assumption" marks an assumption. A file without ``[sources]`` (your own job) gets the source
``USER_SOURCE`` for every field it gives. ``Scenario.sources()`` / ``assumptions()`` print them.

Units: seconds, events (tuples) per second, KB, failures per day; the mappings convert to each
paper's units (fastrecover: minutes and KB per minute; multilevel: 1/s). Paper packages never
import each other or ``pipeline``: the mappings ``to_multilevel``, ``to_fastrecover``, ``to_ppa``,
``to_incremental``, ``to_khaos`` live here.
"""

import copy
import dataclasses
import hashlib
import math
import os
import tempfile
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pandas as pd

DATA = Path(__file__).resolve().parent.parent / "data"  # the project's data/ (pipeline.paths.DATA)
SCENARIOS = DATA / "scenarios"
PARTITIONINGS = ("one-to-one", "split", "merge", "full")  # as ppa.topology.PARTITIONINGS
ACQUISITION_LAWS = ("uniform", "fixed")
REPLICA_DOMAINS = ("same", "separate")
SECONDS_PER_DAY = 86_400.0
TEMPLATE = "template"  # data/scenarios/template.toml: loads by name, not in available()
USER_SOURCE = "user"  # the source of every given field of a scenario without [sources]
_DEFAULT = "assumption (default): "
# The measured day (papers.khaos.experiment) is replayed at its own rates: its mean and
# topology.input_rate must agree within this share (the shipped scenarios round the mean).
DAY_RATE_TOLERANCE = 0.01
# Fields a scenario may leave out: dotted path -> (value, source). "topology.operators.<field>"
# applies to every operator; an operator's ``output`` defaults to having no downstream edge.
DEFAULTS = {
    "scenario.description": ("", "no description given"),
    "topology.operators.selectivity": (1.0, "one output event per input event"),
    "topology.operators.join": (False, "no stream join (independent inputs, PPA Eq. (1))"),
    "failures.correlated_nodes": (2, "two nodes (the smallest correlated failure)"),
    "resources.standby_nodes": (0, "no idle standby node: every replacement is acquired"),
    "resources.acquisition_law": ("uniform", "incremental Fig 7 (Su & Zhou): 2-6 minutes"),
    "resources.acquisition_low_s": (120.0, "incremental Fig 7: 2 minutes"),
    "resources.acquisition_high_s": (360.0, "incremental Fig 7: 6 minutes"),
    "papers.multilevel.token_delay_s": (0.1, "Flink's network buffer timeout, 100 ms per hop"),
    "papers.fastrecover.ch_max": (0.4, "FastRecover thesis Table 4.1 chain default"),
    "papers.fastrecover.z": (60, "FastRecover thesis Table 4.1 chain default"),
    "papers.fastrecover.b_log_kb_per_min": (20_000.0, "fastrecover.model.DEFAULT_BANDWIDTH"),
    "papers.fastrecover.b_snap_kb_per_min": (
        2_000_000.0,
        "fastrecover.model.DEFAULT_SNAPSHOT_BANDWIDTH",
    ),
    "papers.ppa.fractions": ([0.0, 0.5, 1.0], "PPA Fig 10: PPA-0, PPA-0.5, PPA-1.0"),
    "papers.ppa.virtual_sink": (False, "no sink added (the job has one output operator)"),
    "papers.ppa.replica_domain": ("same", "replicas on the job's nodes, failing with them"),
    "papers.incremental.cpu_cap": (0.8, "incremental Section 5: 80% CPU cap per node"),
    "papers.incremental.priority": (1, "incremental Section 2.3: default priority 1"),
    "papers.khaos.experiment": ("none", "no Khaos measured day (cross_interval needs one)"),
    "papers.khaos.profile_configurations": (8, "Khaos artifact: 8 profiling configurations"),
    "papers.khaos.ci_min_s": (10.0, "Khaos artifact: profiling CIs over 10-120 s"),
    "papers.khaos.ci_max_s": (120.0, "Khaos artifact: profiling CIs over 10-120 s"),
    "papers.khaos.failure_seconds": ([], "no failure instants of a measured day"),
    "papers.khaos.drain_tau_s": (32.0, "khaos calibration on data/khaos/ysb.parquet: 32 s"),
    "topology.operators.output": (None, "the operators without a downstream edge"),
}


# -- validation helpers: each raises ValueError naming the field and the allowed range --------
def _get(table: dict, key: str, path: str):
    if not isinstance(table, dict) or key not in table:
        raise ValueError(f"{path}.{key} is missing" if path else f"{key} is missing")
    return table[key]


def _number(table, key, path, *, low=None, high=None, low_open=False, integer=False):
    value = _get(table, key, path)
    name = f"{path}.{key}"
    ok_type = isinstance(value, int) if integer else isinstance(value, int | float)
    low_ok = low is None or (value > low if low_open else value >= low)
    if (
        isinstance(value, bool)
        or not ok_type
        or not math.isfinite(value)
        or not low_ok
        or not (high is None or value <= high)
    ):
        lo = "-inf" if low is None else low
        hi = "inf" if high is None else high
        kind = "an integer" if integer else "a number"
        bracket = "(" if low_open or low is None else "["
        raise ValueError(f"{name} must be {kind} in {bracket}{lo}, {hi}]; got {value!r}")
    return int(value) if integer else float(value)


def _choice(table, key, path, allowed):
    value = _get(table, key, path)
    if value not in allowed:
        raise ValueError(f"{path}.{key} must be one of {allowed}; got {value!r}")
    return value


def _flag(table, key, path):
    value = _get(table, key, path)
    if not isinstance(value, bool):
        raise ValueError(f"{path}.{key} must be true or false; got {value!r}")
    return value


def _ints(table, key, path, *, low=0, high=None, min_len=0):
    value = _get(table, key, path)
    if not isinstance(value, list) or len(value) < min_len:
        raise ValueError(f"{path}.{key} must be a list of at least {min_len} integers")
    for v in value:
        if isinstance(v, bool) or not isinstance(v, int) or v < low or (high and v > high):
            raise ValueError(
                f"{path}.{key} must hold integers in [{low}, {high or 'inf'}]; got {v!r}"
            )
    return tuple(value)


# -- the scenario ------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class Operator:
    """One logical operator. parallelism: tasks (partitions); selectivity: output events per
    input event, in (0, 1]; state_kb: state per task, KB; tuple_kb: input event size, KB;
    cpu_share: share of a node's CPU one task needs (incremental's recovery cost of a
    partition); nodes: node index (0-based, < resources.nodes) of each task, every job node
    hosting one at least; output: its tasks
    are query outputs (incremental: one query per output partition); join: correlated-input
    operator (PPA Eq. (2))."""

    name: str
    parallelism: int
    selectivity: float
    state_kb: float
    tuple_kb: float
    cpu_share: float
    nodes: tuple[int, ...]
    output: bool
    join: bool


@dataclass(frozen=True, kw_only=True)
class Edge:
    """A subscription ``source`` -> ``target`` with its partitioning (one of PARTITIONINGS)."""

    source: str
    target: str
    partitioning: str


@dataclass(frozen=True, kw_only=True)
class Topology:
    """input_rate: events/s entering the source operator(s) (mean over the workload); operators
    in topological order (sources first)."""

    input_rate: float
    operators: tuple[Operator, ...]
    edges: tuple[Edge, ...]

    def operator(self, name: str) -> Operator:
        return next(op for op in self.operators if op.name == name)

    def upstream(self, name: str) -> tuple[str, ...]:
        return tuple(e.source for e in self.edges if e.target == name)

    def input_rates(self) -> dict[str, float]:
        """Events/s into each operator: input_rate at a source, else the sum of its upstream
        operators' outputs (input x selectivity); a subscription receives the whole stream."""
        rates: dict[str, float] = {}
        for op in self.operators:
            ups = self.upstream(op.name)
            rates[op.name] = (
                self.input_rate
                if not ups
                else sum(rates[u] * self.operator(u).selectivity for u in ups)
            )
        return rates

    def critical_path(self) -> int:
        """Operators on the longest source-to-sink path (multilevel's n)."""
        depth: dict[str, int] = {}
        for op in self.operators:
            depth[op.name] = 1 + max((depth[u] for u in self.upstream(op.name)), default=0)
        return max(depth.values())


@dataclass(frozen=True, kw_only=True)
class Failures:
    """single_per_day: rate of failures taking one node (1/day); correlated_per_day: rate of
    correlated failures (1/day); correlated_nodes: nodes one correlated failure takes;
    process_per_day: rate of process failures (an exception or a killed process: its node stays
    up; 1/day; multilevel's level 1)."""

    single_per_day: float
    correlated_per_day: float
    correlated_nodes: int
    process_per_day: float


@dataclass(frozen=True, kw_only=True)
class Resources:
    """nodes: nodes running the job's tasks, 0 to nodes - 1, each hosting at least one (the
    nodes that can fail); standby_nodes: idle nodes besides them, ready at once (0: every
    replacement beyond the survivors' spare is acquired); acquisition_law: "uniform" on
    [low, high] s or "fixed" at low s, from the request to a new node being ready."""

    nodes: int
    standby_nodes: int
    acquisition_law: str
    acquisition_low_s: float
    acquisition_high_s: float


@dataclass(frozen=True, kw_only=True)
class Checkpoint:
    """interval_s: the job's checkpoint interval (s); local_* to a node's disk (level 1),
    remote_* to replicated storage (level 2): cost c (s of processing lost per checkpoint) and
    restart r (s down before processing resumes); catch_up_rate: events/s the job processes
    when catching up (its capacity)."""

    interval_s: float
    local_cost_s: float
    remote_cost_s: float
    local_restart_s: float
    remote_restart_s: float
    catch_up_rate: float


@dataclass(frozen=True, kw_only=True)
class QoS:
    """latency_ms: end-to-end latency limit; recovery_s: recovery-time limit."""

    latency_ms: float
    recovery_s: float


@dataclass(frozen=True, kw_only=True)
class Scenario:
    """A loaded scenario; ``papers`` holds each paper's own section as read (validated by the
    mapping functions' needs at load time); ``source_table``: {field path: source}."""

    name: str
    description: str
    topology: Topology
    failures: Failures
    resources: Resources
    checkpoint: Checkpoint
    qos: QoS
    papers: dict = field(hash=False)  # dicts: hashed by the other fields (correlated.setup)
    source_table: dict = field(hash=False)

    def _values(self) -> dict:
        values = {}
        for section in ("failures", "resources", "checkpoint", "qos"):
            for key, value in vars(getattr(self, section)).items():
                values[f"{section}.{key}"] = value
        values["topology.input_rate"] = self.topology.input_rate
        for op in self.topology.operators:
            for key, value in vars(op).items():
                if key != "name":
                    values[f"topology.operators.{op.name}.{key}"] = value
        values["topology.edges"] = [
            f"{e.source}->{e.target} ({e.partitioning})" for e in self.topology.edges
        ]
        for paper, section in self.papers.items():
            for key, value in section.items():
                values[f"{paper}.{key}"] = value
        return values

    def digest(self) -> str:
        """A short hash of every value (not the sources): a sweep parameter that makes cached
        points of an edited scenario file stale (the cache is keyed by parameters and code)."""
        return hashlib.sha256(repr(sorted(self._values().items())).encode()).hexdigest()[:16]

    def sources(self) -> pd.DataFrame:
        """One row per field: field (dotted path), value, source ("assumption: ..." marks an
        assumption)."""
        rows = [
            {"field": f, "value": v, "source": _source_of(self.source_table, f)}
            for f, v in self._values().items()
        ]
        return pd.DataFrame(rows, columns=["field", "value", "source"])

    def assumptions(self) -> pd.DataFrame:
        """The rows of :meth:`sources` whose source is an assumption."""
        table = self.sources()
        return table[table["source"].str.lower().str.startswith("assumption")].reset_index(
            drop=True
        )


def _source_of(sources: dict, field: str) -> str | None:
    if field in sources:
        return sources[field]
    parts = field.split(".")
    if parts[:2] == ["topology", "operators"] and len(parts) == 4:
        return sources.get(f"topology.operators.{parts[3]}")
    return None


# -- paper sections: required keys and their ranges -------------------------------------------
def _check_papers(papers: dict) -> dict:
    out = {}
    section = _get(papers, "multilevel", "")
    out["multilevel"] = {"token_delay_s": _number(section, "token_delay_s", "multilevel", low=0)}
    section = _get(papers, "fastrecover", "")
    out["fastrecover"] = {
        "ch_max": _number(section, "ch_max", "fastrecover", low=0, high=1, low_open=True),
        "z": _number(section, "z", "fastrecover", low=1, integer=True),
        "b_log_kb_per_min": _number(
            section, "b_log_kb_per_min", "fastrecover", low=0, low_open=True
        ),
        "b_snap_kb_per_min": _number(
            section, "b_snap_kb_per_min", "fastrecover", low=0, low_open=True
        ),
    }
    section = _get(papers, "ppa", "")
    fractions = _get(section, "fractions", "ppa")
    if (
        not isinstance(fractions, list)
        or not fractions
        or not all(
            isinstance(f, int | float) and not isinstance(f, bool) and 0 <= f <= 1
            for f in fractions
        )
    ):
        raise ValueError(
            f"ppa.fractions must be a non-empty list of numbers in [0, 1]; got {fractions!r}"
        )
    out["ppa"] = {
        "fractions": tuple(float(f) for f in fractions),
        "virtual_sink": _flag(section, "virtual_sink", "ppa"),
        # "same" = replicas on the job's nodes (they fail with them), "separate" = another
        # failure domain
        "replica_domain": _choice(section, "replica_domain", "ppa", REPLICA_DOMAINS),
    }
    section = _get(papers, "incremental", "")
    out["incremental"] = {
        "cpu_cap": _number(section, "cpu_cap", "incremental", low=0, high=1, low_open=True),
        "priority": _number(section, "priority", "incremental", low=1, high=10, integer=True),
    }
    section = _get(papers, "khaos", "")
    khaos = {
        "experiment": _choice(section, "experiment", "khaos", ("iot", "ysb", "none")),
        "profile_configurations": _number(
            section, "profile_configurations", "khaos", low=2, integer=True
        ),
        "ci_min_s": _number(section, "ci_min_s", "khaos", low=0, low_open=True),
        "ci_max_s": _number(section, "ci_max_s", "khaos", low=0, low_open=True),
        "failure_seconds": _ints(section, "failure_seconds", "khaos"),
        "drain_tau_s": _number(section, "drain_tau_s", "khaos", low=0, low_open=True),
    }
    if not khaos["ci_min_s"] < khaos["ci_max_s"]:
        raise ValueError("khaos.ci_min_s must be < khaos.ci_max_s")
    out["khaos"] = khaos
    return out


def _with_defaults(data: dict) -> tuple[dict, dict]:
    """A copy of ``data`` with every absent field of ``DEFAULTS`` filled in, and {field path:
    source} of the filled ones (an operator's own path where only some operators leave it out)."""
    data = copy.deepcopy(data)
    filled = {}
    for path, (value, source) in DEFAULTS.items():
        *parents, key = path.split(".")
        if parents == ["topology", "operators"]:
            continue
        node = data
        for part in parents:
            if not isinstance(node, dict):
                break
            node = node.setdefault(part, {})
        if isinstance(node, dict) and key not in node:
            node[key] = copy.deepcopy(value)
            filled[path.removeprefix("papers.")] = _DEFAULT + source
    topo = data.get("topology")
    ops = topo.get("operators") if isinstance(topo, dict) else None
    if isinstance(ops, list):
        upstream = {e.get("from") for e in topo.get("edges", []) if isinstance(e, dict)}
        for op in ops:
            if not isinstance(op, dict):
                continue
            for key in ("selectivity", "join", "output"):
                if key not in op:
                    value, source = DEFAULTS[f"topology.operators.{key}"]
                    op[key] = op.get("name") not in upstream if key == "output" else value
                    filled[f"topology.operators.{op.get('name')}.{key}"] = _DEFAULT + source
    return data, filled


def from_dict(data: dict, name: str = "<dict>") -> Scenario:
    """Validate a parsed scenario (the TOML's structure) and build a :class:`Scenario`; absent
    fields of ``DEFAULTS`` take their default, a missing ``[sources]`` table ``USER_SOURCE``."""
    data, filled = _with_defaults(data)
    meta = _get(data, "scenario", "")
    topo = _get(data, "topology", "")
    resources = _get(data, "resources", "")
    nodes = _number(resources, "nodes", "resources", low=1, integer=True)
    raw_ops = _get(topo, "operators", "topology")
    if not isinstance(raw_ops, list) or not raw_ops:
        raise ValueError("topology.operators must be a non-empty list of operator tables")
    operators = []
    for i, raw in enumerate(raw_ops):
        path = f"topology.operators[{i}]"
        op_name = _get(raw, "name", path)
        if not isinstance(op_name, str) or not op_name:
            raise ValueError(f"{path}.name must be a non-empty string")
        path = f"topology.operators.{op_name}"
        parallelism = _number(raw, "parallelism", path, low=1, integer=True)
        placed = _ints(raw, "nodes", path, low=0, high=nodes - 1, min_len=1)
        if len(placed) != parallelism:
            raise ValueError(f"{path}.nodes must give one node per task ({parallelism})")
        operators.append(
            Operator(
                name=op_name,
                parallelism=parallelism,
                selectivity=_number(raw, "selectivity", path, low=0, high=1, low_open=True),
                state_kb=_number(raw, "state_kb", path, low=0, low_open=True),
                tuple_kb=_number(raw, "tuple_kb", path, low=0, low_open=True),
                cpu_share=_number(raw, "cpu_share", path, low=0, high=1, low_open=True),
                nodes=placed,
                output=_flag(raw, "output", path),
                join=_flag(raw, "join", path),
            )
        )
    # Every job node hosts a task: the cross notebooks fail each of the resources.nodes nodes in
    # turn (or k of them), and an empty one would lose nothing (or crash incremental recovery).
    empty = sorted(set(range(nodes)) - {k for op in operators for k in op.nodes})
    if empty:
        raise ValueError(
            f"resources.nodes = {nodes} but node(s) {empty} host no task "
            f"(topology.operators.<name>.nodes): resources.nodes counts the nodes running the "
            f"job's tasks, numbered 0 to {nodes - 1}; an idle node kept to replace failed ones "
            f"is a standby node: declare it in resources.standby_nodes, not in resources.nodes"
        )
    names = [op.name for op in operators]
    if len(set(names)) != len(names):
        raise ValueError("topology.operators: operator names must be unique")
    edges = []
    for i, raw in enumerate(_get(topo, "edges", "topology")):
        path = f"topology.edges[{i}]"
        source, target = _get(raw, "from", path), _get(raw, "to", path)
        for end in (source, target):
            if end not in names:
                raise ValueError(f"{path} names an unknown operator {end!r}")
        if names.index(source) >= names.index(target):
            raise ValueError(f"{path}: operators must be listed in topological order")
        edges.append(
            Edge(
                source=source,
                target=target,
                partitioning=_choice(raw, "partitioning", path, PARTITIONINGS),
            )
        )
    topology = Topology(
        input_rate=_number(topo, "input_rate", "topology", low=0, low_open=True),
        operators=tuple(operators),
        edges=tuple(edges),
    )
    failures = _get(data, "failures", "")
    failures = Failures(
        single_per_day=_number(failures, "single_per_day", "failures", low=0),
        correlated_per_day=_number(failures, "correlated_per_day", "failures", low=0),
        correlated_nodes=_number(
            failures, "correlated_nodes", "failures", low=2, high=nodes, integer=True
        ),
        process_per_day=_number(failures, "process_per_day", "failures", low=0),
    )
    # to_multilevel's level 1 needs process failures and every cross notebook single-node ones:
    # a zero rate is refused here, not deep in an optimizer. Correlated failures may be absent
    # (0: cross_frontier leaves that kind out, cross_interval counts them among the node
    # failures, cross_correlated studies one correlated failure whatever its rate).
    for key, use in (
        ("process_per_day", "level 1 (local checkpoints) of the multilevel mapping"),
        ("single_per_day", "the single-node failures of every cross notebook"),
    ):
        if getattr(failures, key) <= 0:
            raise ValueError(
                f"failures.{key} must be > 0; got 0: it drives {use}; give a small rate "
                f"(e.g. 0.01 per day) for rare failures of this kind"
            )
    low = _number(resources, "acquisition_low_s", "resources", low=0)
    resources = Resources(
        nodes=nodes,
        standby_nodes=_number(resources, "standby_nodes", "resources", low=0, integer=True),
        acquisition_law=_choice(resources, "acquisition_law", "resources", ACQUISITION_LAWS),
        acquisition_low_s=low,
        acquisition_high_s=_number(resources, "acquisition_high_s", "resources", low=low),
    )
    ck = _get(data, "checkpoint", "")
    local_c = _number(ck, "local_cost_s", "checkpoint", low=0, low_open=True)
    local_r = _number(ck, "local_restart_s", "checkpoint", low=0)
    checkpoint = Checkpoint(
        interval_s=_number(ck, "interval_s", "checkpoint", low=0, low_open=True),
        local_cost_s=local_c,
        remote_cost_s=_number(ck, "remote_cost_s", "checkpoint", low=local_c),
        local_restart_s=local_r,
        remote_restart_s=_number(ck, "remote_restart_s", "checkpoint", low=local_r),
        catch_up_rate=_number(ck, "catch_up_rate", "checkpoint", low=0, low_open=True),
    )
    qos = data.get("qos")
    for key, meaning in (
        ("latency_ms", "latency limit (ms)"),
        ("recovery_s", "recovery limit (s)"),
    ):
        if not isinstance(qos, dict) or key not in qos:
            raise ValueError(
                f"qos.{key} is missing: the {meaning} the cross notebooks judge every run "
                f"against (no default; a very large value means no limit)"
            )
    qos = QoS(
        latency_ms=_number(qos, "latency_ms", "qos", low=0, low_open=True),
        recovery_s=_number(qos, "recovery_s", "qos", low=0, low_open=True),
    )
    if checkpoint.catch_up_rate <= topology.input_rate:
        raise ValueError(
            f"checkpoint.catch_up_rate must exceed topology.input_rate "
            f"({topology.input_rate:g} events/s): a job at or below its input rate never "
            f"catches up after a failure; got {checkpoint.catch_up_rate:g}"
        )
    papers = _check_papers(_get(data, "papers", ""))
    _check_day(topology, papers["khaos"]["experiment"])
    scenario = Scenario(
        name=str(_get(meta, "name", "scenario")),
        description=str(_get(meta, "description", "scenario")),
        topology=topology,
        failures=failures,
        resources=resources,
        checkpoint=checkpoint,
        qos=qos,
        papers=papers,
        source_table={},
    )
    given = data.get("sources")
    if given is not None and not isinstance(given, dict):
        raise ValueError("sources must be a table {field path = source}")
    table = {**filled, **(given or {})}
    missing = [f for f in scenario._values() if not _source_of(table, f)]
    if missing and given is not None:
        raise ValueError(f"sources: no source given for {missing} (a source or 'assumption: ...')")
    table.update(dict.fromkeys(missing, USER_SOURCE))
    return dataclasses.replace(scenario, source_table=table)


@cache
def day_mean(experiment: str) -> float:
    """Mean input rate (events/s) of the Khaos measured day ``experiment``
    (khaos.simulate.workload_of over data/khaos), computed once per day file: remembered per
    process and, across processes (every Spark worker loads its scenario), in a small file in
    the system's temporary folder keyed by the content of the day's files (the estimate took
    3-4 s per worker)."""
    folder = DATA / "khaos"
    digest = hashlib.sha256(experiment.encode())
    for path in sorted(folder.glob(f"{experiment}*")):
        digest.update(path.read_bytes())
    memo = Path(tempfile.gettempdir()) / f"crosspaper_day_mean_{digest.hexdigest()[:32]}.txt"
    try:
        return float(memo.read_text())
    except (OSError, ValueError):
        pass
    from khaos.simulate import workload_of

    mean = float(workload_of(str(folder), experiment).mean())
    try:
        partial = memo.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(repr(mean))
        partial.replace(memo)  # atomic: a concurrent reader sees the whole number or none
    except OSError:
        pass  # a read-only temporary folder: computed again in the next process
    return mean


def _check_day(topology: Topology, experiment: str) -> None:
    """Refuses a scenario whose measured day and input rate disagree: the cross notebooks replay
    the day at its own rates (cross_interval's recoveries, cross_frontier's QoS load) and use
    input_rate everywhere else, so one job would be two."""
    if experiment == "none":
        return
    mean = day_mean(experiment)
    if abs(topology.input_rate - mean) > DAY_RATE_TOLERANCE * mean:
        raise ValueError(
            f"topology.input_rate ({topology.input_rate:,.0f} events/s) and "
            f"papers.khaos.experiment = {experiment!r} (a measured day of mean "
            f"{mean:,.0f} events/s) disagree by more than {DAY_RATE_TOLERANCE:.0%}: the day is "
            f"replayed at its own rates; set input_rate to {mean:.0f}, or experiment = "
            f'"none" (cross_interval then takes your workload: -p trace=rates.csv)'
        )


def available() -> list[str]:
    """Names of the scenarios under data/scenarios/ (the template is not one)."""
    return sorted(p.stem for p in SCENARIOS.glob("*.toml") if p.stem != TEMPLATE)


def load(name_or_path: str | Path | Scenario) -> Scenario:
    """A scenario by name (data/scenarios/<name>.toml, or "template") or by path to a TOML file;
    a :class:`Scenario` is returned as it is (a variant built by :func:`with_values`)."""
    if isinstance(name_or_path, Scenario):
        return name_or_path
    path = Path(name_or_path)
    if path.suffix != ".toml":
        if str(name_or_path) not in [*available(), TEMPLATE]:
            raise ValueError(
                f"scenario must be one of {available()} or a .toml path; got {name_or_path!r}"
            )
        path = SCENARIOS / f"{name_or_path}.toml"
    if not path.is_file():
        raise ValueError(f"scenario: no TOML file at {str(path)!r}")
    with open(path, "rb") as handle:
        try:
            data = tomllib.load(handle)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"scenario {str(path)!r} is not valid TOML: {exc}") from exc
    return from_dict(data, path.stem)


def with_values(s: Scenario, values: dict, source: str = "sensitivity") -> Scenario:
    """A variant of ``s`` with {"section.field": value} replaced (sections failures, resources,
    checkpoint, qos; "topology.input_rate"), each field's source set to ``source``. Not
    re-validated: the caller keeps the values in their ranges."""
    changes: dict[str, dict] = {}
    for path, value in values.items():
        section, key = path.split(".")
        part = getattr(s, section, None)
        if section == "scenario" or not dataclasses.is_dataclass(part) or key not in vars(part):
            raise ValueError(f"with_values: {path!r} is not a scenario field")
        changes.setdefault(section, {})[key] = value
    parts = {sec: dataclasses.replace(getattr(s, sec), **kv) for sec, kv in changes.items()}
    table = {**s.source_table, **dict.fromkeys(values, source)}
    return dataclasses.replace(s, **parts, source_table=table)


def with_headroom(s: Scenario, factor: float) -> Scenario:
    """The one definition of capacity headroom in the cross notebooks: the spare capacity
    C - a (``checkpoint.catch_up_rate`` - ``topology.input_rate``, the speed of every catch-up)
    multiplied by ``factor`` (finite, > 0), so C becomes a + factor (C - a). A sensitivity range
    "headroom ±30%" is factor 0.7 to 1.3 in every notebook (cross_interval, cross_frontier,
    cross_correlated); factor 1 returns ``s`` itself."""
    if isinstance(factor, bool) or not (
        isinstance(factor, int | float) and math.isfinite(factor) and factor > 0
    ):
        raise ValueError(f"headroom factor must be a finite number > 0; got {factor!r}")
    if factor == 1:
        return s
    a = s.topology.input_rate
    spare = s.checkpoint.catch_up_rate - a
    return with_values(
        s,
        {"checkpoint.catch_up_rate": a + factor * spare},
        source=f"sensitivity: headroom x{factor:g}",
    )


# -- mappings to each paper's parameter objects ------------------------------------------------
def to_multilevel(s: Scenario, levels: int = 2):
    """multilevel.System of the scenario (Jayasekara et al.; rates per day -> 1/s). levels=2, the
    paper's own split (Section 1: "a thread or process can checkpoint to an in-memory checkpoint
    manager ... failure of the machine will need a higher level checkpoint"; its Flink experiment
    of Section 5 throws an exception for level 1 and kills a task manager for level 2): level 1 =
    process failures (failures.process_per_day), checkpoint c1 = checkpoint.local_cost_s (the
    scenarios take the paper's c1 = c2/2 of Section 5), restart r1 = local_restart_s; level 2 =
    node failures, single and correlated (a remote checkpoint survives both), c2 =
    remote_cost_s, r2 = remote_restart_s. levels=1: every failure (process, node, correlated)
    recovered from the remote checkpoint (the single-level baseline, Eq. (11)). A third level
    (correlated failures beyond the remote store) has no scenario cost and is not mapped. n =
    operators on the critical path (Section 4), δ = multilevel.token_delay_s."""
    from multilevel.utilization import System

    f, c = s.failures, s.checkpoint
    n, delta = s.topology.critical_path(), s.papers["multilevel"]["token_delay_s"]
    node = f.single_per_day + f.correlated_per_day
    if levels == 1:
        return System.per_day(
            lam=[f.process_per_day + node],
            c=[c.remote_cost_s],
            r=[c.remote_restart_s],
            n=n,
            delta=delta,
        )
    if levels != 2:
        raise ValueError(f"levels must be 1 or 2; got {levels!r}")
    if f.process_per_day <= 0:
        raise ValueError(
            "levels=2 needs failures.process_per_day > 0 (level 1 = process failures); got "
            f"{f.process_per_day}"
        )
    return System.per_day(
        lam=[f.process_per_day, node],
        c=[c.local_cost_s, c.remote_cost_s],
        r=[c.local_restart_s, c.remote_restart_s],
        n=n,
        delta=delta,
    )


def to_fastrecover(s: Scenario):
    """(fastrecover Topology, Storage, ch_max, z) of a chain scenario (Yaduvanshi, Ch. 2; units
    minutes and KB). One FastRecover operator per logical operator: s_i = selectivity, π_i =
    state_kb x parallelism (the operator's whole state), θ_i = tuple_kb, τ_i = input_rate /
    (catch_up_rate x Ω_i) min per tuple with Ω_i op_i's input in tuples/min, so that τ_i Ω_i =
    input_rate / catch_up_rate: a minute of lost input takes that many minutes to reprocess at
    the job's capacity (every operator is pipelined at the job's capacity: assumption), ρ_i =
    failures per minute hitting op_i = ((single_per_day + process_per_day) x h_i / N +
    correlated_per_day x (1 - C(N - h_i, k) / C(N, k))) / 1440 with h_i the nodes hosting a task
    of op_i, N the job's nodes and k correlated_nodes: a failure hits op_i when it takes one of
    its nodes, a correlated one when any of its k equally likely nodes is one (rev20c #11);
    Ω = input_rate x 60. Storage:
    B_log = b_log_kb_per_min, B_snap = b_snap_kb_per_min. The source's anchor log is the input
    Kafka keeps for every scheme: a caller comparing schemes leaves its cost Δ_log(Ω θ_1) out."""
    from fastrecover import Operator, Storage, chain

    topo = s.topology
    for i, op in enumerate(topo.operators):
        want = () if i == 0 else (topo.operators[i - 1].name,)
        if topo.upstream(op.name) != want:
            raise ValueError(
                "to_fastrecover needs a chain topology (each operator subscribes "
                "to the one listed before it)"
            )
    nodes = s.resources.nodes
    f = s.failures
    rates = topo.input_rates()
    ops = []
    k = min(f.correlated_nodes, nodes)
    for op in topo.operators:
        h = len(set(op.nodes))
        correlated = 1.0 - math.comb(nodes - h, k) / math.comb(nodes, k)
        rho = (f.single_per_day + f.process_per_day) * h / nodes + f.correlated_per_day * correlated
        rho /= 1440.0
        ops.append(
            Operator(
                s=op.selectivity,
                tau=topo.input_rate / (s.checkpoint.catch_up_rate * 60.0 * rates[op.name]),
                pi=op.state_kb * op.parallelism,
                theta=op.tuple_kb,
                rho=rho,
            )
        )
    fr = s.papers["fastrecover"]
    storage = Storage(bandwidth=fr["b_log_kb_per_min"], snapshot_bandwidth=fr["b_snap_kb_per_min"])
    return chain(ops, topo.input_rate * 60.0), storage, fr["ch_max"], fr["z"]


def snapshot_storage(s: Scenario, bandwidth_kb_per_min: float | None = None):
    """FastRecover's Storage priced like every other scheme's checkpoint: B_snap such that the
    job's whole state (Σ state_kb x parallelism) takes checkpoint.remote_cost_s to snapshot (the
    cost the other schemes pay per checkpoint); B_log = ``bandwidth_kb_per_min`` (the scenario's
    b_log_kb_per_min when None). The one definition of the cross notebooks (cross_frontier and
    cross_interval)."""
    from fastrecover import Storage

    state = sum(op.state_kb * op.parallelism for op in s.topology.operators)
    log = s.papers["fastrecover"]["b_log_kb_per_min"]
    return Storage(
        bandwidth=float(log if bandwidth_kb_per_min is None else bandwidth_kb_per_min),
        snapshot_bandwidth=60.0 * state / s.checkpoint.remote_cost_s,
    )


def _task(op: str, i: int) -> str:
    return f"{op}[{i}]"


def _substreams(edge: Edge, n1: int, n2: int) -> list[tuple[int, int]]:
    """(upstream task, downstream task) index pairs of an edge's partitioning (ppa.topology)."""
    if edge.partitioning == "full":
        return [(a, b) for a in range(n1) for b in range(n2)]
    if edge.partitioning == "one-to-one" and n1 == n2:
        return [(a, a) for a in range(n1)]
    if edge.partitioning == "split" and n2 % n1 == 0 and n2 > n1:
        m = n2 // n1
        return [(a, a * m + j) for a in range(n1) for j in range(m)]
    if edge.partitioning == "merge" and n1 % n2 == 0 and n1 > n2:
        m = n1 // n2
        return [(b * m + j, b) for b in range(n2) for j in range(m)]
    raise ValueError(
        f"edge {edge.source}->{edge.target}: {edge.partitioning} does not fit {n1} -> {n2} tasks"
    )


def to_ppa(s: Scenario):
    """(ppa.Topology, fractions) of the scenario (Su & Zhou, ICDE 2016, Section II-A). Tasks are
    "<operator>[i]"; a substream's rate is the upstream task's output (input rate / parallelism x
    selectivity) split evenly over its substreams of that edge; join operators are the scenario's
    ``join`` ones. PPA needs one sink: with ``ppa.virtual_sink`` the output operators feed one
    added one-task operator "sink" (full partitioning; assumption). Fractions: the PPA-x plans
    (Fig 10: 0, 0.5, 1.0 of the non-source tasks replicated)."""
    from ppa import Topology as PPATopology

    topo = s.topology
    rates = topo.input_rates()
    operators = {
        op.name: [_task(op.name, i) for i in range(op.parallelism)] for op in topo.operators
    }
    substreams = {}
    edges = list(topo.edges)
    if s.papers["ppa"]["virtual_sink"]:
        operators["sink"] = ["sink[0]"]
        edges += [
            Edge(source=op.name, target="sink", partitioning="full")
            for op in topo.operators
            if op.output
        ]
    for edge in edges:
        up = topo.operator(edge.source)
        n2 = len(operators[edge.target])
        pairs = _substreams(edge, up.parallelism, n2)
        out = rates[edge.source] * up.selectivity / up.parallelism
        fan = {a: sum(1 for x, _ in pairs if x == a) for a, _ in pairs}
        for a, b in pairs:
            substreams[(_task(edge.source, a), operators[edge.target][b])] = out / fan[a]
    joins = {op.name for op in topo.operators if op.join}
    topology = PPATopology(operators=operators, joins=joins, rates=substreams)
    return topology, s.papers["ppa"]["fractions"]


def partition_edges(s: Scenario) -> list[tuple[tuple[str, int], tuple[str, int]]]:
    """Partition-level edges ((operator, i), (operator, j)) of the scenario's partitionings."""
    edges = []
    for edge in s.topology.edges:
        n1 = s.topology.operator(edge.source).parallelism
        n2 = s.topology.operator(edge.target).parallelism
        edges += [((edge.source, a), (edge.target, b)) for a, b in _substreams(edge, n1, n2)]
    return edges


def placement(s: Scenario) -> dict[tuple[str, int], str]:
    """{(operator, i): "n<k>"} of the scenario's task placement."""
    return {(op.name, i): f"n{k}" for op in s.topology.operators for i, k in enumerate(op.nodes)}


def to_incremental(s: Scenario, failed_nodes):
    """incremental.problem.RecoveryProblem (Su & Zhou, Definition 2) when ``failed_nodes``
    ("n<k>" names) fail: partitions (operator, i) placed as in the scenario, edges by the
    partitionings, one query per output partition (Definition 1), every partition's recovery
    cost = the operator's cpu_share (of a node), priority incremental.priority."""
    from incremental.problem import problem_from_topology

    where = placement(s)
    outputs = [p for p in where if s.topology.operator(p[0]).output]
    return problem_from_topology(
        edges=partition_edges(s),
        outputs=outputs,
        costs={p: s.topology.operator(p[0]).cpu_share for p in where},
        placement=where,
        failed_nodes=failed_nodes,
        priorities=dict.fromkeys(outputs, s.papers["incremental"]["priority"]),
    )


@dataclass(frozen=True)
class KhaosSetup:
    """What the khaos replay needs: the workload experiment ("iot", "ysb" or "none"), the
    simulator's parameters, the method's, QoS and the failure seconds of the measured day."""

    experiment: str
    sim: object  # khaos.SimParams
    method: object  # khaos.MethodParams
    qos: object  # khaos.QoS
    failure_seconds: tuple[int, ...]


def to_khaos(s: Scenario) -> KhaosSetup:
    """khaos parameters (Geldenhuys et al.): SimParams = the package's IoT-calibrated defaults
    (khaos.simulate.SimParams) with capacity = checkpoint.catch_up_rate, restart_s =
    checkpoint.remote_restart_s (a failure restarts from the remote checkpoint), checkpoint_s =
    round(remote_cost_s), drain_tau_s = khaos.drain_tau_s; MethodParams with the CI grid
    (ci_min_s, ci_max_s, profile_configurations) and the scenario's QoS."""
    from khaos import MethodParams, SimParams
    from khaos import QoS as KhaosQoS

    k, c = s.papers["khaos"], s.checkpoint
    sim = SimParams(
        capacity=c.catch_up_rate,
        restart_s=c.remote_restart_s,
        checkpoint_s=max(1, round(c.remote_cost_s)),
        drain_tau_s=k["drain_tau_s"],
    )
    qos = KhaosQoS(latency_ms=s.qos.latency_ms, recovery_s=s.qos.recovery_s)
    method = MethodParams(
        profile_ci_min_s=k["ci_min_s"],
        profile_ci_max_s=k["ci_max_s"],
        profile_configurations=k["profile_configurations"],
        qos=qos,
    )
    return KhaosSetup(k["experiment"], sim, method, qos, k["failure_seconds"])
