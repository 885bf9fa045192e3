"""Write interception: one user write, one record of its lineage, in classic PySpark and Connect.

How writes are seen
-------------------
The adapter wraps the public write methods of PySpark's ``DataFrameWriter`` and
``DataFrameWriterV2`` (``save``, ``parquet``, ``saveAsTable``, ``insertInto``, ``jdbc``, ...,
``create``, ``append``, ...), for the classic classes and the Connect classes alike. A wrapped
call on a session the adapter is installed on becomes one write: one start (its target read
before Spark runs it, what it reads described beside it in classic mode, before it under
Connect), one finish after, whatever Spark does inside (``saveAsTable`` alone runs three or four
commands).
Calls the wrappers make to each other (Connect's ``parquet`` calls ``save``) are one write, not
two. Writers of other sessions pass straight through.

The alternative, a JVM ``QueryExecutionListener`` as the source of writes, exists only in classic
mode, sees each command rather than each user write (so it would need to merge ``saveAsTable``'s
commands back into one), and cannot emit a start before the write. It is used, in classic mode
only, for what only it can give: the write command's own metrics (see ``_classic``).

How statements and reads are seen (classic PySpark)
---------------------------------------------------
``SparkSession.sql`` is wrapped too: a statement that writes or changes datasets is described
by the session's own analyzer, without executing it (``_statements``), before it runs (or, for an
``INSERT`` into a table, whose datasets do not change while it runs, on a thread beside it), and
goes to the sink as a write of its own (START, then COMPLETE or FAIL after, the command's metrics
from the listener). Queries that end in an action reach the adapter through the listener, after
the action, and become runs with inputs only (``input_only_runs``). One flow in every case:
observe an execution, describe its datasets (``_classic``, ``_statements``), build the events
(``_events``).

How RDD writes are seen (classic PySpark)
-----------------------------------------
PySpark's ``RDD`` save methods (``saveAsTextFile``, the Hadoop writers ...) are wrapped like the
DataFrame writers: a save of an RDD of an installed session's SparkContext is a write of its
own (job type ``RDD_JOB``), its inputs found through the RDD's lineage and its statistics read
from Spark's status store for the jobs the save ran (``_rdd``).

Where writes go
---------------
Each write is handed to a :class:`LineageSink`: ``write_started`` once it is described (with the
inputs, the output, schemas and column lineage; in classic mode on a thread of the adapter's,
while Spark runs the write), ``write_finished`` after (with the statistics, or the error), never
before it. :func:`install` picks the sink by mode: automatic mode makes each write a run of
the client (``_events.RunPerWrite``), explicit mode adds it to the current run
(``_events.IntoCurrentRun``); a sink of one's own can be given instead.

Errors
------
Everything the adapter does runs inside ``try``: a failure is logged, noted in the record's
``problems``, and the record goes out without the part that failed. The user's write runs exactly
as it would without the adapter, and its result or exception reaches the user unchanged.
"""

from __future__ import annotations

import atexit
import contextvars
import functools
import importlib
import inspect
import logging
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from openlineage_sdk.spark import _classic, _conf, _connect, _connect_statements, _rdd, _statements
from openlineage_sdk.spark._events import IntoCurrentRun, RunPerWrite, application_facets
from openlineage_sdk.spark._naming import job_name
from openlineage_sdk.spark._records import (
    CatalogInfo,
    DatasetIdentity,
    DatasetLineage,
    IoStats,
    note_problem,
    start_beside,
)
from openlineage_sdk.spark._schema import schema_fields
from openlineage_sdk.spark._tables import describe_table, planned_table, table_identity

if TYPE_CHECKING:
    import uuid
    from datetime import datetime

    from openlineage_sdk.client import OpenLineage
    from openlineage_sdk.lifecycle import LineageRun, RunRef
    from openlineage_sdk.models.facets import ParentRunFacet

__all__ = [
    "LineageSink",
    "Mode",
    "SessionKind",
    "SparkLineage",
    "WriteLineage",
    "application_run",
    "install",
    "installed",
    "uninstall",
]

log = logging.getLogger("openlineage_sdk.spark")

SessionKind = Literal["classic", "connect"]
"""Whether a session is classic PySpark (a JVM in this process) or a Spark Connect client."""

Mode = Literal["automatic", "explicit"]
"""How writes are reported: each as a run of its own, or into the current run."""

# The confs that name the Hive metastore, in the order the JVM agent reads them.
_METASTORE_KEYS = (
    "spark.sql.hive.metastore.uris",
    "hive.metastore.uris",
    "spark.hadoop.hive.metastore.uris",
)

_FILE_FORMATS = frozenset({"parquet", "orc", "csv", "json", "text", "avro", "xml", "binaryfile"})

# The writer methods that run a write, per class; each is one write of the adapter.
_WRITER_METHODS = (
    "save",
    "saveAsTable",
    "insertInto",
    "parquet",
    "csv",
    "json",
    "orc",
    "text",
    "jdbc",
    "xml",
)
_WRITER_V2_METHODS = (
    "create",
    "replace",
    "createOrReplace",
    "append",
    "overwrite",
    "overwritePartitions",
)

# The command part of the job name, per method: the Spark command that method runs on the
# session catalog, named as the JVM agent names it. It depends on the call alone, so the same
# write gets the same job name in classic mode and under Connect, before and after it runs.
_V2_COMMANDS = {
    "create": "create_table_as_select",
    "replace": "replace_table_as_select",
    "createOrReplace": "replace_table_as_select",
    "append": "append_data",
    "overwrite": "overwrite_by_expression",
    "overwritePartitions": "overwrite_partitions_dynamic",
}


@dataclass
class WriteLineage:
    """Everything the adapter learned about one write.

    ``started`` and ``finished`` are the wall-clock times around the write; ``error`` is the
    exception the write raised, if it did. ``problems`` lists what the adapter could not learn,
    each with its reason; the matching facets are absent, never filled with a guess.
    """

    session_kind: SessionKind
    method: str
    app_name: str
    command: str
    job_name: str
    inputs: list[DatasetLineage] = field(default_factory=list)
    output: DatasetLineage | None = None
    problems: list[str] = field(default_factory=list)
    started: float = 0.0
    finished: float | None = None
    error: BaseException | None = None
    spark_version: str | None = None
    output_changed: bool = False
    """The output was (re)described after the statement ran: the end carries all its facets."""
    job_type: str = "SQL_JOB"
    """The ``jobType`` facet's type: ``RDD_JOB`` for RDD actions, as the JVM agent marks them."""


