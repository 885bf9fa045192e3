"""The adapter on a session, and the public calls that install it: the top of one flow.

Every Spark execution the adapter reports goes one way, one layer down at each step::

    observe (a write, a statement, an action, an RDD save seen)   observe/
      -> the one template: describe, start, run, gather, finish    _flow
           -> the session asked what it reads and writes           session/ (classic | connect)
                -> the shared knowledge of Spark commands          describe/
      -> the record of the execution                               _execution
      -> events built from the record, facet builders' included   events/
      -> the client, its transport                                 openlineage_sdk.client

:func:`install` puts an adapter (:class:`SparkLineage`) on a session: it opens the session's
:class:`~openlineage_sdk.spark.session.Session` (classic or Connect), hooks the observers of that
kind, and picks the sink by mode: automatic mode makes each execution a run of the client
(``events.RunPerExecution``), explicit mode adds it to the current run (``events.IntoCurrentRun``);
a sink of one's own can be given instead.

Errors
------
Everything the adapter does runs inside ``try``: a failure is logged, noted in the record's
``problems``, and the record goes out without the part that failed. The user's call runs exactly
as it would without the adapter, and its result or exception reaches the user unchanged.
"""

from __future__ import annotations

import atexit
import dataclasses
import logging
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from openlineage_sdk.lifecycle import LineageRun
from openlineage_sdk.models.base import RunFacet
from openlineage_sdk.spark import _conf, platforms
from openlineage_sdk.spark._execution import SparkExecution, job_name
from openlineage_sdk.spark._flow import LineageSink, earlier_sink_names, pending, wait_finished
from openlineage_sdk.spark._safety import Runtime, Safety, SafetyError, parse_breaker
from openlineage_sdk.spark.events._client import configured_client, fallback_parent
from openlineage_sdk.spark.events._debug import DebugSource
from openlineage_sdk.spark.events._extensions import FacetBuilder, FacetBuilders, FacetContext
from openlineage_sdk.spark.events._facets import JOB_DETAILS_KEY, application_facets
from openlineage_sdk.spark.events._sinks import IntoCurrentRun, RunPerExecution
from openlineage_sdk.spark.executions.streams import close_streams
from openlineage_sdk.spark.observe import _hooks
from openlineage_sdk.spark.observe._actions import (
    ConnectActions,
    listen_for_jvm_commands,
    listen_for_reads,
)
from openlineage_sdk.spark.observe._merges import hook_classic_merge
from openlineage_sdk.spark.observe._pipelines import ConnectPipelines
from openlineage_sdk.spark.observe._rdd_saves import hook_rdd_saves, listen_for_jvm_rdd_jobs
from openlineage_sdk.spark.observe._statements import ConnectCommands, hook_classic_sql
from openlineage_sdk.spark.observe._streams import hook_streams
from openlineage_sdk.spark.observe._writes import hook_writers
from openlineage_sdk.spark.session import (
    Session,
    check_version,
    open_session,
    runtime_confs,
    session_kind,
)

if TYPE_CHECKING:
    import uuid
    from datetime import datetime

    from typing_extensions import Unpack

    from openlineage_sdk.client import OpenLineage
    from openlineage_sdk.lifecycle import EventMetadata, RunRef
    from openlineage_sdk.models.core import RunEvent
    from openlineage_sdk.models.facets import ParentRunFacet

__all__ = [
    "Mode",
    "SparkLineage",
    "application_run",
    "install",
    "installed",
    "uninstall",
]

log = logging.getLogger("openlineage_sdk.spark")

Mode = Literal["automatic", "explicit"]
"""How executions are reported: each as a run of its own, or into the current run."""

_drain_lock = threading.Lock()
# How long closing, flushing or exiting waits for executions still being finished.
FLUSH_TIMEOUT_S = 60.0
_drain_registered = False


