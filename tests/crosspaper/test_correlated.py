"""crosspaper.correlated: the lost-output integral, the placement of failed passive tasks and the
failed nodes, and common random numbers across k (on the template scenario: 2 source nodes, 8
nodes that may fail)."""

import numpy as np
import pandas as pd
import pytest

from crosspaper import correlated as cc
from crosspaper import recovery
from crosspaper import scenarios as S

SCENARIO = S.TEMPLATE


def point(k: int, seed: int, delay_factor: float = 1.0, step_s: float = 10.0) -> pd.DataFrame:
    params = {
        "scenario": SCENARIO,
        "k": k,
        "delay_factor": delay_factor,
        "horizon_s": 900.0,
        "step_s": step_s,
        "engine": False,
        "engine_rate": 1.0,
    }
    return pd.DataFrame(cc.correlated_point(params, np.random.default_rng(seed)))


# -- the lost-output integral ∫(1 - A) dt -------------------------------------------------------
def test_lost_output_of_a_hand_computed_step_curve():
    # 4 queries; two failed ones back at 10 s and 30 s: A = 0.5 on [0, 10), 0.75 on [10, 30), 1.
    times, avail = cc._query_curve({"q1": 10.0, "q2": 30.0}, 4)
    np.testing.assert_allclose(times, [0.0, 10.0, 30.0])
    np.testing.assert_allclose(avail, [0.5, 0.75, 1.0])
    summary = cc._summarize(times, avail)
    assert summary["lost_output_s"] == pytest.approx(0.5 * 10 + 0.25 * 20)
    assert (summary["t50_s"], summary["t90_s"], summary["t_full_s"]) == (0.0, 30.0, 30.0)


def test_lost_output_of_partial_accuracy_and_a_query_never_back():
    # PPA-style accuracies: 0.2 for 5 s, 0.6 for 15 s, then exact.
    summary = cc._summarize(np.array([0.0, 5.0, 20.0]), np.array([0.2, 0.6, 1.0]))
    assert summary["lost_output_s"] == pytest.approx(0.8 * 5 + 0.4 * 15)
    assert (summary["t50_s"], summary["t90_s"]) == (5.0, 20.0)
    # A query that never comes back (inf) stays out of the steps: availability never reaches 1.
    times, avail = cc._query_curve({"q1": 10.0, "q2": np.inf}, 2)
    assert avail[-1] == 0.5 and cc._summarize(times, avail)["t_full_s"] == times[-1]


def test_exact_loss_equals_the_loss_of_exactly_once_schemes_and_bounds_ppas():
    """rev20b #5: exact_lost_s (the decision map's metric) is lost_output_s for the exactly-once
    schemes and at least PPA's lost_output_s (which credits tentative output)."""
    summary = point(4, seed=3).query("kind == @cc.SUMMARY").set_index("scheme")
    for scheme in ("incremental", "blocking", "multilevel"):
        assert summary.loc[scheme, "exact_lost_s"] == summary.loc[scheme, "lost_output_s"]
    for scheme in ("PPA-0", "PPA-0.5", "PPA-1.0"):
        assert summary.loc[scheme, "exact_lost_s"] >= summary.loc[scheme, "lost_output_s"] - 1e-9


def test_the_summary_integral_matches_the_sampled_curve_of_each_scheme():
    """The exact integral against the Riemann sum of the curve rows: they differ by at most one
    step per availability jump, and agree as the step shrinks."""
    for step in (10.0, 1.0):
        frame = point(4, seed=3, step_s=step)
        for scheme in cc.SCHEMES:
            rows = frame[frame["scheme"] == scheme]
            curve = rows[rows["kind"] == cc.CURVE].sort_values("t")
            exact = rows[rows["kind"] == cc.SUMMARY]["lost_output_s"].iloc[0]
            sampled = float(((1 - curve["availability"]) * step).sum())
            jumps = int((curve["availability"].diff().abs() > 0).sum()) + 1
            assert abs(sampled - exact) <= step * jumps + 1e-9, (scheme, step)


