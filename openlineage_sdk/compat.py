"""``OpenLineageClient``: the official ``openlineage-python`` client's entry point, on this SDK.

Code written against the official client moves over by changing one import::

    # from openlineage.client import OpenLineageClient
    from openlineage_sdk import OpenLineageClient

    client = OpenLineageClient()  # or (config={...}), (url=..., options=...), (transport=...)
    client.emit(event)  # the official client's event objects, this SDK's, or mappings
    client.close()

The constructor, ``from_environment``, ``from_dict``, ``emit``, ``filter_event``, ``close`` and
the ``transport`` and ``config`` attributes take and do what the official client's (1.54.0) do,
and the configuration is read from the same places with the same precedence; so are the
official client's defaults where this SDK's own :class:`~openlineage_sdk.OpenLineage` has
others (nothing configured prints events instead of writing ``openlineage_events.jsonl``; a
``file`` transport without ``append`` writes a file per event). Events go through this SDK's
transports (asynchronous delivery with a spool for HTTP and Kafka), so ``emit`` returns at once
and never raises for a delivery problem unless ``raise_on_error=True``.
``docs/migration/official-client.md`` lists what is the same and what differs.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from typing_extensions import Self

from openlineage_sdk.client import DEFAULT_PRODUCER, OpenLineage
from openlineage_sdk.config import ENV_PREFIX, OpenLineageConfig, environment_settings
from openlineage_sdk.transports._registry import TransportConfigError, parse_transport_config
from openlineage_sdk.transports.base import (
    Emittable,
    FlushResult,
    Transport,
    TransportConfig,
)
from openlineage_sdk.transports.console import ConsoleConfig

if TYPE_CHECKING:
    from openlineage_sdk._foreign import OfficialEvent

__all__ = ["OFFICIAL_TRANSPORT_DEFAULTS", "OpenLineageClient", "OpenLineageClientOptions"]

log = logging.getLogger(__name__)

_E = TypeVar("_E")

#: The official client's defaults where this SDK's transports have others: given to
#: :func:`~openlineage_sdk.config.load_config` as ``transport_defaults``.
OFFICIAL_TRANSPORT_DEFAULTS: Mapping[str, Mapping[str, Any]] = {"file": {"append": False}}

_LEGACY_URL = ("OPENLINEAGE_URL", "OPENLINEAGE_API_KEY", "OPENLINEAGE_ENDPOINT")


@dataclass
class OpenLineageClientOptions:
    """The official client's options of an HTTP transport made from ``url``.

    The official class itself (``openlineage.client.OpenLineageClientOptions``) is taken too.

    Attributes:
        timeout: seconds for connecting and for each read and write.
        verify: check the server's TLS certificate.
        api_key: sent as ``Authorization: Bearer <api_key>``.
        adapter: a ``requests`` adapter in the official client; not used here (the HTTP
            transport is built on httpx), which a warning says.
    """

    timeout: float = 5.0
    verify: bool = True
    api_key: str | None = None
    adapter: Any = None


def _client_logging(level: str | None) -> None:
    """``OPENLINEAGE_CLIENT_LOGGING``: the level of this SDK's loggers, as the official client
    sets its own (Airflow's provider sets it to Airflow's level)."""
    if not level:
        return
    try:
        logging.getLogger("openlineage_sdk").setLevel(level.strip().upper())
    except ValueError:
        log.warning("OpenLineage: OPENLINEAGE_CLIENT_LOGGING is not a logging level; not used")


class _GivenTransport(Transport):
    """A transport object of the official client, given in code: it is handed each event as
    its JSON object (a dict), which its own ``Serde`` writes as it writes its events."""

    kind = "official"

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def emit(self, event: Emittable) -> None:
        to_dict = getattr(event, "to_dict", None)
        self.inner.emit(to_dict() if callable(to_dict) else json.loads(event.to_json()))

    def close(self, timeout: float | None = None) -> FlushResult:
        close = getattr(self.inner, "close", None)
        done = close(-1 if timeout is None else timeout) if callable(close) else True
        # Its close says only whether everything was sent.
        return FlushResult(pending=0 if done is not False else 1)


class OpenLineageClient:
    """The official client's ``OpenLineageClient``, sending through this SDK.

    The transport is chosen as the official client chooses it: none when
    ``OPENLINEAGE_DISABLED`` is true; else ``transport``; else the configuration's transport
    (``config``, which wins over the file named by ``OPENLINEAGE_CONFIG`` or found in the
    working directory or ``~/.openlineage``, which wins over ``OPENLINEAGE__`` variables);
    else an HTTP transport to ``url`` with ``options``; else one to ``OPENLINEAGE_URL``
    (with ``OPENLINEAGE_API_KEY`` and ``OPENLINEAGE_ENDPOINT``); else the console, with a
    warning. ``OPENLINEAGE_CLIENT_LOGGING`` (a level name, ``DEBUG``...) sets the level of this
    SDK's loggers (``openlineage_sdk``), as the official client sets its own.

    Args:
        url: the lineage backend's URL, for an HTTP transport (the official client's older way).
        options: the HTTP transport's ``timeout``, ``verify`` and ``api_key``
            (:class:`OpenLineageClientOptions`, or the official client's own).
        session: a ``requests`` session in the official client; not used here (a warning says
            so).
        transport: the transport: this SDK's, or one of the official client's (it is given
            each event as a dict).
        factory: the official client's transport factory; not used here (a warning says so):
            transports come from this SDK's registry, which takes the official ``type`` names
            and dotted class paths.
        config: settings in ``openlineage.yml``'s layout (``transport``, ``facets``,
            ``filters``, ``tags``, ``dataset``), which win over the file and the environment;
            or the path of a configuration file to read instead of searching for one; or a
            loaded :class:`~openlineage_sdk.config.OpenLineageConfig`.
        producer: the ``producer`` of the facets the configuration adds and of the events this
            SDK builds (:attr:`sdk`'s run lifecycle).
        namespace: the default job namespace of the events this SDK builds.
        raise_on_error: raise configuration and delivery problems instead of logging them.

    Raises:
        TypeError: a parameter of the wrong type; the message names it.
    """

    #: The prefix of the variables that set configuration keys (``OPENLINEAGE__TRANSPORT__...``).
    DYNAMIC_ENV_VARS_PREFIX: ClassVar[str] = ENV_PREFIX
    #: The name of the member ``OPENLINEAGE_URL`` adds to a composite transport.
    DEFAULT_URL_TRANSPORT_NAME: ClassVar[str] = "default_http"

    def __init__(
        self,
        url: str | None = None,
        options: Any = None,
        session: Any = None,
        transport: Any = None,
        factory: Any = None,
        *,
        config: Mapping[str, Any] | str | os.PathLike[str] | OpenLineageConfig | None = None,
        producer: str = DEFAULT_PRODUCER,
        namespace: str | None = None,
        raise_on_error: bool = False,
    ) -> None:
        if url is not None and not isinstance(url, str):
            raise TypeError(f"url: expected the backend's URL as text, got {type(url).__name__}")
        if options is not None and not all(
            hasattr(options, name) for name in ("timeout", "verify", "api_key")
        ):
            raise TypeError(
                "options: expected an OpenLineageClientOptions (timeout, verify, api_key), "
                f"got {type(options).__name__}"
            )
        if transport is not None and not (
            isinstance(transport, Transport) or callable(getattr(transport, "emit", None))
        ):
            raise TypeError(
                "transport: expected a transport (an object with emit()), got "
                f"{type(transport).__name__}"
            )
        if config is not None and not isinstance(
            config, (Mapping, str, os.PathLike, OpenLineageConfig)
        ):
            raise TypeError(
                "config: expected a mapping in openlineage.yml's layout, the path of a "
                f"configuration file or an OpenLineageConfig, got {type(config).__name__}"
            )
        _client_logging(os.environ.get("OPENLINEAGE_CLIENT_LOGGING"))
        for name, given, why in (
            ("session", session, "the HTTP transport is built on httpx"),
            ("factory", factory, "transports come from this SDK's registry"),
            (
                "options.adapter",
                getattr(options, "adapter", None),
                "the HTTP transport is built on httpx",
            ),
        ):
            if given is not None:
                log.warning("OpenLineage: %s is not used (%s)", name, why)
        #: The settings given as ``config``, as the official client keeps them.
        self.user_defined_config: Mapping[str, Any] | None = (
            config if isinstance(config, Mapping) else None
        )
        self._given: Any = transport
        common: dict[str, Any] = {
            "producer": producer,
            "namespace": namespace,
            "raise_on_error": raise_on_error,
        }
        if transport is not None:
            own = transport if isinstance(transport, Transport) else _GivenTransport(transport)
            #: The client of this SDK underneath: its ``run()`` lifecycle, ``flush()`` and
            #: ``declare_job()`` / ``declare_dataset()`` are there.
            self.sdk = OpenLineage(transport=own, config=config, **common)
            return
        loaded = self._configuration(url, options, config, raise_on_error)
        self.sdk = OpenLineage(config=loaded, **common)

    @staticmethod
    def _configuration(
        url: str | None,
        options: Any,
        config: Mapping[str, Any] | str | os.PathLike[str] | OpenLineageConfig | None,
        raise_on_error: bool,
    ) -> OpenLineageConfig:
        """The configuration, its transport chosen as the official client chooses it."""
        if isinstance(config, OpenLineageConfig):
            loaded = config
        else:
            basics = environment_settings()
            if basics.disabled:
                return basics
            overrides, config_file = OpenLineage._config_argument(config)
            env: Mapping[str, str] = os.environ
            if url:
                # The URL given in code comes before OPENLINEAGE_URL.
                env = {k: v for k, v in os.environ.items() if k not in _LEGACY_URL}
            read = OpenLineage._read_config(
                env,
                config_file,
                raise_on_error=raise_on_error,
                overrides=overrides,
                transport_defaults=OFFICIAL_TRANSPORT_DEFAULTS,
                instead="the console",
            )
            if read is None:
                return OpenLineageConfig(transport=ConsoleConfig())
            loaded = read
        if loaded.disabled or loaded.transport is not None:
            return loaded
        section: TransportConfig
        if url:
            settings: dict[str, Any] = {"type": "http", "url": url}
            if options is not None:
                settings.update(timeout=options.timeout, verify=options.verify)
                if options.api_key:
                    settings["auth"] = {"type": "api_key", "apiKey": options.api_key}
            try:
                section = parse_transport_config(settings)
            except TransportConfigError as exc:
                if raise_on_error:
                    raise
                log.error("OpenLineage: url cannot be used (%s); events go to the console", exc)
                section = ConsoleConfig()
        else:
            log.warning(
                "OpenLineage: no transport is configured (no openlineage.yml, OPENLINEAGE_URL "
                "or OPENLINEAGE__TRANSPORT__*); events are printed to the console"
            )
            section = ConsoleConfig()
        return loaded.model_copy(update={"transport": section})

    @classmethod
    def from_environment(cls) -> Self:
        """A client configured by the configuration file and the environment alone.

        Returns:
            ``OpenLineageClient()``.
        """
        return cls()

    @classmethod
    def from_dict(cls, config: Mapping[str, Any]) -> Self:
        """A client whose transport the given transport section describes.

        Args:
            config: a transport section (``{"type": "http", "url": ...}``).

        Returns:
            ``OpenLineageClient(config={"transport": config})``.
        """
        if not isinstance(config, Mapping):
            raise TypeError(
                f"config: expected a transport section as a mapping, got {type(config).__name__}"
            )
        return cls(config={"transport": config})

    @property
    def transport(self) -> Any:
        """The transport events go through (the object given in code, if one was)."""
        own = self.sdk.transport
        return own.inner if isinstance(own, _GivenTransport) else own

    @transport.setter
    def transport(self, value: Any) -> None:
        self.sdk.transport = value if isinstance(value, Transport) else _GivenTransport(value)

    @property
    def config(self) -> OpenLineageConfig:
        """The configuration in use: this SDK's typed :class:`OpenLineageConfig`.

        Its ``transport`` is the transport's typed configuration (``config.transport.type``),
        where the official client keeps the section as a dict.
        """
        return self.sdk.config

    def emit(self, event: Emittable | Mapping[str, Any] | OfficialEvent) -> None:
        """Send an event; returns at once for network transports.

        The configuration's ``filters`` drop run events, its ``tags``, ``facets`` and
        ``dataset`` sections change a copy (never ``event`` itself). A problem is logged, and
        raised only with ``raise_on_error``.

        Args:
            event: an official client's ``RunEvent``, ``JobEvent`` or ``DatasetEvent`` (v2 or
                ``openlineage.client.run``), this SDK's, or an event's JSON object.
        """
        self.sdk.emit(event)

    def filter_event(self, event: _E) -> _E | None:
        """``event``, or ``None`` when a configured filter drops it.

        Args:
            event: any event :meth:`emit` takes.

        Returns:
            ``event`` itself, or ``None``.
        """
        return self.sdk.filter_event(event)

    def close(self, timeout: float = -1.0) -> bool:
        """Deliver what can be delivered and release the transport.

        Args:
            timeout: seconds; negative (the default) waits as long as the transport's
                ``close_timeout`` (10 s), after which what is left waits in the spool for the
                next process; 0 waits for nothing.

        Returns:
            Whether every event was delivered (or refused for good) before it returned.
        """
        return self.sdk.close(None if timeout < 0 else timeout).complete

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"OpenLineageClient(transport={type(self.transport).__name__})"
