"""Sweep functions: ``fn(params, rng) -> dict`` for pipeline.sweep (pure and picklable).

Rates in params are per day (``lam_per_day``) or per minute (``lam_per_minute``); times in s.
"""

import numpy as np

from multilevel.optimize import lambert_w_optimum, optimal
from multilevel.simulate import simulate
from multilevel.utilization import SECONDS_PER_DAY, System


def system_from_params(params: dict) -> System:
    """The System a sweep point describes (lam_per_day or lam_per_minute, c, r, n, delta)."""
    common = {
        "c": params["c"],
        "r": params["r"],
        "n": params.get("n", 1),
        "delta": params.get("delta", 0.0),
    }
    if "lam_per_minute" in params:
        return System.per_minute(lam=params["lam_per_minute"], **common)
    return System.per_day(lam=params["lam_per_day"], **common)


def simulation_point(params: dict, rng: np.random.Generator) -> dict:
    """One simulated run: params hold the system, T, p, horizon_days and optionally restart_by."""
    result = simulate(
        params["T"],
        params["p"],
        system_from_params(params),
        params["horizon_days"] * SECONDS_PER_DAY,
        rng,
        params.get("restart_by", "checkpoint"),
    )
    return {"U_sim": result.utilization, "failures": result.failures}


def lambert_w_point(params: dict, rng: np.random.Generator) -> dict:
    """Fig. 9 / Section 3.4: the true optimum and the Lambert-W fixed point of (4)-(5) for one
    (λ1, λ2); the utilization lost by using the approximation. ``rng`` is unused."""
    system = system_from_params(params)
    best, approx = optimal(system), lambert_w_optimum(system)
    return {
        "T_opt": best.T,
        "p1_opt": best.p1,
        "U_opt": best.U,
        "T_lw": approx.T,
        "p1_lw": approx.p1,
        "U_lw": approx.U,
        "U_loss": best.U - approx.U,
        "converged": best.converged and approx.converged,
    }
