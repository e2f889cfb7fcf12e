"""The SymPy derivations reproduce the printed equations, and the numeric model reproduces them."""

import random

import pytest
import sympy as sp

from multilevel import derivation as d
from multilevel.utilization import System, utilization

TWO_LEVEL = {d.Lam: d.lam1 + d.lam2, d.p2: 1 - d.p1}


def test_eq2_by_integration_equals_the_printed_form_symbolically():
    result = d.compare(d.eq2_mean_time_to_failure(), d.eq2_printed())
    assert result.equal and result.method == "symbolic"


def test_geometric_means():
    assert sp.simplify(d.consecutive_failures() - (1 - d.q) / d.q) == 0
    assert sp.simplify(d.lost_checkpoints_two_level() - d.p1 / (1 - d.p1)) == 0
    restart = d.restart_with_failures(d.r1, d.lam1)
    assert sp.simplify(restart - (sp.exp(d.lam1 * d.r1) - 1) / d.lam1) == 0


@pytest.mark.parametrize(
    ("stream", "printed"), [(False, d.eq3_printed), (True, d.eq8_printed)], ids=["(3)", "(8)"]
)
def test_effective_period_form_equals_the_printed_closed_form(stream, printed):
    assert d.compare(d.utilization_two_level(stream), printed(), TWO_LEVEL).equal


def test_a_wrong_closed_form_is_detected():
    wrong = d.eq3_printed().subs(d.r1, 2 * d.r1)
    result = d.compare(d.utilization_two_level(), wrong, TWO_LEVEL)
    assert not result.equal and result.max_relative_difference > 1e-6


def test_lambert_w_interval_4_derives_in_the_limit_of_rare_level_2_failures():
    result = d.compare(d.eq4_derived(), d.eq4_printed())
    assert result.equal


@pytest.mark.parametrize(
    ("stream", "printed"), [(False, d.eq5_printed), (True, d.eq10_printed)], ids=["(5)", "(10)"]
)
def test_lambert_w_probability_is_the_exact_stationary_point_without_restart_cost(stream, printed):
    assert d.compare(d.eq5_derived(stream), printed()).equal


def test_two_of_L_levels_is_the_two_level_model():
    u, s = d.utilization_levels(2)
    rename = {
        d.p1: s.p[0],
        d.lam1: s.lam[0],
        d.lam2: s.lam[1],
        d.c1: s.c[0],
        d.c2: s.c[1],
        d.r1: s.r[0],
        d.r2: s.r[1],
    }
    two = d.utilization_two_level().subs({d.Lam: d.lam1 + d.lam2}).subs(rename)
    assert d.compare(u.subs(s.p[1], 1 - s.p[0]), two).equal


def test_eq13_for_three_levels_equals_the_numeric_model():
    u, s = d.utilization_levels(3, stream=True)
    f = sp.lambdify([d.T, d.n, d.delta, *s.lam, *s.c, *s.r, *s.p], u, "mpmath")
    rng = random.Random(4)
    for _ in range(20):
        lam = sorted((rng.uniform(1e-5, 3e-3) for _ in range(3)), reverse=True)
        c = sorted(rng.uniform(1, 50) for _ in range(3))
        r = sorted(rng.uniform(0.5, 50) for _ in range(3))
        w = [rng.uniform(0.05, 1) for _ in range(3)]
        p = [x / sum(w) for x in w]
        n, delta, T = rng.randint(1, 100), rng.uniform(0, 1), rng.uniform(60, 900)
        expected = float(f(T, n, delta, *lam, *c, *r, *p))
        system = System(lam=lam, c=c, r=r, n=n, delta=delta)
        assert float(utilization(T, p, system)) == pytest.approx(
            max(expected, 0.0), rel=1e-9, abs=1e-12
        )


def test_eq11_is_eq13_with_one_operator():
    single, s = d.utilization_levels(3)
    stream, _ = d.utilization_levels(3, stream=True)
    assert d.compare(stream.subs(d.n, 1), single).equal
