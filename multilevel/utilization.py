"""Utilization of periodic probabilistic L-level checkpointing, Eqs. (1)-(13), vectorized.

Jayasekara, Harwood & Karunasekera. Units: rates in 1/s, times (T, c, r, δ) in s; helpers
convert from per-day (Tables 1-2, Figs 8-12) and per-minute (Table 3) rates.

The effective period of the stream form (13) simplifies, with D = (n-1)δ,
G = e^{ΛD}(e^{ΛT} - 1), to

    T_eff = G (1 + Σ_l λ_l R_l) / Λ  /  (1 - G Σ_l (λ_l/Λ) a_l)

where R_l = Σ_{i>=l} p_i/P_l (e^{Λ_i r_i} - 1)/Λ_i is the expected restart time of a level-l
failure (restarts repeated on failures of level <= i, Λ_i = λ_1 + ... + λ_i), P_l = Σ_{i>=l} p_i
and a_l = (1 - P_l)/P_l the expected number of lower-level checkpoints a level-l failure loses.
n = 1, δ = 0 gives the single-process form (11); L = 2 gives (3) and (8)
(multilevel.derivation proves each equal to the paper's effective-period form).

When the denominator is <= 0 the expected number of lost checkpoints diverges: the system
never makes progress, and U is 0.
"""

from dataclasses import dataclass, field

import numpy as np

SECONDS_PER_DAY = 86_400.0
SECONDS_PER_MINUTE = 60.0


def _as_levels(name: str, values, positive: bool) -> tuple[float, ...]:
    arr = np.atleast_1d(np.asarray(values, dtype=float))
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty sequence of numbers, one per level")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; got {arr.tolist()}")
    if positive and np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0 at every level; got {arr.tolist()}")
    if not positive and np.any(arr < 0):
        raise ValueError(f"{name} must be >= 0 at every level; got {arr.tolist()}")
    return tuple(float(v) for v in arr)


@dataclass(frozen=True, kw_only=True)
class System:
    """A checkpointed process or stream DAG: per-level failure rates and costs.

    lam: failure rate of each level, 1/s, level 1 (least severe) first.
    c: checkpoint cost of each level, s; non-decreasing (c_1 <= c_2 <= ...), as the model assumes.
    r: restart cost from a checkpoint of each level, s; non-decreasing.
    n: operators on the DAG's critical path, source and sink included (1: a single process).
    delta: token delay between consecutive operators, s (Section 4).
    """

    lam: tuple[float, ...]
    c: tuple[float, ...]
    r: tuple[float, ...]
    n: int = 1
    delta: float = 0.0
    levels: int = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "lam", _as_levels("lam", self.lam, positive=True))
        object.__setattr__(self, "c", _as_levels("c", self.c, positive=True))
        object.__setattr__(self, "r", _as_levels("r", self.r, positive=False))
        if not len(self.lam) == len(self.c) == len(self.r):
            raise ValueError(
                f"lam, c and r must have one value per level; got lengths "
                f"{len(self.lam)}, {len(self.c)}, {len(self.r)}"
            )
        for name in ("c", "r"):
            values = getattr(self, name)
            if any(b < a for a, b in zip(values, values[1:], strict=False)):
                raise ValueError(
                    f"{name} must be non-decreasing with the level (a higher-level checkpoint "
                    f"costs at least as much); got {list(values)}"
                )
        if isinstance(self.n, bool) or int(self.n) != self.n or self.n < 1:
            raise ValueError(
                f"n must be an integer >= 1 (operators on the critical path); got {self.n}"
            )
        object.__setattr__(self, "n", int(self.n))
        if not (np.isfinite(self.delta) and self.delta >= 0):
            raise ValueError(f"delta must be a finite number of seconds >= 0; got {self.delta}")
        object.__setattr__(self, "delta", float(self.delta))
        object.__setattr__(self, "levels", len(self.lam))

    @classmethod
    def per_day(cls, *, lam, c, r, n=1, delta=0.0) -> "System":
        """Rates given per day (Tables 1-2, Figs 8-12), costs in s."""
        return cls(lam=np.asarray(lam, float) / SECONDS_PER_DAY, c=c, r=r, n=n, delta=delta)

    @classmethod
    def per_minute(cls, *, lam, c, r, n=1, delta=0.0) -> "System":
        """Rates given per minute (Table 3), costs in s."""
        return cls(lam=np.asarray(lam, float) / SECONDS_PER_MINUTE, c=c, r=r, n=n, delta=delta)

    @property
    def overlap(self) -> float:
        """D = (n-1)δ: how long the token takes to leave the DAG after the first operator."""
        return (self.n - 1) * self.delta


