"""What lineage costs a Spark write: the adapter against a plain write and the naive way.

    python -m benchmarks.spark [--rows 5000000] [--repeat 5] [--mode classic|connect|both]
                               [--sql-only]

It first writes ``--rows`` orders as Parquet; each round then reads them, filters, derives two
columns and writes the result to Parquet three ways, in an order that rotates from round to
round so no variant always runs first on a warm JVM:

* plain: ``df.write.parquet(path)``;
* adapter: the same call with the adapter installed in automatic mode, every event written to a
  JSON Lines file (START and COMPLETE with schema, inputs, column lineage and the write's
  statistics). Installing is done once, before the timed call, as an application does;
* naive: ``df.count()`` for the row count, then the write: what lineage costs done the obvious
  way, a second pass over the data.

Then ``INSERT INTO ... SELECT`` of the orders through ``spark.sql``, plain and with the adapter,
alternating: in classic PySpark (:func:`run_sql`) and under Connect (:func:`run_connect_sql`).

Each prints the median wall time of each variant and its ratio to plain, the ratio within a
round (each round runs the variants back to back), and the verdict against the target (adapter
<= 1.05x plain, as a ratio of medians) with its 95% interval from resampling the rounds: wall
times on a shared machine swing from round to round by more than the target's margin, and the
interval says whether a run had rounds enough to tell (:func:`verdict`). The writes also print
the executor CPU time (it swings less) and the time the adapter's own code takes per write: each
adapter write's wall time less the time spent inside Spark's writer method, measured on the
timed writes themselves.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import random
import shutil
import socket
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

from openlineage_sdk.client import OpenLineage
from openlineage_sdk.spark import install, uninstall
from openlineage_sdk.transports import FileTransport

TARGET = 1.05  # the adapter's write may take at most this much of the plain write's time


def _source(spark: Any, rows: int, scratch: Path) -> str:
    """Orders as Parquet files: what a real ETL step reads."""
    path = str(scratch / "source-orders")
    spark.range(rows).selectExpr(
        "id",
        "id % 100 AS customer_id",
        "CAST(id * 1.5 AS DOUBLE) AS amount",
        "concat('sku-', CAST(id % 1000 AS STRING)) AS sku",
    ).write.parquet(path)
    return path


def _frame(spark: Any, source: str) -> Any:
    """A typical step: read, filter, derive. Counting it means reading the data again.

    (Spark prunes the columns a count does not need, so the naive way's second pass reads the
    columns the filter uses, here ``amount`` and ``sku``, not the whole table.)
    """
    return (
        spark.read.parquet(source)
        .where("amount >= 0 AND sku LIKE 'sku-%'")
        .selectExpr("id", "customer_id", "amount * 1.2 AS gross", "upper(sku) AS sku")
    )


class _Clock:
    """Wall time, and the executor CPU time the driver's status store recorded for the run."""

    def __init__(self, driver: Any) -> None:
        self._sc = driver.sparkContext._jsc.sc()
        gateway = driver.sparkContext._gateway
        self._no_quantiles = gateway.new_array(gateway.jvm.double, 0)
        self._all_tasks = gateway.jvm.java.util.ArrayList()

    def _cpu(self) -> float:
        self._sc.listenerBus().waitUntilEmpty(30_000)
        stages = self._sc.statusStore().stageList(
            None, False, False, self._no_quantiles, self._all_tasks
        )
        nanos = sum(int(stages.apply(i).executorCpuTime()) for i in range(stages.size()))
        return nanos / 1e9

    def measure(self, action: Callable[[], None]) -> tuple[float, float]:
        cpu = self._cpu()
        start = time.perf_counter()
        action()
        wall = time.perf_counter() - start
        return wall, self._cpu() - cpu


def within_round(variant: list[float], plain: list[float]) -> float:
    """The median of each round's ratio of ``variant`` to ``plain``.

    A round runs the variants back to back, so the ratio within it is less exposed to the
    machine's load drifting over minutes than the ratio of the medians.
    """
    return statistics.median(t / p for t, p in zip(variant, plain, strict=True))


def ratio_interval(
    adapter: list[float], plain: list[float], resamples: int = 2000
) -> tuple[float, float]:
    """The 95% interval of the ratio of medians, from resampling the rounds (a bootstrap).

    Rounds are drawn whole, with replacement (a round's plain and adapter times together, as
    they ran back to back), and the ratio of medians taken each time; the interval is the middle
    95% of those ratios. The draws are seeded, so one run's figures print the same interval.
    """
    draw = random.Random(0)
    count = len(plain)
    ratios = []
    for _ in range(resamples):
        picks = [draw.randrange(count) for _ in range(count)]
        ratios.append(
            statistics.median(adapter[i] for i in picks)
            / statistics.median(plain[i] for i in picks)
        )
    ratios.sort()
    return ratios[int(resamples * 0.025)], ratios[int(resamples * 0.975) - 1]


