"""SQL statements in classic PySpark: what a statement will read and write, before it runs.

How statements are seen
-----------------------
``spark.sql(text)`` runs a command (``INSERT``, ``CREATE TABLE ... AS SELECT``, ``DROP TABLE``,
...) eagerly, inside the call, and returns a DataFrame of its result; a query (``SELECT``) is
only planned. The adapter wraps the classic ``SparkSession.sql`` (see ``_adapter``) and, before
calling it (for an ``INSERT`` into a table, beside it), has the session's own parser and
analyzer describe the statement: the text is parsed
and analyzed in ``CommandExecutionMode.SKIP``, which resolves the command (Hive and data source
tables, the query it writes, the table it changes) without executing it. That analysis is what
Spark does itself in the call that follows, on the driver, from the catalog alone: no Spark job,
a few milliseconds, nothing changed. This module turns the analyzed command into the datasets,
the command part of the job name and the lifecycle state the JVM agent reports for it.

Why not only Spark's own reports of executions: the session's ``QueryExecutionListener`` (which
the adapter registers for write metrics) and the listener bus report a command once it ran, on
another thread, asynchronously; a START from there comes after the statement, and a fast DDL's
``QueryExecution`` or catalog entry may be gone (``DROP TABLE``) by the time the listener looks.
Describing the statement before it runs gives the START its datasets and the ``DROP`` its table,
and the listener still gives the command's metrics afterwards, as for DataFrame writes.

Names follow the JVM agent: the job's command is ``execute_`` and the command's class in snake
case (``execute_insert_into_hive_table``), and its table part is what the agent's visitor for
that command gives (the last two folders of the location for inserts into tables and
directories, ``{db}_{table}`` for CTAS and ``LOAD DATA``, none for ``DROP`` and ``ALTER``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from openlineage_sdk.naming import trim_dataset_name
from openlineage_sdk.spark._classic import (
    _catalog_table_info,
    _JvmClasses,
    _option,
    jvm_json,
    logical_plan_extraction,
    path_uri,
)
from openlineage_sdk.spark._records import DatasetIdentity, DatasetLineage, LifecycleState
from openlineage_sdk.spark._schema import schema_fields
from openlineage_sdk.spark._tables import TableInfo, table_identity

__all__ = ["Statement", "describe_executed", "describe_statement"]


@dataclass
class Statement:
    """What one SQL command will do, as the JVM agent reports it.

    ``refresh`` describes the output again once the command ran, for commands whose result only
    the catalog knows afterwards (``ALTER TABLE``, ``RENAME``, a table being created).
    """

    command: str
    table: str | None
    output: DatasetLineage | None
    inputs: list[DatasetLineage] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    writes_data: bool = False
    refresh: Callable[[], DatasetLineage | None] | None = None


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _trim_path(name: str) -> str:
    """The agent's job-name part of a path: its last two folders, after trimming."""
    return trim_dataset_name(name)


class _Describer:
    def __init__(
        self, spark: Any, hive_metastore: str | None, skip: Any, descriptions: bool = False
    ) -> None:
        self.spark = spark
        self.jvm = spark._jvm
        self.session = spark._jsparkSession
        self.state = self.session.sessionState()
        self.catalog = self.state.catalog()
        self.hive_metastore = hive_metastore
        self.skip = skip
        self.descriptions = descriptions

    def table_info(self, table: Any) -> TableInfo:
        """A ``CatalogTable`` as a :class:`TableInfo`, placed where the catalog would put it."""
        info = _catalog_table_info(table)
        database = info.database or str(self.catalog.getCurrentDatabase())
        location = info.location
        if location is None:
            location = str(self.catalog.defaultTablePath(table.identifier()).toString())
        return TableInfo(database, info.table, location)

    def struct_fields(self, jstruct: Any) -> Any:
        """The schema facet's fields of a JVM ``StructType``."""
        from pyspark.sql.types import StructType

        text = jvm_json(self.jvm, jstruct, jstruct.json)
        return schema_fields(StructType.fromJson(json.loads(text)))

    def metadata(self, ident: Any) -> Any:
        return self.catalog.getTableMetadata(ident)

    def parse_table(self, name: str) -> Any:
        return self.session.sessionState().sqlParser().parseTableIdentifier(name)

    def table_dataset(
        self,
        table: Any,
        schema: Any | None = None,
        state: LifecycleState | None = None,
        with_schema: bool = True,
    ) -> DatasetLineage:
        info = self.table_info(table)
        dataset = DatasetLineage(table_identity(info, self.hive_metastore), "output")
        if with_schema:
            dataset.schema = self.struct_fields(schema if schema is not None else table.schema())
        dataset.lifecycle_state = state
        return dataset

    def query_inputs(
        self,
        query: Any,
        statement: Statement,
        output: DatasetLineage | None,
        names: list[str] | None = None,
    ) -> None:
        extraction = logical_plan_extraction(
            self.jvm,
            query,
            self.hive_metastore,
            names,
            optimized=lambda: self.state.executePlan(query, self.skip).optimizedPlan(),
            descriptions=self.descriptions,
        )
        statement.inputs = [
            DatasetLineage(i, "input", extraction.schemas.get((i.namespace, i.name)))
            for i in extraction.inputs
        ]
        statement.problems.extend(extraction.problems)
        if output is not None:
            output.column_lineage = extraction.column_lineage

    def names(self, seq: Any) -> list[str]:
        """A Scala ``Seq`` of column names as a list."""
        from openlineage_sdk.spark._classic import _as_list

        return [str(n) for n in _as_list(self.jvm, seq)]


