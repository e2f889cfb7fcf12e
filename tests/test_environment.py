"""requirements.lock pins what pyproject.toml's ranges allow; environment.yml pins the same."""

import re
import tomllib

import yaml
from packaging.requirements import Requirement

from pipeline import paths

LOCK_LINE = re.compile(r"^([a-z0-9_.\-]+)==(\S+)")


def _lock() -> dict[str, str]:
    """{name: version} of requirements.lock; every pin carries at least one sha256 hash."""
    text = (paths.ROOT / "requirements.lock").read_text()
    pins = {}
    for block in re.split(r"\n(?=[a-z0-9])", text):
        match = LOCK_LINE.match(block)
        if match:
            assert "--hash=sha256:" in block, f"{match.group(1)} is pinned without a hash"
            pins[match.group(1)] = match.group(2)
    return pins


def _project() -> dict[str, Requirement]:
    project = tomllib.loads((paths.ROOT / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["dev"]
    return {Requirement(r).name.lower(): Requirement(r) for r in wanted}


def _environment() -> tuple[dict[str, str], dict[str, str]]:
    """({conda name: pin}, {pip name: pin}) of environment.yml."""
    env = yaml.safe_load((paths.ROOT / "environment.yml").read_text())
    assert env["channels"] == ["conda-forge"]
    conda = {}
    for dep in env["dependencies"]:
        if isinstance(dep, str):
            name, _, version = dep.partition("=")
            conda[name] = version
    pip_list = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert pip_list[-1] == "-e .[dev]"
    pip = dict(line.split("==") for line in pip_list[:-1])
    return conda, pip


def test_the_lock_pins_every_project_dependency_within_its_range():
    pins, wanted = _lock(), _project()
    for name, requirement in wanted.items():
        assert name in pins, f"{name} is not in requirements.lock (run make lock)"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"{name}=={pins[name]} in the lock is outside pyproject's {requirement.specifier}"
        )


def test_environment_yml_pins_the_locked_versions_of_the_project_dependencies():
    pins, wanted = _lock(), _project()
    conda, pip = _environment()
    assert conda.pop("openjdk") == "17"
    assert conda.pop("python") == "3.11"
    assert conda.pop("pip") == ""
    # packages conda-forge does not carry come from PyPI, before the project itself
    assert not set(pip) & set(conda)
    assert set(conda) | set(pip) == set(wanted)
    for name, version in {**conda, **pip}.items():
        assert version == pins[name], (
            f"environment.yml pins {name} {version}, the lock {pins[name]}"
        )
