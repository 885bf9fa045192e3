"""What lineage costs a Spark write: the adapter against a plain write and the naive way.

    python -m benchmarks.spark [--rows 5000000] [--repeat 5] [--mode classic|connect|both]

It first writes ``--rows`` orders as Parquet; each round then reads them, filters, derives two
columns and writes the result to Parquet three ways, in an order that
rotates from round to round so no variant always runs first on a warm JVM:

* plain: ``df.write.parquet(path)``;
* adapter: the same call with the adapter installed (schema, inputs, column lineage and the
  statistics of the write are collected; the sink keeps them);
* naive: ``df.count()`` for the row count, then the write: what lineage costs done the obvious
  way, a second pass over the data.

It prints the median wall time of each and its ratio to plain. The target is adapter <= 1.05x.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from openlineage_sdk.spark import WriteLineage, install, uninstall


class _KeepLast:
    def __init__(self) -> None:
        self.last: WriteLineage | None = None

    def write_started(self, write: WriteLineage) -> None:
        pass

    def write_finished(self, write: WriteLineage) -> None:
        self.last = write


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
    """A typical step: read, filter, derive. Counting it means reading the data again."""
    return (
        spark.read.parquet(source)
        .where("amount >= 0")
        .selectExpr("id", "customer_id", "amount * 1.2 AS gross", "upper(sku) AS sku")
    )


class _Clock:
    """Wall time, and the executor CPU time the driver's status store recorded for the run.

    This machine is shared and its wall times swing by a factor of two from run to run; the CPU
    time the tasks spent varies far less, so both are reported.
    """

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
        return sum(stages.apply(i).executorCpuTime() for i in range(stages.size())) / 1e9

    def measure(self, action: Callable[[], None]) -> tuple[float, float]:
        cpu = self._cpu()
        start = time.perf_counter()
        action()
        wall = time.perf_counter() - start
        return wall, self._cpu() - cpu


def run(
    spark: Any, driver: Any, source: str, repeat: int, scratch: Path, label: str
) -> dict[str, float]:
    df = _frame(spark, source)
    rows = spark.read.parquet(source).count()
    sink = _KeepLast()
    counter = iter(range(1_000_000))
    out = scratch / "out"
    out.mkdir(exist_ok=True)

    def target() -> str:
        return str(out / f"{label}-{next(counter)}")

    def plain() -> None:
        df.write.parquet(target())

    def adapter() -> None:
        install(spark, sink)
        try:
            df.write.parquet(target())
        finally:
            uninstall(spark)

    def naive() -> None:
        df.count()
        df.write.parquet(target())

    variants: dict[str, Callable[[], None]] = {"plain": plain, "adapter": adapter, "naive": naive}
    names = list(variants)
    for name in names:  # warm-up: JIT, file system caches, the listener's first call
        variants[name]()
    clock = _Clock(driver)
    times: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    for round_ in range(repeat):
        order = names[round_ % len(names) :] + names[: round_ % len(names)]
        for name in order:
            wall, spent = clock.measure(variants[name])
            times[name].append(wall)
            cpu[name].append(spent)
        for child in out.iterdir():
            shutil.rmtree(child, ignore_errors=True)
    medians = {name: statistics.median(values) for name, values in times.items()}
    cpu_medians = {name: statistics.median(values) for name, values in cpu.items()}
    written = sink.last.output.stats if sink.last and sink.last.output else None
    print(f"\n{label}: {rows:,} rows to Parquet, median of {repeat}")
    print("  variant   wall (s)  ratio   executor CPU (s)  ratio   wall of each run")
    for name in names:
        ratio = medians[name] / medians["plain"]
        cpu_ratio = cpu_medians[name] / cpu_medians["plain"]
        print(
            f"  {name:<8} {medians[name]:8.3f}  {ratio:5.3f}x  {cpu_medians[name]:14.3f}  "
            f"{cpu_ratio:6.3f}x   " + ", ".join(f"{t:.2f}" for t in times[name])
        )
    print(f"  adapter's statistics of the last write: {written}")
    tiny = spark.range(10).selectExpr("id")
    fixed: list[float] = []
    for _ in range(repeat * 2):
        start = time.perf_counter()
        tiny.write.parquet(target())
        bare = time.perf_counter() - start
        install(spark, sink)
        try:
            start = time.perf_counter()
            tiny.write.parquet(target())
            fixed.append(time.perf_counter() - start - bare)
        finally:
            uninstall(spark)
    print(
        f"  adapter's fixed cost per write (10-row writes): {statistics.median(fixed) * 1000:.0f} ms"
    )
    return medians


def _classic(connect_port: int | None) -> Any:
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[2]")
        .appName("openlineage_sdk_bench")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
    )
    if connect_port is not None:
        builder = (
            builder.config("spark.plugins", "org.apache.spark.sql.connect.SparkConnectPlugin")
            .config("spark.connect.grpc.binding.address", "127.0.0.1")
            .config("spark.connect.grpc.binding.port", str(connect_port))
        )
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def main() -> None:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--mode", choices=["classic", "connect", "both"], default="classic")
    options = parser.parse_args()

    port: int | None = None
    if options.mode != "classic":
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
    spark = _classic(port)
    scratch = Path(tempfile.mkdtemp(prefix="openlineage-bench-"))
    try:
        source = _source(spark, options.rows, scratch)
        if options.mode in ("classic", "both"):
            run(spark, spark, source, options.repeat, scratch, "classic")
        if options.mode in ("connect", "both"):
            from pyspark.sql.connect.session import SparkSession as ConnectSession

            remote = ConnectSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
            run(remote, spark, source, options.repeat, scratch, "connect")
            remote.stop()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        spark.stop()


if __name__ == "__main__":
    main()
