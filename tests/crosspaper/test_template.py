"""data/scenarios/template.toml: your own job's scenario. It loads, documents every field the
scenario dataclasses (and the paper sections) define with a unit, marks exactly the fields of
``DEFAULTS`` optional, and loads with only its required fields."""

import copy
import dataclasses
import re
import tomllib

import pytest

from crosspaper import scenarios as S

TEMPLATE = S.SCENARIOS / f"{S.TEMPLATE}.toml"
# The TOML section holding each dataclass's fields.
SECTIONS = {
    S.Scenario: "scenario",
    S.Topology: "topology",
    S.Operator: "topology",
    S.Edge: "topology",
    S.Failures: "failures",
    S.Resources: "resources",
    S.Checkpoint: "checkpoint",
    S.QoS: "qos",
}
PATHS = {S.Operator: "topology.operators.", S.Edge: "topology.edges."}


def template_data() -> dict:
    with open(TEMPLATE, "rb") as handle:
        return tomllib.load(handle)


def sections(text: str) -> dict[str, list[str]]:
    """Lines of each [section] (dotted name; "" before the first header)."""
    out, current = {"": []}, ""
    for line in text.splitlines():
        header = re.match(r"^\[([^\]]+)\]\s*$", line)
        if header:
            current = header.group(1)
            out.setdefault(current, [])
        else:
            out[current].append(line)
    return out


def fields(papers: dict) -> list[tuple[str, str, str]]:
    """(section, key, DEFAULTS-style path) of every leaf field: the dataclasses' fields that
    hold values (not sub-tables or lists of dataclasses) and every paper section's keys."""
    out = []
    for cls, section in SECTIONS.items():
        for f in dataclasses.fields(cls):
            if f.name in {"topology", "failures", "resources", "checkpoint", "qos"}:
                continue  # sections, checked as headers
            if f.name in {"papers", "source_table", "operators", "edges"}:
                continue  # checked below / documented as blocks
            prefix = PATHS.get(cls, f"{section}.")
            out.append((section, f.name, prefix + f.name))
    for paper, keys in papers.items():
        out += [(f"papers.{paper}", key, f"papers.{paper}.{key}") for key in keys]
    return out


def undocumented(text: str, papers: dict) -> list[str]:
    """Fields without a "# [unit] meaning" line (on the key's line, or a "#   key [unit] ..."
    line in its section), or whose "optional" mark disagrees with DEFAULTS."""
    by_section = sections(text)
    problems = []
    for section in ("scenario", "topology", "failures", "resources", "checkpoint", "qos"):
        if section not in by_section:
            problems.append(f"[{section}]")
    for block in ("operators", "edges"):
        if not any(re.match(rf"^#\s*{block}:", line) for line in by_section.get("topology", [])):
            problems.append(f"topology.{block} (a '# {block}: ...' block)")
    if not any("[sources]" in line for lines in by_section.values() for line in lines):
        problems.append("[sources]")
    for section, key, path in fields(papers):
        unit = r"\[[^\]]+\]\s*\S"  # "[unit] meaning"
        lines = [
            line
            for line in by_section.get(section, [])
            if re.match(rf"^\s*{key}\s*=.*#\s*{unit}", line)
            or re.match(rf"^#\s*{key}\s*{unit}", line)
        ]
        if not lines:
            problems.append(path)
        elif ("optional" in lines[0]) != (path in S.DEFAULTS):
            problems.append(f"{path} (optional mark)")
    return problems


def test_the_template_loads_by_name_and_path_with_user_sources():
    s = S.load(S.TEMPLATE)
    assert S.load(TEMPLATE) == s and S.TEMPLATE not in S.available()
    assert (s.sources()["source"] == S.USER_SOURCE).all()  # it gives every field
    assert s.assumptions().empty


def test_the_template_documents_every_field_with_its_unit():
    text = TEMPLATE.read_text()
    assert undocumented(text, S.load(S.TEMPLATE).papers) == []


