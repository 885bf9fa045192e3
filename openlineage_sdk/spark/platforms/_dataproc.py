"""Google Cloud Dataproc: the ``gcp_dataproc`` run facet and the ``gcp_lineage`` job facet.

As the JVM agent's GCP vendor (``vendor/gcp``: ``GcpVendor``, ``GcpRunFacetBuilder``,
``GcpJobFacetBuilder``, ``GCPUtils``):

* **Detection**: ``SPARK_DIST_CLASSPATH`` in the driver's environment holds Dataproc's own
  library folder, ``/usr/local/share/google/dataproc/lib``. Classic sessions only: under Spark
  Connect neither the driver's environment nor its metadata server is the client's.
* **What kind of workload**: ``spark.master`` ``yarn`` is a job on a Dataproc cluster; otherwise
  the metadata server's ``dataproc-batch-id`` names a serverless batch, its
  ``dataproc-session-id`` an interactive session.
* **gcp_dataproc** (schema ``GcpDataprocRunFacet`` 1-0-0 of the facet registry): on a cluster
  ``clusterName`` (the driver host's first label without its last ``-`` part: ``mycluster-m`` is
  ``mycluster``), ``clusterUuid`` (metadata ``dataproc-cluster-uuid``), ``jobId`` and ``jobUuid``
  (the ``spark.yarn.tags`` tags ``dataproc_job_...``, not ``dataproc_job_attempt_timestamp_...``,
  and ``dataproc_uuid_...``) and ``jobType`` ``dataproc_job``; for a batch ``batchId``,
  ``batchUuid``, ``jobType`` ``batch``; for a session ``sessionId``, ``sessionUuid``, ``jobType``
  ``session``; always ``projectId`` (metadata ``project/project-id``, after its last ``/``),
  ``appId`` (``spark.app.id``) and ``appName`` (``spark.app.name``); on an execution's events
  ``queryNodeName``, the executed plan's node that names the job (the command part of its name).
* **gcp_lineage** (``GcpLineageJobFacet`` 1-0-0): ``origin``, ``sourceType`` ``DATAPROC`` and
  the resource's name: ``projects/{project}/regions/{region}/clusters/{cluster}``,
  ``projects/{project}/locations/{region}/batches/{batch}``,
  ``projects/{project}/locations/{region}/sessions/{session}``, or
  ``projects/{project}/regions/{region}/unknown/`` (metadata ``dataproc-region``).

The metadata server is ``http://metadata.google.internal/computeMetadata/v1`` (the conf
``google.metadata.api.base-url`` changes it, as in the agent), asked with the header
``Metadata-Flavor: Google`` and a 100 ms timeout, once when the adapter is installed (the agent
asks on every event).
"""

from __future__ import annotations

from typing import Any

from openlineage_sdk.spark.platforms._facts import Facts

__all__ = [
    "DATAPROC_LIBRARY",
    "JOB_FACET_KEY",
    "METADATA_URL_CONF",
    "RUN_FACET_KEY",
    "RUN_FACET_SCHEMA",
    "on_dataproc",
    "run_facet_fields",
]

RUN_FACET_KEY = "gcp_dataproc"
JOB_FACET_KEY = "gcp_lineage"
RUN_FACET_SCHEMA = (
    "https://openlineage.io/spec/facets/1-0-0/GcpDataprocRunFacet.json#/$defs/GcpDataprocRunFacet"
)
JOB_FACET_SCHEMA = (
    "https://openlineage.io/spec/facets/1-0-0/GcpLineageJobFacet.json#/$defs/GcpLineageJobFacet"
)
DATAPROC_LIBRARY = "/usr/local/share/google/dataproc/lib"
METADATA_URL_CONF = "google.metadata.api.base-url"
_METADATA_URL = "http://metadata.google.internal/computeMetadata/v1"
_TIMEOUT_S = 0.1


def on_dataproc(facts: Facts) -> bool:
    """Whether the driver runs on Dataproc (classic sessions: its ``SPARK_DIST_CLASSPATH``)."""
    classpath = facts.env_var("SPARK_DIST_CLASSPATH")
    return facts.kind == "classic" and classpath is not None and DATAPROC_LIBRARY in classpath


