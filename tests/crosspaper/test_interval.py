"""crosspaper.interval: the trace boundary, the one recovery model against the simulator, the
QoS-constrained interval against its definition, the sensitivity knobs, the decision map's
statuses, and the Khaos mapping against the Khaos paper's own Tables II-III."""

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crosspaper import interval as I
from crosspaper import recovery
from crosspaper.scenarios import load, to_khaos, to_multilevel
from khaos import failure_points
from khaos.params import DEFAULT_DETECTOR
from khaos.simulate import SimParams, drain_time, simulate
from multilevel.optimize import optimal
from tests.examples import examples

DATA = Path(__file__).resolve().parents[2] / "data"
SIM = SimParams(capacity=40_000.0, restart_s=20.0, drain_tau_s=30.0)


def write_trace(path, rates, first=0, header="second,rate"):
    lines = [header] + [f"{first + i},{r}" for i, r in enumerate(rates)]
    path.write_text("\n".join(lines) + "\n")
    return path


# -- the trace boundary ------------------------------------------------------------------------
def test_read_trace_round_trips(tmp_path):
    rates = np.linspace(1000.0, 2000.0, 900)
    trace = I.read_trace(write_trace(tmp_path / "t.csv", rates, first=100))
    assert trace.index[0] == 100 and trace.index[-1] == 999
    np.testing.assert_allclose(trace.to_numpy(), rates)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: (r, "second,events"), r"missing column\(s\) \['rate'\]"),
        (lambda r: (r[:100], "second,rate"), "at least 600 rows"),
    ],
)
def test_read_trace_fails_on_bad_structure(tmp_path, edit, message):
    rates, header = edit([1000.0] * 900)
    path = write_trace(tmp_path / "t.csv", rates, header=header)
    with pytest.raises(ValueError, match=message):
        I.read_trace(path)


def test_read_trace_fails_on_bad_rows_naming_column_and_row(tmp_path):
    rates = [1000.0] * 900
    rates[41] = -5.0
    with pytest.raises(ValueError, match=r"column 'rate', row 42: .* got -5\.0"):
        I.read_trace(write_trace(tmp_path / "neg.csv", rates))
    rates[41] = "oops"
    with pytest.raises(ValueError, match=r"column 'rate', row 42"):
        I.read_trace(write_trace(tmp_path / "text.csv", rates))
    path = tmp_path / "gap.csv"
    lines = ["second,rate"] + [f"{s},1000" for s in [*range(300), *range(301, 901)]]
    path.write_text("\n".join(lines))
    with pytest.raises(ValueError, match=r"column 'second', row 301: .* 299 is followed by 301"):
        I.read_trace(path)
    with pytest.raises(ValueError, match="no such file"):
        I.read_trace(tmp_path / "absent.csv")


def test_trace_failures_follow_the_scenario_rate(tmp_path):
    s = load("khaos_ysb")  # 12.5 failures per day
    trace = pd.Series(1.0, index=pd.RangeIndex(50, 50 + 86_400 * 2))
    found = I.trace_failures(trace, s)
    assert len(found) == 25
    history = I.detector_history_s()
    assert history == 1030
    assert all(50 + history <= x < 50 + 86_400 * 2 for x in found)
    assert len(set(np.diff(found))) <= 2  # evenly spaced (up to rounding)
    assert len(I.trace_failures(trace.iloc[: history + 1], s)) == 1  # at least one
    with pytest.raises(ValueError, match="1,030 s of history"):
        I.trace_failures(trace.iloc[:history], s)


def test_trace_failures_leave_the_detectors_history_fails_on_the_first_span(tmp_path):
    """rev20m: on a four-hour trace with 46 failures a day (8 on it) the first failure sat at
    14,400 / 16 = 900 s, inside the 1,030 s the Khaos detector trains on: the notebook's replay
    sweep failed ("fewer than training_s + guard_s s of history"). The failures now spread over
    the trace after that history, and the replay runs."""
    s = I.with_rate(load("khaos_iot"), 4.0)
    path = write_trace(tmp_path / "busy.csv", [8516.0] * 14_400)
    job = I.Job(s, DATA / "khaos", trace=path, levels=2)
    mid = replace(job.sim, inject_before_s=7)  # CI 15 s, mid-interval: injected soonest
    row = I.replay_point(job.point(15, mid), np.random.default_rng(0))
    assert row["failures"] == len(job.failure_seconds) == 8
    history = DEFAULT_DETECTOR.training_s + DEFAULT_DETECTOR.guard_s
    assert min(job.failure_seconds) >= history


def test_job_on_a_trace_replays_it(tmp_path):
    """A synthetic two-hour trace with a load step: the job takes its workload and failures from
    the trace, and a replay point on it injects them."""
    rates = [5000.0] * 5400 + [12_032.0] * 5400  # mean 8,516: khaos_iot's input_rate
    path = write_trace(tmp_path / "my_job.csv", rates)
    s = load("khaos_iot")
    job = I.Job(s, DATA / "khaos", trace=path, levels=4, profile_configurations=3)
    assert len(job.workload) == 10_800 and job.peak == pytest.approx(12_032.0)
    assert job.source["trace"] == str(path.resolve()) and len(job.source["trace_sha256"]) == 64
    assert job.failure_seconds == I.trace_failures(job.workload, s)
    row = I.replay_point(job.point(30), np.random.default_rng(0))
    assert row["failures"] == len(job.failure_seconds)
    assert row["checkpoint_latency_ms"] == pytest.approx(job.sim.checkpoint_ms * 5 / 30)


