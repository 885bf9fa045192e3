"""Checks and normal forms shared by the builders and the parsers.

Every function here is pure: it takes a value and the context to name in an
error (the store, or the masked input URI) and returns the normal form or
raises :class:`NamingError`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from openlineage_sdk.naming._model import NamingError

__all__ = [
    "AWS_REGION",
    "AWS_REGION_RE",
    "SECRET_PARAMETER",
    "WINDOWS_PATH_RE",
    "Ident",
    "absolute_path",
    "fail",
    "fill_levels",
    "fs_path",
    "host",
    "host_port",
    "ident",
    "object_key",
    "port",
    "redact",
    "split_qualified",
    "text",
]

# A hostname label may hold letters, digits, '-' and, in practice (container
# and cluster-internal names), '_'. Checked after lower-casing.
_HOST_RE = re.compile(r"^[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?$")
_IPV6_RE = re.compile(r"^[0-9a-f:.]+(?:%[0-9a-z._~-]+)?$")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
#: An AWS region name such as ``us-east-1``, unanchored (for larger patterns), and anchored.
AWS_REGION = r"[a-z]{2}(?:-[a-z]+)+-\d+"
AWS_REGION_RE = re.compile(rf"^{AWS_REGION}$")
#: A Windows drive path, ``C:\data`` or, as in ``file:///C:/data``, ``/C:/data``.
WINDOWS_PATH_RE = re.compile(r"^/?[A-Za-z]:[\\/]")

# Parameter names whose values are credentials or identify a user. Matched
# as substrings of the (case-folded) key so vendor spellings are caught too:
# password, PWD, sslpassword, OAuthPvtKey, AccountKey, sig, X-Amz-Signature,
# X-Amz-Credential, X-Amz-Security-Token, client_secret, UID, user ...
_SECRET_KEY_RE = (
    r"[\w.\-]*(?:pass|pwd|secret|token|key|sig|credential|auth|sas|user|uid|cert|private)"
    r"[\w.\-]*"
)
# A value is plain (up to the next separator) or, in SQL Server's syntax, in braces, where
# ";" is part of the value and "}}" stands for "}": password={abc;def}}ghi} is one value,
# masked whole (with anything stuck to its closing brace, and to the end when unclosed).
SECRET_PARAMETER = _SECRET_PARAM_RE = re.compile(
    rf"(?i)(?P<key>(?<![\w.\-]){_SECRET_KEY_RE})\s*=\s*"
    r"(?P<value>\{(?:[^}]|\}\})*(?:\}[^&;,)\s]*|\Z)|[^&;,)\s]*)"
)
# Leading "scheme:" segments (jdbc:oracle:thin:) and an optional "//"; what
# follows, up to the last '@', is user info.
_PREFIX_RE = re.compile(r"(?:[A-Za-z][\w+.\-]*:)*(?://)?")
# "//host:notaport": a URL that lost its '@' leaves the password where the
# port should be.
_BAD_PORT_RE = re.compile(r"(?P<pre>//[^/?;#:@\s]*):(?P<port>[^/?;#\s]*[^\d/?;#\s][^/?;#\s]*)")


def text(value: object) -> str:
    """A value as stripped text; anything but a string counts as missing.

    Typed as ``object`` because callers without a type checker may pass
    ``None`` or a number where a string belongs.

    Args:
        value: The value as given.

    Returns:
        The stripped string, or ``""``.
    """
    return value.strip() if isinstance(value, str) else ""


def redact(text: str) -> str:
    """Mask every credential a URI, JDBC URL or value may carry.

    Used only to build error messages: names and namespaces are assembled
    from known-safe parts and never copy user info or parameters at all.

    Args:
        text: The input as the caller gave it.

    Returns:
        The input with user info (``user:password@``), the values of
        credential-like parameters (``password=``, ``pwd=``, ``token=``,
        ``sig=`` ...) and a non-numeric "port" replaced by ``***``.
    """
    prefix = _PREFIX_RE.match(text)
    start = prefix.end() if prefix else 0
    # Up to the last '@', not the first: an unencoded '@' inside a password
    # must not leave the rest of the password behind.
    at = text.rfind("@", start)
    masked = f"{text[:start]}***{text[at:]}" if at > start else text
    masked = _SECRET_PARAM_RE.sub(lambda m: f"{m.group('key')}=***", masked)
    return _BAD_PORT_RE.sub(lambda m: f"{m.group('pre')}:***", masked)


def fail(context: str, problem: str) -> NamingError:
    """Build the error for a wrong part.

    Args:
        context: What was being named: the store (``"postgres"``) or the
            input URI; it is masked with :func:`redact` here.
        problem: Which part is wrong and how, e.g. ``"missing host"``.

    Returns:
        The error, for the caller to raise.
    """
    return NamingError(redact(context), problem)


def host(value: str | None, context: str, part: str = "host") -> str:
    """Normalize a hostname or IP address.

    Host names are case-insensitive (RFC 3986), so they are lower-cased, and
    a trailing root dot is dropped, so that every spelling of one server
    gives one namespace. A bare IPv6 address gets its brackets.

    Args:
        value: The host as given.
        context: Store or input, for errors.
        part: The name of the part in errors (``"host"``, ``"namenode host"``).

    Returns:
        The normalized host.

    Raises:
        NamingError: The host is missing or holds characters no host has.
    """
    if value is None or not value.strip():
        raise fail(context, f"missing {part}")
    text = value.strip().lower()
    if text.startswith("[") and text.endswith("]"):
        if _IPV6_RE.match(text[1:-1]):
            return text
        raise fail(context, f"invalid {part} {text!r}")
    if ":" in text and _IPV6_RE.match(text):
        return f"[{text}]"
    text = text.removesuffix(".")
    if not _HOST_RE.match(text) or ".." in text:
        raise fail(context, f"invalid {part} {text!r}")
    return text


def host_port(authority: str) -> tuple[str | None, str | None]:
    """Split an authority (``user@host:port``) or server address into host and port.

    User info is dropped. A list of hosts (fail-over, replicas, Kafka
    bootstrap servers) names its data source by the first. An IPv6 address
    is bracketed when a port follows (``[::1]:9092``); unbracketed, it is
    all host.

    Args:
        authority: The text between ``//`` and the path, or a ``host:port``.

    Returns:
        The host and the port as given (``None`` when absent), for
        :func:`host` and :func:`port` to check.
    """
    first = authority.rpartition("@")[2].split(",")[0].strip()
    if first.startswith("["):
        inner, closed, after = first[1:].partition("]")
        if not closed:
            return first, None
        if after and not after.startswith(":"):
            return f"[{inner}]", after
        return f"[{inner}]", after[1:] if after else None
    if first.count(":") > 1 and _IPV6_RE.match(first.lower()):
        return first, None
    name, colon, number = first.partition(":")
    return (name or None), (number if colon else None)


def port(value: int | str | None, default: int | None, context: str) -> int:
    """Check a TCP port, or fill the store's default when none is given.

    Args:
        value: The port as given, or ``None``/``""`` for the default.
        default: The store's default port, or ``None`` if it has none.
        context: Store or input, for errors.

    Returns:
        The port number.

    Raises:
        NamingError: The port is not a number from 1 to 65535, or is missing
            for a store without a default.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        if default is None:
            raise fail(context, "missing port")
        return default
    # bool is an int subclass; True is not a port.
    if isinstance(value, bool):
        raise fail(context, "invalid port")
    if isinstance(value, str):
        text = value.strip()
        if not text.isdigit() or not text.isascii():
            # The value itself is not echoed: a URL that lost its '@' puts the
            # password where the port should be.
            raise fail(context, "invalid port")
        number = int(text)
    else:
        number = value
    if not 0 < number < 65536:
        raise fail(context, f"invalid port {number}")
    return number


