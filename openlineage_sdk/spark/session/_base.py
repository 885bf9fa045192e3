"""What the adapter asks a Spark session, whatever its kind.

A classic session (``classic``: a JVM in this process, reached through py4j) and a Spark Connect
client (``connect``: a server reached through gRPC) answer the same questions in different ways;
:class:`Session` is the one interface the rest of the adapter uses, and each kind implements it
without knowing the other. What both answer the same way (the catalog through ``DESCRIBE``, the
session's confs) is here.
"""

from __future__ import annotations

import contextlib
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Literal, Protocol

from openlineage_sdk.spark._execution import (
    CatalogInfo,
    DatasetIdentity,
    DatasetLineage,
    IoStats,
    SessionKind,
    SparkExecution,
)
from openlineage_sdk.spark._execution import note_problem as _note
from openlineage_sdk.spark.describe._planned import DescribedCommand, PlannedCommand
from openlineage_sdk.spark.describe._schema import schema_fields
from openlineage_sdk.spark.describe._stream_datasets import (
    StreamSink,
    StreamSource,
    kafka_namespace,
    kafka_source_schema,
    kafka_topics,
    sink_kind,
    source_kind,
)
from openlineage_sdk.spark.describe._tables import (
    PlanReads,
    Rows,
    TableInfo,
    describe_table,
    planned_table,
    table_identity,
)

__all__ = [
    "BatchFunction",
    "CommandWindow",
    "JobWindow",
    "NotInThisKind",
    "ServerStatement",
    "Session",
    "StreamEvents",
    "WriteStatistics",
    "session_kind",
]

log = logging.getLogger("openlineage_sdk.spark")

# The confs that name the Hive metastore, in the order the JVM agent reads them.
_METASTORE_KEYS = (
    "spark.sql.hive.metastore.uris",
    "hive.metastore.uris",
    "spark.hadoop.hive.metastore.uris",
)


def session_kind(spark: Any) -> SessionKind:
    """Whether ``spark`` is a classic session or a Spark Connect one."""
    return "connect" if type(spark).__module__.startswith("pyspark.sql.connect") else "classic"


class WriteStatistics:
    """The statistics of one write, gathered around it: ``around()`` the call, ``collect`` after."""

    def around(self) -> contextlib.AbstractContextManager[Any]:
        """What runs around the write's call."""
        return contextlib.nullcontext()

    def collect(self, execution: SparkExecution, writes_data: bool) -> None:
        """Put what was gathered into the execution's datasets (``writes_data``: rows expected)."""

    def discard(self) -> None:
        """Stop gathering without reading (the write was not described)."""


class CommandWindow(WriteStatistics):
    """The commands one of the user's calls runs, as the session hears of them once they ran.

    A classic session's listener is handed each command's ``QueryExecution``, with its metrics,
    after the command ran (``begin`` opens the window before the call, ``close`` when the call
    returned); this window hears nothing: a Spark Connect client is told of no command.
    """

    def begin(self) -> None:
        """Open the window, before the call (again: no change)."""

    def close(self) -> None:
        """The call returned: every command it ran was posted to the listener by then."""

    def executed(self, failed: bool) -> object | None:
        """The command that ran in the window (``failed``: it failed), as Spark ran it: a handle
        for :meth:`Session.plan_executed`. ``None`` when the window heard not exactly one."""
        return None

    def heard(self, failed: bool) -> object | None:
        """As :meth:`executed`, once every event was delivered (the listener bus drained)."""
        return None


class JobWindow:
    """The Spark jobs one of the user's calls starts, for ``spark_jobDetails``.

    Open around the call (a context manager, on the calling thread); :meth:`details` after it.
    This window is told of no job: a Spark Connect client sees none of the server's.
    """

    def __enter__(self) -> None:
        """The call is about to run."""

    def __exit__(self, *exc: object) -> None:
        """The call returned or raised."""

    def details(self) -> dict[str, Any] | None:
        """``spark_jobDetails``'s fields for the call's last job; ``None``: it ran no job (that
        Spark's status store has heard of)."""
        return None