# -- node placement ---------------------------------------------------------------------------
def _draws(k: int, seed: int):
    """correlated_point's draws, in its order: the failed nodes (first k of a permutation of the
    candidates), their acquisition delays (template: uniform 120-360 s) and the checkpoint phase."""
    rng = np.random.default_rng(seed)
    su = cc.setup(SCENARIO)
    n = len(su["candidates"])
    perm, u, phase = rng.permutation(n), rng.random(n), rng.random()
    failed = [su["candidates"][i] for i in perm[:k]]
    return su, failed, 120.0 + 240.0 * u[:k], phase


def _recovered(su, phase: float, wait_s: float) -> float:
    """The shared recovery model after a wait of ``wait_s`` s for a placement (the remote restart
    added, which counts from the failure: detection inside it, rev20c #11; the work since the
    last checkpoint lost), catching up at C (1 - the checkpoints' share) (the blocking reading:
    incremental, blocking and PPA-0 checkpoint the same tasks)."""
    s = su["scenario"]
    lost = phase * su["interval"]  # every scheme's optimised remote interval
    down = wait_s + s.checkpoint.remote_restart_s
    return float(recovery.recovery_s(lost, down, cc.catch_up_jobs(SCENARIO)["blocking"]))


def test_exactly_once_partitions_go_to_alive_spare_first_then_to_new_nodes_in_arrival_order():
    """Template: each non-source node runs 0.2 (filter) or 0.5 (window + sink) of CPU under a 0.8
    cap. Two failed nodes' partitions (at most 1.0) fit the alive nodes' spare: placed at
    detection, no wait. All 8 fail: 2.8 of CPU, 1.0 spare on the two source nodes and 0.8 per
    new node, so blocking recovery waits for the third new node in arrival order."""
    for seed in range(4):
        su, _, _, phase = _draws(2, seed)
        summary = point(2, seed).query("kind == @cc.SUMMARY").set_index("scheme")
        for scheme in ("incremental", "blocking"):
            assert summary.loc[scheme, "t_full_s"] == pytest.approx(_recovered(su, phase, 0.0))
        su, _, delays, phase = _draws(8, seed)
        summary = point(8, seed).query("kind == @cc.SUMMARY").set_index("scheme")
        third = np.sort(delays)[2]
        assert summary.loc["blocking", "t_full_s"] == pytest.approx(_recovered(su, phase, third))
        assert summary.loc["incremental", "t_full_s"] <= summary.loc["blocking", "t_full_s"]


def test_ppa_passive_tasks_restart_by_the_one_rule_as_blocking_recovery_does():
    """rev20b #3: PPA-0 replicates nothing, so its passive tasks restart where every scheme's
    do (crosspaper.recovery.restart_plan: the survivors' spare, then new nodes): its output is
    exact again when blocking recovery's is (two failed nodes fit the survivors' spare: no wait;
    all eight wait for the third new node); the query rows name the output operator."""
    for seed in range(4):
        for k in (1, 2, 8):
            su, failed, delays, phase = _draws(k, seed)
            frame = point(k, seed)
            assert frame["failed_nodes"].iloc[0] == ",".join(sorted(failed))
            summary = frame.query("kind == @cc.SUMMARY").set_index("scheme")
            wait = np.sort(delays)[2] if k == 8 else 0.0
            for scheme in ("PPA-0", "blocking"):
                assert summary.loc[scheme, "t_full_s"] == pytest.approx(_recovered(su, phase, wait))


def test_ppa_rule_check_fails_on_waiting_for_the_own_node():
    """The falsification of the test above: the old rule (each passive task waits for its own
    node's replacement) gives PPA-0 a later full output than blocking recovery on 2 nodes."""
    su, failed, delays, phase = _draws(2, 0)
    assert _recovered(su, phase, delays.max()) > _recovered(su, phase, 0.0)


