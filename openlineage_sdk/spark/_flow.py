"""The one template every observed execution runs through: describe, start, run, gather, finish.

An observer (``observe``) sees a user's call that runs a Spark execution (a execution, a statement,
an action, an RDD save) and hands it here with a :class:`ExecutionSteps`: what to describe before
the call, what beside it, what after, and what statistics to gather around it. The template
decides nothing about Spark; it only keeps the order every run needs:

1. ``before()``: what must be read before the call changes it (a ``DROP``'s table, a write's
   target); it may decide that the execution is not reported at all;
2. START, as soon as the execution is described: at once, when the description beside the call
   is done (it runs on a thread of the adapter's while Spark runs the call), or after the call
   for what only exists once it ran;
3. the user's call, exactly as without the adapter: its result or exception reaches the caller
   unchanged, and the adapter's own work never raises into it;
4. ``after()``: statistics and what changed, then COMPLETE, FAIL or ABORT. The end always waits
   for the description beside, so a run's events keep their order.

An execution whose end reads nothing a later call of the user's could change (an ``INSERT``
described from the plans Spark ran it with) is finished on the adapter's finishing thread
(:func:`finish_later`), after the user's call returned: the call returns as soon as Spark's
work is done, not when the lineage is. Its events keep their place: the adapter reports a later
execution's START only once the executions finished before it were reported (bounded, so that
lineage never holds the user's work for long), and :func:`wait_finished` waits for them (as
``uninstall``, the application's end and the exit of the interpreter do).

Everything the adapter does inside the call (its own look-ups, the writer's inner calls) is
marked with :func:`adapter_work`, which the observers check so that it is never reported as an
execution of its own.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, Literal, Protocol, TypeVar

from openlineage_sdk.spark._execution import SparkExecution, note_problem
from openlineage_sdk.spark._inside import _inside, adapter_work, inside_adapter
from openlineage_sdk.spark._safety import BudgetExceededError, Deadline, guarding
from openlineage_sdk.spark.session import JobWindow, Session

__all__ = [
    "ExecutionSteps",
    "LineageSink",
    "adapter_work",
    "describing",
    "earlier_sink_names",
    "finish_later",
    "inside_adapter",
    "pending",
    "report_done",
    "report_finished",
    "report_running",
    "report_started",
    "run_observed",
    "run_opened",
    "sink_method",
    "start_beside",
    "wait_finished",
]

log = logging.getLogger("openlineage_sdk.spark")

_T = TypeVar("_T")


def start_beside(function: Callable[..., None], *args: Any, name: str) -> threading.Thread:
    """Start ``function(*args)`` on a daemon thread of the adapter's, beside the user's work.

    It runs in a copy of the caller's context variables (its current run, for explicit mode);
    the caller joins the thread before it reports the work's end.
    """
    thread = threading.Thread(
        target=contextvars.copy_context().run, args=(function, *args), name=name, daemon=True
    )
    thread.start()
    return thread


class _Finisher:
    """The adapter's one thread that finishes executions after the user's call returned.

    Work runs in the order it was handed over. At most :attr:`limit` pieces wait: beyond that
    the caller finishes its execution itself, so that a slow transport slows the pipeline
    rather than holding an unbounded backlog (and nothing is ever dropped).
    """

    limit = 64

    def __init__(self) -> None:
        self._work: deque[Callable[[], None]] = deque()
        self._pending = 0  # handed over and not yet done
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    @property
    def pending(self) -> int:
        return self._pending

    def on_thread(self) -> bool:
        return threading.current_thread() is self._thread

    def submit(self, work: Callable[[], None]) -> bool:
        """Hand ``work`` over; ``False`` when too much waits already (the caller runs it)."""
        with self._changed:
            if self._pending >= self.limit:
                return False
            self._work.append(work)
            self._pending += 1
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="openlineage-finish", daemon=True
                )
                self._thread.start()
            self._changed.notify_all()
        return True

    def _run(self) -> None:
        _yield_cpu()
        while True:
            with self._changed:
                while not self._work:
                    self._changed.wait()
                work = self._work.popleft()
            try:
                work()
            except Exception as error:  # the work guards itself; never the thread's end
                log.warning("openlineage: finishing an execution failed: %s", error, exc_info=True)
            finally:
                with self._changed:
                    self._pending -= 1
                    self._changed.notify_all()

    def wait(self, timeout: float | None) -> bool:
        """Wait until everything handed over is done; ``False`` on time-out."""
        if self._pending == 0 or self.on_thread():
            return True
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            while self._pending:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._changed.wait(left)
        return True


def _yield_cpu() -> None:
    """Lower this thread's scheduling priority, so the user's work gets the CPU first.

    On Linux a thread has a nice value of its own; elsewhere nothing changes.
    """
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError) as error:
        log.debug("openlineage: the finishing thread keeps its priority: %s", error)


_finisher = _Finisher()

# How long a START waits for the ends of earlier executions before it goes out regardless.
ORDER_WAIT_S = 10.0


def pending() -> int:
    """How many executions wait on the adapter's finishing thread."""
    return _finisher.pending


