"""SQL statements: when a statement's command is described, classic PySpark and Spark Connect.

A statement that writes or changes a dataset is a run of its own. What it does is read by the
session (its analyzer, or the server's ``EXPLAIN`` and catalog); when each part is read, and
when START and the end go out, is decided here, by the command's row in the registry
(``describe._commands``: ``described``, ``looked_up_beside``) and by what the session can hear:

* :class:`TextStatement` (classic, a statement as text): described by the session's analyzer
  before it runs. An ``INSERT`` into a table changes neither its query's inputs nor its
  target's identity while it runs, so it need not wait: the session's listener is given the
  ``QueryExecution`` that ran it, and an ``INSERT`` that ends within
  :data:`INSERT_DESCRIBED_BESIDE_AFTER_S` is described from that, once it ran (START and COMPLETE
  then, in that order), on the adapter's finishing thread: the user's call returns without
  waiting for it. One that runs longer is described beside it by the analyzer, and its START
  goes out while it runs. Either way the events say the same.
* :class:`BoundStatement` (classic, a statement with parameters or format arguments, and
  ``DataFrame.mergeInto(...).merge()``): PySpark formats the text and Spark binds the
  parameters while parsing it, so it is described from the command Spark ran, once it ran.
* :class:`ServerStatementRun` (Spark Connect): an ``INSERT`` is sent at once, and the server
  explains it and answers the catalog look-ups (its inputs and target, which it does not
  change) beside it; when they described the target in full (a table of files or Hive's), the
  end asks nothing more and is reported on the finishing thread. Any other statement waits for
  its ``EXPLAIN`` (and the look-ups of what it changes, a ``DROP``'s table), since what it
  changes must be known before it runs; a statement whose output exists only once it ran
  (CREATE, CTAS, ALTER, RENAME) is described then.
"""

from __future__ import annotations

import threading
from typing import Any

from openlineage_sdk.spark._execution import SparkExecution
from openlineage_sdk.spark._execution import note_problem as _note
from openlineage_sdk.spark._flow import ExecutionSteps, start_beside
from openlineage_sdk.spark.describe._commands import (
    COMMANDS,
    DescribedCommand,
    PlannedCommand,
    apply_output,
    apply_statement,
)
from openlineage_sdk.spark.describe._sql_text import described_beside
from openlineage_sdk.spark.describe._tables import TableInfo
from openlineage_sdk.spark.describe._write_commands import FILE_FORMATS
from openlineage_sdk.spark.session import CommandWindow, ServerStatement, Session

__all__ = [
    "INSERT_DESCRIBED_BESIDE_AFTER_S",
    "BoundStatement",
    "ServerStatementRun",
    "TextStatement",
    "statement_description",
]

#: An ``INSERT`` (classic) still running after this long (seconds) is described beside it, and
#: its START sent then; one that ends sooner is described from its own execution.
INSERT_DESCRIBED_BESIDE_AFTER_S = 2.0


def statement_description(
    session: Session, execution: SparkExecution, text: str | None, command: Any = None
) -> ExecutionSteps:
    """How a statement is described around its run.

    ``text`` is the statement as sent (``None``: bound or formatted by PySpark, known only
    from the command Spark ran); ``command`` the client's command that sends it (Spark Connect).
    """
    if command is not None:
        assert text is not None
        return ServerStatementRun(session, execution, session.server_statement(text, command))
    if text is None:
        return BoundStatement(session, execution)
    return TextStatement(session, execution, text)


# ----------------------------------------------------------------------- classic PySpark


