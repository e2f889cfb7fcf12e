"""Rules of the Khaos claims KH1-KH4 (data/paper/claims.csv), one function per claim.

Inputs are the notebooks' tables: Tables II-III-like frames (configuration, avg_latency_ms,
latency_violations_fraction, recovery_time_s, recovery_violations_s; "Khaos" and "static <n>s"
rows), per-failure recoveries paired by failure index (the same throughput level in every run),
hourly latency means paired by hour, and the Khaos run's inferred CI schedule.

Choices the paper leaves open are declared as ``Assumption``s beside the rule that rests on them
(``KH2_ASSUMPTIONS``, ``KH3_ASSUMPTIONS``, ``KH4_IOT_ASSUMPTIONS``); the notebooks judge those rules
through ``pipeline.scorecard.robust``, so that a verdict flipping within a range reads ``depends``.
"""

import dataclasses
import re
from collections.abc import Sequence

import pandas as pd
from scipy import stats

from pipeline.scorecard import (
    BY_CONSTRUCTION,
    MEASURED,
    MODELLED,
    NOT_CHECKABLE,
    Assumption,
    Verdict,
    judge,
    robust,
    trend,
    trend_conditions,
)

# KH1 "about 7-13%": the printed errors are 0.099/0.131 (IoT) and 0.122/0.0728 (YSB); the log's own
# error recomputed counts as its printed value within +-0.005 (print precision and rounding).
ERROR_ATOL = 0.005
# KH1 for our own models (latency and recovery model on the simulator): "within about 7-13%" read
# as an average error of at most 0.15 (13% and "about").
ERROR_BAND = 0.15
# KH3: "a few" reconfigurations: the printed count +-1; the CI falls with throughput: Spearman rho
# < 0 with one-sided p < 0.05.
RECONFIGURATION_SLACK, ALPHA = 1, 0.05
# KH3's validity check: the CI inference applied to the static runs (CI constant) must not pass
# KH3's own headline test there, nor its mirror (rho > 0 at the same one-sided level), on any run
# with at least this many inferred failures (below it Spearman's p is not meaningful).
MIN_STATIC_FAILURES = 5

KH2_ASSUMPTIONS = (
    Assumption(
        "high_frequency",
        2,
        (1, 3),
        "paper IV-D compares Khaos with 'the high frequency CI configurations' without naming "
        "them; ours: the two smallest static CIs (10 s, 30 s: 'configurations', plural, and "
        "'smaller CI values, which is also what Khaos often defaults to'); range: the 10 s CI "
        "alone to the three smallest (10-60 s)",
        "high-frequency static CIs (the n smallest)",
    ),
    Assumption(
        "against",
        "group",
        ("each",),
        "paper IV-D: 'better average latencies overall than the high frequency CI "
        "configurations': ours, against the configurations as a group (their mean); the other "
        "reading, against each of them",
        "comparison with the high-frequency CIs",
    ),
    Assumption(
        "commensurate",
        0.25,
        (0.10, 0.50),
        "paper IV-D: latency violations 'commensurate with these configurations': ours, at most "
        "25% above them; range 10%-50%",
        "'commensurate': Khaos's latency-violation share at most (1 + x) times theirs",
    ),
)
# KH2:ysb's recovery columns come from our detector (khaos.detector), whose settings the paper
# and the artifact leave open or set for another error history: re-judged at the ends of these.
KH2_YSB_DETECTOR = (
    Assumption(
        "smoothing_s",
        20,
        (10, 30),
        "paper silent; chosen on IoT among 10/20/30/45/60 s: 10 s ties 20 s on IoT MAPE (0.079 "
        "each, tests/khaos/test_detector.py), 30 s next (0.125), 45 s and up far worse",
        "detector smoothing window (s)",
    ),
    Assumption(
        "threshold_factor",
        5.0,
        (3.0, 7.0),
        "artifact: 5 x the SD of the whole history of prediction errors; ours 5 x the training "
        "residuals' SD, a different error history: 3 to 7",
        "detector threshold (x residual SD)",
    ),
    Assumption(
        "normal_run",
        10,
        (5, 20),
        "artifact: recovery ends after more than 10 normal points of its scrape series; ours are "
        "1 s points of a smoothed series: half to twice that",
        "detector normal points ending a recovery",
    ),
    Assumption(
        "var_order",
        1,
        (2,),
        "paper silent (IFTM breeds its model by AutoML); VAR(1) chosen on IoT",
        "detector VAR order",
    ),
    Assumption(
        "guard_s",
        30,
        (10, 60),
        "paper silent; the lag climbs up to ~30 s before the collapse in some IoT runs: 10-60 s",
        "detector guard before the failure (s)",
    ),
)
# KH2:simulated rests on the simulator's constants. The calibration (khaos.simulate.calibrate)
# fits the others on the IoT runs; the checkpoint's duration is the one it cannot fit (the paper
# gives none; it fits only the checkpoint's latency bump times that duration), so it is re-judged
# at the ends of its range with the fitted product kept (``sim_at``).
SIM_ASSUMPTIONS = (
    Assumption(
        "checkpoint_s",
        5,
        (2, 10),
        "khaos.simulate.SimParams: ours, the paper gives no checkpoint duration; a Flink "
        "checkpoint of a small keyed state takes seconds: 2-10 s (the calibrated latency bump "
        "times this duration is held at its fitted value)",
        "simulated checkpoint duration (s)",
        constant=True,
    ),
)


