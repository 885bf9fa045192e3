"""JDBC reads and writes against a real PostgreSQL and the embedded Derby, as the JVM agent sees them.

The PostgreSQL server is a throwaway cluster of its own (``tests/spark/_postgres.py``), with a
password; the test driver has Debian's PostgreSQL JDBC driver on its classpath. The scenarios
are the JVM agent's ``PostgresJDBCSparkQueryTest`` (an unqualified table, a ``query`` over one
table, ``WITH`` and a join over several, ``dbtable`` holding a join, column lineage into a
Parquet table) and ``ColumnLineageIntegrationTest`` (its expected files, vendored in
``tests/data/jvm-spark``), each in classic PySpark and under Spark Connect.
"""

from __future__ import annotations

import copy
import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest

from tests.spark._postgres import PASSWORD, Postgres, assert_same_statements
from tests.spark._support import Captured, matches

EXPECTED = Path(__file__).resolve().parent.parent / "data" / "jvm-spark" / "expected"

# The JVM agent's fixtures: PostgresJDBCSparkQueryTest's tables, and its queries' files.
SHOP = """
CREATE TABLE books (author_id INT, book_id INT);
CREATE TABLE authors (author_id INT, author_name TEXT);
CREATE TABLE orders (order_author_id INT, order_id INT);
INSERT INTO books VALUES (1, 10), (2, 20), (3, 30);
INSERT INTO orders VALUES (1, 100);
INSERT INTO authors VALUES (1, 'John Doe'), (2, 'Jane Doe'), (3, 'Alice Doe');
"""
WITH_ONE_TABLE = """WITH ns AS (
    SELECT author_id, author_name
    FROM authors
    WHERE author_id <= 20
)
SELECT ns.*
FROM ns"""
WITH_MULTIPLE_TABLES = """WITH ns AS (
    SELECT author_id AS id
    FROM books
    WHERE book_id <= 20
)
SELECT authors.*
FROM authors
INNER JOIN ns ON authors.author_id = ns.id"""
# ColumnLineageIntegrationTest's database ("test") and its init.sql.
TEST_DATABASE = """
create table if not exists jdbc_source1 (k int, j1 varchar(5));
create table if not exists jdbc_source2 (k int, j2 varchar(5));
insert into jdbc_source1 values (1 , 'ja'), (2 , 'jc'), (3 , 'je');
insert into jdbc_source2 values (1 , 'jb'), (2 , 'jd'), (3 , 'jf');
CREATE TABLE IF NOT EXISTS ol_clients (
 client_name VARCHAR(255), client_category VARCHAR(255), client_rating VARCHAR(255));
INSERT INTO ol_clients VALUES ('a', 'b', 'c');
CREATE TABLE IF NOT EXISTS second_ol_clients (
 client_name VARCHAR(255), client_category VARCHAR(255), client_rating VARCHAR(255));
CREATE TABLE IF NOT EXISTS test (k int, value varchar(20));
"""


@pytest.fixture(scope="module")
def shop(postgres: Postgres) -> Postgres:
    postgres.psql(SHOP)
    postgres.psql("CREATE DATABASE test OWNER openlineage", "postgres", "postgres")
    postgres.psql(TEST_DATABASE, "test")
    return postgres


def _read(spark: Any, server: Postgres, **options: str) -> Any:
    return spark.read.format("jdbc").options(**server.options(), **options).load()


def _reads(spark: Any, auto: Captured) -> list[Any]:
    """The read runs so far: a classic action's run comes from the listener bus, after it."""
    from openlineage_sdk.spark import installed

    adapter = installed(spark)
    assert adapter is not None
    adapter.drain_listeners()
    return auto.read_runs()


def _inputs(run: Any) -> dict[str, Any]:
    """The inputs of a run's first event, by name, as JSON."""
    return {i.name: i.to_dict() for i in run.start.inputs or []}


def _schema(dataset: dict[str, Any]) -> list[tuple[str, str]] | None:
    schema = (dataset.get("facets") or {}).get("schema")
    return None if schema is None else [(f["name"], f["type"]) for f in schema["fields"]]


# ------------------------------------------------------------ PostgresJDBCSparkQueryTest


def test_an_unqualified_table_is_named_after_the_database(
    mode_spark: Any, auto: Captured, shop: Postgres
) -> None:
    _read(mode_spark, shop, dbtable="authors").collect()
    [run] = _reads(mode_spark, auto)
    inputs = _inputs(run)
    assert list(inputs) == ["openlineage.authors"]
    assert inputs["openlineage.authors"]["namespace"] == shop.namespace
    assert _schema(inputs["openlineage.authors"]) == [
        ("author_id", "integer"),
        ("author_name", "string"),
    ]


