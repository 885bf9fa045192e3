"""What the cloud transports share: their configuration's spellings, facts read from an event's
JSON, per-event delivery, and the clients of AWS and Google Cloud.

The cloud SDKs (``boto3``, ``google-auth``, ``httpx``) are imported when a transport is made,
never when this module is imported: each is an optional extra.
"""

from __future__ import annotations

import base64
import calendar
import hashlib
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

from pydantic import ConfigDict, Field, model_validator

from openlineage_sdk.transports._delivery.options import DeliveryOptions
from openlineage_sdk.transports._delivery.protocol import Outcome, Record, SendResult
from openlineage_sdk.transports._queued import DeliveryConfig
from openlineage_sdk.transports._registry import TransportConfigError
from openlineage_sdk.transports.base import TransportError

__all__ = [
    "CLOUD_PLATFORM_SCOPE",
    "AwsClient",
    "CloudConfig",
    "GoogleSession",
    "NotRunEvents",
    "ObjectNames",
    "aws_result",
    "endpoint_url",
    "event_millis",
    "excerpt",
    "first",
    "http_result",
    "is_run_event",
    "json_document",
    "md5_base64",
    "md5_hex",
    "object_name",
    "request_id",
    "send_each",
    "setting",
]

log = logging.getLogger("openlineage_sdk.transports")


def _normal(key: object) -> str:
    """A key as every spelling of it reads: ``bucketName``, ``bucket_name``, ``bucketname``."""
    return str(key).replace("_", "").replace("-", "").lower()


class CloudConfig(DeliveryConfig):
    """The base of the cloud transports' configurations.

    Every key is accepted in the official clients' spellings: camelCase (the Java client, the
    ``spark.openlineage.transport.*`` confs), snake_case (the Python client) and lower case
    (``OPENLINEAGE__TRANSPORT__BUCKETNAME``: the environment variables' keys are lower-cased).
    A number read from an environment variable is taken as text where text is expected (a
    project or an account number).
    """

    model_config = ConfigDict(coerce_numbers_to_str=True)

    max_server_error_attempts: int = Field(
        default=10,
        ge=1,
        description="Answers of the service's own failure (5xx) in a row after which an event "
        "is given up (kept in rejected.jsonl).",
    )

    def delivery_options(self, **extra: Any) -> DeliveryOptions:
        """The engine's options from these settings, ``max_server_error_attempts`` included.

        Args:
            **extra: options only one transport has.
        """
        extra.setdefault("max_server_error_attempts", self.max_server_error_attempts)
        return super().delivery_options(**extra)

    #: Keys of the official layouts that carry no setting of this transport (the composite
    #: transport's member ``name`` and ``priority``).
    _dropped_keys: ClassVar[tuple[str, ...]] = ("name", "priority")

    @model_validator(mode="before")
    @classmethod
    def _spellings(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        canonical: dict[str, str] = {}
        for name, info in cls.model_fields.items():
            wanted = info.alias or name
            canonical[_normal(name)] = wanted
            if info.alias:
                canonical[_normal(info.alias)] = wanted
        out: dict[str, Any] = {}
        given: dict[str, str] = {}
        for key, value in data.items():
            if _normal(key) in {_normal(k) for k in cls._dropped_keys}:
                continue
            name = canonical.get(_normal(key), str(key))
            if name in out:
                raise ValueError(f"{given[name]!r} and {key!r} are the same setting, given twice")
            given[name] = str(key)
            out[name] = value
        return out


def setting(data: object, key: str) -> Any:
    """The value a configuration mapping gives ``key`` in any of its spellings, else ``None``."""
    if not isinstance(data, Mapping):
        return None
    wanted = _normal(key)
    return next((v for k, v in data.items() if _normal(k) == wanted), None)


# ------------------------------------------------------------------------------- events


def is_run_event(event: object) -> bool:
    """Whether ``event`` is a run event (it has a ``run``), as an object or as a mapping."""
    if isinstance(event, Mapping):
        return event.get("run") is not None
    return getattr(event, "run", None) is not None


_TIME = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:([Zz])|([+-])(\d\d):?(\d\d))"
)


