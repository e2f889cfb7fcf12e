"""Scorecard verdicts: one vocabulary, rules stated in numbers, uncertainty from the data.

A claim's rule is a function beside its data (``pipeline.verdicts.<paper>``) that returns a
``Verdict``: the verdict, the printed and the reproduced value, the rule in numbers (the
scorecard's ``tolerance`` column) and a reason written from the data. Rules are built from
``judge``: the claim's *headline* conditions decide between ``not reproduced`` and the rest; its
*detail* conditions (the quantitative parts) between ``reproduced`` and ``partly``. No verdict is
lifted by "some condition held".

Every verdict says what kind of evidence it rests on (``EVIDENCE``): ``measured`` (the papers'
published measurements, reanalysed), ``executed`` (this package's implementation of the algorithm,
engine or Spark job, run) or ``modelled`` (a model or simulator whose outcome rests on assumed
constants). A rule that rests on a choice the paper leaves open (a constant, a generator, a
threshold for a vague word, a reconstructed figure, which failures count) declares it as an
``Assumption`` and is judged through ``robust``: once at the defaults and again at each end of each
plausible range, one choice at a time. A verdict that changes there becomes ``depends``; a
``modelled`` row reads ``reproduced`` only when every declared range was re-judged.

Trend and comparison claims are judged on paired data (common random numbers: the same random
topologies or failure draws at every value of a line, paired by their index) with 95% confidence
intervals of the paired differences, never on means with a fixed slack.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

REPRODUCED = "reproduced"
PARTLY = "partly"
NOT_REPRODUCED = "not reproduced"
CALIBRATED = "calibrated"
BY_CONSTRUCTION = "by construction"
INPUT = "input"
NOT_CHECKABLE = "not checkable"
DEPENDS = "depends"
VERDICTS = (
    REPRODUCED,
    PARTLY,
    NOT_REPRODUCED,
    CALIBRATED,
    BY_CONSTRUCTION,
    INPUT,
    NOT_CHECKABLE,
    DEPENDS,
)
MEASURED = "measured"
EXECUTED = "executed"
MODELLED = "modelled"
EVIDENCE = (MEASURED, EXECUTED, MODELLED)
EVIDENCE_LEGEND = {
    MEASURED: "the papers' published measurements, reanalysed",
    EXECUTED: "this package's implementation of the algorithm, engine or Spark job, run",
    MODELLED: "a model or simulator whose outcome rests on assumed constants",
}
# The legend of the report's index: what each verdict means.
LEGEND = {
    REPRODUCED: "every quantitative part of the claim lies within its stated tolerance, "
    "uncertainty included",
    PARTLY: "the qualitative part holds and a quantitative part does not; the reason names "
    "which, with numbers",
    NOT_REPRODUCED: "the headline part of the claim fails on our data",
    CALIBRATED: "it holds because a free parameter was set to make it hold: a consistency "
    "check, not evidence",
    BY_CONSTRUCTION: "it cannot fail given the method; checked on the data all the same",
    INPUT: "a measurement the reproduction takes as an input",
    NOT_CHECKABLE: "the published material cannot decide it; the reason says why",
    DEPENDS: "the verdict changes within the plausible range of a choice the paper leaves open; "
    "the reason names the choice and both outcomes",
}
COLUMNS = [
    "paper",
    "notebook",
    "claim",
    "paper_value",
    "reproduced_value",
    "tolerance",
    "evidence",
    "verdict",
    "reason",
]
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Verdict:
    """One scorecard row's content: ``rule`` is the tolerance column, the rule in numbers;
    ``evidence`` one of ``EVIDENCE``; ``robustness`` the verdicts at the ends of each declared
    assumption's range, ``((name, value, verdict), ...)``, and ``corners`` those at the declared
    joint corners, ``((label, verdict), ...)``, and ``constants`` the names of the re-judged
    assumptions that are a model's constants, all filled by ``robust``."""

    verdict: str
    paper_value: str
    reproduced: str
    rule: str
    reason: str
    evidence: str | None = None
    robustness: tuple = ()
    corners: tuple = ()
    constants: tuple = ()

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}; got {self.verdict!r}")
        if self.evidence is not None and self.evidence not in EVIDENCE:
            raise ValueError(f"evidence must be one of {EVIDENCE}; got {self.evidence!r}")
        for name in ("paper_value", "reproduced", "rule", "reason"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name).strip():
                raise ValueError(f"{name} must be a non-empty text; got {getattr(self, name)!r}")