def restart_times(system: System) -> np.ndarray:
    """Expected time to restart from a level-i checkpoint, failed attempts included:
    r_i + (1/q_{r_i,Λ_i} - 1) F_{Λ_i}(r_i) = (e^{Λ_i r_i} - 1)/Λ_i (Section 3.3)."""
    lam = np.asarray(system.lam)
    cum = np.cumsum(lam)
    return np.expm1(cum * np.asarray(system.r)) / cum


def check_probabilities(p, levels: int) -> np.ndarray:
    """p as an array (..., L) on the simplex with p_L > 0, else ValueError."""
    p = np.asarray(p, dtype=float)
    if p.shape[-1:] != (levels,):
        raise ValueError(f"p must have one probability per level ({levels}); got shape {p.shape}")
    if not np.all(np.isfinite(p)) or np.any(p < 0) or np.any(p > 1):
        raise ValueError("p must hold probabilities in [0, 1]")
    if np.any(np.abs(p.sum(axis=-1) - 1) > 1e-9):
        raise ValueError("p must sum to 1 over the levels")
    if np.any(p[..., -1] <= 0):
        raise ValueError(
            "p_L (the highest level) must be > 0: otherwise a level-L failure can never be "
            "recovered and U = 0"
        )
    return p


def effective_period_terms(p: np.ndarray, system: System):
    """Σ_l λ_l R_l and Σ_l (λ_l/Λ) a_l of Eq. (13) for probabilities p (..., L)."""
    lam = np.asarray(system.lam)
    tail = np.cumsum(p[..., ::-1], axis=-1)[..., ::-1]  # P_l = Σ_{i>=l} p_i
    weighted = np.cumsum((p * restart_times(system))[..., ::-1], axis=-1)[..., ::-1]
    restart = (lam * weighted / tail).sum(axis=-1)  # Σ λ_l R_l
    lost = (lam * (1 - tail) / tail).sum(axis=-1) / lam.sum()  # Σ (λ_l/Λ) a_l
    return restart, lost


def _utilization(T, useful, restart, lost, system: System):
    """U = (T - Σ p c)/T_eff with the simplified (13); complex-safe (no comparisons)."""
    big_lam = sum(system.lam)
    g = np.exp(big_lam * system.overlap) * np.expm1(big_lam * T)
    return useful * big_lam * (1 - g * lost) / (g * (1 + restart))


def utilization(T, p, system: System) -> np.ndarray:
    """Expected utilization, Eq. (13) (Eq. (11) for n = 1, δ = 0), vectorized over T and p.

    T: checkpoint interval(s) in s, any shape broadcasting against p[..., 0].
    p: level probabilities, shape (..., L), on the simplex with p_L > 0.
    Returns U in [0, 1); 0 where the effective period diverges.
    """
    p = check_probabilities(p, system.levels)
    T = np.asarray(T, dtype=float)
    cost = p @ np.asarray(system.c)
    if not np.all(np.isfinite(T)) or np.any(T <= cost):
        raise ValueError("T must be finite and longer than the expected checkpoint cost Σ p_l c_l")
    restart, lost = effective_period_terms(p, system)
    u = _utilization(T, T - cost, restart, lost, system)
    return np.where(u > 0, u, 0.0)


def utilization_one_kind(T, system: System, c: float | None = None) -> np.ndarray:
    """One checkpoint kind that recovers every failure level, restarting at the failure level's
    cost r_l (Section 7, Table 3's "theory at T = 30 min": Flink checkpoints one way but an
    exception restarts in r̃_1 and a lost task manager in r̃_2).

    This is (13) with no lost lower-level checkpoints (a_l = 0) and R_l the expected restart of
    level l, (e^{Λ_l r_l} - 1)/Λ_l; c defaults to the highest level's cost.
    """
    T = np.asarray(T, dtype=float)
    cost = system.c[-1] if c is None else float(c)
    if not (np.isfinite(cost) and cost > 0):
        raise ValueError(f"c must be a checkpoint cost > 0 in s; got {c}")
    if not np.all(np.isfinite(T)) or np.any(T <= cost):
        raise ValueError("T must be finite and longer than the checkpoint cost c")
    restart = float(np.dot(system.lam, restart_times(system)))
    u = _utilization(T, T - cost, restart, 0.0, system)
    return np.where(u > 0, u, 0.0)
