"""The demo pipeline: a small orders ETL on local Spark, with lineage on.

    python -m openlineage_sdk.spark.demo [--workdir DIR] [--connect]

What it does, all on this machine (Python and Java 17; no server):

1. Generates sample data as a source system would drop it: ``raw/customers.csv`` and
   ``raw/orders.csv``, and new orders as JSON files in ``raw/landing`` (plain Python, no
   Spark).
2. Starts a local Spark session (with ``--connect``, a local Spark Connect server and a Connect
   client session of it) and installs the lineage adapter in automatic mode, inside the
   application's own run.
3. Runs its steps, each one write (or statement, or stream) and so one run, a child of the
   application's run:

   * ``orders_clean``: valid orders with their date, to Parquet files;
   * ``daily_revenue``: orders joined with customers, revenue per day and country, to Parquet;
   * ``analytics.customer_value``: each customer's orders, spend and rank in their country, to a
     catalog table in a local warehouse;
   * ``analytics.top_customers``, in SQL through ``spark.sql``: ``CREATE TABLE ... AS SELECT``
     of the top three customers of each country, then ``ALTER TABLE ... ADD COLUMNS`` (DDL, a
     run with the ``ALTER`` lifecycle state and the schema after the change). In classic
     PySpark each statement is a run of its own.
   * ``bronze/orders_stream``: a Structured Streaming query that ingests the orders the shop
     drops as JSON files into a landing folder, to Parquet, with an ``availableNow`` trigger
     (it reads what is there, then stops): one run, reading the landing folder and writing
     the bronze one, with the rows it read and wrote.

4. Prints a summary of the events (jobs, runs, states, datasets, row counts, schemas) and writes
   a self-contained HTML lineage graph. Events are in ``openlineage_events.jsonl`` (JSON Lines),
   in the working folder.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import random
import shutil
import socket
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

__all__ = ["DemoResult", "main", "run_demo"]

APP_NAME = "orders_etl"
NAMESPACE = "demo"

# What the demo writes in its working folder; only these are removed before a new run.
_OUTPUTS = (
    "raw",
    "lake",
    "warehouse",
    "spark",
    "openlineage_events.jsonl",
    "lineage.html",
    "log4j2.properties",
)

_COUNTRIES = ("DE", "FR", "NL", "PL", "SE", "ES", "IT", "US")
_STATUSES = ("delivered",) * 8 + ("shipped", "cancelled")

ORDERS_SCHEMA = (
    "order_id BIGINT, customer_id INT, ordered_at TIMESTAMP, status STRING, "
    "amount DECIMAL(10,2), currency STRING"
)
CUSTOMERS_SCHEMA = "customer_id INT, name STRING, email STRING, country STRING, signup_date DATE"

# Spark's own logging: errors only, to the console. Without a file of its own, Spark prints its
# default profile's banner and warnings at start. PySpark's gateway takes the level of its own
# logger as the default and announces it when it differs from the root's, so both are ERROR.
_LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
logger.gateway.name = org.apache.spark.api.python.PythonGatewayServer
logger.gateway.level = error
# A local Spark Connect server logs the errors it returns to its client (the client raises them)
# and, while it shuts down, the client's release of a session it already closed.
logger.connect.name = org.apache.spark.sql.connect.utils.ErrorUtils
logger.connect.level = off
"""


@dataclass(frozen=True)
class DemoResult:
    """Where the demo left its results."""

    workdir: Path
    events: Path
    html: Path
    summary: str


