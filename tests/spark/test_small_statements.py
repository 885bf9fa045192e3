"""Small statements: what the adapter does once per statement, done once.

Classic PySpark: an ``INSERT`` that ends within a few seconds is described from the
``QueryExecution`` that ran it (Spark's own analyzed and optimized plans), not analysed again; a
longer one is described beside it, and either way the events are the same. Spark Connect: an
``INSERT``'s target is described beside it, with its inputs, not once it returned; nothing the
catalog said is kept from one statement to the next; the adapter's own requests are plain, not
reattachable.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk.spark._execution import SparkExecution
from openlineage_sdk.spark.executions import _statement as _statement_kind
from tests.spark import _recorder
from tests.spark._support import Captured, RunEvents

_names = itertools.count()

# The facets the adapter itself writes (a facet builder installed in the environment may add
# facets of its own, with its own clock's values).
_FACETS = (
    "schema",
    "symlinks",
    "dataSource",
    "columnLineage",
    "lifecycleStateChange",
    "catalog",
    "storage",
)


def _datasets(run: RunEvents) -> list[Any]:
    """The inputs and outputs of a run's START and end, as far as the adapter describes them."""
    described = []
    for event in (run.start, run.end):
        data = event.to_dict()
        for kind in ("inputs", "outputs"):
            for dataset in data.get(kind) or []:
                facets = dataset.get("facets", {})
                statistics = dataset.get("outputFacets", {}).get("outputStatistics", {})
                described.append(
                    (
                        event.event_type,
                        kind,
                        dataset["namespace"],
                        dataset["name"],
                        {name: _plain(facets[name]) for name in _FACETS if name in facets},
                        statistics.get("rowCount"),
                    )
                )
    return described


def _plain(facet: Any) -> Any:
    return {k: v for k, v in facet.items() if not k.startswith("_")}


# --------------------------------------------------------------------------- Spark Connect


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The SQL of every command the Connect client sends, in order."""
    from pyspark.sql.connect.client import core

    from openlineage_sdk.spark.session.connect._explain import sql_relation

    texts: list[str] = []
    real = core.SparkConnectClient._execute_and_fetch_as_iterator

    def sending(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        sql = sql_relation(request.plan.command) if request.plan.HasField("command") else None
        texts.append(sql.query if sql is not None else "(not SQL)")
        return real(self, request, *args, **kwargs)

    monkeypatch.setattr(core.SparkConnectClient, "_execute_and_fetch_as_iterator", sending)
    return texts


def _kinds(texts: list[str]) -> list[str]:
    return [t.split()[0] if not t.startswith("INSERT") else "INSERT" for t in texts]


def test_an_inserts_target_is_described_beside_it_as_after_it(
    spark_connect: Any,
    connect_auto: Captured,
    table: Any,
    sent: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The target is described while the statement runs, not once it returned (a table of
    files from the command's own line and one schema request, no ``DESCRIBE``), and the events
    are those of a target described by the catalog once the statement ran."""
    from openlineage_sdk.spark.executions import _statement

    src, dst = table("src"), table("dst")
    spark_connect.sql(f"CREATE TABLE {src} (a INT, b STRING) USING parquet")
    spark_connect.sql(f"CREATE TABLE {dst} (a INT, b STRING) USING parquet")
    spark_connect.sql(f"INSERT INTO {src} VALUES (1, 'x'), (2, 'y')")
    statement = f"INSERT INTO {dst} SELECT a, upper(b) FROM {src} WHERE a > 0"
    connect_auto.clear()
    sent.clear()
    spark_connect.sql(statement)
    beside = list(sent)

    monkeypatch.setattr(_statement._TargetLookUp, "answer", lambda self: None)
    sent.clear()
    spark_connect.sql(statement)
    after = list(sent)

    # Beside: the input's DESCRIBE follows the EXPLAIN; the target needs none.
    assert sorted(_kinds(beside)) == ["DESCRIBE", "EXPLAIN", "INSERT"]
    assert not any(dst in t for t in beside if t.startswith("DESCRIBE"))
    # Without the answer beside, the target is asked for again once the statement ran.
    assert _kinds(after)[-1] == "DESCRIBE"
    assert dst in after[-1]
    one, two = connect_auto.runs()
    assert one.types == two.types == ["START", "COMPLETE"]
    assert one.job_name == two.job_name
    assert _datasets(one) == _datasets(two)
    assert _datasets(one)[0][4]["schema"]["fields"][0] == {"name": "a", "type": "integer"}


