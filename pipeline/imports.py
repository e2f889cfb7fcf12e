"""Which code a module depends on, read from its import statements (``ast``), never executed.

``import_closure`` follows a module's imports transitively through the project's own modules
(the packages and modules under a root folder, by default the project root) and returns their
source files: the sweep cache is keyed by them (``pipeline.sweep.code_version``);
``source_closure`` does the same for a piece of code (a notebook's cells: ``pipeline.rerun``), and
``imports_of`` lists every module a source imports (``tests/test_architecture.py``).

Every import statement of a module counts, those inside functions too. ``from a.b import c``
depends on ``a.b`` (or on the module ``a.b.c`` when c is one), not on the package ``a``'s
``__init__``: Python runs that too, but a package's ``__init__`` only gathers names, and
counting it would tie every module of a package to all the others.
"""

import ast
from collections.abc import Iterable, Sequence
from pathlib import Path

from pipeline import paths


def _statements(source: str, module: str, is_package: bool) -> list[tuple[str, list[str]]]:
    """(module, names) of every import statement: ``import a.b`` gives ("a.b", []), ``from a.b
    import c, d`` gives ("a.b", ["c", "d"]); relative modules resolved against ``module``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".") if module else []
                keep = len(parts) - node.level + (1 if is_package else 0)
                if keep < 0:
                    raise ValueError(f"relative import beyond the top package in {module!r}")
                base = ".".join(parts[:keep] + ([base] if base else []))
            found.append((base, [alias.name for alias in node.names]))
    return found


def imports_of(source: str, module: str = "", is_package: bool = False) -> set[str]:
    """Absolute names of every module ``source`` may import: ``import a.b`` gives ``a.b``;
    ``from a.b import c`` gives ``a.b`` and ``a.b.c`` (c may be a module); relative imports are
    resolved against ``module`` (a package's ``__init__`` when ``is_package``)."""
    names = set()
    for base, imported in _statements(source, module, is_package):
        names.update([base] if base else [])
        names.update(f"{base}.{name}" if base else name for name in imported)
    return names


def module_file(name: str, roots: Sequence[Path]) -> Path | None:
    """The source file of the project module ``name`` under one of ``roots``, else None."""
    parts = name.split(".")
    for root in roots:
        folder = Path(root).joinpath(*parts)
        for file in (folder.with_suffix(".py"), folder / "__init__.py"):
            if file.is_file():
                return file
    return None


def _targets(source: str, module: str, is_package: bool, roots: Sequence[Path]) -> list[str]:
    """The modules ``source``'s imports run: ``from a import b`` runs the module ``a.b`` when
    there is one, else ``a`` (where the name b is defined)."""
    targets = []
    for base, imported in _statements(source, module, is_package):
        modules = [f"{base}.{n}" for n in imported if module_file(f"{base}.{n}", roots)]
        targets += modules
        if len(modules) < len(imported) or not imported:
            targets.append(base)
    return targets


def import_closure(modules: Iterable[str], roots: Sequence[Path] | None = None) -> list[Path]:
    """Source files of the project modules ``modules`` and of every project module they import,
    transitively, sorted. Names outside ``roots`` (the standard library, NumPy, Spark) and names
    that are not modules (``from ppa import Topology``'s ``ppa.Topology``) are skipped.

    roots: folders holding the project's top-level packages; default the project root."""
    roots = [Path(r) for r in (roots or [paths.ROOT])]
    seen: dict[Path, str] = {}
    todo = list(modules)
    while todo:
        name = todo.pop()
        file = module_file(name, roots)
        if file is None or file in seen:
            continue
        seen[file] = name
        todo += _targets(file.read_text(), name, file.name == "__init__.py", roots)
    return sorted(seen)


def source_closure(source: str, roots: Sequence[Path] | None = None) -> list[Path]:
    """``import_closure`` of the modules a piece of code imports (a script, a notebook cell)."""
    roots = [Path(r) for r in (roots or [paths.ROOT])]
    return import_closure(_targets(source, "", False, roots), roots)
