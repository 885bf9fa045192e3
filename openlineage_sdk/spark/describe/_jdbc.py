"""JDBC reads as the JVM agent sees them: the tables a ``dbtable`` or a ``query`` reads.

Classic PySpark (a ``JDBCRelation`` in the plan) and Spark Connect (a ``jdbc`` read in the
client's plan) both come here with the read's options, and get the same datasets:

* ``dbtable`` that is just a table name (``orders``, ``sales.orders``: no blank between words)
  is that table, and reads its columns one for one;
* any other ``dbtable`` (``orders o JOIN customers c ON ...``, a sub-query in parentheses) and
  the ``query`` option are SQL: they are parsed by ``openlineage-sql``, the same parser (the
  same Rust code) the agent calls, with the URL's dialect (``jdbc:postgresql:`` parses as
  ``postgresql``), and read the tables it names;
* each table is named by the Java client's rule (:func:`openlineage_sdk.naming.jdbc_dataset`):
  ``postgres://host:5432`` / ``{database}.{table}``;
* the agent's schema rule: with the parser's column lineage, each table gets the columns of
  the relation that come from it (a relation's column ``j`` made of ``a.j1`` and ``b.j2`` gives
  ``a`` a column ``j1`` and ``b`` a column ``j2``, of ``j``'s type); without it, one table gets
  the relation's schema and several get none;
* the relation's columns trace to those tables' columns (the parser's column lineage), which
  the column lineage of a write from the read follows into the output.

Parsing is pure: nothing is sent to the database. A query the parser cannot read is an error
with the parser's reason (the run's ``extractionError`` says it), never an exception in the
user's code. The URL and the options are read for names only: no credential is copied.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from openlineage_sdk.models.records import SchemaDatasetFacetFields
from openlineage_sdk.naming import jdbc_dataset, jdbc_dialect
from openlineage_sdk.spark._execution import DatasetIdentity, DatasetLineage

__all__ = [
    "JdbcRead",
    "JdbcSource",
    "JdbcSql",
    "jdbc_table_identity",
    "parse_jdbc",
    "resolve_jdbc",
    "table_schemas",
]

# Options that name what a JDBC read reads; every other option (user, password, fetchsize...)
# is read only by the naming rule of the drivers that take a database from the connection's
# properties (SQL Server).
_TABLE, _QUERY = "dbtable", "query"


@dataclass(frozen=True)
class JdbcSource:
    """One JDBC read's options: its URL, its ``dbtable`` or ``query``, the rest.

    ``options`` holds every option as given, credentials among them: they are handed to the
    naming rule (SQL Server reads its database there) and never shown.
    """

    url: str
    dbtable: str | None = None
    query: str | None = None
    options: Mapping[str, str] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, options: Mapping[str, str]) -> JdbcSource:
        """The source of a read's options (their keys read without case, as Spark reads them)."""
        lowered = {str(k).lower(): str(v) for k, v in options.items()}
        url = lowered.get("url")
        if not url:
            raise ValueError("the JDBC read has no url option")
        return cls(url, lowered.get(_TABLE), lowered.get(_QUERY), lowered)

    def __repr__(self) -> str:  # never the URL's credentials, nor the options'
        return "JdbcSource(...)"


@dataclass
class JdbcSql:
    """What a JDBC read reads: tables by qualified name, and its columns' lineage.

    ``lineage`` maps each of the relation's columns to the ``(table, column)`` pairs it comes
    from; ``None`` when the parser gave none (then a single table reads all columns as named
    only for ``SELECT * FROM``).
    """

    tables: list[str]
    lineage: dict[str, list[tuple[str, str]]] | None
    simple: bool = False
    wildcard: bool = False  # ``SELECT * FROM`` one table, which the parser traces no columns of


def _is_table_name(dbtable: str) -> bool:
    # As the agent tells them: no blank between two words.
    return re.search(r"\S\s+\S", dbtable) is None


def _query_text(source: JdbcSource) -> str:
    dbtable = source.dbtable
    if dbtable is not None and not dbtable.startswith("("):
        return "select * from " + dbtable
    # A sub-query in parentheses (``dbtable``) or the ``query`` option, as Spark wraps it
    # (``(query) SPARK_GEN_SUBQ_0``): the text inside the outer parentheses.
    wrapped = dbtable if dbtable is not None else f"({source.query or ''}) SPARK_GEN_SUBQ"
    inner = wrapped[: wrapped.rfind(")")]
    return inner.replace("(", "", 1)


def _strip_quotes(name: str) -> str:
    return name.strip('"`[]')


