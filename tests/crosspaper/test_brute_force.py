"""rev20c #7: the frontier's y and its marks against first principles, independent of the
package's recovery helpers (a per-step Euler of the backlog, the moments averaged by hand), and
one assert per mutant the review's tests let survive (/tmp/rev20c/mut: cap_3600_wrong,
rate_per_12h, qos_mean_kinds, ppa_process_waits, fr_max_segment_mean, fr_restore_dropped,
ppa_replica_cpu_dropped, incr_process_not_at_once, corr_standby_ignored, crn_extra_consumes)."""

import math
import tomllib

import numpy as np
import pandas as pd
import pytest

from crosspaper import correlated as cc
from crosspaper import frontier as F
from crosspaper import scenarios as S

ASYNC = "async"  # capacity C: the brute force needs no blocking share
# y at the scenario's input rate alone: the brute force checks the recovery and its weights; the
# average over the day's load is checked by test_frontier's test_y_averages_the_days_load_*
MEAN = "mean"


def drained_s(a, C, tau, lost, down, f=0.05, dt=0.02) -> float:
    """Seconds from a failure until the backlog a (lost + down) is within f of its peak: down s
    without processing, then the backlog drains at min(C, a + b / tau) - a (Euler, dt s)."""
    if C <= a:
        return math.inf
    b = peak = a * (lost + down)
    t = down
    while b > f * peak:
        rate = min(C, a + (b / tau if tau > 0 else math.inf))
        b -= (rate - a) * dt
        t += dt
    return t


def mean_over_moments(a, C, tau, T, down, n=40) -> float:
    """The failure moment uniform in the interval: lost work (i + 0.5) T / n, averaged."""
    return float(np.mean([drained_s(a, C, tau, (i + 0.5) * T / n, down) for i in range(n)]))


def raw(name: str) -> dict:
    return tomllib.loads((S.SCENARIOS / f"{name}.toml").read_text())


def fastrecover_segments(s) -> tuple[np.ndarray, np.ndarray]:
    """FastRecover's configuration at CH_max = 1 (Algorithm 1, the package's) on scenario s: each
    operator's path restore (minutes) and checkpoint interval (60 / η_i s)."""
    import fastrecover as fr
    from fastrecover.model import recovery_time_terms

    topo, _, _, z = S.to_fastrecover(s)
    storage = S.snapshot_storage(s)
    source_log = float(storage.delta_log(topo.rates[0] * topo.theta[0]))
    config = fr.optimize_chain(topo, 1.0 + source_log, z, storage).configuration
    _, restore_min = recovery_time_terms(topo, config.anchors, storage)
    return restore_min, 60.0 / np.asarray(config.frequencies, dtype=float)


def test_baseline_y_from_first_principles():
    """khaos_ysb (4 full nodes, one standby node): a process or single-node failure restarts at
    once (the standby), a correlated failure of 2 nodes waits for the one new node it needs
    (uniform a..b: its expected arrival a + (b - a) / 2); y = Σ λ_k / 24 x E[recovery_k]."""
    r = raw("khaos_ysb")
    a, C = r["topology"]["input_rate"], r["checkpoint"]["catch_up_rate"]
    tau, rs, fl = r["papers"]["khaos"]["drain_tau_s"], r["resources"], r["failures"]
    assert rs["standby_nodes"] == 1 and fl["correlated_nodes"] == 2
    r2, T = r["checkpoint"]["remote_restart_s"], 60.0
    wait = {"process": 0.0, "single": 0.0}
    wait["correlated"] = (rs["acquisition_low_s"] + rs["acquisition_high_s"]) / 2
    per_day = {"process": fl["process_per_day"], "single": fl["single_per_day"]}
    per_day["correlated"] = fl["correlated_per_day"]
    y = sum(per_day[k] / 24 * mean_over_moments(a, C, tau, T, wait[k] + r2) for k in per_day)
    row = F.baseline_point(
        {"scenario": "khaos_ysb", "T_s": T, "baseline": "x", "cost_reading": ASYNC, "y_load": MEAN},
        None,
    )
    assert row["unavailability_s_per_h"] == pytest.approx(y, rel=2e-3)
    assert row["overhead"] == pytest.approx(r["checkpoint"]["remote_cost_s"] / T)


