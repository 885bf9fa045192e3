"""The registry of Spark commands: how the JVM agent reports each command Spark runs.

Classic PySpark and Spark Connect learn which command a statement or a write runs in different
ways (the session's analyzer, the server's ``EXPLAIN``, the writer's settings), but once the
command is known, everything the events say about it comes from its row here (a
:class:`~openlineage_sdk.spark.describe._planned.Command`): the command part of the job name,
the job name's suffix (the agent's ``JobNameSuffixProvider`` of that command's visitor), the
``lifecycleStateChange`` of its output, whether it writes data (and so reports write metrics),
when its output can be described, what it writes, and its handler (``_handlers``), which
describes it from the neutral form a session reduced it to (:class:`PlannedCommand`).

Adding a command the adapter reports means one row here (with a handler, new or shared), plus
the reader of its plan node in each Spark version's classic readers
(``session.classic._readers``); Spark Connect names its target from the server's ``EXPLAIN``
by the row's ``target``.
"""

from __future__ import annotations

from collections.abc import Callable

from openlineage_sdk.spark._execution import CatalogInfo, DatasetLineage, SparkExecution
from openlineage_sdk.spark.describe import _handlers as h
from openlineage_sdk.spark.describe._planned import (
    Command,
    CommandReader,
    Described,
    DescribedCommand,
    PlannedCommand,
    Suffix,
    Target,
    command_name,
    snake_case,
)

__all__ = [
    "COMMANDS",
    "Command",
    "Described",
    "DescribedCommand",
    "PlannedCommand",
    "Suffix",
    "Target",
    "apply_output",
    "apply_statement",
    "command_name",
    "describe_command",
    "described",
    "job_suffix",
    "snake_case",
]


def _rows(*commands: Command) -> dict[str, Command]:
    return {command.node: command for command in commands}


