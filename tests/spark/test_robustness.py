"""Lineage never breaks the user's write, and costs it no Spark job."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import OpenLineage
from openlineage_sdk.facets import SchemaDatasetFacet
from openlineage_sdk.models.records import SchemaDatasetFacetFields
from openlineage_sdk.spark._execution import DatasetLineage, SparkExecution
from openlineage_sdk.spark.session import session_kind
from openlineage_sdk.transports import FileTransport, MemoryTransport
from openlineage_sdk.transports.base import TransportError
from tests.spark import _recorder
from tests.spark._support import NAMESPACE, Captured, files_of, strict_problems


def _is_read_run(event: dict[str, Any]) -> bool:
    """An input-only run: a query that ran in an action (``{app}.collect_limit`` ...)."""
    name = event["job"]["name"]
    return "." in name and ".execute_" not in name and not event.get("outputs")


def test_the_adapter_starts_no_spark_job(
    mode_spark: Any, jobs: Any, data_dir: Path, tmp_path: Path
) -> None:
    """Counted by the driver's status tracker, with every event written to a real file."""
    from openlineage_sdk.spark import application_run, install, uninstall

    csv = data_dir / "csv"
    mode_spark.range(200).selectExpr("id", "id % 10 AS k").write.option("header", True).csv(
        str(csv)
    )

    table = f"jobs_{session_kind(mode_spark)}"
    mode_spark.sql(f"DROP TABLE IF EXISTS {table}")
    mode_spark.range(50).selectExpr("id AS n", "id % 5 AS k").write.saveAsTable(table)

    def frames() -> list[Any]:
        # Built afresh for each variant: under Connect the server analyzes (and infers a CSV
        # header, which runs a job) when the plan is first sent.
        parquet = mode_spark.range(10_000).selectExpr("id", "id % 10 AS k")
        header = mode_spark.read.option("header", True).csv(str(csv))
        declared = mode_spark.read.csv(str(csv), header=True, schema="id BIGINT, k BIGINT")
        return [
            parquet,
            header.groupBy("k").count(),
            declared.join(mode_spark.table(table), "k"),
        ]

    def write_all(label: str) -> int:
        before = jobs.count()
        for index, frame in enumerate(frames()):
            frame.write.parquet(str(data_dir / f"{label}{index}"))
        return int(jobs.count() - before)

    plain = write_all("plain")
    assert plain >= 3

    events = tmp_path / "events.jsonl"
    client = OpenLineage(transport=FileTransport(events), namespace=NAMESPACE)
    install(mode_spark, client)
    try:
        with application_run(mode_spark, client):
            traced = write_all("traced")
    finally:
        uninstall(mode_spark)
        client.close()
    assert traced == plain

    every = events.read_text().splitlines()
    for line in every:
        assert strict_problems(line) == []
    # Reading a CSV's header (classic: when the DataFrame is made) runs Spark's own small
    # queries, each a read run with inputs and no output, as reads that end in an action are;
    # whether the listener bus delivers them before the write is a matter of timing.
    reads = [line for line in every if _is_read_run(json.loads(line))]
    assert all(json.loads(line)["inputs"] for line in reads)
    lines = [line for line in every if line not in reads]
    assert [json.loads(line)["eventType"] for line in lines] == ["START"] + [
        "START",
        "COMPLETE",
    ] * 3 + ["COMPLETE"]
    rows = [
        json.loads(line)["outputs"][0]["outputFacets"]["outputStatistics"]["rowCount"]
        for line in lines[1:-1]
        if json.loads(line)["eventType"] == "COMPLETE"
    ]
    assert rows == [10_000, 10, 100 * 10]  # CSV rows with k < 5, each joined to 10 rows
    # Inputs with their schemas (declared, or from the catalog) came at no job's cost.
    last = json.loads(lines[-2])
    assert all("schema" in i["facets"] for i in last["inputs"]), last["inputs"]

    # The counter does see the extra jobs of the naive way to a row count (count, then write).
    before = jobs.count()
    naive = frames()[0]
    naive.count()
    naive.write.parquet(str(data_dir / "naive"))
    assert jobs.count() - before > 1


