"""Shared fixtures: one local Spark session for the whole run, its web UI off."""

import os

import pytest
from hypothesis import settings

# Reproducible by default, like every other random draw of the project; explore new examples with
# `pytest --hypothesis-profile=explore`. No deadline: a wall-clock limit per example fails a correct
# property on a loaded machine (a test must not depend on load); slowness shows in --durations.
settings.register_profile("default", derandomize=True, deadline=None)
settings.register_profile("explore", max_examples=500, deadline=None)
settings.load_profile("default")

os.environ.setdefault("REPRO_SPARK_UI", "0")  # inherited by notebook kernels too


@pytest.fixture(scope="session")
def spark():
    from pipeline.spark import get_spark

    return get_spark("local[2]")
