"""SQL statement text: what a statement may do, read from its words before any plan.

Classic PySpark and Spark Connect both decide from the text alone whether a statement can write
a dataset (and is worth asking Spark about), whether it is an ``INSERT`` into a table (described
beside its run), and where the query of a CTAS or an ``INSERT OVERWRITE DIRECTORY`` starts.
Nothing here parses SQL in full: each answer is checked against Spark's own plan by its caller.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = [
    "PATH_QUERY",
    "described_beside",
    "directory_query",
    "insert_table",
    "is_insert_overwrite",
    "may_write",
    "path_relations",
    "statement_start",
    "table_query",
]

_LEADING_NOISE = re.compile(r"\A(?:\s+|--[^\n]*(?:\n|\Z)|/\*.*?\*/)*", re.DOTALL)
_FIRST_WORDS = re.compile(r"[A-Za-z]+")
_WRITING = re.compile(
    r"(?:INSERT|LOAD|TRUNCATE|MERGE|UPDATE|DELETE|REPLACE|MSCK|REPAIR\s+TABLE"
    r"|DROP\s+TABLE|ALTER\s+TABLE"
    r"|CREATE\s+(?:OR\s+REPLACE\s+)?(?:EXTERNAL\s+)?TABLE)\b",
    re.IGNORECASE,
)
# A relation that reads files by path: ``parquet.`/data/x```.
PATH_QUERY = re.compile(r"\b\w+\s*\.\s*`[^`]*[/:][^`]*`")
# What a statement that reads files by path (``parquet.`/data/x```) is reported with.
_PATH_STATEMENT = (
    "statement: it reads files by path, and asking the server what it reads and writes would "
    "run a Spark job (the files' schema inference): its datasets are left out"
)
# What ``_connect.client_plan_reads`` notes for a plan with SQL in it.
_INSERT_OVERWRITE = re.compile(r"INSERT\s+OVERWRITE\b", re.IGNORECASE)
# Statements explained beside their own run: an INSERT into a table reads the same catalog, and
# its explanation says the same, before, while and after it runs. (Not a directory: the server
# may infer the schema of files the statement is replacing.)
_EXPLAINED_BESIDE = re.compile(
    r"INSERT\s+(?:INTO|OVERWRITE)\s+(?!(?:LOCAL\s+)?DIRECTORY\b)", re.IGNORECASE
)


def described_beside(text: str) -> bool:
    """Whether ``text`` is an ``INSERT`` into a table, which is described beside its run."""
    return _EXPLAINED_BESIDE.match(statement_start(text)) is not None


def statement_start(text: str) -> str:
    """The statement with leading blanks and comments removed."""
    return text[_LEADING_NOISE.match(text).end() :]  # type: ignore[union-attr]


def may_write(text: str) -> bool:
    """Whether a SQL statement can write a dataset, by its first words alone.

    ``SELECT``, ``SET``, ``SHOW``, ``DESCRIBE``, ``USE``, ``CACHE``, views, functions and
    databases cannot, and are not asked about. A statement that starts with a query's
    ``WITH`` or ``FROM`` may still be an ``INSERT`` (``WITH t AS (...) INSERT INTO ...``, Hive's
    ``FROM src INSERT INTO ...``).
    """
    start = statement_start(text)
    if _WRITING.match(start) is not None:
        return True
    return _QUERY_FIRST.match(start) is not None and _INSERT_ANYWHERE.search(start) is not None


_QUERY_FIRST = re.compile(r"(?:WITH|FROM)\b", re.IGNORECASE)
_INSERT_ANYWHERE = re.compile(r"\bINSERT\s+(?:INTO|OVERWRITE)\b", re.IGNORECASE)


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
    start = statement_start(text)
    head = _TABLE_HEAD.match(start)
    if head is None:
        return None
    for index in _top_level(start, head.end()):
        found = _AS_QUERY.match(start, index)
        if found is not None:
            return start[found.end() :].strip() or None
    return None


def _spaces(text: str, index: int) -> int:
    return len(text[index:]) - len(text[index:].lstrip())


def is_insert_overwrite(text: str) -> bool:
    """Whether a statement starts with ``INSERT OVERWRITE``."""
    return _INSERT_OVERWRITE.match(statement_start(text)) is not None


_PATH_RELATION = re.compile(r"\b(?P<format>\w+)\s*\.\s*`(?P<path>[^`]*[/:][^`]*)`")
_INSERT_TABLE = re.compile(
    r"INSERT\s+(?:INTO|OVERWRITE)\s+(?:TABLE\s+)?(?!(?:LOCAL\s+)?DIRECTORY\b)"
    r"(?P<name>(?:`(?:[^`]|``)+`|\w+)(?:\s*\.\s*(?:`(?:[^`]|``)+`|\w+))*)",
    re.IGNORECASE,
)


def path_relations(text: str) -> list[tuple[str, str]]:
    """The ``(format, path)`` of each relation that reads files by path (``parquet.`/x```)."""
    return [(m.group("format"), m.group("path")) for m in _PATH_RELATION.finditer(text)]


def insert_table(text: str) -> str | None:
    """The table an ``INSERT INTO`` or ``INSERT OVERWRITE`` statement writes, as written."""
    match = _INSERT_TABLE.match(statement_start(text))
    return re.sub(r"\s+", "", match.group("name")) if match is not None else None
