"""The one table of Spark commands: how the JVM agent reports each command Spark runs.

Classic PySpark and Spark Connect learn which command a statement or a write runs in different
ways (the session's analyzer, the server's ``EXPLAIN``, the writer's settings), but once the
command is known, everything the events say about it comes from this table: the command part of
the job name, the job name's suffix (the agent's ``JobNameSuffixProvider`` of that command's
visitor), the ``lifecycleStateChange`` of its output, whether it writes data (and so reports write
metrics), and when its output can be described.

Adding a command the adapter reports means one row here, plus, in each session, reading the
command's target from Spark (see ``session``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from openlineage_sdk.spark._execution import LifecycleState

__all__ = [
    "COMMANDS",
    "Command",
    "Described",
    "Suffix",
    "command_name",
    "job_suffix",
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


@dataclass(frozen=True)
class Command:
    """One Spark command as the adapter reports it.

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
    """

    node: str
    kind: str
    suffix: Suffix | None = None
    state: LifecycleState | None = None
    overwrite_state: bool = False
    executes: bool = True
    writes_data: bool = False
    described: Described = "before"

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


def _rows(*commands: Command) -> dict[str, Command]:
    return {command.node: command for command in commands}


# As the JVM agent's visitors report them (``integration/spark/*/lifecycle/plan/*Visitor.java``):
# the suffix is the visitor's ``jobNameSuffix``, the state what it puts in the output's
# ``lifecycleStateChange``.
COMMANDS: dict[str, Command] = _rows(
    Command("InsertIntoHadoopFsRelationCommand", "insert", "path", None, True, writes_data=True),
    Command("InsertIntoHiveTable", "insert", "path", None, True, writes_data=True),
    Command(
        "CreateDataSourceTableAsSelectCommand",
        "ctas",
        "table",
        "CREATE",
        writes_data=True,
        described="either",
    ),
    Command(
        "CreateHiveTableAsSelectCommand",
        "ctas",
        "table",
        "CREATE",
        writes_data=True,
        described="either",
    ),
    Command(
        "OptimizedCreateHiveTableAsSelectCommand",
        "ctas",
        None,
        None,
        True,
        writes_data=True,
        described="either",
    ),
    Command("InsertIntoDataSourceDirCommand", "directory", None, "OVERWRITE", writes_data=True),
    Command("InsertIntoHiveDirCommand", "directory", "path", "OVERWRITE", writes_data=True),
    Command("LoadDataCommand", "load", "table", None, True),
    Command("CreateDataSourceTableCommand", "create", "table", "CREATE", described="either"),
    Command("CreateTableCommand", "create", "path", "CREATE", described="either"),
    Command("CreateTableLikeCommand", "like", "name", "CREATE", described="either"),
    Command("DropTableCommand", "drop", None, "DROP"),
    Command("DropTable", "drop", None, "DROP", executes=False),
    Command("TruncateTableCommand", "truncate", "path", "TRUNCATE"),
    Command("AlterTableAddColumnsCommand", "alter", None, "ALTER", described="after"),
    Command("AlterTableSetLocationCommand", "alter", None, "ALTER", described="after"),
    Command("AlterTableRenameCommand", "rename", None, "RENAME", described="after"),
    # Partition DDL: the table's partitions change, the agent reports the table ALTERed.
    Command("AlterTableAddPartitionCommand", "partitions", None, "ALTER"),
    Command("RepairTableCommand", "partitions", None, "ALTER"),
    # Row-level changes of v2 tables (MERGE INTO, UPDATE, DELETE FROM, DataFrame.mergeInto):
    # Spark plans them as ReplaceData (copy-on-write) or WriteDelta (merge-on-read) over the
    # table's rows, the agent names the job after that node and the table's name, and reports
    # the target as the output (``TableContentChangeDatasetBuilder``). A table that deletes by
    # filter keeps DeleteFromTable.
    Command("ReplaceData", "row_level", "table", None, executes=False, writes_data=True),
    Command("WriteDelta", "row_level", "table", None, executes=False, writes_data=True),
    Command("MergeIntoTable", "row_level", "table", None, executes=False),
    Command("UpdateTable", "row_level", "table", None, executes=False),
    Command("DeleteFromTable", "row_level", "table", None, executes=False),
    # Delta Lake's own commands (its SQL extensions plan MERGE, UPDATE and DELETE on Delta
    # tables as these): the target is the output and, for MERGE, the source and the target are
    # the inputs (``MergeIntoCommand*DatasetBuilder``, ``UpdateCommand*``, ``DeleteCommand*``).
    Command("MergeIntoCommand", "delta", "table", None, writes_data=True),
    Command("UpdateCommand", "delta", "table", None, writes_data=True),
    Command("DeleteCommand", "delta", "table", None, writes_data=True),
    # Structured Streaming: what each micro-batch of a stream runs for its sink, which names the
    # stream's job (``_streams``): file, table and foreachBatch sinks (data source V1), the
    # others (V2 tables). The suffix is the sink's dataset: a folder's last two parts, or a
    # table's qualified name for ``toTable``, or a Kafka topic.
    Command("WriteToMicroBatchDataSourceV1", "stream", "path", executes=False, writes_data=True),
    Command("WriteToDataSourceV2", "stream", "name", executes=False, writes_data=True),
)


def job_suffix(
    command: Command, *, qualified_table: str | None, table: str | None, location: str | None
) -> str | None:
    """The job name's suffix of ``command`` writing to the given table or location.

    ``qualified_table`` is ``{db}.{table}``, ``table`` the table's own name, ``location`` the
    output dataset's name (a path); :func:`openlineage_sdk.naming.spark_job_name` turns either
    into the suffix (dots to ``_``, a path's last two folders).
    """
    if command.suffix == "table":
        return qualified_table
    if command.suffix == "name":
        return table
    if command.suffix == "path":
        return location
    return None
