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
    worst = R.expected_recovery_s(F.remote_interval_s(s), c.remote_restart_s, job, "worst")
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
    """PPA's x: c/T (every task checkpoints, rev20f #4) + the replicas' CPU / the job's
    resources (kills ppa_replica_cpu_dropped)."""
    from crosspaper import replication as P

    s = S.load("khaos_ysb")
    row = F.ppa_point(
        {"scenario": "khaos_ysb", "fraction": 1.0, "draws": 2}, np.random.default_rng(0)
    )
    topology, _ = S.to_ppa(s)
    cpu, _ = P.replica_cost(s, F._plan(topology, 1.0))
    share = s.checkpoint.remote_cost_s / F.remote_interval_s(s)
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


# -- rev20d #6: one assert per mutant the rev20d review's tests let survive -----------------------
def _per_set(monkeypatch, point, params, kind="single"):
    """(the point's QoS recovery of ``kind``, the same point's with each failed node set alone):
    failed_node_draws returns one of the sets the point draws at a time (a decomposition, not a
    stand-in: every set runs through the point's own code)."""
    original = F.failed_node_draws
    whole = point(params, np.random.default_rng(0))[f"recovery_{kind}_s"]
    seen = []

    def spy(s, k, draws, rng, extra=0):
        out = original(s, k, draws, rng, extra)
        if k == kind:
            seen[:] = out
        return out

    monkeypatch.setattr(F, "failed_node_draws", spy)
    point(params, np.random.default_rng(0))
    each = []
    for one in list(seen):

        def only(s, k, draws, rng, extra=0, one=one):
            out = original(s, k, draws, rng, extra)
            return [one] if k == kind else out

        monkeypatch.setattr(F, "failed_node_draws", only)
        each.append(point(params, np.random.default_rng(0))[f"recovery_{kind}_s"])
    monkeypatch.setattr(F, "failed_node_draws", original)
    return whole, each


@pytest.mark.parametrize(
    ("point", "params"),
    [
        (F.ppa_point, {"scenario": "incremental_fig9", "fraction": 0.5}),
        (F.fastrecover_point, {"scenario": S.TEMPLATE, "ch_max": 0.2}),
    ],
    ids=["ppa", "fastrecover"],
)
def test_qos_recovery_fails_on_the_mean_over_failed_nodes(monkeypatch, point, params):
    """Mutants ppa_qos_mean, fr_qos_mean (np.max -> np.mean over the failed node sets): a
    single-node failure's QoS recovery is the worst node's, and the nodes differ (fig9: sources
    vs outputs; the template: filter vs window nodes), so the mean would be lower. (incr_qos_mean
    is equivalent on the shipped scenarios: every node set's QoS recovery is the same there.)"""
    whole, each = _per_set(monkeypatch, point, {**params, "draws": 4, "cost_reading": ASYNC})
    assert len(each) > 1 and max(each) > min(each) + 1e-6
    assert whole == pytest.approx(max(each), rel=1e-12)


def test_ppa_correlated_draws_take_the_plans_extra_nodes(monkeypatch):
    """Mutant ppa_extra_never_fail (ppa_point draws over the job nodes only): a plan whose
    replicas need extra nodes (fig9 PPA-1.0, replica_domain same) draws its correlated sets with
    those nodes (replication.extra_nodes), which fail with the job nodes' probability."""
    from crosspaper import replication

    s = S.load("incremental_fig9")
    topology, _ = S.to_ppa(s)
    extra = replication.extra_nodes(s, F._plan(topology, 1.0))
    assert extra > 0
    asked = []
    original = F.failed_node_draws

    def spy(s, kind, draws, rng, extra=0):
        asked.append((kind, extra))
        return original(s, kind, draws, rng, extra)

    monkeypatch.setattr(F, "failed_node_draws", spy)
    F.ppa_point(
        {"scenario": "incremental_fig9", "fraction": 1.0, "draws": 3}, np.random.default_rng(0)
    )
    assert ("correlated", extra) in asked


def test_fastrecover_qos_waits_at_the_acquisition_laws_upper_end(tmp_path):
    """Mutant fr_qos_mean_wait (FastRecover's QoS wait = the law's mean): khaos_iot without its
    standby node has full nodes, so a single-node failure waits for a new node. Every recovery
    is judged at the law's upper end: the QoS recovery under uniform 120-360 s equals the one
    under a fixed 360 s wait (the mean wait, 240 s, would give less), while y differs."""
    text = (S.SCENARIOS / "khaos_iot.toml").read_text()
    for old in ("standby_nodes = 1", 'acquisition_law = "uniform"', "acquisition_low_s = 120.0"):
        assert old in text
    uniform = tmp_path / "uniform.toml"
    uniform.write_text(text.replace("standby_nodes = 1", "standby_nodes = 0"))
    fixed = tmp_path / "fixed.toml"
    fixed.write_text(
        uniform.read_text()
        .replace('acquisition_law = "uniform"', 'acquisition_law = "fixed"')
        .replace("acquisition_low_s = 120.0", "acquisition_low_s = 360.0")
    )
    rows = [
        F.fastrecover_point(
            {"scenario": str(path), "ch_max": 0.2, "draws": 3, "cost_reading": ASYNC},
            np.random.default_rng(0),
        )
        for path in (uniform, fixed)
    ]
    assert rows[0]["recovery_single_s"] == pytest.approx(rows[1]["recovery_single_s"], rel=1e-12)
    assert rows[0]["loss_single_s"] < rows[1]["loss_single_s"]  # y takes the law's mean


