"""The client: where events go, the producer URI, and the default job namespace.

    >>> from openlineage_sdk.client import OpenLineage
    >>> with OpenLineage.from_environment() as client:  # doctest: +SKIP
    ...     with client.run("orders.daily_load", inputs=[...]) as run:
    ...         ...  # START on entry, COMPLETE (or FAIL, ABORT) on the way out
    ...     client.emit(event)  # any event built by hand

The run lifecycle itself lives in :mod:`openlineage_sdk.lifecycle`; the client only
starts runs and builds the static JobEvent and DatasetEvent with its own defaults.

``emit`` also takes the official ``openlineage-python`` client's event objects and events as
JSON objects (mappings), read with :func:`~openlineage_sdk.read_event`
(:mod:`openlineage_sdk._foreign`); code written against the official client's own
``OpenLineageClient`` moves over with :class:`openlineage_sdk.compat.OpenLineageClient`.

The client never fails the user's job because of lineage: errors from its
transport are logged, and raised only when asked for with ``raise_on_error``.
"""

from __future__ import annotations

import copy
import logging
import os
import time
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar, cast

from typing_extensions import Self, Unpack

from openlineage_sdk._version import __version__
from openlineage_sdk.config import (
    ConfigError,
    OpenLineageConfig,
    environment_settings,
    load_config,
)
from openlineage_sdk.metrics import Metrics, MetricsConfigError, metrics_from_config
from openlineage_sdk.transports._registry import TransportConfigError, create_transport
from openlineage_sdk.transports.base import (
    Emittable,
    FlushResult,
    Transport,
    TransportConfig,
    TransportError,
)
from openlineage_sdk.transports.file import DEFAULT_FILE_NAME, FileTransport
from openlineage_sdk.transports.noop import NoopTransport

if TYPE_CHECKING:
    from openlineage_sdk._event_config import EventConfig
    from openlineage_sdk._foreign import OfficialEvent

    # Imported on use: the lifecycle loads the models, which a client that only forwards
    # events it was given never needs.
    from openlineage_sdk.lifecycle import (
        FacetsArg,
        InputLike,
        InvalidTransitions,
        LineageRun,
        OutputLike,
        RunOptions,
    )
    from openlineage_sdk.models.base import DatasetFacet, JobFacet
    from openlineage_sdk.models.core import Dataset, DatasetEvent, JobEvent
    from openlineage_sdk.naming import DatasetName

__all__ = ["DEFAULT_NAMESPACE", "DEFAULT_PRODUCER", "OpenLineage"]

log = logging.getLogger(__name__)

_E = TypeVar("_E")

#: The ``producer`` written in events when none is given.
DEFAULT_PRODUCER = f"https://github.com/openlineage-sdk/openlineage-sdk/tree/v{__version__}"
#: The job namespace used when none is given nor configured.
DEFAULT_NAMESPACE = "default"


#: The types of events seen to have ``to_json()``: sent as they are, without asking again.
_SENDABLE: set[type] = set()


def _sendable(event: object) -> Emittable:
    """``event`` if it writes itself as JSON (remembering its type), else the event read from
    the official client's event object or the mapping it is."""
    if hasattr(event, "to_json"):
        _SENDABLE.add(type(event))
        return cast("Emittable", event)
    from openlineage_sdk._foreign import adopt_event

    return adopt_event(event)


