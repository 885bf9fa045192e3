"""Staging: the schema documents handed to datamodel-code-generator.

The spec's schemas describe JSON; the SDK's models add a few decisions that JSON Schema cannot
express on its own. Rather than patch generated code, codegen writes *staged* copies of the
schemas that say exactly what should be generated, and lets datamodel-code-generator do the rest
through its documented options. Every transformation is listed here:

1. **Records are lifted.** Objects inside a facet (a schema field, a column-lineage input, the
   parent facet's ``run``) become named definitions of one ``records`` document, generated as
   ``TypedDict`` classes keyed by their JSON names. Facets, runs, jobs, datasets and events stay
   pydantic models. (Records are plain JSON objects at run time; this is what keeps building,
   reading and writing an event with hundreds of schema fields cheap.) Inline objects are named
   ``{Owner}{Property}``, singular for array items and map values: ``OwnershipDatasetFacetOwner``.
2. **Formats get types.** ``string`` with ``format`` ``date-time``, ``uuid`` or ``uri`` refers to
   :mod:`openlineage_sdk._types` (kept as strings, checked when built in code); ``number`` refers to
   ``Number`` so that JSON integers stay integers.
3. **Defaults are pinned.** Each facet definition declares ``_schemaURL`` with its immutable URL
   (``$id`` + ``#/$defs/<Name>``) as default, and carries its key as ``x-facetKey``; each event
   declares its ``schemaURL``; ``_producer`` and ``producer`` default to the SDK's producer URI.
4. **Facet containers are typed.** ``Run.facets``, ``Job.facets``, ``Dataset.facets``,
   ``InputDataset.inputFacets`` and ``OutputDataset.outputFacets`` refer to container definitions
   with one property per standard facet key of that entity, and the entity's facet base for any
   other key (typed by the container's base, generated into ``openlineage_sdk.models.containers``,
   so a custom facet subclass held there is written whole).
5. **The core schema is split** into the facet bases (which facet modules import) and the event
   structure (which imports the facets), so generated modules never import each other in a circle.
   References to the core schema of any version resolve to the bases generated from the bundled
   core schema, whose facet bases are the same in every version. The core version is the one
   ``spec/OpenLineage.json`` declares in its ``$id``: nothing here names a version.
6. **Records are open.** A record whose schema says ``additionalProperties: false`` is generated
   like the others (its unknown keys are kept when read, as everywhere, and ``validate_event``
   reports them); a TypedDict takes its configuration from the model that holds it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from openlineage_sdk._base import PRODUCER
from openlineage_sdk._facet_rules import ENTITY_OF_BASE, ENTITY_WORDS
from openlineage_sdk.codegen._schemas import (
    CORE_URL_PATTERN,
    FacetDefinition,
    SchemaDocument,
    SchemaError,
    facet_base,
    pascal,
    singular,
)

__all__ = [
    "BASES_URL",
    "STAGING_HOST",
    "TYPES_URL",
    "StagedDocument",
    "core_schema_url",
    "stage_core",
    "stage_facets",
]

#: A reserved host (RFC 2606) for documents that exist only during code generation.
STAGING_HOST: Final = "openlineage-sdk.invalid"
#: The staged document of the facet bases, which references to a core schema of any version
#: resolve to (the bases are the same in every version).
BASES_URL: Final = f"https://{STAGING_HOST}/openlineage_sdk.models.base.json"
TYPES_URL: Final = f"https://{STAGING_HOST}/types.json"
TYPES_MODULE: Final = "openlineage_sdk.types"
#: The generated bases of the facet containers (see ``container_bases`` in the codegen package).
CONTAINER_BASES_MODULE: Final = "openlineage_sdk.models.containers"
BASES_MODULE: Final = "openlineage_sdk.models.base"

_FORMAT_TYPES: Final[Mapping[str, str]] = {
    "date-time": "DateTimeString",
    "uuid": "UuidString",
    "uri": "UriString",
}
_SCHEMA: Final = "https://json-schema.org/draft/2020-12/schema"

#: entity -> (its container definition, its facet base): ``run`` -> ``(RunFacets, RunFacet)``.
CONTAINERS: Final[Mapping[str, tuple[str, str]]] = {
    entity: (f"{word}Facets", f"{word}Facet") for entity, word in ENTITY_WORDS.items()
}


@dataclass
class StagedDocument:
    """A staged schema and where its generated module goes."""

    url: str
    document: dict[str, Any]
    module: str
    kind: str  # "models" or "records"
    sources: list[Path] = field(default_factory=list)
    #: class name -> dotted path of its base class (datamodel-code-generator's base_class_map)
    base_classes: dict[str, str] = field(default_factory=dict)

    @property
    def relative_path(self) -> Path:
        """Path of the staged file under the staging root (mirrors the URL)."""
        host_path = self.url.split("://", 1)[1]
        return Path(*host_path.split("/"))


def types_document() -> dict[str, Any]:
    """The staged document standing for :mod:`openlineage_sdk._types`."""
    defs: dict[str, Any] = {name: {"type": "string"} for name in _FORMAT_TYPES.values()}
    defs["Number"] = {"type": "number"}
    return {"$schema": _SCHEMA, "$id": TYPES_URL, "$defs": defs}


def _rewrite_types(node: Any) -> Any:
    """Point formatted strings and numbers at the SDK's types (transformation 2).

    Examples (``example``) are left out of the staged schemas: they document the spec's schema
    files, and as ``Field(examples=...)`` on every model field they would only slow imports.
    """
    if isinstance(node, list):
        return [_rewrite_types(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _rewrite_types(value) for key, value in node.items() if key != "example"}
    kind = out.get("type")
    if kind == "string" and out.get("format") in _FORMAT_TYPES:
        target = _FORMAT_TYPES[out.pop("format")]
        del out["type"]
        out["$ref"] = f"{TYPES_URL}#/$defs/{target}"
    elif kind == "number":
        del out["type"]
        out["$ref"] = f"{TYPES_URL}#/$defs/Number"
    return out


def map_refs(node: Any, mapping: Callable[[str], str]) -> Any:
    """A copy of a schema node with every ``$ref`` passed through ``mapping``."""
    if isinstance(node, list):
        return [map_refs(item, mapping) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: map_refs(value, mapping) for key, value in node.items()}
    ref = out.get("$ref")
    if isinstance(ref, str):
        out["$ref"] = mapping(ref)
    return out


def _core_ref(ref: str) -> str:
    """Point a reference to a core schema of any version at :data:`BASES_URL`."""
    url, sep, fragment = ref.partition("#")
    if CORE_URL_PATTERN.fullmatch(url):
        return BASES_URL + sep + fragment.replace("/definitions/", "/$defs/")
    return ref


def _is_inline_object(node: Any) -> bool:
    return (
        isinstance(node, dict)
        and "$ref" not in node
        and node.get("type") == "object"
        and isinstance(node.get("properties"), dict)
    )


class _RecordCollector:
    """Lift inline objects to named record definitions (transformation 1)."""

    def __init__(self, records: dict[str, Any], owners: dict[str, Path], path: Path) -> None:
        self.records = records
        self.owners = owners
        self.path = path

    def add(self, name: str, schema: dict[str, Any]) -> None:
        if name in self.records:
            raise SchemaError(
                f"{self.path}: record name {name!r} is also defined by {self.owners[name]}; "
                "rename one of the definitions"
            )
        self.owners[name] = self.path
        record = self.lift(name, "", schema)
        # Records are open (transformation 6): the SDK keeps unknown keys everywhere, and
        # validate_event reports a key that a closed schema forbids.
        if record.get("additionalProperties") is False:
            record = {k: v for k, v in record.items() if k != "additionalProperties"}
        self.records[name] = record

    def lift(self, owner: str, prop: str, schema: dict[str, Any]) -> dict[str, Any]:
        """Replace the inline objects inside ``schema`` by references to records.

        An object is named after its ``owner`` and the property ``prop`` holding it:
        ``{Owner}{Property}`` as a property, singular as array items or map values
        (``OwnershipDatasetFacetOwner``), ``{Property}Variant{n}`` as a union member.
        """
        schema = dict(schema)
        properties = schema.get("properties")
        if isinstance(properties, dict):
            schema["properties"] = {
                name: self.lift_value(owner, name, value) for name, value in properties.items()
            }
        for keyword in ("items", "additionalProperties"):
            if _is_inline_object(schema.get(keyword)):
                name = owner + singular(pascal(prop))
                self.add(name, schema[keyword])
                schema[keyword] = self.ref(name)
        for keyword in ("anyOf", "oneOf"):
            members = schema.get(keyword)
            if isinstance(members, list):
                schema[keyword] = [
                    self.lift_value(owner, f"{prop}Variant{index}", member)
                    for index, member in enumerate(members, start=1)
                ]
        return schema

    def lift_value(self, owner: str, prop: str, value: Any) -> Any:
        """``value`` as a reference to a record when it is an inline object, else lifted inside."""
        if _is_inline_object(value):
            name = owner + pascal(prop)
            self.add(name, value)
            return self.ref(name)
        return self.lift(owner, prop, value) if isinstance(value, dict) else value

    @staticmethod
    def ref(name: str) -> dict[str, Any]:
        # The lifted object's description stays on the record itself.
        return {"$ref": f"#/$defs/{name}"}


def stage_facets(
    documents: Iterable[SchemaDocument],
    *,
    package: str,
    facets_package: str,
    records_url: str,
) -> list[StagedDocument]:
    """Stage facet schema documents: one models document per file plus one records document.

    Args:
        documents: the loaded facet schemas.
        package: the package the records module belongs to (``<package>.records``).
        facets_package: the package facet modules go into (``<facets_package>.<module>``).
        records_url: the URL of the staged records document.

    Raises:
        SchemaError: two definitions would get the same record name.
    """
    documents = list(documents)
    records: dict[str, Any] = {}
    owners: dict[str, Path] = {}
    staged: list[StagedDocument] = []
    for doc in documents:
        defs: dict[str, Any] = map_refs(doc.defs, _core_ref)
        facet_names = {facet.name for facet in doc.facets}
        collector = _RecordCollector(records, owners, doc.path)
        for name, definition in defs.items():
            if name in facet_names or facet_base(definition) is not None:
                continue
            if _only_facets(definition, facet_names, defs):
                continue  # a union of facets (BaseSubsetDatasetFacet): the containers cover it
            collector.add(name, definition)
        models_defs: dict[str, Any] = {}
        base_classes: dict[str, str] = {}
        for facet in doc.facets:
            models_defs[facet.name] = _facet_body(collector, defs[facet.name], facet)
            base_classes[facet.name] = f"{BASES_MODULE}.{facet.base}"
        # This document's records: its own definitions and the objects lifted from it.
        local_records = {name for name, path in owners.items() if path == doc.path}
        mapping = _records_mapping(doc.id, local_records, records_url)
        models_doc = {
            "$schema": _SCHEMA,
            "$id": doc.id,
            "$defs": _rewrite_types(map_refs(models_defs, mapping)),
        }
        staged.append(
            StagedDocument(
                url=doc.id,
                document=models_doc,
                module=f"{facets_package}.{doc.module}",
                kind="models",
                sources=[doc.path],
                base_classes=base_classes,
            )
        )
        for name in local_records:
            records[name] = map_refs(records[name], mapping)
    records_doc = {"$schema": _SCHEMA, "$id": records_url, "$defs": _rewrite_types(records)}
    staged.insert(
        0,
        StagedDocument(
            url=records_url,
            document=records_doc,
            module=f"{package}.records",
            kind="records",
            sources=[doc.path for doc in documents],
        ),
    )
    return staged


def _records_mapping(
    doc_id: str, local_records: Set[str], records_url: str
) -> Callable[[str], str]:
    """Point a document's references to its records at the records document."""

    def mapping(ref: str) -> str:
        url, _, fragment = ref.partition("#")
        if url in ("", doc_id):
            target = fragment.rpartition("/")[2]
            if target in local_records:
                return f"{records_url}#/$defs/{target}"
            return "#" + fragment
        return ref

    return mapping


