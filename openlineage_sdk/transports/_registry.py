"""Find a transport class by its ``kind``, loading only what is asked for.

Built-in kinds are named by import path and imported on first use, so
``import openlineage_sdk`` never imports httpx or confluent_kafka. Other
packages add kinds through the ``openlineage_sdk.transports`` entry point
group::

    [project.entry-points."openlineage_sdk.transports"]
    datadog = "my_package.transport:DatadogTransport"

As in the official client, ``type`` may also be the dotted path of a transport
class (``my_package.transport.DatadogTransport``).
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from openlineage_sdk.transports.base import Transport, TransportConfig

__all__ = [
    "ENTRY_POINT_GROUP",
    "TransportConfigError",
    "available_kinds",
    "create_transport",
    "parse_transport_config",
    "transport_class",
]

ENTRY_POINT_GROUP = "openlineage_sdk.transports"
"""The entry point group third-party transports register in (``name = "module:Class"``)."""

_BUILTIN: Mapping[str, str] = {
    "http": "openlineage_sdk.transports.http:HttpTransport",
    "async_http": "openlineage_sdk.transports.http:HttpTransport",
    "kafka": "openlineage_sdk.transports.kafka:KafkaTransport",
    "file": "openlineage_sdk.transports.file:FileTransport",
    "console": "openlineage_sdk.transports.console:ConsoleTransport",
    "composite": "openlineage_sdk.transports.composite:CompositeTransport",
    "memory": "openlineage_sdk.transports.memory:MemoryTransport",
    "noop": "openlineage_sdk.transports.noop:NoopTransport",
    "transform": "openlineage_sdk.transports.transform:TransformTransport",
    "datadog": "openlineage_sdk.transports.datadog:DatadogTransport",
    "gcplineage": "openlineage_sdk.transports.gcplineage:GcpLineageTransport",
    "amazon_datazone_api": "openlineage_sdk.transports.amazon_datazone:AmazonDataZoneTransport",
    "msk-iam": "openlineage_sdk.transports.kafka:MskIamTransport",
    "s3": "openlineage_sdk.transports.s3:S3Transport",
    "gcs": "openlineage_sdk.transports.gcs:GcsTransport",
    "kinesis": "openlineage_sdk.transports.kinesis:KinesisTransport",
}

#: The extra that installs what each built-in kind needs, for the error when it is missing.
_EXTRAS: Mapping[str, str] = {
    "http": "http",
    "async_http": "http",
    "kafka": "kafka",
    "datadog": "datadog",
    "gcplineage": "gcplineage",
    "amazon_datazone_api": "datazone",
    "msk-iam": "msk-iam",
    "s3": "s3",
    "gcs": "gcs",
    "kinesis": "kinesis",
}


class TransportConfigError(ValueError):
    """A transport configuration is unusable: unknown kind or invalid settings.

    The message names the settings and the rule they break, never their values,
    so secrets cannot leak through it.
    """


def _load(target: str) -> Any:
    module, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def available_kinds() -> list[str]:
    """The built-in kinds and those installed packages register, sorted."""
    kinds = set(_BUILTIN)
    kinds.update(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))
    return sorted(kinds)


def transport_class(kind: str) -> type[Transport]:
    """The transport class for a ``kind``.

    Args:
        kind: a built-in kind, an entry point name, or the dotted path of a class.

    Returns:
        The class, imported now if it was not yet.

    Raises:
        TransportConfigError: nothing matches, or what matches is not a transport.
    """
    target: Any = None
    try:
        if kind in _BUILTIN:
            target = _load(_BUILTIN[kind])
        else:
            matches = entry_points(group=ENTRY_POINT_GROUP, name=kind)
            if matches:
                target = next(iter(matches)).load()
            elif "." in kind:
                module, _, name = kind.rpartition(".")
                target = _load(f"{module}:{name}")
    except ImportError as exc:
        raise TransportConfigError(
            f"transport {kind!r} could not be loaded: {exc}. "
            + (
                f"Install it with pip install 'openlineage-sdk[{_EXTRAS[kind]}]'"
                if kind in _EXTRAS
                else "Is the package that provides it installed?"
            )
        ) from exc
    except AttributeError as exc:
        raise TransportConfigError(f"transport {kind!r} could not be loaded: {exc}") from exc
    if target is None:
        raise TransportConfigError(
            f"unknown transport type {kind!r}; known types: {', '.join(available_kinds())}, "
            "or the dotted path of a Transport class"
        )
    if not (isinstance(target, type) and issubclass(target, Transport)):
        raise TransportConfigError(f"transport {kind!r} does not name a Transport subclass")
    return target


def _known_keys(model: type[BaseModel]) -> set[str]:
    """Every key ``model`` and the models nested in its fields accept (names and aliases)."""
    keys: set[str] = set()
    seen: set[type[BaseModel]] = set()
    stack = [model]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        for name, info in current.model_fields.items():
            keys.add(name)
            if info.alias:
                keys.add(info.alias)
            pending = [info.annotation]
            while pending:
                annotation = pending.pop()
                if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                    stack.append(annotation)
                pending.extend(get_args(annotation))
    return keys


def _describe_errors(kind: str, exc: ValidationError, model: type[BaseModel]) -> str:
    # Built from locations and rules only: pydantic's own text quotes the input,
    # which may be an API key or a password.
    problems = []
    known: set[str] | None = None
    for error in exc.errors(include_input=False, include_url=False):
        where = ".".join(str(p) for p in error["loc"]) or "(top level)"
        problem = f"{where}: {error['msg']}"
        if error["type"] == "extra_forbidden" and error["loc"]:
            known = _known_keys(model) if known is None else known
            close = difflib.get_close_matches(str(error["loc"][-1]), sorted(known), n=1)
            if close:
                problem += f" (did you mean {close[0]!r}?)"
        problems.append(problem)
    return f"invalid {kind!r} transport configuration: " + "; ".join(problems)


def _resolve(data: Mapping[str, Any] | TransportConfig) -> tuple[type[Transport], TransportConfig]:
    if isinstance(data, TransportConfig):
        return transport_class(data.type), data
    kind = data.get("type")
    if not isinstance(kind, str) or not kind:
        raise TransportConfigError("the transport configuration needs a 'type'")
    cls = transport_class(kind)
    payload = dict(data)
    if "type" not in cls.config_class.model_fields:
        payload.pop("type", None)
    elif kind not in _BUILTIN and "." in kind and cls.kind:
        # Named by its class path: the configuration carries the transport's own kind.
        payload["type"] = cls.kind
    try:
        return cls, cls.config_class.model_validate(payload)
    except ValidationError as exc:
        message = _describe_errors(kind, exc, cls.config_class)
    # Raised outside the except block: pydantic's error, whose text quotes the input (an API
    # key, a password in a URL), must not travel along as the __context__ either.
    raise TransportConfigError(message)


def parse_transport_config(data: Mapping[str, Any] | TransportConfig) -> TransportConfig:
    """Validate a transport section (``transport:`` of ``openlineage.yml``) into its typed model.

    Args:
        data: the section, with its ``type``; a model is returned as it is.

    Returns:
        An instance of the transport's ``config_class``.

    Raises:
        TransportConfigError: unknown kind or invalid settings.
    """
    if isinstance(data, TransportConfig):
        return data
    return _resolve(data)[1]


def create_transport(config: Mapping[str, Any] | TransportConfig) -> Transport:
    """Make the transport a configuration describes.

    Args:
        config: a typed configuration, or a mapping with a ``type``.

    Returns:
        The transport, ready to emit.

    Raises:
        TransportConfigError: unknown kind or invalid settings.
    """
    cls, typed = _resolve(config)
    return cls.from_config(typed)
