"""Column lineage from the analyzed plan, in classic mode, for the common transformations."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest

from tests.spark._support import Captured


@pytest.fixture(scope="module")
def sources(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("lineage")
    orders, customers = root / "orders", root / "customers"
    spark.range(30).selectExpr(
        "id", "id % 5 AS customer_id", "CAST(id * 10 AS DOUBLE) AS amount", "id % 2 = 0 AS paid"
    ).write.parquet(str(orders))
    spark.range(5).selectExpr(
        "id AS customer_id", "concat('c', id) AS name", "'x@y' AS email"
    ).write.parquet(str(customers))
    return {"orders": str(orders), "customers": str(customers), "root": root}


@pytest.fixture
def lineage_of(
    sources: dict[str, Any], classic_auto: Captured
) -> Callable[[Any], tuple[dict[str, Any], list[Any]]]:
    """Write a DataFrame in automatic mode; the columnLineage facet of its COMPLETE event."""

    def run(df: Any) -> tuple[dict[str, Any], list[Any]]:
        classic_auto.clear()
        df.write.parquet(str(sources["root"] / f"out_{uuid.uuid4().hex}"))
        event = classic_auto.only_write().end.to_dict()
        facets = event["outputs"][0]["facets"]
        assert "columnLineage" in facets, event["run"]["facets"].get("extractionError")
        facet = facets["columnLineage"]
        return facet["fields"], facet.get("dataset", [])

    return run


def _t(type_: str, subtype: str, masking: bool = False) -> dict[str, Any]:
    return {"type": type_, "subtype": subtype, "masking": masking}


def _f(path: str, field: str, *transformations: dict[str, Any]) -> dict[str, Any]:
    return {
        "namespace": "file",
        "name": path,
        "field": field,
        "transformations": list(transformations),
    }


IDENTITY = _t("DIRECT", "IDENTITY")
TRANSFORM = _t("DIRECT", "TRANSFORMATION")


def test_select_identity_and_transformation(
    spark: Any, sources: dict[str, Any], lineage_of: Any
) -> None:
    from pyspark.sql import functions as F

    orders = sources["orders"]
    df = (
        spark.read.parquet(orders)
        .select(
            "id",
            (F.col("amount") * 2).alias("double_amount"),
            F.sha2(F.col("id").cast("string"), 256).alias("hashed"),
            F.when(F.col("paid"), F.col("amount")).otherwise(0).alias("paid_amount"),
        )
        .where(F.col("customer_id") > 1)
    )

    fields, dataset = lineage_of(df)
    assert fields == {
        "id": {"inputFields": [_f(orders, "id", IDENTITY)]},
        "double_amount": {"inputFields": [_f(orders, "amount", TRANSFORM)]},
        "hashed": {"inputFields": [_f(orders, "id", _t("DIRECT", "TRANSFORMATION", True))]},
        "paid_amount": {
            "inputFields": [
                _f(orders, "amount", TRANSFORM),
                _f(orders, "paid", _t("INDIRECT", "CONDITIONAL")),
            ]
        },
    }
    assert dataset == [_f(orders, "customer_id", _t("INDIRECT", "FILTER"))]


def test_conditions_are_indirect_on_their_field_and_values_direct(
    spark: Any, sources: dict[str, Any], lineage_of: Any
) -> None:
    from pyspark.sql import functions as F

    orders = sources["orders"]
    df = spark.read.parquet(orders).select(
        F.expr("if(paid, amount, id)").alias("chosen"),
        F.when(F.col("customer_id") > 2, F.col("id")).alias("big_id"),  # no ELSE
    )

    fields, dataset = lineage_of(df)
    conditional = _t("INDIRECT", "CONDITIONAL")
    assert fields == {
        "chosen": {
            "inputFields": [
                _f(orders, "amount", TRANSFORM),
                _f(orders, "id", TRANSFORM),
                _f(orders, "paid", conditional),
            ]
        },
        "big_id": {
            "inputFields": [_f(orders, "customer_id", conditional), _f(orders, "id", TRANSFORM)]
        },
    }
    assert dataset == []


def test_join_and_aggregate(spark: Any, sources: dict[str, Any], lineage_of: Any) -> None:
    from pyspark.sql import functions as F

    orders, customers = sources["orders"], sources["customers"]
    df = (
        spark.read.parquet(orders)
        .join(spark.read.parquet(customers), "customer_id")
        .groupBy("name")
        .agg(
            F.sum("amount").alias("total"),
            F.count("*").alias("n"),
            F.countDistinct("id").alias("ids"),
        )
    )

    fields, dataset = lineage_of(df)
    assert fields == {
        "name": {"inputFields": [_f(customers, "name", IDENTITY)]},
        "total": {"inputFields": [_f(orders, "amount", _t("DIRECT", "AGGREGATION"))]},
        "ids": {"inputFields": [_f(orders, "id", _t("DIRECT", "AGGREGATION", True))]},
    }
    # Column lineage comes from the optimized plan, as the JVM agent's does: the optimizer
    # filters out rows whose join key is null (``isnotnull(customer_id)``) on both sides.
    assert dataset == [
        _f(customers, "customer_id", _t("INDIRECT", "FILTER"), _t("INDIRECT", "JOIN")),
        _f(customers, "name", _t("INDIRECT", "GROUP_BY")),
        _f(orders, "customer_id", _t("INDIRECT", "FILTER"), _t("INDIRECT", "JOIN")),
    ]


def test_window(spark: Any, sources: dict[str, Any], lineage_of: Any) -> None:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    orders = sources["orders"]
    by_customer = Window.partitionBy("customer_id").orderBy("id")
    df = spark.read.parquet(orders).select(
        "id",
        F.row_number().over(by_customer).alias("rank"),
        F.sum("amount").over(by_customer).alias("running_total"),
    )

    fields, dataset = lineage_of(df)
    window = _t("INDIRECT", "WINDOW")
    assert fields == {
        "id": {"inputFields": [_f(orders, "id", IDENTITY)]},
        "rank": {"inputFields": [_f(orders, "customer_id", window), _f(orders, "id", window)]},
        "running_total": {
            "inputFields": [
                _f(orders, "amount", _t("DIRECT", "AGGREGATION")),
                _f(orders, "customer_id", window),
                _f(orders, "id", window),
            ]
        },
    }
    assert dataset == []


def test_union(spark: Any, sources: dict[str, Any], lineage_of: Any) -> None:
    orders, customers = sources["orders"], sources["customers"]
    df = (
        spark.read.parquet(orders)
        .selectExpr("customer_id AS key")
        .unionByName(spark.read.parquet(customers).selectExpr("customer_id AS key"))
    )

    fields, dataset = lineage_of(df)
    assert fields == {
        "key": {
            "inputFields": [
                _f(customers, "customer_id", IDENTITY),
                _f(orders, "customer_id", IDENTITY),
            ]
        }
    }
    assert dataset == []


def test_multi_step_transformations_compose(
    spark: Any, sources: dict[str, Any], lineage_of: Any
) -> None:
    from pyspark.sql import functions as F

    customers = sources["customers"]
    df = (
        spark.read.parquet(customers)
        .withColumn("masked", F.md5("email"))
        .select(F.upper("masked").alias("shout"), F.col("name").alias("who"))
        .orderBy("who")
    )

    fields, dataset = lineage_of(df)
    assert fields == {
        "shout": {"inputFields": [_f(customers, "email", _t("DIRECT", "TRANSFORMATION", True))]},
        "who": {"inputFields": [_f(customers, "name", IDENTITY)]},
    }
    assert dataset == [_f(customers, "name", _t("INDIRECT", "SORT"))]


def test_insert_into_names_fields_by_the_tables_columns(
    spark: Any, sources: dict[str, Any], classic_auto: Captured
) -> None:
    spark.sql("DROP TABLE IF EXISTS lineage_target")
    spark.sql("CREATE TABLE lineage_target (order_key BIGINT, who STRING) USING parquet")
    classic_auto.clear()
    orders = sources["orders"]
    spark.read.parquet(orders).selectExpr(
        "id", "CAST(customer_id AS STRING) AS c"
    ).write.insertInto("lineage_target")
    output = classic_auto.only_write().end.to_dict()["outputs"][0]
    assert output["facets"]["columnLineage"]["fields"] == {
        "order_key": {"inputFields": [_f(orders, "id", IDENTITY)]},
        "who": {"inputFields": [_f(orders, "customer_id", TRANSFORM)]},
    }
    assert output["facets"]["schema"]["fields"] == [
        {"name": "order_key", "type": "long"},
        {"name": "who", "type": "string"},
    ]
    assert output["outputFacets"]["outputStatistics"]["rowCount"] == 30


def test_rollup_and_explode(spark: Any, sources: dict[str, Any], lineage_of: Any) -> None:
    from pyspark.sql import functions as F

    orders, customers = sources["orders"], sources["customers"]
    fields, dataset = lineage_of(
        spark.read.parquet(orders).rollup("customer_id").agg(F.max("amount").alias("top"))
    )
    assert fields == {
        "customer_id": {"inputFields": [_f(orders, "customer_id", IDENTITY)]},
        "top": {"inputFields": [_f(orders, "amount", _t("DIRECT", "AGGREGATION"))]},
    }
    assert dataset == [_f(orders, "customer_id", _t("INDIRECT", "GROUP_BY"))]

    fields, _ = lineage_of(
        spark.read.parquet(customers).select(F.explode(F.split("email", "@")).alias("part"))
    )
    assert fields == {"part": {"inputFields": [_f(customers, "email", TRANSFORM)]}}


def test_descriptions_rewrite_names_along_the_path_as_the_agent_does() -> None:
    """No Spark: the description steps from the output down to the input (``describe``)."""
    from openlineage_sdk.spark.describe._lineage import IDENTITY, Transform, combine, describe

    assert describe("ident", []) == "ident"
    assert describe("ident", [("ident", "t1.a AS ident")]) == "t1.a AS ident"
    # Two aliases deep: the inner alias's name is replaced inside the outer's text.
    assert describe("y", [("y", "(x + 1) AS y"), ("x", "upper(b) AS x")]) == (
        "(upper(b) AS x + 1) AS y"
    )
    # A filter's clause starts anew; an alias below it is rewritten inside the clause.
    assert describe("ignored", [("", "WHERE (x > 1)"), ("x", "a AS x")]) == "WHERE (a AS x > 1)"
    outer = IDENTITY._replace(path=(("y", "x AS y"),))
    inner = Transform("INDIRECT", "FILTER", path=(("", "WHERE (a > 1)"),))
    combined = combine(outer, inner)
    assert (combined.type, combined.subtype) == ("INDIRECT", "FILTER")
    assert combined.as_record("y") == {
        "type": "INDIRECT",
        "subtype": "FILTER",
        "description": "WHERE (a > 1)",
        "masking": False,
    }
    assert "description" not in combined.as_record()
