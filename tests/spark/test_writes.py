"""Automatic mode: each write is a run with real events, in classic PySpark and under Connect.

Every event a test emits is checked against the spec's schemas (strict, with formats) by the
``memory`` fixture.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import OpenLineage, RunEvent, naming
from openlineage_sdk._version import __version__
from openlineage_sdk.spark.session import session_kind
from openlineage_sdk.transports import MemoryTransport
from tests.spark._support import NAMESPACE, Captured, bytes_of, files_of

APP = "openlineage_sdk_tests"
INSERT = "execute_insert_into_hadoop_fs_relation_command"


def test_a_parquet_write_is_one_run_start_then_complete(
    mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    out = data_dir / "orders"
    mode_spark.range(1000).selectExpr("id", "id % 7 AS k").write.parquet(str(out))

    [run] = auto.runs()
    assert run.types == ["START", "COMPLETE"]
    assert run.job_name == naming.spark_job_name(APP, INSERT, str(out))
    assert run.job_name == f"{APP}.{INSERT}.{data_dir.name}_orders"
    assert {e.job.namespace for e in run.events} == {NAMESPACE}
    assert run.start.event_time <= run.end.event_time

    job_type = run.start.job.facets.job_type if run.start.job.facets else None
    assert job_type is not None
    assert (job_type.processing_type, job_type.integration, job_type.job_type) == (
        "BATCH",
        "SPARK",
        "SQL_JOB",
    )
    engine = run.start.run.facets.processing_engine if run.start.run.facets else None
    assert engine is not None
    assert (engine.name, engine.version, engine.openlineage_adapter_version) == (
        "spark",
        mode_spark.version,
        __version__,
    )
    assert run.start.run.facets is not None
    assert run.start.run.facets.parent is None  # no enclosing run
    assert run.end.run.facets is not None
    assert run.end.run.facets.extraction_error is None  # nothing went wrong

    # The START already names the output, with its schema; statistics come with COMPLETE.
    [started] = run.start.outputs or []
    assert (started.namespace, started.name) == ("file", str(out))
    # Empty (written as {}, as the JVM agent writes it): no statistics yet.
    assert started.output_facets is not None
    assert started.output_facets.output_statistics is None
    output = run.output_json()
    assert output["facets"]["dataSource"]["name"] == "file"
    assert output["facets"]["dataSource"]["uri"] == "file"  # as the JVM agent writes it
    assert output["facets"]["schema"]["fields"] == [
        {"name": "id", "type": "long"},
        {"name": "k", "type": "long"},
    ]
    stats = output["outputFacets"]["outputStatistics"]
    assert stats["rowCount"] == 1000
    if session_kind(mode_spark) == "classic":
        files = files_of(out)
        assert stats["fileCount"] == len(files)
        assert stats["size"] == bytes_of(files)
    else:
        # The Connect server does not return a command's write metrics: left out, not guessed.
        assert set(stats) == {"_producer", "_schemaURL", "rowCount"}


def test_start_is_described_beside_the_write_and_complete_waits_for_it(
    mode_spark: Any, data_dir: Path
) -> None:
    """In classic mode nothing of the description sits in front of the write: its START goes
    out from a thread of the adapter's while Spark writes (here held until the write is done,
    and the write does not wait for it); COMPLETE after it, whatever the order they were ready
    in, and the START's time is the write's start. Under Connect the START goes out before the
    write (the server keeps the plan's analysis from the description for the write)."""
    import time
    from datetime import datetime

    from openlineage_sdk.spark import install, uninstall

    out = data_dir / "out"
    seen: list[tuple[str | None, bool]] = []
    classic = session_kind(mode_spark) == "classic"

    class Watching(MemoryTransport):
        def emit(self, event: Any) -> None:
            if event.event_type == "START" and classic:
                deadline = time.monotonic() + 60
                while not (out / "_SUCCESS").exists() and time.monotonic() < deadline:
                    time.sleep(0.05)
            seen.append((event.event_type, (out / "_SUCCESS").exists()))
            super().emit(event)

    transport = Watching()
    install(mode_spark, OpenLineage(transport=transport, namespace=NAMESPACE))
    before = time.time()
    try:
        mode_spark.range(10).write.parquet(str(out))
    finally:
        uninstall(mode_spark)
    assert seen == [("START", classic), ("COMPLETE", True)]
    start, complete = transport.events
    assert start.inputs == []  # range() reads no dataset
    assert [o.name for o in start.outputs or []] == [o.name for o in complete.outputs or []]
    assert start.outputs[0].facets.schema is not None  # described, not a bare name
    # Its time is when the write started, not when it was sent (in classic mode, after the write).
    started = datetime.fromisoformat(start.event_time).timestamp()
    assert before <= started < (out / "_SUCCESS").stat().st_mtime


def test_save_as_table_is_one_run_named_by_location_with_a_table_symlink(
    mode_spark: Any, auto: Captured, spark_root: Path
) -> None:
    table = f"orders_{session_kind(mode_spark)}"
    mode_spark.sql(f"DROP TABLE IF EXISTS {table}")
    auto.clear()
    mode_spark.range(50).selectExpr("id").write.mode("overwrite").saveAsTable(table)

    # Spark runs three commands for it; the user made one call: one run.
    [run] = auto.runs()
    assert run.types == ["START", "COMPLETE"]
    assert run.job_name == (
        f"{APP}.execute_create_data_source_table_as_select_command.default_{table}"
    )
    output = run.output_json()
    warehouse = spark_root / "warehouse"
    assert (output["namespace"], output["name"]) == ("file", str(warehouse / table))
    assert output["facets"]["symlinks"]["identifiers"] == [
        {"namespace": f"file:{warehouse}", "name": f"default.{table}", "type": "TABLE"}
    ]
    assert output["outputFacets"]["outputStatistics"]["rowCount"] == 50
    assert run.end.run.facets is not None
    assert run.end.run.facets.extraction_error is None


def test_a_new_table_saved_with_overwrite_is_created_as_the_agent_says(
    mode_spark: Any, auto: Captured
) -> None:
    """saveAsTable runs a CTAS whatever the mode: the JVM agent's CTAS visitor says CREATE."""
    table = f"created_{session_kind(mode_spark)}"
    mode_spark.sql(f"DROP TABLE IF EXISTS {table}")
    auto.clear()
    mode_spark.range(5).selectExpr("id").write.mode("overwrite").saveAsTable(table)

    run = auto.only_write()
    facets = run.output_json()["facets"]
    assert facets["lifecycleStateChange"]["lifecycleStateChange"] == "CREATE"


def test_insert_into_an_existing_table_is_named_as_the_agent_names_its_insert(
    mode_spark: Any, auto: Captured, spark_root: Path
) -> None:
    """insertInto runs InsertIntoHadoopFsRelationCommand: the suffix is the location's folders."""
    table = f"insert_into_{session_kind(mode_spark)}"
    mode_spark.sql(f"DROP TABLE IF EXISTS {table}")
    mode_spark.sql(f"CREATE TABLE {table} (id BIGINT) USING parquet")
    mode_spark.range(3).write.insertInto(table)
    mode_spark.sql(f"TRUNCATE TABLE {table}")
    auto.clear()
    mode_spark.range(4).write.insertInto(table)

    run = auto.only_write()
    command = "execute_insert_into_hadoop_fs_relation_command"
    assert run.job_name == f"{APP}.{command}.warehouse_{table}"
    output = run.output_json()
    assert output["name"] == str(spark_root / "warehouse" / table)
    assert "lifecycleStateChange" not in output["facets"]
    assert output["outputFacets"]["outputStatistics"]["rowCount"] == 4


def test_writer_v2_create_of_a_partitioned_table_is_the_agents_ctas(
    mode_spark: Any, auto: Captured
) -> None:
    """writeTo(...).partitionedBy(...).create() on the session catalog runs a v1 CTAS."""
    table = f"v2_partitioned_{session_kind(mode_spark)}"
    mode_spark.sql(f"DROP TABLE IF EXISTS {table}")
    auto.clear()
    frame = mode_spark.range(6).selectExpr("id", "CAST(id % 2 AS INT) AS dt")
    frame.writeTo(table).using("parquet").partitionedBy(frame["dt"]).create()

    run = auto.only_write()
    command = "execute_create_data_source_table_as_select_command"
    assert run.job_name == f"{APP}.{command}.default_{table}"
    facets = run.output_json()["facets"]
    assert facets["lifecycleStateChange"]["lifecycleStateChange"] == "CREATE"


def test_an_aggregate_written_after_a_shuffle_has_its_statistics(
    mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    out = data_dir / "by_key"
    mode_spark.range(300).selectExpr("id % 12 AS k", "id").groupBy("k").count().write.parquet(
        str(out)
    )

    stats = auto.only_write().output_json()["outputFacets"]["outputStatistics"]
    assert stats["rowCount"] == 12
    if session_kind(mode_spark) == "classic":
        assert (stats["fileCount"], stats["size"]) == (len(files_of(out)), bytes_of(files_of(out)))


def test_a_failing_write_emits_fail_and_raises_the_error_unchanged(
    mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    out = data_dir / "exists"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    with pytest.raises(Exception, match="already exists") as raised:
        mode_spark.range(5).write.mode("error").parquet(str(out))
    assert type(raised.value).__module__.startswith("pyspark.errors")

    [run] = auto.runs()
    assert run.types == ["START", "FAIL"]
    assert run.end.run.facets is not None
    error = run.end.run.facets.error_message
    assert error is not None
    assert "already exists" in error.message
    assert error.programming_language == "python"
    assert error.stack_trace is not None
    assert "already exists" in error.stack_trace
    # Nothing was written: no statistics (the empty object is the JVM agent's shape).
    assert run.output_json().get("outputFacets", {}) == {}


def test_writes_inside_a_run_are_its_children(
    mode_spark: Any, auto: Captured, client: OpenLineage, data_dir: Path
) -> None:
    with client.run("nightly") as app:
        mode_spark.range(3).write.parquet(str(data_dir / "a"))
        mode_spark.range(4).write.parquet(str(data_dir / "b"))

    runs = auto.runs()
    assert [r.job_name for r in runs] == [
        "nightly",
        f"{APP}.{INSERT}.{data_dir.name}_a",
        f"{APP}.{INSERT}.{data_dir.name}_b",
    ]
    assert runs[0].types == ["START", "COMPLETE"]
    for child in runs[1:]:
        assert child.types == ["START", "COMPLETE"]
        for event in child.events:
            assert event.run.facets is not None
            parent = event.run.facets.parent
            assert parent is not None
            assert parent.run == {"runId": app.run_id}
            assert parent.job == {"namespace": NAMESPACE, "name": "nightly"}
            assert parent.root == {
                "run": {"runId": app.run_id},
                "job": {"namespace": NAMESPACE, "name": "nightly"},
            }
    # The application's own events end after its writes' runs.
    assert auto.events()[-1].run.run_id == app.run_id


def test_the_application_run_is_the_parent_of_the_writes(
    mode_spark: Any, auto: Captured, client: OpenLineage, data_dir: Path
) -> None:
    from openlineage_sdk.spark import application_run

    with application_run(mode_spark, client) as app:
        mode_spark.range(3).write.parquet(str(data_dir / "a"))

    application, write = auto.runs()
    assert application.job_name == APP
    assert application.types == ["START", "COMPLETE"]
    facets = application.start.job.facets
    assert facets is not None
    assert facets.job_type is not None
    assert (facets.job_type.processing_type, facets.job_type.job_type) == ("NONE", "APPLICATION")
    assert application.start.run.facets is not None
    engine = application.start.run.facets.processing_engine
    assert engine is not None
    assert engine.version == mode_spark.version
    assert write.start.run.facets is not None
    assert write.start.run.facets.parent is not None
    assert write.start.run.facets.parent.run == {"runId": app.run_id}


def test_inputs_of_a_join_are_both_files_with_schema_and_statistics(
    mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    left, right, out = data_dir / "left", data_dir / "right", data_dir / "out"
    mode_spark.range(20).selectExpr("id", "id % 3 AS k").write.parquet(str(left))
    mode_spark.range(3).selectExpr("id AS k", "concat('name', id) AS name").write.parquet(
        str(right)
    )
    auto.clear()

    joined = mode_spark.read.parquet(str(left)).join(mode_spark.read.parquet(str(right)), "k")
    joined.write.parquet(str(out))

    run = auto.only_write()
    inputs = {(i.namespace, i.name): i.to_dict() for i in run.end.inputs or []}
    assert sorted(inputs) == [("file", str(left)), ("file", str(right))]
    assert run.output_json()["outputFacets"]["outputStatistics"]["rowCount"] == 20
    left_input = inputs[("file", str(left))]
    if session_kind(mode_spark) == "classic":
        assert left_input["facets"]["schema"]["fields"] == [
            {"name": "id", "type": "long"},
            {"name": "k", "type": "long"},
        ]
        read = left_input["inputFacets"]["inputStatistics"]
        assert (read["fileCount"], read["size"]) == (
            len(files_of(left)),
            bytes_of(files_of(left)),
        )
        assert "rowCount" not in read  # rows read after pushed filters are not rows stored
    else:
        # A Connect client knows what a plan reads, not its schema or what the scan read.
        assert set(left_input["facets"]) == {"dataSource"}
        assert left_input.get("inputFacets", {}) == {}  # empty, as the JVM agent writes it


def test_writer_v2_create_is_one_run_of_the_table(
    mode_spark: Any, auto: Captured, spark_root: Path
) -> None:
    table = f"v2_orders_{session_kind(mode_spark)}"
    mode_spark.sql(f"DROP TABLE IF EXISTS {table}")
    auto.clear()
    mode_spark.range(7).selectExpr("id").writeTo(table).using("parquet").create()

    run = auto.only_write()
    # On the session catalog Spark runs the CTAS of a v1 table: the JVM agent's name and state.
    command = "execute_create_data_source_table_as_select_command"
    assert run.job_name == f"{APP}.{command}.default_{table}"
    output = run.output_json()
    assert (output["namespace"], output["name"]) == ("file", str(spark_root / "warehouse" / table))
    assert output["outputFacets"]["outputStatistics"]["rowCount"] == 7
    assert output["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "CREATE"


def test_a_writer_used_twice_is_two_runs(mode_spark: Any, auto: Captured, data_dir: Path) -> None:
    writer = mode_spark.range(4).write.mode("overwrite").format("parquet")
    writer.save(str(data_dir / "a"))
    writer.save(str(data_dir / "b"))

    runs = auto.write_runs()
    assert [r.types for r in runs] == [["START", "COMPLETE"]] * 2
    assert [r.output().name for r in runs] == [str(data_dir / "a"), str(data_dir / "b")]
    assert [r.output_json()["outputFacets"]["outputStatistics"]["rowCount"] for r in runs] == [
        4,
        4,
    ]


def test_a_new_table_in_a_database_with_its_own_location(
    mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    database = f"mart_{session_kind(mode_spark)}"
    mode_spark.sql(f"DROP DATABASE IF EXISTS {database} CASCADE")
    mode_spark.sql(f"CREATE DATABASE {database} LOCATION '{data_dir / 'mart'}'")
    auto.clear()
    mode_spark.range(2).write.saveAsTable(f"{database}.Daily")

    run = auto.only_write()
    output = run.output_json()
    assert (output["namespace"], output["name"]) == ("file", str(data_dir / "mart" / "daily"))
    assert output["facets"]["symlinks"]["identifiers"] == [
        {"namespace": f"file:{data_dir / 'mart'}", "name": f"{database}.daily", "type": "TABLE"}
    ]
    assert run.end.run.facets is not None
    assert run.end.run.facets.extraction_error is None


def test_a_new_table_the_catalog_places_elsewhere_stays_the_one_output_of_its_run(
    mode_spark: Any, auto: Captured, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start names a new table by where it will live; the catalog disagrees afterwards."""
    from openlineage_sdk.spark.describe._tables import TableInfo, planned_table
    from openlineage_sdk.spark.session import _base

    planned = data_dir / "planned"

    def elsewhere(spark: Any, name: str, path: str | None = None) -> TableInfo:
        info = planned_table(spark, name, path)
        return TableInfo(info.database, info.table, f"file:{planned}")

    monkeypatch.setattr(_base, "planned_table", elsewhere)
    table = f"placed_{session_kind(mode_spark)}"
    mode_spark.sql(f"DROP TABLE IF EXISTS {table}")
    auto.clear()
    mode_spark.range(4).write.saveAsTable(table)

    run = auto.only_write()
    for event in run.events:
        assert [(o.namespace, o.name) for o in event.outputs or []] == [("file", str(planned))]
    assert run.output_json()["outputFacets"]["outputStatistics"]["rowCount"] == 4
    assert run.end.run.facets is not None
    failure = run.end.run.facets.extraction_error
    assert failure is not None
    actual = mode_spark.sql(f"DESCRIBE TABLE EXTENDED {table}").where("col_name = 'Location'")
    location = actual.collect()[0][1].removeprefix("file:")
    assert [e["errorMessage"] for e in failure.errors] == [
        f"output: the catalog placed the table at file {location}, not at file {planned} as planned"
    ]


def test_writes_of_another_session_pass_through(
    spark: Any, mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    other = spark.newSession() if session_kind(mode_spark) == "classic" else spark
    other.range(3).write.parquet(str(data_dir / "other"))
    assert auto.events() == []


def test_uninstall_stops_the_events(mode_spark: Any, client: Any, data_dir: Path) -> None:
    from openlineage_sdk.spark import install, installed, uninstall

    memory = client.transport
    install(mode_spark, client)
    mode_spark.range(3).write.parquet(str(data_dir / "a"))
    uninstall(mode_spark)
    assert installed(mode_spark) is None
    mode_spark.range(3).write.parquet(str(data_dir / "b"))
    assert [e.event_type for e in memory.events] == ["START", "COMPLETE"]


def test_uninstall_stops_every_kind_of_run_however_often_it_is_installed(
    mode_spark: Any, client: Any, data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Reads ending in actions and statements too: nothing of an adapter outlives uninstall.

    (In classic mode the reads reach the adapter from a listener registered with the session;
    an installation that left its listener behind went on reporting them, once more with each
    install.)
    """
    from openlineage_sdk.spark import install, uninstall

    memory = client.transport
    source = str(data_dir / "source")
    mode_spark.range(3).write.parquet(source)
    for _ in range(3):
        install(mode_spark, client)
        uninstall(mode_spark)
    install(mode_spark, client)
    mode_spark.read.parquet(source).count()
    _drain(mode_spark)
    assert [e.event_type for e in memory.events] == ["START", "COMPLETE"]  # once, not four times
    uninstall(mode_spark)
    mode_spark.read.parquet(source).count()
    mode_spark.sql(f"CREATE TABLE uninstalled_t USING parquet AS SELECT * FROM parquet.`{source}`")
    mode_spark.sql("DROP TABLE uninstalled_t")
    _drain(mode_spark)
    assert [e.event_type for e in memory.events] == ["START", "COMPLETE"]
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def _drain(spark: Any) -> None:
    """Let the classic session's listener bus deliver what was posted (a no-op under Connect)."""
    if hasattr(spark, "_jsc"):
        spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(30_000)


def test_without_a_client_events_go_where_the_environment_says(
    mode_spark: Any, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing configured: the JSON Lines file in the working folder, as the client does."""
    import os

    from openlineage_sdk import read_event
    from openlineage_sdk.spark import install, uninstall

    for name in list(os.environ):
        if name.startswith("OPENLINEAGE"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    install(mode_spark)
    try:
        mode_spark.range(3).write.parquet(str(data_dir / "out"))
    finally:
        uninstall(mode_spark)
    lines = (tmp_path / "openlineage_events.jsonl").read_text().splitlines()
    events = [read_event(line) for line in lines]
    assert [e.event_type for e in events if isinstance(e, RunEvent)] == ["START", "COMPLETE"]
    assert {e.job.namespace for e in events if isinstance(e, RunEvent)} == {"default"}


def test_a_command_result_is_read_as_collect_reads_it_without_a_second_request(
    mode_spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``DESCRIBE``'s rows, read from the result Connect already sent (classic: collected)."""
    from openlineage_sdk.spark.describe._tables import command_rows

    table = f"command_rows_{session_kind(mode_spark)}"
    mode_spark.sql(
        f"CREATE TABLE IF NOT EXISTS {table} (a INT COMMENT 'x', b STRING) USING parquet"
    )
    try:
        frame = mode_spark.sql(f"DESCRIBE TABLE EXTENDED {table}")
        expected = [tuple(row) for row in frame.collect()]
        assert ("a", "int", "x") in expected
        if session_kind(mode_spark) == "connect":

            def no_request(*args: Any, **kwargs: Any) -> Any:
                raise AssertionError("a second request for a result already sent")

            monkeypatch.setattr(mode_spark.client, "_execute_and_fetch", no_request)
        assert command_rows(frame) == expected
    finally:
        monkeypatch.undo()
        mode_spark.sql(f"DROP TABLE IF EXISTS {table}")
