"""JDBC tables named as the OpenLineage Java client names them (the JVM agents' rule).

The Java client's ``JdbcDatasetUtils`` (used by the openlineage-spark agent for every JDBC read
and write, and by the Flink and Hive integrations) names a JDBC table by one extractor per
driver, and differs from the naming conventions of :func:`~openlineage_sdk.naming.dataset_from_uri`
in several places: it never reads a schema from the URL (``currentSchema``), puts the URL's
database in front of the table's own parts (``{database}.{table}`` for an unqualified table,
where the conventions ask for a schema), names SQL Server ``sqlserver://`` (with the instance
after a slash), gives DB2 the port 6789, and names any driver it has no extractor for after its
URL (``mariadb://host:3306``, ``h2:mem:db``). :func:`jdbc_dataset` follows it, extractor by
extractor, so that a table the adapter reports and the same table the JVM agent reports are one
dataset.

What the rule reads from a URL is its scheme, hosts, ports, the database (or service, SID,
instance) and, for SQL Server and Teradata, the few properties that name those. Credentials
(``user:password@``, Oracle's ``user/password@``, ``password=`` and the like) are never copied:
a URL no extractor can read is named by the URL itself with every credential and its query
dropped, as the Java client's sanitizer drops them, and the other credential parameters the
naming module knows (``pwd=``, ``token=``...) dropped too.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from openlineage_sdk.naming._model import DatasetName
from openlineage_sdk.naming._parts import SECRET_PARAMETER

__all__ = ["jdbc_dataset", "jdbc_dialect", "jdbc_table_parts", "jdbc_url_without_credentials"]


class _UnreadableError(ValueError):
    """The URL is not of the form its extractor reads: it is named by the URL itself."""


@dataclass(frozen=True)
class _Location:
    scheme: str
    authority: str | None = None
    instance: str | None = None
    database: str | None = None
    qualified_parts: int | None = None  # MySQL, ClickHouse: this many parts need no database

    def namespace(self) -> str:
        result = self.scheme.lower() + ":"
        if self.authority is not None:
            result = f"{result}//{self.authority.lower()}"
        if self.instance is not None:
            result = f"{result}/{self.instance.lstrip('/')}"
        return result

    def name(self, parts: Sequence[str]) -> str:
        if self.qualified_parts is not None and len(parts) >= self.qualified_parts:
            return ".".join(parts)
        if self.database is not None:
            return ".".join([self.database, *parts])
        return ".".join(parts)


# -------------------------------------------------------------------------- the generic reader

# A host as java.net.URI reads a server-based authority: a domain name (letters, digits and
# '-' in each label; '_' makes the authority "registry-based", without a host), an IPv4
# address, or an IPv6 address in brackets.
_HOSTNAME = re.compile(
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)*[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.?"
)
_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_IPV6 = re.compile(r"\[[0-9A-Fa-f:.]+(?:%[\w.~-]+)?\]")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")
_MULTI_HOST = re.compile(
    r"(?P<scheme>\w+)://(?P<authority>[\w.\[\]:,-]+)/?(?P<database>[\w.]+)?(?:\?.*)?", re.DOTALL
)


def _server_authority(authority: str) -> tuple[str, int | None]:
    """``(host, port)`` of a server-based authority, as ``java.net.URI`` reads it."""
    hostport = authority.rsplit("@", 1)[-1] if "@" in authority else authority
    if hostport.startswith("["):
        end = hostport.find("]")
        host, rest = hostport[: end + 1], hostport[end + 1 :]
        if not _IPV6.fullmatch(host):
            raise _UnreadableError("missing host")
    else:
        host, _, port_text = hostport.partition(":")
        rest = ":" + port_text if _ else ""
        if not (_IPV4.fullmatch(host) or _HOSTNAME.fullmatch(host)):
            raise _UnreadableError("missing host")
    if not rest or rest == ":":  # no port, or an empty one
        return host, None
    if not rest.startswith(":") or not rest[1:].isdigit():
        raise _UnreadableError("missing host")  # java.net.URI: a registry-based authority
    return host, int(rest[1:])


def _generic(uri: str) -> _Location:
    """The Java client's generic extractor: ``scheme://host[:port][/database]``."""
    if "," in uri:
        match = _MULTI_HOST.fullmatch(uri)
        if match is None:
            raise _UnreadableError("failed to parse jdbc url")
        return _Location(match["scheme"], match["authority"], None, match["database"])
    scheme, colon, rest = uri.partition(":")
    if not colon or not _SCHEME.fullmatch(scheme) or not rest.startswith("//"):
        raise _UnreadableError("missing host")  # an opaque URI (h2:mem:db) has no host
    body = rest[2:]
    end = len(body)
    for mark in "/?#":
        found = body.find(mark)
        if found != -1:
            end = min(end, found)
    authority, tail = body[:end], body[end:]
    host, port = _server_authority(authority)
    path = re.split(r"[?#]", tail, maxsplit=1)[0]
    database = path.replace("/", "", 1) or None
    return _Location(scheme, f"{host}:{port}" if port else host, None, database)


