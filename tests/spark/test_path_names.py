"""Files whose names hold ``#``, ``%`` and spaces keep those characters in their dataset names.

Spark reads paths as Hadoop paths, where ``#``, ``?`` and ``%`` are part of a file's name, not a
URL's fragment, query or escape. Paths are given as ``file:{path}``: with a scheme, a path is
what the adapter has to turn into a URL-like location in both modes, where a plain path could
pass through as it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk.spark.describe._naming import dataset_name
from openlineage_sdk.spark.describe._tables import TableInfo, table_identity
from openlineage_sdk.spark.session import session_kind
from openlineage_sdk.spark.session.connect._plan import path_uri
from tests.spark._support import Captured

ODD = "#1 100%"  # a fragment mark, a percent sign that escapes nothing, and a space


def _names(datasets: Any) -> list[tuple[str, str]]:
    return [(d.namespace, d.name) for d in datasets or []]


def _connect_name(path: str, default_fs: str | None) -> tuple[str, str]:
    """The namespace and name of a path a Connect client wrote, as the adapter names it."""
    located = dataset_name(path_uri(path, default_fs))
    return located.namespace, located.name


def test_file_inputs_and_outputs_keep_hash_percent_and_space(
    mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    source = data_dir / f"in {ODD}"
    out = data_dir / f"out {ODD}"
    mode_spark.range(3).write.parquet(f"file:{source}")
    auto.clear()
    mode_spark.read.parquet(f"file:{source}").write.parquet(f"file:{out}")

    run = auto.only_write()
    assert run.types == ["START", "COMPLETE"]
    for event in run.events:
        assert _names(event.inputs) == [("file", str(source))]
        assert _names(event.outputs) == [("file", str(out))]
    assert run.end.run.facets is not None
    assert run.end.run.facets.extraction_error is None
    assert run.output_json()["outputFacets"]["outputStatistics"]["rowCount"] == 3
    if session_kind(mode_spark) == "classic":
        # The scan's location is named as the input is, so its statistics find the input.
        [read] = [i.to_dict() for i in run.end.inputs or []]
        assert read["inputFacets"]["inputStatistics"]["fileCount"] >= 1


def test_a_plain_path_with_hash_is_named_by_the_classic_file_system(
    spark: Any, classic_auto: Captured, data_dir: Path
) -> None:
    """Classic PySpark qualifies a plain path on the driver; the name keeps what follows ``#``."""
    source = data_dir / f"in {ODD}"
    spark.range(2).write.csv(str(source))
    classic_auto.clear()
    spark.read.csv(str(source)).write.csv(str(data_dir / f"out {ODD}"))

    run = classic_auto.only_write()
    assert _names(run.end.inputs) == [("file", str(source))]
    assert _names(run.end.outputs) == [("file", str(data_dir / f"out {ODD}"))]


def test_a_v2_file_source_input_keeps_hash_percent_and_space(
    spark: Any, classic_auto: Captured, data_dir: Path
) -> None:
    """With the v2 file sources, the input is a file table over the same location."""
    source = data_dir / f"in {ODD}"
    spark.range(2).write.parquet(str(source))
    classic_auto.clear()
    spark.conf.set("spark.sql.sources.useV1SourceList", "")
    try:
        frame = spark.read.parquet(f"file:{source}")
        assert "RelationV2" in frame._jdf.queryExecution().analyzed().toString()
        frame.write.mode("overwrite").parquet(str(data_dir / "out"))
    finally:
        spark.conf.unset("spark.sql.sources.useV1SourceList")

    run = classic_auto.only_write()
    assert _names(run.end.inputs) == [("file", str(source))]


