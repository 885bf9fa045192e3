"""Streams under load: every sink's statistics arrive however busy the machine is (slow tier).

A table-to-table stream under Spark Connect once ended without its sink's ``outputStatistics``
on a loaded machine. Its rows come from the micro-batches' progress, which reaches the adapter
two ways: the Connect client's streaming listener (a thread reading the server's event
stream), and, for what the listener had not delivered when the run ended, the query's own
``recentProgress`` read at the end. This test runs several such streams at once while every
core is kept busy by processes that only spin, so that the listener's thread, the server's
stream threads and the user's ``awaitTermination`` interleave as they do under load, and
asserts that each run ends with its sink's and its source's row counts.

Two causes found and fixed. A trigger that found no new data is reported as a progress of its
own once Spark's ``noDataProgressEventInterval`` (10 s) passed since the last one, which a
loaded machine makes happen; its sink's rows written were read as unknown, which erased the
batches' total (``test_streams.py`` makes it happen without load, the interval set to 0). And
the Connect server answers ``recentProgress`` in another JSON shape than its listener's events
(an observed metric's row as values and schema, not by field name): the micro-batches the end
caught up from it counted no row written, so a run whose last reports the listener had not
delivered in time lost its sink's total (``test_streams.py`` drops every listener report to
make the end count them all).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.spark._support import Captured, RunEvents

pytestmark = [pytest.mark.slow, pytest.mark.spark, pytest.mark.connect]

_STREAMS = 4
_ROUNDS = 3
_ROWS = 50


def _spin(stop: Any) -> None:
    """Keep one core busy until ``stop`` is set."""
    while not stop.is_set():
        sum(range(10_000))


@pytest.fixture
def loaded_machine() -> Iterator[None]:
    """Every core busy with a spinning process, for the test's length."""
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    spinners = [context.Process(target=_spin, args=(stop,)) for _ in range(os.cpu_count() or 2)]
    for spinner in spinners:
        spinner.start()
    try:
        yield
    finally:
        stop.set()
        for spinner in spinners:
            spinner.join(10)
            if spinner.is_alive():
                spinner.terminate()
                spinner.join(10)


def _rows(dataset: Any, key: str) -> int | None:
    facets = dataset.get(f"{key.removesuffix('Statistics')}Facets") or {}
    facet = facets.get(key)
    return facet.get("rowCount") if facet else None


def _stream_runs(captured: Captured) -> list[RunEvents]:
    return [r for r in captured.runs() if r.job_type() == "STREAMING"]


def test_table_to_table_streams_under_load_each_report_their_sinks_statistics(
    spark_connect: Any, connect_auto: Captured, tmp_path: Path, loaded_machine: None
) -> None:
    sources = [f"stress_source_{i}" for i in range(_STREAMS)]
    # A target of its own each round: a file sink skips a batch its folder's log already holds.
    targets = [[f"stress_target_{r}_{i}" for i in range(_STREAMS)] for r in range(_ROUNDS)]
    every = [*sources, *(t for round_ in targets for t in round_)]
    for table in every:
        spark_connect.sql(f"DROP TABLE IF EXISTS {table}")
    for source in sources:
        spark_connect.range(_ROWS).selectExpr("id", "id * 2 AS doubled").write.saveAsTable(source)
    try:
        missing: list[str] = []
        for round_, round_targets in enumerate(targets):
            connect_auto.clear()
            queries = [
                spark_connect.readStream.table(source)
                .writeStream.option("checkpointLocation", str(tmp_path / f"cp_{target}"))
                .trigger(availableNow=True)
                .toTable(target)
                for source, target in zip(sources, round_targets, strict=True)
            ]
            for query in queries:
                query.awaitTermination()
            runs = _stream_runs(connect_auto)
            assert len(runs) == _STREAMS, [r.job_name for r in runs]
            for run in runs:
                end = run.end.to_dict()
                assert run.types[0] == "START", run.types
                assert run.types[-1] == "COMPLETE", run.types
                outputs, inputs = end.get("outputs") or [], end.get("inputs") or []
                written = _rows(outputs[0], "outputStatistics") if outputs else None
                read = _rows(inputs[0], "inputStatistics") if inputs else None
                if written != _ROWS or read != _ROWS:
                    errors = end["run"]["facets"].get("extractionError", {}).get("errors", [])
                    missing.append(
                        f"round {round_}, {run.job_name}: read {read}, wrote {written}, "
                        f"problems {[e['errorMessage'] for e in errors]}"
                    )
        assert missing == []
    finally:
        for table in every:
            spark_connect.sql(f"DROP TABLE IF EXISTS {table}")
