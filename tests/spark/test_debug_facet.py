"""The ``debug`` run facet, as the JVM agent's ``DebugRunFacet`` and its smart mode.

Off by default; ``facets.debug.disabled=false`` puts it on every event of an execution's run;
``debug.smart`` on a COMPLETE whose datasets are missing. What it says of the driver is read
back here from the driver itself (its JVM's properties, Spark's and Scala's versions).
"""

from __future__ import annotations

import json
import platform
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk.spark import install, uninstall
from openlineage_sdk.spark._conf import SparkConfError, parse_confs
from openlineage_sdk.spark.events._debug import _public_confs
from tests.spark._support import Captured

P = "spark.openlineage."


@contextmanager
def _confs(spark: Any, values: dict[str, str]) -> Iterator[None]:
    for key, value in values.items():
        spark.conf.set(P + key, value)
    try:
        yield
    finally:
        for key in values:
            spark.conf.unset(P + key)


def _write_events(
    spark: Any, client: Any, memory: Any, path: Path, confs: dict[str, str], *, read: Path | None
) -> list[dict[str, Any]]:
    """One write (of ``read``'s files, or of a range: no inputs) with ``confs`` set; its events."""
    with _confs(spark, confs):
        install(spark, client)
        try:
            frame = spark.read.parquet(str(read)) if read is not None else spark.range(3)
            frame.write.mode("overwrite").parquet(str(path))
        finally:
            uninstall(spark)
    Captured(memory).events()
    return [json.loads(text) for text in memory.json_events]


def _debug(event: dict[str, Any]) -> Any:
    return event["run"]["facets"].get("debug")


@pytest.mark.spark
def test_off_by_default(spark: Any, client: Any, memory: Any, data_dir: Path) -> None:
    events = _write_events(spark, client, memory, data_dir / "out", {}, read=None)
    assert [e["eventType"] for e in events] == ["START", "COMPLETE"]
    assert [_debug(e) for e in events] == [None, None]


@pytest.mark.spark
def test_enabled_every_event_says_what_the_driver_is(
    spark: Any, client: Any, memory: Any, data_dir: Path
) -> None:
    events = _write_events(
        spark, client, memory, data_dir / "out", {"facets.debug.disabled": "false"}, read=None
    )
    start, complete = (_debug(e) for e in events)
    assert start is not None
    assert complete is not None
    jvm = spark._jvm
    system = jvm.java.lang.System
    assert complete["classpath"]["sparkVersion"] == spark.version
    assert complete["classpath"]["scalaVersion"] == jvm.scala.util.Properties.versionNumberString()
    assert [c["className"] for c in complete["classpath"]["classDetails"]] == [
        "org.apache.spark.sql.delta.catalog.DeltaCatalog",
        "org.apache.iceberg.catalog.Catalog",
        "com.google.cloud.spark.bigquery.BigQueryRelation",
    ]
    bigquery = complete["classpath"]["classDetails"][2]
    assert bigquery == {"className": bigquery["className"], "isOnClasspath": False}
    assert complete["system"]["javaVersion"] == system.getProperty("java.version")
    assert complete["system"]["osName"] == system.getProperty("os.name")
    assert complete["system"]["sparkDeployMode"] == "client"
    assert complete["config"]["catalogClass"] == (
        spark._jsparkSession.catalog().getClass().getCanonicalName()
    )
    assert complete["config"]["openLineageConfig"]["facets.debug.disabled"] == "false"
    assert complete["memory"]["maxMemory"] > 0
    assert complete["python"] == {
        "version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "pysparkVersion": __import__("pyspark").__version__,
        "sessionKind": "classic",
    }
    assert complete["logs"] == []  # nothing was left out of this write's lineage


