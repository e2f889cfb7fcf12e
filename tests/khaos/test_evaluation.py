"""Fig. 3's bar alignment (khaos.evaluation.fig3_bars)."""

import pandas as pd
import pytest

from khaos.evaluation import fig3_bars


def _table(khaos_recovery: float) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "configuration": ["static 10s", "static 60s", "Khaos"],
            "latency_violations_fraction": [0.20, 0.05, 0.04],
            "recovery_violations_s": [0.0, 300.0, khaos_recovery],
        }
    )


def test_bars_align_on_khaos_as_in_the_paper():
    bars = fig3_bars(_table(100.0)).set_index("configuration")
    assert bars.loc["Khaos", "recovery_normalised"] == pytest.approx(0.04)
    assert bars.loc["static 60s", "recovery_normalised"] == pytest.approx(0.12)
    assert set(bars["aligned_to"]) == {"Khaos"}


def test_without_a_khaos_recovery_violation_bars_align_on_the_worst_configuration():
    bars = fig3_bars(_table(0.0)).set_index("configuration")
    assert set(bars["aligned_to"]) == {"static 60s"}
    assert bars.loc["static 60s", "recovery_normalised"] == pytest.approx(0.05)
    assert bars.loc["Khaos", "recovery_normalised"] == 0.0


def test_no_recovery_violation_anywhere_is_an_error_not_a_nan():
    table = _table(0.0).assign(recovery_violations_s=0.0)
    with pytest.raises(ValueError, match="align"):
        fig3_bars(table)
