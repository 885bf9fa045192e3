"""Executions started from JVM code (classic PySpark): reported once, from Spark's listener.

A command run by ``df._jdf.write()``, ``spark._jsparkSession.sql(...)`` or ``df._jdf.writeTo``
passes no Python method the adapter wraps; the session's ``QueryExecutionListener`` hears it
once it ran, and it is reported as a statement run through a hook would be. A command a hooked
call ran is reported once, by its hook.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.spark._support import Captured

_names = itertools.count()


def _heard(spark: Any, captured: Captured) -> None:
    """Every event the listener bus holds, delivered, and what the adapter owes reported."""
    from openlineage_sdk.spark import installed

    adapter = installed(spark)
    assert adapter is not None
    adapter.flush()


def _table(stem: str) -> str:
    return f"jvm_{stem}_{next(_names)}"


def test_a_jvm_side_file_write_is_one_run_with_its_statistics(
    spark: Any, classic_auto: Captured, tmp_path: Path
) -> None:
    df = spark.range(10).withColumnRenamed("id", "x")
    classic_auto.clear()
    df._jdf.write().mode("overwrite").parquet(str(tmp_path / "jvm_side"))
    _heard(spark, classic_auto)

    run = classic_auto.only_write()
    assert run.types == ["START", "COMPLETE"]
    assert run.job_name.startswith("openlineage_sdk_tests.execute_insert_into_hadoop_fs_relation")
    assert run.job_name.endswith("_jvm_side")
    (output,) = run.end.to_dict()["outputs"]
    assert output["name"].endswith("/jvm_side")
    assert output["outputFacets"]["outputStatistics"]["rowCount"] == 10
    assert run.start.event_time <= run.end.event_time


def test_a_jvm_side_ctas_is_one_run_of_the_agents_command(
    spark: Any, classic_auto: Captured
) -> None:
    name = _table("ctas")
    classic_auto.clear()
    spark._jsparkSession.sql(f"CREATE TABLE {name} USING parquet AS SELECT 1 AS a")
    _heard(spark, classic_auto)
    try:
        run = classic_auto.only_write()
        assert run.types == ["START", "COMPLETE"]
        assert "create_data_source_table_as_select_command" in run.job_name
        (output,) = run.end.to_dict()["outputs"]
        assert output["name"].endswith(f"/{name}")
        assert output["outputFacets"]["outputStatistics"]["rowCount"] == 1
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {name}")


@pytest.mark.parametrize(
    ("made_first", "write"),
    [
        (True, lambda df, name: df._jdf.write().mode("append").insertInto(name)),
        (False, lambda df, name: df._jdf.writeTo(name).using("parquet").create()),
    ],
    ids=["insert_into", "write_to_v2"],
)
def test_a_jvm_side_write_to_a_table_is_one_run(
    spark: Any, classic_auto: Captured, made_first: bool, write: Callable[[Any, str], None]
) -> None:
    """``_jdf.write().insertInto`` a table made beforehand; ``_jdf.writeTo(...).create()``."""
    name = _table("write_to")
    if made_first:
        spark.sql(f"CREATE TABLE {name} (id BIGINT) USING parquet")
    try:
        df = spark.range(3)
        classic_auto.clear()
        write(df, name)
        _heard(spark, classic_auto)
        run = classic_auto.only_write()
        assert run.types == ["START", "COMPLETE"]
        (output,) = run.end.to_dict()["outputs"]
        assert output["name"].endswith(f"/{name}")
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {name}")


def test_a_jvm_side_statement_that_touches_no_dataset_is_no_run(
    spark: Any, classic_auto: Captured
) -> None:
    """The agent's filters: ``SET``, ``SHOW TABLES``, ``CREATE NAMESPACE`` are not reported."""
    classic_auto.clear()
    spark._jsparkSession.sql("SET spark.sql.shuffle.partitions=4")
    spark._jsparkSession.sql("SHOW TABLES").collect()
    spark._jsparkSession.sql("CREATE NAMESPACE IF NOT EXISTS jvm_ns")
    _heard(spark, classic_auto)
    assert classic_auto.write_runs() == []


