"""Kafka, through confluent-kafka (``pip install 'openlineage-sdk[kafka]'``).

Every event is a message on ``topic`` keyed as the official clients (Python and Java) key it
(see ``default_message_key``): a run event by its root parent's job, else its parent's,
else its own, so that the runs of a job, and a parent run with its children, land on one
partition; a job or dataset event by that job or dataset. Events with the same key are
produced in the order they were emitted, and the producer is idempotent by default, which
keeps that order even when librdkafka retries. Delivery runs on the same asynchronous engine
as HTTP: ``emit`` returns at once, batches are handed to the producer and confirmed by its
delivery reports, undeliverable events wait in the spool, and ``close`` flushes the producer.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field, SecretStr, field_serializer, field_validator, model_validator

from openlineage_sdk.transports._delivery.protocol import Outcome, Record, SendResult
from openlineage_sdk.transports._queued import DeliveryConfig, QueuedTransport
from openlineage_sdk.transports._registry import TransportConfigError
from openlineage_sdk.transports.base import (
    Emittable,
    TransportError,
    is_secret_key,
    redact_mapping,
    spool_name,
)

__all__ = [
    "KafkaConfig",
    "KafkaTransport",
    "MskIamConfig",
    "MskIamTransport",
    "default_message_key",
    "msk_iam_token",
]

log = logging.getLogger(__name__)

# Producer settings applied unless the user's ``config`` sets them.
_PRODUCER_DEFAULTS: Mapping[str, Any] = {
    "enable.idempotence": True,  # keeps per-partition order through retries
    "linger.ms": 5,
    "compression.type": "lz4",
    "message.timeout.ms": 60_000,
}


class _KafkaSettings(DeliveryConfig):
    """The settings :class:`KafkaConfig` and :class:`MskIamConfig` share.

    Attributes:
        topic: the topic events are written to.
        config: librdkafka producer settings (``bootstrap.servers``, SASL...).
            Values of secret settings (passwords, SASL, keys) are held as
            :class:`~pydantic.SecretStr` and masked in reprs, dumps, logs and errors.
        message_key: a fixed key for every message (``messageKey`` works too), which then all
            go to one partition. Unset (or empty, as in the official client), a run event is
            keyed ``run:{namespace}/{name}`` of its root parent's job, else its parent's, else
            its own, a job event ``job:{namespace}/{name}`` and a dataset event
            ``dataset:{namespace}/{name}``, as the official clients key them (see
            ``openlineage_sdk.transports.kafka.default_message_key``).
        flush: kept for layout compatibility: delivery is asynchronous and
            ``flush()``/``close()`` wait for it.
        batch_size: events handed to the producer at once.
        max_concurrent_requests: sender threads handing batches to the producer (1).
    """

    topic: str = Field(min_length=1)
    config: dict[str, str | int | float | bool | SecretStr] = Field(default_factory=dict)
    message_key: str | None = Field(default=None, alias="messageKey")
    flush: bool = True
    batch_size: int = Field(default=500, ge=1)
    max_concurrent_requests: int = Field(default=1, ge=1, le=16)

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            data = dict(data)
            if "message_key" in data and "messageKey" not in data:
                data["messageKey"] = data.pop("message_key")
            for ignored in ("name", "priority"):
                data.pop(ignored, None)
        return data

    @field_validator("config")
    @classmethod
    def _secret_settings(
        cls, value: dict[str, str | int | float | bool | SecretStr]
    ) -> dict[str, str | int | float | bool | SecretStr]:
        # Passwords, SASL settings and keys are held as SecretStr, like the HTTP API key.
        return {
            key: SecretStr(setting) if isinstance(setting, str) and is_secret_key(key) else setting
            for key, setting in value.items()
        }

    @field_serializer("config")
    def _dump_config(self, value: dict[str, Any]) -> dict[str, Any]:
        # Every dump masks the secret settings (sasl.*, ssl.*.password, keys), as the repr.
        return dict(redact_mapping(value))

    def __repr_args__(self) -> Any:
        for name, value in super().__repr_args__():
            yield name, redact_mapping(value) if name == "config" else value


class KafkaConfig(_KafkaSettings):
    """Configuration of :class:`KafkaTransport` (``type: kafka``), as in the official client.

    Attributes:
        topic: the topic events are written to.
        config: librdkafka producer settings (``bootstrap.servers``, SASL...).
            Values of secret settings (passwords, SASL, keys) are held as
            :class:`~pydantic.SecretStr` and masked in reprs, dumps, logs and errors.
        message_key: a fixed key for every message (``messageKey`` works too), which then all
            go to one partition. Unset (or empty, as in the official client), a run event is
            keyed ``run:{namespace}/{name}`` of its root parent's job, else its parent's, else
            its own, a job event ``job:{namespace}/{name}`` and a dataset event
            ``dataset:{namespace}/{name}``, as the official clients key them (see
            ``openlineage_sdk.transports.kafka.default_message_key``).
        flush: kept for layout compatibility: delivery is asynchronous and
            ``flush()``/``close()`` wait for it.
        batch_size: events handed to the producer at once.
        max_concurrent_requests: sender threads handing batches to the producer (1).

    The delivery settings (``max_queue_size``, ``spool``, ``spool_dir``, ``spool_max_bytes``,
    ``backoff_initial``, ``backoff_max``, ``flush_timeout``, ``close_timeout``,
    ``raise_on_error``) are those of :class:`~openlineage_sdk.transports.HttpConfig`.
    """

    type: Literal["kafka"] = "kafka"


def _get(obj: object, name: str) -> Any:
    """``obj``'s field ``name``: an attribute, a mapping's key, or a facet container's JSON key."""
    if obj is None:
        return None
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