def test_a_change_by_another_session_is_described_at_once(
    spark: Any, spark_connect: Any, connect_auto: Captured, table: Any, sent: list[str]
) -> None:
    """Nothing the catalog said is kept from one statement to the next: a table another session
    changed (here the driver's own, which the adapter does not observe) is described as it is."""
    src, dst = table("src"), table("dst")
    spark_connect.sql(f"CREATE TABLE {src} (a INT, b STRING) USING parquet")
    spark_connect.sql(f"CREATE TABLE {dst} (a INT, b STRING) USING parquet")
    spark_connect.sql(f"INSERT INTO {src} VALUES (1, 'x')")
    spark_connect.sql(f"INSERT INTO {dst} SELECT a, b FROM {src}")
    connect_auto.clear()

    spark.sql(f"ALTER TABLE {dst} ADD COLUMNS (c INT)")
    spark.sql(f"ALTER TABLE {src} ADD COLUMNS (d DOUBLE)")
    sent.clear()
    spark_connect.sql(f"INSERT INTO {dst} SELECT a, b, 7 FROM {src}")
    # The input asked of the catalog, the target's schema of the server (no answer kept).
    assert sorted(_kinds(sent)).count("DESCRIBE") == 1
    (altered,) = connect_auto.runs()
    assert altered.types == ["START", "COMPLETE"]
    output = altered.output_json()
    assert [f["name"] for f in output["facets"]["schema"]["fields"]] == ["a", "b", "c"]
    (read,) = altered.start.to_dict()["inputs"]
    assert [f["name"] for f in read["facets"]["schema"]["fields"]] == ["a", "b", "d"]


