"""Amazon S3 (and S3-compatible stores), one object per event, as the Java client's ``s3`` transport.

``pip install 'openlineage-sdk[s3]'`` (boto3). Each event is written to
``s3://{bucketName}/{fileNamePrefix}{eventTime in ms}.json`` (``{prefix}_{ms}.json`` when the
prefix does not end with ``/``), the Java client's names. Delivery runs on the same engine as
HTTP: ``emit`` returns at once, objects are written from sender threads, in order per run, and
what cannot be written waits in the spool.

An object is never overwritten: it is written with ``If-None-Match: *`` (S3's conditional
write), and where another event of the same millisecond already holds the name, the event goes
to ``{ms}-1.json``, ``{ms}-2.json``... (the Java client refuses it and the event is lost). An
object already there with the same content (a retried write that had arrived) counts as
delivered. A store without conditional writes is asked first whether the name is taken, as the
Java client asks.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field, field_validator

from openlineage_sdk.transports._cloud import (
    AwsClient,
    CloudConfig,
    ObjectNames,
    aws_result,
    event_millis,
    json_document,
    md5_hex,
    send_each,
)
from openlineage_sdk.transports._delivery.protocol import Outcome, Record, SendResult
from openlineage_sdk.transports._queued import QueuedTransport
from openlineage_sdk.transports.base import masked_url, spool_name

__all__ = ["S3Config", "S3Transport"]

log = logging.getLogger(__name__)

#: The most other events of one millisecond tried for a name before the event is refused.
_MAX_DUPLICATES = 10_000


class S3Config(CloudConfig):
    """Configuration of :class:`S3Transport` (``type: s3``), the Java client's keys.

    Attributes:
        bucket_name: ``bucketName``: the bucket events are written to.
        file_name_prefix: ``fileNamePrefix``: put before each object's name.
        endpoint: a URL replacing S3's endpoint (MinIO, Ceph, LocalStack); buckets are then
            addressed in the path, as the Java client always does.
        region: the region requests are signed for; the default chain's (``AWS_REGION``,
            the profile) when not set. Not a Java client key.
        timeout: seconds to connect, and to read each answer.

    The delivery settings (``batch_size``, ``max_queue_size``, ``spool``, ``spool_dir``, the
    back-offs and time-outs, ``raise_on_error``) are those of
    :class:`~openlineage_sdk.transports.HttpConfig`.
    """

    type: Literal["s3"] = "s3"
    bucket_name: str = Field(
        alias="bucketName", min_length=1, description="The bucket events are written to."
    )
    file_name_prefix: str | None = Field(
        default=None,
        alias="fileNamePrefix",
        description="Put before each object's name: a folder when it ends with '/', else "
        "joined with '_'.",
    )
    endpoint: str | None = Field(
        default=None,
        description="A URL replacing S3's endpoint (an S3-compatible store); buckets are then "
        "addressed in the path.",
    )
    region: str | None = Field(
        default=None,
        description="The region requests are signed for; the default chain's when not set.",
    )
    timeout: float = Field(
        default=10.0, gt=0, description="Seconds to connect, and to read each answer."
    )

    @field_validator("endpoint")
    @classmethod
    def _check_endpoint(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip()
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")
        return value


def _error(exc: Exception) -> tuple[str, int]:
    """The error code and HTTP status of a boto3 error, or empty ones."""
    response = getattr(exc, "response", None)
    if not isinstance(response, dict):
        return "", 0
    code = str(response.get("Error", {}).get("Code") or "")
    status = int(response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)
    return code, status


class _S3Sender:
    def __init__(self, config: S3Config) -> None:
        self._aws = AwsClient(
            "s3",
            region=config.region,
            endpoint_url=config.endpoint,
            path_style=config.endpoint is not None,
            timeout=config.timeout,
            connections=config.max_concurrent_requests,
        )
        self._bucket = config.bucket_name
        self._names = ObjectNames(config.file_name_prefix)
        self._conditional = True
        self._batch = config.batch_size
        where = f" at {masked_url(config.endpoint)}" if config.endpoint else ""
        self.destination = f"S3 bucket {self._bucket!r}{where}"
        identity = f"{config.endpoint or ''}\0{self._bucket}\0{config.file_name_prefix or ''}"
        self.spool_name = spool_name("s3", identity)

    @property
    def max_batch(self) -> int:
        return self._batch

    def send(self, batch: Sequence[Record]) -> SendResult:
        return send_each(batch, self._write)

    def _write(self, data: bytes) -> SendResult:
        try:
            millis = event_millis(json_document(data))
        except ValueError as exc:
            return SendResult(Outcome.REJECT, f"no object name: {exc}")
        try:
            client = self._aws.get()
        except Exception as exc:
            return aws_result(exc)
        duplicate = self._names.first(millis)
        while duplicate <= _MAX_DUPLICATES:
            name = self._names.name(millis, duplicate)
            try:
                if self._conditional:
                    client.put_object(
                        Bucket=self._bucket,
                        Key=name,
                        Body=data,
                        ContentType="application/json",
                        IfNoneMatch="*",
                    )
                    self._names.written(millis, duplicate)
                    return SendResult(Outcome.OK)
                if not self._exists(client, name):
                    client.put_object(
                        Bucket=self._bucket, Key=name, Body=data, ContentType="application/json"
                    )
                    self._names.written(millis, duplicate)
                    return SendResult(Outcome.OK)
            except Exception as exc:
                code, status = _error(exc)
                if self._conditional and (status == 501 or code == "NotImplemented"):
                    log.info(
                        "OpenLineage: %s does not take conditional writes; each name is "
                        "checked before it is written",
                        self.destination,
                    )
                    self._conditional = False
                    continue
                if not (code == "PreconditionFailed" or status == 412):
                    return aws_result(exc)
            # The name is taken: by this very event (a write retried after it arrived), or by
            # another event of the same millisecond.
            try:
                if self._holds(client, name, data):
                    self._names.written(millis, duplicate)
                    return SendResult(Outcome.OK)
            except Exception as exc:
                return aws_result(exc)
            duplicate += 1
        return SendResult(Outcome.REJECT, f"{_MAX_DUPLICATES} objects hold the event's time")

    def _exists(self, client: Any, name: str) -> bool:
        try:
            client.head_object(Bucket=self._bucket, Key=name)
        except Exception as exc:
            code, status = _error(exc)
            if status == 404 or code in ("404", "NoSuchKey", "NotFound"):
                return False
            raise
        return True

    def _holds(self, client: Any, name: str, data: bytes) -> bool:
        """Whether the object ``name`` holds exactly ``data`` (its ETag is the MD5 of it)."""
        try:
            head = client.head_object(Bucket=self._bucket, Key=name)
        except Exception as exc:
            code, status = _error(exc)
            if status == 404 or code in ("404", "NoSuchKey", "NotFound"):
                return False
            raise
        return bool(str(head.get("ETag", "")).strip('"') == md5_hex(data))

    def close(self) -> None:
        pass


class S3Transport(QueuedTransport[S3Config]):
    """Writes each event to an S3 object named by its time; asynchronous, ordered, spooled."""

    kind = "s3"
    config_class = S3Config

    def _sender(self, config: S3Config) -> _S3Sender:
        return _S3Sender(config)
