"""Databases in a file or in memory, and datasets that live only in memory: SQLite, H2, in-memory.

Neither naming document lists SQLite or H2; they are named so that their JDBC URLs can be named
at all: an SQLite database file is the data source (``sqlite://{path}``), H2's three kinds of
database are named as the package documentation says, and an in-memory database of either is an
in-memory dataset.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import unquote

from openlineage_sdk.naming import _parts as p
from openlineage_sdk.naming import _urls as u
from openlineage_sdk.naming._model import DatasetName
from openlineage_sdk.naming._parts import Ident
from openlineage_sdk.naming._store import (
    Store,
    Tables,
    declare,
    dotted,
    finish,
    from_params,
    hostport,
)

__all__ = ["in_memory", "sqlite"]


# --------------------------------------------------------------------------- in memory


def in_memory(name: str) -> DatasetName:
    """Name a temporary dataset that lives only in memory.

    Args:
        name: The temporary dataset's name or id (a view, a DataFrame ...).

    Returns:
        ``inmemory://`` and ``{name}``.
    """
    return DatasetName("inmemory://", p.ident(name, "in_memory", "name"))


def _inmemory_uri(store: Store, uri: str, table: str | None) -> DatasetName:
    body = unquote(uri.partition(":")[2].lstrip("/"))
    if table is not None:
        if body:
            raise p.fail(uri, "name given twice: in the URI and as table")
        body = table
    with u.reported_against(uri):
        return in_memory(body)


declare(Store("in_memory", schemes=("inmemory",), parse_uri=_inmemory_uri))


# --------------------------------------------------------------------------- SQLite


def sqlite(path: str, table: str) -> DatasetName:
    """Name a table in an SQLite database file (not in the naming documents).

    The database file is the data source, so its absolute path is the
    namespace's path; the table is the name.

    Args:
        path: The database file's absolute path.
        table: The table.

    Returns:
        ``sqlite://{path}`` (e.g. ``sqlite:///data/app.db``) and ``{table}``.
    """
    store = "sqlite"
    return DatasetName(f"sqlite://{p.absolute_path(path, store)}", p.ident(table, store, "table"))


def _sqlite(url: str, location: str, table: str) -> DatasetName:
    """An SQLite database, ``location`` what follows ``sqlite:`` or ``jdbc:sqlite:``.

    Files: ``sqlite:///abs/path.db``, ``jdbc:sqlite:/abs/path.db``,
    ``jdbc:sqlite:file:/abs/path.db?mode=ro``; in memory: ``sqlite://``,
    ``sqlite:///:memory:``, ``jdbc:sqlite::memory:``, ``jdbc:sqlite:file::memory:``.
    """
    path = location.split("?")[0].removeprefix("file:").removeprefix("//")
    with u.reported_against(url):
        if path in ("", "/:memory:") or path.startswith(":memory:"):
            return in_memory(table)
        return sqlite(unquote(path), table)


def _sqlite_uri(store: Store, uri: str, table: str | None) -> DatasetName:
    # The URI names the database, the namespace; the table is the name.
    return _sqlite(uri, uri.partition(":")[2], u.required_table(uri, table))


def _jdbc_sqlite(store: Store, url: str, rest: str, table: str) -> DatasetName:
    return _sqlite(url, rest, table)


declare(Store("sqlite", schemes=("sqlite",), parse_uri=_sqlite_uri, jdbc={"sqlite": _jdbc_sqlite}))


# --------------------------------------------------------------------------- H2

_DB3 = ("database", "schema", "table")
# H2 opens every connection in the PUBLIC schema unless SCHEMA= says otherwise.
_H2_SCHEMA = {"schema": ("schema",)}
_H2_DEFAULT = {"schema": "PUBLIC"}


def _h2_memory_table(
    url: str, host: str | None, port: str | None, levels: Sequence[Ident]
) -> DatasetName:
    return in_memory(dotted("h2", database=levels[0], schema=levels[1], table=levels[2]))


def _h2_file_table(
    url: str, host: str | None, port: str | None, levels: Sequence[Ident]
) -> DatasetName:
    # The database file's path stands where a host would.
    return DatasetName(
        f"h2://{p.absolute_path(host, 'h2')}", dotted("h2", schema=levels[0], table=levels[1])
    )


def _h2_server_table(
    url: str, host: str | None, port: str | None, levels: Sequence[Ident]
) -> DatasetName:
    return DatasetName(
        f"h2://{hostport('h2', host, port)}",
        dotted("h2", database=levels[0], schema=levels[1], table=levels[2]),
    )


_H2_MEMORY = Tables(_DB3, _h2_memory_table, _H2_SCHEMA, _H2_DEFAULT)
_H2_FILE = Tables(("schema", "table"), _h2_file_table, _H2_SCHEMA, _H2_DEFAULT)
_H2_SERVER = Tables(_DB3, _h2_server_table, _H2_SCHEMA, _H2_DEFAULT)


def _jdbc_h2(store: Store, url: str, rest: str, table: str) -> DatasetName:
    # jdbc:h2:mem:{name}, jdbc:h2:[file:]{absolute path}, jdbc:h2:tcp://host[:port]/{path};
    # then ;KEY=VALUE properties.
    body, params = u.jdbc_properties(rest)
    kind, _, location = body.partition(":")
    host: str | None = None
    port: str | None = None
    database: str | None = None
    if kind.lower() == "mem":
        if not location:
            raise p.fail(url, "missing database: an unnamed in-memory database is private")
        tables, database = _H2_MEMORY, location
    elif kind.lower() in ("tcp", "ssl"):
        tables = _H2_SERVER
        host, port, path = u.server(url, location)
        database = path.lstrip("/")
    else:
        tables, host = _H2_FILE, body.removeprefix("file:")
    known = {"database": database, **from_params(tables, params)}
    return finish(tables, url, host, port, known, table)


declare(Store("h2", default_port=9092, jdbc={"h2": _jdbc_h2}))
