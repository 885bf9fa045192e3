"""What the SDK knows about naming one data store, declared once, in one place per store.

A :class:`Store` holds a store's key (its name in errors and in :data:`DEFAULT_PORTS`), its
default port, the URI schemes and JDBC subprotocols that name it, how such a URL is taken apart
and, for stores whose datasets are tables, how a URL's parts and a (qualified) table name fill
the levels of its names (:class:`Tables`). Each store module (:mod:`._stores`) declares its
stores with :func:`declare` next to their builders; :func:`dataset_from_uri
<openlineage_sdk.naming._parse.dataset_from_uri>` finds them here by scheme or subprotocol.
Adding a store is writing its builder and its declaration.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from urllib.parse import unquote

from openlineage_sdk.naming import _parts as p
from openlineage_sdk.naming import _urls as u
from openlineage_sdk.naming._model import DatasetName
from openlineage_sdk.naming._parts import Ident

__all__ = [
    "DEFAULT_PORTS",
    "Port",
    "Store",
    "Tables",
    "declare",
    "dotted",
    "finish",
    "for_jdbc",
    "for_scheme",
    "from_params",
    "hostbased_jdbc",
    "hosted",
    "hostport",
    "jdbc_hostbased",
    "named",
    "table_uri",
]

Port = int | str | None

#: Names a table from a connection's parts: ``(url, host, port, levels)``, the levels being
#: one value per level of :attr:`Tables.levels`; ``url`` is the input, for errors.
TableBuilder = Callable[[str, str | None, str | None, Sequence[Ident]], DatasetName]
#: Names a dataset from a URI: ``(store, uri, table)``, ``table`` as given to dataset_from_uri.
UriParser = Callable[["Store", str, str | None], DatasetName]
#: Names a table from a JDBC URL: ``(store, url, rest, table)``, ``rest`` being what follows
#: ``jdbc:{subprotocol}:``.
JdbcParser = Callable[["Store", str, str, str], DatasetName]


@dataclass(frozen=True)
class Tables:
    """How a store's URLs map onto the levels of its table names.

    Attributes:
        levels: the levels of a name, outermost first: ``("database", "schema", "table")``.
        build: names a table from the URL's host and port and one value per level.
        params: query parameters or connection properties naming a level, by level, the
            first that is given winning: ``{"schema": ("currentschema", "searchpath")}``.
        fixed: levels with a fixed value when the URL names none (a driver's default).
    """

    levels: tuple[str, ...]
    build: TableBuilder
    params: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    fixed: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Store:
    """A data store of the naming conventions, and the URLs that name its datasets.

    Attributes:
        key: the store's name in errors and in :data:`DEFAULT_PORTS` (``"postgres"``).
        default_port: the port it listens on when a URL or call gives none.
        tables: for a store of tables, how URLs and table names fill its names' levels.
        schemes: URI schemes naming it (the documents' form, and database URL spellings such
            as SQLAlchemy's), lower case.
        parse_uri: takes such a URI apart; for a store of tables, :func:`table_uri` when
            ``None``.
        jdbc: the JDBC subprotocols naming it (``postgresql`` for ``jdbc:postgresql:``), each
            with the parser that takes such a URL apart.
    """

    key: str
    default_port: int | None = None
    tables: Tables | None = None
    schemes: tuple[str, ...] = ()
    parse_uri: UriParser | None = None
    jdbc: Mapping[str, JdbcParser] = field(default_factory=dict)

    @property
    def table_names(self) -> Tables:
        """How its tables are named (only for a store declared with :attr:`tables`)."""
        assert self.tables is not None, f"{self.key} is not a store of tables"
        return self.tables

    def name_from_uri(self, uri: str, table: str | None) -> DatasetName:
        """Name a dataset from a URI of one of :attr:`schemes`."""
        parse = self.parse_uri or table_uri
        return parse(self, uri, table)

    def name_from_jdbc(self, subprotocol: str, url: str, rest: str, table: str) -> DatasetName:
        """Name a table from a JDBC URL of one of :attr:`jdbc` (``rest`` follows its ``:``)."""
        return self.jdbc[subprotocol](self, url, rest, table)


_BY_KEY: dict[str, Store] = {}
_BY_SCHEME: dict[str, Store] = {}
_BY_JDBC: dict[str, Store] = {}
_PORTS: dict[str, int] = {}

DEFAULT_PORTS: MappingProxyType[str, int] = MappingProxyType(_PORTS)
"""The port each store listens on when none is given, by store key (``postgres``: 5432).

Ports are part of a namespace (``postgres://host:5432``), so a URL without a port and one
with the default port must give the same namespace."""


def declare(store: Store) -> Store:
    """Make ``store`` known by its key, schemes and JDBC subprotocols.

    Raises:
        ValueError: another store took the key, a scheme or a subprotocol already.
    """
    taken = [
        f"{kind} {name!r}"
        for kind, names, table in (
            ("key", (store.key,), _BY_KEY),
            ("scheme", store.schemes, _BY_SCHEME),
            ("JDBC subprotocol", store.jdbc, _BY_JDBC),
        )
        for name in names
        if name in table
    ]
    if taken:
        raise ValueError(f"store {store.key!r}: {', '.join(taken)} already declared")
    if store.schemes and store.parse_uri is None and store.tables is None:
        raise ValueError(f"store {store.key!r}: URI schemes need parse_uri or tables")
    _BY_KEY[store.key] = store
    _BY_SCHEME.update(dict.fromkeys(store.schemes, store))
    _BY_JDBC.update(dict.fromkeys(store.jdbc, store))
    if store.default_port is not None:
        _PORTS[store.key] = store.default_port
    return store


def named(key: str) -> Store:
    """The store declared under ``key``."""
    return _BY_KEY[key]


def for_scheme(scheme: str) -> Store | None:
    """The store a URI scheme (lower case) names, if any."""
    return _BY_SCHEME.get(scheme)


def for_jdbc(subprotocol: str) -> Store | None:
    """The store a JDBC subprotocol (lower case) names, if any."""
    return _BY_JDBC.get(subprotocol)


# --------------------------------------------------------------------------- namespaces and names


def hostport(
    store: str, host: str | None, port: Port, *, part: str = "host", omit_default: bool = False
) -> str:
    """``{host}:{port}``, both checked, with the store's default port when none is given.

    Args:
        store: The store, for errors and its :data:`DEFAULT_PORTS` entry; a
            store without one needs a port.
        host: The host as given.
        port: The port as given, or ``None``.
        part: The host's name in errors (``"namenode host"``).
        omit_default: Leave the port out when it is the default (for stores
            whose row allows the host alone).

    Returns:
        The normalized ``host:port``, or ``host``.
    """
    default = DEFAULT_PORTS.get(store)
    name = p.host(host, store, part)
    number = p.port(port, default, store)
    return name if omit_default and number == default else f"{name}:{number}"


def dotted(store: str, **levels: str) -> str:
    """Join name levels with dots, checking each (keyword order is kept)."""
    return ".".join(p.ident(value, store, level) for level, value in levels.items())


# --------------------------------------------------------------------------- stores of tables


def finish(
    tables: Tables,
    url: str,
    host: str | None,
    port: str | None,
    known: Mapping[str, str | None],
    table: str,
    part: str = "table",
) -> DatasetName:
    """Combine a URL's parts with the ``table`` argument and name the table.

    Args:
        tables: how the store's URLs map onto its names.
        url: the input, for errors.
        host: the URL's host.
        port: the URL's port.
        known: the levels the URL names, by level (``None`` when absent).
        table: the table as given, possibly qualified; or a dataset URI's whole dotted name,
            called ``part`` in errors.
        part: what ``table`` is, for errors.
    """
    parts = p.split_qualified(table, url, part)
    merged: dict[str, str | None] = dict(tables.fixed)
    merged.update({level: value for level, value in known.items() if value})
    values = p.fill_levels(tables.levels, merged, parts, url)
    with u.reported_against(url):
        return tables.build(url, host, port, values)


def from_params(tables: Tables, params: Mapping[str, str]) -> dict[str, str | None]:
    """The levels that query parameters or connection properties name, by level."""
    return {level: u.first_value(params, *keys) for level, keys in tables.params.items()}


def hosted(builder: Callable[..., DatasetName]) -> TableBuilder:
    """The build step of a store whose builder takes the host, the levels, then ``port=``."""

    def build(url: str, host: str | None, port: str | None, levels: Sequence[Ident]) -> DatasetName:
        return builder(host or "", *levels, port=port)

    return build


def table_uri(store: Store, uri: str, table: str | None) -> DatasetName:
    """``scheme://host:port/{dotted name}``, or ``scheme://host:port/{db}`` plus ``table``."""
    tables = store.table_names
    _, host, port, path, query = u.split_uri(uri)
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
            raise p.fail(uri, "missing name: the URI's path names no dataset")
        return finish(tables, uri, host, port, {}, name, "name")
    segments = u.path_segments(path.split(";")[0])
    if len(segments) >= len(tables.levels):
        raise p.fail(uri, "path has too many parts for a table to be added")
    known: dict[str, str | None] = dict(zip(tables.levels, segments, strict=False))
    for level, value in from_params(tables, u.query_params(query)).items():
        known.setdefault(level, value)
    return finish(tables, uri, host, port, known, table)


def hostbased_jdbc(*path_levels: str) -> JdbcParser:
    """The parser of the common JDBC layout, ``//host:port/{path levels}[;props][?params]``.

    Args:
        path_levels: the levels the URL's path names, in order (``"database"``).
    """

    def parse(store: Store, url: str, rest: str, table: str) -> DatasetName:
        return jdbc_hostbased(store, url, rest, table, path_levels)

    return parse


def jdbc_hostbased(
    store: Store, url: str, rest: str, table: str, path_levels: tuple[str, ...]
) -> DatasetName:
    """Name a table from ``//host:port/{path levels}[;props][?params]`` (see :func:`hostbased_jdbc`)."""
    host, port, remainder = u.server(url, rest)
    path, query = u.path_and_query(remainder)
    path, params = u.jdbc_properties(path)
    params.update(u.query_params(query))
    segments = u.path_segments(path)
    if len(segments) > len(path_levels):
        raise p.fail(url, "path has too many parts")
    known: dict[str, str | None] = dict(zip(path_levels, segments, strict=False))
    for level, value in from_params(store.table_names, params).items():
        if not known.get(level):
            known[level] = value
    return finish(store.table_names, url, host, port, known, table)