def finish_later(work: Callable[[], None]) -> bool:
    """Run ``work`` on the adapter's finishing thread, after the work handed over before it.

    ``False`` when too much is waiting already: the caller runs ``work`` itself.
    """
    return _finisher.submit(work)


def wait_finished(timeout: float | None = None) -> bool:
    """Wait until every execution handed to the finishing thread was reported.

    Returns ``False`` when ``timeout`` seconds passed first.
    """
    waited = _finisher.wait(timeout)
    if not waited:
        log.warning(
            "openlineage: %d execution(s) were still being finished after %s s",
            _finisher.pending,
            timeout,
        )
    return waited


def _in_order() -> None:
    """Before a START: let the executions that ended before this one be reported first."""
    if _finisher.pending and not _finisher.on_thread():
        wait_finished(ORDER_WAIT_S)


class LineageSink(Protocol):
    """Where the adapter reports executions: the event builder, or a sink of one's own.

    Each Spark execution the adapter observes (a write, a statement, a read that ends in an
    action, an RDD save, a MERGE, a stream, a pipeline's flow) reaches the sink twice, in this
    order, from any thread.

    An execution that outlives the call that started it (a streaming query) also reaches the
    sink's ``execution_running(execution)`` between the two, if the sink has that method, each
    time it reports progress (the statistics of the micro-batches since the last report); a
    sink without it hears of the start and the end alone.

    A sink with a true ``reports_later`` attribute may hear of a short ``INSERT`` (its start and
    its end) on the adapter's finishing thread, after the user's call returned; any other sink
    hears of every execution's end before the call returns.

    A sink written for an earlier version, with ``write_started``, ``write_finished`` and
    ``write_running`` instead, is still called by those names (deprecated: :func:`install`
    warns once).
    """

    def execution_started(self, execution: SparkExecution) -> None:
        """The execution is described: inputs, output, schemas and column lineage are filled in.

        Called once per execution, before :meth:`execution_finished`: for a classic DataFrame
        write and an ``INSERT`` from a thread of the adapter's while Spark runs it (with the
        caller's context variables), otherwise before it runs, or once it ran for what only
        exists then.
        """

    def execution_finished(self, execution: SparkExecution) -> None:
        """The execution ran (``execution.error`` tells whether it failed); statistics are in."""


# The names the sink's methods had before they said "execution" (a sink of one's own may still
# have only those).
_EARLIER_NAMES = {
    "execution_started": "write_started",
    "execution_finished": "write_finished",
    "execution_running": "write_running",
}


def sink_method(reporter: object, name: str) -> Callable[[SparkExecution], None] | None:
    """The sink's method ``name`` (``execution_started`` ...), or its earlier name's."""
    method = getattr(reporter, name, None)
    if method is None:
        method = getattr(reporter, _EARLIER_NAMES.get(name, name), None)
    return method


def earlier_sink_names(reporter: object) -> list[str]:
    """The earlier method names a sink is called by, for want of the current ones."""
    return [
        old
        for new, old in _EARLIER_NAMES.items()
        if getattr(reporter, new, None) is None and getattr(reporter, old, None) is not None
    ]


def _reports_later(reporter: LineageSink) -> bool:
    """Whether a sink may hear of an execution's end after the user's call returned.

    A sink says so with a true ``reports_later`` attribute (the automatic mode's, which makes a
    run of each execution). Any other sink hears of an execution before the call returns, as
    explicit mode needs: it adds to the run the user's block holds open.
    """
    return bool(getattr(reporter, "reports_later", False))


Start = Literal["before", "beside", "after"]