class LineageSink(Protocol):
    """Where the adapter reports writes: a run of the lifecycle client, or one run per write."""

    def write_started(self, write: WriteLineage) -> None:
        """The write is described: inputs, output, schemas and column lineage are filled in.

        Called once per write, before :meth:`write_finished`: for a classic DataFrame write and
        an ``INSERT`` from a thread of the adapter's while Spark runs it (with the caller's
        context variables), otherwise before it runs.
        """

    def write_finished(self, write: WriteLineage) -> None:
        """The write ran (``write.error`` tells whether it failed); statistics are filled in."""


# ------------------------------------------------------------------------------- registry


_registry: weakref.WeakKeyDictionary[Any, SparkLineage] = weakref.WeakKeyDictionary()
_registry_lock = threading.Lock()


def _drain_listeners_at_exit() -> None:
    """Before Python exits, let Spark's listener bus hand the last actions over to the adapters.

    Reads that end in an action reach the adapter from the listener bus, after the action
    returned. A script that ends with ``df.count()`` and no ``spark.stop()`` would exit before
    that callback arrives: its run lost, and the JVM logging the callback it could not make.
    Registered once, after PySpark's own exit handler, so it runs first (while py4j's
    callback server still answers); the delivery engine's own handler, registered with the
    client before, runs after it and sends what this produced.
    """
    with _registry_lock:
        adapters = [a for a in _registry.values() if a.session_kind == "classic"]
    for adapter in adapters:
        adapter.drain_listeners()


_drain_registered = False
_next_tag = 0  # the last job tag handed out (see SparkLineage._tag_jobs)
_drain_lock = threading.Lock()
_patched: set[tuple[type, str]] = set()  # (class, method) wrapped already, for the process
_in_write: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "openlineage_in_write", default=False
)


def session_kind(spark: Any) -> SessionKind:
    """Whether ``spark`` is a classic session or a Spark Connect one."""
    return "connect" if type(spark).__module__.startswith("pyspark.sql.connect") else "classic"


def _application(spark: Any) -> tuple[str, str | None]:
    """The session's app name and Spark's version (``"spark"`` and ``None`` when unreadable)."""
    try:
        return spark.conf.get("spark.app.name", "spark") or "spark", str(spark.version)
    except Exception as error:
        log.warning("openlineage: reading the session configuration failed: %s", error)
        return "spark", None


def install(
    spark: Any,
    client: OpenLineage | None = None,
    *,
    mode: Mode = "automatic",
    sink: LineageSink | None = None,
    input_only_runs: bool = True,
) -> SparkLineage:
    """Report every write made through ``spark``'s DataFrame writers.

    Args:
        spark: A classic ``SparkSession`` or a Spark Connect one.
        client: Where automatic mode sends its events. ``None``: the transport and namespace
            of the session's ``spark.openlineage.*`` confs, else of the environment
            (:meth:`OpenLineage.from_environment`, which with nothing configured writes the JSON
            Lines file ``openlineage_events.jsonl``), closed by :func:`uninstall`. Either way
            the session's other confs (parent run, disabled facets, tags...) apply. Explicit mode
            takes no client: its writes go into the current run, through that run's client.
        mode: ``"automatic"``: every write is a run of its own (START, then COMPLETE or FAIL),
            named ``{appName}.{command}.{table}``, a child of the enclosing run when there is
            one. ``"explicit"``: inside ``with client.run(...)``, a write adds its inputs, its
            output and their facets to that run and emits nothing itself; outside every run it
            is not reported.
        sink: Instead of a mode, a :class:`LineageSink` of your own that receives each write's
            :class:`WriteLineage` (``client`` and ``mode`` are then left out).
        input_only_runs: Report queries that end in an action (``collect``, ``count``,
            ``toPandas``, ``show`` ...) and read stored datasets as runs with inputs and no
            output, as the JVM agent does (classic PySpark and Spark Connect). ``False`` leaves
            them out.

    Returns:
        The adapter on this session. Installing again on the same session replaces how its
        writes are reported.

    Raises:
        ValueError: ``mode`` is not one of the two, or a client is given in explicit mode or
            with a sink.
    """
    if mode not in ("automatic", "explicit"):
        raise ValueError(f"mode must be 'automatic' or 'explicit', got {mode!r}")
    owned: OpenLineage | None = None
    if sink is not None:
        if client is not None or mode != "automatic":
            raise ValueError("give either a sink or a client and mode, not both")
        chosen: LineageSink = sink
    elif mode == "explicit":
        if client is not None:
            raise ValueError(
                "explicit mode reports into the current run, through that run's client; "
                "pass no client"
            )
        chosen = IntoCurrentRun()
    else:
        # The session's spark.openlineage.* confs (parent run, transport, facets...): see _conf.
        configured, settings = _conf.configured_client(spark, client)
        owned = configured if client is None else None
        chosen = _conf.ConfiguredSink(RunPerWrite(configured), settings)
        if settings.descriptions and session_kind(spark) == "connect":
            log.error(
                "openlineage: %scolumnLineage.descriptionsEnabled=true is not supported under "
                "Spark Connect, whose client sees no expression's SQL text; the conf is left out",
                _conf.CONF_PREFIX,
            )
    with _registry_lock:
        existing = _registry.get(spark)
        if existing is not None:
            existing.replace_sink(chosen, owned)
            existing.input_only_runs = input_only_runs
            return existing
        adapter = SparkLineage(spark, chosen, owned_client=owned, input_only_runs=input_only_runs)
        _registry[spark] = adapter
        _patch_writers(spark)
        if adapter.session_kind == "classic":
            _patch_sql(spark)
            _patch_rdd()
        return adapter


