"""The schema facet's fields from a DataFrame schema, as the JVM agent writes them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from openlineage_sdk.spark import schema_fields
from openlineage_sdk.spark.describe._schema import described_fields
from openlineage_sdk.spark.describe._tables import TableInfo, describe_table
from tests.spark._versions import needs

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


STORED_COLUMNS = (
    "id BIGINT COMMENT 'the order id', amount DECIMAL(38,10), local_time TIMESTAMP_NTZ, "
    "event_time TIMESTAMP, day DATE, label STRING, small_int INT, short_int SMALLINT, "
    "tiny_int TINYINT, flag BOOLEAN, payload BINARY, ratio DOUBLE, score FLOAT, code CHAR(3), "
    "nested STRUCT<a: INT, b: ARRAY<STRUCT<c: STRING COMMENT 'inner'>>>, numbers ARRAY<INT>, "
    "lookup MAP<STRING, ARRAY<BIGINT>>"
)


@needs(4, 0, "DESCRIBE TABLE ... AS JSON")
def test_one_describe_answers_the_location_and_the_schema_of_a_table(mode_spark: Any) -> None:
    """``DESCRIBE ... AS JSON`` gives what the plain ``DESCRIBE`` and the table's schema give."""
    table = f"described_{type(mode_spark).__module__.split('.')[2]}"
    mode_spark.sql(f"DROP TABLE IF EXISTS {table}")
    mode_spark.sql(f"CREATE TABLE {table} ({STORED_COLUMNS}) USING parquet PARTITIONED BY (day)")
    try:
        both = describe_table(mode_spark, table, with_schema=True)
        plain = describe_table(mode_spark, table)
        assert both is not None
        assert plain is not None
        assert both.schema is not None  # told by the one answer, not read apart
        assert both.schema == schema_fields(mode_spark.table(table).schema)
        assert (both.database, both.table, both.location) == (
            plain.database,
            plain.table,
            plain.location,
        )
        assert both.schema[-1]["name"] == "day"  # a partition column comes last, as in Spark
        assert plain.schema is None
    finally:
        mode_spark.sql(f"DROP TABLE IF EXISTS {table}")


def test_described_interval_types_are_named_as_the_jvm_names_them() -> None:
    columns: list[dict[str, object]] = [
        {"name": "wait", "type": {"name": "interval", "start_unit": "day", "end_unit": "day"}},
        {
            "name": "span",
            "type": {"name": "interval", "start_unit": "day", "end_unit": "second"},
        },
        {"name": "tenure", "type": {"name": "interval", "start_unit": "year", "end_unit": "month"}},
    ]
    assert described_fields(columns) == [
        {"name": "wait", "type": "interval day"},
        {"name": "span", "type": "interval day to second"},
        {"name": "tenure", "type": "interval year to month"},
    ]


def test_a_described_type_not_translated_is_refused_by_name() -> None:
    collated = [{"name": "label", "type": {"name": "string", "collation": "UNICODE_CI"}}]
    with pytest.raises(ValueError, match="column label: type"):
        described_fields(collated)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="column when: type"):
        described_fields([{"name": "when", "type": {"name": "time", "precision": 6}}])


class _Refusing:
    """A session whose Spark refuses ``DESCRIBE ... AS JSON`` with ``error``."""

    def __init__(self, error: str) -> None:
        self.error = error
        self.statements: list[str] = []

    def sql(self, statement: str) -> Any:
        self.statements.append(statement)
        if statement.endswith("AS JSON"):
            raise RuntimeError(self.error)
        rows = [("id", "bigint", None), ("# Detailed Table Information", "", "")]
        rows += [("Database", "default", ""), ("Table", "t", ""), ("Location", "file:/w/t", "")]
        return _Rows(rows)

    def asked_as_json(self) -> list[str]:
        return [s.split("`")[-2] for s in self.statements if s.endswith("AS JSON")]


class _Rows:
    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self._rows = rows

    def collect(self) -> list[tuple[Any, ...]]:
        return self._rows


def test_a_spark_that_cannot_parse_the_json_describe_is_described_plainly_from_then_on() -> None:
    session = _Refusing("[PARSE_SYNTAX_ERROR] Syntax error at or near 'AS'")  # before Spark 4
    for name in ("t", "t", "u"):
        info = describe_table(session, name, exists=True, with_schema=True)
        assert info == TableInfo("default", "t", "file:/w/t")
        assert info is not None
        assert info.schema is None  # the caller reads the schema itself
    assert session.asked_as_json() == ["t"]
    assert len(session.statements) == 4


def test_a_table_the_catalog_cannot_describe_as_json_is_not_asked_again() -> None:
    session = _Refusing("[UNSUPPORTED_FEATURE] not for this catalog's tables")
    for name in ("t", "t", "u"):
        info = describe_table(session, name, exists=True, with_schema=True)
        assert info == TableInfo("default", "t", "file:/w/t")
    assert session.asked_as_json() == ["t", "u"]  # another table is asked


class _Collated:
    """A session whose table has a column type ``described_fields`` does not translate."""

    def __init__(self) -> None:
        self.statements: list[str] = []

    def sql(self, statement: str) -> Any:
        self.statements.append(statement)
        described = {
            "table_name": "t",
            "catalog_name": "spark_catalog",
            "schema_name": "default",
            "location": "file:/w/t",
            "columns": [{"name": "label", "type": {"name": "string", "collation": "UNICODE"}}],
        }
        return _Rows([(json.dumps(described),)])


def test_a_column_type_not_translated_leaves_the_schema_to_the_caller_and_keeps_the_location() -> (
    None
):
    session = _Collated()
    info = describe_table(session, "t", exists=True, with_schema=True)
    assert info == TableInfo("default", "t", "file:/w/t")
    assert info is not None
    assert info.schema is None
    assert len(session.statements) == 1  # no plain DESCRIBE after the JSON one