def test_multilevel_process_recovery_is_the_costlier_levels():
    """Mutant ml_process_worst_min: a process failure under two levels (p1 = 0.5) restarts after
    either level's restart; every recovery is bounded by the costlier (remote) one: brute force
    at the QoS load, the worst moment, capacity C (async)."""
    name = "khaos_ysb"
    r = raw(name)
    C, tau = r["checkpoint"]["catch_up_rate"], r["papers"]["khaos"]["drain_tau_s"]
    T = 30.0
    row = F.multilevel_point({"scenario": name, "T_s": T, "p1": 0.5, "cost_reading": ASYNC}, None)
    a = F.qos_load(name)
    r1, r2 = r["checkpoint"]["local_restart_s"], r["checkpoint"]["remote_restart_s"]
    assert r2 > r1
    expected = drained_s(a, C, tau, T - 3.0, r2, dt=0.005)
    assert row["recovery_process_s"] == pytest.approx(expected, rel=2e-3)


def test_baseline_y_under_the_blocking_reading():
    """Mutants fr_busy_sum_vs_max / blocking capacity: the baseline's y from first principles
    with the default (blocking) reading, the catch-up at C (1 - c/T)."""
    r = raw("khaos_ysb")
    a, C = r["topology"]["input_rate"], r["checkpoint"]["catch_up_rate"]
    tau, rs, fl = r["papers"]["khaos"]["drain_tau_s"], r["resources"], r["failures"]
    r2, T, c = r["checkpoint"]["remote_restart_s"], 60.0, r["checkpoint"]["remote_cost_s"]
    slow = C * (1 - c / T)
    wait = {"process": 0.0, "single": 0.0}
    wait["correlated"] = (rs["acquisition_low_s"] + rs["acquisition_high_s"]) / 2
    per_day = {
        "process": fl["process_per_day"],
        "single": fl["single_per_day"],
        "correlated": fl["correlated_per_day"],
    }
    y = sum(per_day[k] / 24 * mean_over_moments(a, slow, tau, T, wait[k] + r2) for k in per_day)
    row = F.baseline_point(
        {"scenario": "khaos_ysb", "T_s": T, "baseline": "x", "y_load": MEAN}, None
    )
    assert row["unavailability_s_per_h"] == pytest.approx(y, rel=2e-3)


def test_fastrecover_catch_up_under_blocking_is_the_busiest_operators():
    """Mutant fr_busy_sum_vs_max (busy = 0 under blocking): FastRecover's process-failure loss
    under the blocking reading is its loss at capacity C (1 - max ch_i), larger than async's."""
    import fastrecover as fr

    name = "khaos_ysb"
    s = S.load(name)
    params = {"scenario": name, "ch_max": 1.0, "draws": 3, "y_load": MEAN}
    blocking = F.fastrecover_point(params, np.random.default_rng(0))
    async_ = F.fastrecover_point({**params, "cost_reading": ASYNC}, np.random.default_rng(0))
    assert blocking["loss_process_s"] > async_["loss_process_s"] * (1 + 1e-3)
    # the brute force of test_fastrecover_y_from_first_principles at C (1 - max ch_i)
    topo, _, _, z = S.to_fastrecover(s)
    storage = S.snapshot_storage(s)
    source_log = float(storage.delta_log(topo.rates[0] * topo.theta[0]))
    config = fr.optimize_chain(topo, 1.0 + source_log, z, storage).configuration
    ch = fr.checkpoint_overheads(topo, config, storage)
    ch[0] -= source_log
    assert 0 < ch.max() < ch.sum()  # max != sum: the busiest operator, not every one


def test_ppa_checkpoint_charge_fails_on_charging_only_unreplicated_tasks():
    """rev20f #4: PPA's passive plan checkpoints every task (Su & Zhou Sec. III), so every plan
    pays c/T in both notebooks, PPA-1.0 too: it recovers a task whose replica died with its node
    from that checkpoint (the worst fate). The old charge, c/T x the unreplicated tasks' CPU
    share (0 for PPA-1.0 on khaos_ysb and fig9), fails here."""
    for name in ("khaos_ysb", "incremental_fig9"):
        s = S.load(name)
        c_over_t = s.checkpoint.remote_cost_s / F.remote_interval_s(s)  # rev20e #5
        for fraction in (0.0, 0.5, 1.0):
            row = F.ppa_point(
                {"scenario": name, "fraction": fraction, "draws": 2}, np.random.default_rng(0)
            )
            assert row["checkpoint_share"] == pytest.approx(c_over_t)
    su = cc.setup("incremental_fig9")
    costs = cc.normal_costs("incremental_fig9").set_index("scheme")["checkpoint_overhead"]
    c_over_t = su["scenario"].checkpoint.remote_cost_s / su["interval"]
    assert costs["blocking"] == pytest.approx(c_over_t)
    for scheme in su["plans"]:
        assert costs[scheme] == pytest.approx(c_over_t)
