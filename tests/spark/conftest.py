"""Spark fixtures: one real local Spark driver per test run, used classically and over Connect.

One JVM serves both modes. The classic session is started with the Spark Connect plugin, which
runs a real Spark Connect gRPC server inside that driver on a free loopback port; the Connect
session is a plain Connect client of that server. The client side of the Connect session holds
no JVM, exactly as on a cluster (the adapter's Connect code never reaches for one; a test checks
that), while the tests themselves can still count the jobs the shared driver ran.

``mode_spark`` runs a test once per mode, so the same suite covers classic PySpark and Spark
Connect.

Only the tests that need Spark skip where it cannot run (no pyspark, or no ``java`` on the
PATH), each with the reason: those that use a Spark fixture (``spark``, ``spark_connect``,
``mode_spark`` and the fixtures built on them) and those marked ``spark`` because they start a
Spark driver of their own in a subprocess. The rest (naming rules, text parsing, pure functions)
run anywhere.
"""

from __future__ import annotations

import functools
import itertools
import os
import socket
import sys
import time
import warnings
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.spark import _recorder
from tests.spark._support import (
    NAMESPACE,
    PRODUCER,
    Captured,
    pyspark_missing,
    skip_without_spark,
    spark_missing,
    strict_problems,
)
from tests.spark._versions import collect_socket_leaks, connect_server_missing

# The fixtures that start (or are) a Spark session; every Spark fixture of this folder is built
# on one of them (``mode_spark`` asks for its session by name, so it is listed itself).
SPARK_FIXTURES = frozenset({"spark", "spark_connect", "mode_spark"})

SPARK_MISSING = spark_missing()
SOCKET_LEAKS = collect_socket_leaks()
CONNECT_SERVER_MISSING = connect_server_missing()
PYSPARK_MISSING = pyspark_missing()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def spark_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("spark")


@pytest.fixture(scope="session")
def connect_port() -> int:
    return _free_port()


def _driver_jars() -> tuple[list[str], list[str]]:
    """JARs the tests put on the driver's classpath: the PostgreSQL JDBC driver, when installed
    (on the JVM's own classpath, where java.sql.DriverManager finds it by its URL), and the
    row-level test catalog (compiled against the PySpark JARs, when javac is here)."""
    from tests.spark._postgres import JDBC_JAR
    from tests.spark._row_level import catalog_jar, connect_plugin_jar

    built = [jar for jar in (catalog_jar(), connect_plugin_jar()) if jar is not None]
    return [JDBC_JAR] if Path(JDBC_JAR).exists() else [], [str(jar) for jar in built]


@pytest.fixture(scope="session")
def spark(spark_root: Path, connect_port: int) -> Iterator[Any]:
    """The classic session (and the driver that also serves Spark Connect)."""
    skip_without_spark()
    from pyspark.sql import SparkSession

    classpath, jars = _driver_jars()
    # The driver's Python workers (a Connect stream's foreachBatch function runs in one) are
    # this interpreter, with this process's path: not whatever ``python3`` is first found.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

    builder = (
        SparkSession.builder.master("local[2]")
        .config("spark.driver.extraClassPath", ":".join(classpath))
        .config("spark.jars", ",".join(jars))
        .appName("openlineage_sdk_tests")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.warehouse.dir", str(spark_root / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={spark_root / 'derby'}")
    )
    if connect_server_missing() is None:  # PySpark 4.0 on: the wheel carries the server
        builder = (
            builder.config("spark.plugins", "org.apache.spark.sql.connect.SparkConnectPlugin")
            .config("spark.connect.grpc.binding.address", "127.0.0.1")
            .config("spark.connect.grpc.binding.port", str(connect_port))
        )
        if any("connect-plugin" in jar for jar in jars):
            from tests.spark._row_level import CONNECT_PLUGIN_CLASS

            builder = builder.config(
                "spark.connect.extensions.relation.classes", CONNECT_PLUGIN_CLASS
            )
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    _track_connect_clients()
    _shared.append(session)
    yield session
    _shared.clear()
    session.stop()


_shared: list[Any] = []  # the tests' shared classic session, while it runs
_shared_connect: list[Any] = []  # the tests' shared Connect session, while it runs
# Every Spark Connect client made in this process (tracked once the driver runs).
_connect_clients: weakref.WeakSet[Any] = weakref.WeakSet()


