"""Structured Streaming: a query is one run, its micro-batches RUNNING events, in both modes.

Every stream here has an ``availableNow`` trigger (it ends by itself once its files are read)
or is stopped by the test. Every event is checked against the spec's schemas (strict, with
formats): by the ``memory`` fixture, or line by line for the file a Connect server's Python
worker also writes to.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import OpenLineage, RunEvent
from openlineage_sdk.spark import install, uninstall
from openlineage_sdk.spark.describe._stream_datasets import (
    StreamSink,
    StreamSource,
    kafka_namespace,
    kafka_offset_topics,
    kafka_topics,
)
from openlineage_sdk.spark.session import open_session, session_kind
from openlineage_sdk.transports import FileTransport
from tests.spark._support import NAMESPACE, Captured, RunEvents, strict_problems

APP = "openlineage_sdk_tests"
V1 = "write_to_micro_batch_data_source_v1"
V2 = "write_to_data_source_v2"
SCHEMA = "id INT, amount DOUBLE, status STRING"


def _landing(folder: Path, files: int, rows: int = 10) -> Path:
    """JSON files as a source system drops them: ``files`` files of ``rows`` orders."""
    folder.mkdir(parents=True, exist_ok=True)
    for index in range(files):
        lines = [
            json.dumps({"id": index * rows + row, "amount": row * 1.5, "status": "ok"})
            for row in range(rows)
        ]
        (folder / f"orders-{index}.json").write_text("\n".join(lines) + "\n")
    return folder


def _stream_runs(captured: Captured) -> list[RunEvents]:
    return [r for r in captured.runs() if r.job_type() == "STREAMING"]


def _rows(dataset: Any, key: str) -> int | None:
    facets = dataset.input_facets if key == "inputStatistics" else dataset.output_facets
    if facets is None:
        return None
    facet = facets.input_statistics if key == "inputStatistics" else facets.output_statistics
    return facet.row_count if facet is not None else None


def _stream(spark: Any, folder: Path, files_per_batch: int = 1) -> Any:
    return (
        spark.readStream.schema(SCHEMA)
        .option("maxFilesPerTrigger", files_per_batch)
        .json(str(folder))
    )


def _even_orders(spark: Any, landing: Path, out: Path, checkpoint: Path) -> Any:
    """The orders with an even id, streamed from ``landing`` to Parquet at ``out``, to the end."""
    query = (
        _stream(spark, landing)
        .where("id % 2 = 0")
        .writeStream.format("parquet")
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start(str(out))
    )
    query.awaitTermination()
    return query


def test_a_file_stream_to_a_parquet_sink_is_one_run_with_its_folders_and_rows(
    mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    landing = _landing(data_dir / "landing", files=3)
    out = data_dir / "bronze" / "orders"
    query = _even_orders(mode_spark, landing, out, data_dir / "checkpoint")

    [run] = _stream_runs(auto)
    assert run.types[0] == "START"
    assert run.types[-1] == "COMPLETE"
    # The default interval (60 s) leaves no room for a RUNNING event in so short a stream.
    assert run.types == ["START", "COMPLETE"]
    assert run.job_name == f"{APP}.{V1}.bronze_orders"
    job_type = run.start.job.facets.job_type if run.start.job.facets else None
    assert job_type is not None
    assert (job_type.job_type, job_type.processing_type, job_type.integration) == (
        "STREAMING",
        "STREAMING",
        "SPARK",
    )
    [source] = run.start.inputs or []
    # The folder the stream reads, not each file of it (the JVM agent names each file).
    assert (source.namespace, source.name) == ("file", str(landing))
    assert source.facets is not None
    assert source.facets.schema_ is not None
    assert [(f["name"], f["type"]) for f in source.facets.schema_.fields or []] == [
        ("id", "integer"),
        ("amount", "double"),
        ("status", "string"),
    ]
    assert source.facets.data_source is not None
    [sink] = run.start.outputs or []
    assert (sink.namespace, sink.name) == ("file", str(out))
    assert sink.facets is not None
    assert sink.facets.schema_ is not None
    assert [f["name"] for f in sink.facets.schema_.fields or []] == ["id", "amount", "status"]

    # The whole run's rows: 30 read, the 15 with an even id written.
    [read] = run.end.inputs or []
    [written] = run.end.outputs or []
    assert _rows(read, "inputStatistics") == 30
    assert _rows(written, "outputStatistics") == 15
    assert run.end.run.facets is not None
    assert run.end.run.facets.extraction_error is None
    # The query computed what it computes without the adapter: the rows it wrote are these.
    assert mode_spark.read.parquet(str(out)).count() == 15
    assert query.lastProgress["batchId"] == 2  # one micro-batch per file, as asked


def test_a_streams_totals_do_not_wait_for_its_listener_reports(
    mode_spark: Any, auto: Captured, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a loaded machine the listener's reports can arrive after the query ended: the end
    counts the micro-batches from the query's own ``recentProgress``, which a Connect server
    sends in another JSON shape than its listener's (an observed row as values and schema)."""
    from openlineage_sdk.spark.executions.streams import _runs

    # Every report the listener delivers arrives too late to be counted.
    monkeypatch.setattr(_runs._Streams, "progress", lambda self, progress: None)
    landing = _landing(data_dir / "landing", files=3)
    _even_orders(mode_spark, landing, data_dir / "silver" / "orders", data_dir / "checkpoint")

    [run] = _stream_runs(auto)
    assert run.types == ["START", "COMPLETE"]
    [read] = run.end.inputs or []
    [written] = run.end.outputs or []
    assert _rows(read, "inputStatistics") == 30
    assert _rows(written, "outputStatistics") == 15