def test_failed_nodes_include_sources_and_are_nested_in_k():
    """rev20 MED 9: sources fail too (the one PPA model of the cross notebooks)."""
    su = cc.setup(SCENARIO)
    assert su["candidates"] == [f"n{i}" for i in range(10)]  # n0, n1 run the sources
    for seed in range(5):
        sets = [set(point(k, seed)["failed_nodes"].iloc[0].split(",")) for k in range(1, 11)]
        assert all(len(s) == k for k, s in enumerate(sets, start=1))
        assert all(a < b for a, b in zip(sets, sets[1:], strict=False))
        assert sets[-1] == set(su["candidates"])


# -- common random numbers across k -----------------------------------------------------------
def test_common_random_numbers_make_every_draw_monotone_in_k_and_the_delay():
    """With the same generator state at every k (as sweep's common_random_numbers gives), one
    draw's blocking recovery waits for the max of the same acquisition delays over a growing
    set of nodes, and its lost work is the same: time to full output never falls with k, nor
    with the delay factor."""
    for seed in range(6):
        full = []
        for k in (1, 2, 4, 6, 8):
            frame = point(k, seed)
            summary = frame[frame["kind"] == cc.SUMMARY].set_index("scheme")
            full.append(summary.loc["blocking", "t_full_s"])
        assert all(a <= b + 1e-9 for a, b in zip(full, full[1:], strict=False)), (seed, full)
        by_delay = [
            point(4, seed, delay_factor=f)
            .query("kind == @cc.SUMMARY")
            .set_index("scheme")
            .loc["blocking", "t_full_s"]
            for f in (0.0, 0.5, 1.0, 2.0)
        ]
        assert all(a <= b + 1e-9 for a, b in zip(by_delay, by_delay[1:], strict=False))


def test_common_random_numbers_check_fails_on_independent_draws():
    """The falsification of the test above: with a fresh seed at each k the draws differ, the
    failed sets are not nested and monotonicity breaks on some draw."""
    nested, monotone = [], []
    for seed in range(6):
        sets, full = [], []
        for j, k in enumerate((2, 4, 6, 8)):
            frame = point(k, seed=100 * seed + j)
            sets.append(set(frame["failed_nodes"].iloc[0].split(",")))
            full.append(
                frame.query("kind == @cc.SUMMARY").set_index("scheme").loc["blocking", "t_full_s"]
            )
        nested.append(all(a < b for a, b in zip(sets, sets[1:], strict=False)))
        monotone.append(all(a <= b for a, b in zip(full, full[1:], strict=False)))
    assert not all(nested) and not all(monotone)


def test_the_scenarios_standby_nodes_serve_the_first_failed_nodes(tmp_path):
    """rev20 MED 8: cross_correlated ignored the scenario's standby nodes (the frontier used
    them). All eight nodes fail: with one standby node the survivors' spare and the standby
    node take 1.8 of the 2.8 of CPU, so every scheme waits for the second of the seven new
    nodes requested (the draws after the standby's, delays[1:]), not the third of eight."""
    text = (S.SCENARIOS / f"{S.TEMPLATE}.toml").read_text()
    old = "standby_nodes = 0"
    assert old in text
    path = tmp_path / "standby.toml"
    path.write_text(text.replace(old, "standby_nodes = 1"))
    for seed in range(3):
        su, failed, delays, phase = _draws(8, seed)
        params = {
            "scenario": str(path),
            "k": 8,
            "delay_factor": 1.0,
            "horizon_s": 900.0,
            "step_s": 10.0,
            "engine": False,
            "engine_rate": 1.0,
        }
        frame = pd.DataFrame(cc.correlated_point(params, np.random.default_rng(seed)))
        summary = frame.query("kind == @cc.SUMMARY").set_index("scheme")
        without = point(8, seed).query("kind == @cc.SUMMARY").set_index("scheme")
        for scheme in ("PPA-0", "blocking"):
            full = summary.loc[scheme, "t_full_s"]
            assert full == pytest.approx(_recovered(su, phase, np.sort(delays[1:])[1]))
            assert full <= without.loc[scheme, "t_full_s"]