def sim_at(sim, **constants):
    """The calibrated simulator ``sim`` with ``SIM_ASSUMPTIONS``' constants changed: a new
    checkpoint duration keeps the fitted checkpoint_ms · checkpoint_s (what the calibration
    determines)."""
    unknown = set(constants) - {a.name for a in SIM_ASSUMPTIONS}
    if unknown:
        raise ValueError(f"constants must be among SIM_ASSUMPTIONS; got {sorted(unknown)}")
    if "checkpoint_s" in constants:
        seconds = int(constants["checkpoint_s"])
        constants = {
            **constants,
            "checkpoint_s": seconds,
            "checkpoint_ms": sim.checkpoint_ms * sim.checkpoint_s / seconds,
        }
    return dataclasses.replace(sim, **constants)


def kh2_simulated(table_for, what: str = "simulated day") -> Verdict:
    """KH2 on the simulated day (``modelled``): ``kh2`` re-judged at the ends of
    ``KH2_ASSUMPTIONS`` (the readings) and of ``SIM_ASSUMPTIONS`` (the simulator's unfitted
    constants), one at a time. ``table_for(**constants)`` returns the replayed day's Tables
    II-III frame with those constants (the calibrated simulator when none are given)."""
    return _kh2_across(table_for, what, MODELLED, SIM_ASSUMPTIONS, at_defaults_none=True)


def _kh2_across(
    table_for, what: str, evidence: str, making: Sequence[Assumption], at_defaults_none=False
) -> Verdict:
    """``kh2`` through ``robust`` over ``KH2_ASSUMPTIONS`` (its readings, the same table) and
    ``making`` (the choices ``table_for`` builds a table with, each distinct table once; with
    ``at_defaults_none`` a choice at its default is not passed to ``table_for``)."""
    defaults = {a.name: a.default for a in making}
    tables = {}

    def judged(**choices):
        mine = {
            k: v
            for k, v in choices.items()
            if k in defaults and not (at_defaults_none and v == defaults[k])
        }
        key = tuple(sorted(mine.items()))
        if key not in tables:
            tables[key] = table_for(**mine)
        readings = {k: v for k, v in choices.items() if k not in defaults}
        return kh2(tables[key], what, evidence=evidence, **readings)

    return robust(judged, [*KH2_ASSUMPTIONS, *making])


# KH3 rests on two open choices, judged together (all four combinations: neither flips the
# verdict alone on the published runs, both together do).
KH3_ASSUMPTIONS = (
    Assumption(
        "reading",
        ("all", "ci"),
        (("injected", "ci"), ("all", "ci_and_throughput"), ("injected", "ci_and_throughput")),
        "paper silent on both (the CI in force is not published). Failures counted: every failure "
        "of the Khaos run that starts a catch-up (ours: 'all'), or only those seen in at least 3 "
        "runs, the injected ones ('injected'; the Khaos run also has outages that were not "
        "injected, e.g. IoT second 72264). Lag-jump model: k on the CI alone (ours: 'ci') or on "
        "the CI and the throughput ('ci_and_throughput': k rises with throughput at a fixed CI in "
        "the static runs)",
        "(failures counted, lag-jump model)",
    ),
)
KH4_IOT_ASSUMPTIONS = (
    Assumption(
        "smallest_ci",
        10,
        (30,),
        "paper IV-D: 'An exception to this is the 10s CI illustrated in Figure 3(a), which "
        "performs poorly due to a failure injection during catch-up from a previous failure': "
        "the line starts at 10 s (ours) or at 30 s, leaving the exception out",
        "smallest static CI of the IoT line (s)",
    ),
)