def test_a_failing_jvm_side_command_is_one_failed_run(spark: Any, classic_auto: Captured) -> None:
    name = _table("failing")
    spark.sql(f"CREATE TABLE {name} (a INT) USING parquet")
    try:
        classic_auto.clear()
        with pytest.raises(Exception, match="jvm side failure"):
            spark._jsparkSession.sql(
                f"INSERT INTO {name} SELECT CAST(raise_error('jvm side failure') AS INT)"
            )
        _heard(spark, classic_auto)
        run = classic_auto.only_write()
        assert run.types == ["START", "FAIL"]
        assert "jvm side failure" in run.end.to_dict()["run"]["facets"]["errorMessage"]["message"]
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {name}")


@pytest.mark.parametrize(
    "statement",
    [
        "CREATE TABLE {t} (a INT) USING parquet",
        "INSERT INTO {t} VALUES (1)",
        "INSERT OVERWRITE TABLE {t} SELECT 2",
        "ALTER TABLE {t} ADD COLUMNS (b STRING)",
        "TRUNCATE TABLE {t}",
        "DROP TABLE {t}",
    ],
)
def test_a_hooked_statement_is_one_run(spark: Any, classic_auto: Captured, statement: str) -> None:
    name = _table("hooked")
    if not statement.startswith("CREATE"):
        spark.sql(f"CREATE TABLE {name} (a INT) USING parquet")
    try:
        classic_auto.clear()
        spark.sql(statement.format(t=name))
        _heard(spark, classic_auto)
        assert len(classic_auto.write_runs()) == 1, [r.job_name for r in classic_auto.runs()]
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {name}")


@pytest.mark.parametrize("method", ["parquet", "saveAsTable", "insertInto", "writeTo", "save"])
def test_a_hooked_write_is_one_run(
    spark: Any, classic_auto: Captured, tmp_path: Path, method: str
) -> None:
    name = _table("hooked_write")
    df = spark.range(4)
    if method == "insertInto":
        spark.sql(f"CREATE TABLE {name} (id BIGINT) USING parquet")
    try:
        classic_auto.clear()
        if method == "parquet":
            df.write.mode("overwrite").parquet(str(tmp_path / "p"))
        elif method == "save":
            df.write.format("json").mode("overwrite").save(str(tmp_path / "j"))
        elif method == "saveAsTable":
            df.write.saveAsTable(name)
        elif method == "insertInto":
            df.write.insertInto(name)
        else:
            df.writeTo(name).using("parquet").create()
        _heard(spark, classic_auto)
        assert len(classic_auto.write_runs()) == 1, [r.job_name for r in classic_auto.runs()]
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {name}")


# ---------------------------------------------- a library's JVM code (compiled at test time)

_LIBRARY = "io.openlineage.sdk.tests.JvmWrites"


def _library(spark: Any) -> Any:
    from tests.spark._row_level import missing

    reason = missing()
    if reason is not None:
        pytest.skip(reason)
    return getattr(spark._jvm, _LIBRARY)


def test_a_librarys_jvm_write_is_one_run(
    spark: Any, classic_auto: Captured, tmp_path: Path
) -> None:
    library = _library(spark)
    df = spark.range(5)
    classic_auto.clear()
    library.writeParquet(df._jdf, str(tmp_path / "library"))
    _heard(spark, classic_auto)
    run = classic_auto.only_write()
    assert run.types == ["START", "COMPLETE"]
    (output,) = run.end.to_dict()["outputs"]
    assert output["name"].endswith("/library")
    assert output["outputFacets"]["outputStatistics"]["rowCount"] == 5


def test_a_librarys_jvm_ctas_is_one_run(spark: Any, classic_auto: Captured) -> None:
    library = _library(spark)
    name = _table("library_ctas")
    classic_auto.clear()
    library.createTableAs(spark._jsparkSession, name, "SELECT 7 AS a")
    _heard(spark, classic_auto)
    try:
        run = classic_auto.only_write()
        assert "create_data_source_table_as_select_command" in run.job_name
        (output,) = run.end.to_dict()["outputs"]
        assert output["outputFacets"]["outputStatistics"]["rowCount"] == 1
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {name}")


