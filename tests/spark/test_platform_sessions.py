"""Platform facets and names on a real session's events, classic and under Spark Connect.

Each test sets on the shared local driver what the platform sets: the session's confs (which a
Connect client reads through ``spark.conf``), and, in classic mode, where the adapter runs in
the driver's process, its environment variables, files and local properties. Under Connect the
client's environment and files are not the driver's: platforms told only by those are not
detected there, and a test says so.
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk.spark import application_run, install, uninstall
from openlineage_sdk.spark.platforms import _facts
from tests.spark._metadata import gcp_metadata
from tests.spark._support import Captured

DATAPROC_CLASSPATH = "/etc/hadoop/conf:/usr/local/share/google/dataproc/lib/*"
GLUE_FACTORY = "com.amazonaws.glue.catalog.metastore.AWSGlueDataCatalogHiveClientFactory"
WORKSPACE = "https://dbc-954f5d5f-34dd.cloud.databricks.com/"


@contextmanager
def session_confs(spark: Any, values: dict[str, str]) -> Iterator[None]:
    for key, value in values.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key in values:
            spark.conf.unset(key)


def _kind(spark: Any) -> str:
    return "connect" if type(spark).__module__.startswith("pyspark.sql.connect") else "classic"


def _run(
    spark: Any, client: Any, memory: Any, path: Path, *, table: str | None = None
) -> list[Any]:
    """An application run with one write in it; the events as JSON."""
    install(spark, client)
    try:
        with application_run(spark):
            frame = spark.range(3).selectExpr("id", "id * 2 AS twice")
            if table is None:
                frame.write.mode("overwrite").parquet(str(path))
            else:
                frame.write.mode("overwrite").saveAsTable(table)
    finally:
        uninstall(spark)
    Captured(memory).events()
    return [json.loads(text) for text in memory.json_events]


def _app(events: list[Any]) -> list[Any]:
    return [e for e in events if e["job"]["facets"]["jobType"]["jobType"] == "APPLICATION"]


def _writes(events: list[Any]) -> list[Any]:
    return [e for e in events if e["job"]["facets"]["jobType"]["jobType"] == "SQL_JOB"]


PLATFORM_KEYS = {
    "environment-properties",
    "gcp_dataproc",
    "openlineageSdk_emr",
    "openlineageSdk_kubernetes",
}


def _fields(facet: dict[str, Any]) -> dict[str, Any]:
    """A facet's own fields, without ``_producer`` and ``_schemaURL``."""
    return {k: v for k, v in facet.items() if not k.startswith("_")}


def _on_every_classic_event(
    spark: Any, events: list[Any], key: str, expected: dict[str, Any]
) -> None:
    """Every event carries run facet ``key`` with ``expected`` in classic PySpark; none does
    under Connect (the platform's variables and files are the client's, not the driver's)."""
    facets = [e["run"]["facets"].get(key) for e in events]
    if _kind(spark) == "connect":
        assert facets == [None] * len(events)
        return
    assert events
    for facet in facets:
        assert facet is not None
        assert _fields(facet) == expected


