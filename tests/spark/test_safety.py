"""The agent's safety confs on real sessions: breakers, time budgets, the schema size limit.

A tripped breaker or a spent budget leaves an execution's events lighter, never missing: they
still go out, without datasets, with an ``extractionError`` that says what was left out.
"""

from __future__ import annotations

import json
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk.spark import _safety, install, uninstall
from openlineage_sdk.spark._conf import parse_confs
from openlineage_sdk.spark._safety import (
    Breaker,
    BudgetExceededError,
    Deadline,
    Safety,
    SchemaSizeExceededError,
    checkpoint,
    guarding,
    parse_breaker,
    schema_size_check,
)
from tests.spark._support import strict_problems

BREAKER = "spark.openlineage.circuitBreaker."
KINDS = ["classic", pytest.param("connect", marks=pytest.mark.connect)]


@pytest.fixture
def new_session(spark: Any, connect_port: int) -> Iterator[Callable[[str, dict[str, str]], Any]]:
    """New sessions of the shared driver with confs of their own, unset when the test ends."""
    made: list[tuple[str, Any, list[str]]] = []

    def make(kind: str, confs: dict[str, str]) -> Any:
        if kind == "classic":
            session = spark.newSession()
        else:
            from pyspark.sql.connect.session import SparkSession as ConnectSession

            session = ConnectSession.builder.remote(f"sc://127.0.0.1:{connect_port}").create()
        made.append((kind, session, list(confs)))
        for key, value in confs.items():
            session.conf.set(key, value)
        return session

    yield make
    for kind, session, keys in made:
        if kind == "classic":
            for key in keys:
                session.conf.unset(key)
        else:
            session.stop()  # its confs end with it


def _write(
    new_session: Callable[[str, dict[str, str]], Any],
    kind: str,
    data_dir: Path,
    name: str,
    confs: dict[str, str],
    *,
    columns: int = 3,
    client: Any = None,
) -> list[dict[str, Any]]:
    """One write of a ``columns``-wide frame read from a file, with ``confs``; its events."""
    source = str(data_dir / f"{name}_src")
    names = ", ".join(f"c{i} INT" for i in range(columns))
    row = tuple(range(columns))
    events_file = data_dir / f"{name}.jsonl"
    if client is None:
        confs = {
            **confs,
            "spark.openlineage.transport.type": "file",
            "spark.openlineage.transport.location": str(events_file),
        }
    session = new_session(kind, confs)
    session.createDataFrame([row], names).write.mode("overwrite").parquet(source)
    install(session, client) if client is not None else install(session)
    try:
        frame = session.read.schema(names).parquet(source)
        frame.selectExpr(*(f"c{i} + 1 AS d{i}" for i in range(columns))).write.mode(
            "overwrite"
        ).parquet(str(data_dir / name))
    finally:
        uninstall(session)
    if client is not None:
        lines = client.transport.json_events
    else:
        lines = events_file.read_text().splitlines()
    for line in lines:
        assert strict_problems(line) == [], line
    events = [json.loads(line) for line in lines]
    return [e for e in events if e["job"]["facets"]["jobType"]["jobType"] == "SQL_JOB"]


def _errors(event: dict[str, Any]) -> str:
    facet = event["run"]["facets"].get("extractionError", {"errors": []})
    return " | ".join(e["errorMessage"] for e in facet["errors"])


# ------------------------------------------------------------------ the schema size limit


@pytest.mark.parametrize("kind", KINDS)
def test_a_schema_wider_than_the_limit_gets_no_column_lineage(
    new_session: Any, data_dir: Path, kind: str
) -> None:
    limited = _write(
        new_session,
        kind,
        data_dir,
        "limited",
        {"spark.openlineage.columnLineage.schemaSizeLimit": "2"},
    )
    (complete,) = [e for e in limited if e["eventType"] == "COMPLETE"]
    (output,) = complete["outputs"]
    assert "columnLineage" not in output.get("facets", {})
    assert output["facets"]["schema"]["fields"]  # the datasets stay whole
    assert "3 fields exceed spark.openlineage.columnLineage.schemaSizeLimit (2)" in _errors(
        complete
    )
    # Off (the default, 1,000): the same write has its column lineage and no error.
    (whole,) = [
        e for e in _write(new_session, kind, data_dir, "whole", {}) if e["eventType"] == "COMPLETE"
    ]
    assert set(whole["outputs"][0]["facets"]["columnLineage"]["fields"]) == {"d0", "d1", "d2"}
    assert "schemaSizeLimit" not in _errors(whole)


