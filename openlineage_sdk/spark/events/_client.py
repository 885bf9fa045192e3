"""The client a session's lineage goes through, with the session's confs applied.

The transport and namespace of the ``spark.openlineage.*`` confs (else of the client
configuration: ``openlineage.yml``, ``OPENLINEAGE_*``), and the confs' changes to each event
(disabled facets, captured properties, owners, tags, ``removePath``) compiled into the client's
own event configuration (:class:`~openlineage_sdk._event_config.EventConfig`): each event is
edited once, on its way out, with the client configuration's own changes. What each conf means
is in :mod:`openlineage_sdk.spark._conf`.
"""

from __future__ import annotations

import copy
import logging
import weakref
from typing import Any

from openlineage_sdk._event_config import EventConfig, Tag
from openlineage_sdk.client import DEFAULT_NAMESPACE, OpenLineage
from openlineage_sdk.config import ConfigError, OpenLineageConfig, load_config
from openlineage_sdk.lifecycle import RunRef, current_run
from openlineage_sdk.spark._conf import RuntimeConfs, SparkConfSettings, session_settings
from openlineage_sdk.transports._registry import parse_transport_config

__all__ = [
    "client_from_settings",
    "compiled_event_config",
    "configured_client",
    "fallback_parent",
    "settings_of",
]

log = logging.getLogger("openlineage_sdk.spark")

_RUN_FACET_SCHEMA = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet"
_OWNERSHIP_SCHEMA = (
    "https://openlineage.io/spec/facets/1-0-1/OwnershipJobFacet.json#/$defs/OwnershipJobFacet"
)

# The clients configured from a session's confs, with their settings: configuring one again
# (application_run with the adapter's client) must not apply the confs twice.
_configured: weakref.WeakKeyDictionary[OpenLineage, SparkConfSettings] = weakref.WeakKeyDictionary()


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


def compiled_event_config(settings: SparkConfSettings, producer: str) -> EventConfig:
    """The confs' changes to events, as an event configuration (facets made with ``producer``).

    ``capturedProperties`` become the ``spark_properties`` run facet, ``job.owners.*`` the
    ``ownership`` job facet (when the event has none), ``job.tags`` and ``run.tags`` tags of
    source ``SPARK``, ``dataset.removePath.pattern`` a cut of dataset names, and the disabled
    facets are removed from runs, jobs and datasets. The facets of the platform the driver runs
    on (``spark_applicationDetails``, Databricks', Dataproc's, EMR's, Kubernetes') join every
    run event that has none under their key, as the JVM agent sends them on every event.
    """
    run_facets: dict[str, Any] = {}
    job_facets: dict[str, Any] = {}
    platform = settings.platform
    if platform is not None:
        run_facets.update(platform.run_facets(producer))
        job_facets.update(platform.job_facets(producer))
    if settings.captured:
        run_facets["spark_properties"] = {
            "_producer": producer,
            "_schemaURL": _RUN_FACET_SCHEMA,
            "properties": dict(settings.captured),
        }
    if settings.job_owners:
        job_facets["ownership"] = {
            "_producer": producer,
            "_schemaURL": _OWNERSHIP_SCHEMA,
            "owners": [{"name": n, "type": t} for t, n in settings.job_owners.items()],
        }
    return EventConfig(
        run_facets=run_facets,
        job_facets=job_facets,
        job_tags=tuple(Tag(k, v, "SPARK") for k, v in settings.job_tags),
        run_tags=tuple(Tag(k, v, "SPARK") for k, v in settings.run_tags),
        dataset_name_cuts=(settings.remove_path,) if settings.remove_path is not None else (),
        disabled_facets=settings.disabled_facets,
    )


def configured_client(
    spark: Any, client: OpenLineage | None, runtime: RuntimeConfs | None = None
) -> tuple[OpenLineage, SparkConfSettings]:
    """The client a session's lineage goes through, with its confs applied.

    Args:
        spark: The session.
        client: The client given in code, if any: its transport wins over the confs', and a
            namespace given to it in code wins over the confs'.
        runtime: The reader of the session's runtime confs (``session_confs``'s).

    Returns:
        A client sharing ``client``'s transport (or a new one when ``None``) that applies the
        confs to each event, and the settings.
    """
    if client is not None and client in _configured:
        return client, _configured[client]
    settings = session_settings(spark, runtime)
    inner = client if client is not None else client_from_settings(settings)
    compiled = compiled_event_config(settings, inner.producer)
    configured = inner.with_event_config(compiled) if compiled.changes else copy.copy(inner)
    from_config = client is None or client.namespace in (client.config.namespace, DEFAULT_NAMESPACE)
    if settings.namespace is not None and from_config:
        configured.namespace = settings.namespace
    configured.disabled = inner.disabled or settings.disabled
    _configured[configured] = settings
    return configured, settings


def settings_of(client: OpenLineage) -> SparkConfSettings | None:
    """The settings a client was configured with, when :func:`configured_client` made it."""
    return _configured.get(client)


def fallback_parent(settings: SparkConfSettings | None, default: Any = None) -> Any:
    """The parent of a run made outside every run: ``default`` (the application run the
    launcher started), else the confs' parent; ``"auto"`` inside a run or with neither."""
    if current_run() is not None:
        return "auto"
    if default is not None:
        return default
    parent: RunRef | None = settings.parent if settings is not None else None
    return parent if parent is not None else "auto"
