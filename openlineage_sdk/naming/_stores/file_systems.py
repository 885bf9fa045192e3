"""File systems: HDFS, the Databricks File System, local and remote files.

Each store is its builder followed by its declaration (see :mod:`openlineage_sdk.naming._store`).
Their names are absolute paths.
"""

from __future__ import annotations

from urllib.parse import unquote

from openlineage_sdk.naming import _parts as p
from openlineage_sdk.naming import _urls as u
from openlineage_sdk.naming._model import DatasetName
from openlineage_sdk.naming._store import Port, Store, declare, hostport

__all__ = ["dbfs", "hdfs", "local_file", "remote_file"]


# --------------------------------------------------------------------------- HDFS


def hdfs(host: str, path: str, *, port: Port = None) -> DatasetName:
    """Name a path in HDFS.

    Args:
        host: The namenode host.
        path: The path.
        port: The namenode RPC port; 8020 when not given.

    Returns:
        ``hdfs://{namenode host}:{namenode port}`` and ``{path}``.
    """
    store = "hdfs"
    return DatasetName(
        f"hdfs://{hostport(store, host, port, part='namenode host')}", p.fs_path(path, store)
    )


def _hdfs_uri(store: Store, uri: str, table: str | None) -> DatasetName:
    _, host, port, path, _ = u.split_uri(uri)
    if not host:
        raise p.fail(uri, "missing namenode host")
    with u.reported_against(uri):
        return hdfs(host, u.joined(unquote(path), table), port=port)


declare(Store("hdfs", default_port=8020, schemes=("hdfs",), parse_uri=_hdfs_uri))


# --------------------------------------------------------------------------- DBFS


def dbfs(workspace: str | None, path: str) -> DatasetName:
    """Name a path in the Databricks File System.

    Args:
        workspace: The workspace name, or ``None`` for a path that names none
            (``dbfs:/mnt/raw``, as a cluster spells its own workspace's DBFS).
        path: The path, e.g. ``/mnt/raw/orders``.

    Returns:
        ``dbfs://{workspace}`` and ``{path}``; without a workspace, ``dbfs``
        and ``{path}``, as the JVM openlineage-spark agent names such paths.
    """
    store = "dbfs"
    namespace = "dbfs" if workspace is None else f"dbfs://{p.host(workspace, store, 'workspace')}"
    return DatasetName(namespace, p.fs_path(path, store))


def _dbfs_uri(store: Store, uri: str, table: str | None) -> DatasetName:
    # dbfs://{workspace}/{path}; dbfs:/{path} (also dbfs:///{path}) names no workspace.
    found, path = u.split_file_uri(uri)
    workspace, port = p.host_port(found)
    if port is not None:
        raise p.fail(uri, "invalid workspace: a workspace has no port")
    with u.reported_against(uri):
        return dbfs(workspace, u.joined(path, table))


declare(Store("dbfs", schemes=("dbfs",), parse_uri=_dbfs_uri))


# --------------------------------------------------------------------------- files


def local_file(path: str) -> DatasetName:
    """Name a file or directory on the local file system.

    Args:
        path: The absolute path (POSIX, or a Windows drive path).

    Returns:
        ``file`` and ``{path}``.
    """
    return DatasetName("file", p.absolute_path(path, "local_file"))


def remote_file(host: str, path: str) -> DatasetName:
    """Name a file or directory on another host's file system.

    Args:
        host: The host.
        path: The absolute path on that host.

    Returns:
        ``file://{host}`` and ``{path}``.
    """
    store = "remote_file"
    return DatasetName(f"file://{p.host(host, store)}", p.absolute_path(path, store))


def _file_uri(store: Store, uri: str, table: str | None) -> DatasetName:
    found, path = u.split_file_uri(uri)
    host, _ = p.host_port(found)
    with u.reported_against(uri):
        # RFC 8089: an empty authority and "localhost" both mean this machine.
        if not host or host.lower() == "localhost":
            return local_file(u.joined(path, table))
        return remote_file(host, u.joined(path, table))


# file: URLs name the local file system, or another host's (remote_file) by their authority.
declare(Store("local_file", schemes=("file",), parse_uri=_file_uri))
declare(Store("remote_file"))
