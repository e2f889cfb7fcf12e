"""U of Eqs. (3), (8), (11), (13): the fast vectorized form against the paper's literal forms."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from multilevel.settings import FIG8
from multilevel.utilization import System, utilization, utilization_one_kind
from tests.examples import examples
from tests.multilevel import literal

PER_DAY = 1 / 86_400


@st.composite
def systems(draw, levels=None, stream=True):
    L = levels or draw(st.integers(1, 4))
    lam = sorted((draw(st.floats(0.01, 500)) * PER_DAY for _ in range(L)), reverse=True)
    c = sorted(draw(st.floats(0.5, 120)) for _ in range(L))
    # Exactly 0 or >= 10 ms: the literal F(r) of a sub-ns restart cancels to 0/0 in floats.
    r = sorted(draw(st.one_of(st.just(0.0), st.floats(0.01, 120))) for _ in range(L))
    n = draw(st.integers(1, 200)) if stream else 1
    delta = draw(st.one_of(st.just(0.0), st.floats(0.001, 2.0))) if stream else 0.0
    weights = [draw(st.floats(0.0, 1.0)) for _ in range(L - 1)] + [draw(st.floats(0.05, 1.0))]
    p = [w / sum(weights) for w in weights]
    T = sum(pi * ci for pi, ci in zip(p, c, strict=True)) + draw(st.floats(1.0, 5000.0))
    return System(lam=lam, c=c, r=r, n=n, delta=delta), T, p


@settings(max_examples=examples(300), deadline=None)
@given(systems())
def test_simplified_form_equals_effective_period_form_13(case):
    system, T, p = case
    expected = literal.utilization_stream(
        T, p, system.lam, system.c, system.r, system.n, system.delta
    )
    assert float(utilization(T, p, system)) == pytest.approx(
        max(expected, 0.0), rel=1e-9, abs=1e-12
    )


@settings(max_examples=examples(200), deadline=None)
@given(systems(stream=False))
def test_single_process_is_n1_delta0_of_the_stream_form_11(case):
    system, T, p = case
    expected = literal.utilization_single(T, p, system.lam, system.c, system.r)
    assert float(utilization(T, p, system)) == pytest.approx(
        max(expected, 0.0), rel=1e-9, abs=1e-12
    )
    # With one operator the token delay has nothing to cross.
    moved = System(lam=system.lam, c=system.c, r=system.r, n=1, delta=3.0)
    assert float(utilization(T, p, moved)) == float(utilization(T, p, system))


@settings(max_examples=examples(200), deadline=None)
@given(systems(levels=2))
def test_two_levels_equal_the_printed_closed_forms_3_and_8(case):
    system, T, p = case
    args = (T, p[0], *system.lam, *system.c, *system.r)
    u = float(utilization(T, p, system))
    printed_8 = literal.closed_form_8(*args, system.n, system.delta)
    assert u == pytest.approx(max(printed_8, 0.0), rel=1e-9, abs=1e-12)
    single = System(lam=system.lam, c=system.c, r=system.r)
    assert float(utilization(T, p, single)) == pytest.approx(
        max(literal.closed_form_3(*args), 0.0), rel=1e-9, abs=1e-12
    )


def test_vectorized_over_intervals_and_probabilities():
    system = FIG8
    T = np.linspace(100, 600, 7)[:, None]
    p1 = np.linspace(0, 0.95, 5)[None, :]
    p = np.stack([p1 + 0 * T, 1 - p1 + 0 * T], axis=-1)
    u = utilization(T, p, system)
    assert u.shape == (7, 5)
    for i in range(7):
        for j in range(5):
            assert u[i, j] == pytest.approx(
                literal.utilization_single(
                    float(T[i, 0]), [p1[0, j], 1 - p1[0, j]], system.lam, system.c, system.r
                )
            )
    assert np.all((u > 0) & (u < 1))


def test_divergent_effective_period_gives_zero_utilization():
    # Rare level-2 checkpoints and frequent level-2 failures: lost checkpoints never end.
    system = System.per_day(lam=[100, 90], c=[1, 2], r=[1, 2])
    assert float(utilization(3000.0, [0.999, 0.001], system)) == 0.0


def test_one_kind_has_no_lost_checkpoints_and_per_level_restarts():
    system = System.per_minute(
        lam=[0.02, 0.008], c=[0.09, 0.18], r=[10.16, 17.51], n=5, delta=0.01214
    )
    # It lies between the 2-level model restarting everything at r1 and at r2.
    low = System(lam=system.lam, c=system.c, r=(10.16, 10.16), n=5, delta=0.01214)
    high = System(lam=system.lam, c=system.c, r=(17.51, 17.51), n=5, delta=0.01214)
    u = float(utilization_one_kind(1800.0, system))
    assert (
        float(utilization(1800.0, [0.0, 1.0], high))
        < u
        < float(utilization(1800.0, [0.0, 1.0], low))
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"lam": [0.0, 1e-5]}, "lam must be > 0"),
        ({"lam": [-1e-4, 1e-5]}, "lam must be > 0"),
        ({"c": [30, 10]}, "c must be non-decreasing"),
        ({"r": [30, 10]}, "r must be non-decreasing"),
        ({"r": [10]}, "one value per level"),
        ({"n": 0}, "n must be an integer >= 1"),
        ({"n": 2.5}, "n must be an integer >= 1"),
        ({"delta": -0.1}, "delta must be"),
        ({"c": [float("nan"), 10]}, "c must be finite"),
    ],
)
def test_bad_system_raises_value_error_naming_the_parameter(kwargs, message):
    args = {"lam": [1e-4, 1e-5], "c": [10, 30], "r": [10, 30]}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        System(**args)


@pytest.mark.parametrize(
    ("T", "p", "message"),
    [
        (300.0, [0.5, 0.4], "sum to 1"),
        (300.0, [1.2, -0.2], r"in \[0, 1\]"),
        (300.0, [1.0, 0.0], "p_L"),
        (300.0, [0.5, 0.3, 0.2], "one probability per level"),
        (15.0, [0.5, 0.5], "longer than the expected checkpoint cost"),
        (float("inf"), [0.5, 0.5], "finite"),
    ],
)
def test_bad_interval_or_probabilities_raise(T, p, message):
    system = System(lam=[1e-4, 1e-5], c=[10, 30], r=[10, 30])
    with pytest.raises(ValueError, match=message):
        utilization(T, p, system)
