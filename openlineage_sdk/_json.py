"""What can be written as JSON exactly as it was given, checked without recursion.

An event is written with pydantic-core, which would change some Python values on the way out
rather than refuse them: ``NaN`` and ``Infinity`` become ``null``, ``{1: "a", "1": "b"}`` is
written with the key ``"1"`` twice, a set becomes an array in an arbitrary order, a tuple key
becomes ``"1,2"`` and bytes become text; others (a lone surrogate such as ``"a\\ud800"``, an
arbitrary object) only fail when the event is written, far from where they were given. The
models refuse such values where they enter (see :mod:`openlineage_sdk._base`), naming the field:
:func:`find_unwritable` finds the first one in a value, with its path.

The walk uses its own stack, so a value nested deeper than Python's recursion limit gets the
same answer (``nested more than 200 levels deep``) instead of a ``RecursionError``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any, Final

from pydantic_core import from_json

from openlineage_sdk._errors import Problem, format_path

__all__ = [
    "BIG_EXPONENT",
    "BIG_EXPONENT_BYTES",
    "MAX_DEPTH",
    "CheckedWhenBuilt",
    "find_unwritable",
    "has_surrogate",
    "surrogate_free",
    "too_deep",
    "unwritable_problem",
]

#: The deepest nesting of arrays and objects accepted inside an event (the event itself is
#: level 1). pydantic-core's JSON parser stops at about 200 levels too; real events stay far below.
MAX_DEPTH: Final = 200

_SURROGATE: Final = re.compile("[\ud800-\udfff]")


#: A number with a three-digit exponent: ``1e999`` is read as infinity by JSON parsers, which
#: would then write it as ``null``. Text that may hold one is read the careful way.
BIG_EXPONENT: Final = re.compile(r"[eE][+-]?\d\d\d")
BIG_EXPONENT_BYTES: Final = re.compile(rb"[eE][+-]?\d\d\d")


class CheckedWhenBuilt:
    """Base of objects whose values were checked to be writable when they were built.

    The SDK's models derive from it (:class:`openlineage_sdk._base.OpenLineageModel`): a walk
    that meets one inside a value takes it as checked, without this module knowing the models.
    """

    __slots__ = ()


def has_surrogate(text: str) -> bool:
    """Tell whether ``text`` holds a lone surrogate (a code point UTF-8 cannot encode)."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def surrogate_free(text: str) -> str:
    """``text`` with each lone surrogate shown as its escape, safe to put in a message."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _scalar_problem(value: Any) -> str | None:
    """Why a value that is not a container cannot be written as given, or None when it can."""
    kind = type(value)
    if kind is str:
        if has_surrogate(value):
            return "text holds a lone surrogate, which UTF-8 (and so JSON) cannot encode"
        return None
    if kind is float:
        if not math.isfinite(value):
            return f"{value!r} is not a JSON number (NaN and Infinity cannot be written)"
        return None
    if kind is int or kind is bool or value is None:
        return None
    # Subclasses (str and int enums, numpy-like scalars) are written as the value they hold.
    if isinstance(value, str):
        return _scalar_problem(str.__str__(value))
    if isinstance(value, float):
        return _scalar_problem(float(value))
    if isinstance(value, int):
        return None
    return (
        f"expected a JSON value (text, number, true/false, null, list or dict), got {kind.__name__}"
    )


def find_unwritable(
    value: Any, *, max_depth: int = MAX_DEPTH, models: bool = False
) -> tuple[tuple[int | str, ...], str] | None:
    """Find the first part of ``value`` that would not be written as JSON exactly as given.

    Args:
        value: the value to check (a JSON-like tree of dicts, lists and scalars).
        max_depth: the deepest nesting accepted (``value`` itself is level 1).
        models: accept instances of the SDK's models inside (they were checked when built).

    Returns:
        ``(path, reason)`` of the first offending value, the path relative to ``value``; None
        when all of it can be written as given.
    """
    stack: list[tuple[tuple[int | str, ...], Any]] = [((), value)]
    while stack:
        path, item = stack.pop()
        kind = type(item)
        if kind is dict or (kind is not list and isinstance(item, Mapping)):
            if len(path) >= max_depth:
                return path, f"nested more than {max_depth} levels deep"
            children = []
            for key, child in item.items():
                if type(key) is not str:
                    return path, (
                        f"a key must be text, got {type(key).__name__} {_short(key)} "
                        "(JSON object keys are strings; it would be written changed)"
                    )
                if has_surrogate(key):
                    return path, "a key holds a lone surrogate, which UTF-8 cannot encode"
                children.append(((*path, key), child))
            stack.extend(reversed(children))
        elif kind is list or kind is tuple:
            if len(path) >= max_depth:
                return path, f"nested more than {max_depth} levels deep"
            stack.extend(reversed([((*path, index), child) for index, child in enumerate(item)]))
        elif models and isinstance(item, CheckedWhenBuilt):
            continue
        else:
            problem = _scalar_problem(item)
            if problem is not None:
                return path, problem
    return None


def _short(value: Any) -> str:
    text = repr(value)
    return surrogate_free(text if len(text) <= 60 else text[:57] + "...")


def unwritable_problem(value: Any, *, models: bool = False) -> Problem | None:
    """The first part of ``value`` that cannot be written as given, as a :class:`Problem`.

    Args:
        value: a parsed JSON document, or a mapping given as one.
        models: accept instances of the SDK's models inside.

    Returns:
        A problem with the JSON path and the rule (``depth`` or ``json``), or None.
    """
    if not models and _round_trips(value):
        return None
    found = find_unwritable(value, models=models)
    if found is None:
        return None
    path, reason = found
    return Problem(format_path(path), reason, "depth" if reason.startswith("nested") else "json")


def _round_trips(value: Any) -> bool:
    """Tell quickly (in C and Rust) whether ``value`` is written and read back as the same value.

    The standard encoder refuses NaN, Infinity and what is not JSON; pydantic-core's parser
    refuses lone surrogates and nesting deeper than about 200 levels; the comparison catches
    keys that are not text. Only a value that fails is walked in Python, to say where.
    """
    try:
        return bool(from_json(json.dumps(value, allow_nan=False), allow_inf_nan=False) == value)
    except (ValueError, TypeError, RecursionError):
        return False


def too_deep(max_depth: int = MAX_DEPTH) -> Problem:
    """The problem of a document nested too deeply for Python's own JSON parser to read."""
    return Problem("", f"nested more than {max_depth} levels deep", "depth")