def test_every_event_names_its_application_and_no_platform_is_guessed(
    mode_spark: Any,
    client: Any,
    memory: Any,
    data_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A machine without any platform's marks, wherever the tests run (a CI pod included).
    for name in ("KUBERNETES_SERVICE_HOST", "DATABRICKS_RUNTIME_VERSION", "SPARK_DIST_CLASSPATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(_facts, "FILES_ROOT", tmp_path)
    events = _run(mode_spark, client, memory, data_dir / "out")
    assert len(_app(events)) == 2
    assert len(_writes(events)) == 2
    if _kind(mode_spark) == "classic":
        context = mode_spark.sparkContext
        expected = {
            "master": "local[2]",
            "appName": "openlineage_sdk_tests",
            "applicationId": context.applicationId,
            "deployMode": "client",
            "driverHost": mode_spark.conf.get("spark.driver.host"),
            "userName": context.sparkUser(),
        }
    else:  # what the server's confs say: its user and UI address are its own
        expected = {
            "master": "local[2]",
            "appName": "openlineage_sdk_tests",
            "applicationId": mode_spark.conf.get("spark.app.id"),
            "deployMode": "client",
            "driverHost": mode_spark.conf.get("spark.driver.host"),
        }
    for event in events:
        facets = event["run"]["facets"]
        details = facets["spark_applicationDetails"]
        assert (
            details["_schemaURL"]
            == "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet"
        )
        assert _fields(details) == expected
        assert PLATFORM_KEYS.isdisjoint(facets)
        assert "gcp_lineage" not in event["job"]["facets"]


def test_disabled_like_any_facet(mode_spark: Any, client: Any, memory: Any, data_dir: Path) -> None:
    with session_confs(
        mode_spark, {"spark.openlineage.facets.spark_applicationDetails.disabled": "true"}
    ):
        events = _run(mode_spark, client, memory, data_dir / "out")
    assert events
    assert all("spark_applicationDetails" not in e["run"]["facets"] for e in events)


def test_databricks(
    mode_spark: Any, client: Any, memory: Any, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runtime's variable (classic), the cluster's confs and the command's local
    properties; the notebook shell's app name made the workspace's in executions' names."""
    kind = _kind(mode_spark)
    if kind == "classic":
        monkeypatch.setenv("DATABRICKS_RUNTIME_VERSION", "15.4")
        context = mode_spark.sparkContext
        context.setLocalProperty("spark.databricks.notebook.path", "/Users/ana@example.com/orders")
        context.setLocalProperty("user", "ana@example.com")
    confs = {
        "spark.databricks.workspaceUrl": WORKSPACE,
        "spark.databricks.clusterUsageTags.clusterName": "etl-cluster",
        "spark.databricks.clusterUsageTags.clusterOwnerOrgId": "1234567890",
        "spark.openlineage.appName": "Databricks Shell",
    }
    try:
        with session_confs(mode_spark, confs):
            events = _run(mode_spark, client, memory, data_dir / "orders")
    finally:
        if kind == "classic":
            mode_spark.sparkContext.setLocalProperty("spark.databricks.notebook.path", None)
            mode_spark.sparkContext.setLocalProperty("user", None)
    expected = {
        "spark.databricks.clusterUsageTags.clusterName": "etl-cluster",
        "spark.databricks.clusterUsageTags.clusterOwnerOrgId": "1234567890",
    }
    if kind == "classic":
        expected.update(
            {
                "spark.databricks.notebook.path": "/Users/ana@example.com/orders",
                "user": "ana@example.com",
            }
        )
    for event in events:
        assert (
            event["run"]["facets"]["environment-properties"]["environment-properties"] == expected
        )
    assert {e["job"]["name"] for e in _app(events)} == {"databricks_shell"}
    name = (
        "dbc-954f5d5f-34dd.execute_insert_into_hadoop_fs_relation_command."
        + data_dir.name
        + "_orders"
    )
    assert {e["job"]["name"] for e in _writes(events)} == {name}


def test_unity_catalog_names_a_table_by_its_three_parts(
    mode_spark: Any, client: Any, memory: Any, data_dir: Path, table: Any
) -> None:
    name = table("uc_orders")
    confs = {
        "spark.databricks.workspaceUrl": WORKSPACE,
        "spark.databricks.unityCatalog.enabled": "true",
    }
    with session_confs(mode_spark, confs):
        events = _run(mode_spark, client, memory, data_dir, table=name)
    start = _writes(events)[0]
    assert start["outputs"][0]["facets"]["symlinks"]["identifiers"] == [
        {"namespace": "unity-catalog", "name": f"spark_catalog.default.{name}", "type": "TABLE"}
    ]


def test_glue_catalog_tables_by_their_arn(
    mode_spark: Any,
    client: Any,
    memory: Any,
    data_dir: Path,
    table: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Glue's Hive client and account as a Glue job sets them; the region from the driver's
    environment, which a Connect client does not have: there the table keeps its warehouse
    symlink (no ARN is made up)."""
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-west-2")
    name = table("glue_orders")
    confs = {
        "spark.hadoop.hive.metastore.client.factory.class": GLUE_FACTORY,
        "spark.glue.accountId": "123456789012",
    }
    with session_confs(mode_spark, confs):
        events = _run(mode_spark, client, memory, data_dir, table=name)
    [symlink] = _writes(events)[0]["outputs"][0]["facets"]["symlinks"]["identifiers"]
    if _kind(mode_spark) == "classic":
        assert symlink == {
            "namespace": "arn:aws:glue:us-west-2:123456789012",
            "name": f"table/default/{name}",
            "type": "TABLE",
        }
    else:
        assert symlink["name"] == f"default.{name}"
        assert not symlink["namespace"].startswith("arn:")


def test_dataproc(
    mode_spark: Any, client: Any, memory: Any, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A serverless batch: Dataproc's library on the classpath, the batch in the metadata
    server. An execution's facet names its node; the application's does not."""
    monkeypatch.setenv("SPARK_DIST_CLASSPATH", DATAPROC_CLASSPATH)
    values = {
        "/project/project-id": "openlineage-gcp-project",
        "/instance/attributes/dataproc-region": "us-central1",
        "/instance/attributes/dataproc-batch-id": "orders-batch",
        "/instance/attributes/dataproc-batch-uuid": "1q2w3e4r5t6y7u8i",
    }
    with (
        gcp_metadata(values) as server,
        session_confs(mode_spark, {"google.metadata.api.base-url": server.url}),
    ):
        events = _run(mode_spark, client, memory, data_dir / "out")
    if _kind(mode_spark) == "connect":
        # The client's variables and metadata server are not the driver's.
        assert server.requests == []
        assert all("gcp_dataproc" not in e["run"]["facets"] for e in events)
        return
    app_id = mode_spark.sparkContext.applicationId
    common = {
        "batchId": "orders-batch",
        "batchUuid": "1q2w3e4r5t6y7u8i",
        "jobType": "batch",
        "projectId": "openlineage-gcp-project",
        "appId": app_id,
        "appName": "openlineage_sdk_tests",
    }
    for event in _app(events):
        facet = event["run"]["facets"]["gcp_dataproc"]
        assert _fields(facet) == common
    for event in _writes(events):
        facet = event["run"]["facets"]["gcp_dataproc"]
        assert facet["_schemaURL"] == (
            "https://openlineage.io/spec/facets/1-0-0/GcpDataprocRunFacet.json#/$defs/GcpDataprocRunFacet"
        )
        command = event["job"]["name"].split(".")[1]
        assert _fields(facet) == {
            **common,
            "queryNodeName": command,
        }
    for event in events:
        assert event["job"]["facets"]["gcp_lineage"]["origin"] == {
            "sourceType": "DATAPROC",
            "name": "projects/openlineage-gcp-project/locations/us-central1/batches/orders-batch",
        }


def test_emr(
    mode_spark: Any,
    client: Any,
    memory: Any,
    data_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cluster's job-flow.json, and a driver started by a step in its step folder."""
    root = tmp_path / "node"
    info = root / "mnt/var/lib/info"
    info.mkdir(parents=True)
    (info / "job-flow.json").write_text(
        json.dumps({"jobFlowId": "j-2AXXXXXXGAPLF", "instanceCount": 3})
    )
    step = root / "mnt/var/lib/hadoop/steps/s-07767992IY7VC5NVV854"
    step.mkdir(parents=True)
    monkeypatch.setattr(_facts, "FILES_ROOT", root)
    monkeypatch.chdir(step)
    events = _run(mode_spark, client, memory, data_dir / "out")
    _on_every_classic_event(
        mode_spark,
        events,
        "openlineageSdk_emr",
        {"clusterId": "j-2AXXXXXXGAPLF", "stepId": "s-07767992IY7VC5NVV854"},
    )


def test_kubernetes(
    mode_spark: Any,
    client: Any,
    memory: Any,
    data_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A driver pod: Kubernetes' own variable and namespace file, the downward API's variables
    from its pod template, the image conf spark-submit passes."""
    for name, value in {
        "KUBERNETES_SERVICE_HOST": "10.96.0.1",
        "POD_NAME": "orders-driver",
        "NODE_NAME": "node-7",
    }.items():
        monkeypatch.setenv(name, value)
    secrets = tmp_path / "pod/var/run/secrets/kubernetes.io/serviceaccount"
    secrets.mkdir(parents=True)
    (secrets / "namespace").write_text("data-eng\n")
    monkeypatch.setattr(_facts, "FILES_ROOT", tmp_path / "pod")
    confs = {"spark.kubernetes.container.image": "registry.example/spark-py:4.3.0"}
    with session_confs(mode_spark, confs):
        events = _run(mode_spark, client, memory, data_dir / "out")
    # Under Connect the master is local: only a pod's variables and files would say
    # Kubernetes, and those are the client's.
    _on_every_classic_event(
        mode_spark,
        events,
        "openlineageSdk_kubernetes",
        {
            "namespace": "data-eng",
            "podName": "orders-driver",
            "nodeName": "node-7",
            "image": "registry.example/spark-py:4.3.0",
        },
    )


GLUE_SCRIPT = textwrap.dedent(
    """
    import sys
    from pyspark.sql import SparkSession

    run_id = sys.argv[2]
    spark = (
        SparkSession.builder.master("local[1]")
        .appName(f"nativespark-Orders load - V2-{run_id}")
        .config("spark.glue.GLUE_VERSION", "4.0")
        .config("spark.glue.JOB_NAME", "Orders load - V2")
        .config("spark.glue.JOB_RUN_ID", run_id)
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    spark.range(2).write.mode("overwrite").parquet(sys.argv[1])
    spark.stop()
    """
)


@pytest.mark.spark
@pytest.mark.slow
def test_every_run_of_a_glue_job_is_one_job(tmp_path: Path) -> None:
    """Glue names the application ``nativespark-{job}-{run id}``, a new name on every run: two
    runs of one Glue job, through the launcher, are the same jobs."""
    from tests.spark.test_launcher import _launch

    names = []
    out = tmp_path / "lake" / "orders"
    for run_id in ("jr_27897ad718cfca473928fdd53d57bec6", "jr_d351c4fe530830212cbd1c74e9c84c2e"):
        folder = tmp_path / run_id
        folder.mkdir()
        (folder / "job.py").write_text(GLUE_SCRIPT)
        (folder / "openlineage.yml").write_text(
            json.dumps(
                {"transport": {"type": "file", "log_file_path": str(folder / "events.jsonl")}}
            )
        )
        events = _launch(folder, [sys.executable, "job.py", str(out), run_id])
        names.append(sorted({e["job"]["name"] for e in events}))  # type: ignore[index]
    assert names[0] == names[1]
    assert names[0][0] == "orders_load_v2"
    assert (
        names[0][1] == "orders_load_v2.execute_insert_into_hadoop_fs_relation_command.lake_orders"
    )