def _track_connect_clients() -> None:
    """Have every Spark Connect client made from now on in ``_connect_clients``."""
    try:
        with warnings.catch_warnings():
            # PySpark 3.5's Connect client checks pandas' version with distutils' LooseVersion,
            # which warns on import: the tests' -W error would make that an error here.
            warnings.filterwarnings(
                "ignore", "distutils Version classes are deprecated", DeprecationWarning
            )
            from pyspark.sql.connect.client.core import SparkConnectClient
    except ImportError:  # no Connect client (or none of its dependencies) in this PySpark
        return
    init = SparkConnectClient.__init__
    if getattr(init, "_tracked", False):
        return

    @functools.wraps(init)
    def tracked(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        _connect_clients.add(self)

    tracked._tracked = True  # type: ignore[attr-defined]
    SparkConnectClient.__init__ = tracked  # type: ignore[method-assign]


def _open_connect_clients() -> set[Any]:
    shared = {s.client for s in _shared_connect}
    return {c for c in list(_connect_clients) if not c._closed and c not in shared}


@pytest.fixture(autouse=True)
def _the_shared_driver_outlives_each_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """Ends the run at once when a test stopped the shared driver; fails a test that left a
    Spark Connect session of its own open.

    Every later test would fail, and each Spark Connect call would first retry against the
    stopped server for minutes: one line naming the test is worth more than that. A Connect
    client left open sends its cleanup at the interpreter's exit, when the driver is gone, and
    retries it for minutes: the run hangs after its last test, naming none.
    """
    before = _open_connect_clients()
    yield
    if _shared and _shared[0].sparkContext._jsc is None:
        pytest.exit(f"{request.node.nodeid} stopped the tests' shared Spark driver", returncode=1)
    left_open = _open_connect_clients() - before
    if left_open:
        for client in left_open:
            client.close()  # so that the process's exit does not wait on it
        pytest.fail(
            f"{request.node.nodeid} left {len(left_open)} Spark Connect session(s) open: "
            "stop each one it makes",
            pytrace=False,
        )


@pytest.fixture(scope="session")
def spark_connect(spark: Any, connect_port: int) -> Iterator[Any]:
    """A Spark Connect client session of the test driver."""
    reason = connect_server_missing()
    if reason is not None:
        pytest.skip(reason)
    # PySpark's generic builder refuses a remote session next to a classic one in the same
    # process; the Connect builder itself has no such rule, and is what a Connect-only client uses.
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    session = ConnectSession.builder.remote(f"sc://127.0.0.1:{connect_port}").getOrCreate()
    _shared_connect.append(session)
    yield session
    _shared_connect.clear()
    session.stop()


@pytest.fixture(
    params=[
        pytest.param("classic", marks=pytest.mark.spark),
        pytest.param("connect", marks=[pytest.mark.spark, pytest.mark.connect]),
    ]
)
def mode_spark(request: pytest.FixtureRequest) -> Any:
    """The classic session, then the Connect session: the same test in both modes."""
    if request.param == "classic":
        return request.getfixturevalue("spark")
    return request.getfixturevalue("spark_connect")


class JobCounter:
    """Counts the Spark jobs the test driver ran, through its status tracker.

    The status store is fed by the listener bus, asynchronously; draining the bus first makes
    the count include every job that has ended.
    """

    def __init__(self, spark: Any) -> None:
        self._sc = spark.sparkContext

    def count(self) -> int:
        jsc = self._sc._jsc.sc()
        jsc.listenerBus().waitUntilEmpty(10_000)
        return int(jsc.statusStore().jobsList(None).size())


@pytest.fixture
def jobs(spark: Any) -> JobCounter:
    return JobCounter(spark)


@pytest.fixture
def data_dir(spark_root: Path, request: pytest.FixtureRequest) -> Path:
    """A fresh folder for one test's files, named after the test."""
    name = "".join(c if c.isalnum() else "_" for c in request.node.name)
    path = spark_root / "data" / f"{name}_{time.monotonic_ns()}"
    path.mkdir(parents=True)
    return path


@pytest.fixture(autouse=True)
def _recorded(request: pytest.FixtureRequest) -> Iterator[None]:
    """With ``OPENLINEAGE_SDK_RECORD_EVENTS`` set, every event the test emits is written there
    (normalized; see ``tests/spark/_recorder.py``), to compare two commits or Spark versions."""
    if _recorder.folder() is None:
        yield
        return
    _recorder.install_on_client()
    _recorder.begin(request.node.nodeid)
    yield
    _recorder.end()


@pytest.fixture(autouse=True)
def _facet_builders_of_plugins(request: pytest.FixtureRequest, monkeypatch: Any) -> None:
    """The example plugin package, installed with the tests, adds facets with its own clock's
    values (a cost from the run's duration, a quality score's time) to every event: tests that
    compare the events of two runs would see them differ. Only tests marked ``plugin_facets``
    get the builders of installed plugins; the demo and the scenarios in subprocesses always do.
    """
    if request.node.get_closest_marker("plugin_facets") is not None:
        return
    from openlineage_sdk.spark.events import _extensions

    monkeypatch.setattr(_extensions, "_loaded", [])


@pytest.fixture(scope="session")
def postgres() -> Iterator[Any]:
    """A throwaway PostgreSQL server (skips when PostgreSQL or its JDBC driver is absent)."""
    from tests.spark._postgres import missing, postgres_server

    reason = missing()
    if reason is not None:
        pytest.skip(reason)
    with postgres_server() as server:
        yield server


@pytest.fixture
def connect_auto(spark_connect: Any, client: Any, memory: Any) -> Iterator[Captured]:
    """The adapter in automatic mode on the Connect session, and what it emitted."""
    from openlineage_sdk.spark import install, uninstall

    install(spark_connect, client)
    yield Captured(memory)
    uninstall(spark_connect)


_table_names = itertools.count()


@pytest.fixture
def table(spark_connect: Any) -> Iterator[Any]:
    """A maker of fresh table names on the Connect session; the tables are dropped after."""
    made: list[str] = []

    def make(stem: str) -> str:
        name = f"{stem}_{next(_table_names)}_{id(made) % 10_000}"
        made.append(name)
        _recorder.made(name)
        return name

    yield make
    for name in made:
        spark_connect.sql(f"DROP TABLE IF EXISTS {name}")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests that need Spark ``spark``; where it cannot run, skip them with the reason.

    A test needs Spark when it uses a Spark fixture, or when it is marked ``spark`` itself (it
    starts a driver in a subprocess); one marked ``pyspark`` needs pyspark's modules only. The
    other tests of this folder need neither pyspark nor Java and stay unmarked.
    """
    for item in items:
        if "tests/spark/" not in str(item.fspath).replace("\\", "/"):
            continue
        uses_spark = not SPARK_FIXTURES.isdisjoint(getattr(item, "fixturenames", ()))
        if uses_spark and item.get_closest_marker("spark") is None:
            item.add_marker(pytest.mark.spark)
        if SOCKET_LEAKS is not None and item.get_closest_marker("spark") is not None:
            item.add_marker(SOCKET_LEAKS)
        if CONNECT_SERVER_MISSING is not None and item.get_closest_marker("connect") is not None:
            item.add_marker(pytest.mark.skip(reason=CONNECT_SERVER_MISSING))
        if SPARK_MISSING is not None and item.get_closest_marker("spark") is not None:
            item.add_marker(pytest.mark.skip(reason=SPARK_MISSING))
        elif PYSPARK_MISSING is not None and item.get_closest_marker("pyspark") is not None:
            item.add_marker(pytest.mark.skip(reason=PYSPARK_MISSING))


# ------------------------------------------------------------------------------ lineage events


@pytest.fixture
def memory() -> Iterator[Any]:
    """A real MemoryTransport; after the test every event it got must validate strictly."""
    from openlineage_sdk.transports import MemoryTransport

    transport = MemoryTransport()
    yield transport
    for text in transport.json_events:
        assert strict_problems(text) == [], text


@pytest.fixture
def client(memory: Any) -> Iterator[Any]:
    """A real client over the memory transport, raising on errors so none goes unseen."""
    from openlineage_sdk.client import OpenLineage

    with OpenLineage(
        transport=memory, producer=PRODUCER, namespace=NAMESPACE, raise_on_error=True
    ) as ol:
        yield ol


@pytest.fixture
def auto(mode_spark: Any, client: Any, memory: Any) -> Iterator[Captured]:
    """The adapter in automatic mode on the session of the test's mode, and what it emitted."""
    from openlineage_sdk.spark import install, uninstall

    install(mode_spark, client)
    yield Captured(memory)
    uninstall(mode_spark)


@pytest.fixture
def classic_auto(spark: Any, client: Any, memory: Any) -> Iterator[Captured]:
    """The adapter in automatic mode on the classic session only, and what it emitted."""
    from openlineage_sdk.spark import install, uninstall

    install(spark, client)
    yield Captured(memory)
    uninstall(spark)