def test_a_librarys_jvm_merge_into_the_test_catalog_is_one_run(
    spark: Any, classic_auto: Captured, data_dir: Path
) -> None:
    from tests.spark._row_level import CATALOG_CLASS

    library = _library(spark)
    spark.conf.set("spark.sql.catalog.rl", CATALOG_CLASS)
    spark.conf.set("spark.sql.catalog.rl.warehouse", str(data_dir / "rl"))
    target, source = f"rl.default.{_table('mt')}", f"rl.default.{_table('ms')}"
    spark.sql(f"CREATE TABLE {target} (k long, v long)")
    spark.sql(f"CREATE TABLE {source} (k long, v long)")
    spark.sql(f"INSERT INTO {target} VALUES (1, 1)")
    spark.sql(f"INSERT INTO {source} VALUES (1, 2), (2, 2)")
    try:
        classic_auto.clear()
        library.merge(spark._jsparkSession, target, source, "k")
        _heard(spark, classic_auto)
        assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {target}").collect()) == [
            (1, 2),
            (2, 2),
        ]
        run = classic_auto.only_write()
        assert run.types == ["START", "COMPLETE"]
        assert ".replace_data." in run.job_name
        inputs = sorted(i["name"].rsplit("/", 1)[-1] for i in run.start.to_dict()["inputs"])
        assert inputs == sorted([target.rsplit(".", 1)[-1], source.rsplit(".", 1)[-1]])
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {target}")
        spark.sql(f"DROP TABLE IF EXISTS {source}")


def test_a_jvm_side_write_in_the_application_block_has_the_application_as_parent(
    spark: Any, client: Any, classic_auto: Captured, tmp_path: Path
) -> None:
    from openlineage_sdk.spark import application_run

    classic_auto.clear()
    with application_run(spark, client) as app:
        spark.range(2)._jdf.write().mode("overwrite").parquet(str(tmp_path / "in_app"))
        _heard(spark, classic_auto)
    run = classic_auto.only_write()
    parent = run.start.to_dict()["run"]["facets"]["parent"]
    assert parent["run"]["runId"] == app.run_id


# ------------------------------------------------------------- RDD jobs that write, from the JVM


def _rdd_runs(captured: Captured) -> list[Any]:
    return [r for r in captured.runs() if r.job_type() == "RDD_JOB"]


def _text_folder(folder: Path, count: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "part.txt").write_text("".join(f"line {i}\n" for i in range(count)))
    return folder


def test_a_jvm_side_rdd_save_of_a_dataframe_is_one_rdd_run_under_the_application(
    spark: Any, client: Any, classic_auto: Captured, tmp_path: Path
) -> None:
    from openlineage_sdk.spark import application_run

    source = tmp_path / "frame_in"
    spark.range(6).write.parquet(str(source))
    out = tmp_path / "frame_rdd_out"
    classic_auto.clear()
    with application_run(spark, client) as app:
        spark.read.parquet(str(source))._jdf.javaRDD().saveAsTextFile(str(out))
        _heard(spark, classic_auto)
    [run] = _rdd_runs(classic_auto)
    assert classic_auto.write_runs() == []  # no SQL run beside it
    assert run.types == ["START", "COMPLETE"]
    assert run.start.to_dict()["run"]["facets"]["parent"]["run"]["runId"] == app.run_id
    # The agent's name: the final RDD and its dependencies, by class where unnamed.
    assert run.job_name.startswith("openlineage_sdk_tests.map_partitions_")
    end = run.end.to_dict()
    [output] = end["outputs"]
    assert output["name"] == str(out)
    assert output["outputFacets"]["outputStatistics"]["rowCount"] == 6
    # The DataFrame's file scan, under its RDD: the folder it read.
    assert [i["name"] for i in end["inputs"]] == [str(source)]
    assert run.start.event_time <= run.end.event_time


