"""The pieces of URIs and JDBC URLs that naming reads, and nothing else.

Nothing from a URL's user info, query or connection properties is copied into a name by these
helpers' callers: only the host, port, path and the few properties that name a level of the
dataset (``currentSchema``, ``databaseName``, ``db`` ...). Errors are reported against the
input URL, masked with :func:`~openlineage_sdk.naming._parts.redact`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from urllib.parse import parse_qsl, unquote

from openlineage_sdk.naming import _parts as p
from openlineage_sdk.naming._model import NamingError

__all__ = [
    "authority",
    "first_value",
    "jdbc_properties",
    "joined",
    "path_and_query",
    "path_segments",
    "properties",
    "query_params",
    "reported_against",
    "required_table",
    "server",
    "split_file_uri",
    "split_uri",
]

_AUTHORITY_END = re.compile(r"[/?;#]")


@contextmanager
def reported_against(url: str) -> Iterator[None]:
    """Report a builder's error against the input URL rather than the store."""
    try:
        yield
    except NamingError as error:
        if error.context == p.redact(url):
            raise
        raise p.fail(url, error.problem) from None


def authority(url: str, rest: str, what: str = "host") -> tuple[str, str]:
    """The authority of ``rest``, ``//{authority}...``, and what follows it.

    Args:
        url: the whole input, for errors.
        rest: what follows the scheme's ``:``.
        what: what the authority holds, for errors.
    """
    if not rest.startswith("//"):
        raise p.fail(url, f"missing '//' and {what}")
    match = _AUTHORITY_END.search(rest, 2)
    end = len(rest) if match is None else match.start()
    return rest[2:end], rest[end:]


def server(url: str, rest: str) -> tuple[str, str | None, str]:
    """Host, port and what follows them in a JDBC URL's ``//host:port...``, which needs a host."""
    found, remainder = authority(url, rest)
    host, port = p.host_port(found)
    if not host:
        raise p.fail(url, "missing host")
    return host, port, remainder


def path_and_query(remainder: str) -> tuple[str, str]:
    """Path and query of what follows an authority; the fragment is dropped."""
    path, _, query = remainder.partition("#")[0].partition("?")
    return path, query


def joined(path: str, table: str | None) -> str:
    """``path`` with the relative path ``table`` appended, when one is given."""
    return path if table is None else f"{path.rstrip('/')}/{table.strip('/')}"


def required_table(url: str, table: str | None) -> str:
    """The ``table`` argument, which a connection URL needs: it names no table itself."""
    if table is None:
        raise p.fail(url, "missing table: a connection URL names no table, pass table=")
    return table


def query_params(query: str) -> dict[str, str]:
    """``a=b&c=d`` parameters, keys case-folded (drivers match them so)."""
    return {
        key.strip().lower(): value
        for key, value in parse_qsl(query, keep_blank_values=True)
        if key.strip()
    }


def properties(text: str, separator: str = ";") -> dict[str, str]:
    """``key=value`` properties split on ``separator``, keys case-folded."""
    result: dict[str, str] = {}
    for piece in text.split(separator):
        key, eq, value = piece.partition("=")
        if eq and key.strip():
            result[key.strip().lower()] = unquote(value.strip())
    return result


def jdbc_properties(text: str) -> tuple[str, dict[str, str]]:
    """``{head};{key}={value};...``: the head, and the properties after it."""
    head, _, props = text.partition(";")
    return head, properties(props)


def first_value(params: Mapping[str, str], *keys: str) -> str | None:
    """The first non-empty value among ``keys``; a list value gives its first item."""
    for key in keys:
        value = params.get(key)
        if value and value.split(",")[0].strip():
            return value.split(",")[0].strip()
    return None


def path_segments(path: str) -> list[str]:
    """The decoded, non-empty segments of a path."""
    return [unquote(segment) for segment in path.split("/") if segment]


def split_uri(url: str) -> tuple[str, str | None, str | None, str, str]:
    """Scheme, host, port, path and query of ``scheme://authority/path?query``."""
    scheme, _, rest = url.partition(":")
    found, remainder = authority(url, rest)
    host, port = p.host_port(found)
    path, query = path_and_query(remainder)
    return scheme.lower(), host, port, path, query


def split_file_uri(url: str) -> tuple[str, str]:
    """Authority (``""`` if left out) and decoded path of ``scheme:[//authority]path``."""
    rest = url.partition(":")[2]
    found = ""
    if rest.startswith("//"):
        found, rest = authority(url, rest)
    return found, unquote(path_and_query(rest)[0])
