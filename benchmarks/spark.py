"""What lineage costs a Spark write: the adapter against a plain write and the naive way.

    python -m benchmarks.spark [--rows 5000000] [--repeat 5] [--mode classic|connect|both]
                               [--sql-only | --write-only] [--soak ...]

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

``--soak`` runs the long-run benchmark instead (a stream of 10,000 micro-batches, 10,000 small
statements, a 5,000-column table written 100 times: the adapter's memory, its RUNNING events and
the schema size limit); see :mod:`benchmarks.spark_soak`.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import json
import os
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

from benchmarks.spark_soak import run_soak, soak_options
from openlineage_sdk.client import OpenLineage
from openlineage_sdk.spark import install, uninstall
from openlineage_sdk.spark._flow import wait_finished
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

    def executor_cpu(self) -> float:
        """The executor CPU time of every stage so far, in seconds."""
        self._sc.listenerBus().waitUntilEmpty(30_000)
        stages = self._sc.statusStore().stageList(
            None, False, False, self._no_quantiles, self._all_tasks
        )
        nanos = sum(int(stages.apply(i).executorCpuTime()) for i in range(stages.size()))
        return nanos / 1e9

    def measure(self, action: Callable[[], None]) -> tuple[float, float]:
        cpu = self.executor_cpu()
        start = time.perf_counter()
        action()
        wall = time.perf_counter() - start
        return wall, self.executor_cpu() - cpu


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


def _alternated(once: Callable[[bool], float], repeat: int, title: str) -> float:
    """Warm both variants up, then time ``repeat`` rounds of plain and traced in alternating
    order; print the medians, the within-round ratio and the verdict, and return the ratio
    of the medians."""
    once(False)
    once(True)
    times: dict[bool, list[float]] = {False: [], True: []}
    for round_ in range(repeat):
        for traced in (round_ % 2 == 1, round_ % 2 == 0):
            times[traced].append(once(traced))
    plain, with_adapter = statistics.median(times[False]), statistics.median(times[True])
    print(f"\n{title}; median of {repeat}")
    print(f"  plain   {plain:8.3f} s   " + ", ".join(f"{t:.2f}" for t in times[False]))
    print(f"  adapter {with_adapter:8.3f} s   " + ", ".join(f"{t:.2f}" for t in times[True]))
    paired = within_round(times[True], times[False])
    print(f"  ratio within a round (median of {repeat}): {paired:.3f}x")
    print(verdict(times[True], times[False]))
    return with_adapter / plain


def _statement_reported(spark: Any, statement: str) -> None:
    """Run ``statement`` until its run's end was reported (an INSERT's goes out once its call
    returned, on the adapter's finishing thread)."""
    spark.sql(statement)
    wait_finished()


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
            return clock.measure(functools.partial(_statement_reported, spark, statement))[0]
        finally:
            if traced:
                uninstall(spark)
            spark.sql("TRUNCATE TABLE bench_sql_out")

    ratio = _alternated(once, repeat, f"{label}: spark.sql INSERT INTO ... SELECT over the orders")
    spark.sql("DROP TABLE IF EXISTS bench_sql_out")
    client.close()
    shutil.rmtree(scratch, ignore_errors=True)
    return ratio


def run_jvm_write(spark: Any, source: str, repeat: int, scratch: Path, label: str) -> float:
    """Time a write started from JVM code (``df._jdf.write().parquet(...)``), plain and with
    the adapter; returns the ratio of the medians.

    No Python method the adapter wraps sees it: the session's ``QueryExecutionListener`` hears
    the command on Spark's listener bus, after it ran, and the adapter reports it from there.
    The timed part is the user's call; the run's report is awaited (``flush``) after it,
    outside the timed part, and checked: its time is printed as the lineage's delay.
    """
    from openlineage_sdk.spark import installed

    df = _frame(spark, source)
    out = scratch / "jvm-out"
    out.mkdir(exist_ok=True)
    counter = iter(range(1_000_000))
    events = scratch / f"events-{label}.jsonl"
    client = OpenLineage(transport=FileTransport(events), namespace="bench")
    clock = _Clock(spark)
    reported: list[float] = []

    def write() -> None:
        df._jdf.write().parquet(str(out / f"jvm-{next(counter)}"))

    def once(traced: bool) -> float:
        if traced:
            install(spark, client)
        try:
            wall = clock.measure(write)[0]
            if traced:
                adapter = installed(spark)
                assert adapter is not None
                start = time.perf_counter()
                adapter.flush()
                reported.append(time.perf_counter() - start)
            return wall
        finally:
            if traced:
                uninstall(spark)
            for child in out.iterdir():
                shutil.rmtree(child, ignore_errors=True)

    ratio = _alternated(once, repeat, f"{label}: df._jdf.write().parquet(...) of the orders")
    print(
        "  after the call, until its run was reported (flush; median): "
        f"{statistics.median(reported) * 1000:.0f} ms"
    )
    lines = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    written = [e for e in lines if e.get("outputs")]
    runs = {e["run"]["runId"] for e in written}
    # Each traced write is one run (START and COMPLETE), with its statistics.
    assert len(runs) == repeat + 1, (len(runs), repeat + 1)
    last = written[-1]["outputs"][0].get("outputFacets", {}).get("outputStatistics", {})
    print(
        f"  runs reported: {len(runs)} (one per traced write); outputStatistics of the last: "
        f"{ {k: v for k, v in last.items() if not k.startswith('_')} }"
    )
    client.close()
    return ratio