def _drain_at_exit() -> None:
    """Before Python exits, report what the adapters still owe.

    An ``INSERT`` described from its own plans is finished on the adapter's finishing thread,
    once its call returned: a script that ends with one would exit before its events went out.
    Reads that end in an action reach a classic adapter from the listener bus, after the action
    returned. A script that ends with ``df.count()`` and no ``spark.stop()`` would exit before
    that callback arrives: its run lost, and the JVM logging the callback it could not make.
    Registered once, after PySpark's own exit handler, so it runs first (while py4j's callback
    server still answers); the delivery engine's own handler, registered with the client
    before, runs after it and sends what this produced.
    """
    for adapter in _hooks.adapters():
        if isinstance(adapter, SparkLineage):
            adapter.flush()


class SparkLineage:
    """The adapter on one session: its session, its observers, and where its records go."""

    def __init__(
        self,
        spark: Any,
        sink: LineageSink,
        *,
        owned_client: OpenLineage | None = None,
        input_only_runs: bool = True,
    ) -> None:
        self.spark = spark
        self.reporter: LineageSink = sink
        self._owned_client = owned_client
        self.input_only_runs = input_only_runs
        #: Seconds between two RUNNING events of a streaming query's run (``None``: 60).
        self.stream_interval: float | None = None
        #: The circuit breaker, time budgets and schema size limit (``spark._safety``).
        self.safety = Safety()
        self.session: Session = open_session(spark)
        self._closers: list[Any] = []
        if self.session.kind == "connect":
            try:
                self._closers = [ConnectCommands(self), ConnectActions(self)]
            except Exception as error:
                log.warning("openlineage: SQL statements will not be reported: %s", error)
            try:
                # On top of the SQL commands' wrapper of the same client: taken off first.
                self._closers.insert(0, ConnectPipelines(self))
            except Exception as error:
                log.warning("openlineage: pipelines will not be reported: %s", error)
        else:
            listen_for_reads(self)
            listen_for_jvm_commands(self)
            listen_for_jvm_rdd_jobs(self)

    @property
    def session_kind(self) -> str:
        """``classic`` or ``connect``."""
        return self.session.kind

    @property
    def app_name(self) -> str:
        """The session's app name."""
        return self.session.app_name

    @property
    def spark_version(self) -> str | None:
        """Spark's version."""
        return self.session.spark_version

    @property
    def sink(self) -> LineageSink:
        """Where this session's executions are reported."""
        return self.reporter

    def execution(self, method: str) -> SparkExecution:
        """The record of an execution that starts now, named by ``method`` until described."""
        session = self.session
        return SparkExecution(
            session.kind,
            method,
            session.app_name,
            method,
            spark_version=session.spark_version,
            safety=self.safety,
        )

    def replace_sink(self, sink: LineageSink, owned_client: OpenLineage | None = None) -> None:
        """Report this session's executions to ``sink`` from now on."""
        previous, self._owned_client = self._owned_client, owned_client
        self.reporter = sink
        if previous is not None:
            previous.close()

    def flush(self, timeout: float = FLUSH_TIMEOUT_S) -> bool:
        """Report what is still owed: the executions being finished, the actions' reads.

        An ``INSERT`` is reported on the adapter's finishing thread once its call returned
        (the call does not wait for its lineage), and a read that ends in an action reaches
        the adapter from Spark's listener bus after the action returned. ``uninstall`` and the
        interpreter's exit flush; call this to have every event of the calls so far sent now.

        Returns:
            ``False`` when ``timeout`` seconds (for each of the two waits) were not enough.
        """
        finished = wait_finished(timeout)
        self.session.drain()
        return wait_finished(timeout) and finished

    def drain_listeners(self) -> None:
        """Wait (bounded) until everything the adapter owes was reported (see :meth:`flush`)."""
        self.flush()

    def close(self) -> None:
        """Unregister what the adapter registered on the session; close a client it made.

        What the session still owes (the last action's read, on the listener bus) is reported
        first.
        """
        self.flush()
        close_streams(self)
        for closer in self._closers:
            closer.close()
        self._closers = []
        self.session.close()
        if self._owned_client is not None:
            self._owned_client.close()
            self._owned_client = None