class TextStatement(ExecutionSteps):
    """A statement sent as text: described before it runs, or, for an ``INSERT``, beside or after
    (see the module)."""

    def __init__(self, session: Session, execution: SparkExecution, text: str) -> None:
        self.session = session
        self.execution = execution
        self.text = text
        self.planned: DescribedCommand | None = None
        self.window = session.command_window()
        self.start = "beside" if described_beside(text) else "before"
        execution.sql = text
        self.ran = threading.Event()  # set when the user's call returned or raised

    def before(self) -> bool:
        if self.start == "beside":
            self.window.begin()
            return True
        planned = self._plan()
        if planned is None:
            return False
        # Every described command's window opens (one that writes no data's too): the
        # listener then knows its command as this call's, not as one started from JVM code.
        self.window.begin()
        return True

    def around(self) -> Any:
        return _Marking(self.ran, self.window)

    def left_out(self) -> None:
        self.window.discard()

    def beside(self) -> bool:
        if self.ran.wait(INSERT_DESCRIBED_BESIDE_AFTER_S):
            # It ran already: described from its own execution, whose plans nothing the user
            # does next changes, on the adapter's finishing thread.
            self.start = "after"
            self.finishes_later = True
            return True
        return self._plan() is not None

    def _plan(self, executed: object | None = None) -> DescribedCommand | None:
        if executed is None:
            planned = self.session.plan_statement(self.text)
        else:
            planned = self.session.plan_executed(executed, ran=True)
        if planned is not None:
            apply_statement(self.execution, planned, self.session.catalog_info())
            self.planned = planned
        return planned

    def after(self) -> bool:
        if self.start == "after":
            executed = self.window.executed(failed=self.execution.error is not None)
            # Without the listener's QueryExecution (several writes at once), the analyzer
            # describes it: an INSERT changed nothing its description reads.
            if self._plan(executed) is None:
                self.window.discard()
                return False
        finish_statement(self.session, self.execution, self.planned, self.window)
        return True


class _Marking:
    """Sets an event when the call it is around returns or raises, and closes the statement's
    window of the listener (every command of it was posted by then)."""

    def __init__(self, event: threading.Event, window: CommandWindow) -> None:
        self.event = event
        self.window = window

    def __enter__(self) -> None:
        # Open already, unless the description was left out before it opened (a tripped
        # breaker): the listener must still know the command as this call's.
        self.window.begin()

    def __exit__(self, *exc: object) -> None:
        self.window.close()
        self.event.set()


class BoundStatement(ExecutionSteps):
    """A statement with parameters or format arguments: described once it has run.

    The command Spark ran is in the result's ``QueryExecution``, and the run is described from
    it: its START and COMPLETE go out when the statement returns. A statement that fails while
    it runs is handed to the listener's ``onFailure`` with its ``QueryExecution``; one that
    fails before (in parsing or analysis) leaves none: its run is START and FAIL with the error
    and no datasets, and its ``extractionError`` facet says why.

    ``DataFrame.mergeInto(...).merge()`` is described the same way: its command is handed to the
    JVM in one call, which returns nothing; the listener's ``onSuccess`` has its
    ``QueryExecution``.
    """

    start = "after"

    def __init__(self, session: Session, execution: SparkExecution) -> None:
        self.session = session
        self.execution = execution
        self.window = session.command_window()

    def around(self) -> Any:
        return self.window.around()

    def left_out(self) -> None:
        self.window.discard()

    def after(self) -> bool:
        execution, session = self.execution, self.session
        planned: DescribedCommand | None
        if execution.error is not None:
            planned = self._heard(failed=True)
            if planned is None:
                execution.problems.append(
                    "statement: this statement is described from the command Spark ran, and it "
                    "failed before there was one"
                )
        else:
            executed = session.executed_of(self.result)
            if executed is not None:
                planned = session.plan_executed(executed, execution)
            else:
                planned = self._heard(failed=False)
        if planned is None:
            self.window.discard()
            return execution.error is not None
        apply_statement(execution, planned, session.catalog_info())
        finish_statement(session, execution, planned, self.window)
        return True

    def _heard(self, *, failed: bool) -> DescribedCommand | None:
        """The one command the session's listener heard of (bus drained first)."""
        executed = self.window.heard(failed)
        if executed is None:
            return None
        return self.session.plan_executed(executed, self.execution)


def finish_statement(
    session: Session,
    execution: SparkExecution,
    planned: DescribedCommand | None,
    window: CommandWindow,
) -> None:
    """A statement's statistics, and its output once more when the command changed it."""
    if planned is None:
        window.discard()
        return
    try:
        window.collect(execution, planned.writes_data)
    except Exception as error:
        _note(execution.problems, "statistics", error)
    window.discard()
    if planned.refresh is not None and execution.error is None:
        try:
            output = planned.refresh()
        except Exception as error:
            _note(execution.problems, "output after the statement", error)
            return
        apply_output(execution, planned, output, session.catalog_info())
        execution.output_changed = True


# ------------------------------------------------------------------------- Spark Connect


def _before(planned: PlannedCommand | None) -> bool:
    """Whether the statement is described (and its START sent) before it runs."""
    if planned is None or planned.error is not None:
        return True
    command = COMMANDS.get(planned.node)
    return command is None or command.described == "before"


