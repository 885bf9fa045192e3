"""What a platform can be told by: the driver's confs, environment, files and SparkContext.

Every detector of this package is a pure function of :class:`Facts`. :func:`gather` reads them
from a session once:

* **classic PySpark**: the adapter runs in the driver's own process, so the process's
  environment and files are the driver's, and the ``SparkContext`` answers the rest (its master,
  application id, user, UI address, Hadoop configuration, the thread's local properties);
* **Spark Connect**: the client is not the driver. Only what the session's confs say is the
  driver's (``spark.conf``); the client's own environment and files say nothing about the server,
  so they are not read, and a platform known only from them is not detected.
"""

from __future__ import annotations

import logging
import os
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = ["FILES_ROOT", "Facts", "HttpGet", "gather", "http_get"]

log = logging.getLogger("openlineage_sdk.spark")

#: Where a classic driver's files are read from: the file system's root.
FILES_ROOT = Path("/")

HttpGet = Callable[[str, Mapping[str, str], str, float], "str | None"]
"""``(url, headers, method, timeout) -> body``, or ``None`` when there is no answer."""

# The Hadoop keys the detectors read, beside the confs (a classic driver's Hadoop configuration
# holds its *-site.xml files as well as the spark.hadoop.* confs).
HADOOP_KEYS = (
    "yarn.http.policy",
    "hive.metastore.client.factory.class",
    "hive.metastore.glue.catalogid",
)
# The local properties the Databricks runtime sets on the thread that runs a command.
LOCAL_PROPERTY_KEYS = (
    "orgId",
    "spark.databricks.clusterUsageTags.clusterOwnerOrgId",
    "spark.databricks.notebook.path",
    "spark.databricks.job.type",
    "spark.databricks.job.id",
    "spark.databricks.job.runId",
    "user",
    "userId",
    "spark.databricks.clusterUsageTags.clusterName",
    "spark.databricks.clusterUsageTags.clusterAllTags",
    "spark.databricks.clusterUsageTags.azureSubscriptionId",
)


def http_get(url: str, headers: Mapping[str, str], method: str, timeout: float) -> str | None:
    """A small HTTP request to a metadata server on the machine's own network; ``None`` when
    nothing answers in ``timeout`` seconds or the answer is an error."""
    request = urllib.request.Request(url, headers=dict(headers), method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            if 200 <= response.status < 300:
                return str(response.read().decode("utf-8", "replace"))
    except Exception as error:  # no metadata server: the platform says nothing more
        log.debug("openlineage: %s %s: %s", method, url, error)
    return None


@dataclass(frozen=True)
class Facts:
    """What the detectors may read about the driver.

    Attributes:
        kind: ``classic`` (the facts are the driver's own) or ``connect`` (confs only).
        confs: The session's confs (the application's and the runtime ones).
        env: The driver's environment variables (empty under Connect).
        root: The driver's file system root (``None`` under Connect: its files are not ours).
        cwd: The driver's working folder (``None`` under Connect).
        master: ``SparkContext.master``; under Connect ``spark.master``.
        app_name: ``SparkContext.appName``; under Connect ``spark.app.name``.
        application_id: ``SparkContext.applicationId``; under Connect ``spark.app.id``.
        user: ``SparkContext.sparkUser()`` (classic only).
        ui_web_url: ``SparkContext.uiWebUrl`` (classic only).
        hadoop: The Hadoop configuration's values of :data:`HADOOP_KEYS` that are set; under
            Connect those of the ``spark.hadoop.*`` confs.
        local_properties: The calling thread's local properties of :data:`LOCAL_PROPERTY_KEYS`
            that are set (classic only).
        http: How metadata servers are asked (:func:`http_get`).
    """

    kind: Literal["classic", "connect"]
    confs: Mapping[str, str] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    root: Path | None = None
    cwd: Path | None = None
    master: str | None = None
    app_name: str | None = None
    application_id: str | None = None
    user: str | None = None
    ui_web_url: str | None = None
    hadoop: Mapping[str, str] = field(default_factory=dict)
    local_properties: Mapping[str, str] = field(default_factory=dict)
    http: HttpGet = field(default=http_get, compare=False, repr=False)

    def conf(self, key: str) -> str | None:
        """A conf's value, ``None`` when it is not set or blank."""
        value = self.confs.get(key)
        return value if value is not None and value.strip() else None

    def hadoop_conf(self, key: str) -> str | None:
        """A Hadoop property: the Hadoop configuration's, else the ``spark.hadoop.`` conf's."""
        value = self.hadoop.get(key) or self.confs.get(f"spark.hadoop.{key}")
        return value if value is not None and value.strip() else None

    def env_var(self, name: str) -> str | None:
        """An environment variable of the driver, ``None`` when not set or blank (and always
        under Connect, where no environment is the driver's)."""
        if self.kind != "classic":
            return None
        value = self.env.get(name)
        return value if value is not None and value.strip() else None

    def read_file(self, path: str) -> str | None:
        """A file of the driver (an absolute path under :attr:`root`); ``None`` when absent
        (and always under Connect)."""
        if self.root is None or self.kind != "classic":
            return None
        try:
            return (self.root / path.lstrip("/")).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None


def _optional(call: Callable[[], Any]) -> str | None:
    try:
        value = call()
    except Exception as error:
        log.debug("openlineage: reading the driver's context failed: %s", error)
        return None
    if value is None:
        return None
    text = str(value)
    return text if text.strip() else None


def gather(spark: Any, confs: Mapping[str, str], *, root: Path | None = None) -> Facts:
    """The facts of a session's driver, read now.

    Args:
        spark: A classic ``SparkSession`` or a Spark Connect one.
        confs: The session's confs, as :func:`openlineage_sdk.spark._conf.session_confs` reads
            them.
        root: Where the driver's files are; :data:`FILES_ROOT` when ``None``.

    Returns:
        The facts; under Spark Connect the confs alone.
    """
    context = getattr(spark, "_sc", None)
    if context is None:
        return Facts(
            kind="connect",
            confs=dict(confs),
            master=confs.get("spark.master"),
            app_name=confs.get("spark.app.name"),
            application_id=confs.get("spark.app.id"),
            hadoop={
                key: confs[f"spark.hadoop.{key}"]
                for key in HADOOP_KEYS
                if f"spark.hadoop.{key}" in confs
            },
        )
    hadoop: dict[str, str] = {}
    try:
        configuration = context._jsc.hadoopConfiguration()
        for key in HADOOP_KEYS:
            value = configuration.get(key)
            if value is not None:
                hadoop[key] = str(value)
    except Exception as error:
        log.debug("openlineage: reading the Hadoop configuration failed: %s", error)
    local: dict[str, str] = {}
    for key in LOCAL_PROPERTY_KEYS:
        value = _optional(lambda key=key: context.getLocalProperty(key))  # type: ignore[misc]
        if value is not None:
            local[key] = value
    return Facts(
        kind="classic",
        confs=dict(confs),
        env=dict(os.environ),
        root=root if root is not None else FILES_ROOT,
        cwd=Path(os.getcwd()),
        master=_optional(lambda: context.master),
        app_name=_optional(lambda: context.appName),
        application_id=_optional(lambda: context.applicationId),
        user=_optional(context.sparkUser),
        ui_web_url=_optional(lambda: context.uiWebUrl),
        hadoop=hadoop,
        local_properties=local,
    )