def test_a_query_over_one_table_reads_that_table_with_the_relations_schema(
    mode_spark: Any, auto: Captured, shop: Postgres
) -> None:
    _read(mode_spark, shop, query=WITH_ONE_TABLE).collect()
    [run] = _reads(mode_spark, auto)
    inputs = _inputs(run)
    assert list(inputs) == ["openlineage.authors"]
    assert sorted(_schema(inputs["openlineage.authors"]) or []) == [
        ("author_id", "integer"),
        ("author_name", "string"),
    ]


def test_a_query_over_several_tables_reads_each_without_a_schema(
    mode_spark: Any, auto: Captured, shop: Postgres
) -> None:
    _read(mode_spark, shop, query=WITH_MULTIPLE_TABLES).collect()
    [run] = _reads(mode_spark, auto)
    inputs = _inputs(run)
    assert sorted(inputs) == ["openlineage.authors", "openlineage.books"]
    assert all(_schema(dataset) is None for dataset in inputs.values())
    assert all(dataset["namespace"] == shop.namespace for dataset in inputs.values())


def test_a_join_in_dbtable_reads_both_tables(
    mode_spark: Any, auto: Captured, shop: Postgres
) -> None:
    dbtable = "authors a JOIN orders o ON a.author_id = o.order_author_id"
    _read(mode_spark, shop, dbtable=dbtable).collect()
    [run] = _reads(mode_spark, auto)
    assert sorted(_inputs(run)) == ["openlineage.authors", "openlineage.orders"]


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("query", "select * from authors"),
        ("query", "select author_id, author_name from authors"),
        ("dbtable", "authors"),
    ],
)
def test_column_lineage_from_a_jdbc_read_into_a_parquet_table(
    spark: Any, classic_auto: Captured, shop: Postgres, option: str, value: str
) -> None:
    table = f"spark_authors_{option}_{abs(hash(value)) % 1000}"
    try:
        _read(spark, shop, **{option: value}).write.format("parquet").saveAsTable(table)
        run = classic_auto.only_write()
        lineage = run.output_json()["facets"]["columnLineage"]["fields"]
        assert sorted(lineage) == ["author_id", "author_name"]
        [source] = lineage["author_id"]["inputFields"]
        assert (source["namespace"], source["name"], source["field"]) == (
            shop.namespace,
            "openlineage.authors",
            "author_id",
        )
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {table}")


def test_a_jdbc_read_ending_in_count_is_a_run_of_its_input_in_both_modes(
    mode_spark: Any, auto: Captured, shop: Postgres
) -> None:
    """The same input-only run, classic and under Connect, for an action over a JDBC read."""
    assert _read(mode_spark, shop, dbtable="books").count() == 3
    [run] = _reads(mode_spark, auto)
    assert run.types == ["START", "COMPLETE"]
    inputs = _inputs(run)
    assert list(inputs) == ["openlineage.books"]
    assert _schema(inputs["openlineage.books"]) == [
        ("author_id", "integer"),
        ("book_id", "integer"),
    ]


# ------------------------------------------------------------- ColumnLineageIntegrationTest


def _expected(name: str, warehouse: str) -> dict[str, Any]:
    """An expected file with the agent's Iceberg tables as this test's Parquet tables.

    The agent's test reads two Iceberg tables of a Hadoop catalog at ``/tmp/iceberg``; here
    they are Parquet tables of the session catalog, at the test's warehouse. The JDBC parts
    are compared as they are; the app's part of the job name is this driver's.
    """
    text = (EXPECTED / name).read_text()
    text = text.replace("/tmp/iceberg/default/", f"{warehouse}/")
    text = text.replace('"file:/tmp/iceberg"', json.dumps(f"file:{warehouse}"))
    expected: dict[str, Any] = json.loads(text)
    expected["job"]["name"] = expected["job"]["name"].replace(
        "iceberg_integration_test.", "openlineage_sdk_tests."
    )
    del expected["job"]["namespace"]
    return expected


def _event_json(event: Any) -> dict[str, Any]:
    data: dict[str, Any] = event.to_dict()
    return data