def run_connect_sql(spark: Any, driver: Any, source: str, repeat: int, scratch: Path) -> float:
    """``INSERT INTO ... SELECT`` through ``spark.sql`` under Connect, with and without lineage.

    The statement reads the orders (a table over the source files), filters, derives two
    columns and appends to a Parquet table; the table is emptied between rounds, outside the
    timed part. With the adapter, each statement is a run (the server's ``EXPLAIN`` of the
    statement and catalog look-ups before it, events to a JSON Lines file). Prints the medians
    and the ratio against the target; returns the ratio.
    """
    from openlineage_sdk.spark.executions._statement import ServerStatementRun as ConnectStatement

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
            wait_finished()  # the run's end, reported once the call returned
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


# ------------------------------------------------------------------------------ small statements
#
# The rows above run statements of millions of rows, where the adapter's fixed cost per statement
# disappears; a pipeline of many small statements pays it in full. Each variant (plain, with the
# adapter) runs in a worker process of its own, with its own Spark (and, under Connect, its own
# server), so neither inherits the other's hooks, listener, threads or warmed JVM; the parent
# tells them in turn to run one round of statements and reads back what the round cost.

SMALL_STATEMENT = "INSERT INTO dst SELECT k, sum(v) FROM src WHERE id > {i} GROUP BY k"
_REPLY = "@@small "  # the prefix of a worker's answers on its stdout (Spark may print there too)


@dataclass
class _SmallRound:
    """What one round of small statements cost a worker (all in seconds)."""

    wall: float
    python_cpu: float  # the worker's Python process: the driver (classic) or the client (Connect)
    jvm_cpu: float  # the JVM: the driver (classic) or the Connect server


class _Counted:
    """Counts the requests of one kind the adapter's process sends (py4j calls, gRPC calls)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, kind: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1


@contextlib.contextmanager
def _count_py4j(counted: _Counted) -> Iterator[None]:
    """Count each py4j command this process sends to the JVM, by kind (call, reflection, GC)."""
    from py4j import clientserver, java_gateway

    kinds = {
        "c": "calls",
        "i": "constructors",
        "r": "reflection",
        "m": "proxies deleted",
        "A": "connections opened",
    }
    patches = []
    for owner in (clientserver.ClientServerConnection, java_gateway.GatewayConnection):
        original = owner.send_command

        def send_command(self: Any, command: str, *args: Any, _original: Any = original) -> Any:
            counted.add(kinds.get(command[:1], command[:1]))
            return _original(self, command, *args)

        patches.append(mock.patch.object(owner, "send_command", send_command))
    with contextlib.ExitStack() as stack:
        for patch in patches:
            stack.enter_context(patch)
        yield


@contextlib.contextmanager
def _count_grpc(client: Any, counted: _Counted) -> Iterator[None]:
    """Count each gRPC call a Connect client makes, by method (ExecutePlan, AnalyzePlan...)."""
    stub = client._stub

    class Counting:
        def __getattr__(self, name: str) -> Any:
            method = getattr(stub, name)
            if not callable(method):
                return method

            def call(*args: Any, **kwargs: Any) -> Any:
                counted.add(name)
                return method(*args, **kwargs)

            return call

    client._stub = Counting()
    try:
        yield
    finally:
        client._stub = stub


def _process_cpu(pid: int) -> float:
    """A process's CPU time so far (user and system, all its threads), from ``/proc``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


