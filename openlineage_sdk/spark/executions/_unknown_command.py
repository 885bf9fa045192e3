"""A Spark Connect command of a kind the adapter does not know: a run of its own all the same.

A server plugin's command (Delta Connect's ``DeltaCommand``, any ``Command.extension``) is an
``Any`` the adapter cannot read: it is sent and run as it is, and its run is named after the
message's type (as the JVM agent names a node it does not know after its class), with an
``extractionError`` facet that says what was not understood; never silence.
"""

from __future__ import annotations

import re

from openlineage_sdk.spark._execution import SparkExecution
from openlineage_sdk.spark._flow import ExecutionSteps

__all__ = ["UnknownCommand", "extension_command_name"]


def extension_command_name(type_url: str) -> str:
    """The job-name command of an extension message: its type's name in snake case.

    Args:
        type_url: The ``Any``'s type URL (``type.googleapis.com/delta.connect.DeltaCommand``).

    Returns:
        ``delta_command`` for the example; ``extension`` when the URL names no type.
    """
    name = type_url.rsplit("/", 1)[-1].rsplit(".", 1)[-1]
    name = re.sub(r"[^0-9A-Za-z]", "", name)
    if not name:
        return "extension"
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class UnknownCommand(ExecutionSteps):
    """A client command the adapter cannot describe: named by its type, its problem noted."""

    def __init__(self, execution: SparkExecution, kind: str, type_url: str | None) -> None:
        self.execution = execution
        self.kind = kind
        self.type_url = type_url

    def before(self) -> bool:
        execution = self.execution
        if self.type_url is not None:
            execution.name_job(extension_command_name(self.type_url))
            what = f"an extension command of type {self.type_url!r}"
        else:
            execution.name_job(self.kind)
            what = f"a {self.kind!r} command"
        execution.problems.append(
            f"command: {what} is not one the adapter reads: its inputs and outputs are unknown"
        )
        return True