def test_job_on_a_trace_fails_on_a_mean_far_from_the_input_rate(tmp_path):
    """The read-through: a trace was replayed whatever topology.input_rate said. A trace of mean
    12,500 events/s against khaos_iot's 8,516 is refused naming both; within 1% it loads."""
    path = write_trace(tmp_path / "far.csv", [5000.0] * 3600 + [20_000.0] * 3600)
    with pytest.raises(ValueError, match=r"far\.csv.*12,500 events/s.*khaos_iot \(8,516"):
        I.Job(load("khaos_iot"), DATA / "khaos", trace=path)
    near = write_trace(tmp_path / "near.csv", [8516.0 * 1.009] * 7200)
    assert I.Job(load("khaos_iot"), DATA / "khaos", trace=near, levels=2).peak > 8516


def test_job_on_a_trace_fails_on_a_trace_too_short_for_phase_1(tmp_path):
    """The read-through: a two-hour trace failed deep in the notebook ("the series cannot hold 6
    failure seconds 1800 s apart"). It is refused when read, naming levels and the length
    needed, 2 x 1800 + (levels - 1) x 1800 + 1 s; at that length phase 1 places its points."""
    s = load("khaos_iot")
    need = I.trace_min_seconds(6, to_khaos(s).method)
    assert need == 12_601
    short = write_trace(tmp_path / "short.csv", [8516.0] * (need - 1))
    with pytest.raises(ValueError, match=r"short\.csv: 12,600 s long.*12,601 s for levels = 6"):
        I.Job(s, DATA / "khaos", trace=short, levels=6)
    rates = 8516.0 + 2000.0 * np.sin(np.arange(need) / 900.0)
    enough = write_trace(tmp_path / "enough.csv", rates - rates.mean() + 8516.0)
    job = I.Job(s, DATA / "khaos", trace=enough, levels=6)
    assert len(failure_points(job.workload, job.method)) == 6


# -- the one recovery model ----------------------------------------------------------------------
def test_recovery_worst_is_the_simulator_closed_form():
    cis = np.array([10, 60, 200])
    np.testing.assert_allclose(I.recovery_s(20_000, cis, SIM), drain_time(20_000, cis, SIM))


def test_recovery_is_the_shared_model_of_every_cross_notebook():
    """interval.recovery_s is crosspaper.recovery's model at the simulator's capacity, drain and
    restart: lost work CI - 3 s (worst) or CI / 2 (mid), down the restart."""
    cis = np.array([4, 10, 60, 200, 900])
    job = recovery.Job(input_rate=20_000.0, capacity=SIM.capacity, drain_tau_s=SIM.drain_tau_s)
    for timing, lost in (("worst", cis - SIM.inject_before_s), ("mid", cis / 2)):
        np.testing.assert_allclose(
            I.recovery_s(20_000, cis, SIM, timing), recovery.recovery_s(lost, SIM.restart_s, job)
        )


def test_the_two_level_answer_replays_at_its_remote_interval():
    """Node failures (the days' and the traces') lose the local checkpoints: multilevel's (T, p)
    is replayed at T / p2 with the checkpoint time of that remote interval as one checkpoint."""
    assert I.replayed_ci("multilevel 2-level", 100.0, (0.75, 0.25)) == 400
    assert I.replayed_ci("multilevel 2-level", 144.3, (0.0, 1.0)) == 144
    assert I.replayed_ci("Young", 0.2) == 1
    s = load("khaos_iot")
    job = I.Job(s, DATA / "khaos", levels=4, profile_configurations=3)
    sim = I.two_level_sim(job, (0.75, 0.25))  # 3 local (2.5 s) and 1 remote (5 s) per interval
    assert sim.checkpoint_s == round((0.75 * 2.5 + 0.25 * 5.0) / 0.25)
    assert sim.restart_s == job.sim.restart_s == s.checkpoint.remote_restart_s


