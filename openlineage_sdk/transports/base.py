"""The transport contract: what every destination of OpenLineage events implements.

A transport takes events through :meth:`Transport.emit`, can be asked to
:meth:`Transport.flush` what it holds within a time limit, and is finally
:meth:`Transport.close`\\ d. Both ``flush`` and ``close`` answer with a
:class:`FlushResult` that says what was delivered and what is still waiting, so
a caller always knows whether anything is at risk.

Events are anything with a ``to_json() -> str`` method (see :class:`Emittable`);
the SDK's own ``RunEvent``, ``JobEvent`` and ``DatasetEvent`` are the usual ones.
"""

from __future__ import annotations

import hashlib
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, ClassVar, Protocol, runtime_checkable
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, SecretStr
from typing_extensions import Self

__all__ = [
    "REDACTED",
    "DeliveryError",
    "Emittable",
    "FlushResult",
    "Transport",
    "TransportConfig",
    "TransportError",
    "event_key",
    "is_secret_key",
    "masked_url",
    "redact_mapping",
]


@runtime_checkable
class Emittable(Protocol):
    """Anything a transport can send: an object that writes itself as compact JSON."""

    def to_json(self) -> str:
        """Return the event as a compact JSON document."""
        ...


class TransportError(Exception):
    """A transport could not take or deliver an event.

    Raised only when the user asked for errors to be raised (``raise_on_error``);
    otherwise the same failure is logged and the pipeline carries on.
    """


class DeliveryError(TransportError):
    """Events were not delivered by the end of a ``flush`` or ``close``.

    Attributes:
        result: what was delivered, pending, spooled, rejected and dropped.
    """

    def __init__(self, message: str, result: FlushResult) -> None:
        super().__init__(message)
        self.result = result


@dataclass(frozen=True)
class FlushResult:
    """What a transport still holds after a ``flush`` or ``close``.

    Attributes:
        pending: events held in memory and not yet delivered (lost if the
            process dies now).
        spooled: events waiting in the local spool file; they are safe on disk
            and will be replayed, by this process or the next one to start.
        delivered: events the destination accepted since the transport was made.
        rejected: events the destination refused for good (over HTTP a 4xx
            answer other than 408/429, or ``max_server_error_attempts`` 5xx in
            a row; for Kafka an error librdkafka does not retry) since the
            transport was made; they are kept in the spool's
            ``rejected.jsonl`` when a spool is configured.
        dropped: events that could neither be delivered nor kept (spool disabled
            or full, or an error writing it) since the transport was made.
    """

    pending: int = 0
    spooled: int = 0
    delivered: int = 0
    rejected: int = 0
    dropped: int = 0
    details: tuple[str, ...] = field(default=())

    @property
    def complete(self) -> bool:
        """True when nothing is waiting: every event was delivered or refused for good."""
        return self.pending == 0 and self.spooled == 0

    def __add__(self, other: FlushResult) -> FlushResult:
        return FlushResult(
            pending=self.pending + other.pending,
            spooled=self.spooled + other.spooled,
            delivered=self.delivered + other.delivered,
            rejected=self.rejected + other.rejected,
            dropped=self.dropped + other.dropped,
            details=self.details + other.details,
        )


_SECRET_KEY = re.compile(
    r"(pass|secret|token|api[_-]?key|apikey|credential|sasl|private|auth|ssl\.key|keystore)", re.I
)
#: What a secret value is shown as in reprs, dumps, logs and errors.
REDACTED = "**********"
_REDACTED = REDACTED


def spool_name(kind: str, *identity: str) -> str:
    """The name of a transport's spool: its kind and a digest of where it sends.

    Two transports sending to the same place share a spool (what one left is sent by the next);
    the name must never change for a place, or what a spool holds would be left behind.

    Args:
        kind: The transport's kind (``http``, ``s3``...).
        identity: What names the destination (a URL; an endpoint, a bucket and a prefix...).

    Returns:
        ``{kind}-`` and 16 hex digits of the SHA-256 of the parts joined by NUL characters.
    """
    digest = hashlib.sha256("\0".join(identity).encode()).hexdigest()
    return f"{kind}-{digest[:16]}"


