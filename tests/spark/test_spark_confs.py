"""The JVM agent's spark.openlineage.* confs, as Airflow's provider injects them, on real sessions."""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from openlineage_sdk.spark import application_run, install, uninstall
from openlineage_sdk.spark._conf import SparkConfError, parse_confs, transport_section
from tests.spark._support import strict_problems

TASK_RUN = str(uuid.uuid4())
DAG_RUN = str(uuid.uuid4())
AIRFLOW = {
    "spark.openlineage.parentJobNamespace": "airflow_ns",
    "spark.openlineage.parentJobName": "orders_dag.load_task",
    "spark.openlineage.parentRunId": TASK_RUN,
    "spark.openlineage.rootParentJobNamespace": "airflow_ns",
    "spark.openlineage.rootParentJobName": "orders_dag",
    "spark.openlineage.rootParentRunId": DAG_RUN,
    "spark.openlineage.namespace": "spark_conf_ns",
    "spark.openlineage.facets.columnLineage.disabled": "true",
    "spark.openlineage.facets.disabled": "[processing_engine]",
    "spark.openlineage.job.owners.team": "data-platform",
    "spark.openlineage.job.tags": "env:prod;pii",
    "spark.openlineage.capturedProperties": "spark.app.name",
}


@pytest.fixture
def new_session(spark: Any, connect_port: int) -> Iterator[Callable[[str, dict[str, str]], Any]]:
    """A maker of new sessions of the shared driver with confs of their own, classic or Connect.

    Confs set through one Connect session were seen by the test run's other Connect sessions
    (a later test's column lineage went missing): each is unset when the test ends, and each
    Connect session is stopped (a classic one shares the driver: it stays).
    """
    made: list[tuple[Any, list[str], str]] = []

    def make(kind: str, confs: dict[str, str]) -> Any:
        if kind == "classic":
            session = spark.newSession()
        else:
            from pyspark.sql.connect.session import SparkSession as ConnectSession

            session = ConnectSession.builder.remote(f"sc://127.0.0.1:{connect_port}").create()
        made.append((session, list(confs), kind))
        for key, value in confs.items():
            session.conf.set(key, value)
        return session

    yield make
    for session, keys, kind in made:
        for key in keys:
            session.conf.unset(key)
        if kind == "connect":
            # A client left open would, at the interpreter's exit, send its cleanup to the
            # driver stopped by then, and retry for minutes: the run would hang after its tests.
            session.stop()