_REPLAYS = 3  # how many times each Connect request of the adapter's is sent again


class _OwnCost:
    """The CPU the adapter's own code takes, measured where it runs.

    Python: the thread CPU of each of the adapter's steps (the template around the user's call,
    less the call; the description beside it; the session's listener). Classic, the JVM: the
    CPU of the JVM thread that serves each of those steps' py4j calls (py4j pins each Python
    thread to a JVM thread: ``ThreadMXBean.getCurrentThreadCpuTime`` asked from a step is that
    thread's). Connect, the server: each request of the adapter's own is sent again after the
    round, alone and three times (the process's CPU is counted in clock ticks), and the
    server's process CPU taken around it. The readings cost a few round trips themselves, so
    this round is not a timed one.
    """

    def __init__(self, worker: _SmallWorker) -> None:
        self.worker = worker
        self.classic = worker.spark is worker.driver
        jvm = worker.driver._jvm
        management = jvm.java.lang.management.ManagementFactory
        self._threads = management.getThreadMXBean()
        self.python = 0.0
        self.jvm = 0.0
        self.requests: list[Any] = []
        self.statements = 0

    def _jvm_thread(self) -> float:
        return int(self._threads.getCurrentThreadCpuTime()) / 1e9 if self.classic else 0.0

    def _add(self, python: float, jvm: float) -> None:
        self.python += python
        self.jvm += jvm

    @contextlib.contextmanager
    def measuring(self) -> Iterator[None]:
        from openlineage_sdk.spark import _flow
        from openlineage_sdk.spark.observe import _statements
        from openlineage_sdk.spark.session.classic._metrics import WriteMetricsListener
        from openlineage_sdk.spark.session.connect import ConnectSession

        run_observed, start_beside = _flow.run_observed, _flow.start_beside

        def timed_run(reporter: Any, execution: Any, description: Any, call: Any, **kw: Any) -> Any:
            inside = [0.0, 0.0]

            def timed_call() -> Any:
                python, jvm = time.thread_time(), self._jvm_thread()
                try:
                    return call()
                finally:
                    inside[0] += time.thread_time() - python
                    inside[1] += self._jvm_thread() - jvm

            self.statements += 1
            python, jvm = time.thread_time(), self._jvm_thread()
            try:
                return run_observed(reporter, execution, description, timed_call, **kw)
            finally:
                self._add(
                    time.thread_time() - python - inside[0],
                    self._jvm_thread() - jvm - inside[1],
                )

        def timed_step(function: Callable[..., Any]) -> Callable[..., Any]:
            @functools.wraps(function)
            def step(*args: Any, **kwargs: Any) -> Any:
                python, jvm = time.thread_time(), self._jvm_thread()
                try:
                    return function(*args, **kwargs)
                finally:
                    self._add(time.thread_time() - python, self._jvm_thread() - jvm)

            return step

        def timed_beside(function: Callable[..., None], *args: Any, name: str) -> Any:
            return start_beside(timed_step(function), *args, name=name)

        finish_later = _flow.finish_later

        def timed_finish(work: Callable[[], None]) -> bool:
            return finish_later(timed_step(work))

        execute = ConnectSession.execute

        def recorded(session: Any, command: Any) -> Any:
            self.requests.append((session, command))
            return execute(session, command)

        with contextlib.ExitStack() as stack:
            stack.enter_context(mock.patch.object(_statements, "run_observed", timed_run))
            stack.enter_context(mock.patch.object(_flow, "start_beside", timed_beside))
            stack.enter_context(mock.patch.object(_flow, "finish_later", timed_finish))
            for name in ("onSuccess", "onFailure"):
                method = getattr(WriteMetricsListener, name)
                stack.enter_context(
                    mock.patch.object(WriteMetricsListener, name, timed_step(method))
                )
            stack.enter_context(mock.patch.object(ConnectSession, "execute", recorded))
            yield
            _flow.wait_finished()  # the last statements' ends, on the finishing thread
        if not self.classic:
            self._replay()

    def _replay(self) -> None:
        """Send the adapter's requests once more, one at a time; the server's CPU for each."""
        from openlineage_sdk.spark._flow import adapter_work
        from openlineage_sdk.spark.session.connect import ConnectSession

        bus = self.worker.driver.sparkContext._jsc.sc().listenerBus()
        pid = self.worker.jvm_pid
        for session, command in self.requests:
            bus.waitUntilEmpty(30_000)
            before = _process_cpu(pid)  # in clock ticks: each request is sent three times
            with adapter_work():
                for _ in range(_REPLAYS):
                    ConnectSession.execute(session, command)
            bus.waitUntilEmpty(30_000)
            self.jvm += (_process_cpu(pid) - before) / _REPLAYS

    def totals(self) -> dict[str, float]:
        count = max(self.statements, 1)
        return {
            "python": self.python / count,
            "jvm": self.jvm / count,
            "requests": len(self.requests) / count,
        }


