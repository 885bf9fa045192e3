"""Where a Spark driver runs: the platform's identity facets and naming rules.

Production PySpark runs on managed platforms, and a run's lineage should say which cluster,
job, notebook or pod ran it. This package reads what each platform really sets (confs,
environment variables, files, its metadata server) and says, as pure functions of those
:class:`Facts`:

* **every platform**: ``spark_applicationDetails`` (master, app id and name, deploy mode, driver
  host, user, UI, proxy and history URLs), as the JVM agent writes it;
* **Databricks**: ``environment-properties`` (cluster, workspace, notebook or job, user), as the
  agent; executions' job names with the workspace's id for ``databricks_shell``; Unity Catalog
  tables' ``unity-catalog`` symlinks;
* **Dataproc**: the ``gcp_dataproc`` run facet and the ``gcp_lineage`` job facet, as the agent's
  GCP vendor;
* **Glue**: the application named after the Glue job; Glue Data Catalog tables' ARN symlinks;
* **EMR**: ``openlineageSdk_emr`` (the cluster and step ids);
* **Kubernetes**: ``openlineageSdk_kubernetes`` (namespace, pod, node, image).

Each module says what it reads and where the agent's code says so. Nothing is guessed: a platform
whose marks are absent is not detected, and a field whose source is absent is left out. The last
two facets are this package's own (the agent has none for those platforms), generated from their
schemas in ``spec/custom`` into :mod:`openlineage_sdk.spark.platforms.facets` like any plugin's
facets, and registered through the ``openlineage_sdk.facets`` entry point.

How the adapter uses it: :func:`detect` runs once when the adapter is installed (from the
session's settings, ``_conf.session_settings``); the facets go into the client's event
configuration (``events._client``), so every event of the application's run and of its
executions' runs carries them, as the agent sends them on every event; an execution's
``gcp_dataproc`` gains its ``queryNodeName``; catalog tables are named by :attr:`Platform.catalog`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from openlineage_sdk.spark.platforms import _databricks, _dataproc, _emr, _glue, _kubernetes
from openlineage_sdk.spark.platforms._application import application_details
from openlineage_sdk.spark.platforms._databricks import (
    UNITY_CATALOG_NAMESPACE,
    prettify_job_name,
    workspace_id,
)
from openlineage_sdk.spark.platforms._facts import Facts, HttpGet, gather, http_get
from openlineage_sdk.spark.platforms._glue import application_name, glue_table_name

__all__ = [
    "GENERIC_RUN_FACET",
    "UNITY_CATALOG_NAMESPACE",
    "Facts",
    "HttpGet",
    "Platform",
    "application_name",
    "detect",
    "gather",
    "glue_table_name",
    "http_get",
    "prettify_job_name",
    "workspace_id",
]

log = logging.getLogger("openlineage_sdk.spark")

#: The ``_schemaURL`` the JVM agent gives its facets that have no schema of their own.
GENERIC_RUN_FACET = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet"


@dataclass(frozen=True)
class Platform:
    """What :func:`detect` found about the driver.

    Attributes:
        names: The platforms detected (``databricks``, ``dataproc``, ``glue``, ``emr``,
            ``kubernetes``), for logs and tests.
        application: The fields of ``spark_applicationDetails``.
        environment: The map of ``environment-properties`` (Databricks, custom variables).
        dataproc: The fields of ``gcp_dataproc``, but an execution's ``queryNodeName``.
        gcp_lineage: The fields of ``gcp_lineage``.
        emr: The fields of ``openlineageSdk_emr``.
        kubernetes: The fields of ``openlineageSdk_kubernetes``.
        catalog: How the session catalog's tables are named in their symlink: the Glue
            catalog's ARN (``arn:aws:glue:{region}:{id}``) or ``unity-catalog``; ``None`` for
            Spark's own rule (a Hive metastore's URI, the warehouse).
    """

    names: tuple[str, ...] = ()
    application: Mapping[str, Any] = field(default_factory=dict)
    environment: Mapping[str, Any] | None = None
    dataproc: Mapping[str, Any] | None = None
    gcp_lineage: Mapping[str, Any] | None = None
    emr: Mapping[str, Any] | None = None
    kubernetes: Mapping[str, Any] | None = None
    catalog: str | None = None

    def run_facets(self, producer: str) -> dict[str, Any]:
        """The run facets of every event of the application's runs, by key.

        Facets without a schema of their own (``spark_applicationDetails``,
        ``environment-properties``) are JSON objects with the agent's generic ``_schemaURL``, as
        the agent writes them (their keys are the agent's, which the custom facet naming rules
        would not give); the others are instances of their classes.
        """
        from openlineage_sdk.spark.platforms.facets import (
            OpenlineageSdkEmrRunFacet,
            OpenlineageSdkKubernetesRunFacet,
        )

        facets: dict[str, Any] = {}
        if self.application:
            facets["spark_applicationDetails"] = {
                "_producer": producer,
                "_schemaURL": GENERIC_RUN_FACET,
                **self.application,
            }
        if self.environment is not None:
            facets[_databricks.FACET_KEY] = {
                "_producer": producer,
                "_schemaURL": GENERIC_RUN_FACET,
                _databricks.FACET_KEY: dict(self.environment),
            }
        dataproc = self.dataproc_facet(producer)
        if dataproc is not None:
            facets[_dataproc.RUN_FACET_KEY] = dataproc
        if self.emr is not None:
            facets[_emr.FACET_KEY] = OpenlineageSdkEmrRunFacet.model_validate(
                {"_producer": producer, **self.emr}
            )
        if self.kubernetes is not None:
            facets[_kubernetes.FACET_KEY] = OpenlineageSdkKubernetesRunFacet.model_validate(
                {"_producer": producer, **self.kubernetes}
            )
        return facets

    def job_facets(self, producer: str) -> dict[str, Any]:
        """The job facets of every event of the application's runs, by key (``gcp_lineage``)."""
        if self.gcp_lineage is None:
            return {}
        return {
            _dataproc.JOB_FACET_KEY: {
                "_producer": producer,
                "_schemaURL": _dataproc.JOB_FACET_SCHEMA,
                **self.gcp_lineage,
            }
        }

    def dataproc_facet(self, producer: str, query_node_name: str | None = None) -> Any:
        """``gcp_dataproc`` (with an execution's ``queryNodeName``), ``None`` off Dataproc."""
        if self.dataproc is None:
            return None
        from openlineage_sdk.spark.platforms.gcp import GcpDataprocRunFacet

        fields = dict(self.dataproc)
        if query_node_name is not None:
            fields["queryNodeName"] = query_node_name
        # The schema requires these three; a driver that does not say them gets the generic form.
        if all(key in fields for key in ("appId", "appName", "projectId")):
            return GcpDataprocRunFacet.model_validate({"_producer": producer, **fields})
        return {"_producer": producer, "_schemaURL": _dataproc.RUN_FACET_SCHEMA, **fields}