def verdict(adapter: list[float], plain: list[float]) -> str:
    """The target line: the ratio of medians against ``TARGET``, and how sure the run is of it.

    A machine's wall times swing from round to round; the interval says whether this run's
    rounds could tell the ratio from the target, or more rounds are needed.
    """
    ratio = statistics.median(adapter) / statistics.median(plain)
    low, high = ratio_interval(adapter, plain)
    met = ratio <= TARGET
    line = (
        f"  target adapter <= {TARGET}x plain (ratio of medians): "
        f"{'met' if met else 'NOT MET'} ({ratio:.3f}x; 95% interval over the rounds "
        f"{low:.3f}x to {high:.3f}x"
    )
    if met and high > TARGET:
        line += ": it reaches past the target, more rounds would tell"
    elif not met and low <= TARGET:
        line += ": it reaches below the target, more rounds would tell"
    return line + ")"


@contextlib.contextmanager
def _adapter_time(spent: list[float]) -> Iterator[None]:
    """Append, for each write the adapter intercepts, the time its own code took.

    That is the write's wall time in the adapter's template less the time inside Spark's writer
    method, both measured on the same call.
    """
    from openlineage_sdk.spark import _flow
    from openlineage_sdk.spark.observe import _writes

    run_observed = _flow.run_observed

    def timed_run(
        reporter: Any, execution: Any, description: Any, call: Any, **options: Any
    ) -> Any:
        inside = 0.0

        def timed() -> Any:
            nonlocal inside
            start = time.perf_counter()
            try:
                return call()
            finally:
                inside = time.perf_counter() - start

        start = time.perf_counter()
        try:
            return run_observed(reporter, execution, description, timed, **options)
        finally:
            spent.append(time.perf_counter() - start - inside)

    with mock.patch.object(_writes, "run_observed", timed_run):
        yield


@dataclass
class _Variant:
    """A way to write; ``setup`` and ``teardown`` run outside the timed part."""

    action: Callable[[], None]
    setup: Callable[[], None] = lambda: None
    teardown: Callable[[], None] = lambda: None


def run(
    spark: Any, driver: Any, source: str, repeat: int, scratch: Path, label: str
) -> dict[str, float]:
    """Time the three variants on ``spark``; print the table; return the median wall times."""
    df = _frame(spark, source)
    rows = spark.read.parquet(source).count()
    counter = iter(range(1_000_000))
    out = scratch / "out"
    out.mkdir(exist_ok=True)
    events = scratch / f"events-{label}.jsonl"
    client = OpenLineage(transport=FileTransport(events), namespace="bench")

    def target() -> str:
        return str(out / f"{label}-{next(counter)}")

    def write() -> None:
        df.write.parquet(target())

    def naive() -> None:
        df.count()
        df.write.parquet(target())

    def installed() -> None:
        install(spark, client)

    variants = {
        "plain": _Variant(write),
        "adapter": _Variant(write, installed, lambda: uninstall(spark)),
        "naive": _Variant(naive),
    }
    names = list(variants)
    clock = _Clock(driver)

    def once(name: str) -> tuple[float, float]:
        variant = variants[name]
        variant.setup()
        try:
            return clock.measure(variant.action)
        finally:
            variant.teardown()

    for name in names:  # warm-up: JIT, file system caches, the listener's first call
        once(name)
    times: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    own: list[float] = []
    with _adapter_time(own):
        for round_ in range(repeat):
            order = names[round_ % len(names) :] + names[: round_ % len(names)]
            for name in order:
                wall, spent = once(name)
                times[name].append(wall)
                cpu[name].append(spent)
            for child in out.iterdir():
                shutil.rmtree(child, ignore_errors=True)
    medians = {name: statistics.median(values) for name, values in times.items()}
    cpu_medians = {name: statistics.median(values) for name, values in cpu.items()}
    paired = {name: within_round(times[name], times["plain"]) for name in names}
    print(f"\n{label}: {rows:,} rows read, filtered and written to Parquet; median of {repeat}")
    print(
        "  variant   wall (s)   ratio   ratio in round   executor CPU (s)   ratio   "
        "wall of each run (s)"
    )
    for name in names:
        ratio = medians[name] / medians["plain"]
        cpu_ratio = cpu_medians[name] / cpu_medians["plain"] if cpu_medians["plain"] else 0.0
        print(
            f"  {name:<8} {medians[name]:8.3f}  {ratio:6.3f}x  {paired[name]:13.3f}x  "
            f"{cpu_medians[name]:15.3f}  {cpu_ratio:6.3f}x   "
            + ", ".join(f"{t:.2f}" for t in times[name])
        )

    print(verdict(times["adapter"], times["plain"]))
    print(
        f"  adapter's own code per write, outside Spark's writer method (median of {len(own)}): "
        f"{statistics.median(own) * 1000:.1f} ms"
    )

    lines = events.read_text(encoding="utf-8").splitlines()
    # Reads that end in an action are runs without outputs: the last write is the last event
    # that has one.
    written = [e for e in map(json.loads, lines) if e.get("outputs")]
    last = written[-1]
    statistics_facet = last["outputs"][0].get("outputFacets", {}).get("outputStatistics", {})
    shown = {k: v for k, v in statistics_facet.items() if not k.startswith("_")}
    print(f"  events written: {len(lines)}; outputStatistics of the last write: {shown}")
    client.close()
    return medians


