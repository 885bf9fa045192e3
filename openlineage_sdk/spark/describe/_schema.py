"""Schema facet fields from a Spark schema, named the way the JVM openlineage-spark agent names them.

The agent writes each field's ``DataType.typeName`` on the JVM (``long``, ``integer``, ``string``,
``decimal(38,10)``, ``timestamp_ntz``, ``struct``, ``array``, ``map``), nests struct members,
array elements (one field named ``_element``) and map entries (``key`` and ``value``) as
``fields``, and takes a field's comment as its ``description``. The same rules here give the same
facet for the same table.

Only ``pyspark.sql.types`` is used, and that module is identical in classic PySpark and under
Spark Connect, so one function serves both. It never touches the data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openlineage_sdk.models.records import SchemaDatasetFacetFields

if TYPE_CHECKING:
    from pyspark.sql.types import DataType, StructType

__all__ = ["described_fields", "schema_fields", "spark_type_name"]


def schema_fields(schema: StructType) -> list[SchemaDatasetFacetFields]:
    """The schema facet's ``fields`` for ``schema``, nested types as nested fields."""
    return [_field(f.name, f.dataType, f.metadata) for f in schema.fields]


def spark_type_name(data_type: DataType) -> str:
    """The JVM ``DataType.typeName`` of ``data_type``.

    For atomic types that is the type's JSON form, which Python and the JVM share by design
    (Spark exchanges schemas as JSON between them); containers are ``struct``, ``array`` and
    ``map``; user-defined types are named after their JVM class, as the JVM does.
    """
    from pyspark.sql.types import ArrayType, MapType, StructType, UserDefinedType

    if isinstance(data_type, StructType):
        return "struct"
    if isinstance(data_type, ArrayType):
        return "array"
    if isinstance(data_type, MapType):
        return "map"
    if isinstance(data_type, UserDefinedType):
        scala_class = data_type.scalaUDT()
        if scala_class:
            simple = str(scala_class).rsplit(".", 1)[-1]
            return simple.removesuffix("Type").removesuffix("UDT").lower()
        # A Python-only UDT is a PythonUserDefinedType on the JVM.
        return "pythonuserdefined"
    json_value = data_type.jsonValue()
    if isinstance(json_value, str):
        return json_value
    return str(data_type.typeName())


def _field(
    name: str, data_type: DataType, metadata: dict[str, object] | None
) -> SchemaDatasetFacetFields:
    from pyspark.sql.types import ArrayType, MapType, StructType

    result: SchemaDatasetFacetFields = {"name": name, "type": spark_type_name(data_type)}
    comment = (metadata or {}).get("comment")
    if isinstance(comment, str):
        result["description"] = comment
    if isinstance(data_type, StructType):
        result["fields"] = schema_fields(data_type)
    elif isinstance(data_type, ArrayType):
        result["fields"] = [_field("_element", data_type.elementType, None)]
    elif isinstance(data_type, MapType):
        result["fields"] = [
            _field("key", data_type.keyType, None),
            _field("value", data_type.valueType, None),
        ]
    return result


# ``DESCRIBE TABLE ... AS JSON`` names atomic types by their SQL names; the agent's names are the
# JVM's ``typeName``. Types not listed here (collated strings, CHAR and VARCHAR, user-defined and
# newer types) are not translated: the caller reads the table's schema instead.
_DESCRIBED_ATOMIC = {
    "boolean": "boolean",
    "tinyint": "byte",
    "smallint": "short",
    "int": "integer",
    "bigint": "long",
    "float": "float",
    "double": "double",
    "date": "date",
    "timestamp_ltz": "timestamp",
    "timestamp_ntz": "timestamp_ntz",
    "binary": "binary",
    "void": "void",
    "variant": "variant",
}
_INTERVAL_UNITS = frozenset({"year", "month", "day", "hour", "minute", "second"})


def described_fields(columns: list[dict[str, object]]) -> list[SchemaDatasetFacetFields]:
    """The schema facet's ``fields`` for the ``columns`` of ``DESCRIBE TABLE ... AS JSON``.

    The same fields :func:`schema_fields` gives for the table's schema, read from the one answer
    that also holds the table's location (Spark 4 and later).

    Raises:
        ValueError: A column's type is one this function does not translate.
    """
    return [_described_field(column) for column in columns]


def _described_field(column: dict[str, object]) -> SchemaDatasetFacetFields:
    name, described = column.get("name"), column.get("type")
    if not isinstance(name, str) or not isinstance(described, dict):
        raise ValueError(f"a described column without a name and a type: {column!r}")
    result = _described_type(name, described)
    comment = column.get("comment")
    if isinstance(comment, str):
        result["description"] = comment
    return result


def _described_type(name: str, described: dict[str, object]) -> SchemaDatasetFacetFields:
    kind = described.get("name")
    atomic = _DESCRIBED_ATOMIC.get(kind) if isinstance(kind, str) else None
    if atomic is not None:
        return {"name": name, "type": atomic}
    if kind == "string" and described.get("collation", "UTF8_BINARY") == "UTF8_BINARY":
        return {"name": name, "type": "string"}
    if kind == "decimal":
        precision, scale = described.get("precision"), described.get("scale")
        if isinstance(precision, int) and isinstance(scale, int):
            return {"name": name, "type": f"decimal({precision},{scale})"}
    if kind == "interval":
        start, end = described.get("start_unit"), described.get("end_unit")
        if start in _INTERVAL_UNITS and end in _INTERVAL_UNITS:
            text = f"interval {start}" if start == end else f"interval {start} to {end}"
            return {"name": name, "type": text}
    if kind == "struct":
        fields = described.get("fields")
        if isinstance(fields, list):
            return {"name": name, "type": "struct", "fields": described_fields(fields)}
    if kind == "array":
        element = described.get("element_type")
        if isinstance(element, dict):
            return {"name": name, "type": "array", "fields": [_described_type("_element", element)]}
    if kind == "map":
        key, value = described.get("key_type"), described.get("value_type")
        if isinstance(key, dict) and isinstance(value, dict):
            return {
                "name": name,
                "type": "map",
                "fields": [_described_type("key", key), _described_type("value", value)],
            }
    raise ValueError(f"column {name}: type {described!r} is not translated")
