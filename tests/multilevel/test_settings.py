"""multilevel.settings: the systems of the figures and tables carry the values of their captions."""

import pytest

from multilevel import settings
from multilevel.utilization import SECONDS_PER_DAY


def per_day(system):
    return tuple(round(lam * SECONDS_PER_DAY, 9) for lam in system.lam)


def test_fig8_is_section4_3s_process_as_one_operator():
    assert per_day(settings.FIG8) == (24.0, 0.4)
    assert settings.FIG8.c == settings.FIG8.r == (10.0, 30.0)
    assert (settings.FIG8.n, settings.FIG8.delta) == (1, 0.0)


@pytest.mark.parametrize("lam2", settings.TABLE1_LAMBDA2)
def test_table1_rows(lam2):
    system = settings.table1_system(lam2)
    assert per_day(system) == (50.0, lam2) and system.c == system.r == (20.0, 50.0)


def test_table2_and_fig12_dags():
    dag = settings.table2_system(0.1, 20)
    assert per_day(dag) == (20.0, 5.0, 0.1) and dag.c == dag.r == (10.0, 20.0, 100.0)
    assert (dag.n, dag.delta) == (20, 0.5)
    fig12 = settings.fig12_system(10)
    assert per_day(fig12) == settings.FIG12_LAMBDA and fig12.c == settings.FIG12_COST
    assert (fig12.n, fig12.delta) == (10, settings.FIG12_DELTA)
