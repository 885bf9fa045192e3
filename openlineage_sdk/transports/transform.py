"""Change or drop events before another transport sends them (``type: transform``).

As in the official client::

    transport:
      type: transform
      transformer_class: openlineage.client.transport.transform.JobNamespaceReplaceTransformer
      transformer_properties: {new_job_namespace: prod}
      transport: {type: http, url: http://marquez:5000}

``transformer_class`` is the dotted path of a class made with ``properties=`` (the
``transformer_properties`` mapping) whose ``transform(event)`` returns the event to send, or
``None`` to drop it. It gets a copy of the event, read back from its JSON, so it may change it
freely; a transformer that raises drops the event with a log line (or raises with
``raise_on_error``), it never reaches the pipeline. The official client's built-in
``JobNamespaceReplaceTransformer`` path (either spelling) selects this module's own
:class:`JobNamespaceReplaceTransformer`; the official client's transformer classes
themselves work on that client's event objects and cannot be used here.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, field_validator
from typing_extensions import Self

from openlineage_sdk.transports._registry import create_transport, parse_transport_config
from openlineage_sdk.transports.base import (
    Emittable,
    FlushResult,
    Transport,
    TransportConfig,
    TransportError,
)

if TYPE_CHECKING:
    from openlineage_sdk._read import Event

__all__ = [
    "EventTransformer",
    "JobNamespaceReplaceTransformer",
    "TransformConfig",
    "TransformTransport",
]

log = logging.getLogger(__name__)

_OFFICIAL_BUILTIN = (
    "openlineage.client.transport.transform.JobNamespaceReplaceTransformer",
    "openlineage.client.transport.transform.transformers.job_namespace_replace_transformer."
    "JobNamespaceReplaceTransformer",
)


class EventTransformer:
    """Base of transformers: override :meth:`transform`.

    Args:
        properties: the ``transformer_properties`` of the configuration.
    """

    def __init__(self, properties: Mapping[str, Any]) -> None:
        self.properties = dict(properties)

    def transform(self, event: Event) -> Event | None:
        """The event to send (this one, changed, or another), or ``None`` to drop it.

        Args:
            event: a copy of the emitted event, free to change.

        Returns:
            The event to send, or ``None``.
        """
        raise NotImplementedError


class JobNamespaceReplaceTransformer(EventTransformer):
    """Sets the job namespace of run and job events to ``new_job_namespace``.

    With ``include_parent_facet`` (true unless set to anything but ``true``), the namespaces
    of the ``parent`` run facet's job and of its root job are replaced too. Dataset events
    pass unchanged.

    Raises:
        ValueError: ``new_job_namespace`` is missing.
    """

    def __init__(self, properties: Mapping[str, Any]) -> None:
        super().__init__(properties)
        namespace = properties.get("new_job_namespace")
        if not isinstance(namespace, str) or not namespace:
            raise ValueError("transformer_properties.new_job_namespace is required")
        self.new_job_namespace = namespace
        self.include_parent_facet = (
            str(properties.get("include_parent_facet", "true")).lower() == "true"
        )

    def transform(self, event: Event) -> Event | None:
        """The event with its job namespace (and its parent's) replaced."""
        from openlineage_sdk.models.core import RunEvent

        job = getattr(event, "job", None)
        if job is None:
            return event
        job.namespace = self.new_job_namespace
        if not (self.include_parent_facet and isinstance(event, RunEvent)):
            return event
        parent = event.run.facets.parent if event.run.facets is not None else None
        if parent is None:
            return event
        parent.job = {**parent.job, "namespace": self.new_job_namespace}
        if parent.root is not None:
            parent.root = {
                **parent.root,
                "job": {**parent.root["job"], "namespace": self.new_job_namespace},
            }
        return event


class TransformConfig(TransportConfig):
    """Configuration of :class:`TransformTransport` (``type: transform``).

    Attributes:
        transport: the transport that sends the transformed events.
        transformer_class: the dotted path of the transformer class.
        transformer_properties: given to the transformer as ``properties``.
        raise_on_error: let a transformer's error reach the caller.
    """

    type: Literal["transform"] = "transform"
    transport: TransportConfig
    transformer_class: str = Field(alias="transformerClass")
    transformer_properties: dict[str, Any] = Field(
        default_factory=dict, alias="transformerProperties"
    )
    raise_on_error: bool = False

    @field_validator("transport", mode="before")
    @classmethod
    def _inner(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            return parse_transport_config(value)
        return value

    @field_validator("transformer_properties", mode="before")
    @classmethod
    def _properties(cls, value: Any) -> Any:
        return {} if value is None else value


def _transformer_class(path: str) -> type[Any]:
    if path in _OFFICIAL_BUILTIN:
        return JobNamespaceReplaceTransformer
    module, _, name = path.rpartition(".")
    try:
        target = getattr(importlib.import_module(module), name) if module else None
    except (ImportError, AttributeError) as exc:
        raise TransportError(f"transformer_class {path!r} cannot be imported: {exc}") from None
    if not isinstance(target, type) or not callable(getattr(target, "transform", None)):
        raise TransportError(f"transformer_class {path!r} is not a class with transform(event)")
    return target


class TransformTransport(Transport):
    """Passes each event through a transformer, then to the wrapped transport.

    Args:
        transformer: the object whose ``transform(event)`` gives the event to send or ``None``.
        transport: the transport that sends the results.
        raise_on_error: let a transformer's error reach the caller instead of logging it.
    """

    kind = "transform"
    config_class = TransformConfig

    def __init__(
        self, transformer: Any, transport: Transport, *, raise_on_error: bool = False
    ) -> None:
        self.transformer = transformer
        self.transport = transport
        self.raise_on_error = raise_on_error

    @classmethod
    def from_config(cls, config: TransportConfig) -> Self:
        """Import and make the transformer, and make the wrapped transport.

        Raises:
            TransportError: the transformer class cannot be imported or made.
        """
        assert isinstance(config, TransformConfig)
        klass = _transformer_class(config.transformer_class)
        try:
            transformer = klass(properties=config.transformer_properties)
        except Exception as exc:
            raise TransportError(
                f"transformer_class {config.transformer_class!r} cannot be made: {exc}"
            ) from None
        return cls(
            transformer, create_transport(config.transport), raise_on_error=config.raise_on_error
        )

    def emit(self, event: Emittable) -> None:
        """Transform a copy of the event and send the result, unless it is ``None``."""
        from openlineage_sdk._read import read_event

        try:
            result = self.transformer.transform(read_event(event.to_json()))
        except Exception:
            if self.raise_on_error:
                raise
            log.exception(
                "OpenLineage: the transformer %s failed; the event is dropped",
                type(self.transformer).__name__,
            )
            return
        if result is None:
            log.debug("OpenLineage: the transformer dropped an event")
            return
        self.transport.emit(result)

    def flush(self, timeout: float | None = None) -> FlushResult:
        """Flush the wrapped transport."""
        return self.transport.flush(timeout)

    def close(self, timeout: float | None = None) -> FlushResult:
        """Close the wrapped transport."""
        return self.transport.close(timeout)
