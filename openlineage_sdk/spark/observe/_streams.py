"""Streaming queries: one run per query, from ``start()`` to its end.

``DataStreamWriter.start`` and ``toTable`` (classic PySpark and Spark Connect) are wrapped, once
for the process, as the batch writers are. A query started on a session the adapter is installed
on is one run of the job its sink names (``describe._streams``):

* START as it starts, with its sources (files by folder, tables, Kafka topics) and its sink's
  dataset, their schemas, and ``jobType`` ``STREAMING``. A ``start`` that raises (an analysis
  error) ends the run at once with FAIL.
* RUNNING as micro-batches complete, with the rows each source read and the sink wrote in the
  micro-batches since the last event (``inputStatistics``, ``outputStatistics``): at most one
  per interval (``stream_interval``, 60 s by default), and one whenever the stream's datasets
  change (a Kafka pattern subscription meeting a new topic). A query that runs for weeks sends
  one event a minute, whatever its trigger.
* COMPLETE when it stops (``stop()``, or its ``availableNow`` or ``once`` trigger is done), with
  the rows of the whole run; FAIL, with the query's exception in an ``errorMessage`` facet, when
  it fails; ABORT when the adapter is removed while it still runs (nothing sees its end then).

The progress comes from a streaming listener the session registers with the first query
(``Session.listen_to_streams``; under Spark Connect the server forwards its events), and the
end from the first of: the listener's termination event, or the user's ``awaitTermination()``
returning or ``stop()``. At the end the query's own ``recentProgress`` is read for the
micro-batches whose reports had not yet arrived, so the run's totals do not depend on the
listener's timing.

Each write a ``foreachBatch`` function makes is a run of its own whose parent is the stream's
run, with the stream's sources among its inputs: the function Spark calls is a wrapper that
puts the batch's session under the adapter for the time of the call (classic PySpark), or that
installs a reporter in the server's Python worker (Spark Connect: ``session.connect._streams``
and ``_batch_worker``).

Nothing here starts a Spark job or changes what the query computes: the rows written are
counted by an observation Spark computes inside each micro-batch's own job; the user's
function, exceptions and the query itself are as without the adapter.
"""

from __future__ import annotations

import functools
import importlib
import logging
import pickle
import sys
import threading
import time
import uuid
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from openlineage_sdk.spark._execution import (
    DatasetIdentity,
    DatasetLineage,
    IoStats,
    SparkExecution,
)
from openlineage_sdk.spark._execution import note_problem as _note
from openlineage_sdk.spark._flow import (
    Description,
    LineageSink,
    adapter_work,
    inside_adapter,
    report_finished,
    report_running,
    run_opened,
)
from openlineage_sdk.spark.describe._schema import schema_fields
from openlineage_sdk.spark.describe._streams import (
    StreamSink,
    StreamSource,
    kafka_namespace,
    kafka_offset_topics,
    sink_kind,
    source_kind,
    source_matches,
    stream_command,
)
from openlineage_sdk.spark.observe._hooks import (
    Adapter,
    adapter_of,
    register,
    unregister,
    wrap_once,
)
from openlineage_sdk.spark.session import Session

__all__ = [
    "DEFAULT_STREAM_INTERVAL",
    "BatchScope",
    "StreamFailed",
    "close_streams",
    "hook_streams",
    "transport_config",
]

log = logging.getLogger("openlineage_sdk.spark")

#: Seconds between two RUNNING events of a stream's run, unless configured.
DEFAULT_STREAM_INTERVAL = 60.0

# The terminations the listener heard of for queries not registered yet (a query that ended
# before ``start`` returned), kept a little while.
_EARLY_ENDS = 64
# How long a second report of a run's end waits for the first to be out.
_END_WAIT_S = 30.0


class StreamFailed(Exception):  # noqa: N818 - it names what happened, as Spark's own do
    """A streaming query failed; its message is the query's error, as the listener reported it."""


