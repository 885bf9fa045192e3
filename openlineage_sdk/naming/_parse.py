"""Take URIs and JDBC URLs apart and hand their parts to the builders.

Nothing from a URL's user info, query or connection properties is copied
into a name: only the host, port, path and the few properties that name a
level of the dataset (``currentSchema``, ``databaseName``, ``db`` ...) are
read. Credentials therefore cannot reach an event; error messages mask them
with :func:`~openlineage_sdk.naming._parts.redact`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import MappingProxyType
from urllib.parse import parse_qsl, unquote

from openlineage_sdk.naming import _parts as p
from openlineage_sdk.naming import _stores as s
from openlineage_sdk.naming._model import DatasetName, NamingError
from openlineage_sdk.naming._parts import Ident

__all__ = ["dataset_from_uri"]

Build = Callable[[str, str | None, str | None, Sequence[Ident]], DatasetName]


@contextmanager
def _as(context: str) -> Iterator[None]:
    """Report a builder's error against the input URL rather than the store."""
    try:
        yield
    except NamingError as error:
        if error.context == p.redact(context):
            raise
        raise p.fail(context, error.problem) from None


# --------------------------------------------------------------------------- URL pieces

_AUTHORITY_END = re.compile(r"[/?;#]")
_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*$")


def _authority(text: str, rest: str, what: str = "host") -> tuple[str, str]:
    """The authority of ``rest``, ``//{authority}...``, and what follows it.

    ``text`` is the whole input and ``what`` the authority's content, for errors.
    """
    if not rest.startswith("//"):
        raise p.fail(text, f"missing '//' and {what}")
    match = _AUTHORITY_END.search(rest, 2)
    end = len(rest) if match is None else match.start()
    return rest[2:end], rest[end:]


def _server(text: str, rest: str) -> tuple[str, str | None, str]:
    """Host, port and what follows them in a JDBC URL's ``//host:port...``, which needs a host."""
    authority, remainder = _authority(text, rest)
    host, port = p.host_port(authority)
    if not host:
        raise p.fail(text, "missing host")
    return host, port, remainder


def _path_query(remainder: str) -> tuple[str, str]:
    """Path and query of what follows an authority; the fragment is dropped."""
    path, _, query = remainder.partition("#")[0].partition("?")
    return path, query


def _join(path: str, table: str | None) -> str:
    """``path`` with the relative path ``table`` appended, when one is given."""
    return path if table is None else f"{path.rstrip('/')}/{table.strip('/')}"


def _table(text: str, table: str | None) -> str:
    """The ``table`` argument, which a connection URL needs: it names no table itself."""
    if table is None:
        raise p.fail(text, "missing table: a connection URL names no table, pass table=")
    return table


def _query(text: str) -> dict[str, str]:
    """``?a=b&c=d`` parameters, keys case-folded (drivers match them so)."""
    return {
        key.strip().lower(): value
        for key, value in parse_qsl(text, keep_blank_values=True)
        if key.strip()
    }


def _props(text: str, separator: str = ";") -> dict[str, str]:
    """``key=value`` properties split on ``separator``, keys case-folded."""
    result: dict[str, str] = {}
    for piece in text.split(separator):
        key, eq, value = piece.partition("=")
        if eq and key.strip():
            result[key.strip().lower()] = unquote(value.strip())
    return result


def _jdbc_props(text: str) -> tuple[str, dict[str, str]]:
    """``{head};{key}={value};...``: the head, and the properties after it."""
    head, _, props = text.partition(";")
    return head, _props(props)


def _first(params: Mapping[str, str], *keys: str) -> str | None:
    """The first non-empty value among ``keys``; a list value gives its first item."""
    for key in keys:
        value = params.get(key)
        if value and value.split(",")[0].strip():
            return value.split(",")[0].strip()
    return None


def _segments(path: str) -> list[str]:
    return [unquote(segment) for segment in path.split("/") if segment]


# --------------------------------------------------------------------------- relational stores


@dataclass(frozen=True)
class _Relational:
    """How one relational store's URLs map onto its name hierarchy."""

    levels: tuple[str, ...]
    build: Build
    # Query parameters or connection properties naming a level, by level.
    params: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # Levels with a fixed value when the URL names none (a driver default).
    fixed: tuple[tuple[str, str], ...] = ()


def _finish(
    store: _Relational,
    context: str,
    host: str | None,
    port: str | None,
    known: Mapping[str, str | None],
    table: str,
    part: str = "table",
) -> DatasetName:
    """Combine a URL's parts with the ``table`` argument and build the name.

    ``table`` may also be a dataset URI's whole dotted name, called ``part`` in errors.
    """
    parts = p.split_qualified(table, context, part)
    merged: dict[str, str | None] = dict(store.fixed)
    merged.update({level: value for level, value in known.items() if value})
    values = p.fill_levels(store.levels, merged, parts, context)
    with _as(context):
        return store.build(context, host, port, values)


def _from_params(store: _Relational, params: Mapping[str, str]) -> dict[str, str | None]:
    return {level: _first(params, *keys) for level, keys in store.params}


def _hosted(builder: Callable[..., DatasetName]) -> Build:
    """The build step of a store whose builder takes the host, the name levels, then ``port=``."""

    def build(c: str, h: str | None, pt: str | None, v: Sequence[Ident]) -> DatasetName:
        return builder(h or "", *v, port=pt)

    return build