def test_each_micro_batch_is_a_running_event_when_the_interval_is_zero(
    mode_spark: Any, client: OpenLineage, memory: Any, data_dir: Path
) -> None:
    landing = _landing(data_dir / "landing", files=3, rows=4)
    install(mode_spark, client, stream_interval=0)
    try:
        query = (
            _stream(mode_spark, landing)
            .writeStream.format("parquet")
            .option("checkpointLocation", str(data_dir / "checkpoint"))
            .trigger(availableNow=True)
            .start(str(data_dir / "out"))
        )
        query.awaitTermination()
    finally:
        uninstall(mode_spark)
    [run] = _stream_runs(Captured(memory))
    assert run.types == ["START", "RUNNING", "RUNNING", "RUNNING", "COMPLETE"]
    # Each RUNNING event carries that micro-batch's rows; the COMPLETE the whole run's.
    running = [e for e in run.events if e.event_type == "RUNNING"]
    assert [_rows((e.inputs or [])[0], "inputStatistics") for e in running] == [4, 4, 4]
    assert [_rows((e.outputs or [])[0], "outputStatistics") for e in running] == [4, 4, 4]
    assert _rows((run.end.inputs or [])[0], "inputStatistics") == 12
    # Every event names the stream's datasets; their facets stay those of the START.
    for event in run.events:
        assert [i.name for i in event.inputs or []] == [str(landing)]


@pytest.mark.parametrize("interval", [1.0])
def test_a_long_stream_sends_at_most_one_running_event_per_interval(
    mode_spark: Any, client: OpenLineage, memory: Any, data_dir: Path, interval: float
) -> None:
    install(mode_spark, client, stream_interval=interval)
    try:
        # From before the start: the run's clock starts inside it, so every RUNNING event the
        # interval allows falls within ``elapsed``, however slow the machine.
        began = time.monotonic()
        query = (
            mode_spark.readStream.format("rate")
            .option("rowsPerSecond", 200)
            .load()
            .writeStream.format("memory")
            .queryName(f"rates_{session_kind(mode_spark)}")
            .trigger(processingTime="100 milliseconds")
            .start()
        )
        while len(query.recentProgress) < 12:
            time.sleep(0.2)
        query.stop()
        elapsed = time.monotonic() - began
    finally:
        uninstall(mode_spark)
    [run] = _stream_runs(Captured(memory))
    batches = len(query.recentProgress)
    running = run.types.count("RUNNING")
    assert run.types[0] == "START"
    assert run.types[-1] == "COMPLETE"  # stopped by the user
    assert batches >= 12
    # Many micro-batches, at most one RUNNING event per interval (plus the first's edge).
    assert running <= elapsed / interval + 1
    assert running < batches
    # rate and memory are no datasets, as the JVM agent has none for them.
    assert all(not e.inputs and not e.outputs for e in run.events)
    assert run.job_name == f"{APP}.{V2}.rates_{session_kind(mode_spark)}"