def test_the_adapter_starts_no_spark_job_for_a_stream(
    mode_spark: Any, jobs: Any, data_dir: Path, tmp_path: Path
) -> None:
    """A stream runs its own jobs: the same streams run the same number with the adapter."""
    from openlineage_sdk.spark import install, uninstall

    landing = data_dir / "landing"
    landing.mkdir()
    for index in range(3):
        rows = [json.dumps({"id": index * 10 + row, "k": row % 3}) for row in range(10)]
        (landing / f"part-{index}.json").write_text("\n".join(rows) + "\n")

    def stream_all(label: str) -> int:
        def batch(frame: Any, batch_id: int) -> None:
            frame.groupBy("k").count().write.mode("append").parquet(str(data_dir / label / "fb"))

        before = jobs.count()
        source = mode_spark.readStream.schema("id INT, k INT").option("maxFilesPerTrigger", 1)
        frame = source.json(str(landing))
        for name, writer in (
            ("files", frame.where("k > 0").writeStream.format("parquet")),
            ("batches", frame.writeStream.foreachBatch(batch)),
        ):
            query = (
                writer.option("checkpointLocation", str(data_dir / label / f"ck-{name}"))
                .trigger(availableNow=True)
                .start(str(data_dir / label / name))
            )
            query.awaitTermination()
        return int(jobs.count() - before)

    plain = stream_all("plain")
    assert plain >= 6  # a job per micro-batch of each stream, at least

    events = tmp_path / "events.jsonl"
    client = OpenLineage(transport=FileTransport(events), namespace=NAMESPACE)
    install(mode_spark, client, stream_interval=0)
    try:
        traced = stream_all("traced")
    finally:
        uninstall(mode_spark)
        client.close()
    assert traced == plain
    lines = events.read_text().splitlines()
    kinds = [json.loads(line)["job"]["facets"]["jobType"]["jobType"] for line in lines]
    assert kinds.count("STREAMING") == 2 * 5  # START, three RUNNING, COMPLETE each
    assert kinds.count("SQL_JOB") >= 3 * 2  # the batches' writes, START and COMPLETE each


@pytest.mark.parametrize("broken", ["writer_frame", "write_target", "frame_lineage", "after"])
def test_any_failing_step_of_the_adapter_leaves_the_write_intact(
    mode_spark: Any,
    auto: Captured,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    broken: str,
) -> None:
    from openlineage_sdk.spark import installed
    from openlineage_sdk.spark.executions import _write as _writes

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"injected into {broken}")

    # One step of a write's description each: the session's, the target's, the template's.
    adapter = installed(mode_spark)
    assert adapter is not None
    if broken in ("writer_frame", "frame_lineage"):
        monkeypatch.setattr(type(adapter.session), broken, fail)
    elif broken == "write_target":
        monkeypatch.setattr(_writes, broken, fail)
    else:
        monkeypatch.setattr(_writes.WriteExecution, broken, fail)
    out = data_dir / "out"
    mode_spark.range(6).write.parquet(str(out))

    [run] = auto.runs()  # before the count below, itself a run (of an input-only action)
    assert mode_spark.read.parquet(str(out)).count() == 6
    assert run.types == ["START", "COMPLETE"]
    assert run.end.run.facets is not None
    failure = run.end.run.facets.extraction_error
    assert failure is not None
    assert (failure.total_tasks, failure.failed_tasks) == (1, 1)
    assert any(f"injected into {broken}" in e["errorMessage"] for e in failure.errors)


