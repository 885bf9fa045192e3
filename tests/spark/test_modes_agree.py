"""Classic PySpark and Spark Connect report the same statement with the same events.

Each test runs once per mode (``mode_spark``) and asserts what the JVM agent reports in classic
Spark: the same datasets, names and column lineage, whichever way the session learned them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk.spark.session import session_kind
from tests.spark import _recorder
from tests.spark._support import Captured

APP = "openlineage_sdk_tests"
_names = itertools.count()


@pytest.fixture
def name(mode_spark: Any) -> Iterator[Any]:
    """A maker of fresh table and view names of the test's mode; tables dropped after."""
    made: list[str] = []

    def make(stem: str) -> str:
        made.append(f"{stem}_{session_kind(mode_spark)}_{next(_names)}")
        _recorder.made(made[-1])
        return made[-1]

    yield make
    for table in made:
        mode_spark.sql(f"DROP TABLE IF EXISTS {table}")


def _settle(spark: Any) -> None:
    """A classic read's run comes from Spark's listener bus, after the action returned."""
    from openlineage_sdk.spark import installed

    adapter = installed(spark)
    assert adapter is not None
    adapter.drain_listeners()


def _inputs_of(field: dict[str, Any]) -> dict[tuple[str, str], list[tuple[str, str]]]:
    return {
        (i["name"].rsplit("/", 1)[-1], i["field"]): [
            (t["type"], t["subtype"]) for t in i["transformations"]
        ]
        for i in field["inputFields"]
    }


def test_an_insert_overwrite_of_a_partition_from_views_over_folders(
    mode_spark: Any, auto: Captured, data_dir: Path, name: Any
) -> None:
    """Temporary views over Parquet folders read by path, joined into a partition."""
    left, right = data_dir / "left", data_dir / "right"
    mode_spark.range(5).selectExpr("id", "id * 2 AS v").write.parquet(str(left))
    mode_spark.range(5).selectExpr("id", "CAST(id AS STRING) AS s").write.parquet(str(right))
    va, vb, dst = name("va"), name("vb"), name("dst")
    mode_spark.read.parquet(str(left)).createOrReplaceTempView(va)
    mode_spark.read.parquet(str(right)).createOrReplaceTempView(vb)
    mode_spark.sql(
        f"CREATE TABLE {dst} (id BIGINT, v BIGINT, s STRING, p STRING) USING parquet "
        "PARTITIONED BY (p)"
    )
    auto.clear()
    mode_spark.sql(
        f"INSERT OVERWRITE TABLE {dst} PARTITION (p = 'x') "
        f"SELECT {va}.id, {va}.v, {vb}.s FROM {va} JOIN {vb} ON {va}.id = {vb}.id"
    )

    run = auto.only_write()
    assert sorted(i.name for i in run.start.inputs or []) == [str(left), str(right)]
    output = run.output_json()
    assert output["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "OVERWRITE"
    fields = output["facets"]["columnLineage"]["fields"]
    assert _inputs_of(fields["v"]) == {("left", "v"): [("DIRECT", "IDENTITY")]}
    assert _inputs_of(fields["s"]) == {("right", "s"): [("DIRECT", "IDENTITY")]}
    assert run.end.run.facets is not None
    assert run.end.run.facets.extraction_error is None


def test_an_insert_overwrite_from_a_folder_read_by_path(
    mode_spark: Any, auto: Captured, data_dir: Path, name: Any
) -> None:
    """``parquet.`/folder``` in the query: the folder is the input."""
    folder = data_dir / "by_path"
    mode_spark.range(3).selectExpr("id", "id + 1 AS v").write.parquet(str(folder))
    dst = name("dst")
    mode_spark.sql(f"CREATE TABLE {dst} (id BIGINT, v BIGINT) USING parquet")
    auto.clear()
    mode_spark.sql(f"INSERT OVERWRITE TABLE {dst} SELECT id, v FROM parquet.`{folder}`")

    run = auto.only_write()
    assert [i.name for i in run.start.inputs or []] == [str(folder)]
    output = run.output_json()
    assert output["name"].endswith(f"/warehouse/{dst}")
    assert output["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "OVERWRITE"
    assert run.job_name == f"{APP}.execute_insert_into_hadoop_fs_relation_command.warehouse_{dst}"


def test_a_ctas_over_a_join_carries_the_key_column_as_an_identity(
    mode_spark: Any, auto: Captured, name: Any
) -> None:
    """The join key taken from one side is that side's column, unchanged (DIRECT, IDENTITY)."""
    ta, tb, dst = name("ta"), name("tb"), name("joined")
    mode_spark.sql(f"CREATE TABLE {ta} USING parquet AS SELECT id AS k, id * 10 AS x FROM range(4)")
    mode_spark.sql(f"CREATE TABLE {tb} USING parquet AS SELECT id AS k, id * 20 AS y FROM range(4)")
    auto.clear()
    mode_spark.sql(
        f"CREATE TABLE {dst} USING parquet AS "
        f"SELECT a.k, a.x, b.y FROM {ta} a JOIN {tb} b ON a.k = b.k"
    )

    run = auto.only_write()
    lineage = run.output_json()["facets"]["columnLineage"]
    assert _inputs_of(lineage["fields"]["k"]) == {(ta, "k"): [("DIRECT", "IDENTITY")]}
    assert _inputs_of(lineage["fields"]["y"]) == {(tb, "y"): [("DIRECT", "IDENTITY")]}
    joins = {
        (i["name"].rsplit("/", 1)[-1], i["field"]): {t["subtype"] for t in i["transformations"]}
        for i in lineage["dataset"]
    }
    assert "JOIN" in joins[(ta, "k")]
    assert "JOIN" in joins[(tb, "k")]


def test_a_query_with_a_limit_collected_is_named_after_its_plan(
    mode_spark: Any, auto: Captured, name: Any
) -> None:
    """``SELECT ... LIMIT 10`` collected: the agent's ``collect_limit``, not the relation's kind."""
    source = name("limited")
    mode_spark.sql(f"CREATE TABLE {source} USING parquet AS SELECT id FROM range(20)")
    auto.clear()
    rows = mode_spark.sql(f"SELECT id FROM {source} LIMIT 10").collect()
    _settle(mode_spark)

    assert len(rows) == 10
    [read] = auto.read_runs()
    assert read.job_name == f"{APP}.collect_limit"
    assert [i.name.rsplit("/", 1)[-1] for i in read.end.inputs or []] == [source]
