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

from openlineage_sdk.spark._flow import Description, inside_adapter, report_done, run_observed
from openlineage_sdk.spark.observe._hooks import Adapter

__all__ = ["ConnectActions", "listen_for_reads"]

log = logging.getLogger("openlineage_sdk.spark")

# The Connect client's methods that run an action and return its rows.
_ACTIONS = ("to_table", "to_pandas", "to_table_as_iterator")


def listen_for_reads(adapter: Adapter) -> None:
    """Report the reads a classic session's listener hears (see the module)."""
    session: Any = adapter.session

    def query_executed(func_name: str, qe: Any) -> None:
        if not adapter.input_only_runs:
            return
        execution = adapter.execution(func_name)
        try:
            if not session.query_reads(qe, execution):
                return
        except Exception as error:  # never let an exception travel back into Spark
            log.debug("openlineage: reporting a query failed: %s", error)
            return
        report_done(adapter.reporter, execution)

    session.on_query = query_executed


class _ActionReads(Description):
    """An action's inputs, read from its plan before it runs."""

    def __init__(self, adapter: Adapter, execution: Any, plan: Any) -> None:
        self.session: Any = adapter.session
        self.execution = execution
        self.plan = plan

    def before(self) -> bool:
        try:
            return bool(self.session.action_reads(self.plan, self.execution))
        except Exception as error:  # whatever broke, the action still runs, unreported
            log.warning("openlineage: the inputs of an action: %s", error)
            return False


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
            _ActionReads(adapter, execution, plan),
            functools.partial(original, plan, *args, **kwargs),
            iterates=name == "to_table_as_iterator",
        )
