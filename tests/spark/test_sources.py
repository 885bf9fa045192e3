"""Catalog tables, JDBC tables and files as inputs and outputs; input statistics; mode isolation."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk.spark.session import session_kind
from tests.spark._support import Captured, bytes_of, files_of


def test_a_catalog_table_input_is_its_location_with_a_table_symlink(
    mode_spark: Any, auto: Captured, spark_root: Path, data_dir: Path
) -> None:
    table = f"customers_{session_kind(mode_spark)}"
    mode_spark.sql(f"DROP TABLE IF EXISTS {table}")
    mode_spark.sql(f"CREATE TABLE {table} USING parquet AS SELECT 1L AS id, 'a' AS name")
    auto.clear()
    mode_spark.table(table).write.parquet(str(data_dir / "copy"))

    [source] = [i.to_dict() for i in auto.only_write().end.inputs or []]
    warehouse = spark_root / "warehouse"
    assert (source["namespace"], source["name"]) == ("file", str(warehouse / table))
    assert source["facets"]["symlinks"]["identifiers"] == [
        {"namespace": f"file:{warehouse}", "name": f"default.{table}", "type": "TABLE"}
    ]
    assert source["facets"]["dataSource"]["name"] == "file"
    # The catalog knows the table's columns, in both kinds of session.
    assert source["facets"]["schema"]["fields"] == [
        {"name": "id", "type": "long"},
        {"name": "name", "type": "string"},
    ]


def test_a_table_with_columns_named_like_its_details_is_named_by_its_location(
    mode_spark: Any, auto: Captured, spark_root: Path, data_dir: Path
) -> None:
    """``DESCRIBE TABLE`` lists the columns before the table's details: a column is not one."""
    table = f"places_{session_kind(mode_spark)}"
    columns = ("'x' AS Location", "'y' AS Database", "'z' AS `Table`")
    mode_spark.sql(f"DROP TABLE IF EXISTS {table}")
    mode_spark.range(1).selectExpr(*columns).write.saveAsTable(table)
    auto.clear()
    mode_spark.range(1).selectExpr(*columns).write.insertInto(table)
    mode_spark.table(table).write.parquet(str(data_dir / "copy"))

    inserted, copied = auto.write_runs()
    [source] = [i.to_dict() for i in copied.end.inputs or []]
    for dataset in (inserted.output_json(), source):
        assert (dataset["namespace"], dataset["name"]) == (
            "file",
            str(spark_root / "warehouse" / table),
        )
        [link] = dataset["facets"]["symlinks"]["identifiers"]
        assert link["name"] == f"default.{table}"


def test_a_declared_schema_is_the_inputs_schema(
    mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    raw = data_dir / "raw.csv"
    raw.write_text("id,name\n1,a\n2,b\n")
    as_ddl = mode_spark.read.csv(str(raw), header=True, schema="id BIGINT, name STRING")
    as_ddl.write.parquet(str(data_dir / "from_ddl"))
    struct = StructType([StructField("id", LongType()), StructField("name", StringType())])
    mode_spark.read.csv(str(raw), header=True, schema=struct).write.parquet(
        str(data_dir / "from_struct")
    )

    for run in auto.write_runs():
        [source] = [i.to_dict() for i in run.end.inputs or []]
        assert (source["namespace"], source["name"]) == ("file", str(raw))
        assert source["facets"]["schema"]["fields"] == [
            {"name": "id", "type": "long"},
            {"name": "name", "type": "string"},
        ]
        assert run.output_json()["outputFacets"]["outputStatistics"]["rowCount"] == 2
    assert len(auto.write_runs()) == 2


def test_a_jdbc_output_is_named_by_the_naming_rules_without_credentials(
    mode_spark: Any, auto: Captured, memory: Any
) -> None:
    url = "jdbc:postgresql://127.0.0.1:1/shop?user=etl&password=s3cr3t"
    with pytest.raises(Exception):  # noqa: B017, PT011 - no driver, no server: the write fails
        mode_spark.range(3).write.jdbc(url, "sales.orders", mode="append")

    run = auto.only_write()
    assert run.types == ["START", "FAIL"]
    output = run.output_json()
    assert (output["namespace"], output["name"]) == ("postgres://127.0.0.1:1", "shop.sales.orders")
    assert output["facets"]["dataSource"] == {
        "_producer": output["facets"]["dataSource"]["_producer"],
        "_schemaURL": output["facets"]["dataSource"]["_schemaURL"],
        "name": "postgres://127.0.0.1:1",
        "uri": "postgres://127.0.0.1:1",
    }
    assert run.job_name.split(".")[1] == "execute_save_into_data_source_command"
    # The error message Spark gives may hold the URL; the lineage parts never do.
    for text in memory.json_events:
        event = json.loads(text)
        event["run"]["facets"].pop("errorMessage", None)
        assert "s3cr3t" not in json.dumps(event)


def test_input_statistics_come_from_the_scan_in_classic_mode(
    spark: Any, classic_auto: Captured, data_dir: Path
) -> None:
    source = data_dir / "source"
    spark.range(500).selectExpr("id").repartition(3).write.parquet(str(source))
    classic_auto.clear()
    spark.read.parquet(str(source)).where("id > 10").write.parquet(str(data_dir / "out"))

    run = classic_auto.only_write()
    [read] = [i.to_dict() for i in run.end.inputs or []]
    files = files_of(source)
    assert read["inputFacets"]["inputStatistics"]["fileCount"] == len(files) == 3
    assert read["inputFacets"]["inputStatistics"]["size"] == bytes_of(files)
    assert run.output_json()["outputFacets"]["outputStatistics"]["rowCount"] == 489
    # START is sent before the scan ran: it has no statistics yet.
    [started] = run.start.inputs or []
    assert started.input_facets is not None  # written as {}, as the JVM agent writes it
    assert started.input_facets.input_statistics is None


def test_the_connect_path_never_uses_the_jvm(
    spark_connect: Any, client: Any, memory: Any, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under Connect, every JVM helper of the classic path is booby-trapped: none may run."""
    from openlineage_sdk.spark import install, uninstall
    from openlineage_sdk.spark.session import classic

    # Every module of the classic session, found rather than listed: a module added or renamed
    # later is trapped too.
    modules = [classic] + [
        importlib.import_module(f"{classic.__name__}.{info.name}")
        for info in pkgutil.iter_modules(classic.__path__)
    ]

    def trap(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the Connect path reached for the JVM")

    for module in modules:
        for name in dir(module):
            value = getattr(module, name)
            if callable(value) and getattr(value, "__module__", "") == module.__name__:
                monkeypatch.setattr(module, name, trap)

    install(spark_connect, client)
    try:
        source = data_dir / "source"
        spark_connect.range(10).write.parquet(str(source))
        spark_connect.read.parquet(str(source)).write.parquet(str(data_dir / "out"))
    finally:
        uninstall(spark_connect)
    runs = Captured(memory).write_runs()
    assert [r.types for r in runs] == [["START", "COMPLETE"]] * 2
    for run in runs:
        assert run.end.run.facets is not None
        assert run.end.run.facets.extraction_error is None
        assert run.output_json()["outputFacets"]["outputStatistics"]["rowCount"] == 10
    assert [(i.namespace, i.name) for i in runs[-1].end.inputs or []] == [
        ("file", str(data_dir / "source"))
    ]


def test_importing_the_adapter_does_not_import_pyspark() -> None:
    code = (
        "import sys, openlineage_sdk.spark as s; "
        "assert s.install; "
        "assert not [m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j')]"
    )
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)
