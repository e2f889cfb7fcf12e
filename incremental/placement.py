"""Placement of a plan on nodes, and plans executed as recovery nodes arrive (Section 5's last
paragraph, Section 4.4 and Fig 6).

- A node runs at most ``cpu_cap`` (80%, Section 5) of its capacity during recovery.
- A plan's partitions go, largest first, each to the node with the most free capacity (Section 5:
  "the node with the maximal amount of available resources"); a partition that fits nowhere is
  deferred, and so are its queries (no plan recovers them until it runs; the plan's other
  partitions still run). The paper assumes fine-grained partitions and is silent on this.
- R of a plan is the free capacity of all nodes; what a plan leaves unused carries over.
- A plan is made at the failure (alive nodes' spare capacity, Fig 6) and at every arrival, on
  the partitions still failed.

Capacities and costs share one unit (CPU percent of a node, Section 2.3).
"""

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Real

from incremental.best_density import schedule_best_density
from incremental.problem import TOLERANCE, RecoveryProblem, Schedule

CPU_CAP = 0.8  # Section 5: "an upper bound (e.g., 80%) ... of each node"


@dataclass(frozen=True, kw_only=True)
class Placement:
    """Where each placed partition runs, what was deferred, and each node's free capacity after."""

    nodes: Mapping[Hashable, int]
    deferred: frozenset
    free: tuple[float, ...]


def place(costs: Mapping[Hashable, float], free: Sequence[float]) -> Placement:
    """Largest partition first, each to the node with the most free capacity (ties: the first)."""
    free = [float(f) for f in free]
    if any(f < -TOLERANCE for f in free):
        raise ValueError(f"free capacities must be >= 0; got {free}")
    nodes, deferred = {}, set()
    for p in sorted(costs, key=lambda p: -costs[p]):  # stable: ties keep the given order
        roomiest = max(range(len(free)), key=lambda n: (free[n], -n), default=None)
        if roomiest is None or costs[p] > free[roomiest] + TOLERANCE:
            deferred.add(p)
            continue
        nodes[p] = roomiest
        free[roomiest] = max(0.0, free[roomiest] - costs[p])
    return Placement(nodes=nodes, deferred=frozenset(deferred), free=tuple(free))


@dataclass(frozen=True, kw_only=True)
class RecoveryStep:
    """One planning event: 0 at the failure, then one per node arrival.

    plan: the scheduler's plan on the partitions still failed (its ``queries`` are those it
        closes among the remaining ones).
    placement: where the plan's partitions went; ``placement.deferred`` wait for a later plan.
    recovered / recovered_queries / priority: cumulative, over the whole original problem.
    """

    arrival: int
    time: float
    plan: Schedule
    placement: Placement
    recovered: frozenset
    recovered_queries: frozenset
    priority: int


def _arrivals(arrivals) -> list[tuple[float, float]]:
    checked = []
    for item in arrivals:
        if not isinstance(item, tuple) or len(item) != 2:
            raise ValueError(f"arrivals must be (time, capacity) pairs; got {item!r}")
        time, capacity = item
        if not isinstance(time, Real) or not isinstance(capacity, Real) or capacity <= 0:
            raise ValueError(f"arrival {item!r} needs a time and a capacity > 0")
        if checked and time < checked[-1][0]:
            raise ValueError(f"arrivals must be sorted by time; {time} follows {checked[-1][0]}")
        checked.append((float(time), float(capacity)))
    return checked


