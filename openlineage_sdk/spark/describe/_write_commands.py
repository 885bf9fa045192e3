"""DataFrame writes: which Spark command a writer call runs, and what it writes to.

A writer call (``df.write.parquet(path)``, ``saveAsTable``, ``insertInto``, ``jdbc``,
``writeTo(t).create()`` ...) runs one command or several (``saveAsTable`` runs a
``SaveAsV1TableCommand`` around a ``CreateDataSourceTableAsSelectCommand`` around an
``InsertIntoHadoopFsRelationCommand``); the adapter reports the call as one run, named and
described as the JVM agent reports the command that carries the write's meaning: the CTAS of a
``saveAsTable``, the insert of a path write or of ``insertInto``. Which command that is depends
on the call alone (its method, its format, and for ``insertInto`` whether the table is a Hive
SerDe table), so classic PySpark and Spark Connect name the same write the same way, before it
runs.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from openlineage_sdk.spark.describe._commands import COMMANDS, Command

__all__ = [
    "FILE_FORMATS",
    "WRITER_METHODS",
    "WRITER_V2_METHODS",
    "WriteTarget",
    "write_command",
    "write_target",
]

FILE_FORMATS = frozenset({"parquet", "orc", "csv", "json", "text", "avro", "xml", "binaryfile"})

# The writer methods that run a write, per class; each call is one write of the adapter.
WRITER_METHODS = (
    "save",
    "saveAsTable",
    "insertInto",
    "parquet",
    "csv",
    "json",
    "orc",
    "text",
    "jdbc",
    "xml",
)
WRITER_V2_METHODS = (
    "create",
    "replace",
    "createOrReplace",
    "append",
    "overwrite",
    "overwritePartitions",
)

# ``DataFrameWriterV2`` calls other than ``create`` work on tables of v2 catalogs only (the
# session catalog refuses them for its own tables): named after the v2 command they plan.
_V2_COMMANDS = {
    "replace": Command("ReplaceTableAsSelect", "ctas", None, "OVERWRITE", executes=False),
    "createOrReplace": Command("ReplaceTableAsSelect", "ctas", None, "OVERWRITE", executes=False),
    "append": Command("AppendData", "insert", None, None, executes=False, writes_data=True),
    "overwrite": Command(
        "OverwriteByExpression", "insert", None, "OVERWRITE", executes=False, writes_data=True
    ),
    "overwritePartitions": Command(
        "OverwritePartitionsDynamic", "insert", None, "OVERWRITE", executes=False, writes_data=True
    ),
}
# A Kafka write: the agent names its topic from the options, with no suffix and no lifecycle.
_SAVE_INTO_KAFKA = Command("SaveIntoDataSourceCommand", "insert", None, None, writes_data=True)
# A write to any other source (JDBC...): the agent's suffix is the table its options name, and
# its output is CREATE, or OVERWRITE in overwrite mode (``SaveIntoDataSourceCommandVisitor``).
_SAVE_INTO_DATA_SOURCE = Command(
    "SaveIntoDataSourceCommand", "insert", "table", "CREATE", True, writes_data=True
)


@dataclass
class WriteTarget:
    """What a writer call writes to, read from the call and the writer's settings.

    ``location`` is a path, a table name or a JDBC URL by ``kind``; ``mode`` the save mode in
    lower case (``overwrite``, ``append``...) when the call has one.
    """

    kind: Literal["path", "table", "jdbc", "kafka"]
    location: str
    fmt: str | None
    mode: str | None = None
    jdbc_table: str | None = None
    table_path: str | None = None
    existed: bool = False
    provider: str | None = None  # the existing table's data source, once looked up
    options: dict[str, str] | None = None  # a Kafka write's options, which name its topic


def write_target(
    method: str,
    original: Callable[..., Any],
    writer: Any,
    args: tuple[Any, ...],
    kwargs: Mapping[str, Any],
    settings: tuple[str | None, dict[str, str]],
    mode: str | None,
    default_format: Callable[[], str],
    table_name: str | None = None,
) -> WriteTarget:
    """The target of one writer call.

    Args:
        method: The writer method called.
        original: The method itself (its signature binds the call's arguments).
        writer: The writer.
        args: The call's positional arguments.
        kwargs: The call's keyword arguments.
        settings: The writer's ``(source, options)`` before the call.
        mode: The writer's save mode, in lower case.
        default_format: The session's ``spark.sql.sources.default``, asked only when needed.
        table_name: A ``DataFrameWriterV2``'s table.

    Raises:
        ValueError: The call names no target (a file write without a path).
    """
    bound = inspect.signature(original).bind(writer, *args, **kwargs).arguments
    extra = bound.get("options") or {}
    source, options = settings
    options = {**options, **{k: str(v) for k, v in extra.items() if v is not None}}
    mode = (bound.get("mode") or mode or None) if method not in WRITER_V2_METHODS else None
    mode = str(mode).lower() if mode is not None else None
    if method in WRITER_V2_METHODS:
        if not table_name:
            raise ValueError("the writer's table is not known")
        return WriteTarget("table", str(table_name), source)
    if method == "jdbc":
        return WriteTarget("jdbc", str(bound["url"]), "jdbc", mode, jdbc_table=str(bound["table"]))
    if method in ("saveAsTable", "insertInto"):
        name = str(bound.get("name") or bound.get("tableName"))
        if method == "insertInto" and bound.get("overwrite"):
            mode = "overwrite"
        return WriteTarget(
            "table", name, bound.get("format") or source, mode, table_path=options.get("path")
        )
    fmt = method if method != "save" else (bound.get("format") or source)
    if fmt is None:
        fmt = default_format()
    if str(fmt).lower() == "jdbc":
        return WriteTarget("jdbc", options["url"], "jdbc", mode, jdbc_table=options.get("dbtable"))
    if str(fmt).lower() == "kafka":
        return WriteTarget("kafka", "kafka", "kafka", mode, options=options)
    path = bound.get("path") or options.get("path")
    if not path:
        raise ValueError(f"a {fmt} write without a path")
    return WriteTarget("path", str(path), str(fmt), mode)


def write_command(method: str, target: WriteTarget, *, hive_table: bool = False) -> Command:
    """The command that carries the meaning of a writer call, as the agent names it.

    ``hive_table``: the call writes an existing Hive SerDe table (``insertInto`` then runs
    ``InsertIntoHiveTable``).
    """
    if method == "create":
        # On the session catalog, a v1 provider's CTAS: the agent's CREATE.
        return COMMANDS["CreateDataSourceTableAsSelectCommand"]
    if method in _V2_COMMANDS:
        return _V2_COMMANDS[method]
    if method == "saveAsTable":
        if (target.fmt or "").lower() == "hive":
            return COMMANDS["CreateHiveTableAsSelectCommand"]
        return COMMANDS["CreateDataSourceTableAsSelectCommand"]
    if method == "insertInto":
        return COMMANDS[
            "InsertIntoHiveTable" if hive_table else "InsertIntoHadoopFsRelationCommand"
        ]
    if target.kind == "kafka":
        return _SAVE_INTO_KAFKA
    if target.kind == "path" and (target.fmt or "").lower() in FILE_FORMATS:
        return COMMANDS["InsertIntoHadoopFsRelationCommand"]
    return _SAVE_INTO_DATA_SOURCE
