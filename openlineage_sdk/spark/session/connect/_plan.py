"""Spark Connect: what the client can know without a JVM.

Under Spark Connect the Python process holds no JVM and no plan the server resolved. It has:

* the writer's settings, which the Connect ``DataFrameWriter`` keeps in its write operation;
* the DataFrame's unresolved plan (the protobuf it sends), whose ``read`` relations name the
  files, tables and JDBC tables it reads;
* the observed metrics the server returns with a command: the adapter adds a ``count(1)``
  observation to the DataFrame being written, which the server computes while it writes, in the
  same job, and sends back in the ``ExecutePlan`` response. That gives the row count. The server
  sends no plan metrics for commands, so the bytes and files written are not known here and are
  left out rather than guessed.

Nothing in this module touches a JVM (a test checks that), so it behaves on a remote cluster
exactly as against a local server.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from openlineage_sdk.spark.describe._naming import encode_path, location_uri, split_hadoop_path
from openlineage_sdk.spark.describe._tables import PlanReads as ClientPlanReads

if TYPE_CHECKING:
    from pyspark.sql.types import StructType

__all__ = [
    "SQL_INPUTS_UNKNOWN",
    "ClientPlanReads",
    "RowCountObservation",
    "client_plan_reads",
    "connect_writer_settings",
    "declared_schema",
    "extension_inputs_unknown",
    "path_uri",
    "plan_sql_text",
    "relations",
    "same_columns",
]

log = logging.getLogger("openlineage_sdk.spark")


def connect_writer_settings(writer: Any) -> tuple[str | None, dict[str, str]]:
    """``(source, options)`` of a Connect ``DataFrameWriter`` or ``DataFrameWriterV2``."""
    operation = writer._write
    options = {str(k): str(v) for k, v in operation.options.items() if v is not None}
    source = getattr(operation, "source", None) or getattr(operation, "provider", None)
    return source, options


_RELATION = "spark.connect.Relation"

# Message type (full name) -> whether a Relation can be nested in it, itself included.
_HOLDS_RELATIONS: dict[str, bool] = {}


def _holds_relations(kind: Any) -> bool:
    """Whether a message of type ``kind`` (a descriptor) can hold a ``Relation``, map fields aside.

    Learnt once per type from the protobuf's descriptors, so that a walk for relations does not
    visit what cannot hold one: a wide projection's thousands of expressions, for instance.
    """
    known = _HOLDS_RELATIONS.get(kind.full_name)
    if known is not None:
        return known
    if kind.GetOptions().map_entry:  # a map field's entry: maps are not walked
        _HOLDS_RELATIONS[kind.full_name] = False
        return False
    # The message types reachable from ``kind``, each with the types its fields hold ...
    held: dict[str, set[str]] = {}
    stack = [kind]
    while stack:
        message = stack.pop()
        if message.full_name in held:
            continue
        fields = held[message.full_name] = set()
        for field in message.fields:
            inner = field.message_type
            if inner is None or inner.GetOptions().map_entry:
                continue
            fields.add(inner.full_name)
            stack.append(inner)
    # ... then those from which a Relation is reachable, to a fixed point.
    holding = {name for name in held if name == _RELATION or _HOLDS_RELATIONS.get(name)}
    grew = True
    while grew:
        grew = False
        for name, inner_names in held.items():
            if name not in holding and not inner_names.isdisjoint(holding):
                holding.add(name)
                grew = True
    for name in held:
        _HOLDS_RELATIONS.setdefault(name, name in holding)
    return _HOLDS_RELATIONS[kind.full_name]


def _nested(message: Any) -> Iterator[Any]:
    """The messages directly in ``message`` that can hold a relation (not maps' entries)."""
    for descriptor, value in message.ListFields():
        kind = descriptor.message_type
        if kind is None or not _holds_relations(kind):
            continue
        if _is_repeated(descriptor):
            yield from value
        else:
            yield value


def relations(message: Any) -> Iterator[Any]:
    """Every ``Relation`` message nested anywhere in ``message``, itself included.

    Fields whose type cannot hold a relation are not visited (:func:`_holds_relations`), nor
    map fields.
    """
    if message.DESCRIPTOR.full_name == _RELATION:
        yield message
    for inner in _nested(message):
        yield from relations(inner)


def plan_sql_text(relation: Any) -> str | None:
    """The SQL text a client plan was built from: its first ``SQL`` relation, breadth-first.

    As the JVM agent finds it in a plan (the node nearest the top that Spark parsed from SQL
    text): a write of ``spark.sql(query)`` has the query's relation right under it.
    """
    queue = [relation]
    while queue:
        message = queue.pop(0)
        relation_type = message.DESCRIPTOR.full_name == _RELATION
        if relation_type and message.WhichOneof("rel_type") == "sql":
            return str(message.sql.query)
        queue.extend(_nested(message))
    return None


def _is_repeated(descriptor: Any) -> bool:
    repeated = getattr(descriptor, "is_repeated", None)  # protobuf >= 5 drops ``label``
    if repeated is not None:
        return bool(repeated)
    return bool(descriptor.label == descriptor.LABEL_REPEATED)


_TEXT_SCHEMA = json.dumps(
    {
        "type": "struct",
        "fields": [{"name": "value", "type": "string", "nullable": True, "metadata": {}}],
    }
)


SQL_INPUTS_UNKNOWN = "inputs of a SQL relation are not known on a Connect client"


def extension_inputs_unknown(type_url: str) -> str:
    """The problem noted for a server plugin's relation whose reads are not known (yet)."""
    return (
        f"inputs: a relation extension of type {type_url!r} is not one the adapter reads: "
        "what it reads is unknown"
    )


def client_plan_reads(relation: Any) -> ClientPlanReads:
    """The files, tables, JDBC tables and SQL queries a Connect plan's relation reads.

    The one walk over a client's plan, for writes and actions alike. What SQL in the plan reads
    only the server can say (``SQL_INPUTS_UNKNOWN`` is noted until it has).
    """
    found = ClientPlanReads()
    for node in relations(relation):
        kind = node.WhichOneof("rel_type")
        if kind == "sql":
            found.sql.append(node.sql.query)
            if SQL_INPUTS_UNKNOWN not in found.problems:
                found.problems.append(SQL_INPUTS_UNKNOWN)
        if kind == "extension":
            # A server plugin's relation (Delta Connect's ...): what it reads is its own, and
            # only the server's explanation of the plan can say (``explained_extensions``).
            found.extensions.append(node.extension.type_url)
            found.problems.append(extension_inputs_unknown(node.extension.type_url))
        if kind != "read":
            continue
        read = node.read
        if read.HasField("named_table"):
            found.tables.append(read.named_table.unparsed_identifier)
        elif read.HasField("data_source"):
            source = read.data_source
            options = dict(source.options)
            if source.format.lower() == "jdbc":
                found.jdbc.append((options, node))
                continue
            if source.format.lower() == "kafka":
                found.kafka.append(options)
                continue
            paths = list(source.paths) or ([options["path"]] if "path" in options else [])
            found.paths.extend(paths)
            if source.HasField("schema") and source.schema:
                found.declared.update(dict.fromkeys(paths, source.schema))
            elif source.format.lower() == "text":
                # The text source has one schema, whatever its files hold: known without them.
                found.declared.update(dict.fromkeys(paths, _TEXT_SCHEMA))
    return found


# Relations whose output is their input's columns: the same names, types and comments, in the
# same order (a filter may make a column non-nullable, which no schema facet holds).
_SAME_COLUMNS = frozenset(
    {
        "filter",
        "limit",
        "offset",
        "tail",
        "sort",
        "sample",
        "deduplicate",
        "repartition",
        "repartition_by_expression",
        "hint",
    }
)


def same_columns(root: Any, relation: Any) -> bool:
    """Whether ``relation`` is ``root``, or under it through relations that keep the columns.

    Then the server's schema of ``root`` is the schema of ``relation`` for the schema facet.
    """
    node = root
    while node != relation:
        kind = node.WhichOneof("rel_type")
        if kind not in _SAME_COLUMNS:
            return False
        node = getattr(node, kind).input
    return True


def declared_schema(spark: Any, text: str) -> StructType:
    """The schema a reader was given: Spark's JSON form, or DDL (parsed by the server).

    A schema the user declared is known without reading any data: JSON is read here, DDL costs
    one parse request, which runs no job.
    """
    from pyspark.sql.types import StructType

    if text.lstrip().startswith("{"):
        return StructType.fromJson(json.loads(text))
    parsed = spark.client._analyze(method="ddl_parse", ddl_string=text).parsed
    if not isinstance(parsed, StructType):
        raise TypeError(f"the declared schema is a {type(parsed).__name__}, not a struct")
    return parsed


def path_uri(path: str, default_fs: str | None) -> str:
    """The location of a path a Connect client gave, for the naming module.

    The server reads the path as a Hadoop path: ``#``, ``?`` and ``%`` are part of a file's
    name. A path with a scheme becomes a URI with its path percent-encoded, which the naming
    module decodes back; a path without one is qualified with the server's default file system,
    or, on the local file system, stays a plain path, which the naming module takes literally.
    """
    scheme, authority, rest = split_hadoop_path(path)
    if scheme is not None and len(scheme) > 1:  # one letter is a Windows drive, not a scheme
        return location_uri(scheme, authority, rest)
    if not path.startswith("/"):
        raise ValueError(f"relative path {path!r} depends on the server's working directory")
    if default_fs and not default_fs.startswith("file:"):
        return default_fs.rstrip("/") + encode_path(path)
    return path


class RowCountObservation:
    """A ``count(1)`` observation attached to the DataFrame a Connect writer writes.

    The server evaluates it as the rows stream into the write, in the same job, and returns the
    value with the command's response: no extra job, and the count is of exactly what was
    written.
    """

    def __init__(self, writer: Any) -> None:
        from pyspark.sql.connect.dataframe import DataFrame

        # The Connect functions themselves: the generic ones pick classic or Connect by the
        # process's mode, and a process may hold a classic session next to a Connect one.
        from pyspark.sql.connect.functions import count, lit
        from pyspark.sql.connect.observation import Observation

        self._writer = writer
        self._original = writer._write._child
        self._observation = Observation(f"openlineage_sdk_{uuid.uuid4().hex}")
        frame = DataFrame(self._original, session=writer._spark)
        # ``observe`` asks the server whether the plan is streaming (a round trip of its own)
        # to refuse streaming plans. A plan handed to a batch writer is a batch plan (the
        # server refuses a streaming one for the write itself), so the answer is known: it is
        # put where the DataFrame caches it.
        frame.__dict__.setdefault("isStreaming", False)
        observed = frame.observe(self._observation, count(lit(1)).alias("rows"))
        self._observed_plan = observed._plan
        self._swapped = False

    def __enter__(self) -> RowCountObservation:
        # Swapping the plan is the last step before the user's write: it must not fail it.
        try:
            self._writer._write._child = self._observed_plan
            self._swapped = True
        except Exception as error:
            self._swapped = False
            log.warning("openlineage: no row count observation: %s", error)
        return self

    def __exit__(self, *exc_info: object) -> None:
        # The writer goes back to the user's plan, so a second call on it is unchanged.
        if self._swapped:
            try:
                self._writer._write._child = self._original
            except Exception as error:
                log.warning("openlineage: restoring the writer's plan failed: %s", error)

    def row_count(self) -> int | None:
        """The observed count, or ``None`` when the server sent none."""
        if not self._swapped:
            return None
        result = self._observation._result
        if not result:
            return None
        value = result.get("rows")
        return int(value) if value is not None else None