class _SmallWorker:
    """One variant of the small-statements row, in the worker process: its Spark and tables."""

    def __init__(self, mode: str, traced: bool, scratch: Path) -> None:
        import os as _os

        port: int | None = None
        if mode == "connect":
            with socket.socket() as sock:
                sock.bind(("127.0.0.1", 0))
                port = int(sock.getsockname()[1])
        self.driver = _classic(port, "openlineage_sdk_bench_small", scratch / "warehouse")
        self.jvm_pid = int(self.driver._jvm.java.lang.ProcessHandle.current().pid())
        self.spark = self.driver
        if port is not None:
            from pyspark.sql.connect.session import SparkSession as ConnectSession

            self.spark = ConnectSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
        spark = self.spark
        spark.sql("DROP TABLE IF EXISTS src")
        spark.sql("DROP TABLE IF EXISTS dst")
        spark.sql(
            "CREATE TABLE src USING parquet AS "
            "SELECT id, id % 10 AS k, CAST(id * 1.5 AS DOUBLE) AS v FROM range(1000)"
        )
        spark.sql("CREATE TABLE dst (k BIGINT, s DOUBLE) USING parquet")
        self.client: OpenLineage | None = None
        self.events = scratch / "events.jsonl"
        if traced:
            self.client = OpenLineage(transport=FileTransport(self.events), namespace="bench")
            install(spark, self.client)  # once, as an application does
        self.next = 0
        self._pid = _os.getpid()

    def _settle(self) -> None:
        """Empty the target and let the driver deliver what it posted, outside the timed part."""
        self.spark.sql("TRUNCATE TABLE dst")
        self.driver.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(30_000)

    def round(self, statements: int) -> _SmallRound:
        self._settle()
        python, jvm = time.process_time(), _process_cpu(self.jvm_pid)
        start = time.perf_counter()
        for _ in range(statements):
            self.next += 1
            self.spark.sql(SMALL_STATEMENT.format(i=self.next % 900))
        # The adapter reports a short INSERT's end once its call returned: the round is over
        # when the last one was reported.
        wait_finished()
        wall = time.perf_counter() - start
        return _SmallRound(wall, time.process_time() - python, _process_cpu(self.jvm_pid) - jvm)

    def count(self, statements: int) -> dict[str, int]:
        """The requests a round sends: py4j commands (classic) or gRPC calls (Connect)."""
        self._settle()
        counted = _Counted()
        counting = (
            _count_py4j(counted)
            if self.spark is self.driver
            else _count_grpc(self.spark.client, counted)
        )
        with counting:
            for _ in range(statements):
                self.next += 1
                self.spark.sql(SMALL_STATEMENT.format(i=self.next % 900))
            wait_finished()
        return counted.counts

    def cost(self, statements: int) -> dict[str, float]:
        """The adapter's own CPU in a round, measured in its own code (see :class:`_OwnCost`)."""
        self._settle()
        cost = _OwnCost(self)
        with cost.measuring():
            for _ in range(statements):
                self.next += 1
                self.spark.sql(SMALL_STATEMENT.format(i=self.next % 900))
        self._settle()
        return cost.totals()

    def close(self) -> None:
        if self.client is not None:
            uninstall(self.spark)
            self.client.close()
            lines = self.events.read_text(encoding="utf-8").splitlines()
            # Every statement is a run: START and COMPLETE.
            assert any('"COMPLETE"' in line for line in lines), "no COMPLETE event written"
        if self.spark is not self.driver:
            self.spark.stop()
        self.driver.stop()


