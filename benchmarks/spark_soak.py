"""Bounded for long runs: the adapter's memory over many micro-batches and statements.

    python -m benchmarks spark --soak [--soak-batches 10000] [--soak-statements 10000]
                                      [--soak-wide-writes 100] [--soak-columns 5000]
                                      [--soak-every 500] [--soak-warmup 1000]
                                      [--soak-interval 1] [--soak-minutes M]
                                      [--soak-parts stream,statements,wide]
                                      [--mode classic|connect|both]

(``python -m benchmarks.spark --soak`` is the same.) Three parts, each on one driver with the
adapter installed once, every event written to a JSON Lines file:

* stream: a ``rate-micro-batch`` source (10 rows a micro-batch, no waiting between them) through
  a projection into a Parquet sink, with the default trigger, until ``--soak-batches``
  micro-batches ran. The run has a RUNNING event at most every ``--soak-interval`` seconds (the
  adapter's interval rule, ``stream_interval``), so the part also checks that the RUNNING events
  are bounded by the run's duration over the interval, not by its micro-batches.
* statements: ``--soak-statements`` small ``INSERT INTO ... SELECT ... WHERE`` statements
  through ``spark.sql`` (one stage, one task), each a run of its own (START, COMPLETE).
  The target table is emptied at each sample, so Spark's work per statement stays the same.
* wide: a ``--soak-columns``-column table written ``--soak-wide-writes`` times, alternating
  the agent's default ``spark.openlineage.columnLineage.schemaSizeLimit`` (1,000: the write gets
  no column lineage) with a limit above the width (it gets column lineage for every column):
  the size of each write's events and the adapter's own time per write (the write's wall time
  in the adapter less the time inside Spark's writer method). Under Connect the part sets
  ``spark.sql.debug.maxToStringFields`` above the width, as the Connect page tells users of wide
  tables to (the client reads a plan's columns from the server's ``EXPLAIN`` text).

The stream and statement parts sample every ``--soak-every`` micro-batches or statements, after
a full garbage collection: the resident set of this process (the driver's Python process, where
the adapter runs, under Connect as in classic PySpark), the Python heap (``tracemalloc``'s
traced memory, with one frame per trace) and the objects the collector tracks, and the JVM
driver's heap used after ``System.gc()`` (Spark's objects and the adapter's JVM-side ones: its
listeners and the objects py4j holds for it). The verdict: after ``--soak-warmup`` micro-batches
or statements, the resident set and the Python heap each stay within 10 MiB (highest sample less
lowest). The slope over that stretch (MiB per thousand) tells a leak from noise.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import shutil
import socket
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openlineage_sdk.client import OpenLineage
from openlineage_sdk.spark import install, uninstall
from openlineage_sdk.spark._flow import wait_finished
from openlineage_sdk.transports import FileTransport

#: The most the resident set or the Python heap may move after the warm-up (highest less lowest).
FLAT_MIB = 10.0
#: The small statement of the statements part: one stage, one task.
STATEMENT = "INSERT INTO dst SELECT k, v FROM src WHERE id = {i}"
PARTS = ("stream", "statements", "wide")
_MIB = 1024 * 1024


@dataclass
class Sample:
    """The memory after ``count`` micro-batches or statements, ``elapsed`` seconds in."""

    count: int
    elapsed: float
    rss_mib: float
    heap_mib: float
    objects: int
    jvm_mib: float


def _rss_mib() -> float:
    """The resident set of this process (``VmRSS``), in MiB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


class _Memory:
    """Samples of this process's memory and of the JVM driver's heap, as a part runs."""

    def __init__(self, driver: Any) -> None:
        self._runtime = driver._jvm.java.lang.Runtime.getRuntime()
        self._system = driver._jvm.java.lang.System
        self.samples: list[Sample] = []
        self._start = time.perf_counter()

    def sample(self, count: int) -> Sample:
        gc.collect()
        self._system.gc()
        jvm = (self._runtime.totalMemory() - self._runtime.freeMemory()) / _MIB
        taken = Sample(
            count,
            time.perf_counter() - self._start,
            _rss_mib(),
            tracemalloc.get_traced_memory()[0] / _MIB,
            len(gc.get_objects()),
            jvm,
        )
        self.samples.append(taken)
        return taken


