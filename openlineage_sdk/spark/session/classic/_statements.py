"""SQL statements in classic PySpark: what a statement will read and write, before it runs.

How statements are seen
-----------------------
``spark.sql(text)`` runs a command (``INSERT``, ``CREATE TABLE ... AS SELECT``, ``DROP TABLE``,
...) eagerly, inside the call, and returns a DataFrame of its result; a query (``SELECT``) is
only planned. The adapter wraps the classic ``SparkSession.sql`` (see ``observe._statements``)
and, before calling it (for an ``INSERT`` into a table, beside it), has the session's own parser
and analyzer describe the statement: the text is parsed
and analyzed in ``CommandExecutionMode.SKIP``, which resolves the command (Hive and data source
tables, the query it writes, the table it changes) without executing it. That analysis is what
Spark does itself in the call that follows, on the driver, from the catalog alone: no Spark job,
a few milliseconds, nothing changed. This module turns the analyzed command into the datasets,
the command part of the job name and the lifecycle state the JVM agent reports for it, by the one command table (``describe._commands``).

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

import functools
import json
import logging
from typing import Any

from openlineage_sdk.spark._execution import ColumnLineageRecord, DatasetIdentity, DatasetLineage
from openlineage_sdk.spark.describe._schema import schema_fields
from openlineage_sdk.spark.describe._statement import PlannedStatement
from openlineage_sdk.spark.describe._tables import TableInfo, table_identity
from openlineage_sdk.spark.session.classic._jvm import (
    JvmClasses,
    as_list,
    jvm_json,
    option,
    path_uri,
)
from openlineage_sdk.spark.session.classic._plan import (
    catalog_table_info,
    logical_plan_extraction,
    v2_table,
    v2_table_datasets,
)

__all__ = ["plan_executed", "plan_statement"]

log = logging.getLogger("openlineage_sdk.spark")


class _Planner:
    """Reads one analyzed command through py4j."""

    def __init__(
        self,
        spark: Any,
        hive_metastore: str | None,
        skip: Any,
        descriptions: bool = False,
        executed: Any = None,
    ) -> None:
        self.spark = spark
        self.jvm = spark._jvm
        self.session = spark._jsparkSession
        self._state: Any = None
        self._catalog: Any = None
        self.hive_metastore = hive_metastore
        self.skip = skip
        self.descriptions = descriptions
        self.executed = executed  # the QueryExecution that ran the command, if it ran

    @property
    def state(self) -> Any:
        """The session's ``SessionState`` (asked for once, when needed)."""
        if self._state is None:
            self._state = self.session.sessionState()
        return self._state

    @property
    def catalog(self) -> Any:
        """The session's ``SessionCatalog`` (asked for once, when needed)."""
        if self._catalog is None:
            self._catalog = self.state.catalog()
        return self._catalog

    def table_info(self, table: Any) -> TableInfo:
        """A ``CatalogTable`` as a :class:`TableInfo`, placed where the catalog would put it."""
        info = catalog_table_info(table)
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
        self, table: Any, schema: Any | None = None, with_schema: bool = True
    ) -> tuple[DatasetLineage, TableInfo]:
        info = self.table_info(table)
        dataset = DatasetLineage(table_identity(info, self.hive_metastore), "output")
        if with_schema:
            dataset.schema = self.struct_fields(schema if schema is not None else table.schema())
        return dataset, info

    def query_inputs(
        self,
        query: Any,
        planned: PlannedStatement,
        names: list[str] | None = None,
        *,
        output_schema: bool = False,
    ) -> None:
        """The query's inputs and the output's column lineage (and, with ``output_schema``, the
        output's schema: the query's, read from the same JSON as the query itself)."""
        extraction = logical_plan_extraction(
            self.jvm,
            query,
            self.hive_metastore,
            names,
            optimized=lambda: self.optimized(query),
            descriptions=self.descriptions,
        )
        planned.inputs = extraction.input_datasets()
        planned.problems.extend(extraction.problems)
        if planned.output is not None:
            if output_schema:
                planned.output.schema = self.query_schema(query, extraction.output_schema)
            planned.output.column_lineage = extraction.column_lineage

    def query_schema(self, query: Any, read: dict[str, Any] | None) -> Any:
        """The schema facet's fields of a query: from its JSON when read, else asked for."""
        from pyspark.sql.types import StructType

        if read is not None:
            return schema_fields(StructType.fromJson(read))
        return self.struct_fields(query.schema())

    def optimized(self, query: Any) -> Any:
        """The optimized plan of a command's ``query``, as the optimizer makes it of the query alone.

        When the command ran, Spark optimized it already: its optimized plan is the command over
        ``WriteFiles`` over the query as optimized. Spark's ``V1Writes`` adds that node, and for
        a write into partitions or buckets also a sort by them and ``empty2null`` around the
        partition values, which the query alone does not have; the query is optimized again only
        then. Otherwise the optimized query is taken as it is: no work done twice.
        """
        executed = self.executed
        if executed is not None:
            try:
                written = _written_query(executed.optimizedPlan())
                if written is not None:
                    return written
            except Exception as error:  # another Spark's plan: optimized again
                log.debug("openlineage: the executed command's query not read: %s", error)
        return self.state.executePlan(query, self.skip).optimizedPlan()

    def names(self, seq: Any) -> list[str]:
        """A Scala ``Seq`` of column names as a list."""
        return [str(n) for n in as_list(self.jvm, seq)]


