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

__all__ = ["schema_fields", "spark_type_name"]


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
