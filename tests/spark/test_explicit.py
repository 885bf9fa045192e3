"""Explicit mode: writes add their lineage to the user's own run and emit nothing themselves."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import OpenLineage
from openlineage_sdk.facets import JobTypeJobFacet, ProcessingEngineRunFacet
from openlineage_sdk.spark.session import session_kind
from tests.spark._support import Captured, bytes_of, files_of


@pytest.fixture
def explicit(mode_spark: Any, memory: Any) -> Iterator[Captured]:
    from openlineage_sdk.spark import install, uninstall

    install(mode_spark, mode="explicit")
    yield Captured(memory)
    uninstall(mode_spark)


def test_writes_inside_a_run_become_its_inputs_and_outputs(
    mode_spark: Any, explicit: Captured, client: OpenLineage, data_dir: Path
) -> None:
    source, daily, totals = data_dir / "source", data_dir / "daily", data_dir / "totals"
    # Outside every run: not reported, and not carried into the run below either.
    mode_spark.range(40).selectExpr("id", "id % 4 AS k").write.parquet(str(source))

    with client.run("orders.daily_load") as run:
        orders = mode_spark.read.parquet(str(source))
        orders.where("k > 0").write.parquet(str(daily))
        orders.groupBy("k").count().write.parquet(str(totals))

    [only] = explicit.runs()
    assert only.run_id == run.run_id
    assert only.types == ["START", "COMPLETE"]  # the user's own events, nothing else
    assert only.start.inputs is None
    assert only.start.outputs is None
    complete = only.end
    assert [(i.namespace, i.name) for i in complete.inputs or []] == [("file", str(source))]
    outputs = {o.name: o.to_dict() for o in complete.outputs or []}
    assert list(outputs) == [str(daily), str(totals)]
    assert outputs[str(daily)]["outputFacets"]["outputStatistics"]["rowCount"] == 30
    assert outputs[str(totals)]["outputFacets"]["outputStatistics"]["rowCount"] == 4
    assert outputs[str(daily)]["facets"]["schema"]["fields"] == [
        {"name": "id", "type": "long"},
        {"name": "k", "type": "long"},
    ]
    if session_kind(mode_spark) == "classic":
        stats = outputs[str(daily)]["outputFacets"]["outputStatistics"]
        assert stats["size"] == bytes_of(files_of(daily))
        assert "columnLineage" in outputs[str(totals)]["facets"]
    assert complete.run.facets is not None
    engine = complete.run.facets.processing_engine
    assert engine is not None
    assert engine.version == mode_spark.version
    assert complete.run.facets.extraction_error is None
    # The job is the user's: the adapter does not say what kind of job it is.
    assert complete.job.facets is None or complete.job.facets.job_type is None


def test_the_users_own_facets_are_kept(
    mode_spark: Any, explicit: Captured, client: OpenLineage, data_dir: Path
) -> None:
    mine = ProcessingEngineRunFacet(version="2.9.0", name="Airflow")
    job_type = JobTypeJobFacet(processing_type="BATCH", integration="AIRFLOW", job_type="TASK")
    with client.run("dag.task", run_facets=[mine], job_facets=[job_type]):
        mode_spark.range(3).write.parquet(str(data_dir / "out"))

    complete = explicit.runs()[0].end
    assert complete.run.facets is not None
    assert complete.run.facets.processing_engine == mine
    assert complete.job.facets is not None
    assert complete.job.facets.job_type == job_type


def test_a_failing_write_fails_the_users_run_with_the_output_it_was_writing(
    mode_spark: Any, explicit: Captured, client: OpenLineage, data_dir: Path
) -> None:
    out = data_dir / "exists"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    with pytest.raises(Exception, match="already exists"), client.run("orders.load"):
        mode_spark.range(5).write.mode("error").parquet(str(out))

    [only] = explicit.runs()
    assert only.types == ["START", "FAIL"]
    assert only.end.run.facets is not None
    assert only.end.run.facets.error_message is not None
    assert only.output().name == str(out)
    assert only.output().output_facets is None


def test_a_write_outside_every_run_is_not_reported_and_says_so_once(
    mode_spark: Any,
    explicit: Captured,
    client: OpenLineage,
    data_dir: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="openlineage_sdk.spark"):
        mode_spark.range(3).write.parquet(str(data_dir / "a"))
        mode_spark.range(3).write.parquet(str(data_dir / "b"))
    assert len(files_of(data_dir / "b")) >= 1
    warnings = [r for r in caplog.records if "outside every run" in r.getMessage()]
    assert len(warnings) == 1
    # Nor does a run that starts afterwards carry them.
    with client.run("orders.later"):
        pass
    [later] = explicit.runs()
    assert [(e.inputs, e.outputs) for e in later.events] == [(None, None)] * 2


def test_explicit_mode_takes_no_client(mode_spark: Any, client: OpenLineage) -> None:
    from openlineage_sdk.spark import install, installed

    with pytest.raises(ValueError, match="explicit mode"):
        install(mode_spark, client, mode="explicit")
    with pytest.raises(ValueError, match="mode must be"):
        install(mode_spark, client, mode="sometimes")  # type: ignore[arg-type]
    assert installed(mode_spark) is None


def test_a_sql_insert_inside_a_run_is_its_output(
    mode_spark: Any, explicit: Captured, client: OpenLineage, data_dir: Path
) -> None:
    """An ``INSERT`` is described on a thread beside the statement: the run is still found."""
    table = f"explicit_insert_{session_kind(mode_spark)}"
    source = f"{table}_source"
    for name in (table, source):
        mode_spark.sql(f"DROP TABLE IF EXISTS {name}")
    mode_spark.sql(f"CREATE TABLE {table} (id BIGINT) USING parquet")
    mode_spark.range(5).write.saveAsTable(source)
    try:
        with client.run("orders.sql_load") as run:
            mode_spark.sql(f"INSERT INTO {table} SELECT id FROM {source}")
    finally:
        for name in (table, source):
            mode_spark.sql(f"DROP TABLE IF EXISTS {name}")

    [only] = explicit.runs()
    assert only.run_id == run.run_id
    assert only.types == ["START", "COMPLETE"]
    outputs = [o.name for o in only.end.outputs or []]
    assert len(outputs) == 1
    assert outputs[0].endswith(f"/{table}")
    assert [i.name.rsplit("/", 1)[-1] for i in only.end.inputs or []] == [source]
