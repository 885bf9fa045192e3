"""Classic PySpark: what a DataFrame or a statement reads, from the analyzed logical plan.

The whole analyzed plan is fetched as JSON (written on the JVM side and read in pieces that each
fit one py4j answer: see ``_jvm.jvm_json``), and the relations at its leaves (file locations,
catalog tables, JDBC tables, RDDs) give the inputs; the optimized plan, fetched the same way,
gives the column lineage (and, when asked, Spark's SQL text of its expressions), which
``describe._lineage`` traces. Optimizing plans no job: nothing runs on the cluster.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from openlineage_sdk.models.records import SchemaDatasetFacetFields
from openlineage_sdk.spark._execution import (
    CatalogInfo,
    ColumnLineageRecord,
    DatasetIdentity,
    DatasetLineage,
)
from openlineage_sdk.spark._safety import (
    BudgetExceededError,
    SchemaSizeExceededError,
    schema_size_check,
)
from openlineage_sdk.spark.describe._jdbc import JdbcRead, JdbcSource, resolve_jdbc
from openlineage_sdk.spark.describe._lineage import (
    Attribute,
    LeafColumns,
    PlanNode,
    column_lineage,
    leaf_attributes,
    leaf_nodes,
    leaf_schema_json,
    root_output,
)
from openlineage_sdk.spark.describe._schema import schema_fields
from openlineage_sdk.spark.describe._tables import TableInfo, table_identity
from openlineage_sdk.spark.session.classic._jvm import (
    JvmClasses,
    as_list,
    jvm_json,
    option,
    path_uri,
)

__all__ = ["PlanExtraction", "catalog_table_info", "leaf_identities", "logical_plan_extraction"]

log = logging.getLogger("openlineage_sdk.spark")

# ---------------------------------------------------------------------------------------- inputs


@dataclass
class LeafDatasets:
    """The datasets each leaf of a plan reads, by the leaf's pre-order index."""

    by_leaf: dict[int, list[DatasetIdentity]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    jdbc: dict[int, JdbcRead] = field(default_factory=dict)  # JDBC leaves: tables and columns
    catalogs: dict[tuple[str, str], CatalogInfo] = field(default_factory=dict)
    # What a v2 table's leaf says of its datasets beyond their names: version, facets, schema.
    details: dict[tuple[str, str], DatasetLineage] = field(default_factory=dict)
    v2_schemas: set[int] = field(default_factory=set)  # leaves whose schemas ``details`` hold

    def all(self) -> list[DatasetIdentity]:
        seen: dict[tuple[str, str], DatasetIdentity] = {}
        for identities in self.by_leaf.values():
            for identity in identities:
                seen.setdefault((identity.namespace, identity.name), identity)
        return list(seen.values())


# A part of ``TableIdentifier.quotedString``: in backticks, a backtick in it doubled.
_QUOTED_PART = re.compile(r"`((?:[^`]|``)*)`")


def catalog_table_info(table: Any) -> TableInfo:
    """A JVM ``CatalogTable``'s database, name and location (a URI, its path encoded).

    Four round trips: the identifier's quoted form (```catalog`.`db`.`t```) names the database
    and the table at once, and ``location`` is the storage's location. A table without a
    location, or an identifier of another form, is read part by part.
    """
    try:
        quoted = str(table.identifier().quotedString())
        parts = [p.replace("``", "`") for p in _QUOTED_PART.findall(quoted)]
        if not parts or ".".join(f"`{p.replace('`', '``')}`" for p in parts) != quoted:
            raise ValueError(f"an identifier of another form: {quoted}")
        location = str(table.location().toString())  # a java.net.URI: its path is encoded
    except Exception:
        ident = table.identifier()
        found = option(table.storage().locationUri())
        return TableInfo(
            database=option(ident.database()),
            table=str(ident.table()),
            location=str(found) if found is not None else None,
        )
    return TableInfo(
        database=parts[-2] if len(parts) > 1 else None, table=parts[-1], location=location
    )


def leaf_identities(
    jvm: Any, leaf: Any, hive_metastore: str | None, name: str | None = None
) -> list[DatasetIdentity]:
    """The datasets one leaf relation of a logical plan reads (``name``: its class, if known)."""
    if name is None:
        name = str(leaf.getClass().getSimpleName())
    if name == "HiveTableRelation":
        return [table_identity(catalog_table_info(leaf.tableMeta()), hive_metastore)]
    if name == "LogicalRelation":
        table = option(leaf.catalogTable())
        if table is not None:
            return [table_identity(catalog_table_info(table), hive_metastore)]
        relation = leaf.relation()
        relation_name = relation.getClass().getSimpleName()
        if relation_name == "HadoopFsRelation":
            paths = as_list(jvm, relation.location().rootPaths())
            return [DatasetIdentity.from_uri(path_uri(p)) for p in paths]
        if relation_name == "JDBCRelation":
            return [dataset.identity for dataset in jdbc_relation(jvm, relation).inputs]
        raise ValueError(f"relation {relation_name} has no known dataset")
    if name in ("DataSourceV2Relation", "DataSourceV2ScanRelation"):
        relation = leaf if name == "DataSourceV2Relation" else leaf.relation()
        table = relation.table()
        if _is_file_table(table):
            # The file index's root paths are the table's paths, qualified as the scan reads
            # them (the paths the user gave may lack a scheme).
            paths = as_list(jvm, table.fileIndex().rootPaths())
            return [DatasetIdentity.from_uri(path_uri(p)) for p in paths]
        if table.getClass().getSimpleName() == "JDBCTable":
            return [jdbc_catalog_table(jvm, relation)[0]]
        raise ValueError(f"v2 table {table.name()} has no known dataset")
    if name in ("LogicalRDD", "ExternalRDD"):
        # A DataFrame made from an RDD: what the RDD's lineage reads (see ``_rdd_lineage``).
        from openlineage_sdk.spark.session.classic._rdd_lineage import rdd_inputs

        found = rdd_inputs(jvm, leaf.rdd())
        if found.problems and not found.identities:
            raise ValueError("; ".join(found.problems))
        for problem in found.problems:
            log.warning("openlineage: %s", problem)
        return found.identities
    return []  # Range, LocalRelation, OneRowRelation: nothing stored is read


_FILE_TABLES = ("ParquetTable", "OrcTable", "CSVTable", "JsonTable", "TextTable", "AvroTable")


def _is_file_table(table: Any) -> bool:
    return bool(table.getClass().getSimpleName() in _FILE_TABLES)


def v2_table(relation: Any) -> Any:
    """The table of a v2 relation; under a row-level command, the table the command changes."""
    table = relation.table()
    if table.getClass().getSimpleName() == "RowLevelOperationTable":
        return table.table()
    return table


def v2_table_datasets(jvm: Any, relation: Any, role: str = "input") -> list[DatasetLineage]:
    """The datasets of a v2 table (``describe._v2``): by its properties, else its location.

    Each with its schema when its properties do not decide otherwise, its version and the
    facets its properties hold.

    Raises:
        ValueError: The table has neither a location nor ``openlineage.dataset`` properties.
    """
    from pyspark.sql.types import StructType

    from openlineage_sdk.spark.describe._v2 import described_by_properties, v2_table_identity

    table = v2_table(relation)
    properties = {str(k): str(v) for k, v in dict(table.properties()).items()}
    jschema = relation.schema()
    fields = schema_fields(StructType.fromJson(json.loads(jvm_json(jvm, jschema, jschema.json))))
    version = table.version()
    version = str(version) if version is not None else None
    described = described_by_properties(properties, fields)
    if described is not None:
        datasets = []
        for identity in described.identities:
            key = (identity.namespace, identity.name)
            schema = described.schemas.get(key, fields)
            dataset = DatasetLineage(identity, role, schema)  # type: ignore[arg-type]
            dataset.facets = dict(described.facets)
            dataset.problems.extend(described.problems)
            datasets.append(dataset)
        return datasets
    ident = option(relation.identifier())
    location = properties.get("location")
    if ident is None or not location:
        raise ValueError(
            f"v2 table {table.name()} has no known dataset: neither a location nor "
            "openlineage.dataset properties"
        )
    namespace = [str(part) for part in ident.namespace()]
    identity = v2_table_identity(location, namespace, str(ident.name()))
    dataset = DatasetLineage(identity, role, fields)  # type: ignore[arg-type]
    dataset.version = version
    return [dataset]


def _derby_home(jvm: Any) -> str | None:
    """Where the driver's embedded Derby keeps its databases: ``derby.system.home``, else the
    driver's working folder (the JVM's, not this process's)."""
    system = jvm.java.lang.System
    home = system.getProperty("derby.system.home")
    return str(home) if home is not None else str(system.getProperty("user.dir"))


def _options(jvm: Any, options: Any) -> dict[str, str]:
    """A ``JDBCOptions``' parameters as a dict (credentials among them: never shown)."""
    parameters = options.parameters()
    keys = as_list(jvm, parameters.keys().toSeq())
    return {str(k): str(option(parameters.get(k))) for k in keys}


def jdbc_relation(jvm: Any, relation: Any) -> JdbcRead:
    """The tables a ``JDBCRelation`` reads, with schemas and column lineage (``describe._jdbc``).

    The relation holds its options and schema: Spark asked the database for the schema when
    the read was loaded, and nothing here asks it anything.
    """
    from pyspark.sql.types import StructType

    source = JdbcSource.of(_options(jvm, relation.jdbcOptions()))
    jschema = relation.schema()
    schema = StructType.fromJson(json.loads(jvm_json(jvm, jschema, jschema.json)))
    derby = _derby_home(jvm) if source.url.startswith("jdbc:derby:") else None
    return resolve_jdbc(source, schema_fields(schema), derby_home=derby)


def kafka_relation(jvm: Any, relation: Any) -> list[DatasetLineage]:
    """The topics a ``KafkaRelation`` reads, from its options (a private field, as the agent
    reads it), each with the relation's schema."""
    from pyspark.sql.types import StructType

    from openlineage_sdk.spark.describe._kafka import kafka_datasets

    field = relation.getClass().getDeclaredField("sourceOptions")
    field.setAccessible(True)
    options = field.get(relation)
    keys = as_list(jvm, options.keys().toSeq())
    read = {str(k): str(option(options.get(k))) for k in keys}
    jschema = relation.schema()
    fields = schema_fields(StructType.fromJson(json.loads(jvm_json(jvm, jschema, jschema.json))))
    datasets, problems = kafka_datasets(read, "input", fields)
    if not datasets:
        raise ValueError("; ".join(problems) or "the Kafka read names no topic")
    for dataset in datasets:
        dataset.problems.extend(problems)
    return datasets


def jdbc_catalog_table(jvm: Any, relation: Any) -> tuple[DatasetIdentity, CatalogInfo]:
    """A table of a v2 JDBC catalog (``JDBCTableCatalog``), named as the agent's handler names it.

    Its name is its identifier's parts after the catalog's URL (``{database}.{schema}.{table}``
    for PostgreSQL); its catalog facet names the catalog, ``jdbc``, and the URL without
    credentials.
    """
    from openlineage_sdk.naming import jdbc_dataset, jdbc_url_without_credentials

    table = relation.table()
    options = table.jdbcOptions()
    url = str(options.url())
    ident = option(relation.identifier())
    if ident is not None:
        parts = [*[str(p) for p in ident.namespace()], str(ident.name())]
    else:
        parts = [str(p) for p in table.name().split(".")]
    derby = _derby_home(jvm) if url.startswith("jdbc:derby:") else None
    located = jdbc_dataset(url, parts, _options(jvm, options), derby_home=derby)
    catalog = option(relation.catalog())
    name = str(catalog.name()) if catalog is not None else "jdbc"
    metadata = jdbc_url_without_credentials(url)
    identity = DatasetIdentity(located.namespace, located.name)
    return identity, CatalogInfo("jdbc", "jdbc", name, metadata_uri=metadata)


@dataclass
class PlanExtraction:
    """Inputs and column lineage of a DataFrame, from its analyzed plan."""

    inputs: list[DatasetIdentity]
    column_lineage: ColumnLineageRecord | None
    problems: list[str]
    schemas: dict[tuple[str, str], list[SchemaDatasetFacetFields]] = field(default_factory=dict)
    catalogs: dict[tuple[str, str], CatalogInfo] = field(default_factory=dict)
    details: dict[tuple[str, str], DatasetLineage] = field(default_factory=dict)
    unread: int = 0
    """Leaves whose datasets could not be told (each has its problem)."""

    def input_datasets(self) -> list[DatasetLineage]:
        """The inputs, each with its schema and catalog when known."""
        found = []
        for identity in self.inputs:
            key = (identity.namespace, identity.name)
            dataset = DatasetLineage(identity, "input", self.schemas.get(key))
            dataset.catalog = self.catalogs.get(key)
            detail = self.details.get(key)
            if detail is not None:
                dataset.version, dataset.facets = detail.version, dict(detail.facets)
                dataset.problems.extend(detail.problems)
            found.append(dataset)
        return found

    output_schema: dict[str, Any] | None = None
    """The plan's own schema, in Spark's JSON form of a ``StructType``, when it was read."""


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
    leaves = as_list(jvm, plan.collectLeaves())
    # The plan's JSON first: it names each leaf's class, which then costs no round trip.
    fetched: tuple[list[Attribute], PlanNode, list[PlanNode], dict[str, Any] | None] | None = None
    fetch_error: Exception | None = None
    try:
        classes = JvmClasses.of(jvm)
        projected = classes.project(plan.output(), plan)
        nodes = json.loads(jvm_json(jvm, projected, projected.toJSON))
        output, tree = root_output(nodes)
        fetched = (output, tree, leaf_nodes(tree), _output_schema_json(nodes))
    except Exception as error:
        fetch_error = error
    names: list[str | None] = [None] * len(leaves)
    if fetched is not None and len(fetched[2]) == len(leaves):
        names = [_simple_name(node.cls) for node in fetched[2]]
    found = LeafDatasets()
    unread = 0
    for index, leaf in enumerate(leaves):
        try:
            _read_leaf(jvm, leaf, hive_metastore, index, found, names[index])
        except Exception as error:  # one unreadable relation must not hide the rest
            unread += 1
            name = names[index] or leaf.getClass().getSimpleName()
            found.problems.append(f"input {name}: {error}")
    lineage: ColumnLineageRecord | None = None
    schemas: dict[tuple[str, str], list[SchemaDatasetFacetFields]] = {}
    output_schema: dict[str, Any] | None = None
    try:
        if fetched is None:
            raise fetch_error or ValueError("no JSON of the plan")
        output, tree, json_leaves, output_schema = fetched
        if len(json_leaves) != len(leaves):
            raise ValueError(f"{len(json_leaves)} leaves in the JSON, {len(leaves)} in the plan")
        by_index = {json_leaves[i].index: ids for i, ids in found.by_leaf.items()}
        columns = {json_leaves[i].index: read.columns for i, read in found.jdbc.items()}
        try:
            schemas = _leaf_schemas(json_leaves, found)
        except Exception as error:
            found.problems.append(f"input schemas: {error}")
        source = (tree, plan, output, by_index, columns)
        # The optimizer keeps the plan's output: an output too wide for column lineage is known
        # here, before the optimized plan's JSON (as long as this one) is read for nothing.
        schema_size_check(len(output))
        if optimized is not None:
            try:
                joptimized = optimized()
                projected = classes.project(joptimized.output(), joptimized)
                optimized_output, optimized_tree = root_output(
                    json.loads(jvm_json(jvm, projected, projected.toJSON))
                )
                leaf_map, column_map = _leaves_by_attributes(
                    json_leaves, by_index, columns, leaf_nodes(optimized_tree)
                )
                source = (optimized_tree, joptimized, optimized_output, leaf_map, column_map)
            except Exception as error:  # the analyzed plan's lineage rather than none
                found.problems.append(f"column lineage of the optimized plan: {error}")
        lineage = _lineage(*source, output_names, descriptions, found)
    except Exception as error:
        found.problems.append(f"column lineage: {error}")
    extraction = PlanExtraction(
        found.all(), lineage, found.problems, schemas, found.catalogs, output_schema=output_schema
    )
    extraction.details = found.details
    extraction.unread = unread
    return extraction


def _read_leaf(
    jvm: Any,
    leaf: Any,
    hive_metastore: str | None,
    index: int,
    found: LeafDatasets,
    name: str | None = None,
) -> None:
    """What one leaf reads, into ``found`` (JDBC leaves with their schemas and columns).

    ``name``: the leaf's class, when the plan's JSON has told it (no round trip then).
    """
    if name is None:
        name = str(leaf.getClass().getSimpleName())
    if name == "LogicalRelation" and option(leaf.catalogTable()) is None:
        relation = leaf.relation()
        if relation.getClass().getSimpleName() == "JDBCRelation":
            read = jdbc_relation(jvm, relation)
            found.jdbc[index] = read
            found.by_leaf[index] = [dataset.identity for dataset in read.inputs]
            return
        if relation.getClass().getSimpleName() == "KafkaRelation":
            datasets = kafka_relation(jvm, relation)
            found.by_leaf[index] = [dataset.identity for dataset in datasets]
            for dataset in datasets:
                found.details[(dataset.identity.namespace, dataset.identity.name)] = dataset
            found.v2_schemas.add(index)
            return
    if name in ("DataSourceV2Relation", "DataSourceV2ScanRelation"):
        relation = leaf if name == "DataSourceV2Relation" else leaf.relation()
        if relation.table().getClass().getSimpleName() == "JDBCTable":
            identity, catalog = jdbc_catalog_table(jvm, relation)
            found.by_leaf[index] = [identity]
            found.catalogs[(identity.namespace, identity.name)] = catalog
            return
        if not _is_file_table(relation.table()):
            datasets = v2_table_datasets(jvm, relation)
            found.by_leaf[index] = [dataset.identity for dataset in datasets]
            for dataset in datasets:
                found.details[(dataset.identity.namespace, dataset.identity.name)] = dataset
            if any(dataset.schema is not None for dataset in datasets) or len(datasets) > 1:
                found.v2_schemas.add(index)
            return
    found.by_leaf[index] = leaf_identities(jvm, leaf, hive_metastore, name)


def _simple_name(cls: str) -> str | None:
    """A class's simple name from its JVM name in a plan's JSON; ``None`` if unsure (nested)."""
    name = cls.rsplit(".", 1)[-1]
    return name if name.isidentifier() and "$" not in name else None


def _output_schema_json(nodes: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The plan's schema as Spark's JSON form of a ``StructType``, from ``Project(output, plan)``.

    A plan's schema is its output attributes, each a field with the attribute's name, data
    type, nullability and metadata (``QueryPlan.schema``), and the projection's JSON holds them:
    the schema costs no round trip of its own. ``None`` when the projection is not of attributes.
    """
    fields = []
    try:
        for expression in nodes[0].get("projectList") or []:
            attribute = expression[0] if expression else {}
            if not str(attribute.get("class", "")).endswith(".AttributeReference"):
                return None
            fields.append(
                {
                    "name": str(attribute["name"]),
                    "type": attribute["dataType"],
                    "nullable": bool(attribute.get("nullable", True)),
                    "metadata": attribute.get("metadata") or {},
                }
            )
    except (KeyError, IndexError, TypeError, AttributeError):  # JSON of another shape
        return None
    return {"type": "struct", "fields": fields}


def _lineage(
    tree: PlanNode,
    jplan: Any,
    output: list[Attribute],
    by_index: dict[int, list[DatasetIdentity]],
    columns: LeafColumns,
    output_names: list[str] | None,
    descriptions: bool,
    found: LeafDatasets,
) -> ColumnLineageRecord:
    """Column lineage of ``tree``, described when asked (and without, if describing fails)."""
    if descriptions:
        try:
            text = _JvmPlanText(jplan, tree)
            return column_lineage(tree, output, by_index, output_names, text, columns)
        except (SchemaSizeExceededError, BudgetExceededError):
            raise
        except Exception as error:
            found.problems.append(f"column lineage descriptions: {error}")
    return column_lineage(tree, output, by_index, output_names, leaf_columns=columns)


def _leaves_by_attributes(
    leaves: list[PlanNode],
    by_index: dict[int, list[DatasetIdentity]],
    columns: LeafColumns,
    targets: list[PlanNode],
) -> tuple[dict[int, list[DatasetIdentity]], dict[int, Any]]:
    """The datasets of another plan's leaves (``targets``), known by their attributes' exprIds.

    The optimizer keeps a relation's attributes (their exprIds) and drops or replaces leaves
    (an empty relation for a filter that is always false): a leaf whose attributes no leaf of
    the analyzed plan has reads nothing known, and adds no lineage.
    """
    by_attribute: dict[int, int] = {}
    for leaf in leaves:
        if by_index.get(leaf.index):
            for attribute in leaf_attributes(leaf):
                by_attribute[attribute.expr_id] = leaf.index
    result: dict[int, list[DatasetIdentity]] = {}
    traced: dict[int, Any] = {}
    for leaf in targets:
        attributes = leaf_attributes(leaf)
        if attributes and attributes[0].expr_id in by_attribute:
            origin = by_attribute[attributes[0].expr_id]
            result[leaf.index] = by_index[origin]
            if origin in columns:
                traced[leaf.index] = columns[origin]
    return result, traced


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
    for read in found.jdbc.values():
        for dataset in read.inputs:
            key = (dataset.identity.namespace, dataset.identity.name)
            if dataset.schema is not None and key not in schemas:
                schemas[key] = dataset.schema
    for position in found.v2_schemas:
        for identity in found.by_leaf.get(position, []):
            key = (identity.namespace, identity.name)
            detail = found.details.get(key)
            if detail is not None and detail.schema is not None and key not in schemas:
                schemas[key] = detail.schema
    for position, identities in found.by_leaf.items():
        if position in found.jdbc or position in found.v2_schemas:
            continue  # named by the agent's schema rule for JDBC and self-described tables
        keys = [(i.namespace, i.name) for i in identities if (i.namespace, i.name) not in schemas]
        if keys:
            struct = StructType.fromJson(leaf_schema_json(json_leaves[position]))
            fields = schema_fields(struct)
            for key in keys:
                schemas[key] = fields
    return schemas