def default_message_key(event: object) -> str | None:
    """The message key of an event when ``messageKey`` is not set, as the official clients make it.

    A run event is keyed by a job, so that the runs of a job, and a parent run with its
    children and grandchildren, land on one partition and are read back in the order they
    were emitted: ``run:{namespace}/{name}`` of the root parent's job (``run.facets.parent.
    root.job``), else of the parent's job, else of the event's own job, taken as the official
    Python client takes them (a parent job without a namespace or a name counts as none). A job
    event is keyed ``job:{namespace}/{name}``, a dataset event ``dataset:{namespace}/{name}``.

    The key depends only on what the event's JSON holds, so an event replayed from the spool
    gets the key it had when it was emitted.

    Args:
        event: a ``RunEvent``, ``JobEvent`` or ``DatasetEvent``, an object shaped alike, or an
            event's JSON object as a mapping.

    Returns:
        The key, or ``None`` for an event that has neither a run and its job, nor a job, nor a
        dataset (its message has no key then, as with the official client).
    """
    run = _get(event, "run")
    job = _get(event, "job")
    if run is not None:
        if job is None:
            return None
        chosen = job
        parent = _get(_get(run, "facets"), "parent")
        if parent:
            root = _get(parent, "root")
            found = _get(root, "job") if root else _get(parent, "job")
            if _get(found, "namespace") and _get(found, "name"):
                chosen = found
        return f"run:{_get(chosen, 'namespace')}/{_get(chosen, 'name')}"
    if job is not None:
        return f"job:{_get(job, 'namespace')}/{_get(job, 'name')}"
    dataset = _get(event, "dataset")
    if dataset is not None:
        return f"dataset:{_get(dataset, 'namespace')}/{_get(dataset, 'name')}"
    return None


def _message_key(config: _KafkaSettings, event: object) -> str:
    """The key the message of ``event`` gets under ``config``; empty for none."""
    return config.message_key or default_message_key(event) or ""


def _key_from_json(data: bytes, config: _KafkaSettings) -> str:
    """The message key of an event read back from the spool, where only its JSON is kept."""
    if config.message_key:
        return config.message_key
    try:
        document = json.loads(data)
    except ValueError:
        return ""
    return (default_message_key(document) or "") if isinstance(document, dict) else ""


