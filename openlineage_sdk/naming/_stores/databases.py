"""Database servers reached at a host and port: Postgres, MySQL, Oracle, Hive and their kin.

Each store is its builder (the public function that applies its row of the naming conventions)
followed by its declaration: default port, the levels of its table names, and the URI schemes
and JDBC subprotocols that name it, with their parsers where the common layout is not enough.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import unquote

from openlineage_sdk.naming import _parts as p
from openlineage_sdk.naming import _urls as u
from openlineage_sdk.naming._model import DatasetName
from openlineage_sdk.naming._parts import Ident
from openlineage_sdk.naming._store import (
    Port,
    Store,
    Tables,
    declare,
    dotted,
    finish,
    from_params,
    hostbased_jdbc,
    hosted,
    hostport,
    jdbc_hostbased,
)

__all__ = [
    "cassandra",
    "clickhouse",
    "crate",
    "db2",
    "hive",
    "milvus",
    "mysql",
    "oceanbase",
    "oracle",
    "postgres",
    "presto",
    "teradata",
    "trino",
]

_DB3 = ("database", "schema", "table")
_DB2 = ("database", "table")
_CST = ("catalog", "schema", "table")


# --------------------------------------------------------------------------- Postgres


def postgres(
    host: str, database: str, schema: str, table: str, *, port: Port = None
) -> DatasetName:
    """Name a PostgreSQL table.

    Args:
        host: The server.
        database: The database.
        schema: The schema, e.g. ``public``.
        table: The table.
        port: The port; 5432 when not given.

    Returns:
        ``postgres://{host}:{port}`` and ``{database}.{schema}.{table}``.
    """
    store = "postgres"
    return DatasetName(
        f"postgres://{hostport(store, host, port)}",
        dotted(store, database=database, schema=schema, table=table),
    )


def _jdbc_postgres(store: Store, url: str, rest: str, table: str) -> DatasetName:
    if not rest.startswith("//"):
        # jdbc:postgresql:{database} connects to localhost.
        database, _, query = rest.partition("?")
        rest = f"//localhost/{database.lstrip('/')}" + (f"?{query}" if query else "")
    return jdbc_hostbased(store, url, rest, table, ("database",))


declare(
    Store(
        "postgres",
        default_port=5432,
        tables=Tables(_DB3, hosted(postgres), params={"schema": ("currentschema", "searchpath")}),
        schemes=("postgres", "postgresql"),
        jdbc={"postgresql": _jdbc_postgres},
    )
)


# --------------------------------------------------------------------------- MySQL, MariaDB


def mysql(host: str, database: str, table: str, *, port: Port = None) -> DatasetName:
    """Name a MySQL (or MariaDB) table.

    Args:
        host: The server.
        database: The database.
        table: The table.
        port: The port; 3306 when not given.

    Returns:
        ``mysql://{host}:{port}`` and ``{database}.{table}``.
    """
    store = "mysql"
    return DatasetName(
        f"mysql://{hostport(store, host, port)}",
        dotted(store, database=database, table=table),
    )


_MYSQL_MODE_RE = re.compile(r"^[a-z+]+$", re.IGNORECASE)


def _jdbc_mysql(store: Store, url: str, rest: str, table: str) -> DatasetName:
    # jdbc:mysql://, jdbc:mysql:loadbalance://, jdbc:mysql:replication://,
    # jdbc:mysql+srv://, jdbc:mariadb://, jdbc:mariadb:sequential:// ...
    while rest and not rest.startswith("//"):
        mode, colon, rest = rest.partition(":")
        if not colon or not _MYSQL_MODE_RE.match(mode):
            raise p.fail(url, "missing '//' and host")
    return jdbc_hostbased(store, url, rest, table, ("database",))


declare(
    Store(
        "mysql",
        default_port=3306,
        tables=Tables(_DB2, hosted(mysql), params={"database": ("database", "dbname")}),
        schemes=("mysql", "mariadb"),
        jdbc={"mysql": _jdbc_mysql, "mysql+srv": _jdbc_mysql, "mariadb": _jdbc_mysql},
    )
)


# --------------------------------------------------------------------------- OceanBase


def oceanbase(host: str, database: str, table: str, *, port: Port = None) -> DatasetName:
    """Name an OceanBase table.

    Args:
        host: The server (or OBProxy).
        database: The database.
        table: The table.
        port: The port; 2881 when not given.

    Returns:
        ``oceanbase://{host}:{port}`` and ``{database}.{table}``.
    """
    store = "oceanbase"
    return DatasetName(
        f"oceanbase://{hostport(store, host, port)}",
        dotted(store, database=database, table=table),
    )


declare(
    Store(
        "oceanbase",
        default_port=2881,
        tables=Tables(_DB2, hosted(oceanbase), params={"database": ("database",)}),
        schemes=("oceanbase",),
        jdbc={"oceanbase": hostbased_jdbc("database")},
    )
)


# --------------------------------------------------------------------------- ClickHouse
# Neither naming document lists ClickHouse; it is named as MySQL is, so that its JDBC URLs can
# be named at all.


def clickhouse(host: str, database: str, table: str, *, port: Port = None) -> DatasetName:
    """Name a ClickHouse table (not in the naming documents; modelled on MySQL).

    Args:
        host: The server.
        database: The database.
        table: The table.
        port: The HTTP port; 8123 when not given.

    Returns:
        ``clickhouse://{host}:{port}`` and ``{database}.{table}``.
    """
    store = "clickhouse"
    return DatasetName(
        f"clickhouse://{hostport(store, host, port)}",
        dotted(store, database=database, table=table),
    )


_CLICKHOUSE_PROTOCOL_RE = re.compile(r"^(?:https?|grpc|tcp):(?=//)", re.IGNORECASE)


def _jdbc_clickhouse(store: Store, url: str, rest: str, table: str) -> DatasetName:
    # jdbc:clickhouse://, jdbc:ch://, jdbc:clickhouse:http(s)://, jdbc:ch:grpc://
    match = _CLICKHOUSE_PROTOCOL_RE.match(rest)
    if match:
        rest = rest[match.end() :]
    return jdbc_hostbased(store, url, rest, table, ("database",))


declare(
    Store(
        "clickhouse",
        default_port=8123,
        tables=Tables(_DB2, hosted(clickhouse), params={"database": ("database",)}),
        schemes=("clickhouse",),
        jdbc={"clickhouse": _jdbc_clickhouse, "ch": _jdbc_clickhouse},
    )
)


# --------------------------------------------------------------------------- CrateDB


def crate(host: str, database: str, schema: str, table: str, *, port: Port = None) -> DatasetName:
    """Name a CrateDB table.

    Args:
        host: The server.
        database: The database (CrateDB's is ``crate``).
        schema: The schema.
        table: The table.
        port: The PostgreSQL-protocol port; 5432 when not given.

    Returns:
        ``crate://{host}:{port}`` and ``{database}.{schema}.{table}``.
    """
    store = "crate"
    return DatasetName(
        f"crate://{hostport(store, host, port)}",
        dotted(store, database=database, schema=schema, table=table),
    )


declare(
    Store(
        "crate",
        default_port=5432,
        # CrateDB has one database, "crate"; a URL's path names the schema.
        tables=Tables(
            _DB3, hosted(crate), params={"schema": ("schema",)}, fixed={"database": "crate"}
        ),
        schemes=("crate",),
        jdbc={"crate": hostbased_jdbc("schema")},
    )
)


# --------------------------------------------------------------------------- Db2


def db2(host: str, database: str, schema: str, table: str, *, port: Port = None) -> DatasetName:
    """Name an IBM Db2 table.

    Args:
        host: The server.
        database: The database (location).
        schema: The schema.
        table: The table.
        port: The port; 50000 when not given.

    Returns:
        ``db2://{host}:{port}`` and ``{database}.{schema}.{table}``.
    """
    store = "db2"
    return DatasetName(
        f"db2://{hostport(store, host, port)}",
        dotted(store, database=database, schema=schema, table=table),
    )


def _jdbc_db2(store: Store, url: str, rest: str, table: str) -> DatasetName:
    # jdbc:db2://host:50000/DB:currentSchema=S;user=u;password=p;
    host, port, remainder = u.server(url, rest)
    database, _, props_text = remainder.lstrip("/").partition(":")
    params = u.properties(props_text)
    known: dict[str, str | None] = {"database": unquote(database) or None}
    known.update(from_params(store.table_names, params))
    return finish(store.table_names, url, host, port, known, table)


declare(
    Store(
        "db2",
        default_port=50000,
        tables=Tables(_DB3, hosted(db2), params={"schema": ("currentschema",)}),
        schemes=("db2",),
        jdbc={"db2": _jdbc_db2},
    )
)


# --------------------------------------------------------------------------- Teradata


def teradata(host: str, database: str, table: str, *, port: Port = None) -> DatasetName:
    """Name a Teradata table.

    Args:
        host: The server.
        database: The database.
        table: The table.
        port: The port; 1025 when not given.

    Returns:
        ``teradata://{host}:{port}`` and ``{database}.{table}``.
    """
    store = "teradata"
    return DatasetName(
        f"teradata://{hostport(store, host, port)}",
        dotted(store, database=database, table=table),
    )


def _jdbc_teradata(store: Store, url: str, rest: str, table: str) -> DatasetName:
    # jdbc:teradata://host/DATABASE=db,DBS_PORT=1025,USER=u,PASSWORD=p
    host, _, remainder = u.server(url, rest)
    params = u.properties(remainder.lstrip("/"), ",")
    known = from_params(store.table_names, params)
    return finish(store.table_names, url, host, params.get("dbs_port"), known, table)


declare(
    Store(
        "teradata",
        default_port=1025,
        tables=Tables(_DB2, hosted(teradata), params={"database": ("database",)}),
        schemes=("teradata",),
        jdbc={"teradata": _jdbc_teradata},
    )
)


# --------------------------------------------------------------------------- Oracle


def oracle(host: str, service: str, schema: str, table: str, *, port: Port = None) -> DatasetName:
    """Name an Oracle table.

    Args:
        host: The listener host.
        service: The service name or, for old-style URLs, the SID.
        schema: The schema (owner).
        table: The table.
        port: The listener port; 1521 when not given.

    Returns:
        ``oracle://{host}:{port}`` and ``{service}.{schema}.{table}``.
    """
    store = "oracle"
    return DatasetName(
        f"oracle://{hostport(store, host, port)}",
        dotted(store, service=service, schema=schema, table=table),
    )


_TNS_RE = re.compile(r"\(\s*(HOST|PORT|SERVICE_NAME|SID)\s*=\s*([^()\s]+)\s*\)", re.IGNORECASE)


def _tns(store: Store, url: str, descriptor: str, table: str) -> DatasetName:
    values: dict[str, str] = {}
    for key, value in _TNS_RE.findall(descriptor):
        # A list of addresses names the database by its first.
        values.setdefault(key.upper(), value)
    host = values.get("HOST")
    if not host:
        raise p.fail(url, "missing host: the descriptor has no (HOST=...)")
    service = values.get("SERVICE_NAME") or values.get("SID")
    return finish(store.table_names, url, host, values.get("PORT"), {"service": service}, table)


_ORACLE_RE = re.compile(r"^(?P<driver>thin|oci8?|kprb):(?P<target>.*)$", re.IGNORECASE | re.DOTALL)
_TCP_RE = re.compile(r"^tcps?://", re.IGNORECASE)


def _jdbc_oracle(store: Store, url: str, rest: str, table: str) -> DatasetName:
    match = _ORACLE_RE.match(rest)
    if not match:
        raise p.fail(url, "missing driver type: jdbc:oracle:thin:@... expected")
    target = match["target"]
    if "@" not in target:
        raise p.fail(url, "missing '@' before host")
    # Everything before the last '@' is user/password.
    target = target.rpartition("@")[2].strip()
    if target.startswith("("):
        return _tns(store, url, target, table)
    target = target.split("?")[0]
    if target.lower().startswith(("ldap:", "ldaps:")):
        raise p.fail(url, "missing host: an LDAP lookup does not name the database host")
    target = _TCP_RE.sub("//", target)
    service: str | None
    if target.startswith("//") or "/" in target:
        # EZConnect: [//]host[:port]/service[:server][/instance]
        found, _, path = target.lstrip("/").partition("/")
        host, port = p.host_port(found)
        service = path.split("/")[0].split(":")[0] or None
    else:
        # host:port:sid, or a bare net service name from tnsnames.ora
        pieces = target.rsplit(":", 2) if not target.startswith("[") else None
        if pieces is None:
            inner, _, after = target.partition("]")
            host = inner + "]"
            _, port, service = [*after.split(":"), "", "", ""][:3]
        elif len(pieces) == 3:
            host, port, service = pieces
        elif len(pieces) == 1:
            raise p.fail(url, "missing host: a net service name is resolved by tnsnames.ora")
        else:
            host, port = pieces
            service = None
    if not host:
        raise p.fail(url, "missing host")
    return finish(store.table_names, url, host, port or None, {"service": service}, table)


declare(
    Store(
        "oracle",
        default_port=1521,
        tables=Tables(("service", "schema", "table"), hosted(oracle)),
        schemes=("oracle",),
        jdbc={"oracle": _jdbc_oracle},
    )
)


# --------------------------------------------------------------------------- Cassandra


def cassandra(host: str, keyspace: str, table: str, *, port: Port = None) -> DatasetName:
    """Name a Cassandra table.

    Args:
        host: A contact point.
        keyspace: The keyspace.
        table: The table.
        port: The native protocol port; 9042 when not given.

    Returns:
        ``cassandra://{host}:{port}`` and ``{keyspace}.{table}``.
    """
    store = "cassandra"
    return DatasetName(
        f"cassandra://{hostport(store, host, port)}",
        dotted(store, keyspace=keyspace, table=table),
    )


declare(
    Store(
        "cassandra",
        default_port=9042,
        tables=Tables(("keyspace", "table"), hosted(cassandra), params={"keyspace": ("keyspace",)}),
        schemes=("cassandra",),
    )
)


# --------------------------------------------------------------------------- Milvus


def milvus(host: str, database: str, collection: str, *, port: Port = None) -> DatasetName:
    """Name a Milvus collection.

    Args:
        host: The Milvus server.
        database: The database (Milvus's is ``default`` unless chosen).
        collection: The collection.
        port: The port; 19530 when not given.

    Returns:
        ``milvus://{host}:{port}`` and ``{database}.{collection}``.
    """
    store = "milvus"
    return DatasetName(
        f"milvus://{hostport(store, host, port)}",
        dotted(store, database=database, collection=collection),
    )


declare(
    Store(
        "milvus",
        default_port=19530,
        tables=Tables(
            ("database", "collection"),
            hosted(milvus),
            params={"database": ("db_name", "database")},
        ),
        schemes=("milvus",),
    )
)


# --------------------------------------------------------------------------- Trino, Presto


def trino(host: str, catalog: str, schema: str, table: str, *, port: Port = None) -> DatasetName:
    """Name a table queried through Trino.

    Args:
        host: The coordinator.
        catalog: The catalog.
        schema: The schema.
        table: The table.
        port: The port; 8080 when not given.

    Returns:
        ``trino://{host}:{port}`` and ``{catalog}.{schema}.{table}``.
    """
    store = "trino"
    return DatasetName(
        f"trino://{hostport(store, host, port)}",
        dotted(store, catalog=catalog, schema=schema, table=table),
    )


declare(
    Store(
        "trino",
        default_port=8080,
        tables=Tables(_CST, hosted(trino), params={"catalog": ("catalog",), "schema": ("schema",)}),
        schemes=("trino",),
        jdbc={"trino": hostbased_jdbc("catalog", "schema")},
    )
)


def presto(host: str, catalog: str, schema: str, table: str, *, port: Port = None) -> DatasetName:
    """Name a table queried through Presto (not in the naming documents; as Trino).

    Args:
        host: The coordinator.
        catalog: The catalog.
        schema: The schema.
        table: The table.
        port: The port; 8080 when not given.

    Returns:
        ``presto://{host}:{port}`` and ``{catalog}.{schema}.{table}``.
    """
    store = "presto"
    return DatasetName(
        f"presto://{hostport(store, host, port)}",
        dotted(store, catalog=catalog, schema=schema, table=table),
    )


declare(
    Store(
        "presto",
        default_port=8080,
        tables=Tables(
            _CST, hosted(presto), params={"catalog": ("catalog",), "schema": ("schema",)}
        ),
        schemes=("presto",),
        jdbc={"presto": hostbased_jdbc("catalog", "schema")},
    )
)


# --------------------------------------------------------------------------- Hive, HiveServer2


def hive(host: str, database: str, table: str, *, port: Port = None) -> DatasetName:
    """Name a Hive table.

    Args:
        host: The metastore (or HiveServer2) host.
        database: The database.
        table: The table.
        port: The port; the metastore's 9083 when not given. (A
            ``jdbc:hive2://`` URL without a port means HiveServer2's 10000.)

    Returns:
        ``hive://{host}:{port}`` and ``{database}.{table}``.
    """
    store = "hive"
    return DatasetName(
        f"hive://{hostport(store, host, port)}",
        dotted(store, database=database, table=table),
    )


declare(
    Store(
        "hive",
        default_port=9083,
        tables=Tables(_DB2, hosted(hive)),
        schemes=("hive", "thrift"),
    )
)

# HiveServer2, which JDBC URLs name, listens on its own port; its tables are Hive's.
_HIVE_SERVER2_PORT = 10000


def _hive_server2_table(
    url: str, host: str | None, port: str | None, levels: Sequence[Ident]
) -> DatasetName:
    # HiveServer2 listens on 10000; the hive() builder's default is the metastore's.
    return hive(host or "", levels[0], levels[1], port=port or _HIVE_SERVER2_PORT)


def _jdbc_hive(store: Store, url: str, rest: str, table: str) -> DatasetName:
    # jdbc:hive2://host:10000/db;principal=...?hiveconf#hivevars
    lowered = rest.lower()
    if "servicediscoverymode=zookeeper" in lowered.replace(" ", ""):
        raise p.fail(url, "missing host: ZooKeeper discovery does not name the HiveServer2 host")
    return jdbc_hostbased(store, url, rest, table, ("database",))


declare(
    Store(
        "hive_server2",
        default_port=_HIVE_SERVER2_PORT,
        tables=Tables(_DB2, _hive_server2_table),
        jdbc={"hive2": _jdbc_hive, "hive": _jdbc_hive},
    )
)
