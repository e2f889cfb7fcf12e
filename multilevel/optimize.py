"""Optimal interval T* and level probabilities p* maximizing U (Sections 3.4, 4.3, Tables 1-3).

The paper used MATLAB's fmincon. Here the constraints disappear under a change of variables,
so SciPy's L-BFGS-B works on a box:

    T = Σ p_l c_l + T0 e^y                      (T > Σ p c always)
    p over the free levels f_1 < ... < f_k = L by stick-breaking with s_j in [0, 1):
    p_{f_1} = s_1, p_{f_2} = (1 - s_1) s_2, ..., p_L = Π (1 - s_j)

Pinned levels (``zero_levels``, numbered from 1 as in the paper) keep p_l = 0: Table 2's 2-level
column is the 3-level model with p_2 = 0. Gradients are exact, by the complex step.
Units: rates 1/s, times s (see multilevel.utilization).

``lambert_w_optimum`` solves the coupled approximations (4) and (5)/(10) as a fixed point.
"""

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import lambertw

from multilevel.utilization import System, _utilization, effective_period_terms, utilization

_STEP = 1e-30  # complex step: exact derivatives to machine precision
_S_MAX = 1 - 1e-12  # keeps p_L > 0


@dataclass(frozen=True)
class Optimum:
    """T (s), p (one per level), U at that point, and whether the optimizer converged."""

    T: float
    p: tuple[float, ...]
    U: float
    converged: bool = True

    @property
    def p1(self) -> float:
        return self.p[0]


def _free_levels(system: System, zero_levels) -> list[int]:
    zero = set()
    for level in zero_levels:
        if isinstance(level, bool) or int(level) != level or not 1 <= level <= system.levels:
            raise ValueError(f"zero_levels must name levels 1..{system.levels}; got {level!r}")
        zero.add(int(level) - 1)
    if system.levels - 1 in zero:
        raise ValueError(f"zero_levels cannot pin level {system.levels} (the highest) to 0")
    return [level for level in range(system.levels) if level not in zero]


def _probabilities(s, free: list[int], levels: int):
    """Stick-breaking: s (..., k-1) -> p (..., L); complex-safe."""
    shape = s.shape[:-1]
    p = np.zeros((*shape, levels), dtype=s.dtype)
    remaining = np.ones(shape, dtype=s.dtype)
    for j, level in enumerate(free[:-1]):
        p[..., level] = remaining * s[..., j]
        remaining = remaining * (1 - s[..., j])
    p[..., free[-1]] = remaining
    return p


def _objective(system: System, free: list[int], t0: float):
    c = np.asarray(system.c)
    k = len(free)

    def u_of(x):
        p = _probabilities(x[..., 1:], free, system.levels)
        cost = p @ c
        restart, lost = effective_period_terms(p, system)
        return _utilization(
            cost + t0 * np.exp(x[..., 0]), t0 * np.exp(x[..., 0]), restart, lost, system
        )

    def value_and_gradient(x):
        probes = np.tile(x.astype(complex), (k + 1, 1))
        probes[1:, :] += 1j * _STEP * np.eye(k)
        u = u_of(probes)
        return -u[0].real, -u[1:].imag / _STEP

    return u_of, value_and_gradient


def _young_interval(system: System) -> float:
    """A starting scale: Young's sqrt(2 c / Λ) with the mean checkpoint cost."""
    return float(np.sqrt(2 * np.mean(system.c) / sum(system.lam)))


def optimal(system: System, zero_levels=()) -> Optimum:
    """T* and p* maximizing U of Eq. (13) (Eq. (11) when n = 1, δ = 0).

    zero_levels: levels (1-based) whose probability is pinned to 0, e.g. (2,).
    Several starts; the best converged point is returned.
    """
    free = _free_levels(system, zero_levels)
    t0 = _young_interval(system)
    u_of, fun = _objective(system, free, t0)
    k = len(free)
    # U is ~0 beyond Λ(T - Σpc) = 50; the bound also keeps e^{ΛT} finite.
    y_max = float(np.log(50 / (sum(system.lam) * t0)))
    bounds = [(-12.0, y_max)] + [(0.0, _S_MAX)] * (k - 1)
    best = None
    for y0 in (0.0, np.log(4.0)):
        for s0 in (0.5, 0.9, 0.1) if k > 1 else (None,):
            x0 = np.array([y0] + [s0] * (k - 1))
            res = minimize(
                fun,
                x0,
                jac=True,
                method="L-BFGS-B",
                bounds=bounds,
                options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 2000},
            )
            if best is None or res.fun < best.fun:
                best = res
    x = best.x
    p = _probabilities(x[1:][None, :], free, system.levels)[0]
    T = float(p @ np.asarray(system.c) + t0 * np.exp(x[0]))
    U = float(u_of(x[None, :])[0])
    return Optimum(T=T, p=tuple(float(v) for v in p), U=U, converged=_stationary(fun, x, bounds))


def _stationary(fun, x, bounds, tol: float = 1e-6) -> bool:
    """Projected gradient ~ 0: L-BFGS-B may stop its line search at an already optimal point."""
    grad = fun(x)[1]
    lower = np.array([b[0] for b in bounds])
    upper = np.array([b[1] for b in bounds])
    grad = np.where((x <= lower) & (grad > 0), 0.0, grad)
    grad = np.where((x >= upper) & (grad < 0), 0.0, grad)
    return bool(np.max(np.abs(grad)) < tol)


