"""The OpenLineage HTTP API: ``POST {url}/api/v1/lineage``, as Marquez and other backends accept it.

Delivery is asynchronous: :meth:`HttpTransport.emit` queues the event and
returns at once, sender threads deliver it (see
:mod:`openlineage_sdk.transports._delivery` for ordering, retries and the spool).
``httpx`` is imported when the first transport is made, never at package import;
install it with ``pip install 'openlineage-sdk[http]'``.

Batching adapts to the load: a sender that finds a single event waiting posts
it to ``{url}/{endpoint}``; when several are waiting (a burst, a backlog, a
spool being replayed) it posts up to ``batch_size`` of them in one request to
``{url}/{endpoint}/batch``, the batch endpoint of the OpenLineage API (2-0-2).
Until that endpoint has accepted a batch once, any 4xx answer from it (a backend
that does not have it answers 404, 405 or 400) makes the transport fall back
to one event per request, and the same events are sent again that way; so a
backend without the batch endpoint loses nothing. ``batch_size: 1`` turns
batching off.
"""

from __future__ import annotations

import base64
import dataclasses
import email.utils
import gzip
import importlib
import json
import logging
import os
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal
from urllib.parse import quote_plus, unquote, urljoin, urlsplit, urlunsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    SecretStr,
    Tag,
    field_serializer,
    field_validator,
    model_validator,
)
from typing_extensions import Self

from openlineage_sdk.transports._delivery.options import DeliveryOptions
from openlineage_sdk.transports._delivery.protocol import Outcome, Record, SendResult
from openlineage_sdk.transports._delivery.spool import default_spool_dir
from openlineage_sdk.transports._queued import DeliveryConfig, QueuedTransport
from openlineage_sdk.transports.base import (
    REDACTED,
    Emittable,
    TransportConfig,
    TransportError,
    masked_url,
    spool_name,
)

if TYPE_CHECKING:
    import ssl

    import httpx

__all__ = [
    "ApiKeyAuth",
    "CustomAuth",
    "HttpAuth",
    "HttpConfig",
    "HttpRetry",
    "HttpSslContext",
    "HttpTransport",
    "JwtAuth",
    "OAuth2Auth",
    "default_spool_dir",
]

log = logging.getLogger(__name__)

_BODY_EXCERPT = 500
_USER_AGENT = "openlineage-sdk"


class ApiKeyAuth(TransportConfig):
    """API-key authentication: the key is sent as ``Authorization: Bearer <key>``.

    In ``openlineage.yml``: ``auth: {type: api_key, apiKey: ...}`` (``api_key`` works too).
    The key is a :class:`~pydantic.SecretStr`: it shows as ``**********`` in
    reprs, logs and errors.

    Attributes:
        api_key: the key (``apiKey``).
    """

    type: Literal["api_key"] = "api_key"
    api_key: SecretStr = Field(alias="apiKey")

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            data = dict(data)
            for alias in ("apikey", "api_key"):
                if alias in data and "apiKey" not in data:
                    data["apiKey"] = data.pop(alias)
            # An all-digit key read from an environment variable arrives as a number.
            if isinstance(data.get("apiKey"), (int, float)) and not isinstance(
                data["apiKey"], bool
            ):
                data["apiKey"] = str(data["apiKey"])
        return data


def _auth_keys(data: Any, fields: Mapping[str, str]) -> Any:
    """Accept camelCase, snake_case and lower-cased (``OPENLINEAGE__`` variables) spellings."""
    if not isinstance(data, Mapping):
        return data
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = fields.get(str(key).replace("_", "").lower(), key)
        if (
            isinstance(value, (int, float))
            and not isinstance(value, bool)
            and name
            in (
                "apiKey",
                "clientId",
                "clientSecret",
            )
        ):
            value = str(value)  # an all-digit secret read from an environment variable
        out[name] = value
    return out


