"""The demo pipeline, end to end, as ``nox -s demo`` runs it: a process of its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from openlineage_sdk import RunEvent
from openlineage_sdk.report import load_events
from tests.conftest import ROOT
from tests.spark import _recorder
from tests.spark._support import strict_problems

APP = "orders_etl"
INSERT = "execute_insert_into_hadoop_fs_relation_command"
JOBS = {
    f"demo/{APP}",
    f"demo/{APP}.{INSERT}.staging_orders_clean",
    f"demo/{APP}.{INSERT}.marts_daily_revenue",
    f"demo/{APP}.execute_create_data_source_table_as_select_command.analytics_customer_value",
}
# The streaming step: an availableNow stream from the landing folder to the bronze layer.
STREAM_JOB = f"demo/{APP}.write_to_micro_batch_data_source_v1.bronze_orders_stream"
# The SQL step: a CTAS and an ALTER TABLE through spark.sql, runs of their own in both modes.
SQL_JOBS = {
    f"demo/{APP}.execute_create_data_source_table_as_select_command.analytics_top_customers",
    f"demo/{APP}.execute_alter_table_add_columns_command",
}


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.parametrize("connect", [False, True], ids=["classic", "connect"])
def test_the_demo_runs_and_reports_its_lineage(tmp_path: Path, connect: bool) -> None:
    workdir = tmp_path / "demo"
    command = [
        sys.executable,
        "-m",
        "openlineage_sdk.spark.demo",
        "--workdir",
        str(workdir),
        "--orders",
        "5000",
        "--customers",
        "300",
        *(["--connect"] if connect else []),
    ]
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr

    # Quiet: nothing from Spark's logging, no progress bars; only the JVM's own note about the
    # incubator module it is started with may reach the terminal.
    noise = [
        line
        for line in done.stderr.splitlines()
        if line.strip() and not line.startswith("WARNING: Using incubator modules")
    ]
    assert noise == []

    events_path = workdir / "openlineage_events.jsonl"
    html_path = workdir / "lineage.html"
    out = done.stdout
    assert f"Events (JSON Lines): {events_path.resolve()}" in out
    assert f"Lineage graph:       {html_path.resolve()}" in out
    jobs = JOBS | SQL_JOBS | {STREAM_JOB}
    assert "14 events, 7 jobs, 7 runs, 8 datasets" in out
    for job in jobs:
        assert f"\n  {job}\n" in out

    events = load_events(events_path)
    _recorder.record_all(events_path.read_text().splitlines())
    for line in events_path.read_text().splitlines():
        assert strict_problems(line) == []
    runs = [e for e in events if isinstance(e, RunEvent)]
    assert len(runs) == len(events) == 14
    assert {f"{e.job.namespace}/{e.job.name}" for e in runs} == jobs
    assert {e.event_type for e in runs} == {"START", "COMPLETE"}
    application = next(e.run.run_id for e in runs if e.job.name == APP)
    for event in runs:
        if event.job.name != APP:
            assert event.run.facets is not None
            assert event.run.facets.parent is not None
            assert event.run.facets.parent.run == {"runId": application}

    outputs = {o.name: o for e in runs if e.event_type == "COMPLETE" for o in e.outputs or []}
    lake = workdir.resolve() / "lake"
    table = workdir.resolve() / "warehouse" / "analytics.db" / "customer_value"
    top = workdir.resolve() / "warehouse" / "analytics.db" / "top_customers"
    assert set(outputs) == {
        str(lake / "staging" / "orders_clean"),
        str(lake / "marts" / "daily_revenue"),
        str(table),
        str(top),
        str(lake / "bronze" / "orders_stream"),
    }
    # The stream: one run from the landing folder to the bronze one, with the rows it moved.
    stream = [e for e in runs if f"{e.job.namespace}/{e.job.name}" == STREAM_JOB]
    assert [e.event_type for e in stream] == ["START", "COMPLETE"]
    assert stream[0].job.facets is not None
    assert stream[0].job.facets.job_type is not None
    assert stream[0].job.facets.job_type.processing_type == "STREAMING"
    assert [i.name for i in stream[0].inputs or []] == [str(workdir.resolve() / "raw" / "landing")]
    bronze = outputs[str(lake / "bronze" / "orders_stream")]
    assert bronze.output_facets is not None
    assert bronze.output_facets.output_statistics is not None
    assert bronze.output_facets.output_statistics.row_count == 300  # 6 files of 50 orders
    assert f"\n  {STREAM_JOB}\n" in out
    altered = outputs[str(top)].facets
    assert altered is not None
    assert altered.lifecycle_state_change is not None
    assert altered.lifecycle_state_change.lifecycle_state_change == "ALTER"
    assert altered.schema_ is not None
    assert [f["name"] for f in altered.schema_.fields or []][-1] == "account_manager"
    value = outputs[str(table)]
    assert value.facets is not None
    assert value.facets.symlinks is not None
    assert value.facets.symlinks.identifiers == [
        {
            # The folder holding the table's folder, as the JVM agent names it.
            "namespace": f"file:{workdir.resolve() / 'warehouse' / 'analytics.db'}",
            "name": "analytics.customer_value",
            "type": "TABLE",
        }
    ]
    assert value.output_facets is not None
    assert value.output_facets.output_statistics is not None
    assert value.output_facets.output_statistics.row_count is not None
    assert 0 < value.output_facets.output_statistics.row_count <= 300
    clean = outputs[str(lake / "staging" / "orders_clean")]
    assert clean.facets is not None
    assert clean.facets.schema_ is not None
    assert [f["name"] for f in clean.facets.schema_.fields or []] == [
        "order_id",
        "customer_id",
        "order_date",
        "status",
        "amount",
        "currency",
    ]
    if not connect:
        assert clean.facets.column_lineage is not None
    assert f"{outputs[str(lake / 'marts' / 'daily_revenue')].name}" in out

    # The example plugin package is installed here: its facet builder, registered through the
    # adapter's entry point, adds MyCo's costs to the end of every Spark run (not to the
    # application's own run, which the adapter does not build) and a quality score to outputs.
    for event in runs:
        facets = event.run.facets
        assert facets is not None
        if event.job.name != APP and event.event_type == "COMPLETE":
            assert facets.get("myCo_costs") is not None, event.job.name
            assert facets["myCo_costs"].currency == "EUR"
    started = [o for e in runs if e.event_type == "START" for o in e.outputs or []]
    assert started
    for output in started:
        assert output.facets is not None
        assert output.facets.get("myCo_quality") is not None, output.name

    html = html_path.read_text()
    assert html.startswith("<!DOCTYPE html>")
    assert "<svg" in html
    assert "analytics.db/customer_value" in html
    assert "bronze/orders_stream" in html  # the stream's output, and its job
    assert "write_to_micro_batch_data_source_v1.bronze_orders_stream" in html
    # Self-contained: nothing to load from elsewhere.
    assert "<script src=" not in html
    assert "<link " not in html
