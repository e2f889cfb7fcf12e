"""crosspaper.recovery: the closed form against its derivation's limits and against the khaos
simulator (the tolerance stated in the module), and the expectation over failure moments."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from crosspaper import recovery as R
from crosspaper import scenarios as S
from tests.examples import examples


def test_linear_drain_without_exponential_tail():
    job = R.Job(input_rate=100.0, capacity=300.0, drain_tau_s=0.0)
    # peak = 100 x (30 + 10) = 4000 events, drained to 5% at 200 events/s.
    assert R.recovery_s(30.0, 10.0, job) == pytest.approx(10.0 + 0.95 * 4000 / 200)


def test_no_catch_up_is_infinite_and_bad_input_refused():
    job = R.Job(input_rate=100.0, capacity=100.0)
    assert not job.feasible and math.isinf(R.recovery_s(5.0, 5.0, job))
    with pytest.raises(ValueError, match="capacity"):
        R.Job(input_rate=1.0, capacity=0.0)
    with pytest.raises(ValueError, match="lost_s"):
        R.recovery_s(-1.0, 0.0, R.Job(input_rate=1.0, capacity=2.0))
    with pytest.raises(ValueError, match="timing"):
        R.lost_work(10.0, "mid")
    with pytest.raises(ValueError, match="keep"):
        R.expected_recovery_s(10.0, 1.0, R.Job(input_rate=1.0, capacity=2.0), keep=0.0)


@settings(max_examples=examples(100))
@given(
    lost=st.floats(0, 2000),
    down=st.floats(0, 600),
    tau=st.floats(0, 100),
    rho=st.floats(0.05, 0.95),
)
@example(lost=0.0, down=5e-324, tau=4.0, rho=0.28125)  # rev20f #7: a subnormal peak backlog
def test_recovery_grows_with_lost_work_and_down_time(lost, down, tau, rho):
    job = R.Job(input_rate=rho * 1000.0, capacity=1000.0, drain_tau_s=tau)
    base = R.recovery_s(lost, down, job)
    assert base >= down
    assert R.recovery_s(lost + 10.0, down, job) >= base - 1e-9
    assert R.recovery_s(lost, down + 10.0, job) >= base + 10.0 - 1e-9


def test_expectation_over_moments_and_levels():
    job = R.Job(input_rate=100.0, capacity=300.0)  # linear: E[recovery] at the mean moment
    uniform = R.expected_recovery_s(60.0, 10.0, job, "uniform")
    assert uniform == pytest.approx(R.recovery_s(30.0, 10.0, job), rel=1e-9)
    worst = R.expected_recovery_s(60.0, 10.0, job, "worst")
    assert worst == pytest.approx(R.recovery_s(57.0, 10.0, job))
    # A level-2 failure with a level-2 checkpoint every 4th interval loses 0-3 intervals more.
    level2 = R.expected_recovery_s(60.0, 10.0, job, "uniform", keep=0.25)
    assert level2 == pytest.approx(R.recovery_s(30.0 + 1.5 * 60.0, 10.0, job), rel=1e-9)


def full_quadrature(interval_s, down_s, job, timing, keep):
    """E[recovery_s] over every (G, moment) cell of the grid, as expected_recovery_s defines it
    (its linear rows are summed in closed form instead)."""
    moments, weights = R.lost_work(interval_s, timing)
    g = np.arange(1, 1 + math.ceil(1.0 / keep - 1e-9))  # the level law: G uniform on 1..m
    pg = np.full(g.size, 1.0 / g.size)
    grid = R.recovery_s(moments[None, :] + ((g - 1) * interval_s)[:, None], down_s, job)
    return float(pg @ grid @ weights)


@settings(max_examples=examples(100))
@given(
    interval=st.sampled_from([1.0, 5.0, 60.0, 1800.0]) | st.floats(0.5, 3000),
    down=st.sampled_from([0.0]) | st.floats(0, 600),
    tau=st.sampled_from([0.0]) | st.floats(0, 200),
    headroom=st.floats(0.9, 3.0),
    fraction=st.sampled_from([R.DRAIN_FRACTION]) | st.floats(0.01, 0.5),
    timing=st.sampled_from(R.TIMINGS),
    keep=st.sampled_from([1.0, 0.5, 0.05, 0.01]) | st.floats(0.01, 1),
)
def test_expectation_equals_the_full_quadrature(
    interval, down, tau, headroom, fraction, timing, keep
):
    job = R.Job(
        input_rate=100.0, capacity=100.0 * headroom, drain_tau_s=tau, drain_fraction=fraction
    )
    fast = R.expected_recovery_s(interval, down, job, timing, keep)
    full = full_quadrature(interval, down, job, timing, keep)
    assert fast == full or fast == pytest.approx(full, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("name", ["khaos_ysb", "khaos_iot"])
def test_model_agrees_with_khaos_simulator(name):
    s = S.load(name)
    table = R.simulator_table(
        R.job_of(s), s.checkpoint.remote_restart_s, [10, 60, 120], [R.INJECT_BEFORE_S, 29, 59]
    )
    assert len(table) == 7 and table["within"].all(), table


def test_simulator_check_fails_on_a_wrong_capacity():
    s = S.load("khaos_ysb")
    wrong = R.Job(input_rate=s.topology.input_rate, capacity=1.3 * s.checkpoint.catch_up_rate)
    table = R.simulator_table(wrong, s.checkpoint.remote_restart_s, [60], [R.INJECT_BEFORE_S])
    sim = R.simulator_table(R.job_of(s), s.checkpoint.remote_restart_s, [60], [3])
    table["simulator_s"] = sim["simulator_s"]  # the true job against a model of a faster one
    gap = (table["simulator_s"] - table["model_s"]).abs()
    assert (gap > R.tolerance_s(table["model_s"])).all()


def test_model_at_each_failures_rate_agrees_with_the_simulated_day():
    from khaos.simulate import workload_of

    s = S.load("khaos_ysb")
    setup = S.to_khaos(s)
    workload = workload_of(str(S.DATA / "khaos"), setup.experiment)
    table = R.simulator_day_table(s, 10, setup.sim, workload, setup.failure_seconds)
    assert len(table) == len(setup.failure_seconds) and table["within"].all(), table
    # The day's failures came at above-mean load: the mean-rate model is lower than the day.
    mean_rate = R.expected_recovery_s(10.0, round(setup.sim.restart_s), R.job_of(s), "worst")
    assert table["simulator_s"].mean() > mean_rate


def test_a_recovery_that_never_drains_reads_never():
    """rev20b MED 4: findings printed "inf s" for a backlog that never drains."""
    never = R.recovery_s(10.0, 5.0, R.Job(input_rate=100.0, capacity=100.0))
    assert R.duration_text(never) == "never"
    assert R.duration_text(12.4) == "12 s"


# -- where a failed task restarts: one rule for every scheme ------------------------------------
def test_restart_plan_takes_survivors_then_standby_then_acquired_nodes():
    # spare 0.5 and 0.1 on the survivors, one standby node, cap 0.8
    plan = R.restart_plan([0.4, 0.4, 0.4, 0.4, 0.4], [0.5, 0.1], 0.8, 1)
    np.testing.assert_array_equal(plan, [-1, -1, -1, 0, 0])  # survivor, standby x2, new node 0
    np.testing.assert_array_equal(R.restart_plan([0.5, 0.5], [], 0.8, 0), [0, 1])
    assert R.restart_plan([], [0.3], 0.8, 0).size == 0
    for bad in ({"cap": 0.0}, {"standby": -1}, {"task_cpu": [0.9]}):
        args = {"task_cpu": [0.1], "spare": [0.0], "cap": 0.8, "standby": 0} | bad
        with pytest.raises(ValueError, match=next(iter(bad))):
            R.restart_plan(**args)


def test_restart_plan_fails_on_ignoring_the_survivors_spare():
    """The rule's first step is load-bearing: on the template (1.0 of spare on the source nodes)
    one failed node's tasks wait for nothing, while without the spare they need a new node."""
    s = S.load(S.TEMPLATE)
    assert s.resources.standby_nodes == 0
    for k in range(s.resources.nodes):
        assert R.acquired_nodes(s, (k,), 0)[0] == 0
    _, cpu, spare = R.failed_tasks(s, (9,))
    assert R.restart_plan(cpu, [0.0] * len(spare), 0.8, 0).max() == 0  # would wait