def _ready(planned: PlannedCommand | None) -> bool:
    """Explained, and a command the adapter describes."""
    return planned is not None and planned.error is None and planned.node in COMMANDS


class ServerStatementRun(ExecutionSteps):
    """How a ``SqlCommand`` that may write is described around its run (see the module)."""

    def __init__(
        self, session: Session, execution: SparkExecution, statement: ServerStatement
    ) -> None:
        self.session = session
        self.execution = execution
        self.statement = statement
        self.planned: PlannedCommand | None = None
        execution.sql = statement.text
        self.insert = described_beside(statement.text)
        self.start = "beside" if self.insert else "before"
        self.target: _TargetLookUp | None = None  # an INSERT's target, asked for beside it

    def _explain(self) -> PlannedCommand | None:
        try:
            return self.statement.explain(self.execution)
        finally:
            # The command as far as it was read, even when a later step of explain raised.
            if self.statement.planned is not None:
                self.planned = self.statement.planned

    def before(self) -> bool:
        if self.insert:
            return True  # explained and looked up beside the statement
        planned = self._explain()
        early = _before(planned)
        if _ready(planned):
            assert planned is not None
            if COMMANDS[planned.node].looked_up_beside:
                # What they look up does not change while they run: the server answers the
                # look-ups while it runs the statement.
                self.describes_beside = True
                self.start = "beside" if early else "after"
            else:
                self.statement.look_up(planned, self.execution, before=early)
                self.start = "before" if early else "after"
        else:
            self.start = "before" if early else "after"
        return True

    def beside(self) -> bool:
        if self.insert:
            planned = self._explain()
            if _ready(planned):
                assert planned is not None
                if COMMANDS[planned.node].target_exists and planned.tables:
                    # The target's entry in the catalog is asked for at once, beside the
                    # inputs' (an INSERT changes neither); ``after`` waits for the answer.
                    self.target = _TargetLookUp(self.statement, planned)
                target = self.target
                self.statement.look_up(
                    planned,
                    self.execution,
                    before=_before(planned),
                    target=target.answer if target is not None else None,
                )
                if target is not None and target.complete():
                    # The end asks the server nothing more: it may come once the call returned.
                    self.finishes_later = True
            return True
        if self.planned is not None:
            self.statement.look_up(self.planned, self.execution, before=_before(self.planned))
        return True

    def after(self) -> bool:
        planned = self.planned
        if self.target is not None:
            self.target.join()
        if _before(planned) or planned is None or planned.node not in COMMANDS:
            return True
        try:
            # A statement that failed: what the table was before is the best description left.
            self.statement.describe(
                planned,
                self.execution,
                before=self.execution.error is not None,
                target=self.target.answer if self.target is not None else None,
            )
        except Exception as error:
            _note(self.execution.problems, "output after the statement", error)
        return True


# Data sources whose tables keep their schema whatever is written into them.
_FIXED_SCHEMA = frozenset({*FILE_FORMATS, "hive"})


class _TargetLookUp:
    """The catalog's entry for an ``INSERT``'s target, asked for on a thread of its own.

    Asked while the statement runs, with the name the server's ``EXPLAIN`` qualified: what it
    says (the table's location, data source and schema) is what the catalog says once the
    statement ran for a table whose data source takes no schema change from a write (files and
    Hive). Any other answer (a Delta or Iceberg table may evolve its schema on write), or none,
    is not used: the target is described once the statement ran, as without this look-up.
    """

    def __init__(self, statement: ServerStatement, planned: PlannedCommand) -> None:
        self.statement = statement
        self.planned = planned
        self.info: TableInfo | None = None
        self.thread = start_beside(self._ask, name="openlineage-describe-target")

    def _ask(self) -> None:
        self.info = self.statement.target(self.planned)

    def join(self) -> None:
        self.thread.join()

    def complete(self) -> bool:
        """Whether the answer describes the target in full: nothing to ask once the INSERT ran.

        A table of the session catalog (a v2 catalog's may describe itself by properties,
        asked for then) with its schema.
        """
        info = self.answer()
        return info is not None and info.schema is not None and info.catalog is None

    def answer(self) -> TableInfo | None:
        """The answer, if it is one a write into the table leaves true."""
        self.thread.join()
        info = self.info
        if info is None or info.location is None:
            return None
        if (info.provider or "").lower() not in _FIXED_SCHEMA:
            return None
        return info
