"""Google Cloud Storage, one object per event, as the Java client's ``gcs`` transport.

``pip install 'openlineage-sdk[gcs]'`` (httpx and google-auth). Each event is written to
``gs://{bucketName}/{fileNamePrefix}{eventTime in ms}.json`` (``{prefix}_{ms}.json`` when the
prefix does not end with ``/``), the Java client's names, by the Cloud Storage JSON API's
multipart upload (``POST /upload/storage/v1/b/{bucket}/o?uploadType=multipart``), the request
the Java client's ``Storage.create`` makes. Delivery runs on the same engine as HTTP: ``emit``
returns at once, objects are written from sender threads, in order per run, and what cannot be
written waits in the spool.

An object is never overwritten: it is written with ``ifGenerationMatch=0`` (only if no object
has the name), and where another event of the same millisecond already holds the name, the
event goes to ``{ms}-1.json``, ``{ms}-2.json``... (the Java client refuses it and the event is
lost). An object already there with the same content (a retried upload that had arrived)
counts as delivered.

``STORAGE_EMULATOR_HOST`` (read when the transport is made) sends the requests to an emulator,
without credentials, as Google's own clients do.
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from collections.abc import Mapping, Sequence
from typing import Literal
from urllib.parse import quote

from pydantic import Field, model_validator

from openlineage_sdk.transports._cloud import (
    CloudConfig,
    GoogleSession,
    ObjectNames,
    endpoint_url,
    event_millis,
    excerpt,
    http_result,
    json_document,
    md5_base64,
    send_each,
    setting,
)
from openlineage_sdk.transports._delivery.protocol import Outcome, Record, SendResult
from openlineage_sdk.transports._queued import QueuedTransport
from openlineage_sdk.transports.base import masked_url, spool_name

__all__ = ["GcsConfig", "GcsTransport"]

log = logging.getLogger(__name__)

_DEFAULT_ENDPOINT = "https://storage.googleapis.com"
_MAX_DUPLICATES = 10_000


class GcsConfig(CloudConfig):
    """Configuration of :class:`GcsTransport` (``type: gcs``), the Java client's keys.

    Attributes:
        bucket_name: ``bucketName``: the bucket events are written to.
        project_id: ``projectId``: kept for the Java client's layout; uploading an object
            names no project, so it is not sent.
        credentials_file: ``credentialsFile``: a service account key (or other credentials
            file); Application Default Credentials when not set.
        file_name_prefix: ``fileNamePrefix``: put before each object's name.
        max_retries: ``maxRetries``: the Java client's attempts per upload, after which its
            event is lost. Here an upload is tried until it succeeds (the spool keeps the event
            meanwhile), or refused after ``max_server_error_attempts`` 5xx answers in a row.
        retry_interval_millis: ``retryIntervalMillis``: the Java client's fixed delay between
            attempts; given, it is the first and the longest delay between attempts
            (``backoff_initial`` and ``backoff_max``) unless those are set.
        endpoint: a URL replacing Cloud Storage's (a private endpoint). Not a Java client key.
        timeout: seconds to connect, and for each read and write.

    The delivery settings (``batch_size``, ``max_queue_size``, ``spool``, ``spool_dir``, the
    back-offs and time-outs, ``raise_on_error``) are those of
    :class:`~openlineage_sdk.transports.HttpConfig`.
    """

    type: Literal["gcs"] = "gcs"
    bucket_name: str = Field(
        alias="bucketName", min_length=1, description="The bucket events are written to."
    )
    project_id: str | None = Field(
        default=None,
        alias="projectId",
        description="Kept for the Java client's layout; an upload names no project.",
    )
    credentials_file: str | None = Field(
        default=None,
        alias="credentialsFile",
        description="A credentials file (a service account key); Application Default "
        "Credentials when not set.",
    )
    file_name_prefix: str | None = Field(
        default=None,
        alias="fileNamePrefix",
        description="Put before each object's name: a folder when it ends with '/', else "
        "joined with '_'.",
    )
    max_retries: int | None = Field(
        default=None,
        alias="maxRetries",
        ge=0,
        description="The Java client's attempts per upload; here uploads are tried until they "
        "succeed (the spool keeps the event meanwhile).",
    )
    retry_interval_millis: int | None = Field(
        default=None,
        alias="retryIntervalMillis",
        ge=0,
        description="The delay between attempts, in milliseconds: the first and longest "
        "delay unless backoff_initial or backoff_max are set.",
    )
    endpoint: str | None = Field(
        default=None, description="A URL replacing Cloud Storage's endpoint."
    )
    timeout: float = Field(
        default=10.0, gt=0, description="Seconds to connect, and for each read and write."
    )

    @model_validator(mode="before")
    @classmethod
    def _retry_interval(cls, data: object) -> object:
        interval = setting(data, "retryIntervalMillis")
        try:
            millis = None if isinstance(interval, bool) else float(str(interval))
        except ValueError:
            millis = None  # refused, with the key's name, when the field is validated
        if interval is not None and millis is not None and millis >= 0:
            assert isinstance(data, Mapping)
            data = dict(data)
            for key in ("backoff_initial", "backoff_max"):
                if setting(data, key) is None:
                    data[key] = millis / 1000
        return data


class _GcsSender:
    def __init__(self, config: GcsConfig) -> None:
        emulator = os.environ.get("STORAGE_EMULATOR_HOST", "").strip()
        if config.endpoint:
            base = endpoint_url(config.endpoint)
        elif emulator:
            base = endpoint_url(emulator, default_scheme="http")
        else:
            base = _DEFAULT_ENDPOINT
        self._google = GoogleSession(
            config.credentials_file,
            timeout=config.timeout,
            anonymous=bool(emulator) and not config.endpoint,
            what="gcs",
        )
        self._bucket = config.bucket_name
        bucket = quote(self._bucket, safe="")
        self._upload = f"{base}/upload/storage/v1/b/{bucket}/o"
        self._objects = f"{base}/storage/v1/b/{bucket}/o/"
        self._names = ObjectNames(config.file_name_prefix)
        self._batch = config.batch_size
        where = "" if base == _DEFAULT_ENDPOINT else f" at {masked_url(base)}"
        self.destination = f"Cloud Storage bucket {self._bucket!r}{where}"
        identity = f"{base}\0{self._bucket}\0{config.file_name_prefix or ''}"
        self.spool_name = spool_name("gcs", identity)

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
        duplicate = self._names.first(millis)
        while duplicate <= _MAX_DUPLICATES:
            name = self._names.name(millis, duplicate)
            result = self._upload_object(name, data)
            if result is not None:
                if result.outcome is Outcome.OK:
                    self._names.written(millis, duplicate)
                return result
            # The name is taken: by this very event (an upload retried after it arrived), or
            # by another event of the same millisecond.
            held = self._holds(name, data)
            if isinstance(held, SendResult):
                return held
            if held:
                self._names.written(millis, duplicate)
                return SendResult(Outcome.OK)
            duplicate += 1
        return SendResult(Outcome.REJECT, f"{_MAX_DUPLICATES} objects hold the event's time")

    def _upload_object(self, name: str, data: bytes) -> SendResult | None:
        """Upload ``data`` as ``name`` if no object has that name; ``None`` when one has."""
        boundary = uuid.uuid4().hex
        metadata = json.dumps({"name": name, "contentType": "application/json"}).encode()
        body = b"".join(
            (
                f"--{boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n".encode(),
                metadata,
                f"\r\n--{boundary}\r\nContent-Type: application/json\r\n\r\n".encode(),
                data,
                f"\r\n--{boundary}--\r\n".encode(),
            )
        )
        headers = {"Content-Type": f"multipart/related; boundary={boundary}"}
        url = f"{self._upload}?uploadType=multipart&ifGenerationMatch=0"
        problem = self._google.authorize("POST", url, headers)
        if problem is not None:
            return problem
        httpx = self._google._httpx
        try:
            answer = self._google.client.post(url, content=body, headers=headers)
        except httpx.HTTPError as exc:
            return SendResult(Outcome.RETRY, f"{type(exc).__name__}: {exc}")
        if answer.status_code == 412:
            return None
        return http_result(answer.status_code, f"HTTP {answer.status_code}: {excerpt(answer.text)}")

    def _holds(self, name: str, data: bytes) -> bool | SendResult:
        """Whether the object ``name`` holds exactly ``data`` (its ``md5Hash``)."""
        url = self._objects + quote(name, safe="")
        headers: dict[str, str] = {}
        problem = self._google.authorize("GET", url, headers)
        if problem is not None:
            return problem
        httpx = self._google._httpx
        try:
            answer = self._google.client.get(url, headers=headers)
        except httpx.HTTPError as exc:
            return SendResult(Outcome.RETRY, f"{type(exc).__name__}: {exc}")
        if answer.status_code == 404:
            return False
        if answer.status_code != 200:
            return http_result(
                answer.status_code, f"HTTP {answer.status_code}: {excerpt(answer.text)}"
            )
        try:
            md5 = answer.json().get("md5Hash")
        except (ValueError, AttributeError):
            md5 = None
        return bool(md5 == md5_base64(data))

    def close(self) -> None:
        self._google.close()


class GcsTransport(QueuedTransport[GcsConfig]):
    """Writes each event to a Cloud Storage object named by its time; asynchronous, ordered,
    spooled."""

    kind = "gcs"
    config_class = GcsConfig

    def _sender(self, config: GcsConfig) -> _GcsSender:
        return _GcsSender(config)
