"""What a Spark version spells its own way, for a classic session: its readers, chosen once.

A classic session reads Spark's JVM objects through py4j, by the names of their classes and
methods, and reads plans as JSON; Spark versions rename some of them and reshape others. Every
reading that depends on the version goes through one :class:`ClassicReaders`, which
:func:`select_readers` picks by the session's Spark version when the session opens
(``ClassicSession.__init__``). Nothing above ``session/`` asks which version runs.

What a reader of this module holds:

* ``commands``: per command plan node (its class's simple name), the reader of its fields into
  the neutral :class:`~openlineage_sdk.spark.describe._planned.PlannedCommand` (its target,
  query, columns, mode, source), which the command's handler in ``describe._commands``
  describes. A command whose node a version spells differently is one entry here;
* ``writer_mode``, ``writer_settings``: a ``DataFrameWriter``'s save mode, source and options
  (public accessors in Spark 4, private fields in Spark 3);
* ``stream_writer_derived``: the fields of a ``DataStreamWriter`` its constructor derives from
  its frame, which a copy of its settings leaves as the new writer's own;
* ``runtime_confs``: the session's runtime confs (PySpark 4's ``RuntimeConfig.getAll``).

Adding a Spark version: subclass :class:`ClassicReaders` (as :class:`Spark35Readers`), override
what differs (an entry of ``commands``, ``writer_mode`` ...), and return it from
:func:`select_readers` for that version. Scala's collection converters (2.12 in Spark 3, 2.13
in Spark 4) are chosen by the JVM's own classes in ``_jvm.JvmClasses``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from openlineage_sdk.spark.describe._planned import PlannedCommand
from openlineage_sdk.spark.describe._tables import TableInfo
from openlineage_sdk.spark.session.classic._jvm import (
    JvmClasses,
    as_list,
    declared_field,
    jvm_writer_settings,
    option,
    path_uri,
    writer_settings,
)

__all__ = [
    "SUPPORTED",
    "ByName",
    "ClassicReaders",
    "NodeReader",
    "PlanContext",
    "Spark35Readers",
    "select_readers",
]


@dataclass(frozen=True)
class ByName:
    """A table a command names by its identifier: its catalog entry is read when described."""

    ident: Any


class PlanContext(Protocol):
    """What a command node's reader may ask of the session while it reads the node."""

    @property
    def jvm(self) -> Any:
        """The session's py4j JVM view."""

    @property
    def catalog(self) -> Any:
        """The session's ``SessionCatalog``."""

    def parse_table(self, name: str) -> Any:
        """A table identifier parsed from ``name``."""

    def metadata(self, ident: Any) -> Any:
        """The catalog's ``CatalogTable`` of ``ident``."""


NodeReader = Callable[[Any, str, PlanContext], "PlannedCommand | None"]
"""Reads one analyzed command node (``None``: it touches no dataset, as a view's)."""


def _names(ctx: PlanContext, seq: Any) -> list[str]:
    return [str(n) for n in as_list(ctx.jvm, seq)]


def _overwrite(mode: Any) -> bool:
    return str(mode.toString() if hasattr(mode, "toString") else mode) == "Overwrite"


def _unaliased(relation: Any) -> Any:
    while relation.getClass().getSimpleName() == "SubqueryAlias":
        relation = relation.child()
    return relation


# -- the readers of Spark 4 (the nodes of ``org.apache.spark.sql.execution.command``, Hive's,
# -- the v2 row-level commands and Delta Lake's)


def _insert_hive(plan: Any, node: str, ctx: PlanContext) -> PlannedCommand:
    table = plan.table()
    return PlannedCommand(
        node,
        target=table,
        query=plan.query(),
        columns=[str(n) for n in table.schema().fieldNames()],
        overwrite=bool(plan.overwrite()),
    )


def _insert_files(plan: Any, node: str, ctx: PlanContext) -> PlannedCommand:
    table = option(plan.catalogTable())
    overwrite = _overwrite(plan.mode())
    return PlannedCommand(
        node,
        target=table,
        location=path_uri(plan.outputPath()) if table is None else None,
        query=plan.query(),
        columns=_names(ctx, plan.outputColumnNames()),
        overwrite=overwrite,
    )