def test_the_agents_column_lineage_through_a_jdbc_query_and_a_jdbc_write(
    mode_spark: Any, auto: Captured, shop: Postgres, spark: Any
) -> None:
    """``columnLineageJDBCStart.json`` and ``columnLineageJDBCComplete.json``."""
    warehouse = str(spark.conf.get("spark.sql.warehouse.dir")).removeprefix("file:")
    url = shop.url.replace("/openlineage", "/test")
    options = {**shop.options(), "url": url}
    for number, rows in ((1, [(1, "va"), (2, "vc"), (3, "ve")]), (2, [(1, "vb"), (2, "vd")])):
        spark.sql(f"DROP TABLE IF EXISTS v2_source_{number}")
        frame = spark.createDataFrame(rows, f"k INT, v{number} STRING")
        frame.write.format("parquet").saveAsTable(f"v2_source_{number}")
    auto.clear()
    jdbc_query = (
        "select js1.k, CONCAT(js1.j1, js2.j2) as j from jdbc_source1 js1 "
        "join jdbc_source2 js2 on js1.k = js2.k"
    )
    frame = mode_spark.read.format("jdbc").options(**options).option("query", jdbc_query).load()
    frame.createOrReplaceTempView("jdbc_result")
    query = (
        "select v.k, concat(j, v) as value from jdbc_result j join (select vs1.k, "
        "concat(v1, v2) as v from v2_source_1 vs1 join v2_source_2 vs2 on vs1.k = vs2.k) v "
        "on j.k = v.k"
    )
    mode_spark.sql(query).write.format("jdbc").options(**options).option("dbtable", "test").mode(
        "append"
    ).save()
    run = auto.only_write()
    start, end = _event_json(run.start), _event_json(run.end)
    expected_start = _expected("columnLineageJDBCStart.json", warehouse)
    expected_end = _expected("columnLineageJDBCComplete.json", warehouse)
    assert matches(expected_start, start), json.dumps(start, indent=1)
    assert matches(expected_end, end), json.dumps(end, indent=1)
    for dataset in start["inputs"]:
        if dataset["name"].startswith("test.jdbc_source"):
            assert dataset["namespace"] == shop.namespace


def test_the_agents_single_input_jdbc_to_jdbc_overwrite(
    mode_spark: Any, auto: Captured, shop: Postgres
) -> None:
    """``columnLineageSingleInputComplete.json``: a JDBC table copied to another, overwritten."""
    options = {**shop.options(), "url": shop.url.replace("/openlineage", "/test")}
    read = (
        mode_spark.read.format("jdbc")
        .options(**options)
        .option("dbtable", "ol_clients")
        .load()
        .select("client_name", "client_category", "client_rating")
    )
    read.write.format("jdbc").options(**options).option("dbtable", "second_ol_clients").mode(
        "overwrite"
    ).save()
    run = auto.only_write()
    expected = _expected("columnLineageSingleInputComplete.json", "")
    end = _event_json(run.end)
    merged = copy.deepcopy(end)
    # The agent's COMPLETE carries the datasets again; the adapter's carries what is new (the
    # statistics) and the run holds the rest from its START: compare the run's datasets.
    merged["inputs"] = _event_json(run.start)["inputs"]
    merged["outputs"] = _event_json(run.start)["outputs"]
    assert matches(expected, merged), json.dumps(merged, indent=1)
    assert run.end.event_type == "COMPLETE"


# ----------------------------------------------------------------------- what stays true


def test_no_secret_reaches_an_event_or_a_log_line(
    mode_spark: Any, auto: Captured, shop: Postgres, memory: Any, caplog: Any
) -> None:
    caplog.set_level(logging.DEBUG, logger="openlineage_sdk")
    url = f"{shop.url}?user=openlineage&password={PASSWORD}"
    frame = mode_spark.read.format("jdbc").option("url", url).option("query", WITH_ONE_TABLE)
    frame.option("password", PASSWORD).load().collect()
    # A query the parser cannot read, with the password in the URL: its error is reported.
    broken = "SELECT a.author_id FROM authors a, ROWS FROM (generate_series(1, 3)) AS t(x)"
    mode_spark.read.format("jdbc").option("url", url).option("query", broken).load().collect()
    _reads(mode_spark, auto)
    runs = auto.runs()
    assert len(runs) == 2
    assert [i.name for i in runs[0].start.inputs or []] == ["openlineage.authors"]
    # The run is reported, with what could not be learned and why: never an exception.
    assert runs[1].end.event_type == "COMPLETE"
    facets = runs[1].end.run.facets
    errors = facets.extraction_error if facets is not None else None
    assert errors is not None
    assert any("SQL parser cannot read the JDBC query" in e["errorMessage"] for e in errors.errors)
    for text in memory.json_events:
        assert PASSWORD not in text
    assert all(PASSWORD not in record.getMessage() for record in caplog.records)