def small_worker(mode: str, variant: str) -> None:
    """A worker of the small-statements row: answers the parent's commands on stdin.

    ``round N``: run N statements, answer their wall and CPU times; ``count N``: run N
    statements counting the requests sent; ``stop``.
    """
    import sys

    scratch = Path(tempfile.mkdtemp(prefix=f"openlineage-bench-small-{mode}-{variant}-"))
    worker = _SmallWorker(mode, variant == "adapter", scratch)
    try:
        print(_REPLY + "ready", flush=True)
        for line in sys.stdin:
            command, *rest = line.split()
            if command == "round":
                answer: Any = dataclasses.asdict(worker.round(int(rest[0])))
            elif command == "count":
                answer = worker.count(int(rest[0]))
            elif command == "cost":
                answer = worker.cost(int(rest[0]))
            else:
                break
            print(_REPLY + json.dumps(answer), flush=True)
    finally:
        worker.close()
        shutil.rmtree(scratch, ignore_errors=True)


class _SmallProcess:
    """The parent's handle on one worker process."""

    def __init__(self, mode: str, variant: str) -> None:
        import subprocess
        import sys

        root = Path(__file__).resolve().parents[1]
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH", "")) if p)
        self.child = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.spark", "--small-worker", mode, variant],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=root,
            env=env,
        )
        self.name = f"{mode} {variant}"
        self._answer()

    def _answer(self) -> Any:
        assert self.child.stdout is not None
        for line in self.child.stdout:
            if line.startswith(_REPLY):
                text = line[len(_REPLY) :].strip()
                return text if text == "ready" else json.loads(text)
        raise RuntimeError(f"the {self.name} worker ended (exit {self.child.wait()})")

    def ask(self, command: str) -> Any:
        assert self.child.stdin is not None
        self.child.stdin.write(command + "\n")
        self.child.stdin.flush()
        return self._answer()

    def close(self) -> None:
        if self.child.poll() is None:
            assert self.child.stdin is not None
            with contextlib.suppress(OSError):
                self.child.stdin.write("stop\n")
                self.child.stdin.close()
            self.child.wait(120)


def run_small(mode: str, rounds: int, statements: int) -> float:
    """The small-statements row of ``mode``: rounds of ``statements`` INSERTs, plain and traced.

    Each round runs ``statements`` of ``INSERT INTO dst SELECT k, sum(v) FROM src WHERE id > i
    GROUP BY k`` over a 1,000-row Parquet table in one worker, then in the other (the order
    alternates from round to round), after a warm-up round in each. Prints the median time per
    statement, the ratio of medians with its 95% interval, and the adapter's own CPU per
    statement: the worker's Python process (the driver, or the Connect client) and the JVM (the
    driver's, or the Connect server), each the difference of the medians with and without the
    adapter; then the requests per statement, counted in one more round. Returns the ratio.
    """
    workers = {name: _SmallProcess(mode, name) for name in ("plain", "adapter")}
    try:
        for worker in workers.values():
            worker.ask(f"round {statements}")  # warm-up: JIT, caches, the adapter's first call
        measured: dict[str, list[_SmallRound]] = {name: [] for name in workers}
        for round_ in range(rounds):
            order = ["plain", "adapter"] if round_ % 2 == 0 else ["adapter", "plain"]
            for name in order:
                measured[name].append(_SmallRound(**workers[name].ask(f"round {statements}")))
        counts = {name: w.ask(f"count {statements}") for name, w in workers.items()}
        own = workers["adapter"].ask(f"cost {statements}")
    finally:
        for worker in workers.values():
            worker.close()

    def per_statement(name: str, what: str) -> list[float]:
        return [getattr(r, what) / statements for r in measured[name]]

    plain, traced = per_statement("plain", "wall"), per_statement("adapter", "wall")
    ratio = statistics.median(traced) / statistics.median(plain)
    jvm_name = "driver JVM" if mode == "classic" else "Connect server"
    python_name = "driver Python" if mode == "classic" else "client Python"
    print(
        f"\n{mode} small statements: {statements} x `{SMALL_STATEMENT.format(i='i')}` over "
        f"1,000 rows a round, each variant in its own process; median of {rounds} rounds"
    )
    print(
        "  variant   ms a statement   ratio   "
        + python_name
        + " CPU (ms)   "
        + jvm_name
        + " CPU (ms)"
    )
    for name in workers:
        wall = statistics.median(per_statement(name, "wall")) * 1000
        python = statistics.median(per_statement(name, "python_cpu")) * 1000
        jvm = statistics.median(per_statement(name, "jvm_cpu")) * 1000
        print(
            f"  {name:<8} {wall:14.1f}  {wall / (statistics.median(plain) * 1000):6.3f}x  "
            f"{python:22.1f}   {jvm:19.1f}"
        )
    print(f"  ratio within a round (median of {rounds}): {within_round(traced, plain):.3f}x")
    print(verdict(traced, plain))
    own_python = statistics.median(per_statement("adapter", "python_cpu")) - statistics.median(
        per_statement("plain", "python_cpu")
    )
    own_jvm = statistics.median(per_statement("adapter", "jvm_cpu")) - statistics.median(
        per_statement("plain", "jvm_cpu")
    )
    where = (
        "the JVM threads serving its py4j calls"
        if mode == "classic"
        else f"its {own['requests']:.1f} requests a statement sent again alone"
    )
    print(
        f"  the adapter's own CPU per statement, in its own code (one more round): "
        f"{python_name} {own['python'] * 1000:.1f} ms, {jvm_name} {own['jvm'] * 1000:.1f} ms "
        f"({where})"
    )
    print(
        f"  the same from the processes' CPU, with less without the adapter (medians): "
        f"{python_name} {own_python * 1000:.1f} ms, {jvm_name} {own_jvm * 1000:.1f} ms"
    )
    kinds = sorted({*counts["plain"], *counts["adapter"]})
    requests = "py4j commands" if mode == "classic" else "gRPC calls"
    print(
        f"  {requests} per statement, with / without the adapter: "
        + ", ".join(
            f"{kind} {counts['adapter'].get(kind, 0) / statements:.1f} / "
            f"{counts['plain'].get(kind, 0) / statements:.1f}"
            for kind in kinds
        )
    )
    return ratio


