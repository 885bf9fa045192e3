"""The Spark versions the adapter reads: each version's readers, and the others refused whole."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk.spark import SparkVersionError, install, installed, uninstall
from openlineage_sdk.spark.session import _versions as versions
from openlineage_sdk.spark.session import runtime_confs
from openlineage_sdk.spark.session.classic._readers import select_readers
from tests.spark._versions import pyspark_version


@pytest.mark.spark
def test_the_session_reads_its_runtime_confs_as_its_version_spells_them(spark: Any) -> None:
    # PySpark 3.5's RuntimeConfig has no getAll: its readers read the JVM's confs instead.
    spark.conf.set("spark.openlineage.test.versions", "read")
    try:
        confs = runtime_confs(spark)
    finally:
        spark.conf.unset("spark.openlineage.test.versions")
    assert confs["spark.openlineage.test.versions"] == "read"
    assert confs["spark.app.name"] == spark.sparkContext.appName


@pytest.mark.spark
def test_the_readers_read_a_writers_source_options_and_mode(spark: Any) -> None:
    writer = spark.range(1).write.format("json").option("compression", "none").mode("overwrite")
    readers = select_readers(spark.version)
    assert readers.writer_settings(writer._jwrite) == ("json", {"compression": "none"})
    assert readers.writer_mode(writer._jwrite) == "overwrite"


def test_the_readers_are_chosen_by_the_spark_version() -> None:
    assert select_readers("3.5.9").versions == ("3.5",)
    assert select_readers("3.5.9").stream_writer_derived == ("ds", "df")
    for version in ("4.0.5", "4.1.4", "4.2.1", "4.3.0", None):
        assert select_readers(version).versions == ("4",)
        assert select_readers(version).stream_writer_derived == ("ds",)


@pytest.mark.spark
@pytest.mark.parametrize("version", ["3.4.4", "3.3.2", "4.4.0", "5.0.0"])
def test_a_classic_version_outside_the_range_is_refused_at_install(
    spark: Any, client: Any, memory: Any, monkeypatch: Any, tmp_path: Path, version: str
) -> None:
    monkeypatch.setattr(type(spark), "version", property(lambda self: version))
    with pytest.raises(SparkVersionError) as raised:
        install(spark, client)
    assert str(raised.value) == (
        f"openlineage-sdk does not support classic PySpark (Spark) {version}: it supports "
        "3.5, 4.0, 4.1, 4.2, 4.3; lineage is not turned on for this session"
    )
    assert (raised.value.kind, raised.value.version) == ("classic", version)
    assert installed(spark) is None
    # Nothing of the adapter is left on the session: the user's write runs as without it.
    spark.range(3).write.parquet(str(tmp_path / "out"))
    assert spark.read.parquet(str(tmp_path / "out")).count() == 3
    assert memory.events == []


@pytest.mark.spark
@pytest.mark.connect
def test_a_connect_client_outside_the_range_is_refused_at_install(
    spark_connect: Any, client: Any, memory: Any, monkeypatch: Any, tmp_path: Path
) -> None:
    # The client's own version is what is read (PySpark 3.5's client against a 4.x server).
    monkeypatch.setattr(versions, "client_version", lambda: "3.5.9")
    with pytest.raises(SparkVersionError, match=r"Spark Connect client 3\.5\.9: it supports 4\.0,"):
        install(spark_connect, client)
    assert installed(spark_connect) is None
    spark_connect.range(3).write.parquet(str(tmp_path / "out"))
    assert spark_connect.read.parquet(str(tmp_path / "out")).count() == 3
    assert memory.events == []


@pytest.mark.spark
def test_the_running_version_is_supported(spark: Any, client: Any) -> None:
    # Every version the Spark sessions of noxfile.py test but 3.4 is installed on.
    version = pyspark_version()
    assert version is not None
    if version < (3, 5):
        with pytest.raises(SparkVersionError):
            install(spark, client)
        return
    install(spark, client)
    try:
        assert installed(spark) is not None
    finally:
        uninstall(spark)


SERVER_PYTHON = "OPENLINEAGE_SDK_TEST_CONNECT_SERVER_PYTHON"


@pytest.mark.spark
@pytest.mark.skipif(
    (pyspark_version() or (4, 0)) >= (4, 0) or not os.environ.get(SERVER_PYTHON),
    reason=f"a PySpark 3 client and a PySpark 4 interpreter (${SERVER_PYTHON}) to serve it",
)
# PySpark 3.5's Connect client compares versions with distutils' LooseVersion, which warns.
@pytest.mark.filterwarnings("ignore:distutils Version classes are deprecated:DeprecationWarning")
def test_a_pyspark_3_connect_client_of_a_4_server_is_refused_and_its_writes_run(
    client: Any, memory: Any, tmp_path: Path
) -> None:
    # PySpark 3.5's Connect client works against a 4.x server; the adapter does not read it
    # (its execute_command takes no observations, and more): refused at install, the write runs.
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [
        os.environ[SERVER_PYTHON],
        str(Path(__file__).with_name("connect_server.py")),
        str(port),
        str(tmp_path / "warehouse"),
    ]
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tmp_path
    ) as server:
        assert server.stdin is not None
        assert server.stdout is not None
        try:
            line = server.stdout.readline()  # the server's driver is up and serving
            assert line.startswith("ready 4."), line
            session = ConnectSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
            try:
                with pytest.raises(SparkVersionError, match=r"Spark Connect client 3\.5\.\d+:"):
                    install(session, client)
                assert installed(session) is None
                session.range(3).write.parquet(str(tmp_path / "out"))
                assert session.read.parquet(str(tmp_path / "out")).count() == 3
                assert memory.events == []
            finally:
                session.stop()
        finally:
            server.stdin.close()  # the server stops
            try:
                server.wait(timeout=120)
            except subprocess.TimeoutExpired:
                server.kill()
                raise


def test_a_v2_table_described_without_json_keeps_its_catalog_from_its_name() -> None:
    # Spark 4.1 refuses DESCRIBE ... AS JSON for a v2 table, and its plain DESCRIBE has no
    # Catalog row: the catalog (which says the table may describe itself) is its name's first part.
    from openlineage_sdk.spark.describe._tables import describe_table

    described = [
        ("id", "bigint", None),
        ("", "", ""),
        ("# Detailed Table Information", "", ""),
        ("Name", "rl.default.orders", ""),
        ("Type", "MANAGED", ""),
        ("Location", "/data/rl/default/orders", ""),
    ]
    info = describe_table(None, "rl.default.orders", exists=True, rows=lambda _: described)
    assert info is not None
    assert (info.catalog, info.database, info.table) == ("rl", "default", "orders")
    assert info.location == "/data/rl/default/orders"
