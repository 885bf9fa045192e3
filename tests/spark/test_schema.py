"""The schema facet's fields from a DataFrame schema, as the JVM agent writes them."""

from __future__ import annotations

from typing import Any

from openlineage_sdk.spark import schema_fields

RICH = """
SELECT
  CAST(1 AS BIGINT) AS id,
  CAST(1.5 AS DECIMAL(38,10)) AS amount,
  CAST('2024-01-01 00:00:00' AS TIMESTAMP_NTZ) AS local_time,
  CAST('2024-01-01 00:00:00' AS TIMESTAMP) AS event_time,
  CAST('2024-01-01' AS DATE) AS day,
  'x' AS label,
  1 AS small_int,
  CAST(1 AS SMALLINT) AS short_int,
  CAST(1 AS TINYINT) AS tiny_int,
  true AS flag,
  CAST('ab' AS BINARY) AS payload,
  1.0D AS ratio,
  CAST(1.0 AS FLOAT) AS score,
  INTERVAL '1' DAY AS wait,
  INTERVAL '1' YEAR AS tenure,
  named_struct('a', 1, 'b', array(named_struct('c', 'x'))) AS nested,
  array(1, 2) AS numbers,
  map('k', array(CAST(1 AS BIGINT))) AS lookup
"""

EXPECTED = [
    {"name": "id", "type": "long", "description": "the order id"},
    {"name": "amount", "type": "decimal(38,10)"},
    {"name": "local_time", "type": "timestamp_ntz"},
    {"name": "event_time", "type": "timestamp"},
    {"name": "day", "type": "date"},
    {"name": "label", "type": "string"},
    {"name": "small_int", "type": "integer"},
    {"name": "short_int", "type": "short"},
    {"name": "tiny_int", "type": "byte"},
    {"name": "flag", "type": "boolean"},
    {"name": "payload", "type": "binary"},
    {"name": "ratio", "type": "double"},
    {"name": "score", "type": "float"},
    {"name": "wait", "type": "interval day"},
    {"name": "tenure", "type": "interval year"},
    {
        "name": "nested",
        "type": "struct",
        "fields": [
            {"name": "a", "type": "integer"},
            {
                "name": "b",
                "type": "array",
                "fields": [
                    {
                        "name": "_element",
                        "type": "struct",
                        "fields": [{"name": "c", "type": "string"}],
                    }
                ],
            },
        ],
    },
    {"name": "numbers", "type": "array", "fields": [{"name": "_element", "type": "integer"}]},
    {
        "name": "lookup",
        "type": "map",
        "fields": [
            {"name": "key", "type": "string"},
            {"name": "value", "type": "array", "fields": [{"name": "_element", "type": "long"}]},
        ],
    },
]


def _rich(spark: Any) -> Any:
    return spark.sql(RICH).withMetadata("id", {"comment": "the order id"})


def test_schema_fields_name_types_like_the_jvm_agent(mode_spark: Any) -> None:
    assert schema_fields(_rich(mode_spark).schema) == EXPECTED


def _jvm_fields(jvm_struct: Any) -> list[dict[str, Any]]:
    """The same facet fields computed on the JVM, from ``DataType.typeName``."""
    return [_jvm_field(f.name(), f.dataType()) for f in jvm_struct.fields()]


def _jvm_field(name: str, data_type: Any) -> dict[str, Any]:
    result: dict[str, Any] = {"name": name, "type": data_type.typeName()}
    kind = data_type.getClass().getSimpleName()
    if kind == "StructType":
        result["fields"] = _jvm_fields(data_type)
    elif kind == "ArrayType":
        result["fields"] = [_jvm_field("_element", data_type.elementType())]
    elif kind == "MapType":
        result["fields"] = [
            _jvm_field("key", data_type.keyType()),
            _jvm_field("value", data_type.valueType()),
        ]
    return result


def _without_descriptions(fields: list[Any]) -> list[Any]:
    return [
        {
            k: (_without_descriptions(v) if k == "fields" else v)
            for k, v in f.items()
            if k != "description"
        }
        for f in fields
    ]


def test_type_names_equal_the_jvm_type_names(spark: Any) -> None:
    df = _rich(spark)
    assert _without_descriptions(schema_fields(df.schema)) == _jvm_fields(df._jdf.schema())


def test_comment_of_a_table_column_becomes_the_description(mode_spark: Any) -> None:
    table = f"commented_{type(mode_spark).__module__.split('.')[2]}"
    mode_spark.sql(f"DROP TABLE IF EXISTS {table}")
    mode_spark.sql(
        f"CREATE TABLE {table} (id BIGINT COMMENT 'primary key', v STRING) USING parquet"
    )
    fields = schema_fields(mode_spark.table(table).schema)
    assert fields == [
        {"name": "id", "type": "long", "description": "primary key"},
        {"name": "v", "type": "string"},
    ]