def _written_query(command: Any) -> Any:
    """The optimized query under an optimized write command's ``WriteFiles``, if it is alone.

    ``None`` when the command has no ``WriteFiles`` child or writes into partitions or buckets
    (see :meth:`_Planner.optimized`).
    """
    child = command.children().apply(0)
    if str(child.getClass().getSimpleName()) != "WriteFiles":
        return None
    if not child.partitionColumns().isEmpty() or child.bucketSpec().isDefined():
        return None
    return child.child()


def _overwrite(mode: Any) -> bool:
    return str(mode.toString() if hasattr(mode, "toString") else mode) == "Overwrite"


def plan_statement(
    spark: Any, text: str, hive_metastore: str | None, descriptions: bool = False
) -> PlannedStatement | None:
    """What ``text`` will do, when it is a command that touches a dataset.

    The text is parsed and analyzed by the session in ``CommandExecutionMode.SKIP``: resolved,
    not run. ``None`` for queries (they run later, in an action), for commands that touch no
    dataset (``SET``, ``SHOW``, ``DESCRIBE``) and for those with nothing to report (``DROP
    TABLE IF EXISTS`` of no table, a view).

    Raises:
        Exception: The statement does not parse or analyze; the caller lets Spark report it.
    """
    skip = JvmClasses.of(spark._jvm).skip
    planner = _Planner(spark, hive_metastore, skip, descriptions)
    state = planner.state
    parsed = state.sqlParser().parsePlan(text)
    plan = state.executePlan(parsed, skip).analyzed()
    return _plan(planner, plan)


def plan_executed(
    spark: Any,
    qe: Any,
    hive_metastore: str | None,
    descriptions: bool = False,
    *,
    ran: bool = False,
) -> PlannedStatement | None:
    """What the command of ``qe`` (a JVM ``QueryExecution``) did, once it has run or failed.

    For statements PySpark formats or binds before the JVM parses them (parameters, format
    arguments): the text the adapter sees is not the statement Spark runs, but the
    ``QueryExecution`` of ``spark.sql``'s result (or, when it failed, the one the session's
    listener was given) holds the command as Spark analyzed it. For a statement that ran
    (``ran``: the session's listener was given the ``QueryExecution`` that ran the command), its
    analyzed and optimized plans are Spark's own, which no one computes again. ``None`` as for
    :func:`plan_statement`.
    """
    skip = JvmClasses.of(spark._jvm).skip
    planner = _Planner(spark, hive_metastore, skip, descriptions, qe if ran else None)
    return _plan(planner, qe.analyzed())