def _b_hive_server2(c: str, h: str | None, pt: str | None, v: Sequence[Ident]) -> DatasetName:
    # HiveServer2 listens on 10000; the hive() builder's default is the metastore's.
    return s.hive(h or "", v[0], v[1], port=pt or s.DEFAULT_PORTS["hive_server2"])


def _b_snowflake(c: str, h: str | None, pt: str | None, v: Sequence[Ident]) -> DatasetName:
    # The parts are Idents: snowflake() keeps the case of those that were quoted.
    return s.snowflake(h or "", v[0], v[1], v[2])


def _b_spanner(c: str, h: str | None, pt: str | None, v: Sequence[Ident]) -> DatasetName:
    # spanner://{project}:{instance}: the instance sits where a port would.
    return s.spanner(h or "", pt or "", v[0], v[1], v[2])


def _b_bigquery(c: str, h: str | None, pt: str | None, v: Sequence[Ident]) -> DatasetName:
    return s.bigquery(v[0], v[1], v[2])


_REDSHIFT_HOST_RE = re.compile(
    rf"^(?P<cluster>[a-z][a-z0-9-]*)\.[a-z0-9]+\.(?P<region>{p.AWS_REGION})"
    r"\.redshift(?:-serverless)?\.amazonaws\.com(?:\.cn)?$"
)


def _b_redshift(c: str, h: str | None, pt: str | None, v: Sequence[Ident]) -> DatasetName:
    store = "redshift"
    host = p.host(h, store)
    if pt and p.AWS_REGION_RE.match(pt.lower()):
        # jdbc:redshift:iam://{cluster}:{region}/db names the cluster directly.
        return s.redshift(host, pt, v[0], v[1], v[2])
    match = _REDSHIFT_HOST_RE.match(host)
    if match:
        return s.redshift(match["cluster"], match["region"], v[0], v[1], v[2], port=pt)
    # A host that is not a Redshift endpoint (a tunnel, a private DNS name)
    # does not tell the cluster and region: the host stands in for them.
    return DatasetName(
        f"redshift://{s.hostport(store, host, pt)}",
        s.dotted(store, database=v[0], schema=v[1], table=v[2]),
    )


_ATHENA_HOST_RE = re.compile(r"^athena\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$")


def _athena_region(c: str, h: str | None) -> str:
    host = p.host(h, c)
    match = _ATHENA_HOST_RE.match(host)
    if not match:
        raise p.fail(c, "invalid host: athena.{region}.amazonaws.com expected")
    return match[1]


def _b_athena(c: str, h: str | None, pt: str | None, v: Sequence[Ident]) -> DatasetName:
    return s.athena(_athena_region(c, h), v[0], v[1], v[2])


# H2 is in neither naming document: its three kinds of database are named
# as the module docs say.


def _b_h2_memory(c: str, h: str | None, pt: str | None, v: Sequence[Ident]) -> DatasetName:
    return s.in_memory(s.dotted("h2", database=v[0], schema=v[1], table=v[2]))


def _b_h2_file(c: str, h: str | None, pt: str | None, v: Sequence[Ident]) -> DatasetName:
    # The database file's path stands where a host would.
    return DatasetName(f"h2://{p.absolute_path(h, 'h2')}", s.dotted("h2", schema=v[0], table=v[1]))


def _b_h2_server(c: str, h: str | None, pt: str | None, v: Sequence[Ident]) -> DatasetName:
    return DatasetName(
        f"h2://{s.hostport('h2', h, pt)}", s.dotted("h2", database=v[0], schema=v[1], table=v[2])
    )


_DB3 = ("database", "schema", "table")
_DB2 = ("database", "table")
_CST = ("catalog", "schema", "table")
# H2 opens every connection in the PUBLIC schema unless SCHEMA= says otherwise.
_H2_SCHEMA = (("schema", ("schema",)),)
_H2_DEFAULT = (("schema", "PUBLIC"),)

_RELATIONAL: Mapping[str, _Relational] = MappingProxyType(
    {
        "postgres": _Relational(
            _DB3, _hosted(s.postgres), (("schema", ("currentschema", "searchpath")),)
        ),
        "mysql": _Relational(_DB2, _hosted(s.mysql), (("database", ("database", "dbname")),)),
        "oceanbase": _Relational(_DB2, _hosted(s.oceanbase), (("database", ("database",)),)),
        "clickhouse": _Relational(_DB2, _hosted(s.clickhouse), (("database", ("database",)),)),
        # CrateDB has one database, "crate"; a URL's path names the schema.
        "crate": _Relational(
            _DB3, _hosted(s.crate), (("schema", ("schema",)),), (("database", "crate"),)
        ),
        "db2": _Relational(_DB3, _hosted(s.db2), (("schema", ("currentschema",)),)),
        "hive": _Relational(_DB2, _hosted(s.hive)),
        "hive_server2": _Relational(_DB2, _b_hive_server2),
        "trino": _Relational(
            _CST, _hosted(s.trino), (("catalog", ("catalog",)), ("schema", ("schema",)))
        ),
        "presto": _Relational(
            _CST, _hosted(s.presto), (("catalog", ("catalog",)), ("schema", ("schema",)))
        ),
        "teradata": _Relational(_DB2, _hosted(s.teradata), (("database", ("database",)),)),
        "oracle": _Relational(("service", "schema", "table"), _hosted(s.oracle)),
        "cassandra": _Relational(
            ("keyspace", "table"), _hosted(s.cassandra), (("keyspace", ("keyspace",)),)
        ),
        "milvus": _Relational(
            ("database", "collection"), _hosted(s.milvus), (("database", ("db_name", "database")),)
        ),
        "unity_catalog": _Relational(
            _CST,
            _hosted(s.unity_catalog),
            (("catalog", ("conncatalog", "catalog")), ("schema", ("connschema", "schema"))),
        ),
        "fabric_warehouse": _Relational(
            _DB3, _hosted(s.fabric_warehouse), (("database", ("databasename", "database")),)
        ),
        "azure_synapse": _Relational(("schema", "table"), _hosted(s.azure_synapse)),
        "mssql": _Relational(_DB3, _hosted(s.mssql), (("database", ("databasename", "database")),)),
        "snowflake": _Relational(
            _DB3, _b_snowflake, (("database", ("db", "database")), ("schema", ("schema",)))
        ),
        "spanner": _Relational(_DB3, _b_spanner),
        "redshift": _Relational(_DB3, _b_redshift, (("schema", ("currentschema", "schema")),)),
        # The Athena driver queries the AwsDataCatalog catalog unless told otherwise.
        "athena": _Relational(
            ("catalog", "database", "table"),
            _b_athena,
            (("catalog", ("catalog",)), ("database", ("schema", "database"))),
            (("catalog", "AwsDataCatalog"),),
        ),
        "bigquery": _Relational(
            ("project", "dataset", "table"),
            _b_bigquery,
            (("project", ("projectid", "project")), ("dataset", ("defaultdataset", "dataset"))),
        ),
        "h2_memory": _Relational(_DB3, _b_h2_memory, _H2_SCHEMA, _H2_DEFAULT),
        "h2_file": _Relational(("schema", "table"), _b_h2_file, _H2_SCHEMA, _H2_DEFAULT),
        "h2_server": _Relational(_DB3, _b_h2_server, _H2_SCHEMA, _H2_DEFAULT),
    }
)