def _overwrite(mode: Any) -> bool:
    return str(mode.toString() if hasattr(mode, "toString") else mode) == "Overwrite"


def describe_statement(
    spark: Any, text: str, hive_metastore: str | None, descriptions: bool = False
) -> tuple[Any, Statement | None]:
    """The analyzed plan of ``text`` and, when it is a command the adapter knows, what it does.

    ``None`` for queries (they run later, in an action), for commands that touch no dataset
    (``SET``, ``SHOW``, ``DESCRIBE``) and for commands the adapter does not know.

    Raises:
        Exception: The statement does not parse or analyze; the caller lets Spark report it.
    """
    jvm = spark._jvm
    session = spark._jsparkSession
    state = session.sessionState()
    parsed = state.sqlParser().parsePlan(text)
    skip = _JvmClasses.of(jvm).skip
    plan = state.executePlan(parsed, skip).analyzed()
    describer = _Describer(spark, hive_metastore, skip, descriptions)
    return plan, _describe(describer, plan)


def describe_executed(
    spark: Any, qe: Any, hive_metastore: str | None, descriptions: bool = False
) -> Statement | None:
    """What the command of ``qe`` (a JVM ``QueryExecution``) did, once it has run or failed.

    For statements PySpark formats or binds before the JVM parses them (parameters, format
    arguments): the text the adapter sees is not the statement Spark runs, but the
    ``QueryExecution`` of ``spark.sql``'s result (or, when it failed, the one the session's
    listener was given) holds the command as Spark analyzed it. ``None`` as for
    :func:`describe_statement`.
    """
    skip = _JvmClasses.of(spark._jvm).skip
    plan = qe.analyzed()
    return _describe(_Describer(spark, hive_metastore, skip, descriptions), plan)