class _Metadata:
    """The metadata server's answers, each asked once."""

    def __init__(self, facts: Facts) -> None:
        self._facts = facts
        self._base = facts.confs.get(METADATA_URL_CONF) or _METADATA_URL
        self._answers: dict[str, str | None] = {}

    def get(self, endpoint: str) -> str | None:
        if endpoint not in self._answers:
            self._answers[endpoint] = self._facts.http(
                self._base + endpoint, {"Metadata-Flavor": "Google"}, "GET", _TIMEOUT_S
            )
        return self._answers[endpoint]


def _tag(facts: Facts, prefix: str, exclude: str | None = None) -> str | None:
    tags = facts.conf("spark.yarn.tags")
    if tags is None:
        return None
    for tag in tags.split(","):
        if tag.startswith(prefix) and (exclude is None or not tag.startswith(exclude)):
            return tag[len(prefix) :]
    return None


def _cluster_name(facts: Facts) -> str | None:
    host = facts.conf("spark.driver.host")
    if host is None:
        return None
    label = host.split(".")[0]
    return label[: label.rfind("-")] if "-" in label else None


def _resource(facts: Facts, metadata: _Metadata) -> str:
    if facts.master == "yarn" or facts.conf("spark.master") == "yarn":
        return "cluster"
    if metadata.get("/instance/attributes/dataproc-batch-id") is not None:
        return "batch"
    if metadata.get("/instance/attributes/dataproc-session-id") is not None:
        return "session"
    return "unknown"


def run_facet_fields(facts: Facts) -> tuple[dict[str, Any], dict[str, Any]]:
    """The fields of ``gcp_dataproc`` (without ``queryNodeName``) and of ``gcp_lineage``."""
    metadata = _Metadata(facts)
    resource = _resource(facts, metadata)
    fields: dict[str, Any] = {}

    def put(key: str, value: str | None) -> None:
        if value is not None:
            fields[key] = value

    attributes = "/instance/attributes/dataproc-"
    if resource == "cluster":
        put("clusterName", _cluster_name(facts))
        put("clusterUuid", metadata.get(attributes + "cluster-uuid"))
        put("jobId", _tag(facts, "dataproc_job_", "dataproc_job_attempt_timestamp_"))
        put("jobUuid", _tag(facts, "dataproc_uuid_"))
        fields["jobType"] = "dataproc_job"
    elif resource == "batch":
        put("batchId", metadata.get(attributes + "batch-id"))
        put("batchUuid", metadata.get(attributes + "batch-uuid"))
        fields["jobType"] = "batch"
    elif resource == "session":
        put("sessionId", metadata.get(attributes + "session-id"))
        put("sessionUuid", metadata.get(attributes + "session-uuid"))
        fields["jobType"] = "session"
    project = metadata.get("/project/project-id")
    put("projectId", project.rsplit("/", 1)[-1] if project is not None else None)
    put("appId", facts.conf("spark.app.id"))
    put("appName", facts.conf("spark.app.name"))
    return fields, _gcp_lineage(facts, metadata, resource, fields)


def _gcp_lineage(
    facts: Facts, metadata: _Metadata, resource: str, fields: dict[str, Any]
) -> dict[str, Any]:
    """The fields of ``gcp_lineage``: the Dataproc resource that ran the job."""
    formats = {
        "cluster": ("projects/{}/regions/{}/clusters/{}", fields.get("clusterName")),
        "batch": ("projects/{}/locations/{}/batches/{}", fields.get("batchId")),
        "session": ("projects/{}/locations/{}/sessions/{}", fields.get("sessionId")),
        "unknown": ("projects/{}/regions/{}/unknown/{}", None),
    }
    name_format, resource_id = formats[resource]
    region = metadata.get("/instance/attributes/dataproc-region") or ""
    name = name_format.format(fields.get("projectId", ""), region, resource_id or "")
    return {"origin": {"name": name, "sourceType": "DATAPROC"}}
