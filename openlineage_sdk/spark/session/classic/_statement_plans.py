"""Commands in classic PySpark: what a statement will read and write, before it runs or as it ran.

How statements are seen
-----------------------
``spark.sql(text)`` runs a command (``INSERT``, ``CREATE TABLE ... AS SELECT``, ``DROP TABLE``,
...) eagerly, inside the call, and returns a DataFrame of its result; a query (``SELECT``) is
only planned. The adapter wraps the classic ``SparkSession.sql`` (see ``observe._statements``)
and, before calling it (for an ``INSERT`` into a table, beside it), has the session's own parser
and analyzer describe the statement: the text is parsed and analyzed in
``CommandExecutionMode.SKIP``, which resolves the command (Hive and data source
tables, the query it writes, the table it changes) without executing it. That analysis is what
Spark does itself in the call that follows, on the driver, from the catalog alone: no Spark job,
a few milliseconds, nothing changed. The analyzed command's node is read by the reader of the
session's Spark version (``_readers``) into the neutral ``PlannedCommand``, and the command's
handler in the registry (``describe._commands``) describes it into the datasets, the command part
of the job name and the lifecycle state the JVM agent reports for it, asking this module's
:class:`_Planner` what it needs (its ``CommandReader``).

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
from collections.abc import Callable
from typing import Any

from openlineage_sdk.spark._execution import DatasetIdentity, DatasetLineage
from openlineage_sdk.spark.describe._commands import (
    DescribedCommand,
    describe_command,
    described,
)
from openlineage_sdk.spark.describe._schema import schema_fields
from openlineage_sdk.spark.describe._tables import TableInfo, table_identity
from openlineage_sdk.spark.session.classic._jvm import JvmClasses, as_list, jvm_json, option
from openlineage_sdk.spark.session.classic._plan import (
    catalog_table_info,
    logical_plan_extraction,
    v2_table,
    v2_table_datasets,
)
from openlineage_sdk.spark.session.classic._readers import ByName, ClassicReaders

__all__ = ["plan_executed", "plan_statement"]

log = logging.getLogger("openlineage_sdk.spark")


class _Planner:
    """Reads one analyzed command through py4j: the command handlers' :class:`CommandReader`
    (``describe._planned``), and the context of the version's node readers."""

    def __init__(
        self,
        spark: Any,
        hive_metastore: str | None,
        skip: Any,
        readers: ClassicReaders,
        descriptions: bool = False,
        executed: Any = None,
    ) -> None:
        self.spark = spark
        self.readers = readers
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
        planned: DescribedCommand,
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

    # -- the questions of the command handlers (describe._planned.CommandReader)

    def _table(self, table: Any) -> Any:
        return self.metadata(table.ident) if isinstance(table, ByName) else table

    def table_output(
        self, table: Any, *, with_schema: bool = True, schema: Any = None
    ) -> tuple[DatasetLineage, TableInfo]:
        return self.table_dataset(self._table(table), schema, with_schema)

    def info_output(self, info: TableInfo) -> DatasetLineage:
        return DatasetLineage(table_identity(info, self.hive_metastore), "output")

    def table_exists(self, table: Any) -> bool:
        return bool(self.catalog.tableExists(table.ident if isinstance(table, ByName) else table))

    def table_schema(self, table: Any) -> Any:
        return self.struct_fields(self._table(table).schema())

    def read_query(
        self,
        query: Any,
        described: DescribedCommand,
        columns: list[str] | None = None,
        *,
        output_schema: bool = False,
    ) -> None:
        self.query_inputs(query, described, columns, output_schema=output_schema)

    def v2_output(self, relation: Any) -> tuple[DatasetLineage, TableInfo]:
        """The v2 table a row-level command changes, and its name for the job (``table.name()``)."""
        datasets = v2_table_datasets(self.jvm, relation, "output")
        output = datasets[0]
        if len(datasets) > 1:
            output.problems.append(
                f"output: the table describes itself as {len(datasets)} datasets, the first is "
                "reported"
            )
        return output, TableInfo(None, str(v2_table(relation).name()), None)

    def version_refresh(
        self, relation: Any, output: DatasetLineage
    ) -> Callable[[], DatasetLineage | None]:
        return functools.partial(_refreshed_version, relation, output)

    def relation_datasets(
        self, relation: Any
    ) -> tuple[list[DatasetIdentity], list[DatasetLineage], list[str]]:
        extraction = logical_plan_extraction(self.jvm, relation, self.hive_metastore)
        return extraction.inputs, extraction.input_datasets(), extraction.problems

    def relation_schema(self, relation: Any) -> Any:
        return self.struct_fields(relation.schema())

    def relation_table(self, relation: Any) -> TableInfo | None:
        if relation.getClass().getSimpleName() != "LogicalRelation":
            return None
        table = option(relation.catalogTable())
        return self.table_info(table) if table is not None else None

    def renamed(self, new_name: Any, old: DatasetLineage) -> Any:
        new_ident = new_name
        if not new_name.database().isDefined():
            db = old.identity.symlinks[0].name.split(".")[0] if old.identity.symlinks else None
            if db:
                new_ident = self.parse_table(f"`{db}`.`{new_name.table()}`")
        return ByName(new_ident)


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


def plan_statement(
    spark: Any,
    text: str,
    hive_metastore: str | None,
    readers: ClassicReaders,
    descriptions: bool = False,
) -> DescribedCommand | None:
    """What ``text`` will do, when it is a command that touches a dataset.

    The text is parsed and analyzed by the session in ``CommandExecutionMode.SKIP``: resolved,
    not run. ``None`` for queries (they run later, in an action), for commands that touch no
    dataset (``SET``, ``SHOW``, ``DESCRIBE``) and for those with nothing to report (``DROP
    TABLE IF EXISTS`` of no table, a view).

    Raises:
        Exception: The statement does not parse or analyze; the caller lets Spark report it.
    """
    skip = JvmClasses.of(spark._jvm).skip
    planner = _Planner(spark, hive_metastore, skip, readers, descriptions)
    state = planner.state
    parsed = state.sqlParser().parsePlan(text)
    plan = state.executePlan(parsed, skip).analyzed()
    return _plan(planner, plan)


def plan_executed(
    spark: Any,
    qe: Any,
    hive_metastore: str | None,
    readers: ClassicReaders,
    descriptions: bool = False,
    *,
    ran: bool = False,
) -> DescribedCommand | None:
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
    planner = _Planner(spark, hive_metastore, skip, readers, descriptions, qe if ran else None)
    return _plan(planner, qe.analyzed())


def _plan(planner: _Planner, plan: Any) -> DescribedCommand | None:
    """The analyzed command ``plan``, read by the version's reader of its node, described by its
    handler (``describe._commands``)."""
    node = str(plan.getClass().getSimpleName())
    read = planner.readers.command(node)
    if read is None:  # no reader of this Spark version: reported by its name alone
        return described(node)
    return describe_command(node, lambda: read(plan, node, planner), planner)


def _refreshed_version(relation: Any, output: DatasetLineage) -> DatasetLineage:
    """The output once the command ran: the table loaded again from its catalog, its version."""
    catalog, ident = option(relation.catalog()), option(relation.identifier())
    if catalog is not None and ident is not None:
        version = catalog.loadTable(ident).version()
        output.version = str(version) if version is not None else None
    return output