class ServerStatement(ABC):
    """A SQL statement a session asks its server about, step by step (Spark Connect).

    The statement's execution (``executions``) decides when each step runs; the session reads.

    Attributes:
        text: The statement's SQL text, as sent.
        planned: The command as far as :meth:`explain` read it (kept when a later step of it
            raised).
    """

    text: str
    planned: PlannedCommand | None = None

    @abstractmethod
    def explain(self, execution: SparkExecution) -> PlannedCommand | None:
        """Which command the statement runs, asked before it runs; the job is named by it.

        ``None`` when it is not asked (the execution notes why): a statement that reads files by
        path, or whose explanation failed.
        """

    @abstractmethod
    def look_up(
        self,
        planned: PlannedCommand,
        execution: SparkExecution,
        *,
        before: bool,
        target: Callable[[], TableInfo | None] | None = None,
    ) -> None:
        """Its inputs, from the catalog (and, ``before``, its output, as it is before it runs;
        ``target``: the target's entry asked for beside, waited for when needed)."""

    @abstractmethod
    def target(self, planned: PlannedCommand) -> TableInfo | None:
        """What the catalog says of an ``INSERT``'s target table (``None``: nothing usable)."""

    @abstractmethod
    def describe(
        self,
        planned: PlannedCommand,
        execution: SparkExecution,
        *,
        before: bool,
        target: Callable[[], TableInfo | None] | None = None,
    ) -> None:
        """Its output and job name, from the catalog (``before`` or after it ran; ``target``: the
        target's entry asked for beside the run, when it holds)."""


class NotInThisKind(NotImplementedError):  # noqa: N818 - it says what the answer is
    """The question has no answer in this kind of session.

    A classic session has no Spark Connect client plan or server to ask; a Spark Connect client
    has no RDDs and hears no ``QueryExecution``. The observers that ask are hooked only on the
    kind that answers.
    """


class StreamEvents(Protocol):
    """What a session's streaming listener hands over, whatever the kind of session."""

    def progress(self, progress: dict[str, Any]) -> None:
        """A micro-batch's progress report, as Spark writes it in JSON."""

    def terminated(self, run_id: str, error: str | None) -> None:
        """A query ended (``run_id`` is Spark's run id of the query), with its error if it failed."""


class BatchFunction(Protocol):
    """A ``foreachBatch`` function wrapped so that each batch's writes belong to the stream's run.

    Called in this process (classic PySpark: Spark calls back into the driver's Python), it runs
    the user's function with the stream's run as the parent of what the batch writes. Under
    Spark Connect the user's function runs in a Python worker on the server: the session sends
    :meth:`remote_command` instead of the user's function.
    """

    func: Callable[[Any, int], None]

    def __call__(self, df: Any, batch_id: int) -> None:
        """Run one batch."""

    def remote_command(self) -> bytes | None:
        """The function a server's Python worker runs instead of ``func``, pickled as the
        Connect client sends one (``None``: the batches cannot be reported there)."""


