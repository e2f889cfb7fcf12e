"""Parameters of an engine run: the recovery strategy, its timing and the failure schedule.

Units: seconds of virtual time, CPU seconds, cores. Defaults cite the paper where it gives a value
and say so where it does not.
"""

import math
from dataclasses import dataclass

STRATEGIES = ("incremental", "blocking", "source_replay")


@dataclass(frozen=True, kw_only=True)
class EngineConfig:
    """How the engine runs and recovers.

    ``strategy``: "incremental" (Section 4: blocking recovery below ``correlated_failures`` node
    failures since the last global checkpoint, incremental recovery from there on), "blocking"
    (always wait until every failed partition can be placed, then roll back and replay the
    sources) or "source_replay" (Storm-like: roll back and replay the sources at every plan).
    ``dedup``, ``order_preserving`` and ``buffering`` switch the mechanisms of Section 4 off
    during incremental recovery; they exist to show that each one is needed (the mutants).
    ``audit`` keeps every processed (seq, uid) per input channel in the partition's checkpointed
    state, for the exactly-once tests.
    """

    strategy: str = "incremental"
    correlated_failures: int = 2  # X of Section 4.2.1
    cpu_cap: float = 0.8  # Section 5.3: at most 80% CPU per node during incremental recovery
    batch_interval: float = 0.1  # Appendix C.1: mini-batches of 100 ms
    checkpoint_interval: float = 20.0  # Appendix C.1: checkpoints every 20 s
    detection_delay: float = 1.0  # none in the paper (heartbeats through ZooKeeper, Section 3)
    network_latency: float = 1e-3  # none in the paper: fixed part of a message's delay
    network_jitter: float = 1e-3  # none in the paper: mean of its exponential random part
    marker_cost: float = 1e-6  # none in the paper: CPU seconds per barrier or punctuation
    checkpoint_cost_per_byte: float = 1e-8  # none in the paper: serialization cost
    dedup: bool = True
    order_preserving: bool = True
    buffering: bool = True
    audit: bool = False

    def __post_init__(self):
        if self.strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {STRATEGIES}; got {self.strategy!r}")
        if self.correlated_failures < 1:
            raise ValueError("correlated_failures must be >= 1")
        if not 0 < self.cpu_cap <= 1:
            raise ValueError(f"cpu_cap must be in (0, 1]; got {self.cpu_cap}")
        if not 0 < self.batch_interval < math.inf:
            raise ValueError(f"batch_interval must be finite and > 0; got {self.batch_interval}")
        ratio = self.checkpoint_interval / self.batch_interval
        if ratio < 1 or abs(ratio - round(ratio)) > 1e-9:
            raise ValueError("checkpoint_interval must be a positive multiple of batch_interval")
        for name in (
            "detection_delay",
            "network_latency",
            "network_jitter",
            "marker_cost",
            "checkpoint_cost_per_byte",
        ):
            if not 0 <= getattr(self, name) < math.inf:
                raise ValueError(f"{name} must be finite and >= 0; got {getattr(self, name)}")

    @property
    def checkpoint_every(self) -> int:
        """Mini-batches per checkpoint."""
        return round(self.checkpoint_interval / self.batch_interval)


@dataclass(frozen=True, kw_only=True)
class FailureSchedule:
    """Node kills ``(time, node)`` and node arrivals ``(time, node, capacity)``."""

    kills: tuple = ()
    arrivals: tuple = ()

    def __post_init__(self):
        for kill in self.kills:
            if len(kill) != 2 or not 0 <= kill[0] < math.inf:
                raise ValueError(f"kills must be (time >= 0, node) pairs; got {kill!r}")
        names = [arrival[1] for arrival in self.arrivals]
        if len(set(names)) != len(names):
            raise ValueError("arrivals must name distinct nodes")
        for arrival in self.arrivals:
            if len(arrival) != 3 or not 0 <= arrival[0] < math.inf or not arrival[2] > 0:
                raise ValueError(
                    f"arrivals must be (time >= 0, node, capacity > 0); got {arrival!r}"
                )