def test_the_adapters_requests_are_not_reattachable(
    spark_connect: Any,
    connect_auto: Captured,
    table: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A reattachable execution costs the server more, and a request of its own after each
    answer: the adapter's short questions are sent plainly, the user's statement as it was."""
    from pyspark.sql.connect.client import core

    from openlineage_sdk.spark.session.connect._explain import sql_relation

    src, dst = table("src"), table("dst")
    spark_connect.sql(f"CREATE TABLE {src} (a INT) USING parquet")
    spark_connect.sql(f"CREATE TABLE {dst} (a INT) USING parquet")
    reattachable: list[str] = []
    real = core.ExecutePlanResponseReattachableIterator  # type: ignore[attr-defined]

    class Recording(real):  # type: ignore[misc, valid-type]
        def __init__(self, request: Any, *args: Any, **kwargs: Any) -> None:
            sql = sql_relation(request.plan.command) if request.plan.HasField("command") else None
            reattachable.append(sql.query if sql is not None else "(not SQL)")
            super().__init__(request, *args, **kwargs)

    monkeypatch.setattr(core, "ExecutePlanResponseReattachableIterator", Recording)
    connect_auto.clear()
    spark_connect.sql(f"INSERT INTO {dst} SELECT a FROM {src}")

    assert reattachable == [f"INSERT INTO {dst} SELECT a FROM {src}"]
    (run,) = connect_auto.runs()
    assert run.types == ["START", "COMPLETE"]
    assert [i.name.rsplit("/", 1)[-1] for i in run.start.inputs or []] == [src]


# -------------------------------------------------------------------------- classic PySpark


def _sql(spark: Any, *statements: str) -> None:
    for statement in statements:
        spark.sql(statement)


@pytest.fixture
def tables(spark: Any) -> Iterator[tuple[str, str, str]]:
    """A source, a target and a target partitioned by ``p``, dropped after the test."""
    names = tuple(f"small_{stem}_{next(_names)}" for stem in ("src", "dst", "parts"))
    src, dst, parts = names
    _recorder.made(*names)
    _sql(
        spark,
        f"CREATE TABLE {src} (id BIGINT, k BIGINT, v DOUBLE) USING parquet",
        f"CREATE TABLE {dst} (k BIGINT, s DOUBLE) USING parquet",
        f"CREATE TABLE {parts} (k BIGINT, s DOUBLE, p STRING) USING parquet PARTITIONED BY (p)",
        f"INSERT INTO {src} SELECT id, id % 3, id * 1.5 FROM range(30)",
    )
    yield src, dst, parts
    for name in names:
        spark.sql(f"DROP TABLE IF EXISTS {name}")


def test_an_insert_is_described_from_the_execution_that_ran_it(
    spark: Any,
    classic_auto: Captured,
    tables: tuple[str, str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No second analysis: the session's analyzer is not asked about the statement."""
    from openlineage_sdk.spark import installed
    from openlineage_sdk.spark.session import classic

    src, dst, _ = tables
    analysed: list[str] = []
    real = classic.plan_statement  # type: ignore[attr-defined]

    def planning(spark_: Any, text: str, *args: Any, **kwargs: Any) -> Any:
        analysed.append(text)
        return real(spark_, text, *args, **kwargs)

    monkeypatch.setattr(classic, "plan_statement", planning)
    adapter = installed(spark)
    assert adapter is not None
    # However slow the machine, the statement ends before it would be described beside it.
    monkeypatch.setattr(_statement_kind, "INSERT_DESCRIBED_BESIDE_AFTER_S", 600.0)
    classic_auto.clear()
    spark.sql(f"INSERT INTO {dst} SELECT k, sum(v) FROM {src} WHERE id > 3 GROUP BY k")

    assert analysed == []
    run = classic_auto.only_write()
    assert run.types == ["START", "COMPLETE"]
    assert run.job_name.split(".")[1] == "execute_insert_into_hadoop_fs_relation_command"
    output = run.output_json()
    assert output["name"].endswith(f"/{dst}")
    assert output["outputFacets"]["outputStatistics"]["rowCount"] == 3
    assert [f["name"] for f in output["facets"]["schema"]["fields"]] == ["k", "s"]
    lineage = output["facets"]["columnLineage"]["fields"]
    assert lineage["s"]["inputFields"][0]["field"] == "v"
    assert [i.name.rsplit("/", 1)[-1] for i in run.start.inputs or []] == [src]


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO {dst} SELECT k, sum(v) FROM {src} WHERE id > 3 GROUP BY k",
        "INSERT INTO {dst} SELECT a.k, b.v FROM {src} a JOIN {src} b ON a.id = b.id WHERE a.k > 0",
        "INSERT INTO {parts} SELECT k, sum(v), concat('p', k) FROM {src} GROUP BY k",
        "INSERT INTO {parts} PARTITION (p = 'z') SELECT k, v FROM {src} WHERE id < 5",
        "INSERT OVERWRITE {dst} SELECT k, v FROM {src} WHERE 1 = 0",
        "INSERT INTO {dst} SELECT k, v FROM {src} ORDER BY v LIMIT 3",
    ],
    ids=["aggregate", "join", "dynamic-partitions", "static-partition", "none", "ordered"],
)
def test_an_insert_is_described_the_same_beside_it_or_from_its_execution(
    spark: Any, classic_auto: Captured, tables: tuple[str, str, str], statement: str
) -> None:
    """The analyzer beside a long statement, or the plans of a short one's own execution
    (``WriteFiles``, and for partitions the sort ``V1Writes`` adds, are not the query's)."""

    src, dst, parts = tables
    text = statement.format(src=src, dst=dst, parts=parts)
    runs = []
    for beside_after in (600.0, 0.0):  # from its execution; beside it, by the analyzer
        _statement_kind.INSERT_DESCRIBED_BESIDE_AFTER_S = beside_after
        classic_auto.clear()
        try:
            spark.sql(text)
        finally:
            _statement_kind.INSERT_DESCRIBED_BESIDE_AFTER_S = 2.0
        runs.append(classic_auto.only_write())
    executed, analysed = runs
    assert executed.types == analysed.types == ["START", "COMPLETE"]
    assert executed.job_name == analysed.job_name
    assert _datasets(executed) == _datasets(analysed)
    assert (
        executed.end.to_dict()["run"]["facets"].keys()
        == analysed.end.to_dict()["run"]["facets"].keys()
    )


