"""Name a dataset from a URI or JDBC URL: find the store it names, and let the store read it.

Each store declares the URI schemes and JDBC subprotocols that name it, and how to take such a
URL apart (:mod:`openlineage_sdk.naming._stores`); this module only finds the store. Nothing
from a URL's user info, query or connection properties is copied into a name: only the host,
port, path and the few properties that name a level of the dataset (``currentSchema``,
``databaseName``, ``db`` ...) are read. Credentials therefore cannot reach an event; error
messages mask them with :func:`~openlineage_sdk.naming._parts.redact`.
"""

from __future__ import annotations

import re

from openlineage_sdk.naming import _parts as p
from openlineage_sdk.naming import _urls as u
from openlineage_sdk.naming._model import DatasetName, NamingError
from openlineage_sdk.naming._store import for_jdbc, for_scheme
from openlineage_sdk.naming._stores.file_systems import local_file
from openlineage_sdk.naming._stores.object_stores import https_object_url

__all__ = ["dataset_from_uri"]

_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*$")


def _jdbc(url: str, table: str | None) -> DatasetName:
    rest = url[5:]
    sub, colon, after = rest.partition(":")
    subprotocol = sub.lower()
    store = for_jdbc(subprotocol)
    if not colon or store is None:
        raise p.fail(url, f"unsupported JDBC driver {p.redact(sub)!r}")
    return store.name_from_jdbc(subprotocol, url, after, u.required_table(url, table))


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
        with u.reported_against(text):
            return local_file(u.joined(text, table))
    scheme, colon, _ = text.partition(":")
    if not colon or not _SCHEME_RE.match(scheme):
        raise p.fail(text, "missing scheme")
    lowered = scheme.lower()
    if lowered == "jdbc":
        return _jdbc(text, table)
    # SQLAlchemy spells the driver after a '+': postgresql+psycopg2://
    base = lowered.split("+")[0]
    if base in ("https", "http"):
        return https_object_url(text, table)
    store = for_scheme(base)
    if store is not None:
        return store.name_from_uri(text, table)
    raise p.fail(text, f"unsupported scheme {p.redact(scheme)!r}")
