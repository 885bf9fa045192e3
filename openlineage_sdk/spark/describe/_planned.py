"""The command a session read, in one neutral form, and what it was described into.

A session reads a Spark command its own way (classic PySpark from the analyzed plan node through
py4j, by the readers of its Spark version; Spark Connect from the server's ``EXPLAIN``) and
reduces it to a :class:`PlannedCommand`: which command (its plan node's class name), its target
(a table, a folder), its query, whether it overwrites, what else it reads. The command's handler
in the registry (``_commands``) describes that into a :class:`DescribedCommand` (its output,
inputs and problems), asking the session only the questions of :class:`CommandReader`.

What a row of the registry holds is a :class:`Command`: the agent's facts about one command (job
name and suffix, lifecycle state, when it can be described) and its handler.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from openlineage_sdk.spark._execution import DatasetIdentity, DatasetLineage, LifecycleState
from openlineage_sdk.spark.describe._tables import TableInfo

__all__ = [
    "Command",
    "CommandHandler",
    "CommandReader",
    "Described",
    "DescribedCommand",
    "PlannedCommand",
    "Suffix",
    "Target",
    "command_name",
    "snake_case",
]

Suffix = Literal["table", "name", "path"]
"""The job-name suffix rule of a command's visitor in the JVM agent.

