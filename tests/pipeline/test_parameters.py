"""-p values against the type and shape of the parameters-cell defaults, before any kernel."""

import json
import os
import subprocess
import sys
import time

import pytest

from pipeline import paths
from pipeline.cli import main
from pipeline.notebooks import UsageError, available, parameters_for
from pipeline.parameters import conforms, describe, mismatch

CELL = """import fastrecover.settings

runs = 10  # an int
rate = 0.5
label = "full"
n_values = [1, 5, 50]
factors = [0.5, 1.0]
lines = {"n": [5, 15], "ch_max": 0.4}
verbose = False
horizon = 2 * 60  # not a literal: not checked
anything = None
chain = fastrecover.settings.CHAIN.point()  # read from the settings module
budget = fastrecover.settings.CHAIN.ch_max
"""


@pytest.fixture
def notebooks(tmp_path):
    cell = {
        "cell_type": "code",
        "id": "params",
        "metadata": {"tags": ["parameters"]},
        "execution_count": None,
        "outputs": [],
        "source": CELL.splitlines(keepends=True),
    }
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "multilevel_params.ipynb").write_text(json.dumps(notebook))
    return tmp_path


def check(notebooks, **overrides):
    return parameters_for("multilevel_params", "full", overrides, notebooks)


@pytest.mark.parametrize(
    ("key", "good", "bad", "expected"),
    [
        ("runs", [3, 0, -2], [2.5, "many", True, [3]], "an int like 10"),
        ("rate", [1, 0.25, 1e-9], ["fast", None, False, [0.5]], "a float like 0.5"),
        ("label", ["quick", ""], [5, 0.5, ["quick"]], "a str like 'full'"),
        ("n_values", [[1, 2], (3,)], ["banana", [1.5], 5, [1, "2"]], "a list of int"),
        ("factors", [[1, 2.5], [2]], [["a"], 0.5], "a list of float like [0.5, 1.0]"),
        ("lines", [{"n": [1], "ch_max": 1}], [{"n": [1]}, {"n": 1, "ch_max": 0.1}, [1]], "a dict"),
        ("verbose", [True], [1, "yes"], "a bool like False"),
        ("chain", [{"n": 5, "omega": 9, "ch_max": 1, "z": 3}], [{"n": 5}, 5], "a dict {n: int"),
        ("budget", [1, 0.1], ["high", [0.1]], "a float like"),
    ],
)
def test_values_of_the_defaults_type_pass_others_are_refused(notebooks, key, good, bad, expected):
    for value in good:
        assert check(notebooks, **{key: value}) == {key: value}
    for value in bad:
        with pytest.raises(UsageError) as info:
            check(notebooks, **{key: value})
        message = str(info.value)
        assert message.startswith(f"multilevel_params: parameter {key} expects {expected}")
        assert message.endswith(f"; got {value!r}") and "\n" not in message


def test_a_list_with_values_by_default_must_not_be_empty(notebooks):
    for key, value in (("n_values", []), ("lines", {"n": [], "ch_max": 0.4})):
        with pytest.raises(UsageError, match=f"parameter {key} must not be empty; got"):
            check(notebooks, **{key: value})


RANGES = """[multilevel_params.ranges]
runs = ">= 1"
rate = "[0, 1]"
n_values = ">= 1"
factors = "> 0, <= 2"
lines = "> 0"
"""


@pytest.mark.parametrize(
    ("key", "good", "bad", "expected"),
    [
        ("runs", [1, 100], [0, -5], "runs must be >= 1; got"),
        ("rate", [0, 0.5, 1], [-0.1, 1.5], "rate must be in [0, 1]; got"),
        ("n_values", [[1, 5]], [[1, -5], [0]], "n_values must be >= 1 (each value; "),
        ("factors", [[0.5, 2]], [[0], [2.5]], "factors must be "),
        ("lines", [{"n": [5], "ch_max": 0.4}], [{"n": [5], "ch_max": -1}], "lines must be > 0"),
    ],
)
def test_values_outside_the_declared_range_are_refused_naming_the_parameter(
    notebooks, key, good, bad, expected
):
    (notebooks / "profiles.toml").write_text(RANGES)
    for value in good:
        assert check(notebooks, **{key: value}) == {key: value}
    for value in bad:
        with pytest.raises(UsageError) as info:
            check(notebooks, **{key: value})
        assert str(info.value).startswith(f"multilevel_params: parameter {expected}")
        assert "\n" not in str(info.value)


def test_every_declared_range_names_a_parameter_and_reads(tmp_path):
    """profiles.toml's ranges: each names a parameter of its notebook and parses; the profile
    values and the notebooks' own defaults lie within them."""
    import tomllib

    from pipeline.notebooks import declared_parameters, resolve
    from pipeline.parameters import out_of_range

    profiles = tomllib.loads((paths.NOTEBOOKS / "profiles.toml").read_text())
    declared_somewhere = 0
    for name, tables in profiles.items():
        declared = declared_parameters(resolve(name))
        for key, spec in tables.get("ranges", {}).items():
            assert key in declared, f"[{name}.ranges] {key}: no such parameter"
            declared_somewhere += 1
            import ast

            try:
                default = ast.literal_eval(declared[key])
            except ValueError:
                continue
            assert out_of_range(key, default, spec) is None, (name, key, default, spec)
        for profile in ("quick", "full"):
            parameters_for(name, profile, {})  # the profile's values within the ranges
    assert declared_somewhere > 100


def test_defaults_that_are_not_literals_or_none_take_anything(notebooks):
    assert check(notebooks, horizon="two minutes", anything=[1, "x"]) == {
        "horizon": "two minutes",
        "anything": [1, "x"],
    }


def test_describe_names_nested_shapes():
    assert describe({"n": [5, 15], "ch_max": 0.4}) == "dict {n: list of int, ch_max: float}"
    assert describe([[1, 2], [3]]) == "list of list of int"
    assert describe([1, "a"]) == "list"
    assert conforms([[1], []], [[1, 2], [3]]) and not conforms([[1.5]], [[1, 2]])
    assert mismatch("x", 1, "np.inf") is None


def test_every_notebook_profile_fits_its_parameters_cell():
    for name in available():
        for profile in ("quick", "full"):
            parameters_for(name, profile, {})  # raises on a profile value of the wrong type


def test_cli_refuses_a_wrong_type_before_any_kernel(notebooks, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(paths.REPORTS_ENV, str(tmp_path / "reports"))
    argv = ["run", "multilevel_params", "--notebooks", str(notebooks), "-p", "runs=2.5"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == "repro: multilevel_params: parameter runs expects an int like 10; got 2.5\n"
    assert not (tmp_path / "reports").exists()


def test_banana_for_a_list_of_int_fails_at_once(tmp_path):
    """The issue's example on the real notebook, as a user runs it."""
    env = {**os.environ, paths.REPORTS_ENV: str(tmp_path / "reports")}
    argv = ["run", "multilevel_figures", "--profile", "quick", "-p", "n_values=banana"]
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *argv], capture_output=True, text=True, env=env
    )
    seconds = time.perf_counter() - began
    assert done.returncode == 2
    assert done.stderr == (
        "repro: multilevel_figures: parameter n_values expects a list of int like "
        "[1, 10, 50, 100]; got 'banana'\n"
    )
    assert done.stdout == "" and not (tmp_path / "reports").exists()  # no kernel, no record
    assert seconds < 30  # imports only (about 2 s of CPU), even on a loaded machine
