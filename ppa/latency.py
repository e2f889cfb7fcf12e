"""Recovery latency model of Section VI-A (Figs 7-10 of Su & Zhou): a documented model, not a
measurement.

The paper measured Storm on EC2; its figures are images and it prints none of the constants that
set the latencies. This module derives each latency from the setting the text does print and
from constants stated in ``LatencyParams``, each marked as the paper's or as an assumption.

Setting (Section VI-A, the Fig 6 topology of ``ppa.shapes.fig6``): source tasks emit ``rate``
tuples/s each and never fail (they sit on their own ``source_nodes`` nodes); every other task
has one primary node. A synthetic task keeps the last ``window`` seconds of its input as state
(state = input rate x window) and emits ``selectivity`` of its input; its output is a function of
each input tuple (the window is state only), so rebuilding any task's window needs ``window``
seconds of source data whatever its depth. Recovery latency runs from failure detection (the 5 s
heartbeats therefore do not enter) until the task's progress vector reaches its value at the
failure. Units: seconds, tuples, bytes.

Schemes, per failed task i with input rate λ_i and output rate o_i = selectivity·λ_i:
- Checkpoint (interval C; the failure falls a fraction a_i of an interval after i's last
  checkpoint): restart, load the state λ_i·W·tuple_bytes from the standby store, reprocess the
  a_i·C seconds of input since the checkpoint at ``process_rate`` μ. Under a correlated failure
  the concurrent loads share the store's bandwidth, and a task whose failed upstream has to
  regenerate its input waits for it (Section V-B's synchronization): with s_i the time i can
  start replaying, s_i = max(ready_i, s_j) and f_i = max(s_i + λ_i·a_i·C/μ, f_j) over failed
  passive upstream tasks j. This fluid recursion is exact when all tasks advance through stream
  time at the same speed μ/λ_i, as in Fig 6.
- Active replication (sync period P; the replica trimmed its output buffer a fraction b_i of a
  period before the failure): activate the replica and resend its buffer o_i·b_i·P to the
  downstream tasks, which drop the duplicates at ``resend_rate``. Under a correlated failure a
  replica first drops the duplicates resent by its failed upstream replicas:
  f_i = max(activated_i, f_j) + o_i·b_i·P / resend_rate.
- Source replay (Storm): once every failed task is redeployed, the spouts re-emit the last W
  seconds of the sources feeding a failed task; the replayed tuples flow, pipelined, through
  every task between the sources and the failed task. The replay takes its slowest stage: a
  source node re-emits at ``source_replay_rate`` less its live load, an alive task processes
  its replayed share with its spare capacity μ - λ_j, a failed task at μ. Pipeline fill is
  neglected.
- PPA: the plan's tasks are actively replicated, the others checkpointed. An active replica never
  waits for a passive upstream task (tentative outputs, Section V-B) and a passive task never
  waits for an active upstream one (its replica is at the pre-failure progress already).

Contention for the shared standby resources (assumptions, without which PPA-0.5's active tasks
could not recover before PPA-1.0's): the recovery manager handles failed tasks one at a time,
``coordination`` seconds each, actively replicated tasks first, then in topological order; and
the checkpoint loads of a correlated failure share ``store_bandwidth``.

Checkpoint CPU cost (Fig 9): each checkpoint serializes the state λ·W at ``serialize_rate`` plus
a fixed ``checkpoint_overhead``; its ratio to the normal computation λ/μ per second is
(checkpoint_overhead + λ·W/serialize_rate) / C / (λ/μ).
"""

import functools
import itertools
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields

import numpy as np
import pandas as pd

from ppa.fidelity import of_batch
from ppa.topology import Topology

CHECKPOINT, ACTIVE = "checkpoint", "active"
# Fig 10's plans: the share of non-source tasks actively replicated.
PLANS = {"PPA-0": 0.0, "PPA-0.5": 0.5, "PPA-1.0": 1.0}


