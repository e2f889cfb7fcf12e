"""Section III-A1's Fig 2 example: t22 fails, λ11 = 1, λ12 = 2, λ21 = 3, λ22 = 2."""

import pytest

from ppa import internal_completeness, output_fidelity
from ppa.fidelity import information_loss
from ppa.shapes import fig2


def test_il31_is_two_fifths_for_a_join():
    # Eq. (2): 1 - (1 - 0)(1 - 2/5)
    assert information_loss(fig2(join=True), {"t22"})["t31"] == pytest.approx(2 / 5)


def test_il31_is_one_quarter_for_independent_input():
    # Eq. (3) with the index typo corrected: (3·0 + 5·(2/5)) / 8. The printed λ_{i,p} IL_{i,p}
    # for every j would give 2·(5·2/5) / 8 = 1/2.
    assert information_loss(fig2(join=False), {"t22"})["t31"] == pytest.approx(1 / 4)


def test_a_failed_task_loses_everything_and_the_sink_is_the_output():
    topology = fig2(join=True)
    losses = information_loss(topology, {"t22"})
    assert losses["t22"] == 1 and losses["t11"] == losses["t12"] == losses["t21"] == 0
    assert output_fidelity(topology, {"t22"}) == pytest.approx(1 - losses["t31"])


def test_unknown_failed_tasks_are_named():
    with pytest.raises(ValueError, match=r"failed names unknown tasks: \['t99'\]"):
        output_fidelity(fig2(join=True), {"t22", "t99"})
    with pytest.raises(ValueError, match="failed must be a set of task names"):
        output_fidelity(fig2(join=True), "t22")


@pytest.mark.parametrize("join", [True, False])
def test_ic_counts_the_input_t31_still_processes_whatever_the_operator_type(join):
    # t31 processes λ11 + λ12 + λ21 = 6 of its 8 tuples/s; IC ignores input correlation
    assert internal_completeness(fig2(join=join), {"t22"}) == pytest.approx(6 / 8)