def ident(value: str | None, context: str, part: str) -> str:
    """Check one level of a dataset name (database, schema, table ...).

    The value is taken literally: quoting is the job of :func:`split_qualified`.

    Args:
        value: The identifier.
        context: Store or input, for errors.
        part: The level's name, for errors (``"schema"``).

    Returns:
        The identifier with surrounding white space removed.

    Raises:
        NamingError: The identifier is missing, blank or holds control
            characters.
    """
    stripped = text(value)
    if not stripped:
        raise fail(context, f"missing {part}")
    if _CONTROL_RE.search(stripped):
        raise fail(context, f"invalid {part}: control character")
    return stripped


def object_key(value: str | None, context: str, part: str = "key") -> str:
    """Normalize an object store key (S3, GCS, WASBS, document stores).

    Keys are relative to their bucket or container, so leading slashes are
    dropped; a trailing slash only marks a "directory" and is dropped too so
    that ``raw/orders`` and ``raw/orders/`` are one dataset. The bucket or
    container itself (an empty key) is named ``/``.

    Args:
        value: The key; ``None`` or ``""`` stands for the whole bucket.
        context: Store or input, for errors.
        part: The part's name, for errors.

    Returns:
        The key, or ``"/"`` for the bucket.

    Raises:
        NamingError: The key holds control characters.
    """
    text = (value or "").strip("/")
    if _CONTROL_RE.search(text):
        raise fail(context, f"invalid {part}: control character")
    return text or "/"


def fs_path(value: str | None, context: str, part: str = "path") -> str:
    """Normalize a file system path (HDFS, DBFS, ABFSS, local and remote files).

    File system paths are absolute: a leading ``/`` is added when missing and
    a trailing one is dropped (except for the root itself).

    Args:
        value: The path.
        context: Store or input, for errors.
        part: The part's name, for errors.

    Returns:
        The absolute path, ``"/"`` for the root.

    Raises:
        NamingError: The path holds control characters.
    """
    text = (value or "").strip()
    if _CONTROL_RE.search(text):
        raise fail(context, f"invalid {part}: control character")
    text = "/" + text.strip("/")
    return text


