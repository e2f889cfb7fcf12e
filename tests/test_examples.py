"""The property tests' example counts follow the environment (tests/examples.py)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.examples import examples


def test_a_property_s_own_count_holds_under_the_default_profile(monkeypatch):
    monkeypatch.delenv("HYPOTHESIS_EXAMPLES", raising=False)
    assert examples(40) == 40


def test_the_environment_variable_replaces_a_property_s_own_count(monkeypatch):
    monkeypatch.setenv("HYPOTHESIS_EXAMPLES", "900")
    assert examples(40) == 900
    monkeypatch.setenv("HYPOTHESIS_EXAMPLES", "0")
    with pytest.raises(ValueError, match="HYPOTHESIS_EXAMPLES"):
        examples(40)


def test_a_loaded_profile_with_another_count_replaces_it(monkeypatch):
    monkeypatch.delenv("HYPOTHESIS_EXAMPLES", raising=False)
    settings.load_profile("explore")
    try:
        assert examples(40) == settings.get_profile("explore").max_examples
    finally:
        settings.load_profile("default")


@settings(max_examples=examples(3), deadline=None, database=None)
@given(st.integers(0, 10**9))
def test_seed_probe(x):
    """Writes its draws where SEED_PROBE says (the test below runs it in a subprocess)."""
    if os.environ.get("SEED_PROBE"):
        with open(os.environ["SEED_PROBE"], "a") as out:
            out.write(f"{x}\n")


def _draws(tmp_path, seed: str) -> list[str]:
    probe = tmp_path / f"draws_{seed}_{len(list(tmp_path.iterdir()))}"
    env = {**os.environ, "SEED_PROBE": str(probe), "HYPOTHESIS_SEED": seed}
    env.pop("HYPOTHESIS_EXAMPLES", None)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"{__file__}::test_seed_probe",
        ],
        env=env,
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[1],
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return probe.read_text().split()


def test_hypothesis_seed_from_the_environment_chooses_the_examples(tmp_path):
    five = _draws(tmp_path, "5")
    assert five == _draws(tmp_path, "5")  # the seed reaches Hypothesis: reproducible ...
    assert five != _draws(tmp_path, "6")  # ... and it chooses the examples
