"""Amazon Kinesis Data Streams, as the Java client's ``kinesis`` transport.

``pip install 'openlineage-sdk[kinesis]'`` (boto3). Each event is one record of ``streamName``
with the Java client's partition key, so that the events of a job and of the runs under one
parent share a shard and are read back in order:

* a run event: ``run:{namespace}/{name}`` of the root parent's job, else of the parent's job,
  else of its own job;
* a job event: ``job:{namespace}/{name}``; a dataset event: ``dataset:{namespace}/{name}``.

Records are written with ``PutRecords``, up to 500 per request, from sender threads; the events
of one partition key travel in one lane, in order. Records the stream throttles are written
again; undeliverable events wait in the spool.

The Java client writes through the Kinesis Producer Library (KPL), whose ``properties`` tune
it; those that have a meaning here are applied (see :class:`KinesisConfig`), the others are
named in a warning when the transport is made. The KPL's record aggregation is not done: each
event is a record of its own, which every consumer reads (the KCL reads both forms).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field, field_validator

from openlineage_sdk.transports._cloud import (
    AwsClient,
    CloudConfig,
    aws_result,
    excerpt,
    json_document,
)
from openlineage_sdk.transports._delivery.protocol import Outcome, Record, SendResult
from openlineage_sdk.transports._queued import QueuedTransport
from openlineage_sdk.transports.base import Emittable, TransportError, masked_url, spool_name

__all__ = ["KinesisConfig", "KinesisTransport", "partition_key"]

log = logging.getLogger(__name__)

#: The most records, and bytes of one record (data and key), ``PutRecords`` takes.
_MAX_RECORDS = 500
_MAX_RECORD_BYTES = 1 << 20
#: The longest partition key Kinesis takes, in characters.
_MAX_KEY = 256

#: KPL properties applied here; every other one is named in a warning.
_APPLIED_PROPERTIES = (
    "KinesisEndpoint",
    "KinesisPort",
    "StsEndpoint",
    "StsPort",
    "VerifyCertificate",
    "ConnectTimeout",
    "RequestTimeout",
    "MaxConnections",
    "CollectionMaxCount",
    "Region",
)


class KinesisConfig(CloudConfig):
    """Configuration of :class:`KinesisTransport` (``type: kinesis``), the Java client's keys.

    Attributes:
        stream_name: ``streamName``: the stream events are written to.
        region: the stream's region; the default chain's (``AWS_REGION``, the profile) when
            not set.
        role_arn: ``roleArn``: a role assumed with STS (session ``OLProducer``) to write.
        properties: the KPL's properties. Applied here: ``KinesisEndpoint`` and
            ``KinesisPort`` (an endpoint of the stream's service, over HTTPS), ``StsEndpoint``
            and ``StsPort`` (the same for STS), ``VerifyCertificate``, ``ConnectTimeout`` and
            ``RequestTimeout`` (milliseconds), ``MaxConnections``, ``CollectionMaxCount``
            (records per request, at most 500) and ``Region``. Others (aggregation, buffering,
            metrics) are named in a warning and have no effect.
        endpoint: a URL replacing the Kinesis endpoint, of any scheme (LocalStack, a VPC
            endpoint). Not a Java client key; wins over ``KinesisEndpoint``.

    The delivery settings (``batch_size``, ``max_queue_size``, ``spool``, ``spool_dir``, the
    back-offs and time-outs, ``raise_on_error``) are those of
    :class:`~openlineage_sdk.transports.HttpConfig`. ``batch_size`` is at most 500.
    """

    type: Literal["kinesis"] = "kinesis"
    stream_name: str = Field(
        alias="streamName", min_length=1, description="The stream events are written to."
    )
    region: str | None = Field(
        default=None,
        description="The stream's region; the default chain's (AWS_REGION, the profile) when "
        "not set.",
    )
    role_arn: str | None = Field(
        default=None,
        alias="roleArn",
        description="A role assumed with STS (session name OLProducer) to write to the stream.",
    )
    properties: dict[str, str | int | float | bool] = Field(
        default_factory=dict,
        description="The Kinesis Producer Library's properties; those with a meaning here are "
        "applied, the others named in a warning.",
    )
    endpoint: str | None = Field(default=None, description="A URL replacing the Kinesis endpoint.")
    batch_size: int = Field(
        default=_MAX_RECORDS, ge=1, le=_MAX_RECORDS, description="Records per request."
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

    @field_validator("properties")
    @classmethod
    def _check_properties(
        cls, value: dict[str, str | int | float | bool]
    ) -> dict[str, str | int | float | bool]:
        for key in ("KinesisPort", "StsPort", "ConnectTimeout", "RequestTimeout"):
            if key in value and _number(value[key]) is None:
                raise ValueError(f"{key} must be a number")
        for key in ("MaxConnections", "CollectionMaxCount"):
            if key in value and (_number(value[key]) or 0) < 1:
                raise ValueError(f"{key} must be a whole number of at least 1")
        if "VerifyCertificate" in value and _flag(value["VerifyCertificate"]) is None:
            raise ValueError("VerifyCertificate must be true or false")
        return value


def _number(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        return int(float(str(value)))
    except ValueError:
        return None


def _flag(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    return {"true": True, "false": False}.get(text)


def _get(obj: object, name: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name)
    value = getattr(obj, name, None)
    if value is None and callable(getattr(obj, "get", None)):
        # A facets object also holds, by key, the facets it keeps as they were read.
        try:
            value = obj.get(name)  # type: ignore[attr-defined]
        except Exception:
            value = None
    return value


def partition_key(event: object) -> str:
    """The Java client's partition key of an event (an object or its JSON object).

    Args:
        event: a run, job or dataset event.

    Returns:
        ``run:{ns}/{name}`` (the root parent's job, else the parent's, else the event's own),
        ``job:{ns}/{name}`` or ``dataset:{ns}/{name}``; at most 256 characters (a longer key
        is cut and ends with a hash of the whole, so that it still tells jobs apart).
    """
    run = _get(event, "run")
    job = _get(event, "job")
    if run is not None and job is not None:
        facets = _get(run, "facets")
        parent = _get(facets, "parent") if facets is not None else None
        chosen = job
        if parent is not None:
            root = _get(parent, "root")
            root_job = _get(root, "job") if root is not None else None
            parent_job = _get(parent, "job")
            chosen = root_job if root_job is not None else (parent_job or job)
        key = f"run:{_get(chosen, 'namespace')}/{_get(chosen, 'name')}"
    elif job is not None:
        key = f"job:{_get(job, 'namespace')}/{_get(job, 'name')}"
    else:
        dataset = _get(event, "dataset")
        key = f"dataset:{_get(dataset, 'namespace')}/{_get(dataset, 'name')}"
    if len(key) > _MAX_KEY:
        digest = hashlib.sha256(key.encode()).hexdigest()
        key = f"{key[: _MAX_KEY - 65]}#{digest}"
    return key


class _KinesisSender:
    def __init__(self, config: KinesisConfig) -> None:
        props = config.properties
        unused = sorted(k for k in props if k not in _APPLIED_PROPERTIES)
        if unused:
            log.warning(
                "OpenLineage: the Kinesis Producer Library properties %s have no equivalent "
                "in this transport and are not used",
                ", ".join(unused),
            )
        verify = _flag(props.get("VerifyCertificate", True)) is not False
        endpoint = config.endpoint
        if endpoint is None and props.get("KinesisEndpoint"):
            endpoint = (
                f"https://{props['KinesisEndpoint']}:{_number(props.get('KinesisPort', 443))}"
            )
        sts = None
        if props.get("StsEndpoint"):
            sts = f"https://{props['StsEndpoint']}:{_number(props.get('StsPort', 443))}"
        timeouts = [
            _number(props[k]) or 0 for k in ("ConnectTimeout", "RequestTimeout") if k in props
        ]
        region = config.region or (str(props["Region"]) if props.get("Region") else None)
        self._aws = AwsClient(
            "kinesis",
            region=region,
            endpoint_url=endpoint,
            verify=verify,
            timeout=max(timeouts) / 1000 if timeouts else 6.0,
            connections=_number(props.get("MaxConnections", 24)) or 24,
            role_arn=config.role_arn,
            sts_endpoint_url=sts,
        )
        self._stream = config.stream_name
        self._batch = min(
            config.batch_size, _number(props.get("CollectionMaxCount", _MAX_RECORDS)) or 1
        )
        where = f" at {masked_url(endpoint)}" if endpoint else f" in {self._aws.region}"
        self.destination = f"Kinesis stream {self._stream!r}{where}"
        identity = f"{endpoint or ''}\0{self._aws.region}\0{self._stream}"
        self.spool_name = spool_name("kinesis", identity)

    @property
    def max_batch(self) -> int:
        return self._batch

    def send(self, batch: Sequence[Record]) -> SendResult:
        records: list[dict[str, Any]] = []
        sent: list[int] = []
        rejected: list[int] = []
        reasons: list[str] = []
        for index, (key, data) in enumerate(batch):
            if key is None:  # read back from the spool, where only the JSON is kept
                try:
                    key = partition_key(json_document(data))
                except ValueError as exc:
                    rejected.append(index)
                    reasons.append(f"#{index}: {exc}")
                    continue
            if len(data) + len(key.encode()) > _MAX_RECORD_BYTES:
                rejected.append(index)
                reasons.append(f"#{index}: {len(data)} bytes, over Kinesis's 1 MiB per record")
                continue
            records.append({"Data": data, "PartitionKey": key})
            sent.append(index)
        retry: list[int] = []
        if records:
            try:
                answer = self._aws.get().put_records(StreamName=self._stream, Records=records)
            except Exception as exc:
                result = aws_result(exc)
                if not rejected:
                    return result
                if result.outcome is Outcome.REJECT:
                    rejected.extend(sent)
                    reasons.append(result.message)
                else:
                    return SendResult(
                        Outcome.PARTIAL,
                        "; ".join([*reasons[:4], result.message]),
                        retry_indices=tuple(sent),
                        reject_indices=tuple(sorted(rejected)),
                    )
            else:
                for position, outcome in enumerate(answer.get("Records") or ()):
                    if outcome.get("ErrorCode"):
                        retry.append(sent[position])
                        if len(reasons) < 5:
                            reasons.append(
                                f"{outcome['ErrorCode']}: "
                                f"{excerpt(str(outcome.get('ErrorMessage', '')), 120)}"
                            )
        if not retry and not rejected:
            return SendResult(Outcome.OK)
        if len(rejected) == len(batch):
            return SendResult(Outcome.REJECT, "; ".join(reasons[:5]))
        if len(retry) == len(batch):
            return SendResult(Outcome.RETRY, "; ".join(reasons[:5]))
        return SendResult(
            Outcome.PARTIAL,
            "; ".join(reasons[:5]),
            retry_indices=tuple(retry),
            reject_indices=tuple(sorted(rejected)),
        )

    def close(self) -> None:
        pass


class KinesisTransport(QueuedTransport[KinesisConfig]):
    """Writes events to a Kinesis stream with the Java client's partition keys; asynchronous,
    ordered per key, spooled."""

    kind = "kinesis"
    config_class = KinesisConfig

    def _sender(self, config: KinesisConfig) -> _KinesisSender:
        return _KinesisSender(config)

    def emit(self, event: Emittable) -> None:
        """Queue the event for delivery and return at once.

        The events of one partition key share a lane: they are written in the order they were
        emitted.

        Args:
            event: the event; its JSON is taken now.
        """
        try:
            data = event.to_json().encode()
        except Exception as exc:
            if self.config.raise_on_error:
                raise TransportError(f"could not serialize the event: {exc}") from exc
            log.error("OpenLineage: could not serialize the event, it was not sent: %s", exc)
            return
        self._engine.submit(partition_key(event), data)