def recover_as_nodes_arrive(
    problem: RecoveryProblem,
    arrivals: Iterable[tuple[float, float]],
    *,
    scheduler: Callable[[RecoveryProblem, float], Schedule] = schedule_best_density,
    cpu_cap: float = CPU_CAP,
    alive_free: Sequence[float] = (),
) -> tuple[RecoveryStep, ...]:
    """Incremental recovery as nodes arrive (Algorithm 2's plans, Fig 6).

    arrivals: (time, capacity) of each new node, sorted by time; the failure is at time 0.
    scheduler: (problem, R) -> Schedule, e.g. schedule_best_density or schedule_operator_centric.
    cpu_cap: the fraction of a node's capacity recovery may use, in (0, 1].
    alive_free: spare capacity of the alive nodes under the cap, available to the first plan.
    """
    if not 0 < cpu_cap <= 1:
        raise ValueError(f"cpu_cap must be in (0, 1]; got {cpu_cap}")
    arrivals = _arrivals(arrivals)
    free = [float(f) for f in alive_free]
    recovered: frozenset = frozenset()
    steps = []
    for arrival, (time, capacity) in enumerate([(0.0, None), *arrivals]):
        if capacity is not None:
            free.append(cpu_cap * capacity)
        left = problem.remaining(recovered)
        plan = scheduler(left, max(0.0, sum(free))) if left is not None else problem.schedule(())
        # In the problem's order, not the frozenset's: ties in place() stay reproducible.
        placement = place({p: c for p, c in problem.costs.items() if p in plan.partitions}, free)
        free = list(placement.free)
        recovered = recovered | placement.nodes.keys()
        total = problem.schedule(recovered)
        steps.append(
            RecoveryStep(
                arrival=arrival,
                time=time,
                plan=plan,
                placement=placement,
                recovered=recovered,
                recovered_queries=total.queries,
                priority=total.priority,
            )
        )
    return tuple(steps)


def query_recovery_times(
    problem: RecoveryProblem,
    arrivals: Iterable[tuple[float, float]],
    *,
    blocking: bool = False,
    scheduler: Callable[[RecoveryProblem, float], Schedule] = schedule_best_density,
    cpu_cap: float = CPU_CAP,
    alive_free: Sequence[float] = (),
    restart: float = 0.0,
    lost: float = 0.0,
    rho: float = 0.0,
) -> dict[Hashable, float]:
    """When each failed query is back (Section 7.2's recovery time, in the model's terms), for
    plans executed as nodes arrive (``recover_as_nodes_arrive``, Fig 6) or for blocking
    recovery (``blocking=True``: Section 7's baseline, which waits until every failed partition
    is placed and rolls the whole topology back to the last global checkpoint).

    A partition placed at time t (the planning event's time: 0 at detection, then its node's
    arrival) restarts ``restart`` s later from the consistent checkpoint taken ``lost`` s before
    the failure (Section 4.1), then replays the input of those t + restart + lost seconds while
    new input keeps arriving: at utilization ``rho`` = λ/μ (input over maximal throughput)
    catching up takes (t + restart + lost)·rho/(1 - rho). A query is back when all its failed
    partitions are (blocking: when all failed partitions are); ``math.inf`` if never (the
    arrivals do not give enough capacity). Times in s after detection, rates in the units of
    ``arrivals``."""
    for name, value in (("restart", restart), ("lost", lost)):
        if isinstance(value, bool) or not isinstance(value, Real) or not 0 <= value < math.inf:
            raise ValueError(f"{name} must be a finite number >= 0; got {value!r}")
    if isinstance(rho, bool) or not isinstance(rho, Real) or not 0 <= rho < 1:
        raise ValueError(f"rho must be in [0, 1) (input rate over maximal throughput); got {rho!r}")
    if blocking:

        def everything(left: RecoveryProblem, R: float) -> Schedule:
            total = float(left.cost_array.sum())
            return left.schedule(left.partitions if R + TOLERANCE >= total else ())

        scheduler = everything
    steps = recover_as_nodes_arrive(
        problem, arrivals, scheduler=scheduler, cpu_cap=cpu_cap, alive_free=alive_free
    )
    placed: dict = {}
    for step in steps:
        for p in step.placement.nodes:
            placed.setdefault(p, step.time)
    if blocking:
        t_all = max(placed.values()) if len(placed) == len(problem.costs) else math.inf
        placed = dict.fromkeys(problem.costs, t_all)

    def back(t: float) -> float:
        if math.isinf(t):
            return math.inf
        return t + restart + (t + restart + lost) * rho / (1 - rho)

    return {
        q: max(back(placed.get(p, math.inf)) for p in failed)
        for q, (failed, _) in problem.queries.items()
    }