def uninstall(spark: Any) -> None:
    """Stop reporting ``spark``'s writes. Writers of that session pass straight through again.

    A client :func:`install` made itself is closed (its events delivered or kept safe).
    """
    with _registry_lock:
        adapter = _registry.pop(spark, None)
    if adapter is not None:
        adapter.close()


def application_run(
    spark: Any,
    client: OpenLineage | None = None,
    *,
    namespace: str | None = None,
    run_id: str | uuid.UUID | None = None,
    nominal_time: datetime | None = None,
    parent: LineageRun | RunRef | ParentRunFacet | Literal["auto"] | None = "auto",
) -> LineageRun:
    """The Spark application's own run: the parent of its writes' runs in automatic mode.

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
    if client is None and adapter is not None:
        client = getattr(getattr(adapter.sink, "inner", None), "client", None)
    client, settings = _conf.configured_client(spark, client)
    app_name = settings.app_name or app_name
    run_id = run_id if run_id is not None else settings.application_run_id
    run_facets, job_facets = application_facets(version, client.producer)
    return client.run(
        job_name(app_name, None, None),
        namespace=namespace,
        run_facets=run_facets,
        job_facets=job_facets,
        run_id=run_id,
        nominal_time=nominal_time,
        parent=parent,
    )


def installed(spark: Any) -> SparkLineage | None:
    """The adapter installed on ``spark``, if any."""
    return _registry.get(spark)


def _writer_classes(spark: Any) -> list[tuple[type, tuple[str, ...]]]:
    # The classic and the Connect writers are different classes with the same names.
    module = importlib.import_module(
        "pyspark.sql.connect.readwriter"
        if session_kind(spark) == "connect"
        else "pyspark.sql.readwriter"
    )
    return [
        (module.DataFrameWriter, _WRITER_METHODS),
        (module.DataFrameWriterV2, _WRITER_V2_METHODS),
    ]


def _patch_writers(spark: Any) -> None:
    """Wrap the writer classes' write methods, once per class for the whole process."""
    for cls, methods in _writer_classes(spark):
        for method in methods:
            original = cls.__dict__.get(method)
            if original is None or (cls, method) in _patched:
                continue
            _patched.add((cls, method))
            setattr(cls, method, _wrap(method, original))
        if session_kind(spark) == "classic" and cls.__name__ == "DataFrameWriterV2":
            _patch_v2_init(cls)


def _patch_sql(spark: Any) -> None:
    """Wrap the classic ``SparkSession.sql``, once for the process (see ``_statements``)."""
    cls = type(spark)
    original = cls.__dict__.get("sql")
    if original is None or (cls, "sql") in _patched:
        return
    _patched.add((cls, "sql"))

    @functools.wraps(original)
    def sql(self: Any, sqlQuery: str, args: Any = None, **kwargs: Any) -> Any:  # noqa: N803
        adapter = _registry.get(self) if not _in_write.get() else None
        if adapter is None or not isinstance(sqlQuery, str):
            return original(self, sqlQuery, args, **kwargs)
        if args or kwargs:
            # Bound or formatted by PySpark and Spark before it is parsed: described from the
            # command Spark ran, once it has run.
            if not _connect_statements.may_write(sqlQuery):
                return original(self, sqlQuery, args, **kwargs)
            return adapter.run_bound_statement(
                functools.partial(original, self, sqlQuery, args, **kwargs)
            )
        return adapter.run_statement(sqlQuery, functools.partial(original, self, sqlQuery))

    cls.sql = sql


def _patch_rdd() -> None:
    """Wrap PySpark's RDD save methods, once for the process (see ``_rdd``)."""
    from pyspark.rdd import RDD

    for method in _rdd.RDD_SAVE_METHODS:
        original = RDD.__dict__.get(method)
        if original is None or (RDD, method) in _patched:
            continue
        _patched.add((RDD, method))
        setattr(RDD, method, _wrap_rdd(method, original))


def _rdd_adapter(rdd: Any) -> SparkLineage | None:
    """The adapter of the classic session whose SparkContext ``rdd`` belongs to."""
    context = getattr(rdd, "ctx", None)
    if context is None or _in_write.get():
        return None
    with _registry_lock:
        adapters = list(_registry.values())
    for adapter in adapters:
        if adapter.session_kind == "classic" and adapter.spark.sparkContext is context:
            return adapter
    return None