def _classic(
    connect_port: int | None, app: str = "openlineage_sdk_bench", warehouse: Path | None = None
) -> Any:
    """The benchmark's local driver (serving Spark Connect on ``connect_port`` when given), with
    a warehouse of its own when ``warehouse`` is given."""
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[2]")
        .appName(app)
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
    )
    if warehouse is not None:
        builder = builder.config("spark.sql.warehouse.dir", str(warehouse))
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


def _small_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--small-only", action="store_true", help="only the rows of small statements"
    )
    parser.add_argument("--small-rounds", type=int, default=6, help="rounds of small statements")
    parser.add_argument(
        "--small-statements", type=int, default=20, help="small statements in a round"
    )
    parser.add_argument("--small-worker", nargs=2, help=argparse.SUPPRESS)


def _small_rows(options: argparse.Namespace) -> None:
    """The small-statements rows of the modes asked for (each in worker processes of its own)."""
    for mode in ("classic", "connect"):
        if options.mode in (mode, "both"):
            run_small(mode, options.small_rounds, options.small_statements)


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
    parser.add_argument(
        "--jvm-only", action="store_true", help="only the write started from JVM code"
    )
    parser.add_argument(
        "--write-only", action="store_true", help="only the DataFrame write to Parquet"
    )
    parser.add_argument("--jdbc-rows", type=int, default=1_000_000)
    _small_options(parser)
    soak_options(parser)
    options = parser.parse_args(argv)
    if options.small_worker is not None:
        small_worker(*options.small_worker)
        return
    if options.soak:
        if not run_soak(options, _connect_session):
            raise SystemExit(1)
        return
    if options.small_only:
        _small_rows(options)
        return

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
        if options.jvm_only:
            run_jvm_write(spark, source, options.repeat, scratch, "classic, from JVM code")
            return
        if options.mode in ("classic", "both"):
            if not options.sql_only:
                run(spark, spark, source, options.repeat, scratch, "classic")
            if not options.write_only:
                run_sql(spark, spark, source, options.repeat, "classic SQL")
            if not (options.sql_only or options.write_only):
                run_jvm_write(spark, source, options.repeat, scratch, "classic, from JVM code")
        if options.mode in ("connect", "both"):
            from pyspark.sql.connect.session import SparkSession as ConnectSession

            remote = ConnectSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
            if not options.sql_only:
                run(remote, spark, source, options.repeat, scratch, "connect")
            if not options.write_only:
                run_connect_sql(remote, spark, source, options.repeat, scratch)
            remote.stop()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        spark.stop()
    if not options.write_only:
        _small_rows(options)


def _connect_session(port: int) -> Any:
    """A Spark Connect session to the benchmark's local server on ``port``."""
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    return ConnectSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()


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
