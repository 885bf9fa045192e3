"""What pydantic would store without a look inside a model: record extras and ``Any`` values.

Records inside facets (a schema field, a column-lineage input) are TypedDicts that keep keys they
do not declare, and a few fields are typed ``Any`` or ``dict[str, Any]`` (a partition's
dimensions, a custom facet's free-form field). pydantic stores such values as given, so a
``NaN``, a set, bytes or a key that is not text would be accepted when built and written changed
(or not at all) later. Two checks close that gap, each paid only where such values are:

* :func:`accept_json_extras` gives every record a model uses the ``extra_items`` type
  :data:`JsonExtra` (PEP 728), so pydantic-core itself calls the check for each undeclared key,
  and never for a record that has none (the common case costs nothing);
* :func:`value_checker` compiles, once per annotation, a function that walks only the parts typed
  ``Any``; the models' ``model_post_init`` calls it when an object is built in code.
"""

from __future__ import annotations

import sys
import types
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import PlainValidator, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError
from typing_extensions import (
    NoExtraItems,
    NotRequired,
    ReadOnly,
    Required,
    TypeAliasType,
    get_type_hints,
    is_typeddict,
)

from openlineage_sdk._json import CheckedWhenBuilt, find_unwritable, is_clean

__all__ = ["Checker", "Found", "JsonExtra", "accept_json_extras", "refusal", "value_checker"]

#: ``(path, reason)`` of the first value that cannot be written as given.
Found = tuple[tuple[int | str, ...], str]
Checker = Callable[[Any], "Found | None"]


def refusal(path: tuple[int | str, ...], reason: str) -> ValidationError:
    """The error for a value that cannot be written as given, located at ``path``.

    pydantic-core puts the location of the object being validated in front of ``path``.
    """
    return ValidationError.from_exception_data(
        "unwritable value",
        [
            InitErrorDetails(
                type=PydanticCustomError("openlineage_json", "{reason}", {"reason": reason}),
                loc=path,
                input=None,
            )
        ],
    )


def _json_value(value: Any) -> Any:
    if is_clean(value, models=True):
        return value
    found = find_unwritable(value, models=True)
    if found is not None:
        raise refusal(*found)
    return value


#: The type of a record's undeclared keys: any value JSON can hold as given.
JsonExtra = Annotated[Any, PlainValidator(_json_value)]


# --- records: extra_items ---------------------------------------------------------------------


def accept_json_extras(annotation: Any) -> None:
    """Give every TypedDict inside ``annotation`` the ``extra_items`` type :data:`JsonExtra`.

    A record that declares ``extra_items`` or ``closed`` itself is left as it is. Names that
    do not resolve yet are skipped (pydantic resolves them later; those records then keep
    their extras unchecked, as any TypedDict does).
    """
    stack = [annotation]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, TypeAliasType):
            stack.append(_resolved(item.__value__, item.__module__))
        elif is_typeddict(item):
            _mark(item)
            try:
                stack.extend(get_type_hints(item, include_extras=True).values())
            except Exception:
                continue
        else:
            stack.extend(_resolved(arg, None) for arg in get_args(item))


def _mark(record: type) -> None:
    own = record.__dict__
    if own.get("__closed__") or _declares_extra_items(own):
        return
    type.__setattr__(record, "__extra_items__", JsonExtra)


def _declares_extra_items(own: Mapping[str, Any]) -> bool:
    value = own.get("__extra_items__", NoExtraItems)
    return value is not NoExtraItems and value is not JsonExtra


def _resolved(item: Any, module: str | None) -> Any:
    if isinstance(item, typing.ForwardRef) and module is not None:
        namespace = getattr(sys.modules.get(module), "__dict__", {})
        return namespace.get(item.__forward_arg__, item)
    return item


# --- values typed Any -------------------------------------------------------------------------

_CACHE: dict[Any, Checker | None] = {}


def _check_any(value: Any) -> Found | None:
    return None if is_clean(value, models=True) else find_unwritable(value, models=True)


def value_checker(annotation: Any) -> Checker | None:
    """A function finding the unwritable part of a value of ``annotation``, or None.

    None when pydantic checks every part of such a value itself (no ``Any`` inside). Raises
    nothing: an annotation it cannot take apart is checked whole, as ``Any``.
    """
    try:
        return _CACHE[annotation]
    except KeyError:
        pass
    except TypeError:  # an unhashable annotation
        return _compile(annotation, {}) if _reaches_any(annotation, set()) else None
    checker = _compile(annotation, {}) if _reaches_any(annotation, set()) else None
    _CACHE[annotation] = checker
    return checker


