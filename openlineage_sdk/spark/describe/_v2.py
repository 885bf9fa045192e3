"""Tables of v2 catalogs (Iceberg's, Delta's, any ``TableCatalog``): their datasets.

The JVM agent names a v2 table in one of these ways, which this module follows:

* a table that describes itself through its properties (``openlineage.dataset.name`` and
  ``openlineage.dataset.namespace``) is that dataset, with the facets its
  ``openlineage.dataset.facets.{key}`` properties hold as JSON (``ExtensionDataSourceV2Utils``);
  one with ``openlineage.dataset.query`` and a namespace is the tables that query reads, parsed
  by ``openlineage-sql`` with the agent's schema rule;
* a table with a location (Iceberg's, Delta's, and the tests' row-level catalog's) is its
  location, with a ``TABLE`` symlink to ``{namespace}.{table}`` in the catalog's warehouse (the
  location without the table's own folders), as the agent's Iceberg handler names it;
* and its ``version`` (an Iceberg snapshot, a Delta version: the table's ``version()``) is the
  dataset's ``version`` facet.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from openlineage_sdk.models.records import SchemaDatasetFacetFields
from openlineage_sdk.spark._execution import DatasetIdentity, Symlink
from openlineage_sdk.spark.describe._naming import hadoop_location_uri

__all__ = ["PROPERTY_PREFIX", "V2Table", "described_by_properties", "v2_table_identity"]

PROPERTY_PREFIX = "openlineage.dataset."
_FACETS = PROPERTY_PREFIX + "facets."


@dataclass
class V2Table:
    """What a v2 table's properties say about its dataset(s)."""

    identities: list[DatasetIdentity]
    facets: dict[str, dict[str, Any]] = field(default_factory=dict)  # key -> the facet's JSON
    schemas: dict[tuple[str, str], list[SchemaDatasetFacetFields] | None] = field(
        default_factory=dict
    )
    problems: list[str] = field(default_factory=list)


def described_by_properties(
    properties: Mapping[str, str], schema: Sequence[SchemaDatasetFacetFields] | None
) -> V2Table | None:
    """The datasets a table describes itself as, by its ``openlineage.dataset.*`` properties.

    ``None`` for a table whose properties say nothing of it. A facet whose JSON does not read is
    a problem of the table, and left out.
    """
    namespace = properties.get(PROPERTY_PREFIX + "namespace")
    query = properties.get(PROPERTY_PREFIX + "query")
    name = properties.get(PROPERTY_PREFIX + "name")
    if namespace and query:
        return _query_tables(namespace, query, schema)
    if not (namespace and name):
        return None
    found = V2Table([DatasetIdentity(namespace, name)])
    for key, value in properties.items():
        if not key.startswith(_FACETS):
            continue
        facet = key.rsplit(".", 1)[-1]  # as the agent reads the key: its last part
        if value.endswith("(redacted)"):
            # SHOW TBLPROPERTIES hides values that look like secrets or URLs (a _schemaURL).
            found.problems.append(f"table property {key}: Spark shows its value redacted")
            continue
        try:
            parsed = json.loads(value)
            if not isinstance(parsed, dict):
                raise ValueError("not a JSON object")
        except ValueError as error:
            found.problems.append(f"table property {key}: {error}")
            continue
        found.facets[facet] = parsed
    return found


def _query_tables(
    namespace: str, query: str, schema: Sequence[SchemaDatasetFacetFields] | None
) -> V2Table:
    """The tables a self-described query reads, named in the table's namespace."""
    from openlineage_sdk.spark.describe._jdbc import JdbcSource, parse_jdbc, table_schemas

    # The agent hands the namespace to the parser as its dialect.
    parsed = parse_jdbc(JdbcSource(url=f"jdbc:{namespace}:", query=query))
    identities = {table: DatasetIdentity(namespace, table) for table in parsed.tables}
    found = V2Table(list(dict.fromkeys(identities.values())))
    schemas = table_schemas(parsed, list(schema) if schema is not None else None)
    for table, identity in identities.items():
        found.schemas[(identity.namespace, identity.name)] = schemas.get(table)
    return found


def _warehouse(location: str, parts: Sequence[str]) -> str:
    """The folder a table's location lies under, its namespace's and its own folders taken off.

    ``file:/wh/db/t`` of table ``db.t`` lies in ``file:/wh``; a location that does not end in
    the table's folders lies in its parent folder.
    """
    trimmed = location.rstrip("/")
    suffix = "/" + "/".join(parts)
    if parts and trimmed.endswith(suffix):
        return trimmed[: -len(suffix)]
    return trimmed.rsplit("/", 1)[0]


def v2_table_identity(location: str, namespace: Sequence[str], name: str) -> DatasetIdentity:
    """A located v2 table: its location, with a symlink to ``{namespace}.{name}``."""
    uri = hadoop_location_uri(location) if ":" in location.split("/", 1)[0] else location
    warehouse = _warehouse(uri, [*namespace, name])
    parts = urlsplit(warehouse)
    if not parts.scheme:
        link_namespace = f"file:{warehouse}"
    elif parts.scheme == "file" and not parts.netloc:
        link_namespace = f"file:{parts.path}"
    else:
        link_namespace = warehouse
    qualified = ".".join([*namespace, name])
    return DatasetIdentity.from_uri(uri, symlinks=(Symlink(link_namespace, qualified),))
