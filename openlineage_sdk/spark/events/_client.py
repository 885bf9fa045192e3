"""The client a session's lineage goes through, with the session's confs applied.

The transport and namespace of the ``spark.openlineage.*`` confs (else of the client
configuration: ``openlineage.yml``, ``OPENLINEAGE_*``), the confs' parent for runs outside every
run, and the confs' changes to each event (disabled facets, captured properties, owners, tags,
``removePath``). See :mod:`openlineage_sdk.spark._conf` for what each conf means.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

from openlineage_sdk.client import DEFAULT_NAMESPACE, OpenLineage
from openlineage_sdk.config import ConfigError, OpenLineageConfig, load_config
from openlineage_sdk.lifecycle import current_run
from openlineage_sdk.spark._conf import SparkConfSettings, session_settings
from openlineage_sdk.transports._registry import parse_transport_config

if TYPE_CHECKING:
    from openlineage_sdk.lifecycle import LineageRun
    from openlineage_sdk.transports.base import FlushResult

__all__ = ["ConfiguredClient", "client_from_settings", "configured_client", "rewrite_event"]

log = logging.getLogger("openlineage_sdk.spark")

_SPARK_PROPERTIES = "spark_properties"
_RUN_FACET_SCHEMA = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet"



def client_from_settings(settings: SparkConfSettings) -> OpenLineage:
    """A client for a session no client was given for: the confs' transport and namespace,
    else the client configuration's (``openlineage.yml``, ``OPENLINEAGE_*``)."""
    try:
        config = load_config()
    except ConfigError as error:
        log.error("openlineage: the client configuration cannot be used (%s)", error)
        config = OpenLineageConfig()
    if settings.transport is not None:
        config = config.model_copy(update={"transport": parse_transport_config(settings.transport)})
    return OpenLineage(config=config, namespace=settings.namespace)


class ConfiguredClient(OpenLineage):
    """A client that applies a session's confs to the events of another client.

    Runs made through it get the confs' parent when they have no enclosing run, and its events
    have the disabled facets removed, the captured properties, owners and tags added and the
    ``removePath`` part cut from dataset names, then go out through ``inner``. Closing it closes
    ``inner`` only when ``owns`` is set.

    Args:
        inner: The client whose transport delivers the events.
        settings: The session's settings.
        owns: Whether this client owns ``inner``.
        code_namespace: Whether ``inner``'s namespace was given in code (it then wins).
    """

    def __init__(
        self,
        inner: OpenLineage,
        settings: SparkConfSettings,
        *,
        owns: bool = False,
        code_namespace: bool = False,
    ) -> None:
        # Deliberately not OpenLineage.__init__: this client has no transport of its own.
        self.inner = inner
        self.settings = settings
        self.owns = owns
        #: The parent of runs made outside every run, before the confs' parent: the launcher
        #: sets the application run here, which is started but not entered as a block.
        self.default_parent: LineageRun | None = None
        self.raise_on_error = inner.raise_on_error
        self.invalid_transitions = inner.invalid_transitions
        self.config = inner.config
        self.disabled = inner.disabled or settings.disabled
        self.producer = inner.producer
        self.transport = inner.transport
        self.namespace = (
            inner.namespace if code_namespace or settings.namespace is None else settings.namespace
        )

    def run(self, job_name: str, **options: Any) -> LineageRun:
        """As :meth:`OpenLineage.run`, in the confs' namespace; with no enclosing run, under the
        confs' parent."""
        if self.settings.namespace is not None and options.get("namespace") is None:
            # The conf's namespace, as the JVM agent's: not the parent's, as a child would have.
            options["namespace"] = self.namespace
        parent = options.get("parent", "auto")
        if parent == "auto" and current_run() is None:
            fallback = self.default_parent or self.settings.parent
            if fallback is not None:
                options["parent"] = fallback
        return super().run(job_name, **options)

    def emit(self, event: Any) -> None:
        """Apply the confs to the event, then emit it through the inner client."""
        if self.disabled:
            return
        if self.settings.rewrites_events:
            try:
                event = rewrite_event(event, self.settings)
            except Exception as error:  # the event goes out as it was rather than not at all
                log.warning("openlineage: applying the spark.openlineage confs failed: %s", error)
        self.inner.emit(event)

    def flush(self, timeout: float | None = None) -> FlushResult:
        """Flush the inner client."""
        return self.inner.flush(timeout)

    def close(self, timeout: float | None = None) -> FlushResult:
        """Close the inner client when owned, else flush it."""
        return self.inner.close(timeout) if self.owns else self.inner.flush(timeout)

    def __repr__(self) -> str:
        return f"ConfiguredClient({self.inner!r})"


