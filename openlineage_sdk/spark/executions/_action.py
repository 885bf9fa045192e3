"""Reads that end in an action: a run with inputs and no output, when the session says it read.

* Classic PySpark: the session's listener hears each query after its action ran, on Spark's
  listener bus; the run is described then, and START and COMPLETE go out together
  (:func:`report_heard_read`).
* Spark Connect: the action's client plan is read before the action runs; a plan that reads no
  dataset is no run (:class:`ActionRead`). The run ends with the action (with the iteration,
  for ``toLocalIterator``).
"""

from __future__ import annotations

import logging

from openlineage_sdk.spark._execution import SparkExecution
from openlineage_sdk.spark._flow import ExecutionSteps, LineageSink, describing, report_done
from openlineage_sdk.spark.session import Session

__all__ = ["ActionRead", "report_heard_read"]

log = logging.getLogger("openlineage_sdk.spark")


class ActionRead(ExecutionSteps):
    """An action's inputs, read from its plan before it runs."""

    def __init__(self, session: Session, execution: SparkExecution, plan: object) -> None:
        self.session = session
        self.execution = execution
        self.plan = plan

    def before(self) -> bool:
        try:
            return bool(self.session.action_reads(self.plan, self.execution))
        except Exception as error:  # whatever broke, the action still runs, unreported
            log.warning("openlineage: the inputs of an action: %s", error)
            return False


def report_heard_read(
    session: Session, reporter: LineageSink, execution: SparkExecution, executed: object
) -> None:
    """Report a query the session's listener heard an action run, if it read stored datasets."""
    try:
        # A tripped breaker: not reported, since only its description says what it read.
        with describing(execution):
            if not session.query_reads(executed, execution):
                return
    except Exception as error:  # never let an exception travel back into Spark
        log.debug("openlineage: reporting a query failed: %s", error)
        return
    report_done(reporter, execution)
