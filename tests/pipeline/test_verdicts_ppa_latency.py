"""Each PPA latency claim rule on the model's own data (ppa.latency) and on contrary data that
must change its verdict (``test_ppa*_fails_on_*``)."""

import numpy as np
import pandas as pd
import pytest

from pipeline.scorecard import (
    BY_CONSTRUCTION,
    CALIBRATED,
    DEPENDS,
    MODELLED,
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    Assumption,
)
from pipeline.verdicts import ppa_latency as rules
from ppa import LatencyParams, Phases, shapes
from ppa.latency import checkpoint_cpu_ratio, latency_table, ppa_table

GRID = dict(
    rates=[1000, 2000], windows=[10, 30], checkpoint_intervals=[5, 30], sync_periods=[1, 10]
)
FIG10 = dict(rates=[1000, 2000], window=30, checkpoint_interval=10, sync_period=1)


@pytest.fixture(scope="module")
def model():
    topology = shapes.fig6()
    phases = Phases.draw(topology, 40, np.random.default_rng(0))
    single = latency_table(topology, failure="single", phases=phases, **GRID)
    correlated = latency_table(topology, failure="correlated", phases=phases, **GRID)
    fig10 = ppa_table(topology, phases=phases, **FIG10)
    return single, correlated, fig10


def _scale(frame, factor, **where):
    """A copy with the latency of the rows matching ``where`` multiplied by ``factor``."""
    out = frame.copy()
    mask = np.ones(len(out), dtype=bool)
    for column, value in where.items():
        mask &= (out[column] == value).to_numpy()
    out.loc[mask, "latency"] *= factor
    return out


def test_ppa1_fails_on_active_slower_than_checkpoint(model):
    single = model[0]
    assert rules.ppa1(single).verdict == REPRODUCED
    slow = _scale(single, 30.0, scheme="active")
    verdict = rules.ppa1(slow)
    assert verdict.verdict == NOT_REPRODUCED and "fails: slowest active" in verdict.reason


def test_ppa1_fails_on_checkpoint_latency_falling_with_the_rate(model):
    single = model[0]
    falling = _scale(single, 0.3, scheme="checkpoint", rate=2000.0)
    verdict = rules.ppa1(falling)
    assert (
        verdict.verdict == NOT_REPRODUCED
        and "checkpoint latency grows with rate" in (verdict.reason.split("holds:")[0])
    )


def test_ppa1_is_partly_when_storm_is_faster_than_checkpoint(model):
    fast_storm = _scale(model[0], 0.3, scheme="storm")
    verdict = rules.ppa1(fast_storm)
    assert verdict.verdict == PARTLY and "source replay slower" in verdict.reason.split("holds:")[0]


def test_ppa2_fails_on_a_gap_no_larger_than_under_a_single_failure(model):
    single, correlated, _ = model
    assert rules.ppa2(single, correlated).verdict in (REPRODUCED, PARTLY)
    # The correlated failure costs every scheme the same as the single failure: no larger gap.
    same = single.assign(failure="correlated")
    verdict = rules.ppa2(single, same)
    assert (
        verdict.verdict == NOT_REPRODUCED
        and "larger than under a single" in (verdict.reason.split("holds:")[0])
    )


def test_ppa2_fails_on_storm_never_beating_checkpoint(model):
    single, correlated, _ = model
    slow_storm = _scale(correlated, 10.0, scheme="storm")
    verdict = rules.ppa2(single, slow_storm)
    assert verdict.verdict == NOT_REPRODUCED and "at no (rate, window)" in verdict.reason


def test_ppa3_is_by_construction_and_fails_on_a_cost_rising_with_the_interval():
    intervals = np.array([1.0, 5.0, 30.0])
    cpu = pd.DataFrame(
        [
            {
                "rate": r,
                "interval": c,
                "ratio": float(checkpoint_cpu_ratio(input_rate=2 * r, window=30, interval=c)),
            }
            for r in (1000, 2000)
            for c in intervals
        ]
    )
    assert rules.ppa3(cpu).verdict == BY_CONSTRUCTION
    rising = cpu.assign(ratio=cpu["interval"] / 10)
    assert rules.ppa3(rising).verdict == NOT_REPRODUCED
    cheap = cpu.assign(ratio=cpu["ratio"] / 100)
    assert rules.ppa3(cheap).verdict == PARTLY


