"""Reads that end in an action: runs with inputs and no output, as the JVM agent reports a read.

A query that ends in an action (``collect``, ``count``, ``toPandas``, ``show`` ...) and reads
stored datasets is a run of its own; one that touches no dataset (local data, ``range``, the
results of ``SET``, ``SHOW``, ``DESCRIBE``) is no run. ``install(..., input_only_runs=False)``
turns these runs off. Where they are seen differs by the kind of session:

* classic PySpark: the session's ``QueryExecutionListener`` hears each query after its action
  ran, on Spark's listener bus; START and COMPLETE go out together.
* Spark Connect: the client's action methods (``to_table``, ``to_pandas``,
  ``to_table_as_iterator``) are wrapped on the session's own client; the run starts before the
  action and ends with it (with the iteration, for ``toLocalIterator``).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from openlineage_sdk.spark._flow import inside_adapter, run_observed
from openlineage_sdk.spark.executions import (
    ActionRead,
    Adapter,
    report_heard_command,
    report_heard_read,
)

__all__ = ["ConnectActions", "listen_for_jvm_commands", "listen_for_reads"]

log = logging.getLogger("openlineage_sdk.spark")

# The Connect client's methods that run an action and return its rows.
_ACTIONS = ("to_table", "to_pandas", "to_table_as_iterator")


def listen_for_reads(adapter: Adapter) -> None:
    """Report the reads a classic session's listener hears (see the module)."""
    session = adapter.session

    def query_executed(func_name: str, executed: object) -> None:
        if not adapter.input_only_runs:
            return
        execution = adapter.execution(func_name)
        report_heard_read(session, adapter.reporter, execution, executed)

    session.listen_for_queries(query_executed)


def listen_for_jvm_commands(adapter: Adapter) -> None:
    """Report the commands a classic session's listener hears that no observed call ran: those
    started from JVM code (``executions._jvm_command``)."""
    session = adapter.session

    def command_executed(
        func_name: str, executed: object, failure: object, began_ms: int, parts: list[Any]
    ) -> None:
        execution = adapter.execution(func_name)
        if execution.parent is None:
            # The application run open now (``application_run``), else the sink's default.
            application = getattr(adapter.reporter, "heard_parent", None)
            if application is not None:
                execution.parent = application.ref
        report_heard_command(
            session, adapter.reporter, execution, executed, failure, began_ms / 1000.0, parts
        )

    session.listen_for_commands(command_executed)


class ConnectActions:
    """The wrappers on one Connect session's client actions; :meth:`close` takes them off."""

    def __init__(self, adapter: Adapter) -> None:
        self.adapter = adapter
        self.client = adapter.session.spark.client
        for name in _ACTIONS:
            original = getattr(type(self.client), name).__get__(self.client)
            setattr(self.client, name, functools.partial(self.action, name, original))

    def close(self) -> None:
        """Let the client's actions pass straight through again."""
        for name in _ACTIONS:
            self.client.__dict__.pop(name, None)

    def action(
        self, name: str, original: Callable[..., Any], plan: Any, *args: Any, **kwargs: Any
    ) -> Any:
        """Run one action of the client's; a run with its inputs when it reads datasets."""
        adapter = self.adapter
        if not adapter.input_only_runs or inside_adapter():
            return original(plan, *args, **kwargs)
        execution = adapter.execution("read")
        return run_observed(
            adapter.reporter,
            execution,
            ActionRead(adapter.session, execution, plan),
            functools.partial(original, plan, *args, **kwargs),
            iterates=name == "to_table_as_iterator",
        )
