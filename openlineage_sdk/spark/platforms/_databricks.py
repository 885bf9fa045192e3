"""Databricks: the ``environment-properties`` run facet, readable job names, Unity Catalog.

As the JVM agent (``DatabricksEnvironmentFacetBuilder``, ``DatabricksUtils``,
``CustomEnvironmentFacetBuilder``):

* **Detection.** The Databricks runtime sets ``DATABRICKS_RUNTIME_VERSION`` in the driver's
  environment; the agent adds its facet only then. Under Spark Connect the client's environment is
  not the driver's, and ``spark.databricks.workspaceUrl`` (the agent's other rule,
  ``isRunOnDatabricksPlatform``) tells instead.
* **The facet** ``environment-properties`` holds one map, also named ``environment-properties``:
  the keys ``orgId``, ``spark.databricks.clusterUsageTags.clusterOwnerOrgId``,
  ``spark.databricks.notebook.path``, ``spark.databricks.job.type``, ``spark.databricks.job.id``,
  ``spark.databricks.job.runId``, ``user``, ``userId``,
  ``spark.databricks.clusterUsageTags.clusterName``, ``...clusterAllTags`` and
  ``...azureSubscriptionId``, from the properties of the Spark job (the thread's local
  properties, which the runtime sets per command) and, here, from the session's confs when not a
  local property (the cluster's usage tags are confs; under Connect the confs are all the client
  sees); and the variables named by ``spark.openlineage.facets.custom_environment_variables``
  (``[A;B]``) with their values. Keys without a value are left out, as the agent's JSON leaves out
  nulls. The agent also lists ``mountPoints`` from ``dbutils``, through reflection on Databricks'
  own classes; the adapter does not (it cannot be tested outside Databricks).
* **Elsewhere**, ``custom_environment_variables`` alone makes the same facet with those
  variables (``CustomEnvironmentFacetBuilder``), in classic sessions (under Connect the client's
  variables are not the driver's).
* **Job names.** With ``spark.databricks.workspaceUrl`` set, an execution's job name has
  ``databricks_shell.`` (the notebook shell's app name) replaced by the workspace's id and a dot,
  when job names end with the dataset's name (the default), as the agent's
  ``prettifyDatabricksJobName`` does: the URL without ``https://`` and
  ``.cloud.databricks.com/``.
* **Unity Catalog.** With ``spark.databricks.unityCatalog.enabled=true`` on Databricks, a catalog
  table's symlink is ``unity-catalog`` / ``{catalog}.{schema}.{table}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openlineage_sdk.spark.platforms._facts import LOCAL_PROPERTY_KEYS, Facts

__all__ = [
    "CUSTOM_VARIABLES_CONF",
    "FACET_KEY",
    "UNITY_CATALOG_NAMESPACE",
    "WORKSPACE_URL_CONF",
    "custom_variables",
    "environment_properties",
    "on_databricks",
    "prettify_job_name",
    "unity_catalog_enabled",
    "workspace_id",
]

FACET_KEY = "environment-properties"
RUNTIME_VARIABLE = "DATABRICKS_RUNTIME_VERSION"
WORKSPACE_URL_CONF = "spark.databricks.workspaceUrl"
UNITY_CATALOG_CONF = "spark.databricks.unityCatalog.enabled"
UNITY_CATALOG_NAMESPACE = "unity-catalog"
CUSTOM_VARIABLES_CONF = "spark.openlineage.facets.custom_environment_variables"


def on_databricks(facts: Facts) -> bool:
    """Whether the driver runs on Databricks, by the rule of the session's kind (above)."""
    if facts.kind == "classic":
        return facts.env_var(RUNTIME_VARIABLE) is not None
    return facts.conf(WORKSPACE_URL_CONF) is not None


def custom_variables(confs: Mapping[str, str]) -> list[str]:
    """The names ``spark.openlineage.facets.custom_environment_variables`` lists (``[A;B]``)."""
    value = confs.get(CUSTOM_VARIABLES_CONF, "")
    return [name.strip() for name in value.strip().strip("[]").split(";") if name.strip()]


def environment_properties(facts: Facts) -> dict[str, Any] | None:
    """The map of the ``environment-properties`` facet; ``None`` when the facet does not apply.

    On Databricks the runtime's keys and the custom variables; elsewhere, in a classic
    session, the custom variables alone when some are named.
    """
    names = custom_variables(facts.confs) if facts.kind == "classic" else []
    databricks = on_databricks(facts)
    if not databricks and not names:
        return None
    properties: dict[str, Any] = {}
    for name in names:
        value = facts.env.get(name)
        if value is not None:
            properties[name] = value
    if databricks:
        for key in LOCAL_PROPERTY_KEYS:
            value = facts.local_properties.get(key) or facts.conf(key)
            if value is not None:
                properties[key] = value
    return properties


def workspace_id(confs: Mapping[str, str]) -> str | None:
    """What the agent puts for ``databricks_shell`` in job names: ``spark.databricks.workspaceUrl``
    without ``.cloud.databricks.com/`` and ``https://``; ``None`` when the conf is not set."""
    url = confs.get(WORKSPACE_URL_CONF)
    if url is None:
        return None
    return url.replace(".cloud.databricks.com/", "").replace("https://", "")


def prettify_job_name(name: str, workspace: str) -> str:
    """``databricks_shell.`` in an execution's job name made ``{workspace}.``, as the agent does."""
    return name.replace("databricks_shell.", workspace + ".")


def unity_catalog_enabled(facts: Facts) -> bool:
    """Whether catalog tables get Unity Catalog symlinks: on Databricks (the runtime's
    variable, or the workspace URL conf) with ``spark.databricks.unityCatalog.enabled=true``."""
    databricks = facts.env_var(RUNTIME_VARIABLE) is not None or (
        facts.conf(WORKSPACE_URL_CONF) is not None
    )
    return databricks and facts.confs.get(UNITY_CATALOG_CONF) == "true"