def test_a_stream_stopped_by_the_user_completes(
    mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    landing = _landing(data_dir / "landing", files=2)
    query = (
        _stream(mode_spark, landing)
        .writeStream.format("console")
        .option("numRows", 1)
        .trigger(processingTime="1 second")
        .start()
    )
    while not query.recentProgress:
        time.sleep(0.2)
    query.stop()
    [run] = _stream_runs(auto)
    assert run.types[0] == "START"
    assert run.types[-1] == "COMPLETE"
    assert [i.name for i in run.start.inputs or []] == [str(landing)]
    assert not run.start.outputs  # the console is no dataset
    assert _rows((run.end.inputs or [])[0], "inputStatistics") is not None


def test_a_stream_that_fails_is_a_fail_and_its_exception_reaches_the_user(
    mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    from pyspark.errors import StreamingQueryException

    landing = _landing(data_dir / "landing", files=1)

    def broken(batch: Any, batch_id: int) -> None:
        raise ValueError(f"bad batch {batch_id}")

    query = (
        _stream(mode_spark, landing)
        .writeStream.foreachBatch(broken)
        .option("checkpointLocation", str(data_dir / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    with pytest.raises(StreamingQueryException, match="bad batch 0"):
        query.awaitTermination()
    [run] = _stream_runs(auto)
    assert run.types == ["START", "FAIL"]
    facets = run.end.run.facets
    assert facets is not None
    assert facets.error_message is not None
    assert "bad batch 0" in facets.error_message.message


def test_a_start_that_raises_is_a_fail_with_the_users_exception(
    mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    from pyspark.errors import AnalysisException

    landing = _landing(data_dir / "landing", files=1)
    counts = _stream(mode_spark, landing).groupBy("status").count()
    writer = (
        counts.writeStream.outputMode("append")  # an aggregation without a watermark
        .format("parquet")
        .option("checkpointLocation", str(data_dir / "checkpoint"))
    )
    with pytest.raises(AnalysisException) as raised:
        writer.start(str(data_dir / "out"))
    [run] = _stream_runs(auto)
    assert run.types == ["START", "FAIL"]
    facets = run.end.run.facets
    assert facets is not None
    assert facets.error_message is not None
    assert str(raised.value).splitlines()[0] in facets.error_message.message


def _progress(progress: Any) -> dict[str, Any]:
    """A query's progress as a dict: PySpark 3.5 gives dicts, 4.x progress objects."""
    return progress if isinstance(progress, dict) else json.loads(progress.json)


def test_a_table_stream_to_a_table_is_named_by_the_tables(
    mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    kind = session_kind(mode_spark)
    source, target = f"stream_orders_{kind}", f"stream_orders_copy_{kind}"
    mode_spark.sql(f"DROP TABLE IF EXISTS {source}")
    mode_spark.sql(f"DROP TABLE IF EXISTS {target}")
    mode_spark.range(20).selectExpr("id", "id * 2 AS doubled").write.saveAsTable(source)
    auto.clear()
    query = (
        mode_spark.readStream.table(source)
        .writeStream.option("checkpointLocation", str(data_dir / "checkpoint"))
        .trigger(availableNow=True)
        .toTable(target)
    )
    query.awaitTermination()
    [run] = _stream_runs(auto)
    assert run.types == ["START", "COMPLETE"]
    assert run.job_name == f"{APP}.{V1}.default_{target}"
    [read] = run.start.inputs or []
    [written] = run.start.outputs or []
    for dataset, table in ((read, source), (written, target)):
        assert dataset.namespace == "file"
        assert dataset.name.endswith(f"/warehouse/{table}")
        assert dataset.facets is not None
        assert dataset.facets.symlinks is not None
        assert [s["name"] for s in dataset.facets.symlinks.identifiers] == [f"default.{table}"]
    assert read.facets is not None
    assert read.facets.schema_ is not None
    assert [f["name"] for f in read.facets.schema_.fields or []] == ["id", "doubled"]
    assert _rows((run.end.inputs or [])[0], "inputStatistics") == 20
    # Once seen under load without its sink's statistics: the progress Spark reported says why.
    progress = [_progress(p) for p in query.recentProgress]
    assert _rows((run.end.outputs or [])[0], "outputStatistics") == 20, (run.types, progress)
    assert mode_spark.table(target).count() == 20


def test_a_trigger_that_ran_no_batch_leaves_the_sinks_statistics_whole(
    mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    """Spark reports a trigger that found no new data (no batch ran) as a progress of its own
    once ``noDataProgressEventInterval`` passed since the last one (10 s by default, reached on
    a loaded machine; 0 here). Its sink wrote nothing (``numOutputRows`` -1, no observed
    metrics), which must not erase the rows the batches before it wrote."""
    kind = session_kind(mode_spark)
    source, target = f"no_data_source_{kind}", f"no_data_target_{kind}"
    mode_spark.sql(f"DROP TABLE IF EXISTS {source}")
    mode_spark.sql(f"DROP TABLE IF EXISTS {target}")
    mode_spark.range(30).selectExpr("id").write.saveAsTable(source)
    key = "spark.sql.streaming.noDataProgressEventInterval"
    before = mode_spark.conf.get(key)
    mode_spark.conf.set(key, "0")
    try:
        auto.clear()
        query = (
            mode_spark.readStream.table(source)
            .writeStream.option("checkpointLocation", str(data_dir / "checkpoint"))
            .trigger(availableNow=True)
            .toTable(target)
        )
        query.awaitTermination()
        reported = [_progress(p) for p in query.recentProgress]
        # The no-data trigger was reported, after the batch that wrote the rows.
        assert any("addBatch" not in p["durationMs"] for p in reported), reported
        [run] = _stream_runs(auto)
        assert _rows((run.end.outputs or [])[0], "outputStatistics") == 30
        assert _rows((run.end.inputs or [])[0], "inputStatistics") == 30
    finally:
        mode_spark.conf.set(key, before)
        mode_spark.sql(f"DROP TABLE IF EXISTS {source}")
        mode_spark.sql(f"DROP TABLE IF EXISTS {target}")


def test_each_file_format_is_its_folder_trimmed_as_batch_paths_are(
    mode_spark: Any, auto: Captured, data_dir: Path
) -> None:
    frame = mode_spark.range(6).selectExpr("id", "CAST(id AS STRING) AS value")
    for fmt in ("csv", "json", "parquet", "orc", "text"):
        # A date folder under the dataset's own: the dataset is the folder above it.
        folder = data_dir / fmt / "dt=2025-09-01"
        written = frame.select("value") if fmt == "text" else frame
        written.write.format(fmt).save(str(folder))
    auto.clear()
    for fmt in ("csv", "json", "parquet", "orc", "text"):
        reader = mode_spark.readStream.format(fmt)
        if fmt != "text":
            reader = reader.schema("id BIGINT, value STRING")
        query = (
            reader.load(str(data_dir / fmt / "dt=2025-09-01"))
            .writeStream.format("memory")
            .queryName(f"formats_{fmt}_{session_kind(mode_spark)}")
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination()
    runs = _stream_runs(auto)
    assert len(runs) == 5
    for fmt, run in zip(("csv", "json", "parquet", "orc", "text"), runs, strict=True):
        [source] = run.start.inputs or []
        assert (source.namespace, source.name) == ("file", str(data_dir / fmt)), fmt
        subset = source.input_facets.subset if source.input_facets else None
        assert subset is not None, fmt  # the location before trimming, as for batch reads
        assert run.types == ["START", "COMPLETE"], fmt
        assert _rows((run.end.inputs or [])[0], "inputStatistics") == 6, fmt
        assert not run.start.outputs  # memory: no dataset


@pytest.fixture
def file_events(tmp_path: Path) -> Iterator[tuple[OpenLineage, Path]]:
    """A client writing to a JSON Lines file (a Connect server's worker can write there too)."""
    path = tmp_path / "events.jsonl"
    with OpenLineage(transport=FileTransport(path), namespace=NAMESPACE) as client:
        yield client, path


def _read_events(path: Path) -> list[RunEvent]:
    from openlineage_sdk import read_event

    lines = path.read_text().splitlines()
    for line in lines:
        assert strict_problems(line) == [], line
    return [read_event(line) for line in lines]  # type: ignore[misc]


def test_the_writes_of_a_foreach_batch_function_are_children_of_the_streams_run(
    mode_spark: Any, file_events: tuple[OpenLineage, Path], data_dir: Path
) -> None:
    client, path = file_events
    landing = _landing(data_dir / "landing", files=2, rows=5)
    target = data_dir / "silver" / "orders"

    def upsert(batch: Any, batch_id: int) -> None:
        batch.withColumn("batch", batch.id * 0 + batch_id).write.mode("append").parquet(str(target))

    install(mode_spark, client)
    try:
        query = (
            _stream(mode_spark, landing)
            .writeStream.foreachBatch(upsert)
            .option("checkpointLocation", str(data_dir / "checkpoint"))
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination()
    finally:
        uninstall(mode_spark)
    client.flush()
    events = _read_events(path)
    streams = [e for e in events if e.job.facets and e.job.facets.job_type.job_type == "STREAMING"]
    assert [e.event_type for e in streams] == ["START", "COMPLETE"]
    stream_run = streams[0].run.run_id
    assert streams[0].job.name == f"{APP}.{V1}"  # no dataset of its own, no name given
    writes = [e for e in events if e.job.facets and e.job.facets.job_type.job_type == "SQL_JOB"]
    runs: dict[str, list[RunEvent]] = {}
    for event in writes:
        runs.setdefault(event.run.run_id, []).append(event)
    assert len(runs) == 2  # one per micro-batch
    for batch_events in runs.values():
        assert [e.event_type for e in batch_events] == ["START", "COMPLETE"]
        start = batch_events[0]
        parent = start.run.facets.parent if start.run.facets else None
        assert parent is not None
        assert parent.run == {"runId": stream_run}
        assert parent.job == {"namespace": NAMESPACE, "name": streams[0].job.name}
        # The batch's rows come from the stream's source: the graph joins at the folder.
        assert [(i.namespace, i.name) for i in start.inputs or []] == [("file", str(landing))]
        assert [(o.namespace, o.name) for o in start.outputs or []] == [("file", str(target))]
        [written] = batch_events[-1].outputs or []
        assert _rows(written, "outputStatistics") == 5
    assert mode_spark.read.parquet(str(target)).count() == 10


def test_kafka_is_named_as_the_agent_names_it_from_the_options(mode_spark: Any) -> None:
    """No broker or connector here: the naming, from the options both modes read."""
    session = open_session(mode_spark)
    try:
        _kafka_names(session, mode_spark)
    finally:
        session.close()


def _kafka_names(session: Any, mode_spark: Any) -> None:
    servers = {"kafka.bootstrap.servers": "Broker-1.example.com:9092,broker-2:9092"}
    problems: list[str] = []
    subscribed = session.source_datasets(
        StreamSource("kafka", options={**servers, "subscribe": "orders, payments"}), problems
    )
    assert [(d.identity.namespace, d.identity.name) for d in subscribed] == [
        ("kafka://Broker-1.example.com:9092", "orders"),
        ("kafka://Broker-1.example.com:9092", "payments"),
    ]
    assert subscribed[0].schema is not None
    assert [f["name"] for f in subscribed[0].schema][:2] == ["key", "value"]
    assigned = session.source_datasets(
        StreamSource(
            "kafka",
            options={"kafka.bootstrap.servers": "SASL_SSL://b:9093", "assign": '{"t1":[0,1]}'},
        ),
        problems,
    )
    assert [(d.identity.namespace, d.identity.name) for d in assigned] == [("kafka://b:9093", "t1")]
    # A pattern names no topic yet: the micro-batches' offsets will.
    pattern = StreamSource("kafka", options={**servers, "subscribePattern": "orders.*"})
    assert session.source_datasets(pattern, problems) == []
    assert problems == []
    sink = session.sink_dataset(StreamSink("kafka", options={**servers, "topic": "out"}), problems)
    assert sink is not None
    assert (sink.identity.namespace, sink.identity.name) == (
        "kafka://Broker-1.example.com:9092",
        "out",
    )
    assert kafka_offset_topics('{"orders-eu":{"0":12},"orders-us":{"0":3}}') == [
        "orders-eu",
        "orders-us",
    ]
    assert kafka_topics({"subscribePattern": "x.*"}) is None
    assert kafka_namespace({"KAFKA.BOOTSTRAP.SERVERS": "h:1"}) == "kafka://h:1"
    if session.kind == "connect":
        # The client's plan of a Kafka stream, as the user builds it (nothing is sent).
        frame = mode_spark.readStream.format("kafka").options(**servers, subscribe="orders").load()
        sources, static = session.stream_sources(frame, problems)
        assert [(s.format, kafka_topics(s.options)) for s in sources] == [("kafka", ["orders"])]
        assert static == []


def test_rate_and_memory_and_console_are_no_datasets(mode_spark: Any) -> None:
    session = open_session(mode_spark)
    problems: list[str] = []
    try:
        for fmt in ("rate", "memory", "socket"):
            assert session.source_datasets(StreamSource(fmt), problems) == []
        for fmt in ("memory", "console", "noop", "foreach"):
            assert session.sink_dataset(StreamSink(fmt), problems) is None
        assert session.sink_dataset(StreamSink(None, foreach_batch=True), problems) is None
    finally:
        session.close()
    assert problems == []


def test_in_explicit_mode_a_stream_adds_its_datasets_to_the_current_run(
    mode_spark: Any, client: OpenLineage, memory: Any, data_dir: Path
) -> None:
    landing = _landing(data_dir / "landing", files=2)
    out = data_dir / "out"
    install(mode_spark, mode="explicit")
    try:
        with client.run("orders.ingest"):
            query = (
                _stream(mode_spark, landing)
                .writeStream.format("parquet")
                .option("checkpointLocation", str(data_dir / "checkpoint"))
                .trigger(availableNow=True)
                .start(str(out))
            )
            query.awaitTermination()
    finally:
        uninstall(mode_spark)
    runs = Captured(memory).runs()
    assert [(r.job_name, r.types) for r in runs] == [("orders.ingest", ["START", "COMPLETE"])]
    [run] = runs
    [read] = run.end.inputs or []
    [written] = run.end.outputs or []
    assert (read.name, written.name) == (str(landing), str(out))
    assert _rows(read, "inputStatistics") == 20
    assert _rows(written, "outputStatistics") == 20


def test_a_stream_still_running_when_the_adapter_is_removed_is_aborted(
    mode_spark: Any, client: OpenLineage, memory: Any
) -> None:
    install(mode_spark, client)
    query = (
        mode_spark.readStream.format("rate")
        .load()
        .writeStream.format("memory")
        .queryName(f"abandoned_{session_kind(mode_spark)}")
        .trigger(processingTime="200 milliseconds")
        .start()
    )
    try:
        while not query.recentProgress:
            time.sleep(0.2)
        uninstall(mode_spark)
        [run] = _stream_runs(Captured(memory))
        assert run.types == ["START", "ABORT"]
        assert query.isActive  # the query runs on, as the user started it
    finally:
        query.stop()
    assert [r.types for r in _stream_runs(Captured(memory))] == [["START", "ABORT"]]


class _Recorder:
    """A sink that keeps what each RUNNING and end said of the datasets."""

    def __init__(self) -> None:
        self.reports: list[tuple[str, list[tuple[str, int | None]]]] = []

    def _keep(self, kind: str, write: Any) -> None:
        datasets = [*write.inputs, *([write.output] if write.output else [])]
        self.reports.append(
            (kind, [(d.identity.name, d.stats.row_count if d.stats else None) for d in datasets])
        )

    def execution_started(self, write: Any) -> None:
        self._keep("START", write)

    def execution_running(self, write: Any) -> None:
        self._keep("RUNNING", write)

    def execution_finished(self, write: Any) -> None:
        self._keep("END", write)


def test_a_kafka_pattern_subscription_learns_its_topics_from_the_offsets() -> None:
    """Progress reports as Spark writes them (no broker here): a new topic is a RUNNING event."""
    from types import SimpleNamespace

    from openlineage_sdk.spark._execution import SparkExecution
    from openlineage_sdk.spark.executions.streams._runs import _StreamRun
    from openlineage_sdk.spark.executions.streams._start import Source as _Source

    recorder = _Recorder()
    session = SimpleNamespace(stream_progress=lambda query: [])
    streams = SimpleNamespace(
        adapter=SimpleNamespace(reporter=recorder, session=session),
        interval=3600.0,  # no RUNNING for time alone
        forget=lambda run: None,
    )
    execution = SparkExecution("classic", "start", "app", "start")
    source = StreamSource(
        "kafka", options={"kafka.bootstrap.servers": "b1:9092", "subscribePattern": "orders-.*"}
    )
    description = SimpleNamespace(sources=[_Source(source, [], [])], rows_observation=None)
    run = _StreamRun(streams, execution, description, object(), "run-1")  # type: ignore[arg-type]

    def progress(batch: int, offsets: dict[str, Any], rows: int) -> dict[str, Any]:
        return {
            "runId": "run-1",
            "batchId": batch,
            "sources": [
                {
                    "description": "KafkaV2[SubscribePattern[orders-.*]]",
                    "endOffset": offsets,
                    "numInputRows": rows,
                }
            ],
            "sink": {"description": "MemorySink", "numOutputRows": rows},
        }

    run.progress(progress(0, {"orders-eu": {"0": 5}}, 5))
    run.progress(progress(1, {"orders-eu": {"0": 9}}, 4))  # nothing new: no event
    run.progress(progress(2, {"orders-eu": {"0": 9}, "orders-us": {"0": 2}}, 2))
    run.end(None)
    assert [kind for kind, _ in recorder.reports] == ["RUNNING", "RUNNING", "END"]
    assert [d.identity.namespace for d in execution.inputs] == ["kafka://b1:9092"] * 2
    # One topic: its rows are the source's; two: each topic's share is not known.
    assert recorder.reports[0][1] == [("orders-eu", 5)]
    assert recorder.reports[-1][1] == [("orders-eu", None), ("orders-us", None)]


def test_a_long_runs_state_does_not_grow_with_its_micro_batches() -> None:
    """A run holds nothing per micro-batch: its state after 2,000 reports is its state after 10.

    Reports read again (the end catches up from the query's recent ones) are not counted twice,
    and a problem met at every micro-batch is listed once.
    """
    from types import SimpleNamespace

    from openlineage_sdk.spark._execution import DatasetIdentity, DatasetLineage, SparkExecution
    from openlineage_sdk.spark.executions.streams._runs import _StreamRun

    recorder = _Recorder()
    reports: list[dict[str, Any]] = []
    session = SimpleNamespace(stream_progress=lambda query: reports[-100:])
    streams = SimpleNamespace(
        adapter=SimpleNamespace(reporter=recorder, session=session),
        interval=3600.0,
        forget=lambda run: None,
    )
    execution = SparkExecution("classic", "start", "app", "start")
    execution.output = DatasetLineage(DatasetIdentity("file", "/out"), "output")
    description = SimpleNamespace(sources=[], rows_observation=None)
    run = _StreamRun(streams, execution, description, object(), "run-1")  # type: ignore[arg-type]

    def held() -> int:
        """The entries of every container the run and its execution hold."""
        return sum(
            len(value)
            for value in (*vars(run).values(), *vars(execution).values())
            if isinstance(value, (set, dict, list))
        )

    def feed(batches: range) -> None:
        for batch in batches:
            # Every other micro-batch's report cannot be read (the same problem each time).
            rows: Any = 3 if batch % 2 == 0 else "not a number"
            report = {"runId": "run-1", "batchId": batch, "sink": {"numOutputRows": rows}}
            reports.append(report)
            run.progress(report)
            run.progress(report)  # delivered twice: counted once

    feed(range(10))
    early = held()
    feed(range(10, 2000))
    assert held() == early
    assert len(execution.problems) == 1
    run.end(None)
    assert recorder.reports[-1] == ("END", [("/out", 3 * 1000)])


def test_the_running_interval_is_a_conf_or_an_install_argument(spark: Any) -> None:
    from openlineage_sdk.spark import installed
    from openlineage_sdk.spark._conf import STREAM_INTERVAL_CONF, parse_confs

    assert parse_confs({STREAM_INTERVAL_CONF: "2.5"}).stream_interval == 2.5
    assert parse_confs({}).stream_interval is None
    for bad in ("soon", "-1", "inf"):
        problems = parse_confs({STREAM_INTERVAL_CONF: bad}).problems
        rule = "a number of seconds" + (", 0 or more" if bad != "soon" else "")
        assert problems == (f"{STREAM_INTERVAL_CONF} must be {rule}",), bad
    with pytest.raises(ValueError, match="stream_interval"):
        install(spark, stream_interval=-1)
    spark.conf.set(STREAM_INTERVAL_CONF, "7")
    try:
        from openlineage_sdk.transports import MemoryTransport

        client = OpenLineage(transport=MemoryTransport())
        install(spark, client)
        adapter = installed(spark)
        assert adapter is not None
        assert adapter.stream_interval == 7.0  # the session's conf
        install(spark, client, stream_interval=0.5)
        assert adapter.stream_interval == 0.5  # the argument wins
    finally:
        uninstall(spark)
        spark.conf.unset(STREAM_INTERVAL_CONF)