def _plan(d: _Planner, plan: Any) -> PlannedStatement | None:
    name = str(plan.getClass().getSimpleName())
    if name == "InsertIntoHiveTable":
        table = plan.table()
        output, info = d.table_dataset(table)
        planned = PlannedStatement(name, output, info, overwrite=bool(plan.overwrite()))
        names = [str(n) for n in table.schema().fieldNames()]
        d.query_inputs(plan.query(), planned, names)
        return planned
    if name == "InsertIntoHadoopFsRelationCommand":
        table = option(plan.catalogTable())
        overwrite = _overwrite(plan.mode())
        # The output's schema is its query's, read with the query (``output_schema``).
        if table is not None:
            output, info = d.table_dataset(table, with_schema=False)
            planned = PlannedStatement(name, output, info, overwrite=overwrite)
        else:
            output = DatasetLineage(DatasetIdentity.from_uri(path_uri(plan.outputPath())), "output")
            planned = PlannedStatement(name, output, overwrite=overwrite)
        query = plan.query()
        d.query_inputs(query, planned, d.names(plan.outputColumnNames()), output_schema=True)
        return planned
    if name in (
        "CreateHiveTableAsSelectCommand",
        "CreateDataSourceTableAsSelectCommand",
        "OptimizedCreateHiveTableAsSelectCommand",
    ):
        table = plan.tableDesc() if name != "CreateDataSourceTableAsSelectCommand" else plan.table()
        names = d.names(plan.outputColumnNames())
        output, info = d.table_dataset(table, with_schema=False)
        overwrite = name == "OptimizedCreateHiveTableAsSelectCommand" and _overwrite(plan.mode())
        planned = PlannedStatement(name, output, info, overwrite=overwrite)
        d.query_inputs(plan.query(), planned, names, output_schema=True)
        return planned
    if name in ("InsertIntoHiveDirCommand", "InsertIntoDataSourceDirCommand"):
        location = option(plan.storage().locationUri())
        if location is None:
            return None
        output = DatasetLineage(DatasetIdentity.from_uri(str(location.toString())), "output")
        planned = PlannedStatement(name, output, overwrite=True)
        d.query_inputs(plan.query(), planned, output_schema=True)
        return planned
    if name in ("CreateTableCommand", "CreateDataSourceTableCommand"):
        output, info = d.table_dataset(plan.table())
        return PlannedStatement(name, output, info)
    if name == "CreateTableLikeCommand":
        target = plan.targetTable()
        source = d.metadata(plan.sourceTable())
        location = option(plan.fileFormat().locationUri())
        info = TableInfo(
            option(target.database()) or str(d.catalog.getCurrentDatabase()),
            str(target.table()),
            str(location.toString()) if location is not None else None,
        )
        if info.location is None:
            default = d.catalog.defaultTablePath(d.parse_table(info.qualified_name))
            info = TableInfo(info.database, info.table, str(default.toString()))
        output = DatasetLineage(table_identity(info, d.hive_metastore), "output")
        output.schema = d.struct_fields(source.schema())
        return PlannedStatement(name, output, info)
    if name == "LoadDataCommand":
        output, info = d.table_dataset(d.metadata(plan.table()))
        return PlannedStatement(name, output, info, overwrite=bool(plan.isOverwrite()))
    if name == "TruncateTableCommand":
        output, info = d.table_dataset(d.metadata(plan.tableName()), with_schema=False)
        return PlannedStatement(name, output, info)
    if name in ("DropTable", "DropTableCommand"):
        if name == "DropTable":
            child = plan.child()
            if child.getClass().getSimpleName() != "ResolvedIdentifier":
                return None
            ident = child.identifier()
            parts = [*list(ident.namespace()), str(ident.name())]
            ident = d.parse_table(".".join(f"`{p}`" for p in parts))
        else:
            if plan.isView():
                return None
            ident = plan.tableName()
        if not d.catalog.tableExists(ident):
            return None  # DROP TABLE IF EXISTS of a table that is not there
        output, info = d.table_dataset(d.metadata(ident), with_schema=False)
        return PlannedStatement(name, output, info)
    if name in ("AlterTableAddColumnsCommand", "AlterTableSetLocationCommand"):
        ident = plan.table() if name == "AlterTableAddColumnsCommand" else plan.tableName()

        def altered() -> DatasetLineage:
            return d.table_dataset(d.metadata(ident))[0]

        return PlannedStatement(name, refresh=altered)
    if name in ("AlterTableAddPartitionCommand", "RepairTableCommand"):
        output, info = d.table_dataset(d.metadata(plan.tableName()))
        return PlannedStatement(name, output, info)
    row_level = {
        "ReplaceData": _row_level,
        "WriteDelta": _row_level,
        "MergeIntoTable": _row_level_command,
        "UpdateTable": _row_level_command,
        "DeleteFromTable": _row_level_command,
        "MergeIntoCommand": _delta_command,
        "UpdateCommand": _delta_command,
        "DeleteCommand": _delta_command,
    }.get(name)
    if row_level is not None:
        try:
            return row_level(d, plan, name)
        except Exception as error:  # a run that says what it could not learn, not no run
            return PlannedStatement(name, problems=[f"statement: {type(error).__name__}: {error}"])
    if name == "AlterTableRenameCommand":
        if plan.isView():
            return None
        old, _ = d.table_dataset(d.metadata(plan.oldName()), with_schema=False)
        new_name = plan.newName()

        def renamed() -> DatasetLineage:
            new_ident = new_name
            if not new_name.database().isDefined():
                db = old.identity.symlinks[0].name.split(".")[0] if old.identity.symlinks else None
                if db:
                    new_ident = d.parse_table(f"`{db}`.`{new_name.table()}`")
            output, _ = d.table_dataset(d.metadata(new_ident))
            output.previous_identity = DatasetIdentity(old.identity.namespace, old.identity.name)
            return output

        return PlannedStatement(name, refresh=renamed)
    return PlannedStatement(name)