class _Recorder:
    """A sink that notes whether the statement was still running when its START was reported
    (the template marks the record ``finished`` as soon as the user's call returned), and
    makes ``flag`` when it first hears of a START."""

    def __init__(self, flag: Path) -> None:
        self.flag = flag
        self.started_while_running: list[bool] = []
        self.finished: list[SparkExecution] = []

    def execution_started(self, write: SparkExecution) -> None:
        self.started_while_running.append(write.finished is None)
        self.flag.touch()

    def execution_finished(self, write: SparkExecution) -> None:
        self.finished.append(write)


def test_a_long_insert_starts_while_it_runs_and_a_short_one_once_it_ran(
    spark: Any, tables: tuple[str, str, str], tmp_path: Path
) -> None:
    from pyspark.sql.types import BooleanType

    from openlineage_sdk.spark import install, uninstall

    src, dst, _ = tables
    flag = tmp_path / "started"
    recorder = _Recorder(flag)

    def once_started(k: int) -> bool:
        # In Spark's Python worker: the row waits until the sink heard of the START (bounded,
        # so that a lost START fails the assertions below rather than hanging).
        import os
        import time

        deadline = time.monotonic() + 120
        while not os.path.exists(flag) and time.monotonic() < deadline:
            time.sleep(0.01)
        return True

    spark.udf.register("once_started", once_started, BooleanType())
    install(spark, sink=recorder)
    # A statement that runs until its START was reported: it is described beside it after
    # 0.3 s, whatever the machine's speed.
    slow = f"INSERT INTO {dst} SELECT k, v FROM {src} WHERE id < 10 AND once_started(k)"
    try:
        _statement_kind.INSERT_DESCRIBED_BESIDE_AFTER_S = 0.3
        spark.sql(slow)
        _statement_kind.INSERT_DESCRIBED_BESIDE_AFTER_S = 600.0
        spark.sql(f"INSERT INTO {dst} SELECT k, v FROM {src}")
    finally:
        _statement_kind.INSERT_DESCRIBED_BESIDE_AFTER_S = 2.0
        uninstall(spark)
    assert recorder.started_while_running == [True, False]
    long, short = recorder.finished
    assert long.output is not None
    assert long.output.stats is not None
    assert long.output.stats.row_count == 10
    assert short.output is not None
    assert short.output.identity == long.output.identity
    assert [d.identity.name for d in short.inputs] == [d.identity.name for d in long.inputs]


