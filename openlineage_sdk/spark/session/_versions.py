"""The Spark versions the adapter reads, per kind of session: checked once, by ``install()``.

A classic session is read through its JVM by the readers of its version
(``classic._readers``): Spark 3.5 and 4.0 to 4.3 have theirs. A Spark Connect session is read
through its client, PySpark's own Python code: the 4.x clients (4.0 to 4.3) are read. PySpark
3.5's Connect client speaks an older protocol (no ``Observation``, no relation form of a SQL
command, ``execute_command`` without observations) that the adapter does not read, and Spark 3.x
has no Connect server of its own. A version outside these is refused whole, in one line, rather
than read half: nothing of the adapter is installed, and the session runs as it would without.
"""

from __future__ import annotations

from typing import Any

from openlineage_sdk.spark.session._base import session_kind

__all__ = ["CLASSIC_VERSIONS", "CONNECT_VERSIONS", "SparkVersionError", "check_version"]

#: The Spark versions (``major.minor``) of a classic session the adapter reads.
CLASSIC_VERSIONS: tuple[str, ...] = ("3.5", "4.0", "4.1", "4.2", "4.3")
#: The PySpark versions (``major.minor``) of a Spark Connect client the adapter reads.
CONNECT_VERSIONS: tuple[str, ...] = ("4.0", "4.1", "4.2", "4.3")


class SparkVersionError(ValueError):
    """The session's Spark version is one the adapter does not read: it is not installed.

    Attributes:
        kind: ``"classic"`` or ``"connect"``.
        version: The version found (the JVM's Spark for classic, the client's PySpark for
            Connect).
        supported: The ``major.minor`` versions of that kind the adapter reads.
    """

    def __init__(self, kind: str, version: str, supported: tuple[str, ...]) -> None:
        self.kind, self.version, self.supported = kind, version, supported
        what = "PySpark's Spark Connect client" if kind == "connect" else "classic PySpark (Spark)"
        super().__init__(
            f"openlineage-sdk does not support {what} {version}: it supports "
            f"{', '.join(supported)}; lineage is not turned on for this session"
        )


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def client_version() -> str:
    """The installed PySpark's version (that of a Spark Connect client)."""
    import pyspark

    return str(pyspark.__version__)


def check_version(spark: Any) -> None:
    """Refuse a session whose Spark version the adapter does not read.

    Args:
        spark: A classic ``SparkSession`` or a Spark Connect one.

    Raises:
        SparkVersionError: Classic Spark outside :data:`CLASSIC_VERSIONS`, or a Spark
            Connect client outside :data:`CONNECT_VERSIONS`. A version that cannot be read is
            not refused (the session's readers are then the newest).
    """
    if session_kind(spark) == "connect":
        kind, supported = "connect", CONNECT_VERSIONS
        version = client_version()  # the client's own: no request to the server
    else:
        kind, supported = "classic", CLASSIC_VERSIONS
        try:
            version = str(spark.version)
        except Exception:
            return
    if _minor(version) not in supported:
        raise SparkVersionError(kind, version, supported)
