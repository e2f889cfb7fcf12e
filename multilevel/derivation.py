"""SymPy derivations of the utilization model, step by step in the paper's order.

Each function returns SymPy expressions (the notebook ``multilevel_derivations`` renders them).
``compare`` decides whether a derived expression equals a printed one: symbolically when the
difference cancels to 0 after naming the exponentials, else at random points with 50-digit
arithmetic. The derivations are memoized (SymPy expressions are immutable): the notebook asks for
the same pieces many times. Symbols follow the paper: λ as ``lam1``, Λ as ``Lam`` (= λ1 + λ2 for
two levels), times in any consistent unit.
"""

import random
from dataclasses import dataclass
from functools import cache

import mpmath
import sympy as sp

T, t, T_eff = sp.symbols("T t T_eff", positive=True)
p1, p2 = sp.symbols("p_1 p_2", positive=True)
c1, c2, r1, r2 = sp.symbols("c_1 c_2 r_1 r_2", positive=True)
lam1, lam2 = sp.symbols("lambda_1 lambda_2", positive=True)
Lam = sp.Symbol("Lambda", positive=True)
n, delta = sp.symbols("n delta", positive=True)
q, k = sp.symbols("q k", positive=True)


def _convergent(series: sp.Expr) -> sp.Expr:
    """The value of a geometric-type sum where it converges (SymPy returns a Piecewise whose
    first branch holds for |ratio| < 1)."""
    folded = sp.piecewise_fold(series)
    return folded.args[0][0] if isinstance(folded, sp.Piecewise) else folded


def _solve_linear(rhs: sp.Expr, unknown: sp.Symbol) -> sp.Expr:
    """x from x = A + B x (T_eff enters its own definition linearly): x = A / (1 - B)."""
    slope = sp.diff(rhs, unknown)
    if unknown in slope.free_symbols:
        raise ValueError(f"{unknown} does not enter linearly")
    return rhs.subs(unknown, 0) / (1 - slope)


# -- Section 3.1 ---------------------------------------------------------------------------------
def eq1_without_failure() -> sp.Expr:
    """Eq. (1): U = (T - p1 c1 - p2 c2)/T, the checkpoint taking the last c_l of the period."""
    return (T - p1 * c1 - p2 * c2) / T


# -- Section 3.2 ---------------------------------------------------------------------------------
@cache
def eq2_mean_time_to_failure(rate: sp.Expr = Lam, horizon: sp.Expr = T) -> sp.Expr:
    """Eq. (2): F_Λ(T) = E[X | X < T] = ∫_0^T t Λe^{-Λt} dt / P[X < T], by integration."""
    density = rate * sp.exp(-rate * t)
    return sp.simplify(sp.integrate(t * density, (t, 0, horizon)) / (1 - sp.exp(-rate * horizon)))


def eq2_printed() -> sp.Expr:
    return (sp.exp(T * Lam) - T * Lam - 1) / (Lam * (sp.exp(T * Lam) - 1))


@cache
def consecutive_failures() -> sp.Expr:
    """Mean number of failures before a successful period: Σ_k k (1-q)^k q = (1-q)/q."""
    return sp.simplify(_convergent(sp.summation(k * (1 - q) ** k * q, (k, 0, sp.oo))))


@cache
def lost_checkpoints_two_level() -> sp.Expr:
    """Completed level-1 checkpoints a level-2 failure loses: Σ_i i p1^i p2 with p2 = 1 - p1."""
    return sp.simplify(_convergent(sp.summation(k * p1**k * (1 - p1), (k, 0, sp.oo))))


def failure_free(horizon: sp.Expr, rate: sp.Expr = Lam) -> sp.Expr:
    """q_{x,Λ} = P[X >= x; Λ] = e^{-Λx}."""
    return sp.exp(-rate * horizon)


