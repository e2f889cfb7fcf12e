"""The paper's printed formulas transcribed literally, as references for the tests.

Nothing here is simplified: F_Λ, q and the recovery costs are written as in Sections 3-6.
"""

import math


def F(lam, t):
    """Eq. (2): mean time to failure given a failure before t."""
    return (math.exp(t * lam) - t * lam - 1) / (lam * (math.exp(t * lam) - 1))


def q(t, lam):
    """P[X >= t; lam]."""
    return math.exp(-lam * t)


def recovery_costs(p, lam, r):
    """R_l of Section 5.1 for every level l."""
    L = len(p)
    out = []
    for level in range(L):
        tail = sum(p[level:])
        total = 0.0
        for i in range(level, L):
            cum = sum(lam[: i + 1])
            # r = 0: no restart to fail, the retry term's limit is 0 (F itself is 0/0 there).
            retry = (1 / q(r[i], cum) - 1) * F(cum, r[i]) if r[i] > 0 else 0.0
            total += p[i] / tail * (r[i] + retry)
        out.append(total)
    return out


def lost_checkpoints(p):
    """Σ_{i<l} p_i / Σ_{i>=l} p_i for every level l."""
    return [sum(p[:level]) / sum(p[level:]) for level in range(len(p))]


def utilization_stream(T, p, lam, c, r, n, delta):
    """Eq. (13): the effective period with the (n-1)δ overlap subtracted, solved for T_eff."""
    big = sum(lam)
    D = (n - 1) * delta
    Tp = T + D
    R = recovery_costs(p, lam, r)
    a = lost_checkpoints(p)
    k_T = (1 - q(Tp, big)) / q(Tp, big)
    k_D = (1 - q(D, big)) / q(D, big) if D > 0 else 0.0
    F_D = F(big, D) if D > 0 else 0.0
    restart = sum(lam[level] * R[level] / big for level in range(len(p)))
    lost = sum(lam[level] / big * a[level] for level in range(len(p)))
    numerator = T + k_T * (F(big, Tp) + restart) - k_D * (F_D + restart)
    denominator = 1 - (k_T - k_D) * lost
    T_eff = numerator / denominator
    return (T - sum(pi * ci for pi, ci in zip(p, c, strict=True))) / T_eff


def utilization_single(T, p, lam, c, r):
    """Eq. (11): single process, T_eff = (T + k (F + Σ λR/Λ)) / (1 - k Σ (λ/Λ) a)."""
    big = sum(lam)
    k = (1 - q(T, big)) / q(T, big)
    R = recovery_costs(p, lam, r)
    a = lost_checkpoints(p)
    restart = sum(lam[level] * R[level] / big for level in range(len(p)))
    lost = sum(lam[level] / big * a[level] for level in range(len(p)))
    T_eff = (T + k * (F(big, T) + restart)) / (1 - k * lost)
    return (T - sum(pi * ci for pi, ci in zip(p, c, strict=True))) / T_eff


def closed_form_3(T, p1, lam1, lam2, c1, c2, r1, r2):
    """Eq. (3) as printed."""
    p2 = 1 - p1
    big = lam1 + lam2
    e = math.exp
    return (big * (lam2 * (p1 * e(T * big) - 1) - lam1 * p2) * (T - c1 * p1 - c2 * p2)) / (
        (1 - e(T * big))
        * p2
        * (e(r2 * big) * (lam2 + lam1 * p2) - lam2 * p1 + big * p1 * e(lam1 * r1))
    )


def closed_form_8(T, p1, lam1, lam2, c1, c2, r1, r2, n, delta):
    """Eq. (8) as printed."""
    p2 = 1 - p1
    big = lam1 + lam2
    e = math.exp
    D = delta * (n - 1)
    return (
        e(-D * big)
        * big
        * (T - c1 * p1 - c2 * p2)
        * (big - lam1 * p1 - lam2 * p1 * (e(big * (T + D)) - e(D * big) + 1))
        / (
            p2
            * (e(T * big) - 1)
            * (e(r2 * big) * (lam2 + lam1 * p2) - lam2 * p1 + big * p1 * e(lam1 * r1))
        )
    )