def event_millis(document: Mapping[str, Any]) -> int:
    """The event's ``eventTime`` in milliseconds since the epoch, as Java's ``toEpochMilli``.

    Digits below the millisecond are cut, not rounded (Java's ``Instant.toEpochMilli``).

    Args:
        document: the event's JSON object.

    Returns:
        Milliseconds since 1970-01-01T00:00:00Z.

    Raises:
        ValueError: the event has no ``eventTime``, or it is not an RFC 3339 date-time.
    """
    text = document.get("eventTime")
    match = _TIME.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise ValueError("the event has no eventTime in RFC 3339 form")
    year, month, day, hour, minute, second, fraction, _z, sign, off_h, off_m = match.groups()
    seconds = calendar.timegm(
        (int(year), int(month), int(day), int(hour), int(minute), int(second), 0, 0, 0)
    )
    if sign:
        offset = int(off_h) * 3600 + int(off_m) * 60
        seconds -= offset if sign == "+" else -offset
    millis = int((fraction or "0")[:3].ljust(3, "0"))
    return seconds * 1000 + millis


def object_name(prefix: str | None, millis: int, duplicate: int = 0) -> str:
    """The Java client's object name for an event: ``{prefix}{millis}.json``.

    A prefix that ends with ``/`` is a folder (``lineage/1700000000000.json``); any other is
    joined with ``_`` (``events_1700000000000.json``); none gives ``1700000000000.json``. The
    ``duplicate``-th other event of the same millisecond gets ``-{duplicate}`` before ``.json``
    (the Java client refuses it, and the event is lost).

    Args:
        prefix: ``fileNamePrefix``.
        millis: the event time in milliseconds since the epoch.
        duplicate: 0 for the first event of that millisecond, then 1, 2...

    Returns:
        The object's name (key).
    """
    stem = str(millis) if duplicate == 0 else f"{millis}-{duplicate}"
    if not prefix:
        return f"{stem}.json"
    if prefix.endswith("/"):
        return f"{prefix}{stem}.json"
    return f"{prefix}_{stem}.json"


class ObjectNames:
    """The names this process has written, so that a new event starts after them.

    An event tries the names of its millisecond in order (``{ms}.json``, ``{ms}-1.json``...)
    from the first this process has not written, and takes the first free one; a name another
    writer holds is checked for the event's own content first, so that a write retried after it
    arrived is found, not made twice.
    """

    _LIMIT = 4096

    def __init__(self, prefix: str | None) -> None:
        self._prefix = prefix
        self._written: dict[int, set[int]] = {}
        self._lock = threading.Lock()

    def first(self, millis: int) -> int:
        """The first duplicate number of ``millis`` this process has not written."""
        with self._lock:
            done = self._written.get(millis, set())
            duplicate = 0
            while duplicate in done:
                duplicate += 1
            return duplicate

    def name(self, millis: int, duplicate: int) -> str:
        """The object name of the ``duplicate``-th event of ``millis``."""
        return object_name(self._prefix, millis, duplicate)

    def written(self, millis: int, duplicate: int) -> None:
        """Note that this process wrote (or found its event under) that name."""
        with self._lock:
            if len(self._written) > self._LIMIT:
                # Old milliseconds are not written to again; the newest is kept.
                newest = max(self._written)
                self._written = {newest: self._written[newest]}
            self._written.setdefault(millis, set()).add(duplicate)


def md5_base64(data: bytes) -> str:
    """The MD5 of ``data`` in base64, as Cloud Storage's ``md5Hash`` reports it."""
    return base64.b64encode(hashlib.md5(data, usedforsecurity=False).digest()).decode("ascii")


def md5_hex(data: bytes) -> str:
    """The MD5 of ``data`` in hexadecimal, as S3's ETag of a single-part upload is."""
    return hashlib.md5(data, usedforsecurity=False).hexdigest()


def request_id(data: bytes) -> str:
    """An idempotency token for one event: the same event always gets the same one.

    A request retried after a timeout whose first attempt did arrive is then recognised by the
    service (Data Lineage's ``requestId``, DataZone's ``Client-Token``) instead of recorded
    twice. 36 characters, the UUID form both accept.
    """
    digest = hashlib.sha256(data).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