def test_fastrecover_y_from_first_principles():
    """FastRecover's configuration (Algorithm 1, the package's) recovered by hand: a failure
    hits every operator with a task on the failed node; each hit operator recovers from its own
    checkpoint (interval 60 / η_i s) after the local restart and its path's restore (minutes ->
    s); the output is back when the SLOWEST segment is (kills fr_max_segment_mean and
    fr_restore_dropped)."""

    name = "khaos_ysb"
    s, r = S.load(name), raw(name)
    a, C = r["topology"]["input_rate"], r["checkpoint"]["catch_up_rate"]
    tau, fl = r["papers"]["khaos"]["drain_tau_s"], r["failures"]
    restore_min, interval = fastrecover_segments(s)
    r1 = r["checkpoint"]["local_restart_s"]
    assert np.ptp(restore_min) > 0 or np.ptp(interval) > 0  # segments differ: max != mean

    def one(nodes, wait):
        hit = [i for i, op in enumerate(s.topology.operators) if set(op.nodes) & set(nodes)]
        return max(
            mean_over_moments(a, C, tau, interval[i], wait + r1 + 60.0 * restore_min[i])
            for i in hit
        )

    n = s.resources.nodes
    single = np.mean([one((k,), 0.0) for k in range(n)])  # the standby node: no wait
    y_no_corr = fl["process_per_day"] / 24 * single + fl["single_per_day"] / 24 * single
    row = F.fastrecover_point(
        {"scenario": name, "ch_max": 1.0, "draws": 3, "cost_reading": ASYNC, "y_load": MEAN},
        np.random.default_rng(0),
    )
    assert row["loss_process_s"] == pytest.approx(single, rel=2e-3)
    assert row["loss_single_s"] == pytest.approx(single, rel=2e-3)
    corr = fl["correlated_per_day"] / 24 * row["loss_correlated_s"]
    assert row["unavailability_s_per_h"] == pytest.approx(y_no_corr + corr, rel=2e-3)


def _row(**recovery):
    base = {"label": "x", "overhead": 0.1, "checkpoint_share": 0.1, "reserved_nodes": 0.0}
    return {
        **base,
        **{f"loss_{k}_s": recovery.get(k, 0.0) for k in F.KINDS},
        **{f"recovery_{k}_s": recovery.get(k, 0.0) for k in F.KINDS},
    }


def test_finish_caps_marks_and_judges_every_kind():
    """_finish against its rule: y >= 3,600 s/h is infeasible and shown at 3,600 (kills
    cap_3600_wrong); meets_qos needs EVERY kind's recovery within the limit, the worst kind
    (kills qos_mean_kinds); correlated failures per hour = per day / 24 (kills rate_per_12h)."""
    s = S.load("khaos_ysb")
    lam = F.per_hour(s)
    assert lam["correlated"] == s.failures.correlated_per_day / 24.0
    assert lam["single"] == s.failures.single_per_day / 24.0
    loss = 5000.0 / lam["single"]  # y = 5,000 s/h from single-node failures alone
    capped = F._finish(_row(single=loss), s)
    assert not capped["feasible"] and capped["unavailability_s_per_h"] == F.SECONDS_PER_HOUR
    limit = s.qos.recovery_s
    mixed = F._finish(_row(process=0.5 * limit, single=0.5 * limit, correlated=2 * limit), s)
    assert mixed["feasible"] and not mixed["meets_qos"] and mixed["meets_qos_single"]
    assert mixed["worst_recovery_s"] == 2 * limit
    one_bad = F._finish(_row(process=0.5 * limit, single=2 * limit), s)
    assert not one_bad["meets_qos"] and not one_bad["meets_qos_single"]


def test_process_failures_restart_at_once_for_ppa_and_incremental():
    """A process failure keeps its node: PPA-0's and incremental's tasks restart at once (no
    acquisition), so on Fig 9 (no standby node, new nodes in 2-6 min) every process failure's
    recovery is the remote restart's, at the worst moment, and nothing waits for a node (kills
    ppa_process_waits, incr_process_not_at_once)."""
    from crosspaper import recovery as R

    s = S.load("incremental_fig9")
    params = {"scenario": "incremental_fig9", "draws": 2, "cost_reading": ASYNC}
    job, c = F.qos_job(params, s), s.checkpoint
    worst = R.expected_recovery_s(c.interval_s, c.remote_restart_s, job, "worst")
    rng = np.random.default_rng
    ppa = F.ppa_point({**params, "fraction": 0.0}, rng(0))
    incr = F.incremental_point({**params, "extra_standby": 0}, rng(0))
    for row in (ppa, incr):
        assert row["recovery_process_s"] == pytest.approx(worst), row["label"]
        assert row["recovery_process_s"] < row["recovery_single_s"]  # a node failure waits
    # every query placed: a process failure's node is there at once (the survivors' full nodes
    # would leave its queries unplaced, counted from the last step: the same loss, x20h)
    assert incr["own_unrecovered_queries"] == 0


