"""Simulated machine failures: RT_Computational and RT_Latency of a configuration (Section 4.3).

A machine runs ``multiplicity`` operator instances (5 in the thesis); when it fails, each of
them is an instance of op_i with probability proportional to ρ_i (drawn independently), and an
operator fails if any of its instances does. Every recovery segment with a failed operator
recovers once: its anchor replays Δ(Ω_h θ_h / η) and every operator on the union of the paths
from the failed operators up to the anchor restores Δ(π_k) and reprocesses τ_k Ω_k / η.

- RT_Computational: the computational time all operators spend recovering, summed over segments;
- RT_Latency: the wall-clock time until the last segment has recovered (segments recover in
  parallel, the work within a segment is sequential).

The thesis does not say how failed operators of one segment share a recovery; one replay per
segment covering the union of their paths is the reading here. Configurations must satisfy RSFS
(one frequency per segment). Units: minutes.
"""

import numpy as np

from fastrecover.model import Configuration, Storage, Topology, heads

MULTIPLICITY = 5  # Section 4.1


def simulate_failures(
    topology: Topology,
    config: Configuration,
    storage: Storage,
    rng: np.random.Generator,
    failures: int = 1000,
    multiplicity: int = MULTIPLICITY,
) -> dict:
    """Mean RT_Computational and RT_Latency over ``failures`` simulated machine failures."""
    if failures < 1 or multiplicity < 1:
        raise ValueError("failures and multiplicity must be >= 1")
    n = topology.n
    eta = np.asarray(config.frequencies, dtype=float)
    head = heads(topology, config.anchors)
    if not np.allclose(eta, eta[head]):
        raise ValueError("simulate_failures needs one frequency per recovery segment (RSFS)")
    path = np.zeros((n, n), dtype=bool)  # path[i, k]: op_k recovers when op_i fails
    for i in range(n):
        k = i
        while True:
            path[i, k] = True
            if k == head[i]:
                break
            k = topology.upstream[k]
    segments = np.unique(head)
    member = head[:, None] == segments[None, :]  # (n, S)
    work = storage.delta_snap(topology.pi) + topology.tau * topology.rates / eta
    replay = storage.delta_log(topology.rates[segments] * topology.theta[segments] / eta[segments])

    p = topology.rho / topology.rho.sum()
    drawn = rng.choice(n, size=(failures, multiplicity), p=p)
    failed = np.zeros((failures, n), dtype=bool)
    failed[np.arange(failures)[:, None], drawn] = True
    # Counts of 0/1 products as floating matrix products (BLAS; exact for counts below 2^53).
    as_float = failed.astype(float)
    involved = (as_float @ path.astype(float)) > 0
    hit = (as_float @ member.astype(float)) > 0  # (failures, S)
    per_segment = (involved * work) @ member + hit * replay
    return {
        "RT_Computational": float(per_segment.sum(axis=1).mean()),
        "RT_Latency": float(per_segment.max(axis=1).mean()),
        "failed_operators": float(failed.sum(axis=1).mean()),
    }
