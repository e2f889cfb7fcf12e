"""Random operator chains and trees per Table 4.1 and Section 4.1 (units: minutes, KB).

Choices where the thesis is silent, each a parameter of ``Attributes``:
- selectivity s_i ~ U(0.1, 1]: Section 4.1's range (Table 4.1 says 0..1, which would allow 0);
- state size π_i ~ U(10, 20) MB with 1 MB = 1024 KB;
- failure frequency ρ_i: a Gaussian of mean 0.1 and variance 0.03 (as printed), truncated to
  positive values (a frequency cannot be negative; about 28% of raw draws are), plus a term
  proportional to the parallelism hint (2..6 instances) whose constant the thesis does not give:
  0.02 per instance, so it spans 0.04-0.12, the size of the Gaussian's mean;
- tree shape: a random recursive tree (each new operator attaches to a uniformly chosen existing
  one with fewer than three children), numbered from the leaves up (reverse breadth-first order).
"""

from dataclasses import dataclass

import numpy as np

from fastrecover.model import MAX_FANOUT, Operator, Topology, chain, tree
from fastrecover.settings import CHAIN, TREE

KB_PER_MB = 1024.0


@dataclass(frozen=True, kw_only=True)
class Attributes:
    """Ranges of the random operator attributes (defaults: Table 4.1 / Section 4.1)."""

    selectivity: tuple[float, float] = (0.1, 1.0)
    tau: float = 1e-5  # minutes per tuple
    state_mb: tuple[float, float] = (10.0, 20.0)
    theta: float = 1.0  # KB per tuple
    rho_mean: float = 0.1
    rho_variance: float = 0.03
    rho_per_instance: float = 0.02  # not printed: see the module docstring
    parallelism: tuple[int, int] = (2, 6)

    def __post_init__(self):
        lo, hi = self.selectivity
        if not 0 < lo <= hi <= 1:
            raise ValueError(f"selectivity must be a range within (0, 1]; got {self.selectivity}")
        if not 0 < self.state_mb[0] <= self.state_mb[1]:
            raise ValueError(f"state_mb must be a positive range; got {self.state_mb}")
        if self.tau < 0 or self.theta <= 0 or self.rho_variance < 0 or self.rho_per_instance < 0:
            raise ValueError("tau, rho_variance and rho_per_instance must be >= 0 and theta > 0")
        if not 1 <= self.parallelism[0] <= self.parallelism[1]:
            raise ValueError(
                f"parallelism must be a range of instance counts >= 1; got {self.parallelism}"
            )


def _operators(n: int, rng: np.random.Generator, attrs: Attributes) -> list[Operator]:
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"n must be an integer >= 1; got {n}")
    lo, hi = attrs.selectivity
    s = hi - (hi - lo) * rng.random(n)  # U(lo, hi]
    pi = rng.uniform(*attrs.state_mb, size=n) * KB_PER_MB
    sd = np.sqrt(attrs.rho_variance)
    base = rng.normal(attrs.rho_mean, sd, size=n)
    while np.any(base <= 0):  # truncated Gaussian: redraw the non-positive ones
        bad = base <= 0
        base[bad] = rng.normal(attrs.rho_mean, sd, size=int(bad.sum()))
    instances = rng.integers(attrs.parallelism[0], attrs.parallelism[1] + 1, size=n)
    rho = base + attrs.rho_per_instance * instances
    return [
        Operator(
            s=float(s[i]), tau=attrs.tau, pi=float(pi[i]), theta=attrs.theta, rho=float(rho[i])
        )
        for i in range(n)
    ]


def random_chain(
    n: int,
    rng: np.random.Generator,
    omega: float = CHAIN.omega,
    attributes: Attributes | None = None,
) -> Topology:
    """A chain of n operators; Ω defaults to the chain default (fastrecover.settings.CHAIN)."""
    return chain(_operators(n, rng, attributes or Attributes()), omega)


def random_tree(
    n: int,
    rng: np.random.Generator,
    omega: float = TREE.omega,
    attributes: Attributes | None = None,
    max_fanout: int = MAX_FANOUT,
) -> Topology:
    """A tree of n operators with fan-out at most ``max_fanout``; Ω defaults to the tree default
    (fastrecover.settings.TREE)."""
    ops = _operators(n, rng, attributes or Attributes())
    parent_of = [-1]  # in creation order; node 0 is the root
    fanout = [0]
    for node in range(1, n):
        open_nodes = [k for k in range(node) if fanout[k] < max_fanout]
        p = open_nodes[int(rng.integers(len(open_nodes)))]
        parent_of.append(p)
        fanout.append(0)
        fanout[p] += 1
    # Breadth-first from the root, then reversed: leaves first, the root last (op_n).
    order, frontier = [0], [0]
    while frontier:
        frontier = [k for f in frontier for k in range(n) if parent_of[k] == f]
        order += frontier
    number = {node: n - pos for pos, node in enumerate(order)}  # 1-based, root = n
    parent = [0] * n
    for node in range(n):
        parent[number[node] - 1] = 0 if parent_of[node] < 0 else number[parent_of[node]]
    return tree(ops, parent, omega, max_fanout)