# -- Section 3.3 ---------------------------------------------------------------------------------
@cache
def restart_with_failures(restart: sp.Expr, rate: sp.Expr) -> sp.Expr:
    """r + (1/q_{r,λ} - 1) F_λ(r): a restart repeated after each failure during it."""
    retries = 1 / failure_free(restart, rate) - 1
    return sp.simplify(restart + retries * eq2_mean_time_to_failure(rate, restart))


def recovery_costs_two_level() -> tuple[sp.Expr, sp.Expr]:
    """R1 = p1 (restart from level 1) + p2 (restart from level 2); R2 = restart from level 2."""
    from_1 = restart_with_failures(r1, lam1)
    from_2 = restart_with_failures(r2, Lam)
    return p1 * from_1 + (1 - p1) * from_2, from_2


@cache
def effective_period_two_level(stream: bool = False) -> sp.Expr:
    """T_eff solved from its recursive definition: Section 3.3 (single process) or, with
    ``stream``, Section 4.1's T' = T + (n-1)δ minus Section 4.2's overlap (the first (n-1)δ of
    each T' is already counted in the previous one)."""
    R1, R2 = recovery_costs_two_level()
    lost = T_eff * lost_checkpoints_two_level()
    per_failure = lam1 / Lam * R1 + lam2 / Lam * (lost + R2)

    def period(length):  # length + k (F(length) + per-failure costs), k from q_{length,Λ}
        k_mean = consecutive_failures().subs(q, failure_free(length))
        return length + k_mean * (eq2_mean_time_to_failure(Lam, length) + per_failure)

    D = (n - 1) * delta
    equation = period(T + D) - period(D) if stream else period(T)
    return _solve_linear(equation, T_eff)


def effective_period_structure(stream: bool = False) -> tuple[sp.Eq, sp.Expr]:
    """The recursion for T_eff and its solution with the parts named (k: mean consecutive
    failures, F: mean time lost, R_l: recovery costs), before the parts are substituted."""
    k, F = sp.symbols("k_{T'} F_{T'}") if stream else sp.symbols("k_T F_T")
    k_D, F_D, R_1, R_2 = sp.symbols("k_D F_D R_1 R_2")
    per_failure = lam1 / Lam * R_1 + lam2 / Lam * (T_eff * p1 / (1 - p1) + R_2)
    rhs = T + k * (F + per_failure)
    if stream:  # T' = T + D, minus the overlap's own effective period D + k_D (F_D + ...)
        rhs -= k_D * (F_D + per_failure)
    return sp.Eq(T_eff, rhs), _solve_linear(rhs, T_eff)


def utilization_two_level(stream: bool = False) -> sp.Expr:
    """U = (T - p1 c1 - p2 c2)/T_eff: the derived (3), or (8) with ``stream``."""
    return (T - p1 * c1 - (1 - p1) * c2) / effective_period_two_level(stream)


def eq3_printed() -> sp.Expr:
    E = sp.exp(T * Lam)
    return (Lam * (lam2 * (p1 * E - 1) - lam1 * p2) * (T - c1 * p1 - c2 * p2)) / (
        (1 - E)
        * p2
        * (sp.exp(r2 * Lam) * (lam2 + lam1 * p2) - lam2 * p1 + Lam * p1 * sp.exp(lam1 * r1))
    )


def eq8_printed() -> sp.Expr:
    D = delta * (n - 1)
    return (
        sp.exp(-D * Lam)
        * Lam
        * (T - c1 * p1 - c2 * p2)
        * (Lam - lam1 * p1 - lam2 * p1 * (sp.exp(Lam * (T + D)) - sp.exp(D * Lam) + 1))
        / (
            p2
            * (sp.exp(T * Lam) - 1)
            * (sp.exp(r2 * Lam) * (lam2 + lam1 * p2) - lam2 * p1 + Lam * p1 * sp.exp(lam1 * r1))
        )
    )