def run_sql(spark: Any, driver: Any, source: str, repeat: int, label: str) -> float:
    """Time ``INSERT INTO ... SELECT`` through ``spark.sql``, plain and with the adapter.

    The statement reads the ``--rows`` orders, filters and derives two columns, and appends them
    to a Parquet table; the adapter reports it as a run of its own (START before the statement,
    COMPLETE with the write's statistics after). Returns the ratio of the medians.
    """
    spark.read.parquet(source).createOrReplaceTempView("bench_orders")
    spark.sql("DROP TABLE IF EXISTS bench_sql_out")
    spark.sql(
        "CREATE TABLE bench_sql_out USING parquet AS "
        "SELECT id, amount * 1.2 AS gross, upper(sku) AS sku FROM bench_orders LIMIT 0"
    )
    statement = (
        "INSERT INTO bench_sql_out SELECT id, amount * 1.2 AS gross, upper(sku) AS sku "
        "FROM bench_orders WHERE amount > 10"
    )
    scratch = Path(tempfile.mkdtemp(prefix="openlineage-bench-sql-"))
    client = OpenLineage(transport=FileTransport(scratch / "events.jsonl"), namespace="bench")
    clock = _Clock(driver)

    def once(traced: bool) -> float:
        if traced:
            install(spark, client)
        try:
            return clock.measure(lambda: spark.sql(statement))[0]
        finally:
            if traced:
                uninstall(spark)
            spark.sql("TRUNCATE TABLE bench_sql_out")

    once(False)
    once(True)
    times: dict[bool, list[float]] = {False: [], True: []}
    for round_ in range(repeat):
        for traced in (round_ % 2 == 1, round_ % 2 == 0):
            times[traced].append(once(traced))
    plain, with_adapter = statistics.median(times[False]), statistics.median(times[True])
    ratio = with_adapter / plain
    print(f"\n{label}: spark.sql INSERT INTO ... SELECT over the orders; median of {repeat}")
    print(f"  plain   {plain:8.3f} s   " + ", ".join(f"{t:.2f}" for t in times[False]))
    print(f"  adapter {with_adapter:8.3f} s   " + ", ".join(f"{t:.2f}" for t in times[True]))
    paired = within_round(times[True], times[False])
    print(f"  ratio within a round (median of {repeat}): {paired:.3f}x")
    print(verdict(times[True], times[False]))
    spark.sql("DROP TABLE IF EXISTS bench_sql_out")
    client.close()
    shutil.rmtree(scratch, ignore_errors=True)
    return ratio


