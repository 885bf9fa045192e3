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
from typing import TYPE_CHECKING, Any, Final

from openlineage_sdk import _schema_store as schema_store
from openlineage_sdk._errors import TYPE_WORDS, Problem, format_path, not_an_object
from openlineage_sdk._json import (
    may_hold_non_finite,
    too_deep,
    unwritable_problem,
)

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError as SchemaError
    from jsonschema.protocols import Validator
    from referencing import Registry

__all__ = ["bundled_core_versions", "validate_event"]

_CORE = re.compile(
    r"https://openlineage\.io/spec/(?P<version>\d+-\d+-\d+)/OpenLineage\.json"
    r"(?:#/(?:definitions|\$defs)/(?P<kind>\w+))?"
)
_CORE_ID: Final = "https://openlineage.io/spec/{version}/OpenLineage.json"
_EVENT_KINDS: Final = ("RunEvent", "JobEvent", "DatasetEvent")

# The schema store's generation the compiled validators below were built for.
_built_for = -1


def _forget_stale_validators() -> None:
    """Drop the validators compiled before a schema was registered: they do not know it."""
    global _built_for
    current = schema_store.generation()
    if current != _built_for:
        _registry.cache_clear()
        _validator.cache_clear()
        _fast_registry.cache_clear()
        _fast_validator.cache_clear()
        _built_for = current


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("-"))


@cache
def bundled_core_versions() -> tuple[str, ...]:
    """The core spec versions whose schema is bundled, oldest first."""
    versions = []
    for schema_id in schema_store.bundled():
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

    resources_ = [
        (uri, Resource.from_contents(doc, default_specification=DRAFT202012))
        for uri, doc in schema_store.by_url().items()
    ]
    registry: Registry = Registry().with_resources(resources_)
    return registry.crawl()


@cache
def _validator(ref: str, formats: bool) -> Validator:
    from jsonschema import Draft202012Validator

    format_checker = _format_checker() if formats else None
    return Draft202012Validator({"$ref": ref}, registry=_registry(), format_checker=format_checker)


@cache
def _fast_registry() -> Any:
    """The schemas for jsonschema-rs, or None when it is not installed (or cannot take them)."""
    try:
        import jsonschema_rs
    except ImportError:  # pragma: no cover - a dependency; checked without it
        return None
    try:
        return jsonschema_rs.Registry(list(schema_store.by_url().items()))
    except (ValueError, jsonschema_rs.ReferencingError):  # pragma: no cover - a bad extra schema
        return None


@cache
def _fast_validator(ref: str, formats: bool) -> Any:
    """A compiled validator (jsonschema-rs) for ``ref``: it says valid or not, quickly.

    It answers only the question "is the event valid?": for the ten thousands of datasets a big
    event has, it is some 50 times faster than jsonschema. Only an invalid event goes through
    jsonschema, which names each problem. The string formats are checked with the same functions
    as jsonschema's, so both agree on what is valid.
    """
    registry = _fast_registry()
    if registry is None:
        return None
    import jsonschema_rs

    from openlineage_sdk._types import FORMATS

    checks = {
        name: (lambda value, _valid=is_valid: _valid(value))
        for name, (is_valid, _) in FORMATS.items()
    }
    try:
        return jsonschema_rs.Draft202012Validator(
            {"$ref": ref},
            registry=registry,
            formats=checks if formats else None,
            validate_formats=formats,
        )
    except (ValueError, jsonschema_rs.ReferencingError):  # pragma: no cover - as above
        return None


