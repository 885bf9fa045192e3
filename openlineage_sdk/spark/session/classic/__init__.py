"""Classic PySpark: what the adapter asks a session whose JVM is in this process, through py4j.

It reads:

* the writer's settings (``source``, options and mode), which the JVM ``DataFrameWriter`` keeps;
* a DataFrame's or a statement's analyzed and optimized logical plans, fetched as JSON, for
  inputs and column lineage (``_plan``); a statement is parsed and analyzed without running it
  (``_statements``);
* the metrics of the write command itself (rows, bytes and files written, and what each file
  scan read), delivered by a ``QueryExecutionListener`` after the command ran, which also hears
  the queries that ran in actions (``_metrics``);
* an RDD's lineage and the metrics of the jobs that saved it (``_rdd``).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any

from openlineage_sdk.spark._execution import (
    DatasetIdentity,
    DatasetLineage,
    IoStats,
    SparkExecution,
)
from openlineage_sdk.spark._execution import note_problem as _note
from openlineage_sdk.spark._flow import Description
from openlineage_sdk.spark.describe._sql_text import described_beside
from openlineage_sdk.spark.describe._statement import (
    PlannedStatement,
    apply_output,
    apply_statement,
)
from openlineage_sdk.spark.describe._streams import StreamSink, StreamSource
from openlineage_sdk.spark.session._base import (
    BatchFunction,
    Session,
    StreamEvents,
    WriteStatistics,
)
from openlineage_sdk.spark.session.classic import _rdd
from openlineage_sdk.spark.session.classic._jvm import (
    frame_schema,
    jvm_writer_settings,
    qualify_path,
    sql_text,
)
from openlineage_sdk.spark.session.classic._metrics import (
    ListenerRegistration,
    WriteMetricsListener,
    executed_query_name,
    start_callback_server,
    wait_for_listeners,
)
from openlineage_sdk.spark.session.classic._plan import (
    logical_plan_extraction,
    plan_inputs_and_lineage,
)
from openlineage_sdk.spark.session.classic._statements import plan_executed, plan_statement
from openlineage_sdk.spark.session.classic._streams import (
    listen_to_streams,
    recent_progress,
    stream_sink,
    stream_sources,
    stream_start,
)

__all__ = ["ClassicSession"]

log = logging.getLogger("openlineage_sdk.spark")

_next_tag = 0  # the last job tag handed out (see ClassicSession.rdd_save)
_tag_lock = threading.Lock()


class _ListenerStatistics(WriteStatistics):
    """A write's metrics, as the session's listener hands them over after the write."""

    def __init__(self, session: ClassicSession) -> None:
        self.session = session
        self.token: int | None = None

    def begin(self) -> None:
        listener = self.session.listener
        if listener is not None and self.token is None:
            self.token = listener.begin()

    def around(self) -> Any:
        self.begin()
        return super().around()

    def close(self) -> None:
        """The write's call returned (see ``WriteMetricsListener.close``)."""
        listener, token = self.session.listener, self.token
        if listener is not None and token is not None:
            listener.close(token)

    def executed(self, failed: bool) -> Any:
        """The ``QueryExecution`` that ran the write command, as the listener was given it.

        ``failed``: the command failed, and the listener's ``onFailure`` had it. ``None`` when
        the listener had not exactly one (none yet, or several writes in flight at once).
        """
        listener, token, session = self.session.listener, self.token, self.session
        if listener is None or token is None:
            return None
        collector = listener.collector(token)
        if failed:
            if not wait_for_listeners(session.spark, session.listener_timeout_ms):
                return None
            return collector.failed[0] if len(collector.failed) == 1 else None
        if not (
            collector.wait(session.fast_wait_s)
            or wait_for_listeners(session.spark, session.listener_timeout_ms)
        ):
            return None
        commands = [c for c in collector.commands if c.output is not None]
        return commands[0].qe if len(commands) == 1 else None

    def discard(self) -> None:
        listener, token = self.session.listener, self.token
        self.token = None
        if listener is not None and token is not None:
            listener.end(token)

    def collect(self, execution: SparkExecution, writes_data: bool) -> None:
        listener, token, session = self.session.listener, self.token, self.session
        output = execution.output
        if listener is None or token is None:
            return
        if execution.error is not None or output is None or not writes_data:
            self.discard()
            return
        # The command's end event was posted before the write returned; the listener usually
        # has its metrics within milliseconds. If not, drain the listener bus, after which
        # everything the write's commands reported has arrived, or never will.
        collector = listener.collector(token)
        drained = collector.wait(session.fast_wait_s) or wait_for_listeners(
            session.spark, session.listener_timeout_ms
        )
        collected = listener.end(token)
        self.token = None
        if not drained:
            output.problems.append("statistics: the listener bus did not drain in time")
            return
        commands = [c for c in collected.commands if c.output is not None]
        if len(commands) != 1:
            output.problems.append(
                f"statistics: {len(commands)} write commands reported metrics, expected one"
            )
            return
        output.stats = commands[0].output
        # A scan over one input's location read exactly that input; an input scanned twice (a
        # self-join) or a scan over several locations has no statistics of its own.
        scanned: dict[tuple[str, str], list[IoStats]] = {}
        for paths, stats in commands[0].scans:
            if len(paths) == 1:
                located = DatasetIdentity.from_uri(paths[0])  # trimmed, as the inputs are
                scanned.setdefault((located.namespace, located.name), []).append(stats)
        for dataset in execution.inputs:
            found = scanned.get((dataset.identity.namespace, dataset.identity.name), [])
            if len(found) == 1:
                dataset.stats = found[0]


