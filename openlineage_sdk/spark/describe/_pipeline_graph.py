"""Spark Declarative Pipelines: what a pipeline's SQL files define, and what its events say.

A pipeline (``pyspark.pipelines``, ``spark-pipelines run``) is a graph of datasets and flows that
a Spark Connect server runs. The client registers the graph: Python definitions as flows with
their query's plan (``DefineFlow``), SQL files as text (``DefineSqlGraphElements``), which the
server parses itself. This module reads what a SQL file defines (:func:`sql_definitions`), in
the few statement forms the pipeline SQL has:

* ``CREATE [OR REFRESH] MATERIALIZED VIEW name ... AS query``: a flow of the same name into it;
* ``CREATE [OR REFRESH] STREAMING TABLE name ... [AS query]``: the same, streaming;
* ``CREATE FLOW name AS INSERT INTO target [BY NAME] query``: a flow into another dataset;
* ``CREATE [TEMPORARY] VIEW name AS query``: a view the graph's flows read.

While the pipeline runs, the server sends the client its events as messages (``Flow x is
RUNNING.``, ``Flow 'x' has FAILED.`` with the error, ``Run is COMPLETED.``):
:func:`flow_event` and :func:`run_event` read them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "SqlDefinition",
    "flow_event",
    "query_tables",
    "run_event",
    "split_statements",
    "sql_definitions",
    "unquoted",
]

DefinitionKind = Literal["materialized_view", "streaming_table", "flow", "view"]


@dataclass(frozen=True)
class SqlDefinition:
    """One dataset-and-flow (or flow, or view) a pipeline SQL file defines.

    Attributes:
        kind: What the statement creates.
        name: The flow's name (a materialized view's or streaming table's own).
        target: The dataset the flow writes (its own name but for ``CREATE FLOW``).
        query: The flow's query, ``None`` for a streaming table filled by flows of its own.
        line: The statement's first line in the file (1-based).
        text: The statement.
        streaming: Whether the flow streams (a streaming table, or ``STREAM`` in its query).
    """

    kind: DefinitionKind
    name: str
    target: str
    query: str | None
    line: int
    text: str
    streaming: bool


def split_statements(text: str) -> list[tuple[int, str]]:
    """The statements of a SQL file with their first lines, split at top-level ``;``.

    Semicolons in quotes, backquotes and comments do not split.
    """
    statements: list[tuple[int, str]] = []
    start = 0
    index = 0
    length = len(text)
    quote: str | None = None
    while index < length:
        char = text[index]
        if quote is not None:
            if char == "\\" and quote != "`":
                index += 2
                continue
            if char == quote:
                quote = None
        elif char in ("'", '"', "`"):
            quote = char
        elif text.startswith("--", index):
            end = text.find("\n", index)
            index = length if end < 0 else end
            continue
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            index = length if end < 0 else end + 2
            continue
        elif char == ";":
            _add_statement(statements, text, start, index)
            start = index + 1
        index += 1
    _add_statement(statements, text, start, length)
    return statements


_NOISE = re.compile(r"\A(?:\s+|--[^\n]*(?:\n|\Z)|/\*.*?\*/)*", re.DOTALL)


def _add_statement(statements: list[tuple[int, str]], text: str, start: int, end: int) -> None:
    piece = text[start:end]
    skipped = _NOISE.match(piece)
    offset = skipped.end() if skipped else 0
    statement = piece[offset:].strip()
    if statement:
        statements.append((text.count("\n", 0, start + offset) + 1, statement))


_NAME = r"(?P<name>(?:`[^`]+`|[\w$]+)(?:\s*\.\s*(?:`[^`]+`|[\w$]+))*)"
_TARGET = _NAME.replace("?P<name>", "?P<target>")
_MATERIALIZED = re.compile(
    r"CREATE\s+(?:OR\s+REFRESH\s+)?(?:PRIVATE\s+)?MATERIALIZED\s+VIEW\s+(?:IF\s+NOT\s+EXISTS\s+)?"
    + _NAME,
    re.IGNORECASE,
)
_STREAMING = re.compile(
    r"CREATE\s+(?:OR\s+REFRESH\s+)?(?:PRIVATE\s+)?STREAMING\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"
    + _NAME,
    re.IGNORECASE,
)
_FLOW = re.compile(
    r"CREATE\s+FLOW\s+"
    + _NAME
    + r"[\s\S]*?\bAS\s+INSERT\s+INTO\s+"
    + _TARGET
    + r"(?:\s+BY\s+NAME)?\s+",
    re.IGNORECASE,
)
_VIEW = re.compile(
    r"CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMPORARY\s+|TEMP\s+|PERSISTED\s+)?VIEW\s+"
    r"(?:IF\s+NOT\s+EXISTS\s+)?" + _NAME,
    re.IGNORECASE,
)
_AS_QUERY = re.compile(r"\bAS\b\s*(?=\(|(?:SELECT|VALUES|WITH|FROM|TABLE)\b)", re.IGNORECASE)
_STREAM_READ = re.compile(r"\bSTREAM\b\s*(?:\(|`|[\w$])", re.IGNORECASE)


def unquoted(name: str) -> str:
    """A possibly quoted, possibly qualified name without its backquotes and blanks."""
    parts = re.findall(r"`([^`]+)`|([\w$]+)", name)
    return ".".join(quoted or plain for quoted, plain in parts)


def sql_definitions(text: str) -> list[SqlDefinition]:
    """What a pipeline SQL file defines, statement by statement (others are left out)."""
    found: list[SqlDefinition] = []
    for line, statement in split_statements(text):
        flow = _FLOW.match(statement)
        if flow is not None:
            query = statement[flow.end() :].strip() or None
            found.append(
                SqlDefinition(
                    "flow",
                    unquoted(flow.group("name")),
                    unquoted(flow.group("target")),
                    query,
                    line,
                    statement,
                    query is not None and _STREAM_READ.search(query) is not None,
                )
            )
            continue
        for pattern, kind in (
            (_MATERIALIZED, "materialized_view"),
            (_STREAMING, "streaming_table"),
            (_VIEW, "view"),
        ):
            head = pattern.match(statement)
            if head is None:
                continue
            name = unquoted(head.group("name"))
            body = _AS_QUERY.search(statement, head.end())
            query = statement[body.end() :].strip() if body is not None else None
            streaming = kind == "streaming_table" or (
                query is not None and _STREAM_READ.search(query) is not None
            )
            found.append(
                SqlDefinition(kind, name, name, query, line, statement, streaming)  # type: ignore[arg-type]
            )
            break
    return found


_TABLE_REFERENCE = re.compile(
    r"\b(?:FROM|JOIN)\s+(?:STREAM\s*\(\s*"
    + _NAME
    + r"\s*\)|STREAM\s+"
    + _NAME.replace("?P<name>", "?P<stream>")
    + r"|"
    + _NAME.replace("?P<name>", "?P<plain>")
    + r")",
    re.IGNORECASE,
)
_CTE = re.compile(r"(?:\bWITH\b|,)\s*(?P<cte>[\w$]+)\s+AS\s*\(", re.IGNORECASE)
_NOT_TABLES = {"select", "values", "lateral", "unnest", "stream"}


def query_tables(query: str) -> list[str]:
    """The tables a query's ``FROM`` and ``JOIN`` clauses name (its CTEs left out).

    What the adapter falls back on when the server cannot analyse a flow's query (it reads a
    view of the pipeline's own, which only the pipeline knows).
    """
    ctes = {m.group("cte").lower() for m in _CTE.finditer(query)}
    names: list[str] = []
    for match in _TABLE_REFERENCE.finditer(query):
        raw = match.group("name") or match.group("stream") or match.group("plain")
        name = unquoted(raw)
        if name.lower() in ctes or name.lower() in _NOT_TABLES:
            continue
        if name not in names:
            names.append(name)
    return names


_FLOW_EVENT = re.compile(
    r"^Flow\s+'?(?P<flow>[^'\s][^']*?)'?\s+(?:is|has)\s+(?P<state>[A-Z]+)\b\.?(?P<detail>.*)\Z",
    re.DOTALL,
)
_RUN_EVENT = re.compile(r"^Run\s+(?:is|has)\s+(?P<state>[A-Z]+)\b(?P<detail>.*)\Z", re.DOTALL)


def flow_event(message: str) -> tuple[str, str, str] | None:
    """``(flow, state, detail)`` of a flow's progress message; ``None`` for another message.

    ``detail`` is what follows the state (a failure's error), stripped.
    """
    found = _FLOW_EVENT.match(message.strip())
    if found is None:
        return None
    return found.group("flow"), found.group("state"), found.group("detail").strip()


def run_event(message: str) -> tuple[str, str] | None:
    """``(state, detail)`` of the pipeline run's own message (``Run is COMPLETED.``)."""
    found = _RUN_EVENT.match(message.strip())
    if found is None:
        return None
    return found.group("state"), found.group("detail").strip(" .")
