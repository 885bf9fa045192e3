"""The JSON Schemas strict validation knows: those bundled with the SDK and those registered.

The bundled ones are every published version of the core and standard facet schemas, generated
into ``openlineage_sdk/models/schemas.json``; registered ones come from plugin packages (their
custom facets' schemas, see :mod:`openlineage_sdk._facet_registry`) or from code. This module
is their one owner: registering goes through :func:`register_schema`, and
:mod:`openlineage_sdk._validate` asks here. Each registration moves :func:`generation` on, which
tells validation that validators compiled before it no longer know every schema.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any, Final

__all__ = ["bundled", "by_url", "find", "generation", "register_schema"]

_lock = threading.Lock()
# Schemas registered at run time, by $id; replaced whole (never changed in place) on each one.
_registered: dict[str, dict[str, Any]] = {}
_generation = 0
# Every schema by the URL it is referenced by, for the current generation.
_by_url: tuple[int, dict[str, dict[str, Any]]] | None = None


def register_schema(schema: Mapping[str, Any]) -> None:
    """Make a schema (by its ``$id``) available to strict validation, e.g. a custom facet's.

    Raises:
        ValueError: the schema has no ``$id``.
    """
    global _registered, _generation
    schema_id = schema.get("$id")
    if not isinstance(schema_id, str):
        raise ValueError("a schema needs an '$id' to be registered")
    with _lock:
        _registered = {**_registered, schema_id: dict(schema)}
        _generation += 1


def generation() -> int:
    """A number that changes each time a schema is registered."""
    return _generation


@cache
def bundled() -> dict[str, dict[str, Any]]:
    """The schemas bundled with the SDK, by ``$id``."""
    text = resources.files("openlineage_sdk.models").joinpath("schemas.json").read_text("utf-8")
    bundle: dict[str, dict[str, Any]] = json.loads(text)["schemas"]
    return bundle


def find(schema_id: str) -> dict[str, Any] | None:
    """The schema whose ``$id`` is ``schema_id``, bundled or registered."""
    return bundled().get(schema_id) or _registered.get(schema_id)


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("-"))


# A relative reference of a core schema (``facets/SQLJobFacet.json`` in 1-0-4 to 2-0-1), resolved
# against the core schema's URL; no such document is published at that address.
_RELATIVE_FACET: Final = re.compile(
    r"https://openlineage\.io/spec/\d+-\d+-\d+/facets/(?P<name>\w+)\.json"
)
_FACET_ID: Final = re.compile(
    r"https://openlineage\.io/spec/facets/(?P<version>\d+-\d+-\d+)/(?P<name>\w+)\.json"
)
_REF: Final = re.compile(r'"\$ref": "(?P<ref>[^"#]+)')


def by_url() -> dict[str, dict[str, Any]]:
    """Every schema by the URL it is referenced by: the bundle, the registered ones, and aliases.

    Core schemas 1-0-4 to 2-0-1 refer to their facets by relative URLs (``facets/X.json``),
    which resolve to addresses where nothing is published; each is an alias of the newest
    bundled version of that facet schema, so that no reference is left unresolvable.
    """
    global _by_url
    known = _by_url
    current = _generation
    if known is not None and known[0] == current:
        return known[1]
    schemas = {**bundled(), **_registered}
    newest: dict[str, tuple[tuple[int, ...], str]] = {}
    for schema_id in schemas:
        match = _FACET_ID.fullmatch(schema_id)
        if match:
            key = _version_key(match.group("version"))
            name = match.group("name")
            if name not in newest or newest[name][0] < key:
                newest[name] = (key, schema_id)
    aliases: dict[str, dict[str, Any]] = {}
    for schema_id, schema in schemas.items():
        base = schema_id.rpartition("/")[0] + "/"
        for ref in set(_REF.findall(json.dumps(schema))):
            target = _RELATIVE_FACET.fullmatch(base + ref) if "://" not in ref else None
            if target is not None and target.group("name") in newest:
                aliases[target.group(0)] = schemas[newest[target.group("name")][1]]
    found = {**aliases, **schemas}
    _by_url = (current, found)
    return found
