"""Your own job without the optional parts: no correlated failures, no standby nodes, no QoS
limit. Each either works in the cross notebooks' functions or is refused up front by
``scenarios.load`` with a message naming the field. Scenarios are written as files (the template
with values changed), as a user would."""

import re

import numpy as np
import pytest

from crosspaper import correlated, frontier
from crosspaper import scenarios as S

TEMPLATE = (S.SCENARIOS / f"{S.TEMPLATE}.toml").read_text()


def edited(tmp_path, name: str, **values) -> str:
    """The template with ``key = value`` lines replaced (value None: the line removed)."""
    text = TEMPLATE
    for key, value in values.items():
        line = "" if value is None else f"{key} = {value}"
        text, n = re.subn(rf"(?m)^{key} = .*$", line, text)
        assert n == 1, key
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("key", ["process_per_day", "single_per_day"])
def test_a_zero_failure_rate_is_refused_at_load_naming_the_field(tmp_path, key):
    path = edited(tmp_path, "zero", **{key: "0.0"})
    with pytest.raises(ValueError, match=rf"failures\.{key} must be > 0; got 0: .*e\.g\. 0\.01"):
        S.load(path)
    missing = edited(tmp_path, "absent", **{key: None})
    with pytest.raises(ValueError, match=rf"failures\.{key} is missing"):
        S.load(missing)


def test_no_correlated_failures_work_in_every_cross_notebooks_functions(tmp_path):
    """rev20 LOW 11: correlated_per_day = 0 was refused though cross_interval never uses it."""
    from crosspaper import interval

    path = edited(tmp_path, "no_correlated", correlated_per_day="0.0")
    s = S.load(path)
    assert s.failures.correlated_per_day == 0
    rows = _frontier_rows(path)
    assert any(r["feasible"] for r in rows)
    assert np.isfinite([r["unavailability_s_per_h"] for r in rows if r["feasible"]]).all()
    assert all(r["loss_correlated_s"] >= 0 for r in rows if r["feasible"])
    lost = _correlated_lost(path)
    assert set(lost) == set(correlated.SCHEMES) and all(v >= 0 for v in lost.values())
    job = interval.Job(s, S.DATA / "khaos")  # the template replays the IoT day
    head = interval.headline(s, job.sim, job.peak)
    assert head["utilization_optimal_s"] > 0
    with pytest.raises(ValueError, match=r"failures\.correlated_per_day is missing"):
        S.load(edited(tmp_path, "absent", correlated_per_day=None))


def test_rare_correlated_failures_work_in_the_frontier_and_correlated_functions(tmp_path):
    path = edited(tmp_path, "rare", correlated_per_day="0.01", correlated_nodes=None)
    s = S.load(path)
    assert s.failures.correlated_nodes == 2  # the default
    rows = _frontier_rows(path)
    assert np.isfinite([r["unavailability_s_per_h"] for r in rows if r["feasible"]]).all()
    lost = _correlated_lost(path)
    assert set(lost) == set(correlated.SCHEMES) and all(v >= 0 for v in lost.values())


@pytest.mark.parametrize("key", ["latency_ms", "recovery_s"])
def test_a_missing_qos_limit_is_refused_at_load_naming_the_field(tmp_path, key):
    path = edited(tmp_path, "no_qos", **{key: None})
    with pytest.raises(ValueError, match=rf"qos\.{key} is missing: .*very large value"):
        S.load(path)


def test_a_job_without_standby_nodes_works_and_waits_longer_than_with_them(tmp_path):
    # all 8 nodes that may fail fail: 2.8 of CPU, 1.0 spare on the two source nodes
    none = edited(tmp_path, "no_standby", standby_nodes=None, correlated_nodes="8")
    some = edited(tmp_path, "standby", standby_nodes="3", correlated_nodes="8")
    assert S.load(none).resources.standby_nodes == 0
    assert (
        "assumption (default)"
        in S.load(none).sources().set_index("field").loc["resources.standby_nodes", "source"]
    )
    wait, recovery = {}, {}
    for name, path in (("none", none), ("some", some)):
        rows = _frontier_rows(path)
        assert np.isfinite([r["unavailability_s_per_h"] for r in rows if r["feasible"]]).all()
        s = S.load(path)
        wait[name] = sum(
            w * p for w, p in frontier.wait_weights(s, "correlated", s.resources.standby_nodes)
        )
        recovery[name] = min(
            r["recovery_correlated_s"] for r in rows if r["approach"] == "multilevel"
        )
        assert set(_correlated_lost(path)) == set(correlated.SCHEMES)
    # The survivors' spare and three standby nodes take the 2.8: no failure waits for a new node.
    assert wait["some"] == 0.0 < wait["none"]
    assert recovery["some"] < recovery["none"]


def _frontier_rows(path: str) -> list[dict]:
    points = frontier.grid(
        [path],
        intervals_s=[60.0],
        p1_values=[0.0],
        ch_max_values=[50.0],
        b_log_values=[None],
        cis_s=[],
        fractions=[0.5],
        extra_standby=[0],
        draws=1,
    )
    assert {p["approach"] for p in points} == {
        "baseline",
        "multilevel",
        "fastrecover",
        "ppa",
        "incremental",
    }
    return [{**p, **frontier.frontier_point(p, np.random.default_rng(0))} for p in points]


def _correlated_lost(path: str) -> dict[str, float]:
    params = {
        "scenario": path,
        "k": 2,
        "delay_factor": 1.0,
        "horizon_s": 300.0,
        "step_s": 10.0,
        "engine": False,
        "engine_rate": 1.0,
    }
    rows = correlated.correlated_point(params, np.random.default_rng(0))
    return {r["scheme"]: r["lost_output_s"] for r in rows if r["kind"] == correlated.SUMMARY}