def masked_url(url: str) -> str:
    """``url`` with its password, and the values of secret-looking query parameters, masked.

    ``https://user:pw@host/p?token=t&x=1`` -> ``https://user:**********@host/p?token=**********&x=1``.
    Used when a configuration is dumped; the URL itself is sent unchanged.

    Args:
        url: a URL, possibly with user info.

    Returns:
        The URL with every secret part replaced by ``**********``.
    """
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user = userinfo.partition(":")[0]
        netloc = f"{user}:{REDACTED}@{host}" if ":" in userinfo else f"{REDACTED}@{host}"
    query = "&".join(
        f"{key}={REDACTED}" if sep and _SECRET_KEY.search(key) else f"{key}{sep}{value}"
        for key, sep, value in (item.partition("=") for item in parts.query.split("&") if item)
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def is_secret_key(key: object) -> bool:
    """Whether a setting named ``key`` holds a secret (a password, token, key, SASL setting...)."""
    return bool(_SECRET_KEY.search(str(key)))


def redact_mapping(value: Any, *, _secret: bool = False) -> Any:
    """Return a copy of ``value`` with every secret-looking entry masked.

    A key is secret when its name mentions a password, secret, token, API key,
    credential, SASL or auth setting; everything under such a key is masked.
    Used by the reprs of configuration objects and never changes the input.

    Args:
        value: a mapping, list or scalar taken from a configuration.

    Returns:
        The same structure with secret values replaced by ``**********``.
    """
    if isinstance(value, Mapping):
        return {
            k: redact_mapping(v, _secret=_secret or bool(_SECRET_KEY.search(str(k))))
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [redact_mapping(v, _secret=_secret) for v in value]
    if isinstance(value, SecretStr) or (
        _secret and value is not None and not isinstance(value, bool)
    ):
        return _REDACTED
    return value


class TransportConfig(BaseModel):
    """Base of every transport's typed configuration.

    ``type`` names the transport kind (``http``, ``kafka``, ``file``...) exactly
    as in ``openlineage.yml``. Third-party transports subclass this model.
    """

    # hide_input_in_errors: a configuration error's text never quotes a value (an API key, a
    # password in a URL), whoever catches it and wherever it is chained.
    model_config = ConfigDict(
        extra="forbid", populate_by_name=True, frozen=True, hide_input_in_errors=True
    )

    type: str


def _field(obj: object, *names: str) -> Any:
    """The first of ``names`` that ``obj`` (an object, or a mapping read from JSON) has."""
    for name in names:
        value = obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)
        if value is not None:
            return value
    return None


def event_key(event: object) -> str:
    """The ordering key of an event: events with the same key are delivered in order.

    It is the run id for a run event, else ``namespace/name`` of the job, else of
    the dataset. The queued transports order events by it, except those whose
    destination has keys of its own (Kafka's message key, Kinesis's partition key),
    which order events by those.

    Args:
        event: a ``RunEvent``, ``JobEvent`` or ``DatasetEvent``, an object shaped
            alike, or an event's JSON object as a mapping.

    Returns:
        The key, or an empty string when the event carries none of these.
    """
    run = _field(event, "run")
    if run is not None:
        run_id = _field(run, "run_id", "runId")
        if run_id is not None:
            return str(run_id)
    for holder in ("job", "dataset"):
        entity = _field(event, holder)
        if entity is not None:
            namespace = _field(entity, "namespace")
            name = _field(entity, "name")
            if namespace is not None or name is not None:
                return f"{namespace}/{name}"
    return ""


class Transport(ABC):
    """A destination for OpenLineage events.

    Subclasses set ``kind`` (the ``type`` used in configuration) and
    ``config_class``, implement :meth:`emit`, and override :meth:`flush` and
    :meth:`close` when they hold events. A transport is a context manager: leaving
    the ``with`` block closes it with its default timeout.

    ``emit`` must not raise for a delivery problem unless the transport was made
    with ``raise_on_error=True``: lineage must never fail the user's job.
    """

    kind: ClassVar[str] = ""
    config_class: ClassVar[type[TransportConfig]] = TransportConfig

    @classmethod
    def from_config(cls, config: TransportConfig) -> Self:
        """Build the transport from its typed configuration.

        Args:
            config: an instance of ``cls.config_class``.

        Returns:
            A ready transport.
        """
        raise NotImplementedError(f"{cls.__name__} cannot be built from configuration")

    @abstractmethod
    def emit(self, event: Emittable) -> None:
        """Send one event, or queue it for sending.

        Args:
            event: the event; its JSON is taken at once, so later changes to the
                object do not change what is sent.
        """

    def flush(self, timeout: float | None = None) -> FlushResult:
        """Wait up to ``timeout`` seconds for held events to be delivered.

        Args:
            timeout: seconds to wait; ``None`` uses the transport's default.

        Returns:
            What was delivered and what is still pending or spooled.
        """
        return FlushResult()

    def close(self, timeout: float | None = None) -> FlushResult:
        """Flush within ``timeout`` seconds, keep what is left safe, and release resources.

        Args:
            timeout: seconds to wait for delivery; ``None`` uses the default.

        Returns:
            The same summary as :meth:`flush`.
        """
        return self.flush(timeout)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
