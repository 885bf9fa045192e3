"""The statements of the JVM agent's PySpark container tests, performed with the adapter on.

Each scenario performs what one of the agent's test scripts does (same app name, tables,
statements and paths), with every path under a private root, on a SparkContext of its own with
the confs ``tests/data/jvm-spark/cases.json`` gives: its own app name, warehouse, catalog (Hive
or in-memory) and metastore, all under its root. Run as::

    python -m tests.spark.jvm_scenarios SCRIPT ROOT EVENTS_FILE [MASTER [MODE]]
    python -m tests.spark.jvm_scenarios --plan PLAN_FILE

The first form performs one script (``MASTER``: the Spark master URL, ``local[1]`` by default;
``MODE``: ``classic``, or ``connect`` to run the statements through a Spark Connect client of
the driver), writes every event the adapter emits to ``EVENTS_FILE`` (JSON Lines), in the
namespace the agent's test gives its events, and prints what the script prints.

The second performs several, one after another in this one process, so that they share one
driver JVM (starting a JVM, and warming it, is most of what a scenario costs): ``PLAN_FILE`` is a
JSON list of ``{"script", "root", "events", "master", "mode"}``. Each still gets a SparkContext of
its own, stopped before the next starts, because what sets a scenario apart cannot change on a
running one (``spark.sql.warehouse.dir`` and ``spark.sql.catalogImplementation`` are static,
and the metastore is created with its warehouse). What a scenario prints goes to
``ROOT/stdout.txt``; a scenario that fails writes its traceback to ``ROOT/error.txt``, and the
next one still runs.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CASES = Path(__file__).resolve().parent.parent / "data" / "jvm-spark" / "cases.json"


class Scenario:
    """One script's app name, session settings and statements."""

    def __init__(
        self,
        app: str | None,
        run: Callable[[Any, Callable[[str], str]], None],
        *,
        warehouse: str | None = None,
        hive: bool = True,
        confs: tuple[str, ...] = (),
    ) -> None:
        self.app = app
        self.run = run
        self.warehouse = warehouse
        self.hive = hive
        self.confs = confs  # the script's own session settings (``key=value``)


