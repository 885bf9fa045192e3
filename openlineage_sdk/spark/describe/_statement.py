"""A planned SQL command into the execution's record, by the one command table.

Each session plans a statement its own way (classic PySpark with the session's analyzer, Spark
Connect with the server's ``EXPLAIN``) into a :class:`PlannedStatement`: the command Spark will
run, its output as far as known, its inputs. :func:`apply_statement` then names the job and sets
the output's lifecycle by the command's row in ``_commands``, the same for both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from openlineage_sdk.spark._execution import CatalogInfo, DatasetLineage, SparkExecution
from openlineage_sdk.spark.describe._commands import COMMANDS, Command, command_name, job_suffix
from openlineage_sdk.spark.describe._tables import TableInfo

__all__ = ["PlannedStatement", "apply_output", "apply_statement"]


@dataclass
class PlannedStatement:
    """What one SQL command will do, as a session planned it.

    Attributes:
        node: The class name of the command's logical plan node.
        output: The dataset it writes or changes, as known before it runs (``None`` for a
            command whose output is known only after, or not at all).
        table: The output's table, for the job-name suffix (``None`` for a folder).
        overwrite: Whether it overwrites its output (its save mode, ``INSERT OVERWRITE``).
        inputs: What its query reads.
        problems: What could not be learned.
        refresh: Describes the output again once the command ran (``ALTER``, ``RENAME``).
    """

    node: str
    output: DatasetLineage | None = None
    table: TableInfo | None = None
    overwrite: bool = False
    inputs: list[DatasetLineage] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    refresh: Callable[[], DatasetLineage | None] | None = None

    @property
    def command(self) -> Command | None:
        """The command's row in the table; ``None`` for a command the adapter does not know."""
        return COMMANDS.get(self.node)

    @property
    def writes_data(self) -> bool:
        """Whether the command writes rows (and so reports write metrics)."""
        command = self.command
        return command is not None and command.writes_data


def apply_statement(
    execution: SparkExecution, planned: PlannedStatement, catalog: CatalogInfo | None
) -> None:
    """Name the execution's job and fill in its datasets from ``planned``."""
    command = planned.command
    if command is None:
        # Named as the agent names a command it has no visitor for: after its physical node,
        # ``Execute ...`` for the runnable commands (``...Command``).
        execution.name_job(command_name(planned.node, executes=planned.node.endswith("Command")))
        execution.problems.append(f"statement: {planned.node} is not a command the adapter knows")
    execution.inputs = planned.inputs
    execution.problems.extend(planned.problems)
    apply_output(execution, planned, planned.output, catalog)


def apply_output(
    execution: SparkExecution,
    planned: PlannedStatement,
    output: DatasetLineage | None,
    catalog: CatalogInfo | None,
) -> None:
    """Set ``output`` as the execution's output, with the command's lifecycle and job name."""
    command = planned.command
    execution.output = output
    if command is None:
        return
    table = planned.table
    qualified = table.qualified_name if table is not None else None
    if table is not None and table.catalog is not None:
        qualified = f"{table.catalog}.{qualified}"  # a v2 table's name begins with its catalog
    execution.name_job(
        command.name,
        job_suffix(
            command,
            qualified_table=qualified,
            table=table.table if table is not None else None,
            location=output.identity.name if output is not None else None,
        ),
    )
    if output is not None:
        if command.overwrite_state and planned.overwrite:
            output.lifecycle_state = "OVERWRITE"
        elif output.lifecycle_state is None:
            output.lifecycle_state = command.state
        if catalog is not None:
            output.catalog = catalog
