"""SQL statements under Spark Connect: what a statement reads and writes, asked of the server.

Where statements are seen
-------------------------
Under Spark Connect, ``spark.sql(text)`` sends the text as a ``SqlCommand`` through the client's
``execute_command``, and the server runs a command (INSERT, CREATE, DROP, ...) at once, before
``sql`` returns. The adapter puts a wrapper on that method of the session's own client (nothing
is patched for other sessions): a SQL command that may write a table or a folder becomes one run,
START as the server runs it and COMPLETE (or FAIL with the statement's exception) after. Every
other command, and every statement that cannot write (``SELECT``, ``SET``, ``SHOW``, ``DESCRIBE``,
``USE``, views, functions, ...), passes straight through with no request of the adapter's own.

The client's actions (``to_table``, ``to_pandas``, ``to_table_as_iterator``: ``collect``,
``count``, ``toPandas``, ...) are wrapped too: an action whose plan reads datasets is a run with
those inputs and no output, as the JVM agent reports a read; one that touches no dataset (the
results of ``SET``, ``SHOW``, ``DESCRIBE``, local data, ranges) is no run. ``install(...,
input_only_runs=False)`` turns these runs off. A plan's files and tables come from the plan the
client holds; the tables SQL in it reads, from the server's explanation of the plan.

How the adapter learns what a statement does
--------------------------------------------
Before the statement runs, the adapter sends the same ``SqlCommand`` (same arguments, same
temporary views) with ``EXPLAIN EXTENDED`` in front of the text. The server parses and analyses
the statement with its own analyzer and catalog and returns the plan as text: the command it
will run (``InsertIntoHadoopFsRelationCommand``, ``InsertIntoHiveTable``,
``CreateDataSourceTableAsSelectCommand``, ``DropTable``, ...) with its target table or folder,
the write mode, and every table the query reads, fully qualified. ``EXPLAIN`` runs no Spark job
and never runs the statement (a test runs DROP, TRUNCATE and INSERT and checks both), except
for a statement that reads files by path (``parquet.`/data/x```): the server would infer the
files' schema in a job, so such a statement is not explained, and its run says why it has no
datasets. The
target's location and schema and the inputs' schemas then come from the catalog
(``DESCRIBE TABLE EXTENDED`` and the tables' schemas: no job either). Column lineage is traced
over the optimized plan's text, as the classic path traces the optimized plan; a CTAS's command
holds its query as analysed only, so the query is explained once more on its own, on the
adapter's thread while the statement runs, and used when the server's plan of it is the
statement's query node for node.

The other way considered was the OpenLineage SQL parser (``openlineage-sql`` 1.54.0, dialect
``spark``) on the client plus catalog look-ups. Measured on this project's machine: an ``EXPLAIN``
request took 110-370 ms against a warm local server, the parser 0.005-0.3 ms per statement. But
the parser then needs the same catalog look-ups, and it gave nothing at all for ``CREATE TABLE
... USING parquet AS SELECT`` and ``INSERT OVERWRITE DIRECTORY ... USING parquet``, and read
``parquet.`/tmp/x``` as a table named ``parquet./tmp/x``. Nor can it tell what the server will
do: which command runs (a Hive table written as files is ``InsertIntoHadoopFsRelationCommand``,
as Hive SerDe ``InsertIntoHiveTable``: the job name the JVM agent gives depends on it), the
current database and catalog, temporary views and parameter markers. The server's analyzer
answers all of that exactly, in one request, and its plan text also gives the column lineage
(below); that is why it is used. Its one cost beyond the look-ups: a statement that reads files
by path (``parquet.`/data/x```) makes the server infer their schema while explaining, as it does
again when it runs the statement.

What is reported
----------------
Each statement as the JVM agent reports the command: job ``{app}.{command}.{table}`` with the
agent's command and table parts, the output with ``dataSource``, ``schema``, ``symlinks`` and the
``lifecycleStateChange`` the agent sends (``CREATE``, ``DROP``, ``TRUNCATE``, ``ALTER``,
``RENAME`` with the previous name, ``OVERWRITE``), and the inputs with their schemas. A DROP or a
TRUNCATE is described before it runs (the table is gone after); a statement that creates or
changes a table (CREATE, CTAS, ALTER) is described when it has run, since the table's new schema
and name exist only then: its START and COMPLETE are both sent when the statement returns.

What the statement costs
------------------------
An INSERT into a table waits for nothing: it is sent at once, and the server explains it and
answers the catalog look-ups (its inputs and target, which it does not change) on a thread of the
adapter's while it runs it; the START goes out when they are done, COMPLETE waits for them. Any
other statement waits for its ``EXPLAIN`` (and, for a RENAME, DROP or TRUNCATE, the catalog
look-ups of its table), since what it changes must be known before it runs; its other look-ups
run beside it as an INSERT's do. ``benchmarks/spark.py`` measures the
whole against the same statement without the adapter.

Nothing here touches a JVM, and every failure of the adapter's own requests is caught, noted as a
problem of the run and logged: the user's statement runs exactly as without the adapter, and its
result or exception reaches the user unchanged.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from openlineage_sdk.spark._naming import hadoop_location_uri, job_name
from openlineage_sdk.spark._records import (
    DatasetIdentity,
    DatasetLineage,
    LifecycleState,
    note_problem,
    start_beside,
)
from openlineage_sdk.spark._schema import schema_fields
from openlineage_sdk.spark._tables import (
    TableInfo,
    describe_table,
    planned_table,
    relation_rows,
    table_identity,
)

if TYPE_CHECKING:
    from openlineage_sdk.spark._adapter import SparkLineage, WriteLineage

__all__ = [
    "ConnectStatements",
    "ExplainedStatement",
    "explain_text",
    "lineage_section",
    "may_write",
    "parse_explain",
    "same_query",
    "table_query",
    "text_column_lineage",
]

log = logging.getLogger("openlineage_sdk.spark")

# True while the adapter sends requests of its own: they pass straight through the wrapper.
_own_request: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "openlineage_connect_own_request", default=False
)

# ---------------------------------------------------------------------------- statement text

_LEADING_NOISE = re.compile(r"\A(?:\s+|--[^\n]*(?:\n|\Z)|/\*.*?\*/)*", re.DOTALL)
_FIRST_WORDS = re.compile(r"[A-Za-z]+")
# The statements that can write a dataset, by their first words.
_WRITING = re.compile(
    r"(?:INSERT|LOAD|TRUNCATE|MERGE|UPDATE|DELETE|REPLACE"
    r"|DROP\s+TABLE|ALTER\s+TABLE"
    r"|CREATE\s+(?:OR\s+REPLACE\s+)?(?:EXTERNAL\s+)?TABLE)\b",
    re.IGNORECASE,
)
# A query that reads files by path: ``parquet.`/data/x```.
_PATH_QUERY = re.compile(r"\b\w+\s*\.\s*`[^`]*[/:][^`]*`")
# What a statement that reads files by path (``parquet.`/data/x```) is reported with.
_PATH_STATEMENT = (
    "statement: it reads files by path, and asking the server what it reads and writes would "
    "run a Spark job (the files' schema inference): its datasets are left out"
)
# What ``_connect.client_plan_reads`` notes for a plan with SQL in it.
_SQL_INPUTS_UNKNOWN = "inputs of a SQL relation are not known on a Connect client"
# The client's methods that run an action and return its rows.
_ACTIONS = ("to_table", "to_pandas", "to_table_as_iterator")
_INSERT_OVERWRITE = re.compile(r"INSERT\s+OVERWRITE\b", re.IGNORECASE)
# Statements explained beside their own run: an INSERT into a table reads the same catalog, and
# its explanation says the same, before, while and after it runs. (Not a directory: the server
# may infer the schema of files the statement is replacing.)
_EXPLAINED_BESIDE = re.compile(
    r"INSERT\s+(?:INTO|OVERWRITE)\s+(?!(?:LOCAL\s+)?DIRECTORY\b)", re.IGNORECASE
)


def described_beside(text: str) -> bool:
    """Whether ``text`` is an ``INSERT`` into a table, which is described beside its run."""
    return _EXPLAINED_BESIDE.match(_statement_start(text)) is not None


def _statement_start(text: str) -> str:
    """The statement with leading blanks and comments removed."""
    return text[_LEADING_NOISE.match(text).end() :]  # type: ignore[union-attr]


def may_write(text: str) -> bool:
    """Whether a SQL statement can write a dataset, by its first words alone.

    ``SELECT``, ``SET``, ``SHOW``, ``DESCRIBE``, ``USE``, ``CACHE``, views, functions and
    databases cannot, and are not explained.
    """
    return _WRITING.match(_statement_start(text)) is not None


# ----------------------------------------------------------------------------- the plan text


@dataclass
class ExplainedStatement:
    """What the server's ``EXPLAIN EXTENDED`` says about a statement.

    ``node`` is the command the server will run, as its analysed plan names it; ``error`` is the
    analysis error when the statement cannot run (the statement is then run anyway, and fails).
    """

    node: str
    line: str = ""  # the command's own line in the analysed plan
    tables: list[str] = field(default_factory=list)  # qualified names the command names
    input_tables: list[str] = field(default_factory=list)
    input_paths: list[str] = field(default_factory=list)
    unnamed_inputs: int = 0  # file relations the plan does not locate
    cut_paths: list[str] = field(default_factory=list)  # scanned locations cut short: prefixes
    error: str | None = None
    text: str = ""  # the explanation itself


_SECTION = re.compile(r"^== (.+?) ==\s*$", re.MULTILINE)
_QUALIFIED = re.compile(r"`(?:[^`]|``)+`(?:\.`(?:[^`]|``)+`)*")
_NODE = re.compile(r"^'?(\w+)")
_RELATION = re.compile(r"(?:^|[\s:+-])Relation ([^\s\[]+)\[")
_UNNAMED_RELATION = re.compile(r"(?:^|[\s:+-])Relation \[")
_HIVE_RELATION = re.compile(r"HiveTableRelation \[(`[^\]]*?`)(?:,|\])")
# A file scan of the physical plan: ``FileScan parquet [a#1,b#2] ... Location:
# InMemoryFileIndex(1 paths)[file:/data/x], PartitionFilters: ...``. Spark cuts each metadata
# value of a scan at spark.sql.maxMetadataStringLength (100) characters and ends it with "...":
# a cut location has no closing bracket, and what is left of it is a prefix (group "cut").
_FILE_SCAN = re.compile(
    r"FileScan \w+ \[(?P<attributes>[^\n]*?)\][^\n]*?Location: \w+\(\d+ paths?\)\["
    r"(?:(?P<cut>[^\]\n]*?)\.\.\.(?=, \w+: |\s*$)|(?P<paths>[^\]\n]*?)\])",
    re.MULTILINE,
)
# A node's list of fields cut at spark.sql.debug.maxToStringFields (25): "[a#1, ... 5 more fields]".
_MORE_FIELDS = re.compile(r"\.\.\. \d+ more fields\]")
_HIVE_CTAS = re.compile(r"\[Database: ([^,\]]+), TableName: ([^,\]]+)")
_RESOLVED_IDENTIFIER = re.compile(r"ResolvedIdentifier \S+?\((\w+)\), (\S+)")
_STORAGE_LOCATION = re.compile(r"Storage\(Location: ([^,)]+)")


def _sections(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    marks = list(_SECTION.finditer(text))
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        found[mark.group(1)] = text[mark.end() : end].strip("\n")
    return found


def parse_explain(text: str) -> ExplainedStatement:
    """Read the server's ``EXPLAIN EXTENDED`` text of one statement.

    Raises:
        ValueError: The text has no parsed plan, so it is not an ``EXPLAIN EXTENDED`` answer.
    """
    sections = _sections(text)
    parsed = sections.get("Parsed Logical Plan")
    if parsed is None:
        raise ValueError("the server's explanation has no parsed plan")
    analyzed = sections.get("Analyzed Logical Plan", "")
    first = analyzed.split("\n", 1)[0] if analyzed else ""
    if not analyzed or "Exception:" in first or first.startswith("[") or " SQLSTATE: " in first:
        node = _NODE.match(parsed)
        return ExplainedStatement(node.group(1) if node else "unknown", error=first or None)
    match = _NODE.match(first)
    explained = ExplainedStatement(match.group(1) if match else "unknown", line=first, text=text)
    hive = _HIVE_CTAS.search(first)
    if hive is not None:
        explained.tables.append(f"`{hive.group(1).strip()}`.`{hive.group(2).strip()}`")
    explained.tables.extend(_QUALIFIED.findall(first))
    body = analyzed.split("\n", 1)[1] if "\n" in analyzed else ""
    resolved = _RESOLVED_IDENTIFIER.search(body)
    if resolved is not None and not explained.tables:
        explained.tables.append(
            ".".join(f"`{p}`" for p in (resolved.group(1), *resolved.group(2).split(".")))
        )
    seen: set[str] = set()
    for name in [*_RELATION.findall(body), *_HIVE_RELATION.findall(body)]:
        if name not in seen:
            seen.add(name)
            explained.input_tables.append(name)
    explained.unnamed_inputs = len(_UNNAMED_RELATION.findall(body))
    physical = sections.get("Physical Plan", "")
    for located in _FILE_SCAN.finditer(physical):
        if located.group("paths") is None:
            explained.cut_paths.append(located.group("cut"))  # a prefix is no dataset's name
            continue
        for path in located.group("paths").split(", "):
            if path and path not in explained.input_paths:
                explained.input_paths.append(path)
    return explained


def _location_of(line: str) -> str | None:
    """The folder an ``INSERT ... DIRECTORY`` or ``InsertIntoHadoopFsRelationCommand`` writes."""
    storage = _STORAGE_LOCATION.search(line)
    if storage is not None:
        return storage.group(1).strip()
    head = line.split(" ", 1)[1] if " " in line else ""
    path = head.split(", ", 1)[0].strip()
    return path or None


def _snake(node: str) -> str:
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", node)
    return words.lower()


# ----------------------------------------------------------------------------- the commands

# How each command is reported: its part of the job name, what the job name's table part is
# (the output's table name, its path's last two folders, or nothing), and when it is described.
# As the JVM agent's visitors (``*Visitor.java``) and its ``JobNameSuffixProvider``s do.


@dataclass(frozen=True)
class _Command:
    kind: str  # "insert", "ctas", "directory", "load", "create", "like", "drop", "truncate",
    # "add_columns", "rename", "set_location"
    suffix: str | None  # "table", "path" or None
    state: LifecycleState | None = None
    executes: bool = True  # named ``execute_...`` (a RunnableCommand) in the physical plan


_COMMANDS: dict[str, _Command] = {
    "InsertIntoHadoopFsRelationCommand": _Command("insert", "path"),
    "InsertIntoHiveTable": _Command("insert", "path"),
    "CreateDataSourceTableAsSelectCommand": _Command("ctas", "table", "CREATE"),
    "CreateHiveTableAsSelectCommand": _Command("ctas", "table", "CREATE"),
    "OptimizedCreateHiveTableAsSelectCommand": _Command("ctas", "table", "OVERWRITE"),
    "InsertIntoDataSourceDirCommand": _Command("directory", None),
    "InsertIntoHiveDirCommand": _Command("directory", "path"),
    "LoadDataCommand": _Command("load", "table"),
    "CreateDataSourceTableCommand": _Command("create", "table", "CREATE"),
    "CreateTableCommand": _Command("create", "path", "CREATE"),
    "CreateTableLikeCommand": _Command("like", None, "CREATE"),
    "DropTableCommand": _Command("drop", None, "DROP"),
    "DropTable": _Command("drop", None, "DROP", executes=False),
    "TruncateTableCommand": _Command("truncate", "path", "TRUNCATE"),
    "AlterTableAddColumnsCommand": _Command("add_columns", None, "ALTER"),
    "AlterTableRenameCommand": _Command("rename", None, "RENAME"),
    "AlterTableSetLocationCommand": _Command("set_location", None, "ALTER"),
}

# Looked up in the catalog while the statement runs: what they look up does not change then.
_LOOKED_UP_BESIDE = frozenset({"insert", "directory", "load", "ctas", "create", "like"})
# Described before the statement runs (the output exists then, in the state that matters).
_DESCRIBED_BEFORE = frozenset({"insert", "directory", "load", "drop", "truncate"})


def _sql_relation(command: Any) -> Any:
    """The ``SQL`` relation of a ``SqlCommand`` (also inside a ``WithRelations``), or ``None``."""
    if command.WhichOneof("command_type") != "sql_command":
        return None
    relation = command.sql_command.input
    if relation.HasField("with_relations"):
        relation = relation.with_relations.root
    if relation.HasField("sql"):
        return relation.sql
    if command.sql_command.sql:  # the form PySpark 3.5 clients send: the text in the command
        return _LegacySql(command.sql_command)
    return None


class _LegacySql:
    """A ``SqlCommand``'s own ``sql`` text, read and written as a ``SQL`` relation's query."""

    def __init__(self, command: Any) -> None:
        self._command = command

    @property
    def query(self) -> str:
        return str(self._command.sql)

    @query.setter
    def query(self, text: str) -> None:
        self._command.sql = text


def explain_text(original: Callable[..., Any], command: Any, query: str | None = None) -> str:
    """The server's ``EXPLAIN EXTENDED`` of a ``SqlCommand``: same arguments and views.

    With ``query``, of that text in place of the command's (a part of it).
    """
    explain = type(command)()
    explain.CopyFrom(command)
    sql = _sql_relation(explain)
    sql.query = "EXPLAIN EXTENDED " + (sql.query if query is None else query)
    data, properties, _ = original(explain)
    if data is not None and len(data):
        return str(data.iloc[0, 0])
    rows = relation_rows(properties.get("sql_command_result"))
    if rows:
        return str(rows[0][0])
    raise ValueError("the server sent no explanation")


# ----------------------------------------------------------------------------- the wrapper


class ConnectStatements:
    """Reports the SQL statements sent through one Connect session's client.

    Made by the adapter on a Connect session; :meth:`close` takes the wrapper off again.
    """

    def __init__(self, adapter: SparkLineage) -> None:
        self.adapter = adapter
        self.client = adapter.spark.client
        original = type(self.client).execute_command.__get__(self.client)
        self._original: Callable[..., Any] = original

        def execute_command(command: Any, observations: Any = None) -> Any:
            return self.execute(command, observations)

        self.client.execute_command = execute_command
        for name in _ACTIONS:
            self._wrap_action(name)

    def _wrap_action(self, name: str) -> None:
        original: Callable[..., Any] = getattr(type(self.client), name).__get__(self.client)

        def action(plan: Any, *args: Any, **kwargs: Any) -> Any:
            return self.action(name, original, plan, args, kwargs)

        setattr(self.client, name, action)

    def close(self) -> None:
        """Let the client's commands and actions pass straight through again."""
        for name in ("execute_command", *_ACTIONS):
            self.client.__dict__.pop(name, None)

    def execute(self, command: Any, observations: Any = None) -> Any:
        """Run one command of the client's, with lineage around it when it is a writing SQL."""
        original = self._original
        text = None
        if not _own_request.get():
            try:
                sql = _sql_relation(command)
                text = sql.query if sql is not None and may_write(sql.query) else None
            except Exception as error:  # a message of a shape this code does not know
                log.debug("openlineage: reading a Connect command failed: %s", error)
        if text is None:
            return original(command, observations)
        return self._statement(command, observations, text)

    @staticmethod
    @contextlib.contextmanager
    def _own() -> Iterator[None]:
        """The adapter's own requests inside pass straight through the wrapper."""
        token = _own_request.set(True)
        try:
            yield
        finally:
            _own_request.reset(token)

    def _statement(self, command: Any, observations: Any, text: str) -> Any:
        if described_beside(text):
            return self._insert(command, observations, text)
        adapter = self.adapter
        lineage = adapter._lineage("sql")
        plan: _Plan | None = None
        try:
            with self._own():
                plan = self._plan(command, text, lineage)
        except Exception as error:  # whatever broke, the statement still runs
            note_problem(lineage.problems, "statement", error)
        early = plan is None or plan.before
        # The catalog look-ups run beside the statement where what they read does not change
        # while it runs (the inputs; the target of an INSERT): the server answers them while it
        # runs the statement, so they add no time to it. A DROP, TRUNCATE or RENAME is looked
        # up before it runs.
        beside: threading.Thread | None = None
        if plan is not None and plan.ready and plan.spec is not None:
            if plan.spec.kind in _LOOKED_UP_BESIDE:
                beside = start_beside(
                    self._look_up, plan, lineage, early, name="openlineage-look-up"
                )
            else:
                self._look_up(plan, lineage, early)
        elif early:
            adapter._notify("write_started", lineage)
        try:
            result = self._original(command, observations)
        except BaseException as error:
            lineage.error = error
            raise
        finally:
            lineage.finished = time.time()
            if beside is not None:
                beside.join()
            if not early:
                try:
                    with self._own():
                        assert plan is not None
                        self._describe_after(plan, lineage)
                except Exception as error:
                    note_problem(lineage.problems, "output after the statement", error)
                adapter._notify("write_started", lineage)
            adapter._notify("write_finished", lineage)
        return result

    def _insert(self, command: Any, observations: Any, text: str) -> Any:
        """An INSERT into a table: explained and looked up beside the statement, not before.

        Nothing the adapter asks waits in front of the user's statement: the server explains
        the INSERT and answers the catalog look-ups on a thread of the adapter's while it runs
        the statement, and the START goes out when they are done. COMPLETE (or FAIL) waits for
        them.
        """
        adapter = self.adapter
        lineage = adapter._lineage("sql")

        def describe() -> None:
            plan: _Plan | None = None
            try:
                with self._own():
                    plan = self._plan(command, text, lineage)
            except Exception as error:  # whatever broke, the run is still reported
                note_problem(lineage.problems, "statement", error)
            if plan is not None and plan.ready and plan.spec is not None:
                self._look_up(plan, lineage, start=True)
            else:
                adapter._notify("write_started", lineage)

        beside = start_beside(describe, name="openlineage-explain")
        try:
            return self._original(command, observations)
        except BaseException as error:
            lineage.error = error
            raise
        finally:
            lineage.finished = time.time()
            beside.join()
            adapter._notify("write_finished", lineage)

    def _look_up(self, plan: _Plan, lineage: WriteLineage, start: bool) -> None:
        """The inputs (and, for a statement described before it runs, the output); then START."""
        if plan.spec is not None and plan.spec.kind == "ctas":
            try:
                with self._own():
                    plan.query = self._explain_query(plan)
            except Exception as error:
                note_problem(lineage.problems, "the query of the statement", error)
        try:
            with self._own():
                self._inputs(plan.query or plan.explained, lineage)
                if plan.before:
                    self._describe(plan, lineage, before=True)
        except Exception as error:
            note_problem(lineage.problems, "catalog look-ups", error)
        if start:
            self.adapter._notify("write_started", lineage)

    def _explain_query(self, plan: _Plan) -> ExplainedStatement | None:
        """A CTAS's query, explained on its own; ``None`` when its text cannot be told.

        The server's ``EXPLAIN`` of a CTAS shows the query as analysed: the command holds it
        and the optimizer does not reach it, while the classic path and the JVM agent trace the
        query as optimized (and Spark runs it so). The query alone has its optimized plan, and
        its physical plan locates the files it reads. Explained on the adapter's thread while
        the statement runs; used only when its analysed plan is the statement's query, node for
        node.
        """
        query = table_query(plan.text)
        if query is None:
            return None
        text = explain_text(self._original, plan.command, query)
        explained = parse_explain(text)
        if explained.error is not None:
            log.debug("openlineage: the server cannot analyse a CTAS's query: %s", explained.error)
            return None
        if not same_query(plan.explained.text, text):
            log.debug("openlineage: a CTAS's query, told from its text, is not the statement's")
            return None
        return explained

    # -- actions that read

    def action(
        self,
        name: str,
        original: Callable[..., Any],
        plan: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Any:
        """Run one action of the client's; a run with its inputs when it reads datasets."""
        lineage: WriteLineage | None = None
        if self.adapter.input_only_runs and not _own_request.get() and not _in_adapter_write():
            try:
                with self._own():
                    lineage = self._read_lineage(plan)
            except Exception as error:  # whatever broke, the action still runs
                log.warning("openlineage: the inputs of an action: %s", error)
        if lineage is None:
            return original(plan, *args, **kwargs)
        adapter = self.adapter
        adapter._notify("write_started", lineage)
        if name == "to_table_as_iterator":
            return self._iterate(lineage, original(plan, *args, **kwargs))
        try:
            return original(plan, *args, **kwargs)
        except BaseException as error:
            lineage.error = error
            raise
        finally:
            lineage.finished = time.time()
            adapter._notify("write_finished", lineage)

    def _iterate(self, lineage: WriteLineage, results: Iterator[Any]) -> Iterator[Any]:
        # The action runs while the caller iterates: the run ends with the iteration.
        try:
            yield from results
        except BaseException as error:
            lineage.error = error
            raise
        finally:
            lineage.finished = time.time()
            self.adapter._notify("write_finished", lineage)

    def _read_lineage(self, plan: Any) -> WriteLineage | None:
        """The run of an action that reads datasets, or ``None`` when it reads none."""
        from openlineage_sdk.spark import _connect

        if not plan.HasField("root"):
            return None
        root = plan.root
        lineage = self.adapter._lineage("read")
        lineage.command = _snake_field(root.WhichOneof("rel_type") or "query")
        lineage.job_name = job_name(self.adapter.app_name, lineage.command, None)
        explained = ExplainedStatement("query")
        queries: list[str] = []
        paths: list[str] = []
        declared: dict[str, str] = {}
        for node in _connect._relations(root):
            kind = node.WhichOneof("rel_type")
            if kind == "sql":
                queries.append(node.sql.query)
            elif kind == "read" and node.read.HasField("named_table"):
                explained.input_tables.append(node.read.named_table.unparsed_identifier)
            elif kind == "read" and node.read.HasField("data_source"):
                source = node.read.data_source
                options = dict(source.options)
                found = list(source.paths) or ([options["path"]] if "path" in options else [])
                paths.extend(found)
                if source.HasField("schema") and source.schema:
                    declared.update(dict.fromkeys(found, source.schema))
        if queries:
            if any(_PATH_QUERY.search(query) for query in queries):
                # Explaining would make the server infer the files' schema: a job of its own.
                lineage.problems.append(
                    "inputs: a SQL query reads files by path; asking the server would run a job"
                )
            else:
                text = self.client.explain_string(plan, "extended")
                found_sql = parse_explain(text)
                found_sql.text = text
                explained.input_tables.extend(found_sql.input_tables)
                explained.input_paths.extend(found_sql.input_paths)
                explained.unnamed_inputs = found_sql.unnamed_inputs
        self._inputs(explained, lineage)
        for path in paths:
            try:
                dataset = DatasetLineage(self.adapter._path_identity(path), "input")
            except Exception as error:
                note_problem(lineage.problems, f"input {path}", error)
                continue
            if path in declared:
                try:
                    schema = _connect.declared_schema(self.adapter.spark, declared[path])
                    dataset.schema = schema_fields(schema)
                except Exception as error:
                    note_problem(dataset.problems, f"input {path}: declared schema", error)
            lineage.inputs.append(dataset)
        if not lineage.inputs and not lineage.problems:
            return None  # SET, SHOW, DESCRIBE, local data, ranges: no dataset, no run
        return lineage

    # -- what the statement does

    def _plan(self, command: Any, text: str, lineage: WriteLineage) -> _Plan | None:
        if _PATH_QUERY.search(text):
            # Explaining it would make the server infer the files' schema: a job of its own.
            lineage.problems.append(_PATH_STATEMENT)
            return None
        explained = parse_explain(explain_text(self._original, command))
        spec = _COMMANDS.get(explained.node)
        plan = _Plan(explained, spec, text, command=command)
        lineage.command = _snake(explained.node)
        if spec is not None and spec.executes:
            lineage.command = "execute_" + lineage.command
        lineage.job_name = job_name(self.adapter.app_name, lineage.command, None)
        if explained.error is not None:
            lineage.problems.append(f"statement: the server cannot analyse it: {explained.error}")
            return plan
        if spec is None:
            lineage.problems.append(
                f"statement: {explained.node} is not a command the adapter knows"
            )
            return plan
        if spec.kind == "rename" and explained.tables:
            info = self._table(explained.tables[0])
            if info is not None and info.location is not None:
                plan.previous = table_identity(info, self.adapter._hive_metastore)
        plan.ready = True
        return plan

    def _inputs(self, explained: ExplainedStatement, lineage: WriteLineage) -> None:
        adapter = self.adapter
        seen: set[tuple[str, str]] = set()

        def add(dataset: DatasetLineage) -> None:
            key = (dataset.identity.namespace, dataset.identity.name)
            if key not in seen:
                seen.add(key)
                lineage.inputs.append(dataset)

        for name in explained.input_tables:
            try:
                # The server's plan of the statement reads it: it exists.
                info = describe_table(adapter.spark, name, exists=True, with_schema=True)
                if info is None or info.location is None:
                    raise ValueError(f"{name} is not a table with a location")
                dataset = DatasetLineage(table_identity(info, adapter._hive_metastore), "input")
            except Exception as error:  # one bad input must not hide the rest
                note_problem(lineage.problems, f"input table {name}", error)
                continue
            try:
                dataset.schema = info.schema or schema_fields(adapter.spark.table(name).schema)
            except Exception as error:
                note_problem(dataset.problems, f"input table {name}: schema", error)
            add(dataset)
        for path in explained.input_paths:
            try:
                add(DatasetLineage(DatasetIdentity.from_uri(hadoop_location_uri(path)), "input"))
            except Exception as error:
                note_problem(lineage.problems, f"input {path}", error)
        located = len(explained.input_paths)
        if explained.unnamed_inputs > located:
            cut = (
                " (their locations are longer than the session's "
                "spark.sql.maxMetadataStringLength, which cuts them short in the plan's text)"
                if explained.cut_paths
                else ""
            )
            lineage.problems.append(
                "inputs: the server's plan does not locate "
                f"{explained.unnamed_inputs - located} file input(s) read by path{cut}"
            )

    def _table(
        self, name: str, *, exists: bool = False, with_schema: bool = False
    ) -> TableInfo | None:
        return describe_table(self.adapter.spark, name, exists=exists, with_schema=with_schema)

    def _describe(self, plan: _Plan, lineage: WriteLineage, *, before: bool) -> None:
        """Fill in the output and the job name, from the catalog (before or after the run)."""
        adapter = self.adapter
        explained, spec = plan.explained, plan.spec
        assert spec is not None
        output: DatasetLineage | None = None
        suffix: str | None = None
        tables = explained.tables
        if spec.kind == "directory" or (spec.kind == "insert" and not tables):
            location = _location_of(explained.line)
            if location is None:
                raise ValueError(f"{explained.node} names no location")
            uri = (
                hadoop_location_uri(location)
                if ":" in location.split("/", 1)[0]
                else adapter._qualify(location)
            )
            output = DatasetLineage(DatasetIdentity.from_uri(uri), "output")
            suffix = output.identity.name
            query = directory_query(plan.text) if spec.kind == "directory" else None
            if query is not None:
                try:
                    # The server analyses the query alone: its schema, no Spark job.
                    output.schema = schema_fields(adapter.spark.sql(query).schema)
                except Exception as error:
                    note_problem(output.problems, "output schema", error)
        else:
            if not tables:
                raise ValueError(f"{explained.node} names no table")
            name = tables[0]
            if spec.kind == "rename" and not before:
                name = _renamed(tables[0], tables[1] if len(tables) > 1 else None)
            # An INSERT's target exists: the server has analysed the INSERT.
            wants_schema = spec.kind != "drop"
            info = self._table(name, exists=spec.kind == "insert", with_schema=wants_schema)
            if info is None or info.location is None:
                info = planned_table(adapter.spark, name)
            output = DatasetLineage(table_identity(info, adapter._hive_metastore), "output")
            if spec.kind == "rename":
                previous = plan.previous
                output.previous_identity = previous
            if wants_schema:
                try:
                    output.schema = info.schema or schema_fields(adapter.spark.table(name).schema)
                except Exception as error:
                    note_problem(output.problems, "output schema", error)
            suffix = info.qualified_name if spec.suffix == "table" else output.identity.name
        output.catalog = adapter._catalog_info()  # as classic statements', and the agent's
        if spec.kind in ("insert", "directory", "ctas") and output.schema is not None:
            self._column_lineage(plan.query or explained, lineage, output)
        state = spec.state
        if spec.kind in ("insert", "directory"):
            state = "OVERWRITE" if _is_overwrite(explained, plan.text) else None
        output.lifecycle_state = state
        lineage.output = output
        lineage.job_name = job_name(
            adapter.app_name, lineage.command, suffix if spec.suffix is not None else None
        )

    def _column_lineage(
        self, explained: ExplainedStatement, lineage: WriteLineage, output: DatasetLineage
    ) -> None:
        """The output's column lineage, from the plan's text and the inputs already known."""
        try:
            names = [f["name"] for f in output.schema or []]
            record = text_column_lineage(
                explained.text, names, *_plan_names(explained, lineage.inputs)
            )
            if record is not None:
                output.column_lineage = record
        except Exception as error:
            note_problem(output.problems, "column lineage", error)

    def write_column_lineage(self, df: Any, lineage: WriteLineage, output: DatasetLineage) -> None:
        """Column lineage for a DataFrame write, when the server can tell it without a job.

        The server explains the DataFrame's plan. A plan that reads files by path without a
        declared schema is not explained: the server would infer the files' schema, which
        runs a job.
        """
        if output.schema is None:
            return
        try:
            with self._own():
                explained = self._explain_frame(df)
        except Exception as error:
            note_problem(output.problems, "column lineage", error)
            return
        if explained is None:
            return
        if _SQL_INPUTS_UNKNOWN in lineage.problems:
            # The server named what the SQL reads: the inputs the client could not see.
            try:
                with self._own():
                    self._add_inputs(explained, lineage)
                lineage.problems.remove(_SQL_INPUTS_UNKNOWN)
            except Exception as error:
                note_problem(lineage.problems, "inputs of SQL", error)
        self._column_lineage(explained, lineage, output)

    def _add_inputs(self, explained: ExplainedStatement, lineage: WriteLineage) -> None:
        known = {(d.identity.namespace, d.identity.name) for d in lineage.inputs}
        found = self.adapter._lineage("read")
        self._inputs(explained, found)
        lineage.problems.extend(found.problems)
        for dataset in found.inputs:
            if (dataset.identity.namespace, dataset.identity.name) not in known:
                lineage.inputs.append(dataset)

    def _explain_frame(self, df: Any) -> ExplainedStatement | None:
        from pyspark.sql.connect.proto import Plan

        from openlineage_sdk.spark import _connect

        relation = df._plan.plan(self.client)
        for node in _connect._relations(relation):
            kind = node.WhichOneof("rel_type")
            if kind == "sql" and _PATH_QUERY.search(node.sql.query):
                return None
            if (
                kind == "read"
                and node.read.HasField("data_source")
                and not (node.read.data_source.schema)
            ):
                return None
        plan = Plan()
        plan.root.CopyFrom(relation)
        text = self.client.explain_string(plan, "extended")
        explained = parse_explain(text)
        explained.text = text
        return explained

    def _describe_after(self, plan: _Plan, lineage: WriteLineage) -> None:
        if plan.spec is None or plan.explained.error is not None:
            return
        if lineage.error is not None:
            # The statement failed: what the table was before is the best description left.
            self._describe(plan, lineage, before=True)
            return
        self._describe(plan, lineage, before=False)


def _plan_names(
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


def _snake_field(name: str) -> str:
    return name.strip("_") or "query"


def _in_adapter_write() -> bool:
    """Whether the adapter is inside a DataFrame write of its own (its look-ups are not runs)."""
    from openlineage_sdk.spark._adapter import _in_write

    return _in_write.get()


def _is_overwrite(explained: ExplainedStatement, text: str) -> bool:
    line = explained.line
    if explained.node == "InsertIntoHadoopFsRelationCommand":
        return ", Overwrite, " in line
    if explained.node == "InsertIntoDataSourceDirCommand" or explained.node.endswith("DirCommand"):
        return line.rstrip().endswith("true") or ", true" in line
    return _INSERT_OVERWRITE.match(_statement_start(text)) is not None


def _renamed(old: str, new: str | None) -> str:
    """The new qualified name of a renamed table: in the old one's database unless it names one."""
    if new is None:
        raise ValueError("the rename names no new table")
    if new.count("`.`") >= 1:
        return new
    parts = old.rsplit("`.`", 1)
    return f"{parts[0]}`.{new}" if len(parts) == 2 else new


_QUERY_START = re.compile(r"(?i)(SELECT|VALUES|WITH|FROM|TABLE)\b")
_DIRECTORY = re.compile(r"(?is)^\s*INSERT\s+OVERWRITE\s+(?:LOCAL\s+)?DIRECTORY\b")


def directory_query(text: str) -> str | None:
    """The query of an ``INSERT OVERWRITE [LOCAL] DIRECTORY`` statement, or ``None``.

    The query starts at the first ``SELECT``, ``VALUES``, ``WITH``, ``FROM`` or ``TABLE`` that is
    neither quoted nor inside parentheses after ``DIRECTORY``: the path, ``USING``, ``OPTIONS
    (...)``, ``ROW FORMAT`` and ``STORED AS`` clauses before it hold none (their strings are
    quoted, their options parenthesised). A parenthesised query starts at its parenthesis.
    """
    head = _DIRECTORY.match(text)
    if head is None:
        return None
    for index in _top_level(text, head.end()):
        if text[index] == "(":
            if _QUERY_START.match(text, index + 1 + _spaces(text, index + 1)):
                return text[index:].strip()
        elif _QUERY_START.match(text, index):
            return text[index:].strip()
    return None


def _top_level(text: str, index: int) -> Iterator[int]:
    """Where a word or a parenthesis may begin, from ``index`` on, outside quotes and parentheses.

    Quoted text (single and double quotes, backticks; backslash escapes) and what parentheses
    hold are skipped; the index of a top-level opening parenthesis is among those given.
    """
    depth, quote = 0, ""
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"`":
            quote = char
        else:
            if depth == 0 and (
                char == "(" or not (text[index - 1].isalnum() or text[index - 1] == "_")
            ):
                yield index
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
        index += 1


_TABLE_HEAD = re.compile(
    r"(?is)(?:CREATE\s+(?:OR\s+REPLACE\s+)?(?:EXTERNAL\s+)?|REPLACE\s+)TABLE\b"
)
_AS_QUERY = re.compile(r"(?i)AS\b\s*(?=\(|(?:SELECT|VALUES|WITH|FROM|TABLE)\b)")


def table_query(text: str) -> str | None:
    """The query of ``CREATE [OR REPLACE] TABLE ... AS query`` (or ``REPLACE TABLE``), or ``None``.

    The query follows the first ``AS`` that is neither quoted nor inside parentheses and is
    followed by a query (``SELECT``, ``VALUES``, ``WITH``, ``FROM``, ``TABLE`` or a parenthesis):
    the clauses before it hold no such ``AS`` (``STORED AS PARQUET`` names a format; columns,
    options and properties are parenthesised; locations and comments are quoted). A statement
    without the optional ``AS`` gives ``None``. The caller checks the answer against the
    server's plan of the statement (:func:`same_query`).
    """
    start = _statement_start(text)
    head = _TABLE_HEAD.match(start)
    if head is None:
        return None
    for index in _top_level(start, head.end()):
        found = _AS_QUERY.match(start, index)
        if found is not None:
            return start[found.end() :].strip() or None
    return None


def _plan_lines(section: str) -> list[str]:
    """A plan section's nodes without their tree marks and attribute ids."""
    lines = []
    for line in section.split("\n"):
        text = line[_TREE_PREFIX.match(line).end() :]  # type: ignore[union-attr]
        if text.strip():
            lines.append(_ATTRIBUTE_ID.sub("#", text))
    return lines


def same_query(statement: str, query: str) -> bool:
    """Whether ``query``'s explanation analyses the query of ``statement``'s, node for node.

    Both are ``EXPLAIN EXTENDED`` texts: the statement's analysed plan is its command over its
    query; the query's, a schema line over the query. Attribute ids differ between two
    explanations and are left out of the comparison.
    """
    command = _sections(statement).get("Analyzed Logical Plan", "").split("\n")[1:]
    alone = _sections(query).get("Analyzed Logical Plan", "").split("\n")[1:]
    return bool(command) and _plan_lines("\n".join(command)) == _plan_lines("\n".join(alone))


def _spaces(text: str, index: int) -> int:
    return len(text[index:]) - len(text[index:].lstrip())


@dataclass
class _Plan:
    explained: ExplainedStatement
    spec: _Command | None
    text: str
    previous: DatasetIdentity | None = None
    ready: bool = False  # explained, and a command the adapter describes
    command: Any = None  # the user's SqlCommand
    query: ExplainedStatement | None = None  # a CTAS's query, explained on its own

    @property
    def before(self) -> bool:
        """Whether the statement is described (and its START sent) before it runs."""
        return (
            self.spec is None
            or self.explained.error is not None
            or (self.spec.kind in _DESCRIBED_BEFORE)
        )


# ------------------------------------------------------------------- column lineage, from text
#
# Under Connect the client cannot have the plan's tree, only the server's text of it. The
# optimized plan's text (see ``lineage_section``) names every attribute with its id (``a#21``,
# ``(a + 1)#23``, ``id#0L``), every ``expr AS name#id`` that defines one, and the relations the
# leaves read; that is enough for the lineage of each output column, traced the way the classic
# path traces the plan's tree (``_plan``): IDENTITY through aliases, TRANSFORMATION through
# expressions and generators, AGGREGATION through aggregate functions, and the columns of
# filters, joins, groupings and sorts as dataset-wide INDIRECT lineage.

_TREE_PREFIX = re.compile(r"^[ :+\-]*")
_ATTRIBUTE_ID = re.compile(r"#(\d+)L?\b")
_DEFINED = re.compile(r"^(.*) AS (.+)#(\d+)L?$", re.DOTALL)
_BARE = re.compile(r"^(?:.+?)#(\d+)L?$")
_AGGREGATE_CALL = re.compile(
    r"\b(?:sum|avg|mean|min|max|first|last|any_value|collect_list|collect_set|stddev\w*"
    r"|var_\w+|variance|percentile\w*|median|mode|corr|covar_\w+|max_by|min_by|bool_and"
    r"|bool_or|every|some|any|count|count_if|approx_count_distinct)\(",
    re.IGNORECASE,
)
_COUNTING_CALL = re.compile(r"\b(?:count|count_if|approx_count_distinct)\(", re.IGNORECASE)
_MASKING_CALL = re.compile(r"\b(?:md5|sha1|sha2|sha|crc32|hash|xxhash64|mask)\(", re.IGNORECASE)
_PASS_THROUGH = frozenset(
    {
        "SubqueryAlias",
        "View",
        "GlobalLimit",
        "LocalLimit",
        "Limit",
        "Offset",
        "Distinct",
        "Deduplicate",
        "Repartition",
        "RepartitionByExpression",
        "RebalancePartitions",
        "ResolvedHint",
        "WithWatermark",
        "CollectMetrics",
        "Tail",
        "Sample",
    }
)
_INDIRECT_NODES = {"Filter": "FILTER", "Join": "JOIN", "Sort": "SORT"}


@dataclass
class _TextNode:
    name: str
    text: str
    children: list[_TextNode] = field(default_factory=list)


def _text_tree(section: str) -> _TextNode | None:
    """The tree of one plan section, by the indentation of its lines."""
    root: _TextNode | None = None
    stack: list[tuple[int, _TextNode]] = []
    for line in section.split("\n"):
        start = _TREE_PREFIX.match(line).end()  # type: ignore[union-attr]
        text = line[start:]
        if not text:
            continue
        match = _NODE.match(text)
        node = _TextNode(match.group(1) if match else "", text)
        while stack and stack[-1][0] >= start:
            stack.pop()
        if stack:
            stack[-1][1].children.append(node)
        elif root is None:
            root = node
        else:
            return root  # a second root: not one tree
        stack.append((start, node))
    return root


def _split_list(text: str) -> list[str]:
    """The top-level items of a ``[a, b, f(c, d)]`` list's inside."""
    items: list[str] = []
    depth, start = 0, 0
    quote: str | None = None
    for index, char in enumerate(text):
        if quote is not None:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(text[start:index].strip())
            start = index + 1
    tail = text[start:].strip()
    if tail:
        items.append(tail)
    return items


def _bracketed(text: str, start: int = 0) -> tuple[str, int] | None:
    """The inside of the first ``[...]`` at or after ``start``, and the index after it."""
    opening = text.find("[", start)
    if opening < 0:
        return None
    depth = 0
    for index in range(opening, len(text)):
        if text[index] == "[":
            depth += 1
        elif text[index] == "]":
            depth -= 1
            if depth == 0:
                return text[opening + 1 : index], index + 1
    return None


class _TextLineage:
    """Column lineage over the plan's text (see the section comment above)."""

    def __init__(
        self, leaf_datasets: dict[str, DatasetIdentity], path_datasets: dict[frozenset[int], Any]
    ) -> None:
        from openlineage_sdk.spark import _plan

        self._plan = _plan
        self.deps: dict[int, set[Any]] = {}
        self.dataset: set[Any] = set()
        self.leaf_datasets = leaf_datasets
        self.path_datasets = path_datasets

    def refs(self, expr: str, how: Any) -> set[Any]:
        found: set[Any] = set()
        for expr_id in _ATTRIBUTE_ID.findall(expr):
            for source, column, inner in self.deps.get(int(expr_id), ()):
                found.add((source, column, self._plan.combine(how, inner)))
        return found

    def _how(self, expr: str) -> Any:
        transform = self._plan.Transform
        masking = _MASKING_CALL.search(expr) is not None
        if _BARE.match(expr.strip()):
            return self._plan.IDENTITY
        if _AGGREGATE_CALL.search(expr):
            counting = _COUNTING_CALL.search(expr) is not None
            return transform("DIRECT", "AGGREGATION", masking or counting)
        return transform("DIRECT", "TRANSFORMATION", masking)

    def define(self, items: list[str]) -> list[int]:
        """Each ``expr AS name#id`` (or a bare ``name#id``): its id, and what it reads."""
        ids: list[int] = []
        for item in items:
            defined = _DEFINED.match(item)
            if defined is not None:
                expr_id = int(defined.group(3))
                self.deps[expr_id] = self.refs(defined.group(1), self._how(defined.group(1)))
                ids.append(expr_id)
                continue
            bare = _BARE.match(item)
            if bare is not None:
                ids.append(int(bare.group(1)))
        return ids

    def visit(self, node: _TextNode) -> list[int]:
        """Trace ``node`` (children first); returns the ids of its output, in order."""
        outputs = [self.visit(child) for child in node.children]
        name, text = node.name, node.text
        if name in ("Relation", "HiveTableRelation", "LocalRelation", "LogicalRDD", "Range"):
            return self._leaf(node)
        if name in ("Project", "Aggregate", "Window"):
            first = _bracketed(text)
            if first is None:
                return outputs[0] if outputs else []
            if name == "Aggregate":
                second = _bracketed(text, first[1])
                self._indirect(first[0], "GROUP_BY")
                return self.define(_split_list(second[0])) if second else []
            if name == "Window":
                own = self.define(_split_list(first[0]))
                return (outputs[0] if outputs else []) + own
            return self.define(_split_list(first[0]))
        if name in _INDIRECT_NODES:
            self._indirect(text[len(name) :], _INDIRECT_NODES[name])
            if name == "Join":
                if " LeftSemi" in text or " LeftAnti" in text:
                    return outputs[0] if outputs else []
                return [i for output in outputs for i in output]
            return outputs[0] if outputs else []
        if name == "Expand":
            return self._expand(text[len(name) :])
        if name == "Generate":
            return self._generate(text[len(name) :], outputs[0] if outputs else [])
        if name in ("Union", "Intersect", "Except") and outputs:
            for other in outputs[1:]:
                for mine, theirs in zip(outputs[0], other, strict=False):
                    self.deps.setdefault(mine, set()).update(self.deps.get(theirs, set()))
            return outputs[0]
        if name in _PASS_THROUGH or outputs:
            return outputs[0] if outputs else []
        return []

    def _expand(self, text: str) -> list[int]:
        """``Expand [[a#1, null, 1], ...], [a#5, b#6, gid#7]``: ROLLUP, CUBE, several DISTINCTs.

        Each output column is, row by row, one of the projections' columns.
        """
        items = _split_list(text.strip())
        if len(items) < 2 or not items[0].startswith("[") or not items[-1].startswith("["):
            return []
        outputs = [
            int(bare.group(1))
            for item in _split_list(items[-1][1:-1])
            if (bare := _BARE.match(item)) is not None
        ]
        expanded: dict[int, set[Any]] = {i: set() for i in outputs}
        for row in _split_list(items[0][1:-1]):
            for position, expr in enumerate(_split_list(row.strip()[1:-1])):
                if position < len(outputs):
                    expanded[outputs[position]] |= self.refs(expr, self._how(expr))
        self.deps.update(expanded)
        return outputs

    def _generate(self, text: str, child: list[int]) -> list[int]:
        """``Generate explode(xs#3), [0], false, [x#7]``: ``explode`` and its kind.

        Each generated column transforms what the generator reads; the bracketed indexes after
        the generator are the child's columns the node leaves out of its output.
        """
        items = _split_list(text.strip())
        if len(items) < 2 or not items[-1].startswith("["):
            return child
        generator = items[0]
        dropped: set[int] = set()
        if len(items) > 2 and re.fullmatch(r"\[[\d, ]*\]", items[1]):
            dropped = {int(i) for i in re.findall(r"\d+", items[1])}
        generated = [
            int(bare.group(1))
            for item in _split_list(items[-1][1:-1])
            if (bare := _BARE.match(item)) is not None
        ]
        reads = self.refs(generator, self._plan.TRANSFORMATION)
        for expr_id in generated:
            self.deps[expr_id] = set(reads)
        kept = [expr_id for position, expr_id in enumerate(child) if position not in dropped]
        return kept + generated

    def _indirect(self, expr: str, subtype: str) -> None:
        self.dataset |= self.refs(expr, self._plan.Transform("INDIRECT", subtype))

    def _leaf(self, node: _TextNode) -> list[int]:
        text = node.text
        attributes: list[tuple[str, int]] = []
        source: DatasetIdentity | None = None
        if node.name == "HiveTableRelation":
            hive = _HIVE_RELATION.search(text)
            source = self.leaf_datasets.get(hive.group(1)) if hive else None
            columns = re.search(r"Data Cols: \[([^\]]*)\](?:, Partition Cols: \[([^\]]*)\])?", text)
            listed = ", ".join(g for g in (columns.groups() if columns else ()) if g)
        else:
            named = _RELATION.search(" " + text)
            if named is not None:
                source = self.leaf_datasets.get(named.group(1))
            bracket = _bracketed(text)
            listed = bracket[0] if bracket else ""
        for item in _split_list(listed):
            match = re.match(r"^(.+?)#(\d+)L?$", item.strip())
            if match is not None:
                attributes.append((match.group(1), int(match.group(2))))
        if source is None and node.name == "Relation":
            source = self.path_datasets.get(frozenset(i for _, i in attributes))
        if source is not None:
            for column, expr_id in attributes:
                self.deps[expr_id] = {(source, column, self._plan.IDENTITY)}
        return [i for _, i in attributes]


def text_column_lineage(
    text: str,
    output_names: list[str],
    tables: dict[str, DatasetIdentity],
    paths: dict[str, DatasetIdentity],
) -> Any:
    """The column lineage of a query from the server's ``EXPLAIN EXTENDED`` text.

    ``tables`` maps each relation's name as the plan shows it (``spark_catalog.default.t``) to
    its dataset, ``paths`` each scanned location to its dataset. Returns a
    ``ColumnLineageRecord``, or ``None`` when the plan's text cannot be read as one tree.
    """
    from openlineage_sdk.spark import _plan
    from openlineage_sdk.spark._records import ColumnLineageRecord

    sections = _sections(text)
    section = lineage_section(sections)
    if _MORE_FIELDS.search(section):
        # Lineage of the listed fields only would look whole and be wrong for the rest.
        raise ValueError(
            "the server's plan text lists only the first fields of wide nodes (the session's "
            "spark.sql.debug.maxToStringFields, 25 by default): set it above the widest "
            "plan's number of columns for column lineage"
        )
    tree = _text_tree(section)
    if tree is None:
        return None
    by_attributes: dict[frozenset[int], DatasetIdentity] = {}
    for scan in _FILE_SCAN.finditer(sections.get("Physical Plan", "")):
        located = paths.get(scan.group("paths") or scan.group("cut"))
        ids = frozenset(int(i) for i in _ATTRIBUTE_ID.findall(scan.group("attributes")))
        if located is not None and ids:
            by_attributes[ids] = located
    walk = _TextLineage(tables, {})
    # A file relation's attributes in the logical plan are all of its columns; the scan lists
    # those it reads. The relation is the scan's when the scan's attributes are all its own.
    walk.path_datasets = _PathMatcher(by_attributes)  # type: ignore[assignment]
    output = walk.visit(tree)
    fields: dict[str, Any] = {}
    for name, expr_id in zip(output_names, output, strict=False):
        deps = walk.deps.get(expr_id, set())
        if deps:
            fields[name] = {"inputFields": _plan._input_fields(deps)}
    return ColumnLineageRecord(fields=fields, dataset=_plan._input_fields(walk.dataset))


def lineage_section(sections: dict[str, str]) -> str:
    """The plan text column lineage is traced over: the optimized plan, as in classic mode.

    The optimizer's plan is the one Spark runs, and the one the classic path and the JVM agent
    trace: the filters it infers (a join key is not null, ``a > 1`` on both sides of a join on
    ``a``) are among its ``FILTER`` inputs. A plan over a cached DataFrame is the exception: its
    optimized text holds the cache's physical plan (``InMemoryRelation`` and the scans under it),
    which names no relation; its analysed text still does.
    """
    optimized = sections.get("Optimized Logical Plan", "")
    if optimized and "InMemoryRelation" not in optimized:
        return optimized
    lines = sections.get("Analyzed Logical Plan", "").split("\n")
    if lines and ": " in lines[0] and "#" not in lines[0]:
        lines = lines[1:]  # the schema line of a query's analysed plan
    return "\n".join(lines)


class _PathMatcher:
    """Finds the scanned location of a file relation by its attribute ids."""

    def __init__(self, scans: dict[frozenset[int], DatasetIdentity]) -> None:
        self.scans = scans

    def get(self, ids: frozenset[int]) -> DatasetIdentity | None:
        for scanned, dataset in self.scans.items():
            if scanned <= ids:
                return dataset
        return None