def _valid_quickly(
    event: Mapping[str, Any], ref: str, formats: bool, facets: list[tuple[Any, str]]
) -> bool:
    """Tell whether the compiled validators find the event (and its facets) valid."""
    core = _fast_validator(ref, formats)
    if core is None or not core.is_valid(event):
        return False
    for facet, url in facets:
        checker = _fast_validator(url, formats)
        if checker is None or not checker.is_valid(facet):
            return False
    return True


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
    schema = schema_store.find(doc)
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
    schema = schema_store.bundled()[_CORE_ID.format(version=version)]
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
    noted: Problem | None = None
    if isinstance(data, (str, bytes, bytearray)):
        event, problem, noted = _parse(data)
        if problem is not None:
            return [problem]
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
    if isinstance(data, Mapping):
        # NaN, a lone surrogate, a key that is not text, nesting deeper than 200 levels: what
        # JSON cannot hold as given (an event model or parsed text cannot hold them).
        problem = unwritable_problem(data)
        if problem is not None:
            return [problem]

    from openlineage_sdk._facet_registry import registry

    registry.load_entry_points()  # plugins' facet schemas join the bundled ones
    _forget_stale_validators()
    ref, problems = _core_ref(event)
    if noted is not None:
        problems.insert(0, noted)
    facets: list[tuple[tuple[int | str, ...], Any, str]] = []
    if strict:
        for path, facet in _facets(event):
            url = facet.get("_schemaURL") if isinstance(facet, Mapping) else None
            # Without _schemaURL the core schema reports the facet; unknown URLs: base facet only.
            if isinstance(url, str) and _resolvable(url):
                facets.append((path, facet, url))
    try:
        if _valid_quickly(event, ref, formats, [(facet, url) for _, facet, url in facets]):
            return problems
        for error in _validator(ref, formats).iter_errors(event):
            problems.extend(_problem((), leaf) for leaf in _leaves(error))
        for path, facet, url in facets:
            for error in _validator(url, formats).iter_errors(facet):
                problems.extend(_problem(path, leaf) for leaf in _leaves(error))
    except RecursionError:
        # Deeper than jsonschema can descend (a schema facet with fields within fields).
        problems.append(
            Problem(
                "", "nested too deeply to be checked (arrays or objects within each other)", "depth"
            )
        )
    except Exception as exc:
        from referencing.exceptions import Unresolvable

        if not isinstance(exc, Unresolvable) and not isinstance(exc.__cause__, Unresolvable):
            raise
        problems.append(Problem("", f"a schema reference cannot be resolved: {exc}", "schema"))
    return list(dict.fromkeys(problems))  # each problem once, in order


def _parse(data: str | bytes | bytearray) -> tuple[Any, Problem | None, Problem | None]:
    """Parse JSON text into ``(event, fatal problem, other problem)``.

    What JSON text cannot hold as given (NaN, nesting, surrogates) is a fatal problem. An object
    with the same key twice is a problem too, but the event is still checked: readers keep one
    of its values (``read_event`` and the common JSON parsers keep the last), and the event is
    checked with the last, as it would be read.
    """
    import jiter

    try:
        # jiter (the parser inside pydantic-core) refuses NaN and Infinity, lone surrogates,
        # nesting deeper than about 200 levels and, asked to, a key given twice in one object;
        # the standard parser then says what is wrong, and where.
        event = jiter.from_json(
            data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data),
            allow_inf_nan=False,
            catch_duplicate_keys=True,
        )
    except ValueError as exc:
        if "duplicate key" in str(exc):
            duplicate = duplicate_key_problem(data)
            if duplicate is not None:
                event, problem, _ = _parse_leniently(data)
                return event, problem, duplicate
    else:
        # It reads a number too large for a float (``1e999``) as infinity, without a word.
        infinite = may_hold_non_finite(event)
        return event, (unwritable_problem(event) if infinite else None), None
    return _parse_leniently(data)


def _parse_leniently(data: str | bytes | bytearray) -> tuple[Any, Problem | None, None]:
    """Parse with the standard parser, which says what is wrong and where."""
    try:
        event = json.loads(data)
    except ValueError as exc:
        return None, Problem("", f"not valid JSON ({exc})", "json"), None
    except RecursionError:
        return None, too_deep(), None
    return event, unwritable_problem(event), None


class _Duplicated(dict[str, Any]):
    """An object read with a key given twice (``key``)."""

    key: str


def duplicate_key_problem(data: str | bytes | bytearray) -> Problem | None:
    """Where the first object with a key given twice is, as a problem; None if there is none."""

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        built = dict(pairs)
        if len(built) == len(pairs):
            return built
        seen: set[str] = set()
        marked = _Duplicated(built)
        marked.key = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        return marked

    try:
        tree = json.loads(data, object_pairs_hook=pairs_hook)
    except (ValueError, RecursionError):
        return None
    stack: list[tuple[tuple[int | str, ...], Any]] = [((), tree)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, _Duplicated):
            return Problem(
                format_path((*path, item.key)),
                f"the key {item.key!r} is given more than once in one object "
                "(readers keep only one of its values)",
                "json",
            )
        if isinstance(item, dict):
            stack.extend(reversed([((*path, key), value) for key, value in item.items()]))
        elif isinstance(item, list):
            stack.extend(reversed([((*path, index), value) for index, value in enumerate(item)]))
    return None
