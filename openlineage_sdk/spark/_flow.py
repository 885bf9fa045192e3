"""The one template every observed execution runs through: describe, start, run, gather, finish.

An observer (``observe``) sees a user's call that runs a Spark execution (a write, a statement,
an action, an RDD save) and hands it here with a :class:`Description`: what to describe before
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

Everything the adapter does inside the call (its own look-ups, the writer's inner calls) is
marked with :func:`adapter_work`, which the observers check so that it is never reported as an
execution of its own.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Literal, Protocol, TypeVar

from openlineage_sdk.spark._execution import SparkExecution, note_problem

__all__ = [
    "Description",
    "LineageSink",
    "adapter_work",
    "inside_adapter",
    "report_done",
    "report_finished",
    "report_running",
    "report_started",
    "run_observed",
    "run_opened",
    "start_beside",
]

log = logging.getLogger("openlineage_sdk.spark")

_T = TypeVar("_T")

# True inside an observed call and inside the adapter's own work: nothing there is reported.
_inside: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "openlineage_inside_adapter", default=False
)


def inside_adapter() -> bool:
    """Whether this thread is inside an observed call or the adapter's own work."""
    return _inside.get()


@contextlib.contextmanager
def adapter_work() -> Iterator[None]:
    """Mark what runs inside as the adapter's own (or as inside an observed call)."""
    token = _inside.set(True)
    try:
        yield
    finally:
        _inside.reset(token)


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


class LineageSink(Protocol):
    """Where the adapter reports executions: the event builder, or a sink of one's own.

    Each Spark execution the adapter observes (a write, a statement, a read that ends in an
    action, an RDD save: "writes", as the names of these methods still say) reaches the sink
    twice, in this order, from any thread.

    An execution that outlives the call that started it (a streaming query) also reaches the
    sink's ``write_running(write)`` between the two, if the sink has that method, each time it
    reports progress (the statistics of the micro-batches since the last report); a sink
    without it hears of the start and the end alone.
    """

    def write_started(self, write: SparkExecution) -> None:
        """The execution is described: inputs, output, schemas and column lineage are filled in.

        Called once per execution, before :meth:`write_finished`: for a classic DataFrame write
        and an ``INSERT`` from a thread of the adapter's while Spark runs it (with the caller's
        context variables), otherwise before it runs, or once it ran for what only exists then.
        """

    def write_finished(self, write: SparkExecution) -> None:
        """The execution ran (``write.error`` tells whether it failed); statistics are in."""


Start = Literal["before", "beside", "after"]


class Description:
    """How one execution is described around the user's call (the steps of the template).

    Subclasses override what they need; every step is guarded by the template, which notes a
    failure as a problem of the execution and goes on.

    Attributes:
        start: When the START goes out: after ``before()`` (``"before"``), when ``beside()``
            is done (``"beside"``), or after the call (``"after"``). ``before()`` may change it.
        describes_beside: Whether ``beside()`` has work to do (it does when ``start`` is
            ``"beside"``).
        result: What the call returned, for ``after()``.
    """

    start: Start = "before"
    describes_beside: bool = False
    result: Any = None

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


def _guarded(execution: SparkExecution, what: str, step: Callable[[], _T], default: _T) -> _T:
    try:
        with adapter_work():
            return step()
    except Exception as error:  # never the user's problem
        note_problem(execution.problems, what, error)
        return default


def _report(reporter: LineageSink, event: str, execution: SparkExecution) -> None:
    try:
        getattr(reporter, event)(execution)
    except Exception as error:
        log.warning("openlineage: the sink failed on %s: %s", event, error, exc_info=True)


def run_observed(
    reporter: LineageSink,
    execution: SparkExecution,
    description: Description,
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
        _report(reporter, "write_started", execution)
    if description.describes_beside or description.start == "beside":

        def describe_beside() -> None:
            reported[0] = _guarded(execution, "lineage", description.beside, True)
            if description.start == "beside" and reported[0]:
                _report(reporter, "write_started", execution)

        beside = start_beside(describe_beside, name="openlineage-describe")

    def finish() -> None:
        execution.finished = time.time()
        if beside is not None:
            beside.join()
        after = _guarded(execution, "after the execution", description.after, True)
        if not reported[0]:
            return
        if description.start == "after":
            if not after:
                return
            _report(reporter, "write_started", execution)
        _report(reporter, "write_finished", execution)

    around: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()
    around = _guarded(execution, "statistics", description.around, around)
    token = _inside.set(True)
    try:
        with around:
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
    _report(reporter, "write_started", execution)
    execution.finished = time.time()
    _report(reporter, "write_finished", execution)


# ------------------------------------------------------------------ runs that outlive the call


def run_opened(
    reporter: LineageSink,
    execution: SparkExecution,
    description: Description,
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
    _report(reporter, "write_started", execution)
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
    _report(reporter, "write_started", execution)


def report_running(reporter: LineageSink, execution: SparkExecution) -> None:
    """Report the progress of an open execution (a RUNNING event), if the sink reports any."""
    running = getattr(reporter, "write_running", None)
    if running is None:
        return
    try:
        running(execution)
    except Exception as error:
        log.warning("openlineage: the sink failed on write_running: %s", error, exc_info=True)


def report_finished(reporter: LineageSink, execution: SparkExecution) -> None:
    """Report the end of an open execution: COMPLETE, or FAIL or ABORT by its ``error``."""
    execution.finished = time.time()
    _report(reporter, "write_finished", execution)