_HOST_PORT = re.compile(r"^(?:\[.*]|[^:\]]+):\d*$")


def _overriding(scheme: str, default_port: str | None) -> Callable[[str], _Location]:
    """The generic reader with the store's scheme, and its default port on hosts without one."""

    def extract(uri: str) -> _Location:
        found = _generic(uri)
        authority = found.authority
        if authority is not None and default_port is not None:
            authority = ",".join(
                host if _HOST_PORT.match(host) else f"{host}:{default_port}"
                for host in authority.split(",")
            )
        return _Location(scheme, authority, found.instance, found.database)

    return extract


# --------------------------------------------------------------------------- the extractors


def _mysql(uri: str) -> _Location:
    # mysql:, mysql:loadbalance:, mysql+srv: ... all become mysql://; a database and a table
    # are the two levels MySQL has, so a qualified table keeps its own database.
    found = _overriding("mysql", "3306")(re.sub(r"^[\w+:]+://", "mysql://", uri, count=1))
    return _Location(found.scheme, found.authority, found.instance, found.database, 2)


def _clickhouse(uri: str) -> _Location:
    uri = re.sub(r"^ch:", "clickhouse:", uri, count=1)
    uri = re.sub(r"^clickhouse:(?:https?|grpc)://", "clickhouse://", uri, count=1)
    found = _overriding("clickhouse", "8123")(uri)
    return _Location(found.scheme, found.authority, found.instance, found.database, 2)


def _oceanbase(uri: str) -> _Location:
    return _overriding("oceanbase", "2881")(re.sub(r"^[\w+:]+://", "oceanbase://", uri, count=1))


def _cassandra(uri: str) -> _Location:
    return _overriding("cassandra", "9042")(uri.replace("--", ","))


_SQLSERVER_URL = re.compile(
    r"(?:[\w:]+)://(?P<host>[\w.-]+)?(?P<instance>\\\w+)?(?P<port>:\d+)?(?P<database>/\w+)?"
    r"(?P<params>;.*)?",
    re.DOTALL,
)


def _sqlserver(uri: str, properties: Mapping[str, str]) -> _Location:
    match = _SQLSERVER_URL.fullmatch(uri)
    if match is None:
        raise _UnreadableError("failed to parse jdbc url")
    # The URL's own parts first, then its properties, then the connection's.
    found: dict[str, str] = {}
    for key, group in (
        ("servername", "host"),
        ("portnumber", "port"),
        ("instance", "instance"),
        ("database", "database"),
    ):
        if match[group] is not None:
            found[key] = match[group].lstrip(":\\/")
    for pair in (match["params"] or "").replace(";", "", 1).split(";"):
        key_value = pair.split("=")
        if len(key_value) == 2:
            found[key_value[0].lower()] = key_value[1]
    for key, value in properties.items():
        found.setdefault(key.lower(), value)
    host = found.get("servername")
    if host is None:
        raise _UnreadableError("missing host")
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    port = found.get("portnumber")
    authority = f"{host}:{port}" if port is not None else host
    instance = found.get("instance", found.get("instancename"))
    database = found.get("databasename", found.get("database"))
    return _Location("sqlserver", authority, instance, database)


_TERADATA_URL = re.compile(r"(?:\w+)://(?P<host>[\w.\[\]:-]+)?/?(?P<params>.*)", re.DOTALL)


def _teradata(uri: str) -> _Location:
    match = _TERADATA_URL.fullmatch(uri)
    if match is None:
        raise _UnreadableError("failed to parse jdbc url")
    if match["host"] is None:
        raise _UnreadableError("missing host")
    params: dict[str, str] = {}
    for pair in match["params"].split(","):
        key_value = pair.split("=")
        if len(key_value) == 2:
            params[key_value[0].upper()] = key_value[1]
    port = params.get("DBS_PORT", "1025")
    return _Location("teradata", f"{match['host']}:{port}", None, params.get("DATABASE"))


_DERBY_DATABASE = re.compile(r"databaseName=([^;]+)")


def _derby(uri: str, derby_home: str | None) -> _Location:
    # The Java client places an embedded Derby database under derby.system.home (else the
    # working folder) and names it "metastore_db" unless the URL's databaseName says otherwise.
    match = _DERBY_DATABASE.search(uri)
    database = match.group(1) if match else "metastore_db"
    home = derby_home if derby_home is not None else os.getcwd()
    location = posixpath.normpath(f"{home}/{database}")
    return _Location("file", None, location, None)