def test_inserts_at_once_from_two_threads_are_each_described(
    spark: Any, classic_auto: Captured, tables: tuple[str, str, str]
) -> None:
    """With two writes in flight, the listener cannot tell whose execution it was given: each
    statement is then described by the analyzer, once it ran."""
    src, dst, parts = tables
    statements = [
        f"INSERT INTO {dst} SELECT k, v FROM {src}",
        f"INSERT INTO {parts} SELECT k, v, 'a' FROM {src}",
    ]
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def insert(statement: str) -> None:
        try:
            barrier.wait(30)
            spark.sql(statement)
        except BaseException as error:
            errors.append(error)

    classic_auto.clear()
    threads = [threading.Thread(target=insert, args=(s,)) for s in statements]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    runs = sorted(classic_auto.write_runs(), key=lambda r: r.output_json()["name"])
    assert [r.types for r in runs] == [["START", "COMPLETE"]] * 2
    assert [r.output_json()["name"].rsplit("/", 1)[-1] for r in runs] == sorted([dst, parts])
    for run in runs:
        assert [i.name.rsplit("/", 1)[-1] for i in run.start.inputs or []] == [src]


@pytest.mark.parametrize("name", ["plain_name", "`Mixed_Case`", "default.`qualified_t`"])
def test_a_catalog_tables_name_and_location_read_at_once_are_those_read_part_by_part(
    spark: Any, name: str
) -> None:
    """The quoted identifier names the database and table in one round trip, as the
    identifier's parts do (the session catalog takes letters, digits and ``_`` only)."""
    from openlineage_sdk.spark.session.classic._jvm import option
    from openlineage_sdk.spark.session.classic._plan import catalog_table_info

    spark.sql(f"CREATE TABLE {name} (a INT) USING parquet")
    try:
        state = spark._jsparkSession.sessionState()
        table = state.catalog().getTableMetadata(state.sqlParser().parseTableIdentifier(name))
        ident = table.identifier()
        location = option(table.storage().locationUri())
        info = catalog_table_info(table)
        assert (info.database, info.table, info.location) == (
            option(ident.database()),
            str(ident.table()),
            str(location),
        )
        assert info.table == name.rsplit(".", 1)[-1].strip("`").lower()
        assert info.database == "default"
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {name}")


# --------------------------------------------------------------------------- both modes


def auto_is_classic(spark: Any) -> bool:
    return hasattr(spark, "_jvm")


@pytest.fixture
def mode_tables(mode_spark: Any) -> Iterator[tuple[str, str]]:
    """A source of 30 rows and an empty target, of files, in the test's mode."""
    src, dst = f"late_src_{next(_names)}", f"late_dst_{next(_names)}"
    _recorder.made(src, dst)
    mode_spark.sql(f"CREATE TABLE {src} USING parquet AS SELECT id, id % 3 AS k FROM range(30)")
    mode_spark.sql(f"CREATE TABLE {dst} (k BIGINT, n BIGINT) USING parquet")
    yield src, dst
    for name in (src, dst):
        mode_spark.sql(f"DROP TABLE IF EXISTS {name}")


