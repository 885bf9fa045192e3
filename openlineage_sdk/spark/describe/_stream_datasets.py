"""Structured Streaming: what a stream's source and sink are, in the JVM agent's terms.

A streaming query reads one or more streaming sources (and maybe static tables beside them) and
writes one sink, over and over, a micro-batch at a time. Classic PySpark reads the sources from
the analyzed plan's ``StreamingRelation`` leaves and the sink from the JVM ``DataStreamWriter``;
a Spark Connect client from its plan's streaming ``read`` relations and the ``WriteStreamOperation``
it sends. Both come here as a :class:`StreamSource` or a :class:`StreamSink`, and this module says
what each is as a dataset:

* files (``csv``, ``json``, ``parquet``, ``orc``, ``text`` and any format given a path) are the
  folder the stream reads or writes, named as a batch read of that folder is (and trimmed of
  partition and date folders the same way);
* catalog tables (``readStream.table``, ``toTable``) are the table, as a batch write names it;
* Kafka is ``kafka://{host}:{port}`` of the first bootstrap server and the topic, as the agent's
  ``KafkaBootstrapServerResolver`` names it; the topics come from ``subscribe`` (a comma-separated
  list), ``assign`` (its JSON's keys) or a sink's ``topic``, and, for ``subscribePattern``, from
  the offsets each micro-batch reports;
* ``rate``, ``memory``, ``socket``, ``console``, ``foreach``, ``foreachBatch`` and ``noop`` are
  no dataset, as the agent has none for them (a ``foreachBatch`` function's writes are runs of
  their own, children of the stream's run).

The stream's job is named after the micro-batch command Spark plans for its sink (see
``_commands``): ``WriteToMicroBatchDataSourceV1`` for file, table and ``foreachBatch`` sinks,
``WriteToDataSourceV2`` for the others; the suffix is the sink's dataset (its folder's last two
parts, its table, its topic) or, for a sink without one, the query's name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from openlineage_sdk.models.records import SchemaDatasetFacetFields
from openlineage_sdk.spark.describe._commands import COMMANDS, Command
from openlineage_sdk.spark.describe._kafka import KAFKA_SOURCE_SCHEMA
from openlineage_sdk.spark.describe._kafka import kafka_namespace as batch_kafka_namespace

__all__ = [
    "FILE_FORMATS",
    "KAFKA_SOURCE_SCHEMA",
    "NO_DATASET_FORMATS",
    "SinkKind",
    "SourceKind",
    "StreamSink",
    "StreamSource",
    "kafka_namespace",
    "kafka_offset_topics",
    "kafka_topics",
    "sink_kind",
    "source_kind",
    "source_matches",
    "stream_command",
]

#: The file formats Spark streams from and to a folder.
FILE_FORMATS = frozenset({"csv", "json", "parquet", "orc", "text", "avro", "xml", "binaryfile"})
#: Sources and sinks that are no dataset (the agent reports none for them).
NO_DATASET_FORMATS = frozenset(
    {"rate", "rate-micro-batch", "memory", "socket", "console", "foreach", "noop"}
)

SourceKind = Literal["file", "table", "kafka", "none", "unknown"]
SinkKind = Literal["file", "table", "kafka", "foreach_batch", "none", "unknown"]


@dataclass(frozen=True)
class StreamSource:
    """One streaming source of a query, as the session read it.

    Attributes:
        format: The source's format (``json``, ``kafka``, ``rate``...), lower case; ``None`` for
            a catalog table read with ``readStream.table``.
        paths: The folders it reads, as given.
        options: Its options (``subscribe``, ``kafka.bootstrap.servers``...).
        table: The catalog table it streams from.
        schema: Its columns, when known without a job (declared, the catalog's, Kafka's own).
    """

    format: str | None
    paths: tuple[str, ...] = ()
    options: Mapping[str, str] = field(default_factory=dict)
    table: str | None = None
    schema: list[SchemaDatasetFacetFields] | None = None


@dataclass(frozen=True)
class StreamSink:
    """The sink of a query, as the session read it from the writer.

    Attributes:
        format: The sink's format, lower case (``parquet``, ``kafka``, ``memory``...); ``None``
            when the writer names none (the session's default source, for a path or table).
        path: The folder a file sink writes (``start(path)`` or the ``path`` option).
        table: The table of ``toTable``.
        options: The writer's options.
        foreach_batch: Whether the sink is a ``foreachBatch`` function.
        query_name: ``queryName(...)``, if given.
        trigger: The trigger, in the adapter's words (``availableNow``, ``once``,
            ``processingTime=10 seconds``, ``continuous=...``), ``None`` for the default.
    """

    format: str | None
    path: str | None = None
    table: str | None = None
    options: Mapping[str, str] = field(default_factory=dict)
    foreach_batch: bool = False
    query_name: str | None = None
    trigger: str | None = None


def source_kind(source: StreamSource) -> SourceKind:
    """What a source is as a dataset (see the module)."""
    if source.table is not None:
        return "table"
    fmt = (source.format or "").lower()
    if fmt == "kafka":
        return "kafka"
    if fmt in NO_DATASET_FORMATS:
        return "none"
    if source.paths or "path" in source.options or fmt in FILE_FORMATS:
        return "file"
    return "unknown"


def sink_kind(sink: StreamSink) -> SinkKind:
    """What a sink is as a dataset (see the module)."""
    if sink.foreach_batch:
        return "foreach_batch"
    if sink.table is not None:
        return "table"
    fmt = (sink.format or "").lower()
    if fmt == "kafka":
        return "kafka"
    if fmt in NO_DATASET_FORMATS:
        return "none"
    if sink.path is not None or "path" in sink.options:
        return "file"
    return "unknown"


def stream_command(sink: StreamSink, default_format: str = "parquet") -> Command:
    """The micro-batch command Spark plans for ``sink``: it names the stream's job.

    File and table sinks (Spark's ``FileStreamSink``) and ``foreachBatch`` are data source V1
    sinks, written through ``WriteToMicroBatchDataSourceV1``; Kafka, memory, console, ``foreach``
    and ``noop`` are V2 tables, written through ``WriteToDataSourceV2``.
    """
    kind = sink_kind(sink)
    fmt = (sink.format or default_format).lower()
    v1 = kind in ("file", "table", "foreach_batch") or (kind == "unknown" and fmt in FILE_FORMATS)
    return COMMANDS["WriteToMicroBatchDataSourceV1" if v1 else "WriteToDataSourceV2"]


# ----------------------------------------------------------------------------------- Kafka

# The Kafka source's columns are the batch reads' (``headers`` too with ``includeHeaders``).
_KAFKA_HEADERS: SchemaDatasetFacetFields = {
    "name": "headers",
    "type": "array",
    "fields": [
        {
            "name": "element",
            "type": "struct",
            "fields": [{"name": "key", "type": "string"}, {"name": "value", "type": "binary"}],
        }
    ],
}


def kafka_namespace(options: Mapping[str, str]) -> str | None:
    """``kafka://{host}:{port}`` of the first bootstrap server, or ``None`` when none is given.

    Named as batch reads and writes are (:func:`~openlineage_sdk.spark.describe._kafka.
    kafka_namespace`, the agent's ``KafkaBootstrapServerResolver``).
    """
    servers = _option(options, "kafka.bootstrap.servers")
    return batch_kafka_namespace(servers) if servers else None


def kafka_topics(options: Mapping[str, str], *, sink: bool = False) -> list[str] | None:
    """The topics a Kafka source reads (``subscribe``, ``assign``) or a sink writes (``topic``).

    ``None`` when the options do not name them (``subscribePattern``, or a sink whose rows carry
    their own topic): they are learned from what the micro-batches report, or not at all.
    """
    if sink:
        topic = _option(options, "topic")
        return [topic] if topic else None
    subscribe = _option(options, "subscribe")
    if subscribe:
        return [t.strip() for t in subscribe.split(",") if t.strip()]
    assign = _option(options, "assign")
    if assign:
        try:
            assigned = json.loads(assign)
        except ValueError:
            return None
        return [str(t) for t in assigned] if isinstance(assigned, dict) else None
    return None


def kafka_source_schema(options: Mapping[str, str]) -> list[SchemaDatasetFacetFields]:
    """The Kafka source's columns (with ``headers`` when ``includeHeaders`` is true)."""
    fields = list(KAFKA_SOURCE_SCHEMA)
    if (_option(options, "includeHeaders") or "").lower() == "true":
        fields.append(_KAFKA_HEADERS)
    return fields


def kafka_offset_topics(offset: Any) -> list[str]:
    """The topics in a Kafka source's offsets, as a micro-batch's progress reports them.

    The offsets are ``{"topic": {"partition": offset}}``, as JSON text or already read.
    """
    if isinstance(offset, str):
        try:
            offset = json.loads(offset)
        except ValueError:
            return []
    if not isinstance(offset, dict):
        return []
    return [str(topic) for topic, partitions in offset.items() if isinstance(partitions, dict)]


def _option(options: Mapping[str, str], key: str) -> str | None:
    """An option by its key, case-insensitively, as Spark reads data source options."""
    value = options.get(key)
    if value is None:
        lowered = key.lower()
        value = next((v for k, v in options.items() if k.lower() == lowered), None)
    return value


# ----------------------------------------------------------------------------------- progress

_DESCRIBED_PATH = re.compile(r"^\w+\[(?P<path>.+)\]$")


def source_matches(description: str, source: StreamSource, locations: list[str]) -> bool:
    """Whether a progress report's source ``description`` is ``source``.

    A file source describes itself as ``FileStreamSource[{qualified folder}]``; ``locations``
    are the source's folders as the adapter qualified them. A Kafka source names its
    subscription (``KafkaV2[Subscribe[orders]]``).
    """
    kind = source_kind(source)
    if kind in ("file", "table"):
        found = _DESCRIBED_PATH.match(description.strip())
        if found is None or not description.startswith("FileStreamSource"):
            return False
        described = found.group("path").rstrip("/")
        return any(
            described == location.rstrip("/") or described.endswith(location.rstrip("/"))
            for location in locations
        )
    if kind == "kafka":
        return description.startswith("Kafka")
    return False
