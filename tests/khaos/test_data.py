"""Loader and failures.txt parser."""

import numpy as np
import pandas as pd
import pytest

from khaos.data import CONFIGURATIONS, load_experiment, parse_failures, read_series_csv


def test_stray_header_line_is_skipped(tmp_path):
    path = tmp_path / "iot_thr_10000.csv"
    path.write_text("second|value\n1|5\n2|6\ntimestamp|value\n3|7\n")
    series = read_series_csv(path)
    assert series.index.tolist() == [1, 2, 3]
    assert series.tolist() == [5.0, 6.0, 7.0]


def test_empty_or_duplicated_file_is_rejected(tmp_path):
    empty = tmp_path / "a.csv"
    empty.write_text("second|value\n")
    with pytest.raises(ValueError, match="no samples"):
        read_series_csv(empty)
    twice = tmp_path / "b.csv"
    twice.write_text("second|value\n1|5\n1|6\n")
    with pytest.raises(ValueError, match="more than once"):
        read_series_csv(twice)


def _interior_gaps(series: pd.Series) -> list[int]:
    """Lengths of the runs of missing values strictly inside the series."""
    missing = series.isna().to_numpy()
    inner = missing[np.argmax(~missing) : len(missing) - np.argmax(~missing[::-1])]
    edges = np.diff(np.concatenate(([0], inner.astype(int), [0])))
    return (np.flatnonzero(edges == -1) - np.flatnonzero(edges == 1)).tolist()


def test_gaps_are_kept_as_missing(iot):
    for configuration in ("static 60s", "static 90s", "static 120s"):
        gaps = [g for g in _interior_gaps(iot[configuration]["lat"]) if g > 30]
        assert len(gaps) == 1 and 100 <= gaps[0] <= 160, (configuration, gaps)


def test_runs_are_contiguous_seconds(iot, ysb):
    for runs in (iot, ysb):
        assert list(runs) == list(CONFIGURATIONS)
        for run in runs.values():
            assert (np.diff(run.index.to_numpy()) == 1).all()
            assert list(run.columns) == ["thr", "lat", "con"]


def test_parquet_copy_equals_the_csvs(tmp_path):
    csv_root = tmp_path / "iot"
    csv_root.mkdir()
    for key in ("10000", "30000", "60000", "90000", "120000", "optimized"):
        for metric in ("thr", "lat", "con"):
            (csv_root / f"iot_{metric}_{key}.csv").write_text(
                "second|value\n1|1\n2|2\ntimestamp|value\n4|4\n"
            )
    runs = load_experiment(tmp_path, "iot")
    assert runs["Khaos"]["thr"].tolist()[:2] == [1.0, 2.0]
    assert np.isnan(runs["Khaos"].loc[3, "thr"])


def test_unknown_experiment_is_rejected(tmp_path):
    with pytest.raises(ValueError, match="experiment"):
        load_experiment(tmp_path, "wordcount")


def test_failures_blocks_and_predictions(iot_failures):
    assert iot_failures.groupby("block").size().tolist() == [12] * 6
    assert set(iot_failures.groupby("block")["configuration"].nunique()) == {1}
    has_prediction = iot_failures["predicted_s"].notna()
    assert set(iot_failures.loc[has_prediction, "configuration"]) == {"Khaos"}
    assert has_prediction.sum() == 12


def test_failures_parser_rejects_garbage():
    with pytest.raises(ValueError, match="unparsable"):
        parse_failures("FailureMetrics{oops}\n")


def test_an_empty_folder_names_both_the_parquet_and_the_csv_alternatives(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        load_experiment(tmp_path, "iot")
    message = str(info.value)
    assert "iot.parquet" in message and "18 CSVs under iot/" in message
    assert "iot_thr_10000.csv" in message and str(tmp_path) in message
