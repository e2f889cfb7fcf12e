"""The result of every planner: a partially active replication plan P (Section II-B), scored under
the worst-case correlated failure F = M \\ P (Section IV: every task outside the plan fails)."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from ppa.fidelity import ic_batch, of_batch
from ppa.topology import Topology

METRICS: dict[str, Callable[[Topology, np.ndarray], np.ndarray]] = {"of": of_batch, "ic": ic_batch}


@dataclass(frozen=True, kw_only=True)
class Plan:
    """The actively replicated tasks and the OF and IC of the topology when all others fail."""

    tasks: frozenset[str]
    of: float
    ic: float

    @classmethod
    def of_tasks(cls, topology: Topology, tasks: Iterable[str]) -> "Plan":
        tasks = frozenset(tasks)
        alive = topology.mask(tasks)[None, :]
        return cls(
            tasks=tasks,
            of=float(of_batch(topology, alive)[0]),
            ic=float(ic_batch(topology, alive)[0]),
        )

    @classmethod
    def of_mask(cls, topology: Topology, mask: int) -> "Plan":
        """The plan of a bit mask over ``topology.tasks``."""
        return cls.of_tasks(topology, (t for i, t in enumerate(topology.tasks) if mask >> i & 1))


def check_budget(topology: Topology, R) -> int:
    """R, the number of active replicas, validated: an integer in [0, |M|]."""
    n = len(topology.tasks)
    if isinstance(R, bool) or not isinstance(R, int | np.integer) or not 0 <= R <= n:
        raise ValueError(f"R must be an integer in [0, {n}] (the number of tasks); got {R!r}")
    return int(R)


def masks_to_alive(masks: Iterable[int], n: int) -> np.ndarray:
    """Bit masks over n tasks (bit i: ``topology.tasks[i]``) -> a (plans, n) boolean array."""
    size = (n + 7) // 8
    raw = b"".join(m.to_bytes(size, "little") for m in masks)
    bits = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), bitorder="little")
    return bits.reshape(-1, size * 8)[:, :n].astype(bool)


def bits(mask: int):
    """The indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
