"""Shared fixtures: one local Spark session for the whole run, its web UI off."""

import os

import pytest
from hypothesis import settings

# Reproducible by default, like every other random draw of the project. A long search outside CI
# sets the count and the seed from the environment: HYPOTHESIS_EXAMPLES (tests/examples.py) and
# HYPOTHESIS_SEED (an integer: Hypothesis's own --hypothesis-seed, which a derandomized profile
# would ignore); or `pytest --hypothesis-profile=explore`. The engine's property takes
# ENGINE_EXAMPLES / ENGINE_SEED (tests/incremental/engine). No deadline: a wall-clock limit per
# example fails a correct property on a loaded machine; slowness shows in --durations.
SEED = os.environ.get("HYPOTHESIS_SEED") or None
if SEED is not None and not SEED.isdigit():
    raise ValueError(f"HYPOTHESIS_SEED must be a non-negative integer; got {SEED!r}")
settings.register_profile("default", derandomize=SEED is None, deadline=None)
settings.register_profile("explore", max_examples=500, deadline=None)
settings.load_profile("default")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    if SEED is not None:  # before the Hypothesis plugin reads its option
        config.option.hypothesis_seed = SEED


os.environ.setdefault("REPRO_SPARK_UI", "0")  # inherited by notebook kernels too


@pytest.fixture(scope="session")
def spark():
    from pipeline.spark import get_spark

    return get_spark("local[2]")
