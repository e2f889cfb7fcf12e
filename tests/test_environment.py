"""environment.yml mirrors pyproject.toml, the single source of dependency truth."""

import re
import tomllib

import yaml

from pipeline import paths


def _requirements(lines):
    """{name: specifier} with the name lower-cased and spaces dropped."""
    out = {}
    for line in lines:
        match = re.match(r"^([A-Za-z0-9_.\-]+)\s*(.*)$", line.strip())
        out[match.group(1).lower()] = match.group(2).replace(" ", "")
    return out


def test_environment_yml_lists_the_pyproject_dependencies_with_the_same_bounds():
    project = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]
    wanted = _requirements(project["dependencies"] + project["optional-dependencies"]["dev"])
    env = yaml.safe_load((paths.ROOT / "environment.yml").read_text())
    assert env["channels"] == ["conda-forge"]
    conda = _requirements(d for d in env["dependencies"] if isinstance(d, str))
    assert conda.pop("openjdk") == "=17"
    assert conda.pop("python") == ">=" + project["requires-python"].removeprefix(">=")
    assert conda.pop("pip") == ""
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert pip[-1] == "-e .[dev]"
    # packages conda-forge does not carry come from PyPI, before the project itself
    pip_only = _requirements(pip[:-1])
    assert not set(pip_only) & set(conda)
    assert conda | pip_only == wanted