def _parts(annotation: Any) -> tuple[str, Any]:
    """What an annotation is: its kind and what it holds."""
    if isinstance(annotation, TypeAliasType):
        return "alias", _resolved(annotation.__value__, annotation.__module__)
    if annotation is Any or annotation is object:
        return "any", None
    if isinstance(annotation, (str, typing.ForwardRef)):
        return "any", None  # unresolved: checked whole
    if is_typeddict(annotation):
        try:
            return "record", get_type_hints(annotation, include_extras=True)
        except Exception:
            return "any", None
    origin = get_origin(annotation)
    if origin is None:
        if isinstance(annotation, type):
            if issubclass(annotation, (CheckedWhenBuilt, str, int, float, bool, type(None))):
                return "checked", None
            return (
                ("checked", None)
                if annotation.__module__ in ("uuid", "datetime")
                else ("any", None)
            )
        return "checked", None
    args = get_args(annotation)
    if origin is Annotated or origin is Required or origin is NotRequired or origin is ReadOnly:
        return "alias", args[0]
    if origin is Literal or origin is type:
        return "checked", None
    if origin is Union or origin is types.UnionType:
        return "union", args
    if isinstance(origin, type) and issubclass(origin, (list, tuple, set, frozenset)):
        return "sequence", tuple(arg for arg in args if arg is not Ellipsis)
    if isinstance(origin, type) and issubclass(origin, Mapping):
        return ("mapping", args[1]) if len(args) == 2 else ("any", None)
    return "any", None


def _reaches_any(annotation: Any, visiting: set[int]) -> bool:
    if id(annotation) in visiting:
        return False  # a cycle adds nothing a path through it would not find
    visiting.add(id(annotation))
    kind, held = _parts(annotation)
    if kind == "any":
        return True
    if kind == "checked":
        return False
    if kind in ("alias", "mapping"):
        return _reaches_any(held, visiting)
    if kind == "record":
        return any(_reaches_any(hint, visiting) for hint in held.values())
    return any(_reaches_any(arg, visiting) for arg in held)  # union, sequence


def _compile(annotation: Any, seen: dict[Any, Checker | None]) -> Checker | None:
    kind, held = _parts(annotation)
    if kind == "any":
        return _check_any
    if kind == "checked" or not _reaches_any(annotation, set()):
        return None
    if kind == "alias":
        return _compile(held, seen)
    if kind == "union":
        members = [checker for arg in held if (checker := _compile(arg, seen)) is not None]
        if len(members) == 1:
            return members[0]  # ``dict[str, Any] | None``: the check passes over other types
        return _check_any  # which member a value was validated as is not recorded
    if kind == "sequence":
        inner = [_compile(arg, seen) for arg in held]
        if len(inner) != 1 or inner[0] is None:
            return _check_any
        return _sequence_checker(inner[0])
    if kind == "mapping":
        value = _compile(held, seen)
        return None if value is None else _mapping_checker(value)
    return _record_checker(annotation, held, seen)


def _sequence_checker(item: Checker) -> Checker:
    def check(value: Any) -> Found | None:
        if not isinstance(value, (list, tuple)):
            return None
        for index, element in enumerate(value):
            found = item(element)
            if found is not None:
                return (index, *found[0]), found[1]
        return None

    return check


def _mapping_checker(item: Checker) -> Checker:
    def check(value: Any) -> Found | None:
        if not isinstance(value, Mapping):
            return None
        for key, element in value.items():
            found = item(element)
            if found is not None:
                return (key, *found[0]), found[1]
        return None

    return check


def _record_checker(record: Any, hints: dict[str, Any], seen: dict[Any, Checker | None]) -> Checker:
    if record in seen:
        known = seen[record]
        assert known is not None
        return known
    nested: list[tuple[str, Checker]] = []

    def check(value: Any) -> Found | None:
        if not isinstance(value, dict):
            return None
        for key, inner in nested:
            element = value.get(key)
            if element is not None:
                found = inner(element)
                if found is not None:
                    return (key, *found[0]), found[1]
        return None

    seen[record] = check  # before the fields: records may refer to themselves
    for key, hint in hints.items():
        inner = _compile(hint, seen)
        if inner is not None:
            nested.append((key, inner))
    return check