def test_a_jvm_side_rdd_save_names_its_job_reads_its_input_and_counts_rows(
    spark: Any, classic_auto: Captured, tmp_path: Path
) -> None:
    source = _text_folder(tmp_path / "lines_in", 7)
    out = tmp_path / "lines_out"
    lines = spark.sparkContext.textFile(str(source))
    classic_auto.clear()
    lines._jrdd.saveAsTextFile(str(out))
    _heard(spark, classic_auto)
    [run] = _rdd_runs(classic_auto)
    # textFile's mapped RDD and its HadoopRDD, both named after the path: named by class.
    assert run.job_name == "openlineage_sdk_tests.map_partitions_hadoop"
    end = run.end.to_dict()
    [read] = end["inputs"]
    assert read["name"] == str(source)
    assert read["inputFacets"]["inputStatistics"]["rowCount"] == 7
    [output] = end["outputs"]
    assert output["name"] == str(out)
    assert output["outputFacets"]["outputStatistics"]["rowCount"] == 7


def test_a_librarys_rdd_save_is_one_rdd_run(
    spark: Any, classic_auto: Captured, tmp_path: Path
) -> None:
    library = _library(spark)
    source = _text_folder(tmp_path / "library_lines", 3)
    out = tmp_path / "library_copy"
    classic_auto.clear()
    library.copyTextFiles(spark._jsparkSession, str(source), str(out))
    _heard(spark, classic_auto)
    [run] = _rdd_runs(classic_auto)
    end = run.end.to_dict()
    assert [i["name"] for i in end["inputs"]] == [str(source)]
    assert [o["name"] for o in end["outputs"]] == [str(out)]
    assert end["outputs"][0]["outputFacets"]["outputStatistics"]["rowCount"] == 3


def test_a_failing_jvm_side_rdd_save_is_one_failed_run(
    spark: Any, classic_auto: Captured, tmp_path: Path
) -> None:
    failing = spark.sql("SELECT assert_true(id < 2, 'row too big') AS ok FROM range(5)")
    classic_auto.clear()
    with pytest.raises(Exception, match="row too big"):
        failing._jdf.javaRDD().saveAsTextFile(str(tmp_path / "never"))
    _heard(spark, classic_auto)
    [run] = _rdd_runs(classic_auto)
    assert run.types == ["START", "FAIL"]
    error = run.end.to_dict()["run"]["facets"]["errorMessage"]
    assert "row too big" in error["message"]


def test_a_python_side_rdd_save_stays_one_run_and_a_jvm_side_action_is_none(
    spark: Any, classic_auto: Captured, tmp_path: Path
) -> None:
    source = _text_folder(tmp_path / "py_lines", 4)
    rdd = spark.sparkContext.textFile(str(source))
    classic_auto.clear()
    rdd.map(str.upper).saveAsTextFile(str(tmp_path / "py_out"))
    assert rdd._jrdd.count() == 4  # a job that writes nothing
    _heard(spark, classic_auto)
    [run] = _rdd_runs(classic_auto)
    assert run.job_name == "openlineage_sdk_tests.map_partitions_python_map_partitions_hadoop"


# ------------------------------------- Delta's DeltaTable commands, heard (over stand-in plans)


class _DeltaNode:
    """A JVM plan node of a class the test driver does not have (a Delta command), built from
    real plans of the driver for the parts the adapter reads; no SQL text (``DeltaTable``'s
    API parses none)."""

    def __init__(self, spark: Any, name: str, **parts: Any) -> None:
        self._name = name
        leaf = spark._jsparkSession.range(1).queryExecution().logical()
        self._parts = {"origin": leaf.origin(), "children": leaf.children(), **parts}

    def getClass(self) -> Any:
        name = self._name

        class _Class:
            def getSimpleName(self) -> str:
                return name

        return _Class()

    def __getattr__(self, part: str) -> Any:
        return lambda: self._parts[part]