@dataclass
class Verdict:
    """Whether a part's memory stayed flat after the warm-up, and by how much it moved."""

    rss_range: float
    heap_range: float
    rss_slope: float
    heap_slope: float
    flat: bool
    after: int


def _slope(points: Sequence[tuple[int, float]]) -> float:
    """The least-squares slope of ``points``, in their value per thousand counts."""
    if len(points) < 2:
        return 0.0
    xs = [float(x) for x, _ in points]
    ys = [y for _, y in points]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    if spread == 0:
        return 0.0
    return 1000 * sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread


def verdict(samples: Sequence[Sample], warmup: int) -> Verdict:
    """The verdict over the samples taken at or after ``warmup`` (all of them when none is).

    Args:
        samples: A part's samples, in order.
        warmup: The micro-batches or statements left out of the verdict.

    Returns:
        The range (highest less lowest) and slope of the resident set and the Python heap over
        the samples kept, and whether both ranges are within :data:`FLAT_MIB`.
    """
    kept = [s for s in samples if s.count >= warmup] or list(samples)
    rss = [s.rss_mib for s in kept]
    heap = [s.heap_mib for s in kept]
    rss_range, heap_range = max(rss) - min(rss), max(heap) - min(heap)
    return Verdict(
        rss_range,
        heap_range,
        _slope([(s.count, s.rss_mib) for s in kept]),
        _slope([(s.count, s.heap_mib) for s in kept]),
        rss_range <= FLAT_MIB and heap_range <= FLAT_MIB,
        kept[0].count,
    )


def _print_samples(samples: Sequence[Sample], unit: str, warmup: int) -> Verdict:
    print(
        f"  {unit:>12} {'elapsed s':>10} {'RSS MiB':>9} {'heap MiB':>9} {'gc objects':>11} "
        f"{'JVM heap MiB':>13}"
    )
    for s in samples:
        print(
            f"  {s.count:12,} {s.elapsed:10.1f} {s.rss_mib:9.1f} {s.heap_mib:9.2f} "
            f"{s.objects:11,} {s.jvm_mib:13.1f}"
        )
    result = verdict(samples, warmup)
    print(
        f"  after {result.after:,} {unit}: RSS moved {result.rss_range:.1f} MiB "
        f"({result.rss_slope:+.2f} MiB per 1,000), Python heap {result.heap_range:.2f} MiB "
        f"({result.heap_slope:+.3f} MiB per 1,000)"
    )
    print(
        f"  target flat within {FLAT_MIB:.0f} MiB after the first {warmup:,}: "
        f"{'met' if result.flat else 'NOT MET'}"
    )
    return result


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# -------------------------------------------------------------------------------- stream


def _start_stream(spark: Any, out: Path) -> Any:
    return (
        spark.readStream.format("rate-micro-batch")
        .option("rowsPerBatch", 10)
        .option("numPartitions", 1)
        .load()
        .selectExpr("value AS id", "value % 10 AS k", "timestamp AS at")
        .writeStream.format("parquet")
        .option("checkpointLocation", str(out) + "-checkpoint")
        .start(str(out))
    )


def _quiet_interrupted_writes(driver: Any) -> None:
    """Leave out the errors Spark logs, with their stacks, for the write ``stop`` interrupts.

    Stopping the stream interrupts the micro-batch under way; its task's writer logs the abort
    (``Utils``, ``FileFormatWriter``) after ``stop`` returned. Expected here, and only these
    two loggers are silenced.
    """
    jvm = driver._jvm
    level = jvm.org.apache.logging.log4j.Level.OFF
    for name in ("org.apache.spark.util.Utils", "org.apache.spark.sql.execution.datasources"):
        jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(name, level)


