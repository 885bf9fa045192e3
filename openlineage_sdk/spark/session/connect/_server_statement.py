"""SQL statements under Spark Connect: what a statement reads and writes, asked of the server.

How the adapter learns what a statement does
--------------------------------------------
Before the statement runs, the adapter sends the same ``SqlCommand`` (same arguments, same
temporary views) with ``EXPLAIN EXTENDED`` in front of the text. The server parses and analyses
the statement with its own analyzer and catalog and returns the plan as text (``_explain``): the
command it will run (``InsertIntoHadoopFsRelationCommand``, ``InsertIntoHiveTable``,
``CreateDataSourceTableAsSelectCommand``, ``DropTable``, ...) with its target table or folder,
the write mode, and every table the query reads, fully qualified. ``EXPLAIN`` runs no Spark job
and never runs the statement (a test runs DROP, TRUNCATE and INSERT and checks both), except for
a statement that reads files by path (``parquet.`/data/x```): the server would infer the files'
schema in a job, so such a statement is not explained, and its run says why it has no datasets.
The target's location and schema and the inputs' schemas then come from the catalog (``DESCRIBE
TABLE EXTENDED ... AS JSON``: no job either). Column lineage is traced over the optimized plan's
text (``_text_lineage``), as the classic path traces the optimized plan; a CTAS's command holds
its query as analysed only, so the query is explained once more on its own, beside the
statement, and used when the server's plan of it is the statement's query node for node.

The other way considered was the OpenLineage SQL parser (``openlineage-sql``, dialect ``spark``)
on the client plus catalog look-ups. The parser cannot tell what the server will do: which
command runs (a Hive table written as files is ``InsertIntoHadoopFsRelationCommand``, as Hive
SerDe ``InsertIntoHiveTable``: the job name the JVM agent gives depends on it), the current
database and catalog, temporary views and parameter markers; and it gave nothing for ``CREATE
TABLE ... USING parquet AS SELECT`` and ``INSERT OVERWRITE DIRECTORY ... USING parquet``. The
server's analyzer answers all of that exactly, in one request.

When each step runs is the statement's execution's to decide (``executions._statement``):
this module answers, step by step (:class:`ConnectServerStatement`): which command the statement
runs (``explain``), what it reads (``look_up``), what the catalog says of an ``INSERT``'s target
(``target``), its output and job name before or after it ran (``describe``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from openlineage_sdk.spark._execution import (
    DatasetIdentity,
    DatasetLineage,
    SparkExecution,
    note_problem,
)
from openlineage_sdk.spark.describe._commands import (
    COMMANDS,
    Command,
    PlannedCommand,
    apply_output,
    apply_statement,
    command_name,
    described,
)
from openlineage_sdk.spark.describe._naming import hadoop_location_uri
from openlineage_sdk.spark.describe._schema import schema_fields
from openlineage_sdk.spark.describe._sql_text import (
    PATH_QUERY,
    described_beside,
    directory_query,
    insert_table,
    is_insert_overwrite,
    path_relations,
    table_query,
)
from openlineage_sdk.spark.describe._tables import TableInfo, name_parts
from openlineage_sdk.spark.describe._write_commands import FILE_FORMATS
from openlineage_sdk.spark.session._base import ServerStatement
from openlineage_sdk.spark.session.connect._explain import (
    ExplainedStatement,
    explain_text,
    location_of,
    parse_explain,
    same_query,
)
from openlineage_sdk.spark.session.connect._text_lineage import text_column_lineage

if TYPE_CHECKING:
    from openlineage_sdk.spark.session.connect import ConnectSession

__all__ = [
    "ConnectServerStatement",
    "explained_inputs",
    "file_table",
    "plan_names",
    "traced_lineage",
]

log = logging.getLogger("openlineage_sdk.spark")

# What a statement that reads files by path (``parquet.`/data/x```) is reported with.
_PATH_STATEMENT = (
    "statement: it reads files by path, and asking the server what it reads and writes would "
    "run a Spark job (the files' schema inference): its datasets are left out"
)


@dataclass
class _Plan(PlannedCommand):
    """A statement's command as the server's ``EXPLAIN`` shows it (``query``: its explanation,
    or a CTAS's query explained on its own; ``tables``: the tables it names, qualified)."""

    explained: ExplainedStatement | None = None
    text: str = ""
    previous: DatasetIdentity | None = None


def _explained(planned: PlannedCommand) -> _Plan:
    assert isinstance(planned, _Plan)
    assert planned.explained is not None
    return planned


class ConnectServerStatement(ServerStatement):
    """The server's answers about one ``SqlCommand`` that may write (see the module)."""

    def __init__(self, session: ConnectSession, text: str, command: Any) -> None:
        self.session = session
        self.text = text
        self.sql_command = command
        self.insert = described_beside(text)

    def explain(self, execution: SparkExecution) -> PlannedCommand | None:
        return self._explain_statement(execution)

    def look_up(
        self,
        planned: PlannedCommand,
        execution: SparkExecution,
        *,
        before: bool,
        target: Callable[[], TableInfo | None] | None = None,
    ) -> None:
        self._look_up(_explained(planned), execution, before, target)

    def target(self, planned: PlannedCommand) -> TableInfo | None:
        plan = _explained(planned)
        name = plan.tables[0]
        try:
            assert plan.explained is not None
            info = file_table(self.session, name, plan.explained)
            if info is None:
                info = self.session.describe_table(name, exists=True, with_schema=True)
        except Exception as error:  # asked again once the statement ran, and noted then
            log.debug("openlineage: the target %s was not described beside: %s", name, error)
            return None
        return info

    def describe(
        self,
        planned: PlannedCommand,
        execution: SparkExecution,
        *,
        before: bool,
        target: Callable[[], TableInfo | None] | None = None,
    ) -> None:
        self._describe(_explained(planned), execution, before=before, target=target)

    # -- explaining

    def _explain_statement(self, execution: SparkExecution) -> _Plan | None:
        text = self.text
        if PATH_QUERY.search(text):
            # Explaining it would make the server infer the files' schema: a job of its own.
            table = insert_table(text) if self.insert else None
            if table is None:
                execution.problems.append(_PATH_STATEMENT)
                return None
            try:
                self._describe_path_insert(table, execution)
            except Exception as error:
                note_problem(execution.problems, "statement", error)
            return None
        try:
            explained = parse_explain(explain_text(self.session.execute, self.sql_command))
        except Exception as error:
            note_problem(execution.problems, "statement", error)
            return None
        explained.formatted = lambda: explain_text(
            self.session.execute, self.sql_command, mode="FORMATTED"
        )
        command = COMMANDS.get(explained.node)
        plan = _Plan(
            explained.node, tables=explained.tables, error=explained.error, explained=explained
        )
        plan.text = text
        self.planned = plan
        if explained.error is not None:
            execution.name_job(_command_name(explained.node, command))
            execution.problems.append(f"statement: the server cannot analyse it: {explained.error}")
            return plan
        apply_statement(execution, described(explained.node), None)
        if command is None:
            return plan
        if command.renames and explained.tables:
            info = self.session.describe_table(explained.tables[0])
            if info is not None and info.location is not None:
                plan.previous = self.session.table_identity(info)
        return plan

    def _look_up(
        self,
        plan: _Plan,
        execution: SparkExecution,
        before: bool,
        target: Callable[[], TableInfo | None] | None,
    ) -> None:
        """The inputs (and, for a statement described before it runs, the output)."""
        command = COMMANDS.get(plan.node)
        if command is not None and command.query_analysed_only:
            try:
                plan.query = self._explain_query(plan)
            except Exception as error:
                note_problem(execution.problems, "the query of the statement", error)
        try:
            explained = plan.query or plan.explained
            assert explained is not None
            execution.inputs.extend(explained_inputs(self.session, explained, execution.problems))
            if before:
                self._describe(plan, execution, before=True, target=target)
        except Exception as error:
            note_problem(execution.problems, "catalog look-ups", error)

    def _explain_query(self, plan: _Plan) -> ExplainedStatement | None:
        """A CTAS's query, explained on its own; ``None`` when its text cannot be told.

        The server's ``EXPLAIN`` of a CTAS shows the query as analysed: the command holds it
        and the optimizer does not reach it, while the classic path and the JVM agent trace the
        query as optimized (and Spark runs it so). The query alone has its optimized plan, and
        its physical plan locates the files it reads. Used only when its analysed plan is the
        statement's query, node for node.
        """
        query = table_query(plan.text)
        if query is None:
            return None
        text = explain_text(self.session.execute, self.sql_command, query)
        explained = parse_explain(text)
        explained.formatted = lambda: explain_text(
            self.session.execute, self.sql_command, query, mode="FORMATTED"
        )
        if explained.error is not None:
            log.debug("openlineage: the server cannot analyse a CTAS's query: %s", explained.error)
            return None
        assert plan.explained is not None
        if not same_query(plan.explained.text, text):
            log.debug("openlineage: a CTAS's query, told from its text, is not the statement's")
            return None
        return explained

    def _describe_path_insert(self, name: str, execution: SparkExecution) -> None:
        """An INSERT whose query reads files by path, from its text and the catalog.

        The target table is named in the text and described by the catalog; the folders the
        query reads by path are its inputs. Their schemas and the column lineage would need the
        server to infer the files' schema, which runs a job: they are left out, and the run
        says so.
        """
        session, text = self.session, self.text
        info = session.describe_table(name, with_schema=True)
        if info is None or info.location is None:
            raise ValueError(f"{name} is not a table with a location")
        node = (
            "InsertIntoHiveTable"
            if (info.provider or "").lower() == "hive"
            else ("InsertIntoHadoopFsRelationCommand")
        )
        output = DatasetLineage(session.table_identity(info), "output")
        try:
            output.schema = info.schema or schema_fields(session.table_schema(name))
        except Exception as error:
            note_problem(output.problems, "output schema", error)
        planned = described(node, output=output, table=info, overwrite=is_insert_overwrite(text))
        for fmt, path in path_relations(text):
            if fmt.lower() not in FILE_FORMATS:
                continue
            try:
                planned.inputs.append(DatasetLineage(session.path_identity(path), "input"))
            except Exception as error:
                note_problem(planned.problems, f"input {path}", error)
        planned.problems.append(
            "column lineage: the query reads files by path, and asking the server would infer "
            "their schema in a Spark job: the inputs' schemas and the column lineage are left out"
        )
        apply_statement(execution, planned, session.catalog_info())

    # -- the output

    def _describe(
        self,
        plan: _Plan,
        execution: SparkExecution,
        *,
        before: bool,
        target: Callable[[], TableInfo | None] | None = None,
    ) -> None:
        """Fill in the output and the job name, from the catalog (before or after the run).

        What the output is, by the command's row in the registry: a folder (the location the
        command's line names), else a table (the first the command names, or a ``RENAME``'s new
        one once it ran), with its schema unless the command reports none.
        """
        session = self.session
        explained, command = plan.explained, COMMANDS.get(plan.node)
        assert command is not None
        assert explained is not None
        table: TableInfo | None = None
        tables = explained.tables
        if command.target == "location" or (command.target == "table_or_location" and not tables):
            location = location_of(explained.line)
            if location is None:
                raise ValueError(f"{explained.node} names no location")
            uri = (
                hadoop_location_uri(location)
                if ":" in location.split("/", 1)[0]
                else session.qualify(location)
            )
            output = DatasetLineage(DatasetIdentity.from_uri(uri), "output")
            query = directory_query(plan.text) if command.target == "location" else None
            if query is not None:
                try:
                    # The server analyses the query alone: its schema, no Spark job.
                    output.schema = schema_fields(session.spark.sql(query).schema)
                except Exception as error:
                    note_problem(output.problems, "output schema", error)
        else:
            if not tables:
                raise ValueError(f"{explained.node} names no table")
            name = tables[0]
            if command.renames and not before:
                name = _renamed(tables[0], tables[1] if len(tables) > 1 else None)
            wants_schema = command.output_schema
            info = target() if target is not None and name == tables[0] else None
            if info is None:
                # An INSERT's target exists: the server has analysed the INSERT.
                info = session.describe_table(
                    name, exists=command.target_exists, with_schema=wants_schema
                )
            found = session.self_described(name, info, "output") if info else None
            if info is None or (found is None and info.location is None):
                info = session.planned_table(name)
            table = info
            output = found or DatasetLineage(session.table_identity(info), "output")
            if command.renames:
                output.previous_identity = plan.previous
            if wants_schema and output.schema is None:
                try:
                    output.schema = info.schema or schema_fields(session.table_schema(name))
                except Exception as error:
                    note_problem(output.problems, "output schema", error)
        if command.lineage and output.schema is not None:
            traced_lineage(plan.query or explained, execution.inputs, output)
        planned = described(
            explained.node,
            output=output,
            table=table,
            overwrite=_is_overwrite(explained, plan.text),
        )
        apply_output(execution, planned, output, session.catalog_info())


def file_table(
    session: ConnectSession, name: str, explained: ExplainedStatement
) -> TableInfo | None:
    """A session catalog table of files as an ``INSERT``'s command describes it, with its schema.

    The command's line: ``InsertIntoHadoopFsRelationCommand file:/w/t, [p=a], false, [p#3],
    4 buckets, ..., Parquet, [header=true, path=file:/w/t], Append, `spark_catalog`.`db`.`t`,
    ...FileIndex(file:/w/t), [k, s]``: the folder it writes first (the table's own), the format
    before the options, which name the same folder as ``path``. ``None`` when the command is
    another or its line does not say all that.
    """
    line = explained.line
    if explained.node != "InsertIntoHadoopFsRelationCommand":
        return None
    parts = name_parts(name)
    if len(parts) != 3 or parts[0] != "spark_catalog":
        return None
    location = location_of(line)
    if location is None or f"FileIndex({location})" not in line:
        return None
    fmt = re.search(r", (\w+), \[(?:[^\]]*?, )?path=" + re.escape(location) + r"[,\]]", line)
    if fmt is None or fmt.group(1).lower() not in FILE_FORMATS:
        return None
    schema = schema_fields(session.table_schema(name))
    return TableInfo(
        parts[1], parts[2], hadoop_location_uri(location), schema, provider=fmt.group(1).lower()
    )


def _command_name(node: str, command: Command | None) -> str:
    return command.name if command is not None else command_name(node, executes=False)


def explained_inputs(
    session: ConnectSession, explained: ExplainedStatement, problems: list[str]
) -> list[DatasetLineage]:
    """The datasets an explained plan reads: its tables (from the catalog) and file locations."""
    found: list[DatasetLineage] = []
    seen: set[tuple[str, str]] = set()
    try:
        explained.resolve_cut_scans()
    except Exception as error:
        note_problem(problems, "inputs: the scans' locations in full", error)

    def add(dataset: DatasetLineage) -> None:
        key = (dataset.identity.namespace, dataset.identity.name)
        if key not in seen:
            seen.add(key)
            found.append(dataset)

    for name in explained.input_tables:
        dataset = session.input_table(name, problems, exists=True)
        if dataset is not None:
            add(dataset)
    for path in explained.input_paths:
        try:
            add(DatasetLineage(DatasetIdentity.from_uri(hadoop_location_uri(path)), "input"))
        except Exception as error:
            note_problem(problems, f"input {path}", error)
    for relation in explained.jdbc_relations:
        for dataset in session.seen_jdbc_inputs(relation, problems):
            add(dataset)
        columns = session.jdbc_columns(relation)
        if columns is not None:
            explained.jdbc_columns[relation] = columns
    located = len(explained.input_paths)
    if explained.unnamed_inputs > located:
        cut = (
            " (their locations are longer than the session's "
            "spark.sql.maxMetadataStringLength, which cuts them short in the plan's text)"
            if explained.cut_paths
            else ""
        )
        problems.append(
            "inputs: the server's plan does not locate "
            f"{explained.unnamed_inputs - located} file input(s) read by path{cut}"
        )
    return found


def traced_lineage(
    explained: ExplainedStatement, inputs: list[DatasetLineage], output: DatasetLineage
) -> None:
    """The output's column lineage, from the plan's text and the inputs already known."""
    try:
        names = [f["name"] for f in output.schema or []]
        tables, paths = plan_names(explained, inputs)
        record = text_column_lineage(
            explained.text, names, tables, paths, explained.scans, explained.jdbc_columns
        )
        if record is not None:
            output.column_lineage = record
    except Exception as error:
        note_problem(output.problems, "column lineage", error)


def plan_names(
    explained: ExplainedStatement, inputs: list[DatasetLineage]
) -> tuple[dict[str, DatasetIdentity], dict[str, DatasetIdentity]]:
    """The inputs by the names the plan's text gives them: tables, and scanned locations."""
    tables: dict[str, DatasetIdentity] = {}
    for shown in explained.input_tables:
        plain = shown.replace("`", "")
        for dataset in inputs:
            for link in dataset.identity.symlinks:
                if plain == link.name or plain.endswith("." + link.name):
                    tables[shown] = dataset.identity
    paths: dict[str, DatasetIdentity] = {}
    for path in explained.input_paths:
        try:
            identity = DatasetIdentity.from_uri(hadoop_location_uri(path))
        except Exception:  # named as an input already, or noted as its problem
            continue
        for dataset in inputs:
            if (dataset.identity.namespace, dataset.identity.name) == (
                identity.namespace,
                identity.name,
            ):
                paths[path] = dataset.identity
    for prefix in explained.cut_paths:
        # A location cut short names the one input whose name it begins, if just one does.
        try:
            begun = DatasetIdentity.from_uri(hadoop_location_uri(prefix))
        except Exception:
            continue
        start = begun.location or begun.name
        found = {
            (d.identity.namespace, d.identity.name): d.identity
            for d in inputs
            if d.identity.namespace == begun.namespace
            and (d.identity.location or d.identity.name).startswith(start)
        }
        if len(found) == 1:
            paths[prefix] = next(iter(found.values()))
    return tables, paths


def _is_overwrite(explained: ExplainedStatement, text: str) -> bool:
    line = explained.line
    if explained.node == "InsertIntoHadoopFsRelationCommand":
        return ", Overwrite, " in line
    if explained.node.endswith("DirCommand"):
        return True
    if explained.node == "OptimizedCreateHiveTableAsSelectCommand":
        return ", Overwrite" in line
    return is_insert_overwrite(text)


def _renamed(old: str, new: str | None) -> str:
    """The new qualified name of a renamed table: in the old one's database unless it names one."""
    if new is None:
        raise ValueError("the rename names no new table")
    if new.count("`.`") >= 1:
        return new
    parts = old.rsplit("`.`", 1)
    return f"{parts[0]}`.{new}" if len(parts) == 2 else new