def _sqlserver_store(host: str | None) -> str:
    """Which naming row a SQL Server-protocol endpoint belongs to."""
    text = (host or "").lower().rstrip(".")
    if text.endswith(".sql.azuresynapse.net"):
        return "azure_synapse"
    if text.endswith(".datawarehouse.fabric.microsoft.com"):
        return "fabric_warehouse"
    return "mssql"


# --------------------------------------------------------------------------- URIs in the documents' form


def _split_uri(text: str) -> tuple[str, str | None, str | None, str, str]:
    """Scheme, host, port, path and query of ``scheme://authority/path?query``."""
    scheme, _, rest = text.partition(":")
    authority, remainder = _authority(text, rest)
    host, port = p.host_port(authority)
    path, query = _path_query(remainder)
    return scheme.lower(), host, port, path, query


def _split_fs_uri(text: str) -> tuple[str, str]:
    """Authority (``""`` if left out) and decoded path of ``scheme:[//authority]path``."""
    rest = text.partition(":")[2]
    authority = ""
    if rest.startswith("//"):
        authority, rest = _authority(text, rest)
    return authority, unquote(_path_query(rest)[0])


def _relational_uri(key: str, text: str, table: str | None) -> DatasetName:
    """``scheme://host:port/{dotted name}``, or ``scheme://host:port/{db}`` plus ``table``."""
    store = _RELATIONAL[key]
    _, host, port, path, query = _split_uri(text)
    if table is not None and key in ("mssql", "azure_synapse"):
        # A connection URL (mssql+pyodbc://host/db) says which row by its host;
        # a dataset URI in the documents' form says it by its scheme.
        store = _RELATIONAL[_sqlserver_store(host)]
    if path.startswith(";"):
        # sqlserver://host:1433;database=db/schema.table: properties between
        # the authority and the name, as the seed document writes Synapse.
        props, _, rest = path[1:].partition("/")
        query = "&".join(filter(None, [query, *props.split(";")]))
        path = f"/{rest}"
    if table is None:
        # The naming documents' own URI form: the path is the whole name.
        name = unquote(path.lstrip("/"))
        if not name:
            raise p.fail(text, "missing name: the URI's path names no dataset")
        return _finish(store, text, host, port, {}, name, "name")
    segments = _segments(path.split(";")[0])
    if len(segments) >= len(store.levels):
        raise p.fail(text, "path has too many parts for a table to be added")
    known: dict[str, str | None] = dict(zip(store.levels, segments, strict=False))
    for level, value in _from_params(store, _query(query)).items():
        known.setdefault(level, value)
    return _finish(store, text, host, port, known, table)


def _object_uri(text: str, table: str | None) -> DatasetName:
    scheme, host, port, path, _ = _split_uri(text)
    key = _join(unquote(path), table)
    with _as(text):
        if port is not None:
            raise p.fail(text, "invalid bucket: a bucket has no port")
        if scheme in ("s3", "s3a", "s3n"):
            return s.s3(host or "", key)
        return s.gcs(host or "", key)


def _azure_uri(text: str, table: str | None) -> DatasetName:
    scheme, _, rest = text.partition(":")
    authority, remainder = _authority(text, rest, "container@account")
    container, at, account = authority.partition("@")
    if not at:
        raise p.fail(text, "missing container: container@account expected")
    path = _join(unquote(_path_query(remainder)[0]), table)
    with _as(text):
        if scheme.lower() in ("abfs", "abfss"):
            return s.abfss(container, account, path)
        return s.wasbs(container, account, path)


def _hdfs_uri(text: str, table: str | None) -> DatasetName:
    _, host, port, path, _ = _split_uri(text)
    if not host:
        raise p.fail(text, "missing namenode host")
    with _as(text):
        return s.hdfs(host, _join(unquote(path), table), port=port)


