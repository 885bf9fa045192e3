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
from typing import Any, Literal

from openlineage_sdk.spark._execution import (
    CatalogInfo,
    DatasetIdentity,
    DatasetLineage,
    SessionKind,
    SparkExecution,
)
from openlineage_sdk.spark._flow import Description
from openlineage_sdk.spark.describe._tables import (
    Rows,
    TableInfo,
    describe_table,
    planned_table,
    table_identity,
)

__all__ = ["Session", "WriteStatistics", "session_kind"]

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

    def close(self) -> None:  # noqa: B027 - a session that registered nothing undoes nothing
        """Undo what the session registered for the adapter (listeners, wrappers)."""

    def drain(self) -> None:  # noqa: B027 - a session that reports nothing later waits for nothing
        """Wait (bounded) until what the session reports asynchronously has arrived."""