@pytest.mark.parametrize(
    ("target", "facet"),
    [
        ("SchemaDatasetFacet", "schema"),
        ("SymlinksDatasetFacet", "symlinks"),
        ("OutputStatisticsOutputDatasetFacet", "outputStatistics"),
        ("ProcessingEngineRunFacet", "processing_engine"),
    ],
)
def test_a_facet_that_cannot_be_built_is_left_out_and_the_rest_goes_out(
    mode_spark: Any,
    auto: Captured,
    monkeypatch: pytest.MonkeyPatch,
    target: str,
    facet: str,
) -> None:
    from openlineage_sdk.spark.events import _facets

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise ValueError(f"cannot build {facet}")

    monkeypatch.setattr(_facets, target, fail)
    table = f"robust_{session_kind(mode_spark)}_{facet.lower()}"
    mode_spark.sql(f"DROP TABLE IF EXISTS {table}")
    auto.clear()
    mode_spark.range(5).write.saveAsTable(table)

    run = auto.only_write()
    assert run.types == ["START", "COMPLETE"]
    event = run.end.to_dict()
    output = event["outputs"][0]
    present = {
        *output["facets"],
        *output.get("outputFacets", {}),
        *event["run"]["facets"],
    }
    assert facet not in present
    assert {"dataSource", "schema", "symlinks", "outputStatistics", "processing_engine"} - {
        facet
    } <= present
    errors = event["run"]["facets"]["extractionError"]["errors"]
    assert any(f"cannot build {facet}" in e["errorMessage"] for e in errors)
    assert mode_spark.table(table).count() == 5


def test_a_failing_transport_never_fails_the_write(mode_spark: Any, data_dir: Path) -> None:
    from openlineage_sdk.spark import install, uninstall

    class Down(MemoryTransport):
        def emit(self, event: Any) -> None:
            raise TransportError("backend down")

    # raise_on_error: the client lets the error through; the adapter still must not.
    install(mode_spark, OpenLineage(transport=Down(), raise_on_error=True))
    try:
        mode_spark.range(3).write.parquet(str(data_dir / "out"))
    finally:
        uninstall(mode_spark)
    assert len(files_of(data_dir / "out")) >= 1


def test_a_failing_sink_never_fails_the_write(mode_spark: Any, data_dir: Path) -> None:
    from openlineage_sdk.spark import install, uninstall

    class Broken:
        def execution_started(self, write: SparkExecution) -> None:
            raise RuntimeError("sink down")

        def execution_finished(self, write: SparkExecution) -> None:
            raise RuntimeError("sink down")

    install(mode_spark, sink=Broken())
    try:
        mode_spark.range(3).write.parquet(str(data_dir / "out"))
    finally:
        uninstall(mode_spark)
    assert len(files_of(data_dir / "out")) >= 1


def _parquet_write(
    output: DatasetLineage, inputs: list[DatasetLineage] | None = None
) -> SparkExecution:
    """The record the adapter makes of a Parquet write to ``output``, for testing a sink alone."""
    command = "execute_insert_into_hadoop_fs_relation_command"
    return SparkExecution(
        "classic",
        "parquet",
        "app",
        command,
        "/data/out",
        inputs=inputs or [],
        output=output,
        spark_version="4.3.0",
    )


def test_an_interrupted_write_is_aborted() -> None:
    """The sink's side alone: a write stopped by KeyboardInterrupt ends its run with ABORT."""
    from openlineage_sdk.spark import DatasetIdentity, DatasetLineage
    from openlineage_sdk.spark.events._sinks import RunPerExecution

    memory = MemoryTransport()
    sink = RunPerExecution(OpenLineage(transport=memory, namespace=NAMESPACE))
    write = _parquet_write(DatasetLineage(DatasetIdentity("file", "/data/out"), "output"))
    sink.execution_started(write)
    write.error = KeyboardInterrupt()
    sink.execution_finished(write)

    assert [e.event_type for e in Captured(memory).events()] == ["START", "ABORT"]
    for text in memory.json_events:
        assert strict_problems(text) == []