def send_each(batch: Sequence[Record], send_one: Callable[[bytes], SendResult]) -> SendResult:
    """Deliver a batch one event per request, in order, for a service that takes one at a time.

    An event refused for good is set aside and the next one sent; at the first that must wait
    (the service is unreachable, busy, or failing), it and those after it are kept for the
    next attempt, so that no event overtakes an older one of its run.

    Args:
        batch: the events.
        send_one: delivers one event's JSON; answers ``OK``, ``RETRY`` or ``REJECT``.

    Returns:
        ``OK``, ``RETRY`` (nothing was delivered), or ``PARTIAL``.
    """
    rejected: list[int] = []
    reasons: list[str] = []
    for index, (_key, data) in enumerate(batch):
        result = send_one(data)
        if result.outcome is Outcome.OK:
            continue
        if result.outcome is Outcome.REJECT:
            rejected.append(index)
            reasons.append(f"#{index}: {result.message}")
            continue
        if index == 0:
            return result
        return SendResult(
            Outcome.PARTIAL,
            "; ".join([*reasons[:4], result.message]),
            retry_after=result.retry_after,
            server_error=result.server_error,
            retry_indices=tuple(range(index, len(batch))),
            reject_indices=tuple(rejected),
        )
    if not rejected:
        return SendResult(Outcome.OK)
    if len(batch) == 1:
        return SendResult(Outcome.REJECT, reasons[0].partition(": ")[2])
    return SendResult(Outcome.PARTIAL, "; ".join(reasons[:5]), reject_indices=tuple(rejected))


def http_result(status: int, message: str, retry_after: float | None = None) -> SendResult:
    """What an HTTP answer of a cloud API means for delivery.

    2xx delivered; 408, 429 and 5xx tried again (a 5xx counts towards
    ``max_server_error_attempts``); any other answer refused for good.
    """
    if 200 <= status < 300:
        return SendResult(Outcome.OK)
    if status in (408, 429) or status >= 500:
        return SendResult(
            Outcome.RETRY, message, retry_after=retry_after, server_error=status >= 500
        )
    return SendResult(Outcome.REJECT, message)


def excerpt(text: str, limit: int = 300) -> str:
    """A service's answer on one line, cut to ``limit`` characters, for a log message."""
    text = " ".join(text.split())
    return text[:limit] + ("..." if len(text) > limit else "")


# ------------------------------------------------------------------------------- AWS

#: Error codes of AWS services that a later attempt may get past (throttling, expired
#: temporary credentials, a service's own trouble), whatever their HTTP status.
_AWS_TRANSIENT = frozenset(
    {
        "BandwidthLimitExceeded",
        "ConditionalRequestConflict",
        "ExpiredToken",
        "ExpiredTokenException",
        "IDPCommunicationError",
        "InternalError",
        "InternalFailure",
        "InternalServerException",
        "LimitExceededException",
        "PriorRequestNotComplete",
        "ProvisionedThroughputExceededException",
        "RequestExpired",
        "RequestLimitExceeded",
        "RequestThrottled",
        "RequestThrottledException",
        "RequestTimeout",
        "RequestTimeoutException",
        "ServiceUnavailable",
        "SlowDown",
        "Throttling",
        "ThrottlingException",
        "TooManyRequestsException",
    }
)


def aws_result(exc: Exception) -> SendResult:
    """What a failed call of an AWS client means for delivery, without any credential in it.

    Throttling, expired temporary credentials, 408, 429 and 5xx answers, unreachable endpoints
    and missing credentials are tried again (the events wait in the spool meanwhile); other
    answers (a missing stream or bucket, access denied, an invalid request) are refused for good.

    Args:
        exc: what the client raised.

    Returns:
        ``RETRY`` or ``REJECT`` with a message naming the service's error code.
    """
    response = getattr(exc, "response", None)
    if isinstance(response, Mapping) and isinstance(response.get("Error"), Mapping):
        error = response["Error"]
        status = int(response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0)
        code = str(error.get("Code") or "")
        message = f"{code or 'error'} (HTTP {status})"
        if error.get("Message"):
            message += f": {excerpt(str(error['Message']))}"
        if code in _AWS_TRANSIENT or status in (408, 429) or status >= 500:
            return SendResult(Outcome.RETRY, message, server_error=status >= 500)
        return SendResult(Outcome.REJECT, message)
    name = type(exc).__name__
    if name == "ParamValidationError":
        return SendResult(Outcome.REJECT, f"{name}: {excerpt(str(exc))}")
    # Connection errors, timeouts, no credentials: botocore's messages name the endpoint or
    # what is missing, never a secret.
    return SendResult(Outcome.RETRY, f"{name}: {excerpt(str(exc))}")


