"""When each failed query is back (incremental.query_recovery_times): the Fig 2 example by hand,
blocking against incremental recovery, the restart and catch-up formula, and bad input."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from incremental import query_recovery_times
from incremental.placement import recover_as_nodes_arrive
from tests.examples import examples
from tests.incremental.reference import FIG2_NODES, fig2


def test_fig2_incremental_recovers_one_query_at_the_second_node_blocking_both_at_the_fourth():
    inc = query_recovery_times(fig2(), FIG2_NODES)
    block = query_recovery_times(fig2(), FIG2_NODES, blocking=True)
    assert sorted(inc.values()) == [120.0, 240.0]
    assert block == {q: 240.0 for q in inc}


def test_restart_and_catch_up_follow_the_formula():
    restart, lost, rho = 5.0, 4.0, 0.2
    got = query_recovery_times(fig2(), FIG2_NODES, restart=restart, lost=lost, rho=rho)
    for t_placed, back in zip((120.0, 240.0), sorted(got.values()), strict=True):
        # Replay t + restart + lost seconds of input at μ while input arrives at λ = ρμ.
        assert back == pytest.approx(
            t_placed + restart + (t_placed + restart + lost) * rho / (1 - rho)
        )


def test_not_enough_capacity_never_recovers():
    got = query_recovery_times(fig2(), FIG2_NODES[:1])
    assert all(math.isinf(t) for t in got.values())
    assert all(
        math.isinf(t) for t in query_recovery_times(fig2(), FIG2_NODES[:3], blocking=True).values()
    )


@settings(max_examples=examples(40), deadline=None)
@given(
    delays=st.lists(st.floats(0.0, 500.0), min_size=4, max_size=4),
    spare=st.floats(0.0, 3.0),
)
def test_blocking_is_one_time_no_earlier_than_any_incremental_query(delays, spare):
    """Unit costs pack without fragmentation, so blocking waits for the last partition's
    placement, which no incremental plan can beat for its last query."""
    arrivals = [(t, 2.5) for t in sorted(delays)]
    inc = query_recovery_times(fig2(), arrivals, alive_free=[spare])
    block = query_recovery_times(fig2(), arrivals, blocking=True, alive_free=[spare])
    assert len(set(block.values())) == 1
    assert max(inc.values()) <= next(iter(block.values())) + 1e-9
    steps = recover_as_nodes_arrive(fig2(), arrivals, alive_free=[spare])
    first_back = {q: next(s.time for s in steps if q in s.recovered_queries) for q in inc}
    assert inc == first_back


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"restart": -1.0}, "restart"),
        ({"lost": math.inf}, "lost"),
        ({"rho": 1.0}, "rho"),
        ({"rho": -0.1}, "rho"),
        ({"cpu_cap": 0.0}, "cpu_cap"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, match):
    with pytest.raises(ValueError, match=match):
        query_recovery_times(fig2(), FIG2_NODES, **kwargs)
