"""Classic PySpark: what the driver's JVM knows, read through py4j.

Only code in this module (and ``_rdd``, for RDDs) touches the JVM, and only in classic mode
(under Spark Connect there is no JVM on the client). It reads three things:

* the writer's settings (``source`` and options), which the JVM ``DataFrameWriter`` keeps;
* the DataFrame's analyzed logical plan, fetched as JSON (written on the JVM side and read in
  pieces that each fit one py4j answer: see :func:`jvm_json`), and the relations at its
  leaves (file locations, catalog tables, JDBC tables), for inputs; its optimized plan, the same
  way, for column lineage (and, when asked, Spark's SQL text of its expressions);
* the metrics of the write command itself (rows, bytes and files written, and what each file
  scan read), delivered by a ``QueryExecutionListener`` after the command ran.

Why a listener: the write command's ``QueryExecution`` is created and dropped inside the JVM
``DataFrameWriter``; nothing hands it back to Python. Spark gives it to the session's
``QueryExecutionListener``s, on the listener bus, once the command finished, with its metrics
already summed from every task, on every executor, by Spark itself. Reading them costs a handful
of calls on the driver and no Spark job, and works on a cluster exactly as in local mode. The
listener is a Python object the JVM calls back through py4j's callback server, which PySpark
also uses for streaming listeners; it exists in classic mode only.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from openlineage_sdk.models.records import SchemaDatasetFacetFields
from openlineage_sdk.spark._plan import (
    Attribute,
    PlanNode,
    column_lineage,
    leaf_attributes,
    leaf_nodes,
    leaf_schema_json,
    root_output,
)
from openlineage_sdk.spark._records import ColumnLineageRecord, DatasetIdentity, IoStats
from openlineage_sdk.spark._schema import schema_fields
from openlineage_sdk.spark._tables import TableInfo, table_identity

__all__ = [
    "CommandMetrics",
    "WriteMetricsListener",
    "jvm_writer_settings",
    "logical_plan_extraction",
    "plan_inputs_and_lineage",
]

log = logging.getLogger("openlineage_sdk.spark")

# Upper bound on physical plan nodes visited for scan metrics, so a huge plan costs bounded time.
_MAX_PLAN_NODES = 400


class _JvmClasses:
    """JVM classes the adapter calls, looked up once.

    Each step of a py4j package path (``jvm.scala.jdk...``) is a round trip to the JVM, so a
    class is resolved once per gateway rather than on every use.
    """

    _cache: dict[int, _JvmClasses] = {}  # noqa: RUF012 - a process-wide cache by gateway

    def __init__(self, jvm: Any) -> None:
        # A static method, held: each lookup of a member of a class is a round trip of its own.
        self.as_java = jvm.scala.jdk.javaapi.CollectionConverters.asJava
        self.project = jvm.org.apache.spark.sql.catalyst.plans.logical.Project
        self.hadoop_path = jvm.org.apache.hadoop.fs.Path
        self.string_writer = jvm.java.io.StringWriter
        # Plan a statement without running it (``QueryExecution``'s command execution mode).
        self.skip = jvm.org.apache.spark.sql.execution.CommandExecutionMode.SKIP()
        self._jvm = jvm
        self._json_writer: Any = None

    def json_writer(self) -> Any:
        """Spark's own JSON writer (json4s on Jackson) set to write ASCII only."""
        if self._json_writer is None:
            jvm = self._jvm
            methods = getattr(jvm.org.json4s.jackson, "JsonMethods$").__getattr__("MODULE$")
            features = jvm.com.fasterxml.jackson.core.json.JsonWriteFeature
            ascii_only = features.ESCAPE_NON_ASCII.mappedFeature()
            self._json_writer = getattr(methods.mapper().writer(), "with")(ascii_only)
        return self._json_writer

    @classmethod
    def of(cls, jvm: Any) -> _JvmClasses:
        found = cls._cache.get(id(jvm))
        if found is None:
            found = cls._cache[id(jvm)] = cls(jvm)
        return found


# Characters per piece of a long text read from the JVM: all ASCII, at most two bytes each once
# py4j escapes them, so a piece and its line's framing fit py4j's 8 KiB write buffer.
_PIECE = 4000


