"""The naming rules of custom facets, shared by codegen and by classes written by hand.

From the spec's custom facet rules (``spec/custom-facets.md``):

* the key is ``{prefix}_{name}``, both parts camelCase (``bigQuery_statistics``);
* the class is ``{Prefix}{Name}{Entity}Facet`` in PascalCase, the entity being the one of the base
  the facet extends (``bigQuery_statistics`` on a job is ``BigQueryStatisticsJobFacet``);
* the prefix names the producer and may not be a standard facet key;
* the schema's ``$id`` is an immutable, versioned URL: no ``main``, ``master`` or ``HEAD`` branch
  in its path, a version present; ``_schemaURL`` is that ``$id`` plus ``#/$defs/<Name>``.

Every check returns messages that say which rule broke and what the right name would be. The
tables the rules rest on live here too, for the models and codegen alike: the entity of each core
facet base (:data:`ENTITY_OF_BASE`) and the standard facet keys (:func:`standard_facet_keys`),
which the generated models package registers as it is imported.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Final, Literal, TypeAlias
from urllib.parse import urlsplit

__all__ = [
    "ENTITY_OF_BASE",
    "ENTITY_WORDS",
    "FacetEntity",
    "check_class_name",
    "check_key",
    "check_schema_id",
    "check_schema_url",
    "expected_class_name",
    "register_standard_facet_keys",
    "split_key",
    "standard_facet_keys",
    "suggest_key",
]

FacetEntity: TypeAlias = Literal["run", "job", "dataset", "inputDataset", "outputDataset"]

#: The core facet bases a facet extends, and the entity each one attaches to.
ENTITY_OF_BASE: Final[Mapping[str, FacetEntity]] = {
    "RunFacet": "run",
    "JobFacet": "job",
    "DatasetFacet": "dataset",
    "InputDatasetFacet": "inputDataset",
    "OutputDatasetFacet": "outputDataset",
}
#: The entity part of a facet class name, by entity: ``inputDataset`` -> ``InputDataset``.
ENTITY_WORDS: Final[Mapping[str, str]] = {
    entity: base.removesuffix("Facet") for base, entity in ENTITY_OF_BASE.items()
}

_CAMEL: Final = re.compile(r"[a-z][a-zA-Z0-9]*\Z")
_BRANCHES: Final = frozenset({"main", "master", "head", "trunk", "develop"})
_VERSION: Final = re.compile(r"(?:v?\d+(?:[.-]\d+){1,2})\Z")


def split_key(key: str) -> tuple[str, str] | None:
    """``"myCo_costs"`` -> ``("myCo", "costs")``; ``None`` when the key has no ``_``."""
    prefix, sep, name = key.partition("_")
    return (prefix, name) if sep else None


def _camel(words: list[str]) -> str:
    words = [w for w in words if w]
    if not words:
        return ""
    first = words[0][:1].lower() + words[0][1:]
    return first + "".join(w[:1].upper() + w[1:] for w in words[1:])


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[^0-9A-Za-z]+", text) if w]


def suggest_key(key: str) -> str:
    """A key that follows the rule, made from ``key``: ``spark.logicalPlan`` -> ``spark_logicalPlan``."""
    prefix, sep, rest = key.partition("_")
    if sep and _words(prefix) and _words(rest):
        return f"{_camel(_words(prefix))}_{_camel(_words(rest))}"
    words = _words(key)
    if len(words) >= 2:
        return f"{_camel(words[:1])}_{_camel(words[1:])}"
    # One camelCase word: its first hump is the prefix (icebergScanReport -> iceberg_scanReport).
    humps = re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", words[0] if words else "facet")
    if len(humps) >= 2:
        return f"{_camel(humps[:1])}_{_camel(humps[1:])}"
    return f"{_camel(humps) or 'myCompany'}_facet"


def _pascal(part: str) -> str:
    return part[:1].upper() + part[1:]


def expected_class_name(key: str, entity: str) -> str:
    """``("bigQuery_statistics", "job")`` -> ``BigQueryStatisticsJobFacet``."""
    parts = split_key(key) or (key, "")
    return f"{_pascal(parts[0])}{_pascal(parts[1])}{ENTITY_WORDS[entity]}Facet"


# The standard facet keys, as the generated models package registered them (see below).
_standard_keys: frozenset[str] = frozenset()


def register_standard_facet_keys(*keys: str) -> None:
    """Make ``keys`` standard facet keys, which no custom facet's prefix may take.

    The generated package :mod:`openlineage_sdk.models` calls this as it is imported, before any
    of its facet base classes exists. Every facet class extends one of those bases, so the keys
    are known before any facet is checked, and these rules never import generated code.
    """
    global _standard_keys
    _standard_keys = _standard_keys.union(keys)


def standard_facet_keys() -> frozenset[str]:
    """The keys of the standard facets, which no custom facet's prefix may take."""
    return _standard_keys


