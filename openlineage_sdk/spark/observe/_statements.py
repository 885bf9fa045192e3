"""SQL statements: a statement that writes or changes a dataset is a run of its own.

Where a statement is seen differs by the kind of session:

* classic PySpark: ``SparkSession.sql`` is wrapped (once for the process). A statement as text is
  described by the session's analyzer before (or, for an ``INSERT``, beside) its run; one with
  parameters or format arguments, from the command Spark ran, after.
* Spark Connect: ``spark.sql(text)`` sends the text as a ``SqlCommand`` through the client's
  ``execute_command``, and the server runs a command at once, before ``sql`` returns. The adapter
  wraps that method of the session's own client (nothing is patched for other sessions): a SQL
  command that may write a table or a folder becomes one run. Every other command, and every
  statement that cannot write (``SELECT``, ``SET``, ``SHOW``, ``DESCRIBE``, ``USE``, views,
  functions, ...), passes straight through with no request of the adapter's own.

Either way the statement's execution (``executions._statement``) decides when it is described,
asking the session what it does, and the one template of ``_flow`` runs it.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from openlineage_sdk.spark._flow import inside_adapter, run_observed
from openlineage_sdk.spark.describe._sql_text import may_write
from openlineage_sdk.spark.executions import MergeCommand, UnknownCommand, statement_description
from openlineage_sdk.spark.observe._hooks import Adapter, adapter_of, wrap_once

__all__ = ["ConnectCommands", "hook_classic_sql"]

log = logging.getLogger("openlineage_sdk.spark")


def hook_classic_sql() -> None:
    """Wrap the classic ``SparkSession.sql``, once for the process."""
    from pyspark.sql.session import SparkSession

    wrap_once(SparkSession, "sql", _classic_sql)


def _classic_sql(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def sql(self: Any, sqlQuery: Any, args: Any = None, **kwargs: Any) -> Any:  # noqa: N803
        adapter = None if inside_adapter() else adapter_of(self)
        if adapter is None or not isinstance(sqlQuery, str) or not may_write(sqlQuery):
            return original(self, sqlQuery, args, **kwargs)
        if args or kwargs:
            # Bound or formatted by PySpark and Spark before it is parsed: described from the
            # command Spark ran, once it has run.
            call = functools.partial(original, self, sqlQuery, args, **kwargs)
            text = None
        else:
            call = functools.partial(original, self, sqlQuery)
            text = sqlQuery
        execution = adapter.execution("sql")
        description = statement_description(adapter.session, execution, text)
        return run_observed(adapter.reporter, execution, description, call)

    return sql


class ConnectCommands:
    """The wrapper on one Connect session's client: its SQL commands that may write are runs.

    Made when the adapter is installed on a Connect session; :meth:`close` takes it off again.
    The client's actions are wrapped by ``_actions`` on the same client.
    """

    def __init__(self, adapter: Adapter) -> None:
        self.adapter = adapter
        self.client = adapter.session.spark.client
        original: Callable[..., Any] = type(self.client).execute_command.__get__(self.client)
        self._original = original

        # The arguments are passed on as given: clients of other versions take others.
        def execute_command(command: Any, *args: Any, **kwargs: Any) -> Any:
            return self.execute(command, *args, **kwargs)

        self.client.execute_command = execute_command

    def close(self) -> None:
        """Let the client's commands pass straight through again."""
        self.client.__dict__.pop("execute_command", None)

    def execute(self, command: Any, *args: Any, **kwargs: Any) -> Any:
        """Run one command of the client's, with lineage around it when it is a writing SQL.

        Args:
            command: The client's ``Command`` message.
            *args: The client's other arguments (its observations), passed on as given.
            **kwargs: Likewise.

        Returns:
            What the client's ``execute_command`` returns.
        """
        original = functools.partial(self._original, command, *args, **kwargs)
        adapter = self.adapter
        session = adapter.session
        text = None
        if not inside_adapter():
            try:
                sql = session.command_sql(command)
                text = sql if sql is not None and may_write(sql) else None
            except Exception as error:  # a message of a shape this code does not know
                log.debug("openlineage: reading a Connect command failed: %s", error)
        if text is None:
            merge = extension = False
            if not inside_adapter():
                try:
                    session.remember_command(command)
                    kind = command.WhichOneof("command_type")
                    merge = kind == "merge_into_table_command"
                    extension = kind == "extension"
                except Exception as error:
                    log.debug("openlineage: reading a Connect command failed: %s", error)
            if extension:
                # A server plugin's command (Delta Connect's ...): a run all the same.
                execution = adapter.execution("extension")
                return run_observed(
                    adapter.reporter,
                    execution,
                    UnknownCommand(execution, "extension", command.extension.type_url),
                    original,
                )
            if not merge:
                return original()
            execution = adapter.execution("mergeInto")
            return run_observed(
                adapter.reporter,
                execution,
                MergeCommand(session, execution, command),
                original,
            )
        execution = adapter.execution("sql")
        description = statement_description(session, execution, text, command)
        return run_observed(
            adapter.reporter,
            execution,
            description,
            original,
        )