def _dbfs_uri(text: str, table: str | None) -> DatasetName:
    # dbfs://{workspace}/{path}; dbfs:/{path} (also dbfs:///{path}) names no workspace.
    authority, path = _split_fs_uri(text)
    workspace, port = p.host_port(authority)
    if port is not None:
        raise p.fail(text, "invalid workspace: a workspace has no port")
    with _as(text):
        return s.dbfs(workspace, _join(path, table))


def _file_uri(text: str, table: str | None) -> DatasetName:
    authority, path = _split_fs_uri(text)
    host, _ = p.host_port(authority)
    with _as(text):
        # RFC 8089: an empty authority and "localhost" both mean this machine.
        if not host or host.lower() == "localhost":
            return s.local_file(_join(path, table))
        return s.remote_file(host, _join(path, table))


def _kafka_uri(text: str, table: str | None) -> DatasetName:
    # kafka://{bootstrap servers}/{topic}: kafka() reads the servers.
    servers, remainder = _authority(text, text.partition(":")[2])
    topic = unquote(_path_query(remainder)[0].strip("/"))
    if table is not None:
        if topic:
            raise p.fail(text, "topic given twice: in the path and as table")
        topic = table
    with _as(text):
        return s.kafka(servers, topic)


def _pubsub_uri(text: str, table: str | None) -> DatasetName:
    # pubsub:topic:{project}:{topic}, the namespace and name joined by ':'
    body = text.partition(":")[2].lstrip("/")
    if table is not None:
        body = f"{body.rstrip(':')}:{table}" if body else table
    kind, _, rest = body.partition(":")
    project, _, resource = rest.rpartition(":")
    with _as(text):
        if kind == "topic":
            return s.pubsub_topic(project, resource)
        if kind == "subscription":
            return s.pubsub_subscription(project, resource)
    raise p.fail(text, "invalid resource type: 'topic' or 'subscription' expected")


def _inmemory_uri(text: str, table: str | None) -> DatasetName:
    body = unquote(text.partition(":")[2].lstrip("/"))
    if table is not None:
        if body:
            raise p.fail(text, "name given twice: in the URI and as table")
        body = table
    with _as(text):
        return s.in_memory(body)


def _bigquery_uri(text: str, table: str | None) -> DatasetName:
    # bigquery:{project}.{dataset}.{table}; also bigquery://{project}/{dataset}.{table}
    body = unquote(text.partition(":")[2])
    if body.startswith("//"):
        body = body[2:].replace("/", ".", 1)
    body = body.strip("/")
    store = _RELATIONAL["bigquery"]
    if table is None:
        if not body:
            raise p.fail(text, "missing name: project.dataset.table expected")
        return _finish(store, text, None, None, {}, body, "name")
    segments = p.split_qualified(body, text, "name") if body else []
    if len(segments) >= len(store.levels):
        raise p.fail(text, "URI names a table already")
    return _finish(store, text, None, None, dict(zip(store.levels, segments, strict=False)), table)


def _cosmos_uri(text: str, table: str | None) -> DatasetName:
    # azurecosmos://{host}/dbs/{database}/colls/{table}
    _, host, _, path, _ = _split_uri(text)
    segments = _segments(path)
    if len(segments) < 2 or segments[0] != "dbs":
        raise p.fail(text, "missing database: /dbs/{database} expected")
    rest = segments[2:]
    if table is not None:
        if rest:
            raise p.fail(text, "collection given twice: in the path and as table")
        rest = ["colls", table]
    if len(rest) != 2 or rest[0] != "colls":
        raise p.fail(text, "missing table: /colls/{table} expected")
    with _as(text):
        return s.azure_cosmos(host or "", segments[1], rest[1])


def _kusto_uri(text: str, table: str | None) -> DatasetName:
    # azurekusto://{cluster}.kusto.windows.net/{database}/{table}
    _, host, _, path, _ = _split_uri(text)
    segments = _segments(path)
    if table is not None:
        segments.append(table)
    if len(segments) < 1:
        raise p.fail(text, "missing database")
    if len(segments) < 2:
        raise p.fail(text, "missing table")
    if len(segments) > 2:
        raise p.fail(text, "path has too many parts: /{database}/{table} expected")
    with _as(text):
        return s.azure_data_explorer(host or "", segments[0], segments[1])


def _glue_arn(text: str, table: str | None) -> DatasetName:
    # arn:{partition}:glue:{region}:{account}:table/{database}/{table}
    fields = text.split(":", 5)
    if len(fields) < 5 or fields[2].lower() != "glue":
        raise p.fail(text, "unsupported ARN: only AWS Glue ARNs name datasets")
    resource = fields[5] if len(fields) == 6 else ""
    if table is not None:
        resource = f"{resource.rstrip('/')}/{table}" if resource else f"table/{table}"
    kind, _, rest = resource.partition("/")
    if kind == "database" and table is not None:
        kind, rest = "table", resource.partition("/")[2]
    if kind != "table":
        raise p.fail(
            text, "missing table: arn:aws:glue:{region}:{account}:table/{database}/{table}"
        )
    database, _, name = rest.partition("/")
    if not database:
        raise p.fail(text, "missing database")
    if not name:
        raise p.fail(text, "missing table")
    with _as(text):
        return s.glue(fields[3], fields[4], database, name, partition=fields[1])


