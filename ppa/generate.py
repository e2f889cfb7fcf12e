"""Random topologies of Fig 14 (Section VI-C of Su & Zhou).

The caption fixes 5-10 operators and the four factors: task workloads uniform or Zipfian
(s = 0.1), parallelism ranges, structured or full partitioning, 0% or 50% join operators.
Choices where the paper is silent, each a field of ``TopologySpec``:
- shape: an in-tree with the sink last, each other operator subscribed to by one operator drawn
  uniformly among the later ones (a random recursive tree, like Figs 1 and 11);
- parallelism: uniform in the range (the paper's ranges are not printed; default 1-10);
- structured: every edge into the sink is full (only the operators producing the outputs may be
  full, IV-C), every other edge is one-to-one, split or merge, drawn uniformly among those whose
  task counts fit the range, with M uniform among the fitting factors; full: every edge is full;
- workloads: a task's output rate (``Topology.partitioned``); Zipf gives the tasks of an operator
  rates proportional to rank^-s over a random ranking, scaled to mean 1;
- joins: join_fraction of the operators, rounded, drawn among those with two or more inputs (a
  one-input join is an independent operator), as many as there are when fewer.
"""

from dataclasses import dataclass

import numpy as np

from ppa.topology import FULL, MERGE, ONE_TO_ONE, SPLIT, Topology

WORKLOADS = ("uniform", "zipf")
STRUCTURES = ("structured", "full")


@dataclass(frozen=True, kw_only=True)
class TopologySpec:
    """A Fig 14 specification; defaults: the caption where it gives a value, else noted."""

    operators: tuple[int, int] = (5, 10)  # Fig 14 caption
    parallelism: tuple[int, int] = (1, 10)  # not printed
    workload: str = "uniform"  # Fig 14(a): uniform or zipf
    zipf_s: float = 0.1  # Fig 14(a)
    structure: str = "structured"  # Fig 14(c): structured or full
    join_fraction: float = 0.0  # Fig 14(d): 0 or 0.5

    def __post_init__(self):
        lo, hi = self.operators
        if not 2 <= lo <= hi:
            raise ValueError(
                f"operators must be a range (lo, hi) with 2 <= lo <= hi; got {self.operators}"
            )
        lo, hi = self.parallelism
        if not 1 <= lo <= hi:
            raise ValueError(
                f"parallelism must be a range with 1 <= lo <= hi; got {self.parallelism}"
            )
        if self.workload not in WORKLOADS:
            raise ValueError(f"workload must be one of {WORKLOADS}; got {self.workload!r}")
        if not (np.isfinite(self.zipf_s) and self.zipf_s >= 0):
            raise ValueError(f"zipf_s must be >= 0; got {self.zipf_s}")
        if self.structure not in STRUCTURES:
            raise ValueError(f"structure must be one of {STRUCTURES}; got {self.structure!r}")
        if not 0 <= self.join_fraction <= 1:
            raise ValueError(f"join_fraction must be in [0, 1]; got {self.join_fraction}")


def random_topology(spec: TopologySpec, rng: np.random.Generator) -> Topology:
    """One random topology of the specification (module docstring)."""
    n = int(rng.integers(spec.operators[0], spec.operators[1] + 1))
    names = [f"O{i + 1}" for i in range(n)]
    parent = [int(rng.integers(i + 1, n)) for i in range(n - 1)]
    lo, hi = spec.parallelism
    parallelism = {names[-1]: int(rng.integers(lo, hi + 1))}
    edges = {}
    for i in range(n - 2, -1, -1):  # parents (later operators) first
        j = parent[i]
        p_j = parallelism[names[j]]
        if spec.structure == "full" or j == n - 1:
            kind, p_i = FULL, int(rng.integers(lo, hi + 1))
        else:
            fits = {ONE_TO_ONE: [p_j] if lo <= p_j <= hi else []}
            fits[MERGE] = [m * p_j for m in range(2, hi // p_j + 1) if m * p_j >= lo]
            fits[SPLIT] = [
                p_j // m for m in range(2, p_j + 1) if p_j % m == 0 and p_j // m >= max(lo, 2)
            ]
            kinds = [k for k in (ONE_TO_ONE, SPLIT, MERGE) if fits[k]]
            kind = kinds[int(rng.integers(len(kinds)))]
            p_i = fits[kind][int(rng.integers(len(fits[kind])))]
        parallelism[names[i]] = p_i
        edges[names[i], names[j]] = kind
    inputs = np.bincount(parent, minlength=n)
    candidates = [names[j] for j in range(n) if inputs[j] >= 2]
    count = min(round(spec.join_fraction * n), len(candidates))
    joins = [candidates[k] for k in rng.choice(len(candidates), size=count, replace=False)]
    workloads = None
    if spec.workload == "zipf":
        workloads = {}
        for name in names:
            ranks = rng.permutation(parallelism[name]) + 1.0
            w = ranks**-spec.zipf_s
            workloads[name] = w / w.mean()
    return Topology.partitioned(
        parallelism={name: parallelism[name] for name in names},
        edges=edges,
        joins=joins,
        workloads=workloads,
    )