def jvm_json(jvm: Any, value: Any, fallback: Callable[[], str]) -> str:
    """The JSON text of a JVM plan node or data type (what its ``toJSON`` or ``json`` gives).

    py4j sends each answer as one line through an 8 KiB buffer. A longer answer leaves in two
    writes, and the second waits for the peer to acknowledge the first, which the Python side
    delays (Nagle's algorithm against delayed ACKs): measured, every answer over 8 KiB took
    44 ms more, whatever its length, and a plan's JSON passes 8 KiB soon (a four-column
    ``INSERT ... SELECT ... WHERE``: 9.3 KB). So the JSON is written on the JVM side, into a
    buffer, in ASCII (other characters as ``\\u`` escapes, which JSON reads back as they
    were), and read in pieces that each fit one write. ``fallback`` (the one long answer) is
    used if that fails.
    """
    try:
        classes = _JvmClasses.of(jvm)
        writer = classes.string_writer()
        classes.json_writer().writeValue(writer, value.jsonValue())
        buffer = writer.getBuffer()
        size = int(buffer.length())
        return "".join(
            str(buffer.substring(start, min(start + _PIECE, size)))
            for start in range(0, size, _PIECE)
        )
    except Exception as error:  # another json4s or Jackson than this Spark's
        log.debug("openlineage: JSON in pieces failed, read whole: %s", error)
        return fallback()


def frame_schema(df: Any) -> Any:
    """``df.schema``; for a classic DataFrame, its JSON read in pieces (see :func:`jvm_json`).

    PySpark fetches a classic DataFrame's schema as one JSON answer, which for a wide table is
    longer than 8 KiB. A schema the DataFrame already holds is taken as it is.
    """
    from pyspark.sql.types import StructType

    held = getattr(df, "__dict__", {})
    jdf = held.get("_jdf")
    if "schema" in held or jdf is None:
        return df.schema
    jschema = jdf.schema()
    text = jvm_json(df.sparkSession._jvm, jschema, jschema.json)
    return StructType.fromJson(json.loads(text))


def _as_list(jvm: Any, seq: Any) -> list[Any]:
    """A Scala ``Seq`` as a Python list.

    Indexing by ``size()`` rather than iterating the py4j list proxy: the proxy finds the end
    of a list by provoking an exception in the JVM, which alone costs some 20 ms.
    """
    java_list = _JvmClasses.of(jvm).as_java(seq)
    return [java_list.get(i) for i in range(java_list.size())]


def path_uri(hadoop_path: Any) -> str:
    """A Hadoop ``Path`` as a URI string, its path percent-encoded (``java.net.URI``'s form).

    ``Path.toString()`` writes the path as it is, so a ``#``, ``?`` or ``%`` in a file's name
    would read as a URL's fragment, query or escape; the naming module decodes the URI's path
    back to the name Spark means.
    """
    return str(hadoop_path.toUri().toString())


def qualify_path(spark: Any, path: str) -> str:
    """``path`` made absolute, with the scheme and authority of its file system (on the driver).

    Hadoop resolves a path without a scheme against ``fs.defaultFS``: HDFS on most clusters.
    The result is a URI (see :func:`path_uri`).
    """
    hadoop_path = _JvmClasses.of(spark._jvm).hadoop_path(path)
    conf = spark._jsc.hadoopConfiguration()
    return path_uri(hadoop_path.getFileSystem(conf).makeQualified(hadoop_path))


def _option(value: Any) -> Any:
    return value.get() if value.isDefined() else None


def jvm_writer_settings(jwrite: Any) -> tuple[str | None, dict[str, str]]:
    """``(source, options)`` of a JVM ``DataFrameWriter``.

    They are protected members of Spark's writer, which Scala compiles to public accessors.
    """
    source = jwrite.source()
    options: dict[str, str] = {}
    iterator = jwrite.extraOptions().iterator()
    while iterator.hasNext():
        pair = iterator.next()
        options[str(pair._1())] = str(pair._2())
    return (str(source) if source is not None else None), options


# ---------------------------------------------------------------------------------------- inputs


