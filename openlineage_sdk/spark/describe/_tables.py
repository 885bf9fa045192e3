"""Catalog tables: where a table lives, and its dataset identity with the symlink to its name.

The JVM agent names a catalog table by its storage location (the files are the dataset) and adds
a ``TABLE`` symlink carrying the table's name: in a Hive metastore ``hive://{host}:{port}`` and
``{db}.{table}``, in AWS Glue's Data Catalog its ARN and ``table/{db}/{table}``, in Databricks'
Unity Catalog ``unity-catalog`` and ``{catalog}.{db}.{table}``, otherwise the warehouse location
and ``{db}.{table}``. This module does the same.

Locations come from ``DESCRIBE TABLE EXTENDED`` (or ``DESCRIBE DATABASE EXTENDED`` for a table a
write is about to create), which the driver answers from the catalog alone: no Spark job, and the
same SQL in classic PySpark and under Spark Connect. A :class:`TableInfo` holds its location as a
URI whose path is percent-encoded, so a ``#``, ``?`` or ``%`` in a folder's name stays in the
dataset's name: ``DESCRIBE TABLE`` shows a table's location as a Hadoop path (not encoded), which
is encoded here; ``DESCRIBE DATABASE`` shows a database's location as a URI already.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import json
import logging
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from openlineage_sdk.models.records import SchemaDatasetFacetFields
from openlineage_sdk.spark._execution import DatasetIdentity, Symlink
from openlineage_sdk.spark.describe._naming import encode_path, hadoop_location_uri
from openlineage_sdk.spark.describe._schema import described_fields
from openlineage_sdk.spark.platforms import UNITY_CATALOG_NAMESPACE, glue_table_name

log = logging.getLogger("openlineage_sdk.spark")

# The namespace of a Glue Data Catalog's tables begins so (see ``platforms._glue``).
_GLUE_ARN = "arn:aws:glue:"

__all__ = [
    "PlanReads",
    "Rows",
    "TableInfo",
    "command_rows",
    "describe_table",
    "metastore_namespace",
    "planned_table",
    "quote_name",
    "relation_rows",
    "table_identity",
]


@dataclass(frozen=True)
class TableInfo:
    """What the catalog says about a table; ``location`` is a URI, its path percent-encoded.

    ``schema``, when the catalog's answer held it, is the table's schema as the schema facet's
    fields (see :func:`describe_table`).
    """

    database: str | None
    table: str
    location: str | None
    schema: list[SchemaDatasetFacetFields] | None = field(default=None, compare=False, repr=False)
    provider: str | None = field(default=None, compare=False)
    """The table's data source (``parquet``, ``hive`` for a Hive SerDe table...), when known."""
    catalog: str | None = field(default=None, compare=False)
    """The v2 catalog the table is in, when not the session catalog (``DESCRIBE``'s Catalog)."""

    @property
    def qualified_name(self) -> str:
        """``{db}.{table}``, the name the JVM agent puts in the table symlink."""
        return f"{self.database}.{self.table}" if self.database else self.table


@dataclass
class PlanReads:
    """What a plan reads, by name, as a session found it before asking the catalog.

    Attributes:
        paths: The folders and files it reads by path.
        declared: By path, the schema the user gave the read (a DDL string).
        tables: The catalog tables it reads by name.
        jdbc: Each JDBC read's options, with the session's reading of its relation.
        sql: The queries of SQL relations in it (what they read is asked of the session).
        kafka: Each Kafka read's options.
        extensions: The type URLs of server plugins' relations in it (what they read is asked
            of the server's explanation, where it can give one).
        problems: What could not be told.
    """

    paths: list[str] = field(default_factory=list)
    declared: dict[str, str] = field(default_factory=dict)
    tables: list[str] = field(default_factory=list)
    jdbc: list[tuple[dict[str, str], Any]] = field(default_factory=list)
    sql: list[str] = field(default_factory=list)
    kafka: list[dict[str, str]] = field(default_factory=list)
    extensions: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def command_rows(frame: Any) -> list[tuple[Any, ...]]:
    """The rows of the result of a command run through ``spark.sql`` (``DESCRIBE``).

    Under Spark Connect the server runs a command when it is sent and answers with its result
    (see :func:`relation_rows`): the rows are read from there, which saves the second round
    trip ``collect()`` would make. Any other frame is collected.
    """
    if type(frame).__module__.startswith("pyspark.sql.connect."):
        rows = relation_rows(getattr(getattr(frame, "_plan", None), "_plan", None))
        if rows is not None:
            return rows
    return [tuple(row) for row in frame.collect()]


