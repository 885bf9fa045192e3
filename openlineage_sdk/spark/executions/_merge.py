"""``DataFrame.mergeInto(...).merge()`` under Spark Connect: described before it runs.

The client holds the MERGE as a command, which the session reads into what it does (its
target, an input and the output; its source's reads, the other inputs): before it runs, as a
``MERGE`` statement would be. Classic PySpark hands the merge to the JVM in one call, described
once it ran as a bound statement is (``_statement.BoundStatement``).
"""

from __future__ import annotations

from typing import Any

from openlineage_sdk.spark._execution import SparkExecution
from openlineage_sdk.spark._flow import ExecutionSteps
from openlineage_sdk.spark.describe._commands import apply_statement
from openlineage_sdk.spark.session import Session

__all__ = ["MergeCommand"]


class MergeCommand(ExecutionSteps):
    """A client's ``MergeIntoTableCommand``: its datasets before it runs."""

    def __init__(self, session: Session, execution: SparkExecution, command: Any) -> None:
        self.session = session
        self.execution = execution
        self.command = command

    def before(self) -> bool:
        apply_statement(self.execution, self.session.merge_command(self.command), None)
        return True
