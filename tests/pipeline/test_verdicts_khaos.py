"""Each Khaos claim rule on data that agrees with the paper, and on contrary data that must change
its verdict (``test_*_fails_on_*``)."""

import numpy as np
import pandas as pd

from pipeline.scorecard import NOT_CHECKABLE, NOT_REPRODUCED, PARTLY, REPRODUCED
from pipeline.verdicts import khaos as rules

PRINTED = {
    "iot_latency": 0.099,
    "iot_recovery": 0.131,
    "ysb_latency": 0.122,
    "ysb_recovery": 0.0728,
}
# Table II(b) as printed.
TABLE2 = pd.DataFrame(
    {
        "configuration": [
            "Khaos",
            "static 10s",
            "static 30s",
            "static 60s",
            "static 90s",
            "static 120s",
        ],
        "avg_latency_ms": [737, 1086, 729, 796, 697, 692],
        "latency_violations_fraction": [0.087, 0.153, 0.062, 0.110, 0.073, 0.060],
        "recovery_time_s": [2071, 2757, 1681, 2064, 2505, 2904],
        "recovery_violations_s": [197, 1188, 147, 227, 555, 826],
    }
)
CIS = (10, 30, 60, 90, 120)


def test_kh1_fails_on_a_recovery_error_far_from_print():
    assert rules.kh1(0.1317, 0.09, PRINTED).verdict == REPRODUCED
    assert rules.kh1(0.1317, 0.40, PRINTED).verdict == PARTLY
    bad = rules.kh1(0.25, 0.09, PRINTED)
    assert bad.verdict == NOT_REPRODUCED and "IoT recovery-model error 0.2500" in bad.reason


def test_kh2_fails_on_khaos_beaten_by_two_static_cis():
    assert rules.kh2(TABLE2, "printed").verdict == REPRODUCED
    worse = TABLE2.copy()
    worse.loc[0, "recovery_violations_s"] = 300.0  # above 30 s and 60 s
    verdict = rules.kh2(worse, "contrary")
    assert verdict.verdict == NOT_REPRODUCED and "not below 2 static" in verdict.reason
    slow = TABLE2.copy()
    slow.loc[0, "avg_latency_ms"] = 1000.0
    assert rules.kh2(slow, "contrary").verdict == PARTLY


def _schedule(slope, rng):
    thr = rng.uniform(300, 30000, 12)
    return pd.DataFrame(
        {"throughput": thr, "ci_estimate_s": 60 + slope * thr / 1000 + rng.normal(0, 3, 12)}
    )


def test_kh3_fails_on_a_ci_rising_with_throughput():
    rng = np.random.default_rng(0)
    assert rules.kh3(_schedule(-2.0, rng), 3, 3, "falling").verdict == REPRODUCED
    assert rules.kh3(_schedule(-2.0, rng), 9, 3, "many").verdict == PARTLY
    verdict = rules.kh3(_schedule(+2.0, rng), 3, 3, "rising")
    assert verdict.verdict == NOT_REPRODUCED and "Spearman rho" in verdict.reason


def _per_failure(recovery_of_ci, rng):
    level = rng.uniform(50, 300, 12)
    return pd.DataFrame(
        [
            {
                "configuration": f"static {ci}s",
                "failure_index": i,
                "recovery_time_s": level[i] * recovery_of_ci(ci) * rng.uniform(0.95, 1.05),
            }
            for ci in CIS
            for i in range(12)
        ]
    )


def _hourly(latency_of_ci, rng):
    base = rng.uniform(400, 900, 24)
    return pd.DataFrame(
        [
            {
                "configuration": f"static {ci}s",
                "hour": h,
                "latency_ms": base[h] + latency_of_ci(ci) + rng.normal(0, 5),
            }
            for ci in CIS
            for h in range(24)
        ]
    )


def test_kh4_fails_on_recovery_falling_with_the_ci():
    rng = np.random.default_rng(1)
    good_rec, good_lat = (
        _per_failure(lambda ci: 1 + ci / 60, rng),
        _hourly(lambda ci: 3000 / ci, rng),
    )
    assert rules.kh4(good_rec, good_lat, "paper-like").verdict == REPRODUCED
    falling = _per_failure(lambda ci: 3 - ci / 60, rng)
    verdict = rules.kh4(falling, good_lat, "contrary")
    assert verdict.verdict == NOT_REPRODUCED and "recovery over CI rises" in verdict.reason
    bump = _hourly(lambda ci: 3000 / ci + (200 if ci == 60 else 0), rng)
    assert rules.kh4(good_rec, bump, "bump").verdict == PARTLY


def test_not_checkable_says_why():
    verdict = rules.not_checkable("YSB recovery-model error 0.0728", "predictions not published")
    assert verdict.verdict == NOT_CHECKABLE and "not published" in verdict.reason