def test_an_output_too_wide_for_column_lineage_is_not_optimized_for_it(spark: Any) -> None:
    """Classic: the optimized plan (read for column lineage alone) is not read for nothing."""
    from openlineage_sdk.spark.session.classic._plan import logical_plan_extraction

    frame = spark.range(3).selectExpr("id AS a", "id + 1 AS b", "id + 2 AS c")
    plan = frame._jdf.queryExecution().analyzed()
    optimized: list[Any] = []

    def optimize() -> Any:
        optimized.append(True)
        return frame._jdf.queryExecution().optimizedPlan()

    with guarding(Safety(schema_size_limit=2), None):
        extraction = logical_plan_extraction(spark._jvm, plan, None, optimized=optimize)
    assert not optimized
    assert extraction.column_lineage is None
    assert any("3 fields exceed" in p for p in extraction.problems)
    assert extraction.output_schema is not None  # the datasets stay whole
    with guarding(Safety(schema_size_limit=3), None):
        extraction = logical_plan_extraction(spark._jvm, plan, None, optimized=optimize)
    assert optimized == [True]
    assert extraction.column_lineage is not None


# ------------------------------------------------------------------ circuit breakers


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("breaker", ["simpleMemory", "javaRuntime"])
def test_a_tripped_breaker_sends_the_events_lighter(
    new_session: Any, data_dir: Path, kind: str, breaker: str
) -> None:
    """Free memory is always at most 100%: a threshold of 100 trips on the real readings."""
    confs = {
        f"{BREAKER}type": breaker,
        f"{BREAKER}memoryThreshold": "100",
        f"{BREAKER}gcCpuThreshold": "0",
        f"{BREAKER}circuitCheckIntervalInMillis": "0",
    }
    events = _write(new_session, kind, data_dir, f"tripped_{breaker}", confs)
    assert sorted(e["eventType"] for e in events) == ["COMPLETE", "START"]
    complete = next(e for e in events if e["eventType"] == "COMPLETE")
    assert complete["inputs"] == []
    assert complete["outputs"] == []
    assert "lineage left out: circuit breaker tripped at memory" in _errors(complete)
    assert _errors(complete).count("lineage left out") == 1  # said once, by the step it stopped
    # Off: a threshold of 0 never trips, and the write is reported whole.
    confs[f"{BREAKER}memoryThreshold"] = "0"
    events = _write(new_session, kind, data_dir, f"closed_{breaker}", confs)
    complete = next(e for e in events if e["eventType"] == "COMPLETE")
    assert complete["outputs"]
    assert complete["inputs"]
    assert "circuit breaker" not in _errors(complete)


def test_the_configuration_files_breaker_is_used_without_confs(
    new_session: Any, data_dir: Path
) -> None:
    from openlineage_sdk.client import OpenLineage
    from openlineage_sdk.transports import MemoryTransport

    section = {"type": "static", "valuesReturned": "true", "circuitCheckIntervalInMillis": 0}
    with OpenLineage(MemoryTransport(), config={"circuitBreaker": section}) as client:
        events = _write(new_session, "classic", data_dir, "file_breaker", {}, client=client)
    complete = next(e for e in events if e["eventType"] == "COMPLETE")
    assert complete["outputs"] == []
    assert "circuit breaker tripped (static)" in _errors(complete)
    # A conf's breaker wins over the file's.
    with OpenLineage(MemoryTransport(), config={"circuitBreaker": section}) as client:
        events = _write(
            new_session,
            "classic",
            data_dir,
            "conf_breaker",
            {f"{BREAKER}type": "noop"},
            client=client,
        )
    complete = next(e for e in events if e["eventType"] == "COMPLETE")
    assert complete["outputs"]


# ------------------------------------------------------------------ time budgets


class _Clock:
    """A monotonic clock of the safety module's own that moves ``step`` seconds a reading."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def monotonic(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize("kind", KINDS)
def test_a_spent_time_budget_leaves_the_rest_out(
    new_session: Any, data_dir: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each reading of the budget's clock is 0.6 s later: a 1 s budget is spent at the
    description's first checkpoint, before the START (a write's whole description, on Spark
    Connect as on classic sessions)."""
    monkeypatch.setattr(_safety, "time", types.SimpleNamespace(monotonic=_Clock(0.6).monotonic))
    confs = {f"{BREAKER}type": "timeout", f"{BREAKER}timeoutInSeconds": "1"}
    events = _write(new_session, kind, data_dir, "budget", confs)
    assert sorted(e["eventType"] for e in events) == ["COMPLETE", "START"]
    for event in events:  # the START too: the run's datasets are the START's and the end's
        assert event["outputs"] == [], event["eventType"]
        assert event["inputs"] == [], event["eventType"]
    complete = next(e for e in events if e["eventType"] == "COMPLETE")
    assert "; no datasets reported" in _errors(complete)
    assert "the time budget of the description was spent (timeoutInSeconds 1)" in _errors(complete)
    # A budget the description stays within changes nothing.
    confs[f"{BREAKER}timeoutInSeconds"] = "100000"
    events = _write(new_session, kind, data_dir, "within", confs)
    complete = next(e for e in events if e["eventType"] == "COMPLETE")
    assert complete["outputs"]
    assert "time budget" not in _errors(complete)


# ------------------------------------------------------------------ the rules, unit by unit