class _TokenEndpointAuth(TransportConfig):
    """Settings shared by the providers that get a short-lived token from a token endpoint.

    The token is cached and fetched again ``tokenRefreshBuffer`` seconds before it expires,
    the expiry being ``expires_in`` of the answer (``expiresInField``), else the ``exp`` claim
    when the token is a JWT; an answer with neither is not cached.

    Attributes:
        token_endpoint: the token endpoint's URL, ``http://`` or ``https://`` (``tokenEndpoint``).
        token_fields: the fields of the endpoint's answer the token is looked for in, in
            order (``tokenFields``; one name or a list).
        expires_in_field: the answer's field that gives the token's lifetime in seconds
            (``expiresInField``).
        token_refresh_buffer: seconds before the token expires at which a new one is
            fetched (``tokenRefreshBuffer``).
    """

    token_endpoint: str = Field(alias="tokenEndpoint")
    token_fields: list[str] = Field(default_factory=list, alias="tokenFields")
    expires_in_field: str = Field(default="expires_in", alias="expiresInField")
    token_refresh_buffer: float = Field(default=120.0, ge=0, alias="tokenRefreshBuffer")

    @field_validator("token_endpoint")
    @classmethod
    def _check_endpoint(cls, value: str) -> str:
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("must be an http:// or https:// URL with a host")
        return value.strip()

    @field_validator("token_fields", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    def token_request(self) -> tuple[dict[str, str], str | None]:
        """The form sent to the token endpoint and its ``Authorization`` header, if any."""
        raise NotImplementedError

    def default_token_fields(self) -> tuple[str, ...]:
        """The answer's fields the token is looked for in, when ``tokenFields`` is not set."""
        return ("access_token",)


_TOKEN_KEYS = {
    "tokenendpoint": "tokenEndpoint",
    "tokenfields": "tokenFields",
    "expiresinfield": "expiresInField",
    "tokenrefreshbuffer": "tokenRefreshBuffer",
}


class JwtAuth(_TokenEndpointAuth):
    """An API key exchanged at a token endpoint for a JWT, sent as ``Bearer <token>``.

    In ``openlineage.yml``: ``auth: {type: jwt, apiKey: ..., tokenEndpoint: https://...}``,
    with the optional ``grantType`` (``urn:ietf:params:oauth:grant-type:jwt-bearer``),
    ``responseType`` (``token``), ``tokenFields`` (``[token, access_token]``),
    ``expiresInField`` and ``tokenRefreshBuffer`` (120 seconds) of the official client. The
    form posted holds ``grant_type``, ``response_type`` and ``apikey`` (IBM Cloud IAM's
    layout).

    Attributes:
        api_key: the API key exchanged for the token (``apiKey``).
        grant_type: the form's ``grant_type`` (``grantType``).
        response_type: the form's ``response_type`` (``responseType``).
        token_fields: without it, the token is looked for in ``token``, then
            ``access_token`` (``tokenFields``).
    """

    type: Literal["jwt"] = "jwt"
    api_key: SecretStr = Field(alias="apiKey")
    grant_type: str = Field(
        default="urn:ietf:params:oauth:grant-type:jwt-bearer", alias="grantType"
    )
    response_type: str = Field(default="token", alias="responseType")

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        return _auth_keys(
            data,
            {
                **_TOKEN_KEYS,
                "apikey": "apiKey",
                "granttype": "grantType",
                "responsetype": "responseType",
            },
        )

    def token_request(self) -> tuple[dict[str, str], str | None]:
        """The form sent to the token endpoint and its ``Authorization`` header, if any."""
        form = {
            "grant_type": self.grant_type,
            "response_type": self.response_type,
            "apikey": self.api_key.get_secret_value(),
        }
        return form, None

    def default_token_fields(self) -> tuple[str, ...]:
        """``token``, then ``access_token``."""
        return ("token", "access_token")


class OAuth2Auth(_TokenEndpointAuth):
    """OAuth 2.0 client credentials (RFC 6749, 4.4): the access token is sent as ``Bearer``.

    In ``openlineage.yml``: ``auth: {type: oauth2, clientId: ..., clientSecret: ...,
    tokenEndpoint: https://...}``, with the optional ``scope``, ``clientAuthMethod``
    (``client_secret_basic``, the default: the credentials go in the token request's Basic
    header; or ``client_secret_post``: in its form), ``tokenFields``, ``expiresInField`` and
    ``tokenRefreshBuffer``.

    Attributes:
        client_id: the client's id (``clientId``).
        client_secret: the client's secret (``clientSecret``).
        scope: the scope asked for, if any.
        client_auth_method: ``client_secret_basic``: the credentials go in the token
            request's Basic header; ``client_secret_post``: in its form
            (``clientAuthMethod``).
        token_fields: without it, the token is looked for in ``access_token``
            (``tokenFields``).
    """

    type: Literal["oauth2"] = "oauth2"
    client_id: str = Field(alias="clientId")
    client_secret: SecretStr = Field(alias="clientSecret")
    scope: str | None = None
    client_auth_method: Literal["client_secret_basic", "client_secret_post"] = Field(
        default="client_secret_basic", alias="clientAuthMethod"
    )

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        return _auth_keys(
            data,
            {
                **_TOKEN_KEYS,
                "clientid": "clientId",
                "clientsecret": "clientSecret",
                "clientauthmethod": "clientAuthMethod",
            },
        )

    def token_request(self) -> tuple[dict[str, str], str | None]:
        """The form sent to the token endpoint and its ``Authorization`` header, if any."""
        form = {"grant_type": "client_credentials"}
        if self.scope:
            form["scope"] = self.scope
        secret = self.client_secret.get_secret_value()
        if self.client_auth_method == "client_secret_post":
            form["client_id"] = self.client_id
            form["client_secret"] = secret
            return form, None
        # RFC 6749, 2.3.1: each part form-encoded before the Basic encoding.
        pair = f"{quote_plus(self.client_id)}:{quote_plus(secret)}"
        return form, "Basic " + base64.b64encode(pair.encode()).decode("ascii")


class _TokenSource:
    """Gets, caches and refreshes the bearer token of a :class:`JwtAuth` or :class:`OAuth2Auth`.

    Thread-safe: the sender threads share one token and one request for a new one. Errors say
    what failed without the answer's body or any credential.
    """

    def __init__(self, auth: _TokenEndpointAuth, timeout: float) -> None:
        import httpx

        self._httpx = httpx
        self._auth = auth
        self._timeout = max(timeout, 10.0)
        self._fields = tuple(auth.token_fields) or auth.default_token_fields()
        self._token: str | None = None
        self._expires: float | None = None
        self._lock = threading.Lock()

    def bearer(self) -> str:
        with self._lock:
            now = time.time()
            if (
                self._token is None
                or self._expires is None
                or now >= self._expires - self._auth.token_refresh_buffer
            ):
                self._fetch(now)
            assert self._token is not None
            return f"Bearer {self._token}"

    def _fetch(self, now: float) -> None:
        httpx = self._httpx
        endpoint = _public_url(self._auth.token_endpoint)
        form, authorization = self._auth.token_request()
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if authorization:
            headers["Authorization"] = authorization
        try:
            response = httpx.post(
                self._auth.token_endpoint, data=form, headers=headers, timeout=self._timeout
            )
        except httpx.HTTPError as exc:
            raise TransportError(f"token endpoint {endpoint}: {type(exc).__name__}") from None
        if not 200 <= response.status_code < 300:
            raise TransportError(f"token endpoint {endpoint}: HTTP {response.status_code}")
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise TransportError(f"token endpoint {endpoint}: the answer is not a JSON object")
        lowered = {str(k).lower(): v for k, v in answer.items()}
        token = next(
            (lowered[f.lower()] for f in self._fields if lowered.get(f.lower()) is not None), None
        )
        if token is None:
            raise TransportError(
                f"token endpoint {endpoint}: no token in the answer (looked for "
                f"{', '.join(self._fields)})"
            )
        self._token = str(token)
        wanted = self._auth.expires_in_field.replace("_", "").lower()
        expires_in = next(
            (v for k, v in answer.items() if str(k).replace("_", "").lower() == wanted), None
        )
        try:
            self._expires = now + float(expires_in) if expires_in is not None else None
        except (TypeError, ValueError):
            self._expires = None
        if self._expires is None:
            self._expires = _jwt_expiry(self._token)
        if self._expires is None:
            log.warning(
                "OpenLineage: %s gave no expiry for its token; a new token is requested for "
                "every request (set expiresInField if the answer names it differently)",
                endpoint,
            )


def _jwt_expiry(token: str) -> float | None:
    """The ``exp`` claim of a JWT, without checking its signature (only to know when to refresh)."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
        return float(claims["exp"])
    except (ValueError, KeyError, TypeError):
        return None


def _basic_from_url(url: str) -> str | None:
    """``Basic ...`` from the user name and password of ``http://user:pass@host``, if any."""
    parts = urlsplit(url)
    if parts.username is None:
        return None
    pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
    return "Basic " + base64.b64encode(pair.encode()).decode("ascii")


class CustomAuth(TransportConfig):
    """A token provider class of the user's, named by its dotted path as in the official client.

    ``auth: {type: my_package.auth.VaultTokenProvider, role: lineage}``: the class is made with
    the whole ``auth`` mapping (``type`` included), as the official client makes its
    ``TokenProvider`` subclasses, and its ``get_bearer()`` gives the ``Authorization`` value
    (``None`` for none) for every request. Official ``TokenProvider`` subclasses work as they
    are. The settings are treated as secrets: they never appear in a repr, a log or an error.

    Attributes:
        type: the dotted path of the token provider class; the ``auth`` mapping's other keys
            are the provider's own settings.
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    type: str

    @field_validator("type")
    @classmethod
    def _dotted(cls, value: str) -> str:
        if "." not in value:
            raise ValueError(
                "must be api_key, jwt, oauth2 or the dotted path of a token provider class"
            )
        return value

    def settings(self) -> dict[str, Any]:
        """The ``auth`` mapping the provider class is made with."""
        return {"type": self.type, **(self.__pydantic_extra__ or {})}

    def __repr_args__(self) -> Any:
        yield "type", self.type


def _auth_kind(value: Any) -> str | None:
    kind = value.get("type") if isinstance(value, Mapping) else getattr(value, "type", None)
    if kind in ("api_key", "jwt", "oauth2"):
        return str(kind)
    return "custom" if kind is not None else None


HttpAuth = Annotated[
    Annotated[ApiKeyAuth, Tag("api_key")]
    | Annotated[JwtAuth, Tag("jwt")]
    | Annotated[OAuth2Auth, Tag("oauth2")]
    | Annotated[CustomAuth, Tag("custom")],
    Discriminator(_auth_kind),
]
"""Every ``auth`` type of the official client: ``api_key``, ``jwt``, ``oauth2`` and a class."""


class _CustomTokenSource:
    """Calls the user's provider for each request; its errors are reported without its settings."""

    def __init__(self, auth: CustomAuth) -> None:
        module, _, name = auth.type.rpartition(".")
        try:
            provider_class = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as exc:
            raise TransportError(f"auth type {auth.type!r} cannot be imported: {exc}") from None
        if not isinstance(provider_class, type):
            raise TransportError(f"auth type {auth.type!r} is not a class")
        try:
            self._provider = provider_class(auth.settings())
        except Exception as exc:
            raise TransportError(
                f"auth type {auth.type!r} cannot be made ({type(exc).__name__})"
            ) from None
        if not callable(getattr(self._provider, "get_bearer", None)):
            raise TransportError(f"auth type {auth.type!r} has no get_bearer() method")
        self._name = auth.type

    def bearer(self) -> str | None:
        try:
            value = self._provider.get_bearer()
        except Exception as exc:
            raise TransportError(
                f"{self._name}.get_bearer() failed ({type(exc).__name__})"
            ) from None
        return None if value is None else str(value)


_STRICT = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)