def _ci_of(configuration: str) -> int:
    match = re.fullmatch(r"static (\d+)s", configuration)
    if match is None:
        raise ValueError(f"not a static configuration: {configuration!r}")
    return int(match.group(1))


def kh1_log(iot_recovery_error: float, printed: dict) -> Verdict:
    """KH1 on the published log: the IoT recovery-model error recomputed from iot/failures.txt's
    own (predicted ``(actual: N)``, measured recTime) pairs equals Table II(a)'s within ERROR_ATOL.
    Both numbers come from the prototype's own run: this can fail only if the parsing breaks, so
    it reads ``by construction`` (evidence: measured)."""
    paper = printed["iot_recovery"]
    return judge(
        {
            f"IoT recovery-model error {iot_recovery_error:.4f} recomputed from the log against "
            f"printed {paper:g} (|diff| <= {ERROR_ATOL:g})": abs(iot_recovery_error - paper)
            <= ERROR_ATOL
        },
        paper_value=f"IoT recovery {paper:g}",
        reproduced=f"{iot_recovery_error:.4f} (the log's own predictions and measurements)",
        rule=f"|recomputed - printed| <= {ERROR_ATOL:g}; the log's predictions are the "
        "prototype's: a consistency check of the parsing",
        when_holds=BY_CONSTRUCTION,
        evidence=MEASURED,
    )


def kh1_models(latency_error: float, recovery_error: float, printed: dict) -> Verdict:
    """KH1 for this package's own models: phase 3's regressions fitted on the calibrated
    simulator's profiling and evaluated over its replayed day, so the evidence is ``modelled``.
    The claim names the latency and the recovery model alike, so both are the headline: the
    latency model's mean error over the optimisation rounds (with the correction factor of the
    rounds before) and the recovery model's mean error at the Khaos run's failures, each at most
    ERROR_BAND. The YSB errors and the IoT latency error of the prototype are named, not judged
    (its latency predictions are not published). A pass is ``reproduced`` only through
    ``pipeline.scorecard.robust`` over the simulator's constants (``Report.record`` refuses it
    otherwise); none is declared yet, the errors failing as they stand."""
    verdict = judge(
        {
            f"our latency model's error over the replay's rounds {latency_error:.3f} "
            f"<= {ERROR_BAND:g}": latency_error <= ERROR_BAND,
            f"our recovery model's error at the replay's failures {recovery_error:.3f} "
            f"<= {ERROR_BAND:g}": recovery_error <= ERROR_BAND,
        },
        paper_value=f"IoT latency {printed['iot_latency']:g}, recovery "
        f"{printed['iot_recovery']:g}; YSB latency {printed['ysb_latency']:g}, recovery "
        f"{printed['ysb_recovery']:g}",
        reproduced=f"simulator: latency {latency_error:.3f}, recovery {recovery_error:.3f}",
        rule=f"our latency error <= {ERROR_BAND:g} and our recovery error <= {ERROR_BAND:g} "
        "(both headline: the claim names both models)",
        evidence=MODELLED,
    )
    return Verdict(
        verdict.verdict,
        verdict.paper_value,
        verdict.reproduced,
        verdict.rule,
        verdict.reason + "; not judged: the prototype's YSB errors and IoT latency error (its "
        "latency predictions and YSB recovery predictions are not published)",
        verdict.evidence,
    )


