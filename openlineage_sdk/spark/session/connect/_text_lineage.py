"""Column lineage from the server's plan text, under Spark Connect.

The client cannot have the plan's tree, only the server's text of it. The optimized plan's text
names every attribute with its id (``a#21``, ``(a + 1)#23``, ``id#0L``), every ``expr AS
name#id`` that defines one, and the relations the leaves read; that is enough for the lineage of
each output column, traced the way the classic path traces the plan's tree
(``describe._lineage``): IDENTITY through aliases, TRANSFORMATION through expressions and
generators, AGGREGATION through aggregate functions, and the columns of filters, joins, groupings
and sorts as dataset-wide INDIRECT lineage.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from openlineage_sdk.spark._execution import ColumnLineageRecord, DatasetIdentity
from openlineage_sdk.spark._safety import checkpoint, schema_size_check
from openlineage_sdk.spark.describe import _lineage
from openlineage_sdk.spark.session.connect._explain import (
    _ATTRIBUTE_ID,
    _FILE_SCAN,
    _HIVE_RELATION,
    _MORE_FIELDS,
    _NODE,
    _RELATION,
    _TREE_PREFIX,
    plan_sections,
)
from openlineage_sdk.spark.session.connect._plan import relations

__all__ = ["STAND_IN_FORMATS", "jdbc_stand_ins", "lineage_section", "text_column_lineage"]

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
_JDBC_LEAF = re.compile(r"JDBCRelation\((.*?)\) \[numPartitions=\d+\]", re.DOTALL)
JdbcColumns = dict[str, dict[str, list[tuple[DatasetIdentity, str]]]]
"""Each JDBC relation's columns (by the table or query the plan shows) and their sources."""
_INDIRECT_NODES = {"Filter": "FILTER", "Join": "JOIN", "Sort": "SORT"}
# The empty relations a plan's JDBC reads are explained as (``jdbc_stand_ins``): file formats
# whose relation, given a schema and no path, lists nothing and infers nothing (no job, no I/O).
STAND_IN_FORMATS = ("parquet", "orc", "json")
# A stand-in's leaf in the plan's text: "Relation [a#1,b#2] parquet" (no table name, no path).
_STAND_IN_LEAF = re.compile(r"^Relation \[([^\]\n]*)\] (\w+)$")


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
        self,
        leaf_datasets: dict[str, DatasetIdentity],
        path_datasets: dict[frozenset[int], Any],
        jdbc_columns: JdbcColumns | None = None,
    ) -> None:
        self._plan = _lineage
        self.jdbc_columns = jdbc_columns or {}
        self.deps: dict[int, set[Any]] = {}
        self.dataset: set[Any] = set()
        self.leaf_datasets = leaf_datasets
        self.path_datasets = path_datasets
        self.cte_outputs: dict[int, list[int]] = {}  # each CTERelationDef's output, by number

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
        if name in ("WithCTE", "CTERelationDef", "CTERelationRef"):
            return self._cte(name, text, outputs)
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

    def _cte(self, name: str, text: str, outputs: list[list[int]]) -> list[int]:
        """A plan that keeps its common table expressions (a CTAS's, analysed only).

        ``WithCTE`` holds each ``CTERelationDef N`` first and the query last: its output is the
        query's. A ``CTERelationRef N, ..., [a#1, b#2]`` reads definition ``N``'s output, column
        by column (with ids of its own where the query reads the definition twice).
        """
        if name == "WithCTE":
            return outputs[-1] if outputs else []
        number = re.match(r"\w+ (\d+)", text)
        if name == "CTERelationDef":
            defined = outputs[0] if outputs else []
            if number is not None:
                self.cte_outputs[int(number.group(1))] = defined
            return defined
        listed = _bracketed(text)
        ids = [
            int(bare.group(1))
            for item in _split_list(listed[0] if listed else "")
            if (bare := _BARE.match(item)) is not None
        ]
        defined = self.cte_outputs.get(int(number.group(1)), []) if number else []
        for ref_id, def_id in zip(ids, defined, strict=False):
            if ref_id != def_id:
                self.deps[ref_id] = set(self.deps.get(def_id, set()))
        return ids

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
        stand_in = _STAND_IN_LEAF.match(text) if node.name == "Relation" else None
        if stand_in is not None:
            traced_in = self.jdbc_columns.get(
                _stand_in_key(stand_in.group(2), [column for column, _ in attributes])
            )
            if traced_in is not None:  # a JDBC read, explained as an empty relation of its schema
                for column, expr_id in attributes:
                    self.deps[expr_id] = {
                        (table, name, self._plan.IDENTITY)
                        for table, name in traced_in.get(column, ())
                    }
                return [i for _, i in attributes]
        jdbc = _JDBC_LEAF.search(text) if node.name == "Relation" else None
        if jdbc is not None:
            # A JDBC query's columns come from its tables' columns, as the parser traced them.
            traced = self.jdbc_columns.get(jdbc.group(1), {})
            for column, expr_id in attributes:
                self.deps[expr_id] = {
                    (table, name, self._plan.IDENTITY) for table, name in traced.get(column, ())
                }
            return [i for _, i in attributes]
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
    scans: list[list[str] | None] | None = None,
    jdbc_columns: JdbcColumns | None = None,
) -> Any:
    """The column lineage of a query from the server's ``EXPLAIN EXTENDED`` text.

    ``tables`` maps each relation's name as the plan shows it (``spark_catalog.default.t``) to
    its dataset, ``paths`` each scanned location to its dataset; ``scans`` the locations of
    each file scan in order, where they are known in full though the text cut them short.
    ``jdbc_columns`` traces each JDBC relation's columns to its tables' (``describe._jdbc``).
    Returns a ``ColumnLineageRecord``, or ``None`` when the plan's text cannot be read as one
    tree.
    """
    schema_size_check(len(output_names))
    checkpoint(facets=True)
    _plan = _lineage
    sections = plan_sections(text)
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
    for index, scan in enumerate(_FILE_SCAN.finditer(sections.get("Physical Plan", ""))):
        known = scans[index] if scans is not None and index < len(scans) else None
        if scan.group("paths") is None and known is not None and len(known) == 1:
            located = paths.get(known[0])
        else:
            located = paths.get(scan.group("paths") or scan.group("cut"))
        ids = frozenset(int(i) for i in _ATTRIBUTE_ID.findall(scan.group("attributes")))
        if located is not None and ids:
            by_attributes[ids] = located
    walk = _TextLineage(tables, {}, jdbc_columns)
    # A file relation's attributes in the logical plan are all of its columns; the scan lists
    # those it reads. The relation is the scan's when the scan's attributes are all its own.
    walk.path_datasets = _PathMatcher(by_attributes)  # type: ignore[assignment]
    output = walk.visit(tree)
    fields: dict[str, Any] = {}
    for name, expr_id in zip(output_names, output, strict=False):
        deps = walk.deps.get(expr_id, set())
        if deps:
            fields[name] = {"inputFields": _plan.input_fields(deps)}
    return ColumnLineageRecord(fields=fields, dataset=_plan.input_fields(walk.dataset))


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


