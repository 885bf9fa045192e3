"""The server's ``EXPLAIN EXTENDED`` text of a statement or a plan, read.

Under Spark Connect the client holds no resolved plan, only the server's text of it: the parsed,
analysed and optimized logical plans and the physical plan, each a tree of one node a line. This
module reads what the adapter needs from that text: the command the server will run, the tables
it names, the tables and file locations its query reads.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from openlineage_sdk.spark.describe._tables import relation_rows

__all__ = [
    "ExplainedStatement",
    "explain_text",
    "location_of",
    "parse_explain",
    "physical_root",
    "plan_sections",
    "same_query",
    "sql_relation",
]


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
    jdbc_relations: list[str] = field(default_factory=list)  # each JDBC relation's table or query
    jdbc_columns: dict[str, Any] = field(default_factory=dict)  # their columns' sources, once known
    cut_paths: list[str] = field(default_factory=list)  # scanned locations cut short: prefixes
    error: str | None = None
    text: str = ""  # the explanation itself
    scans: list[list[str] | None] = field(default_factory=list)
    """Each file scan's locations, in the plan's order; ``None`` for one the text cut short."""
    scan_prefixes: list[str | None] = field(default_factory=list)
    """Each file scan's location as far as the text shows it, when it was cut short."""
    formatted: Callable[[], str] | None = field(default=None, repr=False, compare=False)
    """Asks the server for ``EXPLAIN FORMATTED`` of the same plan (locations in full)."""

    def resolve_cut_scans(self) -> None:
        """Locate the scans the text cut short, from ``EXPLAIN FORMATTED`` (one more request).

        ``EXPLAIN EXTENDED`` cuts each scan's location at ``spark.sql.maxMetadataStringLength``
        characters (100 by default, reached by most paths of a data lake); ``FORMATTED`` lists
        every scan's ``Location`` in full, in the same order. A cut scan takes the formatted
        location at its position when both list as many scans and the location begins with
        what was shown, else the one formatted location that begins so; otherwise it stays
        unlocated.
        """
        if not self.cut_paths or self.formatted is None:
            return
        located = [
            [p for p in match.group(1).split(", ") if p]
            for match in _FORMATTED_LOCATION.finditer(self.formatted())
        ]
        for index, prefix in enumerate(self.scan_prefixes):
            if prefix is None:
                continue
            found: list[str] | None = None
            if len(located) == len(self.scans) and ", ".join(located[index]).startswith(prefix):
                found = located[index]
            else:
                candidates = [loc for loc in located if ", ".join(loc).startswith(prefix)]
                if len(candidates) == 1:
                    found = candidates[0]
            if found:
                self.scans[index] = found
                self.scan_prefixes[index] = None
                self.cut_paths.remove(prefix)
                for path in found:
                    if path not in self.input_paths:
                        self.input_paths.append(path)


_SECTION = re.compile(r"^== (.+?) ==\s*$", re.MULTILINE)
_QUALIFIED = re.compile(r"`(?:[^`]|``)+`(?:\.`(?:[^`]|``)+`)*")
_NODE = re.compile(r"^'?(\w+)")
_RELATION = re.compile(r"(?:^|[\s:+-])Relation ([^\s\[]+)\[")
_UNNAMED_RELATION = re.compile(r"(?:^|[\s:+-])Relation \[")
# A JDBC relation of the analysed plan: "Relation [a#1] JDBCRelation(t) [numPartitions=1]", its
# table or query as Spark holds it ("(query) SPARK_GEN_SUBQ_3" for the query option).
_JDBC_RELATION = re.compile(
    r"(?:^|[\s:+-])Relation \[[^\n]*?\] JDBCRelation\((.*?)\) \[numPartitions=\d+\]", re.DOTALL
)
_HIVE_RELATION = re.compile(r"HiveTableRelation \[(`[^\]]*?`)(?:,|\])")
# A v2 catalog's table: "RelationV2[a#1, b#2] cat.db.t" (names unquoted, as the table names itself).
_RELATION_V2 = re.compile(r"RelationV2\[[^\]]*\] ([^\s,]+)")
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
# A scan's location in ``EXPLAIN FORMATTED``: ``Location: InMemoryFileIndex [file:/a, file:/b]``.
_FORMATTED_LOCATION = re.compile(r"^Location: \w+ \[(.*)\]\s*$", re.MULTILINE)
_HIVE_CTAS = re.compile(r"\[Database: ([^,\]]+), TableName: ([^,\]]+)")
_RESOLVED_IDENTIFIER = re.compile(r"ResolvedIdentifier \S+?\((\w+)\), (\S+)")
_STORAGE_LOCATION = re.compile(r"Storage\(Location: ([^,)]+)")