def kh2(
    table: pd.DataFrame,
    what: str,
    *,
    evidence: str,
    high_frequency: int = 2,
    against: str = "group",
    commensurate: float = 0.25,
) -> Verdict:
    """KH2 on one Tables II-III-like frame, against the paper's comparator.

    The words used (Section IV-D): "Khaos produces better average latencies overall than the high
    frequency CI configurations. Likewise the percentage of latency violations were commensurate
    with these configurations. At the same time, Khaos produced fewer recovery time violations";
    "individual static configurations might marginally outperform Khaos"; and the conclusion's
    "outperforming most static configurations".
    Read as follows, fixed from these words before the reproduced tables were judged with them
    (the printed tables and the issue's YSB numbers, static 10 s 8 s against Khaos's 30 s of
    violations, were known; the reproduced IoT and simulated tables were not):
    - the high-frequency CIs are the ``high_frequency`` smallest static CIs; "than the
      configurations" is judged ``against`` their mean ("group") or every one of them ("each");
    - headline ("fewer recovery time violations"): Khaos's recovery violations < theirs; and
      ("outperforming most static configurations", the claim's "every static CI except at most
      one"): at most one static CI with violations <= Khaos's;
    - detail ("better average latencies"): Khaos's average latency < theirs; ("commensurate"):
      Khaos's latency-violation share <= (1 + ``commensurate``) times theirs.
    The open readings are ``KH2_ASSUMPTIONS``."""
    if against not in ("group", "each"):
        raise ValueError(f"against must be 'group' or 'each'; got {against!r}")
    if not commensurate >= 0:
        raise ValueError(f"commensurate must be >= 0; got {commensurate!r}")
    rows = table.set_index("configuration")
    if "Khaos" not in rows.index:
        raise ValueError("table has no Khaos row")
    static = rows.drop(index="Khaos")
    if len(static) < 3:
        raise ValueError("table needs at least three static rows")
    if not 1 <= high_frequency < len(static):
        raise ValueError(
            f"high_frequency must lie in [1, {len(static) - 1}] (static rows); got {high_frequency}"
        )
    khaos = rows.loc["Khaos"]
    ordered = sorted(static.index, key=_ci_of)
    high = static.loc[ordered[:high_frequency]]
    names = ", ".join(ordered[:high_frequency])
    # The comparator value each condition must beat: their mean, or the most demanding of them.
    pick = (lambda col: float(high[col].mean())) if against == "group" else None

    def bar(col: str) -> float:
        return pick(col) if pick else float(high[col].min())

    label = f"{'mean of' if against == 'group' else 'each of'} {names}"
    not_beaten = static.index[static["recovery_violations_s"] <= khaos["recovery_violations_s"]]
    rec, lat, vio = (
        float(khaos["recovery_violations_s"]),
        float(khaos["avg_latency_ms"]),
        float(khaos["latency_violations_fraction"]),
    )
    head = {
        f"Khaos's recovery violations {rec:.0f} s < {label} ({bar('recovery_violations_s'):.0f} "
        f"s)": rec < bar("recovery_violations_s"),
        f"static CIs with recovery violations <= Khaos's: {len(not_beaten)} "
        f"({', '.join(not_beaten) or 'none'}) (at most 1)": len(not_beaten) <= 1,
    }
    detail = {
        f"Khaos's average latency {lat:.0f} ms < {label} ({bar('avg_latency_ms'):.0f} ms)": lat
        < bar("avg_latency_ms"),
        f"Khaos's latency violations {vio:.3f} <= {label} "
        f"({bar('latency_violations_fraction'):.3f}) x {1 + commensurate:g}": vio
        <= bar("latency_violations_fraction") * (1 + commensurate),
    }
    return judge(
        head,
        detail,
        paper_value="better average latency than the high-frequency CIs, latency violations "
        "commensurate with them, fewer recovery violations; outperforms most static CIs",
        reproduced=f"{what}: Khaos {rec:.0f} s violations, {lat:.0f} ms, {vio:.3f}",
        rule=f"against the {high_frequency} smallest static CIs ({against}): recovery violations "
        f"and latency below theirs, violation share <= theirs x {1 + commensurate:g}; at most 1 "
        "static CI with violations <= Khaos's",
        evidence=evidence,
    )


def kh2_ysb(table_for, what: str, *, evidence: str) -> Verdict:
    """KH2 on YSB, whose recovery columns come from our detector: ``kh2`` re-judged at the ends
    of ``KH2_ASSUMPTIONS`` and of ``KH2_YSB_DETECTOR``, one at a time. ``table_for(**detector)``
    returns the Table III-like frame measured with those detector settings (the defaults when
    none are given)."""
    return _kh2_across(table_for, what, evidence, KH2_YSB_DETECTOR)


