"""Stochastic discrete-event simulation of periodic probabilistic L-level checkpointing on a DAG
(Section 6.2, Fig. 12), independent of the analytical model it checks.

The process, in time units of s (rates 1/s):
- after a start or a restart the DAG computes periods of length T; at the end of period j a
  checkpoint of level l is taken with probability p_l, costing c_l of the period (useful work of
  the period: T - c_l); it completes only when the token has left the DAG, (n-1)δ later;
- failures of level l arrive as independent Poisson processes of rate λ_l (all levels together:
  exponential gaps of rate Λ, the level drawn with probability λ_l/Λ);
- a level-f failure restores the latest *completed* checkpoint of level >= f, discarding the work
  after it and every later checkpoint, and restarts at the cost r_i of that checkpoint's level i;
- a failure during a restart restarts again: from the same checkpoint if its level is <= i, else
  from the latest checkpoint of a sufficient level (the model neglects this last case).
Utilization = committed useful work / elapsed time, both taken at the last checkpoint completed
before the horizon: a run is cut at a checkpoint, so the work done after it (not yet committed) is
neither counted nor charged. Dividing the committed work by the whole horizon instead would
charge every run the uncommitted tail, a bias of about -(T/2)/horizon (-0.01 for a 24-hour run
at T = 30 min, Table 3).

``restart_by="failure"`` makes the restart cost that of the failure's level instead: with one
checkpoint kind (p = (0, ..., 0, 1)) this is the process of Table 3's "theory at T = 30 min".

The per-event loop is compiled with numba; each run takes an explicit numpy Generator.
"""

from dataclasses import dataclass

import numpy as np
from numba import njit

from multilevel.utilization import System, check_probabilities


@dataclass(frozen=True)
class SimResult:
    utilization: float
    failures: int


@njit(cache=True)
def _draw(rng, cumulative):
    u = rng.random()
    level = 0
    while level < cumulative.size - 1 and u >= cumulative[level]:
        level += 1
    return level


@njit(cache=True)
def _run(rng, T, cum_p, cost, restart, cum_lam, big_lam, overlap, horizon, by_failure):
    levels = cost.size
    work = np.zeros(levels)  # committed work at the latest completed checkpoint of level >= l
    level_of = np.full(levels, levels - 1)  # that checkpoint's level (time 0: a level-L one)
    t = 0.0
    failures = 0
    mean_gap = 1.0 / big_lam
    cut_time, cut_work = 0.0, 0.0  # the last checkpoint completion: where the run is cut
    while t < horizon:
        gap = rng.exponential(mean_gap)
        end = min(t + gap, horizon)
        completed = max(0, int(np.floor((end - t - overlap) / T)))
        w = work[0]
        for _ in range(completed):
            level = _draw(rng, cum_p)
            w += T - cost[level]
            for lower in range(level + 1):
                work[lower] = w
                level_of[lower] = level
        if completed > 0:
            cut_time, cut_work = t + completed * T + overlap, w
        if t + gap >= horizon:
            break
        t += gap
        failures += 1
        severity = _draw(rng, cum_lam)
        restarted = False
        while not restarted and t < horizon:
            # Restore the latest completed checkpoint of level >= severity.
            for lower in range(severity):
                work[lower] = work[severity]
                level_of[lower] = level_of[severity]
            restart_level = severity if by_failure else level_of[severity]
            while t < horizon:  # attempts until one survives
                attempt = rng.exponential(mean_gap)
                if attempt >= restart[restart_level]:
                    t += restart[restart_level]
                    restarted = True
                    break
                t += attempt
                failures += 1
                hit = _draw(rng, cum_lam)
                if hit > restart_level:  # this checkpoint cannot recover it: go further back
                    severity = hit
                    break
    return (cut_work / cut_time if cut_time > 0 else 0.0), failures


def simulate(
    T: float,
    p,
    system: System,
    horizon: float,
    rng: np.random.Generator,
    restart_by: str = "checkpoint",
) -> SimResult:
    """One run of ``horizon`` seconds; see the module docstring for the process."""
    p = check_probabilities(p, system.levels)
    if p.ndim != 1:
        raise ValueError("p must be one probability vector (one run per call)")
    if not (np.isfinite(T) and T > float(p @ np.asarray(system.c))):
        raise ValueError(f"T must be finite and longer than Σ p_l c_l; got {T}")
    if not (np.isfinite(horizon) and horizon > 0):
        raise ValueError(f"horizon must be a positive number of seconds; got {horizon}")
    if restart_by not in ("checkpoint", "failure"):
        raise ValueError(f"restart_by must be 'checkpoint' or 'failure'; got {restart_by!r}")
    lam = np.asarray(system.lam)
    u, failures = _run(
        rng,
        float(T),
        np.cumsum(p),
        np.asarray(system.c),
        np.asarray(system.r),
        np.cumsum(lam) / lam.sum(),
        float(lam.sum()),
        system.overlap,
        float(horizon),
        restart_by == "failure",
    )
    return SimResult(float(u), int(failures))