def install(
    spark: Any,
    client: OpenLineage | None = None,
    *,
    mode: Mode = "automatic",
    sink: LineageSink | None = None,
    input_only_runs: bool = True,
    facet_builders: Sequence[FacetBuilder] = (),
    stream_interval: float | None = None,
) -> SparkLineage:
    """Report every write, SQL statement, read and RDD save made through ``spark``.

    Args:
        spark: A classic ``SparkSession`` or a Spark Connect one.
        client: Where automatic mode sends its events. ``None``: the transport and namespace
            of the session's ``spark.openlineage.*`` confs, else of the environment
            (:meth:`OpenLineage.from_environment`, which with nothing configured writes the JSON
            Lines file ``openlineage_events.jsonl``), closed by :func:`uninstall`. Either way
            the session's other confs (parent run, disabled facets, tags...) apply. Explicit mode
            takes no client: its executions go into the current run, through that run's client.
        mode: ``"automatic"``: every execution is a run of its own (START, then COMPLETE or
            FAIL), named ``{appName}.{command}.{table}``, a child of the enclosing run when there
            is one. ``"explicit"``: inside ``with client.run(...)``, an execution adds its
            inputs, its output and their facets to that run and emits nothing itself; outside
            every run it is not reported.
        sink: Instead of a mode, a :class:`LineageSink` of your own that receives each
            execution's :class:`SparkExecution` (``client`` and ``mode`` are then left out).
        input_only_runs: Report queries that end in an action (``collect``, ``count``,
            ``toPandas``, ``show`` ...) and read stored datasets as runs with inputs and no
            output, as the JVM agent does (classic PySpark and Spark Connect). ``False`` leaves
            them out.
        facet_builders: Facet builders whose facets join every event the adapter builds,
            before those registered through the ``openlineage_sdk.spark.facet_builders`` entry
            points (see :class:`FacetBuilder`). Not with ``sink``.
        stream_interval: Seconds between two RUNNING events of a streaming query's run: at
            most one per interval (plus one whenever the stream's datasets change). ``None``:
            the session's ``spark.openlineage.streaming.runningInterval`` conf, else 60.

    Returns:
        The adapter on this session. Installing again on the same session replaces how its
        executions are reported.

    Raises:
        ValueError: ``mode`` is not one of the two, or a client is given in explicit mode or
            with a sink, or facet builders with a sink, or ``stream_interval`` is negative.
        SparkVersionError: The session's Spark version (classic) or PySpark client's
            (Spark Connect) is not one the adapter reads (see ``docs/spark/versions.md``);
            nothing is installed and the session runs as it would without.
    """
    if mode not in ("automatic", "explicit"):
        raise ValueError(f"mode must be 'automatic' or 'explicit', got {mode!r}")
    if stream_interval is not None and not stream_interval >= 0:
        raise ValueError(f"stream_interval must be 0 or more seconds, got {stream_interval!r}")
    check_version(spark)
    owned: OpenLineage | None = None
    settings: _conf.SparkConfSettings | None = None
    descriptions = False
    interval = stream_interval
    if sink is not None:
        if client is not None or mode != "automatic":
            raise ValueError("give either a sink or a client and mode, not both")
        if facet_builders:
            raise ValueError("facet builders add to the adapter's events: a sink builds its own")
        earlier = earlier_sink_names(sink)
        if earlier:
            warnings.warn(
                f"{type(sink).__name__} has the LineageSink methods' earlier names "
                f"({', '.join(earlier)}): they are called for now, but are deprecated; name them "
                "execution_started, execution_finished and execution_running",
                DeprecationWarning,
                stacklevel=2,
            )
        chosen: LineageSink = sink
    else:
        if mode == "explicit":
            if client is not None:
                raise ValueError(
                    "explicit mode reports into the current run, through that run's client; "
                    "pass no client"
                )
            settings = _conf.session_settings(spark, runtime_confs)
            chosen = IntoCurrentRun(settings, FacetBuilders(facet_builders, entry_points=True))
        else:
            # The session's spark.openlineage.* confs (parent run, transport, facets...).
            configured, settings = configured_client(spark, client, runtime_confs)
            owned = configured if client is None else None
            own = _platform_builders(settings.platform, configured.producer)
            builders = FacetBuilders([*own, *facet_builders], entry_points=True)
            chosen = RunPerExecution(configured, settings, builders)
        descriptions = settings.descriptions
        if interval is None:
            interval = settings.stream_interval
        if descriptions and session_kind(spark) == "connect":
            log.error(
                "openlineage: %scolumnLineage.descriptionsEnabled=true is not supported under "
                "Spark Connect, whose client sees no expression's SQL text; the conf is left out",
                _conf.CONF_PREFIX,
            )
            descriptions = False
    existing = _hooks.adapter_of(spark)
    if isinstance(existing, SparkLineage):
        existing.replace_sink(chosen, owned)
        existing.input_only_runs = input_only_runs
        existing.session.descriptions = descriptions
        existing.session.job_details = _job_details(chosen, settings)
        _debug_facet(chosen, existing.session, settings)
        existing.stream_interval = interval
        existing.safety = _session_safety(existing.session, settings, owned or client)
        _name_catalog_tables(existing.session, settings)
        return existing
    adapter = SparkLineage(spark, chosen, owned_client=owned, input_only_runs=input_only_runs)
    adapter.session.descriptions = descriptions
    adapter.session.job_details = _job_details(chosen, settings)
    _debug_facet(chosen, adapter.session, settings)
    adapter.stream_interval = interval
    adapter.safety = _session_safety(adapter.session, settings, owned or client)
    _name_catalog_tables(adapter.session, settings)
    _hooks.register(spark, adapter)
    hook_writers(adapter.session.kind)
    hook_streams(adapter.session.kind)
    if adapter.session.kind == "classic":
        hook_classic_sql()
        hook_classic_merge()
        hook_rdd_saves()
    global _drain_registered
    with _drain_lock:
        if not _drain_registered:
            atexit.register(_drain_at_exit)
            _drain_registered = True
    return adapter


