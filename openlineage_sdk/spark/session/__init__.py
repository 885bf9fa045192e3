"""Where the session is asked something: one interface, a classic and a Connect implementation.

:class:`Session` is what the rest of the adapter asks a Spark session (qualify a path, read a
schema, describe a table, say what a plan reads, plan a statement, gather a write's
statistics). ``classic`` answers through py4j from the JVM in this process, ``connect`` through
the Spark Connect client and its server; neither imports the other. :func:`open_session` picks
the implementation by the session's kind, and nothing above this package knows which it is.

A session only answers: when it is asked is the executions' (``executions``) to decide, and it
imports nothing of them or of the template. What a Spark version spells its own way is read by
the readers the session chose when it opened (``classic._readers``).
"""

from __future__ import annotations

from typing import Any

from openlineage_sdk.spark.session._base import (
    BatchFunction,
    CommandWindow,
    JobWindow,
    NotInThisKind,
    ServerStatement,
    Session,
    StreamEvents,
    WriteStatistics,
    session_kind,
)
from openlineage_sdk.spark.session._versions import SparkVersionError, check_version

__all__ = [
    "BatchFunction",
    "CommandWindow",
    "JobWindow",
    "NotInThisKind",
    "ServerStatement",
    "Session",
    "SparkVersionError",
    "StreamEvents",
    "WriteStatistics",
    "check_version",
    "open_session",
    "runtime_confs",
    "session_kind",
]


def open_session(spark: Any) -> Session:
    """The :class:`Session` of ``spark``: classic PySpark or a Spark Connect client."""
    if session_kind(spark) == "connect":
        from openlineage_sdk.spark.session.connect import ConnectSession

        return ConnectSession(spark)
    from openlineage_sdk.spark.session.classic import ClassicSession

    return ClassicSession(spark)


def runtime_confs(spark: Any) -> dict[str, str]:
    """The runtime confs of ``spark``, read as its kind and Spark version spell them.

    Read before a :class:`Session` opens (the confs decide how it is reported): classic
    PySpark by the readers of its Spark version, a Spark Connect client by its ``getAll``.

    Args:
        spark: A classic ``SparkSession`` or a Spark Connect one.

    Returns:
        The session's runtime confs, as text.
    """
    if session_kind(spark) == "connect":
        return {str(k): str(v) for k, v in dict(spark.conf.getAll).items()}
    from openlineage_sdk.spark.session.classic._readers import select_readers

    return select_readers(str(spark.version)).runtime_confs(spark)
