"""The walk over a Connect client plan's relations visits only what can hold one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from openlineage_sdk.spark.session.connect import _plan

pytestmark = [pytest.mark.spark, pytest.mark.connect]


def _every_relation(message: Any) -> Iterator[Any]:
    """The walk without pruning: every field of every message, map fields aside."""
    if message.DESCRIPTOR.full_name == "spark.connect.Relation":
        yield message
    for descriptor, value in message.ListFields():
        kind = descriptor.message_type
        if kind is None or kind.GetOptions().map_entry:
            continue
        if _plan._is_repeated(descriptor):
            for item in value:
                yield from _every_relation(item)
        else:
            yield from _every_relation(value)


def _frames(spark: Any) -> dict[str, Any]:
    from pyspark.sql.connect import functions as f

    left = spark.range(10).withColumnRenamed("id", "a")
    right = spark.range(5).selectExpr("id AS a", "id * 2 AS b")
    frames = {
        "join": left.join(right, "a").where("b > 1"),
        "union": left.union(right.select("a")).distinct(),
        "sql with a frame argument": spark.sql(
            "SELECT * FROM {t} WHERE a > :low", args={"low": 2}, t=right
        ),
        "aggregate": right.groupBy("a").agg(f.sum("b").alias("s")).orderBy("s"),
        "wide": right.selectExpr(*[f"b + {i} AS c{i}" for i in range(200)]),
    }
    if hasattr(left, "scalar"):  # subquery expressions, PySpark 4.0 on
        frames["scalar subquery"] = left.where(
            f.col("a") > right.select(f.max("b")).scalar()
        ).select("a")
    return frames


def test_the_pruned_walk_finds_every_relation_the_whole_walk_finds(spark_connect: Any) -> None:
    for name, frame in _frames(spark_connect).items():
        relation = frame._plan.plan(spark_connect.client)
        expected = [node.SerializeToString() for node in _every_relation(relation)]
        found = [node.SerializeToString() for node in _plan.relations(relation)]
        assert found == expected, name
        assert len(found) > 1, name


def test_expressions_are_not_walked_for_relations(spark_connect: Any) -> None:
    from pyspark.sql.connect.proto import Expression, Plan, Relation

    assert not _plan._holds_relations(Expression.DESCRIPTOR)
    assert _plan._holds_relations(Relation.DESCRIPTOR)
    assert _plan._holds_relations(Plan.DESCRIPTOR)
    wide = _frames(spark_connect)["wide"]._plan.plan(spark_connect.client)
    visited: list[str] = []

    class Counting:
        """A message's stand-in that notes each message whose fields the walk lists."""

        def __init__(self, message: Any) -> None:
            self.message = message
            self.DESCRIPTOR = message.DESCRIPTOR

        def ListFields(self) -> list[tuple[Any, Any]]:  # protobuf's name
            visited.append(self.DESCRIPTOR.full_name)
            return [(d, self.wrap(d, value)) for d, value in self.message.ListFields()]

        @staticmethod
        def wrap(descriptor: Any, value: Any) -> Any:
            if descriptor.message_type is None:
                return value
            if _plan._is_repeated(descriptor):
                return [Counting(item) for item in value]
            return Counting(value)

    found = list(_plan.relations(Counting(wide)))
    assert [type(r.message) for r in found] == [Relation] * 3  # two projections and the range
    assert "spark.connect.Expression" not in visited
    assert len(visited) < 20  # not the 200 expressions and their parts