def test_documentation_check_fails_on_an_undocumented_or_mismarked_field():
    text = TEMPLATE.read_text()
    papers = S.load(S.TEMPLATE).papers
    bare = re.sub(r"(?m)^(interval_s = 60\.0).*$", r"\1", text)
    assert undocumented(bare, papers) == ["checkpoint.interval_s"]
    no_unit = text.replace("#   tuple_kb [KB]", "#   tuple_kb")
    assert undocumented(no_unit, papers) == ["topology.operators.tuple_kb"]
    required = text.replace("(required: give a very large value for no limit)", "(optional)", 1)
    assert undocumented(required, papers) == ["qos.latency_ms (optional mark)"]
    # A field added to a dataclass or a paper section later is caught.
    assert undocumented(text, {**papers, "ppa": {**papers["ppa"], "replicas": 1}}) == [
        "papers.ppa.replicas"
    ]


def _drop(data: dict, path: str) -> None:
    *parents, key = path.split(".")
    if parents == ["topology", "operators"]:
        for op in data["topology"]["operators"]:
            del op[key]
        return
    node = data
    for part in parents:
        node = node[part]
    del node[key]


def test_the_template_loads_with_only_its_required_fields():
    data = template_data()
    for path in S.DEFAULTS:
        _drop(data, path)
    s = S.from_dict(data)
    sources = s.sources().set_index("field")["source"]
    defaulted = sources[sources.str.startswith("assumption (default)")]
    assert set(s.assumptions()["field"]) == set(defaulted.index)
    values = s.sources().set_index("field")["value"]
    for path, (value, _) in S.DEFAULTS.items():
        if path.startswith("topology.operators."):
            key = path.rsplit(".", 1)[1]
            for op in s.topology.operators:
                expected = op.name == "sink" if key == "output" else value
                assert getattr(op, key) == expected
                assert f"topology.operators.{op.name}.{key}" in defaulted.index
        else:
            field = path.removeprefix("papers.")
            if field == "scenario.description":
                assert s.description == value
                continue
            got = values[field]
            assert (list(got) if isinstance(got, tuple) else got) == value, field
            assert field in defaulted.index
    assert (sources.drop(defaulted.index) == S.USER_SOURCE).all()


def _leaves(data: dict, prefix: str = "") -> list[str]:
    out = []
    for key, value in data.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            out += _leaves(value, f"{path}.")
        elif path not in {"topology.operators", "topology.edges"}:
            out.append(path)
    return out


@pytest.mark.parametrize("path", [p for p in _leaves(template_data()) if p not in S.DEFAULTS])
def test_every_required_field_is_refused_by_name_when_missing(path):
    data = copy.deepcopy(template_data())
    _drop(data, path)
    with pytest.raises(ValueError, match=re.escape(path) + " is missing"):
        S.from_dict(data)


@pytest.mark.parametrize(
    "key", ["name", "parallelism", "state_kb", "tuple_kb", "cpu_share", "nodes"]
)
def test_every_required_operator_field_is_refused_by_name_when_missing(key):
    data = template_data()
    del data["topology"]["operators"][1][key]
    with pytest.raises(ValueError, match=rf"operators(\[1\]|\.filter)\.{key} is missing"):
        S.from_dict(data)


def test_the_digest_follows_the_values_not_the_sources():
    s = S.load(S.TEMPLATE)
    assert S.load(TEMPLATE).digest() == s.digest()
    assert S.with_values(s, {"checkpoint.interval_s": 30.0}).digest() != s.digest()
    assert dataclasses.replace(s, source_table={}).digest() == s.digest()


def test_the_measured_day_fails_on_another_input_rate():
    """rev20b MED 4: a job whose measured day (papers.khaos.experiment) is replayed at the day's
    own rates while topology.input_rate says another rate is refused up front, naming both
    fields; within DAY_RATE_TOLERANCE it loads, and without a day any rate does."""
    data = template_data()
    mean = S.day_mean(data["papers"]["khaos"]["experiment"])
    data["topology"]["input_rate"] = 12_000.0  # the review's job: 41% above the IoT day
    with pytest.raises(ValueError, match=r"topology\.input_rate .* papers\.khaos\.experiment"):
        S.from_dict(copy.deepcopy(data))
    data["topology"]["input_rate"] = mean * (1 + 0.5 * S.DAY_RATE_TOLERANCE)
    assert S.from_dict(copy.deepcopy(data)).topology.input_rate > mean
    data["topology"]["input_rate"] = 12_000.0
    data["papers"]["khaos"]["experiment"] = "none"
    assert S.from_dict(data).papers["khaos"]["experiment"] == "none"