def _document_uri(text: str, table: str | None) -> DatasetName:
    # box://{host}:{port}/{enterprise}/{key}, filenet://.../{repository}/{key},
    # mssharepoint://.../{site}/{key}
    scheme, host, port, path, _ = _split_uri(text)
    segments = path.lstrip("/").split("/", 1)
    root = unquote(segments[0])
    key = _join(unquote(segments[1]) if len(segments) > 1 else "", table)
    with _as(text):
        if scheme == "box":
            return s.box(host or "", root, key, port=port)
        if scheme == "filenet":
            return s.filenet(host or "", root, key, port=port)
        return s.sharepoint(host or "", root, key, port=port)


def _sqlite(text: str, location: str, table: str) -> DatasetName:
    """An SQLite database, ``location`` what follows ``sqlite:`` or ``jdbc:sqlite:``.

    Files: ``sqlite:///abs/path.db``, ``jdbc:sqlite:/abs/path.db``,
    ``jdbc:sqlite:file:/abs/path.db?mode=ro``; in memory: ``sqlite://``,
    ``sqlite:///:memory:``, ``jdbc:sqlite::memory:``, ``jdbc:sqlite:file::memory:``.
    """
    path = location.split("?")[0].removeprefix("file:").removeprefix("//")
    with _as(text):
        if path in ("", "/:memory:") or path.startswith(":memory:"):
            return s.in_memory(table)
        return s.sqlite(unquote(path), table)


def _sqlite_uri(text: str, table: str | None) -> DatasetName:
    # The URI names the database, the namespace; the table is the name.
    return _sqlite(text, text.partition(":")[2], _table(text, table))


_AZURE_HTTPS_RE = re.compile(r"^(?P<account>[a-z0-9]+)\.(?P<kind>blob|dfs)\.core\.windows\.net$")
_S3_HTTPS_RE = re.compile(
    r"^(?:(?P<bucket>.+)\.)?s3(?:[.-](?:dualstack\.)?[a-z0-9-]+)?\.amazonaws\.com(?:\.cn)?$"
)


def _https_uri(text: str, table: str | None) -> DatasetName:
    """Object store URLs in their HTTPS form; their query (SAS tokens, signatures) is dropped."""
    _, host, _port, path, _ = _split_uri(text)
    host_l = (host or "").lower()
    amazon = _S3_HTTPS_RE.match(host_l)
    # The first path segment is the container or bucket, the rest the key ...
    first, _, rest = path.lstrip("/").partition("/")
    if amazon and amazon["bucket"]:
        # ... but a virtual-hosted style S3 URL has the bucket in the host.
        first, rest = amazon["bucket"], path
    first, rest = unquote(first), _join(unquote(rest), table)
    with _as(text):
        azure = _AZURE_HTTPS_RE.match(host_l)
        if azure:
            if azure["kind"] == "dfs":
                return s.abfss(first, azure["account"], rest)
            return s.wasbs(first, azure["account"], rest)
        if host_l == "storage.googleapis.com":
            return s.gcs(first, rest)
        if amazon:
            return s.s3(first, rest)
    raise p.fail(text, "unsupported host: not an S3, GCS or Azure storage endpoint")


# --------------------------------------------------------------------------- JDBC


def _jdbc_hostbased(
    key: str, text: str, rest: str, table: str, path_levels: tuple[str, ...]
) -> DatasetName:
    """``{sub}://host:port/{path levels}[;props][?params]`` — the common JDBC layout."""
    store = _RELATIONAL[key]
    host, port, remainder = _server(text, rest)
    path, query = _path_query(remainder)
    path, params = _jdbc_props(path)
    params.update(_query(query))
    segments = _segments(path)
    if len(segments) > len(path_levels):
        raise p.fail(text, "path has too many parts")
    known: dict[str, str | None] = dict(zip(path_levels, segments, strict=False))
    for level, value in _from_params(store, params).items():
        if not known.get(level):
            known[level] = value
    return _finish(store, text, host, port, known, table)


def _jdbc_postgres(text: str, rest: str, table: str) -> DatasetName:
    if not rest.startswith("//"):
        # jdbc:postgresql:{database} connects to localhost.
        database, _, query = rest.partition("?")
        rest = f"//localhost/{database.lstrip('/')}" + (f"?{query}" if query else "")
    return _jdbc_hostbased("postgres", text, rest, table, ("database",))


def _jdbc_sqlserver(text: str, rest: str, table: str) -> DatasetName:
    # jdbc:sqlserver://[host[\instance][:port]][;key=value]*
    authority, remainder = _authority(text, rest)
    _, params = _jdbc_props(remainder)
    server, port = p.host_port(authority)
    hostpart, _, instance = (server or "").partition("\\")
    host = hostpart or params.get("servername")
    port_value = port or params.get("portnumber")
    instance = instance or params.get("instancename", "")
    if not host:
        raise p.fail(text, "missing host")
    if instance and not port_value:
        # A named instance's port is handed out at connect time by the SQL
        # Browser service; it cannot be known from the URL.
        raise p.fail(text, "missing port: a named instance needs portNumber")
    store = _RELATIONAL[_sqlserver_store(host)]
    known = _from_params(_RELATIONAL["mssql"], params)
    return _finish(store, text, host, port_value, known, table)


def _jdbc_jtds(text: str, rest: str, table: str) -> DatasetName:
    # jdbc:jtds:sqlserver://host[:port][/database][;key=value]*
    sub, _, rest = rest.partition(":")
    if sub.lower() != "sqlserver":
        raise p.fail(text, f"unsupported jTDS server type {sub!r}")
    host, port, remainder = _server(text, rest)
    path, params = _jdbc_props(remainder)
    if params.get("instance") and not port:
        raise p.fail(text, "missing port: a named instance needs a port")
    segments = _segments(path)
    known: dict[str, str | None] = {
        "database": segments[0] if segments else params.get("databasename")
    }
    return _finish(_RELATIONAL[_sqlserver_store(host)], text, host, port, known, table)