def judge(
    headline: Mapping[str, bool],
    details: Mapping[str, bool] | None = None,
    *,
    paper_value: str,
    reproduced: str,
    rule: str,
    when_holds: str = REPRODUCED,
    evidence: str | None = None,
) -> Verdict:
    """Verdict of a claim from its named conditions (each name states the condition with the
    numbers measured on the data).

    Any headline condition failing gives ``not reproduced``; all headline conditions holding
    give ``when_holds`` (``reproduced``, or ``calibrated`` / ``by construction`` for a claim
    that could not have failed) unless a detail condition fails, which gives ``partly``.
    """
    if not headline:
        raise ValueError("headline must name at least one condition")
    if when_holds not in (REPRODUCED, CALIBRATED, BY_CONSTRUCTION):
        raise ValueError(
            f"when_holds must be reproduced, calibrated or by construction; got {when_holds!r}"
        )
    details = dict(details or {})
    failed_head = [k for k, v in headline.items() if not bool(v)]
    failed_detail = [k for k, v in details.items() if not bool(v)]
    held = [k for k, v in {**headline, **details}.items() if bool(v)]
    if failed_head:
        verdict = NOT_REPRODUCED
    elif failed_detail:
        verdict = PARTLY
    else:
        verdict = when_holds
    reason = (
        "fails: " + "; ".join(failed_head + failed_detail) if failed_head or failed_detail else ""
    )
    if held:
        reason += ("; holds: " if reason else "holds: ") + "; ".join(held)
    return Verdict(verdict, paper_value, reproduced, rule, reason, evidence)


@dataclass(frozen=True)
class Assumption:
    """An open choice a rule rests on, which the paper leaves unspecified: a constant, a
    generator, a threshold for a vague word, a reconstruction of a lost figure, which failures
    count.

    ``name`` is the keyword the rule takes it by; ``default`` the package's choice;
    ``alternatives`` the ends of its plausible range (or the other defensible choices, for a
    categorical one); ``source`` where the default and the range come from; ``constant`` marks
    an assumed constant of a model or simulator (a ``modelled`` row reads ``reproduced`` only
    when at least one of its model's constants was re-judged, not only readings of the claim).
    """

    name: str
    default: object
    alternatives: tuple
    source: str
    label: str = ""
    constant: bool = False

    def __post_init__(self):
        if not self.name.isidentifier():
            raise ValueError(f"name must be a Python identifier; got {self.name!r}")
        if not self.source.strip():
            raise ValueError(
                f"source of assumption {self.name!r} must say where its range comes from"
            )
        others = tuple(v for v in self.alternatives if v != self.default)
        if not others:
            raise ValueError(
                f"alternatives of assumption {self.name!r} must hold a value other than the "
                f"default {self.default!r}; got {self.alternatives!r}"
            )

    @property
    def title(self) -> str:
        return self.label or self.name


@dataclass(frozen=True)
class Corner:
    """A declared joint corner of several assumptions' ranges: the choices that push a claim
    one way, moved together (``robust`` varies one assumption at a time otherwise, and misses a
    flip that only their combination brings). ``choices`` maps assumption names to ends of
    their declared ranges (at least two assumptions); ``source`` says why
    these push the same way."""

    label: str
    choices: Mapping
    source: str

    def __post_init__(self):
        if not self.label.strip():
            raise ValueError("label of a corner must be a non-empty text")
        if not self.source.strip():
            raise ValueError(
                f"source of corner {self.label!r} must say why its choices go together"
            )
        if len(self.choices) < 2:
            raise ValueError(
                f"corner {self.label!r} must move at least two assumptions; "
                f"got {dict(self.choices)}"
            )