def _facet_body(
    collector: _RecordCollector, definition: dict[str, Any], facet: FacetDefinition
) -> dict[str, Any]:
    """The staged form of a facet definition (transformations 1 and 3).

    The core base (``allOf[0]``) is dropped: the class inherits it through datamodel-code-generator's
    ``base_class_map`` option instead, which keeps the base's own fields out of the facet module.
    """
    body: dict[str, Any] = {"type": "object"}
    if "description" in definition:
        body["description"] = definition["description"]
    properties: dict[str, Any] = {}
    required: list[str] = []
    for part in definition["allOf"][1:]:
        if not isinstance(part, dict):
            continue
        properties.update(part.get("properties", {}))
        required.extend(r for r in part.get("required", ()) if r not in required)
        if "additionalProperties" in part:
            body["additionalProperties"] = part["additionalProperties"]
    body["properties"] = properties
    if required:
        body["required"] = required
    body = collector.lift(facet.name, "", body)
    body["properties"]["_schemaURL"] = {
        "type": "string",
        "format": "uri",
        "description": "The immutable URL of this facet's schema definition.",
        "default": facet.schema_url,
    }
    body["x-facetKey"] = facet.key
    return body


def _only_facets(
    definition: Mapping[str, Any], facet_names: set[str], defs: Mapping[str, Any]
) -> bool:
    """True when a definition is just a union of facet definitions."""
    members = [*definition.get("anyOf", ()), *definition.get("oneOf", ())]
    if not members or "properties" in definition:
        return False
    for member in members:
        ref = member.get("$ref", "") if isinstance(member, dict) else ""
        name = ref.rpartition("/")[2]
        if not ref.startswith("#/$defs/") or not (
            name in facet_names or facet_base(defs.get(name)) is not None
        ):
            return False
    return True


