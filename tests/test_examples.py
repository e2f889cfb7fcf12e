"""The property tests' example counts follow the environment (tests/examples.py)."""

import pytest
from hypothesis import settings

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