def parse_jdbc(source: JdbcSource) -> JdbcSql:
    """The tables a JDBC read reads, and the lineage of its columns (see the module).

    Raises:
        ValueError: The read names no table or query, or the parser cannot read the query
            (the message is the parser's, without the query or the URL).
        ImportError: ``openlineage-sql`` is not installed.
    """
    dbtable = source.dbtable
    if dbtable is not None and _is_table_name(dbtable):
        return JdbcSql([dbtable], None, simple=True)
    if dbtable is None and source.query is None:
        raise ValueError("the JDBC read has neither a dbtable nor a query option")
    text = _query_text(source)
    try:
        import openlineage_sql
    except ImportError as error:  # pragma: no cover - a dependency of the [spark] extra
        raise ImportError(
            "openlineage-sql is not installed: the tables of a JDBC query are not known"
        ) from error
    try:
        meta = openlineage_sql.parse([text], dialect=jdbc_dialect(source.url))
    except BaseException as error:  # the parser's own failure must not reach the user
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
        raise ValueError(
            f"the SQL parser failed on the JDBC query: {type(error).__name__}"
        ) from None
    if meta.errors:
        reasons = "; ".join(str(e.message) for e in meta.errors)
        raise ValueError(f"the SQL parser cannot read the JDBC query: {reasons}")
    tables = [str(t.qualified_name) for t in meta.in_tables]
    if not tables:
        raise ValueError("the SQL parser found no table in the JDBC query")
    lineage: dict[str, list[tuple[str, str]]] = {}
    for column in meta.column_lineage:
        sources = lineage.setdefault(_strip_quotes(str(column.descendant.name)), [])
        for origin in column.lineage:
            if origin.origin is not None:
                sources.append((str(origin.origin.qualified_name), str(origin.name)))
    wildcard = len(tables) == 1 and not lineage and text.lower().startswith("select * from")
    return JdbcSql(tables, lineage or None, wildcard=wildcard)


@dataclass
class JdbcRead:
    """A JDBC read's datasets, and where each of the relation's columns comes from."""

    inputs: list[DatasetLineage]
    columns: dict[str, list[tuple[DatasetIdentity, str]]]
    tables: dict[str, DatasetIdentity]


def resolve_jdbc(
    source: JdbcSource,
    schema: Sequence[SchemaDatasetFacetFields] | None,
    *,
    derby_home: str | None = None,
) -> JdbcRead:
    """The datasets of a JDBC read (see the module), given the relation's ``schema`` if known.

    ``schema`` is the relation's columns (the schema facet's fields) in order; without it the
    tables are named and have no schema, and no column is traced.

    Raises:
        ValueError: As :func:`parse_jdbc`.
    """
    parsed = parse_jdbc(source)
    identities: dict[str, DatasetIdentity] = {}
    for table in parsed.tables:
        located = jdbc_dataset(source.url, table, source.options, derby_home=derby_home)
        identities.setdefault(table, DatasetIdentity(located.namespace, located.name))
    fields = list(schema) if schema is not None else None
    columns: dict[str, list[tuple[DatasetIdentity, str]]] = {}
    for column, sources in (_lineage(parsed, fields) or {}).items():
        columns[column] = [(identities[t], c) for t, c in sources if t in identities]
    schemas = table_schemas(parsed, fields)
    inputs: dict[tuple[str, str], DatasetLineage] = {}
    for table, identity in identities.items():
        key = (identity.namespace, identity.name)
        if key not in inputs:
            inputs[key] = DatasetLineage(identity, "input", schemas.get(table))
    return JdbcRead(list(inputs.values()), columns, identities)


def _lineage(
    parsed: JdbcSql, fields: list[SchemaDatasetFacetFields] | None
) -> dict[str, list[tuple[str, str]]] | None:
    """Each relation column's ``(table, column)`` sources: the parser's, or one for one."""
    if parsed.simple or parsed.wildcard:
        table = parsed.tables[0]
        return {f["name"]: [(table, f["name"])] for f in fields or []}
    return parsed.lineage


def table_schemas(
    parsed: JdbcSql, fields: list[SchemaDatasetFacetFields] | None
) -> dict[str, list[SchemaDatasetFacetFields] | None]:
    """Each table's schema by the agent's rule (``SqlUtils.createDatasets``), given the relation's
    ``fields``; no schema at all without them."""
    if fields is None:
        return {}
    lineage = _lineage(parsed, fields)
    count = len(dict.fromkeys(parsed.tables))
    return {table: _table_schema(table, fields, lineage, count) for table in parsed.tables}


def _table_schema(
    table: str,
    fields: list[SchemaDatasetFacetFields],
    lineage: dict[str, list[tuple[str, str]]] | None,
    tables: int,
) -> list[SchemaDatasetFacetFields] | None:
    """The agent's schema of one table of a JDBC read (``SqlUtils.createDatasets``)."""
    if not lineage:
        return list(fields) if tables == 1 else None
    found: list[SchemaDatasetFacetFields] = []
    for relation_field in fields:
        for origin, column in lineage.get(relation_field["name"], ()):
            if origin == table:
                found.append({**relation_field, "name": column})
    return found


def jdbc_table_identity(
    url: str, table: str, options: Mapping[str, str] | None = None, derby_home: str | None = None
) -> DatasetIdentity:
    """The dataset of one JDBC table (a write's ``dbtable``), by the Java client's rule."""
    located = jdbc_dataset(url, table, options or {}, derby_home=derby_home)
    return DatasetIdentity(located.namespace, located.name)