def _describe(d: _Describer, plan: Any) -> Statement | None:
    name = str(plan.getClass().getSimpleName())
    command = "execute_" + _snake(name)
    if name == "InsertIntoHiveTable":
        table = plan.table()
        output = d.table_dataset(table, state="OVERWRITE" if plan.overwrite() else None)
        statement = Statement(command, _trim_path(output.identity.name), output, writes_data=True)
        names = [str(n) for n in table.schema().fieldNames()]
        d.query_inputs(plan.query(), statement, output, names)
        return statement
    if name == "InsertIntoHadoopFsRelationCommand":
        table = _option(plan.catalogTable())
        state: LifecycleState | None = "OVERWRITE" if _overwrite(plan.mode()) else None
        if table is not None:
            output = d.table_dataset(table, plan.query().schema(), state)
        else:
            output = DatasetLineage(
                DatasetIdentity.from_uri(path_uri(plan.outputPath())),
                "output",
                d.struct_fields(plan.query().schema()),
                lifecycle_state=state,
            )
        statement = Statement(command, _trim_path(output.identity.name), output, writes_data=True)
        d.query_inputs(plan.query(), statement, output, d.names(plan.outputColumnNames()))
        return statement
    if name in (
        "CreateHiveTableAsSelectCommand",
        "CreateDataSourceTableAsSelectCommand",
        "OptimizedCreateHiveTableAsSelectCommand",
    ):
        table = plan.tableDesc() if name != "CreateDataSourceTableAsSelectCommand" else plan.table()
        names = d.names(plan.outputColumnNames())
        output = d.table_dataset(table, plan.query().schema(), "CREATE")
        if name == "OptimizedCreateHiveTableAsSelectCommand":
            output.lifecycle_state = "OVERWRITE" if _overwrite(plan.mode()) else None
            suffix = None
        else:
            suffix = d.table_info(table).qualified_name
        statement = Statement(command, suffix, output, writes_data=True)
        d.query_inputs(plan.query(), statement, output, names)
        return statement
    if name in ("InsertIntoHiveDirCommand", "InsertIntoDataSourceDirCommand"):
        location = _option(plan.storage().locationUri())
        if location is None:
            return None
        schema = plan.query().schema()
        output = DatasetLineage(
            DatasetIdentity.from_uri(str(location.toString())),
            "output",
            d.struct_fields(schema),
            lifecycle_state="OVERWRITE",
        )
        statement = Statement(command, _trim_path(output.identity.name), output, writes_data=True)
        d.query_inputs(plan.query(), statement, output)
        return statement
    if name in ("CreateTableCommand", "CreateDataSourceTableCommand"):
        table = plan.table()
        output = d.table_dataset(table, state="CREATE")
        suffix = (
            _trim_path(output.identity.name)
            if name == "CreateTableCommand"
            else d.table_info(table).qualified_name
        )
        return Statement(command, suffix, output)
    if name == "CreateTableLikeCommand":
        target = plan.targetTable()
        source = d.metadata(plan.sourceTable())
        location = _option(plan.fileFormat().locationUri())
        info = TableInfo(
            _option(target.database()) or str(d.catalog.getCurrentDatabase()),
            str(target.table()),
            str(location.toString()) if location is not None else None,
        )
        if info.location is None:
            default = d.catalog.defaultTablePath(d.parse_table(info.qualified_name))
            info = TableInfo(info.database, info.table, str(default.toString()))
        output = DatasetLineage(table_identity(info, d.hive_metastore), "output")
        output.schema = d.struct_fields(source.schema())
        output.lifecycle_state = "CREATE"
        return Statement(command, str(target.table()), output)
    if name == "LoadDataCommand":
        table = d.metadata(plan.table())
        output = d.table_dataset(table, state="OVERWRITE" if plan.isOverwrite() else None)
        return Statement(command, d.table_info(table).qualified_name, output, writes_data=False)
    if name in ("TruncateTableCommand",):
        table = d.metadata(plan.tableName())
        output = d.table_dataset(table, state="TRUNCATE", with_schema=False)
        return Statement(command, _trim_path(output.identity.name), output)
    if name in ("DropTable", "DropTableCommand"):
        if name == "DropTable":
            child = plan.child()
            if child.getClass().getSimpleName() != "ResolvedIdentifier":
                return None
            ident = child.identifier()
            parts = [*list(ident.namespace()), str(ident.name())]
            ident = d.parse_table(".".join(f"`{p}`" for p in parts))
            command = "execute_drop_table_command"
        else:
            if plan.isView():
                return None
            ident = plan.tableName()
        if not d.catalog.tableExists(ident):
            return None  # DROP TABLE IF EXISTS of a table that is not there
        table = d.metadata(ident)
        output = d.table_dataset(table, state="DROP", with_schema=False)
        return Statement(command, None, output)
    if name in ("AlterTableAddColumnsCommand", "AlterTableSetLocationCommand"):
        ident = plan.table() if name == "AlterTableAddColumnsCommand" else plan.tableName()

        def altered() -> DatasetLineage:
            return d.table_dataset(d.metadata(ident), state="ALTER")

        return Statement(command, None, None, refresh=altered)
    if name == "AlterTableRenameCommand":
        if plan.isView():
            return None
        old = d.table_dataset(d.metadata(plan.oldName()), with_schema=False)
        new_name = plan.newName()

        def renamed() -> DatasetLineage:
            new_ident = new_name
            if not new_name.database().isDefined():
                db = old.identity.symlinks[0].name.split(".")[0] if old.identity.symlinks else None
                if db:
                    new_ident = d.parse_table(f"`{db}`.`{new_name.table()}`")
            output = d.table_dataset(d.metadata(new_ident), state="RENAME")
            output.previous_identity = DatasetIdentity(old.identity.namespace, old.identity.name)
            return output

        return Statement(command, None, None, refresh=renamed)
    return None