_ORACLE_START = re.compile(r"^.*@(?://)?", re.DOTALL)


def _oracle(uri: str) -> _Location:
    uri = re.sub(r"\?.*$", "", _ORACLE_START.sub("", uri, count=1), flags=re.DOTALL)
    if "(" in uri:
        return _oracle_tns(uri)
    if "ldap" in uri.lower():
        uri = _oracle_ldap(uri)
    uri = re.sub(r"^\w+://", "", uri, count=1)
    return _overriding("oracle", "1521")("oracle://" + _oracle_sid(uri))


def _oracle_sid(uri: str) -> str:
    # host:1521:sid -> host:1521/sid; host:1521, host:1521/service and [v6] stay as they are.
    if ":" not in uri:
        return uri
    components = uri.split(":")
    last = components.pop()
    if "]" in last or last.isdigit() or "/" in last:
        return uri
    return ":".join(components) + "/" + last


def _oracle_ldap(uri: str) -> str:
    for token in uri.split("\\s+"):  # as the Java client splits it: on that literal text
        lower = token.lower()
        if "ldap:" in lower or "ldaps:" in lower:
            found = token[lower.index("ldap") :]
            rest = re.sub(r"(?i)^ldaps?:(?://)?", "", found, count=1)
            segments = rest.split("/")
            database = segments[-1].split(",")[0] if len(segments) > 1 else ""
            return f"{segments[0]}/{database}"
    return uri


def _tns_nodes(text: str) -> list[tuple[str, str | None, list[object]]]:
    """A TNS descriptor as nested ``(KEY, value, children)``; raises on unbalanced text."""
    position = 0

    def skip() -> None:
        nonlocal position
        while position < len(text) and text[position].isspace():
            position += 1

    def node() -> tuple[str, str | None, list[object]]:
        nonlocal position
        if position >= len(text) or text[position] != "(":
            raise _UnreadableError("malformed TNS descriptor")
        position += 1
        skip()
        start = position
        while position < len(text) and text[position] not in "=)":
            position += 1
        key = text[start:position].strip().upper()
        value: str | None = None
        children: list[object] = []
        if position < len(text) and text[position] == "=":
            position += 1
            skip()
            if position < len(text) and text[position] == "(":
                while position < len(text) and text[position] == "(":
                    children.append(node())
                    skip()
            else:
                start = position
                while position < len(text) and text[position] != ")":
                    position += 1
                value = text[start:position].strip()
        skip()
        if position >= len(text) or text[position] != ")":
            raise _UnreadableError("malformed TNS descriptor")
        position += 1
        return key, value, children

    skip()
    root = node()
    skip()
    if position < len(text):
        raise _UnreadableError("malformed TNS descriptor")
    return [root]


def _tns_find(nodes: list[object], key: str) -> list[tuple[str, str | None, list[object]]]:
    found: list[tuple[str, str | None, list[object]]] = []
    for item in nodes:
        node = item if isinstance(item, tuple) else None
        if node is None:
            continue
        if node[0] == key:
            found.append(node)
        found.extend(_tns_find(node[2], key))
    return found


def _tns_value(node: tuple[str, str | None, list[object]], key: str) -> str | None:
    for child in node[2]:
        if isinstance(child, tuple) and child[0] == key and child[1] is not None:
            return str(child[1])
    return None


def _oracle_tns(uri: str) -> _Location:
    root: list[object] = list(_tns_nodes(uri))
    hosts = []
    for address in _tns_find(root, "ADDRESS"):
        host = _tns_value(address, "HOST")
        if host is not None:
            hosts.append(f"{host}:{_tns_value(address, 'PORT') or '1521'}")
    if not hosts:
        raise _UnreadableError("no ADDRESS in the TNS descriptor")
    identifier = None
    for connect in _tns_find(root, "CONNECT_DATA")[:1]:
        identifier = (
            _tns_value(connect, "SERVICE_NAME")
            or _tns_value(connect, "SID")
            or _tns_value(connect, "INSTANCE_NAME")
        )
    suffix = f"/{identifier}" if identifier is not None else ""
    return _overriding("oracle", "1521")("oracle://" + ",".join(hosts) + suffix)


