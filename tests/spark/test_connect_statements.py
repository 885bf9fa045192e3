"""SQL statements under Spark Connect: each a run with the events the JVM agent would send.

The JVM agent cannot run under Spark Connect; these runs are what a Connect user gets. Every
event is checked against the spec's schemas (strict, with formats) by the ``memory`` fixture.
"""

from __future__ import annotations

import importlib
import itertools
import pkgutil
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.spark._support import Captured, RunEvents
from tests.spark._versions import needs

pytestmark = pytest.mark.connect

APP = "openlineage_sdk_tests"
_names = itertools.count()


def _warehouse(spark_root: Path) -> str:
    return str(spark_root / "warehouse")


def _facets(run: RunEvents) -> dict[str, Any]:
    facets: dict[str, Any] = run.output_json()["facets"]
    return facets


def test_insert_select_is_one_run_with_inputs_output_and_schema(
    spark_connect: Any, connect_auto: Captured, table: Any, spark_root: Path
) -> None:
    src, dst = table("src"), table("dst")
    spark_connect.sql(f"CREATE TABLE {src} (a INT, b STRING) USING parquet")
    spark_connect.sql(f"CREATE TABLE {dst} (a INT, b STRING) USING parquet")
    spark_connect.sql(f"INSERT INTO {src} VALUES (1, 'x'), (2, 'y')")
    connect_auto.clear()

    spark_connect.sql(f"INSERT INTO {dst} SELECT a + 1, b FROM {src}")

    [run] = connect_auto.runs()
    assert run.types == ["START", "COMPLETE"]
    warehouse = _warehouse(spark_root)
    assert run.job_name == (f"{APP}.execute_insert_into_hadoop_fs_relation_command.warehouse_{dst}")
    [started] = run.start.outputs or []
    assert (started.namespace, started.name) == ("file", f"{warehouse}/{dst}")
    facets = _facets(run)
    assert facets["schema"]["fields"] == [
        {"name": "a", "type": "integer"},
        {"name": "b", "type": "string"},
    ]
    assert facets["symlinks"]["identifiers"] == [
        {"namespace": f"file:{warehouse}", "name": f"default.{dst}", "type": "TABLE"}
    ]
    assert "lifecycleStateChange" not in facets
    [source] = run.start.inputs or []
    assert (source.namespace, source.name) == ("file", f"{warehouse}/{src}")
    assert source.to_dict()["facets"]["schema"]["fields"] == facets["schema"]["fields"]
    assert spark_connect.table(dst).count() == 2


def _lifecycle(run: RunEvents) -> dict[str, Any] | None:
    state: dict[str, Any] | None = _facets(run).get("lifecycleStateChange")
    return state


@pytest.fixture
def src(spark_connect: Any, table: Any) -> str:
    name: str = table("src")
    spark_connect.sql(f"CREATE TABLE {name} (a INT, b STRING) USING parquet")
    spark_connect.sql(f"INSERT INTO {name} VALUES (1, 'x'), (2, 'y')")
    return name


def test_insert_overwrite_of_a_partition_carries_overwrite(
    spark_connect: Any, connect_auto: Captured, table: Any, src: str, spark_root: Path
) -> None:
    dst = table("parts")
    spark_connect.sql(f"CREATE TABLE {dst} (a INT, b STRING) USING parquet PARTITIONED BY (b)")
    connect_auto.clear()

    spark_connect.sql(f"INSERT OVERWRITE TABLE {dst} PARTITION (b = 'q') SELECT a FROM {src}")

    [run] = connect_auto.runs()
    assert run.types == ["START", "COMPLETE"]
    assert run.output().name == f"{_warehouse(spark_root)}/{dst}"
    assert _lifecycle(run) == {
        "_producer": _lifecycle(run)["_producer"],  # type: ignore[index]
        "_schemaURL": _lifecycle(run)["_schemaURL"],  # type: ignore[index]
        "lifecycleStateChange": "OVERWRITE",
    }
    assert [i.name for i in run.start.inputs or []] == [f"{_warehouse(spark_root)}/{src}"]


def test_insert_overwrite_directory_names_the_folder(
    spark_connect: Any, connect_auto: Captured, src: str, data_dir: Path
) -> None:
    out = data_dir / "exported"
    connect_auto.clear()

    spark_connect.sql(f"INSERT OVERWRITE DIRECTORY '{out}' USING parquet SELECT * FROM {src}")

    [run] = connect_auto.runs()
    assert run.job_name == f"{APP}.execute_insert_into_data_source_dir_command"
    assert (run.output().namespace, run.output().name) == ("file", str(out))
    assert _lifecycle(run)["lifecycleStateChange"] == "OVERWRITE"  # type: ignore[index]
    assert len(run.start.inputs or []) == 1
    assert any(out.iterdir())
    schema = run.output_json()["facets"]["schema"]["fields"]
    assert [(f["name"], f["type"]) for f in schema] == [
        (f.name, f.dataType.typeName()) for f in spark_connect.table(src).schema
    ]


