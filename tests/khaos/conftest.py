"""The project's copy of the Khaos measurements, loaded once per test session."""

from pathlib import Path

import pandas as pd
import pytest

from khaos.data import load_experiment, load_failures

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "khaos"
PAPER = ROOT / "data" / "paper"


@pytest.fixture(scope="session")
def iot():
    return load_experiment(DATA, "iot")


@pytest.fixture(scope="session")
def ysb():
    return load_experiment(DATA, "ysb")


@pytest.fixture(scope="session")
def iot_failures():
    return load_failures(DATA)


@pytest.fixture(scope="session")
def printed():
    return {n: pd.read_csv(PAPER / f"khaos_table{n}.csv") for n in (2, 3)}
