"""Amazon DataZone (and SageMaker Unified Studio), as the official clients' ``amazon_datazone_api``.

``pip install 'openlineage-sdk[datazone]'`` (boto3). Each run event is posted to the domain
with DataZone's ``PostLineageEvent`` (``POST /v2/domains/{domainIdentifier}/lineage/events``,
the event's JSON as the body), the call the official clients make. DataZone takes run events
only: a job or dataset event is not sent, as in the official clients (the first one is named in
a warning).

Unlike the official Python client, which posts on the caller's thread and raises when the
call fails, delivery runs on the same engine as HTTP: ``emit`` returns at once, events are
posted from sender threads, in order per run, retried, and kept in the spool while DataZone
cannot take them. Each request carries a ``Client-Token`` made from the event's content, so a
retried request whose first attempt did arrive is not recorded twice.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Literal

from pydantic import Field, field_validator

from openlineage_sdk.transports._cloud import (
    AwsClient,
    CloudConfig,
    NotRunEvents,
    aws_result,
    is_run_event,
    request_id,
    send_each,
)
from openlineage_sdk.transports._delivery.protocol import Outcome, Record, SendResult
from openlineage_sdk.transports._queued import QueuedTransport
from openlineage_sdk.transports.base import Emittable, masked_url, spool_name

__all__ = ["AmazonDataZoneConfig", "AmazonDataZoneTransport"]

log = logging.getLogger(__name__)

#: The largest event DataZone takes (its ``LineageEvent`` shape), in bytes.
MAX_EVENT_BYTES = 300_000


class AmazonDataZoneConfig(CloudConfig):
    """Configuration of :class:`AmazonDataZoneTransport` (``type: amazon_datazone_api``).

    The official clients' keys, Python's and Java's alike.

    Attributes:
        domain_id: ``domainId``: the DataZone domain (``dzd_...``) events are posted to.
        region: the domain's region; the default chain's (``AWS_REGION``, the profile) when
            not set.
        endpoint_override: ``endpointOverride``: a URL replacing DataZone's endpoint. The
            requests are signed for ``region`` when it is set too (the official clients then
            take the default chain's region).
        timeout: seconds to connect, and to read each answer.

    The delivery settings (``batch_size``, ``max_queue_size``, ``spool``, ``spool_dir``, the
    back-offs and time-outs, ``raise_on_error``) are those of
    :class:`~openlineage_sdk.transports.HttpConfig`. DataZone takes one event per request:
    ``batch_size`` events are posted one after the other by one sender.
    """

    type: Literal["amazon_datazone_api"] = "amazon_datazone_api"
    domain_id: str = Field(
        alias="domainId", min_length=1, description="The DataZone domain events are posted to."
    )
    region: str | None = Field(
        default=None,
        description="The domain's region; the default chain's when not set.",
    )
    endpoint_override: str | None = Field(
        default=None,
        alias="endpointOverride",
        description="A URL replacing DataZone's endpoint.",
    )
    timeout: float = Field(
        default=10.0, gt=0, description="Seconds to connect, and to read each answer."
    )

    @field_validator("endpoint_override")
    @classmethod
    def _check_endpoint(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip()
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")
        return value


class _DataZoneSender:
    def __init__(self, config: AmazonDataZoneConfig) -> None:
        self._aws = AwsClient(
            "datazone",
            region=config.region,
            endpoint_url=config.endpoint_override,
            timeout=config.timeout,
            connections=config.max_concurrent_requests,
        )
        self._domain = config.domain_id
        self._batch = config.batch_size
        where = (
            f" at {masked_url(config.endpoint_override)}"
            if config.endpoint_override
            else f" in {self._aws.region}"
            if self._aws.region
            else ""
        )
        self.destination = f"DataZone domain {self._domain!r}{where}"
        identity = f"{config.endpoint_override or ''}\0{self._aws.region}\0{self._domain}"
        self.spool_name = spool_name("datazone", identity)

    @property
    def max_batch(self) -> int:
        return self._batch

    def send(self, batch: Sequence[Record]) -> SendResult:
        return send_each(batch, self._post)

    def _post(self, data: bytes) -> SendResult:
        if len(data) > MAX_EVENT_BYTES:
            return SendResult(
                Outcome.REJECT,
                f"{len(data)} bytes, over DataZone's {MAX_EVENT_BYTES} bytes per event",
            )
        try:
            answer = self._aws.get().post_lineage_event(
                domainIdentifier=self._domain, event=data, clientToken=request_id(data)
            )
        except Exception as exc:
            return aws_result(exc)
        log.debug(
            "OpenLineage: DataZone recorded lineage event %s in domain %s",
            answer.get("id"),
            answer.get("domainId"),
        )
        return SendResult(Outcome.OK)

    def close(self) -> None:
        pass


class AmazonDataZoneTransport(QueuedTransport[AmazonDataZoneConfig]):
    """Posts run events to an Amazon DataZone domain; asynchronous, ordered, spooled."""

    kind = "amazon_datazone_api"
    config_class = AmazonDataZoneConfig

    def _sender(self, config: AmazonDataZoneConfig) -> _DataZoneSender:
        self._not_run = NotRunEvents("DataZone")
        return _DataZoneSender(config)

    def emit(self, event: Emittable) -> None:
        """Queue a run event for delivery and return at once; other events are not sent.

        Args:
            event: the event; its JSON is taken now.
        """
        if not is_run_event(event):
            self._not_run.skipped(event)
            return
        super().emit(event)