def generate_sources(raw: Path, customers: int, orders: int, seed: int = 7) -> tuple[Path, Path]:
    """Write ``customers.csv`` and ``orders.csv`` under ``raw``: deterministic sample data."""
    rng = random.Random(seed)
    raw.mkdir(parents=True, exist_ok=True)
    customers_csv, orders_csv = raw / "customers.csv", raw / "orders.csv"
    first = ("Ada", "Ben", "Chloe", "Dev", "Ella", "Finn", "Greta", "Hugo", "Ines", "Jon")
    last = ("Meyer", "Dubois", "Visser", "Nowak", "Berg", "Garcia", "Rossi", "Smith")
    start = datetime(2024, 1, 1)
    with customers_csv.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["customer_id", "name", "email", "country", "signup_date"])
        for customer in range(1, customers + 1):
            name = f"{rng.choice(first)} {rng.choice(last)}"
            email = f"{name.lower().replace(' ', '.')}.{customer}@example.com"
            signup = (start - timedelta(days=rng.randrange(0, 900))).date().isoformat()
            writer.writerow([customer, name, email, rng.choice(_COUNTRIES), signup])
    with orders_csv.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["order_id", "customer_id", "ordered_at", "status", "amount", "currency"])
        for order in range(1, orders + 1):
            at = start + timedelta(seconds=rng.randrange(0, 90 * 24 * 3600))
            writer.writerow(
                [
                    order,
                    rng.randrange(1, customers + 1),
                    at.isoformat(sep=" "),
                    rng.choice(_STATUSES),
                    f"{rng.uniform(3, 400):.2f}",
                    "EUR",
                ]
            )
    return customers_csv, orders_csv


def generate_landing(landing: Path, files: int, orders: int, seed: int = 11) -> Path:
    """Write ``files`` JSON files of new orders into ``landing``, as a shop drops them."""
    rng = random.Random(seed)
    landing.mkdir(parents=True, exist_ok=True)
    start = datetime(2024, 4, 1)
    for index in range(files):
        with (landing / f"orders-{index:03d}.json").open("w", encoding="utf-8") as handle:
            for row in range(orders):
                order = 1_000_000 + index * orders + row
                at = start + timedelta(minutes=order % 50_000)
                record = {
                    "order_id": order,
                    "customer_id": rng.randrange(1, 200),
                    "ordered_at": at.isoformat(sep=" "),
                    "status": rng.choice(_STATUSES),
                    "amount": round(rng.uniform(3, 400), 2),
                    "currency": "EUR",
                }
                handle.write(json.dumps(record) + "\n")
    return landing


def start_spark(workdir: Path, *, connect: bool = False) -> Any:
    """A quiet local Spark session whose warehouse and scratch space live in ``workdir``.

    With ``connect``, a local Spark Connect server is started (a Spark driver in this process
    serving gRPC on a free loopback port, so that it never meets another server on Spark's
    default port) and a Connect client session of it is returned: the pipeline then works as a
    Connect client does, with no JVM of its own in reach. :func:`stop_spark` stops both.

    Raises:
        RuntimeError: a Spark driver already runs in this process. The demo needs one of its
            own (its warehouse and settings), and stopping it at the end would stop the
            caller's: run the demo in a process of its own (``python -m
            openlineage_sdk.spark.demo``).
    """
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    running = SparkContext._active_spark_context
    if running is not None:
        raise RuntimeError(
            f"the demo starts a Spark driver of its own, and one already runs in this process "
            f"(application {running.appName!r}); run the demo in a process of its own: "
            f"python -m openlineage_sdk.spark.demo"
        )

    # Local mode on loopback: no warning about the host name resolving to a loopback address.
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    log4j = workdir / "log4j2.properties"
    log4j.write_text(_LOG4J2, encoding="utf-8")
    scratch = workdir / "spark"
    java_options = (
        f"-Dlog4j2.configurationFile={log4j.resolve().as_uri()} "
        f"-Dderby.system.home={scratch.resolve() / 'derby'}"
    )
    builder = (
        SparkSession.builder.master("local[2]")
        .appName(APP_NAME)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", str((workdir / "warehouse").resolve()))
        .config("spark.local.dir", str(scratch.resolve() / "tmp"))
        .config("spark.driver.extraJavaOptions", java_options)
    )
    if not connect:
        return builder.getOrCreate()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    server = (
        builder.config("spark.plugins", "org.apache.spark.sql.connect.SparkConnectPlugin")
        .config("spark.connect.grpc.binding.address", "127.0.0.1")
        .config("spark.connect.grpc.binding.port", str(port))
        .getOrCreate()
    )
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    _servers.append(server)
    # As PySpark's own local Connect mode does: the generic functions (pyspark.sql.functions)
    # build Connect columns from now on, not classic ones for the server's session.
    os.environ["SPARK_CONNECT_MODE_ENABLED"] = "1"
    return ConnectSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()