def _batch_id(query: Any) -> int:
    """The last completed micro-batch's id (-1 before the first)."""
    progress = query.lastProgress
    return int(progress["batchId"]) if progress else -1


def run_stream(
    spark: Any,
    driver: Any,
    batches: int,
    every: int,
    warmup: int,
    interval: float,
    scratch: Path,
    label: str,
    minutes: float | None = None,
) -> Verdict:
    """Run a stream of ``batches`` micro-batches with the adapter, sampling; print; return.

    ``minutes``: stop then if the micro-batches have not all run (the output says so).
    """
    events = scratch / f"soak-stream-{label}.jsonl"
    client = OpenLineage(transport=FileTransport(events), namespace="bench")
    install(spark, client, stream_interval=interval)
    memory = _Memory(driver)
    out = scratch / f"soak-stream-{label}"
    _quiet_interrupted_writes(driver)
    try:
        began = time.perf_counter()
        query = _start_stream(spark, out)
        memory.sample(0)
        target = every
        done = -1
        deadline = math.inf if minutes is None else began + 60 * minutes
        while done + 1 < batches:
            if time.perf_counter() > deadline:
                if memory.samples[-1].count != done + 1:
                    memory.sample(done + 1)
                break
            # Polled: the benchmark reads the query's progress as a user's monitoring would;
            # a sample is taken at the first poll at or past each multiple of ``every``.
            time.sleep(0.2)
            done = _batch_id(query)
            if not query.isActive:
                raise RuntimeError(f"the soak stream ended: {query.exception()}")
            if done + 1 >= target:
                memory.sample(done + 1)
                target = (done + 1) // every * every + every
        query.stop()
        duration = time.perf_counter() - began
        ran = _batch_id(query) + 1
        wait_finished()
    finally:
        uninstall(spark)
        client.close()
    print(
        f"\n{label} stream: {ran:,} micro-batches of 10 rows (rate-micro-batch to Parquet) "
        f"in {duration:.0f} s ({ran / duration:.1f} a second); RUNNING at most every "
        f"{interval:g} s" + (f" (stopped at --soak-minutes {minutes:g})" if ran < batches else "")
    )
    result = _print_samples(memory.samples, "batches", warmup)
    kinds = [e["eventType"] for e in _events(events)]
    running = kinds.count("RUNNING")
    bound = math.ceil(duration / interval) + 1 if interval > 0 else ran
    print(
        f"  events: {len(kinds)} ({kinds.count('START')} START, {running} RUNNING, "
        f"{kinds.count('COMPLETE')} COMPLETE): {running / ran:.3f} RUNNING per micro-batch; "
        f"the interval rule allows at most {bound} RUNNING in {duration:.0f} s: "
        f"{'within' if running <= bound else 'NOT WITHIN'}"
    )
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(str(out) + "-checkpoint", ignore_errors=True)
    return result


# -------------------------------------------------------------------------------- statements


def run_statements(
    spark: Any,
    driver: Any,
    statements: int,
    every: int,
    warmup: int,
    scratch: Path,
    label: str,
    minutes: float | None = None,
) -> Verdict:
    """Run ``statements`` small INSERTs with the adapter, sampling; print; return the verdict.

    ``minutes``: stop then if the statements have not all run (the output says so).
    """
    spark.sql("DROP TABLE IF EXISTS src")
    spark.sql("DROP TABLE IF EXISTS dst")
    spark.sql(
        "CREATE TABLE src USING parquet AS "
        "SELECT id, id % 10 AS k, CAST(id * 1.5 AS DOUBLE) AS v FROM range(1000)"
    )
    spark.sql("CREATE TABLE dst (k BIGINT, s DOUBLE) USING parquet")
    events = scratch / f"soak-statements-{label}.jsonl"
    client = OpenLineage(transport=FileTransport(events), namespace="bench")
    install(spark, client)
    memory = _Memory(driver)
    try:
        began = time.perf_counter()
        memory.sample(0)
        deadline = math.inf if minutes is None else began + 60 * minutes
        ran = 0
        for done in range(1, statements + 1):
            spark.sql(STATEMENT.format(i=done % 900))
            ran = done
            over = time.perf_counter() > deadline
            if done % every == 0 or done == statements or over:
                wait_finished()
                spark.sql("TRUNCATE TABLE dst")  # each INSERT adds a file: keep Spark's work even
                memory.sample(done)
            if over:
                break
        duration = time.perf_counter() - began
    finally:
        uninstall(spark)
        client.close()
    print(
        f"\n{label} statements: {ran:,} small INSERT INTO ... SELECT through spark.sql in "
        f"{duration:.0f} s ({ran / duration:.1f} a second)"
        + (f" (stopped at --soak-minutes {minutes:g})" if ran < statements else "")
    )
    result = _print_samples(memory.samples, "statements", warmup)
    kinds = [e["eventType"] for e in _events(events)]
    # The TRUNCATEs at the samples are runs too (each a START and a COMPLETE).
    print(
        f"  events: {len(kinds)} ({kinds.count('START')} START, "
        f"{kinds.count('COMPLETE')} COMPLETE, {kinds.count('FAIL')} FAIL)"
    )
    return result


