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
    SessionKind,
    SparkExecution,
)
from openlineage_sdk.spark._execution import note_problem as _note
from openlineage_sdk.spark._flow import Description
from openlineage_sdk.spark.describe._schema import schema_fields
from openlineage_sdk.spark.describe._streams import (
    StreamSink,
    StreamSource,
    kafka_namespace,
    kafka_source_schema,
    kafka_topics,
    sink_kind,
    source_kind,
)
from openlineage_sdk.spark.describe._tables import (
    Rows,
    TableInfo,
    describe_table,
    planned_table,
    table_identity,
)

__all__ = ["BatchFunction", "Session", "StreamEvents", "WriteStatistics", "session_kind"]

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
    ``func`` wrapped with :meth:`remote_payload` instead (see ``session.connect._streams``).
    """

    func: Callable[[Any, int], None]

    def __call__(self, df: Any, batch_id: int) -> None:
        """Run one batch."""

    def remote_payload(self) -> bytes | None:
        """What a Python worker elsewhere needs to report the batches (``None``: it cannot)."""


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
    """

    kind: SessionKind
    describes_writes_beside: bool = False
    descriptions: bool = False

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

    @abstractmethod
    def statement(
        self, text: str | None, execution: SparkExecution, call: Any = None
    ) -> Description:
        """How a SQL statement is described around its run (see ``_flow``).

        ``text`` is the statement as sent; ``call`` what the observer saw of it (the Connect
        ``SqlCommand``, or classic PySpark's bound call).
        """

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
