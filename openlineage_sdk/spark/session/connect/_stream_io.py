"""Spark Connect: a streaming query's sources, sink and progress, from the client alone.

* The sources are the plan's streaming ``read`` relations (``readStream``): a data source with
  its format, paths, options and declared schema, or a named table. Static reads beside them
  are read as a batch plan's are.
* The sink is the ``WriteStreamOperationStart`` message the writer builds and sends at
  ``start``: format, options, path, table, query name, ``foreachBatch``.
* Counting the rows a file or table sink writes: for the one ``start`` call, the plan the writer
  sends gets a ``count`` observation on top (a ``CollectMetrics`` relation, as
  ``DataFrame.observe`` with a name makes); Spark reports it with each micro-batch's progress.
* The progress reports come from a client-side streaming listener: the server forwards its
  listener's events to the client (Spark 3.5 and later).
* A ``foreachBatch`` function runs in a Python worker on the server, where this process's
  adapter is not. For the one ``start`` call, the writer sends instead the function the
  stream's execution built for it (``BatchFunction.remote_command``, pickled bytes), which
  reports the batches there.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from openlineage_sdk.spark._execution import note_problem as _note
from openlineage_sdk.spark.describe._schema import schema_fields
from openlineage_sdk.spark.describe._stream_datasets import StreamSink, StreamSource
from openlineage_sdk.spark.session._base import BatchFunction, StreamEvents
from openlineage_sdk.spark.session.connect._plan import (
    ClientPlanReads,
    client_plan_reads,
    declared_schema,
    relations,
)

__all__ = [
    "listen_to_streams",
    "recent_progress",
    "relation_reads",
    "stream_reads",
    "stream_sink",
    "stream_start",
]

log = logging.getLogger("openlineage_sdk.spark")


def stream_reads(
    spark: Any, df: Any, problems: list[str]
) -> tuple[list[StreamSource], ClientPlanReads]:
    """The streaming sources of a Connect streaming DataFrame, and what it reads statically."""
    return relation_reads(spark, df._plan.plan(spark.client), problems)


def relation_reads(
    spark: Any, relation: Any, problems: list[str]
) -> tuple[list[StreamSource], ClientPlanReads]:
    """The streaming sources of a client plan's relation, and what it reads statically."""
    sources: list[StreamSource] = []
    static = ClientPlanReads()
    for node in relations(relation):
        kind = node.WhichOneof("rel_type")
        if kind == "read" and node.read.is_streaming:
            sources.append(_source(spark, node.read, problems))
        elif kind in ("read", "sql"):
            found = client_plan_reads(node)
            static.paths.extend(found.paths)
            static.declared.update(found.declared)
            static.tables.extend(found.tables)
            static.jdbc.extend(found.jdbc)
            static.sql.extend(found.sql)
            static.problems.extend(p for p in found.problems if p not in static.problems)
    return sources, static


def _source(spark: Any, read: Any, problems: list[str]) -> StreamSource:
    if read.HasField("named_table"):
        return StreamSource(None, table=read.named_table.unparsed_identifier)
    source = read.data_source
    fmt = source.format.lower() if source.format else None
    options = dict(source.options)
    schema = None
    if source.HasField("schema") and source.schema:
        try:
            schema = schema_fields(declared_schema(spark, source.schema))
        except Exception as error:
            _note(problems, "input: declared schema", error)
    elif fmt == "text":
        schema = [{"name": "value", "type": "string"}]
    return StreamSource(fmt, paths=tuple(source.paths), options=options, schema=schema)


def stream_sink(writer: Any, path: str | None, table: str | None) -> StreamSink:
    """The sink a Connect ``DataStreamWriter`` will start (``path``, ``table``: ``start``'s)."""
    operation = writer._write_proto
    options = {str(k): str(v) for k, v in operation.options.items()}
    return StreamSink(
        operation.format.lower() if operation.format else None,
        path=path or operation.path or options.get("path") or None,
        table=table or operation.table_name or None,
        options=options,
        foreach_batch=operation.HasField("foreach_batch"),
        query_name=operation.query_name or None,
    )


@contextlib.contextmanager
def stream_start(
    spark: Any, writer: Any, rows_observation: str | None, batch: BatchFunction | None
) -> Iterator[None]:
    """The writer sending a counted plan and the wrapped batch function, for one ``start``."""
    operation = writer._write_proto
    stream = writer._write_stream
    child = stream._child
    command: bytes | None = None
    try:
        if rows_observation is not None:
            from pyspark.sql.connect.functions import count, lit
            from pyspark.sql.connect.plan import CollectMetrics

            stream._child = CollectMetrics(child, rows_observation, [count(lit(1)).alias("rows")])
        if batch is not None:
            wrapped = batch.remote_command()
            if wrapped is not None:
                function = operation.foreach_batch.python_function
                command = function.command
                function.command = wrapped
    except Exception as error:  # the stream starts as the user set it, unobserved
        log.warning("openlineage: the stream's rows and batches are not observed: %s", error)
        stream._child = child
        if command is not None:
            operation.foreach_batch.python_function.command = command
            command = None
    try:
        yield
    finally:
        stream._child = child
        if command is not None:
            operation.foreach_batch.python_function.command = command


