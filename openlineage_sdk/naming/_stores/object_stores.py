"""Object stores: S3, Google Cloud Storage, Azure Data Lake Storage Gen2 and Blob Storage.

Each store is its builder followed by its declaration (see :mod:`openlineage_sdk.naming._store`).
Their objects are also reached by HTTPS URLs (:func:`https_object_url`), which name one of the
four by the endpoint's host.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import unquote

from openlineage_sdk.naming import _parts as p
from openlineage_sdk.naming import _urls as u
from openlineage_sdk.naming._model import DatasetName
from openlineage_sdk.naming._store import Store, declare

__all__ = ["abfss", "gcs", "https_object_url", "s3", "wasbs"]

_BUCKET_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{1,253}[A-Za-z0-9]$")


def _bucket(bucket: str, store: str) -> str:
    text = p.text(bucket)
    if not text:
        raise p.fail(store, "missing bucket")
    if not _BUCKET_RE.match(text) or ".." in text:
        raise p.fail(store, f"invalid bucket {p.redact(text)!r}")
    return text


def _bucket_uri(builder: Callable[[str, str], DatasetName]) -> Callable[..., DatasetName]:
    """The URI parser of a store of buckets: ``scheme://{bucket}/{key}``."""

    def parse(store: Store, uri: str, table: str | None) -> DatasetName:
        _, host, port, path, _ = u.split_uri(uri)
        key = u.joined(unquote(path), table)
        with u.reported_against(uri):
            if port is not None:
                raise p.fail(uri, "invalid bucket: a bucket has no port")
            return builder(host or "", key)

    return parse


# --------------------------------------------------------------------------- S3


def s3(bucket: str, key: str = "") -> DatasetName:
    """Name an Amazon S3 object or prefix.

    Args:
        bucket: The bucket.
        key: The object key or prefix, without the bucket; empty for the
            whole bucket.

    Returns:
        ``s3://{bucket}`` and ``{key}`` (``raw/orders``, no leading slash).
    """
    store = "s3"
    return DatasetName(f"s3://{_bucket(bucket, store)}", p.object_key(key, store))


declare(Store("s3", schemes=("s3", "s3a", "s3n"), parse_uri=_bucket_uri(s3)))


# --------------------------------------------------------------------------- GCS


def gcs(bucket: str, key: str = "") -> DatasetName:
    """Name a Google Cloud Storage object or prefix.

    Args:
        bucket: The bucket.
        key: The object name or prefix; empty for the whole bucket.

    Returns:
        ``gs://{bucket}`` and ``{key}``.
    """
    store = "gcs"
    return DatasetName(f"gs://{_bucket(bucket, store)}", p.object_key(key, store))


declare(Store("gcs", schemes=("gs", "gcs"), parse_uri=_bucket_uri(gcs)))


# --------------------------------------------------------------------------- Azure

_CONTAINER_RE = re.compile(r"^\$?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$")


def _azure_container(container: str, store: str) -> str:
    text = p.text(container).lower()
    if not text:
        raise p.fail(store, "missing container")
    if not _CONTAINER_RE.match(text):
        raise p.fail(store, f"invalid container {p.redact(text)!r}")
    return text


def _azure_endpoint(account: str, store: str) -> str:
    # A bare storage account name gets the endpoint suffix the naming
    # conventions give; a full host (another Azure cloud's, say) is kept.
    endpoint = p.host(account, store, "storage account")
    if "." not in endpoint:
        return f"{endpoint}.dfs.core.windows.net"
    # The blob and dfs endpoints of one storage account hold the same data.
    if endpoint.endswith(".blob.core.windows.net"):
        return endpoint.removesuffix(".blob.core.windows.net") + ".dfs.core.windows.net"
    return endpoint


def _container_uri(builder: Callable[[str, str, str], DatasetName]) -> Callable[..., DatasetName]:
    """The URI parser of an Azure store: ``scheme://{container}@{account}/{path}``."""

    def parse(store: Store, uri: str, table: str | None) -> DatasetName:
        _, _, rest = uri.partition(":")
        found, remainder = u.authority(uri, rest, "container@account")
        container, at, account = found.partition("@")
        if not at:
            raise p.fail(uri, "missing container: container@account expected")
        path = u.joined(unquote(u.path_and_query(remainder)[0]), table)
        with u.reported_against(uri):
            return builder(container, account, path)

    return parse


def abfss(container: str, account: str, path: str = "") -> DatasetName:
    """Name a path in Azure Data Lake Storage Gen2.

    Args:
        container: The container (file system).
        account: The storage account name, or its full endpoint host.
        path: The path in the container; empty for the container's root.

    Returns:
        ``abfss://{container}@{account}.dfs.core.windows.net`` and ``{path}``, relative to the
        container as the JVM agent and the Java client write it (``orders/2024``; ``/`` for the
        container's root), so that datasets both name are one node.
    """
    store = "abfss"
    return DatasetName(
        f"abfss://{_azure_container(container, store)}@{_azure_endpoint(account, store)}",
        p.object_key(path, store, "path"),
    )


declare(Store("abfss", schemes=("abfs", "abfss"), parse_uri=_container_uri(abfss)))


def wasbs(container: str, account: str, key: str = "") -> DatasetName:
    """Name a blob or prefix in Azure Blob Storage.

    Args:
        container: The container.
        account: The storage account name, or its full endpoint host.
        key: The blob name or prefix; empty for the whole container.

    Returns:
        ``wasbs://{container}@{account}.dfs.core.windows.net`` and ``{key}``.
    """
    store = "wasbs"
    return DatasetName(
        f"wasbs://{_azure_container(container, store)}@{_azure_endpoint(account, store)}",
        p.object_key(key, store),
    )


declare(Store("wasbs", schemes=("wasb", "wasbs"), parse_uri=_container_uri(wasbs)))


# --------------------------------------------------------------------------- HTTPS URLs

_AZURE_HTTPS_RE = re.compile(r"^(?P<account>[a-z0-9]+)\.(?P<kind>blob|dfs)\.core\.windows\.net$")
_S3_HTTPS_RE = re.compile(
    r"^(?:(?P<bucket>.+)\.)?s3(?:[.-](?:dualstack\.)?[a-z0-9-]+)?\.amazonaws\.com(?:\.cn)?$"
)


def https_object_url(url: str, table: str | None) -> DatasetName:
    """Name an object by its HTTPS URL; its query (SAS tokens, signatures) is dropped.

    Raises:
        NamingError: the host is not an S3, GCS or Azure storage endpoint.
    """
    _, host, _port, path, _ = u.split_uri(url)
    host_l = (host or "").lower()
    amazon = _S3_HTTPS_RE.match(host_l)
    # The first path segment is the container or bucket, the rest the key ...
    first, _, rest = path.lstrip("/").partition("/")
    if amazon and amazon["bucket"]:
        # ... but a virtual-hosted style S3 URL has the bucket in the host.
        first, rest = amazon["bucket"], path
    first, rest = unquote(first), u.joined(unquote(rest), table)
    with u.reported_against(url):
        azure = _AZURE_HTTPS_RE.match(host_l)
        if azure:
            if azure["kind"] == "dfs":
                return abfss(first, azure["account"], rest)
            return wasbs(first, azure["account"], rest)
        if host_l == "storage.googleapis.com":
            return gcs(first, rest)
        if amazon:
            return s3(first, rest)
    raise p.fail(url, "unsupported host: not an S3, GCS or Azure storage endpoint")
