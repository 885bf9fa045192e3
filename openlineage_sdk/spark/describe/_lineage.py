"""Column lineage from a Spark logical plan, read from the plan's JSON form.

Catalyst can write any logical plan as JSON (``TreeNode.toJSON``): the plan's nodes in pre-order,
each with its class, its fields and its expressions, every expression again a pre-order list of
nodes. One call fetches the whole plan, however large, so walking it costs nothing on the JVM and
no round trip per node. This module reads that JSON, with no Spark import at all:

* every attribute is known by its ``exprId``; a leaf relation's attributes depend on the
  relation's columns (``IDENTITY``);
* walking the plan bottom-up, each new attribute (an ``Alias`` in a projection, an aggregation or
  a window, the outputs of a union, an expand or a generator) depends on the attributes its
  expression reads, through the transformation the expression applies on the way;
* filters, join conditions, grouping keys and sort orders change which rows the output holds, so
  what they read becomes dataset-wide lineage (``INDIRECT``: ``FILTER``, ``JOIN``, ``GROUP_BY``,
  ``SORT``); conditions inside an expression (``CASE WHEN``, ``IF``) and window specifications
  affect one field only, so they stay on that field (``INDIRECT``: ``CONDITIONAL``, ``WINDOW``).

A plan node or expression the walk does not know adds no lineage: unknown means left out, never
guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, TypeVar

from openlineage_sdk.models.records import (
    ColumnLineageDatasetFacetField,
    InputField,
    InputFieldTransformation,
)
from openlineage_sdk.spark._execution import ColumnLineageRecord, DatasetIdentity
from openlineage_sdk.spark._safety import checkpoint, schema_size_check

__all__ = [
    "Attribute",
    "LeafColumns",
    "PlanNode",
    "column_lineage",
    "input_fields",
    "leaf_attributes",
    "leaf_nodes",
    "leaf_schema_json",
    "parse_plan",
]

JsonNode = Mapping[str, Any]


# One step of a transformation's description, from the output down to the input (see
# ``describe``): ``(name, text)`` replaces ``name`` by ``text`` in the description so far;
# ``("", text)`` starts it anew with ``text`` (a filter's, join's, grouping's or sort's clause).
Step = tuple[str, str]


class Transform(NamedTuple):
    """A transformation as a hashable value: ``(type, subtype, masking, path)``.

    ``path`` holds the description steps along the way (empty unless descriptions are asked for).
    """

    type: str
    subtype: str
    masking: bool = False
    path: tuple[Step, ...] = ()

    def as_record(self, start: str | None = None) -> InputFieldTransformation:
        record: InputFieldTransformation = {"type": self.type, "subtype": self.subtype}
        if start is not None:
            record["description"] = describe(start, self.path)
        record["masking"] = self.masking
        return record


def describe(start: str, path: Sequence[Step]) -> str:
    """A transformation's description: ``start`` (the output field's name) rewritten by ``path``.

    The JVM agent's form (``columnLineage.descriptionsEnabled``): each step of the way from the
    output to the input replaces the name of the attribute it defines by the SQL text of the
    expression that defines it (``ident`` -> ``t1.a AS ident``), every occurrence of the name in
    the text so far, as Java's ``String.replace`` does; a dataset-wide step (``WHERE ...``,
    ``INNER JOIN ON ...``, ``GROUP BY ...``, ``SORT BY ...``) starts the text anew.
    """
    text = start
    for name, sql in path:
        text = sql if not name else text.replace(name, sql)
    return text


IDENTITY = Transform("DIRECT", "IDENTITY")
TRANSFORMATION = Transform("DIRECT", "TRANSFORMATION")
CONDITIONAL = Transform("INDIRECT", "CONDITIONAL")
_DIRECT_RANK = {"IDENTITY": 0, "TRANSFORMATION": 1, "AGGREGATION": 2}


def combine(outer: Transform, inner: Transform) -> Transform:
    """The transformation of ``outer`` applied to a value that ``inner`` produced.

    Anything indirect on the way makes the whole path indirect (the outer reason wins); direct
    steps keep the strongest of the two (identity < transformation < aggregation). Masking
    anywhere on the path masks the result.
    """
    masking = outer.masking or inner.masking
    path = outer.path + inner.path if inner.path else outer.path
    if outer.type == "INDIRECT":
        return Transform("INDIRECT", outer.subtype, masking, path)
    if inner.type == "INDIRECT":
        return Transform("INDIRECT", inner.subtype, masking, path)
    subtype = max(outer.subtype, inner.subtype, key=lambda s: _DIRECT_RANK.get(s, 1))
    return Transform("DIRECT", subtype, masking, path)


# Expression classes (simple names) that pass a value through unchanged.
_TRANSPARENT = frozenset(
    {
        "Alias",
        "AttributeReference",
        "KnownNotNull",
        "KnownFloatingPointNormalized",
        "KnownNullable",
        "PromotePrecision",
        "OuterReference",
    }
)
# Functions whose output hides the input value: hashes and masks.
_MASKING = frozenset(
    {"Md5", "Sha1", "Sha2", "Crc32", "Murmur3Hash", "XxHash64", "HiveHash", "Mask"}
)
# Aggregate functions that count rather than carry values, which masks them too.
_COUNTING = frozenset({"Count", "CountIf", "HyperLogLogPlusPlus", "CountMinSketchAgg"})


@dataclass(frozen=True)
class Expr:
    """One expression node: its simple class name, its own fields and its children."""

    cls: str
    fields: JsonNode
    children: tuple[Expr, ...]


@dataclass(frozen=True)
class Attribute:
    """A named attribute of a plan (``name#exprId``)."""

    name: str
    expr_id: int


@dataclass(frozen=True)
class PlanNode:
    """One logical plan node; each field's expressions are parsed once, when first asked for."""

    cls: str
    fields: JsonNode
    children: tuple[PlanNode, ...]
    index: int  # position in the plan's pre-order, which matches Catalyst's collectLeaves order
    _parsed: dict[str, list[Expr]] = field(default_factory=dict, compare=False, repr=False)

    def expressions(self, name: str) -> list[Expr]:
        """The expressions in field ``name`` (a single expression or a list of them)."""
        parsed = self._parsed.get(name)
        if parsed is None:
            parsed = self._parsed[name] = _expressions(self.fields.get(name))
        return parsed


_Node = TypeVar("_Node")


def _parse_tree(
    nodes: Sequence[JsonNode],
    start: int,
    make: Callable[[str, JsonNode, tuple[_Node, ...], int], _Node],
) -> tuple[_Node, int]:
    """The tree whose pre-order list starts at ``nodes[start]``, and the position after it.

    Catalyst writes plans and expressions alike as pre-order lists, each node with its
    ``num-children``; ``make(simple class name, fields, children, index)`` builds one node.
    """
    node = nodes[start]
    children: list[_Node] = []
    position = start + 1
    for _ in range(int(node.get("num-children", 0))):
        child, position = _parse_tree(nodes, position, make)
        children.append(child)
    cls = str(node.get("class", "")).rsplit(".", 1)[-1]
    return make(cls, node, tuple(children), start), position


def _make_expr(cls: str, fields: JsonNode, children: tuple[Expr, ...], _index: int) -> Expr:
    return Expr(cls, fields, children)


def _is_expr_list(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and isinstance(value[0], dict)
        and "class" in value[0]
        and "num-children" in value[0]
    )


def _expressions(value: Any) -> list[Expr]:
    """Expressions from a JSON field: one pre-order list, or a list (of lists) of them."""
    if _is_expr_list(value):
        return [_parse_tree(value, 0, _make_expr)[0]]
    result: list[Expr] = []
    if isinstance(value, list):
        for item in value:
            result.extend(_expressions(item))
    return result


def parse_plan(nodes: Sequence[JsonNode]) -> PlanNode:
    """The plan tree of Catalyst's ``toJSON`` output."""
    checkpoint()
    root, end = _parse_tree(nodes, 0, PlanNode)
    if end != len(nodes):
        raise ValueError(f"plan JSON has {len(nodes) - end} nodes past the root's subtree")
    return root


def leaf_nodes(plan: PlanNode) -> list[PlanNode]:
    """The plan's leaves in pre-order, the order of Catalyst's ``collectLeaves``."""
    if not plan.children:
        return [plan]
    leaves: list[PlanNode] = []
    for child in plan.children:
        leaves.extend(leaf_nodes(child))
    return leaves


def _attribute(expr: Expr) -> Attribute | None:
    if expr.cls == "AttributeReference":
        return Attribute(str(expr.fields.get("name")), _expr_id(expr.fields))
    return None


def _expr_id(fields: JsonNode) -> int:
    expr_id = fields.get("exprId")
    if isinstance(expr_id, Mapping):
        return int(expr_id["id"])
    raise ValueError("named expression without an exprId")


def _named_id(expr: Expr) -> int | None:
    """The exprId an output expression defines (an alias) or passes on (an attribute)."""
    if expr.cls in ("Alias", "AttributeReference"):
        return _expr_id(expr.fields)
    return None


# One dependency: (dataset identity, field, transformation).
Dep = tuple[DatasetIdentity, str, Transform]


class PlanText(Protocol):
    """Spark's SQL text (``Expression.sql()``) of a plan node's expressions, for descriptions."""

    def sql(self, node: PlanNode, name: str) -> list[str]:
        """The SQL text of each expression in field ``name`` of ``node``, in order."""
        ...

    def join_type(self, node: PlanNode) -> str:
        """A join's type as SQL (``INNER``, ``LEFT OUTER`` ...)."""
        ...


def _qualified_name(expr: Expr) -> str:
    """A named expression's ``qualifiedName``: its qualifier and name, joined by dots."""
    qualifier = expr.fields.get("qualifier")
    parts = [str(q) for q in qualifier] if isinstance(qualifier, list) else []
    return ".".join([*parts, str(expr.fields.get("name", ""))])


@dataclass
class _Walk:
    deps: dict[int, set[Dep]] = field(default_factory=dict)
    dataset: set[Dep] = field(default_factory=set)
    text: PlanText | None = None

    def refs(self, expr: Expr, path: Transform = IDENTITY) -> set[Dep]:
        """What ``expr`` reads, each dependency through the path's transformation."""
        found: set[Dep] = set()
        for expr_id, how in _references(expr, path):
            for source, column, inner in self.deps.get(expr_id, ()):
                found.add((source, column, combine(how, inner)))
        return found

    def sql(self, node: PlanNode, name: str, count: int) -> list[str] | None:
        """The SQL text of field ``name``'s ``count`` expressions, or None without descriptions."""
        if self.text is None:
            return None
        found = self.text.sql(node, name)
        if len(found) != count:
            raise ValueError(f"{node.cls}.{name}: {len(found)} expressions, {count} in the JSON")
        return found

    def indirect(self, node: PlanNode, name: str, subtype: str) -> None:
        """Dataset-wide lineage: what the expressions of ``node``'s field ``name`` read."""
        exprs = node.expressions(name)
        how = Transform("INDIRECT", subtype)
        texts = self.sql(node, name, len(exprs))
        if texts is not None:
            how = how._replace(path=(("", self._clause(node, subtype, texts)),))
        for expr in exprs:
            self.dataset |= self.refs(expr, how)

    def _clause(self, node: PlanNode, subtype: str, texts: list[str]) -> str:
        """The agent's description of a filter, join, grouping or sort."""
        if subtype == "JOIN":
            assert self.text is not None
            return f"{self.text.join_type(node)} JOIN ON {' AND '.join(texts)}"
        if subtype == "GROUP_BY":
            return "GROUP BY " + ", ".join(texts)
        if subtype == "SORT":
            return "SORT BY " + ";".join(texts)
        return "WHERE " + " AND ".join(texts)


def _is_condition(expr: Expr, index: int) -> bool:
    """Whether child ``index`` of a ``CaseWhen`` or an ``If`` is a condition, not a value.

    An ``If``'s children are (condition, then, else); a ``CaseWhen``'s are the pairs
    (condition, value) of its branches, then its ``ELSE`` value if it has one.
    """
    if expr.cls == "If":
        return index == 0
    branches = len(expr.children) - (1 if expr.fields.get("elseValue") is not None else 0)
    return index < branches and index % 2 == 0


def _references(expr: Expr, path: Transform) -> Iterable[tuple[int, Transform]]:
    """Every attribute ``expr`` reads, with the transformation on the way from the root."""
    if expr.cls == "AttributeReference":
        yield _expr_id(expr.fields), path
        return
    if expr.cls in _TRANSPARENT:
        step = path
    elif expr.cls == "AggregateExpression":
        counting = bool(expr.children) and expr.children[0].cls in _COUNTING
        step = combine(path, Transform("DIRECT", "AGGREGATION", counting))
        for index, child in enumerate(expr.children):
            if index > 0:  # the FILTER (WHERE ...) clause of an aggregate
                yield from _references(child, combine(path, CONDITIONAL))
            else:
                yield from _references(child, step)
        return
    elif expr.cls in _MASKING:
        step = combine(path, Transform("DIRECT", "TRANSFORMATION", True))
    elif expr.cls in ("CaseWhen", "If"):
        for index, child in enumerate(expr.children):
            how = CONDITIONAL if _is_condition(expr, index) else TRANSFORMATION
            yield from _references(child, combine(path, how))
        return
    elif expr.cls == "WindowExpression":
        for index, child in enumerate(expr.children):
            if index == 0:
                yield from _references(child, path)
            else:
                yield from _references(child, combine(path, Transform("INDIRECT", "WINDOW")))
        return
    else:
        # Any other function transforms its arguments. A subquery expression's own plan is not
        # among its children and is not walked: what it reads is left out, never guessed.
        step = combine(path, TRANSFORMATION)
    for child in expr.children:
        yield from _references(child, step)


def _leaf_keys(node: PlanNode) -> tuple[str, ...]:
    """The fields listing a leaf's attributes (an ``Expand``'s too): every column it has."""
    return ("dataCols", "partitionCols") if node.cls == "HiveTableRelation" else ("output",)


def _outputs(node: PlanNode) -> list[int]:
    """The exprIds of a node's output attributes, in order."""
    return [i for e in _output_exprs(node) if (i := _named_id(e)) is not None]


def _output_names(node: PlanNode) -> list[tuple[str, str]]:
    """A node's output attributes as ``(name, qualifiedName)``, in order."""
    return [
        (str(e.fields.get("name", "")), _qualified_name(e))
        for e in _output_exprs(node)
        if _named_id(e) is not None
    ]


def _named(node: PlanNode, *keys: str) -> list[Expr]:
    return [e for key in keys for e in node.expressions(key) if _named_id(e) is not None]


def _output_exprs(node: PlanNode) -> list[Expr]:
    """The named expressions that define a node's output attributes, in order."""
    cls = node.cls
    if cls == "Project":
        return _named(node, "projectList")
    if cls == "Aggregate":
        return _named(node, "aggregateExpressions")
    if cls == "Window":
        child = _output_exprs(node.children[0]) if node.children else []
        return child + _named(node, "windowExpressions")
    if cls == "Join":
        join_type = str(node.fields.get("joinType", {}).get("object", ""))
        left = _output_exprs(node.children[0])
        if "LeftSemi" in join_type or "LeftAnti" in join_type or "ExistenceJoin" in join_type:
            return left
        return left + _output_exprs(node.children[1])
    if cls == "Generate":
        child = _output_exprs(node.children[0]) if node.children else []
        return child + _named(node, "generatorOutput")
    if cls in ("Expand", "MergeRows") or not node.children:
        return _named(node, *_leaf_keys(node))
    return _output_exprs(node.children[0])


def leaf_schema_json(node: PlanNode) -> dict[str, Any]:
    """A leaf relation's columns as Spark's JSON form of a ``StructType``.

    The attributes of a leaf in the analyzed plan are every column of the relation (columns
    are pruned later, by the optimizer), each with its data type in Spark's JSON form.
    """
    fields = [
        {
            "name": str(e.fields["name"]),
            "type": e.fields["dataType"],
            "nullable": bool(e.fields.get("nullable", True)),
            "metadata": e.fields.get("metadata") or {},
        }
        for key in _leaf_keys(node)
        for e in node.expressions(key)
        if e.cls == "AttributeReference"
    ]
    return {"type": "struct", "fields": fields}


def leaf_attributes(node: PlanNode) -> list[Attribute]:
    return [
        a
        for key in _leaf_keys(node)
        for e in node.expressions(key)
        if (a := _attribute(e)) is not None
    ]


LeafColumns = Mapping[int, Mapping[str, Sequence[tuple[DatasetIdentity, str]]]]
"""For leaves whose columns come from other columns (a JDBC query's): column -> sources."""


def _visit(
    node: PlanNode,
    walk: _Walk,
    leaf_datasets: Mapping[int, Sequence[DatasetIdentity]],
    leaf_columns: LeafColumns,
) -> None:
    checkpoint(facets=True)
    for child in node.children:
        _visit(child, walk, leaf_datasets, leaf_columns)
    cls = node.cls
    if not node.children:
        traced = leaf_columns.get(node.index)
        if traced is not None:
            for attribute in leaf_attributes(node):
                for source, column in traced.get(attribute.name, ()):
                    walk.deps.setdefault(attribute.expr_id, set()).add((source, column, IDENTITY))
            return
        for source in leaf_datasets.get(node.index, ()):
            for attribute in leaf_attributes(node):
                walk.deps.setdefault(attribute.expr_id, set()).add(
                    (source, attribute.name, IDENTITY)
                )
        return
    if cls in ("Project", "Aggregate", "Window"):
        key = {"Project": "projectList", "Aggregate": "aggregateExpressions"}.get(
            cls, "windowExpressions"
        )
        exprs = node.expressions(key)
        texts = walk.sql(node, key, len(exprs))
        for position, expr in enumerate(exprs):
            if expr.cls == "Alias":
                how = IDENTITY
                if texts is not None:
                    how = how._replace(path=((_qualified_name(expr), texts[position]),))
                walk.deps[_expr_id(expr.fields)] = walk.refs(expr, how)
        if cls == "Aggregate":
            walk.indirect(node, "groupingExpressions", "GROUP_BY")
    elif cls == "Filter":
        walk.indirect(node, "condition", "FILTER")
    elif cls == "Join":
        walk.indirect(node, "condition", "JOIN")
    elif cls == "Sort":
        walk.indirect(node, "order", "SORT")
    elif cls in ("Union", "Intersect", "Except"):
        _visit_set_operation(node, walk)
    elif cls == "Expand":
        _visit_expand(node, walk)
    elif cls == "MergeRows":
        _visit_merge_rows(node, walk)
    elif cls == "Generate":
        _visit_generate(node, walk)


def _visit_generate(node: PlanNode, walk: _Walk) -> None:
    """``explode`` and its kind: each output column transforms what the generator reads."""
    generators = node.expressions("generator")
    outputs = node.expressions("generatorOutput")
    generated = walk.sql(node, "generator", len(generators))
    texts = walk.sql(node, "generatorOutput", len(outputs))
    for position, output in enumerate(outputs):
        expr_id = _named_id(output)
        if expr_id is None:
            continue
        how = TRANSFORMATION
        if texts is not None and generated:
            how = how._replace(path=((texts[position], generated[0]),))
        found: set[Dep] = set()
        for expr in generators:
            found |= walk.refs(expr, how)
        walk.deps[expr_id] = found


def _visit_set_operation(node: PlanNode, walk: _Walk) -> None:
    child_outputs = [_outputs(child) for child in node.children]
    if node.cls != "Union":
        # Intersect and Except keep the rows of the left side that the right side decides on.
        for other in child_outputs[1:]:
            for expr_id in other:
                walk.dataset |= {
                    (s, c, combine(Transform("INDIRECT", "FILTER"), t))
                    for s, c, t in walk.deps.get(expr_id, ())
                }
        return
    # A union's output attributes are its first child's; each reads every child's column there.
    names = [_output_names(child) for child in node.children] if walk.text is not None else []
    for position, expr_id in enumerate(child_outputs[0]):
        combined = set(walk.deps.get(expr_id, ()))
        for index, other in enumerate(child_outputs[1:], start=1):
            if position < len(other):
                found = walk.deps.get(other[position], set())
                if names and position < len(names[0]) and position < len(names[index]):
                    step = IDENTITY._replace(
                        path=((names[0][position][0], names[index][position][1]),)
                    )
                    found = {(s, c, combine(step, t)) for s, c, t in found}
                combined |= found
        walk.deps[expr_id] = combined


def _visit_merge_rows(node: PlanNode, walk: _Walk) -> None:
    """A MERGE's rows: each output column is, row by row, what one instruction puts there.

    Each instruction (``Keep``, ``Split``, ``Discard``) holds its condition, then one output row
    per kind of row it makes (``Split``: the deleted and the inserted row of an update). As the
    JVM agent traces it, a column depends on the named expressions (columns) instructions put
    at its position; a computed value there adds nothing.
    """
    outputs = _outputs(node)
    count = len(outputs)
    if count == 0:
        return
    merged: dict[int, set[Dep]] = {expr_id: set() for expr_id in outputs}
    for key in ("matchedInstructions", "notMatchedInstructions", "notMatchedBySourceInstructions"):
        for instruction in node.expressions(key):
            values = instruction.children[1:]  # the condition comes first
            for start in range(0, len(values) - count + 1, count):
                for position, expr in enumerate(values[start : start + count]):
                    if expr.cls in ("AttributeReference", "Alias"):
                        merged[outputs[position]] |= walk.refs(expr)
    walk.deps.update(merged)


def _visit_expand(node: PlanNode, walk: _Walk) -> None:
    # ROLLUP and CUBE: each output column is, row by row, one of the projections' columns.
    outputs = _outputs(node)
    projections = node.fields.get("projections")
    rows = projections if isinstance(projections, list) else []
    expanded: dict[int, set[Dep]] = {i: set() for i in outputs}
    for row in rows:
        for position, expr in enumerate(_expressions(row)):
            if position < len(outputs):
                expanded[outputs[position]] |= walk.refs(expr)
    walk.deps.update(expanded)


def column_lineage(
    plan: PlanNode,
    output: Sequence[Attribute],
    leaf_datasets: Mapping[int, Sequence[DatasetIdentity]],
    output_names: Sequence[str] | None = None,
    text: PlanText | None = None,
    leaf_columns: LeafColumns | None = None,
) -> ColumnLineageRecord:
    """The column lineage of ``plan``'s ``output``.

    ``leaf_datasets`` maps a leaf's pre-order ``index`` to the datasets it reads (a file relation
    over several paths reads several). ``output_names`` renames the output fields by position,
    for writes that match columns by position (``insertInto``). With ``text``, each
    transformation carries its description, as the JVM agent writes it (see :func:`describe`).
    ``leaf_columns`` gives, for a leaf whose columns are not its datasets' own columns (a JDBC
    query's), where each of its columns comes from.
    """
    schema_size_check(len(output))
    checkpoint(facets=True)
    walk = _Walk(text=text)
    _visit(plan, walk, leaf_datasets, leaf_columns or {})
    names = list(output_names) if output_names is not None else [a.name for a in output]
    fields: dict[str, ColumnLineageDatasetFacetField] = {}
    described = text is not None
    for position, attribute in enumerate(output):
        if position >= len(names):
            break
        deps = walk.deps.get(attribute.expr_id, set())
        if deps:
            start = names[position] if described else None
            fields[names[position]] = {"inputFields": input_fields(deps, start)}
    dataset = input_fields(walk.dataset, "" if described else None)
    return ColumnLineageRecord(fields=fields, dataset=dataset)


def input_fields(deps: Iterable[Dep], start: str | None = None) -> list[InputField]:
    """Dependencies grouped by input field; with ``start``, each transformation described."""
    grouped: dict[tuple[str, str, str], set[Transform]] = {}
    for source, column, how in deps:
        grouped.setdefault((source.namespace, source.name, column), set()).add(how)
    fields: list[InputField] = []
    for (namespace, name, column), hows in sorted(grouped.items()):
        records: list[InputFieldTransformation] = []
        for how in sorted(hows):
            record = how.as_record(start)
            if record not in records:  # two paths may read the same
                records.append(record)
        fields.append(
            {"namespace": namespace, "name": name, "field": column, "transformations": records}
        )
    return fields


def root_output(nodes: Sequence[JsonNode]) -> tuple[list[Attribute], PlanNode]:
    """Split the JSON of ``Project(plan.output, plan)`` into the output and the plan itself.

    Wrapping the plan in a projection of its own output puts the output attributes (names and
    exprIds) in the same JSON as the plan, so one call fetches both.
    """
    wrapper = parse_plan(nodes)
    if wrapper.cls != "Project" or len(wrapper.children) != 1:
        raise ValueError("expected Project(output, plan)")
    output = [a for e in wrapper.expressions("projectList") if (a := _attribute(e)) is not None]
    return output, wrapper.children[0]
