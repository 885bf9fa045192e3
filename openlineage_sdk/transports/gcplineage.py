"""Google Cloud's Data Lineage API (what Dataplex and BigQuery show), as the official clients'
``gcplineage`` transport.

``pip install 'openlineage-sdk[gcplineage]'`` (httpx and google-auth). Each run event is sent
with the API's ``ProcessOpenLineageRunEvent`` method, through its REST binding::

    POST https://datalineage.googleapis.com/v1/projects/{project}/locations/{location}:processOpenLineageRunEvent?requestId={id}

with the event's JSON as the body, the method the official clients call through gRPC. The API
takes run events only: a job or dataset event is not sent, as in the official clients (the
first one is named in a warning).

Unlike the official Python client, which sends on the caller's thread (or on a thread it waits
for) and raises when the call fails, delivery runs on the same engine as HTTP: ``emit`` returns
at once, events are sent from sender threads, in order per run, retried, and kept in the spool
while the API cannot take them. ``requestId`` is made from the event's content, so a retried
request whose first attempt did arrive is not recorded twice (the API is idempotent only with
it).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal
from urllib.parse import quote

from pydantic import Field, field_validator, model_validator

from openlineage_sdk.transports._cloud import (
    CloudConfig,
    GoogleSession,
    NotRunEvents,
    endpoint_url,
    excerpt,
    http_result,
    is_run_event,
    request_id,
    send_each,
    setting,
)
from openlineage_sdk.transports._delivery.protocol import Outcome, Record, SendResult
from openlineage_sdk.transports._queued import QueuedTransport
from openlineage_sdk.transports._registry import TransportConfigError
from openlineage_sdk.transports.base import Emittable, masked_url, spool_name

__all__ = ["GcpLineageConfig", "GcpLineageTransport"]

log = logging.getLogger(__name__)

DEFAULT_ENDPOINT = "https://datalineage.googleapis.com"
#: The official Python client's default location (the Java client's is ``us``).
DEFAULT_LOCATION = "us-central1"

_DURATION = re.compile(
    r"P(?:(?P<d>\d+(?:\.\d+)?)D)?(?:T(?:(?P<h>\d+(?:\.\d+)?)H)?(?:(?P<m>\d+(?:\.\d+)?)M)?"
    r"(?:(?P<s>\d+(?:\.\d+)?)S)?)?",
    re.IGNORECASE,
)


def _seconds(value: object) -> float | None:
    """Seconds from a number or an ISO-8601 duration (Java's ``Duration.parse``: ``PT30S``)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, str):
        return None
    text = value.strip()
    try:
        return float(text)
    except ValueError:
        pass
    match = _DURATION.fullmatch(text)
    if match is None or text.upper() in ("P", "PT"):
        return None
    parts = {k: float(v) for k, v in match.groupdict().items() if v}
    return (
        parts.get("d", 0) * 86400 + parts.get("h", 0) * 3600 + parts.get("m", 0) * 60
    ) + parts.get("s", 0)


class GcpLineageConfig(CloudConfig):
    """Configuration of :class:`GcpLineageTransport` (``type: gcplineage``).

    The official Python client's keys, and the Java client's spellings of them.

    Attributes:
        project_id: ``project_id`` (``projectId``): the project that owns the lineage; the
            credentials' project when not set (the Java client's rule; the Python client
            requires it).
        location: the lineage's location (region), ``us-central1`` by default (the Java
            client's default, ``us``, applies to the ``spark.openlineage.transport.*`` confs).
        credentials_path: ``credentials_path`` (``credentialsFile``): a service account key
            (or other credentials file); Application Default Credentials when not set.
        async_transport_rules: the official Python client's choice, by integration and job
            type, of the events sent asynchronously; here every event is sent asynchronously
            (a rule asking for a synchronous send is named in a warning).
        endpoint: the Java client's ``endpoint`` (``datalineage.googleapis.com:443``): a host,
            host and port, or URL replacing the API's.
        mode: the Java client's ``sync`` or ``async`` client; here every event is sent
            asynchronously, in order per run.
        graceful_shutdown_duration: the Java client's ``gracefulShutdownDuration`` (an ISO-8601
            duration, ``PT30S``, or seconds): how long closing waits for delivery; it is
            ``close_timeout`` unless that is set.
        retry: the Java client's gRPC retry settings; the delivery settings
            (``backoff_initial``, ``backoff_max``) replace them, and they are named in a
            warning.
        timeout: seconds to connect, and for each read and write.

    The delivery settings (``batch_size``, ``max_queue_size``, ``spool``, ``spool_dir``, the
    back-offs and time-outs, ``raise_on_error``) are those of
    :class:`~openlineage_sdk.transports.HttpConfig`. The API takes one event per request:
    ``batch_size`` events are sent one after the other by one sender.
    """

    type: Literal["gcplineage"] = "gcplineage"
    project_id: str | None = Field(
        default=None,
        alias="projectId",
        description="The project that owns the lineage; the credentials' project when not set.",
    )
    location: str = Field(
        default=DEFAULT_LOCATION, min_length=1, description="The lineage's location (region)."
    )
    credentials_path: str | None = Field(
        default=None,
        alias="credentialsFile",
        description="A credentials file (a service account key); Application Default "
        "Credentials when not set.",
    )
    async_transport_rules: dict[str, dict[str, bool]] = Field(
        default_factory=lambda: {"dbt": {"*": True}},
        description="The official Python client's asynchronous-send rules; every event is sent "
        "asynchronously here.",
    )
    endpoint: str | None = Field(
        default=None, description="A host, host:port or URL replacing the API's endpoint."
    )
    mode: Literal["sync", "async", "SYNC", "ASYNC"] | None = Field(
        default=None,
        description="The Java client's client kind; every event is sent asynchronously here.",
    )
    graceful_shutdown_duration: str | float | None = Field(
        default=None,
        alias="gracefulShutdownDuration",
        description="How long closing waits for delivery (ISO-8601 duration or seconds).",
    )
    retry: dict[str, Any] | None = Field(
        default=None,
        description="The Java client's gRPC retry settings; replaced by backoff_initial and "
        "backoff_max.",
    )
    timeout: float = Field(
        default=10.0, gt=0, description="Seconds to connect, and for each read and write."
    )

    @field_validator("graceful_shutdown_duration")
    @classmethod
    def _check_duration(cls, value: str | float | None) -> str | float | None:
        if value is not None and _seconds(value) is None:
            raise ValueError("must be an ISO-8601 duration (PT30S) or seconds")
        return value

    @model_validator(mode="before")
    @classmethod
    def _with_close_timeout(cls, data: Any) -> Any:
        grace = _seconds(setting(data, "gracefulShutdownDuration"))
        if grace is not None and setting(data, "close_timeout") is None:
            assert isinstance(data, Mapping)
            data = {**data, "close_timeout": grace}
        return data


def _sync_rules(rules: Mapping[str, Mapping[str, bool]]) -> list[str]:
    """The rules of ``async_transport_rules`` that ask for a synchronous send."""
    return [
        f"{integration}/{job_type}"
        for integration, job_types in rules.items()
        for job_type, use_async in job_types.items()
        if not use_async
    ]


class _LineageSender:
    def __init__(self, config: GcpLineageConfig) -> None:
        if config.retry:
            log.warning(
                "OpenLineage: gcplineage retry settings %s are replaced by backoff_initial "
                "and backoff_max (every failed request is tried again until delivered)",
                ", ".join(sorted(config.retry)),
            )
        base = endpoint_url(config.endpoint) if config.endpoint else DEFAULT_ENDPOINT
        self._google = GoogleSession(
            config.credentials_path, timeout=config.timeout, what="gcplineage"
        )
        project = config.project_id or self._google.project
        if not project:
            self._google.close()
            raise TransportConfigError(
                "invalid 'gcplineage' transport configuration: project_id (projectId) is not "
                "set and the credentials name no project"
            )
        parent = f"projects/{project}/locations/{config.location}"
        self._url = f"{base}/v1/{quote(parent, safe='/')}:processOpenLineageRunEvent"
        self._batch = config.batch_size
        where = "" if base == DEFAULT_ENDPOINT else f" at {masked_url(base)}"
        self.destination = f"Data Lineage API {parent}{where}"
        self.spool_name = spool_name("gcplineage", self._url)

    @property
    def max_batch(self) -> int:
        return self._batch

    def send(self, batch: Sequence[Record]) -> SendResult:
        return send_each(batch, self._post)

    def _post(self, data: bytes) -> SendResult:
        url = f"{self._url}?requestId={request_id(data)}"
        headers = {"Content-Type": "application/json"}
        problem = self._google.authorize("POST", url, headers)
        if problem is not None:
            return problem
        httpx = self._google._httpx
        try:
            answer = self._google.client.post(url, content=data, headers=headers)
        except httpx.HTTPError as exc:
            return SendResult(Outcome.RETRY, f"{type(exc).__name__}: {exc}")
        return http_result(answer.status_code, f"HTTP {answer.status_code}: {excerpt(answer.text)}")

    def close(self) -> None:
        self._google.close()


class GcpLineageTransport(QueuedTransport[GcpLineageConfig]):
    """Sends run events to Google Cloud's Data Lineage API; asynchronous, ordered, spooled."""

    kind = "gcplineage"
    config_class = GcpLineageConfig

    def _sender(self, config: GcpLineageConfig) -> _LineageSender:
        self._not_run = NotRunEvents("the Data Lineage API")
        sync = _sync_rules(config.async_transport_rules)
        if sync:
            log.warning(
                "OpenLineage: gcplineage async_transport_rules ask for synchronous sends (%s); "
                "every event is sent asynchronously by this transport (close() and flush() "
                "wait for delivery)",
                ", ".join(sync),
            )
        return _LineageSender(config)

    def emit(self, event: Emittable) -> None:
        """Queue a run event for delivery and return at once; other events are not sent.

        Args:
            event: the event; its JSON is taken now.
        """
        if not is_run_event(event):
            self._not_run.skipped(event)
            return
        super().emit(event)
