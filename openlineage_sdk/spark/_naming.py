"""Dataset and job names for the adapter, by :mod:`openlineage_sdk.naming`.

A DBFS path without a workspace (``dbfs:/mnt/lake/orders``, as Databricks clusters spell their own
file system) is named ``dbfs`` / ``{path}`` by the naming module, as the JVM openlineage-spark
agent names it, so both producers agree on those datasets.
"""

from __future__ import annotations

from openlineage_sdk import naming
from openlineage_sdk.naming import DatasetName, NamingError

__all__ = ["dataset_name", "job_name"]


def dataset_name(uri: str, table: str | None = None) -> DatasetName:
    """The namespace and name of the dataset at ``uri`` (and ``table``, for JDBC).

    Raises:
        NamingError: The URI cannot name a dataset (the message masks credentials).
    """
    return naming.dataset_from_uri(uri, table)


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