def test_the_schema_of_a_directory_insert_costs_no_job(
    spark_connect: Any, client: Any, memory: Any, jobs: Any, data_dir: Path
) -> None:
    """The query's schema is asked of the server's analyzer: the same jobs with the adapter."""
    from openlineage_sdk.spark import install, uninstall

    def run(label: str) -> int:
        before = jobs.count()
        spark_connect.sql(
            f"INSERT OVERWRITE DIRECTORY '{data_dir / label}' USING parquet "
            "OPTIONS ('compression' 'none') VALUES (1, 'a'), (2, 'b')"
        )
        return int(jobs.count() - before)

    plain = run("plain")
    install(spark_connect, client)
    try:
        traced = run("traced")
    finally:
        uninstall(spark_connect)
    assert traced == plain
    [run_events] = Captured(memory).runs()
    fields = run_events.output_json()["facets"]["schema"]["fields"]
    assert [(f["name"], f["type"]) for f in fields] == [("col1", "integer"), ("col2", "string")]


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("INSERT OVERWRITE DIRECTORY '/d' USING hive VALUES (1, 'a')", "VALUES (1, 'a')"),
        (
            "insert overwrite local directory '/select' stored as orc select * from t",
            "select * from t",
        ),
        (
            "INSERT OVERWRITE DIRECTORY '/from' USING parquet OPTIONS (path 'select', "
            "'k' = 'with (x)') (SELECT 1)",
            "(SELECT 1)",
        ),
        (
            "INSERT OVERWRITE DIRECTORY USING parquet OPTIONS ('path' '/x') "
            "WITH a AS (SELECT 1) SELECT * FROM a",
            "WITH a AS (SELECT 1) SELECT * FROM a",
        ),
        (
            "INSERT OVERWRITE DIRECTORY '/x' ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' "
            "TABLE src",
            "TABLE src",
        ),
        ("INSERT OVERWRITE DIRECTORY '/my_select' USING csv my_select", None),
        ("INSERT INTO t VALUES (1)", None),
    ],
)
def test_the_query_of_a_directory_insert_is_found(text: str, query: str | None) -> None:
    from openlineage_sdk.spark.describe._sql_text import directory_query

    assert directory_query(text) == query


def test_ctas_creates_the_table_with_its_schema(
    spark_connect: Any, connect_auto: Captured, table: Any, src: str, spark_root: Path
) -> None:
    dst = table("ctas")
    connect_auto.clear()

    spark_connect.sql(f"CREATE TABLE {dst} USING parquet AS SELECT a, upper(b) AS c FROM {src}")

    [run] = connect_auto.runs()
    assert run.types == ["START", "COMPLETE"]
    assert run.job_name == (
        f"{APP}.execute_create_data_source_table_as_select_command.default_{dst}"
    )
    assert run.output().name == f"{_warehouse(spark_root)}/{dst}"
    facets = _facets(run)
    assert facets["schema"]["fields"] == [
        {"name": "a", "type": "integer"},
        {"name": "c", "type": "string"},
    ]
    assert facets["lifecycleStateChange"]["lifecycleStateChange"] == "CREATE"
    assert [i.name for i in run.start.inputs or []] == [f"{_warehouse(spark_root)}/{src}"]


def test_ddl_statements_carry_the_lifecycle_state_the_agent_sends(
    spark_connect: Any, connect_auto: Captured, table: Any, data_dir: Path, spark_root: Path
) -> None:
    name, like, renamed = table("ddl"), table("like"), table("renamed")
    warehouse = _warehouse(spark_root)
    moved = data_dir / "moved"

    spark_connect.sql(f"CREATE TABLE {name} (a STRING, b STRING) USING parquet")
    spark_connect.sql(f"ALTER TABLE {name} ADD COLUMNS (c STRING, d STRING)")
    spark_connect.sql(f"CREATE TABLE {like} LIKE {name}")
    spark_connect.sql(f"TRUNCATE TABLE {like}")
    spark_connect.sql(f"ALTER TABLE {name} RENAME TO {renamed}")
    spark_connect.sql(f"ALTER TABLE {renamed} SET LOCATION '{moved}'")
    spark_connect.sql(f"DROP TABLE {like}")

    runs = connect_auto.runs()
    assert [r.types for r in runs] == [["START", "COMPLETE"]] * 7
    got = [(r.job_name, r.output().name, _lifecycle(r)["lifecycleStateChange"]) for r in runs]  # type: ignore[index]
    assert got == [
        (
            f"{APP}.execute_create_data_source_table_command.default_{name}",
            f"{warehouse}/{name}",
            "CREATE",
        ),
        (f"{APP}.execute_alter_table_add_columns_command", f"{warehouse}/{name}", "ALTER"),
        # The agent names CREATE TABLE LIKE after its target table (its visitor's suffix).
        (f"{APP}.execute_create_table_like_command.{like}", f"{warehouse}/{like}", "CREATE"),
        (
            f"{APP}.execute_truncate_table_command.warehouse_{like}",
            f"{warehouse}/{like}",
            "TRUNCATE",
        ),
        (f"{APP}.execute_alter_table_rename_command", f"{warehouse}/{renamed}", "RENAME"),
        (f"{APP}.execute_alter_table_set_location_command", str(moved), "ALTER"),
        (f"{APP}.drop_table", f"{warehouse}/{like}", "DROP"),
    ]
    four = [{"name": c, "type": "string"} for c in "abcd"]
    assert _facets(runs[0])["schema"]["fields"] == four[:2]
    assert _facets(runs[1])["schema"]["fields"] == four  # the schema after the change
    assert _facets(runs[2])["schema"]["fields"] == four
    rename = _lifecycle(runs[4])
    assert rename is not None
    assert rename["previousIdentifier"] == {"namespace": "file", "name": f"{warehouse}/{name}"}
    assert _facets(runs[6])["symlinks"]["identifiers"][0]["name"] == f"default.{like}"