def test_task_waits_take_the_first_arrivals_of_the_nodes_requested():
    s = S.load(S.TEMPLATE)  # all 8 non-source nodes fail: 2.8 of CPU, 1.0 spare
    nodes = tuple(range(2, 10))
    assert R.acquired_nodes(s, nodes, 0) == (3, 8)
    draws = np.arange(8.0, 0.0, -1.0) * 100  # 800, 700, ..., 100
    waits = R.task_waits(s, nodes, 0, draws)
    assert max(waits.values()) == 300.0 and min(waits.values()) == 0.0
    assert R.acquired_wait_s(s, 3, 8) == pytest.approx(120 + 240 * 3 / 9)
    with pytest.raises(ValueError, match="draws"):
        R.task_waits(s, nodes, 0, draws[:5])


def test_cross_interval_qos_wait_fails_on_judging_the_mean():
    """rev20c #4: cross_interval's QoS added the mean wait for a node to the restart. The limit
    bounds every recovery: the longest wait (the acquisition law's upper end) where some node's
    failure needs a new node (Fig 9: 360 s, mean below 300 s), none where a standby node or the
    survivors take every node's tasks (khaos_iot)."""
    fig9, iot = S.load("incremental_fig9"), S.load("khaos_iot")
    assert R.node_failure_worst_wait_s(fig9) == 360.0 > 300.0 > R.node_failure_wait_s(fig9)
    assert R.node_failure_worst_wait_s(iot) == 0.0 == R.node_failure_wait_s(iot)


