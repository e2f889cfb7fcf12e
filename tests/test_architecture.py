"""The layout's import rules, read from the import statements of every module (a new module is
covered without a list): a paper package imports no Spark, no ``pipeline``, no ``crosspaper``
and no other paper package; ``crosspaper`` imports paper packages but no Spark and no
``pipeline`` (the notebooks run its points through ``pipeline.sweep``)."""

from pathlib import Path

from pipeline.imports import imports_of
from pipeline.paths import ROOT

PAPERS = ("fastrecover", "ppa", "incremental", "multilevel", "khaos")
FORBIDDEN = {
    **{paper: {"pyspark", "pipeline", "crosspaper", *PAPERS} - {paper} for paper in PAPERS},
    "crosspaper": {"pyspark", "pipeline"},
}


def violations(root: Path) -> list[str]:
    """``file: imports name`` for every import that breaks FORBIDDEN under ``root``."""
    found = []
    for package, forbidden in FORBIDDEN.items():
        for file in sorted((root / package).rglob("*.py")):
            module = ".".join(file.relative_to(root).with_suffix("").parts)
            names = imports_of(file.read_text(), module, is_package=file.name == "__init__.py")
            found += [
                f"{file.relative_to(root)}: imports {name}"
                for name in sorted(names)
                if name.split(".")[0] in forbidden
            ]
    return found


def test_paper_packages_and_crosspaper_import_only_what_the_layout_allows():
    assert all((ROOT / package / "__init__.py").is_file() for package in FORBIDDEN)
    assert violations(ROOT) == []


def test_the_rules_fail_on_a_planted_import(tmp_path):
    plants = {
        "ppa/new_module.py": "def f():\n    from pyspark.sql import functions\n",
        "khaos/sub/deep.py": "from incremental.problem import RecoveryProblem\n",
        "multilevel/__init__.py": "from . import x\nfrom pipeline import sweep\n",
        "crosspaper/frontier.py": "import fastrecover\nimport pipeline.sweep\n",
        "fastrecover/ok.py": "import numpy\nfrom fastrecover import model\nfrom . import chain\n",
    }
    for name, source in plants.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(source)
    assert violations(tmp_path) == [
        "ppa/new_module.py: imports pyspark.sql",
        "ppa/new_module.py: imports pyspark.sql.functions",
        "multilevel/__init__.py: imports pipeline",
        "multilevel/__init__.py: imports pipeline.sweep",
        "khaos/sub/deep.py: imports incremental.problem",
        "khaos/sub/deep.py: imports incremental.problem.RecoveryProblem",
        "crosspaper/frontier.py: imports pipeline.sweep",
    ]