_TNS_RE = re.compile(r"\(\s*(HOST|PORT|SERVICE_NAME|SID)\s*=\s*([^()\s]+)\s*\)", re.IGNORECASE)


def _tns(text: str, descriptor: str, table: str) -> DatasetName:
    values: dict[str, str] = {}
    for key, value in _TNS_RE.findall(descriptor):
        # A list of addresses names the database by its first.
        values.setdefault(key.upper(), value)
    host = values.get("HOST")
    if not host:
        raise p.fail(text, "missing host: the descriptor has no (HOST=...)")
    service = values.get("SERVICE_NAME") or values.get("SID")
    return _finish(
        _RELATIONAL["oracle"], text, host, values.get("PORT"), {"service": service}, table
    )


_ORACLE_RE = re.compile(r"^(?P<driver>thin|oci8?|kprb):(?P<target>.*)$", re.IGNORECASE | re.DOTALL)
_TCP_RE = re.compile(r"^tcps?://", re.IGNORECASE)


def _jdbc_oracle(text: str, rest: str, table: str) -> DatasetName:
    match = _ORACLE_RE.match(rest)
    if not match:
        raise p.fail(text, "missing driver type: jdbc:oracle:thin:@... expected")
    target = match["target"]
    if "@" not in target:
        raise p.fail(text, "missing '@' before host")
    # Everything before the last '@' is user/password.
    target = target.rpartition("@")[2].strip()
    if target.startswith("("):
        return _tns(text, target, table)
    target = target.split("?")[0]
    if target.lower().startswith(("ldap:", "ldaps:")):
        raise p.fail(text, "missing host: an LDAP lookup does not name the database host")
    target = _TCP_RE.sub("//", target)
    service: str | None
    if target.startswith("//") or "/" in target:
        # EZConnect: [//]host[:port]/service[:server][/instance]
        authority, _, path = target.lstrip("/").partition("/")
        host, port = p.host_port(authority)
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
            raise p.fail(text, "missing host: a net service name is resolved by tnsnames.ora")
        else:
            host, port = pieces
            service = None
    if not host:
        raise p.fail(text, "missing host")
    return _finish(_RELATIONAL["oracle"], text, host, port or None, {"service": service}, table)


def _jdbc_redshift(text: str, rest: str, table: str) -> DatasetName:
    # jdbc:redshift://{endpoint}:5439/db, jdbc:redshift:iam://{cluster}:{region}/db
    if rest.lower().startswith("iam:"):
        rest = rest[4:]
    return _jdbc_hostbased("redshift", text, rest, table, ("database",))


_MYSQL_MODE_RE = re.compile(r"^[a-z+]+$", re.IGNORECASE)
_CLICKHOUSE_PROTOCOL_RE = re.compile(r"^(?:https?|grpc|tcp):(?=//)", re.IGNORECASE)


def _jdbc_mysql(text: str, rest: str, table: str) -> DatasetName:
    # jdbc:mysql://, jdbc:mysql:loadbalance://, jdbc:mysql:replication://,
    # jdbc:mysql+srv://, jdbc:mariadb://, jdbc:mariadb:sequential:// ...
    while rest and not rest.startswith("//"):
        mode, colon, rest = rest.partition(":")
        if not colon or not _MYSQL_MODE_RE.match(mode):
            raise p.fail(text, "missing '//' and host")
    return _jdbc_hostbased("mysql", text, rest, table, ("database",))


def _jdbc_clickhouse(text: str, rest: str, table: str) -> DatasetName:
    # jdbc:clickhouse://, jdbc:ch://, jdbc:clickhouse:http(s)://, jdbc:ch:grpc://
    match = _CLICKHOUSE_PROTOCOL_RE.match(rest)
    if match:
        rest = rest[match.end() :]
    return _jdbc_hostbased("clickhouse", text, rest, table, ("database",))


def _jdbc_db2(text: str, rest: str, table: str) -> DatasetName:
    # jdbc:db2://host:50000/DB:currentSchema=S;user=u;password=p;
    host, port, remainder = _server(text, rest)
    database, _, props_text = remainder.lstrip("/").partition(":")
    params = _props(props_text)
    known: dict[str, str | None] = {"database": unquote(database) or None}
    known.update(_from_params(_RELATIONAL["db2"], params))
    return _finish(_RELATIONAL["db2"], text, host, port, known, table)


def _jdbc_teradata(text: str, rest: str, table: str) -> DatasetName:
    # jdbc:teradata://host/DATABASE=db,DBS_PORT=1025,USER=u,PASSWORD=p
    host, _, remainder = _server(text, rest)
    params = _props(remainder.lstrip("/"), ",")
    known = _from_params(_RELATIONAL["teradata"], params)
    return _finish(_RELATIONAL["teradata"], text, host, params.get("dbs_port"), known, table)


def _jdbc_hive(text: str, rest: str, table: str) -> DatasetName:
    # jdbc:hive2://host:10000/db;principal=...?hiveconf#hivevars
    lowered = rest.lower()
    if "servicediscoverymode=zookeeper" in lowered.replace(" ", ""):
        raise p.fail(text, "missing host: ZooKeeper discovery does not name the HiveServer2 host")
    return _jdbc_hostbased("hive_server2", text, rest, table, ("database",))