# What Spark Connect's description of a command with ``looked_up_beside`` asks the catalog (its
# inputs, its target) does not change while it runs: it is asked beside the run.
# As the JVM agent's visitors report them (``integration/spark/*/lifecycle/plan/*Visitor.java``):
# the suffix is the visitor's ``jobNameSuffix``, the state what it puts in the output's
# ``lifecycleStateChange``.
COMMANDS: dict[str, Command] = _rows(
    Command(
        "InsertIntoHadoopFsRelationCommand",
        "insert",
        "path",
        None,
        True,
        writes_data=True,
        target="table_or_location",
        target_exists=True,
        handler=h.write_query,
        lineage=True,
        looked_up_beside=True,
    ),
    Command(
        "InsertIntoHiveTable",
        "insert",
        "path",
        None,
        True,
        writes_data=True,
        target="table_or_location",
        target_exists=True,
        handler=h.write_table_query,
        lineage=True,
        looked_up_beside=True,
    ),
    Command(
        "CreateDataSourceTableAsSelectCommand",
        "ctas",
        "table",
        "CREATE",
        writes_data=True,
        described="either",
        query_analysed_only=True,
        handler=h.write_query,
        lineage=True,
        looked_up_beside=True,
    ),
    Command(
        "CreateHiveTableAsSelectCommand",
        "ctas",
        "table",
        "CREATE",
        writes_data=True,
        described="either",
        query_analysed_only=True,
        handler=h.write_query,
        lineage=True,
        looked_up_beside=True,
    ),
    Command(
        "OptimizedCreateHiveTableAsSelectCommand",
        "ctas",
        None,
        None,
        True,
        writes_data=True,
        described="either",
        query_analysed_only=True,
        handler=h.write_query,
        lineage=True,
        looked_up_beside=True,
    ),
    Command(
        "InsertIntoDataSourceDirCommand",
        "directory",
        None,
        "OVERWRITE",
        writes_data=True,
        target="location",
        handler=h.write_query,
        lineage=True,
        looked_up_beside=True,
    ),
    Command(
        "InsertIntoHiveDirCommand",
        "directory",
        "path",
        "OVERWRITE",
        writes_data=True,
        target="location",
        handler=h.write_query,
        lineage=True,
        looked_up_beside=True,
    ),
    Command(
        "LoadDataCommand",
        "load",
        "table",
        None,
        True,
        handler=h.table_command,
        looked_up_beside=True,
    ),
    Command(
        "CreateDataSourceTableCommand",
        "create",
        "table",
        "CREATE",
        described="either",
        handler=h.create_table,
        looked_up_beside=True,
    ),
    Command(
        "CreateTableCommand",
        "create",
        "path",
        "CREATE",
        described="either",
        handler=h.create_table,
        looked_up_beside=True,
    ),
    Command(
        "CreateTableLikeCommand",
        "like",
        "name",
        "CREATE",
        described="either",
        handler=h.create_table_like,
        looked_up_beside=True,
    ),
    Command("DropTableCommand", "drop", None, "DROP", output_schema=False, handler=h.drop_table),
    Command(
        "DropTable",
        "drop",
        None,
        "DROP",
        executes=False,
        output_schema=False,
        handler=h.drop_table,
    ),
    Command(
        "TruncateTableCommand",
        "truncate",
        "path",
        "TRUNCATE",
        output_schema=False,
        handler=h.truncate_table,
    ),
    Command(
        "AlterTableAddColumnsCommand",
        "alter",
        None,
        "ALTER",
        described="after",
        handler=h.alter_table,
    ),
    Command(
        "AlterTableSetLocationCommand",
        "alter",
        None,
        "ALTER",
        described="after",
        handler=h.alter_table,
    ),
    Command(
        "AlterTableRenameCommand",
        "rename",
        None,
        "RENAME",
        described="after",
        renames=True,
        handler=h.rename_table,
    ),
    # Partition DDL: the table's partitions change, the agent reports the table ALTERed.
    Command("AlterTableAddPartitionCommand", "partitions", None, "ALTER", handler=h.table_command),
    Command("RepairTableCommand", "partitions", None, "ALTER", handler=h.table_command),
    # Row-level changes of v2 tables (MERGE INTO, UPDATE, DELETE FROM, DataFrame.mergeInto):
    # Spark plans them as ReplaceData (copy-on-write) or WriteDelta (merge-on-read) over the
    # table's rows, the agent names the job after that node and the table's name, and reports
    # the target as the output (``TableContentChangeDatasetBuilder``). A table that deletes by
    # filter keeps DeleteFromTable. A failure to describe one is a problem of its run.
    *(
        Command(
            node,
            "row_level",
            "table",
            None,
            executes=False,
            writes_data=True,
            handler=h.row_level_write,
            errors_as_problems=True,
        )
        for node in ("ReplaceData", "WriteDelta")
    ),
    *(
        Command(
            node,
            "row_level",
            "table",
            None,
            executes=False,
            handler=h.row_level_command,
            errors_as_problems=True,
        )
        for node in ("MergeIntoTable", "UpdateTable", "DeleteFromTable")
    ),
    # Delta Lake's own commands (its SQL extensions plan MERGE, UPDATE and DELETE on Delta
    # tables as these): the target is the output and, for MERGE, the source and the target are
    # the inputs (``MergeIntoCommand*DatasetBuilder``, ``UpdateCommand*``, ``DeleteCommand*``).
    *(
        Command(
            node,
            "delta",
            "table",
            None,
            writes_data=True,
            handler=h.delta_command,
            errors_as_problems=True,
        )
        for node in ("MergeIntoCommand", "UpdateCommand", "DeleteCommand")
    ),
    # Structured Streaming: what each micro-batch of a stream runs for its sink, which names the
    # stream's job (``describe._stream_datasets``): file, table and foreachBatch sinks (data source V1),
    # the others (V2 tables). The suffix is the sink's dataset: a folder's last two parts, or a
    # table's qualified name for ``toTable``, or a Kafka topic. The stream's execution describes
    # its output from the sink.
    Command("WriteToMicroBatchDataSourceV1", "stream", "path", executes=False, writes_data=True),
    Command("WriteToDataSourceV2", "stream", "name", executes=False, writes_data=True),
)


def described(node: str, **fields: object) -> DescribedCommand:
    """A :class:`DescribedCommand` of ``node`` with its row of the registry."""
    return DescribedCommand(node, COMMANDS.get(node), **fields)  # type: ignore[arg-type]


def describe_command(
    node: str, read: Callable[[], PlannedCommand | None], reader: CommandReader
) -> DescribedCommand | None:
    """Describe command ``node`` by its handler: ``read()`` reduces it to its neutral form.

    ``None`` when the command touches no dataset the adapter reports. A command without a
    handler (or one the adapter does not know) is described by its name alone. A command whose
    row says so gets a failure to read or describe it as a problem of its run; any other
    failure reaches the caller (the statement is then left to Spark to report).
    """
    row = COMMANDS.get(node)
    if row is None or row.handler is None:
        return described(node)
    try:
        planned = read()
        found = row.handler(planned, reader) if planned is not None else None
    except Exception as error:
        if not row.errors_as_problems:
            raise
        return described(node, problems=[f"statement: {type(error).__name__}: {error}"])
    if found is not None:
        found.command = row
    return found


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


def apply_statement(
    execution: SparkExecution, planned: DescribedCommand, catalog: CatalogInfo | None
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
    planned: DescribedCommand,
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