def _wrap_rdd(method: str, original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def save(self: Any, *args: Any, **kwargs: Any) -> Any:
        adapter = _rdd_adapter(self)
        if adapter is None:
            return original(self, *args, **kwargs)
        return adapter.run_rdd_save(self, method, original, args, kwargs)

    return save


def _patch_v2_init(cls: type) -> None:
    # The classic DataFrameWriterV2 hands the table name to the JVM and keeps no copy; note it.
    if (cls, "__init__") in _patched:
        return
    original = cls.__dict__["__init__"]
    _patched.add((cls, "__init__"))

    @functools.wraps(original)
    def init(self: Any, df: Any, table: str) -> None:
        original(self, df, table)
        self._openlineage_table = table

    cls.__init__ = init  # type: ignore[misc]


def _wrap(method: str, original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def write(self: Any, *args: Any, **kwargs: Any) -> Any:
        adapter = _registry.get(getattr(self, "_spark", None)) if not _in_write.get() else None
        if adapter is None:
            return original(self, *args, **kwargs)
        return adapter.run_write(self, method, original, args, kwargs)

    return write


# ------------------------------------------------------------------------------- one write


@dataclass
class _Target:
    kind: Literal["path", "table", "jdbc"]
    location: str  # path, table name or JDBC URL
    fmt: str | None
    jdbc_table: str | None = None
    table_path: str | None = None
    existed: bool = False


class SparkLineage:
    """The adapter on one session: intercepts its writes and reports each one to the sink."""

    def __init__(
        self,
        spark: Any,
        sink: LineageSink,
        *,
        owned_client: OpenLineage | None = None,
        input_only_runs: bool = True,
    ) -> None:
        self.spark = spark
        self.sink = sink
        self._owned_client = owned_client
        self.session_kind = session_kind(spark)
        self._listener: _classic.WriteMetricsListener | None = None
        self._registration: _classic.ListenerRegistration | None = None
        self._hive_metastore: str | None = None
        self._default_fs: str | None = None
        self._catalog: CatalogInfo | Literal[False] | None = None  # False: not a Hive catalog
        self.listener_timeout_ms = 10_000
        self.input_only_runs = input_only_runs
        self.fast_wait_s = 0.25
        # Fixed for a session's life: read once, not on every write.
        self.app_name, self.spark_version = _application(spark)
        try:
            conf = spark.conf
            if conf.get("spark.sql.catalogImplementation", "in-memory") == "hive":
                # Where the JVM agent looks, in its order: a Hive table's symlink names this.
                for key in _METASTORE_KEYS:
                    self._hive_metastore = conf.get(key, None) or None
                    if self._hive_metastore is not None:
                        break
            if self.session_kind == "connect":
                self._default_fs = conf.get("spark.hadoop.fs.defaultFS", None)
        except Exception as error:
            log.warning("openlineage: reading the session configuration failed: %s", error)
        # -- Spark Connect: SQL statements sent through the session's client (see
        # ``_connect_statements``); the wrapper comes off in ``close``.
        self._statements: _connect_statements.ConnectStatements | None = None
        if self.session_kind == "connect":
            try:
                self._statements = _connect_statements.ConnectStatements(self)
            except Exception as error:
                log.warning("openlineage: SQL statements will not be reported: %s", error)
        # -- end of Spark Connect statements
        if self.session_kind == "classic":
            try:
                _classic.start_callback_server(spark)
                listener = _classic.WriteMetricsListener(spark._jvm)
                listener.on_query = self._query_executed
                self._registration = _classic.ListenerRegistration(spark, listener)
                self._listener = listener
                global _drain_registered
                with _drain_lock:  # install() holds _registry_lock while it builds adapters
                    if not _drain_registered:
                        atexit.register(_drain_listeners_at_exit)
                        _drain_registered = True
            except Exception as error:
                log.warning(
                    "openlineage: no write metrics listener, statistics left out: %s", error
                )

    def _query_executed(self, func_name: str, qe: Any) -> None:
        """A query ran in an action (``collect``, ``count``, ``toPandas`` ...): a run of its reads.

        Called by the listener, on Spark's listener bus, after the action: START and COMPLETE
        go out together, with the inputs and no output, as the JVM agent reports reads. Queries
        that read no dataset (local relations, ``range``) and commands are not reported.
        """
        if not self.input_only_runs:
            return
        command = _classic.executed_query_name(qe)
        if command is None:
            return
        extraction = _classic.logical_plan_extraction(
            self.spark._jvm,
            qe.analyzed(),
            self._hive_metastore,
            optimized=qe.optimizedPlan,
            descriptions=self.descriptions,
        )
        if not extraction.inputs:
            return
        lineage = self._lineage(func_name)
        lineage.command = command
        lineage.job_name = job_name(self.app_name, command, None)
        lineage.inputs = [
            DatasetLineage(i, "input", extraction.schemas.get((i.namespace, i.name)))
            for i in extraction.inputs
        ]
        lineage.problems.extend(extraction.problems)
        self._notify("write_started", lineage)
        lineage.finished = time.time()
        self._notify("write_finished", lineage)

    def _catalog_info(self) -> CatalogInfo | None:
        """The session catalog as the ``catalog`` facet describes it, for Hive sessions."""
        if self._catalog is not None:
            return self._catalog or None
        try:
            conf = self.spark.conf
            if conf.get("spark.sql.catalogImplementation", "in-memory") != "hive":
                self._catalog = False
                return None
            warehouse = conf.get("spark.sql.warehouse.dir", None)
            uri = self._qualify(warehouse).rstrip("/") if warehouse else None
            self._catalog = CatalogInfo("hive", "hive", "spark_catalog", uri)
        except Exception as error:
            log.debug("openlineage: reading the catalog failed: %s", error)
            self._catalog = False
        return self._catalog or None

    def run_statement(self, text: str, run: Callable[[], Any]) -> Any:
        """Run one SQL statement (``run``) with lineage around it, when it is a known command.

        Queries and commands that touch no dataset run as they are: a query's lineage is its
        action's. Everything the adapter does here is guarded: the statement runs, and its
        result or exception reaches the caller unchanged.

        A statement is described before it runs, since what it changes must be read before
        (a ``DROP``'s table), but for an ``INSERT`` into a table: what the adapter reads of it
        (the query's inputs and plans, the target table) does not change while it runs, so the
        session's analyzer and optimizer describe it on a thread of the adapter's while Spark
        runs it, and START goes out when that is done. COMPLETE (or FAIL) waits for the
        description, so a run's events keep their order.
        """
        lineage = self._lineage("sql")
        described: list[_statements.Statement | None] = [None]

        def describe() -> None:
            try:
                described[0] = self._describe_statement(text, lineage)
                if described[0] is not None:
                    self._notify("write_started", lineage)
            except Exception as error:  # never the user's statement's problem
                log.warning("openlineage: describing the statement failed: %s", error)

        listener = self._listener
        beside: threading.Thread | None = None
        if _connect_statements.described_beside(text):
            token = listener.begin() if listener is not None else None
            beside = start_beside(describe, name="openlineage-describe")
        else:
            describe()
            if described[0] is None:
                return run()
            writes = described[0].writes_data
            token = listener.begin() if listener is not None and writes else None
        guard = _in_write.set(True)
        try:
            return run()
        except BaseException as error:
            lineage.error = error
            raise
        finally:
            _in_write.reset(guard)
            if beside is not None:
                beside.join()
            statement = described[0]
            if statement is not None:
                self._statement_finished(lineage, statement, token)
            elif token is not None and listener is not None:
                listener.end(token)

    def run_bound_statement(self, run: Callable[[], Any]) -> Any:
        """Run a statement with parameters or format arguments, described once it has run.

        PySpark formats the text (``{df}`` becomes a temporary view) and Spark binds the
        parameters while parsing it, so the text the adapter sees is not the statement that
        runs; the command Spark ran is in the result's ``QueryExecution``, and the run is
        described from it: its START and COMPLETE go out when the statement returns. A
        statement that fails leaves no ``QueryExecution`` behind: its run is START and FAIL with
        the error and no datasets, and its ``extractionError`` facet says why.
        """
        lineage = self._lineage("sql")
        listener = self._listener
        token = listener.begin() if listener is not None else None
        statement: _statements.Statement | None = None
        guard = _in_write.set(True)
        try:
            result = run()
        except BaseException as error:
            lineage.error = error
            lineage.finished = time.time()
            statement = self._describe_failed(lineage, token)
            if statement is None:
                lineage.problems.append(
                    "statement: a statement with parameters or format arguments is described "
                    "from the command Spark ran, and it failed before there was one"
                )
            raise
        else:
            try:
                statement = self._describe_statement(None, lineage, result._jdf.queryExecution())
            except Exception as error:  # never the user's statement's problem
                log.warning("openlineage: describing the statement failed: %s", error)
            return result
        finally:
            _in_write.reset(guard)
            no_metrics = statement is None or not statement.writes_data
            if token is not None and listener is not None and no_metrics:
                listener.end(token)  # no write metrics to wait for
                token = None
            if statement is not None:
                self._notify("write_started", lineage)
                self._statement_finished(lineage, statement, token)
            elif lineage.error is not None:
                self._notify("write_started", lineage)
                self._notify("write_finished", lineage)

    def _describe_failed(
        self, lineage: WriteLineage, token: int | None
    ) -> _statements.Statement | None:
        """A failed bound statement, from the command the session's listener saw fail.

        A command that fails while it runs (not while Spark parses or analyzes it) is handed
        to the listener's ``onFailure`` with its ``QueryExecution``; the listener bus is
        drained (bounded) for it before the user's exception goes on. ``None`` when no single
        failed command arrived.
        """
        listener = self._listener
        if listener is None or token is None:
            return None
        try:
            if not _classic.wait_for_listeners(self.spark, self.listener_timeout_ms):
                return None
            failed = listener.collector(token).failed
            if len(failed) != 1:
                return None
            return self._describe_statement(None, lineage, failed[0])
        except Exception as error:  # never the user's statement's problem
            log.warning("openlineage: describing the failed statement failed: %s", error)
            return None

    def _describe_statement(
        self, text: str | None, lineage: WriteLineage, executed: Any = None
    ) -> _statements.Statement | None:
        """What the statement does, into ``lineage``; ``None`` when it is not reported.

        Read from ``text`` before it runs, or (``text`` ``None``) from ``executed``, the JVM
        ``QueryExecution`` of the command Spark ran, after.
        """
        guard = _in_write.set(True)
        statement: _statements.Statement | None = None
        try:
            if text is None:
                statement = _statements.describe_executed(
                    self.spark, executed, self._hive_metastore, self.descriptions
                )
            else:
                _plan, statement = _statements.describe_statement(
                    self.spark, text, self._hive_metastore, self.descriptions
                )
        except Exception as error:
            # Spark will report a statement that does not parse or analyze itself, as it is.
            log.debug("openlineage: the statement was not described: %s", error)
        finally:
            _in_write.reset(guard)
        if statement is None:
            return None
        lineage.command = statement.command
        lineage.inputs = statement.inputs
        lineage.output = statement.output
        lineage.problems.extend(statement.problems)
        catalog = self._catalog_info()
        if statement.output is not None and catalog is not None:
            statement.output.catalog = catalog
        lineage.job_name = job_name(self.app_name, statement.command, statement.table)
        return statement

    def _statement_finished(
        self, lineage: WriteLineage, statement: _statements.Statement, token: int | None
    ) -> None:
        lineage.finished = time.time()
        try:
            self._after_statement(lineage, statement, token, self._catalog_info())
        except Exception as error:
            self._problem(lineage, "after the statement", error)
        self._notify("write_finished", lineage)

    def _after_statement(
        self,
        lineage: WriteLineage,
        statement: _statements.Statement,
        token: int | None,
        catalog: CatalogInfo | None,
    ) -> None:
        if token is not None:
            try:
                self._classic_stats(lineage, token, _Target("table", "", None))
            except Exception as error:
                self._problem(lineage, "statistics", error)
        if statement.refresh is not None and lineage.error is None:
            guard = _in_write.set(True)
            try:
                output = statement.refresh()
            except Exception as error:
                self._problem(lineage, "output after the statement", error)
                return
            finally:
                _in_write.reset(guard)
            if output is not None and catalog is not None:
                output.catalog = catalog
            lineage.output = output
            lineage.output_changed = True

    def _schema(self, df: Any) -> Any:
        """``df.schema``; in classic mode read without py4j's delay for long answers."""
        if self.session_kind == "classic":
            return _classic.frame_schema(df)
        return df.schema

    @property
    def descriptions(self) -> bool:
        """Whether column lineage transformations carry descriptions (classic sessions only).

        ``spark.openlineage.columnLineage.descriptionsEnabled``: each description is Spark's SQL
        text of an expression of the optimized plan, which only the driver's JVM can write.
        """
        sink = self.sink
        return (
            self.session_kind == "classic"
            and isinstance(sink, _conf.ConfiguredSink)
            and sink.settings.descriptions
        )

    def replace_sink(self, sink: LineageSink, owned_client: OpenLineage | None = None) -> None:
        """Report this session's writes to ``sink`` from now on."""
        previous, self._owned_client = self._owned_client, owned_client
        self.sink = sink
        if previous is not None:
            previous.close()

    def drain_listeners(self) -> None:
        """Wait (bounded) until the listener bus delivered what the session's actions posted."""
        if self._listener is None:
            return
        try:
            if not self.spark._jsc.sc().isStopped():
                _classic.wait_for_listeners(self.spark, self.listener_timeout_ms)
        except Exception as error:  # the session or its JVM is already gone
            log.debug("openlineage: draining the listener bus failed: %s", error)

    def close(self) -> None:
        """Unregister what the adapter registered on the session; close a client it made.

        The listener bus is drained first, so the last action's run is reported.
        """
        if self._statements is not None:  # Spark Connect statements
            self._statements.close()
            self._statements = None
        self.drain_listeners()
        if self._listener is not None:
            # Whatever the session still delivers to it, it reports nothing from now on.
            self._listener.on_query = None
            self._listener = None
        if self._registration is not None:
            try:
                self._registration.remove()
            except Exception as error:
                log.warning("openlineage: unregistering the listener failed: %s", error)
            self._registration = None
        if self._owned_client is not None:
            self._owned_client.close()
            self._owned_client = None

    # -- the write

    def run_write(
        self,
        writer: Any,
        method: str,
        original: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Any:
        """Run one user write with lineage around it; returns what the write returns.

        What the write targets (the output, its lifecycle, the job's name) is read before it
        runs, since the write changes it; what it reads (inputs, schemas, column lineage) does
        not change while it runs, and in classic mode is described on a thread of the adapter's
        beside it, the START going out when that is done (under Connect, before it). The finish
        waits for the description, so a run's events keep their order.
        """
        describe: Callable[[], None] | None = None
        try:
            lineage, target, describe = self._before(writer, method, original, args, kwargs)
        except Exception as error:  # whatever broke, the write still runs, with what is known
            lineage, target = self._lineage(method), None
            self._problem(lineage, "lineage", error)

        def started() -> None:
            if describe is not None:
                try:
                    describe()
                except Exception as error:
                    self._problem(lineage, "inputs", error)
            self._notify("write_started", lineage)

        beside: threading.Thread | None = None
        if self.session_kind == "classic":
            beside = start_beside(started, name="openlineage-describe")
        else:
            # The Connect server analyses a DataFrame's plan when the description first sends
            # it, and keeps the analysis for the write; sent at once, both would be analysed
            # (a CSV header inferred twice: a Spark job of the adapter's).
            started()
        observation = self._observation(writer, lineage)
        token = self._listener.begin() if self._listener is not None else None
        guard = _in_write.set(True)
        try:
            if observation is not None:
                with observation:
                    result = original(writer, *args, **kwargs)
            else:
                result = original(writer, *args, **kwargs)
        except BaseException as error:
            lineage.error = error
            raise
        finally:
            _in_write.reset(guard)
            lineage.finished = time.time()
            if beside is not None:
                beside.join()
            try:
                self._after(lineage, target, observation, token)
            except Exception as error:
                self._problem(lineage, "after the write", error)
            self._notify("write_finished", lineage)
        return result

    def run_rdd_save(
        self,
        rdd: Any,
        method: str,
        original: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Any:
        """Run one RDD save (``saveAsTextFile`` ...) as a run of its own (see ``_rdd``)."""
        lineage = self._lineage(method)
        lineage.job_type = "RDD_JOB"
        try:
            self._describe_rdd_save(lineage, rdd, method, args, kwargs)
        except Exception as error:  # whatever broke, the save still runs, with what is known
            self._problem(lineage, "lineage", error)
        self._notify("write_started", lineage)
        tag = self._tag_jobs()
        guard = _in_write.set(True)
        try:
            result = original(rdd, *args, **kwargs)
        except BaseException as error:
            lineage.error = error
            raise
        finally:
            _in_write.reset(guard)
            lineage.finished = time.time()
            try:
                self._rdd_stats(lineage, tag)
            except Exception as error:
                self._problem(lineage, "statistics", error)
            self._notify("write_finished", lineage)
        return result

    def _describe_rdd_save(
        self,
        lineage: WriteLineage,
        rdd: Any,
        method: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> None:
        jvm = self.spark._jvm
        source = _rdd.source_jrdd(rdd).rdd()  # the Scala RDD under PySpark's JavaRDD
        try:
            lineage.command = _rdd.rdd_job_suffix(jvm, source)
        except Exception as error:
            self._problem(lineage, "job name", error)
            lineage.command = "rdd"
        lineage.job_name = job_name(self.app_name, lineage.command, None)
        path = _rdd.save_path(method, args, kwargs)
        if path is None:
            lineage.problems.append(f"output: {method} was given no output path")
        else:
            try:
                lineage.output = DatasetLineage(self._path_identity(path), "output")
            except Exception as error:
                self._problem(lineage, "output dataset", error)
        found = _rdd.rdd_inputs(jvm, source)
        lineage.inputs = [DatasetLineage(identity, "input") for identity in found.identities]
        for problem in found.problems:
            lineage.problems.append(problem)
            log.warning("openlineage: %s", problem)

    def _tag_jobs(self) -> str | None:
        """Tag the jobs this thread starts from now on, beside the user's own tags."""
        global _next_tag
        with _drain_lock:
            _next_tag += 1
            tag = f"openlineage-sdk-{_next_tag}"
        try:
            self.spark._jsc.addJobTag(tag)
        except Exception as error:  # a Spark without job tags: no statistics
            log.debug("openlineage: tagging the RDD's jobs failed: %s", error)
            return None
        return tag

    def _rdd_stats(self, lineage: WriteLineage, tag: str | None) -> None:
        if tag is None:
            return
        try:
            self.spark._jsc.removeJobTag(tag)
        except Exception as error:
            log.debug("openlineage: removing the job tag failed: %s", error)
        if lineage.error is not None:
            return
        if not _classic.wait_for_listeners(self.spark, self.listener_timeout_ms):
            lineage.problems.append("statistics: the listener bus did not drain in time")
            return
        stats = _rdd.job_stats(self.spark, tag)
        if stats is None:
            return
        # Statistics of an input only when the save read one dataset, as the JVM agent: with
        # several, what each read is not known.
        if len(lineage.inputs) == 1:
            lineage.inputs[0].stats = IoStats(row_count=stats.input_records, size=stats.input_bytes)
        if lineage.output is not None:
            lineage.output.stats = IoStats(row_count=stats.output_records, size=stats.output_bytes)

    def _notify(self, event: str, lineage: WriteLineage) -> None:
        try:
            getattr(self.sink, event)(lineage)
        except Exception as error:
            log.warning("openlineage: the sink failed on %s: %s", event, error, exc_info=True)

    def _lineage(self, method: str) -> WriteLineage:
        """The record of a write that is starting, named by its method until more is known."""
        return WriteLineage(
            self.session_kind,
            method,
            self.app_name,
            method,
            job_name(self.app_name, method, None),
            started=time.time(),
            spark_version=self.spark_version,
        )

    def _before(
        self,
        writer: Any,
        method: str,
        original: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> tuple[WriteLineage, _Target | None, Callable[[], None]]:
        """The write's record as far as the target tells it, and what describes the rest."""
        lineage = self._lineage(method)
        target: _Target | None = None
        try:
            target = self._target(writer, method, original, args, kwargs)
            lineage.command = _command(method, target)
        except Exception as error:
            self._problem(lineage, "output target", error)
        output: DatasetLineage | None = None
        if target is not None:
            try:
                output = DatasetLineage(self._identity(target), "output")
            except Exception as error:
                self._problem(lineage, "output dataset", error)
        lineage.output = output
        if output is not None:
            try:
                if _overwrites(writer, method, self.session_kind):
                    output.lifecycle_state = "OVERWRITE"
            except Exception as error:
                self._problem(lineage, "save mode", error, output)
        table = output.identity.symlinks[0].name if output and output.identity.symlinks else None
        lineage.job_name = job_name(
            self.app_name, lineage.command, table or (output.identity.name if output else None)
        )
        df = self._dataframe(writer)

        def describe() -> None:
            if output is not None:
                try:
                    if method == "insertInto" and target is not None:
                        table = self.spark.table(target.location)
                        output.schema = schema_fields(self._schema(table))
                    else:
                        output.schema = schema_fields(self._schema(df))
                except Exception as error:
                    self._problem(lineage, "output schema", error, output)
            self._inputs(df, lineage, output, method, target)

        return lineage, target, describe

    def _problem(
        self,
        lineage: WriteLineage,
        what: str,
        error: BaseException,
        dataset: DatasetLineage | None = None,
    ) -> None:
        note_problem(dataset.problems if dataset is not None else lineage.problems, what, error)

    def _dataframe(self, writer: Any) -> Any:
        if self.session_kind == "classic":
            return writer._df
        from pyspark.sql.connect.dataframe import DataFrame

        return DataFrame(writer._df, session=writer._spark)

    def _settings(self, writer: Any) -> tuple[str | None, dict[str, str]]:
        if self.session_kind == "connect":
            return _connect.connect_writer_settings(writer)
        if hasattr(writer, "_jwrite"):
            return _classic.jvm_writer_settings(writer._jwrite)
        return None, {}

    def _target(
        self,
        writer: Any,
        method: str,
        original: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> _Target:
        bound = inspect.signature(original).bind(writer, *args, **kwargs).arguments
        extra = bound.get("options") or {}
        source, options = self._settings(writer)
        options = {**options, **{k: str(v) for k, v in extra.items() if v is not None}}
        if method in _WRITER_V2_METHODS:
            table = getattr(writer, "_table_name", None) or getattr(
                writer, "_openlineage_table", None
            )
            if not table:
                raise ValueError("the writer's table is not known")
            return _Target("table", str(table), source)
        if method == "jdbc":
            return _Target("jdbc", str(bound["url"]), "jdbc", jdbc_table=str(bound["table"]))
        if method in ("saveAsTable", "insertInto"):
            name = str(bound.get("name") or bound.get("tableName"))
            return _Target(
                "table", name, bound.get("format") or source, table_path=options.get("path")
            )
        fmt = method if method != "save" else (bound.get("format") or source)
        if fmt is None:
            fmt = self.spark.conf.get("spark.sql.sources.default", "parquet")
        if str(fmt).lower() == "jdbc":
            return _Target("jdbc", options["url"], "jdbc", jdbc_table=options.get("dbtable"))
        path = bound.get("path") or options.get("path")
        if not path:
            raise ValueError(f"a {fmt} write without a path")
        return _Target("path", str(path), str(fmt))

    def _identity(self, target: _Target) -> DatasetIdentity:
        if target.kind == "jdbc":
            return DatasetIdentity.from_uri(target.location, target.jdbc_table)
        if target.kind == "path":
            return self._path_identity(target.location)
        info = describe_table(self.spark, target.location)
        target.existed = info is not None and info.location is not None
        if info is None or info.location is None:
            path = target.table_path
            info = planned_table(
                self.spark, target.location, self._qualify(path) if path is not None else None
            )
        return table_identity(info, self._hive_metastore)

    def _qualify(self, path: str) -> str:
        """The location of a path the user gave, for the naming module (see ``_naming``)."""
        if self.session_kind == "classic":
            return _classic.qualify_path(self.spark, path)
        return _connect.path_uri(path, self._default_fs)

    def _path_identity(self, path: str) -> DatasetIdentity:
        return DatasetIdentity.from_uri(self._qualify(path))

    def _inputs(
        self,
        df: Any,
        lineage: WriteLineage,
        output: DatasetLineage | None,
        method: str,
        target: _Target | None,
    ) -> None:
        if self.session_kind == "classic":
            names = None
            if method == "insertInto" and output is not None and output.schema is not None:
                names = [f["name"] for f in output.schema]
            extraction = _classic.plan_inputs_and_lineage(
                df, self._hive_metastore, names, self.descriptions
            )
            lineage.inputs = [
                DatasetLineage(
                    identity, "input", extraction.schemas.get((identity.namespace, identity.name))
                )
                for identity in extraction.inputs
            ]
            for problem in extraction.problems:
                lineage.problems.append(problem)
                log.warning("openlineage: %s", problem)
            if output is not None:
                output.column_lineage = extraction.column_lineage
            return
        reads = _connect.client_plan_reads(df)
        lineage.problems.extend(reads.problems)
        found: list[DatasetLineage] = []
        for path in reads.paths:
            try:
                found.append(DatasetLineage(self._path_identity(path), "input"))
            except Exception as error:  # one bad input must not hide the rest
                self._problem(lineage, f"input {path}", error)
                continue
            declared = reads.declared.get(path)
            if declared is not None:
                try:
                    found[-1].schema = schema_fields(_connect.declared_schema(self.spark, declared))
                except Exception as error:
                    self._problem(lineage, f"input {path}: declared schema", error, found[-1])
        # Under Connect, one request can answer a table's location and its columns.
        connect = self.session_kind == "connect"
        for name in reads.tables:
            try:
                info = describe_table(self.spark, name, with_schema=connect)
                if info is None or info.location is None:
                    raise ValueError(f"{name} is not a table with a location")
                found.append(DatasetLineage(table_identity(info, self._hive_metastore), "input"))
            except Exception as error:  # one bad input must not hide the rest
                self._problem(lineage, f"input table {name}", error)
                continue
            try:
                # The catalog knows a table's columns: analysing it reads no data.
                found[-1].schema = info.schema or schema_fields(
                    self._schema(self.spark.table(name))
                )
            except Exception as error:
                self._problem(lineage, f"input table {name}: schema", error, found[-1])
        for url, table in reads.jdbc:
            try:
                found.append(DatasetLineage(DatasetIdentity.from_uri(url, table), "input"))
            except Exception as error:  # one bad input must not hide the rest
                self._problem(lineage, "input JDBC table", error)
        seen: set[tuple[str, str]] = set()
        for dataset in found:
            key = (dataset.identity.namespace, dataset.identity.name)
            if key not in seen:
                seen.add(key)
                lineage.inputs.append(dataset)
        if output is not None and self._statements is not None:  # Spark Connect statements
            self._statements.write_column_lineage(df, lineage, output)

    def _observation(
        self, writer: Any, lineage: WriteLineage
    ) -> _connect.RowCountObservation | None:
        if self.session_kind != "connect":
            return None
        try:
            return _connect.RowCountObservation(writer)
        except Exception as error:
            self._problem(lineage, "row count observation", error)
            return None

    def _after(
        self,
        lineage: WriteLineage,
        target: _Target | None,
        observation: _connect.RowCountObservation | None,
        token: int | None,
    ) -> None:
        output = lineage.output
        try:
            if observation is not None and output is not None and lineage.error is None:
                rows = observation.row_count()
                output.stats = IoStats(row_count=rows) if rows is not None else None
            if token is not None and self._listener is not None:
                self._classic_stats(lineage, token, target)
        except Exception as error:
            self._problem(lineage, "statistics", error)
        if output is not None and target is not None and target.kind == "table":
            self._confirm_table(lineage, output, target)

    def _confirm_table(
        self, lineage: WriteLineage, output: DatasetLineage, target: _Target
    ) -> None:
        """Check a table the write created against the catalog; a difference becomes a problem.

        Before the write, a new table's location is where Spark's session catalog would put it;
        after the write the catalog knows. They agree unless a catalog places tables its own way.
        The output keeps the identity the start gave it: the run merges its datasets by identity,
        so another one at the end would be a second output, not a correction of the first.
        """
        if target.existed or lineage.error is not None:
            return
        try:
            info = describe_table(self.spark, target.location)
            if info is None or info.location is None:
                return
            actual = table_identity(info, self._hive_metastore)
            if actual != output.identity:
                output.problems.append(
                    f"output: the catalog placed the table at {actual.namespace} {actual.name}, "
                    f"not at {output.identity.namespace} {output.identity.name} as planned"
                )
        except Exception as error:
            self._problem(lineage, "output table after the write", error, output)

    def _classic_stats(self, lineage: WriteLineage, token: int, target: _Target | None) -> None:
        assert self._listener is not None
        # A JDBC write reports no write metrics: nothing to wait for, and nothing missing.
        reports_metrics = target is not None and target.kind != "jdbc"
        if lineage.error is not None or lineage.output is None or not reports_metrics:
            self._listener.end(token)
            return
        # The command's end event was posted before the write returned; the listener usually
        # has its metrics within milliseconds. If not, drain the listener bus, after which
        # everything the write's commands reported has arrived, or never will.
        collector = self._listener.collector(token)
        drained = collector.wait(self.fast_wait_s) or _classic.wait_for_listeners(
            self.spark, self.listener_timeout_ms
        )
        collected = self._listener.end(token)
        if not drained:
            lineage.output.problems.append("statistics: the listener bus did not drain in time")
            return
        commands = [c for c in collected.commands if c.output is not None]
        if len(commands) != 1:
            lineage.output.problems.append(
                f"statistics: {len(commands)} write commands reported metrics, expected one"
            )
            return
        lineage.output.stats = commands[0].output
        # A scan over one input's location read exactly that input; an input scanned twice (a
        # self-join) or a scan over several locations has no statistics of its own.
        scanned: dict[tuple[str, str], list[IoStats]] = {}
        for paths, stats in commands[0].scans:
            if len(paths) == 1:
                located = DatasetIdentity.from_uri(paths[0])  # trimmed, as the inputs are
                scanned.setdefault((located.namespace, located.name), []).append(stats)
        for dataset in lineage.inputs:
            found = scanned.get((dataset.identity.namespace, dataset.identity.name), [])
            if len(found) == 1:
                dataset.stats = found[0]


def _command(method: str, target: _Target) -> str:
    if method in _V2_COMMANDS:
        return _V2_COMMANDS[method]
    if method == "saveAsTable":
        return "execute_create_data_source_table_as_select_command"
    if target.kind == "path" and (target.fmt or "").lower() in _FILE_FORMATS:
        return "execute_insert_into_hadoop_fs_relation_command"
    if method == "insertInto":
        return "execute_insert_into_hadoop_fs_relation_command"
    return "execute_save_into_data_source_command"


def _overwrites(writer: Any, method: str, kind: SessionKind) -> bool:
    """Whether a write replaces its output's data: the JVM agent marks it ``OVERWRITE``."""
    if method in _WRITER_V2_METHODS:
        return method in ("overwrite", "overwritePartitions", "replace", "createOrReplace")
    if kind == "connect":
        return str(getattr(writer._write, "mode", "") or "").lower() == "overwrite"
    jwrite = getattr(writer, "_jwrite", None)
    return jwrite is not None and str(jwrite.curmode().toString()) == "Overwrite"
