"""Stores that speak SQL Server's protocol: SQL Server, Azure Synapse, Fabric Warehouse.

Their JDBC URLs (``jdbc:sqlserver:``, ``jdbc:jtds:sqlserver:``) and database URLs
(``mssql+pyodbc://``) look the same; the host says which row of the naming conventions a URL
belongs to (:func:`_row_of`).
"""

from __future__ import annotations

from openlineage_sdk.naming import _parts as p
from openlineage_sdk.naming import _urls as u
from openlineage_sdk.naming._model import DatasetName
from openlineage_sdk.naming._store import (
    Port,
    Store,
    Tables,
    declare,
    dotted,
    finish,
    from_params,
    hosted,
    hostport,
    named,
    table_uri,
)

__all__ = ["azure_synapse", "fabric_warehouse", "mssql"]

_DB3 = ("database", "schema", "table")
_DATABASE_PARAMS = {"database": ("databasename", "database")}


def mssql(host: str, database: str, schema: str, table: str, *, port: Port = None) -> DatasetName:
    """Name a Microsoft SQL Server (or Azure SQL Database) table.

    Args:
        host: The server.
        database: The database.
        schema: The schema, e.g. ``dbo``.
        table: The table.
        port: The port; 1433 when not given.

    Returns:
        ``mssql://{host}:{port}`` and ``{database}.{schema}.{table}``.
    """
    store = "mssql"
    return DatasetName(
        f"mssql://{hostport(store, host, port)}",
        dotted(store, database=database, schema=schema, table=table),
    )


def azure_synapse(host: str, schema: str, table: str, *, port: Port = None) -> DatasetName:
    """Name an Azure Synapse Analytics SQL pool table.

    Args:
        host: The SQL endpoint, e.g. ``"ws.sql.azuresynapse.net"``.
        schema: The schema.
        table: The table.
        port: The port; 1433 when not given.

    Returns:
        ``sqlserver://{host}:{port}`` and ``{schema}.{table}``.
    """
    store = "azure_synapse"
    return DatasetName(
        f"sqlserver://{hostport(store, host, port)}",
        dotted(store, schema=schema, table=table),
    )


def fabric_warehouse(
    endpoint: str, database: str, schema: str, table: str, *, port: Port = None
) -> DatasetName:
    """Name a Microsoft Fabric Warehouse table.

    The naming conventions allow the SQL analytics endpoint with or without
    a port; to give one dataset one name, the port is written only when it
    is not the TDS default 1433.

    Args:
        endpoint: The SQL analytics endpoint,
            ``{id}.datawarehouse.fabric.microsoft.com``.
        database: The warehouse.
        schema: The schema.
        table: The table.
        port: The port, if not 1433.

    Returns:
        ``fabric-warehouse://{endpoint}`` (or ``...:{port}``) and
        ``{database}.{schema}.{table}``.
    """
    store = "fabric_warehouse"
    return DatasetName(
        f"fabric-warehouse://{hostport(store, endpoint, port, part='endpoint', omit_default=True)}",
        dotted(store, database=database, schema=schema, table=table),
    )


def _row_of(host: str | None) -> Store:
    """Which naming row a SQL Server-protocol endpoint belongs to."""
    text = (host or "").lower().rstrip(".")
    if text.endswith(".sql.azuresynapse.net"):
        return named("azure_synapse")
    if text.endswith(".datawarehouse.fabric.microsoft.com"):
        return named("fabric_warehouse")
    return named("mssql")


def _sql_server_uri(store: Store, uri: str, table: str | None) -> DatasetName:
    if table is not None:
        # A connection URL (mssql+pyodbc://host/db) says which row by its host;
        # a dataset URI in the documents' form says it by its scheme.
        store = _row_of(u.split_uri(uri)[1])
    return table_uri(store, uri, table)


def _jdbc_sqlserver(store: Store, url: str, rest: str, table: str) -> DatasetName:
    # jdbc:sqlserver://[host[\instance][:port]][;key=value]*
    found, remainder = u.authority(url, rest)
    _, params = u.jdbc_properties(remainder)
    server, port = p.host_port(found)
    hostpart, _, instance = (server or "").partition("\\")
    host = hostpart or params.get("servername")
    port_value = port or params.get("portnumber")
    instance = instance or params.get("instancename", "")
    if not host:
        raise p.fail(url, "missing host")
    if instance and not port_value:
        # A named instance's port is handed out at connect time by the SQL
        # Browser service; it cannot be known from the URL.
        raise p.fail(url, "missing port: a named instance needs portNumber")
    known = from_params(store.table_names, params)
    return finish(_row_of(host).table_names, url, host, port_value, known, table)


def _jdbc_jtds(store: Store, url: str, rest: str, table: str) -> DatasetName:
    # jdbc:jtds:sqlserver://host[:port][/database][;key=value]*
    sub, _, rest = rest.partition(":")
    if sub.lower() != "sqlserver":
        raise p.fail(url, f"unsupported jTDS server type {sub!r}")
    host, port, remainder = u.server(url, rest)
    path, params = u.jdbc_properties(remainder)
    if params.get("instance") and not port:
        raise p.fail(url, "missing port: a named instance needs a port")
    segments = u.path_segments(path)
    known: dict[str, str | None] = {
        "database": segments[0] if segments else params.get("databasename")
    }
    return finish(_row_of(host).table_names, url, host, port, known, table)


declare(
    Store(
        "mssql",
        default_port=1433,
        tables=Tables(_DB3, hosted(mssql), params=_DATABASE_PARAMS),
        schemes=("mssql",),
        parse_uri=_sql_server_uri,
        jdbc={"sqlserver": _jdbc_sqlserver, "jtds": _jdbc_jtds},
    )
)
declare(
    Store(
        "azure_synapse",
        default_port=1433,
        tables=Tables(("schema", "table"), hosted(azure_synapse)),
        # The seed document writes Synapse datasets as sqlserver:// URIs.
        schemes=("sqlserver",),
        parse_uri=_sql_server_uri,
    )
)
declare(
    Store(
        "fabric_warehouse",
        default_port=1433,
        tables=Tables(_DB3, hosted(fabric_warehouse), params=_DATABASE_PARAMS),
        schemes=("fabric-warehouse",),
    )
)