class _KafkaSender:
    def __init__(
        self,
        config: _KafkaSettings,
        defaults: Mapping[str, Any] = _PRODUCER_DEFAULTS,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        try:
            from confluent_kafka import KafkaError, KafkaException, Producer
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise TransportError(
                "the Kafka transport needs confluent-kafka: pip install 'openlineage-sdk[kafka]'"
            ) from exc
        self._kafka_error = KafkaError
        self._kafka_exception = KafkaException
        settings: dict[str, Any] = {
            **defaults,
            **{
                key: value.get_secret_value() if isinstance(value, SecretStr) else value
                for key, value in config.config.items()
            },
            **(extra or {}),
        }
        self._producer = Producer(settings)
        self._topic = config.topic
        self._config = config
        self._batch = config.batch_size
        # Delivery reports can take up to message.timeout.ms; wait a little
        # longer so that every message of a batch has its verdict.
        self._wait = float(settings.get("message.timeout.ms", 60_000)) / 1000 + 5
        servers = str(settings.get("bootstrap.servers", ""))
        self.destination = f"Kafka topic {self._topic!r} at {servers or 'the configured cluster'}"
        self.spool_name = spool_name("kafka", servers, self._topic)

    @property
    def max_batch(self) -> int:
        return self._batch

    def send(self, batch: Sequence[Record]) -> SendResult:
        errors: dict[int, Any] = {}
        reported = threading.Semaphore(0)

        def report(index: int) -> Any:
            def callback(err: Any, _msg: Any) -> None:
                if err is not None:
                    errors[index] = err
                reported.release()

            return callback

        produced = 0
        for index, (key, data) in enumerate(batch):
            if key is None:  # read back from the spool, where only the JSON is kept
                key = _key_from_json(data, self._config)
            while True:
                try:
                    self._producer.produce(
                        self._topic,
                        value=data,
                        key=key.encode() if key else None,
                        on_delivery=report(index),
                    )
                    produced += 1
                    break
                except BufferError:
                    # librdkafka's own queue is full: let it drain, then go on.
                    self._producer.poll(0.05)
                except self._kafka_exception as exc:  # invalid topic, message too large...
                    # Its KafkaError says whether another try can help.
                    errors[index] = exc.args[0] if exc.args else exc
                    break
        try:
            self._producer.flush(self._wait)
        except Exception as exc:
            # A callback of ours that failed (the MSK IAM token's) is raised again here.
            return SendResult(Outcome.RETRY, f"{type(exc).__name__}: {exc}")
        got = 0
        while got < produced and reported.acquire(timeout=0):
            got += 1
        if got < produced:
            return SendResult(Outcome.RETRY, f"{produced - got} delivery report(s) missing")
        if not errors:
            return SendResult(Outcome.OK)
        retry: list[int] = []
        reject: list[int] = []
        for index, err in errors.items():
            retriable = getattr(err, "retriable", None)
            fatal = (
                callable(retriable) and not retriable() and not _transient(err, self._kafka_error)
            )
            (reject if fatal else retry).append(index)
        first = next(iter(errors.values()))
        message = f"{len(errors)} of {len(batch)} message(s) failed: {first}"
        if len(errors) == len(batch) and not reject:
            return SendResult(Outcome.RETRY, message)
        return SendResult(
            Outcome.PARTIAL, message, retry_indices=tuple(retry), reject_indices=tuple(reject)
        )

    def close(self) -> None:
        self._producer.flush(1.0)


def _transient(err: Any, kafka_error: Any) -> bool:
    """Timeouts and unreachable brokers are worth another try even when not flagged retriable."""
    code = err.code() if callable(getattr(err, "code", None)) else None
    return code in {
        kafka_error._MSG_TIMED_OUT,
        kafka_error._TIMED_OUT,
        kafka_error._TRANSPORT,
        kafka_error._ALL_BROKERS_DOWN,
    }


class KafkaTransport(QueuedTransport[KafkaConfig]):
    """Writes events to a Kafka topic keyed as the official clients key them (the runs of a job,
    and a parent run with its children, share a key); asynchronous, ordered per key, spooled."""

    kind = "kafka"
    config_class = KafkaConfig

    def _sender(self, config: KafkaConfig) -> _KafkaSender:
        return _KafkaSender(config)

    def _ordering_key(self, event: Emittable) -> str:
        # Messages of one key share a lane: they are produced in the order they were emitted.
        return _message_key(self.config, event)


# ------------------------------------------------------------------------------- MSK with IAM


class MskIamConfig(_KafkaSettings):
    """Configuration of :class:`MskIamTransport` (``type: msk-iam``), the official client's keys.

    The Kafka transport's keys, and the AWS identity the OAUTHBEARER token is signed with.

    Attributes:
        region: the cluster's region; else ``AWS_REGION``, else the default AWS
            configuration's (as the official client looks for it).
        aws_profile: sign with this profile of the AWS configuration files.
        role_arn: sign with this role, assumed with STS.
        aws_debug_creds: log the identity the token is signed with (the caller's ARN, at
            debug level).

    The other keys (``topic``, ``config``, ``messageKey``, the delivery settings) are those of
    :class:`KafkaConfig`.
    """

    type: Literal["msk-iam"] = "msk-iam"
    region: str | None = Field(
        default=None,
        description="The cluster's region; else AWS_REGION, else the AWS configuration's.",
    )
    aws_profile: str | None = Field(
        default=None, description="Sign the token with this profile of the AWS configuration."
    )
    role_arn: str | None = Field(
        default=None, description="Sign the token with this role, assumed with STS."
    )
    aws_debug_creds: bool = Field(
        default=False, description="Log the identity the token is signed with (debug level)."
    )


def _detect_region() -> str | None:
    """The region as the official client looks for it: ``AWS_REGION``, then boto3's."""
    region = os.environ.get("AWS_REGION")
    if region:
        return region
    try:
        import boto3
    except ImportError:  # pragma: no cover - the signer depends on boto3
        return None
    if boto3.DEFAULT_SESSION is not None and boto3.DEFAULT_SESSION.region_name:
        return str(boto3.DEFAULT_SESSION.region_name)
    found = boto3.session.Session().region_name
    return str(found) if found else None


def msk_iam_token(config: MskIamConfig, region: str) -> tuple[str, float]:
    """An OAUTHBEARER token for MSK's IAM authentication, and when it expires.

    The token is a SigV4-presigned ``kafka-cluster:Connect`` request to
    ``https://kafka.{region}.amazonaws.com/``, made by ``aws-msk-iam-sasl-signer-python`` with
    the profile, the role, or the default credentials, as the official client makes it.

    Args:
        config: the transport's configuration (profile, role).
        region: the cluster's region.

    Returns:
        ``(token, expiry)``, the expiry in seconds since the epoch (what librdkafka expects).
    """
    from aws_msk_iam_sasl_signer import MSKAuthTokenProvider

    if config.aws_profile:
        token, expiry_ms = MSKAuthTokenProvider.generate_auth_token_from_profile(
            region, config.aws_profile
        )
    elif config.role_arn:
        token, expiry_ms = MSKAuthTokenProvider.generate_auth_token_from_role_arn(
            region, config.role_arn
        )
    else:
        token, expiry_ms = MSKAuthTokenProvider.generate_auth_token(
            region, aws_debug_creds=config.aws_debug_creds
        )
    return str(token), float(expiry_ms) / 1000


class MskIamTransport(QueuedTransport[MskIamConfig]):
    """Kafka on Amazon MSK with IAM authentication (``pip install 'openlineage-sdk[msk-iam]'``).

    The Kafka transport with ``security.protocol: SASL_SSL``, ``sasl.mechanism: OAUTHBEARER``
    and a token callback signing with AWS credentials, as the official client sets its
    producer up; the user's own ``security.protocol`` wins (MSK's IAM listener needs TLS).
    librdkafka asks for a new token before the current one expires.
    """

    kind = "msk-iam"
    config_class = MskIamConfig

    def _ordering_key(self, event: Emittable) -> str:
        return _message_key(self.config, event)

    def _sender(self, config: MskIamConfig) -> _KafkaSender:
        try:
            import aws_msk_iam_sasl_signer  # noqa: F401
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise TransportError(
                "the msk-iam transport needs aws-msk-iam-sasl-signer-python: "
                "pip install 'openlineage-sdk[msk-iam]'"
            ) from exc
        region = config.region or _detect_region()
        if not region:
            raise TransportConfigError(
                "invalid 'msk-iam' transport configuration: region: not set, and neither "
                "AWS_REGION nor the AWS configuration names one"
            )

        def oauth_cb(_config: str | None) -> tuple[str, float]:
            try:
                return msk_iam_token(config, region)
            except Exception as exc:
                # Logged by name and message only: botocore's messages carry no secret.
                log.error(
                    "OpenLineage: no MSK IAM token could be made (%s: %s)",
                    type(exc).__name__,
                    exc,
                )
                raise

        defaults = {
            **_PRODUCER_DEFAULTS,
            "security.protocol": "SASL_SSL",
        }
        return _KafkaSender(
            config, defaults, {"sasl.mechanism": "OAUTHBEARER", "oauth_cb": oauth_cb}
        )