# -- Sections 5 and 6: L levels -------------------------------------------------------------------
@dataclass(frozen=True)
class LevelSymbols:
    lam: tuple[sp.Symbol, ...]
    c: tuple[sp.Symbol, ...]
    r: tuple[sp.Symbol, ...]
    p: tuple[sp.Symbol, ...]


def level_symbols(levels: int) -> LevelSymbols:
    def make(name):
        return tuple(sp.Symbol(f"{name}_{i}", positive=True) for i in range(1, levels + 1))

    return LevelSymbols(make("lambda"), make("c"), make("r"), make("p"))


@cache
def utilization_levels(levels: int, stream: bool = False) -> tuple[sp.Expr, LevelSymbols]:
    """Eq. (11), or Eq. (13) with ``stream``, for a given number of levels, solved for T_eff.

    R_l = Σ_{i>=l} p_i/P_l (restart from level i with failures of levels <= i during it);
    a level-l failure loses Σ_{i<l} p_i / Σ_{i>=l} p_i completed lower-level checkpoints.
    """
    s = level_symbols(levels)
    big = sum(s.lam)
    per_failure = 0
    for level in range(levels):
        tail = sum(s.p[level:])
        R = sum(
            s.p[i] / tail * restart_with_failures(s.r[i], sum(s.lam[: i + 1]))
            for i in range(level, levels)
        )
        lost = T_eff * sum(s.p[:level]) / tail
        per_failure += s.lam[level] / big * (lost + R)

    def period(length):
        k_mean = consecutive_failures().subs(q, failure_free(length, big))
        return length + k_mean * (eq2_mean_time_to_failure(big, length) + per_failure)

    D = (n - 1) * delta
    equation = period(T + D) - period(D) if stream else period(T)
    effective = _solve_linear(equation, T_eff)
    cost = sum(pi * ci for pi, ci in zip(s.p, s.c, strict=True))
    return (T - cost) / effective, s


# -- Section 3.4 / 4.3: Lambert-W approximations ------------------------------------------------
@cache
def utilization_without_restart(stream: bool = False) -> sp.Expr:
    """The regime of (4)-(5): negligible restart cost (r1 = r2 = 0)."""
    return sp.simplify(utilization_two_level(stream).subs({r1: 0, r2: 0}).subs(Lam, lam1 + lam2))


@cache
def eq5_derived(stream: bool = False) -> sp.Expr:
    """p1* from ∂U/∂p1 = 0 at r = 0: the root in (0, 1) of the stationarity condition."""
    u = utilization_without_restart(stream)
    roots = sp.solve(sp.numer(sp.together(sp.diff(u, p1))), p1)
    # Two roots, 1 ± sqrt(...) in effect: the maximizer is the one inside (0, 1), told apart at a
    # point of the model's domain (rates per second, costs and T in s).
    point = {lam1: 1e-3, lam2: 1e-4, T: 300, c1: 10, c2: 30, n: 5, delta: sp.Rational(1, 2)}
    return next(root for root in roots if 0 < float(root.subs(point).evalf()) < 1)


def eq5_printed() -> sp.Expr:
    L = lam1 + lam2
    return 1 - sp.sqrt(
        lam2 * (T - c1) * (sp.exp(T * L) - 1) / ((c2 - c1) * (lam1 + lam2 * sp.exp(T * L)))
    )


def eq10_printed() -> sp.Expr:
    L = lam1 + lam2
    return 1 - sp.exp(delta * n * L / 2) * sp.sqrt(
        lam2
        * (T - c1)
        * (sp.exp(T * L) - 1)
        / (
            (c2 - c1)
            * (
                L * sp.exp(delta * L)
                - lam2 * sp.exp(delta * n * L)
                + lam2 * sp.exp(L * (T + delta * n))
            )
        )
    )


@cache
def eq4_derived() -> sp.Expr:
    """T* in the regime λ1 >> λ2 (λ2 -> 0) with r = 0: U -> λ1 (T - c̄)/(e^{λ1 T} - 1), whose
    stationary point SymPy solves with the Lambert W function; c̄ = c1 p1 + c2 (1 - p1)."""
    u = sp.limit(utilization_without_restart(), lam2, 0)
    return sp.solve(sp.diff(u, T), T)[0]