class HttpRetry(BaseModel):
    """The official client's ``retry`` block (``urllib3.util.Retry``'s settings), mapped onto
    this transport's retries.

    As in the official client, the keys given are laid over its defaults (``total: 5``,
    ``connect: 5``, ``read: 5``, ``backoff_factor: 0.3``, ``status_forcelist: [500, 502,
    503, 504]``, ``allowed_methods: [HEAD, POST]``). What they mean here:

    * **Statuses**: an answer whose status is in ``status_forcelist`` is retried (when
      ``allowed_methods`` lists ``POST``), and so is a 413, 429 or 503 that carries
      ``Retry-After`` while ``total`` is not 0 and ``respect_retry_after_header`` is on, as
      urllib3 decides. Any other answer that is not a success is refused (kept in the spool's
      ``rejected.jsonl``), where without a ``retry`` block 408, 429 and every 5xx are retried.
    * **How often**: a batch answered with a retried status ``min(total, status) + 1`` times in
      a row is refused (``max_server_error_attempts``), where the official client gives up and
      loses the event.
    * **How long between**: the delays grow as urllib3's, ``backoff_factor * 2**n`` seconds
      (``backoff_initial`` is ``2 * backoff_factor``), up to ``backoff_max``, with jitter.
    * **No equivalent**: connection errors, timeouts and read errors are retried here until the
      event is delivered (it waits in the spool meanwhile), whatever ``total``, ``connect``,
      ``read`` and ``other`` say: the official client gives up after them and loses the event.
      Delays always have jitter (half of each delay is random) whatever ``backoff_jitter``
      says. A warning says so once, when the configuration is read.
    * **No effect in either client**: ``redirect``, ``raise_on_redirect``,
      ``remove_headers_on_redirect`` (redirects are never followed here; ``requests`` follows
      them itself) and ``raise_on_status`` (a status that is not retried fails the event
      either way).

    The settings this transport has of its own (``backoff_initial``, ``backoff_max``,
    ``retry_after_max``, ``max_server_error_attempts``), when given too, win.
    """

    model_config = _STRICT

    total: int | None = Field(
        default=5,
        ge=0,
        description=(
            "Retries of a retried status before the batch is refused (with ``status``, the "
            "smaller); ``false`` is 0. 0 also turns off retrying a 413, 429 or 503 that "
            "carries ``Retry-After``. Connection errors are retried until delivered."
        ),
    )
    connect: int | None = Field(
        default=5,
        ge=0,
        description="No equivalent: connection errors are retried until delivered.",
    )
    read: int | None = Field(
        default=5,
        ge=0,
        description="No equivalent: read errors and timeouts are retried until delivered.",
    )
    other: int | None = Field(
        default=None, ge=0, description="No equivalent: other errors are retried until delivered."
    )
    status: int | None = Field(
        default=None,
        ge=0,
        description="Retries of a retried status before the batch is refused (with ``total``).",
    )
    redirect: int | bool | None = Field(
        default=None, description="No effect: redirects are never followed."
    )
    backoff_factor: float = Field(
        default=0.3,
        ge=0,
        description=(
            "Delays between retries of a batch grow as ``backoff_factor * 2**n`` seconds "
            "(``backoff_initial = 2 * backoff_factor``), with jitter."
        ),
    )
    backoff_max: float | None = Field(
        default=None,
        ge=0,
        description="The longest delay between retries, seconds (``backoff_max``).",
    )
    backoff_jitter: float = Field(
        default=0.0,
        ge=0,
        description="No equivalent: half of every delay is random here.",
    )
    status_forcelist: list[int] | None = Field(
        default_factory=lambda: [500, 502, 503, 504],
        description=(
            "The statuses that are retried; any other answer that is not a success is refused "
            "(kept in ``rejected.jsonl``)."
        ),
    )
    allowed_methods: list[str] | None = Field(
        default_factory=lambda: ["HEAD", "POST"],
        description=(
            "Statuses are retried only when this lists ``POST`` (compared as written, as "
            "urllib3 does) or is empty or null."
        ),
    )
    respect_retry_after_header: bool = Field(
        default=True,
        description=(
            "``false``: ``Retry-After`` is not honoured (``retry_after_max: 0``), and a 413, "
            "429 or 503 is retried only when listed."
        ),
    )
    retry_after_max: float | None = Field(
        default=None, ge=0, description="The longest ``Retry-After`` honoured, seconds."
    )
    raise_on_status: bool = Field(
        default=True, description="No effect: a status that is not retried fails the event."
    )
    raise_on_redirect: bool = Field(
        default=True, description="No effect: redirects are never followed."
    )
    remove_headers_on_redirect: list[str] | None = Field(
        default=None, description="No effect: redirects are never followed."
    )

    @field_validator("total", mode="before")
    @classmethod
    def _false_is_zero(cls, value: Any) -> Any:
        return 0 if value is False else value

    @field_validator("status_forcelist")
    @classmethod
    def _statuses(cls, value: list[int] | None) -> list[int] | None:
        for status in value or ():
            if not 100 <= status <= 599:
                raise ValueError(f"{status} is not an HTTP status (100 to 599)")
        return value

    @model_validator(mode="after")
    def _say_what_differs(self) -> Self:
        notes = [
            "connection errors, timeouts and read errors are retried until the event is "
            "delivered (it waits in the spool meanwhile), whatever total, connect, read and "
            "other say; the official client gives up after them and loses the event"
        ]
        if self.backoff_jitter:
            notes.append("backoff_jitter is not used: half of every delay is random here")
        if self.total is None and self.status is None:
            notes.append(
                "with neither total nor status, a batch answered with a retried status is "
                "refused after max_server_error_attempts (10) answers in a row"
            )
        log.warning(
            "OpenLineage: the HTTP transport's retry block is mapped onto this transport's "
            "retries; what has no equivalent: %s",
            "; ".join(notes),
        )
        return self

    def retried_statuses(self) -> frozenset[int]:
        """The statuses retried whatever the headers say."""
        if not self._post_retryable():
            return frozenset()
        return frozenset(self.status_forcelist or ())

    def retry_after_statuses(self) -> frozenset[int]:
        """The statuses retried when the answer carries ``Retry-After`` (urllib3's rule)."""
        if not (self._post_retryable() and self.total and self.respect_retry_after_header):
            return frozenset()
        return frozenset((413, 429, 503))

    def _post_retryable(self) -> bool:
        return not self.allowed_methods or "POST" in self.allowed_methods

    def delivery_options(
        self, options: DeliveryOptions, explicit: frozenset[str] | set[str]
    ) -> DeliveryOptions:
        """``options`` with this block's settings, where the transport's own were not given.

        Args:
            options: the delivery options from the transport's settings.
            explicit: the transport's settings given explicitly; they win.

        Returns:
            The options to deliver with.
        """
        changes: dict[str, Any] = {}
        limits = [n for n in (self.total, self.status) if n is not None]
        if limits and "max_server_error_attempts" not in explicit:
            changes["max_server_error_attempts"] = min(limits) + 1
        if "backoff_initial" not in explicit:
            changes["backoff_initial"] = 2 * self.backoff_factor
        if self.backoff_max is not None and "backoff_max" not in explicit:
            changes["backoff_max"] = self.backoff_max
        if "retry_after_max" not in explicit:
            if not self.respect_retry_after_header:
                changes["retry_after_max"] = 0.0
            elif self.retry_after_max is not None:
                changes["retry_after_max"] = self.retry_after_max
        return dataclasses.replace(options, **changes)