def test_the_database_sees_the_same_statements_with_the_adapter_as_without(
    mode_spark: Any, client: Any, shop: Postgres, data_dir: Path
) -> None:
    """Nothing the adapter does sends a statement to the database (a read, a count, a write).

    Every statement counts, the driver's session set-up too: the adapter opens no connection.
    On a 4.0 Connect server, fewer (``assert_same_statements``).
    """
    from openlineage_sdk.spark import install, uninstall

    target = str(data_dir / "authors")

    def statements(work: Any) -> list[str]:
        before = len(shop.statements())
        work()
        found = shop.statements()[before:]
        # The driver's session set-up is per connection, and Spark opens connections per task.
        return sorted(re.sub(r"SPARK_GEN_SUBQ_\d+", "SPARK_GEN_SUBQ", s) for s in found)

    def work() -> None:
        frame = _read(mode_spark, shop, query=WITH_MULTIPLE_TABLES)
        frame.count()
        frame.collect()
        _read(mode_spark, shop, dbtable="authors").write.mode("overwrite").parquet(target)

    without = statements(work)
    install(mode_spark, client)
    try:
        with_adapter = statements(work)
    finally:
        uninstall(mode_spark)
    assert_same_statements(mode_spark, with_adapter, without)
    assert any("FROM authors" in s for s in without)


def test_under_connect_a_filtered_jdbc_read_takes_its_schema_from_the_written_frame(
    spark_connect: Any, client: Any, memory: Any, shop: Postgres, data_dir: Path
) -> None:
    """A JDBC read whose columns reach the write unchanged (a filter, a sort) needs no schema
    request of its own in front of the write: the frame's schema is the read's. A read whose
    columns change on the way (a projection) is still asked for its own, and the inputs' schema
    facets are the relation's either way."""
    from unittest import mock

    from pyspark.sql.connect.client.core import SparkConnectClient

    from openlineage_sdk.spark import install, uninstall

    analysed: list[str] = []
    original = SparkConnectClient._analyze

    def counting(self: Any, method: str, **kwargs: Any) -> Any:
        analysed.append(method)
        return original(self, method, **kwargs)

    authors = [("author_id", "integer"), ("author_name", "string")]
    install(spark_connect, client)
    try:
        with mock.patch.object(SparkConnectClient, "_analyze", counting):
            frame = _read(spark_connect, shop, dbtable="authors")
            frame.where("author_id > 1").orderBy("author_id").write.mode("overwrite").parquet(
                str(data_dir / "kept")
            )
            kept = list(analysed)
            analysed.clear()
            frame.select("author_name").write.mode("overwrite").parquet(str(data_dir / "cut"))
            cut = list(analysed)
    finally:
        uninstall(spark_connect)
    # And one explanation each, for column lineage: of the plan with the JDBC read as an empty
    # relation of its schema, which the server plans with no connection of its own.
    assert kept == ["schema", "explain"]
    assert cut == ["schema", "schema", "explain"]
    runs = Captured(memory).write_runs()
    assert [_schema(_inputs(run)["openlineage.authors"]) for run in runs] == [authors, authors]


# -------------------------------------------------------------------------------- Derby


def test_derby_tables_are_named_under_the_derby_home(
    mode_spark: Any, auto: Captured, spark_root: Path
) -> None:
    """The embedded Derby (inside the PySpark JARs): written, then read with a query."""
    url = "jdbc:derby:memory:shop;create=true"
    name = f"ORDERS_{type(mode_spark).__module__.count('connect')}"
    mode_spark.range(3).selectExpr("id", "id * 2 AS total").write.jdbc(url, f"APP.{name}")
    mode_spark.read.format("jdbc").option("url", url).option(
        "query", f'SELECT "id" FROM APP.{name} WHERE "total" > 1'
    ).load().collect()
    write = auto.only_write()
    namespace = f"file:{spark_root / 'derby' / 'metastore_db'}"
    output = write.output_json()
    assert (output["namespace"], output["name"]) == (namespace, f"APP.{name}")
    assert output["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "CREATE"
    [read] = _reads(mode_spark, auto)
    [dataset] = read.start.inputs or []
    assert (dataset.namespace, dataset.name) == (namespace, f"APP.{name}")


# ---------------------------------------------------------------------- v2 JDBC catalog


def test_a_table_of_a_jdbc_catalog_has_the_catalog_facet(
    mode_spark: Any, auto: Captured, shop: Postgres
) -> None:
    conf = mode_spark.conf
    conf.set(
        "spark.sql.catalog.pg",
        "org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTableCatalog",
    )
    conf.set("spark.sql.catalog.pg.url", shop.url)
    conf.set("spark.sql.catalog.pg.user", "openlineage")
    conf.set("spark.sql.catalog.pg.password", PASSWORD)
    mode_spark.table("pg.public.authors").collect()
    [run] = _reads(mode_spark, auto)
    [dataset] = [i.to_dict() for i in run.start.inputs or []]
    assert (dataset["namespace"], dataset["name"]) == (shop.namespace, "openlineage.public.authors")
    catalog = dataset["facets"]["catalog"]
    assert (catalog["framework"], catalog["type"], catalog["name"], catalog["source"]) == (
        "jdbc",
        "jdbc",
        "pg",
        "spark",
    )
    assert catalog["metadataUri"] == shop.url