@pytest.mark.parametrize("mode", ["automatic", "explicit"])
def test_the_end_adds_the_statistics_to_the_datasets_the_start_built(
    monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """The sink's side alone: each dataset facet is built once, the statistics merge into it."""
    from openlineage_sdk.spark import DatasetIdentity, DatasetLineage, IoStats
    from openlineage_sdk.spark.events import _facets, _sinks

    built: list[object] = []

    def counted(**fields: Any) -> Any:
        built.append(fields)
        return SchemaDatasetFacet(**fields)

    monkeypatch.setattr(_facets, "SchemaDatasetFacet", counted)
    columns: list[SchemaDatasetFacetFields] = [{"name": "id", "type": "long"}]
    source = DatasetLineage(DatasetIdentity("file", "/data/in"), "input", columns)
    target = DatasetLineage(DatasetIdentity("file", "/data/out"), "output", columns)
    write = _parquet_write(target, [source])
    memory = MemoryTransport()
    client = OpenLineage(transport=memory, namespace=NAMESPACE)
    sink = _sinks.RunPerExecution(client) if mode == "automatic" else _sinks.IntoCurrentRun()
    with client.run("orders.load") if mode == "explicit" else contextlib.nullcontext():
        sink.execution_started(write)
        source.stats = IoStats(size=100, file_count=1)
        target.stats = IoStats(row_count=3)
        sink.execution_finished(write)

    assert len(built) == 2
    end = Captured(memory).events()[-1].to_dict()
    [read], [written] = end["inputs"], end["outputs"]
    assert read["facets"]["schema"]["fields"] == columns
    assert read["inputFacets"]["inputStatistics"]["size"] == 100
    assert written["facets"]["schema"]["fields"] == columns
    assert written["outputFacets"]["outputStatistics"]["rowCount"] == 3
    assert "extractionError" not in end["run"]["facets"]
    for text in memory.json_events:
        assert strict_problems(text) == []


def test_install_twice_replaces_how_writes_are_reported(mode_spark: Any, data_dir: Path) -> None:
    from openlineage_sdk.spark import install, uninstall

    first, second = MemoryTransport(), MemoryTransport()
    adapter = install(mode_spark, OpenLineage(transport=first))
    try:
        assert install(mode_spark, OpenLineage(transport=second)) is adapter
        mode_spark.range(3).write.parquet(str(data_dir / "out"))
    finally:
        uninstall(mode_spark)
    assert first.events == []
    assert [e.event_type for e in Captured(second).events()] == ["START", "COMPLETE"]


_ENDS_ON_AN_ACTION = """
import sys
from pyspark.sql import SparkSession
from openlineage_sdk import OpenLineage
from openlineage_sdk.spark import install
from openlineage_sdk.transports import FileTransport

spark = (
    SparkSession.builder.master("local[1]").appName("ends_on_count")
    .config("spark.ui.enabled", "false").getOrCreate()
)
spark.range(10).write.parquet(sys.argv[1])
install(spark, OpenLineage(transport=FileTransport(sys.argv[2]), namespace="ns"))
print(spark.read.parquet(sys.argv[1]).count())
{ending}
"""


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.parametrize(
    "ending",
    ["", "from openlineage_sdk.spark import uninstall; uninstall(spark)"],
    ids=["exit", "uninstall"],
)
def test_a_script_that_ends_on_an_action_keeps_its_run(tmp_path: Path, ending: str) -> None:
    """The last action's run reaches the adapter after the action: exit waits for it.

    A script that ends with ``count()`` and no ``spark.stop()`` (or uninstalls right after
    it) still reports that read, and the JVM logs no callback it could not make.
    """
    import os
    import subprocess
    import sys

    script = tmp_path / "script.py"
    script.write_text(_ENDS_ON_AN_ACTION.format(ending=ending))
    events = tmp_path / "events.jsonl"
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "data"), str(events)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("10")
    assert "threw an exception" not in done.stderr, done.stderr[-3000:]
    read = [json.loads(line) for line in events.read_text().splitlines()]
    _recorder.record_all(read)
    assert [(e["eventType"], e["outputs"]) for e in read] == [("START", []), ("COMPLETE", [])]
    assert {i["name"] for e in read for i in e["inputs"]} == {str(tmp_path / "data")}