class StreamUnobserved(BaseException):
    """The adapter was removed while the query still ran: its run ends with ABORT."""


def hook_streams(kind: str) -> None:
    """Wrap the ``DataStreamWriter`` of ``kind`` (``classic`` or ``connect``), once."""
    module = importlib.import_module(
        "pyspark.sql.connect.streaming.readwriter"
        if kind == "connect"
        else "pyspark.sql.streaming.readwriter"
    )
    writer = module.DataStreamWriter
    wrap_once(writer, "foreachBatch", _remembering)
    for method in ("start", "toTable"):
        wrap_once(writer, method, functools.partial(_starting, method))


def _writer_session(writer: Any) -> Any:
    return getattr(writer, "_spark", None) or getattr(writer, "_session", None)


def _remembering(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def foreach_batch(self: Any, func: Any) -> Any:
        result = original(self, func)
        if not inside_adapter():
            try:
                self._openlineage_batch = func  # what start() wraps (see BatchScope)
            except Exception as error:
                log.debug("openlineage: the foreachBatch function is not kept: %s", error)
        return result

    return foreach_batch


def _starting(method: str, original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def start(self: Any, *args: Any, **kwargs: Any) -> Any:
        adapter = None if inside_adapter() else adapter_of(_writer_session(self))
        if adapter is None:
            return original(self, *args, **kwargs)
        return _streams_of(adapter).start(self, method, original, args, kwargs)

    return start


# ----------------------------------------------------------------------- the adapter's streams


_all_streams: weakref.WeakKeyDictionary[Any, _Streams] = weakref.WeakKeyDictionary()
_all_lock = threading.Lock()


def _streams_of(adapter: Adapter) -> _Streams:
    with _all_lock:
        streams = _all_streams.get(adapter)
        if streams is None:
            streams = _all_streams[adapter] = _Streams(adapter)
        return streams


def close_streams(adapter: Adapter) -> None:
    """The adapter is being removed: stop listening, and end the runs of its streams."""
    with _all_lock:
        streams = _all_streams.pop(adapter, None)
    if streams is not None:
        streams.close()


class _Streams:
    """The streams of one adapter: its listener, and the open runs by Spark's run id."""

    def __init__(self, adapter: Adapter) -> None:
        self.adapter = adapter
        self.lock = threading.Lock()
        self.runs: dict[str, _StreamRun] = {}
        self.early_ends: dict[str, str | None] = {}
        self._remove_listener: Callable[[], None] | None = None
        self.closed = False

    @property
    def interval(self) -> float:
        interval = getattr(self.adapter, "stream_interval", None)
        return DEFAULT_STREAM_INTERVAL if interval is None else float(interval)

    def listen(self) -> None:
        """Register the session's streaming listener, once (before the first query starts)."""
        with self.lock:
            if self._remove_listener is not None or self.closed:
                return
            try:
                with adapter_work():
                    self._remove_listener = self.adapter.session.listen_to_streams(self)
            except Exception as error:
                log.warning(
                    "openlineage: no streaming listener, streams report no progress: %s", error
                )
                self._remove_listener = lambda: None

    # The session's listener (StreamEvents)

    def progress(self, progress: dict[str, Any]) -> None:
        run = self.runs.get(str(progress.get("runId")))
        if run is not None:
            run.progress(progress)

    def terminated(self, run_id: str, error: str | None) -> None:
        run = self.runs.get(run_id)
        if run is None:
            with self.lock:
                self.early_ends[run_id] = error
                while len(self.early_ends) > _EARLY_ENDS:
                    self.early_ends.pop(next(iter(self.early_ends)))
            return
        run.end(StreamFailed(error) if error else None)

    # Starting a query

    def start(
        self,
        writer: Any,
        method: str,
        original: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Any:
        adapter = self.adapter
        self.listen()
        execution = adapter.execution(method)
        execution.job_type = "STREAMING"
        execution.processing_type = "STREAMING"
        description = _StreamStart(self, execution, writer, method, args, kwargs)

        def call() -> Any:
            context = description.start_context()
            with context:
                return original(writer, *args, **kwargs)

        query = run_opened(adapter.reporter, execution, description, call)
        if description.reported:
            try:
                self._follow(query, execution, description)
            except Exception as error:  # the query runs on; its run ends with the adapter
                log.warning("openlineage: the stream's run is not followed: %s", error)
        return query

    def _follow(self, query: Any, execution: SparkExecution, description: _StreamStart) -> None:
        with adapter_work():
            run_id = self.adapter.session.stream_run_id(query)
        run = _StreamRun(self, execution, description, query, run_id)
        with self.lock:
            self.runs[run_id] = run
            ended = run_id in self.early_ends
            error = self.early_ends.pop(run_id, None)
        _wrap_query(query, run)
        if ended:
            run.end(StreamFailed(error) if error else None)

    def forget(self, run: _StreamRun) -> None:
        with self.lock:
            self.runs.pop(run.run_id, None)

    def close(self) -> None:
        with self.lock:
            self.closed = True
            remove, self._remove_listener = self._remove_listener, None
            runs = list(self.runs.values())
        for run in runs:
            run.abandon()
        if remove is not None:
            try:
                with adapter_work():
                    remove()
            except Exception as error:
                log.warning("openlineage: removing the streaming listener failed: %s", error)


# ---------------------------------------------------------------------------- describing


@dataclass
class _Source:
    """A source of the query with the datasets it reads (a Kafka source may read several)."""

    source: StreamSource
    datasets: list[DatasetLineage]
    locations: list[str]


def _start_arguments(
    method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[str | None, str | None]:
    """The path (``start``) or table (``toTable``) the call was given."""
    first = args[0] if args else None
    if method == "toTable":
        table = kwargs.get("tableName", first)
        return None, str(table) if table is not None else None
    path = kwargs.get("path", first)
    return (str(path) if path else None), None


def _with_call_settings(sink: StreamSink, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The sink with what ``start``/``toTable``'s own arguments set (format, name, options)."""
    from dataclasses import replace

    options = dict(sink.options)
    named = ("path", "tableName", "format", "outputMode", "partitionBy", "queryName")
    options.update({k: str(v) for k, v in kwargs.items() if k not in named and v is not None})
    fmt = kwargs.get("format") or (args[1] if len(args) > 1 else None)
    name = kwargs.get("queryName") or (args[4] if len(args) > 4 else None)
    return replace(
        sink,
        format=str(fmt).lower() if fmt else sink.format,
        query_name=str(name) if name else sink.query_name,
        options=options,
        path=(sink.path or options.get("path")) if sink.table is None else None,
    )


class _StreamStart(Description):
    """How a stream's ``start`` is described: sources, sink, job name, before it starts."""

    def __init__(
        self,
        streams: _Streams,
        execution: SparkExecution,
        writer: Any,
        method: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> None:
        self.streams = streams
        self.session: Session = streams.adapter.session
        self.execution = execution
        self.writer = writer
        self.method = method
        self.args = args
        self.kwargs = kwargs
        self.sources: list[_Source] = []
        self.rows_observation: str | None = None
        self.batch: BatchScope | None = None
        self.reported = False

    def before(self) -> bool:
        session, execution = self.session, self.execution
        problems = execution.problems
        path, table = _start_arguments(self.method, self.args, self.kwargs)
        try:
            sink = _with_call_settings(
                session.stream_sink(self.writer, path, table), self.args, self.kwargs
            )
        except Exception as error:
            _note(problems, "sink", error)
            sink = StreamSink(None, path=path, table=table)
        df = session.stream_frame(self.writer)
        static: list[DatasetLineage] = []
        sources: list[StreamSource] = []
        try:
            sources, static = session.stream_sources(df, problems)
        except Exception as error:
            _note(problems, "inputs", error)
        for source in sources:
            try:
                datasets = session.source_datasets(source, problems)
            except Exception as error:
                _note(problems, f"input {source.format or source.table}", error)
                datasets = []
            self.sources.append(_Source(source, datasets, [d.identity.name for d in datasets]))
        inputs = [d for s in self.sources for d in s.datasets]
        known = {(d.identity.namespace, d.identity.name) for d in inputs}
        inputs.extend(d for d in static if (d.identity.namespace, d.identity.name) not in known)
        execution.inputs = inputs
        output: DatasetLineage | None = None
        try:
            output = session.sink_dataset(sink, problems)
        except Exception as error:
            _note(problems, "output", error)
        if output is not None:
            try:
                schema = session.stream_schema(df, sources)
                if schema is not None:
                    output.schema = schema_fields(schema)
            except Exception as error:
                _note(output.problems, "output schema", error)
        execution.output = output
        self._name(sink, output)
        if output is not None and sink_kind(sink) in ("file", "table"):
            # Spark reports no rows written for these sinks: they are counted as they pass.
            self.rows_observation = f"openlineage_rows_{uuid.uuid4().hex}"
        function = getattr(self.writer, "_openlineage_batch", None)
        if sink.foreach_batch and function is not None:
            self.batch = BatchScope(self.streams, execution, function)
        self.reported = True
        return True

    def _name(self, sink: StreamSink, output: DatasetLineage | None) -> None:
        try:
            default = self.session.default_format()
        except Exception:
            default = "parquet"
        command = stream_command(sink, default)
        suffix: str | None = sink.query_name
        if output is not None:
            symlinks = output.identity.symlinks
            if sink_kind(sink) == "table" and symlinks:
                suffix = symlinks[0].name
            else:
                suffix = output.identity.name
        self.execution.name_job(command.name, suffix)

    def start_context(self) -> Any:
        """What the user's ``start`` runs in (the counting plan, the wrapped batch function)."""
        import contextlib

        if self.rows_observation is None and self.batch is None:
            return contextlib.nullcontext()
        try:
            with adapter_work():
                return self.session.stream_start(self.writer, self.rows_observation, self.batch)
        except Exception as error:
            _note(self.execution.problems, "observing the stream", error)
            self.rows_observation = None
            return contextlib.nullcontext()


# ------------------------------------------------------------------------------- the run


def _wrap_query(query: Any, run: _StreamRun) -> None:
    """End the run when the user's ``awaitTermination`` returns with the query over, or ``stop``."""
    await_termination = query.awaitTermination
    stop = query.stop

    @functools.wraps(await_termination)
    def awaited(*args: Any, **kwargs: Any) -> Any:
        try:
            result = await_termination(*args, **kwargs)
        except Exception as error:
            if _is_query_failure(error):
                run.end(error)
            raise
        if result is None or result is True:
            run.end(None)
        return result

    @functools.wraps(stop)
    def stopped(*args: Any, **kwargs: Any) -> Any:
        result = stop(*args, **kwargs)
        run.end(run.query_error())
        return result

    query.awaitTermination = awaited
    query.stop = stopped


def _is_query_failure(error: BaseException) -> bool:
    try:
        from pyspark.errors import StreamingQueryException
    except ImportError:  # pragma: no cover - every PySpark with streams has it
        return False
    return isinstance(error, StreamingQueryException)


class _StreamRun:
    """One query's open run: its statistics so far, and when it last reported them."""

    def __init__(
        self,
        streams: _Streams,
        execution: SparkExecution,
        description: _StreamStart,
        query: Any,
        run_id: str,
    ) -> None:
        self.streams = streams
        self.reporter: LineageSink = streams.adapter.reporter
        self.session: Session = streams.adapter.session
        self.execution = execution
        self.sources = description.sources
        self.rows_observation = description.rows_observation
        self.query = query
        self.run_id = run_id
        self.lock = threading.Lock()
        self.seen: set[Any] = set()
        self.window: dict[tuple[str, str, str], int | None] = {}
        self.totals: dict[tuple[str, str, str], int | None] = {}
        self.last_report = time.monotonic()
        self.changed = False
        self.ending = False
        self.done = threading.Event()

    # progress

    def progress(self, progress: dict[str, Any], *, catching_up: bool = False) -> None:
        with self.lock:
            if self.ending and not catching_up:
                return
            batch = progress.get("batchId")
            if batch in self.seen:
                return
            self.seen.add(batch)
            try:
                counted = self._count(progress)
            except Exception as error:
                _note(self.execution.problems, "stream progress", error)
                return
            for key, rows in counted.items():
                for tally in (self.window, self.totals):
                    known = tally.get(key, 0)
                    tally[key] = None if rows is None or known is None else known + rows
            # A micro-batch the listener had not delivered when the run ended is caught up
            # from the query's own progress, under the same rule: with an interval of 0 it is
            # still a RUNNING event of its own, before the end.
            interval = self.streams.interval
            if not self.changed and time.monotonic() - self.last_report < interval:
                return
            self._set_stats(self.window)
            report_running(self.reporter, self.execution)
            self.window = {}
            self.changed = False
            self.last_report = time.monotonic()

    def _count(self, progress: dict[str, Any]) -> dict[tuple[str, str, str], int | None]:
        """The rows each dataset read or wrote in one micro-batch (``None``: not known)."""
        counted: dict[tuple[str, str, str], int | None] = {}
        reported = progress.get("sources") or []
        by_position = len(reported) == len(self.sources)
        for index, report in enumerate(reported):
            found = self._source_of(report, index, by_position)
            if found is None:
                continue
            self._learn_topics(found, report)
            rows = report.get("numInputRows")
            datasets = found.datasets
            for dataset in datasets:
                key = _key(dataset)
                counted[key] = int(rows) if rows is not None and len(datasets) == 1 else None
        output = self.execution.output
        if output is not None:
            counted[_key(output)] = self._rows_written(progress)
        return counted

    def _source_of(self, report: dict[str, Any], index: int, by_position: bool) -> _Source | None:
        description = str(report.get("description", ""))
        for source in self.sources:
            if source_matches(description, source.source, source.locations):
                return source
        return self.sources[index] if by_position else None

    def _learn_topics(self, source: _Source, report: dict[str, Any]) -> None:
        """A Kafka source's topics from its offsets: a pattern subscription's, or new ones."""
        if source_kind(source.source) != "kafka":
            return
        namespace = kafka_namespace(source.source.options)
        if namespace is None:
            return
        known = {d.identity.name for d in source.datasets}
        for topic in kafka_offset_topics(report.get("endOffset")):
            if topic not in known:
                known.add(topic)
                dataset = DatasetLineage(DatasetIdentity(namespace, topic), "input")
                if source.datasets and source.datasets[0].schema is not None:
                    dataset.schema = source.datasets[0].schema
                source.datasets.append(dataset)
                self.execution.inputs.append(dataset)
                self.changed = True

    def _rows_written(self, progress: dict[str, Any]) -> int | None:
        sink = progress.get("sink") or {}
        written = sink.get("numOutputRows")
        if written is not None and int(written) >= 0:
            return int(written)
        name = self.rows_observation
        observed = progress.get("observedMetrics") or {}
        if name is None or name not in observed:
            return None
        row = observed[name]
        value = row.get("rows") if isinstance(row, dict) else None
        return int(value) if value is not None else None

    def _set_stats(self, tally: dict[tuple[str, str, str], int | None]) -> None:
        execution = self.execution
        datasets = [*execution.inputs, *([execution.output] if execution.output else [])]
        for dataset in datasets:
            rows = tally.get(_key(dataset))
            dataset.stats = IoStats(row_count=rows) if rows is not None else None

    # the end

    def query_error(self) -> BaseException | None:
        try:
            with adapter_work():
                error = self.query.exception()
        except Exception as failure:
            log.debug("openlineage: the query's exception was not read: %s", failure)
            return None
        return error if isinstance(error, BaseException) else None

    def end(self, error: BaseException | None) -> None:
        """Report the run's end (once), with the totals of every micro-batch it ran.

        A second caller (the listener heard of the end while the user's ``awaitTermination``
        returned) waits, bounded, until the end is reported: when the user's call returns, the
        run's last event is out.
        """
        with self.lock:
            ending, self.ending = self.ending, True
        if ending:
            self.done.wait(_END_WAIT_S)
            return
        try:
            if isinstance(error, StreamFailed):
                # The listener has the error's text; the query has the exception Spark raises
                # (its class and error condition), which the user's awaitTermination gets.
                error = self.query_error() or error
            try:
                with adapter_work():
                    reports = self.session.stream_progress(self.query)
                for report in reports:
                    self.progress(report, catching_up=True)
            except Exception as failure:
                _note(self.execution.problems, "stream progress at the end", failure)
            with self.lock:
                self._set_stats(self.totals)
                self.execution.error = error
            report_finished(self.reporter, self.execution)
            self.streams.forget(self)
        finally:
            self.done.set()

    def abandon(self) -> None:
        """The adapter is removed: end the run, with ABORT if the query still runs."""
        try:
            with adapter_work():
                active = bool(self.query.isActive)
        except Exception:
            active = False
        if active:
            self.end(StreamUnobserved("the adapter was removed while the query ran"))
        else:
            self.end(self.query_error())


def _key(dataset: DatasetLineage) -> tuple[str, str, str]:
    return (dataset.role, dataset.identity.namespace, dataset.identity.name)


# --------------------------------------------------------------------------- foreachBatch


class BatchScope:
    """A stream's ``foreachBatch`` function, wrapped: each batch's writes are the stream's children.

    Called in this process (classic PySpark), it puts the batch's session under an adapter
    whose executions have the stream's run as their parent and the stream's sources among
    their inputs, for the time of the call. Under Spark Connect :meth:`remote_payload` is what
    the server's worker needs to do the same (see ``_batch_worker``).
    """

    def __init__(self, streams: _Streams, execution: SparkExecution, func: Any) -> None:
        self.streams = streams
        self.execution = execution
        self.func = func

    def __call__(self, df: Any, batch_id: int) -> None:
        restore = None
        try:
            restore = self._enter(df)
        except Exception as error:  # the batch runs as without the adapter
            log.warning("openlineage: the batch's writes are not linked to the stream: %s", error)
        try:
            self.func(df, batch_id)
        finally:
            if restore is not None:
                try:
                    restore()
                except Exception as error:
                    log.debug("openlineage: restoring the batch's session failed: %s", error)

    def _enter(self, df: Any) -> Callable[[], None] | None:
        adapter = self.streams.adapter
        if self.streams.closed:
            return None
        run_ref = getattr(adapter.reporter, "run_ref", None)
        parent = run_ref(self.execution) if run_ref is not None else None
        if parent is None:
            return None
        return enter_batch(adapter, df.sparkSession, parent, self.execution.inputs)

    def remote_payload(self) -> bytes | None:
        """The stream's run, the client's transport: for a Python worker on a Connect server.

        ``None`` when the batches cannot be reported there: explicit mode or a sink of one's
        own (no run of the stream's own), or a transport that cannot be rebuilt elsewhere (an
        in-memory one); the stream's run says so in its ``extractionError`` facet.
        """
        reporter = self.streams.adapter.reporter
        client = getattr(reporter, "client", None)
        run_ref = getattr(reporter, "run_ref", None)
        parent = run_ref(self.execution) if run_ref is not None else None
        problems = self.execution.problems
        if client is None or parent is None:
            problems.append(
                "foreachBatch: its writes run in the server's Python worker, which reports them "
                "only for a run of the stream's own (automatic mode)"
            )
            return None
        if client.disabled:
            return None
        transport = transport_config(client.transport)
        if transport is None:
            problems.append(
                "foreachBatch: its writes run in the server's Python worker, and the client's "
                f"transport ({type(client.transport).__name__}) cannot be rebuilt there"
            )
            return None
        payload = {
            "config": client.config.model_copy(update={"transport": transport}),
            "producer": client.producer,
            "namespace": client.namespace,
            "parent": parent,
            "inputs": [(d.identity, d.schema) for d in self.execution.inputs],
        }
        return pickle.dumps(payload)


def transport_config(transport: Any) -> Any:
    """The configuration that rebuilds ``transport`` in another process, or ``None``."""
    from openlineage_sdk.transports.base import TransportConfig
    from openlineage_sdk.transports.composite import CompositeConfig, CompositeTransport
    from openlineage_sdk.transports.console import ConsoleConfig, ConsoleTransport
    from openlineage_sdk.transports.file import FileConfig, FileTransport

    config = getattr(transport, "config", None)
    if isinstance(config, TransportConfig):
        return config
    if isinstance(transport, FileTransport):
        return FileConfig(log_file_path=transport.path.absolute(), fsync=transport._fsync)
    if isinstance(transport, ConsoleTransport):
        stream = transport._stream
        if stream is None:
            return ConsoleConfig(stream="stdout")
        return ConsoleConfig(stream="stderr") if stream is sys.stderr else None
    if isinstance(transport, CompositeTransport):
        members = [transport_config(member) for member in transport.transports]
        if any(member is None for member in members):
            return None
        return CompositeConfig(transports=members, names=transport.names)
    return None


class _BatchReporter:
    """The adapter's sink, for a batch's executions: the stream's run is their parent."""

    def __init__(self, inner: LineageSink, parent: Any, inputs: list[DatasetLineage]) -> None:
        self.inner = inner
        self.parent = parent
        self.inputs = inputs

    def write_started(self, write: SparkExecution) -> None:
        write.parent = self.parent
        _add_stream_inputs(write, self.inputs)
        self.inner.write_started(write)

    def write_finished(self, write: SparkExecution) -> None:
        self.inner.write_finished(write)


def _add_stream_inputs(write: SparkExecution, stream_inputs: list[DatasetLineage]) -> None:
    """The stream's sources among a batch write's inputs, in place of the batch's own files."""
    folders = [(d.identity.namespace, d.identity.name.rstrip("/") + "/") for d in stream_inputs]
    kept = [
        d
        for d in write.inputs
        if not any(
            d.identity.namespace == ns and d.identity.name.startswith(folder)
            for ns, folder in folders
        )
    ]
    known = {(d.identity.namespace, d.identity.name) for d in kept}
    for dataset in stream_inputs:
        if (dataset.identity.namespace, dataset.identity.name) not in known:
            kept.append(DatasetLineage(dataset.identity, "input", dataset.schema))
    write.inputs = kept


class _BatchAdapter:
    """An installed adapter as a batch of a stream sees it: the same session, another sink."""

    def __init__(self, adapter: Adapter, reporter: _BatchReporter) -> None:
        self.adapter = adapter
        self.session = adapter.session
        self.reporter: LineageSink = reporter
        self.input_only_runs = adapter.input_only_runs
        self.stream_interval = getattr(adapter, "stream_interval", None)

    def execution(self, method: str) -> SparkExecution:
        return self.adapter.execution(method)


def enter_batch(
    adapter: Adapter, session: Any, parent: Any, inputs: list[DatasetLineage]
) -> Callable[[], None]:
    """Put a batch's ``session`` under ``adapter`` with the stream's run as parent; returns undo."""
    previous = adapter_of(session)
    register(session, _BatchAdapter(adapter, _BatchReporter(adapter.reporter, parent, inputs)))

    def restore() -> None:
        if previous is not None:
            register(session, previous)
        else:
            unregister(session)

    return restore