def _jdbc_databricks(text: str, rest: str, table: str) -> DatasetName:
    # jdbc:databricks://host:443/default;httpPath=...;ConnCatalog=c;ConnSchema=s;PWD=...
    host, port, remainder = _server(text, rest)
    path, params = _jdbc_props(remainder)
    store = _RELATIONAL["unity_catalog"]
    known = _from_params(store, params)
    segments = _segments(path)
    if not known.get("schema") and segments:
        known["schema"] = segments[0]
    return _finish(store, text, host, port, known, table)


def _jdbc_athena(text: str, rest: str, table: str) -> DatasetName:
    # jdbc:awsathena://AwsRegion=us-east-1;... or //athena.{region}.amazonaws.com:443;...
    authority, remainder = _authority(text, rest)
    _, params = _jdbc_props(remainder)
    host: str | None = None
    if "=" in authority:
        # No host: the properties start right after '//'.
        params.update(_props(authority))
    else:
        host, _ = p.host_port(authority)
    region = _first(params, "awsregion", "region")
    if host and not region:
        region = _athena_region(text, host)
    if not region:
        raise p.fail(text, "missing region: AwsRegion= or the athena.{region} host")
    store = _RELATIONAL["athena"]
    known = _from_params(store, params)
    return _finish(store, text, f"athena.{region}.amazonaws.com", None, known, table)


_SPANNER_PATH_RE = re.compile(r"^/projects/([^/]+)/instances/([^/]+)/databases/([^/]+)/?$")


def _jdbc_spanner(text: str, rest: str, table: str) -> DatasetName:
    # jdbc:cloudspanner:[//host:port]/projects/p/instances/i/databases/d[;props]
    path = rest.split(";")[0].split("?")[0]
    if path.startswith("//"):
        _, path = _authority(text, path)
    match = _SPANNER_PATH_RE.match(path)
    if not match:
        raise p.fail(text, "missing database: /projects/{p}/instances/{i}/databases/{d} expected")
    project, instance, database = (unquote(x) for x in match.groups())
    return _finish(_RELATIONAL["spanner"], text, project, instance, {"database": database}, table)


def _jdbc_bigquery(text: str, rest: str, table: str) -> DatasetName:
    # jdbc:bigquery://https://www.googleapis.com/bigquery/v2:443;ProjectId=p;DefaultDataset=d
    _, params = _jdbc_props(rest)
    store = _RELATIONAL["bigquery"]
    return _finish(store, text, None, None, _from_params(store, params), table)


def _jdbc_h2(text: str, rest: str, table: str) -> DatasetName:
    # jdbc:h2:mem:{name}, jdbc:h2:[file:]{absolute path}, jdbc:h2:tcp://host[:port]/{path};
    # then ;KEY=VALUE properties.
    body, params = _jdbc_props(rest)
    kind, _, location = body.partition(":")
    host: str | None = None
    port: str | None = None
    database: str | None = None
    if kind.lower() == "mem":
        if not location:
            raise p.fail(text, "missing database: an unnamed in-memory database is private")
        key, database = "h2_memory", location
    elif kind.lower() in ("tcp", "ssl"):
        key = "h2_server"
        host, port, path = _server(text, location)
        database = path.lstrip("/")
    else:
        key, host = "h2_file", body.removeprefix("file:")
    store = _RELATIONAL[key]
    known = {"database": database, **_from_params(store, params)}
    return _finish(store, text, host, port, known, table)


def _jdbc_simple(key: str, path_levels: tuple[str, ...]) -> Callable[[str, str, str], DatasetName]:
    def parse(text: str, rest: str, table: str) -> DatasetName:
        return _jdbc_hostbased(key, text, rest, table, path_levels)

    return parse


_JDBC: Mapping[str, Callable[[str, str, str], DatasetName]] = MappingProxyType(
    {
        "postgresql": _jdbc_postgres,
        "mysql": _jdbc_mysql,
        "mysql+srv": _jdbc_mysql,
        "mariadb": _jdbc_mysql,
        "oceanbase": _jdbc_simple("oceanbase", ("database",)),
        "sqlserver": _jdbc_sqlserver,
        "jtds": _jdbc_jtds,
        "oracle": _jdbc_oracle,
        "redshift": _jdbc_redshift,
        "snowflake": _jdbc_simple("snowflake", ()),
        "db2": _jdbc_db2,
        "teradata": _jdbc_teradata,
        "trino": _jdbc_simple("trino", ("catalog", "schema")),
        "presto": _jdbc_simple("presto", ("catalog", "schema")),
        "clickhouse": _jdbc_clickhouse,
        "ch": _jdbc_clickhouse,
        "crate": _jdbc_simple("crate", ("schema",)),
        "hive2": _jdbc_hive,
        "hive": _jdbc_hive,
        "databricks": _jdbc_databricks,
        "spark": _jdbc_databricks,
        "awsathena": _jdbc_athena,
        "cloudspanner": _jdbc_spanner,
        "bigquery": _jdbc_bigquery,
        "sqlite": _sqlite,
        "h2": _jdbc_h2,
    }
)


def _jdbc(text: str, table: str | None) -> DatasetName:
    rest = text[5:]
    sub, colon, after = rest.partition(":")
    parse = _JDBC.get(sub.lower())
    if not colon or parse is None:
        raise p.fail(text, f"unsupported JDBC driver {p.redact(sub)!r}")
    return parse(text, after, _table(text, table))


# --------------------------------------------------------------------------- entry point