@dataclass(frozen=True, kw_only=True)
class LatencyParams:
    """Constants of the latency model. Only ``selectivity`` and ``source_nodes`` are printed
    (Section VI-A); every other value is an assumption, stated beside it."""

    # Section VI-A: "the selectivity of the synthetic operator is set as 0.5".
    selectivity: float = 0.5
    # Section VI-A: 16 source tasks "on average deployed on 4 nodes".
    source_nodes: int = 4
    # Assumption: tuples/s one task processes on an m1.medium (a window append), 5-10x its
    # nominal input of 2000-4000 tuples/s.
    process_rate: float = 20_000.0
    # Assumption: bytes per tuple (synthetic tuples of a few fields).
    tuple_bytes: float = 100.0
    # Assumption: bytes/s of one checkpoint load from a standby node (100 Mbit/s).
    load_bandwidth: float = 12.5e6
    # Assumption: bytes/s of the standby store shared by concurrent loads (contention).
    store_bandwidth: float = 50e6
    # Assumption: s to redeploy a failed task on a standby node (worker launch, wiring).
    restart: float = 2.0
    # Assumption: s to switch on an active replica's output.
    activation: float = 0.2
    # Assumption: s the recovery manager spends per failed task, one task at a time.
    coordination: float = 0.05
    # Assumption: tuples/s a replica resends and its downstream deduplicates.
    resend_rate: float = 20_000.0
    # Assumption: tuples/s one source node re-emits for a replay (live load included).
    source_replay_rate: float = 20_000.0
    # Assumption: tuples/s of state one checkpoint serializes.
    serialize_rate: float = 200_000.0
    # Assumption: CPU seconds of fixed cost per checkpoint.
    checkpoint_overhead: float = 0.05

    def __post_init__(self):
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "selectivity":
                ok = isinstance(value, int | float) and 0 < value <= 1
                allowed = "in (0, 1]"
            elif f.name == "source_nodes":
                ok = isinstance(value, int) and not isinstance(value, bool) and value >= 1
                allowed = "an integer >= 1"
            elif f.name == "coordination":
                ok = isinstance(value, int | float) and math.isfinite(value) and value >= 0
                allowed = "a finite number >= 0"
            else:
                ok = isinstance(value, int | float) and math.isfinite(value) and value > 0
                allowed = "a finite number > 0"
            if isinstance(value, bool) or not ok:
                raise ValueError(f"{f.name} must be {allowed}; got {value!r}")


@dataclass(frozen=True)
class Phases:
    """Where in its period each task's failure falls, uniform in [0, 1): ``checkpoint[d, i]``
    is the fraction of a checkpoint interval since task i's last checkpoint in draw d, ``sync``
    the fraction of a sync period since its replica's last trim. Tasks are those of
    ``topology.tasks``. Drawn once and reused for every scheme and parameter (common random
    numbers), so differences between schemes are paired by draw."""

    checkpoint: np.ndarray
    sync: np.ndarray

    @classmethod
    def draw(cls, topology: Topology, draws: int, rng: np.random.Generator) -> "Phases":
        if isinstance(draws, bool) or not isinstance(draws, int) or draws < 1:
            raise ValueError(f"draws must be an integer >= 1; got {draws!r}")
        shape = (draws, len(topology.tasks))
        return cls(rng.random(shape), rng.random(shape))


@dataclass(frozen=True)
class _Flows:
    """Nominal flows of a topology fed by ``rate`` tuples/s per source task."""

    sources: np.ndarray  # indices of the source tasks
    upstream: tuple[tuple[int, ...], ...]  # per task, its upstream tasks
    inflow: np.ndarray  # (tasks, sources): tuples/s of each source's data in a task's input
    input_rate: np.ndarray  # λ_i per task (0 for a source)
    node: np.ndarray  # per source (in ``sources`` order), its node