def _listener_class() -> type:
    from pyspark.sql.streaming.listener import StreamingQueryListener

    # PySpark is typed where it is installed, and Any where it is not (the typecheck session).
    class Listener(StreamingQueryListener):  # type: ignore[misc, unused-ignore]
        """The client-side listener: the server forwards its query events to it."""

        def __init__(self) -> None:
            self.events: StreamEvents | None = None  # None: switched off

        def onQueryStarted(self, event: Any) -> None:  # noqa: N802 - the listener API's names
            pass

        def onQueryProgress(self, event: Any) -> None:  # noqa: N802
            events = self.events
            if events is None:
                return
            try:
                events.progress(json.loads(event.progress.json))
            except Exception as error:
                log.debug("openlineage: a stream's progress was not read: %s", error)

        def onQueryIdle(self, event: Any) -> None:  # noqa: N802
            pass

        def onQueryTerminated(self, event: Any) -> None:  # noqa: N802
            events = self.events
            if events is None:
                return
            try:
                events.terminated(str(event.runId), event.exception)
            except Exception as error:
                log.debug("openlineage: a stream's end was not read: %s", error)

    return Listener


# The listener of each Connect session, while it is on.
_listeners: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
_listeners_lock = threading.Lock()
_JOIN_S = 10.0  # how long a removal waits for the client's event thread to end


def listen_to_streams(spark: Any, events: StreamEvents) -> Callable[[], None]:
    """Switch on the Connect session's client-side streaming listener, sending to ``events``.

    Removing it is switching it off first, then taking it out of the client's listener bus
    without PySpark's ``removeListener``: that holds the bus's lock while it waits for the
    client's event thread to end, and the thread needs that lock to deliver an event, so a
    removal that meets an event in flight never returns (nor does any other listener of the
    session get an event again). Here the thread is waited for after the lock is released, and
    for a bounded time. Where the bus is not as expected, the listener stays, switched off.
    """
    with _listeners_lock:
        listener = _listeners.get(spark)
        if listener is None:
            listener = _listener_class()()
            spark.streams.addListener(listener)
            _listeners[spark] = listener
        listener.events = events

    def remove() -> None:
        with _listeners_lock:
            if listener.events is not events:
                return  # switched on again by a later install: it is that one's now
            listener.events = None
            if _take_out(spark, listener):
                _listeners.pop(spark, None)

    return remove


def _take_out(spark: Any, listener: Any) -> bool:
    """Take ``listener`` out of the session's listener bus without waiting under its lock."""
    try:
        import pyspark.sql.connect.proto as pb2

        bus = spark.streams._sqlb
        with bus._lock:
            if listener not in bus._listener_bus:
                return True
            thread = None
            if len(bus._listener_bus) == 1:  # the last one: the server stops sending events
                command = pb2.StreamingQueryListenerBusCommand()
                command.remove_listener_bus_listener = True
                wrapper = pb2.Command()
                wrapper.streaming_query_listener_bus_command.CopyFrom(command)
                spark.client.execute_command(wrapper)
                thread, bus._execution_thread = bus._execution_thread, None
            bus._listener_bus.remove(listener)
        if thread is not None:
            thread.join(_JOIN_S)
        return True
    except Exception as error:
        log.debug("openlineage: the streaming listener stays, switched off: %s", error)
        return False


def recent_progress(query: Any) -> list[dict[str, Any]]:
    """``query.recentProgress`` as JSON read, in the shape the listener's reports have.

    The Connect server answers ``recentProgress`` with another JSON than it sends its
    listener's events in (seen from 4.0 to 4.3): each observed metric's row is
    ``{"values": [...], "schema": {...}}`` instead of an object by field name, and the
    micro-batch's own ``numInputRows`` is left out (its offsets are JSON text too, which the
    offsets' reader takes either way). A run's end reads these for the micro-batches whose
    reports had not arrived (a loaded machine), so they are put in the listener's shape: read
    as they came, they counted no row the sink wrote.
    """
    return [_listener_shape(json.loads(report.json)) for report in query.recentProgress]


def _listener_shape(progress: dict[str, Any]) -> dict[str, Any]:
    """A progress report from the server's ``recentProgress``, as its listener sends one."""
    observed = progress.get("observedMetrics")
    if isinstance(observed, dict):
        progress["observedMetrics"] = {name: _row(row) for name, row in observed.items()}
    if "numInputRows" not in progress:
        rows = [source.get("numInputRows") for source in progress.get("sources") or []]
        if all(isinstance(r, int) for r in rows):
            progress["numInputRows"] = sum(rows)
    return progress


def _row(row: Any) -> Any:
    """An observed row as ``{"values": [...], "schema": {...}}``, by field name instead."""
    if not isinstance(row, dict) or set(row) != {"values", "schema"}:
        return row
    values, schema = row["values"], row["schema"]
    fields = schema.get("fields") if isinstance(schema, dict) else None
    if (
        not isinstance(values, list)
        or not isinstance(fields, list)
        or len(fields) != len(values)
        or not all(isinstance(field, dict) and "name" in field for field in fields)
    ):
        return row
    return {str(field["name"]): value for field, value in zip(fields, values, strict=True)}