class AwsClient:
    """A thread-safe ``boto3`` client of one service, under an assumed role when one is named.

    Credentials come from the default chain (environment, profile, instance or container
    role); with ``role_arn`` the role is assumed with STS (session name ``OLProducer``, as the
    Java client names it) and assumed again five minutes before its credentials expire. Retries
    are left to the delivery engine: the client makes one attempt per call.

    Args:
        service: the service's name for boto3 (``s3``, ``kinesis``, ``datazone``).
        region: the region, or ``None`` for the default chain's.
        endpoint_url: a URL replacing the service's endpoint.
        verify: check TLS certificates.
        timeout: seconds to connect, and to read each answer.
        connections: the most connections kept open.
        role_arn: a role to assume.
        sts_endpoint_url: a URL replacing the STS endpoint.
        path_style: address S3 buckets in the path, not the host name.
        profile: a named profile of the AWS configuration files.
    """

    _REFRESH_MARGIN = 300.0

    def __init__(
        self,
        service: str,
        *,
        region: str | None = None,
        endpoint_url: str | None = None,
        verify: bool = True,
        timeout: float = 10.0,
        connections: int = 10,
        role_arn: str | None = None,
        sts_endpoint_url: str | None = None,
        path_style: bool = False,
        profile: str | None = None,
    ) -> None:
        try:
            import boto3
            from botocore.config import Config
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise TransportError(
                f"the {service} transport needs boto3: pip install 'openlineage-sdk[{service}]'"
            ) from exc
        self._boto3 = boto3
        self._service = service
        self._session = boto3.session.Session(profile_name=profile, region_name=region)
        options: dict[str, Any] = {
            "connect_timeout": timeout,
            "read_timeout": timeout,
            "max_pool_connections": connections,
            "retries": {"total_max_attempts": 1},
            "user_agent_extra": "openlineage-sdk",
        }
        if path_style:
            options["s3"] = {"addressing_style": "path"}
        self._config = Config(**options)
        self._kwargs: dict[str, Any] = {"verify": verify, "config": self._config}
        if endpoint_url:
            self._kwargs["endpoint_url"] = endpoint_url
        self._role_arn = role_arn
        self._sts_endpoint_url = sts_endpoint_url
        self._lock = threading.Lock()
        self._expires: float | None = None
        self._client: Any = None
        if role_arn is None:
            self._client = self._make_client()
        elif not self.region and service != "s3":
            self._make_client()  # says that no region is known, now rather than at the first send

    def _make_client(self, **credentials: Any) -> Any:
        from botocore.exceptions import NoRegionError

        try:
            return self._session.client(self._service, **credentials, **self._kwargs)
        except NoRegionError:
            raise TransportConfigError(
                f"invalid {self._service!r} transport configuration: region: not set, and "
                "neither AWS_REGION, AWS_DEFAULT_REGION nor the AWS configuration names one"
            ) from None

    @property
    def region(self) -> str | None:
        """The region requests are signed for."""
        region: str | None = self._session.region_name
        return region

    def get(self) -> Any:
        """The client, with the assumed role's credentials renewed when they are about to end.

        Raises:
            Exception: assuming the role failed (what ``boto3`` raised; see :func:`aws_result`).
        """
        if self._role_arn is None:
            return self._client
        with self._lock:
            if (
                self._client is None
                or self._expires is None
                or time.time() >= self._expires - self._REFRESH_MARGIN
            ):
                self._assume()
            return self._client

    def _assume(self) -> None:
        sts_kwargs: dict[str, Any] = {"verify": self._kwargs["verify"], "config": self._config}
        if self._sts_endpoint_url:
            sts_kwargs["endpoint_url"] = self._sts_endpoint_url
        sts = self._session.client("sts", **sts_kwargs)
        answer = sts.assume_role(RoleArn=self._role_arn, RoleSessionName="OLProducer")
        credentials = answer["Credentials"]
        expiration = credentials.get("Expiration")
        self._expires = expiration.timestamp() if hasattr(expiration, "timestamp") else None
        self._client = self._make_client(
            aws_access_key_id=credentials["AccessKeyId"],
            aws_secret_access_key=credentials["SecretAccessKey"],
            aws_session_token=credentials["SessionToken"],
        )


