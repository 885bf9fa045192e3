"""Amazon EMR on EC2: the cluster and step a driver runs on (``openlineageSdk_emr``).

The JVM agent has no EMR facet. EMR writes ``/mnt/var/lib/info/job-flow.json`` on every node of a
cluster (AWS's documentation of the node's JSON configuration files), whose ``jobFlowId`` is the
cluster's id (``j-...``); a step runs its command in its own folder,
``/mnt/var/lib/hadoop/steps/{step id}``, so a driver started by a step in client deploy mode has
that folder as its working folder. Classic sessions only (under Spark Connect the client's files
are not the driver's). Nothing is guessed: no file, no facet; a working folder that is not a step's
folder, no step id. In cluster deploy mode the driver runs in a YARN container, outside the step's
folder, and the facet has the cluster's id alone.

EMR Serverless and EMR on EKS write neither: a driver on EKS gets the Kubernetes facet.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath
from typing import Any

from openlineage_sdk.spark.platforms._facts import Facts

__all__ = ["FACET_KEY", "JOB_FLOW_FILE", "STEPS_FOLDER", "emr_fields"]

FACET_KEY = "openlineageSdk_emr"
JOB_FLOW_FILE = "/mnt/var/lib/info/job-flow.json"
STEPS_FOLDER = "/mnt/var/lib/hadoop/steps"
_STEP_ID = re.compile(r"s-[0-9A-Z]+\Z")


def _step_id(facts: Facts) -> str | None:
    if facts.cwd is None or facts.root is None:
        return None
    try:
        relative = facts.cwd.relative_to(facts.root)
    except ValueError:
        return None
    folder = PurePosixPath("/", *relative.parts)
    if str(folder.parent) != STEPS_FOLDER or not _STEP_ID.match(folder.name):
        return None
    return folder.name


def emr_fields(facts: Facts) -> dict[str, Any] | None:
    """``clusterId`` and ``stepId`` of ``openlineageSdk_emr``; ``None`` when not on EMR."""
    if facts.kind != "classic":
        return None
    text = facts.read_file(JOB_FLOW_FILE)
    if text is None:
        return None
    try:
        cluster = json.loads(text).get("jobFlowId")
    except (ValueError, AttributeError):
        return None
    if not isinstance(cluster, str) or not cluster.strip():
        return None
    fields: dict[str, Any] = {"clusterId": cluster}
    step = _step_id(facts)
    if step is not None:
        fields["stepId"] = step
    return fields