_servers: list[Any] = []  # the local Connect servers start_spark started


def stop_spark(spark: Any) -> None:
    """Stop a session :func:`start_spark` made, and the local Connect server it started."""
    try:
        spark.stop()
    finally:
        while _servers:
            _servers.pop().stop()
        os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)


def run_pipeline(spark: Any, raw: Path, lake: Path) -> None:
    """The ETL itself: plain PySpark, nothing about lineage in it."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F  # noqa: N812 - the usual PySpark spelling

    customers = spark.read.csv(str(raw / "customers.csv"), header=True, schema=CUSTOMERS_SCHEMA)
    orders = spark.read.csv(str(raw / "orders.csv"), header=True, schema=ORDERS_SCHEMA)

    # 1. Clean: keep real orders, derive the order date.
    clean = (
        orders.where((F.col("status") != "cancelled") & (F.col("amount") > 0))
        .withColumn("order_date", F.to_date("ordered_at"))
        .select("order_id", "customer_id", "order_date", "status", "amount", "currency")
    )
    clean.write.mode("overwrite").parquet(str(lake / "staging" / "orders_clean"))

    # 2. Revenue per day and country.
    staged = spark.read.parquet(str(lake / "staging" / "orders_clean"))
    enriched = staged.join(customers, "customer_id")
    daily = (
        enriched.groupBy("order_date", "country")
        .agg(
            F.sum("amount").alias("revenue"),
            F.count("*").alias("orders"),
            F.countDistinct("customer_id").alias("customers"),
        )
        .orderBy("order_date", "country")
    )
    daily.write.mode("overwrite").parquet(str(lake / "marts" / "daily_revenue"))

    # 3. Customer value, ranked within each country, as a catalog table.
    by_country = Window.partitionBy("country").orderBy(F.col("total_spent").desc())
    value = (
        enriched.groupBy("customer_id", "name", "email", "country")
        .agg(
            F.count("*").alias("orders"),
            F.sum("amount").alias("total_spent"),
            F.min("order_date").alias("first_order"),
            F.max("order_date").alias("last_order"),
        )
        .withColumn("rank_in_country", F.rank().over(by_country))
        # Analysts get a key to join on, not the address itself.
        .withColumn("email_hash", F.sha2(F.col("email"), 256))
        .drop("email")
    )
    spark.sql("CREATE DATABASE IF NOT EXISTS analytics")
    value.write.mode("overwrite").saveAsTable("analytics.customer_value")

    # 4. SQL: each country's top customers, as a table, then a column added for the sales team.
    spark.sql(
        "CREATE TABLE analytics.top_customers USING parquet AS "
        "SELECT country, customer_id, name, total_spent FROM analytics.customer_value "
        "WHERE rank_in_country <= 3"
    )
    spark.sql("ALTER TABLE analytics.top_customers ADD COLUMNS (account_manager STRING)")

    # 5. Streaming: the orders dropped in the landing folder since, ingested to the bronze layer
    # as they arrive; availableNow reads what is there now and stops.
    ingest = (
        spark.readStream.schema(ORDERS_SCHEMA)
        .option("maxFilesPerTrigger", 2)
        .json(str(raw / "landing"))
        .where(F.col("amount") > 0)
        .writeStream.format("parquet")
        .option("checkpointLocation", str(lake / "_checkpoints" / "orders_stream"))
        .trigger(availableNow=True)
        .start(str(lake / "bronze" / "orders_stream"))
    )
    ingest.awaitTermination()


def run_demo(
    workdir: Path,
    *,
    connect: bool = False,
    customers: int = 2_000,
    orders: int = 100_000,
    out: Any = None,
) -> DemoResult:
    """Run the whole demo in ``workdir``; print progress and the summary to ``out``.

    Args:
        workdir: The working folder; the demo's earlier results in it are replaced.
        connect: Run the pipeline through a local Spark Connect server.
        customers: How many customers to generate.
        orders: How many orders to generate.
        out: Where to print (``sys.stdout`` when ``None``).

    Returns:
        Where the events, the HTML graph and the summary are.
    """
    from openlineage_sdk.client import OpenLineage
    from openlineage_sdk.report import build_graph, lineage_html, load_events, summary
    from openlineage_sdk.spark import application_run, install, uninstall
    from openlineage_sdk.transports import FileTransport

    stream = out if out is not None else sys.stdout

    def say(text: str) -> None:
        print(text, file=stream, flush=True)

    began = time.perf_counter()
    # Absolute paths: a Spark Connect server resolves relative ones against its own working
    # folder, which a client cannot know (the adapter leaves such datasets out).
    workdir = workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    for name in _OUTPUTS:
        target = workdir / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    raw, lake = workdir / "raw", workdir / "lake"
    events_path = workdir / "openlineage_events.jsonl"
    html_path = workdir / "lineage.html"

    say(f"Generating {customers:,} customers and {orders:,} orders in {raw} ...")
    generate_sources(raw, customers, orders)
    generate_landing(raw / "landing", files=6, orders=max(orders // 100, 10))

    say("Starting Spark (local mode" + (", through Spark Connect" if connect else "") + ") ...")
    spark = start_spark(workdir, connect=connect)
    try:
        client = OpenLineage(transport=FileTransport(events_path), namespace=NAMESPACE)
        install(spark, client)
        try:
            say("Running the pipeline with lineage on ...")
            with application_run(spark, client):
                run_pipeline(spark, raw, lake)
        finally:
            uninstall(spark)
            client.close()
    finally:
        stop_spark(spark)

    graph = build_graph(load_events(events_path))
    report = summary(graph)
    html: str | None = None
    with contextlib.suppress(ModuleNotFoundError):  # igraph lays the graph out: [report]
        html = lineage_html(graph, title=f"{APP_NAME} lineage")
    if html is not None:
        html_path.write_text(html, encoding="utf-8")
    say("")
    say(report)
    say("")
    say(f"Events (JSON Lines): {events_path.resolve()}")
    if html is None:
        say("Lineage graph:       not drawn: pip install 'openlineage-sdk[report]' to draw it")
    else:
        say(f"Lineage graph:       {html_path.resolve()}  (open it in a browser)")
    say(f"Done in {time.perf_counter() - began:.0f} s.")
    return DemoResult(workdir, events_path, html_path, report)


def main(argv: list[str] | None = None) -> int:
    """Command line entry: ``python -m openlineage_sdk.spark.demo``."""
    parser = argparse.ArgumentParser(
        prog="python -m openlineage_sdk.spark.demo",
        description="A small orders ETL on local Spark with OpenLineage lineage on.",
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=Path("openlineage-demo"),
        help="working folder for data, warehouse, events and the HTML graph "
        "(default: ./openlineage-demo)",
    )
    parser.add_argument(
        "--connect",
        action="store_true",
        help="run the pipeline through a local Spark Connect server",
    )
    parser.add_argument("--orders", type=int, default=100_000, help="orders to generate")
    parser.add_argument("--customers", type=int, default=2_000, help="customers to generate")
    options = parser.parse_args(argv)
    run_demo(
        options.workdir,
        connect=options.connect,
        customers=options.customers,
        orders=options.orders,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