def _what_changed(reason: str, limit: int = 300) -> str:
    """The failing conditions of a re-judged verdict (what made it differ), cut to ``limit``."""
    failing = reason.split("; holds: ", 1)[0]
    return failing if len(failing) <= limit else failing[: limit - 1] + "…"


def robust(rule, assumptions: Sequence[Assumption], corners: Sequence[Corner] = ()) -> Verdict:
    """Judge ``rule(**choices)`` at every assumption's default, then again with each assumption
    at each of its alternatives, one at a time (the others at their defaults), then at each
    declared joint ``corner`` (its choices together, the others at their defaults).

    A verdict that differs at any alternative or corner gives ``depends``: the reason names the
    choice (or the corner) and both outcomes, then the default's reason. Otherwise the default's
    verdict stands and the reason lists the verdict at each alternative and corner. The rule
    must give every outcome the same evidence kind.
    """
    assumptions = list(assumptions)
    if not assumptions:
        raise ValueError("robust needs at least one assumption; judge the rule directly otherwise")
    names = [a.name for a in assumptions]
    if len(set(names)) != len(names):
        raise ValueError(f"assumption names must be unique; got {names}")
    defaults = {a.name: a.default for a in assumptions}
    by_name = {a.name: a for a in assumptions}
    for c in corners:
        for name, value in c.choices.items():
            if name not in by_name:
                raise ValueError(f"corner {c.label!r} names {name!r}, not an assumption {names}")
            if value != by_name[name].default and value not in by_name[name].alternatives:
                raise ValueError(
                    f"corner {c.label!r} sets {name!r} to {value!r}, not an end of its declared "
                    f"range {by_name[name].alternatives!r}"
                )
    base = rule(**defaults)
    outcomes = []  # (assumption, value, verdict)
    for a in assumptions:
        for value in a.alternatives:
            if value != a.default:
                outcomes.append((a, value, rule(**{**defaults, a.name: value})))
    at_corners = [(c, rule(**{**defaults, **c.choices})) for c in corners]
    kinds = {
        base.evidence,
        *(v.evidence for _, _, v in outcomes),
        *(v.evidence for _, v in at_corners),
    }
    if len(kinds) > 1:
        raise ValueError(
            f"a rule must give one evidence kind at every choice; got {sorted(map(str, kinds))}"
        )
    flips = [(a, value, v) for a, value, v in outcomes if v.verdict != base.verdict]
    steady = [(a, value, v) for a, value, v in outcomes if v.verdict == base.verdict]
    corner_flips = [(c, v) for c, v in at_corners if v.verdict != base.verdict]
    corner_steady = [c for c, v in at_corners if v.verdict == base.verdict]
    if flips or corner_flips:
        head = "depends on " + "; ".join(
            [
                f"{a.title}: {base.verdict} at {a.default!r}, {v.verdict} at {value!r} "
                f"({_what_changed(v.reason)})"
                for a, value, v in flips
            ]
            + [
                f"the joint corner '{c.label}' ({_corner_text(c, by_name)}): {base.verdict} at "
                f"the defaults, {v.verdict} there ({_what_changed(v.reason)})"
                for c, v in corner_flips
            ]
        )
        tail = [f"at the defaults: {base.reason}"]
        if steady or corner_steady:
            tail.append(
                "unchanged: "
                + ", ".join(
                    [f"{a.title} = {value!r}" for a, value, _ in steady]
                    + [f"the joint corner '{c.label}'" for c in corner_steady]
                )
            )
        verdict, reason = DEPENDS, "; ".join([head, *tail])
    else:
        verdict = base.verdict
        reason = (
            f"{base.reason}; the same verdict at every end of every assumption's range: "
            + ", ".join(
                f"{a.title} = {value!r} (default {a.default!r})" for a, value, _ in outcomes
            )
        )
        if at_corners:
            reason += "; and at the joint corners " + ", ".join(
                f"'{c.label}' ({_corner_text(c, by_name)})" for c, _ in at_corners
            )
    return Verdict(
        verdict,
        base.paper_value,
        base.reproduced,
        base.rule,
        reason,
        base.evidence,
        tuple((a.name, value, v.verdict) for a, value, v in outcomes),
        tuple((c.label, v.verdict) for c, v in at_corners),
        tuple(a.name for a in assumptions if a.constant),
    )


