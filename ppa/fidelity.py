"""Information loss, output fidelity (Section III-A), internal completeness, MC-trees (III-B).

Su & Zhou, Eqs. (1)-(4). IL of a failed task is 1; a substream's IL is its producer's; a stream's
IL is the rate-weighted mean of its substreams' (1); a join task's IL is 1 - Π_j (1 - IL_j) over
its input streams (2); an independent-input task's IL is the rate-weighted mean over its input
streams (3). The printed (3) reads Σ_j λ_{i,p} IL_{i,p} / Σ_k λ_{i,k}, an index typo for
Σ_j λ_{i,j} IL_{i,j} / Σ_k λ_{i,k}: only the corrected form gives the paper's own Fig 2 value
IL_31 = 1/4. OF = 1 minus the λ_out-weighted mean IL of the sink tasks (4).

Internally everything is computed on completeness a = 1 - IL, vectorized over many failure sets
at once: ``alive`` is a (plans, tasks) boolean array over ``topology.tasks``.

IC, the metric of Bellavista et al. [4] that the paper compares OF with, is not defined in the
paper beyond "the fraction of the tuples that are expected to be processed by all the tasks in
case of failures compared to the case without failures". Here: the sum over non-source tasks of
the input each processes under the failure (a failed task processes nothing; an alive task
receives each substream's rate times its producer's completeness, propagated by the union rule
(3) whatever the operator type, since IC ignores input correlation), over the failure-free sum.
"""

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ppa.topology import Topology

DEFAULT_TREE_LIMIT = 200_000  # MC-trees grow as the product of parallelisms (Section IV-C)


def completeness(topology: Topology, alive: np.ndarray, *, union: bool = False) -> list:
    """a = 1 - IL per operator (arrays of shape (plans, tasks of the operator)), Eqs. (1)-(3).

    union=True treats every operator as independent-input (the IC propagation)."""
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
            for a, shares in c.join_shares[b]:  # Eq. (1) per stream, then Eq. (2)
                a_b *= out[a] @ shares
        else:  # Eq. (3), corrected
            a_b *= sum(out[a] @ rates.T for a, rates in blocks) / c.input_totals[b]
        out.append(a_b)
    return out


def of_batch(topology: Topology, alive: np.ndarray) -> np.ndarray:
    """OF (Eq. (4)) of each row of ``alive`` (plans, tasks)."""
    return completeness(topology, alive)[-1] @ topology._compiled.sink_weights


def ic_batch(topology: Topology, alive: np.ndarray) -> np.ndarray:
    """IC (module docstring) of each row of ``alive`` (plans, tasks)."""
    c = topology._compiled
    alive = np.atleast_2d(alive)
    a = completeness(topology, alive, union=True)
    processed = np.zeros(alive.shape[0])
    nominal = 0.0
    for b, s in enumerate(c.slices):
        for k, rates in c.inputs[b]:
            processed += (alive[:, s] * (a[k] @ rates.T)).sum(axis=1)
            nominal += rates.sum()
    return processed / nominal


def _alive(topology: Topology, failed: Iterable[str]) -> np.ndarray:
    return ~topology.mask(failed, name="failed")


def information_loss(topology: Topology, failed: Iterable[str] = frozenset()) -> dict[str, float]:
    """IL_i^out of every task when the tasks in ``failed`` fail, Eqs. (1)-(3)."""
    a = np.concatenate([x[0] for x in completeness(topology, _alive(topology, failed))])
    return dict(zip(topology.tasks, (1 - a).tolist(), strict=True))


def output_fidelity(topology: Topology, failed: Iterable[str] = frozenset()) -> float:
    """OF_T (Eq. (4)) when the tasks in ``failed`` fail; in [0, 1]."""
    return float(of_batch(topology, _alive(topology, failed))[0])


def internal_completeness(topology: Topology, failed: Iterable[str] = frozenset()) -> float:
    """IC (module docstring) when the tasks in ``failed`` fail; in [0, 1]."""
    return float(ic_batch(topology, _alive(topology, failed))[0])