# -------------------------------------------------------------------------------- wide table


@dataclass
class WideRow:
    """One limit's writes of the wide table."""

    limit: int
    seconds: list[float]
    event_bytes: list[int]
    column_lineage: bool


def run_wide(
    spark: Any, columns: int, writes: int, scratch: Path, label: str
) -> tuple[WideRow, WideRow]:
    """Write a ``columns``-column table ``writes`` times, the two limits alternating; print."""
    from benchmarks.spark import _adapter_time

    source = str(scratch / f"soak-wide-source-{label}")
    spark.range(10).write.mode("overwrite").parquet(source)
    # Read from files, so that every output column has an input column to come from (with the
    # schema declared: under Connect, files read by path without one get no column lineage).
    frame = (
        spark.read.schema("id BIGINT")
        .parquet(source)
        .selectExpr(*[f"id + {i} AS c{i}" for i in range(columns)])
    )
    conf = "spark.openlineage.columnLineage.schemaSizeLimit"
    rows = {limit: WideRow(limit, [], [], False) for limit in (1000, 2 * columns if columns else 1)}
    if label == "connect":
        # The Connect client reads a plan's columns from the server's EXPLAIN text, which Spark
        # cuts after this many fields (25 by default): set, as the Connect docs tell a user to.
        spark.conf.set("spark.sql.debug.maxToStringFields", str(columns + 100))
    path = str(scratch / f"soak-wide-{label}")
    frame.write.mode("overwrite").parquet(path)  # warm-up, without the adapter
    order = list(rows)
    for index in range(writes):
        limit = order[index % 2]
        row = rows[limit]
        if limit == 1000:
            spark.conf.unset(conf)  # the agent's default
        else:
            spark.conf.set(conf, str(limit))
        events = scratch / f"soak-wide-{label}-{index}.jsonl"
        client = OpenLineage(transport=FileTransport(events), namespace="bench")
        install(spark, client)
        spent: list[float] = []
        try:
            with _adapter_time(spent):
                frame.write.mode("overwrite").parquet(path)
            wait_finished()
        finally:
            uninstall(spark)
            client.close()
            spark.conf.unset(conf)
        lines = events.read_text(encoding="utf-8").splitlines()
        written = [json.loads(line) for line in lines]
        complete = [e for e in written if e["eventType"] == "COMPLETE"]
        if not complete:
            raise RuntimeError(f"the wide write with limit {limit} sent no COMPLETE event")
        row.seconds.append(sum(spent))
        row.event_bytes.append(sum(len(line.encode()) for line in lines))
        row.column_lineage = any(
            "columnLineage" in (o.get("facets") or {})
            for e in complete
            for o in e.get("outputs") or []
        )
        events.unlink()
    default, above = rows[1000], rows[order[1]]
    print(
        f"\n{label} wide table: {columns:,} columns written {writes} times (Parquet), the "
        f"schema size limit alternating"
    )
    print(
        f"  {'schemaSizeLimit':<24} {'writes':>6} {'column lineage':>14} {'events KiB':>11} "
        f"{'adapter ms (median)':>20} {'min':>7} {'max':>7}"
    )
    for name, row in (("1,000 (the default)", default), (f"{above.limit:,}", above)):
        if not row.seconds:
            continue
        ms = [s * 1000 for s in row.seconds]
        print(
            f"  {name:<24} {len(ms):>6} {'yes' if row.column_lineage else 'no':>14} "
            f"{statistics.median(row.event_bytes) / 1024:11.1f} {statistics.median(ms):20.1f} "
            f"{min(ms):7.1f} {max(ms):7.1f}"
        )
    return default, above


