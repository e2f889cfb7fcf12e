"""A notebook parameter's value against the type and shape of its ``parameters``-cell default,
and against the range declared for it in profiles.toml (``[NOTEBOOK.ranges]``).

Checked before any kernel starts, so ``-p n_values=banana`` or ``-p table3_runs=-5`` is refused at
once naming the parameter the user set, instead of failing in a cell later (under an internal
name). Type and shape: an int, a float (an int is accepted), a str, a bool, a list whose elements
have the default's element type, a dict with the default's keys; a list whose default is not empty
must not be empty. A default may also name a paper's settings
(``fastrecover.settings.CHAIN.point()``, the cell importing ``fastrecover.settings``): it is read
from that module, so a paper default is typed once. Any other default that is not a Python
literal (``np.inf``, ``2 * 60``) or is ``None`` accepts anything. Ranges (``out_of_range``):
``">= 1"``, ``"> 0"``, ``"[0, 1]"``, or several joined by ``,``, applied to a number or to every
number inside a list or dict.
"""

import ast
import importlib
import operator
import re

_NUMBER = (int, float)
# <paper>.settings.<attribute>... with an optional call without arguments at the end
_SETTINGS = re.compile(
    r"(?P<paper>fastrecover|ppa|incremental|multilevel|khaos)\.settings(\.[A-Za-z_]\w*)+(\(\))?"
)


def _is_number(value) -> bool:
    return isinstance(value, _NUMBER) and not isinstance(value, bool)


def _element(items) -> object | None:
    """A prototype of the elements of a default list; None when empty or mixed."""
    if items and all(_is_number(v) for v in items):
        return 0.0 if any(isinstance(v, float) for v in items) else 0
    if items and len({describe(v) for v in items}) == 1:
        return items[0]
    return None


def describe(proto) -> str:
    """The type of ``proto`` as a user reads it: ``int``, ``list of float``, ``dict {n: int}``."""
    if isinstance(proto, bool):
        return "bool"
    if isinstance(proto, int | float | str):
        return type(proto).__name__
    if isinstance(proto, list | tuple):
        element = _element(proto)
        return "list" if element is None else f"list of {describe(element)}"
    if isinstance(proto, dict):
        return "dict {" + ", ".join(f"{k}: {describe(v)}" for k, v in proto.items()) + "}"
    return type(proto).__name__


def conforms(value, proto) -> bool:
    if proto is None:
        return True
    if isinstance(proto, bool):
        return isinstance(value, bool)
    if isinstance(proto, int):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(proto, float):
        return _is_number(value)
    if isinstance(proto, str):
        return isinstance(value, str)
    if isinstance(proto, list | tuple):
        element = _element(proto)
        return isinstance(value, list | tuple) and (
            element is None or all(conforms(v, element) for v in value)
        )
    if isinstance(proto, dict):
        return (
            isinstance(value, dict)
            and set(value) == set(proto)
            and all(conforms(value[k], proto[k]) for k in proto)
        )
    return True


def default_value(default_source: str):
    """The value of a parameters-cell default (source text): a Python literal, or an expression
    of a paper's settings module, imported to read it; None when it is neither."""
    try:
        return ast.literal_eval(default_source)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    match = _SETTINGS.fullmatch(default_source.strip())
    if match is None:
        return None
    paper = match["paper"]
    importlib.import_module(f"{paper}.settings")
    return eval(default_source, {"__builtins__": {}}, {paper: importlib.import_module(paper)})


def mismatch(key: str, value, default_source: str) -> str | None:
    """One line saying how ``value`` fails the default's type (source text), or None if it fits."""
    proto = default_value(default_source)
    if conforms(value, proto):
        return None
    kind = describe(proto)
    article = "an" if kind[0] in "aeiou" else "a"
    example = repr(proto)
    shown = f" like {example}" if len(example) <= 60 else ""
    return f"parameter {key} expects {article} {kind}{shown}; got {value!r}"


def _empty_list(value, proto) -> bool:
    """An empty list where the default is a non-empty one, at any depth of a dict."""
    if isinstance(proto, list | tuple):
        return bool(proto) and isinstance(value, list | tuple) and not value
    if isinstance(proto, dict) and isinstance(value, dict):
        return any(_empty_list(value.get(k), v) for k, v in proto.items())
    return False


def emptiness(key: str, value, default_source: str) -> str | None:
    """One line if ``value`` is an empty list where the default has values, else None."""
    proto = default_value(default_source)
    if _empty_list(value, proto):
        return f"parameter {key} must not be empty; got {value!r}"
    return None


_BOUND = re.compile(r"^(>=|<=|>|<)\s*(-?[\d.eE+_-]+)$")
_INTERVAL = re.compile(r"^\[\s*(-?[\d.eE+_-]+)\s*,\s*(-?[\d.eE+_-]+)\s*\]$")
_COMPARE = {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}


def _conditions(spec: str) -> list[tuple[str, object]]:
    """``spec`` as (text, predicate) pairs; raises ValueError on a spec it cannot read."""
    found = []
    for part in re.split(r",(?![^\[]*\])", spec):
        part = part.strip()
        if bound := _BOUND.match(part):
            limit, compare = float(bound[2]), _COMPARE[bound[1]]
            found.append((part, lambda x, c=compare, v=limit: c(x, v)))
        elif interval := _INTERVAL.match(part):
            lo, hi = float(interval[1]), float(interval[2])
            found.append((f"in [{interval[1]}, {interval[2]}]", lambda x, a=lo, b=hi: a <= x <= b))
        else:
            raise ValueError(f"range {spec!r}: expected e.g. '>= 1', '> 0' or '[0, 1]'")
    return found


def _numbers(value):
    if _is_number(value):
        yield value
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _numbers(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _numbers(v)


def out_of_range(key: str, value, spec: str) -> str | None:
    """One line naming ``key`` if a number in ``value`` breaks the declared range ``spec``."""
    for text, holds in _conditions(spec):
        for number in _numbers(value):
            if not holds(number):
                inside = "" if _is_number(value) else f" (each value; {number!r} is not)"
                return f"parameter {key} must be {text}{inside}; got {value!r}"
    return None