@pytest.mark.parametrize("name", ["khaos_ysb", "khaos_iot"])
def test_scenarios_with_a_source_on_every_node_are_accepted(name):
    """rev20 MED 9: khaos_ysb / khaos_iot (a source task on every node) were refused."""
    su = cc.setup(name)
    assert len(su["candidates"]) == S.load(name).resources.nodes


# -- equal footing: every checkpoint scheme at its optimised interval (rev20 #6) ---------------
def _same_footing(costs: pd.DataFrame, su: dict) -> bool:
    """Whether the remote-checkpoint schemes sit at the remote-only utilization optimum and
    multilevel at its own two-level one (one criterion: multilevel's U, Eq. (13))."""
    from multilevel.optimize import optimal

    system = S.to_multilevel(su["scenario"], levels=2)
    remote_only, ml = optimal(system, zero_levels=(1,)), optimal(system)
    by = costs.set_index("scheme")["checkpoint_interval_s"]
    schemes = ["incremental", "blocking", *[x for x in by.index if x.startswith("PPA")]]
    return bool(
        np.allclose(by[schemes], remote_only.T, rtol=1e-6)
        and np.isclose(by["multilevel"], ml.T / ml.p[-1], rtol=1e-6)
    )


@pytest.mark.parametrize("name", ["incremental_fig9", SCENARIO])
def test_every_checkpoint_scheme_sits_at_its_optimised_interval(name):
    """At the shipped scenarios p1* = 0, so multilevel is blocking recovery at the same interval:
    the same checkpoint overhead and, on the same draws, the same lost output."""
    su = cc.setup(name)
    costs = cc.normal_costs(name)
    assert _same_footing(costs, su)
    by = costs.set_index("scheme")
    assert su["multilevel"].p[0] == pytest.approx(0.0, abs=1e-9)
    overheads = by.loc[["PPA-0", "incremental", "blocking", "multilevel"], "checkpoint_overhead"]
    np.testing.assert_allclose(overheads, overheads.iloc[0], rtol=1e-6)
    if name == SCENARIO:
        rows = point(4, seed=3)
        lost = rows[rows["kind"] == cc.SUMMARY].set_index("scheme")["lost_output_s"]
        assert lost["multilevel"] == pytest.approx(lost["blocking"])


def test_equal_footing_fails_on_the_configured_interval():
    """The rev20 #6 setup, blocking and incremental at the scenario's checkpoint.interval_s (10 s
    on Fig 9) beside multilevel at its optimum, is caught: a 10x gap in checkpoint overhead."""
    su = cc.setup("incremental_fig9")
    costs = cc.normal_costs("incremental_fig9")
    configured = su["scenario"].checkpoint.interval_s
    old = costs.copy()
    for scheme in ("incremental", "blocking"):
        old.loc[old["scheme"] == scheme, "checkpoint_interval_s"] = configured
    assert not _same_footing(old, su)
    assert configured != pytest.approx(su["interval"], rel=0.5)


def test_ppa_replicas_extra_nodes_fail_in_cross_correlated_fails_on_job_nodes_only():
    """rev20c #2: PPA-1.0's replicas on Fig 9's extra nodes never failed. A correlated failure
    of k = 8 now takes the k job nodes every scheme loses (rev20d #2: never diluted by the plan's
    own extra nodes) and each extra node (index >= N) with probability k / N: over seeds some
    draws hit one, and every plan fails exactly the blocking scheme's job nodes."""
    n = cc.setup("incremental_fig9")["scenario"].resources.nodes
    params = {"scenario": "incremental_fig9", "k": 8, "delay_factor": 1.0, "horizon_s": 600.0}
    params |= {"step_s": 30.0, "engine": False, "engine_rate": 1.0}
    hit = 0
    for seed in range(12):
        frame = pd.DataFrame(cc.correlated_point(params, np.random.default_rng(seed)))
        summary = frame.query("kind == @cc.SUMMARY").set_index("scheme")
        nodes = {s: {int(x[1:]) for x in v.split(",")} for s, v in summary["failed_nodes"].items()}
        assert max(nodes["PPA-0"]) < n
        for plan in ("PPA-0", "PPA-0.5", "PPA-1.0"):
            assert {x for x in nodes[plan] if x < n} == nodes["blocking"]
        hit += max(nodes["PPA-1.0"]) >= n
    assert hit >= 3