def _session_safety(
    session: Session, settings: _conf.SparkConfSettings | None, client: OpenLineage | None
) -> Safety:
    """The session's safety limits: its confs', else the client configuration's breaker."""
    safety = dataclasses.replace(settings.safety) if settings is not None else Safety()
    section = client.config.circuit_breaker if client is not None else {}
    if safety.breaker is None and section:
        try:
            safety.breaker = parse_breaker(section, "circuitBreaker.")
        except SafetyError as error:
            log.error("openlineage: the configuration's circuit breaker is left out: %s", error)
    if safety.breaker is not None:
        jvm = getattr(session.spark, "_jvm", None) if session.kind == "classic" else None
        safety.breaker.runtime = Runtime(jvm)
        safety.breaker.pending = pending
        safety.breaker.start()
    return safety


def _debug_facet(
    sink: LineageSink, session: Session, settings: _conf.SparkConfSettings | None
) -> None:
    """Give the sink what builds the ``debug`` facet, when the confs ask for it."""
    if not isinstance(sink, RunPerExecution):
        return
    if settings is None or not settings.debug.active:
        sink.debug = None
        return
    try:
        confs = _conf.session_confs(session.spark, runtime_confs)
    except Exception as error:  # the facet still says what the driver is
        log.debug("openlineage: reading the confs for the debug facet failed: %s", error)
        confs = {}
    registry = sink.client.metrics

    def metrics() -> list[dict[str, Any]]:
        return [meter.to_dict() for meter in registry.snapshot()] if registry else []

    sink.debug = DebugSource(
        settings.debug,
        confs,
        session.debug_facts,
        session.debug_memory,
        metrics if registry is not None else None,
    )


def _job_details(sink: LineageSink, settings: _conf.SparkConfSettings | None) -> bool:
    """Whether the calls' Spark jobs are read: unless ``spark_jobDetails`` is disabled, or the
    executions go into the user's run (explicit mode), which spans many jobs."""
    if isinstance(sink, IntoCurrentRun):
        return False
    return settings is None or JOB_DETAILS_KEY not in settings.disabled_facets


