"""Strict validation against the bundled OpenLineage JSON Schemas (jsonschema, offline).

``validate_event`` checks an event against the core schema of the exact version its
``schemaURL`` names, and (in strict mode) each facet against the schema its ``_schemaURL`` names,
all from the schemas bundled with the SDK; the network is never used. A facet whose
``_schemaURL`` the SDK does not bundle (a custom facet) is checked against the base facet
definition of its entity, which the core schema already applies to every facet.

The spec's string formats are checked too (a run id must be a UUID, an event time an RFC 3339
date-time with its zone, a URI a URI), as a user of the spec expects: JSON Schema 2020-12 makes
``format`` an annotation only, and ``formats=False`` gives that reading back. Core versions that were never published (the URL of a future or
skipped version) are checked against the closest bundled version of the same major version.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Final

from openlineage_sdk._errors import TYPE_WORDS, Problem, format_path, not_an_object

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError as SchemaError
    from jsonschema.protocols import Validator
    from referencing import Registry

__all__ = ["bundled_core_versions", "register_schema", "validate_event"]

_CORE = re.compile(
    r"https://openlineage\.io/spec/(?P<version>\d+-\d+-\d+)/OpenLineage\.json"
    r"(?:#/(?:definitions|\$defs)/(?P<kind>\w+))?"
)
_CORE_ID: Final = "https://openlineage.io/spec/{version}/OpenLineage.json"
_EVENT_KINDS: Final = ("RunEvent", "JobEvent", "DatasetEvent")

# Extra schemas registered at run time (custom facets of installed plugins), by $id.
_EXTRA: dict[str, dict[str, Any]] = {}


def register_schema(schema: Mapping[str, Any]) -> None:
    """Make a schema (by its ``$id``) available to strict validation, e.g. a custom facet's.

    Raises:
        ValueError: the schema has no ``$id``.
    """
    schema_id = schema.get("$id")
    if not isinstance(schema_id, str):
        raise ValueError("a schema needs an '$id' to be registered")
    _EXTRA[schema_id] = dict(schema)
    _registry.cache_clear()
    _validator.cache_clear()


@cache
def _bundle() -> dict[str, dict[str, Any]]:
    text = resources.files("openlineage_sdk.models").joinpath("schemas.json").read_text("utf-8")
    bundle: dict[str, dict[str, Any]] = json.loads(text)["schemas"]
    return bundle


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("-"))


@cache
def bundled_core_versions() -> tuple[str, ...]:
    """The core spec versions whose schema is bundled, oldest first."""
    versions = []
    for schema_id in _bundle():
        match = _CORE.fullmatch(schema_id)
        if match:
            versions.append(match.group("version"))
    return tuple(sorted(versions, key=_version_key))


def _closest_core(version: str) -> str:
    bundled = bundled_core_versions()
    if version in bundled:
        return version
    wanted = _version_key(version)
    same_major = [v for v in bundled if _version_key(v)[0] == wanted[0]]
    candidates = same_major or list(bundled)
    below = [v for v in candidates if _version_key(v) <= wanted]
    return below[-1] if below else candidates[0]


@cache
def _registry() -> Registry:
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    bundle = {**_bundle(), **_EXTRA}
    resources_ = [
        (uri, Resource.from_contents(doc, default_specification=DRAFT202012))
        for uri, doc in bundle.items()
    ]
    registry: Registry = Registry().with_resources(resources_)
    return registry.crawl()


@cache
def _validator(ref: str, formats: bool) -> Validator:
    from jsonschema import Draft202012Validator

    format_checker = _format_checker() if formats else None
    return Draft202012Validator({"$ref": ref}, registry=_registry(), format_checker=format_checker)


def _format_checker() -> Any:
    from jsonschema import FormatChecker

    from openlineage_sdk._types import FORMATS

    checker = FormatChecker(formats=())
    for name, (is_valid, _) in FORMATS.items():
        checker.checks(name)(
            lambda value, _valid=is_valid: not isinstance(value, str) or _valid(value)
        )
    return checker


def _resolvable(url: str) -> bool:
    doc, _, fragment = url.partition("#")
    bundle = _bundle()
    schema = bundle.get(doc) or _EXTRA.get(doc)
    if schema is None or not fragment.startswith("/"):
        return False
    node: Any = schema
    for part in fragment[1:].split("/"):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return isinstance(node, dict)


def _core_ref(event: Mapping[str, Any]) -> tuple[str, list[Problem]]:
    """The core definition to check the event against, and problems with its schemaURL."""
    problems: list[Problem] = []
    url = event.get("schemaURL")
    match = _CORE.fullmatch(url) if isinstance(url, str) else None
    if match is None:
        from openlineage_sdk._read import event_class

        problems.append(
            Problem(
                "schemaURL",
                f"expected the URL of an OpenLineage core schema, got {url!r}",
                "schemaURL",
            )
        )
        version, kind = bundled_core_versions()[-1], event_class(event).__name__
    else:
        version = _closest_core(match.group("version"))
        kind = match.group("kind") or "RunEvent"
    schema = _bundle()[_CORE_ID.format(version=version)]
    container = "$defs" if "$defs" in schema else "definitions"
    if kind not in schema.get(container, {}):
        problems.append(
            Problem("schemaURL", f"core schema {version} defines no {kind}", "schemaURL")
        )
        kind = "RunEvent"
    return f"{_CORE_ID.format(version=version)}#/{container}/{kind}", problems


def _facets(event: Mapping[str, Any]) -> Iterator[tuple[tuple[int | str, ...], Any]]:
    """Every facet of the event with its path: run, job, dataset(s), input and output facets."""
    for owner in ("run", "job", "dataset"):
        node = event.get(owner)
        if isinstance(node, Mapping):
            yield from _container((owner,), node, "facets")
    for side, containers in (
        ("inputs", ("facets", "inputFacets")),
        ("outputs", ("facets", "outputFacets")),
    ):
        datasets = event.get(side)
        if isinstance(datasets, list):
            for index, dataset in enumerate(datasets):
                if isinstance(dataset, Mapping):
                    for name in containers:
                        yield from _container((side, index), dataset, name)


def _container(
    owner: tuple[int | str, ...], node: Mapping[str, Any], name: str
) -> Iterator[tuple[tuple[int | str, ...], Any]]:
    facets = node.get(name)
    if isinstance(facets, Mapping):
        for key, facet in facets.items():
            yield (*owner, name, key), facet


def _leaves(error: SchemaError) -> Iterator[SchemaError]:
    # anyOf/oneOf errors hold the reasons of each branch; report the branch that got furthest.
    if error.context:
        from jsonschema.exceptions import best_match

        best = best_match(error.context)
        if best is not None and best is not error:
            yield from _leaves(best)
            return
    yield error


def _problem(prefix: tuple[int | str, ...], error: SchemaError) -> Problem:
    path = (*prefix, *error.absolute_path)
    kind = str(error.validator)
    expected: Any = error.validator_value
    if kind == "required":
        missing = re.match(r"'(.*)' is a required property", error.message)
        if missing:
            return Problem(
                format_path((*path, missing.group(1))), "required field is missing", "required"
            )
    if kind == "type":
        names = [expected] if isinstance(expected, str) else list(expected)
        words = " or ".join(TYPE_WORDS.get(n, n) for n in names)
        return Problem(format_path(path), f"expected {words}, got {error.instance!r}", "type")
    if kind == "enum":
        options = ", ".join(repr(v) for v in expected)
        return Problem(
            format_path(path), f"expected one of {options}, got {error.instance!r}", "enum"
        )
    if kind == "format":
        from openlineage_sdk._types import FORMATS

        words = FORMATS[expected][1] if expected in FORMATS else f"the format {expected}"
        return Problem(format_path(path), f"expected {words}, got {error.instance!r}", "format")
    return Problem(format_path(path), error.message, kind)


def validate_event(
    data: str | bytes | bytearray | Mapping[str, Any] | Any,
    *,
    strict: bool = True,
    formats: bool = True,
) -> list[Problem]:
    """Check an event against the bundled schemas; return the problems, empty when valid.

    Args:
        data: JSON text or bytes, a parsed JSON value, or an event model.
        strict: also check each facet against the schema its ``_schemaURL`` names (otherwise
            only the core schema, which checks every facet against its entity's base facet).
        formats: also check the spec's string formats (``date-time``, ``uuid``, ``uri``); the
            default. False reads ``format`` as JSON Schema 2020-12 does, as an annotation only.

    Returns:
        One :class:`Problem` per broken rule, with the JSON path of the offending value.
    """
    if isinstance(data, (str, bytes, bytearray)):
        try:
            event = json.loads(data)
        except ValueError as exc:
            return [Problem("", f"not valid JSON ({exc})", "json")]
    elif isinstance(data, Mapping):
        event = data
    elif hasattr(data, "to_dict"):
        event = data.to_dict()
    elif data is None or isinstance(data, (list, int, float)):
        event = data  # parsed JSON that is not an object: reported below
    else:
        raise TypeError(
            f"validate_event() takes JSON, a mapping or an event, not {type(data).__name__}"
        )
    if not isinstance(event, Mapping):
        return [not_an_object(event)]

    from openlineage_sdk._facet_registry import registry

    registry.load_entry_points()  # plugins' facet schemas join the bundled ones
    ref, problems = _core_ref(event)
    for error in _validator(ref, formats).iter_errors(event):
        problems.extend(_problem((), leaf) for leaf in _leaves(error))
    if strict:
        for path, facet in _facets(event):
            url = facet.get("_schemaURL") if isinstance(facet, Mapping) else None
            if not isinstance(url, str):
                continue  # the core schema already reported a facet without _schemaURL
            if not _resolvable(url):
                continue
            for error in _validator(url, formats).iter_errors(facet):
                problems.extend(_problem(path, leaf) for leaf in _leaves(error))
    return list(dict.fromkeys(problems))  # each problem once, in order
