"""What lineage costs a Structured Streaming query: rows per second with the adapter and without.

    python -m benchmarks.spark_streams [--rows 5000000] [--batches 20] [--repeat 5]
                                       [--mode classic|connect|both] [--interval 0]

It first writes ``--rows`` orders as ``--batches`` Parquet files; each round then streams them
(``maxFilesPerTrigger`` 1, so one micro-batch per file, ``availableNow``) through a filter and
two derived columns into a Parquet sink, twice, back to back, in an order that alternates from
round to round: plain, and with the adapter installed (automatic mode, every event written to a
JSON Lines file). With the adapter the stream is one run whose START names the folders, a
RUNNING event per micro-batch (``--interval 0``, the most the adapter ever sends; the default
interval sends one a minute) with the rows read and written, counted by an observation Spark
computes inside each micro-batch's job, and a COMPLETE with the totals. Installing is done once
per round before the timed part, as an application does; the first query of a session also
registers the adapter's streaming listener, which is timed.

It prints the rows processed per second of each variant (median of the rounds), the ratio of
the adapter's to the plain one, the ratio within each round, and the verdict against the target
(adapter >= 0.95 of plain) with its 95% interval from resampling the rounds. Wall times on a
shared machine swing from round to round by more than the target's margin, so it also prints
what swings less: the executor CPU time of each variant's micro-batches (the row count the
adapter observes is computed there), and the adapter's own Python time per stream (describing
the start, reading each micro-batch's progress and building its RUNNING event, the end), which
the listener spends beside the micro-batches, not in front of them.
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
from pathlib import Path
from typing import Any
from unittest import mock

from benchmarks.spark import _classic, _Clock
from openlineage_sdk.client import OpenLineage
from openlineage_sdk.spark import install, uninstall
from openlineage_sdk.transports import FileTransport

TARGET = 0.95  # the adapter's stream must keep at least this share of the plain throughput
SCHEMA = "id BIGINT, customer_id BIGINT, amount DOUBLE, sku STRING"


def _source(spark: Any, rows: int, files: int, scratch: Path) -> Path:
    """The orders as ``files`` Parquet files: one micro-batch each."""
    folder = scratch / "landing-orders"
    spark.range(rows).selectExpr(
        "id",
        "id % 100 AS customer_id",
        "CAST(id * 1.5 AS DOUBLE) AS amount",
        "concat('sku-', CAST(id % 1000 AS STRING)) AS sku",
    ).repartition(files).write.parquet(str(folder))
    return folder


def _stream(spark: Any, source: Path, out: Path) -> None:
    query = (
        spark.readStream.schema(SCHEMA)
        .option("maxFilesPerTrigger", 1)
        .parquet(str(source))
        .where("amount >= 0 AND sku LIKE 'sku-%'")
        .selectExpr("id", "customer_id", "amount * 1.2 AS gross", "upper(sku) AS sku")
        .writeStream.format("parquet")
        .option("checkpointLocation", str(out) + "-checkpoint")
        .trigger(availableNow=True)
        .start(str(out))
    )
    query.awaitTermination()


@contextlib.contextmanager
def _adapter_time(spent: list[float]) -> Iterator[None]:
    """Add to ``spent[0]`` the time the adapter's own stream code takes (thread CPU aside).

    Its ``start`` less the user's ``start`` inside it, each micro-batch's progress, the end.
    """
    from openlineage_sdk.spark.executions.streams import _runs as _streams

    def timed(method: Callable[..., Any]) -> Any:
        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                spent[0] += time.perf_counter() - start

        return call

    start_method = _streams._Streams.start

    @functools.wraps(start_method)
    def start(self: Any, writer: Any, method: str, original: Any, args: Any, kwargs: Any) -> Any:
        inside = [0.0]

        def user_start(*a: Any, **k: Any) -> Any:
            began = time.perf_counter()
            try:
                return original(*a, **k)
            finally:
                inside[0] = time.perf_counter() - began

        began = time.perf_counter()
        try:
            return start_method(self, writer, method, user_start, args, kwargs)
        finally:
            spent[0] += time.perf_counter() - began - inside[0]

    with (
        mock.patch.object(_streams._Streams, "start", start),
        mock.patch.object(_streams._StreamRun, "progress", timed(_streams._StreamRun.progress)),
        mock.patch.object(_streams._StreamRun, "end", timed(_streams._StreamRun.end)),
    ):
        yield


def _interval(
    throughput: list[float], plain: list[float], resamples: int = 2000
) -> tuple[float, float]:
    """The 95% interval of the ratio of median throughputs, resampling whole rounds."""
    draw = random.Random(0)
    count = len(plain)
    ratios = []
    for _ in range(resamples):
        picks = [draw.randrange(count) for _ in range(count)]
        ratios.append(
            statistics.median(throughput[i] for i in picks)
            / statistics.median(plain[i] for i in picks)
        )
    ratios.sort()
    return ratios[int(resamples * 0.025)], ratios[int(resamples * 0.975) - 1]


def run(
    spark: Any,
    driver: Any,
    source: Path,
    rows: int,
    batches: int,
    repeat: int,
    interval: float,
    scratch: Path,
    label: str,
) -> float:
    """Time the stream plain and with the adapter on ``spark``; print; return the ratio."""
    events = scratch / f"events-{label}.jsonl"
    client = OpenLineage(transport=FileTransport(events), namespace="bench")
    counter = iter(range(1_000_000))
    cpu_of = _Clock(driver).executor_cpu  # the executor CPU time so far, as the batch rows read it
    cpu: dict[bool, list[float]] = {False: [], True: []}
    own: list[float] = []

    def once(traced: bool) -> float:
        out = scratch / f"out-{label}-{next(counter)}"
        if traced:
            install(spark, client, stream_interval=interval)
        spent = [0.0]
        try:
            before = cpu_of()
            with _adapter_time(spent) if traced else contextlib.nullcontext():
                start = time.perf_counter()
                _stream(spark, source, out)
                wall = time.perf_counter() - start
            cpu[traced].append(cpu_of() - before)
        finally:
            if traced:
                uninstall(spark)
                own.append(spent[0])
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(str(out) + "-checkpoint", ignore_errors=True)
        return rows / wall

    once(False)  # warm-up: JIT, caches, the first listener
    once(True)
    cpu = {False: [], True: []}
    own.clear()
    speeds: dict[bool, list[float]] = {False: [], True: []}
    for round_ in range(repeat):
        for traced in (round_ % 2 == 1, round_ % 2 == 0):
            speeds[traced].append(once(traced))
    plain, adapter = statistics.median(speeds[False]), statistics.median(speeds[True])
    ratio = adapter / plain
    paired = statistics.median(a / p for a, p in zip(speeds[True], speeds[False], strict=True))
    low, high = _interval(speeds[True], speeds[False])
    print(
        f"\n{label} stream: {rows:,} rows in {batches} micro-batches, filtered and derived to "
        f"Parquet; median of {repeat}"
    )
    for name, traced in (("plain", False), ("adapter", True)):
        values = speeds[traced]
        print(
            f"  {name:<8} {statistics.median(values):12,.0f} rows/s   "
            + ", ".join(f"{v:,.0f}" for v in values)
        )
    print(f"  ratio within a round (median of {repeat}): {paired:.3f}")
    met = ratio >= TARGET
    line = (
        f"  target adapter >= {TARGET} of plain (ratio of medians): "
        f"{'met' if met else 'NOT MET'} ({ratio:.3f}; 95% interval over the rounds "
        f"{low:.3f} to {high:.3f}"
    )
    if met and low < TARGET:
        line += ": it reaches below the target, more rounds would tell"
    elif not met and high >= TARGET:
        line += ": it reaches above the target, more rounds would tell"
    print(line + ")")
    plain_cpu, adapter_cpu = statistics.median(cpu[False]), statistics.median(cpu[True])
    print(
        f"  executor CPU per stream (median): plain {plain_cpu:.2f} s, adapter {adapter_cpu:.2f} s "
        f"({adapter_cpu / plain_cpu:.3f}x)"
    )
    mine = statistics.median(own)
    print(
        f"  adapter's own Python time per stream (median): {mine * 1000:.0f} ms, "
        f"{mine * 1000 / batches:.1f} ms per micro-batch"
    )
    client.close()
    lines = events.read_text(encoding="utf-8").splitlines()
    kinds = [json.loads(line)["eventType"] for line in lines]
    print(
        f"  events written: {len(lines)} ({kinds.count('RUNNING')} RUNNING); a run's: "
        f"START, {batches} RUNNING, COMPLETE"
    )
    return ratio


def main(argv: list[str]) -> None:
    """Run the benchmark and print the tables (``argv`` without the program name)."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.spark_streams", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--mode", choices=["classic", "connect", "both"], default="both")
    parser.add_argument(
        "--interval", type=float, default=0.0, help="seconds between RUNNING events (default 0)"
    )
    options = parser.parse_args(argv)
    port: int | None = None
    if options.mode != "classic":
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
    spark = _classic(port, "openlineage_sdk_bench_streams")
    scratch = Path(tempfile.mkdtemp(prefix="openlineage-bench-streams-"))
    try:
        source = _source(spark, options.rows, options.batches, scratch)
        common = (options.rows, options.batches, options.repeat, options.interval, scratch)
        if options.mode in ("classic", "both"):
            run(spark, spark, source, *common, "classic")
        if options.mode in ("connect", "both"):
            from pyspark.sql.connect.session import SparkSession as ConnectSession

            remote = ConnectSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
            run(remote, spark, source, *common, "connect")
            remote.stop()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        spark.stop()


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
