"""Kubernetes: the pod, namespace, node and image of a driver (``openlineageSdk_kubernetes``).

The JVM agent has no Kubernetes facet. What tells:

* **Detection**: the driver runs in a pod (Kubernetes sets ``KUBERNETES_SERVICE_HOST`` in every
  container) or Spark's master is ``k8s://...`` (a client-mode driver outside the cluster whose
  executors run in it). Under Spark Connect, the master alone (the client's environment is not
  the driver's).
* ``namespace``: ``POD_NAMESPACE``, else the pod's service account namespace file
  (``/var/run/secrets/kubernetes.io/serviceaccount/namespace``), else ``spark.kubernetes.namespace``.
* ``podName``: ``POD_NAME``, else ``spark.kubernetes.driver.pod.name`` (``spark-submit`` sets it
  for a driver it starts in cluster deploy mode; Spark asks it of a client-mode driver in a pod).
* ``nodeName``: ``NODE_NAME``.
* ``image``: ``spark.kubernetes.driver.container.image``, else ``spark.kubernetes.container.image``.

``POD_NAME``, ``POD_NAMESPACE`` and ``NODE_NAME`` come from the downward API: a driver pod gets them
from its pod template (``spark.kubernetes.driver.podTemplateFile``), as
``env: [{name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}, ...]``
(``metadata.namespace``, ``spec.nodeName``). Only these names are read; a field nothing names is
left out, and with none known there is no facet.
"""

from __future__ import annotations

from typing import Any

from openlineage_sdk.spark.platforms._facts import Facts

__all__ = ["FACET_KEY", "NAMESPACE_FILE", "kubernetes_fields", "on_kubernetes"]

FACET_KEY = "openlineageSdk_kubernetes"
NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"


def on_kubernetes(facts: Facts) -> bool:
    """Whether the driver runs in a pod or drives executors on Kubernetes."""
    master = facts.master or facts.conf("spark.master") or ""
    return master.startswith("k8s://") or facts.env_var("KUBERNETES_SERVICE_HOST") is not None


def kubernetes_fields(facts: Facts) -> dict[str, Any] | None:
    """The fields of ``openlineageSdk_kubernetes``; ``None`` when not on Kubernetes."""
    if not on_kubernetes(facts):
        return None
    in_pod = facts.env_var("KUBERNETES_SERVICE_HOST") is not None
    namespace_file = facts.read_file(NAMESPACE_FILE) if in_pod else None
    fields = {
        "namespace": facts.env_var("POD_NAMESPACE")
        or (namespace_file.strip() if namespace_file and namespace_file.strip() else None)
        or facts.conf("spark.kubernetes.namespace"),
        "podName": facts.env_var("POD_NAME") or facts.conf("spark.kubernetes.driver.pod.name"),
        "nodeName": facts.env_var("NODE_NAME"),
        "image": facts.conf("spark.kubernetes.driver.container.image")
        or facts.conf("spark.kubernetes.container.image"),
    }
    found = {key: value for key, value in fields.items() if value is not None}
    return found or None