# -------------------------------------------------------------------------------- command line


def soak_options(parser: argparse.ArgumentParser) -> None:
    """Add the soak mode's options to the Spark benchmark's ``parser``."""
    parser.add_argument("--soak", action="store_true", help="the long-run (soak) benchmark")
    parser.add_argument("--soak-batches", type=int, default=10_000)
    parser.add_argument("--soak-statements", type=int, default=10_000)
    parser.add_argument("--soak-wide-writes", type=int, default=100)
    parser.add_argument("--soak-columns", type=int, default=5_000)
    parser.add_argument(
        "--soak-every", type=int, default=500, help="micro-batches or statements between samples"
    )
    parser.add_argument(
        "--soak-warmup", type=int, default=1_000, help="left out of the flatness verdict"
    )
    parser.add_argument(
        "--soak-interval", type=float, default=1.0, help="seconds between RUNNING events"
    )
    parser.add_argument(
        "--soak-minutes",
        type=float,
        help="stop the stream or the statements after this long (each; default: no limit)",
    )
    parser.add_argument(
        "--soak-parts", default=",".join(PARTS), help="which of stream,statements,wide to run"
    )


def run_soak(options: argparse.Namespace, connect_session: Callable[[int], Any]) -> bool:
    """Run the soak parts the options ask for, in each mode; return whether all were flat.

    Args:
        options: The Spark benchmark's parsed options (see :func:`soak_options`).
        connect_session: Makes a Spark Connect session to the local server on a port.

    Returns:
        ``True`` when every part's memory stayed flat after the warm-up.
    """
    from benchmarks.spark import _classic

    parts = [p.strip() for p in options.soak_parts.split(",") if p.strip()]
    unknown = set(parts) - set(PARTS)
    if unknown:
        raise SystemExit(f"--soak-parts: unknown {', '.join(sorted(unknown))}")
    every = max(1, options.soak_every)
    port: int | None = None
    if options.mode != "classic":
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
    scratch = Path(tempfile.mkdtemp(prefix="openlineage-bench-soak-"))
    driver = _classic(port, "openlineage_sdk_bench_soak", scratch / "warehouse")
    load = os.getloadavg()
    print(
        f"soak: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} CPUs; "
        f"samples every {every:,}"
    )
    tracemalloc.start(1)
    flat = True
    try:
        sessions: list[tuple[str, Any]] = []
        if options.mode in ("classic", "both"):
            sessions.append(("classic", driver))
        if options.mode in ("connect", "both") and port is not None:
            sessions.append(("connect", connect_session(port)))
        for label, spark in sessions:
            if "stream" in parts:
                flat &= run_stream(
                    spark,
                    driver,
                    options.soak_batches,
                    every,
                    options.soak_warmup,
                    options.soak_interval,
                    scratch,
                    label,
                    options.soak_minutes,
                ).flat
            if "statements" in parts:
                flat &= run_statements(
                    spark,
                    driver,
                    options.soak_statements,
                    every,
                    options.soak_warmup,
                    scratch,
                    label,
                    options.soak_minutes,
                ).flat
            if "wide" in parts:
                run_wide(spark, options.soak_columns, options.soak_wide_writes, scratch, label)
            if spark is not driver:
                spark.stop()
    finally:
        tracemalloc.stop()
        driver.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    return flat