def test_agreement_limits_fails_on_reading_past_the_first_miss():
    """The longest CI up to which EVERY failure agrees stops before the first miss, even where a
    longer CI agrees again."""
    table = pd.DataFrame(
        {
            "scenario": ["a"] * 6 + ["b"] * 2,
            "ci_s": [10, 10, 60, 60, 300, 300, 10, 60],
            "within": [True, True, True, False, True, True, True, True],
        }
    )
    out = R.agreement_limits(table).set_index("scenario")
    assert out.loc["a", "agrees_up_to_s"] == 10 and out.loc["a", "first_miss_s"] == 60
    assert out.loc["a", "within_at_first_miss"] == 0.5
    assert out.loc["b", "agrees_up_to_s"] == 60 and np.isnan(out.loc["b", "first_miss_s"])


def test_simulator_check_states_unresolved_tau():
    """rev20d #4: incremental_fig9's τ = 1 s is below two simulator steps: the simulator drains
    the tail in one step and misses the model by more than the tolerance at some rows; they are
    marked unresolved (left out of the claim), never hidden by a wider tolerance. The Khaos
    scenarios' τ is resolved and every row agrees."""
    fig9 = S.load("incremental_fig9")
    job = R.job_of(fig9)
    assert job.drain_tau_s < R.MIN_RESOLVED_TAU_S
    table = R.simulator_table(
        job, fig9.checkpoint.remote_restart_s, [10, 30, 60, 90, 120], [R.INJECT_BEFORE_S, 29]
    )
    assert not table["resolved"].any() and not table["within"].all()
    ysb = S.load("khaos_ysb")
    resolved = R.simulator_table(R.job_of(ysb), ysb.checkpoint.remote_restart_s, [60], [3])
    assert resolved["resolved"].all() and resolved["within"].all()