def relation_rows(relation: Any) -> list[tuple[Any, ...]] | None:
    """The rows a Spark Connect relation holds, when it is a local relation with its data.

    That is how the server answers a command (``DESCRIBE``, ``EXPLAIN``) with a small result:
    inline, as an Arrow IPC stream. ``None`` for any other relation.
    """
    which = getattr(relation, "WhichOneof", None)
    if which is None or which("rel_type") != "local_relation":
        return None
    local = relation.local_relation
    if not local.HasField("data"):
        return None
    pa: Any = importlib.import_module("pyarrow")
    with pa.ipc.open_stream(local.data) as reader:
        table = reader.read_all()
    return list(zip(*(column.to_pylist() for column in table.columns), strict=True))


Rows = Callable[[str], list[tuple[Any, ...]]]
"""Runs a statement (a ``DESCRIBE``) and returns its rows."""


def _sql_rows(spark: Any) -> Rows:
    """The rows of a statement run through ``spark.sql``."""
    return lambda statement: command_rows(spark.sql(statement))


def _rows(run: Rows, statement: str, after: str | None = None) -> dict[str, str]:
    """The name and value rows of a ``DESCRIBE`` statement.

    With ``after``, only the rows that follow the row of that name: ``DESCRIBE TABLE`` lists the
    table's columns first, and a column may be called ``Location`` or ``Database``.
    """
    result: dict[str, str] = {}
    started = after is None
    for row in run(statement):
        key = (row[0] or "").strip()
        if not started:
            started = key == after
        elif key and key not in result:
            result[key] = (row[1] or "").strip()
    return result


# One part of a possibly qualified name: quoted in backticks (which may hold dots), or not.
_NAME_PART = re.compile(r"`(?:[^`]|``)*`|[^.]+")


def name_parts(name: str) -> list[str]:
    """The parts of a possibly qualified table name, unquoted: ```a.b`.c`` is ``["a.b", "c"]``."""
    return [p.strip("`") for p in _NAME_PART.findall(name)]


def quote_name(name: str) -> str:
    """A possibly qualified name with each part quoted in backticks."""
    return _quote(name)


def _quote(name: str) -> str:
    """Quote each part of a possibly qualified name that is not already quoted."""
    parts = _NAME_PART.findall(name)
    return ".".join(p if p.startswith("`") else f"`{p}`" for p in parts)


