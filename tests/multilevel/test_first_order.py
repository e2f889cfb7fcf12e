"""Young's / Daly's first-order interval against the exact single-level optimum of Eq. (11)."""

import numpy as np
import pytest

from multilevel.optimize import first_order_interval, optimal
from multilevel.utilization import System, utilization


def _system(rng, lam_c):
    c = rng.uniform(1.0, 10.0)
    return System(lam=[lam_c / c], c=[c], r=[rng.uniform(0.0, 2.0) * c])


@pytest.mark.parametrize("daly", [True, False])
def test_relative_error_vanishes_as_sqrt_lambda_c(daly):
    """First order in sqrt(Λc): the error shrinks about sqrt(100) = 10-fold when Λc falls
    100-fold (at least 5-fold here), and stays below 2 sqrt(Λc) at every point."""
    rng = np.random.default_rng(7)
    for _ in range(4):
        seed = int(rng.integers(1 << 30))
        errors = []
        for lam_c in (1e-2, 1e-4):
            system = _system(np.random.default_rng(seed), lam_c)
            exact = optimal(system).T
            error = abs(first_order_interval(system, daly=daly) - exact) / exact
            assert error < 2 * np.sqrt(lam_c)
            errors.append(error)
        assert errors[1] < errors[0] / 5


def test_near_optimal_utilization_and_daly_adds_restart():
    system = System.per_day(lam=[12.5], c=[5.0], r=[25.0])
    best = optimal(system)
    young = first_order_interval(system, daly=False)
    daly = first_order_interval(system)
    assert young < daly  # Daly's M + r > Young's M
    assert daly - young == pytest.approx(
        np.sqrt(2 * 5.0 * (86_400 / 12.5 + 25.0)) - np.sqrt(2 * 5.0 * 86_400 / 12.5)
    )
    # A first-order interval loses a negligible share of the optimum's utilization.
    for t in (young, daly):
        assert best.U - float(utilization(t, [1.0], system)) < 1e-4 * best.U


def test_uses_the_highest_level_and_every_failure():
    two = System.per_day(lam=[10.0, 2.0], c=[1.0, 5.0], r=[15.0, 25.0])
    one = System.per_day(lam=[12.0], c=[5.0], r=[25.0])
    assert first_order_interval(two) == pytest.approx(first_order_interval(one))