def core_schema_url(core_path: Path, core: Mapping[str, Any]) -> str:
    """The ``$id`` of a core schema: ``https://openlineage.io/spec/<version>/OpenLineage.json``.

    Raises:
        SchemaError: the ``$id`` is missing or is not a core schema URL.
    """
    core_id = core.get("$id")
    if not isinstance(core_id, str) or not CORE_URL_PATTERN.fullmatch(core_id):
        raise SchemaError(
            f"{core_path}: '$id' must be https://openlineage.io/spec/<version>/OpenLineage.json, "
            f"got {core_id!r}"
        )
    return core_id


def stage_core(
    core_path: Path,
    core: Mapping[str, Any],
    documents: Iterable[SchemaDocument],
    *,
    package: str,
) -> list[StagedDocument]:
    """Stage the core schema (``core``, read from ``core_path``) as facet bases plus the event
    structure with typed containers.

    The events' pinned ``schemaURL`` is the core schema's own ``$id``: a new core version laid
    into ``spec/`` is picked up as it is.

    Raises:
        SchemaError: the core schema is not the expected shape, or two facets of one entity
            share a key.
    """
    core_url = core_schema_url(core_path, core)
    defs: dict[str, Any] = copy.deepcopy(core["$defs"])
    base_names = ["BaseFacet", *ENTITY_OF_BASE]

    # --- facet bases
    bases = {name: defs.pop(name) for name in base_names}
    base_facet = bases["BaseFacet"]
    base_facet["properties"]["_producer"]["default"] = PRODUCER
    base_facet["required"] = [r for r in base_facet["required"] if r != "_producer"]
    bases_doc = {"$schema": _SCHEMA, "$id": BASES_URL, "$defs": _rewrite_types(bases)}

    # --- containers
    containers: dict[str, Any] = {}
    for entity, (container, _base) in CONTAINERS.items():
        properties: dict[str, Any] = {}
        for doc in documents:
            for facet in doc.facets:
                if facet.entity != entity:
                    continue
                if facet.key in properties:
                    raise SchemaError(
                        f"{doc.path}: facet key {facet.key!r} is defined twice for entity {entity!r}"
                    )
                properties[facet.key] = {"$ref": facet.schema_url}
        containers[container] = {
            "type": "object",
            "description": f"The facets of a {_ENTITY_WORDS[entity]}, keyed by facet key. Standard "
            "facets are typed attributes; any other key holds a facet of the entity's base class.",
            "properties": dict(sorted(properties.items())),
            # Typed by the container's base class (openlineage_sdk.models.containers), through
            # base_class_map.
            "additionalProperties": True,
        }

    # --- events and entities
    base_event = defs["BaseEvent"]
    base_event["properties"]["producer"]["default"] = PRODUCER
    # Each event declares its own pinned schemaURL; the base only describes it.
    base_event["required"] = [
        r for r in base_event["required"] if r not in ("producer", "schemaURL")
    ]
    for event in ("RunEvent", "DatasetEvent", "JobEvent"):
        body = defs[event]["allOf"][1]
        body.pop("not", None)
        body.setdefault("properties", {})["schemaURL"] = {
            "type": "string",
            "format": "uri",
            "description": f"The schema URL of a {event}; defaults to the bundled spec version.",
            "default": f"{core_url}#/$defs/{event}",
        }
    container_of = {
        ("Run", "facets"): "RunFacets",
        ("Job", "facets"): "JobFacets",
        ("Dataset", "facets"): "DatasetFacets",
    }
    for (owner, prop), container in container_of.items():
        description = defs[owner]["properties"][prop].get("description")
        defs[owner]["properties"][prop] = {
            "$ref": f"#/$defs/{container}",
            "description": description,
        }
    for owner, prop, container in (
        ("InputDataset", "inputFacets", "InputDatasetFacets"),
        ("OutputDataset", "outputFacets", "OutputDatasetFacets"),
    ):
        part = defs[owner]["allOf"][1]
        description = part["properties"][prop].get("description")
        part["properties"][prop] = {"$ref": f"#/$defs/{container}", "description": description}
    defs.update(containers)

    def mapping(ref: str) -> str:
        url, _, fragment = ref.partition("#")
        name = fragment.rpartition("/")[2]
        if url == "" and name in base_names:
            return f"{BASES_URL}#{fragment}"
        return ref

    events_url = f"https://{STAGING_HOST}/{package}.core.json"
    events_doc = {
        "$schema": _SCHEMA,
        "$id": events_url,
        "$defs": _rewrite_types(map_refs(defs, mapping)),
    }
    return [
        StagedDocument(
            url=BASES_URL,
            document=bases_doc,
            module=BASES_MODULE,
            kind="models",
            sources=[core_path],
        ),
        StagedDocument(
            url=events_url,
            document=events_doc,
            module=f"{package}.core",
            kind="models",
            sources=[core_path, *(doc.path for doc in documents)],
            base_classes={
                container: f"{CONTAINER_BASES_MODULE}.{base}Container"
                for container, base in CONTAINERS.values()
            },
        ),
    ]


_ENTITY_WORDS: Final[Mapping[str, str]] = {
    "run": "run",
    "job": "job",
    "dataset": "dataset",
    "inputDataset": "dataset as an input",
    "outputDataset": "dataset as an output",
}
