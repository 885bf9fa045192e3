"""Classic PySpark: what the adapter asks a session whose JVM is in this process, through py4j.

It reads:

* the writer's settings (``source``, options and mode), which the JVM ``DataFrameWriter`` keeps;
* a DataFrame's or a statement's analyzed and optimized logical plans, fetched as JSON, for
  inputs and column lineage (``_plan``); a command, parsed and analyzed without running it or
  as Spark ran it, read by the readers of the session's Spark version (``_readers``) and
  described by its handler (``_statement_plans``);
* the metrics of the write command itself (rows, bytes and files written, and what each file
  scan read), delivered by a ``QueryExecutionListener`` after the command ran, which also hears
  the queries that ran in actions (``_metrics``);
* an RDD's lineage and the metrics of the jobs that saved it (``_rdd_lineage``);
* a stream's sources, sink, row-count observation and listener (``_stream_io``).
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
from openlineage_sdk.spark.describe._commands import DescribedCommand
from openlineage_sdk.spark.describe._stream_datasets import StreamSink, StreamSource
from openlineage_sdk.spark.session._base import (
    BatchFunction,
    CommandWindow,
    JobWindow,
    Session,
    StreamEvents,
    WriteStatistics,
)
from openlineage_sdk.spark.session.classic import _debug, _rdd_lineage
from openlineage_sdk.spark.session.classic._jobs import StatusReader, TaggedJobs
from openlineage_sdk.spark.session.classic._jvm import (
    frame_schema,
    qualify_path,
    sql_text,
)
from openlineage_sdk.spark.session.classic._metrics import (
    ListenerRegistration,
    WriteMetricsListener,
    command_metrics,
    executed_query_name,
    start_callback_server,
    wait_for_listeners,
)
from openlineage_sdk.spark.session.classic._plan import (
    logical_plan_extraction,
    plan_inputs_and_lineage,
)
from openlineage_sdk.spark.session.classic._rdd_jobs import TAG_PREFIX, HeardRddJob, RddJobRelay
from openlineage_sdk.spark.session.classic._readers import ClassicReaders, select_readers
from openlineage_sdk.spark.session.classic._statement_plans import plan_executed, plan_statement
from openlineage_sdk.spark.session.classic._stream_io import (
    listen_to_streams,
    recent_progress,
    stream_sink,
    stream_sources,
    stream_start,
)

__all__ = ["ClassicSession"]

log = logging.getLogger("openlineage_sdk.spark")

_next_tag = 0  # the last job tag handed out (see ClassicSession.tag_jobs)
_tag_lock = threading.Lock()


class _ListenerWindow(CommandWindow):
    """The commands of one call, as the session's listener hands them over after they ran: a
    write's metrics, the ``QueryExecution`` of a statement's command."""

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

    def executed(self, failed: bool) -> object | None:
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

    def heard(self, failed: bool) -> object | None:
        """The one command the listener heard of in the window (bus drained first)."""
        session, token = self.session, self.token
        listener = session.listener
        if listener is None or token is None:
            return None
        if not wait_for_listeners(session.spark, session.listener_timeout_ms):
            return None
        collector = listener.collector(token)
        heard = collector.failed if failed else collector.executed
        return heard[0] if len(heard) == 1 else None

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
        self._rdd_jobs: RddJobRelay | None = None
        self.listener_timeout_ms = 10_000
        self.fast_wait_s = 0.25
        #: The readers of the session's Spark version (see ``_readers``), chosen once.
        self.readers: ClassicReaders = select_readers(self.spark_version)
        self._status = StatusReader(spark)  # for spark_jobDetails
        #: Called with each query that ran in an action, ``(function name, QueryExecution)``.
        self.on_query: Callable[[str, object], None] | None = None
        try:
            start_callback_server(spark)
            listener = WriteMetricsListener(spark._jvm)
            listener.on_query = self._query_executed
            listener.alive = self.running
            self._registration = ListenerRegistration(spark, listener)
            self.listener = listener
        except Exception as error:
            log.warning("openlineage: no write metrics listener, statistics left out: %s", error)

    def _query_executed(self, func_name: str, qe: Any) -> None:
        on_query = self.on_query
        if on_query is not None:
            on_query(func_name, qe)

    def running(self) -> bool:
        """Whether the session's driver still runs (PySpark drops its context when stopped).

        Returns:
            ``False`` once ``stop()`` began on the JVM's side or ended on Python's.
        """
        jsc = self.spark.sparkContext._jsc
        return jsc is not None and not jsc.sc().isStopped()

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
            return self.readers.writer_settings(writer._jwrite)
        return None, {}

    def writer_mode(self, writer: Any) -> str | None:
        jwrite = getattr(writer, "_jwrite", None)
        return self.readers.writer_mode(jwrite) if jwrite is not None else None

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
        return _ListenerWindow(self)

    # -- statements

    def command_window(self) -> CommandWindow:
        return _ListenerWindow(self)

    def plan_statement(self, text: str) -> DescribedCommand | None:
        """What a statement does, from its text before it runs (the session's analyzer)."""
        try:
            return plan_statement(
                self.spark, text, self.hive_metastore, self.readers, self.descriptions
            )
        except Exception as error:
            # Spark will report a statement that does not parse or analyze itself, as it is.
            log.debug("openlineage: the statement was not described: %s", error)
            return None

    def plan_executed(
        self,
        executed: object,
        execution: SparkExecution | None = None,
        *,
        ran: bool = False,
    ) -> DescribedCommand | None:
        """What the command of ``executed`` (a JVM ``QueryExecution``) did; ``None``: nothing.

        With ``execution``, the SQL text Spark parsed becomes its; a text that cannot be read
        is a problem of the execution's (its ``extractionError``), not a reason to leave the
        command out. ``ran``: ``executed`` ran the command (the listener's), whose plans Spark
        already optimized.
        """
        qe: Any = executed
        if execution is not None:
            try:
                execution.sql = sql_text(self.spark._jvm, qe.logical())
            except Exception as error:
                _note(execution.problems, "sql facet", error)
        try:
            return plan_executed(
                self.spark, qe, self.hive_metastore, self.readers, self.descriptions, ran=ran
            )
        except Exception as error:
            log.debug("openlineage: the statement was not described: %s", error)
            return None

    def executed_of(self, result: Any) -> object | None:
        if not hasattr(result, "_jdf"):
            return None
        return result._jdf.queryExecution()  # type: ignore[no-any-return]

    # -- reads that end in an action

    def listen_for_queries(self, on_query: Callable[[str, object], None] | None) -> None:
        self.on_query = on_query

    def listen_for_commands(
        self, on_command: Callable[[str, object, object, int, list[Any]], None] | None
    ) -> None:
        if self.listener is not None:
            self.listener.on_command = on_command

    def command_statistics(self, executed: object, parts: list[Any]) -> IoStats | None:
        """What a command Spark ran wrote (its write node's metrics, or those of the command it
        ran inside it: ``parts``), ``None``: nothing."""
        for qe in (executed, *parts):  # a CTAS's metrics are its own write's
            metrics = command_metrics(self.spark._jvm, qe)
            if metrics is not None:
                return metrics.output
        return None

    def query_reads(self, executed: object, execution: SparkExecution) -> bool:
        """What a query that ran in an action read, into ``execution``; ``False``: nothing stored.

        Queries that read no dataset (local relations, ``range``) and commands are not reads.
        """
        qe: Any = executed
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

    # -- RDD saves (``_rdd_lineage``)

    def owns_rdd(self, rdd: Any) -> bool:
        context = getattr(rdd, "ctx", None)
        return context is not None and self.spark.sparkContext is context

    def rdd_lineage(
        self,
        execution: SparkExecution,
        rdd: Any,
        method: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> None:
        """An RDD save's job name (the agent's for RDD jobs), its output folder and the inputs
        its lineage reads, into ``execution``."""
        jvm = self.spark._jvm
        source = _rdd_lineage.source_jrdd(rdd).rdd()  # the Scala RDD under PySpark's JavaRDD
        try:
            execution.name_job(_rdd_lineage.rdd_job_suffix(jvm, source))
        except Exception as error:
            _note(execution.problems, "job name", error)
            execution.name_job("rdd")
        path = _rdd_lineage.save_path(method, args, kwargs)
        if path is None:
            execution.problems.append(f"output: {method} was given no output path")
        else:
            try:
                execution.output = DatasetLineage(self.path_identity(path), "output")
            except Exception as error:
                _note(execution.problems, "output dataset", error)
        found = _rdd_lineage.rdd_inputs(jvm, source)
        execution.inputs = [DatasetLineage(identity, "input") for identity in found.identities]
        for problem in found.problems:
            execution.problems.append(problem)
            log.warning("openlineage: %s", problem)

    def debug_facts(self) -> dict[str, Any]:
        return {**super().debug_facts(), **_debug.driver_facts(self.spark)}

    def debug_memory(self) -> dict[str, Any] | None:
        return _debug.driver_memory(self.spark)

    def job_window(self) -> JobWindow:
        return TaggedJobs(self.spark, self._status) if self.job_details else JobWindow()

    def tag_jobs(self) -> str | None:
        """Tag the jobs this thread starts from now on, beside the user's own tags."""
        global _next_tag
        with _tag_lock:
            _next_tag += 1
            tag = f"{TAG_PREFIX}{_next_tag}"
        try:
            self.spark._jsc.addJobTag(tag)
        except Exception as error:  # a Spark without job tags: no statistics
            log.debug("openlineage: tagging the RDD's jobs failed: %s", error)
            return None
        return tag

    def tagged_job_statistics(self, tag: str, execution: SparkExecution) -> None:
        try:
            self.spark._jsc.removeJobTag(tag)
        except Exception as error:
            log.debug("openlineage: removing the job tag failed: %s", error)
        if execution.error is not None:
            return
        if not wait_for_listeners(self.spark, self.listener_timeout_ms):
            execution.problems.append("statistics: the listener bus did not drain in time")
            return
        stats = _rdd_lineage.job_stats(self.spark, tag)
        if stats is None:
            return
        _rdd_statistics(execution, stats)

    def listen_for_rdd_jobs(self, on_job: Callable[[object, str | None], None] | None) -> None:
        if self._rdd_jobs is not None:
            self._rdd_jobs.remove()
            self._rdd_jobs = None
        if on_job is None:
            return

        def heard(job: HeardRddJob) -> None:
            on_job(job, job.failure)

        try:
            self._rdd_jobs = RddJobRelay(self.spark, heard)
        except Exception as error:  # no Janino, or it could not compile: the rest still works
            log.warning(
                "openlineage: RDD jobs started from JVM code will not be reported: %s", error
            )

    def rdd_job_lineage(self, execution: SparkExecution, job: object) -> None:
        """A heard RDD job's job name (the agent's for RDD jobs: its final RDD and that RDD's
        dependencies), start, output folder, inputs and statistics, into ``execution``."""
        if not isinstance(job, HeardRddJob):
            raise TypeError(f"not an RDD job heard by this session: {job!r}")
        jvm = self.spark._jvm
        execution.job_type = "RDD_JOB"
        execution.started = job.began_ms / 1000.0
        try:
            execution.name_job(_rdd_lineage.final_rdd_name(jvm, job.final_rdd))
        except Exception as error:
            _note(execution.problems, "job name", error)
            execution.name_job(str(job.job_id))  # the agent's name for a job it cannot name
        try:
            execution.output = DatasetLineage(self.path_identity(job.output), "output")
        except Exception as error:
            _note(execution.problems, "output dataset", error)
        found = _rdd_lineage.rdd_inputs(jvm, job.final_rdd)
        execution.inputs = [DatasetLineage(identity, "input") for identity in found.identities]
        for problem in found.problems:
            execution.problems.append(problem)
            log.warning("openlineage: %s", problem)
        if job.failure is not None:
            return
        _rdd_statistics(execution, job.stats)  # as for a save the hook observed

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
        return stream_start(
            self.spark, writer, rows_observation, batch, self.readers.stream_writer_derived
        )

    def listen_to_streams(self, events: StreamEvents) -> Callable[[], None]:
        return listen_to_streams(self.spark, events)

    def stream_progress(self, query: Any) -> list[dict[str, Any]]:
        return recent_progress(query)

    # -- the session's life

    def drain(self) -> None:
        if self.listener is None:
            return
        try:
            if self.running():
                wait_for_listeners(self.spark, self.listener_timeout_ms)
            self.listener.release_held()  # nothing, once the session stopped
        except Exception as error:  # the session or its JVM is already gone
            log.debug("openlineage: draining the listener bus failed: %s", error)

    def close(self) -> None:
        self.drain()
        self.on_query = None
        if self.listener is not None:
            # Whatever the session still delivers to it, it reports nothing from now on, and
            # the held command's timer is cancelled: no thread calls into a stopping session.
            self.listener.shutdown()
            self.listener = None
        if self._rdd_jobs is not None:
            try:
                self._rdd_jobs.remove()
            except Exception as error:
                log.debug("openlineage: unregistering the RDD job listener failed: %s", error)
            self._rdd_jobs = None
        if self._registration is not None:
            try:
                self._registration.remove()
            except Exception as error:
                log.warning("openlineage: unregistering the listener failed: %s", error)
            self._registration = None


def _rdd_statistics(execution: SparkExecution, stats: _rdd_lineage.RddStats) -> None:
    """An RDD save's statistics into ``execution``: its output's, and its input's only when it
    read one dataset, as the JVM agent (with several, what each read is not known)."""
    if len(execution.inputs) == 1:
        execution.inputs[0].stats = IoStats(row_count=stats.input_records, size=stats.input_bytes)
    if execution.output is not None:
        execution.output.stats = IoStats(row_count=stats.output_records, size=stats.output_bytes)
