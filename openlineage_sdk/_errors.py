"""Errors that name the JSON path and the rule that broke."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import UnionType
from typing import Annotated, Any, Final, Union, get_args, get_origin, get_type_hints

from pydantic import ValidationError
from pydantic_core import ErrorDetails
from typing_extensions import NotRequired, Required, is_typeddict

__all__ = [
    "OpenLineageValidationError",
    "Problem",
    "format_path",
    "json_loc",
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


_TYPE_WORDS: Final = {
    "int": "an integer",
    "float": "a number",
    "string": "a string",
    "bool": "a boolean",
    "list": "an array",
    "dict": "an object",
    "model": "an object",
    "model_attributes": "an object",
    "typed_dict": "an object",
    "none_required": "null",
    "tuple": "an array",
    "set": "an array",
}


def _describe(error: ErrorDetails) -> tuple[str, str]:
    kind = error["type"]
    value = error.get("input")
    context: dict[str, Any] = dict(error.get("ctx") or {})
    if kind == "missing":
        return "required field is missing", "required"
    if kind == "openlineage_format":
        return error["msg"], "format"
    if kind == "literal_error":
        expected = context.get("expected", "")
        return f"expected {expected}, got {value!r}", "enum"
    if kind == "extra_forbidden":
        return "unexpected field (the schema allows no other fields here)", "additionalProperties"
    for prefix, words in _TYPE_WORDS.items():
        if kind in (f"{prefix}_type", f"{prefix}_parsing") or (
            prefix == "model" and kind in ("model_type", "model_attributes_type")
        ):
            return f"expected {words}, got {value!r}", "type"
    if kind == "value_error":
        return str(context.get("error", error["msg"])), "schema"
    return f"{error['msg']} (got {value!r})", kind


# pydantic adds a segment naming the union member or validator an error came from; these are
# not JSON keys and would only confuse the path.
_TAG: Final = re.compile(
    r"^(function-[a-z]+\[.*\]|int|float|str|bool|typed-dict|[A-Z][A-Za-z0-9]*)$"
)


def _clean_loc(loc: tuple[int | str, ...], json_keys: frozenset[str]) -> tuple[int | str, ...]:
    return tuple(
        part for part in loc if isinstance(part, int) or part in json_keys or not _TAG.match(part)
    )


def _unwrap(annotation: Any) -> Any:
    """Strip ``Annotated`` and ``None`` from a type: ``Annotated[X | None, ...]`` -> ``X``."""
    while True:
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


def json_loc(model: type[Any] | None, loc: Sequence[int | str]) -> tuple[int | str, ...]:
    """Rewrite an error location from Python field names to the spec's JSON names.

    ``(RunEvent, ("outputs", 0, "output_facets", "output_statistics", "row_count"))`` ->
    ``("outputs", 0, "outputFacets", "outputStatistics", "rowCount")``. Segments that cannot be
    placed (inside a union) are kept as given.
    """
    out: list[int | str] = []
    current: Any = model
    for part in loc:
        current = _unwrap(current)
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
    exc: ValidationError | Iterable[ErrorDetails],
    *,
    prefix: Sequence[int | str] = (),
    json_keys: frozenset[str] = frozenset(),
    model: type[Any] | None = None,
) -> list[Problem]:
    """Translate a pydantic ``ValidationError`` into :class:`Problem` s with JSON paths.

    Args:
        exc: the pydantic error, or some of its ``errors()`` (locations use JSON names: the
            models validate by alias).
        prefix: path of the validated object inside the event.
        json_keys: names that look like union tags but are real keys at this point.
        model: the model class validated, to write Python field names as JSON names.
    """
    seen: set[tuple[str, str]] = set()
    problems: list[Problem] = []
    details = exc.errors(include_url=False) if isinstance(exc, ValidationError) else exc
    for error in details:
        loc = (*prefix, *json_loc(model, _clean_loc(tuple(error["loc"]), json_keys)))
        message, rule = _describe(error)
        path = format_path(loc)
        if (path, message) in seen:
            continue
        seen.add((path, message))
        problems.append(Problem(path=path, message=message, rule=rule))
    return problems
