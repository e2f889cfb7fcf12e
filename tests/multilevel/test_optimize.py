"""T*, p* of the optimizer against brute force, high precision and the Lambert-W equations."""

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from multilevel.optimize import (
    lambert_w_interval,
    lambert_w_optimum,
    lambert_w_probability,
    optimal,
    optimal_at_interval,
)
from multilevel.settings import FIG8, section4_3_system, table2_system
from multilevel.utilization import System, utilization
from tests.examples import examples


@st.composite
def two_level(draw):
    lam1 = draw(st.floats(5, 500))
    lam2 = draw(st.floats(0.05, 1.0)) * lam1
    c1 = draw(st.floats(1, 40))
    c2 = c1 * draw(st.floats(1.2, 5))
    n = draw(st.sampled_from([1, 5, 50]))
    return System.per_day(lam=[lam1, lam2], c=[c1, c2], r=[c1, c2], n=n, delta=0.5)


def _grid_best(system, p_grid):
    """Best U over a dense grid: every T above the cheapest checkpoint, each p where T > Σ p c."""
    cost = p_grid @ np.asarray(system.c)
    best = 0.0
    top = 40 * np.sqrt(2 * max(system.c) / sum(system.lam)) + cost.max()
    for T in np.geomspace(cost.min() * 1.001, top, 800):
        valid = T > cost
        if valid.any():
            best = max(best, float(utilization(T, p_grid[valid], system).max()))
    return best


@settings(max_examples=examples(25), deadline=None)
@given(two_level())
def test_two_level_optimum_beats_a_dense_grid(system):
    best = optimal(system)
    assert best.converged
    p1 = np.linspace(0, 0.999, 400)
    grid = _grid_best(system, np.stack([p1, 1 - p1], axis=1))
    assert best.U >= grid - 1e-12
    assert best.U - grid < 2e-3  # the grid is fine enough to come close
    assert best.U == pytest.approx(float(utilization(best.T, best.p, system)), abs=1e-13)


def test_three_level_optimum_beats_a_dense_grid_and_pins_levels():
    system = table2_system(0.1, 20)
    a, b = np.meshgrid(np.linspace(0, 1, 81), np.linspace(0, 1, 81))
    keep = (a + b < 0.999).ravel()
    p = np.stack([a.ravel(), b.ravel(), 1 - a.ravel() - b.ravel()], axis=1)[keep]
    best = optimal(system)
    assert best.U >= _grid_best(system, p) - 1e-12
    pinned = optimal(system, zero_levels=(2,))
    assert pinned.p[1] == 0.0 and pinned.U < best.U
    only_top = optimal(system, zero_levels=(1, 2))
    assert only_top.p == (0.0, 0.0, 1.0) and only_top.U < pinned.U


def test_optimum_is_the_stationary_point_to_high_precision():
    """Table 1, λ2 = 0.5/day: the gradient's root at 40 digits."""
    system = System.per_day(lam=[50, 0.5], c=[20, 50], r=[20, 50])
    best = optimal(system)
    mp.mp.dps = 40
    l1, l2 = (mp.mpf(v) for v in system.lam)
    big = l1 + l2

    def u(T, p1):
        p2 = 1 - p1
        r1 = p1 * mp.expm1(l1 * 20) / l1 + p2 * mp.expm1(big * 50) / big
        r2 = mp.expm1(big * 50) / big
        g = mp.expm1(big * T)
        return (
            (T - 20 * p1 - 50 * p2)
            * big
            * (1 - g * l2 / big * p1 / p2)
            / (g * (1 + l1 * r1 + l2 * r2))
        )

    root = mp.findroot(
        lambda T, p: [mp.diff(lambda t: u(t, p), T), mp.diff(lambda x: u(T, x), p)],
        (mp.mpf(best.T), mp.mpf(best.p1)),
    )
    assert best.T == pytest.approx(float(root[0]), abs=1e-4)
    assert best.p1 == pytest.approx(float(root[1]), abs=1e-8)


def test_optimum_at_fixed_interval_is_below_the_free_optimum_and_beats_a_grid():
    system = System.per_day(lam=[24, 4], c=[20, 50], r=[20, 50])
    free = optimal(system)
    for T in (150.0, free.T, 900.0):
        at = optimal_at_interval(T, system)
        p1 = np.linspace(0, 0.999, 2000)
        p1 = p1[T > 20 * p1 + 50 * (1 - p1)]
        grid = utilization(T, np.stack([p1, 1 - p1], axis=1), system).max()
        assert at.U >= grid - 1e-12 and at.U <= free.U + 1e-12


def test_lambert_w_fixed_point_satisfies_equations_4_and_5():
    system = FIG8
    approx = lambert_w_optimum(system)
    assert approx.converged
    assert approx.T == pytest.approx(float(lambert_w_interval(approx.p1, system)), rel=1e-9)
    assert approx.p1 == pytest.approx(float(lambert_w_probability(approx.T, system)), abs=1e-9)
    # (4) is the single-level Lambert-W optimum: d/dT [λ(T - c)/(e^{λT} - 1)] = 0 there.
    lam1, cbar = system.lam[0], 10 * approx.p1 + 30 * (1 - approx.p1)
    T = approx.T
    assert np.expm1(lam1 * T) == pytest.approx(lam1 * (T - cbar) * np.exp(lam1 * T), rel=1e-9)


def test_equation_10_reduces_to_5_for_one_operator():
    base = FIG8
    with_delay = section4_3_system(1, 0.7)
    T = np.linspace(100, 500, 9)
    np.testing.assert_allclose(lambert_w_probability(T, with_delay), lambert_w_probability(T, base))


@pytest.mark.parametrize(
    ("zero_levels", "message"),
    [((3,), "cannot pin level 3"), ((0,), "levels 1..3"), ((1.5,), "levels 1..3")],
)
def test_bad_pinned_levels(zero_levels, message):
    system = System.per_day(lam=[20, 5, 1], c=[10, 20, 100], r=[10, 20, 100])
    with pytest.raises(ValueError, match=message):
        optimal(system, zero_levels=zero_levels)


def test_lambert_w_needs_two_levels():
    with pytest.raises(ValueError, match="for 2 levels"):
        lambert_w_optimum(System.per_day(lam=[20, 5, 1], c=[10, 20, 100], r=[10, 20, 100]))