def _ssl_keys(data: Any) -> Any:
    if not isinstance(data, Mapping):
        return data
    names = {
        "cacertpath": "ca_cert_path",
        "clientcertpath": "client_cert_path",
        "clientkeypath": "client_key_path",
    }
    return {names.get(str(k).replace("_", "").lower(), k): v for k, v in data.items()}


class HttpSslContext(BaseModel):
    """The official client's (and the Java client's) ``sslContext``: a CA bundle and a client
    certificate (mutual TLS). Keys in camelCase, snake_case or lower case (``OPENLINEAGE__``
    variables)."""

    model_config = _STRICT

    ca_cert_path: Path | None = Field(
        default=None,
        description=(
            "The CA bundle (PEM) the server's certificate is checked with; it takes the place "
            "of ``verify``. ``caCertPath`` in the file."
        ),
    )
    client_cert_path: Path | None = Field(
        default=None,
        description=(
            "The client certificate (PEM) presented to the server; it may hold the key too. "
            "``clientCertPath`` in the file."
        ),
    )
    client_key_path: Path | None = Field(
        default=None,
        description="The client certificate's private key (PEM). ``clientKeyPath`` in the file.",
    )

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        return _ssl_keys(data)

    @model_validator(mode="after")
    def _key_needs_a_certificate(self) -> Self:
        if self.client_key_path is not None and self.client_cert_path is None:
            raise ValueError(
                "clientKeyPath needs clientCertPath: a client key without its certificate "
                "cannot be used"
            )
        return self