class OpenLineage:
    """Holds the transport, the producer URI and the default job namespace.

    Args:
        transport: where events go. When ``None``, the transport comes from
            ``config``, else from the environment (as
            :meth:`from_environment`), else a JSON Lines file
            ``openlineage_events.jsonl`` in the working directory. When given without
            ``config``, the configuration's ``facets``, ``filters``, ``tags`` and ``dataset``
            sections still apply, as in the official client.
        producer: the URI that identifies the producing code in events.
        namespace: the default job namespace; else ``OPENLINEAGE_NAMESPACE``,
            else ``"default"``.
        config: a configuration from :func:`~openlineage_sdk.config.load_config`; or a
            mapping in ``openlineage.yml``'s layout, settings given in code that win over the
            configuration file and the environment, as the official client's ``config``; or
            the path of a configuration file to read instead of searching for one. Its
            ``filters``, ``tags``, ``facets`` and ``dataset`` sections are applied to every
            event this client emits, the run lifecycle's included; without them ``emit`` does no extra work.
            A mapping or file that cannot be used is logged and the client falls back to the
            local JSON Lines file, unless ``raise_on_error`` is set.
        disabled: emit nothing; ``None`` follows the configuration
            (``OPENLINEAGE_DISABLED``).
        raise_on_error: let transport errors reach the caller instead of
            logging them (transports built from configuration raise too).
        invalid_transitions: what a run's wrong transition (a second START,
            COMPLETE after FAIL...) does: ``"raise"`` a ``RunTransitionError``, or
            ``"warn"`` with a ``RunTransitionWarning`` and emit the event anyway.

    Raises:
        TypeError: ``transport``, ``producer``, ``namespace`` or ``config`` is of a wrong
            type (the message names the parameter).
        ValueError: ``invalid_transitions`` is neither ``"raise"`` nor ``"warn"``.
        ConfigError: with ``raise_on_error``, a configuration that cannot be used.
    """

    def __init__(
        self,
        transport: Transport | None = None,
        *,
        producer: str = DEFAULT_PRODUCER,
        namespace: str | None = None,
        config: OpenLineageConfig | Mapping[str, Any] | str | os.PathLike[str] | None = None,
        disabled: bool | None = None,
        raise_on_error: bool = False,
        invalid_transitions: InvalidTransitions = "raise",
    ) -> None:
        if invalid_transitions not in ("raise", "warn"):
            raise ValueError(
                f"invalid_transitions must be 'raise' or 'warn', got {invalid_transitions!r}"
            )
        if transport is not None and not callable(getattr(transport, "emit", None)):
            raise TypeError(
                f"transport: expected a Transport (an object with emit()), got "
                f"{type(transport).__name__}"
            )
        if not isinstance(producer, str):
            raise TypeError(f"producer: expected a URI as text, got {type(producer).__name__}")
        if namespace is not None and not isinstance(namespace, str):
            raise TypeError(f"namespace: expected text, got {type(namespace).__name__}")
        self.raise_on_error = raise_on_error
        self.invalid_transitions: InvalidTransitions = invalid_transitions
        if not isinstance(config, OpenLineageConfig):
            overrides, config_file = self._config_argument(config)
            config = (
                self._load(None, config_file, raise_on_error=raise_on_error, overrides=overrides)
                if transport is None
                else self._beside_a_transport(
                    raise_on_error=raise_on_error, overrides=overrides, config_file=config_file
                )
            )
        self.config: OpenLineageConfig = config
        self.disabled = self.config.disabled if disabled is None else disabled
        self.producer = producer
        self.namespace = namespace or self.config.namespace or DEFAULT_NAMESPACE
        self._events = self._event_config(self.config, raise_on_error=raise_on_error)
        #: The metrics registry the configuration's ``metrics`` section asks for (``None``:
        #: none); ``metrics.snapshot()`` reads it (see :mod:`openlineage_sdk.metrics`).
        self.metrics: Metrics | None = self._metrics(self.config, raise_on_error=raise_on_error)
        self._metric_tags: tuple[tuple[str, str], ...] = ()
        # Where the environmentVariables facet reads: os.environ, or the mapping given to
        # from_environment.
        self._env: Mapping[str, str] | None = None
        if self.disabled:
            log.info("OpenLineage is disabled; no events will be emitted")
            self.transport: Transport = NoopTransport()
        elif transport is not None:
            self.transport = transport
        else:
            self.transport = self._build(self.config.transport)

    @classmethod
    def from_environment(
        cls,
        env: Mapping[str, str] | None = None,
        *,
        config_file: str | os.PathLike[str] | None = None,
        **kwargs: Any,
    ) -> Self:
        """Make a client configured the way the official client would be.

        Reads ``openlineage.yml`` (``OPENLINEAGE_CONFIG``, the working
        directory, ``~/.openlineage``) and the ``OPENLINEAGE_*`` variables.
        A configuration that cannot be used is logged and the client falls
        back to the local JSON Lines file, unless ``raise_on_error`` is set.

        Args:
            env: the environment to read; ``os.environ`` when ``None`` (never changed).
            config_file: a configuration file to use instead of searching.
            **kwargs: ``producer``, ``namespace``, ``disabled``, ``raise_on_error``,
                ``invalid_transitions``.

        Returns:
            The client.
        """
        config = cls._load(env, config_file, raise_on_error=bool(kwargs.get("raise_on_error")))
        client = cls(config=config, **kwargs)
        client._env = env
        return client

    @staticmethod
    def _config_argument(
        config: object,
    ) -> tuple[Mapping[str, Any] | None, str | os.PathLike[str] | None]:
        """``config`` as settings given in code or a file to read: ``(overrides, file)``."""
        if config is None:
            return None, None
        if isinstance(config, Mapping):
            return config, None
        if isinstance(config, (str, os.PathLike)):
            return None, config
        raise TypeError(
            "config: expected an OpenLineageConfig, a mapping in openlineage.yml's layout or "
            f"the path of a configuration file, got {type(config).__name__}"
        )

    @staticmethod
    def _read_config(
        env: Mapping[str, str] | None,
        config_file: str | os.PathLike[str] | None,
        *,
        raise_on_error: bool,
        overrides: Mapping[str, Any] | None = None,
        transport_defaults: Mapping[str, Mapping[str, Any]] | None = None,
        instead: str,
    ) -> OpenLineageConfig | None:
        """The configuration; ``None`` (logged, saying that events go ``instead``) when no part
        of it can be used. With ``raise_on_error`` a problem raises :class:`ConfigError`."""
        settings: dict[str, Any] = {
            "config_file": config_file,
            "overrides": overrides,
            "transport_defaults": transport_defaults,
        }
        try:
            return load_config(env, **settings)
        except ConfigError as exc:
            if raise_on_error:
                raise
            try:
                # A bad tag, filter or unknown section must not take the transport away:
                # keep every usable part (the event sections are checked again, and a bad
                # one ignored, when the client is made).
                config = load_config(env, check_sections=False, **settings)
            except ConfigError:
                pass
            else:
                log.error(
                    "OpenLineage: the configuration has a problem (%s); the rest of it is used",
                    exc,
                )
                return config
            log.error(
                "OpenLineage: the configuration cannot be used (%s); events go to %s instead",
                exc,
                instead,
            )
            return None

    @classmethod
    def _load(
        cls,
        env: Mapping[str, str] | None,
        config_file: str | os.PathLike[str] | None,
        *,
        raise_on_error: bool = False,
        overrides: Mapping[str, Any] | None = None,
    ) -> OpenLineageConfig:
        config = cls._read_config(
            env,
            config_file,
            raise_on_error=raise_on_error,
            overrides=overrides,
            instead=f"the local file {DEFAULT_FILE_NAME}",
        )
        return OpenLineageConfig() if config is None else config

    @staticmethod
    def _beside_a_transport(
        *,
        raise_on_error: bool,
        overrides: Mapping[str, Any] | None = None,
        config_file: str | os.PathLike[str] | None = None,
    ) -> OpenLineageConfig:
        """A transport given in code: ``OPENLINEAGE_DISABLED`` and ``_NAMESPACE``, and the
        ``facets``, ``filters``, ``tags``, ``dataset``, ``circuitBreaker`` and ``metrics``
        sections of the configuration (given
        in code, the file, ``OPENLINEAGE__`` variables), as the official client applies them to
        a transport it is given; their transport settings are not read."""
        basics = environment_settings()
        if basics.disabled:
            return basics
        env = {k: v for k, v in os.environ.items() if k != "OPENLINEAGE_URL"}
        # The settings given in code win; their transport, if any, is not the one used.
        given = {**(overrides or {}), "transport": None}
        try:
            full = load_config(env, overrides=given, config_file=config_file)
        except ConfigError as exc:
            if raise_on_error:
                raise
            try:
                full = load_config(
                    env, overrides=given, config_file=config_file, check_sections=False
                )
            except ConfigError:
                return basics
            log.error(
                "OpenLineage: the configuration has a problem (%s); the rest of it is used", exc
            )
        return basics.model_copy(
            update={
                "facets": full.facets,
                "filters": full.filters,
                "tags": full.tags,
                "dataset": full.dataset,
                "circuit_breaker": full.circuit_breaker,
                "metrics": full.metrics,
                "config_file": full.config_file,
            }
        )

    @staticmethod
    def _event_config(config: OpenLineageConfig, *, raise_on_error: bool) -> EventConfig | None:
        """The ``filters``, ``tags``, ``facets`` and ``dataset`` sections, ready to apply."""
        if not (config.facets or config.filters or config.tags or config.dataset):
            return None
        from openlineage_sdk._event_config import SectionError, parse_sections

        sections: dict[str, Any] = {
            "facets": config.facets,
            "filters": config.filters,
            "tags": config.tags,
            "dataset": config.dataset,
        }
        for _ in range(len(sections)):
            try:
                return parse_sections(**sections)
            except SectionError as exc:
                if raise_on_error:
                    raise ConfigError(str(exc)) from None
                # Only the section at fault is left out; the others still apply.
                name = exc.path.split("[", 1)[0].split(".", 1)[0]
                log.error("OpenLineage: %s; the %r section is ignored", exc, name)
                sections[name] = None
        return None

    @staticmethod
    def _metrics(config: OpenLineageConfig, *, raise_on_error: bool) -> Metrics | None:
        """The registry of the ``metrics`` section; a section that cannot be used is logged and
        left out (raised with ``raise_on_error``)."""
        if not config.metrics:
            return None
        try:
            return metrics_from_config(config.metrics)
        except MetricsConfigError as exc:
            if raise_on_error:
                raise ConfigError(str(exc)) from None
            log.error("OpenLineage: %s; the 'metrics' section is ignored", exc)
            return None

    def _build(self, section: TransportConfig | None) -> Transport:
        if section is None:
            path = Path(DEFAULT_FILE_NAME).absolute()
            log.info(
                "OpenLineage: no transport is configured (no openlineage.yml, OPENLINEAGE_URL "
                "or OPENLINEAGE__TRANSPORT__*); events are written to %s",
                path,
            )
            return FileTransport(path, raise_on_error=self.raise_on_error)
        if self.raise_on_error and "raise_on_error" in type(section).model_fields:
            section = section.model_copy(update={"raise_on_error": True})
        try:
            return create_transport(section)
        except (TransportConfigError, TransportError, OSError) as exc:
            if self.raise_on_error:
                raise
            log.error(
                "OpenLineage: the %r transport cannot be made (%s); events go to the local "
                "file %s instead",
                section.type,
                exc,
                DEFAULT_FILE_NAME,
            )
            return FileTransport(Path(DEFAULT_FILE_NAME).absolute())

    def emit(self, event: Emittable | Mapping[str, Any] | OfficialEvent) -> None:
        """Send an event through the transport; returns at once for network transports.

        A run event that a configured filter drops is not sent; configured tags, facets and
        dataset rules are applied to a copy, never to ``event`` itself.

        Like every failure to send, an event that is not one (an
        :class:`~openlineage_sdk._foreign.UnsupportedEventError`, which names the parameter
        and the type given) or that cannot be read is logged, and raised only with
        ``raise_on_error``.

        Args:
            event: a ``RunEvent``, ``JobEvent`` or ``DatasetEvent`` (or any object with
                ``to_json()``); or an event of the official ``openlineage-python`` client
                (``openlineage.client.event_v2`` or ``openlineage.client.run``), or an event's
                JSON object as a mapping, both read with
                :func:`~openlineage_sdk.read_event`.
        """
        if self.disabled:
            return
        if self.metrics is not None:
            self._emit_measured(event, self.metrics)
            return
        try:
            # This package's events take no detour (a set lookup of their type): the other
            # kinds are told apart only after it.
            sent: Any = event if type(event) in _SENDABLE else _sendable(event)
            if self._events is not None:
                changed = self._events.apply(sent, producer=self.producer, env=self._env)
                if changed is None:
                    return
                sent = changed
            self.transport.emit(sent)
        except Exception:
            if self.raise_on_error:
                raise
            log.exception("OpenLineage: the event could not be emitted")

    def _emit_measured(
        self, event: Emittable | Mapping[str, Any] | OfficialEvent, metrics: Metrics
    ) -> None:
        """:meth:`emit`, counting and timing it in ``metrics`` (see :mod:`openlineage_sdk.metrics`)."""
        tags = self._metric_tags
        if not tags or tags[0][1] != type(self.transport).__name__:
            tags = self._metric_tags = (("openlineage.transport", type(self.transport).__name__),)
        lines: list[tuple[str, str, float, tuple[tuple[str, str], ...]]] = [
            ("openlineage.emit.start", "counter", 1, tags)
        ]
        try:
            sent: Any = event if type(event) in _SENDABLE else _sendable(event)
            if self._events is not None:
                changed = self._events.apply(sent, producer=self.producer, env=self._env)
                if changed is None:
                    lines.append(("openlineage.emit.filtered", "counter", 1, tags))
                    return
                sent = changed
            began = time.perf_counter()
            self.transport.emit(sent)
            lines.append(("openlineage.emit.time", "timer", time.perf_counter() - began, tags))
            lines.append(("openlineage.emit.complete", "counter", 1, tags))
        except Exception:
            lines.append(("openlineage.emit.failed", "counter", 1, tags))
            if self.raise_on_error:
                raise
            log.exception("OpenLineage: the event could not be emitted")
        finally:
            try:
                metrics.record(lines)
            except Exception as error:  # metrics never break an emit
                log.debug("OpenLineage: recording metrics failed: %s", error)

    def filter_event(self, event: _E) -> _E | None:
        """``event``, or ``None`` when a configured filter drops it, as :meth:`emit` would.

        The official client's ``filter_event``: filters drop run events by their job's name;
        job and dataset events always pass. Nothing else is changed or sent.

        Args:
            event: any event :meth:`emit` takes.

        Returns:
            ``event`` itself, or ``None``.

        Raises:
            UnsupportedEventError: ``event`` is not an event (see :meth:`emit`).
        """
        if self._events is None or not self._events.filters:
            return event
        from openlineage_sdk._event_config import EventConfig

        probe = _sendable(event)
        kept = EventConfig(filters=self._events.filters).apply(probe, producer=self.producer)
        return None if kept is None else event

    def with_event_config(self, extra: EventConfig) -> Self:
        """A client that also edits its events as ``extra`` says, through the same transport.

        Each event is edited once, by ``extra`` and this client's configuration combined
        (:meth:`EventConfig.combine <openlineage_sdk._event_config.EventConfig.combine>`):
        ``extra``'s changes first, then the configuration's ``filters``, ``tags``, ``facets``
        and ``dataset`` sections, as if ``extra`` were applied before this client's ``emit``.
        The Spark adapter gives a client a session's ``spark.openlineage.*`` confs this way.

        Args:
            extra: the changes to make before this client's own.

        Returns:
            A copy of this client (same transport, producer, namespace and settings); this
            client is not changed. Closing either closes the transport they share.
        """
        client = copy.copy(self)
        client._events = extra.combine(self._events)
        return client

    def run(self, job_name: str, **options: Unpack[RunOptions]) -> LineageRun:
        """A run of a job, whose events this client emits; nothing is emitted yet.

        ``with client.run(...) as run:`` emits START on entry and COMPLETE on a clean
        exit; an exception emits FAIL with an errorMessage facet and is re-raised;
        KeyboardInterrupt or asyncio cancellation emits ABORT (``async with`` works
        too). Or call ``run.start()``, ``run.complete()``... yourself.

        Args:
            job_name: The job's name (``openlineage_sdk.naming`` has the conventions).
            **options: The keyword arguments of
                :class:`~openlineage_sdk.lifecycle.LineageRun` (``namespace``, ``inputs``,
                ``outputs``, ``run_facets``, ``job_facets``, ``run_id``,
                ``deterministic_id``, ``nominal_time``, ``nominal_end_time``, ``parent``,
                ``invalid_transitions``); the namespace defaults to this client's.

        Returns:
            The :class:`~openlineage_sdk.lifecycle.LineageRun`.
        """
        from openlineage_sdk.lifecycle import LineageRun

        return LineageRun(self, job_name, **options)

    def declare_job(
        self,
        job_name: str,
        *,
        namespace: str | None = None,
        inputs: Iterable[InputLike] = (),
        outputs: Iterable[OutputLike] = (),
        facets: FacetsArg[JobFacet] = (),
        event_time: datetime | None = None,
    ) -> JobEvent:
        """Emit a JobEvent: a job's declared inputs, outputs and facets, without a run.

        Args:
            job_name: The job's name.
            namespace: The job namespace; this client's when ``None``.
            inputs: The datasets the job reads.
            outputs: The datasets the job writes.
            facets: Job facets (jobType, sql, ownership, ...).
            event_time: When it was declared (with a time zone); now when ``None``.

        Returns:
            The event emitted.
        """
        from openlineage_sdk.lifecycle import job_event

        event = job_event(
            namespace or self.namespace,
            job_name,
            inputs=inputs,
            outputs=outputs,
            facets=facets,
            event_time=event_time,
            producer=self.producer,
        )
        self.emit(event)
        return event

    def declare_dataset(
        self,
        dataset: DatasetName | Dataset,
        *,
        facets: FacetsArg[DatasetFacet] = (),
        event_time: datetime | None = None,
    ) -> DatasetEvent:
        """Emit a DatasetEvent: a dataset's schema, ownership and other facets, without a run.

        Args:
            dataset: A naming result (it gets its dataSource facet) or a dataset model.
            facets: Dataset facets, merged by key over the dataset's own.
            event_time: When it was observed (with a time zone); now when ``None``.

        Returns:
            The event emitted.
        """
        from openlineage_sdk.lifecycle import dataset_event

        event = dataset_event(dataset, facets=facets, event_time=event_time, producer=self.producer)
        self.emit(event)
        return event

    def flush(self, timeout: float | None = None) -> FlushResult:
        """Wait up to ``timeout`` seconds for emitted events to be delivered.

        Args:
            timeout: seconds; ``None`` uses the transport's default.

        Returns:
            What was delivered, what is still pending in memory and what waits in the spool.
        """
        return self._finish("flush", timeout)

    def close(self, timeout: float | None = None) -> FlushResult:
        """Deliver what can be delivered within ``timeout``, keep the rest safe, release resources.

        Args:
            timeout: seconds; ``None`` uses the transport's default.

        Returns:
            The final summary.
        """
        return self._finish("close", timeout)

    def _finish(self, method: str, timeout: float | None) -> FlushResult:
        if method == "close" and self.metrics is not None:
            self.metrics.close()
        try:
            result: FlushResult = getattr(self.transport, method)(timeout)
        except Exception:
            if self.raise_on_error:
                raise
            log.exception("OpenLineage: %s of the transport failed", method)
            return FlushResult()
        return result

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
        return (
            f"OpenLineage(transport={type(self.transport).__name__}, producer={self.producer!r}, "
            f"namespace={self.namespace!r}, disabled={self.disabled})"
        )