def _hive(spark: Any, p: Callable[[str], str]) -> None:
    spark.sql("CREATE TABLE IF NOT EXISTS test (key INT, value STRING) USING hive")
    spark.sql("CREATE TABLE IF NOT EXISTS target (key INT, value STRING) USING hive")
    spark.sql("INSERT INTO test VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    spark.sql("INSERT INTO target SELECT * from test WHERE key > 1")


def _hadoop_fs(spark: Any, p: Callable[[str], str]) -> None:
    spark.sql("CREATE TABLE IF NOT EXISTS test (key INT, value STRING) USING parquet")
    spark.sql("CREATE TABLE IF NOT EXISTS target (key INT, value STRING) USING parquet")
    spark.sql("INSERT INTO test VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    spark.sql("INSERT INTO target SELECT * from test WHERE key > 1")


def _hive_catalog(spark: Any, p: Callable[[str], str]) -> None:
    spark.sql("CREATE TABLE IF NOT EXISTS test (key INT, value STRING) USING hive")


def _overwrite_hive(spark: Any, p: Callable[[str], str]) -> None:
    spark.sql("CREATE TABLE IF NOT EXISTS test (key INT, value STRING) USING hive")
    spark.sql(
        f"INSERT OVERWRITE DIRECTORY '{p('/tmp/overwrite/table')}' USING hive "
        "VALUES (1, 'a'), (2, 'b'), (3, 'c')"
    )
    spark.sql("SELECT count(*) from test")


def _two_row_table(spark: Any) -> None:
    rows = spark.createDataFrame([{"a": 1, "b": 2}, {"a": 3, "b": 4}])
    rows.write.option("compression", "none").saveAsTable("temp")


def _ctas_load(spark: Any, p: Callable[[str], str]) -> None:
    _two_row_table(spark)
    spark.sql(
        f"CREATE TABLE tbl1 USING hive LOCATION '{p('/tmp/ctas_load/tbl1')}' "
        "AS SELECT a, b FROM temp"
    )
    csv = Path(p("/test_data/test_data.csv"))
    csv.parent.mkdir(parents=True, exist_ok=True)
    csv.write_text("1,2\n3,4\n")
    spark.sql(f"LOAD DATA LOCAL INPATH '{csv}' INTO TABLE tbl1")


def _octas_load(spark: Any, p: Callable[[str], str]) -> None:
    _two_row_table(spark)
    spark.sql(
        f"CREATE TABLE tbl2 STORED AS PARQUET LOCATION '{p('/tmp/ctas_load/tbl2')}' "
        "AS SELECT a, b FROM temp"
    )


def _cached(spark: Any, p: Callable[[str], str]) -> None:
    _two_row_table(spark)
    cached = spark.read.table("temp").cache()
    cached.count()
    cached.select("a").write.option("compression", "none").saveAsTable("target")


def _create_table(spark: Any, p: Callable[[str], str]) -> None:
    spark.sql("CREATE TABLE create_table_test (a string, b string)")


def _drop_table(spark: Any, p: Callable[[str], str]) -> None:
    spark.sql("CREATE TABLE drop_table_test (a string, b string)")
    spark.sql("DROP TABLE drop_table_test")


def _truncate_table(spark: Any, p: Callable[[str], str]) -> None:
    spark.sql("CREATE TABLE truncate_table_test (a string, b string)")
    spark.sql("TRUNCATE TABLE truncate_table_test")


def _alter_table(spark: Any, p: Callable[[str], str]) -> None:
    spark.sql("CREATE TABLE alter_table_test (a string, b string)")
    spark.sql("ALTER TABLE alter_table_test ADD COLUMNS (c string, d string)")
    spark.sql("ALTER TABLE alter_table_test RENAME TO alter_table_test_new")


def _emit_metrics(spark: Any, p: Callable[[str], str]) -> None:
    spark.sql("CREATE TABLE create_table_emit_test (a string, b string)")


def _cll(spark: Any, p: Callable[[str], str]) -> None:
    spark.sql("CREATE TABLE cll_source1 (a int, b string)")
    spark.sql("CREATE TABLE cll_source2 (a int, c int)")
    spark.sql(
        f"CREATE TABLE tbl1 USING hive LOCATION '{p('/tmp/cll_test/tbl1')}' AS SELECT "
        "t1.a as ident, CONCAT(b, 'test') as trans, SUM(c) as agg "
        "FROM (SELECT a, c from cll_source2 where a > 1) t2 "
        "JOIN cll_source1 t1 on t1.a = t2.a GROUP BY t1.a, b"
    )


def _failures(spark: Any, p: Callable[[str], str]) -> None:
    spark.sql("CREATE TABLE failure_test (a string)")
    spark.sql("INSERT INTO failure_test VALUES ('something')")
    if spark.read.table("failure_test").count() > 0:
        print("Spark is fine!")


def _word_count(spark: Any, p: Callable[[str], str]) -> None:
    text = Path(p("/test_data/data.txt"))
    text.parent.mkdir(parents=True, exist_ok=True)
    text.write_text("the quick brown fox\njumps over\nthe lazy dog\nthe quick brown fox\n")
    counts = spark.read.text(str(text)).groupBy("value").count()
    counts.write.mode("overwrite").csv(p("/tmp/test_data/test_output/"))


def _rdd_to_table(spark: Any, p: Callable[[str], str]) -> None:
    from pyspark.sql.types import IntegerType, StringType, StructField, StructType

    things = [(f"word{i} other{i}", i % 100 + 1) for i in range(100)]
    rdd = spark.sparkContext.parallelize(things)
    rdd.setName("list of random words and numbers")
    csv_dir = p("/tmp/test_data/rdd_to_csv_output/")
    rdd.map(lambda x: ",".join(str(i) for i in x)).saveAsTextFile(csv_dir)
    schema = StructType(
        [StructField("name", StringType(), False), StructField("age", IntegerType(), False)]
    )
    spark.read.option("header", False).schema(schema).csv(csv_dir).createOrReplaceTempView(
        "test_people"
    )
    spark.sql("SELECT * FROM test_people WHERE age > 20 AND age < 65").write.mode(
        "overwrite"
    ).option("compression", "none").parquet(p("/tmp/test_data/rdd_to_table/"))


def _fake_map(line: str) -> str:
    return line


def _single_input_rdd(spark: Any, p: Callable[[str], str]) -> None:
    input_dir = Path(p("/tmp/rdd_input"))
    input_dir.mkdir(parents=True, exist_ok=True)
    lines = [
        "hello world",
        "hello pyspark rdd",
        "spark rdd transforms are fun",
        "hello again world",
    ]
    (input_dir / "sample.txt").write_text("\n".join(lines), encoding="utf-8")
    Path(p("/tmp/rdd_output")).mkdir(parents=True, exist_ok=True)  # a partitioned location
    spark.sparkContext.textFile(p("/tmp/rdd_input")).map(_fake_map).saveAsTextFile(
        p("/tmp/rdd_output/20251030")
    )


def _rdd_with_parquet(spark: Any, p: Callable[[str], str]) -> None:
    df = spark.createDataFrame([{"a": "x", "b": "z"}, {"a": "y", "b": "z"}])
    df.write.option("compression", "none").parquet(p("/tmp/rdd_a"))
    df.write.option("compression", "none").parquet(p("/tmp/rdd_b"))
    rdd_a = spark.read.parquet(p("/tmp/rdd_a")).rdd
    rdd_b = spark.read.parquet(p("/tmp/rdd_b")).rdd
    Path(p("/tmp/rdd_c/20251030")).mkdir(parents=True, exist_ok=True)  # a partitioned location
    rdd_a.union(rdd_b).map(lambda x: (x["a"] + x["b"],)).toDF().write.mode("overwrite").parquet(
        p("/tmp/rdd_c/20251030")
    )


SCENARIOS: dict[str, Scenario] = {
    "spark_single_input_rdd.py": Scenario(
        "Open Lineage Integration single input RDD with input statistics",
        _single_input_rdd,
        hive=False,
    ),
    "spark_rdd_with_parquet.py": Scenario(
        "Open Lineage Integration RDD with Parquet", _rdd_with_parquet, hive=False
    ),
    "spark_word_count.py": Scenario("Open Lineage Integration Word Count", _word_count, hive=False),
    "spark_rdd_to_table.py": Scenario("Spark rdd to table", _rdd_to_table, hive=False),
    "spark_hive.py": Scenario("Open Lineage Integration Hive", _hive),
    "spark_facets_disable.py": Scenario(
        "Open Lineage Integration Hive",
        _hive,
        confs=(
            "spark.openlineage.facets.spark_unknown.disabled=true",
            "spark.openlineage.facets.spark.logicalPlan.disabled=true",
            "spark.openlineage.facets.dataSource.disabled=true",
        ),
    ),
    # A metastore URI that names no reachable host: Spark's local catalog still serves the
    # session (the key is the JVM agent's, not Hive's), and the symlink names the metastore.
    "spark_hive_catalog.py": Scenario(
        "Open Lineage Integration Hive",
        _hive_catalog,
        confs=(
            "spark.sql.catalogImplementation=hive",
            "spark.sql.hive.metastore.uris=http://metastore",
        ),
    ),
    "spark_hadoop_fs_relation.py": Scenario(
        "Open Lineage Integration HadoopFS relation", _hadoop_fs
    ),
    "overwrite_appname.py": Scenario(None, _hive),
    "spark_overwrite_hive.py": Scenario(
        "Open Lineage Integration Overwrite Hive", _overwrite_hive, warehouse="/tmp/overwrite"
    ),
    "spark_ctas_load.py": Scenario(
        "Open Lineage Integration CTAS Load", _ctas_load, warehouse="/tmp/ctas_load"
    ),
    "spark_cached.py": Scenario(
        "Open Lineage In Memory Relation", _cached, warehouse="/tmp/caching"
    ),
    "spark_create_table.py": Scenario(
        "Open Lineage Integration Create Table", _create_table, warehouse="/tmp/create_test"
    ),
    "spark_drop_table.py": Scenario(
        "Open Lineage Integration Drop Table", _drop_table, warehouse="/tmp/drop_test"
    ),
    "spark_truncate_table.py": Scenario(
        "Open Lineage Integration Truncate Table", _truncate_table, warehouse="/tmp/truncate_test"
    ),
    "spark_octas_load.py": Scenario(
        "Open Lineage Integration OCTAS Load", _octas_load, warehouse="/tmp/ctas_load"
    ),
    "spark_cll.py": Scenario(
        "Open Lineage Integration Create Table", _cll, warehouse="/tmp/cll_test"
    ),
    "spark_alter_table.py": Scenario(
        "Open Lineage Integration Alter Table", _alter_table, warehouse="/tmp/alter_test"
    ),
    "spark_emit_metrics.py": Scenario(
        "Open Lineage Integration Emit Metrics", _emit_metrics, warehouse="/tmp/emit_test"
    ),
    "spark_test_failures.py": Scenario(
        "Open Lineage Integration Failure Test", _failures, warehouse="/tmp/failure_test"
    ),
}


# The column lineage confs the agent's container tests give every script (SparkContainerUtils),
# which its expected files were written with: indirect lineage in each field, and descriptions
# (classic sessions; under Spark Connect the adapter refuses it, logged, and writes none).
AGENT_TEST_CONFS = (
    "spark.openlineage.columnLineage.datasetLineageEnabled=false",
    "spark.openlineage.columnLineage.descriptionsEnabled=true",
)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Performance:
    """One scenario to perform: where its files go, on which master, in which mode."""

    script: str
    root: str
    events: str
    master: str = "local[1]"
    mode: str = "classic"


def perform(job: Performance) -> None:
    """Perform one scenario on a SparkContext of its own, stopped at the end."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    from openlineage_sdk.client import OpenLineage
    from openlineage_sdk.spark import install, uninstall
    from openlineage_sdk.transports.file import FileTransport

    cases = json.loads(CASES.read_text())
    case = next(c for c in cases["cases"] if c["script"] == job.script)
    scenario = SCENARIOS[job.script]
    root = job.root

    def p(path: str) -> str:
        return root + path

    # The JVM is started bare, before any SparkContext: PySpark passes the first context's confs
    # to the JVM it starts as system properties, which every later SparkConf reads as defaults,
    # so one scenario's confs would leak into the next one's.
    SparkContext._ensure_initialized()
    builder = SparkSession.builder.master(job.master)
    confs = [c.replace("{root}", root) for c in cases["default_confs"]]
    for conf in [*confs, *AGENT_TEST_CONFS, *case["confs"], *scenario.confs]:
        key, value = conf.split("=", 1)
        builder = builder.config(key, value)
    # The default confs place the metastore by a JVM option (derby.system.home), which only a
    # starting JVM reads: the metastore is given the same folder itself.
    builder = builder.config(
        "spark.hadoop.javax.jdo.option.ConnectionURL",
        f"jdbc:derby:;databaseName={p('/tmp/derby/metastore_db')};create=true",
    )
    if scenario.app is not None:
        builder = builder.appName(scenario.app)
    if scenario.warehouse is not None:
        builder = builder.config("spark.sql.warehouse.dir", p(scenario.warehouse))
    if scenario.hive:
        builder = builder.enableHiveSupport()
    else:
        builder = builder.config("spark.sql.catalogImplementation", "in-memory")
    port = _free_port()
    if job.mode == "connect":
        # The driver serves Spark Connect; the scenario runs through a Connect client of it.
        builder = (
            builder.config("spark.plugins", "org.apache.spark.sql.connect.SparkConnectPlugin")
            .config("spark.connect.grpc.binding.address", "127.0.0.1")
            .config("spark.connect.grpc.binding.port", str(port))
        )
    Path(p("/tmp")).mkdir(parents=True, exist_ok=True)
    driver = builder.getOrCreate()
    try:
        driver.sparkContext.setLogLevel("ERROR")
        spark: Any = driver
        if job.mode == "connect":
            from pyspark.sql.connect.session import SparkSession as ConnectSession

            spark = ConnectSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
        try:
            client = OpenLineage(
                transport=FileTransport(job.events), namespace=case["job_namespace"]
            )
            install(spark, client)
            try:
                scenario.run(spark, p)
            finally:
                uninstall(spark)
                client.close()
        finally:
            if spark is not driver:
                spark.stop()
    finally:
        driver.stop()


def perform_all(plan: list[Performance]) -> int:
    """Perform each scenario in turn, in this process; how many failed."""
    failed = 0
    for job in plan:
        out = Path(job.root) / "stdout.txt"
        printed = io.StringIO()
        started = time.monotonic()
        try:
            with contextlib.redirect_stdout(printed):
                perform(job)
        except Exception:  # written where the scenario's test reads it; the next one runs
            failed += 1
            (Path(job.root) / "error.txt").write_text(traceback.format_exc())
        out.write_text(printed.getvalue())
        took = time.monotonic() - started
        print(f"{job.script} ({job.mode}): {took:.1f} s", file=sys.stderr, flush=True)
    return failed


def main(argv: list[str]) -> int:
    if argv[0] == "--plan":
        plan = [Performance(**entry) for entry in json.loads(Path(argv[1]).read_text())]
        return 1 if perform_all(plan) else 0
    perform(Performance(*argv[:5]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
