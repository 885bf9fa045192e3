"""Commands started from JVM code: a run for each, once it ran (classic PySpark).

A library called through py4j (``df._jdf.write()...``, ``spark._jsparkSession.sql(...)``, a
company's Scala loader, Delta's ``DeltaTable`` API) runs commands no Python method the adapter
wrapped ever sees. The session's ``QueryExecutionListener`` hears each of them after it ran, on
Spark's listener bus, with its ``QueryExecution``; one that no observed call could have run is
described from it by the same registry row and handler as a statement's, and its START and end
go out together, as the JVM agent's would. What the agent does not report (a command that
touches no dataset: ``SET``, ``SHOW``, ``CREATE NAMESPACE``, ``REFRESH``, ``CACHE``) is no run.
"""

from __future__ import annotations

import logging
from typing import Any

from openlineage_sdk.spark._execution import SparkExecution
from openlineage_sdk.spark._execution import note_problem as _note
from openlineage_sdk.spark._flow import LineageSink, report_done
from openlineage_sdk.spark.describe._commands import apply_statement
from openlineage_sdk.spark.session import Session

__all__ = ["JvmCommandError", "report_heard_command"]

log = logging.getLogger("openlineage_sdk.spark")


class JvmCommandError(Exception):
    """A command started from JVM code failed; the message is the JVM exception's."""


def report_heard_command(
    session: Session,
    reporter: LineageSink,
    execution: SparkExecution,
    executed: object,
    failure: object | None,
    began_s: float | None = None,
    parts: list[Any] | None = None,
) -> None:
    """Report a command the session heard run with no observed call, if the agent reports it.

    Args:
        session: The session that heard it.
        reporter: Where the run's events go.
        execution: A new record for it.
        executed: The command as Spark ran it (a handle for ``Session.plan_executed``).
        failure: The JVM exception it failed with, ``None`` when it succeeded.
        began_s: When Spark began it (epoch seconds), if known.
        parts: The commands it ran inside it (a CTAS's write), reported as its part.
    """
    try:
        if failure is not None:
            execution.error = JvmCommandError(_message(failure))
        planned = session.plan_executed(executed, execution, ran=True)
        if planned is None:
            return
        apply_statement(execution, planned, session.catalog_info())
        output = execution.output
        if output is None:
            return  # it changed no dataset (DESCRIBE, SHOW, SET, a namespace's commands)
        if planned.writes_data and failure is None:
            try:
                output.stats = session.command_statistics(executed, parts or [])
            except Exception as error:
                _note(output.problems, "statistics", error)
        if began_s is not None:
            execution.started = began_s
    except Exception as error:  # never let an exception travel back into Spark
        log.debug("openlineage: reporting a command started from JVM code failed: %s", error)
        return
    report_done(reporter, execution)


def _message(failure: object) -> str:
    getter = getattr(failure, "getMessage", None)
    try:
        message = getter() if getter is not None else None
    except Exception:
        message = None
    return str(message) if message else str(failure)
