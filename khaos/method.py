"""The Khaos method: phase 1 (failure points, Eqs. (1)-(5)), phase 3 (models, forecast, the choice
of a checkpoint interval by objective (8), and the runtime controller). Phase 2 (profiling) runs
deployments of the simulator: :func:`khaos.experiments.profile_point`.

Units: time and CIs in s, throughput in events/s, latency in ms. Section III of Geldenhuys et al.;
where the paper is silent the artifact's configuration (data README) is followed, and where both
are silent the choice is ours and said so in :class:`MethodParams`.
"""

import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy.signal import lfilter

from khaos.params import PAPER_QOS, QoS

DEFER_RULES = ("paper", "artifact")
VIOLATIONS = (None, "latency", "recovery")


def _positive_int(name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


@dataclass(frozen=True, kw_only=True)
class MethodParams:
    """Parameters of phases 1-3 (defaults: paper, else artifact, else ours as marked)."""

    # Phase 1 (Section III-B; artifact: 300 s window, 1800 s skipped at both ends, 12 levels).
    smoothing_s: int = 300
    skip_s: int = 1800
    levels: int = 12
    min_separation_s: int = 1800
    # Ours (paper silent): candidate failure seconds on a 10 s grid, so that the exact search
    # stays fast; the 300 s trailing mean moves by well under 1% in 10 s.
    grid_s: int = 10
    # Phase 2 (artifact): 5 (IoT) / 8 (YSB) configurations evenly spaced over 10-120 s.
    profile_ci_min_s: float = 10.0
    profile_ci_max_s: float = 120.0
    profile_configurations: int = 5
    latency_window_s: int = 300  # L_ij: mean latency over the 300 s before the failure (artifact)
    # Phase 3 (artifact): recovery model fitted on samples > 55 s; candidates 10..119 s by 1 s.
    recovery_fit_min_s: float = 55.0
    candidate_min_s: int = 10
    candidate_max_s: int = 119
    min_change_s: float = 5.0
    period_s: int = 300  # optimization every 300 s
    min_uptime_s: int = 600
    averaging_s: int = 300  # current throughput and latency: means over the last 300 s
    correction_rounds: int = 6  # rho: mean actual/predicted latency of the last 6 rounds
    # Forecast (artifact): ARIMA(2,2,2), no constant, on 60 s means of the last hour, 5 steps.
    arima_order: tuple[int, int, int] = (2, 2, 2)
    forecast_history_s: int = 3600
    forecast_step_s: int = 60
    forecast_steps: int = 5
    forecast_drop: float = 0.10  # a fall of more than 10% (paper)
    # The paper defers a reconfiguration when the forecast falls by more than forecast_drop; the
    # artifact's code reconfigures only when it does ("artifact").
    defer_rule: str = "paper"
    qos: QoS = field(default=PAPER_QOS)

    def __post_init__(self):
        for name in (
            "smoothing_s",
            "skip_s",
            "levels",
            "min_separation_s",
            "grid_s",
            "profile_configurations",
            "latency_window_s",
            "candidate_min_s",
            "candidate_max_s",
            "period_s",
            "min_uptime_s",
            "averaging_s",
            "correction_rounds",
            "forecast_history_s",
            "forecast_step_s",
            "forecast_steps",
        ):
            _positive_int(name, getattr(self, name))
        if self.levels < 2:
            raise ValueError(f"levels must be >= 2, got {self.levels}")
        if not 0 < self.profile_ci_min_s < self.profile_ci_max_s:
            raise ValueError("profile CIs need 0 < profile_ci_min_s < profile_ci_max_s")
        if self.candidate_min_s > self.candidate_max_s:
            raise ValueError("candidate_min_s must not exceed candidate_max_s")
        if not self.recovery_fit_min_s >= 0:
            raise ValueError(f"recovery_fit_min_s must be >= 0, got {self.recovery_fit_min_s}")
        if not self.min_change_s >= 0:
            raise ValueError(f"min_change_s must be >= 0, got {self.min_change_s}")
        if not 0 < self.forecast_drop < 1:
            raise ValueError(f"forecast_drop must lie in (0, 1), got {self.forecast_drop}")
        if self.defer_rule not in DEFER_RULES:
            raise ValueError(f"defer_rule must be one of {DEFER_RULES}, got {self.defer_rule!r}")
        if self.forecast_history_s < 4 * self.forecast_step_s:
            raise ValueError("forecast_history_s must hold at least 4 forecast steps")
        if not isinstance(self.qos, QoS):
            raise ValueError("qos must be a khaos.QoS")

    def profile_cis(self) -> np.ndarray:
        """Phase 2's configurations: evenly spaced CIs, rounded to whole seconds (ours: the
        simulator checkpoints on whole seconds; 37.5 s becomes 38 s)."""
        grid = np.linspace(
            self.profile_ci_min_s, self.profile_ci_max_s, self.profile_configurations
        )
        return np.round(grid).astype(int)

    def candidates(self) -> np.ndarray:
        return np.arange(self.candidate_min_s, self.candidate_max_s + 1)


DEFAULT_METHOD = MethodParams()


# -- phase 1 --
def _check_series(series: pd.Series, name: str) -> None:
    if not isinstance(series, pd.Series) or series.empty:
        raise ValueError(f"{name} must be a non-empty pandas Series")
    steps = np.diff(series.index.to_numpy())
    if np.any(steps <= 0):
        raise ValueError(f"{name}'s index (seconds) must be strictly increasing")
    if np.any(steps != 1):
        raise ValueError(f"{name}'s index must be contiguous seconds")


def smoothed_workload(thr: pd.Series, params: MethodParams = DEFAULT_METHOD) -> pd.Series:
    """Eq. (2): the workload as a function of time, a trailing ``smoothing_s`` mean (at least half
    the window present; NaN otherwise)."""
    _check_series(thr, "thr")
    window = params.smoothing_s
    return thr.rolling(window, min_periods=max(1, window // 2)).mean()


def failure_points(thr: pd.Series, params: MethodParams = DEFAULT_METHOD) -> pd.DataFrame:
    """Phase 1, Eqs. (3)-(5): ``levels`` throughput levels evenly spaced between the minimum and
    the maximum of the smoothed workload (first and last ``skip_s`` s skipped), and one failure
    second per level, every pair at least ``min_separation_s`` apart.

    The paper and the artifact draw one second per level; here the seconds (on a ``grid_s`` grid
    starting ``skip_s`` after the first second) minimise the total deviation
    sum_l |w(t_l) - level_l| under the separation constraint, exactly, by dynamic programming over
    time and the subset of levels placed (ties keep the earliest seconds).
    Returns columns level_index, level, second, throughput (w at that second), sorted by level.
    Raises ValueError when the window cannot hold ``levels`` seconds that far apart."""
    w = smoothed_workload(thr, params)
    first, last = int(w.index[0]), int(w.index[-1])
    grid = np.arange(first + params.skip_s, last - params.skip_s + 1, params.grid_s)
    values = w.reindex(grid).to_numpy(dtype=float)
    keep = np.isfinite(values)
    grid, values = grid[keep], values[keep]
    if grid.size == 0:
        raise ValueError("no smoothed sample between the skipped ends")
    n = params.levels
    levels = np.linspace(values.min(), values.max(), n)  # Eqs. (3)-(4)
    chosen, total = _place(grid, values, levels, params.min_separation_s)
    if chosen is None:
        raise ValueError(
            f"the series cannot hold {n} failure seconds {params.min_separation_s} s apart"
        )
    seconds = np.array([chosen[j] for j in range(n)])
    return pd.DataFrame(
        {
            "level_index": np.arange(n),
            "level": levels,
            "second": seconds,
            "throughput": w.reindex(seconds).to_numpy(),  # Eq. (5)
        }
    )


def _place(grid: np.ndarray, values: np.ndarray, levels: np.ndarray, separation: int):
    """Exact minimum of sum_j |values[p_j] - levels[j]| over positions with grid[p] distinct and
    pairwise >= separation apart. DP: best[p][S] is the least cost of placing the level subset S
    at positions <= p; a level placed at p follows placements at positions q with
    grid[q] <= grid[p] - separation. Returns ({level: second}, cost) or (None, inf)."""
    n, size = len(levels), 1 << len(levels)
    subsets = np.arange(size)
    with_level = [subsets[(subsets >> j) & 1 == 1] for j in range(n)]
    cost = np.abs(values[:, None] - levels[None, :])
    # back[p] = index of the last position q with grid[q] <= grid[p] - separation (-1: none).
    back = np.searchsorted(grid, grid - separation, side="right") - 1
    empty = np.full(size, np.inf)
    empty[0] = 0.0
    # back[p] never decreases: only the rows back[p]..p-1 are kept (memory of a window, not a day).
    window: deque = deque()
    choice = np.full((len(grid), size), -1, dtype=np.int8)  # level placed at p, -1: none
    previous = empty
    for p in range(len(grid)):
        while window and window[0][0] < back[p]:
            window.popleft()
        before = window[0][1] if back[p] >= 0 else empty
        row = previous.copy()
        for j in range(n):
            s = with_level[j]
            candidate = before[s ^ (1 << j)] + cost[p, j]
            better = candidate < row[s]
            row[s[better]] = candidate[better]
            choice[p, s[better]] = j
        window.append((p, row))
        previous = row
    total = previous[size - 1]
    if not np.isfinite(total):
        return None, math.inf
    placed, p, s = {}, len(grid) - 1, size - 1
    while s:
        j = int(choice[p, s])
        if j < 0:
            p -= 1
            continue
        placed[j] = int(grid[p])
        s ^= 1 << j
        p = back[p]
    return placed, float(total)


# -- phase 3: models --
@dataclass(frozen=True, kw_only=True)
class LinearModel:
    """y = intercept + b_thr * throughput + b_ci * CI (OLS with intercept)."""

    intercept: float
    b_thr: float
    b_ci: float
    r2: float
    n: int

    def predict(self, throughput, ci) -> np.ndarray:
        return self.intercept + self.b_thr * np.asarray(throughput) + self.b_ci * np.asarray(ci)


@dataclass(frozen=True, kw_only=True)
class Models:
    """Phase 3's two multiple regressions: latency (ms) and recovery time (s)."""

    latency: LinearModel
    recovery: LinearModel


def _ols(x_thr, x_ci, y) -> LinearModel:
    design = sm.add_constant(np.column_stack([x_thr, x_ci]), has_constant="add")
    fit = sm.OLS(np.asarray(y, dtype=float), design).fit()
    b0, b1, b2 = (float(v) for v in fit.params)
    return LinearModel(intercept=b0, b_thr=b1, b_ci=b2, r2=float(fit.rsquared), n=len(y))


def fit_models(profile: pd.DataFrame, params: MethodParams = DEFAULT_METHOD) -> Models:
    """Phase 3's models from phase 2's samples (columns throughput, ci, latency_ms,
    recovery_time_s): latency ~ throughput + CI on all samples, recovery ~ throughput + CI on the
    samples with recovery_time_s > recovery_fit_min_s (artifact: 55 s)."""
    needed = ["throughput", "ci", "latency_ms", "recovery_time_s"]
    missing = [c for c in needed if c not in profile.columns]
    if missing:
        raise ValueError(f"profile lacks the columns {missing}")
    data = profile[needed].dropna()
    if data["ci"].le(0).any():
        raise ValueError("profile holds a CI <= 0")
    if len(data) < 4 or data["ci"].nunique() < 2:
        raise ValueError("profile needs at least 4 samples over at least 2 CIs")
    recovery = data[data["recovery_time_s"] > params.recovery_fit_min_s]
    if len(recovery) < 4 or recovery["ci"].nunique() < 2:
        raise ValueError(
            f"fewer than 4 samples over 2 CIs with recovery > {params.recovery_fit_min_s} s"
        )
    return Models(
        latency=_ols(data["throughput"], data["ci"], data["latency_ms"]),
        recovery=_ols(recovery["throughput"], recovery["ci"], recovery["recovery_time_s"]),
    )


# The MA parameters of the CSS fit are searched on this grid (step 0.05) inside the invertible
# region of 1 + theta1 z + theta2 z^2 (with a 0.05 margin).
_MA_STEP = 0.05
_MA_GRID = np.array(
    [
        (t1, t2)
        for t1 in np.round(np.arange(-2.0, 2.0 + _MA_STEP / 2, _MA_STEP), 10)
        for t2 in np.round(np.arange(-1.0, 1.0 + _MA_STEP / 2, _MA_STEP), 10)
        if abs(t2) <= 1 - _MA_STEP and t2 + t1 >= -1 + _MA_STEP and t2 - t1 >= -1 + _MA_STEP
    ]
)


def arma22_css(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ARMA(2,2) without constant by conditional sum of squares (CSS, the artifact's first stage
    of CSS-ML), minimised exactly: for each MA pair (theta1, theta2) of ``_MA_GRID`` the series is
    filtered, u = y / (1 + theta1 B + theta2 B^2) (zero start), and the AR pair is the least-squares
    fit of u_t on (u_t-1, u_t-2) (closed form); the pair of least residual sum of squares wins
    (ties: the first). Returns (phi, theta).

    Why not a likelihood optimiser: on an hour of 60 means the ARIMA(2,2,2) likelihood is flat, and
    statsmodels' optimisers ended at different optima (forecast changes 0.016 against 0.074 on
    one replayed round) with the BLAS kernels that different CPUs select, so that Khaos's deferral,
    and KH2:simulated with it, could change between machines. Here float noise can move the result
    only between grid points whose residual sums of squares agree to the last bits."""
    y = np.asarray(y, dtype=float)
    if y.ndim != 1 or len(y) < 8 or not np.all(np.isfinite(y)):
        raise ValueError("y must be a finite 1-d series of at least 8 values")
    best = None
    for theta in _MA_GRID:
        u = lfilter([1.0], [1.0, theta[0], theta[1]], y)
        a, b, c = u[1:-1], u[:-2], u[2:]
        saa, sbb, sab = float(a @ a), float(b @ b), float(a @ b)
        sac, sbc = float(a @ c), float(b @ c)
        det = saa * sbb - sab * sab
        if not det > 0:
            continue
        phi = np.array([(sac * sbb - sbc * sab) / det, (sbc * saa - sac * sab) / det])
        sse = float(np.sum((c - phi[0] * a - phi[1] * b) ** 2))
        if best is None or sse < best[0]:
            best = (sse, phi, theta)
    if best is None:
        raise ValueError("y is degenerate: no AR fit at any MA pair")
    return best[1], best[2]


def forecast_change(thr_history, params: MethodParams = DEFAULT_METHOD) -> float:
    """Relative change of the throughput forecast ``forecast_steps`` steps ahead against the last
    step's mean: ARIMA(2,2,2) without constant on ``forecast_step_s`` s means of the last
    ``forecast_history_s`` s, fitted by conditional sum of squares (:func:`arma22_css` on the
    second differences; the artifact fits CSS-ML, whose ML stage is an optimiser whose end point
    changed with the machine)."""
    if tuple(params.arima_order) != (2, 2, 2):
        raise ValueError(
            f"only the artifact's ARIMA(2,2,2) is implemented; got {params.arima_order}"
        )
    x = np.asarray(thr_history, dtype=float)[-params.forecast_history_s :]
    steps = len(x) // params.forecast_step_s
    if steps < 4:
        raise ValueError("thr_history must hold at least 4 forecast steps")
    means = x[len(x) - steps * params.forecast_step_s :].reshape(steps, -1)
    means = pd.DataFrame(means.T).mean().to_numpy()  # NaN-tolerant step means
    means = pd.Series(means).interpolate(limit_direction="both").to_numpy()
    y = np.diff(means, 2)
    if np.ptp(y) == 0 or len(y) < 8:
        # A line (or too short to fit): the forecast continues the last step.
        ahead = means[-1] + params.forecast_steps * (means[-1] - means[-2])
        return (ahead - means[-1]) / means[-1] if means[-1] > 0 else 0.0
    phi, theta = arma22_css(y)
    u = list(lfilter([1.0], [1.0, theta[0], theta[1]], y))
    level = list(means[-2:])
    for _ in range(params.forecast_steps):
        u.append(phi[0] * u[-1] + phi[1] * u[-2])  # future innovations 0
        y_next = u[-1] + theta[0] * u[-2] + theta[1] * u[-3]
        level.append(2 * level[-1] - level[-2] + y_next)
    ahead = level[-1]
    return (ahead - means[-1]) / means[-1] if means[-1] > 0 else 0.0


# -- phase 3: the choice of a CI --
def objective(lat_fraction, rec_fraction) -> np.ndarray:
    """Objective (8): L + R + |L - R| (= 2 max(L, R))."""
    lat_fraction, rec_fraction = np.asarray(lat_fraction), np.asarray(rec_fraction)
    return lat_fraction + rec_fraction + np.abs(lat_fraction - rec_fraction)


def choose_interval(
    throughput: float,
    models: Models,
    *,
    current_ci: float | None = None,
    violation: str | None = None,
    rho: float = 1.0,
    params: MethodParams = DEFAULT_METHOD,
) -> int | None:
    """The CI (s) minimising objective (8) over the candidates (10..119 s) subject to L < 1 and
    R < 1, with L = rho * predicted latency / latency constraint and R = predicted recovery /
    recovery constraint at ``throughput``. A ``violation`` of "recovery" restricts the search to
    CIs below ``current_ci``, of "latency" to CIs above it. Ties go to the smallest CI. Returns
    None when no candidate is feasible."""
    if not (throughput >= 0 and math.isfinite(throughput)):
        raise ValueError(f"throughput must be a finite number >= 0, got {throughput!r}")
    if not (rho > 0 and math.isfinite(rho)):
        raise ValueError(f"rho must be a finite number > 0, got {rho!r}")
    if violation not in VIOLATIONS:
        raise ValueError(f"violation must be one of {VIOLATIONS}, got {violation!r}")
    if violation is not None and not (current_ci is not None and current_ci > 0):
        raise ValueError(f"current_ci must be > 0 with a violation, got {current_ci!r}")
    ci = params.candidates()
    if violation == "recovery":
        ci = ci[ci < current_ci]
    elif violation == "latency":
        ci = ci[ci > current_ci]
    if ci.size == 0:
        return None
    lat = rho * models.latency.predict(throughput, ci) / params.qos.latency_ms
    rec = models.recovery.predict(throughput, ci) / params.qos.recovery_s
    value = np.where((lat < 1) & (rec < 1), objective(lat, rec), np.inf)
    best = int(np.argmin(value))
    return int(ci[best]) if np.isfinite(value[best]) else None


@dataclass
class Khaos:
    """Phase 3's runtime loop as a controller of the simulator (:func:`khaos.simulate.simulate`).

    Called every ``params.period_s`` s with the observed history; acts once the job has been up
    ``min_uptime_s`` since its start or last reconfiguration (ours: failure restarts do not reset
    it). Each round: throughput and latency are the means of the last ``averaging_s`` s; rho is
    the mean actual/predicted latency ratio of the last ``correction_rounds`` rounds before this
    one (the round's own ratio joins the history afterwards); latency is violated when the
    measured mean exceeds the constraint, recovery when the predicted recovery at the current CI
    does (Section III-D). With exactly one violated, the throughput forecast decides
    (``defer_rule``), then :func:`choose_interval` searches in the violation's direction; a
    change below ``min_change_s`` is not made. ``decisions`` logs every round."""

    models: Models
    params: MethodParams = DEFAULT_METHOD
    decisions: list = field(default_factory=list)
    _ratios: list = field(default_factory=list)

    @property
    def period_s(self) -> int:
        return self.params.period_s

    def __call__(self, second: int, ci: float, thr: np.ndarray, lat: np.ndarray, up_s: int):
        """Round at ``second``: ``thr``/``lat`` the observed history up to it, ``up_s`` the time
        since the last (re)configuration. Returns the new CI or None."""
        p = self.params
        throughput = float(np.nanmean(thr[-p.averaging_s :]))
        latency = float(np.nanmean(lat[-p.averaging_s :]))
        predicted = float(self.models.latency.predict(throughput, ci))
        # rho from the rounds before this one only ("the past optimization iterations"): this
        # round's latency is what the corrected prediction is judged against (KH1).
        rho = float(np.mean(self._ratios[-p.correction_rounds :])) if self._ratios else 1.0
        rho = rho if rho > 0 else 1.0
        if predicted > 0 and math.isfinite(latency):
            self._ratios.append(latency / predicted)
        recovery = float(self.models.recovery.predict(throughput, ci))
        lat_bad = latency > p.qos.latency_ms
        rec_bad = recovery > p.qos.recovery_s
        row = {
            "second": second,
            "ci": ci,
            "throughput": throughput,
            "latency_ms": latency,
            "rho": rho,
            "predicted_recovery_s": recovery,
            "violation": None,
            "forecast_change": np.nan,
            "action": "none",
            "new_ci": np.nan,
        }
        self.decisions.append(row)
        if up_s < p.min_uptime_s:
            row["action"] = "warming up"
            return None
        if lat_bad == rec_bad:  # none, or both (the paper acts only on exactly one)
            row["action"] = "none" if not lat_bad else "both violated"
            return None
        row["violation"] = "latency" if lat_bad else "recovery"
        new = choose_interval(
            throughput, self.models, current_ci=ci, violation=row["violation"], rho=rho, params=p
        )
        if new is None:
            row["action"] = "no feasible CI"
            return None
        if abs(new - ci) < p.min_change_s:
            row["action"] = "change too small"
            return None
        # The forecast only matters for a reconfiguration that would happen: fitted last (slow).
        if len(thr) >= 4 * p.forecast_step_s:
            row["forecast_change"] = forecast_change(thr, p)
            falls = row["forecast_change"] < -p.forecast_drop
            if falls == (p.defer_rule == "paper"):
                row["action"] = "deferred"
                return None
        row["action"], row["new_ci"] = "reconfigure", new
        return new