@pytest.mark.parametrize("timing", I.TIMINGS)
@pytest.mark.parametrize("ci", [30, 90])
def test_recovery_matches_the_simulator(timing, ci):
    """One failure at constant arrivals in the simulator (failure injected at the worst moment or
    mid-interval) recovers within 3 s of the closed form (the simulator steps whole seconds through
    the restart, the linear and the exponential drain: up to a second each)."""
    a = 20_000.0
    sim = SIM if timing == "worst" else replace(SIM, inject_before_s=ci // 2)
    arrivals = pd.Series(a, index=pd.RangeIndex(0, 4000))
    result = simulate(arrivals, ci, [1000], sim)
    simulated = float(result.failures["recovery_s"].iloc[0])
    expected = float(I.recovery_s(a, ci, SIM, timing))  # even CIs: CI // 2 = CI / 2
    assert simulated == pytest.approx(expected, abs=3.0)


@pytest.mark.parametrize("arrivals", [20_000.0, 60_000.0])
def test_mid_is_the_median_recovery_over_a_uniform_failure_moment(arrivals):
    """rev20 #11: "mid" (CI/2 lost) is the median of the recovery over a failure moment uniform
    in the interval (recovery is non-decreasing in the lost work), a stated quantile; the mean
    over the moment is recovery.expected_recovery_s(..., "uniform"), the frontier's loss."""
    u = (np.arange(20_001) + 0.5) / 20_001  # uniform moments, an odd count: a sample median
    job = recovery.Job(input_rate=arrivals, capacity=SIM.capacity, drain_tau_s=SIM.drain_tau_s)
    for ci in (30.0, 120.0, 600.0):
        draws = recovery.recovery_s(u * ci, SIM.restart_s, job)
        assert float(I.recovery_s(arrivals, ci, SIM, "mid")) == pytest.approx(
            float(np.median(draws)), abs=0.05
        )
        # the frontier's "uniform" is the mean over the moment: a different statistic
        mean = recovery.expected_recovery_s(ci, SIM.restart_s, job, "uniform")
        assert mean == pytest.approx(float(np.mean(draws)), rel=1e-3)


def test_recovery_grows_with_the_interval_and_mid_is_shorter():
    cis = np.arange(8, 600)
    worst, mid = I.recovery_s(20_000, cis, SIM), I.recovery_s(20_000, cis, SIM, "mid")
    assert np.all(np.diff(worst) >= 0) and np.all(np.diff(mid) >= 0)
    assert np.all(mid <= worst)
    assert np.all(mid[cis >= 100] < worst[cis >= 100])  # equal only while the drain is exponential
    with pytest.raises(ValueError, match="timing"):
        I.recovery_s(20_000, 10, SIM, "uniform")
    with pytest.raises(ValueError, match="ci"):
        I.recovery_s(20_000, 0, SIM)


@pytest.mark.parametrize("timing", I.TIMINGS)
def test_qos_interval_is_the_longest_meeting_the_limit(timing):
    limit = 240.0
    allowed = I.qos_interval(30_000, SIM, limit, timing)
    assert I.recovery_s(30_000, allowed, SIM, timing) <= limit
    assert I.recovery_s(30_000, allowed + 1, SIM, timing) > limit


def test_qos_interval_fails_on_a_restart_beyond_the_limit():
    """Infeasible, not an error: NaN when even the restart exceeds the limit or the arrivals
    reach the capacity."""
    assert math.isnan(I.qos_interval(30_000, replace(SIM, restart_s=300.0), 240.0))
    assert math.isnan(I.qos_interval(SIM.capacity, SIM, 240.0))
    assert I.recovery_s(SIM.capacity * 1.1, 10, SIM) == np.inf


def test_checkpoint_latency_is_the_bump_share():
    np.testing.assert_allclose(
        I.checkpoint_latency_ms([2, 10, 100], SIM),
        SIM.checkpoint_ms * np.array([1.0, 0.5, 0.05]),
    )


# -- sensitivity and the decision map -------------------------------------------------------------
@pytest.fixture(scope="module")
def ysb():
    s = load("khaos_ysb")
    return s, to_khaos(s).sim


def test_headline_statuses(ysb):
    s, sim = ysb
    peak = 91_420.0
    as_given = I.headline(s, sim, peak, "async")
    assert as_given["status"] == "QoS binds"
    assert as_given["cost_optimal_s"] == as_given["qos_interval_worst_s"]
    assert as_given["utilization_optimal_s"] == pytest.approx(optimal(to_multilevel(s, 1)).T)
    light = I.headline(s, sim, 20_000.0, "async")  # far below capacity the optimum meets the limit
    assert light["status"] == "optimum meets QoS"
    assert light["cost_optimal_s"] == light["utilization_optimal_s"]
    s2, sim2 = I.with_acquisition(s, sim, 360.0)  # no standby: the wait alone breaks the limit
    waiting = I.headline(s2, sim2, peak, "async")
    assert waiting["status"] == "infeasible" and math.isnan(waiting["cost_optimal_s"])
    # the blocking reading (the default): the catch-up at C (1 - c/T) leaves no interval
    # within 240 s at YSB's peak (rev20d #1)
    blocking = I.headline(s, sim, peak)
    assert blocking["cost_reading"] == "blocking" and blocking["status"] == "infeasible"


def test_knobs_move_what_they_should(ysb):
    s, sim = ysb
    peak = 91_420.0
    base = I.headline(s, sim, peak, "async")
    more = I.headline(I.with_rate(s, 10.0), sim, peak, "async")
    assert more["qos_interval_worst_s"] == base["qos_interval_worst_s"]  # rate-free constraint
    assert more["utilization_optimal_s"] < base["utilization_optimal_s"] / 2
    bigger = I.headline(*I.with_headroom(s, sim, 1.3), peak, "async")
    assert bigger["qos_interval_worst_s"] > base["qos_interval_worst_s"]
    cheap = I.headline(*I.with_cost(s, sim, 0.5), peak, "async")
    assert cheap["utilization_optimal_s"] < base["utilization_optimal_s"]
    assert cheap["qos_interval_worst_s"] == base["qos_interval_worst_s"]  # async: c is latency
    # blocking: a cheaper checkpoint leaves more capacity to catch up, a longer allowed interval
    blocked = I.headline(*I.with_cost(s, sim, 0.5), peak)
    assert blocked["qos_interval_worst_s"] > 0
    for bad in (lambda: I.with_rate(s, 0.0), lambda: I.with_headroom(s, sim, 0.0)):
        with pytest.raises(ValueError, match="must be"):
            bad()


def test_decision_map_covers_the_grid_and_marks_infeasible(ysb):
    s, sim = ysb

    class FakeJob:  # a Job's fields without loading the day
        scenario, peak, cost_reading = s, 91_420.0, "async"

    FakeJob.sim = FakeJob.qos_sim = sim
    table = I.decision_map(FakeJob, [0.1, 1.0, 10.0], [0.4, 1.0, 1.3])
    assert len(table) == 9
    assert set(table["status"]) <= {"optimum meets QoS", "QoS binds", "infeasible"}
    low = table[table["headroom_factor"] == 0.4]
    # spare x0.4: a capacity of 69,374 + 0.4 x 53,626 = 90,824 events/s, below the 91,420 peak
    assert (low["status"] == "infeasible").all()
    assert (
        table.groupby("headroom_factor")["qos_interval_worst_s"].nunique(dropna=False).eq(1).all()
    )
    ok = table[table["status"] != "infeasible"]
    np.testing.assert_allclose(
        ok["cost_optimal_s"],
        np.minimum(ok["utilization_optimal_s"], ok["qos_interval_worst_s"]),
    )


# -- the Khaos mapping against the Khaos paper's numbers -----------------------------------------
def printed(table: str) -> pd.DataFrame:
    return pd.read_csv(DATA / "paper" / f"{table}.csv")


def test_khaos_agreement_fails_on_contrary_tables():
    table = printed("khaos_table2")
    replayed = pd.DataFrame(
        {"ci": [30, 60, 90, 120], "recovery_time_s": [1700.0, 2100.0, 2500.0, 2900.0]}
    )
    assert I.khaos_agreement(replayed, table)[1]
    doubled = replayed.assign(recovery_time_s=replayed["recovery_time_s"] * 2)
    assert not I.khaos_agreement(doubled, table)[1]
    reversed_order = replayed.assign(recovery_time_s=replayed["recovery_time_s"].to_numpy()[::-1])
    assert not I.khaos_agreement(reversed_order, table)[1]
    assert not I.khaos_agreement(replayed.iloc[:1], table)[1]


# replayed / printed total recovery at the 30-120 s static CIs, mean over the four (seen when the
# test was written; the rule of khaos_agreement, 50%, would hide it): the bias the test states
BIAS = {"khaos_ysb": 1.36, "khaos_iot": 1.25}


@pytest.mark.parametrize(
    ("name", "table"), [("khaos_ysb", "khaos_table3"), ("khaos_iot", "khaos_table2")]
)
def test_khaos_mapping_reproduces_tables_ii_iii(name, table):
    """to_khaos on each Khaos scenario, replayed over its measured day at the printed static
    CIs, gives the printed total recovery in the same order (30-120 s) and within
    khaos_agreement's 50%, but biased: the replay overstates every printed total by a
    near-constant factor (BIAS: +36% on YSB, +25% on IoT; ratios within 10% of each other, so
    the trend over CI is the paper's and the level is not). The QoS and the profiling range are
    the paper's (Section IV-A)."""
    s = load(name)
    setup = to_khaos(s)
    assert (setup.qos.latency_ms, setup.qos.recovery_s) == (1000.0, 240.0)
    assert (setup.method.profile_ci_min_s, setup.method.profile_ci_max_s) == (10.0, 120.0)
    job = I.Job(s, DATA / "khaos")
    rows = [
        {"ci": ci, **I.replay_point(job.point(ci), np.random.default_rng(0))}
        for ci in (30, 60, 90, 120)
    ]
    result, agrees = I.khaos_agreement(pd.DataFrame(rows), printed(table))
    assert agrees, result
    ratio = result.loc[result["judged"], "ratio"]
    assert (ratio > 1).all() and ratio.max() / ratio.min() < 1.1, result
    assert ratio.mean() == pytest.approx(BIAS[name], abs=0.03), result


def test_span_names_the_infeasible_cases():
    rows = pd.DataFrame({"value": ["-30%", "-10%", "+10%"], "x": [np.nan, 22.0, 79.0]})
    assert I._span(rows, "x") == "22-79 s (infeasible at -30%)"
    assert I._span(rows.iloc[:1], "x") == "no feasible interval (-30%)"
    assert I._span(rows.iloc[1:2], "x") == "22 s"


def finding_inputs(allowed: float, status: str):
    """A disagreement row (blocking; async 50 s), the choices and the runtime of one scenario
    "a" whose QoS range is allowed / 5 to allowed, T* = 265 s; the interval to use is the
    range's upper end when the QoS binds, T* when the optimum meets it."""

    class FakeJob:
        sim, cost_reading = SIM, "blocking"
        scenario = load("khaos_ysb")  # its recovery limit, 240 s

    use = {"QoS binds": allowed, "optimum meets QoS": 265.0}.get(status, np.nan)
    d = pd.DataFrame(
        [
            {
                "scenario": "a",
                "utilization_optimal_s": 265.0,
                "qos_interval_worst_s": allowed,
                "qos_interval_shortest_worst_s": allowed / 5,
                "qos_interval_mid_s": allowed * 2,
                "peak_arrivals": 30_000.0,
                "capacity": 40_000.0,
                "failures_replayed": 12,
                "recovery_at_optimum_worst_s": 700.0,
                "recovery_at_optimum_async_worst_s": 300.0,
                "cost_optimal_s": use,
                "U_at_cost_optimal": np.nan if np.isnan(use) else 0.9,
                "latency_at_cost_optimal_ms": float(I.checkpoint_latency_ms(use, SIM)),
                "U_at_optimum": 0.96,
                "status": status,
                "qos_interval_async_worst_s": 50.0,
            }
        ]
    )
    c = pd.DataFrame(
        {
            "scenario": "a",
            "choice": ["Young", "Daly", "multilevel 1-level", "Khaos runtime"],
            "interval_s": [267.0, 268.0, 265.0, 10.0],
            "recovery_violations_s": [1.0, 1.0, 4601.0, 8.0],
            "recovery_true_violations_s": [1.0, 1.0, 4601.0, 8.0],
            "unrecovered": [0, 0, 0, 0],
            "detector_disagrees": [False] * 4,
            "recovery_true_violations_mid_s": [1.0, 1.0, 2162.0, np.nan],
        }
    )
    runtime = {"a": ({"reconfigurations": 0, "ci_min_s": 10.0, "ci_max_s": 10.0}, None)}
    return {"a": FakeJob}, d, c, runtime


def test_finding_is_written_from_the_tables():
    text = I.finding(*finding_inputs(50.0, "QoS binds"))
    assert (
        "is 265 s. Replayed there over the day's 12 failures" in text
        and "it leaves 4601 s of true recovery above the limit (2162 s with every failure at the "
        "median moment"
        in text
    )
    assert (
        "recovers from T* in 700 s, 460 s above the limit (limit 240 s; checkpoint cost read as "
        "blocking; 300 s read as async); the intervals whose recovery meets the limit there are "
        "10-50 s (100 s at the median moment; 50 s read the other way, the same), and the "
        "interval to use is 50 s (the QoS binds"
        in text
        and "They disagree" in text
    )
    assert f"(50 s) costs {SIM.checkpoint_ms * 5 / 50:.0f} ms of added latency" in text
    assert "U 0.900 there instead of 0.960 at T*" in text
    assert "never reconfigured on a (stayed at 10 s)" in text
    infeasible = I.finding(*finding_inputs(np.nan, "infeasible"))
    assert (
        "there are none (none at the median moment; 50 s read the other way, so the QoS "
        "headline **depends** on the reading), and the interval to use is none"
        in infeasible
        and "No interval meets the limit at the peak, so none is priced" in infeasible
    )
    meets = I.finding(*finding_inputs(600.0, "optimum meets QoS"))
    assert "The optimum meets the limit here" in meets and "They disagree" not in meets
    assert "the interval to use is T* itself, 265 s" in meets
    assert "misstates" not in text


def test_finding_follows_the_true_recoveries_fails_on_the_detector():
    """rev20 HIGH 3: near capacity the detector finds no recovery (0 s above the limit) while the
    simulator's true recoveries run for hours; the finding states the true ones."""
    jobs, d, c, runtime = finding_inputs(50.0, "QoS binds")
    c["recovery_violations_s"] = 0.0
    c["recovery_true_violations_s"] = [1.0, 1.0, 38_000.0, 8.0]
    c["unrecovered"] = [0, 0, 2, 0]
    c["detector_disagrees"] = [
        I.detector_disagrees(t, 0.0, u)
        for t, u in zip(c["recovery_true_violations_s"], c["unrecovered"], strict=True)
    ]
    text = I.finding(jobs, d, c, runtime)
    assert "it leaves 38000 s (+ 2 never recovered) of true recovery" in text
    assert "2 failures never recover" in text and "for 1 of 4 answers" in text
    assert not I.detector_disagrees(100.0, 90.0, 0) and I.detector_disagrees(100.0, 0.0, 0)


def test_load_ratio_never_negative():
    assert I.load_ratio(30_000.0, 40_000.0) == "arrivals / spare = 3.0"
    assert "no spare capacity" in I.load_ratio(27_838.0, 9_400.0)
    assert I._fmt(math.inf) == "never (the backlog does not drain)"


def test_job_warns_when_capacity_is_below_the_peak(tmp_path):
    # mean 8,516 (khaos_iot's input_rate), a 300-s peak of 40,000
    path = write_trace(tmp_path / "hot.csv", [6858.9] * 5700 + [40_000.0] * 300)
    with pytest.warns(UserWarning, match=r"checkpoint\.catch_up_rate"):
        I.Job(load("khaos_iot"), DATA / "khaos", trace=path, levels=2)  # capacity 33,000


def test_decision_table_marks_infeasible_and_binding():
    table = pd.DataFrame(
        {
            "scenario": "a",
            "rate_factor": [1.0, 10.0, 1.0, 10.0],
            "headroom_factor": [0.7, 0.7, 1.3, 1.3],
            "cost_optimal_s": [np.nan, np.nan, 136.0, 85.0],
            "qos_interval_worst_s": [np.nan, np.nan, 136.0, 136.0],
            "status": ["infeasible", "infeasible", "QoS binds", "optimum meets QoS"],
        }
    )
    shown = I.decision_table(table, "a", "cost_optimal_s")
    assert shown.loc[0.7, 1.0] == "infeasible"
    assert shown.loc[1.3, 1.0] == "136 s (QoS)" and shown.loc[1.3, 10.0] == "85 s"
    assert I.decision_table(table, "a", "qos_interval_worst_s").loc[1.3, 10.0] == "136 s"


def test_sweep_points_do_not_carry_the_checkouts_location():
    """The profiling sweep seeds each point by a hash of its parameters: with the absolute path
    of data/khaos in them, two checkouts of the same commit drew different profiling noise (Khaos's
    runtime CI moved, mean 13 s against 10 s on YSB). The folder is kept relative to data/."""
    job = I.Job(load("khaos_iot"), DATA / "khaos", levels=4, profile_configurations=3)
    assert job.source["folder"] == "khaos"
    for point in [*I.profile_grid(job), job.point(60)]:
        assert not any(str(DATA) in str(v) for v in point.values())
    assert I.workload(job.source).equals(job.workload)
    outside = I._data_relative("/tmp/elsewhere")  # a folder outside data/ stays absolute
    assert outside == str(Path("/tmp/elsewhere").resolve())


def test_scenario_finding_fails_on_a_reading_it_does_not_state():
    """rev20d #1, #9: the scenario's finding names the QoS interval under the other reading of
    the checkpoint cost and says 'depends' where it differs; waits that all leave no interval
    are named once."""

    class FakeJob:
        scenario, cost_reading = load("khaos_ysb"), "blocking"

    row = pd.Series(
        {
            "utilization_optimal_s": 144.0,
            "U_at_optimum": 0.92,
            "peak_arrivals": 91_420.0,
            "capacity": 123_000.0,
            "recovery_at_optimum_worst_s": 554.0,
            "recovery_at_optimum_mid_s": 340.0,
            "qos_interval_worst_s": np.nan,
            "qos_interval_shortest_worst_s": np.nan,
            "qos_interval_mid_s": np.nan,
            "qos_interval_replayed_grid_worst_s": 30.0,
            "qos_interval_replayed_grid_mid_s": 60.0,
            "qos_interval_async_worst_s": 50.0,
            "status": "infeasible",
            "cost_optimal_s": np.nan,
            "recovery_at_cost_optimal_worst_s": np.nan,
        }
    )
    curve = pd.DataFrame({"ci": [30, 60], "avg_latency_ms": [600.0, 584.0]})
    sens = pd.DataFrame(
        {
            "knob": ["as given", "node acquisition", "node acquisition", "headroom", "headroom"],
            "value": ["", "+120 s", "+360 s", "x0.7", "x1.3"],
            "qos_interval_worst_s": [np.nan, np.nan, np.nan, np.nan, 62.0],
            "cost_optimal_s": [np.nan, np.nan, np.nan, np.nan, 30.0],
            "utilization_optimal_s": [144.0] * 5,
        }
    )
    text = I.scenario_finding(FakeJob, row, curve, sens)
    assert "read as async it is 50 s: the QoS interval **depends** on the reading" in text
    assert "Waiting for a node (+120 s, +360 s) leaves no feasible interval." in text
    # rev20m HIGH 8: the sensitivity quotes the interval to use, not the range's upper end
    assert "x0.7 to x1.3 moves the interval to use to 30 s (infeasible at x0.7)." in text
    assert "The interval to use: none (no interval meets the limit)." in text
    row["qos_interval_worst_s"], row["qos_interval_shortest_worst_s"] = 50.0, 12.0
    row["status"], row["cost_optimal_s"], row["recovery_at_cost_optimal_worst_s"] = (
        "QoS binds",
        50.0,
        230.0,
    )
    again = I.scenario_finding(FakeJob, row, curve, sens)
    assert "read as async it is 50 s, the same." in again
    assert "within 240 s for CI = 12 to 50 s" in again
    assert "The interval to use: 50 s (the QoS binds: the meeting interval next to T*), " in again
    assert "recovering in 230 s at the peak." in again


# rev20f's my_job.toml: the template with these values (a user's own job, frequent process failures)
MY_JOB = {
    "process_per_day": "2000.0",
    "correlated_nodes": "3",
    "standby_nodes": "1",
    "local_cost_s": "0.3",
    "local_restart_s": "2.0",
    "catch_up_rate": "36000.0",
    "recovery_s": "600.0",
}


def my_job(tmp_path) -> Path:
    """data/scenarios/template.toml with MY_JOB's values, written under ``tmp_path``."""
    import re

    text = (DATA / "scenarios" / "template.toml").read_text()
    for key, value in MY_JOB.items():
        text, n = re.subn(rf"(?m)^{key} = [^ #]+", f"{key} = {value}", text)
        assert n == 1, key
    path = tmp_path / "my_job.toml"
    path.write_text(text)
    return path


def test_headline_fails_on_an_optimum_below_the_qos_range(tmp_path):
    """rev20f #0: under blocking the intervals meeting the limit form a range [lo, hi] (too short
    an interval catches up at too little of C). On my_job T* = 22.5 s lies below lo = 30 s and
    recovers in about 5,666 s against 600 s; the old rule (T* <= hi: "optimum meets QoS") said
    the optimum meets the limit. The status now reads the recovery at T*, the cost-optimal
    interval is the meeting CI next to T*, and the map shows the range."""
    s = load(my_job(tmp_path))
    job = I.Job(s, DATA / "khaos")
    h = I.headline(s, job.qos_sim, job.peak)
    assert h["cost_reading"] == "blocking"
    assert h["utilization_optimal_s"] == pytest.approx(22.53, abs=0.01)
    assert h["recovery_at_optimum_worst_s"] == pytest.approx(5666.0, rel=1e-3)
    assert (h["qos_interval_shortest_worst_s"], h["qos_interval_worst_s"]) == (30.0, 135.0)
    assert h["status"] == "QoS binds" and h["cost_optimal_s"] == 30.0

    class FakeJob:  # the job's fields for the map
        scenario, peak, cost_reading, qos_sim = s, job.peak, job.cost_reading, job.qos_sim

    table = I.decision_map(FakeJob, [1.0], [1.0])
    assert I.decision_table(table, s.name, "qos_interval_worst_s").iloc[0, 0] == "30-135 s"
    wrong = table[(table["status"] == "optimum meets QoS")]
    assert (wrong["recovery_at_optimum_worst_s"] <= 600.0).all()


def my_job_finding(s, job, replayed_over_s=0.0, unrecovered=0):
    """cross_interval's finding for the job ``s`` with its real headline (:func:`disagreement`)
    and made-up replays: T* (multilevel 1-level) leaves ``replayed_over_s`` s above the limit
    over the day, ``unrecovered`` failures never drain."""
    curves = pd.DataFrame(
        {
            "scenario": s.name,
            "variant": ["remote", "remote mid"],
            "ci": [30, 30],
            "recovery_true_max_s": [160.0, 100.0],
            "avg_latency_ms": [500.0, 500.0],
        }
    )
    d = I.disagreement({s.name: job}, curves)
    optimum = d["utilization_optimal_s"].iloc[0]
    c = pd.DataFrame(
        {
            "scenario": s.name,
            "choice": ["Young", "Daly", "multilevel 1-level", "Khaos runtime"],
            "interval_s": [optimum - 1, optimum + 1, optimum, 10.0],
            "recovery_true_violations_s": [0.0, 0.0, replayed_over_s, 0.0],
            "recovery_true_violations_mid_s": [0.0, 0.0, replayed_over_s / 2, np.nan],
            "unrecovered": [0, 0, unrecovered, 0],
            "detector_disagrees": False,
        }
    )
    runtime = {s.name: ({"reconfigurations": 0, "ci_min_s": 10.0, "ci_max_s": 10.0}, None)}
    return d.iloc[0], I.finding({s.name: job}, d, c, runtime)


def test_finding_prices_the_interval_it_names_fails_on_the_longest(tmp_path):
    """rev20m HIGH 8: the finding named the meeting range lo-hi, then priced "the limit's
    interval" at hi (the latency added, U) and the headline table's U_at_qos_interval too. On
    my_job (T* = 22.5 s below lo = 30 s, hi = 135 s) the interval to use is lo: every number the
    finding, the headline table and the decision map quote is 30 s's (50 ms of latency, not
    135 s's 11 ms)."""
    s = load(my_job(tmp_path))
    job = I.Job(s, DATA / "khaos")
    row, text = my_job_finding(s, job)
    lo, hi, use = row[["qos_interval_shortest_worst_s", "qos_interval_worst_s", "cost_optimal_s"]]
    assert (lo, hi, use) == (30.0, 135.0, 30.0) and row["status"] == "QoS binds"
    assert "U_at_qos_interval" not in row  # the old column, priced at hi
    assert row["U_at_cost_optimal"] == pytest.approx(float(I.remote_utilization(30, s)))
    assert row["latency_at_cost_optimal_ms"] == pytest.approx(job.sim.checkpoint_ms * 5 / 30)
    assert row["recovery_at_cost_optimal_worst_s"] == pytest.approx(
        float(I.recovery_s(job.peak, 30, job.qos_sim, "worst", s.checkpoint.remote_cost_s))
    )
    assert row["recovery_at_cost_optimal_worst_s"] <= s.qos.recovery_s
    assert "the interval to use is 30 s (the QoS binds" in text
    latency, u = row["latency_at_cost_optimal_ms"], row["U_at_cost_optimal"]
    assert f"interval to use (30 s) costs {latency:.0f} ms of added latency" in text
    assert f"U {u:.3f} there instead of {row['U_at_optimum']:.3f} at T*" in text
    at_hi = float(I.checkpoint_latency_ms(hi, job.sim))
    assert f"costs {at_hi:.0f} ms" not in text
    assert f"U {float(I.remote_utilization(hi, s)):.3f}" not in text

    class FakeJob:
        scenario, peak, cost_reading, qos_sim = s, job.peak, job.cost_reading, job.qos_sim

    cell = I.decision_map(FakeJob, [1.0], [1.0]).iloc[0]
    assert cell["cost_optimal_s"] == 30.0 and cell["U_at_cost_optimal"] == pytest.approx(u)
    assert cell["latency_at_cost_optimal_ms"] == pytest.approx(latency)


def test_the_template_at_headroom_x1_3_uses_the_upper_end():
    """The template at headroom x1.3 (T* = 150.5 s above the range 27-62 s): the QoS binds at
    hi = 62 s, and the prices are 62 s's. With the range's ends swapped or the choice read from
    the wrong side of T*, this and the my_job case above cannot both hold."""
    s = load(DATA / "scenarios" / "template.toml")
    job = I.Job(s, DATA / "khaos")
    s2, sim2 = I.with_headroom(s, job.qos_sim, 1.3)
    h = I.headline(s2, sim2, job.peak)
    assert (h["qos_interval_shortest_worst_s"], h["qos_interval_worst_s"]) == (27.0, 62.0)
    assert h["status"] == "QoS binds" and h["cost_optimal_s"] == 62.0
    assert h["utilization_optimal_s"] > 62.0
    assert h["U_at_cost_optimal"] == pytest.approx(float(I.remote_utilization(62, s2)))
    assert h["latency_at_cost_optimal_ms"] == pytest.approx(sim2.checkpoint_ms * 5 / 62)


def test_finding_states_the_day_and_the_peak_fails_on_an_unqualified_day(tmp_path):
    """rev20m MED: on my_job the finding said "0 s of true recovery above the limit over the
    day" while its scenario line gave 5,666 s of recovery at the peak. Both are right for what
    they measure: the simulator's day checkpoints asynchronously (catch-up at C) and meets each
    failure at its own load, the QoS verdict reads the cost as blocking (C (1 - c/T)) at the
    peak 300-s load. At the peak the simulator agrees with the async reading (146 s), so the
    reading is the gap; the finding now says both, each with its conditions, and names the
    failures that never drain instead of dropping them."""
    s = load(my_job(tmp_path))
    job = I.Job(s, DATA / "khaos")
    row, text = my_job_finding(s, job)
    assert "Replayed there over the day's 11 failures" in text
    assert "its checkpoints are asynchronous, so a recovery catches up at the capacity C" in text
    assert "it leaves 0 s of true recovery above the limit" in text
    assert row["recovery_at_optimum_worst_s"] == pytest.approx(5666.0, rel=1e-3)
    assert "At the day's peak 300-s load, the load the QoS verdict judges" in text
    assert "recovers from T* in 5666 s, 5066 s above the limit (limit 600 s; checkpoint" in text
    async_s = row["recovery_at_optimum_async_worst_s"]
    assert f"blocking; {async_s:.0f} s read as async)" in text and async_s <= 600.0
    # the simulator at the peak load and T* (whole seconds) is the async reading, not blocking
    ci = I.replayed_ci("multilevel 1-level", row["utilization_optimal_s"])
    arrivals = pd.Series(job.peak, index=pd.RangeIndex(0, 6000))
    simulated = float(simulate(arrivals, ci, [1000], job.qos_sim).failures["recovery_s"].iloc[0])
    assert simulated == pytest.approx(float(I.recovery_s(job.peak, ci, job.qos_sim)), abs=3.0)
    blocked = float(I.recovery_s(job.peak, ci, job.qos_sim, cost_s=s.checkpoint.remote_cost_s))
    assert simulated <= s.qos.recovery_s < blocked
    _, never = my_job_finding(s, job, replayed_over_s=0.0, unrecovered=2)
    assert "it leaves 0 s (+ 2 never recovered) of true recovery above the limit" in never


@settings(max_examples=examples(200), deadline=None)
@given(
    capacity=st.floats(1e3, 2e5),
    load=st.floats(0.05, 0.99),
    restart_s=st.floats(0.0, 300.0),
    drain_tau_s=st.floats(1.0, 100.0),
    cost_s=st.floats(0.0, 30.0),
    limit_s=st.floats(10.0, 2000.0),
)
def test_the_meeting_intervals_form_one_range(
    capacity, load, restart_s, drain_tau_s, cost_s, limit_s
):
    """Under either reading the whole-second CIs meeting the limit have no gap: [lo, hi] is
    every meeting CI, so a T* whose own recovery breaks the limit lies outside it and the QoS
    binds at lo (T* < lo) or hi (T* > hi), never between two meeting neighbours (why
    headline's choice among the neighbours by U has one candidate)."""
    sim = SimParams(capacity=capacity, restart_s=restart_s, drain_tau_s=drain_tau_s)
    cis, ok = I.qos_meeting(capacity * load, sim, limit_s, "worst", cost_s)
    if ok.any():
        first, last = np.flatnonzero(ok)[[0, -1]]
        assert ok[first : last + 1].all()
        assert (cis[first], cis[last]) == I.qos_range(
            capacity * load, sim, limit_s, "worst", cost_s
        )


def test_the_qos_verdict_waits_the_longest_fails_on_the_expected_wait(tmp_path):
    """rev20c #4, pinned here: the replays restart after the expected wait for a node
    (Job.sim), the QoS verdict after the longest (Job.qos_sim). The template with cpu_cap 0.5
    has no room on the survivors for a window task: the expected wait is 96 s, the longest 360
    s, above the 240 s limit alone, so no interval meets it, in the headline and in every cell
    of the map (with the expected wait, headroom x3 would have given one)."""
    import re

    text = (DATA / "scenarios" / "template.toml").read_text()
    text, n = re.subn(r"(?m)^cpu_cap = [^ #]+", "cpu_cap = 0.5", text)
    assert n == 1
    path = tmp_path / "waits.toml"
    path.write_text(text)
    s = load(path)
    job = I.Job(s, DATA / "khaos")
    assert job.sim.restart_s == pytest.approx(s.checkpoint.remote_restart_s + 96.0)
    assert job.qos_sim.restart_s == pytest.approx(s.checkpoint.remote_restart_s + 360.0)
    row, text = my_job_finding(s, job)
    T = row["utilization_optimal_s"]
    cost = s.checkpoint.remote_cost_s
    assert row["recovery_at_optimum_worst_s"] == pytest.approx(
        float(I.recovery_s(job.peak, T, job.qos_sim, "worst", cost))
    )
    assert row["status"] == "infeasible" and "the interval to use is none" in text
    cells = I.decision_map(job, [1.0], [1.0, 3.0])
    assert (cells["status"] == "infeasible").all()
    s3, sim3 = I.with_headroom(s, job.sim, 3.0)
    assert I.headline(s3, sim3, job.peak)["status"] == "QoS binds"  # the expected wait's