def _stand_in_key(file_format: str, names: list[str]) -> str:
    return f"{file_format}[{','.join(names)}]"


def jdbc_stand_ins(
    relation: Any,
    resolved: Callable[[dict[str, str]], tuple[Any, dict[str, list[Any]]] | None],
) -> tuple[Any, JdbcColumns] | None:
    """A copy of a client plan whose JDBC reads are empty relations of their schemas.

    A DataFrame's JDBC read is not sent to the server to be explained: the server would open a
    connection to the database to resolve it. In the copy each JDBC read is a file relation
    with the read's schema and no path (``STAND_IN_FORMATS``), which the server analyses and
    optimizes as it would the JDBC relation (the same attributes, filters and joins over it)
    without any I/O; its leaf in the plan's text is traced to the read's columns.

    Args:
        relation: The client plan's root relation (``spark.connect.Relation``); not changed.
        resolved: For a JDBC read's options, its schema (a ``StructType``) and where each of
            its columns comes from (``JdbcRead.columns``), or ``None`` when not known.

    Returns:
        The copy and, by each stand-in's leaf as the plan's text shows it, its columns'
        sources; ``None`` when a JDBC read is not resolved or the stand-ins cannot be told apart
        (the copy would not be explained without a connection, or traced right).
    """
    copy = type(relation)()
    copy.CopyFrom(relation)
    reads = [
        node
        for node in relations(copy)
        if node.WhichOneof("rel_type") == "read" and node.read.HasField("data_source")
    ]
    jdbc = [node for node in reads if node.read.data_source.format.lower() == "jdbc"]
    # A file read by path with a declared schema shows as "Relation [..] parquet" too.
    taken = {node.read.data_source.format.lower() for node in reads if node not in jdbc}
    columns: JdbcColumns = {}
    for node in jdbc:
        source = node.read.data_source
        found = resolved(dict(source.options))
        if found is None:
            return None
        schema, traced = found
        names = list(schema.fieldNames())
        key = next(
            (
                _stand_in_key(f, names)
                for f in STAND_IN_FORMATS
                if f not in taken and _stand_in_key(f, names) not in columns
            ),
            None,
        )
        if key is None:
            return None
        columns[key] = traced
        source.Clear()
        source.format = key.split("[", 1)[0]
        source.schema = schema.json()
    return copy, columns