_URI: Mapping[str, Callable[[str, str | None], DatasetName]] = MappingProxyType(
    {
        "s3": _object_uri,
        "s3a": _object_uri,
        "s3n": _object_uri,
        "gs": _object_uri,
        "gcs": _object_uri,
        "abfs": _azure_uri,
        "abfss": _azure_uri,
        "wasb": _azure_uri,
        "wasbs": _azure_uri,
        "hdfs": _hdfs_uri,
        "dbfs": _dbfs_uri,
        "file": _file_uri,
        "kafka": _kafka_uri,
        "pubsub": _pubsub_uri,
        "inmemory": _inmemory_uri,
        "bigquery": _bigquery_uri,
        "bq": _bigquery_uri,
        "azurecosmos": _cosmos_uri,
        "azurekusto": _kusto_uri,
        "arn": _glue_arn,
        "box": _document_uri,
        "filenet": _document_uri,
        "mssharepoint": _document_uri,
        "sqlite": _sqlite_uri,
        "https": _https_uri,
        "http": _https_uri,
    }
)

# URI schemes in the documents' "scheme://host:port/{name}" form, and the
# database URL spellings (SQLAlchemy and libpq) that mean the same store.
_RELATIONAL_SCHEMES: Mapping[str, str] = MappingProxyType(
    {
        "postgres": "postgres",
        "postgresql": "postgres",
        "mysql": "mysql",
        "mariadb": "mysql",
        "oceanbase": "oceanbase",
        "clickhouse": "clickhouse",
        "crate": "crate",
        "db2": "db2",
        "hive": "hive",
        "thrift": "hive",
        "trino": "trino",
        "presto": "presto",
        "teradata": "teradata",
        "oracle": "oracle",
        "cassandra": "cassandra",
        "milvus": "milvus",
        "unitycatalog": "unity_catalog",
        "fabric-warehouse": "fabric_warehouse",
        "sqlserver": "azure_synapse",
        "mssql": "mssql",
        "snowflake": "snowflake",
        "spanner": "spanner",
        "redshift": "redshift",
        "awsathena": "athena",
    }
)


def dataset_from_uri(uri: str, table: str | None = None) -> DatasetName:
    """Name a dataset from a URI or JDBC URL, following the naming conventions.

    Args:
        uri: Where the dataset lives. One of:

            * an object store or file system location: ``s3://bucket/key``
              (also ``s3a``/``s3n``), ``gs://``, ``abfss://`` (also ``abfs``),
              ``wasbs://`` (also ``wasb``), ``hdfs://``, ``dbfs://`` (or
              ``dbfs:/{path}``, naming no workspace), ``file:``, an absolute
              path, or the HTTPS URL of an S3, GCS or Azure storage object.
              An absolute path (``/data/orders.csv``, ``C:\\data``) is a path,
              not a URL: ``#``, ``?`` and ``%`` in it are part of the file's name;
            * a JDBC URL: ``jdbc:postgresql:``, ``mysql``, ``mariadb``,
              ``sqlserver``, ``jtds:sqlserver``, ``oracle:thin``, ``redshift``,
              ``snowflake``, ``db2``, ``teradata``, ``trino``, ``presto``,
              ``clickhouse``, ``crate``, ``oceanbase``, ``hive2``,
              ``databricks``, ``awsathena``, ``cloudspanner``, ``bigquery``,
              ``sqlite``, ``h2``;
            * a database URL such as ``postgresql://host/db`` (SQLAlchemy or
              libpq style), with ``table``;
            * a dataset URI in the naming conventions' own form,
              ``namespace/name``: ``postgres://host:5432/db.schema.table``,
              ``kafka://host:9092/topic``, ``bigquery:project.dataset.table``,
              ``pubsub:topic:project:topic``, ``inmemory://name``,
              ``arn:aws:glue:region:account:table/db/table`` and so on for
              every store.
        table: The dataset inside the location ``uri`` gives: for a database
            URL, a table name that may be qualified (``orders``,
            ``sales.orders``, ``"My Schema".orders``), as Spark's ``dbtable``
            option gives it; its parts fill the last levels of the store's
            hierarchy and the URL the rest. For a file or object store
            location, a relative path appended to it; for Kafka, the topic.

    Returns:
        The dataset's namespace and name.

    Raises:
        NamingError: The input is malformed or incomplete, or names a store
            or scheme the conventions do not cover. The message names the
            wrong part and masks every credential.
    """
    if not p.text(uri):
        raise NamingError("dataset_from_uri", "missing uri")
    if table is not None and not isinstance(table, str):
        raise NamingError("dataset_from_uri", "invalid table: a string expected")
    text = uri.strip()
    if text.startswith("/") or p.WINDOWS_PATH_RE.match(text):
        # A plain path, not a URL: '?', '#' and '%' are part of the file's name.
        with _as(text):
            return s.local_file(_join(text, table))
    scheme, colon, _ = text.partition(":")
    if not colon or not _SCHEME_RE.match(scheme):
        raise p.fail(text, "missing scheme")
    lowered = scheme.lower()
    if lowered == "jdbc":
        return _jdbc(text, table)
    # SQLAlchemy spells the driver after a '+': postgresql+psycopg2://
    base = lowered.split("+")[0]
    handler = _URI.get(base)
    if handler is not None:
        return handler(text, table)
    key = _RELATIONAL_SCHEMES.get(base)
    if key is not None:
        return _relational_uri(key, text, table)
    raise p.fail(text, f"unsupported scheme {p.redact(scheme)!r}")