# ------------------------------------------------------------------------------- Google Cloud

#: The OAuth scope Google Cloud's APIs are called with.
CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"


class GoogleSession:
    """Google Cloud credentials, and an ``httpx`` client that sends requests with them.

    The credentials are those of ``credentials_file`` (a service account key, an authorized
    user, or a workload identity federation configuration), else Application Default
    Credentials (``GOOGLE_APPLICATION_CREDENTIALS``, the gcloud login, the metadata server).
    Their access token is refreshed through the same ``httpx`` client, before it expires.

    Args:
        credentials_file: the credentials file, or ``None`` for the default credentials.
        timeout: seconds to connect, and for each read and write.
        anonymous: send no credentials (an emulator).
        what: the transport's name, for errors.
    """

    def __init__(
        self,
        credentials_file: str | None,
        *,
        timeout: float,
        anonymous: bool = False,
        what: str,
    ) -> None:
        try:
            import httpx
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise TransportError(
                f"the {what} transport needs httpx and google-auth: "
                f"pip install 'openlineage-sdk[{what}]'"
            ) from exc
        self._httpx = httpx
        self.client = httpx.Client(timeout=timeout, follow_redirects=False)
        self.project: str | None = None
        self._credentials: Any = None
        self._lock = threading.Lock()
        if anonymous:
            return
        try:
            import google.auth
            import google.auth.exceptions
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise TransportError(
                f"the {what} transport needs google-auth: pip install 'openlineage-sdk[{what}]'"
            ) from exc
        try:
            if credentials_file:
                credentials, project = _credentials_from_file(credentials_file)
            else:
                credentials, project = google.auth.default(scopes=[CLOUD_PLATFORM_SCOPE])
        except (OSError, ValueError, google.auth.exceptions.GoogleAuthError) as exc:
            # The message names the file or what was looked for, never a key.
            raise TransportError(
                f"{what}: no usable Google Cloud credentials "
                f"({type(exc).__name__}: {excerpt(str(exc), 200)})"
            ) from None
        self._credentials = credentials
        self.project = project or getattr(credentials, "project_id", None)
        self._auth_request = _auth_request(self.client)

    def authorize(self, method: str, url: str, headers: dict[str, str]) -> SendResult | None:
        """Add the ``Authorization`` header to ``headers``, getting a new token if needed.

        Returns:
            ``None`` when the headers are ready; a ``RETRY`` result when no token could be got.
        """
        if self._credentials is None:
            return None
        import google.auth.exceptions

        try:
            with self._lock:
                self._credentials.before_request(self._auth_request, method, url, headers)
        except google.auth.exceptions.GoogleAuthError as exc:
            return SendResult(
                Outcome.RETRY,
                f"credentials could not be refreshed ({type(exc).__name__}: "
                f"{excerpt(str(exc), 200)})",
            )
        return None

    def close(self) -> None:
        """Close the connections."""
        self.client.close()


