"""Errors that name the JSON path and the rule that broke."""

from __future__ import annotations

import re
import reprlib
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import UnionType
from typing import (
    Annotated,
    Any,
    Final,
    ForwardRef,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from pydantic import ValidationError
from pydantic_core import ErrorDetails
from typing_extensions import NotRequired, Required, TypeAliasType, is_typeddict

__all__ = [
    "TYPE_WORDS",
    "OpenLineageValidationError",
    "Problem",
    "format_path",
    "json_loc",
    "not_an_object",
    "problems_from_pydantic",
]

_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class Problem:
    """One way an event breaks the spec.

    Attributes:
        path: JSON path with the spec's names, e.g. ``outputs[0].outputFacets.outputStatistics.rowCount``
            (empty for the event itself).
        message: what is wrong, e.g. ``expected an integer, got 'abc'``.
        rule: the kind of rule: ``required``, ``type``, ``format``, ``enum``, ``const``,
            ``additionalProperties``, ``schema`` (a JSON Schema keyword otherwise).
    """

    path: str
    message: str
    rule: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class OpenLineageValidationError(ValueError):
    """An event, facet or record does not follow the spec.

    ``problems`` lists each broken rule with its path; ``str(error)`` shows them one per line.
    """

    def __init__(self, title: str, problems: Sequence[Problem]) -> None:
        self.title = title
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__(self._render())

    def _render(self) -> str:
        if len(self.problems) == 1:
            return f"{self.title}: {self.problems[0]}"
        lines = [f"{self.title}: {len(self.problems)} problems"]
        lines.extend(f"  {problem}" for problem in self.problems)
        return "\n".join(lines)


def format_path(loc: Iterable[int | str]) -> str:
    """``("outputs", 0, "outputFacets", "spark.plan")`` -> ``outputs[0].outputFacets["spark.plan"]``."""
    out: list[str] = []
    for part in loc:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif _IDENTIFIER.match(part):
            out.append(f".{part}" if out else part)
        else:
            out.append(f"[{part!r}]")
    return "".join(out)


#: JSON Schema type name -> how a message names it ("expected an integer").
TYPE_WORDS: Final = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "boolean": "a boolean",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


def not_an_object(value: object) -> Problem:
    """The problem of a JSON document that is not an object (an event must be one)."""
    if value is None:
        kind = "null"
    elif isinstance(value, bool):
        kind = "boolean"
    else:
        kind = {int: "integer", float: "number", str: "string", list: "array"}.get(
            type(value), type(value).__name__
        )
    return Problem("", f"expected a JSON object, got {TYPE_WORDS.get(kind, kind)}", "type")


# pydantic-core's type names (the prefix of its "<name>_type" error kinds) -> JSON Schema's.
_PYDANTIC_TYPES: Final = {
    "int": "integer",
    "float": "number",
    "string": "string",
    "bool": "boolean",
    "list": "array",
    "dict": "object",
    "model": "object",
    "model_attributes": "object",
    "typed_dict": "object",
    "none_required": "null",
    "tuple": "array",
    "set": "array",
}


def _describe(error: ErrorDetails) -> tuple[str, str]:
    kind = error["type"]
    value = _Shown(error.get("input"))
    context: dict[str, Any] = dict(error.get("ctx") or {})
    if kind == "missing":
        return "required field is missing", "required"
    # Values that would be written changed, or could not be written at all (openlineage_sdk._json).
    if kind == "openlineage_json":
        return error["msg"], "json"
    if kind == "finite_number":
        return f"{value!r} is not a JSON number (NaN and Infinity cannot be written)", "json"
    if kind == "string_unicode":
        return "text holds a lone surrogate, which UTF-8 (and so JSON) cannot encode", "json"
    if kind == "recursion_depth_exceeded":
        return "nested too deeply to be checked (arrays or objects within each other)", "depth"
    if kind == "openlineage_format":
        return error["msg"], "format"
    if kind == "literal_error":
        expected = context.get("expected", "")
        return f"expected {expected}, got {value!r}", "enum"
    if kind == "extra_forbidden":
        return "unexpected field (the schema allows no other fields here)", "additionalProperties"
    for prefix, json_type in _PYDANTIC_TYPES.items():
        if kind in (f"{prefix}_type", f"{prefix}_parsing"):
            return f"expected {TYPE_WORDS[json_type]}, got {value!r}", "type"
    if kind == "value_error":
        return str(context.get("error", error["msg"])), "schema"
    return f"{error['msg']} (got {value!r})", kind


class _Shown:
    """A value as an error message shows it: its repr, shortened when too deep to print."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        try:
            return repr(self.value)
        except RecursionError:
            return reprlib.repr(self.value)


def _unwrap(annotation: Any) -> Any:
    """Strip ``Annotated``, ``None`` and type aliases: ``Annotated[X | None, ...]`` -> ``X``."""
    while True:
        if isinstance(annotation, TypeAliasType):
            annotation = _alias_value(annotation)
            continue
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
            continue
        if origin in (Union, UnionType):
            members = [a for a in get_args(annotation) if a is not type(None)]
            if len(members) == 1:
                annotation = members[0]
                continue
        return annotation


def _alias_value(alias: TypeAliasType) -> Any:
    """The type an alias stands for; union members named by string (recursive records) resolved."""
    value: Any = alias.__value__
    if get_origin(value) not in (Union, UnionType):
        return value
    namespace = vars(sys.modules[str(alias.__module__)])
    members = tuple(
        namespace.get(a.__forward_arg__, a) if isinstance(a, ForwardRef) else a
        for a in get_args(value)
    )
    return Union[members]  # noqa: UP007 - built from a tuple of members


def json_loc(model: type[Any] | None, loc: Sequence[int | str]) -> tuple[int | str, ...]:
    """Rewrite an error location from Python field names to the spec's JSON names.

    ``(RunEvent, ("outputs", 0, "output_facets", "output_statistics", "row_count"))`` ->
    ``("outputs", 0, "outputFacets", "outputStatistics", "rowCount")``. Where the type is a union,
    pydantic names the member an error comes from (``LineageJobEntry``); that segment is not a
    JSON key and is left out. Segments that cannot be placed are kept as given.
    """
    out: list[int | str] = []
    current: Any = model
    for part in loc:
        current = _unwrap(current)
        if isinstance(part, str) and get_origin(current) in (Union, UnionType):
            member = next(
                (m for m in get_args(current) if getattr(m, "__name__", None) == part), None
            )
            if member is not None:
                current = member
                continue
            # A key inside whichever member the value was (an error raised after validation
            # names no member): kept, and the type is followed no further.
            current = None
        fields = getattr(current, "model_fields", None) if isinstance(current, type) else None
        if isinstance(part, str) and isinstance(fields, dict):
            field = fields.get(part)
            if field is None:
                field = next((f for n, f in fields.items() if f.alias == part), None)
            if field is not None:
                out.append(field.alias or part)
                current = field.annotation
                continue
            current = None
        elif isinstance(part, str) and is_typeddict(current):
            current = get_type_hints(current, include_extras=True).get(part)
            current = (
                get_args(current)[0] if get_origin(current) in (Required, NotRequired) else current
            )
        elif get_origin(current) in (list, tuple) and isinstance(part, int):
            current = get_args(current)[0] if get_args(current) else None
        elif get_origin(current) is dict and isinstance(part, str):
            current = get_args(current)[1] if get_args(current) else None
        else:
            current = None
        out.append(part)
    return tuple(out)


def problems_from_pydantic(
    exc: ValidationError | Iterable[ErrorDetails], *, model: type[Any] | None = None
) -> list[Problem]:
    """Translate a pydantic ``ValidationError`` into :class:`Problem` s with JSON paths.

    Args:
        exc: the pydantic error, or some of its ``errors()``.
        model: the model class validated, to write Python field names as JSON names and leave
            out the union members pydantic names (see :func:`json_loc`).
    """
    seen: set[tuple[str, str]] = set()
    problems: list[Problem] = []
    details = exc.errors(include_url=False) if isinstance(exc, ValidationError) else exc
    for error in details:
        message, rule = _describe(error)
        path = format_path(json_loc(model, error["loc"]))
        if (path, message) in seen:
            continue
        seen.add((path, message))
        problems.append(Problem(path=path, message=message, rule=rule))
    return problems