class Session(ABC):
    """One Spark session, as the adapter asks it things.

    Attributes:
        spark: The session itself.
        kind: ``classic`` or ``connect``.
        app_name: ``spark.app.name`` (``spark`` when unreadable).
        spark_version: Spark's version (``None`` when unreadable).
        hive_metastore: The Hive metastore URIs, for a Hive session catalog.
        describes_writes_beside: Whether a write's inputs are described on a thread beside the
            write (classic) rather than before it (Connect, whose server would analyse the
            DataFrame's plan twice if both were sent at once).
        descriptions: Whether column lineage carries Spark's SQL text of each transformation
            (``columnLineage.descriptionsEnabled``; classic sessions only).
        job_details: Whether each call's Spark jobs are read for ``spark_jobDetails`` (unless
            that facet is disabled; a session that sees no job reads none).
    """

    kind: SessionKind
    describes_writes_beside: bool = False
    descriptions: bool = False
    job_details: bool = False

    def __init__(self, spark: Any) -> None:
        self.spark = spark
        self.hive_metastore: str | None = None
        self._catalog: CatalogInfo | Literal[False] | None = None  # False: not a Hive catalog
        try:
            self.app_name = spark.conf.get("spark.app.name", "spark") or "spark"
            self.spark_version: str | None = str(spark.version)
        except Exception as error:
            log.warning("openlineage: reading the session configuration failed: %s", error)
            self.app_name, self.spark_version = "spark", None
        try:
            if spark.conf.get("spark.sql.catalogImplementation", "in-memory") == "hive":
                # Where the JVM agent looks, in its order: a Hive table's symlink names this.
                for key in _METASTORE_KEYS:
                    self.hive_metastore = spark.conf.get(key, None) or None
                    if self.hive_metastore is not None:
                        break
        except Exception as error:
            log.warning("openlineage: reading the session configuration failed: %s", error)

    # -- the catalog (the same SQL in both kinds)

    def catalog_info(self) -> CatalogInfo | None:
        """The session catalog as the ``catalog`` facet describes it, for Hive sessions."""
        if self._catalog is not None:
            return self._catalog or None
        try:
            conf = self.spark.conf
            if conf.get("spark.sql.catalogImplementation", "in-memory") != "hive":
                self._catalog = False
                return None
            warehouse = conf.get("spark.sql.warehouse.dir", None)
            uri = self.qualify(warehouse).rstrip("/") if warehouse else None
            self._catalog = CatalogInfo("hive", "hive", "spark_catalog", uri)
        except Exception as error:
            log.debug("openlineage: reading the catalog failed: %s", error)
            self._catalog = False
        return self._catalog or None

    def describe_table(
        self, name: str, *, exists: bool = False, with_schema: bool = False
    ) -> TableInfo | None:
        """The catalog's record of table ``name`` (see :func:`describe._tables.describe_table`)."""
        rows = self.statement_rows()
        if rows is None:
            return describe_table(self.spark, name, exists=exists, with_schema=with_schema)
        return describe_table(self.spark, name, exists=exists, with_schema=with_schema, rows=rows)

    def self_described(
        self, name: str, info: TableInfo, role: Literal["input", "output"]
    ) -> DatasetLineage | None:
        """A v2 catalog's table that describes itself by ``openlineage.dataset.*`` properties.

        ``None`` for a table of the session catalog (one request less) or one whose properties
        say nothing; the properties come from ``SHOW TBLPROPERTIES`` (no job). A table whose
        query names several tables is the first of them here, the rest noted as a problem.
        """
        if info.catalog is None:
            return None
        from openlineage_sdk.spark.describe._tables import command_rows, quote_name
        from openlineage_sdk.spark.describe._v2 import described_by_properties

        rows = command_rows(self.spark.sql(f"SHOW TBLPROPERTIES {quote_name(name)}"))
        properties = {str(row[0]): str(row[1]) for row in rows}
        described = described_by_properties(properties, info.schema)
        if described is None or not described.identities:
            return None
        identity = described.identities[0]
        key = (identity.namespace, identity.name)
        schema = described.schemas.get(key, info.schema)
        if key not in described.schemas and schema is None:
            schema = schema_fields(self.table_schema(name))  # from the catalog: no data read
        dataset = DatasetLineage(identity, role, schema)
        dataset.facets = dict(described.facets)
        dataset.problems.extend(described.problems)
        if len(described.identities) > 1:
            dataset.problems.append(
                f"table {name}: its query reads {len(described.identities)} tables, the first "
                "is reported"
            )
        return dataset

    def planned_table(self, name: str, path: str | None = None) -> TableInfo:
        """Where a table about to be created will live (``path``: its location, if given)."""
        return planned_table(self.spark, name, self.qualify(path) if path is not None else None)

    def statement_rows(self) -> Rows | None:
        """How :meth:`describe_table` sends its ``DESCRIBE`` statements; ``None``: ``spark.sql``."""
        return None

    def table_identity(self, info: TableInfo) -> DatasetIdentity:
        """A catalog table's dataset identity, with the symlink to its name."""
        return table_identity(info, self.hive_metastore)

    def table_schema(self, name: str) -> Any:
        """The schema of table ``name``, from the catalog (no data is read)."""
        return self.frame_schema(self.spark.table(name))

    def path_identity(self, path: str) -> DatasetIdentity:
        """The dataset at a path a user gave."""
        return DatasetIdentity.from_uri(self.qualify(path))

    def derby_home(self) -> str | None:
        """``derby.system.home`` of the driver, where its embedded Derby keeps databases.

        Read from ``spark.driver.extraJavaOptions`` (``-Dderby.system.home=...``); ``None``
        when it is not set there (then the driver's working folder).
        """
        try:
            options = str(self.spark.conf.get("spark.driver.extraJavaOptions", "") or "")
        except Exception as error:
            log.debug("openlineage: reading the driver's Java options failed: %s", error)
            return None
        for word in options.split():
            if word.startswith("-Dderby.system.home="):
                return word.split("=", 1)[1]
        return None

    def default_format(self) -> str:
        """The session's default data source (``spark.sql.sources.default``)."""
        return str(self.spark.conf.get("spark.sql.sources.default", "parquet"))

    # -- what each kind answers its own way

    @abstractmethod
    def qualify(self, path: str) -> str:
        """The location of a path the user gave, as a URI for the naming module."""

    def frame_schema(self, df: Any) -> Any:
        """``df.schema``."""
        return df.schema

    @abstractmethod
    def writer_frame(self, writer: Any) -> Any:
        """The DataFrame a writer writes."""

    @abstractmethod
    def writer_settings(self, writer: Any) -> tuple[str | None, dict[str, str]]:
        """A writer's ``(source, options)``."""

    @abstractmethod
    def writer_mode(self, writer: Any) -> str | None:
        """A writer's save mode, in lower case, when it has one."""

    def writer_table(self, writer: Any) -> str | None:
        """A ``DataFrameWriterV2``'s table."""
        return getattr(writer, "_table_name", None) or getattr(writer, "_openlineage_table", None)

    @abstractmethod
    def frame_lineage(
        self,
        df: Any,
        execution: SparkExecution,
        output: DatasetLineage | None,
        output_names: list[str] | None = None,
    ) -> None:
        """What ``df`` reads (its inputs, with schemas) and the output's column lineage.

        Filled into ``execution.inputs`` and ``output.column_lineage``; a part that cannot be
        learned becomes a problem of the execution.
        """

    @abstractmethod
    def write_statistics(self, writer: Any, execution: SparkExecution) -> WriteStatistics:
        """What gathers a write's statistics."""

    # -- statements: what each kind reads of a SQL command (the executions decide when)

    def command_window(self) -> CommandWindow:
        """The window on the commands one call of the user's runs (see :class:`CommandWindow`)."""
        return CommandWindow()

    def plan_statement(self, text: str) -> DescribedCommand | None:
        """What statement ``text`` will do, from the session's analyzer, without running it.

        ``None`` for a statement that touches no dataset, or that does not parse or analyze
        (Spark reports that itself).
        """
        raise NotInThisKind(f"a {self.kind} session does not analyze statements itself")

    def plan_executed(
        self,
        executed: object,
        execution: SparkExecution | None = None,
        *,
        ran: bool = False,
    ) -> DescribedCommand | None:
        """What the command Spark ran (``executed``: a handle a :class:`CommandWindow` or
        :meth:`executed_of` gave) does; its SQL text becomes ``execution``'s. ``ran``: Spark
        already optimized it. ``None`` as for :meth:`plan_statement`."""
        raise NotInThisKind(f"a {self.kind} session hears no command Spark ran")

    def executed_of(self, result: Any) -> object | None:
        """The command a call's result was run by (classic ``spark.sql``'s DataFrame), if any."""
        return None

    def server_statement(self, text: str, command: Any) -> ServerStatement:
        """The server's answers about a SQL ``command`` of the client's (``text``: its SQL)."""
        raise NotInThisKind(f"a {self.kind} session has no server to ask about a statement")

    def command_sql(self, command: Any) -> str | None:
        """The SQL text of a client command (a Connect ``SqlCommand``), ``None`` for another."""
        raise NotInThisKind(f"a {self.kind} session sends no client commands")

    def remember_command(self, command: Any) -> None:
        """Keep what a client command names that later plans refer to (a view's JDBC reads)."""
        raise NotInThisKind(f"a {self.kind} session sends no client commands")

    def merge_command(self, command: Any) -> DescribedCommand:
        """What a client's ``MERGE`` command (``DataFrame.mergeInto(...).merge()``) does."""
        raise NotInThisKind(f"a {self.kind} session sends no client commands")

    # -- reads that end in an action

    def listen_for_queries(self, on_query: Callable[[str, object], None] | None) -> None:
        """Have ``on_query(function name, executed)`` called with each query an action ran."""
        raise NotInThisKind(f"a {self.kind} session hears no query Spark ran")

    def query_reads(self, executed: object, execution: SparkExecution) -> bool:
        """What a query an action ran read, into ``execution``; ``False``: nothing stored."""
        raise NotInThisKind(f"a {self.kind} session hears no query Spark ran")

    # -- commands started from JVM code (no call of the user's observed them)

    def listen_for_commands(
        self, on_command: Callable[[str, object, object, int, list[Any]], None] | None
    ) -> None:
        """Have ``on_command(function name, executed, failure or None, began ms, the commands it
        ran inside it)`` called with each
        command Spark ran that no observed call of the user's could have run."""
        raise NotInThisKind(f"a {self.kind} session hears no command Spark ran")

    def command_statistics(self, executed: object, parts: list[Any]) -> IoStats | None:
        """What a command Spark ran wrote, ``None``: nothing (or not known)."""
        raise NotInThisKind(f"a {self.kind} session hears no command Spark ran")

    def action_reads(self, plan: Any, execution: SparkExecution) -> bool:
        """What an action's client plan reads, into ``execution``; ``False``: no dataset."""
        raise NotInThisKind(f"a {self.kind} session runs no client plans")

    # -- RDD saves

    def owns_rdd(self, rdd: Any) -> bool:
        """Whether ``rdd`` belongs to this session's SparkContext."""
        return False

    def rdd_lineage(
        self,
        execution: SparkExecution,
        rdd: Any,
        method: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> None:
        """An RDD save's job name, output folder and inputs, into ``execution``."""
        raise NotInThisKind(f"a {self.kind} session has no RDDs")

    def debug_facts(self) -> dict[str, Any]:
        """What the ``debug`` facet says of the driver that does not change while it runs:
        ``classpath``, ``system``, ``config`` (those this kind of session can see)."""
        import platform

        import pyspark

        facts: dict[str, Any] = {
            "python": {
                "version": platform.python_version(),
                "implementation": platform.python_implementation(),
                "pysparkVersion": pyspark.__version__,
                "sessionKind": self.kind,
            }
        }
        if self.spark_version:
            facts["classpath"] = {"sparkVersion": self.spark_version}
        return facts

    def debug_memory(self) -> dict[str, Any] | None:
        """The driver's memory now, for the ``debug`` facet; ``None``: not seen from here."""
        return None

    def job_window(self) -> JobWindow:
        """The jobs the next call on this thread starts (see :class:`JobWindow`)."""
        return JobWindow()

    def tag_jobs(self) -> str | None:
        """Tag the Spark jobs this thread starts from now on; the tag (``None``: cannot)."""
        raise NotInThisKind(f"a {self.kind} session has no RDDs")

    def tagged_job_statistics(self, tag: str, execution: SparkExecution) -> None:
        """Untag, and put the statistics of the jobs tagged ``tag`` into ``execution``'s
        datasets (unless it failed)."""
        raise NotInThisKind(f"a {self.kind} session has no RDDs")

    def listen_for_rdd_jobs(self, on_job: Callable[[object, str | None], None] | None) -> None:
        """Have ``on_job(job, failure message or None)`` called with each RDD job that wrote
        files and that neither a SQL execution nor an observed save ran: one started from JVM
        code. ``None``: stop listening."""
        raise NotInThisKind(f"a {self.kind} session has no RDDs")

    def rdd_job_lineage(self, execution: SparkExecution, job: object) -> None:
        """A heard RDD job's (see :meth:`listen_for_rdd_jobs`) job name, start, output, inputs
        and statistics, into ``execution``."""
        raise NotInThisKind(f"a {self.kind} session has no RDDs")

    # -- declarative pipelines: what the client registered

    def relation_reads(
        self, relation: Any, problems: list[str]
    ) -> tuple[list[StreamSource], PlanReads]:
        """What a client plan relation reads: its streaming sources, its static reads."""
        raise NotInThisKind(f"a {self.kind} session has no client plans")

    def relation_streams(self, relation: Any) -> bool:
        """Whether a client plan relation reads a stream."""
        raise NotInThisKind(f"a {self.kind} session has no client plans")

    def resolve_reads(self, reads: PlanReads, problems: list[str]) -> list[DatasetLineage]:
        """The datasets of what a plan reads by name: files, tables, JDBC tables, topics."""
        raise NotInThisKind(f"a {self.kind} session has no client plans")

    def query_inputs(self, query: str, problems: list[str]) -> list[DatasetLineage]:
        """What a SQL query reads, from the session's analysis of it (no job)."""
        raise NotInThisKind(f"a {self.kind} session has no server to ask about a query")

    # -- streams (Structured Streaming), what each kind reads its own way

    @abstractmethod
    def stream_frame(self, writer: Any) -> Any:
        """The streaming DataFrame a ``DataStreamWriter`` writes."""

    @abstractmethod
    def stream_sink(self, writer: Any, path: str | None, table: str | None) -> StreamSink:
        """The sink a ``DataStreamWriter`` will start (``path`` and ``table``: what ``start`` and
        ``toTable`` were given)."""

    @abstractmethod
    def stream_sources(
        self, df: Any, problems: list[str]
    ) -> tuple[list[StreamSource], list[DatasetLineage]]:
        """The streaming sources of ``df``, and the static datasets it reads beside them."""

    def stream_schema(self, df: Any, sources: list[StreamSource]) -> Any:
        """The columns ``df`` writes, when known without a Spark job (``None`` otherwise)."""
        return self.frame_schema(df)

    @abstractmethod
    def stream_start(
        self, writer: Any, rows_observation: str | None, batch: BatchFunction | None
    ) -> contextlib.AbstractContextManager[Any]:
        """What ``start`` runs in: the writer counting its rows in the observation named
        ``rows_observation`` and calling ``batch`` instead of the user's ``foreachBatch``
        function; the writer is as the user left it afterwards."""

    @abstractmethod
    def listen_to_streams(self, events: StreamEvents) -> Callable[[], None]:
        """Register a streaming listener handing its events to ``events``; returns its remover."""

    @abstractmethod
    def stream_progress(self, query: Any) -> list[dict[str, Any]]:
        """The progress reports ``query`` still holds (``recentProgress``), as JSON read."""

    def stream_run_id(self, query: Any) -> str:
        """Spark's run id of a ``StreamingQuery``."""
        return str(query.runId)

    # -- streams, what both kinds answer the same way

    def source_datasets(self, source: StreamSource, problems: list[str]) -> list[DatasetLineage]:
        """The datasets a streaming source reads (none for ``rate``, ``memory`` ...).

        A Kafka source that names no topic (``subscribePattern``) has none yet: its topics come
        with the micro-batches' offsets.
        """
        kind = source_kind(source)
        if kind == "none":
            return []
        if kind == "table":
            assert source.table is not None
            return [self._stream_table(source.table, "input", source.schema)]
        if kind == "file":
            paths = list(source.paths) or [source.options["path"]]
            return [
                DatasetLineage(self.path_identity(path), "input", source.schema) for path in paths
            ]
        if kind == "kafka":
            namespace = kafka_namespace(source.options)
            if namespace is None:
                problems.append("input: a Kafka source without kafka.bootstrap.servers")
                return []
            schema = source.schema or kafka_source_schema(source.options)
            return [
                DatasetLineage(DatasetIdentity(namespace, topic), "input", schema)
                for topic in kafka_topics(source.options) or []
            ]
        problems.append(f"input: the streaming source {source.format} names no dataset")
        return []

    def sink_dataset(self, sink: StreamSink, problems: list[str]) -> DatasetLineage | None:
        """The dataset a stream's sink writes (``None`` for ``foreachBatch``, memory, console...)."""
        kind = sink_kind(sink)
        if kind == "file":
            path = sink.path or sink.options["path"]
            return DatasetLineage(self.path_identity(path), "output")
        if kind == "table":
            assert sink.table is not None
            return self._stream_table(sink.table, "output", None, sink.options.get("path"))
        if kind == "kafka":
            namespace = kafka_namespace(sink.options)
            topics = kafka_topics(sink.options, sink=True)
            if namespace is None or not topics:
                problems.append(
                    "output: a Kafka sink without kafka.bootstrap.servers or a topic option "
                    "(the rows' own topic column is not known before they are written)"
                )
                return None
            return DatasetLineage(DatasetIdentity(namespace, topics[0]), "output")
        if kind == "unknown":
            problems.append(f"output: the streaming sink {sink.format} names no dataset")
        return None

    def _stream_table(
        self,
        name: str,
        role: Literal["input", "output"],
        schema: list[Any] | None,
        path: str | None = None,
    ) -> DatasetLineage:
        info = self.describe_table(name, with_schema=True)
        if info is None or info.location is None:
            # toTable creates a table that is not there yet, where the session catalog puts it.
            info = self.planned_table(name, path)
        dataset = DatasetLineage(self.table_identity(info), role)
        if role == "input":
            try:
                dataset.schema = info.schema or schema or schema_fields(self.table_schema(name))
            except Exception as error:
                _note(dataset.problems, f"input table {name}: schema", error)
        return dataset

    def close(self) -> None:  # noqa: B027 - a session that registered nothing undoes nothing
        """Undo what the session registered for the adapter (listeners, wrappers)."""

    def drain(self) -> None:  # noqa: B027 - a session that reports nothing later waits for nothing
        """Wait (bounded) until what the session reports asynchronously has arrived."""