def test_ppa4_fails_on_a_hybrid_plan_slower_than_pure_checkpointing(model):
    fig10 = model[2]
    verdicts = rules.ppa4(fig10)
    assert verdicts["PPA4:order"].verdict == REPRODUCED
    assert verdicts["PPA4:active"].verdict == CALIBRATED
    assert verdicts["PPA4:active"].reason.startswith("Calibrated: ")
    slow_hybrid = _scale(fig10, 3.0, plan="PPA-0.5")
    verdict = rules.ppa4(slow_hybrid)["PPA4:order"]
    assert verdict.verdict == NOT_REPRODUCED and "PPA-0 - PPA-0.5" in verdict.reason


def test_ppa4_active_fails_on_replicas_slower_than_full_replication(model):
    fig10 = model[2]
    slow = _scale(fig10, 2.0, plan="PPA-0.5-active")
    assert rules.ppa4(slow)["PPA4:active"].verdict == NOT_REPRODUCED
    # Much lower than PPA-0.5 but far below PPA-1.0: "slightly" fails, a detail.
    fast = _scale(fig10, 0.2, plan="PPA-0.5-active")
    verdict = rules.ppa4(fast)["PPA4:active"]
    assert verdict.verdict == PARTLY and "slightly earlier" in verdict.reason.split("holds:")[0]


def test_ppa4_active_fails_on_a_lead_beyond_a_strict_slightly(model):
    # PPA-0.5-active 35% below PPA-1.0: "slightly" at 1/2 holds, at 1/4 it fails (partly).
    fig10 = model[2]
    full = fig10[fig10["plan"] == "PPA-1.0"]["latency"].to_numpy()
    lead = fig10.copy()
    lead.loc[lead["plan"] == "PPA-0.5-active", "latency"] = 0.65 * full
    assert rules.ppa4(lead)["PPA4:active"].verdict == CALIBRATED
    strict = rules.ppa4(lead, slightly=0.25)["PPA4:active"]
    assert strict.verdict == PARTLY and "by 35% (<= 25%)" in strict.reason.split("holds:")[0]
    with pytest.raises(ValueError, match="slightly"):
        rules.ppa4(lead, slightly=1.5)


def test_ppa5_fails_on_a_speed_up_far_from_ten(model):
    fig10 = model[2]
    assert rules.ppa5(fig10).verdict == REPRODUCED
    barely = fig10.copy()
    hybrid = barely["plan"] == "PPA-0.5"
    barely.loc[hybrid, "latency"] = (
        barely.loc[barely["plan"] == "PPA-0.5-active", "latency"].to_numpy() * 1.5
    )
    verdict = rules.ppa5(barely)
    assert verdict.verdict == NOT_REPRODUCED and "reaches 5-20x" in verdict.reason


def test_ppa5_fails_on_a_ci_that_only_overlaps_five_to_twenty(model):
    # Speed-ups of 20 ± 12 per draw: the CI reaches into 5-20 without lying inside it: partly.
    fig10 = model[2]
    wide = fig10.copy()
    active = wide.loc[wide["plan"] == "PPA-0.5-active", "latency"].to_numpy()
    spread = np.random.default_rng(0).normal(20.0, 12.0, len(active)).clip(2.0)
    wide.loc[wide["plan"] == "PPA-0.5", "latency"] = active * spread
    verdict = rules.ppa5(wide)
    assert verdict.verdict == PARTLY and "not inside 5-20x" in verdict.reason.split("holds:")[0]


def test_ppa2_is_partly_when_the_ratio_passive_over_active_does_not_grow(model):
    single, correlated, _ = model
    verdict = rules.ppa2(single, correlated)
    failed = verdict.reason.split("holds:")[0]
    assert verdict.evidence == MODELLED
    assert "the ratio passive/active larger than under a single failure in 0 of" in failed
    # passive three times slower under the correlated failure: the ratio grows in every pair
    slower = correlated.copy()
    slower.loc[slower["scheme"] != "active", "latency"] *= 3
    held = rules.ppa2(single, slower).reason.split("holds:")[1]
    assert "the ratio passive/active larger than under a single failure in" in held


