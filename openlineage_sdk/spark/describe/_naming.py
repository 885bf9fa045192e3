"""Dataset and job names for the adapter, by :mod:`openlineage_sdk.naming`.

A DBFS path without a workspace (``dbfs:/mnt/lake/orders``, as Databricks clusters spell their own
file system) is named ``dbfs`` / ``{path}`` by the naming module, as the JVM openlineage-spark
agent names it, so both producers agree on those datasets.

Spark names files by Hadoop paths, and a Hadoop path is not a URL: ``#``, ``?`` and ``%`` in it
are part of a file's name, where a URL would read a fragment, a query or an escape. A location
with a scheme goes to the naming module as a URI whose path is percent-encoded
(:func:`location_uri`), which the naming module decodes back to the path Spark meant; a plain
absolute path goes as it is, which the naming module takes literally.
"""

from __future__ import annotations

from urllib.parse import quote

from openlineage_sdk import naming
from openlineage_sdk.naming import DatasetName, NamingError

__all__ = [
    "dataset_name",
    "encode_path",
    "hadoop_location_uri",
    "job_name",
    "location_uri",
    "split_hadoop_path",
]

# Characters a location's path keeps as they are; every other one ('%', '#', '?' and spaces
# among them) is percent-encoded, as java.net.URI encodes a Hadoop path.
_PATH_SAFE = "/:@!$&'()*+,;=~"


def dataset_name(uri: str, table: str | None = None) -> DatasetName:
    """The namespace and name of the dataset at ``uri`` (and ``table``, for JDBC).

    Raises:
        NamingError: The URI cannot name a dataset (the message masks credentials).
    """
    return naming.dataset_from_uri(uri, table)


def encode_path(path: str) -> str:
    """``path`` percent-encoded for a URI, which the naming module decodes back exactly."""
    return quote(path, safe=_PATH_SAFE)


def location_uri(scheme: str, authority: str | None, path: str) -> str:
    """``{scheme}:[//{authority}]{path}`` with the path percent-encoded.

    The naming module decodes the path back, so a name keeps every character of ``path``.
    """
    encoded = encode_path(path)
    if authority is None:
        return f"{scheme}:{encoded}"
    return f"{scheme}://{authority}{encoded}"


def split_hadoop_path(text: str) -> tuple[str | None, str | None, str]:
    """Scheme, authority and path of a path string, read as Hadoop's ``Path(String)`` reads it.

    A scheme is what precedes a colon that comes before any slash; an authority follows ``//``
    up to the next slash; the rest is the path, all of it: Hadoop reads no query or fragment
    from a path string, and decodes no escapes.
    """
    colon = text.find(":")
    slash = text.find("/")
    scheme: str | None = None
    start = 0
    if colon != -1 and (slash == -1 or colon < slash):
        scheme, start = text[:colon], colon + 1
    authority: str | None = None
    if text.startswith("//", start) and len(text) - start > 2:
        next_slash = text.find("/", start + 2)
        end = next_slash if next_slash > 0 else len(text)
        authority, start = text[start + 2 : end], end
    return scheme, authority, text[start:]


def hadoop_location_uri(text: str) -> str:
    """A Hadoop path string (``Path.toString()``) as a URI the naming module reads back exactly.

    This is how ``DESCRIBE TABLE`` shows a table's location. A path without a scheme is
    returned as it is: the naming module takes a plain path literally.
    """
    scheme, authority, path = split_hadoop_path(text)
    if scheme is None:
        return text
    return location_uri(scheme, authority, path)


def job_name(app_name: str, command: str | None, table: str | None) -> str:
    """``{appName}.{command}.{table}`` by :func:`openlineage_sdk.naming.spark_job_name`.

    A part that names nothing (an app name of punctuation alone, a table that normalizes to
    nothing) is dropped, or the app name replaced by ``spark``, rather than failing the write's
    lineage.
    """
    for app, tbl in ((app_name, table), (app_name, None), ("spark", table)):
        try:
            return naming.spark_job_name(app, command, tbl if command is not None else None)
        except NamingError:
            pass
    return naming.spark_job_name("spark", command)
