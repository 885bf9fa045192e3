"""Dataset and job names for the adapter, behind one function each.

``dataset_name`` turns a storage URI (a path with its scheme, or a JDBC URL plus a table) into
the dataset's namespace and name. The project's naming module owns those rules; while it is not
on this branch, a small local fallback covers the stores the adapter meets. Switching over is
automatic: as soon as ``openlineage_sdk.naming`` can be imported, it is used.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

__all__ = ["DatasetName", "dataset_name", "job_name", "normalize_name_part"]


@dataclass(frozen=True)
class DatasetName:
    """A dataset's namespace and name."""

    namespace: str
    name: str


def _naming_module() -> Any:
    try:
        return importlib.import_module("openlineage_sdk.naming")
    except ImportError:
        return None


def dataset_name(uri: str, table: str | None = None) -> DatasetName:
    """The namespace and name of the dataset at ``uri`` (and ``table``, for JDBC).

    Raises ``ValueError`` when the URI cannot name a dataset.
    """
    module = _naming_module()
    if module is not None:
        try:
            result = module.dataset_from_uri(uri, table)
            return DatasetName(str(result.namespace), str(result.name))
        except ValueError:
            # DBFS paths as Spark writes them (dbfs:/mnt/x) carry no workspace; the JVM agent
            # names them namespace "dbfs", so fall through to the local rules for those alone.
            if not uri.startswith("dbfs:"):
                raise
    return _local_dataset_name(uri, table)


_OBJECT_STORES = {"s3": "s3", "s3a": "s3", "s3n": "s3", "gs": "gs"}


def _local_dataset_name(uri: str, table: str | None) -> DatasetName:
    if uri.startswith("jdbc:"):
        return _jdbc_name(uri, table)
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    path = parts.path.rstrip("/") or "/"
    if scheme in ("", "file"):
        if parts.netloc:
            return DatasetName(f"file://{parts.netloc}", path)
        return DatasetName("file", path)
    if scheme in _OBJECT_STORES:
        return DatasetName(f"{_OBJECT_STORES[scheme]}://{parts.netloc}", path.lstrip("/") or "/")
    if scheme in ("abfs", "abfss"):
        return DatasetName(f"abfss://{parts.netloc}", path)
    if scheme in ("wasb", "wasbs"):
        netloc = parts.netloc.replace(".blob.core.windows.net", ".dfs.core.windows.net")
        return DatasetName(f"wasbs://{netloc}", path.lstrip("/") or "/")
    if scheme == "dbfs":
        return DatasetName(f"dbfs://{parts.netloc}" if parts.netloc else "dbfs", path)
    if not parts.netloc:
        raise ValueError(f"{uri}: no authority to name a data source")
    return DatasetName(f"{scheme}://{parts.hostname or ''}{_port(parts.port)}", path)


def _port(port: int | None) -> str:
    return f":{port}" if port else ""


_JDBC_DEFAULT_PORTS = {"postgresql": 5432, "mysql": 3306, "mariadb": 3306, "sqlserver": 1433}
_JDBC_SCHEMES = {"postgresql": "postgres", "sqlserver": "mssql"}


def _jdbc_name(url: str, table: str | None) -> DatasetName:
    if not table:
        raise ValueError(f"{_strip_credentials(url)}: a JDBC dataset needs a table")
    parts = urlsplit(url[len("jdbc:") :])
    dialect = parts.scheme.lower()
    if not parts.hostname:
        raise ValueError(f"{_strip_credentials(url)}: no host")
    port = parts.port or _JDBC_DEFAULT_PORTS.get(dialect)
    namespace = f"{_JDBC_SCHEMES.get(dialect, dialect)}://{parts.hostname}{_port(port)}"
    database = parts.path.strip("/").split(";")[0]
    name = f"{database}.{table}" if database else table
    return DatasetName(namespace, name)


def _strip_credentials(url: str) -> str:
    url = re.sub(r"//[^/@]*@", "//", url)
    return re.sub(r"(?i)(password|user|token|secret)=[^&;]*", r"\1=***", url)


def normalize_name_part(text: str) -> str:
    """``text`` as lower-case words joined by underscores, as the JVM agent builds job names.

    ``InsertIntoHadoopFsRelationCommand`` becomes ``insert_into_hadoop_fs_relation_command`` and
    ``/data/orders.v2`` becomes ``data_orders_v2``.
    """
    trimmed = re.sub(r"^\W+|\W+$", "", text)
    words = re.sub(r"([a-z])([A-Z])", r"\1 \2", trimmed)
    words = re.sub(r"(?<!^)([A-Z])([a-z])", r" \1\2", words)
    words = re.sub(r"(\d)(?=\D)", r"\1 ", words)
    return re.sub(r"[^a-z0-9]+", "_", words.lower()).strip("_")


def job_name(app_name: str, command: str, table: str | None) -> str:
    """``{appName}.{command}.{table}``, the naming conventions' name of a Spark job."""
    parts = [normalize_name_part(app_name) or "spark", normalize_name_part(command)]
    if table:
        parts.append(normalize_name_part(table))
    return ".".join(parts)