class HttpConfig(DeliveryConfig):
    """Configuration of :class:`HttpTransport` (``type: http``; ``async_http`` is the same).

    The keys are those of the official client's ``openlineage.yml``, plus the
    delivery settings at the end. The official client's ``retry``, ``session``, ``adapter``,
    ``name`` and ``priority`` are accepted and not used (the delivery settings replace its
    ``retry`` block).

    Attributes:
        url: the backend's base URL, e.g. ``http://localhost:5000``.
        endpoint: the path under ``url``; ``api/v1/lineage`` by default. A
            relative endpoint is appended to the whole ``url``, path included.
        timeout: seconds for connecting and for each read and write.
        verify: check the server's TLS certificate (on by default); a path means
            a CA bundle to check it with.
        auth: ``api_key``, ``jwt`` (a token endpoint) or ``oauth2`` (client credentials);
            the token of the last two is cached and refreshed before it expires. Without it,
            a user name and password in ``url`` are sent as Basic authentication.
        compression: ``gzip`` to compress request bodies.
        retry: the official client's ``retry`` block, mapped onto the retry settings below
            (see :class:`HttpRetry`); without it, connection errors, timeouts, 408, 429 and
            5xx answers are retried.
        ssl_context: ``sslContext``: a CA bundle and a client certificate
            (see :class:`HttpSslContext`).
        custom_headers: extra headers for every request (``customHeaders`` works too). Their
            values are :class:`~pydantic.SecretStr` (header values are credentials as often
            as not): ``get_secret_value()`` gives the text.
        batch_size: the most events per request when several are waiting
            (100); they go to the batch endpoint. 1 turns batching off.
        max_queue_size: events held in memory before they go to the spool.
        max_concurrent_requests: sender threads (requests in flight; 2; the official client's
            ``max_concurrent`` works too). Raise it for a slow backend without the batch
            endpoint; every sender thread takes GIL time from the application while it builds
            requests.
        spool: keep undeliverable events in a local spool file (on by default).
        spool_dir: the spool folder; by default ``$XDG_CACHE_HOME/openlineage-sdk/spool``,
            else ``~/.cache/openlineage-sdk/spool``.
        spool_max_bytes: the most this process writes to the spool.
        backoff_initial: first retry delay, seconds.
        backoff_max: longest retry delay, seconds.
        retry_after_max: longest ``Retry-After`` honoured, seconds.
        max_server_error_attempts: 5xx answers in a row before a batch is given up.
        flush_timeout: default seconds ``flush()`` waits.
        close_timeout: default seconds ``close()`` and the exit handler wait.
        synchronous: wait for each event to be delivered (up to ``timeout``)
            before ``emit`` returns; off by default.
        raise_on_error: raise instead of only logging delivery problems.
    """

    type: Literal["http", "async_http"] = "http"
    url: str
    endpoint: str = "api/v1/lineage"
    timeout: float = Field(default=5.0, gt=0)
    verify: bool | Path = True
    auth: HttpAuth | None = None
    compression: Literal["gzip"] | None = None
    retry: HttpRetry | None = None
    ssl_context: HttpSslContext | None = None
    custom_headers: dict[str, SecretStr] = Field(default_factory=dict)
    batch_size: int = Field(default=100, ge=1, le=10_000)
    retry_after_max: float = Field(default=300.0, ge=0)
    max_server_error_attempts: int = Field(default=10, ge=1)
    synchronous: bool = False

    @model_validator(mode="before")
    @classmethod
    def _accept_official_keys(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        data = dict(data)
        # Keys of the official client that mean the same thing here.
        if "max_concurrent" in data and "max_concurrent_requests" not in data:
            data["max_concurrent_requests"] = data.pop("max_concurrent")
        if "customHeaders" in data and "custom_headers" not in data:
            data["custom_headers"] = data.pop("customHeaders")
        for spelling in ("sslContext", "sslcontext"):
            if spelling in data and "ssl_context" not in data:
                data["ssl_context"] = data.pop(spelling)
        # Settings of the official client that only code can give (requests' session and
        # adapter objects) and the composite transport's member settings.
        for ignored in ("session", "adapter", "name", "priority"):
            data.pop(ignored, None)
        if isinstance(data.get("auth"), Mapping):
            auth = dict(data["auth"])
            if auth.get("type") in (None, "", "none"):
                data["auth"] = None
        return data

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: str) -> str:
        value = value.strip()
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("must be an http:// or https:// URL with a host")
        return value

    @field_serializer("url")
    def _dump_url(self, value: str) -> str:
        # Every dump (model_dump, model_dump_json) masks the password of the URL, as the repr.
        return masked_url(value)

    @field_serializer("custom_headers")
    def _dump_headers(self, value: dict[str, SecretStr]) -> dict[str, str]:
        # Header values are credentials as often as not (X-Api-Key, tokens): all masked.
        return dict.fromkeys(value, REDACTED)

    def __repr_args__(self) -> Any:
        for name, value in super().__repr_args__():
            if name == "custom_headers":
                value = self._dump_headers(value)
            elif name == "url":
                value = _public_url(str(value))
            yield name, value