def _rejudged(model, **kwargs):
    single, correlated, fig10 = model
    topology = shapes.fig6()
    phases = Phases.draw(topology, 40, np.random.default_rng(0))
    fig9 = dict(rates=[1000, 2000], window=30, intervals=[1, 5, 30])
    return rules.rejudged(
        topology,
        params=LatencyParams(),
        phases=phases,
        grid=GRID,
        fig10=FIG10,
        fig9=fig9,
        tables=dict(
            single=single,
            correlated=correlated,
            fig10=fig10,
            cpu=rules.cpu_table(params=LatencyParams(), **fig9),
        ),
        **kwargs,
    )


def test_rejudged_rows_are_modelled_and_rejudged_at_every_end_of_every_range(model):
    verdicts = _rejudged(model)
    assert set(verdicts) == {"PPA1", "PPA2", "PPA3", "PPA4:order", "PPA4:active", "PPA5"}
    for claim, verdict in verdicts.items():
        assert verdict.evidence == MODELLED
        expected = {
            "PPA3": rules.CPU_ASSUMPTIONS,
            "PPA4:order": (*rules.ASSUMPTIONS, *rules.FIG10_ASSUMPTIONS),
            "PPA4:active": (*rules.ASSUMPTIONS, *rules.FIG10_ASSUMPTIONS, rules.SLIGHT),
            "PPA5": (*rules.ASSUMPTIONS, *rules.FIG10_ASSUMPTIONS),
        }.get(claim, rules.ASSUMPTIONS)
        assert {(name, value) for name, value, _ in verdict.robustness} == {
            (a.name, v) for a in expected for v in a.alternatives
        }
        labels = () if claim in ("PPA3", "PPA4:active") else tuple(c.label for c in rules.CORNERS)
        assert tuple(label for label, _ in verdict.corners) == labels
    # the defaults are the notebook's own frames
    assert rules.ppa4(model[2])["PPA4:order"].reason in verdicts["PPA4:order"].reason


def test_a_ppa_latency_rule_flipping_at_a_range_end_depends(model):
    # activation 5 s: tentative outputs wait for it, the speed-up falls far below 5x
    slow = Assumption("activation", 0.2, (5.0,), source="a test range")
    verdict = _rejudged(model, assumptions=(slow,), corners=())["PPA5"]
    assert verdict.verdict == DEPENDS
    assert "activation: reproduced at 0.2, not reproduced at 5.0" in verdict.reason
    unchanged = Assumption("activation", 0.2, (0.1,), source="a test range")
    assert _rejudged(model, assumptions=(unchanged,), fig10_assumptions=(), corners=())[
        "PPA5"
    ].verdict == (REPRODUCED)


def test_ppa5_rejudged_across_fig10_s_sync_period_and_interval(model):
    verdict = _rejudged(model)["PPA5"]
    names = {name for name, _, _ in verdict.robustness}
    assert {"checkpoint_interval", "sync_period"} <= names
    # a Fig 10 setting whose default is not the notebook's is refused
    wrong = Assumption("sync_period", 5.0, (10.0,), source="a test range")
    with pytest.raises(ValueError, match="sync_period"):
        _rejudged(model, fig10_assumptions=(wrong,))


def test_rejudged_rejects_an_assumption_whose_default_is_not_the_model_s(model):
    other = Assumption("restart", 3.0, (1.0,), source="a test range")
    with pytest.raises(ValueError, match="assumption 'restart' has default 3.0"):
        _rejudged(model, assumptions=(other,), corners=())


def test_ppa4_order_fails_on_the_passive_fast_replicas_slow_corner(model):
    # Each constant alone keeps the order; moved together they put PPA-1.0 behind PPA-0.
    verdicts = _rejudged(model, fig10_assumptions=())
    verdict = verdicts["PPA4:order"]
    assert dict(verdict.corners)["passive fast / replicas slow"] == NOT_REPRODUCED
    assert verdict.verdict == DEPENDS
    assert "the joint corner 'passive fast / replicas slow'" in verdict.reason