def describe_table(
    spark: Any,
    name: str,
    *,
    exists: bool = False,
    with_schema: bool = False,
    rows: Rows | None = None,
) -> TableInfo | None:
    """The catalog's record of table ``name``, or ``None`` when there is no such table.

    With ``exists``, the caller knows the table is there (a statement's analysed plan reads or
    writes it), and the catalog is not asked first: one request less under Spark Connect.

    With ``with_schema``, the record also holds the table's schema when one answer can give both:
    ``DESCRIBE TABLE EXTENDED ... AS JSON`` (Spark 4 and later) holds the location and the
    columns, which saves Spark Connect clients the request for the table's schema. A session
    whose Spark refuses it gets the plain ``DESCRIBE``; then, or when a column's type is one
    :func:`described_fields` does not translate, ``schema`` is ``None`` and the caller reads the
    schema itself.

    ``rows`` runs the ``DESCRIBE`` statements (default: through ``spark.sql``).
    """
    if not exists and not spark.catalog.tableExists(name):
        return None
    run = rows if rows is not None else _sql_rows(spark)
    if with_schema:
        described = _described_as_json(spark, name, run)
        if described is not None:
            return described
    info = _rows(run, f"DESCRIBE TABLE EXTENDED {_quote(name)}", "# Detailed Table Information")
    table = info.get("Table") or _NAME_PART.findall(name)[-1].strip("`")
    location = info.get("Location") or None
    catalog = info.get("Catalog") or None
    database = info.get("Namespace") or info.get("Database") or None
    # A v2 table described without AS JSON (Spark 4.1 refuses it for v2 tables; 3.5 has none)
    # has its catalog and namespace only in its full name: "Name  rl.default.orders".
    parts = [part.strip("`") for part in _NAME_PART.findall(info.get("Name") or "")]
    if catalog is None and len(parts) >= 3:
        catalog = parts[0]
        database = database or ".".join(parts[1:-1])
    return TableInfo(
        database=database,
        table=table,
        location=hadoop_location_uri(location) if location is not None else None,
        provider=info.get("Provider") or None,
        catalog=catalog if catalog != "spark_catalog" else None,
    )


# What each session's Spark refused to describe ``AS JSON``: ``None`` for every table (a Spark
# before 4 cannot parse it), else the tables refused (a catalog that cannot describe them so).
# Neither is asked again.
_REFUSED: weakref.WeakKeyDictionary[Any, set[str] | None] = weakref.WeakKeyDictionary()


def _described_as_json(spark: Any, name: str, run: Rows) -> TableInfo | None:
    """``describe_table`` from ``DESCRIBE TABLE EXTENDED ... AS JSON``; ``None`` if not told."""
    try:
        refused = _REFUSED.get(spark, set())
    except TypeError:  # a session that cannot be referred to weakly: asked each time
        refused = set()
    if refused is None or name in refused:
        return None
    try:
        rows = run(f"DESCRIBE TABLE EXTENDED {_quote(name)} AS JSON")
    except Exception as error:
        log.debug("openlineage: DESCRIBE ... AS JSON of %s failed: %s", name, error)
        unparsed = type(error).__name__ == "ParseException" or "PARSE_SYNTAX_ERROR" in str(error)
        with contextlib.suppress(TypeError):
            _REFUSED[spark] = None if unparsed else {*refused, name}
        return None
    try:
        described = json.loads(rows[0][0])
        if described.get("catalog_name") == "system":  # a temporary view: no table
            return None
        location = described.get("location") or None
        info = TableInfo(
            database=described.get("schema_name") or None,
            table=described["table_name"],
            location=hadoop_location_uri(location) if location is not None else None,
            provider=described.get("provider") or None,
        )
    except Exception as error:  # an answer of another shape
        log.debug("openlineage: DESCRIBE ... AS JSON of %s not read: %s", name, error)
        return None
    try:
        return dataclasses.replace(info, schema=described_fields(described["columns"]))
    except Exception as error:  # a column type not translated: the location still holds
        log.debug("openlineage: the columns of %s are read apart: %s", name, error)
        return info


def planned_table(spark: Any, name: str, path: str | None = None) -> TableInfo:
    """Where a table a write is about to create will live.

    A table given a ``path`` (a location URI) is external and lives there; a managed table lives
    under its database's location, in a folder named after the table in lower case, as Spark's
    session catalog places it.
    """
    parts = name_parts(name)
    table = parts[-1]
    database = parts[-2] if len(parts) >= 2 else spark.catalog.currentDatabase()
    if str(spark.conf.get("spark.sql.caseSensitive", "false")).lower() != "true":
        # The session catalog stores names in lower case unless told to respect case.
        table, database = table.lower(), database.lower()
    if path is not None:
        return TableInfo(database, table, path)
    db_info = _rows(_sql_rows(spark), f"DESCRIBE DATABASE EXTENDED {_quote(database)}")
    root = db_info.get("Location")
    location = f"{root.rstrip('/')}/{encode_path(table.lower())}" if root else None
    return TableInfo(database, table, location)