@dataclass
class LeafDatasets:
    """The datasets each leaf of a plan reads, by the leaf's pre-order index."""

    by_leaf: dict[int, list[DatasetIdentity]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def all(self) -> list[DatasetIdentity]:
        seen: dict[tuple[str, str], DatasetIdentity] = {}
        for identities in self.by_leaf.values():
            for identity in identities:
                seen.setdefault((identity.namespace, identity.name), identity)
        return list(seen.values())


def _catalog_table_info(table: Any) -> TableInfo:
    ident = table.identifier()
    location = _option(table.storage().locationUri())  # a java.net.URI: its path is encoded
    return TableInfo(
        database=_option(ident.database()),
        table=str(ident.table()),
        location=str(location) if location is not None else None,
    )


def leaf_identities(jvm: Any, leaf: Any, hive_metastore: str | None) -> list[DatasetIdentity]:
    """The datasets one leaf relation of a logical plan reads."""
    name = leaf.getClass().getSimpleName()
    if name == "HiveTableRelation":
        return [table_identity(_catalog_table_info(leaf.tableMeta()), hive_metastore)]
    if name == "LogicalRelation":
        table = _option(leaf.catalogTable())
        if table is not None:
            return [table_identity(_catalog_table_info(table), hive_metastore)]
        relation = leaf.relation()
        relation_name = relation.getClass().getSimpleName()
        if relation_name == "HadoopFsRelation":
            paths = _as_list(jvm, relation.location().rootPaths())
            return [DatasetIdentity.from_uri(path_uri(p)) for p in paths]
        if relation_name == "JDBCRelation":
            options = relation.jdbcOptions()
            return [DatasetIdentity.from_uri(str(options.url()), str(options.tableOrQuery()))]
        raise ValueError(f"relation {relation_name} has no known dataset")
    if name in ("DataSourceV2Relation", "DataSourceV2ScanRelation"):
        relation = leaf if name == "DataSourceV2Relation" else leaf.relation()
        table = relation.table()
        if table.getClass().getSimpleName() in (
            "ParquetTable",
            "OrcTable",
            "CSVTable",
            "JsonTable",
        ):
            # The file index's root paths are the table's paths, qualified as the scan reads
            # them (the paths the user gave may lack a scheme).
            paths = _as_list(jvm, table.fileIndex().rootPaths())
            return [DatasetIdentity.from_uri(path_uri(p)) for p in paths]
        raise ValueError(f"v2 table {table.name()} has no known dataset")
    if name in ("LogicalRDD", "ExternalRDD"):
        # A DataFrame made from an RDD: what the RDD's lineage reads (see ``_rdd``).
        from openlineage_sdk.spark._rdd import rdd_inputs

        found = rdd_inputs(jvm, leaf.rdd())
        if found.problems and not found.identities:
            raise ValueError("; ".join(found.problems))
        for problem in found.problems:
            log.warning("openlineage: %s", problem)
        return found.identities
    return []  # Range, LocalRelation, OneRowRelation: nothing stored is read


@dataclass
class PlanExtraction:
    """Inputs and column lineage of a DataFrame, from its analyzed plan."""

    inputs: list[DatasetIdentity]
    column_lineage: ColumnLineageRecord | None
    problems: list[str]
    schemas: dict[tuple[str, str], list[SchemaDatasetFacetFields]] = field(default_factory=dict)


def plan_inputs_and_lineage(
    df: Any,
    hive_metastore: str | None,
    output_names: list[str] | None = None,
    descriptions: bool = False,
) -> PlanExtraction:
    """What ``df`` reads, and how each of its columns derives from what it reads.

    The whole analyzed plan is fetched as JSON (a few py4j calls, :func:`jvm_json`), then the
    optimized plan (column lineage comes from it, as the JVM agent's does); a few more calls
    per leaf relation read its location. Optimizing plans no job: nothing runs on the cluster.
    """
    qe = df._jdf.queryExecution()
    return logical_plan_extraction(
        df.sparkSession._jvm,
        qe.analyzed(),
        hive_metastore,
        output_names,
        optimized=qe.optimizedPlan,
        descriptions=descriptions,
    )


def logical_plan_extraction(
    jvm: Any,
    plan: Any,
    hive_metastore: str | None,
    output_names: list[str] | None = None,
    *,
    optimized: Callable[[], Any] | None = None,
    descriptions: bool = False,
) -> PlanExtraction:
    """What an analyzed JVM logical ``plan`` reads, and its column lineage (see above).

    Inputs and their schemas come from ``plan``, whose leaves hold every column of what it
    reads. Column lineage comes from ``optimized()`` when given, the plan the optimizer made of
    ``plan``: the JVM agent reads column lineage there, where the filters the optimizer infers
    (a join's keys are not null, a join key's bound holds for the other side too) decide rows
    as much as the query's own. Without it, or when optimizing fails, from ``plan``. With
    ``descriptions``, each transformation carries Spark's SQL text of its expression, as the
    agent's ``columnLineage.descriptionsEnabled`` asks.
    """
    leaves = _as_list(jvm, plan.collectLeaves())
    found = LeafDatasets()
    for index, leaf in enumerate(leaves):
        try:
            found.by_leaf[index] = leaf_identities(jvm, leaf, hive_metastore)
        except Exception as error:  # one unreadable relation must not hide the rest
            found.problems.append(f"input {leaf.getClass().getSimpleName()}: {error}")
    lineage: ColumnLineageRecord | None = None
    schemas: dict[tuple[str, str], list[SchemaDatasetFacetFields]] = {}
    try:
        classes = _JvmClasses.of(jvm)
        projected = classes.project(plan.output(), plan)
        output, tree = root_output(json.loads(jvm_json(jvm, projected, projected.toJSON)))
        json_leaves = leaf_nodes(tree)
        if len(json_leaves) != len(leaves):
            raise ValueError(f"{len(json_leaves)} leaves in the JSON, {len(leaves)} in the plan")
        by_index = {json_leaves[i].index: ids for i, ids in found.by_leaf.items()}
        try:
            schemas = _leaf_schemas(json_leaves, found)
        except Exception as error:
            found.problems.append(f"input schemas: {error}")
        source = (tree, plan, output, by_index)
        if optimized is not None:
            try:
                joptimized = optimized()
                projected = classes.project(joptimized.output(), joptimized)
                optimized_output, optimized_tree = root_output(
                    json.loads(jvm_json(jvm, projected, projected.toJSON))
                )
                leaf_map = _leaves_by_attributes(json_leaves, by_index, leaf_nodes(optimized_tree))
                source = (optimized_tree, joptimized, optimized_output, leaf_map)
            except Exception as error:  # the analyzed plan's lineage rather than none
                found.problems.append(f"column lineage of the optimized plan: {error}")
        lineage = _lineage(*source, output_names, descriptions, found)
    except Exception as error:
        found.problems.append(f"column lineage: {error}")
    return PlanExtraction(found.all(), lineage, found.problems, schemas)


def _lineage(
    tree: PlanNode,
    jplan: Any,
    output: list[Attribute],
    by_index: dict[int, list[DatasetIdentity]],
    output_names: list[str] | None,
    descriptions: bool,
    found: LeafDatasets,
) -> ColumnLineageRecord:
    """Column lineage of ``tree``, described when asked (and without, if describing fails)."""
    if descriptions:
        try:
            return column_lineage(tree, output, by_index, output_names, _JvmPlanText(jplan, tree))
        except Exception as error:
            found.problems.append(f"column lineage descriptions: {error}")
    return column_lineage(tree, output, by_index, output_names)


def _leaves_by_attributes(
    leaves: list[PlanNode],
    by_index: dict[int, list[DatasetIdentity]],
    targets: list[PlanNode],
) -> dict[int, list[DatasetIdentity]]:
    """The datasets of another plan's leaves (``targets``), known by their attributes' exprIds.

    The optimizer keeps a relation's attributes (their exprIds) and drops or replaces leaves
    (an empty relation for a filter that is always false): a leaf whose attributes no leaf of
    the analyzed plan has reads nothing known, and adds no lineage.
    """
    by_attribute: dict[int, list[DatasetIdentity]] = {}
    for leaf in leaves:
        identities = by_index.get(leaf.index)
        if identities:
            for attribute in leaf_attributes(leaf):
                by_attribute[attribute.expr_id] = identities
    result: dict[int, list[DatasetIdentity]] = {}
    for leaf in targets:
        attributes = leaf_attributes(leaf)
        if attributes and attributes[0].expr_id in by_attribute:
            result[leaf.index] = by_attribute[attributes[0].expr_id]
    return result


class _JvmPlanText:
    """Spark's SQL text of a JVM plan's expressions, node by node, for descriptions.

    ``tree`` is the plan's JSON form: a node's JVM object is found by walking the JVM plan's
    ``children()`` along the JSON's positions, once per node. A few py4j calls per expression:
    only with ``columnLineage.descriptionsEnabled``.
    """

    def __init__(self, jplan: Any, tree: PlanNode) -> None:
        self._jvm_nodes: dict[int, Any] = {tree.index: jplan}
        self._parents: dict[int, tuple[PlanNode, int]] = {}
        stack = [tree]
        while stack:
            node = stack.pop()
            for position, child in enumerate(node.children):
                self._parents[child.index] = (node, position)
                stack.append(child)

    def _node(self, node: PlanNode) -> Any:
        found = self._jvm_nodes.get(node.index)
        if found is None:
            parent, position = self._parents[node.index]
            found = self._node(parent).children().apply(position)
            self._jvm_nodes[node.index] = found
        return found

    def sql(self, node: PlanNode, name: str) -> list[str]:
        value = getattr(self._node(node), name)()
        if node.cls == "Join":  # Option[Expression]
            return [str(value.get().sql())] if value.isDefined() else []
        if name in ("condition", "generator"):
            return [str(value.sql())]
        return [str(value.apply(i).sql()) for i in range(value.size())]

    def join_type(self, node: PlanNode) -> str:
        return str(self._node(node).joinType().sql())


def _leaf_schemas(
    json_leaves: list[PlanNode], found: LeafDatasets
) -> dict[tuple[str, str], list[SchemaDatasetFacetFields]]:
    """The schema facet fields of each input, from the columns of the leaf that reads it."""
    from pyspark.sql.types import StructType

    schemas: dict[tuple[str, str], list[SchemaDatasetFacetFields]] = {}
    for position, identities in found.by_leaf.items():
        keys = [(i.namespace, i.name) for i in identities if (i.namespace, i.name) not in schemas]
        if keys:
            struct = StructType.fromJson(leaf_schema_json(json_leaves[position]))
            fields = schema_fields(struct)
            for key in keys:
                schemas[key] = fields
    return schemas


# --------------------------------------------------------------------------------- write metrics


@dataclass
class CommandMetrics:
    """The metrics one executed command reported."""

    output: IoStats | None
    scans: list[tuple[list[str], IoStats]]


_WRITE_METRICS = ("numOutputRows", "numOutputBytes", "numFiles")

# Physical nodes that perform a write, and report what they wrote.
_WRITE_NODES = frozenset(
    {
        "DataWritingCommandExec",
        "AppendDataExec",
        "OverwriteByExpressionExec",
        "OverwritePartitionsDynamicExec",
        "CreateTableAsSelectExec",
        "AtomicCreateTableAsSelectExec",
        "ReplaceTableAsSelectExec",
        "AtomicReplaceTableAsSelectExec",
        "WriteToDataSourceV2Exec",
    }
)


def _class_name(node: Any) -> str:
    return str(node.getClass().getSimpleName())


def _metric_values(jvm: Any, node: Any, names: tuple[str, ...]) -> dict[str, int]:
    metrics = _JvmClasses.of(jvm).as_java(node.metrics())
    values: dict[str, int] = {}
    for name in names:
        metric = metrics.get(name)
        if metric is not None:
            values[name] = int(metric.value())
    return values


def _unwrap(node: Any) -> tuple[Any, str]:
    while True:
        name = _class_name(node)
        if name == "AdaptiveSparkPlanExec":
            node = node.executedPlan()
        elif name == "CommandResultExec":
            node = node.commandPhysicalPlan()
        elif name.endswith("QueryStageExec"):
            # A write after a shuffle runs as the final stage of an adaptive plan (Spark 4
            # wraps it in a ResultQueryStageExec); the write node is that stage's plan.
            node = node.plan()
        else:
            return node, name


def _scans(jvm: Any, node: Any, budget: list[int]) -> list[tuple[list[str], IoStats]]:
    """Every file scan under ``node``, with the files and bytes it read.

    Only leaves are visited (``collectLeaves`` is one call), descending into adaptive plans and
    query stages, which are leaves that wrap plans of their own.
    """
    found: list[tuple[list[str], IoStats]] = []
    for leaf in _as_list(jvm, node.collectLeaves()):
        budget[0] -= 1
        if budget[0] < 0:
            break
        name = _class_name(leaf)
        if name == "AdaptiveSparkPlanExec":
            found.extend(_scans(jvm, leaf.executedPlan(), budget))
        elif name.endswith("QueryStageExec"):
            found.extend(_scans(jvm, leaf.plan(), budget))
        elif name == "FileSourceScanExec":
            values = _metric_values(jvm, leaf, ("numFiles", "filesSize"))
            paths = [path_uri(p) for p in _as_list(jvm, leaf.relation().location().rootPaths())]
            # The files a scan opened and their size are exactly what it read. (Its row count
            # is after the filters pushed into the reader, so it is not reported as rows read.)
            found.append(
                (paths, IoStats(size=values.get("filesSize"), file_count=values.get("numFiles")))
            )
    return found


def command_metrics(jvm: Any, qe: Any) -> CommandMetrics | None:
    """The write metrics of an executed command, or ``None`` when it wrote nothing.

    A write command's physical node (``DataWritingCommandExec`` for file sources, the v2 write
    nodes, any command reporting the same metrics) holds the rows, bytes and files written,
    which Spark summed from every task.
    """
    root, name = _unwrap(qe.executedPlan())
    if name not in _WRITE_NODES and name != "ExecutedCommandExec":
        return None
    values = _metric_values(jvm, root, _WRITE_METRICS)
    if not values:
        return None
    output = IoStats(
        row_count=values.get("numOutputRows"),
        size=values.get("numOutputBytes"),
        file_count=values.get("numFiles"),
    )
    return CommandMetrics(output, _scans(jvm, root, [_MAX_PLAN_NODES]))


class _Collector:
    """The metrics gathered for one write while it runs."""

    def __init__(self) -> None:
        self.commands: list[CommandMetrics] = []
        self.arrived = threading.Event()  # set when a command with write metrics arrived
        self.failed: list[Any] = []  # the QueryExecution of each command that failed

    def wait(self, timeout_s: float) -> bool:
        """Wait until write metrics arrived; False on time-out."""
        return self.arrived.wait(timeout_s)


class WriteMetricsListener:
    """A JVM ``QueryExecutionListener``, implemented in Python, that hands write metrics over.

    It is registered once per session. While no write of the adapter is in flight it returns at
    once; while writes are in flight it reads the metrics of every write command and gives them
    to the in-flight writes. With one write in flight that is unambiguous. With several (writes
    from several threads at once) a command's metrics go nowhere rather than to the wrong write.
    """

    def __init__(self, jvm: Any) -> None:
        self._jvm = jvm
        self._lock = threading.Lock()
        self._active: dict[int, _Collector] = {}
        self._next = 0
        # Called with (function name, QueryExecution) for what ran while no write was in flight.
        self.on_query: Callable[[str, Any], None] | None = None

    # -- the adapter's side

    def begin(self) -> int:
        """Start collecting for a write; returns its token."""
        with self._lock:
            self._next += 1
            self._active[self._next] = _Collector()
            return self._next

    def collector(self, token: int) -> _Collector:
        """What has arrived so far for a write."""
        with self._lock:
            return self._active.get(token) or _Collector()

    def end(self, token: int) -> _Collector:
        """Stop collecting for a write and return what arrived."""
        with self._lock:
            return self._active.pop(token, _Collector())

    # -- the JVM's side (py4j calls these on the listener bus thread)

    def onSuccess(self, func_name: str, qe: Any, duration_ns: int) -> None:  # noqa: N802
        if not self._active:
            on_query = self.on_query
            if on_query is not None:
                try:
                    on_query(func_name, qe)
                except Exception as error:  # never let an exception travel back into Spark
                    log.debug("reporting a query failed: %s", error)
            return
        try:
            metrics = command_metrics(self._jvm, qe)
        except Exception as error:  # never let an exception travel back into Spark
            log.debug("reading write metrics failed: %s", error)
            return
        if metrics is None:
            return
        with self._lock:
            if len(self._active) == 1:
                collector = next(iter(self._active.values()))
                collector.commands.append(metrics)
                collector.arrived.set()

    def onFailure(self, func_name: str, qe: Any, exception: Any) -> None:  # noqa: N802
        """A failed command: no metrics; its plan, for a statement described after it ran."""
        with self._lock:
            if len(self._active) == 1:
                next(iter(self._active.values())).failed.append(qe)

    class Java:
        implements = ["org.apache.spark.sql.util.QueryExecutionListener"]  # noqa: RUF012


def start_callback_server(spark: Any) -> None:
    """Start py4j's callback server (once per process), so the JVM can call the listener."""
    from pyspark import java_gateway

    # PySpark leaves this function unannotated; it is called as what it is to a type checker.
    ensure_started: Any = java_gateway.ensure_callback_server_started
    ensure_started(spark.sparkContext._gateway)


class ListenerRegistration:
    """A Python ``QueryExecutionListener`` registered with a session, until :meth:`remove`.

    py4j makes a new JVM proxy each time a Python object is passed to Java, and two proxies of
    one object are not equal there: ``listenerManager().unregister(listener)`` would remove
    nothing, and the listener would go on hearing every query of the session after the adapter
    is gone (one more listener, and one more call into Python per query, with each install).
    So the proxy is made once, held in a JVM list, and handed to ``register`` and
    ``unregister`` by reflection, never crossing back into Python.
    """

    _INTERFACE = "org.apache.spark.sql.util.QueryExecutionListener"

    def __init__(self, spark: Any, listener: Any) -> None:
        jvm = spark._jvm
        self._manager = spark._jsparkSession.listenerManager()
        manager_class = self._manager.getClass()
        parameters = spark.sparkContext._gateway.new_array(jvm.java.lang.Class, 1)
        parameters[0] = jvm.java.lang.Class.forName(
            self._INTERFACE, True, manager_class.getClassLoader()
        )
        self._unregister = manager_class.getMethod("unregister", parameters)
        self._held: Any = jvm.java.util.ArrayList()
        self._held.add(listener)  # the one JVM proxy of ``listener``
        manager_class.getMethod("register", parameters).invoke(self._manager, self._held.toArray())

    def remove(self) -> None:
        """Unregister the listener: the session calls it no more."""
        if self._held is not None:
            self._unregister.invoke(self._manager, self._held.toArray())
            self._held = None  # py4j lets the JVM collect the list and its proxy


def wait_for_listeners(spark: Any, timeout_ms: int) -> bool:
    """Wait until the listener bus delivered every event posted so far (the write's included).

    A command posts its end event before the call that ran it returns, so once the bus is
    drained our listener has seen every command of the write. Returns False on time-out.
    """
    try:
        spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty(timeout_ms)
        return True
    except Exception as error:
        log.debug("waiting for the listener bus failed: %s", error)
        return False


# Roots of executed plans that ran a command (DDL, writes, SET, SHOW, DESCRIBE ...), not a query.
_COMMAND_NODES = frozenset({*_WRITE_NODES, "ExecutedCommandExec", "CommandResultExec"})


def executed_query_name(qe: Any) -> str | None:
    """The job-name command of a query that ran in an action, or ``None`` for a command.

    The JVM agent names such a run after the root of the executed plan (a whole-stage codegen
    wrapper taken off), in snake case: ``hash_aggregate``, ``collect_limit`` ...
    """
    node = qe.executedPlan()
    name = _class_name(node)
    if name in _COMMAND_NODES or _unwrap(node)[1] in _COMMAND_NODES:
        return None
    if name == "WholeStageCodegenExec":
        node = node.child()
    text = str(node.nodeName()).replace(" ", "")
    return re.sub(r"(?<!^)(?=[A-Z])", "_", text).lower()