# -- the platform the driver runs on (see spark.platforms)


def _name_catalog_tables(session: Session, settings: _conf.SparkConfSettings | None) -> None:
    """Name the session catalog's tables as the platform does: a Glue Data Catalog's tables by
    its ARN (before a Hive metastore's URI, which a Glue catalog has too), Unity Catalog's when
    no Hive metastore names them, as the JVM agent's ``PathUtils`` orders its rules."""
    platform = settings.platform if settings is not None else None
    if platform is None or platform.catalog is None:
        return
    if platform.catalog.startswith("arn:") or session.hive_metastore is None:
        session.hive_metastore = platform.catalog


def _platform_builders(platform: platforms.Platform | None, producer: str) -> list[FacetBuilder]:
    """On Dataproc, an execution's ``gcp_dataproc`` names its query's node: the command part of
    its job name, which is the executed plan's node the agent reads (not for RDD jobs, which
    have no query, as in the agent)."""
    if platform is None or platform.dataproc is None:
        return []
    dataproc = platform

    def gcp_dataproc(context: FacetContext) -> None:
        execution = context.execution
        if context.event_type != "START" or execution.job_type == "RDD_JOB":
            return
        facet = dataproc.dataproc_facet(producer, execution.command)
        if isinstance(facet, RunFacet):
            context.add(facet)

    return [gcp_dataproc]


def uninstall(spark: Any) -> None:
    """Stop reporting ``spark``'s executions. Its calls pass straight through again.

    A client :func:`install` made itself is closed (its events delivered or kept safe). The
    events still owed (a short ``INSERT``'s, finished on the adapter's thread) go out first.
    Nothing happens for a session the adapter is not installed on.

    Args:
        spark: A classic ``SparkSession`` or a Spark Connect one.
    """
    adapter = _hooks.unregister(spark)
    if isinstance(adapter, SparkLineage):
        adapter.close()


def installed(spark: Any) -> SparkLineage | None:
    """The adapter installed on ``spark``, if any.

    Args:
        spark: A classic ``SparkSession`` or a Spark Connect one.

    Returns:
        The :class:`SparkLineage` :func:`install` returned for the session (its ``flush()``
        sends the events still owed), or ``None``.
    """
    adapter = _hooks.adapter_of(spark)
    return adapter if isinstance(adapter, SparkLineage) else None


def application_run(
    spark: Any,
    client: OpenLineage | None = None,
    *,
    namespace: str | None = None,
    run_id: str | uuid.UUID | None = None,
    nominal_time: datetime | None = None,
    parent: LineageRun | RunRef | ParentRunFacet | Literal["auto"] | None = "auto",
) -> LineageRun:
    """The Spark application's own run: the parent of its executions' runs in automatic mode.

    ::

        with application_run(spark, client):   # START ... COMPLETE (or FAIL)
            orders.write.parquet(path)          # a run of its own, a child of the application's

    The job is named ``{appName}`` by the naming conventions and carries the ``jobType`` facet
    (``APPLICATION``, processing type ``NONE``, integration ``SPARK``) and the
    ``processing_engine`` run facet, as the JVM agent marks an application's run.

    Args:
        spark: The session (classic or Connect); gives the app name and Spark's version.
        client: Where the run's events go. ``None``: the client of the adapter installed on
            ``spark`` in automatic mode (else one from the session's confs and the environment).
        namespace: The job namespace; the client's when ``None``.
        run_id: The run id; a new UUIDv7 when ``None``.
        nominal_time: The scheduled start, for the nominalTime facet.
        parent: As :meth:`OpenLineage.run`: the enclosing run by default (a scheduler's task).

    Returns:
        The run, not started: use it as a context manager, or call ``start()`` yourself.
    """
    adapter = installed(spark)
    if adapter is not None:
        app_name, version = adapter.app_name, adapter.spark_version
    else:
        app_name, version = _application(spark)
    # The session's spark.openlineage.* confs: app name, run id, parent, namespace (see _conf).
    # The automatic mode's sink (a RunPerExecution) holds the client, the failed children's
    # counts and the parent of the commands heard from Spark's listener bus; other sinks none.
    sink = (
        adapter.reporter
        if adapter is not None and isinstance(adapter.reporter, RunPerExecution)
        else None
    )
    if client is None and sink is not None:
        client = sink.client
    client, settings = configured_client(spark, client, runtime_confs)
    app_name = settings.app_name or app_name
    run_id = run_id if run_id is not None else settings.application_run_id
    if parent == "auto":
        parent = fallback_parent(settings)
    if namespace is None and settings.namespace is not None:
        namespace = client.namespace
    run_facets, job_facets = application_facets(version, client.producer)
    failed_children: Callable[[str], int] | None = None
    if settings.fail_on_child_failure and sink is not None:
        counts = sink.failed_children
        failed_children = lambda run_id: counts.get(run_id, 0)  # noqa: E731
    application = _ApplicationRun(
        client,
        job_name(app_name, None, None),
        namespace=namespace,
        run_facets=run_facets,
        job_facets=job_facets,
        run_id=run_id,
        nominal_time=nominal_time,
        parent=parent,
    )
    application.failed_children = failed_children
    application.sink = sink
    return application