def test_down_time_fails_on_adding_detection_to_the_restart():
    """rev20c #11: checkpoint.remote_restart_s counts from the failure, detection included, so a
    partition placed at once is down remote_restart_s, not a detection delay more."""
    su, _, _, phase = _draws(2, 0)
    s = su["scenario"]
    full = point(2, 0).query("kind == @cc.SUMMARY").set_index("scheme").loc["blocking", "t_full_s"]
    lost, job = phase * su["interval"], cc.catch_up_jobs(SCENARIO)["blocking"]
    assert full == pytest.approx(recovery.recovery_s(lost, s.checkpoint.remote_restart_s, job))
    assert full < recovery.recovery_s(lost, 1.0 + s.checkpoint.remote_restart_s, job) - 0.5


def test_exactly_once_loss_fails_on_collapsing_the_queries_of_an_output_operator():
    """rev20d #0: the template's sink has 4 partitions, one query each; an exactly-once scheme's
    loss counts every failed query. Blocking and PPA-0 lose the same exact output on the same
    draw (every query is fed by the failed tasks through the keyBy, back with the last of them),
    and incremental's time to full output is the latest of its queries'."""
    for seed in (0, 3, 5):
        frame = point(2, seed)
        summary = frame.query("kind == @cc.SUMMARY").set_index("scheme")
        assert summary.loc["blocking", "exact_lost_s"] == pytest.approx(
            summary.loc["PPA-0", "exact_lost_s"], rel=1e-9
        )
        queries = frame.query("kind == @cc.QUERY and scheme == 'incremental'")
        assert queries["query"].is_unique and queries["query"].str.startswith("sink[").all()
        assert summary.loc["incremental", "t_full_s"] == pytest.approx(queries["recovery_s"].max())
        assert summary.loc["incremental", "failed_queries"] == len(queries)


def test_catch_up_fails_on_ignoring_the_checkpoints_share():
    """rev20d #1: under the blocking reading (default) a recovery catches up at C (1 - the
    scheme's checkpoint overhead), as cross_frontier's and cross_interval's; blocked_factor 0
    (the async reading) at C. The template checkpoints a visible share of the time, so the two
    differ, and each scheme's capacity follows its own overhead."""
    su = cc.setup(SCENARIO)
    costs = cc.normal_costs(SCENARIO).set_index("scheme")["checkpoint_overhead"]
    blocking, async_ = cc.catch_up_jobs(SCENARIO), cc.catch_up_jobs(SCENARIO, 0.0)
    for scheme in cc.SCHEMES:
        assert async_[scheme].capacity == su["job"].capacity
        assert blocking[scheme].capacity == pytest.approx(su["job"].capacity * (1 - costs[scheme]))
    assert costs["blocking"] > 0
    slow = point(2, 0).query("kind == @cc.SUMMARY").set_index("scheme")
    params = {
        "scenario": SCENARIO,
        "k": 2,
        "delay_factor": 1.0,
        "horizon_s": 900.0,
        "step_s": 10.0,
        "engine": False,
        "engine_rate": 1.0,
        "blocked_factor": 0.0,
    }
    fast = pd.DataFrame(cc.correlated_point(params, np.random.default_rng(0)))
    fast = fast.query("kind == @cc.SUMMARY").set_index("scheme")
    for scheme in ("incremental", "blocking", "multilevel", "PPA-0"):  # PPA-0.5/1.0: replicas
        assert slow.loc[scheme, "t_full_s"] > fast.loc[scheme, "t_full_s"]