def test_ppa_overhead_charges_the_replicas_cpu():
    """PPA's x: c/T + the replicas' CPU / the job's resources (kills ppa_replica_cpu_dropped)."""
    from crosspaper import replication as P

    s = S.load("khaos_ysb")
    row = F.ppa_point(
        {"scenario": "khaos_ysb", "fraction": 1.0, "draws": 2}, np.random.default_rng(0)
    )
    topology, _ = S.to_ppa(s)
    cpu, _ = P.replica_cost(s, F._plan(topology, 1.0))
    share = s.checkpoint.remote_cost_s / s.checkpoint.interval_s
    assert cpu > 0 and row["own_replica_cpu_nodes"] == pytest.approx(cpu)
    assert row["overhead"] == pytest.approx(share + cpu / F.job_resources(s))


def test_acquisition_draws_do_not_depend_on_the_standby_count():
    """Common random numbers: incremental consumes the same draws whatever extra_standby, so
    every standby count sees the same failures and acquisitions (kills crn_extra_consumes)."""
    states = []
    for extra in (0, 1, 3):
        rng = np.random.default_rng(7)
        F.incremental_point(
            {"scenario": "incremental_fig9", "extra_standby": extra, "draws": 3}, rng
        )
        states.append(rng.random())
    assert states[0] == states[1] == states[2]


def test_cross_correlated_standby_nodes_need_no_acquisition(tmp_path):
    """The template edited to two standby nodes: a correlated failure of 2 nodes restarts both
    on standby nodes at once, so the acquisition delay does not move blocking's or incremental's
    time to full output (kills corr_standby_ignored)."""
    text = (S.SCENARIOS / f"{S.TEMPLATE}.toml").read_text()
    assert "standby_nodes = 0" in text
    path = tmp_path / "standby2.toml"
    path.write_text(text.replace("standby_nodes = 0", "standby_nodes = 2"))
    out = {}
    for factor in (0.0, 1.0):
        params = {"scenario": str(path), "k": 2, "delay_factor": factor, "horizon_s": 900.0}
        params |= {"step_s": 10.0, "engine": False, "engine_rate": 1.0}
        frame = pd.DataFrame(cc.correlated_point(params, np.random.default_rng(3)))
        out[factor] = frame.query("kind == @cc.SUMMARY").set_index("scheme")["t_full_s"]
    for scheme in ("blocking", "incremental"):
        assert out[1.0][scheme] == pytest.approx(out[0.0][scheme])


def test_fastrecover_y_over_the_days_load_fails_on_the_slowest_segment_at_one_load():
    """y over the day's load (rev20c #5) for FastRecover: the slowest segment at EACH load level,
    averaged over the levels (the slowest may change with the load), not the segments' maximum
    at one level. Process failures (no wait) of khaos_iot at CH_max = 1, asynchronous reading."""
    from crosspaper import recovery as R

    name = "khaos_iot"
    s = S.load(name)
    restore_min, interval = fastrecover_segments(s)
    r1 = s.checkpoint.local_restart_s
    jobs = F.day_jobs({"scenario": name}, s, 0.0, ASYNC)
    assert len(jobs) == F.LOAD_LEVELS

    def one(node, job):
        hit = [i for i, op in enumerate(s.topology.operators) if node in op.nodes]
        return max(R.expected_recovery_s(interval[i], r1 + 60.0 * restore_min[i], job) for i in hit)

    nodes = range(s.resources.nodes)
    expected = np.mean([[one(k, j) for j in jobs] for k in nodes])
    params = {"scenario": name, "ch_max": 1.0, "draws": 2, "cost_reading": ASYNC}
    row = F.fastrecover_point(params, np.random.default_rng(0))
    assert row["loss_process_s"] == pytest.approx(expected, rel=1e-9)
    middle = jobs[len(jobs) // 2]
    assert not np.mean([one(k, middle) for k in nodes]) == pytest.approx(expected, rel=1e-3)
