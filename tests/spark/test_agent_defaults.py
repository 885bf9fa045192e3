"""What the JVM agent sends by default: the ``sql`` facet, partition DDL, self-described v2
tables, Kafka batch reads and writes, and Delta Lake's own row-level commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.spark._row_level import CATALOG_CLASS
from tests.spark._row_level import missing as catalog_missing
from tests.spark._support import Captured, in_scope, matches

EXPECTED = Path(__file__).resolve().parent.parent / "data" / "jvm-spark" / "expected"
APP = "openlineage_sdk_tests"


def _connect(spark: Any) -> bool:
    return type(spark).__module__.startswith("pyspark.sql.connect")


def _settled(spark: Any, auto: Captured) -> list[Any]:
    from openlineage_sdk.spark import installed

    adapter = installed(spark)
    assert adapter is not None
    adapter.drain_listeners()
    return auto.runs()


def _sql(run: Any) -> tuple[str, str | None] | None:
    facets = run.start.job.facets
    facet = facets.get("sql") if facets is not None else None
    return None if facet is None else (facet.query, facet.dialect)


# ------------------------------------------------------------- SparkSqlQueryRecordingTest


def test_the_sql_facet_names_the_query_a_write_was_built_from(
    mode_spark: Any, auto: Captured
) -> None:
    mark = "c" if _connect(mode_spark) else "k"
    view = f"temp1_{mark}"
    frame = mode_spark.createDataFrame([("value1", "value2")], "A string, B string")
    frame.selectExpr("1 AS data").distinct().createOrReplaceTempView(view)
    query_a = f"WITH table AS (SELECT data FROM {view}) SELECT data FROM table"
    query_b = f"SELECT * FROM {view}"
    auto.clear()
    mode_spark.sql(query_a).write.mode("overwrite").saveAsTable(f"temp3_{mark}")
    mode_spark.sql(query_b).write.mode("overwrite").saveAsTable(f"temp2_{mark}")
    recorded = [_sql(r) for r in auto.write_runs()]
    assert recorded == [(query_a, "spark"), (query_b, "spark")]


def test_the_sql_facet_of_a_multipart_query_is_its_last_part(
    mode_spark: Any, auto: Captured
) -> None:
    mark = "c" if _connect(mode_spark) else "k"
    mode_spark.sql("SELECT 1 as id").createOrReplaceTempView(f"table1_{mark}")
    mode_spark.sql(f"SELECT * FROM table1_{mark} UNION ALL SELECT 2 as id").createOrReplaceTempView(
        f"table2_{mark}"
    )
    group_by = f"SELECT id, count(*) as count FROM table2_{mark} GROUP BY id"
    auto.clear()
    mode_spark.sql(group_by).write.mode("overwrite").saveAsTable(f"temp4_{mark}")
    statement = f"CREATE TABLE sql_facet_{mark} (a INT) USING parquet"
    mode_spark.sql(statement)
    runs = auto.write_runs()
    assert [_sql(r) for r in runs] == [(group_by, "spark"), (statement, "spark")]


# ----------------------------------------------------------------------------- partitions


def test_partition_ddl_is_an_alter_of_the_table(
    mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    mark = "c" if _connect(mode_spark) else "k"
    table = f"parts_{mark}"
    mode_spark.sql(
        f"CREATE TABLE {table} (a INT, dt STRING) USING parquet PARTITIONED BY (dt) "
        f"LOCATION '{data_dir / table}'"
    )
    (data_dir / table / "dt=2024-01-02").mkdir(parents=True)
    auto.clear()
    mode_spark.sql(f"ALTER TABLE {table} ADD PARTITION (dt='2024-01-01')")
    mode_spark.sql(f"MSCK REPAIR TABLE {table}")
    mode_spark.sql(f"ALTER TABLE {table} RECOVER PARTITIONS")
    runs = auto.write_runs()
    assert [r.job_name for r in runs] == [
        f"{APP}.execute_alter_table_add_partition_command",
        f"{APP}.execute_repair_table_command",
        f"{APP}.execute_repair_table_command",
    ]
    for run in runs:
        output = run.output_json()
        assert output["name"] == str(data_dir / table)
        assert output["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "ALTER"
        assert [f["name"] for f in output["facets"]["schema"]["fields"]] == ["a", "dt"]
    assert sorted(r[0] for r in mode_spark.sql(f"SHOW PARTITIONS {table}").collect()) == [
        "dt=2024-01-01",
        "dt=2024-01-02",
    ]


# ------------------------------------------------------------ self-described v2 tables


@pytest.fixture
def rl(mode_spark: Any, data_dir: Path) -> None:
    reason = catalog_missing()
    if reason is not None:
        pytest.skip(reason)
    mode_spark.conf.set("spark.sql.catalog.rl", CATALOG_CLASS)
    mode_spark.conf.set("spark.sql.catalog.rl.warehouse", str(data_dir / "rl"))


DOCUMENTATION = json.dumps(
    {
        "_schemaURL": "https://openlineage.io/spec/facets/1-1-0/DocumentationDatasetFacet.json"
        "#/$defs/DocumentationDatasetFacet",
        "description": "Orders, as the shop keeps them",
    }
)


def test_a_v2_table_describes_itself_by_its_properties(
    mode_spark: Any, rl: None, auto: Captured
) -> None:
    mark = "c" if _connect(mode_spark) else "k"
    table = f"rl.default.described_{mark}"
    mode_spark.sql(
        f"CREATE TABLE {table} (id BIGINT, total DOUBLE) TBLPROPERTIES ("
        "'openlineage.dataset.name'='shop.public.orders', "
        "'openlineage.dataset.namespace'='postgres://db:5432', "
        f"'openlineage.dataset.facets.documentation'='{DOCUMENTATION}')"
    )
    auto.clear()
    mode_spark.table(table).collect()
    [run] = [r for r in _settled(mode_spark, auto) if r.input_only()]
    [dataset] = [i.to_dict() for i in run.start.inputs or []]
    assert (dataset["namespace"], dataset["name"]) == ("postgres://db:5432", "shop.public.orders")
    if _connect(mode_spark):
        # A Connect client reads the properties through SHOW TBLPROPERTIES, which redacts values
        # that look like URLs (the facet's _schemaURL): the facet is left out, and why is said.
        facets = run.end.run.facets
        assert facets is not None
        assert facets.extraction_error is not None
        assert any("redacted" in e["errorMessage"] for e in facets.extraction_error.errors)
    else:
        documentation = dataset["facets"]["documentation"]
        assert documentation["description"] == "Orders, as the shop keeps them"
    assert [f["name"] for f in dataset["facets"]["schema"]["fields"]] == ["id", "total"]


def test_a_v2_table_described_by_a_query_reads_its_tables(
    spark: Any, classic_auto: Captured, data_dir: Path
) -> None:
    if catalog_missing() is not None:
        pytest.skip(str(catalog_missing()))
    spark.conf.set("spark.sql.catalog.rl", CATALOG_CLASS)
    spark.sql(
        "CREATE TABLE rl.default.by_query (id BIGINT, name STRING) TBLPROPERTIES ("
        "'openlineage.dataset.query'='SELECT o.id, c.name FROM orders o JOIN customers c "
        "ON o.customer_id = c.id', 'openlineage.dataset.namespace'='postgres://db:5432')"
    )
    classic_auto.clear()
    spark.table("rl.default.by_query").collect()
    [run] = [r for r in _settled(spark, classic_auto) if r.input_only()]
    inputs = {i.name: i.to_dict() for i in run.start.inputs or []}
    assert sorted(inputs) == ["customers", "orders"]
    # The agent's schema rule: each table gets the relation's columns that come from it.
    assert inputs["orders"]["facets"]["schema"]["fields"] == [{"name": "id", "type": "long"}]
    assert inputs["customers"]["facets"]["schema"]["fields"] == [{"name": "name", "type": "string"}]


# ----------------------------------------------------------------------------------- Kafka


def _kafka_expected(name: str) -> dict[str, Any]:
    """An expected file of the agent's Kafka test, its namespace resolver's work undone.

    The agent's test maps the broker ``kafka-host`` to ``kafka-cluster-prod`` by a namespace
    resolver of its confs; the job's namespace and the app's name are the test's own.
    """
    text = (EXPECTED / name).read_text().replace("kafka-cluster-prod", "kafka-host")
    expected: dict[str, Any] = in_scope(json.loads(text))
    del expected["job"]
    return expected


def test_a_kafka_write_is_named_after_its_topic(mode_spark: Any, auto: Captured) -> None:
    people = mode_spark.createDataFrame([("Bilbo Baggins", 50), ("Gandalf", 1000)], ["name", "age"])
    with pytest.raises(Exception):  # noqa: B017, PT011 - no Kafka connector JAR, no broker here
        people.selectExpr(
            "CAST(name AS STRING) as key", "CAST(age AS STRING) as value"
        ).write.format("kafka").option("kafka.bootstrap.servers", "kafka-host:9092").option(
            "topic", "topic1"
        ).option("checkpointLocation", "/tmp/checkpoint").save()
    run = auto.only_write()
    assert run.types == ["START", "FAIL"]
    assert run.job_name == f"{APP}.execute_save_into_data_source_command"
    start = run.start.to_dict()
    assert matches(_kafka_expected("pysparkKafkaWriteStartEvent.json"), start), start


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"subscribe": "topic1"}, "pysparkKafkaReadStartEvent.json"),
        ({"assign": '{"topicA": [0], "topicB": [0]}'}, "pysparkKafkaAssignReadStartEvent.json"),
    ],
)
def test_a_kafka_read_names_its_topics_with_the_kafka_schema_under_connect(
    spark_connect: Any, client: Any, memory: Any, options: dict[str, str], expected: str
) -> None:
    """Classic PySpark fails a Kafka read at ``load()`` without the connector; a Connect client
    builds it, and its action is a run (that fails on the server) naming the topics."""
    from openlineage_sdk.spark import install, uninstall

    install(spark_connect, client)
    try:
        reader = spark_connect.read.format("kafka").option(
            "kafka.bootstrap.servers", "kafka-host:9092"
        )
        frame = reader.options(**options).load()
        with pytest.raises(Exception):  # noqa: B017, PT011 - no Kafka connector JAR here
            frame.show()
    finally:
        uninstall(spark_connect)
    [run] = Captured(memory).runs()
    start = run.start.to_dict()
    assert matches(_kafka_expected(expected), start), start


# ----------------------------------------------------------------------- Delta's commands


class _Stub:
    """A JVM plan node of a class the test driver does not have (Delta's commands), built from
    real plans of the driver for the parts the adapter reads."""

    def __init__(self, name: str, **parts: Any) -> None:
        self._name = name
        self._parts = parts

    def getClass(self) -> Any:
        name = self._name

        class _Class:
            def getSimpleName(self) -> str:
                return name

        return _Class()

    def __getattr__(self, part: str) -> Any:
        return lambda: self._parts[part]


@pytest.mark.parametrize("command", ["MergeIntoCommand", "UpdateCommand", "DeleteCommand"])
def test_deltas_commands_are_planned_by_the_agents_rules(
    spark: Any, data_dir: Path, command: str
) -> None:
    """Delta's MERGE, UPDATE and DELETE commands on a table: its target is the output and an
    input, a MERGE's source the other input, the job named as the command and the table."""
    from openlineage_sdk.spark.describe._commands import apply_statement
    from openlineage_sdk.spark.session.classic._jvm import JvmClasses
    from openlineage_sdk.spark.session.classic._readers import select_readers
    from openlineage_sdk.spark.session.classic._statement_plans import _plan, _Planner

    target_name, source_name = f"delta_target_{command}", f"delta_source_{command}"
    spark.range(3).selectExpr("id", "id * 2 AS v").write.saveAsTable(target_name)
    spark.range(2).selectExpr("id", "id * 3 AS w").write.saveAsTable(source_name)
    target = spark.table(target_name)._jdf.queryExecution().analyzed()
    source = spark.table(source_name)._jdf.queryExecution().analyzed()
    parts = (
        {"target": target, "source": source}
        if command == "MergeIntoCommand"
        else {"target": target}
    )
    planner = _Planner(spark, None, JvmClasses.of(spark._jvm).skip, select_readers(spark.version))
    planned = _plan(planner, _Stub(command, **parts))
    assert planned is not None
    from openlineage_sdk.spark._execution import SparkExecution

    execution = SparkExecution("classic", "sql", "app", "sql")
    apply_statement(execution, planned, None)
    warehouse = str(spark.conf.get("spark.sql.warehouse.dir")).removeprefix("file:")
    assert execution.output is not None
    assert execution.output.identity.name == f"{warehouse}/{target_name.lower()}"
    assert [f["name"] for f in execution.output.schema or []] == ["id", "v"]
    names = sorted(i.identity.name.rsplit("/", 1)[-1] for i in execution.inputs)
    expected = [target_name.lower()]
    if command == "MergeIntoCommand":
        expected.append(source_name.lower())
    assert names == sorted(expected)
    snake = {"MergeIntoCommand": "merge_into_command", "UpdateCommand": "update_command"}
    assert execution.job_name == (
        f"app.execute_{snake.get(command, 'delete_command')}.default_{target_name.lower()}"
    )