def _v2_output(d: _Planner, relation: Any) -> tuple[DatasetLineage, TableInfo]:
    """The v2 table a row-level command changes, and its name for the job (``table.name()``)."""
    datasets = v2_table_datasets(d.jvm, relation, "output")
    output = datasets[0]
    if len(datasets) > 1:
        output.problems.append(
            f"output: the table describes itself as {len(datasets)} datasets, the first is reported"
        )
    return output, TableInfo(None, str(v2_table(relation).name()), None)


def _row_level(d: _Planner, plan: Any, name: str) -> PlannedStatement:
    """``ReplaceData`` or ``WriteDelta``: MERGE, UPDATE or DELETE rewritten over the table's rows.

    Its query reads the target's rows (and a MERGE's source): those are the inputs, and the
    query's columns that are the table's give the column lineage. The table's version is read
    again once the command ran.
    """
    relation = plan.table()
    output, info = _v2_output(d, relation)
    planned = PlannedStatement(name, output, info)
    d.query_inputs(plan.query(), planned)
    lineage = output.column_lineage
    if lineage is not None:
        # The query's own columns (__row_operation, __row_id...) are not the table's.
        names = {f["name"] for f in output.schema or []}
        kept = {k: v for k, v in lineage.fields.items() if k in names}
        output.column_lineage = ColumnLineageRecord(kept, lineage.dataset)
    planned.refresh = functools.partial(_refreshed_version, d, relation, output)
    return planned


def _refreshed_version(d: _Planner, relation: Any, output: DatasetLineage) -> DatasetLineage:
    """The output once the command ran: the table loaded again from its catalog, its version."""
    catalog, ident = option(relation.catalog()), option(relation.identifier())
    if catalog is not None and ident is not None:
        version = catalog.loadTable(ident).version()
        output.version = str(version) if version is not None else None
    return output


def _row_level_command(d: _Planner, plan: Any, name: str) -> PlannedStatement | None:
    """MERGE, UPDATE or DELETE left as such (a table that deletes by filter): the target."""
    target = plan.targetTable() if name == "MergeIntoTable" else plan.table()
    while target.getClass().getSimpleName() == "SubqueryAlias":
        target = target.child()
    if target.getClass().getSimpleName() != "DataSourceV2Relation":
        return PlannedStatement(name)
    output, info = _v2_output(d, target)
    planned = PlannedStatement(name, output, info)
    if name == "MergeIntoTable":
        d.query_inputs(plan.sourceTable(), planned)
        output.column_lineage = None
    return planned


def _delta_command(d: _Planner, plan: Any, name: str) -> PlannedStatement:
    """Delta Lake's ``MergeIntoCommand``, ``UpdateCommand`` or ``DeleteCommand``.

    As the agent's builders for them: the output is the target (its dataset, as any relation
    of it is named), and the inputs are a MERGE's target and source, an UPDATE's or DELETE's
    target; the job is named after the target as its own write would be.
    """
    target = plan.target()
    while target.getClass().getSimpleName() == "SubqueryAlias":
        target = target.child()
    planned = PlannedStatement(name)
    extraction = logical_plan_extraction(d.jvm, target, d.hive_metastore)
    planned.problems.extend(extraction.problems)
    if len(extraction.inputs) != 1:
        planned.problems.append(f"output: the {name}'s target is {len(extraction.inputs)} datasets")
        return planned
    [identity] = extraction.inputs
    output = DatasetLineage(identity, "output")
    output.schema = d.struct_fields(target.schema())
    table = (
        option(target.catalogTable())
        if target.getClass().getSimpleName() == "LogicalRelation"
        else None
    )
    planned.output = output
    planned.table = d.table_info(table) if table is not None else None
    planned.inputs = extraction.input_datasets()
    if name == "MergeIntoCommand":
        source = PlannedStatement(name)
        d.query_inputs(plan.source(), source)
        known = {(i.identity.namespace, i.identity.name) for i in planned.inputs}
        planned.inputs.extend(
            i for i in source.inputs if (i.identity.namespace, i.identity.name) not in known
        )
        planned.problems.extend(source.problems)
    return planned