def test_worst_full_bounds_every_drawn_recovery():
    """rev20e #2: one level law for multilevel in the package (cross_frontier's deterministic
    pattern: a remote checkpoint every m = ceil(1/p2) intervals T*, a failure G - 1 whole
    intervals after the last one, G uniform on 1..m), so the worst pass (G = m) bounds every
    drawn recovery where the optimum has p1 > 0 (the geometric draw of G, unbounded, did not:
    35% of the draws above it). The template with frequent process failures and cheap local
    checkpoints (the review's scenario: p1 > 0), k = 4, 40 draws."""
    s = S.with_values(
        S.load(S.TEMPLATE),
        {
            "failures.process_per_day": 2000.0,
            "checkpoint.local_cost_s": 0.3,
            "checkpoint.local_restart_s": 2.0,
        },
    )
    assert cc.setup(s)["multilevel"].p[0] > 0.5
    worst = cc.worst_full_s(s, 4, 1.0)
    params = {"scenario": s, "k": 4, "delay_factor": 1.0, "horizon_s": 600.0, "step_s": 200.0}
    params |= {"engine": False, "engine_rate": 1.0}
    for seed in range(40):
        for r in cc.correlated_point(params, np.random.default_rng(seed)):
            if r["kind"] == cc.SUMMARY:
                assert r["t_full_s"] <= worst[r["scheme"]] + 1e-9, (seed, r["scheme"])


def test_worst_full_s_fails_on_the_drawn_wait():
    """rev20e #3, #4: the worst recovery by hand. Template, k = 8 of its 10 candidate nodes
    (failed tasks need new nodes), blocking at its optimum T: every node at the acquisition
    law's upper end, down that wait + remote_restart_s, lost T - INJECT_BEFORE_S (Khaos's worst
    moment, recovery.lost_work(T, "worst")), catching up at the QoS load with C (1 - c/T). A
    worst pass at a drawn or mean wait, or losing half the interval, gives less."""
    s, su = S.load(S.TEMPLATE), cc.setup(S.TEMPLATE)
    job = cc.catch_up_jobs(S.TEMPLATE, 1.0, "qos")["blocking"]
    wait = recovery.acquisition_upper_s(s) + s.checkpoint.remote_restart_s
    lost = su["interval"] - recovery.INJECT_BEFORE_S
    got = cc.worst_full_s(S.TEMPLATE, 8, 1.0)["blocking"]
    assert got == pytest.approx(float(recovery.recovery_s(lost, wait, job)), rel=1e-9)
    mean_wait = (s.resources.acquisition_low_s + s.resources.acquisition_high_s) / 2
    shorter = recovery.recovery_s(lost, mean_wait + s.checkpoint.remote_restart_s, job)
    half = recovery.recovery_s(su["interval"] / 2, wait, job)
    assert got > max(shorter, half) + 1.0