def _script(spark: Any, make: Any) -> list[str]:
    """Statements of a real pipeline, on fresh tables: every kind the adapter describes."""
    a, b, c, d = make("ja"), make("jb"), make("jc"), make("jd")
    return [
        f"CREATE TABLE {a} (n INT, s STRING) USING parquet",
        f"INSERT INTO {a} VALUES (1, 'x'), (2, 'y'), (3, 'z')",
        f"CREATE TABLE {b} USING parquet AS SELECT n, upper(s) AS s FROM {a}",
        f"INSERT INTO {b} SELECT n * 10, s FROM {a} WHERE n > 1",
        f"INSERT OVERWRITE TABLE {a} SELECT n + 1, s FROM {b}",
        f"CREATE TABLE {c} LIKE {a}",
        f"ALTER TABLE {c} ADD COLUMNS (extra INT)",
        f"TRUNCATE TABLE {b}",
        f"ALTER TABLE {c} RENAME TO {d}",
        f"DROP TABLE {d}",
    ]


def test_statements_start_no_spark_job_and_run_once(
    spark_connect: Any, client: Any, memory: Any, jobs: Any, table: Any
) -> None:
    """The same statements, with and without the adapter, run the same jobs on the driver."""
    from openlineage_sdk.spark import install, uninstall

    def run(statements: list[str]) -> int:
        before = jobs.count()
        for statement in statements:
            spark_connect.sql(statement)
        return int(jobs.count() - before)

    plain_script = _script(spark_connect, table)
    plain = run(plain_script)
    assert plain >= 3  # the writes themselves
    install(spark_connect, client)
    try:
        traced_script = _script(spark_connect, table)
        traced = run(traced_script)
    finally:
        uninstall(spark_connect)
    assert traced == plain
    runs = Captured(memory).runs()
    assert [r.types for r in runs] == [["START", "COMPLETE"]] * len(traced_script)
    # Each statement ran exactly once: the INSERT OVERWRITE read b after one INSERT.
    a = traced_script[0].split()[2]
    assert sorted(r[0] for r in spark_connect.table(a).collect()) == [2, 3, 4, 21, 31]
    assert [r.job_name.split(".")[1] for r in runs] == [
        "execute_create_data_source_table_command",
        "execute_insert_into_hadoop_fs_relation_command",
        "execute_create_data_source_table_as_select_command",
        "execute_insert_into_hadoop_fs_relation_command",
        "execute_insert_into_hadoop_fs_relation_command",
        "execute_create_table_like_command",
        "execute_alter_table_add_columns_command",
        "execute_truncate_table_command",
        "execute_alter_table_rename_command",
        "drop_table",
    ]
    for r in runs:
        assert r.end.run.facets is not None
        assert r.end.run.facets.extraction_error is None, r.job_name