def _ctas(plan: Any, node: str, ctx: PlanContext) -> PlannedCommand:
    table = plan.tableDesc() if node != "CreateDataSourceTableAsSelectCommand" else plan.table()
    return PlannedCommand(
        node,
        target=table,
        query=plan.query(),
        columns=_names(ctx, plan.outputColumnNames()),
        overwrite=node == "OptimizedCreateHiveTableAsSelectCommand" and _overwrite(plan.mode()),
    )


def _directory(plan: Any, node: str, ctx: PlanContext) -> PlannedCommand:
    location = option(plan.storage().locationUri())
    return PlannedCommand(
        node,
        location=str(location.toString()) if location is not None else None,
        query=plan.query(),
        overwrite=True,
    )


def _create(plan: Any, node: str, ctx: PlanContext) -> PlannedCommand:
    return PlannedCommand(node, target=plan.table())


def _create_like(plan: Any, node: str, ctx: PlanContext) -> PlannedCommand:
    target = plan.targetTable()
    source = ctx.metadata(plan.sourceTable())
    location = option(plan.fileFormat().locationUri())
    info = TableInfo(
        option(target.database()) or str(ctx.catalog.getCurrentDatabase()),
        str(target.table()),
        str(location.toString()) if location is not None else None,
    )
    if info.location is None:
        default = ctx.catalog.defaultTablePath(ctx.parse_table(info.qualified_name))
        info = TableInfo(info.database, info.table, str(default.toString()))
    return PlannedCommand(node, target=info, source=source)


def _load(plan: Any, node: str, ctx: PlanContext) -> PlannedCommand:
    return PlannedCommand(node, target=ByName(plan.table()), overwrite=bool(plan.isOverwrite()))


def _by_table_name(plan: Any, node: str, ctx: PlanContext) -> PlannedCommand:
    return PlannedCommand(node, target=ByName(plan.tableName()))


def _drop(plan: Any, node: str, ctx: PlanContext) -> PlannedCommand | None:
    if node == "DropTable":
        child = plan.child()
        if child.getClass().getSimpleName() != "ResolvedIdentifier":
            return None
        ident = child.identifier()
        parts = [*list(ident.namespace()), str(ident.name())]
        return PlannedCommand(
            node, target=ByName(ctx.parse_table(".".join(f"`{p}`" for p in parts)))
        )
    if plan.isView():
        return None
    return PlannedCommand(node, target=ByName(plan.tableName()))


def _alter(plan: Any, node: str, ctx: PlanContext) -> PlannedCommand:
    ident = plan.table() if node == "AlterTableAddColumnsCommand" else plan.tableName()
    return PlannedCommand(node, target=ByName(ident))


def _rename(plan: Any, node: str, ctx: PlanContext) -> PlannedCommand | None:
    if plan.isView():
        return None
    return PlannedCommand(node, target=ByName(plan.oldName()), new_name=plan.newName())


def _row_level_write(plan: Any, node: str, ctx: PlanContext) -> PlannedCommand:
    return PlannedCommand(node, target=plan.table(), query=plan.query())


def _row_level_command(plan: Any, node: str, ctx: PlanContext) -> PlannedCommand:
    target = _unaliased(plan.targetTable() if node == "MergeIntoTable" else plan.table())
    if target.getClass().getSimpleName() != "DataSourceV2Relation":
        return PlannedCommand(node)
    source = plan.sourceTable() if node == "MergeIntoTable" else None
    return PlannedCommand(node, target=target, source=source)


def _delta(plan: Any, node: str, ctx: PlanContext) -> PlannedCommand:
    source = plan.source() if node == "MergeIntoCommand" else None
    return PlannedCommand(node, target=_unaliased(plan.target()), source=source)