class _HeardExecution:
    """A ``QueryExecution`` as the session's listener is given it for a ``DeltaTable`` call:
    its plans are the Delta command's; its tracker and physical plan a real JVM command's."""

    def __init__(self, real: Any, command: _DeltaNode, *, text_fails: bool = False) -> None:
        self._real = real
        self._command = command
        self._text_fails = text_fails

    def analyzed(self) -> Any:
        return self._command

    def logical(self) -> Any:
        if self._text_fails:
            raise RuntimeError("the parsed plan cannot be read")
        return self._command

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def _hear_delta_command(
    spark: Any, captured: Captured, command: str, *, text_fails: bool = False
) -> tuple[str, str]:
    """Have the session's listener hear a Delta ``command`` on a table (a MERGE from another),
    as Spark hands it over once ``DeltaTable``'s call ran it; the target's and source's names."""
    from openlineage_sdk.spark import installed

    target, source = _table("delta_target"), _table("delta_source")
    spark.range(3).selectExpr("id", "id * 2 AS v").write.saveAsTable(target)
    spark.range(2).selectExpr("id", "id * 3 AS w").write.saveAsTable(source)
    parts = {"target": spark.table(target)._jdf.queryExecution().analyzed()}
    if command == "MergeIntoCommand":
        parts["source"] = spark.table(source)._jdf.queryExecution().analyzed()
    # A real command run from the JVM after every hooked call returned: its tracker dates the
    # stand-in after them, as a DeltaTable call's command is.
    real = spark._jsparkSession.sql("SHOW TABLES").queryExecution()
    _heard(spark, captured)
    captured.clear()
    adapter = installed(spark)
    assert adapter is not None
    heard = _HeardExecution(real, _DeltaNode(spark, command, **parts), text_fails=text_fails)
    adapter.session.listener.onSuccess("command", heard, 0)
    _heard(spark, captured)
    return target, source


@pytest.mark.parametrize("command", ["MergeIntoCommand", "UpdateCommand", "DeleteCommand"])
def test_a_heard_delta_command_is_one_run_named_as_the_agent_names_it(
    spark: Any, classic_auto: Captured, command: str
) -> None:
    target, source = _hear_delta_command(spark, classic_auto, command)
    try:
        run = classic_auto.only_write()
        assert run.types == ["START", "COMPLETE"]
        snake = {
            "MergeIntoCommand": "merge_into_command",
            "UpdateCommand": "update_command",
            "DeleteCommand": "delete_command",
        }[command]
        assert run.job_name == f"openlineage_sdk_tests.execute_{snake}.default_{target}"
        end = run.end.to_dict()
        [output] = end["outputs"]
        assert output["name"].endswith(f"/{target}")
        expected = [target, source] if command == "MergeIntoCommand" else [target]
        assert sorted(i["name"].rsplit("/", 1)[-1] for i in end["inputs"]) == sorted(expected)
        assert "extractionError" not in end["run"]["facets"]
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {target}")
        spark.sql(f"DROP TABLE IF EXISTS {source}")


@pytest.mark.parametrize("command", ["OptimizeTableCommand", "VacuumCommand"])
def test_a_heard_delta_optimize_or_vacuum_is_no_run(
    spark: Any, classic_auto: Captured, command: str
) -> None:
    """The agent has no dataset builder for Delta's OPTIMIZE and VACUUM: they name no dataset,
    and a command that names none is no run."""
    target, source = _hear_delta_command(spark, classic_auto, command)
    try:
        assert classic_auto.runs() == []
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {target}")
        spark.sql(f"DROP TABLE IF EXISTS {source}")


def test_a_heard_command_whose_sql_text_cannot_be_read_is_still_one_run(
    spark: Any, classic_auto: Captured
) -> None:
    target, source = _hear_delta_command(spark, classic_auto, "MergeIntoCommand", text_fails=True)
    try:
        run = classic_auto.only_write()
        end = run.end.to_dict()
        assert [o["name"].rsplit("/", 1)[-1] for o in end["outputs"]] == [target]
        (error,) = end["run"]["facets"]["extractionError"]["errors"]
        assert error["errorMessage"].startswith("sql facet: RuntimeError")
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {target}")
        spark.sql(f"DROP TABLE IF EXISTS {source}")


# ------------------------------------------------------ the application's end tells the truth


