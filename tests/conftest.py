"""Shared fixtures: one local Spark session for the whole run, its web UI off."""

import os

import pytest

os.environ.setdefault("REPRO_SPARK_UI", "0")  # inherited by notebook kernels too


@pytest.fixture(scope="session")
def spark():
    from pipeline.spark import get_spark

    return get_spark("local[2]")