def test_statements_that_write_nothing_pass_straight_through(
    spark_connect: Any, connect_auto: Captured, src: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from openlineage_sdk.spark.session.connect import _server_statement as _statements

    explained: list[str] = []
    real = _statements.explain_text

    def recording(original: Any, command: Any) -> str:
        explained.append(command.sql_command.input.sql.query)
        return real(original, command)

    monkeypatch.setattr(_statements, "explain_text", recording)
    connect_auto.clear()
    view = f"v_{src}"
    for statement in [
        f"SELECT * FROM {src}",
        "SET spark.sql.shuffle.partitions = 2",
        "SHOW TABLES",
        f"DESCRIBE TABLE EXTENDED {src}",
        "USE default",
        f"CREATE OR REPLACE TEMPORARY VIEW {view} AS SELECT a FROM {src}",
        f"DROP VIEW {view}",
        "-- a comment first\n  /* and another */ SELECT 1",
    ]:
        spark_connect.sql(statement)
    assert explained == []
    assert connect_auto.runs() == []
    spark_connect.sql(f"  -- leading comment\n INSERT INTO {src} VALUES (9, 'n')")
    assert len(explained) == 1
    assert [r.types for r in connect_auto.runs()] == [["START", "COMPLETE"]]


def test_an_insert_does_not_wait_for_the_adapters_explain(
    spark_connect: Any, connect_auto: Captured, src: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server explains an INSERT while it runs it: the statement is sent first."""
    import threading

    from openlineage_sdk.spark import installed
    from openlineage_sdk.spark.observe._statements import ConnectCommands
    from openlineage_sdk.spark.session.connect import _server_statement as _statements
    from openlineage_sdk.spark.session.connect._explain import sql_relation

    adapter = installed(spark_connect)
    assert adapter is not None
    [statements] = [c for c in adapter._closers if isinstance(c, ConnectCommands)]
    sent = threading.Event()
    waited: list[bool] = []
    original = statements._original

    def sending(command: Any, observations: Any = None) -> Any:
        sql = sql_relation(command)
        if sql is not None and not sql.query.startswith("EXPLAIN"):
            sent.set()  # the user's INSERT, not the adapter's own request
        return original(command, observations)

    real = _statements.explain_text

    def explaining(run: Any, command: Any) -> str:
        waited.append(sent.wait(20))  # held until the user's INSERT is on its way
        return real(run, command)

    monkeypatch.setattr(statements, "_original", sending)
    monkeypatch.setattr(_statements, "explain_text", explaining)
    connect_auto.clear()
    spark_connect.sql(f"INSERT INTO {src} VALUES (7, 'beside')")
    assert waited == [True]
    (run,) = connect_auto.runs()
    assert run.types == ["START", "COMPLETE"]
    assert run.job_name.split(".")[1] == "execute_insert_into_hadoop_fs_relation_command"
    assert run.output_json()["name"].endswith("/" + src)


def test_an_insert_costs_three_requests_of_the_adapters_one_an_analysis(
    spark_connect: Any,
    connect_auto: Captured,
    src: str,
    table: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``EXPLAIN``; for the input, one ``DESCRIBE ... AS JSON``: its location and its schema;
    for the target, a table of files, its schema alone (the command's line locates it), asked
    as an analysis, which costs the server less than a ``DESCRIBE``.

    Counted at the client's two doors to the server: every plan or command it executes, every
    analysis it asks for. The user's statement is the third execution.
    """
    from pyspark.sql.connect.client import core

    dst = table("dst")
    spark_connect.sql(f"CREATE TABLE {dst} (a INT, b STRING) USING parquet")
    requests: list[str] = []
    for door in ("_execute_and_fetch_as_iterator", "_analyze"):
        real = getattr(core.SparkConnectClient, door)

        def counting(self: Any, *args: Any, _door: str = door, _real: Any = real, **kw: Any) -> Any:
            requests.append(_door)
            return _real(self, *args, **kw)

        monkeypatch.setattr(core.SparkConnectClient, door, counting)
    connect_auto.clear()
    spark_connect.sql(f"INSERT INTO {dst} SELECT a, b FROM {src}")
    monkeypatch.undo()

    (run,) = connect_auto.runs()
    assert run.types == ["START", "COMPLETE"]
    assert [i.name.rsplit("/", 1)[-1] for i in run.start.inputs or []] == [src]
    assert run.output_json()["name"].endswith("/" + dst)
    assert run.output_json()["facets"]["schema"]["fields"] == [
        {"name": "a", "type": "integer"},
        {"name": "b", "type": "string"},
    ]
    (source,) = run.start.inputs or []
    assert source.to_dict()["facets"]["schema"]["fields"][0]["name"] == "a"
    assert sorted(requests) == ["_analyze"] + ["_execute_and_fetch_as_iterator"] * 3


def _message(error: BaseException) -> str:
    """An error's text without the JVM stack and the attribute ids (``a#72``).

    The ids come from a counter of the server's: the adapter's own analysis beside a statement
    may move them, and nothing else.
    """
    return re.sub(r"#\d+", "#N", str(error).split("JVM stacktrace")[0])


def test_a_failing_statement_fails_the_run_and_the_user_gets_the_exception(
    spark_connect: Any, connect_auto: Captured, table: Any, src: str
) -> None:
    from pyspark.errors import PySparkException

    def error_of(statement: str) -> BaseException:
        with pytest.raises(PySparkException) as caught:
            spark_connect.sql(statement)
        return caught.value

    missing = table("missing")
    # The same statements without the adapter, for the exceptions the user must get unchanged.
    from openlineage_sdk.spark import uninstall

    statements = [
        f"INSERT INTO {missing} SELECT * FROM {src}",  # fails analysis
        f"INSERT INTO {src} SELECT CAST(assert_true(a < 0) AS INT), b FROM {src}",  # at run time
    ]
    connect_auto.clear()
    errors = [error_of(s) for s in statements]
    runs = connect_auto.runs()
    uninstall(spark_connect)
    plain = [error_of(s) for s in statements]
    for got, expected in zip(errors, plain, strict=True):
        assert type(got) is type(expected)
        assert _message(got) == _message(expected)

    assert [r.types for r in runs] == [["START", "FAIL"]] * 2
    for run, error in zip(runs, errors, strict=True):
        assert run.end.run.facets is not None
        facet = run.end.run.facets.error_message
        assert facet is not None
        assert str(error).split("\n")[0] in facet.message
    assert runs[0].job_name == f"{APP}.insert_into_statement"
    assert runs[1].job_name.startswith(f"{APP}.execute_insert_into_hadoop_fs_relation_command.")
    assert runs[1].output().name.endswith(f"/{src}")
    assert spark_connect.table(src).count() == 2  # nothing was written


def test_statements_never_use_the_jvm(
    spark_connect: Any, connect_auto: Captured, table: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No call of this process reaches a JVM (py4j) while the adapter reports statements."""
    import py4j.java_gateway

    from openlineage_sdk.spark.session import classic

    # Every module of the classic session, found rather than listed: a module added or renamed
    # later is trapped too.
    modules = [classic] + [
        importlib.import_module(f"{classic.__name__}.{info.name}")
        for info in pkgutil.iter_modules(classic.__path__)
    ]

    def trap(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the Connect path reached for the JVM")

    monkeypatch.setattr(py4j.java_gateway.GatewayClient, "send_command", trap)
    for module in modules:
        for name in dir(module):
            value = getattr(module, name)
            if callable(value) and getattr(value, "__module__", "") == module.__name__:
                monkeypatch.setattr(module, name, trap)
    for statement in _script(spark_connect, table):
        spark_connect.sql(statement)
    monkeypatch.undo()
    runs = connect_auto.runs()
    assert [r.types for r in runs] == [["START", "COMPLETE"]] * 10
    for run in runs:
        assert run.end.run.facets is not None
        assert run.end.run.facets.extraction_error is None, run.job_name


# ------------------------------------------------------------------------------- reads


def test_reads_that_end_in_an_action_are_runs_with_inputs_and_no_output(
    spark_connect: Any, connect_auto: Captured, table: Any, src: str, data_dir: Path, jobs: Any
) -> None:
    other = table("other")
    spark_connect.sql(f"CREATE TABLE {other} (a INT, c DOUBLE) USING parquet")
    files = data_dir / "files"
    spark_connect.range(3).selectExpr("id", "id * 2 AS twice").write.parquet(str(files))
    warehouse = str(data_dir.parents[1] / "warehouse")
    joined = f"SELECT s.a, s.b, o.c FROM {src} s LEFT JOIN {other} o ON s.a = o.a"
    declared = spark_connect.read.schema("id BIGINT, twice BIGINT").parquet(str(files))

    def actions() -> list[Any]:
        return [
            spark_connect.sql(joined).collect(),
            spark_connect.table(src).count(),
            declared.toPandas(),
        ]

    plain_before = jobs.count()
    connect_auto.clear()
    results = actions()
    traced_jobs = jobs.count() - plain_before

    runs = connect_auto.runs()
    assert [r.types for r in runs] == [["START", "COMPLETE"]] * 3
    # The SQL query explained for its inputs is named after its physical plan, as in classic
    # mode; the others after their client plan's root.
    assert [r.job_name for r in runs] == [
        f"{APP}.adaptive_spark_plan",
        f"{APP}.aggregate",
        f"{APP}.read",
    ]
    for run in runs:
        assert run.end.outputs in (None, [])
        assert run.end.run.facets is not None
        assert run.end.run.facets.extraction_error is None, run.job_name
    first = {i.name: i.to_dict()["facets"]["schema"]["fields"] for i in runs[0].start.inputs or []}
    assert first == {
        f"{warehouse}/{src}": [{"name": "a", "type": "integer"}, {"name": "b", "type": "string"}],
        f"{warehouse}/{other}": [{"name": "a", "type": "integer"}, {"name": "c", "type": "double"}],
    }
    assert [i.name for i in runs[1].start.inputs or []] == [f"{warehouse}/{src}"]
    [read] = runs[2].start.inputs or []
    assert (read.namespace, read.name) == ("file", str(files))
    assert read.to_dict()["facets"]["schema"]["fields"] == [
        {"name": "id", "type": "long"},
        {"name": "twice", "type": "long"},
    ]
    assert len(results[0]) == 2
    assert results[1] == 2
    assert len(results[2]) == 3

    # The same actions without the adapter: the same results, the same jobs.
    from openlineage_sdk.spark import uninstall

    uninstall(spark_connect)
    before = jobs.count()
    uninstalled_results = actions()
    assert jobs.count() - before == traced_jobs
    assert sorted(map(tuple, uninstalled_results[0])) == sorted(map(tuple, results[0]))


def test_actions_that_touch_no_dataset_are_not_runs(
    spark_connect: Any, connect_auto: Captured, src: str
) -> None:
    connect_auto.clear()
    spark_connect.sql("SET spark.sql.shuffle.partitions = 2").collect()
    spark_connect.sql("SHOW TABLES").collect()
    spark_connect.sql(f"DESCRIBE TABLE {src}").toPandas()
    spark_connect.sql("SELECT 1 AS one").collect()
    spark_connect.range(5).count()
    spark_connect.createDataFrame([(1, "a")], "n INT, s STRING").collect()
    assert connect_auto.runs() == []


def test_input_only_runs_can_be_turned_off(
    spark_connect: Any, client: Any, memory: Any, src: str
) -> None:
    from openlineage_sdk.spark import install, uninstall

    install(spark_connect, client, input_only_runs=False)
    try:
        spark_connect.table(src).collect()
        spark_connect.sql(f"SELECT * FROM {src}").count()
        spark_connect.sql(f"INSERT INTO {src} VALUES (7, 'q')")
    finally:
        uninstall(spark_connect)
    runs = Captured(memory).runs()
    assert [r.job_name.split(".")[1] for r in runs] == [
        "execute_insert_into_hadoop_fs_relation_command"
    ]


# ------------------------------------------------------------------------ column lineage


QUERY = (
    "SELECT s.b AS key, sum(s.a + o.a) AS total, count(*) AS n, max(md5(s.b)) AS h "
    "FROM {src} s JOIN {other} o ON s.a = o.a WHERE o.c > 0 GROUP BY s.b ORDER BY key"
)


@pytest.fixture
def other(spark_connect: Any, table: Any) -> str:
    name: str = table("other")
    spark_connect.sql(f"CREATE TABLE {name} (a INT, c DOUBLE) USING parquet")
    spark_connect.sql(f"INSERT INTO {name} VALUES (1, 1.5), (2, -1.0)")
    return name


def _lineage_of(memory: Any) -> Any:
    runs = Captured(memory).runs()
    facets = runs[-1].output_json()["facets"]
    return facets.get("columnLineage")


def _without_producer(facet: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in facet.items() if not k.startswith("_")}


def _lineage_in_both_modes(
    spark: Any, spark_connect: Any, client: Any, memory: Any, table: Any, query: str, label: str
) -> dict[str, Any]:
    """The columnLineage facet of ``query`` written with saveAsTable, classic and Connect."""
    from openlineage_sdk.spark import install, uninstall

    got: dict[str, Any] = {}
    for mode, session in (("classic", spark), ("connect", spark_connect)):
        install(session, client)
        try:
            session.sql(query).write.saveAsTable(table(f"{label}_{mode}"))
        finally:
            uninstall(session)
        facet = _lineage_of(memory)
        assert facet is not None, (label, mode)
        got[mode] = _without_producer(facet)
        memory.clear()
    return got


def test_connect_column_lineage_equals_the_classic_one(
    spark: Any, spark_connect: Any, memory: Any, client: Any, src: str, other: str, table: Any
) -> None:
    """The same write in both modes: the Connect text tracing gives the classic tree's lineage,
    the filters the optimizer infers (the join key is not null) included."""
    query = QUERY.format(src=src, other=other)
    got = _lineage_in_both_modes(spark, spark_connect, client, memory, table, query, "cll")
    assert got["connect"] == got["classic"]
    # src has no WHERE of its own: a FILTER on its join key is the optimizer's (a IS NOT NULL).
    keys = [
        d
        for d in got["connect"]["dataset"]
        if d["name"].rsplit("/", 1)[-1] == src and d["field"] == "a"
    ]
    assert any(t["subtype"] == "FILTER" for d in keys for t in d["transformations"]), keys
    assert set(got["connect"]["fields"]) == {"key", "total", "h"}  # count(*) reads no column
    total = got["connect"]["fields"]["total"]["inputFields"]
    assert {(f["name"].rsplit("/", 1)[-1], f["field"]) for f in total} == {(src, "a"), (other, "a")}


def test_rollup_explode_and_distincts_under_connect_equal_the_classic_lineage(
    spark: Any, spark_connect: Any, memory: Any, client: Any, table: Any
) -> None:
    """The optimized plan's Expand (ROLLUP; several DISTINCT aggregates) and Generate
    (``explode``, whose unneeded input columns the optimizer drops) traced from text under
    Connect as the classic path traces the tree."""
    source = table("nested")
    spark_connect.sql(f"CREATE TABLE {source} (a INT, b STRING, xs ARRAY<INT>) USING parquet")
    spark_connect.sql(f"INSERT INTO {source} VALUES (1, 'p', array(1, 2)), (2, 'q', array(3))")
    queries = {
        "rollup": f"SELECT a, b, count(*) AS n FROM {source} GROUP BY ROLLUP(a, b)",
        "distincts": f"SELECT b, count(DISTINCT a) AS na, count(DISTINCT xs) AS nx FROM {source} "
        "GROUP BY b",
        "explode": f"SELECT explode(xs) AS x FROM {source}",
        "lateral": f"SELECT b, x + a AS y FROM {source} LATERAL VIEW explode(xs) t AS x",
    }
    for label, query in queries.items():
        got = _lineage_in_both_modes(spark, spark_connect, client, memory, table, query, label)
        assert got["connect"] == got["classic"], label
        assert got["connect"]["fields"], label


def test_insert_select_and_ctas_under_connect_carry_column_lineage(
    spark: Any, spark_connect: Any, memory: Any, client: Any, src: str, other: str, table: Any
) -> None:
    from openlineage_sdk.spark import install, uninstall

    query = QUERY.format(src=src, other=other)
    ctas, inserted, classic = table("ctas_cll"), table("ins_cll"), table("classic_cll")
    spark_connect.sql(f"CREATE TABLE {inserted} (key STRING, total BIGINT, n BIGINT, h STRING)")
    install(spark, client)
    try:
        spark.sql(query).write.saveAsTable(classic)
    finally:
        uninstall(spark)
    expected = _without_producer(_lineage_of(memory))
    memory.clear()
    install(spark_connect, client)
    try:
        spark_connect.sql(f"CREATE TABLE {ctas} USING parquet AS {query}")
        from_ctas = _lineage_of(memory)
        spark_connect.sql(f"INSERT INTO {inserted} {query}")
        from_insert = _lineage_of(memory)
    finally:
        uninstall(spark_connect)
    assert from_ctas is not None
    assert from_insert is not None
    # The CTAS's query is explained on its own for its optimized plan; the INSERT's is in its.
    assert _without_producer(from_ctas) == expected
    assert _without_producer(from_insert) == expected


def _problems(run: RunEvents) -> list[str]:
    """The messages of the run's extractionError facet, at its end."""
    facet = run.end.to_dict()["run"]["facets"].get("extractionError") or {}
    return [e["errorMessage"] for e in facet.get("errors", [])]


def test_a_location_cut_short_in_the_plan_text_still_finds_its_input(
    spark: Any, spark_connect: Any, connect_auto: Captured, data_dir: Path
) -> None:
    """Spark cuts a scan's location at 100 characters in the plan's text ("..."): a long path
    read with a declared schema still has its column lineage, and a cut location is never
    taken for a dataset's name."""
    from openlineage_sdk.spark.session.connect._explain import parse_explain

    long = data_dir / ("long_folder_name_" * 5) / "src"
    assert len(f"InMemoryFileIndex(1 paths)[file:{long}]") > 100
    spark.createDataFrame([(1, "a"), (2, "b")], "k INT, v STRING").write.parquet(str(long))
    connect_auto.clear()

    frame = spark_connect.read.schema("k INT, v STRING").parquet(str(long))
    frame.filter("k > 1").selectExpr("upper(v) AS u").write.parquet(str(data_dir / "out"))
    [run] = connect_auto.runs()
    facet = run.output_json()["facets"]["columnLineage"]
    assert facet["fields"]["u"]["inputFields"][0] == {
        **facet["fields"]["u"]["inputFields"][0],
        "name": str(long),
        "field": "v",
    }
    assert [(i["name"], i["field"]) for i in facet["dataset"]] == [(str(long), "k")]

    text = (
        "== Parsed Logical Plan ==\nProject\n\n== Analyzed Logical Plan ==\nProject\n"
        "+- Relation [k#3,v#4] parquet\n\n== Physical Plan ==\n+- FileScan parquet [k#3,v#4] "
        "Batched: true, Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/data/lo..., "
        "PartitionFilters: [], ReadSchema: struct<k:int,v:string>\n"
    )
    explained = parse_explain(text)
    assert (explained.input_paths, explained.cut_paths) == ([], ["file:/data/lo"])


def test_a_statement_reading_files_by_path_costs_no_job(
    spark: Any, spark_connect: Any, client: Any, memory: Any, jobs: Any, data_dir: Path, table: Any
) -> None:
    """Explaining it would make the server infer the files' schema, a job: the run says why
    its datasets are left out instead."""
    from openlineage_sdk.spark import install, uninstall

    source = data_dir / "src"
    spark.createDataFrame([(1, "a")], "k INT, v STRING").write.parquet(str(source))
    target = table("from_path")
    spark_connect.sql(f"CREATE TABLE {target} (k INT, v STRING) USING parquet")

    def run() -> int:
        before = jobs.count()
        spark_connect.sql(f"INSERT INTO {target} SELECT * FROM parquet.`{source}`")
        return int(jobs.count() - before)

    plain = run()
    install(spark_connect, client)
    try:
        traced = run()
    finally:
        uninstall(spark_connect)
    assert traced == plain
    [run_events] = Captured(memory).runs()
    assert run_events.types == ["START", "COMPLETE"]
    assert any("reads files by path" in p for p in _problems(run_events))


def test_a_plan_too_wide_for_its_text_gets_no_partial_column_lineage(
    spark_connect: Any, connect_auto: Captured, table: Any
) -> None:
    """Past spark.sql.debug.maxToStringFields columns the plan's text lists only the first ones:
    rather than lineage of some fields that looks whole, none, and the reason in the run."""
    src, dst = table("wide_src"), table("wide_dst")
    columns = ", ".join(f"c{i} INT" for i in range(30))
    spark_connect.sql(f"CREATE TABLE {src} ({columns}) USING parquet")
    spark_connect.sql(f"CREATE TABLE {dst} ({columns}) USING parquet")
    connect_auto.clear()

    select = ", ".join(f"c{i} + 1 AS c{i}" for i in range(30))
    spark_connect.sql(f"INSERT INTO {dst} SELECT {select} FROM {src} WHERE c29 > 0")

    [run] = connect_auto.runs()
    assert "columnLineage" not in run.output_json()["facets"]
    assert any("spark.sql.debug.maxToStringFields" in p for p in _problems(run))
    assert [d.name.rsplit("/", 1)[-1] for d in run.start.inputs or []] == [src]


def test_a_ctas_over_a_view_of_files_finds_the_files_it_reads(
    spark: Any, spark_connect: Any, connect_auto: Captured, table: Any
) -> None:
    """The CTAS's own plan does not locate files a temporary view reads (its physical plan is
    the command); its query explained alone does: the input, and its column lineage."""
    # A short location: the plan's text cuts longer ones (spark.sql.maxMetadataStringLength).
    with tempfile.TemporaryDirectory(prefix="ctas", dir="/tmp") as folder:
        source = Path(folder) / "events"
        spark.createDataFrame([(1, "a"), (2, "b")], "k INT, v STRING").write.parquet(str(source))
        spark_connect.read.parquet(str(source)).createOrReplaceTempView("ctas_files_view")
        target = table("from_view")
        connect_auto.clear()
        try:
            spark_connect.sql(
                f"CREATE TABLE {target} USING parquet AS "
                "SELECT k, upper(v) AS u FROM ctas_files_view"
            )
        finally:
            spark_connect.sql("DROP VIEW IF EXISTS ctas_files_view")
    [run] = connect_auto.runs()
    assert [d.name for d in run.end.inputs or []] == [str(source)]
    assert not _problems(run)
    fields = run.output_json()["facets"]["columnLineage"]["fields"]
    assert [(f["name"], f["field"]) for f in fields["u"]["inputFields"]] == [(str(source), "v")]


def test_statements_with_parameters_or_format_arguments_give_the_literal_statements_run(
    spark_connect: Any, connect_auto: Captured, table: Any, src: str
) -> None:
    """The ``EXPLAIN`` carries the statement's own arguments (``:name``, ``?``) and relations
    (``{df}``): each form's run is the written-out statement's."""
    dst = table("bound")
    spark_connect.sql(f"CREATE TABLE {dst} (a INT, b STRING) USING parquet")
    insert = "INSERT INTO " + dst + " SELECT a, upper(b) FROM {table} WHERE a > {low}"

    def run_of(text: str, *args: Any, **kwargs: Any) -> Any:
        connect_auto.clear()
        spark_connect.sql(text, *args, **kwargs)
        [run] = connect_auto.runs()
        end = run.end.to_dict()
        return run.types, run.job_name, end["inputs"], end["outputs"]

    literal = run_of(insert.format(table=src, low=1))
    assert literal[2]
    assert literal[3][0]["facets"]["columnLineage"]["fields"]
    assert run_of(insert.format(table=src, low=":low"), args={"low": 1}) == literal
    assert run_of(insert.format(table=src, low="?"), args=[1]) == literal
    assert run_of(insert, table=spark_connect.table(src), low=1) == literal


def test_the_query_of_a_ctas_is_told_by_its_text_and_checked_by_the_servers_plan() -> None:
    from openlineage_sdk.spark.describe._sql_text import table_query
    from openlineage_sdk.spark.session.connect._explain import same_query

    assert table_query("CREATE TABLE t USING hive LOCATION '/x' AS SELECT a FROM s") == (
        "SELECT a FROM s"
    )
    assert (
        table_query(
            "-- a comment\ncreate or replace table t (a INT, b STRING GENERATED ALWAYS AS (upper(c)))"
            " USING parquet COMMENT 'not AS SELECT 1' AS (SELECT 1, 'x')"
        )
        == "(SELECT 1, 'x')"
    )
    assert table_query("CREATE TABLE t STORED AS PARQUET AS WITH c AS (SELECT 1) SELECT * FROM c")
    assert table_query("REPLACE TABLE `as` USING parquet AS VALUES (1)") == "VALUES (1)"
    assert table_query("CREATE TABLE t USING parquet SELECT 1") is None  # AS left out: not told
    assert table_query("CREATE TABLE t (a INT)") is None
    assert table_query("INSERT INTO t SELECT 1") is None

    statement = (
        "== Parsed Logical Plan ==\n'CreateTableAsSelect\n\n== Analyzed Logical Plan ==\n"
        "CreateDataSourceTableAsSelectCommand `spark_catalog`.`default`.`t`, ErrorIfExists, [a]\n"
        "   +- Project [a#3]\n      +- SubqueryAlias s\n         +- Relation s[a#3,b#4] parquet\n"
    )
    alone = (
        "== Parsed Logical Plan ==\n'Project ['a]\n\n== Analyzed Logical Plan ==\na: int\n"
        "Project [a#12]\n+- SubqueryAlias s\n   +- Relation s[a#12,b#13] parquet\n"
    )
    assert same_query(statement, alone)
    assert not same_query(statement, alone.replace("Project [a#12]", "Project [b#13]"))
    assert not same_query(statement, alone.replace("Relation s[", "Relation u["))


@pytest.mark.pyspark
@needs(4, 0, "SqlCommand.input (the SQL relation PySpark 4 sends)")
def test_statement_text_is_read_from_both_forms_of_the_sql_command() -> None:
    """The ``SQL`` relation PySpark 4 sends, and the command's own text PySpark 3.5 sends."""
    from pyspark.sql.connect.proto import Command

    from openlineage_sdk.spark.describe._sql_text import may_write
    from openlineage_sdk.spark.session.connect._explain import sql_relation as _sql_relation

    current = Command()
    current.sql_command.input.sql.query = "INSERT INTO t SELECT 1"
    legacy = Command()
    legacy.sql_command.sql = "DROP TABLE t"
    other = Command()
    other.write_operation.table.table_name = "t"
    assert _sql_relation(current).query == "INSERT INTO t SELECT 1"
    found = _sql_relation(legacy)
    assert found.query == "DROP TABLE t"
    found.query = "EXPLAIN EXTENDED DROP TABLE t"
    assert legacy.sql_command.sql == "EXPLAIN EXTENDED DROP TABLE t"
    assert _sql_relation(other) is None
    assert may_write("/* x */ -- y\n insert overwrite table t select 1")
    assert may_write("CREATE OR REPLACE TABLE t AS SELECT 1")
    assert not may_write("CREATE TEMPORARY VIEW v AS SELECT 1")
    assert not may_write("SELECT * FROM t")
    assert not may_write("DROP VIEW v")


def test_a_jdbc_read_ending_in_an_action_is_a_run_of_its_input(
    spark_connect: Any, connect_auto: Captured
) -> None:
    """The one walk over a Connect plan sees JDBC reads in actions too, as in writes.

    No database answers here (the JDBC tests against a real PostgreSQL are elsewhere): the
    action fails, and its run says what it read before it failed.
    """
    frame = (
        spark_connect.read.format("jdbc")
        .option("url", "jdbc:postgresql://127.0.0.1:9/shop")
        .option("dbtable", "sales.orders")
        .load()
    )
    with pytest.raises(Exception, match=r"(?i)driver|connect|refused"):
        frame.count()
    [run] = connect_auto.read_runs()
    assert run.types == ["START", "FAIL"]
    assert [(i.namespace, i.name) for i in run.start.inputs or []] == [
        ("postgres://127.0.0.1:9", "shop.sales.orders")
    ]