def _facet(producer: str, schema_url: str, **fields: Any) -> dict[str, Any]:
    return {"_producer": producer, "_schemaURL": schema_url, **fields}


def rewrite_event(event: Any, settings: SparkConfSettings) -> Any:
    """The event with the confs applied (see :class:`ConfiguredClient`)."""
    from openlineage_sdk._read import read_event

    data = event.to_dict()
    producer = data.get("producer", "")
    run = data.get("run")
    job = data.get("job")
    if isinstance(run, dict):
        facets = run.setdefault("facets", {})
        if settings.captured:
            facets[_SPARK_PROPERTIES] = _facet(
                producer, _RUN_FACET_SCHEMA, properties=dict(settings.captured)
            )
        if settings.run_tags:
            facets["tags"] = _merge_tags(facets.get("tags"), settings.run_tags, producer, "run")
    if isinstance(job, dict):
        facets = job.setdefault("facets", {})
        if settings.job_owners and "ownership" not in facets:
            facets["ownership"] = _facet(
                producer,
                "https://openlineage.io/spec/facets/1-0-1/OwnershipJobFacet.json#/$defs/OwnershipJobFacet",
                owners=[{"name": n, "type": t} for t, n in settings.job_owners.items()],
            )
        if settings.job_tags:
            facets["tags"] = _merge_tags(facets.get("tags"), settings.job_tags, producer, "job")
    for kind in ("inputs", "outputs"):
        for dataset in data.get(kind) or []:
            if settings.remove_path is not None and isinstance(dataset.get("name"), str):
                dataset["name"] = _cut(dataset["name"], settings.remove_path)
            for container in ("facets", "inputFacets", "outputFacets"):
                _drop(dataset.get(container), settings.disabled_facets)
    for part in (run, job):
        if isinstance(part, dict):
            _drop(part.get("facets"), settings.disabled_facets)
    return read_event(data)


def _merge_tags(
    existing: Any, tags: tuple[tuple[str, str], ...], producer: str, level: str
) -> dict[str, Any]:
    schema = f"https://openlineage.io/spec/facets/1-0-0/Tags{level.capitalize()}Facet.json"
    facet = dict(existing) if isinstance(existing, dict) else _facet(producer, schema)
    merged = {t["key"]: t for t in facet.get("tags") or [] if isinstance(t, dict)}
    for key, value in tags:
        merged[key] = {"key": key, "value": value, "source": "SPARK"}
    facet["tags"] = list(merged.values())
    return facet


def _drop(facets: Any, disabled: frozenset[str]) -> None:
    if isinstance(facets, dict):
        for name in disabled & facets.keys():
            del facets[name]


def _cut(name: str, pattern: re.Pattern[str]) -> str:
    match = pattern.search(name)
    if match is None or match.group("remove") is None:
        return name
    start, end = match.span("remove")
    return name[:start] + name[end:]


def configured_client(
    spark: Any, client: OpenLineage | None
) -> tuple[OpenLineage, SparkConfSettings]:
    """The client a session's lineage goes through, with its confs applied.

    Args:
        spark: The session.
        client: The client given in code, if any: its transport wins over the confs'.

    Returns:
        The client (a :class:`ConfiguredClient` when the confs change anything) and the settings.
    """
    settings = session_settings(spark)
    if isinstance(client, ConfiguredClient):
        return client, settings
    if client is None:
        inner = client_from_settings(settings)
        return ConfiguredClient(inner, settings, owns=True), settings
    from_config = client.namespace in (client.config.namespace, DEFAULT_NAMESPACE)
    return ConfiguredClient(client, settings, code_namespace=not from_config), settings