def _public_url(url: str) -> str:
    """The URL without user name and password (secret query values masked), for logs and errors."""
    return masked_url(_request_url(url))


def _request_url(url: str) -> str:
    """The URL without user name and password: what requests go to (user info becomes Basic)."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]  # as written: an IPv6 address keeps its brackets
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def lineage_url(url: str, endpoint: str) -> str:
    """Join the base URL and the endpoint.

    A relative endpoint goes under the whole base URL (``http://h/ol`` and
    ``api/v1/lineage`` give ``http://h/ol/api/v1/lineage``); an absolute one
    (``/api/v1/lineage``) replaces the base URL's path.

    Args:
        url: the backend's base URL.
        endpoint: the lineage path.

    Returns:
        The full URL events are posted to.
    """
    if not url.endswith("/"):
        url += "/"
    return urljoin(url, endpoint)


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _excerpt(response: httpx.Response) -> str:
    try:
        text = response.text
    except Exception:  # an undecodable body must not hide the status
        return ""
    text = " ".join(text.split())
    return text[:_BODY_EXCERPT] + ("..." if len(text) > _BODY_EXCERPT else "")


def _environment_proxy(url: str, env: Mapping[str, str] | None = None) -> str | None:
    """The proxy for ``url`` from ``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY`` and ``NO_PROXY``.

    The variables ``httpx.Client`` and the official client's ``requests``
    session read, with their meaning: the scheme's own proxy, else ``ALL_PROXY``;
    none when ``NO_PROXY`` is ``*`` or names the host, a domain above it
    (``example.com`` and ``.example.com`` both cover ``api.example.com``) or
    its address.

    Args:
        url: the URL events are posted to.
        env: the environment to read (``os.environ`` when ``None``); never changed.

    Returns:
        The proxy URL, or ``None`` to connect directly.
    """
    env = os.environ if env is None else env

    def get(name: str) -> str:
        return (env.get(name.lower()) or env.get(name.upper()) or "").strip()

    parts = urlsplit(url)
    proxy = get(f"{parts.scheme}_proxy") or get("all_proxy")
    if not proxy:
        return None
    host = (parts.hostname or "").lower()
    for entry in get("no_proxy").split(","):
        entry = entry.strip().lower()
        if "://" in entry:
            entry = urlsplit(entry).hostname or ""
        entry = entry.strip("[]")
        if entry == "*":
            return None
        if entry and (host == entry.lstrip(".") or host.endswith("." + entry.lstrip("."))):
            return None
    return proxy if "://" in proxy else f"http://{proxy}"


def _tls_verify(
    verify: bool | Path, context: HttpSslContext | None = None
) -> bool | ssl.SSLContext:
    """What ``httpx`` takes as ``verify``: a flag, or a context trusting the CA bundle or folder
    (``sslContext``'s ``caCertPath`` first) and presenting the client certificate, if any."""
    if context is not None and context.ca_cert_path is not None:
        verify = context.ca_cert_path
    cert = context.client_cert_path if context is not None else None
    if isinstance(verify, bool) and cert is None:
        return verify
    import ssl

    if isinstance(verify, bool):
        tls = ssl.create_default_context()
        if not verify:
            tls.check_hostname = False
            tls.verify_mode = ssl.CERT_NONE
    elif verify.is_dir():
        tls = ssl.create_default_context(capath=str(verify))
    else:
        tls = ssl.create_default_context(cafile=str(verify))
    if cert is not None:
        key = context.client_key_path if context is not None else None
        tls.load_cert_chain(str(cert), str(key) if key is not None else None)
    return tls


def _json_array(batch: Sequence[Record]) -> bytes:
    """The events as one JSON array, built with a single copy of their bytes.

    Only the first and last events are copied to add the brackets; the body
    itself is made by one C-level join, so the sender holds the GIL for as
    little time as possible (``b"[" + ... + b"]"`` would copy the whole body
    twice more, which for a 1.4 MB batch costs about as much as all the rest of
    the request's Python work).
    """
    parts = [data for _, data in batch]
    parts[0] = b"[" + parts[0]
    parts[-1] += b"]"
    return b",".join(parts)


class _HttpSender:
    """Posts batches through one ``httpx.HTTPTransport`` (a thread-safe connection pool).

    The transport is used directly rather than through ``httpx.Client``: the
    client's layers (auth and redirect flows, cookies, hooks, header merging)
    cost more Python per request than everything else the sender does, and each
    response it returns sits in a reference cycle that keeps the request body
    alive until the garbage collector runs, in whatever thread it runs, instead
    of being freed at once. What the client would add is built here once: the
    headers, the timeouts, and the proxy from the environment.
    """

    def __init__(self, config: HttpConfig) -> None:
        try:
            import httpx
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise TransportError(
                "the HTTP transport needs httpx: pip install 'openlineage-sdk[http]'"
            ) from exc
        self._httpx = httpx
        url = lineage_url(config.url, config.endpoint)
        self._url = httpx.URL(_request_url(url))
        self._batch_url = httpx.URL(_request_url(url).rstrip("/") + "/batch")
        self.destination = _public_url(url)
        self.spool_name = spool_name("http", url)
        self._batch = config.batch_size
        self._batch_proven = False  # the batch endpoint accepted a batch at least once
        self._gzip = config.compression == "gzip"
        # With the official client's retry block, its statuses; else 408, 429 and 5xx.
        self._retried: frozenset[int] | None = None
        self._retried_with_header: frozenset[int] = frozenset()
        if config.retry is not None:
            self._retried = config.retry.retried_statuses()
            self._retried_with_header = config.retry.retry_after_statuses()
        headers = {"Content-Type": "application/json", "User-Agent": _USER_AGENT}
        headers.update(
            (name, value.get_secret_value()) for name, value in config.custom_headers.items()
        )
        self._token: _TokenSource | _CustomTokenSource | None = None
        if isinstance(config.auth, ApiKeyAuth):
            headers["Authorization"] = f"Bearer {config.auth.api_key.get_secret_value()}"
        elif isinstance(config.auth, CustomAuth):
            self._token = _CustomTokenSource(config.auth)
        elif config.auth is not None:
            self._token = _TokenSource(config.auth, config.timeout)
        elif (basic := _basic_from_url(config.url)) is not None:
            headers["Authorization"] = basic
        if self._gzip:
            headers["Content-Encoding"] = "gzip"
        self._headers = httpx.Headers(headers)
        self._extensions = {"timeout": httpx.Timeout(config.timeout).as_dict()}
        # Redirects are never followed: a POST must not silently turn into a GET elsewhere.
        self._transport = httpx.HTTPTransport(
            verify=_tls_verify(config.verify, config.ssl_context),
            proxy=_environment_proxy(url),
            limits=httpx.Limits(
                max_connections=config.max_concurrent_requests,
                max_keepalive_connections=config.max_concurrent_requests,
            ),
        )

    @property
    def max_batch(self) -> int:
        return self._batch

    def send(self, batch: Sequence[Record]) -> SendResult:
        httpx = self._httpx
        as_batch = len(batch) > 1
        body = _json_array(batch) if as_batch else batch[0][1]
        if self._gzip:
            # Level 3 compresses lineage JSON nearly as well as 9, several times faster.
            body = gzip.compress(body, compresslevel=3)
        headers = self._headers
        if self._token is not None:
            try:
                bearer = self._token.bearer()
            except TransportError as exc:
                return SendResult(Outcome.RETRY, str(exc))
            if bearer is not None:
                headers = headers.copy()
                headers["Authorization"] = bearer
        request = httpx.Request(
            "POST",
            self._batch_url if as_batch else self._url,
            content=body,
            headers=headers,
            extensions=self._extensions,
        )
        try:
            response = self._transport.handle_request(request)
            try:
                response.read()
            finally:
                response.close()
        except httpx.TimeoutException as exc:
            return SendResult(Outcome.RETRY, f"timed out ({type(exc).__name__})")
        except httpx.HTTPError as exc:
            return SendResult(Outcome.RETRY, f"{type(exc).__name__}: {exc}")
        status = response.status_code
        if as_batch and (
            status in (404, 405, 501)
            or (not self._batch_proven and 400 <= status < 500 and status not in (408, 429))
        ):
            self._batch = 1
            log.info(
                "OpenLineage: %s has no batch endpoint (HTTP %d); sending one event per request",
                self.destination,
                status,
            )
            return SendResult(Outcome.RESEND, f"HTTP {status}")
        if 200 <= status < 300:
            if as_batch:
                self._batch_proven = True
                if status == 200:
                    return self._batch_answer(response, len(batch))
            return SendResult(Outcome.OK)
        message = f"HTTP {status}"
        excerpt = _excerpt(response)
        if excerpt:
            message += f": {excerpt}"
        retry_after = response.headers.get("Retry-After")
        if self._retried is None:
            if status in (408, 429) or status >= 500:
                return SendResult(
                    Outcome.RETRY,
                    message,
                    retry_after=_retry_after(retry_after),
                    server_error=status >= 500,
                )
        elif status in self._retried or (
            retry_after is not None and status in self._retried_with_header
        ):
            # Every retried status counts towards the retry block's total.
            return SendResult(
                Outcome.RETRY, message, retry_after=_retry_after(retry_after), server_error=True
            )
        return SendResult(Outcome.REJECT, message)

    def _batch_answer(self, response: httpx.Response, size: int) -> SendResult:
        """Read the batch endpoint's per-event report, when it sends one."""
        try:
            report = json.loads(response.content) if response.content else None
        except ValueError:
            return SendResult(Outcome.OK)
        if not isinstance(report, dict) or report.get("status") != "partial_success":
            return SendResult(Outcome.OK)
        retry: list[int] = []
        reject: list[int] = []
        reasons: list[str] = []
        for failed in report.get("failed_events") or ():
            if not isinstance(failed, dict):
                continue
            index = failed.get("index")
            if not isinstance(index, int) or not 0 <= index < size:
                continue
            (retry if failed.get("retriable") else reject).append(index)
            if failed.get("reason"):
                reasons.append(f"#{index}: {failed['reason']}")
        if not retry and not reject:
            return SendResult(Outcome.OK)
        return SendResult(
            Outcome.PARTIAL,
            "partial success; " + "; ".join(reasons[:5]),
            retry_indices=tuple(retry),
            reject_indices=tuple(reject),
        )

    def close(self) -> None:
        self._transport.close()


class HttpTransport(QueuedTransport[HttpConfig]):
    """Sends events to an OpenLineage HTTP backend, asynchronously, in order, without losing any.

    Example:
        >>> transport = HttpTransport(HttpConfig(url="http://localhost:5000"))  # doctest: +SKIP
        >>> transport.emit(event)  # returns at once  # doctest: +SKIP
        >>> transport.close(timeout=5).complete  # doctest: +SKIP
        True
    """

    kind = "http"
    config_class = HttpConfig

    def _sender(self, config: HttpConfig) -> _HttpSender:
        return _HttpSender(config)

    def _options(self, config: HttpConfig) -> DeliveryOptions:
        options = config.delivery_options(
            retry_after_max=config.retry_after_max,
            max_server_error_attempts=config.max_server_error_attempts,
        )
        if config.retry is not None:
            options = config.retry.delivery_options(options, config.model_fields_set)
        return options

    @property
    def url(self) -> str:
        """The URL single events are posted to (without credentials)."""
        return self._engine.sender.destination

    def emit(self, event: Emittable) -> None:
        """Queue the event for delivery and return at once (``synchronous``: once delivered).

        Args:
            event: the event; its JSON is taken now.
        """
        super().emit(event)
        if self.config.synchronous:
            self._engine.flush(self.config.timeout)
