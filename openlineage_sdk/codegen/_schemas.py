"""Reading facet schemas: which definitions are facets, under which key, for which entity."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from openlineage_sdk._facet_rules import ENTITY_OF_BASE

__all__ = [
    "CORE_URL_PATTERN",
    "FacetDefinition",
    "SchemaDocument",
    "SchemaError",
    "facet_document",
    "module_name",
    "pascal",
    "read_schema",
    "singular",
]

#: The core schema's URL, any version: facet bases are referenced through it.
CORE_URL_PATTERN: Final = re.compile(
    r"https://openlineage\.io/spec/(\d+-\d+-\d+)/OpenLineage\.json"
)


class SchemaError(ValueError):
    """A schema cannot be turned into facet classes; the message names the file and the rule."""


@dataclass(frozen=True)
class FacetDefinition:
    """One facet definition (``$defs/<name>`` whose ``allOf`` starts with a core facet base)."""

    name: str
    key: str
    entity: str
    base: str
    schema_url: str


@dataclass
class SchemaDocument:
    """A facet schema file and what it defines."""

    path: Path
    id: str
    document: dict[str, Any]
    module: str
    facets: list[FacetDefinition] = field(default_factory=list)

    @property
    def defs(self) -> dict[str, Any]:
        defs = self.document.get("$defs")
        return defs if isinstance(defs, dict) else {}


def pascal(name: str) -> str:
    """``columnMetrics`` -> ``ColumnMetrics``, ``processing_engine`` -> ``ProcessingEngine``."""
    parts = re.split(r"[^0-9A-Za-z]+", name)
    return "".join(p[:1].upper() + p[1:] for p in parts if p)


def singular(name: str) -> str:
    """The item name of a collection: ``Owners`` -> ``Owner``, ``Properties`` -> ``Property``."""
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith("s") and not name.endswith("ss"):
        return name[:-1]
    return name + "Item"


def module_name(path: Path) -> str:
    """``ParentRunFacet.json`` -> ``parent_run``; ``SQLJobFacet.json`` -> ``sql_job``."""
    stem = path.stem
    if stem.endswith("Facet"):
        stem = stem[: -len("Facet")]
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", stem).lower()
    return re.sub(r"[^0-9a-z_]+", "_", snake).strip("_")


def _local_refs(node: Any) -> Iterator[str]:
    """Names of the local definitions a schema node points at, through anyOf/oneOf."""
    if not isinstance(node, dict):
        return
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        yield ref[len("#/$defs/") :]
    for keyword in ("anyOf", "oneOf"):
        for member in node.get(keyword, ()):
            yield from _local_refs(member)


def facet_base(definition: Any) -> tuple[str, str] | None:
    """Return ``(core version, base name)`` when ``allOf`` starts with a core facet base."""
    if not isinstance(definition, dict):
        return None
    parts = definition.get("allOf")
    if not isinstance(parts, list) or not parts or not isinstance(parts[0], dict):
        return None
    ref = parts[0].get("$ref")
    if not isinstance(ref, str):
        return None
    url, _, fragment = ref.partition("#")
    match = CORE_URL_PATTERN.fullmatch(url)
    base = fragment.rpartition("/")[2]
    if match is None or base not in ENTITY_OF_BASE or fragment != f"/$defs/{base}":
        return None
    return match.group(1), base


def read_schema(path: Path) -> tuple[str, Any]:
    """A schema file's text and its parsed content.

    Raises:
        SchemaError: the file cannot be read or is not JSON.
    """
    try:
        text = path.read_text(encoding="utf-8")
        return text, json.loads(text)
    except (OSError, ValueError) as exc:
        raise SchemaError(f"{path}: cannot read a JSON schema ({exc})") from exc


def facet_document(path: Path, document: Any) -> SchemaDocument:
    """Find the facet definitions of a facet schema read from ``path``.

    Raises:
        SchemaError: the schema has no ``$id``, or a key names no facet definition.
    """
    if not isinstance(document, dict) or not isinstance(document.get("$id"), str):
        raise SchemaError(f"{path}: a facet schema needs a '$id' URL")
    result = SchemaDocument(
        path=path, id=document["$id"], document=document, module=module_name(path)
    )
    defs = result.defs
    properties = document.get("properties")
    if not isinstance(properties, dict) or not properties:
        raise SchemaError(
            f"{path}: a facet schema names its facet key in a top-level 'properties' entry"
        )
    for key, node in properties.items():
        seen: set[str] = set()
        pending = list(_local_refs(node))
        found = []
        while pending:
            name = pending.pop(0)
            if name in seen:
                continue
            seen.add(name)
            if name not in defs:
                raise SchemaError(
                    f"{path}: key {key!r} refers to '#/$defs/{name}', which is not defined"
                )
            base = facet_base(defs[name])
            if base is None:
                # A union of facets (e.g. BaseSubsetDatasetFacet): follow its members.
                pending.extend(_local_refs(defs[name]))
                continue
            found.append(
                FacetDefinition(
                    name=name,
                    key=key,
                    entity=ENTITY_OF_BASE[base[1]],
                    base=base[1],
                    schema_url=f"{result.id}#/$defs/{name}",
                )
            )
        if not found:
            raise SchemaError(
                f"{path}: key {key!r} names no facet definition (a '$defs' entry whose 'allOf' "
                "starts with a $ref to a core facet base such as RunFacet)"
            )
        result.facets.extend(found)
    return result