class ClassicReaders:
    """The readers of Spark 4 (4.0 to 4.3), the versions the adapter is built and tested on."""

    #: The Spark versions these readers are for (a major version, or ``major.minor``).
    versions: tuple[str, ...] = ("4",)

    commands: dict[str, NodeReader] = {  # noqa: RUF012 - a class's table, never changed
        "InsertIntoHiveTable": _insert_hive,
        "InsertIntoHadoopFsRelationCommand": _insert_files,
        "CreateHiveTableAsSelectCommand": _ctas,
        "CreateDataSourceTableAsSelectCommand": _ctas,
        "OptimizedCreateHiveTableAsSelectCommand": _ctas,
        "InsertIntoHiveDirCommand": _directory,
        "InsertIntoDataSourceDirCommand": _directory,
        "CreateTableCommand": _create,
        "CreateDataSourceTableCommand": _create,
        "CreateTableLikeCommand": _create_like,
        "LoadDataCommand": _load,
        "TruncateTableCommand": _by_table_name,
        "DropTable": _drop,
        "DropTableCommand": _drop,
        "AlterTableAddColumnsCommand": _alter,
        "AlterTableSetLocationCommand": _alter,
        "AlterTableAddPartitionCommand": _by_table_name,
        "RepairTableCommand": _by_table_name,
        "AlterTableRenameCommand": _rename,
        "ReplaceData": _row_level_write,
        "WriteDelta": _row_level_write,
        "MergeIntoTable": _row_level_command,
        "UpdateTable": _row_level_command,
        "DeleteFromTable": _row_level_command,
        "MergeIntoCommand": _delta,
        "UpdateCommand": _delta,
        "DeleteCommand": _delta,
    }

    def command(self, node: str) -> NodeReader | None:
        """The reader of command node ``node``; ``None`` for a node this version has no reader of."""
        return self.commands.get(node)

    #: A ``DataStreamWriter``'s fields its constructor derives from its frame (``ds``).
    stream_writer_derived: tuple[str, ...] = ("ds",)

    def writer_mode(self, jwrite: Any) -> str:
        """A JVM ``DataFrameWriter``'s save mode, in lower case."""
        return str(jwrite.curmode().toString()).lower()

    def writer_settings(self, jwrite: Any) -> tuple[str | None, dict[str, str]]:
        """``(source, options)`` of a JVM ``DataFrameWriter``."""
        return jvm_writer_settings(jwrite)

    def runtime_confs(self, spark: Any) -> dict[str, str]:
        """The session's runtime confs (those it started with among them), as text."""
        return {str(k): str(v) for k, v in dict(spark.conf.getAll).items()}


class Spark35Readers(ClassicReaders):
    """The readers of Spark 3.5: what its JVM classes and PySpark spell otherwise than Spark 4.

    Its ``DataFrameWriter`` keeps its source, options and mode in private fields (Spark 4 has
    public accessors, and calls the mode ``curmode``); its ``DataStreamWriter`` holds its frame
    twice (``ds`` and ``df``); PySpark 3.5's ``RuntimeConfig`` has no ``getAll``.
    """

    versions = ("3.5",)

    stream_writer_derived = ("ds", "df")

    def writer_mode(self, jwrite: Any) -> str:
        return str(declared_field(jwrite, "mode").toString()).lower()

    def writer_settings(self, jwrite: Any) -> tuple[str | None, dict[str, str]]:
        return writer_settings(
            declared_field(jwrite, "source"), declared_field(jwrite, "extraOptions")
        )

    def runtime_confs(self, spark: Any) -> dict[str, str]:
        jvm = spark._jvm
        confs = JvmClasses.of(jvm).as_java_map(spark._jsparkSession.conf().getAll())
        return {str(k): str(v) for k, v in dict(confs).items()}


_SPARK_4 = ClassicReaders()
_SPARK_35 = Spark35Readers()

#: The Spark versions (``major.minor``) a classic session has readers of.
SUPPORTED: tuple[str, ...] = ("3.5", "4.0", "4.1", "4.2", "4.3")


def select_readers(version: str | None) -> ClassicReaders:
    """The readers of Spark ``version`` (``None``: unknown; the newest readers).

    Args:
        version: The session's Spark version (``spark.version``: ``"3.5.9"``, ``"4.3.0"``).

    Returns:
        Spark 3.5's readers for a 3.x version, else Spark 4's. Which versions are supported
        is ``install()``'s to check (``SUPPORTED``), before a session opens.
    """
    if version is not None and version.startswith("3."):
        return _SPARK_35
    return _SPARK_4