def test_the_confs_are_read_with_the_agents_names_and_defaults() -> None:
    settings = parse_confs({})
    assert settings.safety == Safety()
    assert settings.safety.schema_size_limit == 1000
    assert not settings.safety.guarded
    settings = parse_confs(
        {
            f"{BREAKER}type": "JAVARUNTIME",
            f"{BREAKER}timeoutInSeconds": "10",
            "spark.openlineage.timeout.buildDatasetsTimePercentage": "80",
            "spark.openlineage.timeout.facetsBuildingTimePercentage": "50",
        }
    )
    breaker = settings.safety.breaker
    assert breaker is not None
    assert breaker.type == "javaRuntime"
    assert (breaker.memory_threshold, breaker.gc_cpu_threshold) == (20, 10)
    assert breaker.check_interval_ms == 1000
    # As the agent: the datasets' budget is the smaller of the two shares.
    assert settings.safety.budgets() == (5.0, 5.0)


@pytest.mark.parametrize(
    ("confs", "message"),
    [
        ({f"{BREAKER}type": "fuse"}, "circuitBreaker.type: unknown circuit breaker 'fuse'"),
        (
            {f"{BREAKER}type": "simpleMemory", f"{BREAKER}memoryThreshold": "120"},
            "circuitBreaker.memoryThreshold: must be a percentage (0 to 100), got 120",
        ),
        ({f"{BREAKER}type": "timeout"}, "circuitBreaker.timeoutInSeconds: required"),
        (
            {"spark.openlineage.columnLineage.schemaSizeLimit": "many"},
            "columnLineage.schemaSizeLimit: 'many' is not a whole number",
        ),
    ],
)
def test_a_bad_safety_conf_is_named_with_its_rule(confs: dict[str, str], message: str) -> None:
    (problem,) = parse_confs(confs).problems
    assert message in problem


def test_a_breaker_is_read_once_per_interval() -> None:
    breaker = parse_breaker({"type": "static", "valuesReturned": "false,true"}, "x.")
    assert breaker is not None
    assert breaker.tripped() is None
    assert breaker.tripped() is None  # the same interval: not read again
    breaker._next = 0.0
    assert breaker.tripped() == "circuit breaker tripped (static)"
    breaker._next = 0.0
    assert breaker.tripped() == "circuit breaker tripped (static: no more values)"


def test_pythons_gc_time_is_read_by_one_callback_for_the_process() -> None:
    """Breakers reading this process's GC time (Connect) share one ``gc.callbacks`` entry."""
    import gc

    for _ in range(3):
        _safety.Runtime().gc_seconds()
    before = len(gc.callbacks)
    spent = [_safety.Runtime().gc_seconds() for _ in range(5)]
    assert len(gc.callbacks) == before
    gc.collect()
    assert _safety.Runtime().gc_seconds() >= spent[-1] > -1


def test_the_task_queue_breaker_trips_on_the_executions_waiting() -> None:
    waiting = [3]
    breaker = Breaker("asyncTaskQueue", queue_size=2, check_interval_ms=0)
    breaker.pending = lambda: waiting[0]
    assert breaker.tripped() == (
        "circuit breaker tripped: 3 executions wait to be reported (queueSize 2)"
    )
    waiting[0] = 2
    assert breaker.tripped() is None


def test_a_checkpoint_stops_a_description_past_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_safety, "time", types.SimpleNamespace(monotonic=_Clock(1.5).monotonic))
    safety = Safety(Breaker("timeout", timeout_s=10.0), facets_percent=20)
    deadline = Deadline(safety)  # at 1.5: the facets' 2 s end at 3.5
    with guarding(safety, deadline):
        checkpoint(facets=True)  # 3
        with pytest.raises(BudgetExceededError, match="column lineage"):
            checkpoint(facets=True)  # 4.5
        with pytest.raises(BudgetExceededError):  # stopped for good
            checkpoint()
    checkpoint()  # outside a description: nothing to check


def test_the_budget_counts_the_descriptions_steps_not_the_users_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = _Clock(1.0)
    monkeypatch.setattr(_safety, "time", types.SimpleNamespace(monotonic=clock.monotonic))
    safety = Safety(Breaker("timeout", timeout_s=3.0))
    deadline = Deadline(safety, running=False)
    deadline.resume()  # 1
    deadline.resume()  # a step on another thread at the same time: counted once
    deadline.pause()
    deadline.pause()  # 2: 1 s spent
    clock.now += 3600.0  # the user's call
    deadline.resume()  # 3603
    deadline.check()  # 3604: 2 s spent
    deadline.check()  # 3605: 3 s, not past the budget
    with pytest.raises(BudgetExceededError, match="the description"):
        deadline.check()  # 3606: 4 s


def test_the_schema_size_limit_outside_and_inside_a_description() -> None:
    schema_size_check(1000)
    with pytest.raises(SchemaSizeExceededError, match=r"1001 fields exceed .*\(1000\)"):
        schema_size_check(1001)
    with guarding(Safety(schema_size_limit=0), None), pytest.raises(SchemaSizeExceededError):
        schema_size_check(1)