def test_an_external_table_at_an_odd_path_is_named_by_its_location(
    mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    table = f"odd_{session_kind(mode_spark)}"
    location = data_dir / f"table {ODD}"
    mode_spark.sql(f"DROP TABLE IF EXISTS {table}")
    auto.clear()
    mode_spark.range(2).write.option("path", f"file:{location}").saveAsTable(table)
    mode_spark.table(table).write.parquet(str(data_dir / "copy"))

    created, copied = auto.write_runs()
    link = [{"namespace": f"file:{data_dir}", "name": f"default.{table}", "type": "TABLE"}]
    output = created.output_json()
    assert (output["namespace"], output["name"]) == ("file", str(location))
    assert output["facets"]["symlinks"]["identifiers"] == link
    [source] = [i.to_dict() for i in copied.end.inputs or []]
    assert (source["namespace"], source["name"]) == ("file", str(location))
    assert source["facets"]["symlinks"]["identifiers"] == link
    for run in (created, copied):
        assert run.end.run.facets is not None
        assert run.end.run.facets.extraction_error is None


def test_a_new_table_in_a_database_at_an_odd_path(
    mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    database = f"odd_db_{session_kind(mode_spark)}"
    root = data_dir / f"mart {ODD}"
    mode_spark.sql(f"DROP DATABASE IF EXISTS {database} CASCADE")
    mode_spark.sql(f"CREATE DATABASE {database} LOCATION 'file:{root}'")
    auto.clear()
    mode_spark.range(2).write.saveAsTable(f"{database}.daily")

    run = auto.only_write()
    output = run.output_json()
    assert (output["namespace"], output["name"]) == ("file", str(root / "daily"))
    assert output["facets"]["symlinks"]["identifiers"] == [
        {"namespace": f"file:{root}", "name": f"{database}.daily", "type": "TABLE"}
    ]
    # After the write the catalog's location agrees with the planned one: no problem reported.
    assert run.end.run.facets is not None
    assert run.end.run.facets.extraction_error is None


@pytest.mark.parametrize(
    ("path", "default_fs", "namespace", "name"),
    [
        ("/data/a #1 100%", "hdfs://namenode:8020", "hdfs://namenode:8020", "/data/a #1 100%"),
        ("/data/a?b#c", "hdfs://namenode", "hdfs://namenode:8020", "/data/a?b#c"),
        ("file:/data/a #1 100%", None, "file", "/data/a #1 100%"),
        ("file:///data/a%20b", None, "file", "/data/a%20b"),
        ("hdfs://namenode:9000/x/a#b", None, "hdfs://namenode:9000", "/x/a#b"),
        ("s3a://bucket/raw/a #1 100%", None, "s3://bucket", "raw/a #1 100%"),
        ("dbfs:/mnt/a#b", None, "dbfs", "/mnt/a#b"),
    ],
)
def test_connect_paths_are_read_as_hadoop_paths(
    path: str, default_fs: str | None, namespace: str, name: str
) -> None:
    assert _connect_name(path, default_fs) == (namespace, name)


@pytest.mark.parametrize(
    ("path", "default_fs", "namespace", "name"),
    [
        ("/data/a #1 100%", None, "file", "/data/a #1 100%"),
        ("/data/orders", "hdfs://namenode:8020/", "hdfs://namenode:8020", "/data/orders"),
        ("/data/orders", "file:///", "file", "/data/orders"),
        ("file:///data/orders/", None, "file", "/data/orders"),
        ("hdfs://namenode/warehouse/orders", None, "hdfs://namenode:8020", "/warehouse/orders"),
        (
            "abfss://c@acct.dfs.core.windows.net/raw",
            None,
            "abfss://c@acct.dfs.core.windows.net",
            "raw",
        ),
    ],
)
def test_connect_paths_the_old_naming_got_right_are_named_as_before(
    path: str, default_fs: str | None, namespace: str, name: str
) -> None:
    assert _connect_name(path, default_fs) == (namespace, name)


def test_a_relative_connect_path_still_raises() -> None:
    with pytest.raises(ValueError, match="relative path"):
        path_uri("data/a#b", None)


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("file:/a #1/b", ("file", None, "/a #1/b")),
        ("hdfs://nn:8020/a?b", ("hdfs", "nn:8020", "/a?b")),
        ("file:///a", ("file", "", "/a")),
        ("/a:b/c", (None, None, "/a:b/c")),
    ],
)
def test_hadoop_path_strings_split_as_hadoop_splits_them(
    text: str, parts: tuple[str | None, str | None, str]
) -> None:
    from openlineage_sdk.spark.describe._naming import split_hadoop_path

    assert split_hadoop_path(text) == parts


def test_a_described_table_location_keeps_its_folder_names() -> None:
    from openlineage_sdk.spark.describe._naming import hadoop_location_uri

    # DESCRIBE TABLE shows a location as Hadoop's Path.toString() writes it: not encoded.
    location = hadoop_location_uri("hdfs://nn:8020/wh #1 100%/sales.db/orders")
    identity = table_identity(TableInfo("sales", "orders", location))
    assert (identity.namespace, identity.name) == (
        "hdfs://nn:8020",
        "/wh #1 100%/sales.db/orders",
    )
    [link] = identity.symlinks
    assert link.namespace == "hdfs://nn:8020/wh #1 100%/sales.db"


@pytest.mark.parametrize("scheme", ["abfss", "abfs"])
def test_an_azure_data_lake_location_is_named_relative_to_its_container(scheme: str) -> None:
    """As the JVM agent names it: ``path/t`` in ``abfss://{container}@{account}...``."""
    from openlineage_sdk.spark import DatasetIdentity
    from openlineage_sdk.spark.describe._naming import hadoop_location_uri

    location = f"{scheme}://raw@lake.dfs.core.windows.net/sales/orders"
    identity = DatasetIdentity.from_uri(hadoop_location_uri(location))
    assert (identity.namespace, identity.name) == (
        "abfss://raw@lake.dfs.core.windows.net",
        "sales/orders",
    )
    table = table_identity(TableInfo("sales", "orders", hadoop_location_uri(location)))
    assert (table.namespace, table.name) == (
        "abfss://raw@lake.dfs.core.windows.net",
        "sales/orders",
    )
    [link] = table.symlinks
    assert link.namespace == "abfss://raw@lake.dfs.core.windows.net/sales"