def _attempt(what: str, build: Any, default: Any = None) -> Any:
    try:
        return build()
    except Exception as error:  # a platform's marks that cannot be read: it is not reported
        log.warning("openlineage: detecting %s failed; its facets are left out: %s", what, error)
        return default


def detect(facts: Facts) -> Platform:
    """The platform the driver ``facts`` describe runs on.

    Args:
        facts: What the driver's session, environment and files say (:func:`gather`).

    Returns:
        What was found; each part that cannot be read is logged and left out.
    """
    names: list[str] = []
    application = _attempt("the application", lambda: application_details(facts), {})
    environment = _attempt("Databricks", lambda: _databricks.environment_properties(facts))
    if _databricks.on_databricks(facts):
        names.append("databricks")
    dataproc = gcp = None
    if _dataproc.on_dataproc(facts):
        names.append("dataproc")
        found = _attempt("Dataproc", lambda: _dataproc.run_facet_fields(facts))
        if found is not None:
            dataproc, gcp = found
    if _glue.application_name(facts.confs) is not None or _glue.VERSION_CONF in facts.confs:
        names.append("glue")
    emr = _attempt("EMR", lambda: _emr.emr_fields(facts))
    if emr is not None:
        names.append("emr")
    kubernetes = _attempt("Kubernetes", lambda: _kubernetes.kubernetes_fields(facts))
    if kubernetes is not None:
        names.append("kubernetes")
    catalog = _attempt("the Glue catalog", lambda: _glue.glue_catalog_arn(facts))
    if catalog is None and _databricks.unity_catalog_enabled(facts):
        catalog = UNITY_CATALOG_NAMESPACE
    return Platform(
        names=tuple(names),
        application=application,
        environment=environment,
        dataproc=dataproc,
        gcp_lineage=gcp,
        emr=emr,
        kubernetes=kubernetes,
        catalog=catalog,
    )