@pytest.mark.spark
def test_smart_mode_on_a_complete_that_misses_datasets(
    spark: Any, client: Any, memory: Any, data_dir: Path
) -> None:
    spark.range(3).write.mode("overwrite").parquet(str(data_dir / "raw"))
    smart = {"debug.smart": "true"}
    events = _write_events(spark, client, memory, data_dir / "out", smart, read=data_dir / "raw")
    assert [_debug(e) for e in events] == [None, None]  # inputs and output: nothing missing
    memory.clear()
    events = _write_events(spark, client, memory, data_dir / "out", smart, read=None)
    start, complete = (_debug(e) for e in events)
    assert start is None  # only a COMPLETE, as the agent's
    assert complete["logs"] == ["No input datasets detected"]
    memory.clear()
    output_only = {**smart, "debug.smartMode": "output-missing"}
    events = _write_events(spark, client, memory, data_dir / "out", output_only, read=None)
    assert [_debug(e) for e in events] == [None, None]  # it has its output


@pytest.mark.spark
def test_a_facet_over_the_size_limit_is_one_log_line(
    spark: Any, client: Any, memory: Any, data_dir: Path
) -> None:
    confs = {
        "facets.debug.disabled": "false",
        "debug.payloadSizeLimitInKilobytes": "1",
        "padding": "x" * 3000,  # reported among the confs: the facet is over 2 kB
    }
    events = _write_events(spark, client, memory, data_dir / "out", confs, read=None)
    facet = _debug(events[-1])
    assert set(facet) == {"_producer", "_schemaURL", "logs"}
    [line] = facet["logs"]
    assert line.startswith("Skipping debug facet due to payload size: ")
    assert int(line.split(": ")[1].split()[0]) > 1


@pytest.mark.spark
@pytest.mark.connect
def test_connect_says_what_the_client_sees(
    spark_connect: Any, client: Any, memory: Any, data_dir: Path
) -> None:
    events = _write_events(
        spark_connect,
        client,
        memory,
        data_dir / "out",
        {"facets.debug.disabled": "false"},
        read=None,
    )
    facet = _debug(events[-1])
    assert facet["python"]["sessionKind"] == "connect"
    assert facet["classpath"]["sparkVersion"] == spark_connect.version
    # The driver's JVM is the server's: its system and memory are not the client's to say.
    assert "system" not in facet
    assert "memory" not in facet


def test_confs_naming_a_secret_are_left_out() -> None:
    confs = {
        P + "transport.type": "http",
        P + "transport.auth.apiKey": "s3cr3t",
        P + "transport.headers.X-Token": "t0k3n",
        P + "namespace": "shop",
        "spark.app.name": "not ours",
    }
    assert _public_confs(confs) == {"namespace": "shop", "transport.type": "http"}


def test_a_bad_debug_conf_is_named_with_its_rule() -> None:
    with pytest.raises(SparkConfError, match=r"debug\.smartMode must be any-missing"):
        parse_confs({P + "debug.smartMode": "sometimes"}, strict=True)
    with pytest.raises(SparkConfError, match=r"payloadSizeLimitInKilobytes must be 1 or more"):
        parse_confs({P + "debug.payloadSizeLimitInKilobytes": "0"}, strict=True)
    settings = parse_confs({P + "facets.debug.disabled": "false", P + "debug.smart": "true"})
    assert settings.debug.enabled
    assert settings.debug.smart
    assert not parse_confs({}).debug.active


@pytest.mark.spark
def test_it_lists_the_clients_metrics_unless_disabled(
    spark: Any, memory: Any, data_dir: Path
) -> None:
    from openlineage_sdk.client import OpenLineage

    on = {"facets.debug.disabled": "false"}
    with OpenLineage(transport=memory, config={"metrics": {"type": "simple"}}) as client:
        events = _write_events(spark, client, memory, data_dir / "out", on, read=None)
        memory.clear()
        off = {**on, "debug.metricsDisabled": "true"}
        quiet = _write_events(spark, client, memory, data_dir / "out", off, read=None)
    nodes = {n["name"]: n for n in _debug(events[-1])["metrics"]["metrics"]}
    # The COMPLETE is built after its START went out: one emit started and completed before.
    assert nodes["openlineage.emit.start"]["value"] >= 1
    assert nodes["openlineage.emit.start"]["tags"] == [
        {"key": "openlineage.transport", "value": "MemoryTransport"}
    ]
    assert "metrics" not in _debug(quiet[-1])
