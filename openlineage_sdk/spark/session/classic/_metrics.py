"""Classic PySpark: what the session reports after a command ran, through its listeners.

The write command's ``QueryExecution`` is created and dropped inside the JVM; nothing hands it
back to Python. Spark gives it to the session's ``QueryExecutionListener``s, on the listener bus,
once the command finished, with its metrics already summed from every task, on every executor,
by Spark itself. Reading them costs a handful of calls on the driver and no Spark job, and works
on a cluster exactly as in local mode. The listener is a Python object the JVM calls back through
py4j's callback server, which PySpark also uses for streaming listeners.

The same listener hears the queries that ran in actions (``collect``, ``count`` ...): those are
the reads the adapter reports as runs with inputs only.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from openlineage_sdk.spark._execution import IoStats
from openlineage_sdk.spark.session.classic._jvm import JvmClasses, as_list, path_uri

__all__ = [
    "CommandMetrics",
    "ListenerRegistration",
    "WriteMetricsListener",
    "command_metrics",
    "executed_query_name",
    "start_callback_server",
    "wait_for_listeners",
]

log = logging.getLogger("openlineage_sdk.spark")

#: A command started from JVM code is reported this long (seconds) after it was heard, or when
#: the next one is heard or the bus drained, if no command it ran inside ended in the meantime.
HELD_COMMAND_S = 1.0

# Upper bound on physical plan nodes visited for scan metrics, so a huge plan costs bounded time.
_MAX_PLAN_NODES = 400

# --------------------------------------------------------------------------------- write metrics


@dataclass
class CommandMetrics:
    """The metrics one executed command reported, and the ``QueryExecution`` that ran it."""

    output: IoStats | None
    scans: list[tuple[list[str], IoStats]]
    qe: Any = None


_WRITE_METRICS = ("numOutputRows", "numOutputBytes", "numFiles")

# Physical nodes that perform a write, and report what they wrote.
_WRITE_NODES = frozenset(
    {
        "DataWritingCommandExec",
        "AppendDataExec",
        "OverwriteByExpressionExec",
        "OverwritePartitionsDynamicExec",
        "CreateTableAsSelectExec",
        "AtomicCreateTableAsSelectExec",
        "ReplaceTableAsSelectExec",
        "AtomicReplaceTableAsSelectExec",
        "WriteToDataSourceV2Exec",
        "ReplaceDataExec",
        "WriteDeltaExec",
    }
)


def _class_name(node: Any) -> str:
    return str(node.getClass().getSimpleName())


def _metric_values(jvm: Any, node: Any, names: tuple[str, ...]) -> dict[str, int]:
    metrics = JvmClasses.of(jvm).as_java_map(node.metrics())
    values: dict[str, int] = {}
    for name in names:
        metric = metrics.get(name)
        if metric is not None:
            values[name] = int(metric.value())
    return values


def _unwrap(node: Any) -> tuple[Any, str]:
    while True:
        name = _class_name(node)
        if name == "AdaptiveSparkPlanExec":
            node = node.executedPlan()
        elif name == "CommandResultExec":
            node = node.commandPhysicalPlan()
        elif name.endswith("QueryStageExec"):
            # A write after a shuffle runs as the final stage of an adaptive plan (Spark 4
            # wraps it in a ResultQueryStageExec); the write node is that stage's plan.
            node = node.plan()
        else:
            return node, name


def _scans(jvm: Any, node: Any, budget: list[int]) -> list[tuple[list[str], IoStats]]:
    """Every file scan under ``node``, with the files and bytes it read.

    Only leaves are visited (``collectLeaves`` is one call), descending into adaptive plans and
    query stages, which are leaves that wrap plans of their own.
    """
    found: list[tuple[list[str], IoStats]] = []
    for leaf in as_list(jvm, node.collectLeaves()):
        budget[0] -= 1
        if budget[0] < 0:
            break
        name = _class_name(leaf)
        if name == "AdaptiveSparkPlanExec":
            found.extend(_scans(jvm, leaf.executedPlan(), budget))
        elif name.endswith("QueryStageExec"):
            found.extend(_scans(jvm, leaf.plan(), budget))
        elif name == "FileSourceScanExec":
            values = _metric_values(jvm, leaf, ("numFiles", "filesSize"))
            paths = [path_uri(p) for p in as_list(jvm, leaf.relation().location().rootPaths())]
            # The files a scan opened and their size are exactly what it read. (Its row count
            # is after the filters pushed into the reader, so it is not reported as rows read.)
            found.append(
                (paths, IoStats(size=values.get("filesSize"), file_count=values.get("numFiles")))
            )
    return found


def command_metrics(jvm: Any, qe: Any) -> CommandMetrics | None:
    """The write metrics of an executed command, or ``None`` when it wrote nothing.

    A write command's physical node (``DataWritingCommandExec`` for file sources, the v2 write
    nodes, any command reporting the same metrics) holds the rows, bytes and files written,
    which Spark summed from every task.
    """
    root, name = _unwrap(qe.executedPlan())
    if name not in _WRITE_NODES and name != "ExecutedCommandExec":
        return None
    values = _metric_values(jvm, root, _WRITE_METRICS)
    if not values:
        return None
    output = IoStats(
        row_count=values.get("numOutputRows"),
        size=values.get("numOutputBytes"),
        file_count=values.get("numFiles"),
    )
    return CommandMetrics(output, _scans(jvm, root, [_MAX_PLAN_NODES]))


class _Collector:
    """The metrics gathered for one write while it runs."""

    def __init__(self, began: int) -> None:
        self.commands: list[CommandMetrics] = []
        self.arrived = threading.Event()  # set when a command with write metrics arrived
        self.failed: list[Any] = []  # the QueryExecution of each command that failed
        self.executed: list[Any] = []  # the QueryExecution of each command that succeeded
        self.began = began  # the listener's count of begun and closed windows, at its begin
        self.closed: int | None = None  # the same count when the write's call returned
        self.taken_closed = 0  # the commands it was given once closed

    def wait(self, timeout_s: float) -> bool:
        """Wait until write metrics arrived; False on time-out."""
        return self.arrived.wait(timeout_s)


class WriteMetricsListener:
    """A JVM ``QueryExecutionListener``, implemented in Python, that hands write metrics over.

    It is registered once per session. While no write of the adapter is in flight it returns at
    once; while writes are in flight it reads the metrics of every write command and gives them
    to the in-flight writes. With one write in flight that is unambiguous. With several (writes
    from several threads at once) a command's metrics go nowhere rather than to the wrong write.

    A write's window opens at :meth:`begin` and closes at :meth:`close`, when its call returned;
    its commands were posted to the listener bus inside it. A closed write still waiting for its
    command (its end is reported on the adapter's finishing thread, after the user's next call
    began) gets the next command the bus delivers when no other window opened before it closed:
    the bus delivers in the order Spark posted, so that command is its own. Once it has its
    write command (an ``INSERT`` runs one), or one command given after it closed, it takes no
    more, and the queries after it are reported as if no write were in flight. (A query that
    ended before the window opened and was delivered inside it, a read's, is not its write.)
    """

    def __init__(self, jvm: Any) -> None:
        self._jvm = jvm
        self._lock = threading.Lock()
        self._active: dict[int, _Collector] = {}
        self._next = 0
        self._count = 0  # windows begun and closed so far, in order
        # Called with (function name, QueryExecution) for what ran while no write was in flight.
        self.on_query: Callable[[str, Any], None] | None = None
        # Called with (function name, QueryExecution, exception or None, began ms, the commands it
        # ran inside it) for a command that no
        # window of the adapter's could have run: one started from JVM code.
        self.on_command: Callable[[str, Any, Any, int, list[Any]], None] | None = None
        self._last_close_ms = 0  # wall-clock time the last window closed or ended
        # The last command heard with no window, held until it is known not to be a command
        # nested in a later one (a CTAS's insert is delivered before the CTAS itself).
        self._held: tuple[str, Any, Any, int, list[Any]] | None = None
        self._held_timer: threading.Timer | None = None
        self._shut = False  # :meth:`shutdown` was called: nothing more is reported
        # Whether the session still runs (no JVM call once it stopped); ``None``: always.
        self.alive: Callable[[], bool] | None = None

    # -- the adapter's side

    def shutdown(self) -> None:
        """Report nothing more: the held command is dropped and its timer cancelled.

        The session calls it when it closes, after reporting what it holds (:meth:`release_held`),
        so that no timer thread calls into the JVM of a session that stops. A report already
        under way on the timer's thread is not waited for: stopping never waits on lineage.
        """
        with self._lock:
            self._shut = True
            self._held = None
            self.on_query = None
            self.on_command = None
            if self._held_timer is not None:
                self._held_timer.cancel()
                self._held_timer = None

    def begin(self) -> int:
        """Start collecting for a write; returns its token."""
        with self._lock:
            self._next += 1
            self._count += 1
            self._active[self._next] = _Collector(self._count)
            return self._next

    def close(self, token: int) -> None:
        """The write's call returned: every command of it was posted to the bus already."""
        with self._lock:
            collector = self._active.get(token)
            if collector is not None and collector.closed is None:
                self._count += 1
                collector.closed = self._count
            self._last_close_ms = int(time.time() * 1000)

    def collector(self, token: int) -> _Collector:
        """What has arrived so far for a write."""
        with self._lock:
            return self._active.get(token) or _Collector(0)

    def end(self, token: int) -> _Collector:
        """Stop collecting for a write and return what arrived."""
        with self._lock:
            self._last_close_ms = int(time.time() * 1000)
            return self._active.pop(token, _Collector(0))

    def _in_flight(self) -> list[_Collector]:
        """The writes still waiting for commands: a closed one waits for its write (an
        ``INSERT`` runs one), or for one command at most once closed."""
        return [
            c
            for c in self._active.values()
            if c.closed is None or not (c.arrived.is_set() or c.failed or c.taken_closed)
        ]

    def _owner(self, waiting: list[_Collector]) -> _Collector | None:
        """The write (of those ``waiting``) the command delivered now belongs to, if certain."""
        closed = sorted((c for c in waiting if c.closed is not None), key=lambda c: c.began)
        if closed:
            first = closed[0]
            assert first.closed is not None
            if all(c is first or c.began > first.closed for c in waiting):
                return first
            return None
        return waiting[0] if len(waiting) == 1 else None

    # -- the JVM's side (py4j calls these on the listener bus thread)

    def onSuccess(self, func_name: str, qe: Any, duration_ns: int) -> None:  # noqa: N802
        with self._lock:
            waiting = self._in_flight()
            owner = self._owner(waiting)
        if not waiting:
            if self._unhooked_command(func_name, qe, None):
                return
            on_query = self.on_query
            if on_query is not None:
                try:
                    on_query(func_name, qe)
                except Exception as error:  # never let an exception travel back into Spark
                    log.debug("reporting a query failed: %s", error)
            return
        if owner is None:
            return  # writes in flight that cannot be told apart: its metrics would go nowhere
        with self._lock:
            owner.executed.append(qe)
            if owner.closed is not None:
                owner.taken_closed += 1
        try:
            metrics = command_metrics(self._jvm, qe)
        except Exception as error:  # never let an exception travel back into Spark
            log.debug("reading write metrics failed: %s", error)
            return
        if metrics is None:
            return
        metrics.qe = qe
        with self._lock:
            owner.commands.append(metrics)
            owner.arrived.set()

    def onFailure(self, func_name: str, qe: Any, exception: Any) -> None:  # noqa: N802
        """A failed command: no metrics; its plan, for a statement described after it ran."""
        with self._lock:
            waiting = self._in_flight()
            owner = self._owner(waiting)
        if not waiting:
            self._unhooked_command(func_name, qe, exception)
            return
        with self._lock:
            if owner is not None:
                owner.failed.append(qe)
                if owner.closed is not None:
                    owner.taken_closed += 1

    def _unhooked_command(self, func_name: str, qe: Any, exception: Any) -> bool:
        """Hand a command no window could have run to ``on_command``; ``False``: not one.

        A command of a call the adapter observed was posted to the bus before that call's window
        closed, so it began before the window's close: one that began after every window closed
        (and while none was open) was started by code the adapter did not observe.
        """
        on_command = self.on_command
        if on_command is None:
            return False
        try:
            if executed_query_name(qe) is not None:
                return False  # a query an action ran: a read
            if _class_name(qe) == "IncrementalExecution":
                return True  # a streaming query's batch: its stream's run reports it
            began = _began_ms(qe)
            if began <= self._last_close_ms:
                return True  # it may be an observed call's command: never reported twice
        except Exception as error:  # never let an exception travel back into Spark
            log.debug("reading a command started from JVM code failed: %s", error)
            return True
        with self._lock:
            if self._shut:
                return True
            held = self._held
            parts: list[Any] = []
            if held is not None and held[3] >= began:
                parts = [held[1], *held[4]]  # ran inside this one: its part
                held = None
            self._held = (func_name, qe, exception, began, parts)
            if self._held_timer is not None:
                self._held_timer.cancel()
            timer = self._held_timer = threading.Timer(HELD_COMMAND_S, self.release_held)
        timer.daemon = True
        timer.start()
        # The bus delivers in the order commands ended: one held that began after this one
        # began ran inside it (a CTAS's or a MERGE's own write), and is the outer one's part.
        if held is not None:
            self._report(held)
        return True

    def release_held(self) -> None:
        """Report the command held back, if any: nothing it could be nested in ended since.

        Once the session stopped it is dropped, with a warning: describing it would call into
        the JVM of a stopped session (from the timer's thread, while the driver goes away).
        """
        with self._lock:
            held, self._held = self._held, None
            if self._held_timer is not None:
                self._held_timer.cancel()
                self._held_timer = None
        if held is None:
            return
        alive = self.alive
        try:
            running = alive is None or alive()
        except Exception as error:  # the JVM is gone
            log.debug("openlineage: asking whether the session runs failed: %s", error)
            running = False
        if not running:
            log.warning(
                "openlineage: a command started from JVM code (%s) was not reported: the "
                "session stopped before it was known whether it ran inside a later one",
                held[0],
            )
            return
        self._report(held)

    def _report(self, held: tuple[str, Any, Any, int, list[Any]]) -> None:
        with self._lock:
            on_command = None if self._shut else self.on_command
        if on_command is None:
            return
        try:
            on_command(*held)
        except Exception as error:  # never let an exception travel back into Spark
            log.debug("reporting a command started from JVM code failed: %s", error)

    class Java:
        implements = ["org.apache.spark.sql.util.QueryExecutionListener"]  # noqa: RUF012


def _began_ms(qe: Any) -> int:
    """When Spark began to plan ``qe`` (wall-clock ms): the earliest phase its tracker timed."""
    phases = qe.tracker().phases()
    iterator = phases.valuesIterator()
    began = None
    while iterator.hasNext():
        start = int(iterator.next().startTimeMs())
        began = start if began is None else min(began, start)
    return began if began is not None else int(time.time() * 1000)


def start_callback_server(spark: Any) -> None:
    """Start py4j's callback server (once per process), so the JVM can call the listener."""
    from pyspark import java_gateway

    # PySpark leaves this function unannotated; it is called as what it is to a type checker.
    ensure_started: Any = java_gateway.ensure_callback_server_started
    ensure_started(spark.sparkContext._gateway)


class ListenerRegistration:
    """A Python ``QueryExecutionListener`` registered with a session, until :meth:`remove`.

    py4j makes a new JVM proxy each time a Python object is passed to Java, and two proxies of
    one object are not equal there: ``listenerManager().unregister(listener)`` would remove
    nothing, and the listener would go on hearing every query of the session after the adapter
    is gone (one more listener, and one more call into Python per query, with each install).
    So the proxy is made once, held in a JVM list, and handed to ``register`` and
    ``unregister`` by reflection, never crossing back into Python.
    """

    _INTERFACE = "org.apache.spark.sql.util.QueryExecutionListener"

    def __init__(self, spark: Any, listener: Any) -> None:
        jvm = spark._jvm
        self._manager = spark._jsparkSession.listenerManager()
        manager_class = self._manager.getClass()
        parameters = spark.sparkContext._gateway.new_array(jvm.java.lang.Class, 1)
        parameters[0] = jvm.java.lang.Class.forName(
            self._INTERFACE, True, manager_class.getClassLoader()
        )
        self._unregister = manager_class.getMethod("unregister", parameters)
        self._held: Any = jvm.java.util.ArrayList()
        self._held.add(listener)  # the one JVM proxy of ``listener``
        manager_class.getMethod("register", parameters).invoke(self._manager, self._held.toArray())

    def remove(self) -> None:
        """Unregister the listener: the session calls it no more."""
        if self._held is not None:
            self._unregister.invoke(self._manager, self._held.toArray())
            self._held = None  # py4j lets the JVM collect the list and its proxy


def wait_for_listeners(spark: Any, timeout_ms: int) -> bool:
    """Wait until the listener bus delivered every event posted so far (the write's included).

    A command posts its end event before the call that ran it returns, so once the bus is
    drained our listener has seen every command of the write. Returns False on time-out.
    """
    try:
        spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(timeout_ms)
        return True
    except Exception as error:
        log.debug("waiting for the listener bus failed: %s", error)
        return False


# Roots of executed plans that ran a command (DDL, writes, SET, SHOW, DESCRIBE ...), not a query.
_COMMAND_NODES = frozenset({*_WRITE_NODES, "ExecutedCommandExec", "CommandResultExec"})


def executed_query_name(qe: Any) -> str | None:
    """The job-name command of a query that ran in an action, or ``None`` for a command.

    The JVM agent names such a run after the root of the executed plan (a whole-stage codegen
    wrapper taken off), in snake case: ``hash_aggregate``, ``collect_limit`` ...
    """
    node = qe.executedPlan()
    name = _class_name(node)
    if name in _COMMAND_NODES or _unwrap(node)[1] in _COMMAND_NODES:
        return None
    if name == "WholeStageCodegenExec":
        node = node.child()
    text = str(node.nodeName()).replace(" ", "")
    return re.sub(r"(?<!^)(?=[A-Z])", "_", text).lower()