def _extract(uri: str, properties: Mapping[str, str], derby_home: str | None) -> _Location:
    lower = uri.lower()
    if lower.startswith("postgres"):
        return _overriding("postgres", "5432")(uri)
    if lower.startswith("oracle"):
        return _oracle(uri)
    if lower.startswith("mysql"):
        return _mysql(uri)
    if lower.replace("jtds:", "").startswith("sqlserver"):
        return _sqlserver(uri, properties)
    if lower.startswith("teradata"):
        return _teradata(uri)
    if uri.startswith("derby:"):
        return _derby(uri, derby_home)
    for prefix, port in (("crate", "5432"), ("db2", "6789"), ("trino", "443")):
        if lower.startswith(prefix):
            return _overriding(prefix, port)(uri)
    if lower.startswith("oceanbase"):
        return _oceanbase(uri)
    if uri.startswith(("ch:", "clickhouse:")):
        return _clickhouse(uri)
    if lower.startswith("cassandra"):
        return _cassandra(uri)
    return _generic(uri)


# What the Java client's sanitizer drops from a URL it cannot read.
_SLASH_CREDENTIALS = re.compile(r"[A-Za-z0-9_%]+//?[A-Za-z0-9_%]*@")
_COLON_CREDENTIALS = re.compile(r"([/|,])[A-Za-z0-9_%]+:?[A-Za-z0-9_%]*@")
_PARAM_CREDENTIALS = re.compile(r"(?i)[,;&:]?(?:user|username|password)=[^,;&:()]+[,;&:]?")
_REPEATED = re.compile(r"(?:\(\)){2,}|[,;&:]{2,}")
_QUERY = re.compile(r"\?.*$", re.DOTALL)
_USER_INFO = re.compile(r"(?<=//)[^/?#@]*@|(?<=,)[^,/?#@]*@")
_OTHER_SECRETS = re.compile(
    "[,;&:]?(?:" + SECRET_PARAMETER.pattern.removeprefix("(?i)") + ")", re.IGNORECASE
)


def _sanitized(uri: str) -> str:
    text = _SLASH_CREDENTIALS.sub("@", uri)
    text = _COLON_CREDENTIALS.sub(r"\1", text)
    text = _PARAM_CREDENTIALS.sub("", text)
    text = _REPEATED.sub("", text)
    text = _QUERY.sub("", text)
    # Beyond the Java client: user info of any spelling, and credentials it does not know
    # (pwd=, token=, AccountKey=), are not copied either.
    text = _USER_INFO.sub("", text)
    return _OTHER_SECRETS.sub("", text)


def jdbc_table_parts(name: str) -> list[str]:
    """A table name split into its parts on dots, as the Java client splits it (quotes kept)."""
    return name.split(".")


def jdbc_dataset(
    url: str,
    table: str | Sequence[str],
    properties: Mapping[str, str] | None = None,
    *,
    derby_home: str | None = None,
) -> DatasetName:
    """The dataset of JDBC table ``table`` at ``url``, as the Java client names it.

    Args:
        url: The JDBC URL (``jdbc:postgresql://db:5432/shop``); the ``jdbc:`` prefix is
            optional, and read without case.
        table: The table as Spark was given it (``orders``, ``sales.orders``), or its parts.
        properties: The connection's properties (Spark's JDBC options): SQL Server reads the
            server, port, instance and database from them when the URL does not say.
        derby_home: ``derby.system.home`` of the JVM that opens an embedded Derby database
            (where its relative ``databaseName`` lives); the working folder when ``None``.

    Returns:
        ``postgres://db:5432`` / ``shop.sales.orders``; for a URL no extractor reads, the URL
        without credentials or query as the namespace, and the table's parts as the name.
    """
    parts = jdbc_table_parts(table) if isinstance(table, str) else list(table)
    uri = re.sub(r"^(?i:jdbc:)", "", url)
    try:
        location = _extract(uri, properties or {}, derby_home)
    except (_UnreadableError, ValueError, IndexError):
        return DatasetName(_sanitized(uri), ".".join(parts))
    return DatasetName(location.namespace(), location.name(parts))


def jdbc_dialect(url: str) -> str | None:
    """The SQL dialect of a JDBC URL, as the JVM agent hands it to the SQL parser.

    Args:
        url: The JDBC URL.

    Returns:
        The URL's first word after ``jdbc:`` (``postgresql``, ``mysql``, ``sqlserver``), or
        ``None`` when the URL has none.
    """
    match = re.match(r"^jdbc:([^:]+):", url)
    return match.group(1) if match else None


def jdbc_url_without_credentials(url: str) -> str:
    """A JDBC URL as the Java client shows one it cannot read: no credentials, no query.

    Args:
        url: The JDBC URL.

    Returns:
        ``jdbc:postgresql://db:5432/shop`` for ``jdbc:postgresql://u:pw@db:5432/shop?password=x``.
    """
    match = re.match(r"^(?i:jdbc:)", url)
    prefix = url[: match.end()] if match else ""
    return prefix + _sanitized(url[len(prefix) :])