def eq4_printed() -> sp.Expr:
    return (
        c1 * p1
        + c2 * (1 - p1)
        + (sp.LambertW(-sp.exp(c2 * lam1 * p1 - c1 * lam1 * p1 - c2 * lam1 - 1)) + 1) / lam1
    )


# -- Equality of derived and printed forms -------------------------------------------------------
@dataclass(frozen=True)
class Comparison:
    equal: bool
    method: str  # "symbolic" or "numeric (50 digits, N points)"
    max_relative_difference: float


def _name_exponentials(expr: sp.Expr) -> sp.Expr:
    """exp(a + b) -> exp(a) exp(b), then every exp(·) as a power of a fresh symbol, so that the
    difference of two forms becomes a rational function that ``cancel`` can decide."""
    expanded = sp.powsimp(
        sp.expand(expr, power_exp=True, mul=False, multinomial=False), combine="base"
    )
    atoms = {}

    def replace(e):
        arg = sp.expand(e.args[0])
        coeff, rest = arg.as_coeff_Mul()
        key = sp.Symbol(f"E_{len(atoms)}") if rest not in atoms else atoms[rest]
        atoms.setdefault(rest, key)
        return atoms[rest] ** coeff

    return expanded.replace(lambda e: isinstance(e, sp.exp), replace)


def compare(
    derived: sp.Expr,
    printed: sp.Expr,
    substitutions: dict | None = None,
    points: int = 20,
    seed: int = 0,
) -> Comparison:
    """Whether ``derived`` equals ``printed`` (after ``substitutions``, e.g. Λ = λ1 + λ2 and
    p2 = 1 - p1): symbolically if SymPy cancels the difference, else numerically."""
    subs = substitutions or {}
    a, b = sp.sympify(derived).subs(subs), sp.sympify(printed).subs(subs)
    try:
        if sp.cancel(sp.together(_name_exponentials(a - b))) == 0:
            return Comparison(True, "symbolic", 0.0)
    except (sp.PolynomialError, TypeError, ValueError):
        pass
    rng = random.Random(seed)
    free = sorted(a.free_symbols | b.free_symbols, key=str)
    worst = 0.0
    with mpmath.workdps(50):
        for _ in range(points):
            point = {s: sp.Float(v, 50) for s, v in _sample_point(free, rng).items()}
            va, vb = sp.N(a.subs(point), 50), sp.N(b.subs(point), 50)
            worst = max(worst, float(abs(va - vb) / max(abs(vb), sp.Float(1e-300))))
    return Comparison(worst < 1e-30, f"numeric (50 digits, {points} points)", worst)


def _sample_point(symbols, rng: random.Random) -> dict:
    """A point in the model's domain: rates per second decreasing with the level, costs in s
    increasing with it, probabilities in (0, 1), T in s, n and δ of a DAG."""
    ranges = {
        "lambda": (1e-5, 5e-3),
        "Lambda": (1e-5, 5e-3),
        "p": (0.05, 0.95),
        "c": (1.0, 60.0),
        "r": (1.0, 60.0),
        "n": (1, 200),
        "delta": (0.0, 2.0),
        "T": (100.0, 1000.0),
    }
    groups: dict[str, list] = {}
    for symbol in symbols:
        groups.setdefault(str(symbol).split("_")[0], []).append(symbol)
    point = {}
    for prefix, members in groups.items():
        low, high = ranges[prefix]
        if prefix == "n":
            values = [float(rng.randint(low, high)) for _ in members]
        else:
            values = sorted(rng.uniform(low, high) for _ in members)
        if prefix == "lambda":
            values.reverse()  # λ1 > λ2 > ...
        point.update(zip(sorted(members, key=str), values, strict=True))
    return point