class ExecutionSteps:
    """How one execution is described around the user's call (the steps of the template).

    Subclasses override what they need; every step is guarded by the template, which notes a
    failure as a problem of the execution and goes on.

    Attributes:
        start: When the START goes out: after ``before()`` (``"before"``), when ``beside()``
            is done (``"beside"``), or after the call (``"after"``). ``before()`` may change it.
        describes_beside: Whether ``beside()`` has work to do (it does when ``start`` is
            ``"beside"``).
        result: What the call returned, for ``after()``.
        finishes_later: Whether ``after()`` and the end's reports may run on the adapter's
            finishing thread once the call returned (see the module): true only when they read
            nothing a later call of the user's could change. Set by the steps before the call
            returns (``before()`` or ``beside()``).
    """

    start: Start = "before"
    describes_beside: bool = False
    result: Any = None
    finishes_later: bool = False

    def before(self) -> bool:
        """Describe what must be read before the call; ``False``: the execution is not reported."""
        return True

    def beside(self) -> bool:
        """Describe what does not change while the call runs (on a thread of the adapter's).

        ``False``: the execution is not reported after all.
        """
        return True

    def around(self) -> contextlib.AbstractContextManager[Any]:
        """What gathers statistics around the call (a row-count observation...)."""
        return contextlib.nullcontext()

    def after(self) -> bool:
        """Statistics, and what only exists once the call ran; ``False``: not reported."""
        return True

    def job_window(self) -> JobWindow:
        """The Spark jobs the call starts (``spark_jobDetails``): its session's window, opened
        around the call; a window that sees none for steps without a session."""
        session = getattr(self, "session", None)
        return session.job_window() if isinstance(session, Session) else JobWindow()

    def left_out(self) -> None:
        """The description was left out (a tripped breaker, a spent budget): let go of what
        the steps still hold (a statistics window ``after()`` would have read)."""


def _deadline(execution: SparkExecution) -> Deadline | None:
    """The execution's budgets and breaker, from its first step on; ``None`` when unguarded."""
    safety = execution.safety
    if safety is None or not safety.guarded:
        return None
    if execution.deadline is None:
        execution.deadline = Deadline(safety, running=False)
    return execution.deadline


@contextlib.contextmanager
def describing(execution: SparkExecution) -> Iterator[None]:
    """Describe ``execution`` under its safety limits (see ``_safety``).

    Its time counts against the execution's budgets; the user's call between two steps does
    not.

    Raises:
        BudgetExceededError: At once, when its breaker is tripped or its budget spent; at the
            end, when a checkpoint inside stopped the description and the step went on (a
            step that notes its parts' failures and carries on must not report what it found
            after the stop, nor before it: the description as a whole is left out).
    """
    safety = execution.safety
    if safety is None:
        yield
        return
    deadline = _deadline(execution)
    if deadline is None:
        with guarding(safety, None):
            yield
        return
    deadline.resume()
    try:
        deadline.check()
        with guarding(safety, deadline):
            yield
    finally:
        deadline.pause()
    if deadline.stopped is not None:
        raise BudgetExceededError(deadline.stopped)


def _left_out(execution: SparkExecution, reason: str, *, started: bool) -> None:
    # The agent's "Incomplete lineage" case: the event goes out, lighter, never later.
    said = f"lineage left out: {reason};"
    if started:  # the START's datasets are the run's: the end adds none of its own
        message = f"{said} no datasets reported after the START"
    else:
        message = f"{said} no datasets reported"
    if not any(problem.startswith(said) for problem in execution.problems):  # said once
        log.warning("openlineage: %s", message)
        execution.problems.append(message)
    execution.inputs = []
    execution.output = None


def _guarded(
    execution: SparkExecution,
    what: str,
    step: Callable[[], _T],
    default: _T,
    *,
    started: bool = False,
    budgeted: bool = True,
) -> _T:
    try:
        with adapter_work(), describing(execution) if budgeted else contextlib.nullcontext():
            return step()
    except BudgetExceededError as error:
        _left_out(execution, str(error), started=started)
        return default
    except Exception as error:  # never the user's problem
        note_problem(execution.problems, what, error)
        return default


def _report(reporter: LineageSink, event: str, execution: SparkExecution) -> None:
    try:
        method = sink_method(reporter, event)
        if method is None:
            raise AttributeError(f"{type(reporter).__name__} has no {event}")
        method(execution)
    except Exception as error:
        log.warning("openlineage: the sink failed on %s: %s", event, error, exc_info=True)


