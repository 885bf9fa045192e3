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
    NotInThisKind,
    ServerStatement,
    Session,
    StreamEvents,
    WriteStatistics,
    session_kind,
)

__all__ = [
    "BatchFunction",
    "CommandWindow",
    "NotInThisKind",
    "ServerStatement",
    "Session",
    "StreamEvents",
    "WriteStatistics",
    "open_session",
    "session_kind",
]


def open_session(spark: Any) -> Session:
    """The :class:`Session` of ``spark``: classic PySpark or a Spark Connect client."""
    if session_kind(spark) == "connect":
        from openlineage_sdk.spark.session.connect import ConnectSession

        return ConnectSession(spark)
    from openlineage_sdk.spark.session.classic import ClassicSession

    return ClassicSession(spark)
