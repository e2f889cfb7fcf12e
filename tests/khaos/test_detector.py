"""The recovery-time detector: known synthetic recoveries, noise, time shifts, bad input and the
IoT validation against the prototype's recTime."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from khaos import QoS, detect_failures, recovery_times
from khaos.detector import anomalies, lag_rule_recovery_times
from khaos.params import DetectorParams, FailureRule
from khaos.tables import detector_validation, validation_summary
from tests.examples import examples
from tests.khaos.synthetic import noise_run, outage_run

FAILURE = 2001  # outage_run's failure offset 2000 on an index starting at 1


# Lag drains of >= 50 events/s cross the 5-sigma band (~50 events) within about a second.
@pytest.mark.parametrize(("drain", "k"), [(60, 8.0), (150, 8.0), (400, 20.0)])
def test_known_outage_and_drain(drain, k):
    run = outage_run(np.random.default_rng(drain), drain=drain, k=k)
    found = detect_failures(run)
    assert found["second"].tolist() == [FAILURE]
    assert found["kind"].tolist() == ["failure"]
    raw = recovery_times(run, [FAILURE], DetectorParams(smoothing_s=1))
    assert abs(raw["recovery_time_s"].iloc[0] - drain) <= 2
    # The default trailing mean carries the last drained second smoothing_s - 1 s further.
    params = DetectorParams()
    smoothed = recovery_times(run, [FAILURE], params)
    assert abs(smoothed["recovery_time_s"].iloc[0] - (drain + params.smoothing_s - 1)) <= 2


def test_no_detection_on_a_day_of_noise():
    run = noise_run(86_400, np.random.default_rng(7))
    assert detect_failures(run).empty
    assert not anomalies(run, 1001).any()
    measured = recovery_times(run, [43_200])
    assert measured["recovery_time_s"].iloc[0] == 0


@settings(max_examples=examples(10), deadline=None)
@given(shift=st.integers(-(10**6), 10**6))
def test_invariant_to_shifting_the_series_in_time(shift):
    run = outage_run(np.random.default_rng(3))
    moved = run.set_axis(run.index + shift)
    base = recovery_times(run, [FAILURE])
    other = recovery_times(moved, [FAILURE + shift])
    assert other["recovery_time_s"].tolist() == base["recovery_time_s"].tolist()
    assert (other["start_second"] - shift).tolist() == base["start_second"].tolist()
    assert (detect_failures(moved)["second"] - shift).tolist() == [FAILURE]


def test_a_failure_inside_a_recovery_reuses_the_earlier_model():
    run = outage_run(np.random.default_rng(5), drain=400)
    measured = recovery_times(run, [FAILURE, FAILURE + 200])
    assert measured["training_end"].nunique() == 1
    assert measured["recovery_time_s"].iloc[1] > 0


def test_bad_input_names_the_problem():
    run = noise_run(3000, np.random.default_rng(0))
    with pytest.raises(ValueError, match="non-empty"):
        recovery_times(run.iloc[:0], [10])
    with pytest.raises(ValueError, match="increasing"):
        recovery_times(run.iloc[::-1], [2000])
    with pytest.raises(ValueError, match="outside the series"):
        recovery_times(run, [5000])
    with pytest.raises(ValueError, match="history"):
        recovery_times(run, [100])
    with pytest.raises(ValueError, match="outside the series"):
        lag_rule_recovery_times(run, [0])
    with pytest.raises(ValueError, match="recovery_s"):
        QoS(recovery_s=0)
    with pytest.raises(ValueError, match="latency_ms"):
        QoS(latency_ms=-1)
    with pytest.raises(ValueError, match="threshold_factor"):
        DetectorParams(threshold_factor=0)
    with pytest.raises(ValueError, match="collapse_fraction"):
        FailureRule(collapse_fraction=1.5)


def test_iot_detector_beats_the_lag_rule(iot, iot_failures):
    summary = validation_summary(detector_validation(iot, iot_failures)).set_index("method")
    assert summary.loc["detector", "failures"] >= 60
    assert summary.loc["detector", "mape"] < summary.loc["lag_rule", "mape"]
    assert summary.loc["detector", "mape"] < 0.10


def test_iot_mape_by_smoothing_window(iot, iot_failures):
    """What the detector's smoothing-window choice rests on (khaos.detector's docstring): MAPE and
    bias against the prototype's recTime on the 62 of 72 logged IoT failures matched in the
    series, in-sample (the window was chosen on them). 10 s and 20 s tie with opposite bias."""
    from dataclasses import replace

    from khaos.params import DEFAULT_DETECTOR

    stated = {10: (0.079, -0.056), 20: (0.079, 0.042), 30: (0.125, 0.113), 45: (0.228, 0.219)}
    stated[60] = (0.331, 0.322)
    for window, (mape, bias) in stated.items():
        params = replace(DEFAULT_DETECTOR, smoothing_s=window)
        summary = validation_summary(detector_validation(iot, iot_failures, params=params))
        row = summary.set_index("method").loc["detector"]
        assert (row["failures"], len(iot_failures)) == (62, 72)
        assert (row["mape"], row["bias"]) == pytest.approx((mape, bias), abs=0.0015), window
