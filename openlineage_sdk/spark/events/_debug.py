"""The ``debug`` run facet: what the adapter saw, as the JVM agent's ``DebugRunFacet``.

Off by default, as the agent's. With ``spark.openlineage.facets.debug.disabled=false`` every
event of an execution's run carries it; with ``spark.openlineage.debug.smart=true`` a COMPLETE
whose datasets are missing carries it, with a log line per missing side (the agent's
``attachSmartDebugFacet``). Its parts are the agent's where Python can fill them:

- ``classpath``: this SDK's version (the agent's connector version), Spark's and Scala's, the
  jars added through the confs, whether Delta, Iceberg and the BigQuery connector are there;
- ``system``: the driver JVM's Java and OS properties and the deploy mode;
- ``config``: the ``spark.openlineage.*`` confs (those whose key names a secret left out), the
  extra listeners, the session catalog's class, the SQL extensions;
- ``metrics``: the client's counters and timers (see ``openlineage_sdk.metrics``), unless
  ``debug.metricsDisabled``;
- ``memory``: the driver's memory confs and its JVM's free, total and max memory (MiB);
- ``logs``: what the adapter could not learn of the execution, each with its reason (the
  problems its ``extractionError`` lists), and the smart mode's lines;
- ``python``, the adapter's own: the Python and PySpark versions and the session's kind.

The driver's parts are read once, when the facet is first built; the memory at each event.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from typing import Any

from openlineage_sdk._version import __version__
from openlineage_sdk.models.base import RunFacet
from openlineage_sdk.spark._conf import CONF_PREFIX, DebugSettings
from openlineage_sdk.spark._execution import SparkExecution
from openlineage_sdk.spark.events._extensions import EventType

__all__ = ["DEBUG_KEY", "DebugSource"]

DEBUG_KEY = "debug"
_GENERIC = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet"
# Conf keys holding a secret: left out of the facet (the agent leaves out those naming a key).
_SECRETS = ("key", "token", "password", "secret", "credential", "auth")


def _public_confs(confs: Mapping[str, str]) -> dict[str, str]:
    return {
        key[len(CONF_PREFIX) :]: value
        for key, value in sorted(confs.items())
        if key.startswith(CONF_PREFIX) and not any(word in key.lower() for word in _SECRETS)
    }


class DebugSource:
    """Builds the ``debug`` facet of an execution's events.

    Args:
        settings: The ``debug`` confs.
        confs: The session's confs (the ``spark.openlineage.*`` ones are reported).
        facts: Reads the driver's classpath, system and confs (once).
        memory: Reads the driver's memory now; ``None``: not seen from here.
        metrics: Reads the client's metrics, as the agent's ``MetricsNode`` list.
    """

    def __init__(
        self,
        settings: DebugSettings,
        confs: Mapping[str, str],
        facts: Callable[[], dict[str, Any]],
        memory: Callable[[], dict[str, Any] | None],
        metrics: Callable[[], list[dict[str, Any]]] | None = None,
    ) -> None:
        self.settings = settings
        self._confs = _public_confs(confs)
        self._read_facts = facts
        self._memory = memory
        self._metrics = metrics
        self._facts: dict[str, Any] | None = None
        self._lock = threading.Lock()

    def _driver(self) -> dict[str, Any]:
        with self._lock:
            if self._facts is None:
                self._facts = self._read_facts()
            return self._facts

    def logs(self, execution: SparkExecution, event_type: EventType) -> list[str] | None:
        """The facet's log lines for this event; ``None``: the event carries no facet."""
        settings = self.settings
        lines = [*execution.problems]
        for dataset in (*execution.inputs, *([execution.output] if execution.output else [])):
            lines.extend(dataset.problems)
        if settings.enabled:
            return lines
        if not settings.smart or event_type != "COMPLETE":
            return None
        no_inputs, no_output = not execution.inputs, execution.output is None
        if settings.smart_mode == "output-missing":
            if not no_output:
                return None
        elif not (no_inputs or no_output):
            return None
        if no_inputs:
            lines.append("No input datasets detected")
        if no_output:
            lines.append("No output datasets detected")
        return lines

    def facet(
        self, execution: SparkExecution, event_type: EventType, producer: str
    ) -> RunFacet | None:
        """The ``debug`` facet of one event, or ``None`` when it carries none.

        Args:
            execution: The execution the event reports.
            event_type: The event's type.
            producer: The events' producer.

        Returns:
            The facet (a generic run facet under the agent's key), or ``None``.
        """
        logs = self.logs(execution, event_type)
        if logs is None:
            return None
        driver = self._driver()
        body: dict[str, Any] = {
            "classpath": {"openLineageVersion": __version__, **driver.get("classpath", {})},
            "system": driver.get("system"),
            "config": {**driver.get("config", {}), "openLineageConfig": self._confs},
            "python": driver.get("python"),
        }
        if not self.settings.metrics_disabled and self._metrics is not None:
            body["metrics"] = {"metrics": self._metrics()}
        memory = self._memory()
        if memory is not None:
            body["memory"] = memory
        body["logs"] = logs
        body = {key: value for key, value in body.items() if value is not None}
        size_kb = len(json.dumps(body).encode()) // 1024
        if size_kb > self.settings.payload_limit_kb:
            body = {"logs": [f"Skipping debug facet due to payload size: {size_kb} kilobytes"]}
        return RunFacet.model_validate({"_producer": producer, "_schemaURL": _GENERIC, **body})