def test_worst_full_fails_on_a_drawn_moment_past_the_worst(tmp_path):
    """rev20f #2: without a measured day (experiment "none") the worst pass and the draws catch
    up at the same load, so only the moment separates them: draws uniform on the whole interval
    (lost u T) exceeded the worst pass's T - 3 s in about 3/T of the draws (rev20f: 26 of 200 at
    T = 22.5 s, k = 4). A failure in the last 3 s is now charged as at T - 3 s, so no draw
    exceeds worst_full_s; the planted old rule (u T) fails here."""
    import re

    text = (S.SCENARIOS / "template.toml").read_text()
    for key, value in {
        "process_per_day": "2000.0",
        "local_cost_s": "0.3",
        "local_restart_s": "2.0",
        "catch_up_rate": "12000.0",
        "experiment": '"none"',
    }.items():
        text, n = re.subn(rf"(?m)^{key} = [^ #]+", f"{key} = {value}", text)
        assert n == 1, key
    (tmp_path / "p1_noday.toml").write_text(text)
    s = S.load(tmp_path / "p1_noday.toml")
    worst = cc.worst_full_s(s, 4, 1.0)
    params = {"scenario": s, "k": 4, "delay_factor": 1.0, "horizon_s": 600.0, "step_s": 200.0}
    params |= {"engine": False, "engine_rate": 1.0}
    at_worst = 0
    for seed in range(60):
        for r in cc.correlated_point(params, np.random.default_rng([7, seed])):
            if r["kind"] == cc.SUMMARY:
                assert r["t_full_s"] <= worst[r["scheme"]] + 1e-9, (seed, r["scheme"])
                at_worst += r["scheme"] == "blocking" and r["t_full_s"] > worst["blocking"] - 1e-6
    assert at_worst > 0  # some draws sit in the last 3 s: the bound is tight there


def test_worst_fails_on_the_first_node_set(tmp_path):
    """rev20f #3: the template with an incremental CPU cap of 0.55 (rev20f's asym.toml): its
    first 2-node set (n0, n1) fits on the survivors (about 1,092 s at the QoS load), 30 of the
    45 sets need a new node. The worst over EVERY set, in both notebooks and for every scheme,
    is the recovery by hand with the wait at the acquisition law's upper end: blocking at its
    optimum T, lost T - 3 s, down 360 + 17.69 s, catching up at C (1 - c/T) at the QoS load
    (every plan pays c/T, rev20f #4). A worst over the first set only (rev20f's mutants b, d2,
    e) gives about 1,092 s."""
    import re

    from crosspaper import frontier as F

    text = (S.SCENARIOS / "template.toml").read_text()
    text, n = re.subn(r"(?m)^cpu_cap = [^ #]+", "cpu_cap = 0.55", text)
    assert n == 1
    path = tmp_path / "asym.toml"
    path.write_text(text)
    s, su = S.load(path), cc.setup(str(path))
    assert recovery.acquired_nodes(s, [0, 1], 0)[0] == 0  # the first set waits for no new node
    job = recovery.job_of(s, F.qos_load(str(path)))
    T, c = su["interval"], s.checkpoint.remote_cost_s
    down = recovery.acquisition_upper_s(s) + s.checkpoint.remote_restart_s
    hand = float(recovery.recovery_s(T - 3.0, down, job, capacity=job.capacity * (1 - c / T)))
    assert hand > 3000.0
    worst = cc.worst_full_s(str(path), 2, 1.0)
    for scheme in ("incremental", "blocking", *su["plans"]):
        assert worst[scheme] == pytest.approx(hand, rel=1e-9), scheme
    rng = np.random.default_rng(0)
    for fraction in (0.0, 0.5, 1.0):
        row = F.ppa_point({"scenario": str(path), "fraction": fraction, "draws": 2}, rng)
        assert row["recovery_correlated_s"] == pytest.approx(hand, rel=1e-9), fraction
    row = F.incremental_point({"scenario": str(path), "extra_standby": 0, "draws": 2}, rng)
    assert row["recovery_correlated_s"] == pytest.approx(hand, rel=1e-9)