def _credentials_from_file(path: str) -> tuple[Any, str | None]:
    """The credentials a file describes, loaded by the loader of its ``type``.

    Service account keys, authorized users (``gcloud auth application-default login``) and
    workload identity federation configurations (``external_account``: identity pools, AWS,
    executables), as Java's ``GoogleCredentials.fromStream`` reads them.

    Raises:
        ValueError: the file is not JSON, or holds another type of credentials.
    """
    with open(path, encoding="utf-8") as handle:
        info = json.load(handle)
    if not isinstance(info, dict):
        raise ValueError(f"{path} is not a JSON object")
    kind = info.get("type")
    scopes = [CLOUD_PLATFORM_SCOPE]
    if kind == "service_account":
        from google.oauth2 import service_account

        account = service_account.Credentials.from_service_account_info(info, scopes=scopes)
        return account, info.get("project_id")
    if kind == "authorized_user":
        from google.oauth2 import credentials as user_credentials

        user = user_credentials.Credentials.from_authorized_user_info(info, scopes=scopes)
        return user, info.get("quota_project_id")
    if kind == "external_account":
        source = info.get("credential_source") or {}
        if str(source.get("environment_id", "")).startswith("aws"):
            from google.auth import aws as module
        elif "executable" in source:
            from google.auth import pluggable as module
        else:
            from google.auth import identity_pool as module
        external = module.Credentials.from_info(info, scopes=scopes)
        return external, info.get("quota_project_id")
    raise ValueError(
        f"{path} holds credentials of type {kind!r}; a service_account, authorized_user or "
        "external_account file is needed (other types: GOOGLE_APPLICATION_CREDENTIALS)"
    )


def _auth_request(client: Any) -> Any:
    """google-auth's request callable, speaking through ``client`` (no ``requests`` needed)."""
    import google.auth.exceptions
    import google.auth.transport

    httpx = __import__("httpx")

    class _Response(google.auth.transport.Response):  # type: ignore[misc]
        def __init__(self, status: int, headers: Mapping[str, str], data: bytes) -> None:
            self._status = status
            self._headers = dict(headers)
            self._data = data

        @property
        def status(self) -> int:
            return self._status

        @property
        def headers(self) -> Mapping[str, str]:
            return self._headers

        @property
        def data(self) -> bytes:
            return self._data

    class _Request(google.auth.transport.Request):  # type: ignore[misc]
        def __call__(
            self,
            url: str,
            method: str = "GET",
            body: bytes | None = None,
            headers: Mapping[str, str] | None = None,
            timeout: float | None = None,
            **_kwargs: Any,
        ) -> _Response:
            try:
                answer = client.request(
                    method,
                    url,
                    content=body,
                    headers=headers,
                    timeout=timeout if timeout is not None else client.timeout,
                )
            except httpx.HTTPError as exc:
                raise google.auth.exceptions.TransportError(
                    f"{type(exc).__name__}: {exc}"
                ) from None
            return _Response(answer.status_code, answer.headers, answer.content)

    return _Request()


def endpoint_url(value: str, *, default_scheme: str = "https") -> str:
    """A URL from a host (``datalineage.googleapis.com:443``) or a URL, without trailing ``/``."""
    value = value.strip().rstrip("/")
    if "://" in value:
        return value
    host, _, port = value.partition(":")
    if port in ("", "443") and default_scheme == "https":
        return f"https://{host}"
    return f"{default_scheme}://{value}"


def json_document(data: bytes) -> dict[str, Any]:
    """An event's JSON object, for the facts a cloud transport needs from it.

    Raises:
        ValueError: ``data`` is not a JSON object.
    """
    document = json.loads(data)
    if not isinstance(document, dict):
        raise ValueError("the event is not a JSON object")
    return document


def first(values: Iterable[str | None]) -> str | None:
    """The first value that is set and not blank."""
    return next((v for v in values if v is not None and v.strip()), None)


class NotRunEvents:
    """Counts the events a run-events-only service cannot take, and says so without flooding.

    The first is named in a warning; later ones are counted (see :attr:`count`) and logged at
    debug level, as the official client logs each one.

    Args:
        service: the service's name, for the log.
    """

    def __init__(self, service: str) -> None:
        self._service = service
        self._lock = threading.Lock()
        self.count = 0

    def skipped(self, event: object) -> None:
        """Note one event that is not sent."""
        with self._lock:
            self.count += 1
            first_one = self.count == 1
        kind = type(event).__name__
        if first_one:
            log.warning(
                "OpenLineage: %s takes run events only; a %s was not sent (later ones are "
                "logged at debug level)",
                self._service,
                kind,
            )
        else:
            log.debug(
                "OpenLineage: %s takes run events only; a %s was not sent", self._service, kind
            )