def kh3(
    schedule: pd.DataFrame,
    reconfigurations: int,
    printed: int,
    what: str,
    *,
    evidence: str,
    static: pd.DataFrame | None = None,
) -> Verdict:
    """KH3: Khaos lowers the CI as throughput rises (headline: Spearman rho between the
    throughput before each failure and the CI estimated in force < 0, one-sided p < ALPHA) and
    reconfigures only a few times (detail: the count found within RECONFIGURATION_SLACK of the
    printed one). ``schedule`` has columns throughput and ci_estimate_s; which failures it holds
    and how the CI was estimated are ``KH3_ASSUMPTIONS`` (the notebook builds one schedule per
    reading).

    Validity (``static``, ``khaos.tables.static_inference`` with the same lag-jump model): the
    inference applied to the static runs, whose CI never changes, must read no trend there. A
    static run with >= MIN_STATIC_FAILURES failures whose rho is significant either way at the
    headline's one-sided level (p_two / 2 < ALPHA) shows that the inference alone can produce
    (or mask) the claimed trend: the verdict is then ``not checkable``, with the reconfiguration
    count still reported."""
    if len(schedule) < 3:
        raise ValueError("schedule needs at least three failures")
    rho, p_two = stats.spearmanr(schedule["throughput"], schedule["ci_estimate_s"])
    p_one = p_two / 2 if rho < 0 else 1 - p_two / 2
    count = (
        f"{reconfigurations} reconfigurations found against printed {printed} "
        f"(+-{RECONFIGURATION_SLACK})"
    )
    rule = (
        f"Spearman rho < 0, one-sided p < {ALPHA:g}; reconfigurations = printed "
        f"+-{RECONFIGURATION_SLACK}; valid only if no static run (>= {MIN_STATIC_FAILURES} "
        f"failures) has rho significant either way at one-sided {ALPHA:g}"
    )
    reproduced = f"{what}: rho {rho:.2f} (p {p_one:.3f}); {reconfigurations} reconfigurations"
    slack = "within" if abs(reconfigurations - printed) <= RECONFIGURATION_SLACK else "outside"
    if static is not None:
        judged = static[static["failures"] >= MIN_STATIC_FAILURES]
        biased = judged[judged["p"] / 2 < ALPHA]
        if not biased.empty:
            shown = "; ".join(
                f"{r.configuration} rho {r.rho:+.2f} (one-sided p {r.p / 2:.3f}, "
                f"{r.failures} failures)"
                for r in biased.itertuples()
            )
            return Verdict(
                NOT_CHECKABLE,
                f"CI lowered as throughput rises; {printed} reconfigurations",
                reproduced,
                rule,
                f"the CI inference reads a trend in static runs whose CI never changed: {shown}; "
                f"the Khaos run's rho {rho:.2f} cannot be told from the inference's own bias. "
                f"Reported, not judged: {count} ({slack} the slack)",
                evidence,
            )
    head = {
        f"Spearman rho(throughput, CI) {rho:.2f} < 0 with one-sided p {p_one:.3f} < {ALPHA:g} "
        f"over {len(schedule)} failures": bool(rho < 0 and p_one < ALPHA)
    }
    detail = {count: abs(reconfigurations - printed) <= RECONFIGURATION_SLACK}
    return judge(
        head,
        detail,
        paper_value=f"CI lowered as throughput rises; {printed} reconfigurations",
        reproduced=reproduced,
        rule=rule,
        evidence=evidence,
    )


def rank_trend(frame: pd.DataFrame, y: str, pair: str, direction: int) -> tuple[float, float, int]:
    """KH4's statistic, a trend over all the CIs: per pair (failure or hour), Spearman's rho
    between the CI and ``y`` over the CIs it has (at least 3, ``y`` not constant); returns the
    mean rho, the one-sided Wilcoxon signed-rank p that the rhos lie on the ``direction`` side of
    0, and the number of pairs."""
    rhos = []
    for _, part in frame.dropna(subset=[y]).groupby(pair):
        if part["ci"].nunique() >= 3 and part[y].nunique() > 1:
            rhos.append(stats.spearmanr(part["ci"], part[y])[0])
    if len(rhos) < 2:
        raise ValueError(f"a rank trend of {y!r} needs two or more {pair}s with 3+ CIs")
    alternative = "greater" if direction > 0 else "less"
    p = float(stats.wilcoxon(rhos, alternative=alternative).pvalue)
    return float(sum(rhos) / len(rhos)), p, len(rhos)