def run_observed(
    reporter: LineageSink,
    execution: SparkExecution,
    description: ExecutionSteps,
    call: Callable[[], _T],
    *,
    iterates: bool = False,
) -> _T:
    """Run the user's ``call`` as one observed execution (see the module's documentation).

    With ``iterates``, ``call`` returns an iterator that runs the execution while the caller
    consumes it: the run ends with the iteration.
    """
    if not _guarded(execution, "lineage", description.before, True):
        with adapter_work():
            return call()
    reported = [True]
    beside: threading.Thread | None = None
    if description.start == "before":
        _in_order()
        _report(reporter, "execution_started", execution)
    if description.describes_beside or description.start == "beside":

        def describe_beside() -> None:
            reported[0] = _guarded(
                execution,
                "lineage",
                description.beside,
                True,
                started=description.start == "before",
            )
            if description.start == "beside" and reported[0]:
                _in_order()
                _report(reporter, "execution_started", execution)

        beside = start_beside(describe_beside, name="openlineage-describe")

    def finish() -> None:
        if execution.finished is None:
            execution.finished = time.time()
        if beside is not None:
            beside.join()
        after = _guarded(
            execution,
            "after the execution",
            description.after,
            True,
            started=reported[0] and description.start != "after",
        )
        execution.job_details = _guarded(
            execution, "spark_jobDetails", jobs.details, None, budgeted=False
        )
        if execution.deadline is not None and execution.deadline.stopped is not None:
            try:
                description.left_out()
            except Exception as error:  # never the user's problem
                note_problem(execution.problems, "after the execution", error)
        if not reported[0]:
            return
        if description.start == "after":
            if not after:
                return
            _in_order()
            _report(reporter, "execution_started", execution)
        _report(reporter, "execution_finished", execution)

    around: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()
    # Not budgeted: statistics are no description, and their window tells the listener which
    # commands are this call's (a command it cannot place is reported as one started from JVM
    # code, a second run of the same write).
    around = _guarded(execution, "statistics", description.around, around, budgeted=False)
    jobs = _guarded(
        execution, "spark_jobDetails", description.job_window, JobWindow(), budgeted=False
    )
    token = _inside.set(True)
    try:
        with around, jobs:
            result = call()
    except BaseException as error:
        execution.error = error
        _inside.reset(token)
        finish()
        raise
    _inside.reset(token)
    description.result = result
    if iterates:
        return _iterating(result, execution, finish)  # type: ignore[arg-type, return-value]
    if _reports_later(reporter):
        execution.finished = time.time()
        if beside is not None:
            beside.join()  # it decides whether the end may come later
        if description.finishes_later and finish_later(
            functools.partial(contextvars.copy_context().run, finish)
        ):
            return result
    finish()
    return result


def _iterating(
    results: Iterator[Any], execution: SparkExecution, finish: Callable[[], None]
) -> Iterator[Any]:
    # The execution runs while the caller iterates: its run ends with the iteration.
    try:
        yield from results
    except BaseException as error:
        execution.error = error
        raise
    finally:
        finish()


def report_done(reporter: LineageSink, execution: SparkExecution) -> None:
    """Report an execution that already ran (a read the listener heard of): START, then end."""
    _report(reporter, "execution_started", execution)
    execution.finished = time.time()
    _report(reporter, "execution_finished", execution)


# ------------------------------------------------------------------ runs that outlive the call


def run_opened(
    reporter: LineageSink,
    execution: SparkExecution,
    description: ExecutionSteps,
    call: Callable[[], _T],
) -> _T:
    """Run the user's ``call`` that starts an execution outliving it (a streaming query).

    As :func:`run_observed` up to the call: ``before()`` describes, START goes out, the call is
    made exactly once. A call that raises ends the run at once (FAIL, or ABORT) and its
    exception reaches the caller unchanged; a call that returns leaves the run open, for
    :func:`report_running` and :func:`report_finished` to carry on.
    """
    if not _guarded(execution, "lineage", description.before, True):
        with adapter_work():
            return call()
    _in_order()
    _report(reporter, "execution_started", execution)
    token = _inside.set(True)
    try:
        result = call()
    except BaseException as error:
        execution.error = error
        _inside.reset(token)
        report_finished(reporter, execution)
        raise
    _inside.reset(token)
    description.result = result
    return result


def report_started(reporter: LineageSink, execution: SparkExecution) -> None:
    """Report the start of an execution whose observer saw it begin (a pipeline's flow)."""
    _report(reporter, "execution_started", execution)


def report_running(reporter: LineageSink, execution: SparkExecution) -> None:
    """Report the progress of an open execution (a RUNNING event), if the sink reports any."""
    running = sink_method(reporter, "execution_running")
    if running is None:
        return
    try:
        running(execution)
    except Exception as error:
        log.warning("openlineage: the sink failed on execution_running: %s", error, exc_info=True)


def report_finished(reporter: LineageSink, execution: SparkExecution) -> None:
    """Report the end of an open execution: COMPLETE, or FAIL or ABORT by its ``error``."""
    execution.finished = time.time()
    _report(reporter, "execution_finished", execution)