def plan_sections(text: str) -> dict[str, str]:
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
    sections = plan_sections(text)
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
    if not explained.tables:
        explained.tables.extend(_RELATION_V2.findall(first)[:1])
    body = analyzed.split("\n", 1)[1] if "\n" in analyzed else ""
    resolved = _RESOLVED_IDENTIFIER.search(body)
    if resolved is not None and not explained.tables:
        explained.tables.append(
            ".".join(f"`{p}`" for p in (resolved.group(1), *resolved.group(2).split(".")))
        )
    seen: set[str] = set()
    for name in [
        *_RELATION.findall(body),
        *_HIVE_RELATION.findall(body),
        *_RELATION_V2.findall(body),
    ]:
        if name not in seen:
            seen.add(name)
            explained.input_tables.append(name)
    explained.jdbc_relations = [m.group(1) for m in _JDBC_RELATION.finditer(body)]
    explained.unnamed_inputs = len(_UNNAMED_RELATION.findall(body)) - len(explained.jdbc_relations)
    physical = sections.get("Physical Plan", "")
    for located in _FILE_SCAN.finditer(physical):
        if located.group("paths") is None:
            explained.cut_paths.append(located.group("cut"))  # a prefix is no dataset's name
            explained.scans.append(None)
            explained.scan_prefixes.append(located.group("cut"))
            continue
        paths = [path for path in located.group("paths").split(", ") if path]
        explained.scans.append(paths)
        explained.scan_prefixes.append(None)
        for path in paths:
            if path not in explained.input_paths:
                explained.input_paths.append(path)
    return explained


_PHYSICAL_ROOT = re.compile(r"^(?:\*\(\d+\)\s+)?(\w+)")


def physical_root(text: str) -> str | None:
    """The job-name command of a query's physical plan, as the JVM agent names a read's run.

    The agent names the run of a query that ran in an action after the root of its executed
    plan, a whole-stage codegen wrapper taken off (``*(1) HashAggregate`` is
    ``hash_aggregate``), in snake case: ``CollectLimit 10`` is ``collect_limit``.
    """
    physical = plan_sections(text).get("Physical Plan", "")
    match = _PHYSICAL_ROOT.match(physical.split("\n", 1)[0].strip())
    if match is None:
        return None
    return re.sub(r"(?<!^)(?=[A-Z])", "_", match.group(1)).lower()


def location_of(line: str) -> str | None:
    """The folder an ``INSERT ... DIRECTORY`` or ``InsertIntoHadoopFsRelationCommand`` writes."""
    storage = _STORAGE_LOCATION.search(line)
    if storage is not None:
        return storage.group(1).strip()
    head = line.split(" ", 1)[1] if " " in line else ""
    path = head.split(", ", 1)[0].strip()
    return path or None


def sql_relation(command: Any) -> Any:
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


def explain_text(
    original: Callable[..., Any],
    command: Any,
    query: str | None = None,
    mode: str = "EXTENDED",
) -> str:
    """The server's ``EXPLAIN EXTENDED`` (or ``mode``) of a ``SqlCommand``: same arguments and views.

    With ``query``, of that text in place of the command's (a part of it).
    """
    explain = type(command)()
    explain.CopyFrom(command)
    sql = sql_relation(explain)
    sql.query = f"EXPLAIN {mode} " + (sql.query if query is None else query)
    data, properties, _ = original(explain)
    if data is not None and len(data):
        return str(data.iloc[0, 0])
    rows = relation_rows(properties.get("sql_command_result"))
    if rows:
        return str(rows[0][0])
    raise ValueError("the server sent no explanation")


def _plan_lines(section: str) -> list[str]:
    """A plan section's nodes without their tree marks and attribute ids."""
    lines = []
    for line in section.split("\n"):
        text = line[_TREE_PREFIX.match(line).end() :]  # type: ignore[union-attr]
        if text.strip():
            lines.append(_CTE_ID.sub(r"\1 #", _ATTRIBUTE_ID.sub("#", text)))
    return lines


def same_query(statement: str, query: str) -> bool:
    """Whether ``query``'s explanation analyses the query of ``statement``'s, node for node.

    Both are ``EXPLAIN EXTENDED`` texts: the statement's analysed plan is its command over its
    query; the query's, a schema line over the query. Attribute ids and the numbers of common
    table expressions differ between two explanations and are left out of the comparison.
    """
    command = plan_sections(statement).get("Analyzed Logical Plan", "").split("\n")[1:]
    alone = plan_sections(query).get("Analyzed Logical Plan", "").split("\n")[1:]
    return bool(command) and _plan_lines("\n".join(command)) == _plan_lines("\n".join(alone))


_TREE_PREFIX = re.compile(r"^[ :+\-]*")
_ATTRIBUTE_ID = re.compile(r"#(\d+)L?\b")
_CTE_ID = re.compile(r"\b(CTERelation(?:Def|Ref)) \d+")