class _ApplicationRun(LineageRun):
    """The application's run, which ends after the executions it is the parent of.

    An ``INSERT``'s end may still be on the adapter's finishing thread when the application's
    block ends: its COMPLETE, FAIL or ABORT waits (bounded) for those first, so the application's
    end is its last event. With ``spark.openlineage.application.failOnChildFailure``
    (``failed_children`` set) a COMPLETE becomes a FAIL when runs under it failed.
    """

    #: How many runs under a run (by its id) ended FAIL; ``None``: the application's end
    #: does not depend on them (the conf is off, as by default).
    failed_children: Callable[[str], int] | None = None
    #: The adapter's sink: while the run is open, its ``heard_parent``, the parent of the
    #: commands heard from Spark's listener bus (started from JVM code), which no call of the
    #: user's, in no thread's run, gives one.
    sink: RunPerExecution | None = None

    def start(self, **metadata: Unpack[EventMetadata]) -> RunEvent:
        event = super().start(**metadata)
        sink = self.sink
        if sink is not None and sink.heard_parent is None:
            sink.heard_parent = self
        return event

    def _released(self) -> None:
        sink = self.sink
        if sink is not None and sink.heard_parent is self:
            sink.heard_parent = None

    def complete(self, **metadata: Unpack[EventMetadata]) -> RunEvent:
        wait_finished(FLUSH_TIMEOUT_S)
        self._released()
        counted = self.failed_children
        failed = counted(self.run_id) if counted is not None else 0
        if failed:
            plural = "run" if failed == 1 else "runs"
            return super().fail(
                f"{failed} {plural} of the application failed "
                "(spark.openlineage.application.failOnChildFailure)",
                **metadata,
            )
        return super().complete(**metadata)

    def fail(
        self,
        error: BaseException | str | None = None,
        *,
        stack_trace: str | None = None,
        **metadata: Unpack[EventMetadata],
    ) -> RunEvent:
        wait_finished(FLUSH_TIMEOUT_S)
        self._released()
        return super().fail(error, stack_trace=stack_trace, **metadata)

    def abort(self, **metadata: Unpack[EventMetadata]) -> RunEvent:
        wait_finished(FLUSH_TIMEOUT_S)
        self._released()
        return super().abort(**metadata)


def _application(spark: Any) -> tuple[str, str | None]:
    """The session's app name and Spark's version (``"spark"`` and ``None`` when unreadable)."""
    try:
        return spark.conf.get("spark.app.name", "spark") or "spark", str(spark.version)
    except Exception as error:
        log.warning("openlineage: reading the session configuration failed: %s", error)
        return "spark", None