def optimal_at_interval(T: float, system: System, zero_levels=()) -> Optimum:
    """p* maximizing U at a fixed interval T (Fig. 10's 2-level curve)."""
    free = _free_levels(system, zero_levels)
    k = len(free)
    if k == 1:
        p = _probabilities(np.zeros((1, 0)), free, system.levels)[0]
        return Optimum(T=float(T), p=tuple(p), U=float(utilization(T, p, system)))
    c = np.asarray(system.c)
    # The largest cost any p can reach must stay below T; cap s so that Σ p c < T.
    if T <= min(c[free]):
        raise ValueError(f"T must exceed the cheapest free level's cost; got T = {T}")

    def fun(s):
        probes = np.tile(s.astype(complex), (k, 1))
        probes[1:, :] += 1j * _STEP * np.eye(k - 1)
        p = _probabilities(probes, free, system.levels)
        restart, lost = effective_period_terms(p, system)
        useful = T - p @ c
        u = _utilization(T, useful, restart, lost, system)
        penalty = np.where(useful.real > 0, 0.0, 1.0)  # outside the domain: no utilization
        return -(u[0].real - penalty[0]), -u[1:].imag / _STEP

    best = None
    for s0 in (0.5, 0.9, 0.1):
        res = minimize(
            fun,
            np.full(k - 1, s0),
            jac=True,
            method="L-BFGS-B",
            bounds=[(0.0, _S_MAX)] * (k - 1),
            options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 2000},
        )
        if best is None or res.fun < best.fun:
            best = res
    p = _probabilities(best.x[None, :], free, system.levels)[0]
    return Optimum(
        T=float(T),
        p=tuple(float(v) for v in p),
        U=float(-best.fun),
        converged=_stationary(fun, best.x, [(0.0, _S_MAX)] * (k - 1)),
    )


def lambert_w_interval(p1, system: System) -> np.ndarray:
    """Eq. (4): T* ≈ c̄ + (W(-e^{-λ1 c̄ - 1}) + 1)/λ1 with c̄ = c1 p1 + c2 (1 - p1)."""
    _require_two_levels(system)
    lam1 = system.lam[0]
    c1, c2 = system.c
    mean_cost = c1 * np.asarray(p1) + c2 * (1 - np.asarray(p1))
    w = lambertw(-np.exp(c2 * lam1 * p1 - c1 * lam1 * p1 - c2 * lam1 - 1)).real
    return mean_cost + (w + 1) / lam1


def lambert_w_probability(T, system: System) -> np.ndarray:
    """Eq. (10) (Eq. (5) when n = 1, δ = 0): p1* ≈ 1 - e^{δnΛ/2} sqrt(λ2 (T - c1)(e^{TΛ} - 1)
    / ((c2 - c1)(Λ e^{δΛ} - λ2 e^{δnΛ} + λ2 e^{Λ(T + δn)}))), clipped to [0, 1].

    For n = 1 the δ terms cancel and (10) is (5) exactly.
    """
    _require_two_levels(system)
    lam1, lam2 = system.lam
    c1, c2 = system.c
    big = lam1 + lam2
    n, delta = system.n, system.delta
    T = np.asarray(T, dtype=float)
    root = np.sqrt(
        lam2
        * (T - c1)
        * np.expm1(T * big)
        / (
            (c2 - c1)
            * (
                big * np.exp(delta * big)
                - lam2 * np.exp(delta * n * big)
                + lam2 * np.exp(big * (T + delta * n))
            )
        )
    )
    return np.clip(1 - np.exp(delta * n * big / 2) * root, 0.0, 1.0)


def lambert_w_optimum(system: System, tol: float = 1e-10, max_iter: int = 500) -> Optimum:
    """The coupled approximations (4) and (5)/(10) solved as a fixed point, with U there."""
    _require_two_levels(system)
    if system.c[1] <= system.c[0]:
        raise ValueError("the Lambert-W approximation needs c1 < c2 (Eq. (5) divides by c2 - c1)")
    p1 = 0.5
    T = float(lambert_w_interval(p1, system))
    converged = False
    for _ in range(max_iter):
        p1_next = float(lambert_w_probability(T, system))
        T_next = float(lambert_w_interval(p1_next, system))
        converged = abs(T_next - T) < tol * T and abs(p1_next - p1) < tol
        T, p1 = T_next, p1_next
        if converged:
            break
    p = (min(p1, _S_MAX), 1 - min(p1, _S_MAX))
    return Optimum(T=T, p=p, U=float(utilization(T, p, system)), converged=converged)


def first_order_interval(system: System, daly: bool = True) -> float:
    """Young's / Daly's first-order optimum interval of one checkpoint kind that recovers every
    failure, in this model's convention (T = time between checkpoint starts, U = (T - c)/T_eff):

        T = c + sqrt(2 c (M + r))   (Daly 2003, ref. [9] of Khaos),  T = c + sqrt(2 c M)  (Young)

    with M = 1/Λ the mean time between failures of any level (Λ = Σ λ_l), c and r the highest
    level's checkpoint and restart costs (the one kind that survives every failure, as in the
    single-level baseline of Eq. (11)). ``daly=False`` gives Young's (ref. [19] of Jayasekara et
    al.), which drops r. Both approximate the optimum of Eq. (11) for L = 1 to first order in
    sqrt(Λc): their relative error vanishes as Λc -> 0 (tests). Units: s."""
    lam = sum(system.lam)
    c, r = system.c[-1], system.r[-1]
    return float(c + np.sqrt(2 * c * (1 / lam + (r if daly else 0.0))))


def _require_two_levels(system: System) -> None:
    if system.levels != 2:
        raise ValueError(
            f"the Lambert-W approximations (4), (5), (10) are for 2 levels; got {system.levels}"
        )