def table_identity(info: TableInfo, hive_metastore: str | None = None) -> DatasetIdentity:
    """The dataset identity of a catalog table: its location, with a symlink to its name.

    ``hive_metastore`` says how the session names its catalog's tables (the session's
    ``hive_metastore``, set from the platform when it names them: see ``spark.platforms``), as the
    JVM agent's ``PathUtils`` does:

    * a Glue Data Catalog's ARN (``arn:aws:glue:{region}:{catalog id}``): the symlink is
      ``table/{db}/{table}`` in that namespace;
    * ``unity-catalog`` (Databricks with Unity Catalog): ``{catalog}.{db}.{table}`` in the
      namespace ``unity-catalog``, for a v2 catalog's table too; a session catalog table's
      catalog is ``spark_catalog``, as Spark's table identifier names it;
    * Hive metastore URIs (``hive.metastore.uris``: ``thrift://host:port``, or a list of them of
      which the first is taken): the table's ``{db}.{table}`` in the namespace
      ``hive://{authority}``, the metastore URI's authority as it is written, whatever its
      scheme: that is how the JVM agent names it (the naming conventions would add Hive's
      default port 9083 to a URI without one, and lower-case the host). A table without a
      database has no such name, and no symlink;
    * nothing: the table's name in the folder holding its folder (the warehouse).
    """
    if info.location is None:
        raise ValueError(f"table {info.qualified_name} has no location")
    if hive_metastore == UNITY_CATALOG_NAMESPACE:
        name = ".".join(
            p for p in (info.catalog or "spark_catalog", info.database, info.table) if p
        )
        return DatasetIdentity.from_uri(
            info.location, symlinks=(Symlink(UNITY_CATALOG_NAMESPACE, name),)
        )
    if info.catalog is not None:
        # A v2 catalog's table: named as its catalog places it (see ``describe._v2``).
        from openlineage_sdk.spark.describe._v2 import v2_table_identity

        namespace = info.database.split(".") if info.database else []
        return v2_table_identity(info.location, namespace, info.table)
    symlinks: tuple[Symlink, ...] = ()
    if hive_metastore and hive_metastore.startswith(_GLUE_ARN):
        symlinks = (Symlink(hive_metastore, glue_table_name(info.database, info.table)),)
    elif not hive_metastore:
        symlinks = (Symlink(_warehouse_namespace(info.location), info.qualified_name),)
    elif info.database:
        symlinks = (Symlink(metastore_namespace(hive_metastore), info.qualified_name),)
    return DatasetIdentity.from_uri(info.location, symlinks=symlinks)


def metastore_namespace(uris: str) -> str:
    """``hive://{authority}`` of the first metastore URI in ``uris`` (see :func:`table_identity`).

    Raises:
        ValueError: The first URI has no authority.
    """
    first = uris.split(",", 1)[0].strip()
    authority = urlsplit(first).netloc.rsplit("@", 1)[-1]  # never credentials
    if not authority:
        raise ValueError(f"the Hive metastore URI {first!r} names no host")
    return f"hive://{authority}"


def _warehouse_namespace(location: str) -> str:
    """The folder holding a table's folder, as a URI: the symlink namespace for its name.

    Its path is decoded, as a dataset's name is: the folder's name as it is on storage.
    """
    parent = location.rstrip("/").rsplit("/", 1)[0]
    parts = urlsplit(parent)
    # A plain path (the naming module reads it literally) has no escapes to decode.
    path = parent if not parts.scheme and not parts.netloc else unquote(parts.path)
    scheme = {"s3a": "s3", "s3n": "s3", "abfs": "abfss", "wasb": "wasbs"}.get(
        parts.scheme, parts.scheme
    )
    if scheme in ("", "file"):
        if parts.netloc:
            return f"file://{parts.netloc}{path}"
        return f"file:{path}"
    return f"{scheme}://{parts.netloc}{path}"