def kh4(
    per_failure: pd.DataFrame,
    hourly_latency: pd.DataFrame,
    what: str,
    *,
    evidence: str,
    smallest_ci: int | None = None,
) -> Verdict:
    """KH4: smaller static CIs give higher latency and shorter recovery, a trend over the CIs
    (the claim's words), so judged over all of them, not their ends. Headline: recovery rises
    with the CI and latency falls with it by ``rank_trend`` (mean within-pair Spearman rho on the
    claimed side, one-sided Wilcoxon p < ALPHA; recovery paired by failure index, latency by
    hour); detail: no step between neighbouring CIs significantly reversed (paired 95% CI). The
    change from the smallest to the largest CI is reported. ``per_failure``: configuration,
    failure_index, recovery_time_s; ``hourly_latency``: configuration, hour, latency_ms (static
    rows only are used, from ``smallest_ci`` s up when given: ``KH4_IOT_ASSUMPTIONS``)."""
    recovery = per_failure[per_failure["configuration"].str.startswith("static")]
    latency = hourly_latency[hourly_latency["configuration"].str.startswith("static")]
    recovery = recovery.assign(ci=recovery["configuration"].map(_ci_of))
    latency = latency.assign(ci=latency["configuration"].map(_ci_of))
    if smallest_ci is not None:
        recovery = recovery[recovery["ci"] >= smallest_ci]
        latency = latency[latency["ci"] >= smallest_ci]
    head, detail, shown = {}, {}, []
    for name, frame, y, pair, unit, direction, word in (
        ("recovery", recovery, "recovery_time_s", "failure_index", "failure", +1, "rises"),
        ("hourly latency", latency, "latency_ms", "hour", "hour", -1, "falls"),
    ):
        rho, p, n = rank_trend(frame, y, pair, direction)
        side = ">" if direction > 0 else "<"
        head[
            f"{name} {word} over CI: mean within-{unit} Spearman rho {rho:+.2f} {side} 0, "
            f"one-sided Wilcoxon p {p:.3f} < {ALPHA:g} ({n} {unit}s)"
        ] = bool((rho > 0 if direction > 0 else rho < 0) and p < ALPHA)
        t = trend(frame, "ci", y, direction, pair=pair)
        detail.update(trend_conditions(f"{name} over CI", t, claimed=word)[1])
        shown.append(f"{name} {t.text()}; rank rho {rho:+.2f} (p {p:.3f})")
    return judge(
        head,
        detail,
        paper_value="smaller CIs: higher latency, shorter recovery",
        reproduced=f"{what}: " + "; ".join(shown),
        rule="over all static CIs: mean within-pair Spearman rho(CI, y) on the claimed side with "
        f"one-sided Wilcoxon signed-rank p < {ALPHA:g} (recovery paired by failure, latency by "
        "hour); detail: no step between neighbouring CIs with its paired 95% CI entirely on the "
        "wrong side",
        evidence=evidence,
    )


def kh4_ysb(per_failure_for, hourly_latency: pd.DataFrame, what: str, *, evidence: str) -> Verdict:
    """KH4 on YSB, whose recoveries come from our detector: ``kh4`` re-judged at the ends of
    ``KH2_YSB_DETECTOR``, one at a time, as KH2:ysb is. ``per_failure_for(**detector)`` returns
    the per-failure recoveries measured with those detector settings (the defaults when none are
    given)."""
    defaults = {a.name: a.default for a in KH2_YSB_DETECTOR}

    def judged(**detector):
        changed = {k: v for k, v in detector.items() if v != defaults[k]}
        return kh4(per_failure_for(**changed), hourly_latency, what, evidence=evidence)

    return robust(judged, KH2_YSB_DETECTOR)


def not_checkable(claim_part: str, why: str, evidence: str = MEASURED) -> Verdict:
    """A part of a claim the published material cannot decide."""
    return Verdict(NOT_CHECKABLE, claim_part, "n/a", "none: not decidable", why, evidence)