def _corner_text(corner: Corner, by_name: Mapping[str, Assumption]) -> str:
    return ", ".join(f"{by_name[k].title} = {v!r}" for k, v in corner.choices.items())


def mean_ci(values, confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """Mean and its t confidence interval; NaNs dropped; (nan, nan, nan) with fewer than two."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if len(x) < 2:
        return (float(x.mean()) if len(x) else math.nan, math.nan, math.nan)
    mean = float(x.mean())
    half = float(stats.t.ppf(0.5 + confidence / 2, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))
    return mean, mean - half, mean + half


def share_ci(flags, confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """A share in percent and its Wilson confidence interval (statsmodels), which stays in
    [0, 100] where a t interval on 0/1 data would not; NaNs dropped."""
    x = np.asarray(flags, dtype=float)
    x = x[np.isfinite(x)]
    if len(x) == 0:
        return math.nan, math.nan, math.nan
    lo, hi = proportion_confint(int(x.sum()), len(x), alpha=1 - confidence, method="wilson")
    return 100 * float(x.mean()), 100 * float(lo), 100 * float(hi)


def ci_text(mean: float, lo: float, hi: float, digits: int = 3, unit: str = "") -> str:
    return f"{mean:.{digits}g}{unit} [{lo:.{digits}g}, {hi:.{digits}g}]"


@dataclass(frozen=True)
class Trend:
    """A trend along one line judged on paired differences (see ``trend``)."""

    values: tuple  # the varied parameter's values, in order
    means: tuple  # mean of y at each value (over all pairs of the line)
    overall: tuple[float, float, float]  # mean, CI of y(last) - y(first), paired
    steps: tuple  # ((mean, lo, hi), ...) of y(v_k+1) - y(v_k), paired
    direction: int
    without_data: tuple = ()  # values of the line where y is missing for every pair (left out)

    @property
    def holds(self) -> bool:
        """Headline: last minus first is significantly in the claimed direction."""
        mean, lo, hi = self.overall
        return bool(lo > 0) if self.direction > 0 else bool(hi < 0)

    @property
    def reversals(self) -> list[int]:
        """Steps whose CI lies entirely against the claimed direction."""
        return [
            k
            for k, (_, lo, hi) in enumerate(self.steps)
            if (hi < 0 if self.direction > 0 else lo > 0)
        ]

    @property
    def monotone(self) -> bool:
        return not self.reversals

    def text(self, digits: int = 3) -> str:
        head = " → ".join(f"{m:.{digits}g}" for m in self.means)
        gap = f" (no data at {', '.join(map(str, self.without_data))})" if self.without_data else ""
        if len(self.values) < 2:
            return f"{head or 'no value'}{gap}: fewer than two values with data, not judged"
        return f"{head}{gap}; last − first {ci_text(*self.overall, digits=digits)}"


def trend(frame: pd.DataFrame, x: str, y: str, direction: int, pair: str = "iteration") -> Trend:
    """Whether ``y`` moves with ``x`` in ``direction`` (+1 rising, -1 falling), judged on
    differences paired by ``pair`` (the topology or draw index: common random numbers).

    Pairs where y is missing at either value are dropped from that difference; a value where y
    is missing for every pair (e.g. no topology feasible there) is left out of the line and named
    in ``Trend.without_data``. The headline (``Trend.holds``) is the 95% CI of y(last value) -
    y(first value) excluding 0 on the claimed side, false when fewer than two values have data;
    ``Trend.monotone`` says no successive step's CI lies entirely on the wrong side.
    """
    if direction not in (1, -1):
        raise ValueError(f"direction must be +1 (rising) or -1 (falling); got {direction}")
    for column in (x, y, pair):
        if column not in frame.columns:
            raise ValueError(f"column {column!r} is not in the frame ({list(frame.columns)})")
    wide = frame.pivot_table(index=pair, columns=x, values=y, aggfunc="mean", dropna=False)
    every = sorted(wide.columns)
    if len(every) < 2:
        raise ValueError(f"a trend in {x!r} needs at least two values; got {every}")
    values = [v for v in every if wide[v].notna().any()]
    wide = wide[values]
    if len(values) < 2:
        nan = (math.nan, math.nan, math.nan)
        return Trend(
            values=tuple(values),
            means=tuple(float(wide[v].mean()) for v in values),
            overall=nan,
            steps=(),
            direction=direction,
            without_data=tuple(v for v in every if v not in values),
        )
    steps = tuple(mean_ci(wide[b] - wide[a]) for a, b in zip(values, values[1:], strict=False))
    return Trend(
        values=tuple(values),
        means=tuple(float(wide[v].mean()) for v in values),
        overall=mean_ci(wide[values[-1]] - wide[values[0]]),
        steps=steps,
        direction=direction,
        without_data=tuple(v for v in every if v not in values),
    )


def trend_conditions(name: str, t: Trend, *, claimed: str) -> tuple[dict, dict]:
    """Headline and detail conditions of one trend, named with their numbers."""
    side = "> 0" if t.direction > 0 else "< 0"
    head = {f"{name} {claimed}: {t.text()} (CI {side})": t.holds}
    if t.monotone:
        detail = {f"{name}: no step significantly reversed": True}
    else:
        bad = ", ".join(
            f"{t.values[k]}→{t.values[k + 1]}: {ci_text(*t.steps[k])}" for k in t.reversals
        )
        detail = {f"{name}: steps significantly reversed ({bad})": False}
    return head, detail


def bootstrap_ci(
    statistic,
    samples: Sequence,
    *,
    rng: np.random.Generator,
    resamples: int = 2000,
    vectorized: bool = False,
) -> tuple[float, float, float]:
    """Statistic and its 95% percentile bootstrap CI over paired samples (scipy.stats.bootstrap).
    ``vectorized``: ``statistic`` takes an ``axis`` keyword and reduces along it (scipy then
    evaluates every resample in one call: the same resamples, far faster)."""
    arrays = [np.asarray(s, dtype=float) for s in samples]
    value = float(statistic(*arrays))
    res = stats.bootstrap(
        arrays,
        statistic,
        paired=True,
        vectorized=vectorized,
        n_resamples=resamples,
        confidence_level=CONFIDENCE,
        method="percentile",
        random_state=rng,
    )
    return value, float(res.confidence_interval.low), float(res.confidence_interval.high)


def within(paper: float, reproduced: float, atol: float = 0.0, rtol: float = 0.0) -> bool:
    """|reproduced - paper| <= atol + rtol·|paper|; NaN or inf is never within."""
    for name, value in (("atol", atol), ("rtol", rtol)):
        if not (value >= 0 and math.isfinite(value)):
            raise ValueError(f"{name} must be a finite number >= 0; got {value}")
    if not (math.isfinite(paper) and math.isfinite(reproduced)):
        return False
    return abs(reproduced - paper) <= atol + rtol * abs(paper)


def tolerance_text(atol: float, rtol: float) -> str:
    parts = [f"{atol:g}"] if atol else []
    if rtol:
        parts.append(f"{rtol:g}·|paper|")
    return "|diff| <= " + (" + ".join(parts) or "0")


def number(
    paper: float,
    reproduced: float,
    *,
    atol: float = 0.0,
    rtol: float = 0.0,
    what: str = "value",
    evidence: str | None = None,
) -> Verdict:
    """A single printed number against the reproduced one."""
    ok = within(paper, reproduced, atol, rtol)
    return judge(
        {f"{what} {reproduced:.6g} against printed {paper:g} ({tolerance_text(atol, rtol)})": ok},
        paper_value=f"{paper:g}",
        reproduced=f"{reproduced:.6g}",
        rule=tolerance_text(atol, rtol),
        evidence=evidence,
    )


def summary(card: pd.DataFrame) -> pd.DataFrame:
    """Counts of each verdict per paper."""
    counts = pd.crosstab(card["paper"], card["verdict"]).reindex(
        columns=list(VERDICTS), fill_value=0
    )
    counts["total"] = counts.sum(axis=1)
    return counts
