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

Clean values, which nearly all are, should cost next to nothing, so two quick checks answer
first and the walk runs only when one of them fails, to say where: :func:`is_clean` for any
value (it may answer no for a value the walk accepts, never yes for one it refuses) and
:func:`may_hold_non_finite` for values read by a JSON parser, where a number too large for a
float (``1e999``) and the literals ``NaN`` and ``Infinity`` are the only thing to look for.
"""

from __future__ import annotations

import marshal
import math
import re
from collections.abc import Mapping
from typing import Any, Final

from openlineage_sdk._errors import Problem, format_path

__all__ = [
    "MAX_DEPTH",
    "CheckedWhenBuilt",
    "find_unwritable",
    "has_surrogate",
    "is_clean",
    "may_hold_non_finite",
    "surrogate_free",
    "too_deep",
    "unwritable_problem",
]

#: The deepest nesting of arrays and objects accepted inside an event (the event itself is
#: level 1). pydantic-core's JSON parser stops at about 200 levels too; real events stay far below.
MAX_DEPTH: Final = 200

_SURROGATE: Final = re.compile("[\ud800-\udfff]")


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
    if is_clean(value, models=models):
        return None
    found = find_unwritable(value, models=models)
    if found is None:
        return None
    path, reason = found
    return Problem(format_path(path), reason, "depth" if reason.startswith("nested") else "json")


def is_clean(value: Any, levels: int = MAX_DEPTH, *, models: bool = False) -> bool:
    """Tell quickly whether ``value`` is plain JSON that is written exactly as given.

    True only for dicts with text keys, lists, tuples, text without lone surrogates, finite
    floats, integers, booleans and None (and, with ``models``, the SDK's models), nested at most
    ``levels`` deep. False is a question, not an answer: :func:`find_unwritable` accepts some
    values this check does not know (subclasses of str, int and float, other mappings), and
    says where the others go wrong.
    """
    try:
        return _clean(value, levels, models)
    except RecursionError:  # pragma: no cover - levels above the interpreter's limit
        return False


def _text_ok(text: str) -> bool:
    # ASCII text is the common case and cannot hold a surrogate (a flag, no scan).
    return text.isascii() or _SURROGATE.search(text) is None


def _clean(value: Any, levels: int, models: bool) -> bool:
    # One function call per container, none per scalar: the checks of scalars are inline.
    # ``x - x == 0`` is false exactly for NaN and the infinities (and cheaper than isfinite).
    kind = type(value)
    if kind is dict:
        if levels < 1:
            return False
        levels -= 1
        for key, item in value.items():
            if type(key) is not str or not (key.isascii() or _text_ok(key)):
                return False
            kind = type(item)
            if kind is str:
                if not (item.isascii() or _text_ok(item)):
                    return False
            elif kind is int or kind is bool or item is None:
                continue
            elif kind is float:
                if item - item != 0:
                    return False
            elif not _clean(item, levels, models):
                return False
        return True
    if kind is list or kind is tuple:
        if levels < 1:
            return False
        levels -= 1
        for item in value:
            kind = type(item)
            if kind is str:
                if not (item.isascii() or _text_ok(item)):
                    return False
            elif kind is int or kind is bool or item is None:
                continue
            elif kind is float:
                if item - item != 0:
                    return False
            elif not _clean(item, levels, models):
                return False
        return True
    if kind is str:
        return value.isascii() or _text_ok(value)
    if kind is int or kind is bool or value is None:
        return True
    if kind is float:
        return bool(value - value == 0)
    return models and isinstance(value, CheckedWhenBuilt)


# A float is marshalled as its type code (``g``, or 0xE7 with the reference flag) and its eight
# bytes, little-endian; NaN and the infinities have all exponent bits set, so their last two
# bytes are 0x7FF0 or more, or 0xFFF0 or more.
_FLOAT_CODES: Final = (0x67, 0xE7)


def may_hold_non_finite(value: Any) -> bool:
    """Tell quickly whether a value read by a JSON parser may hold NaN or an infinity.

    A parser reads the literals ``NaN`` and ``Infinity`` and numbers too large for a float
    (``1e999``) as such floats, which would be written as ``null``; everything else it reads
    (text, keys, nesting) its own checks have already passed. False is an answer; True may be
    a false alarm (text whose bytes look like such a float), which the walk then clears.

    Marshalling the value (in C, a fraction of the time parsing took) writes every float in
    its binary form, where a non-finite one is found without looking at the text's numbers.
    """
    kind = type(value)
    if kind is float:
        return not math.isfinite(value)
    if kind is not dict and kind is not list:
        return False
    try:
        data = marshal.dumps(value)
    except ValueError:  # not only what a JSON parser reads
        return True
    for last in (0x7F, 0xFF):
        index = data.find(last, 8)
        while index != -1:
            if data[index - 1] >= 0xF0 and data[index - 8] in _FLOAT_CODES:
                return True
            index = data.find(last, index + 1)
    return False


def too_deep(max_depth: int = MAX_DEPTH) -> Problem:
    """The problem of a document nested too deeply for Python's own JSON parser to read."""
    return Problem("", f"nested more than {max_depth} levels deep", "depth")
