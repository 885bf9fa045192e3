"""The command handlers: each describes a family of Spark commands from its neutral reading.

A handler gets a :class:`PlannedCommand` (what a session's reader found in the command: its
target, query, columns, mode, source) and the session's :class:`CommandReader`, and describes
the command as the JVM agent's visitor for it does: the output (with or without its schema),
the inputs and column lineage of its query, what is read again once it ran. Which handler a
command has is its row in the registry (``_commands``); a handler returns ``None`` for a command
that touches no dataset the adapter reports (``DROP TABLE IF EXISTS`` of no table).
"""

from __future__ import annotations

from openlineage_sdk.spark._execution import ColumnLineageRecord, DatasetIdentity, DatasetLineage
from openlineage_sdk.spark.describe._planned import CommandReader, DescribedCommand, PlannedCommand

__all__ = [
    "alter_table",
    "create_table",
    "create_table_like",
    "delta_command",
    "drop_table",
    "rename_table",
    "row_level_command",
    "row_level_write",
    "table_command",
    "truncate_table",
    "write_query",
    "write_table_query",
]


def write_table_query(planned: PlannedCommand, reader: CommandReader) -> DescribedCommand:
    """An ``INSERT`` into a Hive table: the table's columns, its query's inputs and lineage."""
    output, info = reader.table_output(planned.target)
    described = DescribedCommand(
        planned.node, output=output, table=info, overwrite=planned.overwrite
    )
    reader.read_query(planned.query, described, planned.columns)
    return described


def write_query(planned: PlannedCommand, reader: CommandReader) -> DescribedCommand | None:
    """A command whose output's columns are its query's: an ``INSERT`` into files, a CTAS, an
    ``INSERT OVERWRITE DIRECTORY``; the output a table, else the folder it writes."""
    if planned.target is not None:
        output, info = reader.table_output(planned.target, with_schema=False)
        described = DescribedCommand(
            planned.node, output=output, table=info, overwrite=planned.overwrite
        )
    elif planned.location is not None:
        output = DatasetLineage(DatasetIdentity.from_uri(planned.location), "output")
        described = DescribedCommand(planned.node, output=output, overwrite=planned.overwrite)
    else:
        return None  # a folder the command names no location of
    reader.read_query(planned.query, described, planned.columns, output_schema=True)
    return described


def create_table(planned: PlannedCommand, reader: CommandReader) -> DescribedCommand:
    """``CREATE TABLE``: the table about to be created, with its declared columns."""
    output, info = reader.table_output(planned.target)
    return DescribedCommand(planned.node, output=output, table=info)


def create_table_like(planned: PlannedCommand, reader: CommandReader) -> DescribedCommand:
    """``CREATE TABLE ... LIKE``: the new table (``target``, placed), its source's columns."""
    info = planned.target
    output = reader.info_output(info)
    output.schema = reader.table_schema(planned.source)
    return DescribedCommand(planned.node, output=output, table=info)


def table_command(planned: PlannedCommand, reader: CommandReader) -> DescribedCommand:
    """A command that changes a table in place (``LOAD DATA``, partition DDL): the table."""
    output, info = reader.table_output(planned.target)
    return DescribedCommand(planned.node, output=output, table=info, overwrite=planned.overwrite)


def truncate_table(planned: PlannedCommand, reader: CommandReader) -> DescribedCommand:
    """``TRUNCATE TABLE``: the table, without its columns (as the agent reports it)."""
    output, info = reader.table_output(planned.target, with_schema=False)
    return DescribedCommand(planned.node, output=output, table=info)


def drop_table(planned: PlannedCommand, reader: CommandReader) -> DescribedCommand | None:
    """``DROP TABLE``: the table as it is before it goes (none: ``IF EXISTS`` of no table)."""
    if not reader.table_exists(planned.target):
        return None
    output, info = reader.table_output(planned.target, with_schema=False)
    return DescribedCommand(planned.node, output=output, table=info)


def alter_table(planned: PlannedCommand, reader: CommandReader) -> DescribedCommand:
    """``ALTER TABLE``: the table as the command leaves it, read once it ran."""

    def altered() -> DatasetLineage:
        return reader.table_output(planned.target)[0]

    return DescribedCommand(planned.node, refresh=altered)


def rename_table(planned: PlannedCommand, reader: CommandReader) -> DescribedCommand:
    """``ALTER TABLE ... RENAME TO``: the table under its new name, once it ran, with the old."""
    old, _ = reader.table_output(planned.target, with_schema=False)

    def renamed() -> DatasetLineage:
        output, _ = reader.table_output(reader.renamed(planned.new_name, old))
        output.previous_identity = DatasetIdentity(old.identity.namespace, old.identity.name)
        return output

    return DescribedCommand(planned.node, refresh=renamed)


def row_level_write(planned: PlannedCommand, reader: CommandReader) -> DescribedCommand:
    """``ReplaceData`` or ``WriteDelta``: MERGE, UPDATE or DELETE rewritten over the table's rows.

    Its query reads the target's rows (and a MERGE's source): those are the inputs, and the
    query's columns that are the table's give the column lineage. The table's version is read
    again once the command ran.
    """
    output, info = reader.v2_output(planned.target)
    described = DescribedCommand(planned.node, output=output, table=info)
    reader.read_query(planned.query, described)
    lineage = output.column_lineage
    if lineage is not None:
        # The query's own columns (__row_operation, __row_id...) are not the table's.
        names = {f["name"] for f in output.schema or []}
        kept = {k: v for k, v in lineage.fields.items() if k in names}
        output.column_lineage = ColumnLineageRecord(kept, lineage.dataset)
    described.refresh = reader.version_refresh(planned.target, output)
    return described


def row_level_command(planned: PlannedCommand, reader: CommandReader) -> DescribedCommand:
    """MERGE, UPDATE or DELETE left as such (a table that deletes by filter): the target, and a
    MERGE's source as its inputs (``target``: ``None`` when it is not a v2 table)."""
    if planned.target is None:
        return DescribedCommand(planned.node)
    output, info = reader.v2_output(planned.target)
    described = DescribedCommand(planned.node, output=output, table=info)
    if planned.source is not None:
        reader.read_query(planned.source, described)
        output.column_lineage = None
    return described


def delta_command(planned: PlannedCommand, reader: CommandReader) -> DescribedCommand:
    """Delta Lake's ``MergeIntoCommand``, ``UpdateCommand`` or ``DeleteCommand``.

    As the agent's builders for them: the output is the target (its dataset, as any relation
    of it is named), and the inputs are a MERGE's target and source, an UPDATE's or DELETE's
    target; the job is named after the target as its own write would be.
    """
    node, target = planned.node, planned.target
    described = DescribedCommand(node)
    identities, inputs, problems = reader.relation_datasets(target)
    described.problems.extend(problems)
    if len(identities) != 1:
        described.problems.append(f"output: the {node}'s target is {len(identities)} datasets")
        return described
    [identity] = identities
    output = DatasetLineage(identity, "output")
    output.schema = reader.relation_schema(target)
    described.output = output
    described.table = reader.relation_table(target)
    described.inputs = inputs
    if planned.source is not None:
        source = DescribedCommand(node)
        reader.read_query(planned.source, source)
        known = {(i.identity.namespace, i.identity.name) for i in described.inputs}
        described.inputs.extend(
            i for i in source.inputs if (i.identity.namespace, i.identity.name) not in known
        )
        described.problems.extend(source.problems)
    return described
