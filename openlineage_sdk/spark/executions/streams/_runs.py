"""A streaming query's run: from its start to its end, with RUNNING events as it progresses.

One run per query started on a session the adapter is installed on (see the package):

* START as it starts (``_start``). A ``start`` that raises (an analysis error) ends the run at
  once with FAIL.
* RUNNING as micro-batches complete, with the rows each source read and the sink wrote in the
  micro-batches since the last event: at most one per interval (``stream_interval``, 60 s by
  default), and one whenever the stream's datasets change (a Kafka pattern subscription
  meeting a new topic).
* COMPLETE when it stops, with the rows of the whole run; FAIL, with the query's exception, when
  it fails; ABORT when the adapter is removed while it still runs.

The progress comes from a streaming listener the session registers with the first query
(``Session.listen_to_streams``), and the end from the first of: the listener's termination
event, or the user's ``awaitTermination()`` returning or ``stop()``. At the end the query's own
``recentProgress`` is read for the micro-batches whose reports had not yet arrived, so the run's
totals do not depend on the listener's timing.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from openlineage_sdk.spark._execution import (
    DatasetIdentity,
    DatasetLineage,
    IoStats,
    SparkExecution,
)
from openlineage_sdk.spark._execution import note_problem as _note
from openlineage_sdk.spark._flow import (
    LineageSink,
    report_finished,
    report_running,
    run_opened,
)
from openlineage_sdk.spark._inside import adapter_work
from openlineage_sdk.spark.describe._stream_datasets import (
    kafka_namespace,
    kafka_offset_topics,
    source_kind,
    source_matches,
)
from openlineage_sdk.spark.executions._adapters import Adapter
from openlineage_sdk.spark.executions.streams._start import Source, StreamStart
from openlineage_sdk.spark.session import Session

__all__ = [
    "DEFAULT_STREAM_INTERVAL",
    "StreamFailed",
    "StreamUnobserved",
    "close_streams",
    "stream_runs",
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


_all_streams: weakref.WeakKeyDictionary[Any, _Streams] = weakref.WeakKeyDictionary()
_all_lock = threading.Lock()


def stream_runs(adapter: Adapter) -> _Streams:
    """The streams of ``adapter``: its listener and open runs (made with its first stream)."""
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
        description = StreamStart(self, execution, writer, method, args, kwargs)

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

    def _follow(self, query: Any, execution: SparkExecution, description: StreamStart) -> None:
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
        description: StreamStart,
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
        # The highest micro-batch id counted: Spark numbers a run's micro-batches in order and
        # its listener delivers their reports in order, so one number tells a report counted
        # already (the end's catching up reads the query's recent ones again) and the run holds
        # nothing per micro-batch, however long it runs.
        self.last_batch = -1
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
            if not isinstance(batch, int) or batch <= self.last_batch:
                return
            self.last_batch = batch
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

    def _source_of(self, report: dict[str, Any], index: int, by_position: bool) -> Source | None:
        description = str(report.get("description", ""))
        for source in self.sources:
            if source_matches(description, source.source, source.locations):
                return source
        return self.sources[index] if by_position else None

    def _learn_topics(self, source: Source, report: dict[str, Any]) -> None:
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
        if _ran_no_batch(progress):
            # A trigger that found no new data is reported once Spark's
            # noDataProgressEventInterval (10 s) passed since the last progress, as a loaded
            # machine makes it: no batch ran, so its sink wrote nothing, and says so only by
            # -1 and no observed metrics. Unknown would erase the rows the batches wrote.
            return 0
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


def _ran_no_batch(progress: dict[str, Any]) -> bool:
    """Whether a progress report is of a trigger that ran no micro-batch (no new data): none
    of its sources read a row, and it spent no time adding a batch to the sink."""
    durations = progress.get("durationMs") or {}
    return "addBatch" not in durations and not progress.get("numInputRows")


def _key(dataset: DatasetLineage) -> tuple[str, str, str]:
    return (dataset.role, dataset.identity.namespace, dataset.identity.name)