def _read(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text().splitlines()
    for line in lines:
        assert strict_problems(line) == [], line
    return [json.loads(line) for line in lines]


def _check_airflow(events: list[dict[str, Any]], app_name: str) -> None:
    apps = [e for e in events if e["job"]["facets"]["jobType"]["jobType"] == "APPLICATION"]
    writes = [e for e in events if e["job"]["facets"]["jobType"]["jobType"] == "SQL_JOB"]
    assert [e["eventType"] for e in apps] == ["START", "COMPLETE"]
    assert {e["eventType"] for e in writes} == {"START", "COMPLETE"}
    app_run = apps[0]["run"]["runId"]
    for event in apps:
        parent = event["run"]["facets"]["parent"]
        assert parent["run"]["runId"] == TASK_RUN
        assert parent["job"] == {"namespace": "airflow_ns", "name": "orders_dag.load_task"}
        assert parent["root"]["run"]["runId"] == DAG_RUN
        assert parent["root"]["job"] == {"namespace": "airflow_ns", "name": "orders_dag"}
        assert event["job"]["name"] == app_name
    for event in writes:
        parent = event["run"]["facets"]["parent"]
        # As the JVM agent: a write's parent is the application run, its root the DAG run.
        assert parent["run"]["runId"] == app_run
        assert parent["root"]["run"]["runId"] == DAG_RUN
        assert parent["root"]["job"] == {"namespace": "airflow_ns", "name": "orders_dag"}
    for event in apps + writes:
        assert event["job"]["namespace"] == "spark_conf_ns"
        assert "processing_engine" not in event["run"]["facets"]
        for dataset in event.get("outputs", []):
            assert "columnLineage" not in dataset.get("facets", {})
        assert event["job"]["facets"]["ownership"]["owners"] == [
            {"name": "data-platform", "type": "team"}
        ]
        tags = {(t["key"], t["value"]) for t in event["job"]["facets"]["tags"]["tags"]}
        assert tags == {("env", "prod"), ("pii", "true")}
        assert event["run"]["facets"]["spark_properties"]["properties"] == {
            "spark.app.name": "openlineage_sdk_tests"
        }
    # The write's output is there, and its job is named after it in the conf's namespace.
    outputs = {o["name"] for e in writes for o in e["outputs"]}
    assert any(name.endswith("/out") for name in outputs), outputs


@pytest.mark.parametrize("kind", ["classic", pytest.param("connect", marks=pytest.mark.connect)])
def test_airflow_confs_to_a_file_transport(
    spark: Any, new_session: Any, data_dir: Path, kind: str
) -> None:
    events_file = data_dir / "events.jsonl"
    confs = {
        **AIRFLOW,
        "spark.openlineage.transport.type": "file",
        "spark.openlineage.transport.location": str(events_file),
    }
    session = new_session(kind, confs)
    install(session)  # no client in code: the confs' transport
    try:
        with application_run(session):  # the adapter's client
            session.range(5).write.mode("overwrite").parquet(str(data_dir / "out"))
    finally:
        uninstall(session)
    _check_airflow(_read(events_file), "openlineage_sdk_tests")


class _Collector(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, dict[str, str], bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append((self.path, dict(self.headers), body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def http_server() -> Iterator[tuple[str, list[tuple[str, dict[str, str], bytes]]]]:
    received: list[tuple[str, dict[str, str], bytes]] = []
    handler = type("Handler", (_Collector,), {"received": received})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", received
    server.shutdown()
    server.server_close()


def test_airflow_confs_to_a_loopback_http_server(
    spark: Any,
    new_session: Any,
    data_dir: Path,
    http_server: tuple[str, list[tuple[str, dict[str, str], bytes]]],
) -> None:
    url, received = http_server
    confs = {
        **AIRFLOW,
        "spark.openlineage.transport.type": "http",
        "spark.openlineage.transport.url": url,
        "spark.openlineage.transport.endpoint": "api/v1/lineage",
        "spark.openlineage.transport.auth.type": "api_key",
        "spark.openlineage.transport.auth.apiKey": "s3cret-key",
        "spark.openlineage.transport.headers.X-Team": "platform",
        "spark.openlineage.transport.timeoutInMillis": "5000",
    }
    session = new_session("classic", confs)
    install(session)
    try:
        with application_run(session):
            session.range(5).write.mode("overwrite").parquet(str(data_dir / "out"))
    finally:
        uninstall(session)
    events: list[dict[str, Any]] = []
    for path, headers, body in received:
        assert path in ("/api/v1/lineage", "/api/v1/lineage/batch")
        assert headers["Authorization"] == "Bearer s3cret-key"
        assert headers["X-Team"] == "platform"
        payload = json.loads(body)
        events.extend(payload if isinstance(payload, list) else [payload])
    _check_airflow(events, "openlineage_sdk_tests")


def test_a_write_outside_the_application_run_has_the_task_run_as_parent(
    spark: Any, new_session: Any, data_dir: Path
) -> None:
    events_file = data_dir / "events.jsonl"
    confs = {
        **AIRFLOW,
        "spark.openlineage.transport.type": "file",
        "spark.openlineage.transport.location": str(events_file),
        "spark.openlineage.jobName.appendDatasetName": "false",
        "spark.openlineage.jobName.replaceDotWithUnderscore": "true",
        "spark.openlineage.appName": "orders.app",
    }
    session = new_session("classic", confs)
    install(session)
    try:
        session.range(3).write.mode("overwrite").parquet(str(data_dir / "year=2024" / "out"))
    finally:
        uninstall(session)
    events = _read(events_file)
    assert len(events) == 2
    for event in events:
        parent = event["run"]["facets"]["parent"]
        assert parent["run"]["runId"] == TASK_RUN
        assert parent["job"]["name"] == "orders_dag.load_task"
        assert parent["root"]["run"]["runId"] == DAG_RUN
        # The agent replaces dots in the command part only; the parts stay joined by dots.
        assert event["job"]["name"] == "orders_app.execute_insert_into_hadoop_fs_relation_command"


@pytest.mark.parametrize("kind", ["classic", pytest.param("connect", marks=pytest.mark.connect)])
def test_the_app_name_conf_changes_the_app_name_alone(
    spark: Any, new_session: Any, data_dir: Path, kind: str
) -> None:
    """With ``appName`` only, INSERT and DROP keep the suffixes the agent gives their commands."""
    events_file = data_dir / "events.jsonl"
    confs = {
        "spark.openlineage.transport.type": "file",
        "spark.openlineage.transport.location": str(events_file),
        "spark.openlineage.appName": "renamed_app",
    }
    session = new_session(kind, confs)
    table = f"app_name_conf_{kind}"
    session.sql(f"DROP TABLE IF EXISTS {table}")
    session.sql(f"CREATE TABLE {table} (k INT) USING parquet")
    install(session)
    try:
        session.sql(f"INSERT INTO {table} VALUES (1)")
        session.sql(f"DROP TABLE {table}")
    finally:
        uninstall(session)
    names = [e["job"]["name"] for e in _read(events_file) if e["eventType"] == "COMPLETE"]
    assert names == [
        f"renamed_app.execute_insert_into_hadoop_fs_relation_command.warehouse_{table}",
        "renamed_app.drop_table",
    ]


def test_remove_path_pattern_cuts_dataset_names(
    spark: Any, new_session: Any, data_dir: Path
) -> None:
    events_file = data_dir / "events.jsonl"
    confs = {
        "spark.openlineage.transport.type": "file",
        "spark.openlineage.transport.location": str(events_file),
        "spark.openlineage.dataset.removePath.pattern": r"(.*)(?<remove>/year=.*)",
    }
    session = new_session("classic", confs)
    install(session)
    try:
        session.range(3).write.mode("overwrite").parquet(str(data_dir / "t" / "year=2024"))
    finally:
        uninstall(session)
    events = _read(events_file)
    names = {o["name"] for e in events for o in e["outputs"]}
    assert names == {str(data_dir / "t")}
    assert all(e["job"]["name"].endswith("_t") for e in events)
    assert all("year" not in e["job"]["name"] for e in events)


@pytest.mark.parametrize("kind", ["classic", pytest.param("connect", marks=pytest.mark.connect)])
def test_dataset_lineage_disabled_puts_indirect_lineage_in_each_field(
    spark: Any, new_session: Any, data_dir: Path, kind: str
) -> None:
    """``columnLineage.datasetLineageEnabled=false``: the agent's per-field form, no ``dataset``."""
    source = str(data_dir / "src")
    spark.createDataFrame([(1, "a"), (2, "b")], "k INT, v STRING").write.parquet(source)

    def write(confs: dict[str, str], name: str) -> dict[str, Any]:
        events_file = data_dir / f"{name}.jsonl"
        confs = {
            **confs,
            "spark.openlineage.transport.type": "file",
            "spark.openlineage.transport.location": str(events_file),
        }
        session = new_session(kind, confs)
        install(session)
        try:
            # A declared schema: under Connect, column lineage of a path read needs it.
            frame = session.read.schema("k INT, v STRING").parquet(source)
            frame = frame.filter("k > 1").selectExpr("upper(v) AS u")
            frame.write.mode("overwrite").parquet(str(data_dir / name))
        finally:
            uninstall(session)
        (complete,) = [e for e in _read(events_file) if e["eventType"] == "COMPLETE"]
        (output,) = complete["outputs"]
        facet: dict[str, Any] = output["facets"]["columnLineage"]
        return facet

    default = write({}, "default")
    assert [(i["field"], i["transformations"][0]["subtype"]) for i in default["dataset"]] == [
        ("k", "FILTER")
    ]
    assert [i["field"] for i in default["fields"]["u"]["inputFields"]] == ["v"]

    folded = write({"spark.openlineage.columnLineage.datasetLineageEnabled": "false"}, "folded")
    assert "dataset" not in folded
    inputs = {i["field"]: i for i in folded["fields"]["u"]["inputFields"]}
    assert [t["subtype"] for t in inputs["v"]["transformations"]] == ["TRANSFORMATION"]
    assert inputs["k"]["transformations"] == [
        {"type": "INDIRECT", "subtype": "FILTER", "masking": False}
    ]
    assert inputs["k"]["name"] == inputs["v"]["name"] == source


@pytest.mark.parametrize("kind", ["classic", pytest.param("connect", marks=pytest.mark.connect)])
def test_descriptions_are_spark_sql_text_of_the_optimized_plan(
    spark: Any,
    new_session: Any,
    data_dir: Path,
    kind: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``columnLineage.descriptionsEnabled=true``: each transformation says which expression.

    Classic sessions: Spark's own SQL text of each expression of the optimized plan, with the
    filter the optimizer adds (``k IS NOT NULL``). Spark Connect: refused, said, none written.
    """
    source = str(data_dir / "src")
    spark.createDataFrame([(1, "a"), (2, "b")], "k INT, v STRING").write.parquet(source)
    events_file = data_dir / "described.jsonl"
    confs = {
        "spark.openlineage.columnLineage.descriptionsEnabled": "true",
        "spark.openlineage.transport.type": "file",
        "spark.openlineage.transport.location": str(events_file),
    }
    session = new_session(kind, confs)
    with caplog.at_level(logging.ERROR, logger="openlineage_sdk.spark"):
        install(session)
    try:
        frame = session.read.schema("k INT, v STRING").parquet(source)
        frame = frame.filter("k > 1").selectExpr("upper(v) AS u")
        frame.write.mode("overwrite").parquet(str(data_dir / "described"))
    finally:
        uninstall(session)
    (complete,) = [e for e in _read(events_file) if e["eventType"] == "COMPLETE"]
    facet = complete["outputs"][0]["facets"]["columnLineage"]
    (own,) = facet["fields"]["u"]["inputFields"]
    (dataset,) = facet["dataset"]
    refused = [r for r in caplog.records if "descriptionsEnabled" in r.getMessage()]
    if kind == "connect":
        assert refused
        assert "not supported under Spark Connect" in refused[0].getMessage()
        assert "description" not in own["transformations"][0]
        assert "description" not in dataset["transformations"][0]
        return
    assert not refused
    assert own["transformations"] == [
        {
            "type": "DIRECT",
            "subtype": "TRANSFORMATION",
            "description": "upper(v) AS u",
            "masking": False,
        }
    ]
    assert (dataset["field"], dataset["transformations"]) == (
        "k",
        [
            {
                "type": "INDIRECT",
                "subtype": "FILTER",
                "description": "WHERE ((k IS NOT NULL) AND (k > 1))",
                "masking": False,
            }
        ],
    )


# ------------------------------------------------------------------------- parsing, no Spark


def test_kafka_and_composite_confs_map_onto_the_transport_configuration() -> None:
    section = transport_section(
        {
            "spark.openlineage.transport.type": "composite",
            "spark.openlineage.transport.transports.k.type": "kafka",
            "spark.openlineage.transport.transports.k.topicName": "lineage",
            "spark.openlineage.transport.transports.k.properties.bootstrap.servers": "b:9092",
            "spark.openlineage.transport.transports.c.type": "console",
        }
    )
    assert section == {
        "type": "composite",
        "transports": {
            "k": {"type": "kafka", "topic": "lineage", "config": {"bootstrap.servers": "b:9092"}},
            "c": {"type": "console"},
        },
    }
    settings = parse_confs(
        {f"spark.openlineage.transport.{k}": v for k, v in [("type", "console")]}
    )
    assert settings.transport == {"type": "console"}
    assert settings.problems == ()


@pytest.mark.parametrize(
    ("confs", "message"),
    [
        ({"spark.openlineage.parentRunId": "x"}, "parentJobNamespace"),
        (
            {
                "spark.openlineage.parentJobNamespace": "a",
                "spark.openlineage.parentJobName": "b",
                "spark.openlineage.parentRunId": "not-a-uuid",
            },
            "spark.openlineage.parentRunId must be a UUID",
        ),
        (
            {"spark.openlineage.transport.type": "http", "spark.openlineage.transport.urll": "x"},
            "urll",
        ),
        ({"spark.openlineage.dataset.removePath.pattern": "(a)"}, "group named remove"),
        (
            {
                "spark.openlineage.transport.type": "http",
                "spark.openlineage.transport.urlParams.a": "b",
            },
            "urlParams",
        ),
        ({"spark.openlineage.facets.schema.disabled": "yes"}, "must be true or false"),
        ({"spark.openlineage.transport.url": "http://h"}, "transport.type must name"),
        (
            {"spark.openlineage.columnLineage.datasetLineageEnabled": "no"},
            "datasetLineageEnabled must be true or false",
        ),
        (
            {"spark.openlineage.columnLineage.descriptionsEnabled": "maybe"},
            "descriptionsEnabled must be true or false",
        ),
    ],
)
def test_a_conf_that_cannot_be_used_is_named_with_its_rule(
    confs: dict[str, str], message: str
) -> None:
    with pytest.raises(SparkConfError, match=message):
        parse_confs(confs, strict=True)
    settings = parse_confs(confs)
    assert any(message in problem for problem in settings.problems)
    assert all("not-a-uuid" not in problem for problem in settings.problems)


def test_the_api_key_never_appears_in_a_problem() -> None:
    settings = parse_confs(
        {
            "spark.openlineage.transport.type": "http",
            "spark.openlineage.transport.auth.type": "api_key",
            "spark.openlineage.transport.auth.apiKey": "s3cret-key",
            "spark.openlineage.transport.bogus": "s3cret-key",
        }
    )
    assert settings.problems
    assert all("s3cret" not in p for p in settings.problems)


def test_folding_dataset_lineage_into_fields_keeps_each_transformation_once() -> None:
    from openlineage_sdk.models.records import InputFieldTransformation
    from openlineage_sdk.spark._execution import ColumnLineageRecord
    from openlineage_sdk.spark.events._sinks import fold_dataset_lineage

    direct: InputFieldTransformation = {"type": "DIRECT", "subtype": "IDENTITY", "masking": False}
    join: InputFieldTransformation = {"type": "INDIRECT", "subtype": "JOIN", "masking": False}
    record = ColumnLineageRecord(
        fields={
            "a": {
                "inputFields": [
                    {"namespace": "file", "name": "/t", "field": "a", "transformations": [direct]}
                ]
            }
        },
        dataset=[
            {"namespace": "file", "name": "/t", "field": "a", "transformations": [join]},
            {"namespace": "file", "name": "/u", "field": "k", "transformations": [join, join]},
        ],
    )
    folded = fold_dataset_lineage(record)
    assert folded.dataset == []
    assert folded.fields == {
        "a": {
            "inputFields": [
                {
                    "namespace": "file",
                    "name": "/t",
                    "field": "a",
                    "transformations": [direct, join],
                },
                {"namespace": "file", "name": "/u", "field": "k", "transformations": [join]},
            ]
        }
    }
    empty = ColumnLineageRecord(fields={}, dataset=record.dataset)
    assert fold_dataset_lineage(empty).fields == {}
    assert fold_dataset_lineage(folded) is folded