def test_both_notebooks_share_one_node_set_enumeration(tmp_path, monkeypatch):
    """rev20f #5: one enumeration of the k-node sets with one cap (recovery.node_sets) in both
    notebooks: above the cap both judge the same seed-0 sample, so they agree on a large job
    (here the cap lowered to 50 under the template's C(10, 3) = 120 sets; before, cross_correlated
    enumerated every set without a cap and cross_frontier sampled its own). Not a falsification
    of the old code on this scenario: its worst set is common, so the sample reaches it too."""
    import re

    from crosspaper import frontier as F

    monkeypatch.setattr(recovery, "MAX_NODE_SETS", 50)
    sets = recovery.node_sets(range(10), 3)
    assert len(sets) == 50 and sets == recovery.node_sets(range(10), 3)
    assert len(recovery.node_sets(range(10), 2)) == 45  # below the cap: every set
    text = (S.SCENARIOS / "template.toml").read_text()
    for key, value in {"correlated_nodes": "3", "cpu_cap": "0.55"}.items():
        text, n = re.subn(rf"(?m)^{key} = [^ #]+", f"{key} = {value}", text)
        assert n == 1, key
    path = tmp_path / "big.toml"
    path.write_text(text)
    worst = cc.worst_full_s(str(path), 3, 1.0)
    rng = np.random.default_rng(0)
    row = F.ppa_point({"scenario": str(path), "fraction": 0.5, "draws": 2}, rng)
    assert row["recovery_correlated_s"] == pytest.approx(worst["PPA-0.5"], rel=1e-9)
    row = F.incremental_point({"scenario": str(path), "extra_standby": 0, "draws": 2}, rng)
    assert row["recovery_correlated_s"] == pytest.approx(worst["incremental"], rel=1e-9)


def _template_with(tmp_path, name: str, **values) -> str:
    import re

    text = (S.SCENARIOS / "template.toml").read_text()
    for key, value in values.items():
        text, n = re.subn(rf"(?m)^{key} = [^ #]+", f"{key} = {value}", text)
        assert n == 1, key
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return str(path)


def test_worst_pass_fails_on_ignoring_the_standby_nodes(tmp_path):
    """Issue 20's surviving mutant: a worst pass that ignores the scenario's standby nodes
    moved PPA-1.0's worst recovery from 1,092 to 3,794 s undetected. The template with a CPU cap
    of 0.55 (30 of its 45 2-node sets need a new node without standby nodes) and 2 standby
    nodes: every 2-node set's failed tasks restart on the standby nodes at once, so every
    scheme's worst recovery is the one by hand with no wait (down = remote_restart_s, lost
    T - 3 s, catching up at C (1 - c/T) at the QoS load); multilevel at its own T* and m*."""
    from crosspaper import frontier as F

    path = _template_with(tmp_path, "standby", cpu_cap="0.55", standby_nodes="2")
    s, su = S.load(path), cc.setup(path)
    assert recovery.acquired_nodes(s, [6, 7], 0)[0] > 0  # without standby nodes: a wait
    job = recovery.job_of(s, F.qos_load(path))
    c = s.checkpoint

    def by_hand(lost, cost):
        capacity = job.capacity * (1 - cost)
        return float(recovery.recovery_s(lost, c.remote_restart_s, job, capacity=capacity))

    T = su["interval"]
    worst = cc.worst_full_s(path, 2, 1.0)
    for scheme in ("incremental", "blocking", "PPA-0", "PPA-0.5", "PPA-1.0"):
        assert worst[scheme] == pytest.approx(by_hand(T - 3.0, c.remote_cost_s / T)), scheme
    ml, m = su["multilevel"], cc._remote_every(su["multilevel"])
    cost = ((m - 1) * c.local_cost_s + c.remote_cost_s) / (m * ml.T)
    assert worst["multilevel"] == pytest.approx(by_hand(m * ml.T - 3.0, cost))
    assert cc.blocking_worst_down_s(path, 2, 1.0) == c.remote_restart_s


def test_the_node_set_sample_is_stated_where_it_applies(monkeypatch):
    """Issue 20 LOW: above recovery.MAX_NODE_SETS the worst pass judges a fixed sample of the
    k-node sets, and the finding says so (here the cap lowered to 50 under the template's
    C(10, 3) = 120 sets)."""
    assert cc.node_sets_text(SCENARIO, 2) == "every 2-node set (45)"
    monkeypatch.setattr(recovery, "MAX_NODE_SETS", 50)
    assert cc.node_sets_text(SCENARIO, 3) == "a fixed sample of 50 of the 120 3-node sets"
    assert len(recovery.node_sets(range(10), 3)) == 50