class ClassicSession(Session):
    """A classic PySpark session: a JVM in this process."""

    kind = "classic"
    describes_writes_beside = True

    def __init__(self, spark: Any) -> None:
        super().__init__(spark)
        self.listener: WriteMetricsListener | None = None
        self._registration: ListenerRegistration | None = None
        self.listener_timeout_ms = 10_000
        self.fast_wait_s = 0.25
        #: An ``INSERT`` still running after this long (seconds) is described beside it, and its
        #: START sent then; one that ends sooner is described from its own execution.
        self.insert_described_beside_after_s = 2.0
        #: Called with each query that ran in an action, ``(function name, QueryExecution)``.
        self.on_query: Callable[[str, Any], None] | None = None
        try:
            start_callback_server(spark)
            listener = WriteMetricsListener(spark._jvm)
            listener.on_query = self._query_executed
            self._registration = ListenerRegistration(spark, listener)
            self.listener = listener
        except Exception as error:
            log.warning("openlineage: no write metrics listener, statistics left out: %s", error)

    def _query_executed(self, func_name: str, qe: Any) -> None:
        on_query = self.on_query
        if on_query is not None:
            on_query(func_name, qe)

    # -- what the session is asked

    def qualify(self, path: str) -> str:
        return qualify_path(self.spark, path)

    def derby_home(self) -> str | None:
        system = self.spark._jvm.java.lang.System
        home = system.getProperty("derby.system.home")
        return str(home) if home is not None else str(system.getProperty("user.dir"))

    def frame_schema(self, df: Any) -> Any:
        return frame_schema(df)

    def writer_frame(self, writer: Any) -> Any:
        return writer._df

    def writer_settings(self, writer: Any) -> tuple[str | None, dict[str, str]]:
        if hasattr(writer, "_jwrite"):
            return jvm_writer_settings(writer._jwrite)
        return None, {}

    def writer_mode(self, writer: Any) -> str | None:
        jwrite = getattr(writer, "_jwrite", None)
        return str(jwrite.curmode().toString()).lower() if jwrite is not None else None

    def frame_lineage(
        self,
        df: Any,
        execution: SparkExecution,
        output: DatasetLineage | None,
        output_names: list[str] | None = None,
    ) -> None:
        try:
            execution.sql = sql_text(self.spark._jvm, df._jdf.queryExecution().logical())
        except Exception as error:
            _note(execution.problems, "sql facet", error)
        extraction = plan_inputs_and_lineage(
            df, self.hive_metastore, output_names, self.descriptions
        )
        execution.inputs = extraction.input_datasets()
        for problem in extraction.problems:
            execution.problems.append(problem)
            log.warning("openlineage: %s", problem)
        if output is not None:
            output.column_lineage = extraction.column_lineage

    def write_statistics(self, writer: Any, execution: SparkExecution) -> WriteStatistics:
        return _ListenerStatistics(self)

    def statement(
        self, text: str | None, execution: SparkExecution, call: Any = None
    ) -> Description:
        if text is None:
            return _BoundStatement(self, execution)
        return _Statement(self, execution, text)

    def plan(
        self,
        text: str | None,
        qe: Any = None,
        execution: SparkExecution | None = None,
        *,
        ran: bool = False,
    ) -> PlannedStatement | None:
        """What a statement does, from its text before it runs or ``qe`` after; ``None``: nothing.

        With ``qe``, the SQL text Spark parsed becomes ``execution``'s. ``ran``: ``qe`` is the
        ``QueryExecution`` that ran the command (the listener's), whose plans Spark already
        optimized.
        """
        try:
            if text is not None:
                return plan_statement(self.spark, text, self.hive_metastore, self.descriptions)
            if execution is not None:
                execution.sql = sql_text(self.spark._jvm, qe.logical())
            return plan_executed(self.spark, qe, self.hive_metastore, self.descriptions, ran=ran)
        except Exception as error:
            # Spark will report a statement that does not parse or analyze itself, as it is.
            log.debug("openlineage: the statement was not described: %s", error)
            return None

    # -- reads that end in an action

    def query_reads(self, qe: Any, execution: SparkExecution) -> bool:
        """What a query that ran in an action read, into ``execution``; ``False``: nothing stored.

        Queries that read no dataset (local relations, ``range``) and commands are not reads.
        """
        command = executed_query_name(qe)
        if command is None:
            return False
        extraction = logical_plan_extraction(
            self.spark._jvm,
            qe.analyzed(),
            self.hive_metastore,
            optimized=qe.optimizedPlan,
            descriptions=self.descriptions,
        )
        if not extraction.inputs and not extraction.unread:
            return False  # nothing stored is read (a read that could not be told is reported)
        execution.name_job(command)
        execution.inputs = extraction.input_datasets()
        try:
            execution.sql = sql_text(self.spark._jvm, qe.logical())
        except Exception as error:
            _note(execution.problems, "sql facet", error)
        execution.problems.extend(extraction.problems)
        return True

    # -- RDD saves

    def rdd_save(
        self,
        execution: SparkExecution,
        rdd: Any,
        method: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Description:
        """How an RDD save (``saveAsTextFile`` ...) is described around its run (see ``_rdd``)."""
        return _RddSave(self, execution, rdd, method, args, kwargs)

    # -- streams

    def stream_frame(self, writer: Any) -> Any:
        return writer._df

    def stream_sink(self, writer: Any, path: str | None, table: str | None) -> StreamSink:
        return stream_sink(writer, path, table)

    def stream_sources(
        self, df: Any, problems: list[str]
    ) -> tuple[list[StreamSource], list[DatasetLineage]]:
        return stream_sources(self.spark, df, self.hive_metastore, problems)

    def stream_start(
        self, writer: Any, rows_observation: str | None, batch: BatchFunction | None
    ) -> contextlib.AbstractContextManager[Any]:
        return stream_start(self.spark, writer, rows_observation, batch)

    def listen_to_streams(self, events: StreamEvents) -> Callable[[], None]:
        return listen_to_streams(self.spark, events)

    def stream_progress(self, query: Any) -> list[dict[str, Any]]:
        return recent_progress(query)

    # -- the session's life

    def drain(self) -> None:
        if self.listener is None:
            return
        try:
            if not self.spark._jsc.sc().isStopped():
                wait_for_listeners(self.spark, self.listener_timeout_ms)
        except Exception as error:  # the session or its JVM is already gone
            log.debug("openlineage: draining the listener bus failed: %s", error)

    def close(self) -> None:
        self.drain()
        self.on_query = None
        if self.listener is not None:
            # Whatever the session still delivers to it, it reports nothing from now on.
            self.listener.on_query = None
            self.listener = None
        if self._registration is not None:
            try:
                self._registration.remove()
            except Exception as error:
                log.warning("openlineage: unregistering the listener failed: %s", error)
            self._registration = None


class _Statement(Description):
    """A statement sent as text: described before it runs, or, for an ``INSERT``, beside or after.

    What a statement changes must be read before it runs (a ``DROP``'s table). An ``INSERT``
    into a table changes neither its query's inputs nor its target's identity while it runs,
    so it need not wait for its description: the session's listener is given the
    ``QueryExecution`` that ran it, whose analyzed and optimized plans Spark computed for the
    run, and an ``INSERT`` that ends within ``insert_described_beside_after_s`` is described
    from those, once it ran (its START and COMPLETE go out then, in that order), on the
    adapter's finishing thread: the user's call returns without waiting for it. One that runs
    longer is described beside it by the session's analyzer and optimizer, on a thread of the
    adapter's, and its START goes out while it runs. Either way the events say the same.
    """

    def __init__(self, session: ClassicSession, execution: SparkExecution, text: str) -> None:
        self.session = session
        self.execution = execution
        self.text = text
        self.planned: PlannedStatement | None = None
        self.statistics = _ListenerStatistics(session)
        self.start = "beside" if described_beside(text) else "before"
        execution.sql = text
        self.ran = threading.Event()  # set when the user's call returned or raised

    def before(self) -> bool:
        if self.start == "beside":
            self.statistics.begin()
            return True
        planned = self._plan()
        if planned is None:
            return False
        if planned.writes_data:
            self.statistics.begin()
        return True

    def around(self) -> Any:
        return _Marking(self.ran, self.statistics)

    def beside(self) -> bool:
        if self.ran.wait(self.session.insert_described_beside_after_s):
            # It ran already: described from its own execution, whose plans nothing the user
            # does next changes, on the adapter's finishing thread.
            self.start = "after"
            self.finishes_later = True
            return True
        return self._plan() is not None

    def _plan(self, qe: Any = None) -> PlannedStatement | None:
        if qe is None:
            planned = self.session.plan(self.text)
        else:
            planned = self.session.plan(None, qe, ran=True)
        if planned is not None:
            apply_statement(self.execution, planned, self.session.catalog_info())
            self.planned = planned
        return planned

    def after(self) -> bool:
        if self.start == "after":
            qe = self.statistics.executed(failed=self.execution.error is not None)
            # Without the listener's QueryExecution (several writes at once), the analyzer
            # describes it: an INSERT changed nothing its description reads.
            if self._plan(qe) is None:
                self.statistics.discard()
                return False
        _finish_statement(self.session, self.execution, self.planned, self.statistics)
        return True


class _Marking:
    """Sets an event when the call it is around returns or raises, and closes the statement's
    window of the listener (every command of it was posted by then)."""

    def __init__(self, event: threading.Event, statistics: _ListenerStatistics) -> None:
        self.event = event
        self.statistics = statistics

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        self.statistics.close()
        self.event.set()


class _BoundStatement(Description):
    """A statement with parameters or format arguments: described once it has run.

    PySpark formats the text (``{df}`` becomes a temporary view) and Spark binds the parameters
    while parsing it, so the text the adapter sees is not the statement that runs; the command
    Spark ran is in the result's ``QueryExecution``, and the run is described from it: its
    START and COMPLETE go out when the statement returns. A statement that fails while it runs
    is handed to the listener's ``onFailure`` with its ``QueryExecution``; one that fails before
    (in parsing or analysis) leaves none: its run is START and FAIL with the error and no
    datasets, and its ``extractionError`` facet says why.

    ``DataFrame.mergeInto(...).merge()`` is described the same way: its command is handed to the
    JVM in one call, which returns nothing; the listener's ``onSuccess`` has its
    ``QueryExecution``.
    """

    start = "after"

    def __init__(self, session: ClassicSession, execution: SparkExecution) -> None:
        self.session = session
        self.execution = execution
        self.statistics = _ListenerStatistics(session)

    def around(self) -> Any:
        return self.statistics.around()

    def after(self) -> bool:
        execution = self.execution
        if execution.error is not None:
            planned = self._failed()
            if planned is None:
                execution.problems.append(
                    "statement: this statement is described from the command Spark ran, and it "
                    "failed before there was one"
                )
        elif hasattr(self.result, "_jdf"):
            planned = self.session.plan(None, self.result._jdf.queryExecution(), execution)
        else:
            planned = self._executed()
        if planned is None:
            self.statistics.discard()
            return execution.error is not None
        apply_statement(execution, planned, self.session.catalog_info())
        _finish_statement(self.session, execution, planned, self.statistics)
        return True

    def _executed(self) -> PlannedStatement | None:
        """The one command that ran, from the session's listener (bus drained first)."""
        return self._heard("executed")

    def _failed(self) -> PlannedStatement | None:
        """The failed command, from what the session's listener saw fail (bus drained first)."""
        return self._heard("failed")

    def _heard(self, which: str) -> PlannedStatement | None:
        session, token = self.session, self.statistics.token
        listener = session.listener
        if listener is None or token is None:
            return None
        if not wait_for_listeners(session.spark, session.listener_timeout_ms):
            return None
        heard = getattr(listener.collector(token), which)
        if len(heard) != 1:
            return None
        return session.plan(None, heard[0], self.execution)


def _finish_statement(
    session: ClassicSession,
    execution: SparkExecution,
    planned: PlannedStatement | None,
    statistics: _ListenerStatistics,
) -> None:
    """A statement's statistics, and its output once more when the command changed it."""
    if planned is None:
        statistics.discard()
        return
    try:
        statistics.collect(execution, planned.writes_data)
    except Exception as error:
        _note(execution.problems, "statistics", error)
    statistics.discard()
    if planned.refresh is not None and execution.error is None:
        try:
            output = planned.refresh()
        except Exception as error:
            _note(execution.problems, "output after the statement", error)
            return
        apply_output(execution, planned, output, session.catalog_info())
        execution.output_changed = True


class _RddSave(Description):
    """An RDD save: its output and inputs before it runs, its statistics after (see ``_rdd``)."""

    def __init__(
        self,
        session: ClassicSession,
        execution: SparkExecution,
        rdd: Any,
        method: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> None:
        self.session = session
        self.execution = execution
        self.rdd = rdd
        self.method = method
        self.args = args
        self.kwargs = kwargs
        self.tag: str | None = None
        execution.job_type = "RDD_JOB"

    def before(self) -> bool:
        execution, session = self.execution, self.session
        jvm = session.spark._jvm
        try:
            source = _rdd.source_jrdd(self.rdd).rdd()  # the Scala RDD under PySpark's JavaRDD
            try:
                execution.name_job(_rdd.rdd_job_suffix(jvm, source))
            except Exception as error:
                _note(execution.problems, "job name", error)
                execution.name_job("rdd")
            path = _rdd.save_path(self.method, self.args, self.kwargs)
            if path is None:
                execution.problems.append(f"output: {self.method} was given no output path")
            else:
                try:
                    execution.output = DatasetLineage(session.path_identity(path), "output")
                except Exception as error:
                    _note(execution.problems, "output dataset", error)
            found = _rdd.rdd_inputs(jvm, source)
            execution.inputs = [DatasetLineage(identity, "input") for identity in found.identities]
            for problem in found.problems:
                execution.problems.append(problem)
                log.warning("openlineage: %s", problem)
        except Exception as error:  # whatever broke, the save still runs, with what is known
            _note(execution.problems, "lineage", error)
        self.tag = self._tag_jobs()
        return True

    def _tag_jobs(self) -> str | None:
        """Tag the jobs this thread starts from now on, beside the user's own tags."""
        global _next_tag
        with _tag_lock:
            _next_tag += 1
            tag = f"openlineage-sdk-{_next_tag}"
        try:
            self.session.spark._jsc.addJobTag(tag)
        except Exception as error:  # a Spark without job tags: no statistics
            log.debug("openlineage: tagging the RDD's jobs failed: %s", error)
            return None
        return tag

    def after(self) -> bool:
        execution, session, tag = self.execution, self.session, self.tag
        if tag is None:
            return True
        try:
            session.spark._jsc.removeJobTag(tag)
        except Exception as error:
            log.debug("openlineage: removing the job tag failed: %s", error)
        if execution.error is not None:
            return True
        if not wait_for_listeners(session.spark, session.listener_timeout_ms):
            execution.problems.append("statistics: the listener bus did not drain in time")
            return True
        stats = _rdd.job_stats(session.spark, tag)
        if stats is None:
            return True
        # Statistics of an input only when the save read one dataset, as the JVM agent: with
        # several, what each read is not known.
        if len(execution.inputs) == 1:
            execution.inputs[0].stats = IoStats(
                row_count=stats.input_records, size=stats.input_bytes
            )
        if execution.output is not None:
            execution.output.stats = IoStats(
                row_count=stats.output_records, size=stats.output_bytes
            )
        return True