def test_an_insert_returns_before_its_end_is_reported(
    mode_spark: Any,
    auto: Captured,
    mode_tables: tuple[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The user's call does not wait for the INSERT's lineage: its end is reported on the
    adapter's finishing thread, here held until the call returned."""
    from openlineage_sdk.spark.events._sinks import RunPerExecution

    src, dst = mode_tables
    reached, release = threading.Event(), threading.Event()
    ends: list[str] = []
    real = RunPerExecution.execution_finished

    def held(self: RunPerExecution, write: SparkExecution) -> None:
        ends.append(threading.current_thread().name)
        reached.set()
        assert release.wait(60)
        real(self, write)

    monkeypatch.setattr(RunPerExecution, "execution_finished", held)
    auto.clear()
    try:
        mode_spark.sql(f"INSERT INTO {dst} SELECT k, count(*) FROM {src} GROUP BY k")
        # The call returned while its end is held on the finishing thread.
        assert reached.wait(60)
        assert ends == ["openlineage-finish"]
        assert [e.event_type for e in auto.memory.events] == ["START"]
    finally:
        release.set()
    run = auto.only_write()
    assert run.types == ["START", "COMPLETE"]
    assert run.output_json()["name"].endswith(f"/{dst}")
    assert [f["name"] for f in run.output_json()["facets"]["schema"]["fields"]] == ["k", "n"]
    if auto_is_classic(mode_spark):  # a Connect statement's rows are not sent to the client
        assert run.output_json()["outputFacets"]["outputStatistics"]["rowCount"] == 3


def test_a_later_statements_events_follow_an_earlier_inserts_end(
    mode_spark: Any,
    auto: Captured,
    mode_tables: tuple[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """However late an INSERT's end goes out, the next statement's START waits for it: the
    events keep the order of the calls (here the next one drops the INSERT's target)."""
    from openlineage_sdk.spark.events._sinks import RunPerExecution

    src, dst = mode_tables
    real = RunPerExecution.execution_finished

    def slow(self: RunPerExecution, write: SparkExecution) -> None:
        if write.sql is not None and write.sql.startswith("INSERT"):
            time.sleep(0.5)
        real(self, write)

    monkeypatch.setattr(RunPerExecution, "execution_finished", slow)
    auto.clear()
    mode_spark.sql(f"INSERT INTO {dst} SELECT k, count(*) FROM {src} GROUP BY k")
    mode_spark.sql(f"DROP TABLE {dst}")
    events = auto.events()
    commands = [e.job.name.split(".")[1] for e in events]
    assert [e.event_type for e in events] == ["START", "COMPLETE", "START", "COMPLETE"]
    assert commands[0] == commands[1] == "execute_insert_into_hadoop_fs_relation_command"
    assert commands[2] == commands[3] == "drop_table"
    insert, drop = auto.runs()
    # The INSERT was described from what it ran with, not from the table dropped since.
    if auto_is_classic(mode_spark):
        assert insert.output_json()["outputFacets"]["outputStatistics"]["rowCount"] == 3
    assert [f["name"] for f in insert.output_json()["facets"]["schema"]["fields"]] == ["k", "n"]
    assert drop.end.outputs is not None
    assert drop.end.outputs[0].name == insert.end.outputs[0].name  # type: ignore[index]


def test_the_applications_end_follows_its_inserts_end(
    mode_spark: Any,
    client: Any,
    auto: Captured,
    mode_tables: tuple[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An INSERT's end, still on the finishing thread when the application's block ends, goes
    out before the application's COMPLETE."""
    from openlineage_sdk.spark import application_run
    from openlineage_sdk.spark.events._sinks import RunPerExecution

    src, dst = mode_tables
    real = RunPerExecution.execution_finished

    def slow(self: RunPerExecution, write: SparkExecution) -> None:
        time.sleep(0.5)
        real(self, write)

    monkeypatch.setattr(RunPerExecution, "execution_finished", slow)
    auto.clear()
    with application_run(mode_spark, client) as app:
        mode_spark.sql(f"INSERT INTO {dst} SELECT k, count(*) FROM {src} GROUP BY k")
    events = auto.events()
    assert [(e.run.run_id == app.run_id, e.event_type) for e in events] == [
        (True, "START"),
        (False, "START"),
        (False, "COMPLETE"),
        (True, "COMPLETE"),
    ]
    assert events[2].to_dict()["run"]["facets"]["parent"]["run"]["runId"] == str(app.run_id)


def test_inserts_whose_ends_wait_each_get_their_own_command(
    spark: Any, classic_auto: Captured, tables: tuple[str, str, str]
) -> None:
    """Held on the finishing thread, an INSERT's window of the listener is closed when its call
    returned: the command the bus delivers next is its own, the next INSERT's is the next one's,
    and a read after them is reported as a read."""
    from openlineage_sdk.spark import _flow, installed

    src, dst, parts = tables
    release = threading.Event()
    classic_auto.clear()
    assert _flow.finish_later(lambda: release.wait(60) and None)  # the thread is busy
    try:
        spark.sql(f"INSERT INTO {dst} SELECT k, v FROM {src} WHERE id < 4")
        spark.sql(f"INSERT INTO {parts} SELECT k, v, 'a' FROM {src} WHERE id < 7")
        assert spark.table(src).where("id < 5").count() == 5
        # The INSERTs' events are all still owed (the read's may be out: the listener's).
        assert not any("insert" in e.job.name for e in classic_auto.memory.events)
    finally:
        release.set()
    adapter = installed(spark)
    assert adapter is not None
    assert adapter.flush()
    first, second = classic_auto.write_runs()
    for run, target, rows in ((first, dst, 4), (second, parts, 7)):
        output = run.output_json()
        assert run.types == ["START", "COMPLETE"]
        assert output["name"].endswith(f"/{target}")
        assert output["outputFacets"]["outputStatistics"]["rowCount"] == rows
        assert "extractionError" not in run.end.to_dict()["run"]["facets"]
    [read] = classic_auto.read_runs()
    assert [i.name.rsplit("/", 1)[-1] for i in read.end.inputs or []] == [src]


@pytest.mark.parametrize(
    "create",
    [
        "CREATE TABLE {t} (a INT COMMENT 'the a', b VARCHAR(10), c DECIMAL(10,2), "
        "d ARRAY<STRUCT<x: INT, y: STRING>>, e MAP<STRING, INT>, f TIMESTAMP, g CHAR(3), "
        "h STRUCT<p: DATE, q: BINARY> COMMENT 'nested') USING parquet",
        "CREATE TABLE {t} (k BIGINT, s DOUBLE, p STRING) USING orc PARTITIONED BY (p)",
        "CREATE TABLE {t} (k BIGINT, s DOUBLE) USING parquet LOCATION '{folder}/with space/and#hash'",
        "CREATE TABLE {t} (k BIGINT, s DOUBLE) USING parquet CLUSTERED BY (k) INTO 4 BUCKETS",
        "CREATE TABLE {t} (k BIGINT, s STRING) USING csv OPTIONS (header 'true', sep ',')",
    ],
    ids=["types", "partitioned", "external", "bucketed", "options"],
)
def test_a_file_tables_command_describes_it_as_the_catalog_does(
    spark_connect: Any, table: Any, data_dir: Any, create: str
) -> None:
    """The target of an ``INSERT`` into a table of files, read from the command's line in the
    server's ``EXPLAIN`` and one schema request, is the catalog's entry for it."""
    from pyspark.sql.connect.plan import SQL

    from openlineage_sdk.spark.describe._schema import schema_fields
    from openlineage_sdk.spark.session.connect import ConnectSession
    from openlineage_sdk.spark.session.connect._explain import explain_text, parse_explain
    from openlineage_sdk.spark.session.connect._server_statement import file_table as _file_table

    name = table("file_target")
    spark_connect.sql(create.format(t=name, folder=data_dir))
    columns = [f.name for f in spark_connect.table(name).schema.fields]
    values = ", ".join("NULL" for _ in columns)
    session = ConnectSession(spark_connect)
    command = SQL(f"INSERT INTO {name} VALUES ({values})").command(spark_connect.client)
    explained = parse_explain(explain_text(session.execute, command))
    assert explained.node == "InsertIntoHadoopFsRelationCommand"
    [qualified] = explained.tables[:1]
    from_command = _file_table(session, qualified, explained)
    from_catalog = session.describe_table(qualified, exists=True, with_schema=True)
    assert from_command is not None
    assert from_catalog is not None
    assert (from_command.database, from_command.table, from_command.location) == (
        from_catalog.database,
        from_catalog.table,
        from_catalog.location,
    )
    assert from_command.provider == from_catalog.provider
    # The catalog's answer, or the schema the adapter reads when it holds a type not translated.
    expected = from_catalog.schema or schema_fields(session.table_schema(qualified))
    assert from_command.schema == expected
    assert from_command.catalog is from_catalog.catalog is None