def _positive(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ValueError(f"{name} must be a number > 0; got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite; got {value!r}")
    return float(value)


@functools.lru_cache(maxsize=64)
def _flows(topology: Topology, rate: float, params: LatencyParams) -> _Flows:
    """The flows of ``topology`` at ``rate`` (read-only arrays): one per (topology, rate,
    params), which the latency tables and the rules ask for thousands of times. A Topology is
    frozen and hashed by identity, LatencyParams by value."""
    index = {t: k for k, t in enumerate(topology.tasks)}
    first = next(iter(topology.operators))
    sources = np.array([index[t] for t in topology.operators[first]])
    upstream = [[] for _ in topology.tasks]
    out_total = np.zeros(len(topology.tasks))
    for (a, b), r in topology.rates.items():
        upstream[index[b]].append(index[a])
        out_total[index[a]] += r
    inflow = np.zeros((len(topology.tasks), len(sources)))
    output = np.zeros_like(inflow)
    output[sources, np.arange(len(sources))] = rate
    for k in range(len(topology.tasks)):  # topological order: upstream tasks come first
        for j in upstream[k]:
            # An upstream task splits its output over its substreams in proportion to their rates.
            share = topology.rates[(topology.tasks[j], topology.tasks[k])] / out_total[j]
            inflow[k] += output[j] * share
        if upstream[k]:
            output[k] = params.selectivity * inflow[k]
    input_rate = inflow.sum(axis=1)
    if (busiest := input_rate.max()) >= params.process_rate:
        raise ValueError(
            f"process_rate must exceed every task's input rate ({busiest:g} tuples/s at "
            f"rate={rate:g}); got {params.process_rate:g}"
        )
    node = np.arange(len(sources)) * params.source_nodes // len(sources)
    live = np.bincount(node, minlength=params.source_nodes) * rate
    if live.max() >= params.source_replay_rate:
        raise ValueError(
            f"source_replay_rate must exceed a source node's live load ({live.max():g} "
            f"tuples/s); got {params.source_replay_rate:g}"
        )
    for array in (sources, inflow, input_rate, node):
        array.setflags(write=False)
    return _Flows(sources, tuple(map(tuple, upstream)), inflow, input_rate, node)


def _failed_indices(topology: Topology, failed: Iterable[str], flows: _Flows) -> list[int]:
    mask = topology.mask(failed, name="failed")
    if mask[flows.sources].any():
        raise ValueError("failed must not name source tasks: the sources never fail (Section VI-A)")
    if not mask.any():
        raise ValueError("failed must name at least one task")
    return [int(k) for k in np.flatnonzero(mask)]


def recovery_times(
    topology: Topology,
    *,
    failed: Iterable[str],
    active: Iterable[str] = frozenset(),
    rate: float,
    window: float,
    checkpoint_interval: float,
    sync_period: float,
    phases: Phases,
    params: LatencyParams = LatencyParams(),
    ready: Mapping[str, float | np.ndarray] | None = None,
    input_rates: Mapping[str, float] | None = None,
) -> dict[str, np.ndarray]:
    """Latency (s after detection, one value per draw of ``phases``) of each failed task when
    the tasks ``failed`` fail together: those in ``active`` recover from their active replicas,
    the others from checkpoints (module docstring).

    Without standby nodes (``ready``), a failed passive task can restart only once a node for it
    is ready, ``ready[task]`` s after detection (a number, or one per draw of ``phases``; tasks
    not named are ready at once). Active replicas run on their own nodes and need none (Section
    II-B), so ``ready`` must not name them. With d_i = ready[i]:
    s_i = max(d_i + begin_i + restart + load_i, s_j) and
    f_i = max(s_i + λ_i·a_i·C/μ + λ_i·d_i/(μ - λ_i), f_j) over failed passive upstream tasks j:
    the input that queued while i waited for its node, λ_i·d_i, is caught up at the spare rate
    μ - λ_i (the input arriving during the short restart and reprocessing is neglected). The
    checkpoint loads share ``store_bandwidth`` as if concurrent, which overstates contention
    when arrivals are spread (loads are small next to minutes of waiting).

    ``input_rates`` overrides a task's input rate λ_i (in (0, process_rate)): the flow model
    splits a task's output over its outgoing streams, which a broadcast edge does not."""
    rate, window = _positive("rate", rate), _positive("window", window)
    interval = _positive("checkpoint_interval", checkpoint_interval)
    period = _positive("sync_period", sync_period)
    flows = _flows(topology, rate, params)
    order = _failed_indices(topology, failed, flows)
    replicated = topology.mask(active, name="active")
    if unfailed := [topology.tasks[k] for k in np.flatnonzero(replicated) if k not in order]:
        raise ValueError(f"active must be a subset of failed; {sorted(unfailed)} did not fail")
    mu = params.process_rate
    lam_of = flows.input_rate.copy()
    for task, value in (input_rates or {}).items():
        if task not in topology.tasks:
            raise ValueError(f"input_rates names an unknown task {task!r}")
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < mu:
            raise ValueError(
                f"input_rates[{task!r}] must be a number in (0, process_rate = {mu:g}); "
                f"got {value!r}"
            )
        lam_of[topology.tasks.index(task)] = float(value)
    draws = phases.checkpoint.shape[0]
    delay = np.zeros((len(topology.tasks), draws))
    index = {t: k for k, t in enumerate(topology.tasks)}
    for task, value in (ready or {}).items():
        k = index.get(task)
        if k is None or k not in order or replicated[k]:
            raise ValueError(
                f"ready must name failed passive tasks only; got {task!r} (an active replica "
                f"needs no new node)"
            )
        value = np.broadcast_to(np.asarray(value, dtype=float), (draws,))
        if not (np.all(np.isfinite(value)) and np.all(value >= 0)):
            raise ValueError(f"ready[{task!r}] must be finite and >= 0; got {value!r}")
        delay[k] = value
    queue = {k: q for q, k in enumerate(sorted(order, key=lambda k: not replicated[k]), start=1)}
    passive = [k for k in order if not replicated[k]]
    bandwidth = min(params.load_bandwidth, params.store_bandwidth / max(len(passive), 1))
    start, finish = {}, {}
    for k in order:
        lam = lam_of[k]
        waits_on = [j for j in flows.upstream[k] if j in finish and replicated[j] == replicated[k]]
        begin = queue[k] * params.coordination
        if replicated[k]:
            ready_k = np.full(draws, begin + params.activation)
            resend = params.selectivity * lam * phases.sync[:, k] * period / params.resend_rate
            finish[k] = np.maximum.reduce([ready_k, *(finish[j] for j in waits_on)]) + resend
        else:
            load = lam * window * params.tuple_bytes / bandwidth
            ready_k = delay[k] + begin + params.restart + load
            start[k] = np.maximum.reduce([ready_k, *(start[j] for j in waits_on)])
            own = start[k] + lam * phases.checkpoint[:, k] * interval / mu
            if delay[k].any():  # the input queued while waiting for the node
                own = own + lam * delay[k] / (mu - lam)
            finish[k] = np.maximum.reduce([own, *(finish[j] for j in waits_on)])
    return {topology.tasks[k]: finish[k] for k in order}


def source_replay_times(
    topology: Topology,
    *,
    failed: Iterable[str],
    rate: float,
    window: float,
    params: LatencyParams = LatencyParams(),
) -> dict[str, float]:
    """Latency (s after detection) of each failed task under Storm's source replay (module
    docstring); deterministic."""
    rate, window = _positive("rate", rate), _positive("window", window)
    flows = _flows(topology, rate, params)
    order = _failed_indices(topology, failed, flows)
    is_failed = np.zeros(len(topology.tasks), dtype=bool)
    is_failed[order] = True
    replayed = (flows.inflow[order] > 0).any(axis=0)  # sources feeding a failed task
    node_volume = np.bincount(
        flows.node, weights=replayed * rate * window, minlength=params.source_nodes
    )
    node_live = np.bincount(flows.node, minlength=params.source_nodes) * rate
    node_time = node_volume / (params.source_replay_rate - node_live)
    # Each task's share of the replay and the speed it processes it at.
    volume = flows.inflow[:, replayed].sum(axis=1) * window
    speed = np.where(is_failed, params.process_rate, params.process_rate - flows.input_rate)
    stage = volume / speed
    begin = len(order) * params.coordination + params.restart
    out = {}
    for k in order:
        ancestors = flows.inflow[k] > 0
        path = [k, *_ancestors(flows, k)]
        slowest = max(node_time[np.unique(flows.node[ancestors])].max(), stage[path].max())
        out[topology.tasks[k]] = begin + float(slowest)
    return out


def _ancestors(flows: _Flows, k: int) -> set[int]:
    seen, stack, sources = set(), list(flows.upstream[k]), set(flows.sources.tolist())
    while stack:
        j = stack.pop()
        if j not in seen and j not in sources:
            seen.add(j)
            stack.extend(flows.upstream[j])
    return seen


def single_failure(
    topology: Topology,
    *,
    scheme: str,
    rate: float,
    window: float,
    period: float | None = None,
    phases: Phases | None = None,
    params: LatencyParams = LatencyParams(),
) -> np.ndarray:
    """Fig 7: latency of one failed task averaged over task positions (the mean over the
    non-source operators of the mean over their tasks), one value per draw.

    scheme: "storm" (no period, deterministic: one value), "checkpoint" (period = checkpoint
    interval) or "active" (period = sync period); the latter two need ``phases``."""
    operators = list(topology.operators)[1:]
    if scheme == "storm":
        per_task = {
            t: source_replay_times(topology, failed={t}, rate=rate, window=window, params=params)[t]
            for op in operators
            for t in topology.operators[op]
        }
        return np.array(
            [np.mean([np.mean([per_task[t] for t in topology.operators[op]]) for op in operators])]
        )
    if scheme not in (CHECKPOINT, ACTIVE):
        raise ValueError(f"scheme must be 'storm', 'checkpoint' or 'active'; got {scheme!r}")
    if phases is None:
        raise ValueError(f"phases must be given for scheme {scheme!r}")
    per_op = []
    for op in operators:
        per_op.append(
            np.mean(
                [
                    recovery_times(
                        topology,
                        failed={t},
                        active={t} if scheme == ACTIVE else (),
                        rate=rate,
                        window=window,
                        checkpoint_interval=_positive("period", period),
                        sync_period=_positive("period", period),
                        phases=phases,
                        params=params,
                    )[t]
                    for t in topology.operators[op]
                ],
                axis=0,
            )
        )
    return np.mean(per_op, axis=0)


def non_sources(topology: Topology) -> frozenset[str]:
    """The tasks that fail in a correlated failure: all but the source operator's."""
    first = next(iter(topology.operators))
    return frozenset(topology.tasks) - frozenset(topology.operators[first])


def correlated_failure(
    topology: Topology,
    *,
    scheme: str,
    rate: float,
    window: float,
    period: float | None = None,
    phases: Phases | None = None,
    params: LatencyParams = LatencyParams(),
) -> np.ndarray:
    """Fig 8: time until every non-source task has recovered when all fail together, per draw
    (``scheme`` and ``period`` as in ``single_failure``)."""
    failed = non_sources(topology)
    if scheme == "storm":
        times = source_replay_times(
            topology, failed=failed, rate=rate, window=window, params=params
        )
        return np.array([max(times.values())])
    if scheme not in (CHECKPOINT, ACTIVE):
        raise ValueError(f"scheme must be 'storm', 'checkpoint' or 'active'; got {scheme!r}")
    if phases is None:
        raise ValueError(f"phases must be given for scheme {scheme!r}")
    times = recovery_times(
        topology,
        failed=failed,
        active=failed if scheme == ACTIVE else (),
        rate=rate,
        window=window,
        checkpoint_interval=_positive("period", period),
        sync_period=_positive("period", period),
        phases=phases,
        params=params,
    )
    return np.max(list(times.values()), axis=0)


def ppa_plan(topology: Topology, fraction: float) -> frozenset[str]:
    """The PPA-``fraction`` plan of Fig 10: round(fraction x non-source tasks) tasks (halves
    rounded up) with the highest OF when all other non-source tasks fail, by exhaustive search;
    the sources are alive, so they are not part of the budget. Ties go to the first in
    topological order."""
    if isinstance(fraction, bool) or not (isinstance(fraction, int | float) and 0 <= fraction <= 1):
        raise ValueError(f"fraction must be in [0, 1]; got {fraction!r}")
    candidates = [k for k, t in enumerate(topology.tasks) if t in non_sources(topology)]
    size = math.floor(fraction * len(candidates) + 0.5)
    if size == 0:
        return frozenset()
    combos = np.array(list(itertools.combinations(candidates, size)), dtype=int).reshape(-1, size)
    alive = np.ones((len(combos), len(topology.tasks)), dtype=bool)
    alive[:, candidates] = False
    alive[np.arange(len(combos))[:, None], combos] = True
    best = combos[int(np.argmax(of_batch(topology, alive)))]
    return frozenset(topology.tasks[k] for k in best)


def ppa_recovery(
    topology: Topology,
    *,
    active: Iterable[str],
    rate: float,
    window: float,
    checkpoint_interval: float,
    sync_period: float,
    phases: Phases,
    params: LatencyParams = LatencyParams(),
) -> tuple[np.ndarray, np.ndarray]:
    """Fig 10: under a correlated failure with the plan ``active``, the time until every failed
    task has recovered and the time until every actively replicated one has (when tentative
    outputs can start; NaN for an empty plan), per draw."""
    active = frozenset(active)
    times = recovery_times(
        topology,
        failed=non_sources(topology),
        active=active,
        rate=rate,
        window=window,
        checkpoint_interval=checkpoint_interval,
        sync_period=sync_period,
        phases=phases,
        params=params,
    )
    everything = np.max(list(times.values()), axis=0)
    if not active:
        return everything, np.full_like(everything, np.nan)
    return everything, np.max([times[t] for t in active], axis=0)


def checkpoint_cpu_ratio(
    *, input_rate, window: float, interval, params: LatencyParams = LatencyParams()
) -> np.ndarray:
    """Fig 9: CPU time of maintaining checkpoints over that of the normal computation of a task
    with input ``input_rate`` (tuples/s) and state ``input_rate`` x ``window`` (module
    docstring); broadcasts over arrays of rates and intervals."""
    lam, c = np.asarray(input_rate, dtype=float), np.asarray(interval, dtype=float)
    window = _positive("window", window)
    if not (np.all(lam > 0) and np.all(np.isfinite(lam))):
        raise ValueError(f"input_rate must be finite and > 0; got {input_rate!r}")
    if not (np.all(c > 0) and np.all(np.isfinite(c))):
        raise ValueError(f"interval must be finite and > 0; got {interval!r}")
    per_checkpoint = params.checkpoint_overhead + lam * window / params.serialize_rate
    return per_checkpoint / c / (lam / params.process_rate)


def latency_table(
    topology: Topology,
    *,
    failure: str,
    rates: Iterable[float],
    windows: Iterable[float],
    checkpoint_intervals: Iterable[float],
    sync_periods: Iterable[float],
    phases: Phases,
    params: LatencyParams = LatencyParams(),
) -> pd.DataFrame:
    """Figs 7 (``failure="single"``) and 8 (``"correlated"``): one row per scheme, period, rate,
    window and draw, with columns failure, scheme, period (NaN for storm), rate, window, draw,
    latency. Storm's deterministic latency is repeated on every draw so that every comparison
    pairs by draw."""
    model = {"single": single_failure, "correlated": correlated_failure}.get(failure)
    if model is None:
        raise ValueError(f"failure must be 'single' or 'correlated'; got {failure!r}")
    draws = np.arange(phases.checkpoint.shape[0])
    cases = [("storm", math.nan)]
    cases += [(CHECKPOINT, float(c)) for c in checkpoint_intervals]
    cases += [(ACTIVE, float(p)) for p in sync_periods]
    parts = []
    for rate in rates:
        for window in windows:
            for scheme, period in cases:
                latency = model(
                    topology,
                    scheme=scheme,
                    rate=rate,
                    window=window,
                    period=None if scheme == "storm" else period,
                    phases=phases,
                    params=params,
                )
                parts.append(
                    pd.DataFrame(
                        {
                            "failure": failure,
                            "scheme": scheme,
                            "period": period,
                            "rate": float(rate),
                            "window": float(window),
                            "draw": draws,
                            "latency": np.broadcast_to(latency, draws.shape),
                        }
                    )
                )
    return pd.concat(parts, ignore_index=True)


def ppa_table(
    topology: Topology,
    *,
    rates: Iterable[float],
    window: float,
    checkpoint_interval: float,
    sync_period: float,
    phases: Phases,
    params: LatencyParams = LatencyParams(),
) -> pd.DataFrame:
    """Fig 10: one row per plan (PPA-0, PPA-0.5, PPA-1.0 and PPA-0.5-active), rate and draw,
    with columns plan, rate, draw, latency."""
    draws = np.arange(phases.checkpoint.shape[0])
    parts = []
    for rate in rates:
        for label, fraction in PLANS.items():
            everything, active = ppa_recovery(
                topology,
                active=ppa_plan(topology, fraction),
                rate=rate,
                window=window,
                checkpoint_interval=checkpoint_interval,
                sync_period=sync_period,
                phases=phases,
                params=params,
            )
            series = {label: everything}
            if label == "PPA-0.5":
                series["PPA-0.5-active"] = active
            for plan, latency in series.items():
                parts.append(
                    pd.DataFrame(
                        {"plan": plan, "rate": float(rate), "draw": draws, "latency": latency}
                    )
                )
    return pd.concat(parts, ignore_index=True)