def run_connect_sql(spark: Any, driver: Any, source: str, repeat: int, scratch: Path) -> float:
    """``INSERT INTO ... SELECT`` through ``spark.sql`` under Connect, with and without lineage.

    The statement reads the orders (a table over the source files), filters, derives two
    columns and appends to a Parquet table; the table is emptied between rounds, outside the
    timed part. With the adapter, each statement is a run (the server's ``EXPLAIN`` of the
    statement and catalog look-ups before it, events to a JSON Lines file). Prints the medians
    and the ratio against the target; returns the ratio.
    """
    from openlineage_sdk.spark.session.connect._statements import ConnectStatement

    spark.sql("DROP TABLE IF EXISTS bench_orders")
    spark.sql("DROP TABLE IF EXISTS bench_gross")
    spark.sql(f"CREATE TABLE bench_orders USING parquet LOCATION '{source}'")
    spark.sql(
        "CREATE TABLE bench_gross (id BIGINT, customer_id BIGINT, gross DOUBLE, sku STRING) "
        "USING parquet"
    )
    statement = (
        "INSERT INTO bench_gross SELECT id, customer_id, amount * 1.2, upper(sku) "
        "FROM bench_orders WHERE amount >= 0 AND sku LIKE 'sku-%'"
    )
    rows = spark.table("bench_orders").count()
    events = scratch / "events-connect-sql.jsonl"
    client = OpenLineage(transport=FileTransport(events), namespace="bench")
    own: list[float] = []
    steps = {name: getattr(ConnectStatement, name) for name in ("before", "beside", "after")}

    def timed(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                own.append(time.perf_counter() - start)

        return call

    def once(traced: bool) -> float:
        if traced:
            install(spark, client)
        try:
            start = time.perf_counter()
            spark.sql(statement)
            return time.perf_counter() - start
        finally:
            if traced:
                uninstall(spark)
            spark.sql("TRUNCATE TABLE bench_gross")

    once(False)
    once(True)  # warm-up
    times: dict[str, list[float]] = {"plain": [], "adapter": []}
    with (
        mock.patch.object(ConnectStatement, "before", timed(steps["before"])),
        mock.patch.object(ConnectStatement, "beside", timed(steps["beside"])),
        mock.patch.object(ConnectStatement, "after", timed(steps["after"])),
    ):
        for round_ in range(repeat):
            order = ["plain", "adapter"] if round_ % 2 == 0 else ["adapter", "plain"]
            for name in order:
                times[name].append(once(name == "adapter"))
    medians = {name: statistics.median(values) for name, values in times.items()}
    ratio = medians["adapter"] / medians["plain"]
    print(f"\nconnect SQL: INSERT INTO ... SELECT of {rows:,} rows; median of {repeat}")
    for name, values in times.items():
        print(
            f"  {name:<8} {medians[name]:8.3f} s  {medians[name] / medians['plain']:6.3f}x   "
            + ", ".join(f"{t:.2f}" for t in values)
        )
    paired = within_round(times["adapter"], times["plain"])
    print(f"  ratio within a round (median of {repeat}): {paired:.3f}x")
    print(verdict(times["adapter"], times["plain"]))
    print(f"  adapter's own steps (median of one step): {statistics.median(own) * 1000:.1f} ms")
    lines = events.read_text(encoding="utf-8").splitlines()
    print(f"  events written: {len(lines)}")
    client.close()
    spark.sql("DROP TABLE IF EXISTS bench_gross")
    spark.sql("DROP TABLE IF EXISTS bench_orders")
    return ratio


# ------------------------------------------------------------------------------------ JDBC read


def run_jdbc(
    spark: Any, driver: Any, server: Any, repeat: int, scratch: Path, label: str, rows: int
) -> float | None:
    """Time a JDBC read of the orders table of a local PostgreSQL, written to Parquet.

    The ETL of an operational database: ``spark.read.format("jdbc")`` with a ``query`` (parsed
    by ``openlineage-sql`` for its tables) over ``rows`` rows, written to Parquet, plain and with
    the adapter, alternating. With the adapter the read's tables are named from the query and
    the relation's schema; nothing is sent to the database. Also prints the executor CPU time
    of each (from ``driver``, the classic session whose JVM runs the work in both modes), which
    swings less than the wall time. Returns the ratio of the medians.
    """
    options = {**server.options(), "query": "SELECT id, customer_id, amount, sku FROM orders"}
    events = scratch / f"events-jdbc-{label}.jsonl"
    client = OpenLineage(transport=FileTransport(events), namespace="bench")

    clock = _Clock(driver)
    cpu: dict[bool, list[float]] = {False: [], True: []}

    def write(round_: int) -> None:
        frame = spark.read.format("jdbc").options(**options).load()
        frame.where("amount >= 0").write.parquet(str(scratch / f"jdbc-{label}-{round_}"))

    def once(traced: bool, round_: int) -> float:
        if traced:
            install(spark, client)
        try:
            wall, spent = clock.measure(functools.partial(write, round_))
            cpu[traced].append(spent)
            return wall
        finally:
            if traced:
                uninstall(spark)
            shutil.rmtree(scratch / f"jdbc-{label}-{round_}", ignore_errors=True)

    once(False, -1)
    once(True, -2)  # warm-up
    cpu[False].clear()
    cpu[True].clear()
    times: dict[bool, list[float]] = {False: [], True: []}
    for round_ in range(repeat):
        for traced in (round_ % 2 == 1, round_ % 2 == 0):
            times[traced].append(once(traced, round_))
    plain, with_adapter = statistics.median(times[False]), statistics.median(times[True])
    print(f"\n{label} JDBC: a query over {rows:,} PostgreSQL rows to Parquet; median of {repeat}")
    print(f"  plain   {plain:8.3f} s   " + ", ".join(f"{t:.2f}" for t in times[False]))
    print(f"  adapter {with_adapter:8.3f} s   " + ", ".join(f"{t:.2f}" for t in times[True]))
    print(
        f"  ratio within a round (median of {repeat}): "
        f"{within_round(times[True], times[False]):.3f}x"
    )
    print(verdict(times[True], times[False]))
    plain_cpu, adapter_cpu = statistics.median(cpu[False]), statistics.median(cpu[True])
    print(
        f"  executor CPU (median): plain {plain_cpu:.3f} s, adapter {adapter_cpu:.3f} s, "
        f"{adapter_cpu / plain_cpu if plain_cpu else 0.0:.3f}x"
    )
    client.close()
    return with_adapter / plain


@contextlib.contextmanager
def _postgres_orders(rows: int) -> Iterator[Any]:
    """The tests' throwaway PostgreSQL (``tests/spark/_postgres.py``) with ``rows`` orders."""
    from tests.spark._postgres import missing, postgres_server

    reason = missing()
    if reason is not None:
        print(f"\nJDBC rows skipped: {reason}")
        yield None
        return
    with postgres_server() as server:
        server.psql(
            "CREATE TABLE orders AS SELECT g AS id, g % 100 AS customer_id, "
            "g * 1.5 AS amount, 'sku-' || (g % 1000) AS sku "
            f"FROM generate_series(1, {rows}) g"
        )
        yield server


def _classic(connect_port: int | None) -> Any:
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[2]")
        .appName("openlineage_sdk_bench")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
    )
    if Path("/usr/share/java/postgresql.jar").exists():  # for the JDBC rows (Debian's driver)
        builder = builder.config("spark.driver.extraClassPath", "/usr/share/java/postgresql.jar")
    if connect_port is not None:
        builder = (
            builder.config("spark.plugins", "org.apache.spark.sql.connect.SparkConnectPlugin")
            .config("spark.connect.grpc.binding.address", "127.0.0.1")
            .config("spark.connect.grpc.binding.port", str(connect_port))
        )
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def main(argv: list[str]) -> None:
    """Run the benchmark and print the tables (``argv`` without the program name)."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.spark", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--mode", choices=["classic", "connect", "both"], default="both")
    parser.add_argument(
        "--sql-only", action="store_true", help="only the spark.sql INSERT INTO ... SELECT"
    )
    parser.add_argument(
        "--jdbc-only", action="store_true", help="only the JDBC read from a local PostgreSQL"
    )
    parser.add_argument("--jdbc-rows", type=int, default=1_000_000)
    options = parser.parse_args(argv)

    port: int | None = None
    if options.mode != "classic":
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
    spark = _classic(port)
    scratch = Path(tempfile.mkdtemp(prefix="openlineage-bench-"))
    if options.jdbc_only:
        try:
            _run_jdbc_rows(spark, options, port, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
            spark.stop()
        return
    try:
        source = _source(spark, options.rows, scratch)
        if options.mode in ("classic", "both"):
            if not options.sql_only:
                run(spark, spark, source, options.repeat, scratch, "classic")
            run_sql(spark, spark, source, options.repeat, "classic SQL")
        if options.mode in ("connect", "both"):
            from pyspark.sql.connect.session import SparkSession as ConnectSession

            remote = ConnectSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
            if not options.sql_only:
                run(remote, spark, source, options.repeat, scratch, "connect")
            run_connect_sql(remote, spark, source, options.repeat, scratch)
            remote.stop()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        spark.stop()


def _run_jdbc_rows(spark: Any, options: Any, port: int | None, scratch: Path) -> None:
    """The JDBC rows, classic and under Connect, against one PostgreSQL server."""
    with _postgres_orders(options.jdbc_rows) as server:
        if server is None:
            return
        if options.mode in ("classic", "both"):
            run_jdbc(spark, spark, server, options.repeat, scratch, "classic", options.jdbc_rows)
        if options.mode in ("connect", "both"):
            from pyspark.sql.connect.session import SparkSession as ConnectSession

            remote = ConnectSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
            run_jdbc(remote, spark, server, options.repeat, scratch, "connect", options.jdbc_rows)
            remote.stop()


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