def check_key(key: str, standard_keys: Collection[str] = ()) -> list[str]:
    """Problems with a custom facet key (empty when it follows the rules)."""
    parts = split_key(key)
    if parts is None or not _CAMEL.match(parts[0]) or not _CAMEL.match(parts[1]):
        return [
            f"facet key {key!r} breaks the rule 'the key is {{prefix}}_{{name}}, both parts "
            f"camelCase': use {suggest_key(key)!r}"
        ]
    if parts[0] in standard_keys:
        return [
            f"facet key {key!r} breaks the rule 'the prefix may not be a standard facet key': "
            f"{parts[0]!r} is a standard facet; use your organisation or tool as the prefix, "
            f"e.g. 'myCompany_{parts[1]}'"
        ]
    return []


def check_class_name(class_name: str, key: str, entity: str) -> list[str]:
    """Problems with a facet class name for its key and entity."""
    if check_key(key):
        key = suggest_key(key)  # name the class after the key the rule asks for
    expected = expected_class_name(key, entity)
    if class_name != expected:
        return [
            f"class {class_name!r} breaks the rule 'the class is {{Prefix}}{{Name}}{{Entity}}Facet': "
            f"for key {key!r} on a {entity} it is {expected!r}"
        ]
    return []


def check_schema_id(schema_id: str) -> list[str]:
    """Problems with a schema ``$id``: it must be an immutable, versioned URL."""
    parts = urlsplit(schema_id)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return [f"'$id' {schema_id!r} breaks the rule 'the $id is an absolute http(s) URL'"]
    segments = [s for s in parts.path.split("/") if s]
    branch = next((s for s in segments if s.lower() in _BRANCHES), None)
    if branch is not None or "refs/heads" in parts.path:
        name = branch or "refs/heads"
        return [
            f"'$id' {schema_id!r} breaks the rule 'the $id is immutable': it names the branch "
            f"{name!r}, whose content changes; use a tag or a versioned path such as "
            f"'https://example.com/spec/facets/1-0-0/{segments[-1] if segments else 'Facet.json'}'"
        ]
    if parts.query or parts.fragment:
        return [
            f"'$id' {schema_id!r} breaks the rule 'the $id is a plain URL': remove the query or fragment"
        ]
    if not any(_VERSION.match(s) for s in segments[:-1]):
        return [
            f"'$id' {schema_id!r} breaks the rule 'the $id is versioned': put a version in the path, "
            f"as in 'https://example.com/spec/facets/1-0-0/{segments[-1] if segments else 'Facet.json'}'"
        ]
    return []


def check_schema_url(schema_url: str, class_name: str) -> list[str]:
    """Problems with a facet's ``_schemaURL``: the schema's ``$id`` plus ``#/$defs/<Name>``."""
    document, _, fragment = schema_url.partition("#")
    problems = check_schema_id(document)
    if fragment != f"/$defs/{class_name}":
        problems.append(
            f"_schemaURL {schema_url!r} breaks the rule 'the _schemaURL is the $id plus "
            f"#/$defs/<Name>': use {document + '#/$defs/' + class_name!r}"
        )
    return problems