def absolute_path(value: str | None, context: str) -> str:
    """Check and normalize an absolute file path (local files, SQLite, H2).

    Args:
        value: A POSIX path or a Windows drive path (``C:\\data\\x.csv``).
        context: Store or input, for errors.

    Returns:
        The path as :func:`fs_path` gives it; a Windows path becomes
        ``/C:/data/x.csv``, the path part of ``file:///C:/data/x.csv``.

    Raises:
        NamingError: The path is missing or relative: a relative path names
            different files on different machines and working directories,
            so it cannot identify a dataset.
    """
    raw = text(value)
    if not raw:
        raise fail(context, "missing path")
    if WINDOWS_PATH_RE.match(raw):
        raw = "/" + raw.lstrip("/").replace("\\", "/")
    if not raw.startswith("/"):
        raise fail(context, "path must be absolute")
    return fs_path(raw, context)


class Ident(str):
    """One part of a qualified table name, remembering whether it was quoted.

    A ``str`` subclass so it can be used wherever the plain text is wanted;
    :attr:`quoted` matters only to stores whose case rules depend on quoting
    (Snowflake).
    """

    quoted: bool

    def __new__(cls, text: str, quoted: bool = False) -> Ident:
        self = super().__new__(cls, text)
        self.quoted = quoted
        return self


_QUOTES = MappingProxyType({'"': '"', "`": "`", "[": "]"})


def split_qualified(value: str, context: str, part: str = "table") -> list[Ident]:
    """Split a qualified table name such as Spark's ``dbtable`` option.

    Dots separate the parts; a part may be quoted with ``"..."``,
    ```...``` or ``[...]`` (so ``"my.schema".orders`` has two parts),
    and a doubled closing quote inside a quoted part stands for itself.

    Args:
        value: The name, e.g. ``sales.orders`` or ``[dbo].[Order Lines]``.
        context: Store or input, for errors.
        part: The argument's name, for errors.

    Returns:
        The parts, each an :class:`Ident` that knows whether it was quoted.

    Raises:
        NamingError: The value is a sub-query rather than a table name, has an
            empty part, an unclosed quote or white space outside quotes.
    """
    raw = text(value)
    if not raw:
        raise fail(context, f"missing {part}")
    if raw.startswith("("):
        # Spark's dbtable may be "(SELECT ...) alias": not one dataset.
        raise fail(context, f"{part} is a sub-query, not a table name")
    parts: list[Ident] = []
    i = 0
    while True:
        if i < len(raw) and raw[i] in _QUOTES:
            close = _QUOTES[raw[i]]
            i += 1
            chunk: list[str] = []
            while True:
                if i >= len(raw):
                    raise fail(context, f"{part}: unclosed quote")
                if raw[i] == close:
                    if i + 1 < len(raw) and raw[i + 1] == close:
                        chunk.append(close)
                        i += 2
                        continue
                    i += 1
                    break
                chunk.append(raw[i])
                i += 1
            piece = "".join(chunk)
            if not piece:
                raise fail(context, f"{part}: empty quoted part")
            parts.append(Ident(piece, quoted=True))
        else:
            start = i
            while i < len(raw) and raw[i] != ".":
                if raw[i].isspace() or raw[i] in '"`[]()':
                    raise fail(context, f"invalid {part}: unexpected {raw[i]!r}")
                i += 1
            piece = raw[start:i]
            if not piece:
                raise fail(context, f"{part}: empty part")
            parts.append(Ident(piece))
        if i >= len(raw):
            return parts
        if raw[i] != ".":
            raise fail(context, f"invalid {part}: unexpected {raw[i]!r}")
        i += 1
        if i >= len(raw):
            raise fail(context, f"{part}: empty part")


def fill_levels(
    levels: Sequence[str],
    known: Mapping[str, str | None],
    table: Sequence[Ident],
    context: str,
) -> list[Ident]:
    """Combine what a URL says with a (partly) qualified table name.

    The table's parts fill the last levels of the store's hierarchy
    (``orders`` fills ``table``; ``sales.orders`` fills ``schema`` and
    ``table``); the levels before them come from the URL (its database, a
    ``currentSchema`` property ...).

    Args:
        levels: The store's name hierarchy, e.g. ``("database", "schema", "table")``.
        known: Levels the URL gave, by level name (``None`` when absent).
        table: The table's parts, from :func:`split_qualified`.
        context: Store or input, for errors.

    Returns:
        One part per level.

    Raises:
        NamingError: The table has more parts than the hierarchy, or a level
            is given by neither the URL nor the table.
    """
    if len(table) > len(levels):
        raise fail(
            context,
            f"table has {len(table)} parts, more than {'.'.join(levels)}",
        )
    head = len(levels) - len(table)
    result: list[Ident] = []
    for level in levels[:head]:
        value = known.get(level)
        if value is None or not value.strip():
            raise fail(context, f"missing {level}")
        result.append(value if isinstance(value, Ident) else Ident(value))
    result.extend(table)
    return result
