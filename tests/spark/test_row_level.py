"""MERGE INTO, UPDATE, DELETE and DataFrame.mergeInto on v2 tables that change rows in place.

The tables are the test catalog's (``tests/spark/java/RowLevelCatalog.java``, compiled at test
time against the PySpark wheel's JARs): Spark plans row-level changes on them exactly as on
Iceberg tables, ``ReplaceData`` for copy-on-write and ``WriteDelta`` (with ``MergeRows`` for a
MERGE) for merge-on-read. The scenarios are the JVM agent's ``SparkIcebergIntegrationTest``
(its ``pysparkV2MergeIntoTable*``, ``pysparkV2Delete*`` and ``pysparkV2Update*`` expected files,
vendored in ``tests/data/jvm-spark``), with the test catalog in place of Iceberg's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.spark._row_level import CATALOG_CLASS
from tests.spark._row_level import missing as catalog_missing
from tests.spark._support import Captured, matches
from tests.spark._versions import needs

EXPECTED = Path(__file__).resolve().parent.parent / "data" / "jvm-spark" / "expected"
APP = "openlineage_sdk_tests"


@pytest.fixture
def rl(mode_spark: Any, spark: Any, data_dir: Path) -> Path:
    """The test catalog ``rl`` on the test's session, with a warehouse of the test's own."""
    reason = catalog_missing()
    if reason is not None:
        pytest.skip(reason)
    warehouse = data_dir / "rl"
    conf = mode_spark.conf
    conf.set("spark.sql.catalog.rl", CATALOG_CLASS)
    conf.set("spark.sql.catalog.rl.warehouse", str(warehouse))
    # A catalog is made once per session; its warehouse is the first test's, each table its own.
    return warehouse


def _names(spark: Any, prefix: str) -> dict[str, str]:
    """Tables named for this test and mode, so both modes share the catalog without clashing."""
    mode = "c" if type(spark).__module__.startswith("pyspark.sql.connect") else "k"
    return {name: f"{name}_{prefix}{mode}" for name in ("events", "updates", "tbl", "temp")}


def _expected(name: str, tables: dict[str, str], agent_tables: dict[str, str], run: Any) -> Any:
    """An expected file of the agent's Iceberg test with its tables as the test catalog's."""
    text = (EXPECTED / name).read_text()
    location = run_location(run)
    for ours, theirs in ((tables[k], agent_tables[k]) for k in agent_tables):
        text = text.replace(f"/tmp/iceberg/default/{theirs}", f"{location}/default/{ours}")
        text = text.replace(f"default.{theirs}", f"default.{ours}")
        text = text.replace(f"spark_catalog_default_{theirs}", f"rl_default_{ours}")
    text = text.replace('"file:/tmp/iceberg"', json.dumps(f"file:{location}"))
    expected = json.loads(text)
    expected["job"]["name"] = expected["job"]["name"].replace(
        "iceberg_integration_test.", f"{APP}."
    )
    del expected["job"]["namespace"]
    return expected


def run_location(run: Any) -> str:
    """The test catalog's warehouse, from the output's symlink namespace."""
    output = run.output_json()
    [link] = output["facets"]["symlinks"]["identifiers"]
    return str(link["namespace"]).removeprefix("file:")


def _run_json(run: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    start: dict[str, Any] = run.start.to_dict()
    end: dict[str, Any] = run.end.to_dict()
    # The adapter's COMPLETE carries what changed; the run holds the rest from its START.
    end.setdefault("inputs", start.get("inputs", []))
    return start, end


def _only(auto: Captured, job: str) -> Any:
    runs = [r for r in auto.runs() if f".{job}." in r.job_name]
    assert len(runs) == 1, [r.job_name for r in auto.runs()]
    return runs[0]


@pytest.mark.parametrize(
    ("mode", "node"), [("copy-on-write", "replace_data"), ("merge-on-read", "write_delta")]
)
def test_merge_into_reports_the_source_and_target_as_inputs_and_the_target_as_output(
    mode_spark: Any, rl: Path, auto: Captured, mode: str, node: str
) -> None:
    t = _names(mode_spark, "m" + mode[0])
    events, updates = f"rl.default.{t['events']}", f"rl.default.{t['updates']}"
    sql = mode_spark.sql
    sql(
        f"CREATE TABLE {events} (event_id long, last_updated_at long) "
        f"TBLPROPERTIES ('write.merge.mode'='{mode}')"
    )
    sql(f"CREATE TABLE {updates} (event_id long, updated_at long)")
    sql(f"INSERT INTO {events} VALUES (1, 1641290276)")
    sql(f"INSERT INTO {updates} VALUES (1, 1641290277)")
    sql(f"INSERT INTO {updates} VALUES (2, 1641290277)")
    auto.clear()
    sql(
        f"MERGE INTO {events} events USING {updates} updates "
        " ON events.event_id = updates.event_id"
        " WHEN MATCHED THEN UPDATE SET events.last_updated_at = updates.updated_at"
        " WHEN NOT MATCHED THEN INSERT (event_id, last_updated_at) "
        "VALUES (event_id, updated_at)"
    )
    assert sorted(tuple(r) for r in sql(f"SELECT * FROM {events}").collect()) == [
        (1, 1641290277),
        (2, 1641290277),
    ]
    run = _only(auto, node)
    assert run.types == ["START", "COMPLETE"]
    start, end = _run_json(run)
    assert sorted(i["name"].rsplit("/", 1)[-1] for i in start["inputs"]) == sorted(
        [t["events"], t["updates"]]
    )
    agent = {"events": "events_cow", "updates": "updates_cow"}
    if mode == "merge-on-read":
        agent = {"events": "events_mor", "updates": "updates_mor"}
    suffix = "Cow" if mode == "copy-on-write" else "Mor"
    expected_start = _expected(f"pysparkV2MergeIntoTable{suffix}StartEvent.json", t, agent, run)
    expected_end = _expected(f"pysparkV2MergeIntoTable{suffix}CompleteEvent.json", t, agent, run)
    if type(mode_spark).__module__.startswith("pyspark.sql.connect"):
        # Under Connect: no table version (DESCRIBE shows none) and no column lineage of a
        # MERGE's rows (see docs/spark/merge.md).
        for expected in (expected_start, expected_end):
            for dataset in [*expected["inputs"], *expected["outputs"]]:
                dataset["facets"].pop("version", None)
                dataset["facets"].pop("columnLineage", None)
    assert matches(expected_start, start), json.dumps(start, indent=1)
    assert matches(expected_end, end), json.dumps(end, indent=1)


@pytest.mark.parametrize(
    ("command", "mode", "node"),
    [
        ("delete", "copy-on-write", "replace_data"),
        ("delete", "merge-on-read", "write_delta"),
        ("update", "copy-on-write", "replace_data"),
        ("update", "merge-on-read", "write_delta"),
    ],
)
def test_delete_and_update_report_the_table_they_change(
    mode_spark: Any, rl: Path, auto: Captured, command: str, mode: str, node: str
) -> None:
    t = _names(mode_spark, command[0] + mode[0])
    table = f"rl.default.{t['tbl']}"
    sql = mode_spark.sql
    mode_spark.createDataFrame([(1, 2), (3, 4)], "a long, b long").createOrReplaceTempView(
        t["temp"]
    )
    sql(
        f"CREATE TABLE {table} TBLPROPERTIES ('write.{command}.mode'='{mode}') "
        f"AS SELECT * FROM {t['temp']}"
    )
    auto.clear()
    if command == "delete":
        sql(f"DELETE FROM {table} WHERE a=1")
        assert [tuple(r) for r in sql(f"SELECT * FROM {table}").collect()] == [(3, 4)]
    else:
        sql(f"UPDATE {table} SET b=5 WHERE a=1")
        assert sorted(tuple(r) for r in sql(f"SELECT * FROM {table}").collect()) == [(1, 5), (3, 4)]
    run = _only(auto, node)
    start, end = _run_json(run)
    name = "Delete" if command == "delete" else "Update"
    suffix = "Cow" if mode == "copy-on-write" else "Mor"
    agent = {"tbl": f"tbl_{command}_{suffix.lower()}"}
    for file, event in (("Start", start), ("Complete", end)):
        expected = _expected(f"pysparkV2{name}{suffix}{file}Event.json", t, agent, run)
        if type(mode_spark).__module__.startswith("pyspark.sql.connect"):
            for dataset in [*expected["inputs"], *expected["outputs"]]:
                dataset["facets"].pop("version", None)
        assert matches(expected, event), json.dumps(event, indent=1)


@needs(4, 0, "DataFrame.mergeInto")
def test_dataframe_merge_into_is_a_run_of_the_merge(
    mode_spark: Any, rl: Path, auto: Captured
) -> None:
    # This process holds a classic session too: the generic functions would make classic columns.
    if type(mode_spark).__module__.startswith("pyspark.sql.connect"):
        from pyspark.sql.connect.functions import col
    else:
        from pyspark.sql.functions import col

    t = _names(mode_spark, "df")
    events = f"rl.default.{t['events']}"
    mode_spark.sql(f"CREATE TABLE {events} (event_id long, last_updated_at long)")
    mode_spark.sql(f"INSERT INTO {events} VALUES (1, 10)")
    source = mode_spark.createDataFrame([(1, 11), (2, 20)], "event_id long, updated_at long")
    source = source.alias("s")
    auto.clear()
    condition = col("s.event_id") == col(f"{t['events']}.event_id")
    source.mergeInto(events, condition).whenMatched().update(
        {"last_updated_at": col("s.updated_at")}
    ).whenNotMatched().insert(
        {"event_id": col("s.event_id"), "last_updated_at": col("s.updated_at")}
    ).merge()
    assert sorted(tuple(r) for r in mode_spark.table(events).collect()) == [(1, 11), (2, 20)]
    [run] = [r for r in auto.runs() if r.events[0].outputs or r.events[-1].outputs]
    assert run.types == ["START", "COMPLETE"]
    output = run.output_json()
    assert output["name"].endswith(f"/default/{t['events']}")
    assert output["facets"]["symlinks"]["identifiers"][0]["name"] == f"default.{t['events']}"
    inputs = [i.name for i in run.start.inputs or []]
    assert output["name"] in inputs  # the target is read as well as written
    job = run.job_name.split(".")[1]
    if type(mode_spark).__module__.startswith("pyspark.sql.connect"):
        assert job == "merge_into_table"
    else:
        assert job == "replace_data"
        assert sorted(output["facets"]["columnLineage"]["fields"]) == [
            "event_id",
            "last_updated_at",
        ]
