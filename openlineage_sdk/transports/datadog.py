"""Datadog's OpenLineage intake (Data Jobs Monitoring), as the official Python client's ``datadog``.

``pip install 'openlineage-sdk[datadog]'`` (httpx). The transport is this package's HTTP
transport (:class:`~openlineage_sdk.transports.http.HttpTransport`) set up as the official
client sets up its own: each event is posted, gzip-compressed, to
``{intake}/api/v1/lineage`` with ``Authorization: Bearer {apiKey}``, the intake being the one
of ``site`` (``datadoghq.com`` -> ``https://data-obs-intake.datadoghq.com``) or ``site`` itself
when it is a URL. One event per request by default, as the official client sends them; the
delivery engine behind the HTTP transport sends them asynchronously, in order per run, retried,
and kept in the spool while the intake cannot take them.

``apiKey`` falls back on ``DD_API_KEY``, and ``site`` on ``DD_SITE``, read when the
configuration is validated, as the official client reads them.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator, model_validator
from typing_extensions import Self

from openlineage_sdk.transports._cloud import CloudConfig, setting
from openlineage_sdk.transports._delivery.spool import PARTITIONS
from openlineage_sdk.transports._registry import create_transport
from openlineage_sdk.transports.base import (
    Emittable,
    FlushResult,
    Transport,
    TransportConfig,
    masked_url,
)

__all__ = ["SITE_INTAKES", "DatadogConfig", "DatadogTransport"]

log = logging.getLogger(__name__)

#: Datadog's sites and the intake each takes OpenLineage events at (the official client's table).
SITE_INTAKES: Mapping[str, str] = {
    "datadoghq.com": "https://data-obs-intake.datadoghq.com",
    "us3.datadoghq.com": "https://data-obs-intake.us3.datadoghq.com",
    "us5.datadoghq.com": "https://data-obs-intake.us5.datadoghq.com",
    "datadoghq.eu": "https://data-obs-intake.datadoghq.eu",
    "ddog-gov.com": "https://data-obs-intake.ddog-gov.com",
    "us2.ddog-gov.com": "https://data-obs-intake.us2.ddog-gov.com",
    "ap1.datadoghq.com": "https://data-obs-intake.ap1.datadoghq.com",
    "ap2.datadoghq.com": "https://data-obs-intake.ap2.datadoghq.com",
    "uk1.datadoghq.com": "https://data-obs-intake.uk1.datadoghq.com",
    "datad0g.com": "https://data-obs-intake.datad0g.com",
}


def _is_url(value: str) -> bool:
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


class DatadogConfig(CloudConfig):
    """Configuration of :class:`DatadogTransport` (``type: datadog``), the official client's keys.

    Attributes:
        api_key: ``apiKey``: the Datadog API key; ``DD_API_KEY`` when not set. Held as a
            :class:`~pydantic.SecretStr`: masked in reprs, dumps, logs and errors.
        site: the Datadog site (``datadoghq.com``, ``datadoghq.eu``, ``us5.datadoghq.com``...)
            or the intake's URL; ``DD_SITE``, else ``datadoghq.com``, when not set.
        timeout: seconds for connecting and for each read and write.
        retry: the official client's retry block for its HTTP requests; given, it goes to
            the HTTP transport as its ``retry`` setting. The delivery engine retries in any
            case (``backoff_initial``, ``backoff_max``, ``max_server_error_attempts``).
        async_transport_rules: the official client's choice, by integration and job type, of
            the events sent asynchronously; here every event is sent asynchronously (a rule
            asking for a synchronous send is named in a warning).
        max_queue_size: events held in memory before they go to the spool (10000).
        max_concurrent_requests: sender threads, at most 16 (the delivery engine's ordering
            partitions): a larger value (the official client's default is 100) means 16.
        batch_size: events per request (1, as the official client posts them); above 1 a
            backlog goes to the intake's batch endpoint when it has one.

    The delivery settings (``batch_size``, ``max_queue_size``, ``spool``, ``spool_dir``, the
    back-offs and time-outs, ``raise_on_error``) are those of
    :class:`~openlineage_sdk.transports.HttpConfig`.
    """

    type: Literal["datadog"] = "datadog"
    api_key: SecretStr = Field(
        alias="apiKey", description="The Datadog API key; DD_API_KEY when not set."
    )
    site: str = Field(
        default="datadoghq.com",
        description="The Datadog site, or the intake's URL; DD_SITE when not set.",
    )
    timeout: float = Field(
        default=5.0, gt=0, description="Seconds for connecting and for each read and write."
    )
    retry: dict[str, Any] | None = Field(
        default=None,
        description="The official client's retry block, handed to the HTTP transport.",
    )
    async_transport_rules: dict[str, dict[str, bool]] = Field(
        default_factory=lambda: {"dbt": {"*": True}},
        description="The official client's asynchronous-send rules; every event is sent "
        "asynchronously here.",
    )
    max_concurrent_requests: int = Field(
        default=2, ge=1, description="Sender threads; at most 16 are used."
    )
    batch_size: int = Field(default=1, ge=1, le=10_000, description="Events per request.")

    @model_validator(mode="before")
    @classmethod
    def _from_environment(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        data = dict(data)
        key = setting(data, "apiKey")
        if key is None or key == "":
            for spelling in [k for k in data if str(k).replace("_", "").lower() == "apikey"]:
                data.pop(spelling)
            if not os.environ.get("DD_API_KEY"):
                raise ValueError("apiKey is required: set it, or the DD_API_KEY variable")
            data["apiKey"] = os.environ["DD_API_KEY"]
        elif isinstance(key, (int, float)) and not isinstance(key, bool):
            # An all-digit key read from an environment variable arrives as a number.
            for spelling in [k for k in data if str(k).replace("_", "").lower() == "apikey"]:
                data.pop(spelling)
            data["apiKey"] = str(key)
        if not setting(data, "site") and os.environ.get("DD_SITE"):
            data = {k: v for k, v in data.items() if str(k).lower() != "site"}
            data["site"] = os.environ["DD_SITE"]
        return data

    @field_validator("site")
    @classmethod
    def _check_site(cls, value: str) -> str:
        value = value.strip()
        if value not in SITE_INTAKES and not _is_url(value):
            raise ValueError(
                f"must be one of {', '.join(SITE_INTAKES)}, or an http:// or https:// URL"
            )
        return value

    @property
    def intake(self) -> str:
        """The URL events are posted under (``{intake}/api/v1/lineage``)."""
        return self.site if _is_url(self.site) else SITE_INTAKES[self.site]

    def http_section(self) -> dict[str, Any]:
        """The HTTP transport's configuration that sends what the official client sends."""
        section: dict[str, Any] = {
            "type": "http",
            "url": self.intake,
            "timeout": self.timeout,
            "compression": "gzip",
            "auth": {"type": "api_key", "apiKey": self.api_key.get_secret_value()},
            "batch_size": self.batch_size,
            "max_queue_size": self.max_queue_size,
            "max_concurrent_requests": min(self.max_concurrent_requests, PARTITIONS),
            "spool": self.spool,
            "spool_max_bytes": self.spool_max_bytes,
            "backoff_initial": self.backoff_initial,
            "backoff_max": self.backoff_max,
            "max_server_error_attempts": self.max_server_error_attempts,
            "flush_timeout": self.flush_timeout,
            "close_timeout": self.close_timeout,
            "raise_on_error": self.raise_on_error,
        }
        if self.spool_dir is not None:
            section["spool_dir"] = self.spool_dir
        if self.retry is not None:
            section["retry"] = self.retry
        return section

    def __repr_args__(self) -> Any:
        for name, value in super().__repr_args__():
            yield name, masked_url(value) if name == "site" and _is_url(str(value)) else value


class DatadogTransport(Transport):
    """Sends events to Datadog's OpenLineage intake through the HTTP transport.

    Example:
        >>> transport = DatadogTransport(DatadogConfig(apiKey="..."))  # doctest: +SKIP
        >>> transport.emit(event)  # returns at once  # doctest: +SKIP
    """

    kind = "datadog"
    config_class = DatadogConfig

    def __init__(self, config: DatadogConfig | None = None, /, **settings: Any) -> None:
        """Make the transport and start delivering.

        Args:
            config: the configuration; or pass its fields as keyword arguments.
            **settings: fields of the configuration; with ``config``, they replace its values.
        """
        if config is None:
            config = DatadogConfig(**settings)
        elif settings:
            config = DatadogConfig(**{**dict(config), **settings})
        self.config = config
        rules = [
            f"{integration}/{job_type}"
            for integration, job_types in config.async_transport_rules.items()
            for job_type, use_async in job_types.items()
            if not use_async
        ]
        if rules:
            log.warning(
                "OpenLineage: datadog async_transport_rules ask for synchronous sends (%s); "
                "every event is sent asynchronously by this transport (close() and flush() "
                "wait for delivery)",
                ", ".join(rules),
            )
        self.http = create_transport(config.http_section())

    @classmethod
    def from_config(cls, config: TransportConfig) -> Self:
        """Build the transport from a :class:`DatadogConfig`."""
        if not isinstance(config, DatadogConfig):
            raise TypeError(f"{cls.__name__} needs a DatadogConfig, got {type(config).__name__}")
        return cls(config)

    @property
    def spool_path(self) -> Path | None:
        """The folder holding this destination's spool files, if spooling is on."""
        path = getattr(self.http, "spool_path", None)
        return path if isinstance(path, Path) else None

    def emit(self, event: Emittable) -> None:
        """Queue the event for delivery and return at once.

        Args:
            event: the event; its JSON is taken now.
        """
        self.http.emit(event)

    def flush(self, timeout: float | None = None) -> FlushResult:
        """Wait up to ``timeout`` seconds for queued events to be delivered.

        Args:
            timeout: seconds; ``None`` means ``flush_timeout``.

        Returns:
            What was delivered and what still waits.
        """
        return self.http.flush(timeout)

    def close(self, timeout: float | None = None) -> FlushResult:
        """Deliver what can be delivered within ``timeout``, spool the rest, stop.

        Args:
            timeout: seconds; ``None`` means ``close_timeout``.

        Returns:
            The final summary.
        """
        return self.http.close(timeout)