@pytest.mark.parametrize("on", [True, False])
def test_fail_on_child_failure_ends_the_application_fail_when_a_run_under_it_failed(
    spark: Any, client: Any, classic_auto: Captured, on: bool
) -> None:
    from openlineage_sdk.spark import application_run

    name = _table("child_fails")
    spark.sql(f"CREATE TABLE {name} (a INT) USING parquet")
    if on:
        spark.conf.set("spark.openlineage.application.failOnChildFailure", "true")
    try:
        classic_auto.clear()
        with application_run(spark, client) as app:
            spark.sql(f"INSERT INTO {name} VALUES (1)")
            with pytest.raises(Exception, match="child failure"):
                spark.sql(f"INSERT INTO {name} SELECT CAST(raise_error('child failure') AS INT)")
        ends = [r for r in classic_auto.runs() if r.start.run.run_id == app.run_id]
        (application,) = ends
        if on:
            assert application.types == ["START", "FAIL"]
            message = application.end.to_dict()["run"]["facets"]["errorMessage"]["message"]
            assert message.startswith("1 run of the application failed")
        else:
            assert application.types == ["START", "COMPLETE"]
    finally:
        spark.conf.unset("spark.openlineage.application.failOnChildFailure")
        spark.sql(f"DROP TABLE IF EXISTS {name}")


# -- the held command's timer and a session that stops


def _held_command(spark: Any, heard: list[str]) -> Any:
    """A listener of the session's (not registered: fed by hand) holding one JVM-side CTAS."""
    from openlineage_sdk.spark.session.classic._metrics import WriteMetricsListener

    listener = WriteMetricsListener(spark._jvm)
    listener.on_command = lambda func_name, *rest: heard.append(func_name)
    name = _table("held")
    try:
        jdf = spark._jsparkSession.sql(f"CREATE TABLE {name} USING parquet AS SELECT 1 AS a")
        executed = jdf.queryExecution()
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {name}")
    listener.onSuccess("command", executed, 0)
    assert listener._held is not None  # held, its timer armed
    return listener


def test_a_held_command_is_reported_by_its_timer(spark: Any, monkeypatch: Any) -> None:
    """The control of the two below: left alone, the timer reports the held command."""
    from openlineage_sdk.spark.session.classic import _metrics

    monkeypatch.setattr(_metrics, "HELD_COMMAND_S", 0.05)
    heard: list[str] = []
    listener = _held_command(spark, heard)
    timer = listener._held_timer
    assert timer is not None
    timer.join(30)
    assert heard == ["command"]


def test_a_shut_down_listeners_timer_reports_nothing(spark: Any, monkeypatch: Any) -> None:
    """Closing the session's listener cancels the held command's timer: no thread calls into
    the JVM of a session that closed (or stops), and closing does not wait for it."""
    from openlineage_sdk.spark.session.classic import _metrics

    monkeypatch.setattr(_metrics, "HELD_COMMAND_S", 0.05)
    heard: list[str] = []
    listener = _held_command(spark, heard)
    timer = listener._held_timer
    assert timer is not None
    listener.shutdown()
    timer.join(30)
    assert not timer.is_alive()
    listener.release_held()
    assert heard == []


def test_a_held_command_of_a_stopped_session_is_dropped_with_a_warning(
    spark: Any, monkeypatch: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The session stopped before the timer fired: the timer's thread makes no JVM call to
    describe it; the drop is said, never silent."""
    from openlineage_sdk.spark.session.classic import _metrics

    monkeypatch.setattr(_metrics, "HELD_COMMAND_S", 0.05)
    heard: list[str] = []
    listener = _held_command(spark, heard)
    timer = listener._held_timer
    assert timer is not None
    listener.alive = lambda: False  # as the shared driver cannot be stopped here
    with caplog.at_level("WARNING", logger="openlineage_sdk.spark"):
        timer.join(30)
    assert heard == []
    assert "was not reported: the session stopped" in caplog.text


def test_the_classic_session_knows_when_its_driver_stopped(
    spark: Any, classic_auto: Captured
) -> None:
    """What the listener asks before reporting: a running driver says so, and the session's
    listener asks it."""
    from openlineage_sdk.spark import installed

    adapter = installed(spark)
    assert adapter is not None
    session: Any = adapter.session
    assert session.running() is True
    assert session.listener.alive == session.running