@dataclass(frozen=True, kw_only=True)
class MCTree:
    """A minimal complete tree (Definition 1) as its set of tasks, with its weight w_T: the sink
    task's λ_out share times, at each task, the chosen substream's rate share (within its stream
    for a join, among all input substreams for an independent operator). OF(P) = Σ_{T ⊆ P} w_T."""

    tasks: frozenset[str]
    weight: float


def mc_trees(topology: Topology, *, limit: int = DEFAULT_TREE_LIMIT) -> tuple[MCTree, ...]:
    """All MC-trees of the topology (Definition 1), the expansions with the same task set merged
    (a DAG can reach a task by two paths); their weights sum to 1. More than ``limit`` raises
    ValueError: their number is the product of parallelisms along the topology (Section IV-C)."""
    masks, weights = tree_masks(topology, limit=limit)
    return tuple(
        MCTree(tasks=frozenset(t for i, t in enumerate(topology.tasks) if m >> i & 1), weight=w)
        for m, w in zip(masks, weights.tolist(), strict=True)
    )


def tree_masks(
    topology: Topology, operators: Iterable[int] | None = None, *, limit: int = DEFAULT_TREE_LIMIT
) -> tuple[list[int], np.ndarray]:
    """MC-trees as task bit masks (bit i: ``topology.tasks[i]``) and weights, of the topology or
    of the sub-topology made of the given operator indices (its sources are its operators without
    upstream inside it, its roots those without downstream inside it, weighted by λ_out: the
    sink rate for the sink, the sum of the output substreams' rates otherwise)."""
    c = topology._compiled
    ops = sorted(range(len(c.slices)) if operators is None else set(operators))
    inside = set(ops)
    names = list(topology.operators)
    trees: dict[int, list[tuple[int, float]]] = {}
    for b in ops:
        blocks = [(a, r) for a, r in c.inputs[b] if a in inside]
        for row, t in enumerate(range(c.slices[b].start, c.slices[b].stop)):
            if not blocks:
                trees[t] = [(1 << t, 1.0)]
                continue
            streams = []
            for a, rates in blocks:
                start = c.slices[a].start
                streams.append(
                    [(int(j) + start, rates[row, j]) for j in np.flatnonzero(rates[row])]
                )
            if c.joins[b]:
                options = [(1 << t, 1.0)]
                for stream in streams:
                    total = sum(r for _, r in stream)
                    options = [
                        (m | mu, w * wu * r / total)
                        for m, w in options
                        for u, r in stream
                        for mu, wu in trees[u]
                    ]
                    _check(len(options), limit)
            else:
                total = sum(r for stream in streams for _, r in stream)
                options = [
                    (1 << t | mu, wu * r / total)
                    for stream in streams
                    for u, r in stream
                    for mu, wu in trees[u]
                ]
                _check(len(options), limit)
            trees[t] = options
    roots = [
        b for b in ops if not any(names.index(d) in inside for d in topology.downstream[names[b]])
    ]
    lam = {}
    for b in roots:
        s = c.slices[b]
        if names[b] == topology.sink:
            out = np.array([topology.sink_rates[t] for t in topology.operators[names[b]]])
        else:
            out = np.zeros(s.stop - s.start)
            for d in topology.downstream[names[b]]:
                k = names.index(d)
                out += next(r for a, r in c.inputs[k] if a == b).sum(axis=0)
        lam.update(zip(range(s.start, s.stop), out.tolist(), strict=True))
    total = sum(lam.values())
    merged: dict[int, float] = {}
    for t, out in lam.items():
        for m, w in trees[t]:
            merged[m] = merged.get(m, 0.0) + out / total * w
    _check(len(merged), limit)
    return list(merged), np.fromiter(merged.values(), dtype=float, count=len(merged))


def _check(count: int, limit: int) -> None:
    if count > limit:
        raise ValueError(f"the topology has more than limit = {limit} MC-trees")
