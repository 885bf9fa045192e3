"""What the running PySpark has, by its version: for tests that skip or adapt where it lacks a part.

The Spark tests run on each supported PySpark (``nox -s "spark(version='3.5')"``). A test that
needs a feature one version lacks says so with :func:`needs`, which names the feature and the
version it came in; the Connect fixtures skip where the wheel carries no Connect server.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

__all__ = ["collect_socket_leaks", "connect_server_missing", "needs", "pyspark_version"]


def pyspark_version() -> tuple[int, int] | None:
    """The installed PySpark's major and minor version, or ``None`` without PySpark."""
    try:
        import pyspark
    except ImportError:
        return None
    match = re.match(r"(\d+)\.(\d+)", pyspark.__version__)
    return (int(match.group(1)), int(match.group(2))) if match else None


def connect_server_missing() -> str | None:
    """Why no Spark Connect server can run inside the test driver, or ``None``.

    The server (``org.apache.spark.sql.connect.SparkConnectPlugin``) is in PySpark's wheel from
    4.0 on (``jars/spark-connect_2.13-*.jar``); before that it is a package Spark downloads from
    Maven at start (``--packages org.apache.spark:spark-connect_2.12``), which these tests do not.
    """
    try:
        import pyspark
    except ImportError:
        return None  # the Spark fixtures skip for that reason already
    jars = Path(pyspark.__file__).parent / "jars"
    if any(jars.glob("spark-connect_*.jar")):
        return None
    return (
        f"PySpark {pyspark.__version__}'s wheel carries no Spark Connect server "
        "(spark-connect_*.jar comes in the wheel from 4.0 on)"
    )


def needs(major: int, minor: int, feature: str) -> pytest.MarkDecorator:
    """Skip a test on a PySpark older than ``major.minor``, which lacks ``feature``."""
    version = pyspark_version()
    return pytest.mark.skipif(
        version is not None and version < (major, minor),
        reason=f"{feature} is in Spark from {major}.{minor} on",
    )


def collect_socket_leaks() -> pytest.MarkDecorator | None:
    """Where PySpark leaves ``collect()``'s local socket to the garbage collector, a mark that
    ignores the ``ResourceWarning`` it then raises (``filterwarnings = error`` makes it fail
    whichever test happens to collect the garbage); ``None`` where PySpark closes it.

    Before 4.2, ``_create_local_socket`` (``pyspark/rdd.py`` in 3.x, ``pyspark/util.py`` in
    4.0 and 4.1) returns the socket's file and drops the socket itself, open; 4.2 returns both
    and ``_load_from_socket`` closes them.
    """
    version = pyspark_version()
    if version is None or version >= (4, 2):
        return None
    return pytest.mark.filterwarnings("ignore:unclosed <socket.socket:ResourceWarning")
