"""Long JSON texts from the driver's JVM, read in pieces (classic PySpark)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from openlineage_sdk.spark.session.classic import _jvm as _classic

pytestmark = pytest.mark.spark


def _wide(spark: Any) -> Any:
    """A plan whose JSON is far longer than one py4j write, with names beyond ASCII."""
    columns = [f"id * {i} AS `café_{i}_😀`" for i in range(60)]
    text = "'line\\nbreak \\\\ quote\"' AS text"
    return spark.range(3).selectExpr("id", text).selectExpr("*", *columns)


def test_a_long_plan_reads_as_its_to_json(spark: Any) -> None:
    plan = _wide(spark)._jdf.queryExecution().analyzed()
    whole = plan.toJSON()
    assert len(whole) > 4 * _classic._PIECE  # several pieces
    text = _classic.jvm_json(spark._jvm, plan, plan.toJSON)
    assert text.isascii()
    assert json.loads(text) == json.loads(whole)


def test_a_wide_schema_reads_as_pyspark_reads_it(spark: Any) -> None:
    from pyspark.sql.types import StructType

    expected = _wide(spark).schema
    assert "café_59_😀" in expected.names
    jschema = _wide(spark)._jdf.schema()

    def whole() -> str:
        raise AssertionError("the schema was read as one long answer")

    text = _classic.jvm_json(spark._jvm, jschema, whole)
    assert len(text) > _classic._PIECE  # more than one piece
    assert text.isascii()
    assert StructType.fromJson(json.loads(text)) == expected
    assert _classic.frame_schema(_wide(spark)) == expected


def test_the_whole_answer_is_read_when_pieces_cannot_be(
    spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = _wide(spark)._jdf.queryExecution().analyzed()
    classes = _classic.JvmClasses.of(spark._jvm)

    def broken() -> Any:
        raise RuntimeError("no such writer")

    monkeypatch.setattr(classes, "json_writer", broken)
    assert json.loads(_classic.jvm_json(spark._jvm, plan, plan.toJSON)) == json.loads(plan.toJSON())


def test_a_text_of_many_pieces_is_read_as_one_answer(
    spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = _wide(spark)._jdf.queryExecution().analyzed()
    client = spark.sparkContext._gateway._gateway_client
    send = client.send_command
    sent: list[str] = []

    def counted(command: str, *args: Any, **kwargs: Any) -> Any:
        sent.append(command)
        return send(command, *args, **kwargs)

    monkeypatch.setattr(client, "send_command", counted)
    _classic.jvm_json(spark._jvm, plan, plan.toJSON)  # the JVM classes looked up once
    sent.clear()
    in_pieces = _classic.jvm_json(spark._jvm, plan, plan.toJSON)
    pieces = -(-len(in_pieces) // _classic._PIECE)
    assert pieces > 4
    in_pieces_calls = len(sent)
    monkeypatch.setattr(_classic, "_MOST_PIECES", 2)
    sent.clear()
    whole = _classic.jvm_json(spark._jvm, plan, plan.toJSON)
    assert in_pieces_calls - len(sent) == pieces - 1  # one call where there were a call a piece
    assert whole == in_pieces
    assert whole.isascii()
    assert json.loads(whole) == json.loads(plan.toJSON())