``table``: the table's qualified name (``{db}.{table}``, its dots made ``_`` in the job name);
``name``: the table's own name alone; ``path``: the output location's last two folders, after
trimming (a table's location for inserts into a table).
"""

Described = Literal["before", "after", "either"]
"""When a command's output can be described.

``before``: only before it runs (a ``DROP``'s table is gone after, an ``INSERT``'s target and
reads do not change while it runs); ``after``: only once it ran (an ``ALTER``'s new schema, a
``RENAME``'s new name); ``either``: before, if the session can tell the output from the plan
(classic PySpark's analyzer can, for a table about to be created), else after.
"""

Target = Literal["table", "location", "table_or_location", "none"]
"""What a command writes: a catalog table, a folder (``INSERT OVERWRITE DIRECTORY``), a table or
else a folder (an ``INSERT`` into a table, or into files by path), or nothing of its own."""


@dataclass
class PlannedCommand:
    """One command as a session read it, before it is described.

    The references (``target``, ``query``, ``source``, ``new_name``) are the session's own
    reading of them, handed back to the session's :class:`CommandReader`: a JVM object in
    classic PySpark, a qualified name or the server's explanation under Spark Connect.

    Attributes:
        node: The class name of the command's logical plan node.
        target: The table it writes or changes (``None``: none, or a folder).
        location: The folder it writes, as a URI (a command that writes by path).
        query: The query it writes.
        columns: The names of the columns it writes (its output's, by position).
        overwrite: Whether it overwrites its output (its save mode, ``INSERT OVERWRITE``).
        source: What else it reads by name: a ``CREATE TABLE LIKE``'s source, a ``MERGE``'s source.
        new_name: A ``RENAME``'s new name.
        tables: Every table the command names, qualified (Spark Connect's explanation).
        error: Why the session could not analyse it (the command is then only named).
    """

    node: str
    target: Any = None
    location: str | None = None
    query: Any = None
    columns: list[str] | None = None
    overwrite: bool = False
    source: Any = None
    new_name: Any = None
    tables: list[str] = field(default_factory=list)
    error: str | None = None


@dataclass
class DescribedCommand:
    """What one command does, described: its output, inputs and what could not be learned.

    Attributes:
        node: The class name of the command's logical plan node.
        command: The command's row in the registry; ``None`` for a command the adapter does not
            know (set from ``node`` by ``_commands.described``).
        output: The dataset it writes or changes, as known before it runs (``None`` for a
            command whose output is known only after, or not at all).
        table: The output's table, for the job-name suffix (``None`` for a folder).
        overwrite: Whether it overwrites its output (its save mode, ``INSERT OVERWRITE``).
        inputs: What its query reads.
        problems: What could not be learned.
        refresh: Describes the output again once the command ran (``ALTER``, ``RENAME``).
    """

    node: str
    command: Command | None = None
    output: DatasetLineage | None = None
    table: TableInfo | None = None
    overwrite: bool = False
    inputs: list[DatasetLineage] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    refresh: Callable[[], DatasetLineage | None] | None = None

    @property
    def writes_data(self) -> bool:
        """Whether the command writes rows (and so reports write metrics)."""
        command = self.command
        return command is not None and command.writes_data


class CommandReader(Protocol):
    """The questions a command's handler asks the session that read the command.

    Each kind of session (and, in it, each Spark version's readers) answers them from its own
    reading of the :class:`PlannedCommand`'s references.
    """

    def table_output(
        self, table: Any, *, with_schema: bool = True, schema: Any = None
    ) -> tuple[DatasetLineage, TableInfo]:
        """A catalog table as the output dataset, with its schema (``schema``: another's)."""

    def info_output(self, info: TableInfo) -> DatasetLineage:
        """The output dataset of a table known by its name and location."""

    def table_exists(self, table: Any) -> bool:
        """Whether ``table`` is in the catalog."""

    def table_schema(self, table: Any) -> Any:
        """The schema facet's fields of ``table``, from the catalog."""

    def read_query(
        self,
        query: Any,
        described: DescribedCommand,
        columns: list[str] | None = None,
        *,
        output_schema: bool = False,
    ) -> None:
        """``query``'s inputs into ``described``, with its output's column lineage (and, with
        ``output_schema``, the output's schema: the query's)."""

    def v2_output(self, relation: Any) -> tuple[DatasetLineage, TableInfo]:
        """A v2 table's output dataset (as it describes itself), and its name for the job."""

    def version_refresh(
        self, relation: Any, output: DatasetLineage
    ) -> Callable[[], DatasetLineage | None]:
        """What reads a v2 table's version again once the command ran."""

    def relation_datasets(
        self, relation: Any
    ) -> tuple[list[DatasetIdentity], list[DatasetLineage], list[str]]:
        """What a plan relation reads: its identities, as input datasets, and problems."""

    def relation_schema(self, relation: Any) -> Any:
        """The schema facet's fields of a plan relation's output."""

    def relation_table(self, relation: Any) -> TableInfo | None:
        """The catalog table of a plan relation over one, if it is."""

    def renamed(self, new_name: Any, old: DatasetLineage) -> Any:
        """A ``RENAME``'s new table, in the old one's database unless it names one."""


CommandHandler = Callable[[PlannedCommand, CommandReader], "DescribedCommand | None"]
"""Describes one read command (``None``: it touches no dataset the adapter reports)."""


@dataclass(frozen=True)
class Command:
    """One Spark command as the adapter reports it: a row of the registry (``_commands``).

    Attributes:
        node: The class name of Spark's logical plan node of the command.
        kind: What it does, in the adapter's words (``insert``, ``ctas``, ``directory``,
            ``load``, ``create``, ``like``, ``drop``, ``truncate``, ``alter``, ``rename``,
            ``partitions``, ``row_level``, ``delta``, ``stream``).
        suffix: The job-name suffix rule (:data:`Suffix`), ``None`` for none.
        state: The output's ``lifecycleStateChange``; ``None`` for none.
        overwrite_state: Whether the output is ``OVERWRITE`` when the command overwrites (its
            save mode or ``INSERT OVERWRITE``), which then replaces ``state``.
        executes: Whether Spark runs it as a ``RunnableCommand``: the agent names those after
            their physical node, ``execute_`` and the command in snake case.
        writes_data: Whether it writes rows, and so reports write metrics.
        described: When its output can be described (:data:`Described`).
        target: What it writes (:data:`Target`).
        output_schema: Whether its output is reported with a schema.
        lineage: Whether its output's columns come from a query it writes (column lineage).
        looked_up_beside: Whether what its description looks up in the catalog (its inputs,
            its target) is unchanged while it runs, so it may be asked beside the run.
        target_exists: Whether its target exists before it runs (a command that analysed).
        renames: Whether its output had another name before (``previousIdentifier``).
        query_analysed_only: Whether the command holds its query as analysed only (a CTAS):
            its optimized query is the query's alone.
        handler: Describes the command as a session read it (``None``: no reading of its own,
            its output is described by the execution that runs it).
        errors_as_problems: Whether a failure to describe it still reports the command, with
            the failure as a problem (rather than leaving the statement to Spark).
    """

    node: str
    kind: str
    suffix: Suffix | None = None
    state: LifecycleState | None = None
    overwrite_state: bool = False
    executes: bool = True
    writes_data: bool = False
    described: Described = "before"
    target: Target = "table"
    output_schema: bool = True
    lineage: bool = False
    looked_up_beside: bool = False
    target_exists: bool = False
    renames: bool = False
    query_analysed_only: bool = False
    handler: CommandHandler | None = None
    errors_as_problems: bool = False

    @property
    def name(self) -> str:
        """The command part of the job name (``execute_insert_into_hive_table``)."""
        return command_name(self.node, executes=self.executes)


def snake_case(node: str) -> str:
    """A class name in snake case, as the agent's name normalizer splits it."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", node)
    return words.lower()


def command_name(node: str, *, executes: bool = True) -> str:
    """The job name's command part for Spark's command ``node``."""
    return ("execute_" if executes else "") + snake_case(node)
