"""Classic PySpark: a streaming query's sources, sink and progress, through py4j.

* The sources are the ``StreamingRelation`` (data source V1: files, catalog tables) and
  ``StreamingRelationV2`` (``rate``, Kafka, V2 tables) leaves of the streaming DataFrame's
  analyzed plan, which the driver analysed when the DataFrame was made: their format, paths,
  options, table and columns are read from them, with no Spark job. Static relations beside
  them (a stream joined with a table) are read as any batch plan's leaves.
* The sink's settings are the private fields of the JVM ``DataStreamWriter`` (``source``,
  ``extraOptions``, ``foreachBatchWriter``, ``sinkName``), read by reflection.
* Counting the rows a file or table sink writes: the writer is copied, field by field, onto
  the same DataFrame with a ``count`` observation on top, for the one ``start`` call; Spark
  reports the count with each micro-batch's progress (``observedMetrics``), computed in the
  micro-batch's own job.
* The progress reports come from a streaming listener the JVM calls back into Python, read as
  the JSON Spark writes of them (one call each, rather than PySpark's field-by-field copy).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

from openlineage_sdk.spark._execution import DatasetLineage
from openlineage_sdk.spark._inside import adapter_work
from openlineage_sdk.spark.describe._schema import schema_fields
from openlineage_sdk.spark.describe._stream_datasets import StreamSink, StreamSource
from openlineage_sdk.spark.session._base import BatchFunction, StreamEvents
from openlineage_sdk.spark.session.classic._jvm import as_list, option
from openlineage_sdk.spark.session.classic._plan import leaf_identities

__all__ = [
    "listen_to_streams",
    "recent_progress",
    "stream_sink",
    "stream_sources",
    "stream_start",
]

log = logging.getLogger("openlineage_sdk.spark")

_STREAMING_LEAVES = ("StreamingRelation", "StreamingRelationV2")


def _scala_map(jvm_map: Any) -> dict[str, str]:
    found: dict[str, str] = {}
    iterator = jvm_map.iterator()
    while iterator.hasNext():
        pair = iterator.next()
        found[str(pair._1())] = str(pair._2())
    return found


def _java_map(jvm_map: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in dict(jvm_map).items()}


def _leaf_schema(leaf: Any) -> Any:
    from pyspark.sql.types import StructType

    return schema_fields(StructType.fromJson(json.loads(str(leaf.schema().json()))))


def stream_sources(
    spark: Any, df: Any, hive_metastore: str | None, problems: list[str]
) -> tuple[list[StreamSource], list[DatasetLineage]]:
    """The streaming sources of a classic streaming DataFrame, and the static datasets it reads.

    The leaves are taken in the plan's pre-order, the order Spark lists a query's sources in
    its progress reports.
    """
    jvm = spark._jvm
    analyzed = df._jdf.queryExecution().analyzed()
    sources: list[StreamSource] = []
    static: list[DatasetLineage] = []
    for leaf in as_list(jvm, analyzed.collectLeaves()):
        name = str(leaf.getClass().getSimpleName())
        try:
            if name == "StreamingRelation":
                sources.append(_v1_source(leaf))
            elif name == "StreamingRelationV2":
                sources.append(_v2_source(leaf))
            else:
                schema = _leaf_schema(leaf)
                static.extend(
                    DatasetLineage(identity, "input", schema)
                    for identity in leaf_identities(jvm, leaf, hive_metastore)
                )
        except Exception as error:  # one unreadable relation must not hide the rest
            problems.append(f"input {name}: {type(error).__name__}: {error}")
    return sources, static


def _v1_source(leaf: Any) -> StreamSource:
    source = leaf.dataSource()
    schema = _leaf_schema(leaf)
    table = option(source.catalogTable())
    if table is not None:
        return StreamSource(None, table=str(table.identifier().unquotedString()), schema=schema)
    return StreamSource(
        str(source.className()).lower(),
        paths=tuple(_paths(source)),
        options=_scala_map(source.options()),
        schema=schema,
    )


def _paths(source: Any) -> list[str]:
    paths = source.paths()
    return [str(paths.apply(i)) for i in range(paths.size())]


def _v2_source(leaf: Any) -> StreamSource:
    identifier = option(leaf.identifier())
    catalog = option(leaf.catalog())
    if identifier is not None:
        parts = [str(catalog.name())] if catalog is not None else []
        parts.extend(str(n) for n in identifier.namespace())
        parts.append(str(identifier.name()))
        return StreamSource(None, table=".".join(parts), schema=_leaf_schema(leaf))
    options = _java_map(leaf.extraOptions().asCaseSensitiveMap())
    return StreamSource(str(leaf.sourceName()).lower(), options=options, schema=None)


# ------------------------------------------------------------------------------------ sink


def _declared(jwrite: Any, name: str) -> Any:
    """A private field of the JVM writer, by reflection."""
    field = jwrite.getClass().getDeclaredField(name)
    field.setAccessible(True)
    return field.get(jwrite)


def stream_sink(writer: Any, path: str | None, table: str | None) -> StreamSink:
    """The sink a classic ``DataStreamWriter`` will start (``path``, ``table``: ``start``'s)."""
    jwrite = writer._jwrite
    source = _declared(jwrite, "source")
    extra = _declared(jwrite, "extraOptions")
    # A CaseInsensitiveMap iterates its keys in lower case; its original map has them as given.
    options = _scala_map(extra.originalMap() if hasattr(extra, "originalMap") else extra)
    # queryName(...) is kept among the options (sinkName is another thing: a sink's own name).
    name = options.pop("queryName", None)
    return StreamSink(
        str(source).lower() if source is not None else None,
        path=path or options.get("path"),
        table=table,
        options=options,
        foreach_batch=_declared(jwrite, "foreachBatchWriter") is not None,
        query_name=str(name) if name is not None else None,
    )


def _copy_fields(jvm: Any, source: Any, target: Any, skip: tuple[str, ...]) -> None:
    """Copy the writer's settings (its instance fields but ``skip``) from one to another."""
    modifier = jvm.java.lang.reflect.Modifier
    fields = source.getClass().getDeclaredFields()
    for index in range(len(fields)):
        field = fields[index]
        name = str(field.getName())
        modifiers = field.getModifiers()
        if name in skip or modifier.isStatic(modifiers):
            continue
        if modifier.isFinal(modifiers):
            raise TypeError(f"the writer's field {name} cannot be copied")
        field.setAccessible(True)
        field.set(target, field.get(source))


@contextlib.contextmanager
def stream_start(
    spark: Any,
    writer: Any,
    rows_observation: str | None,
    batch: BatchFunction | None,
    derived: tuple[str, ...] = ("ds",),
) -> Iterator[None]:
    """The writer counting its rows and calling ``batch``, for one ``start`` (see the module).

    The user's writer is left as it was, but for what ``start`` itself set on it (its
    arguments' options, format, name), which is copied back as it would have been set.
    ``derived``: the writer's fields its constructor derives from its frame, not copied (the
    readers' ``stream_writer_derived``).
    """
    original = writer._jwrite
    swapped: Any = None
    try:
        jdf = writer._df._jdf
        if rows_observation is not None:
            # Built in the JVM: PySpark's generic functions would build Connect columns in a
            # process that also runs a Connect session.
            jvm = spark._jvm
            functions = jvm.org.apache.spark.sql.functions
            rows = functions.count(functions.lit(1)).alias("rows")
            more = jvm.org.apache.spark.api.python.PythonUtils.toSeq(jvm.java.util.ArrayList())
            jdf = jdf.observe(rows_observation, rows, more)
        if rows_observation is not None or batch is not None:
            swapped = jdf.writeStream()
            _copy_fields(spark._jvm, original, swapped, derived)
            writer._jwrite = swapped
            if batch is not None:
                with adapter_work():  # the adapter's own call: not the user's to remember
                    writer.foreachBatch(batch)
    except Exception as error:  # the stream starts as the user set it, unobserved
        log.warning("openlineage: the stream's rows and batches are not observed: %s", error)
        writer._jwrite = original
        swapped = None
    try:
        yield
    finally:
        if swapped is not None:
            writer._jwrite = original
            try:
                _copy_fields(spark._jvm, swapped, original, (*derived, "foreachBatchWriter"))
            except Exception as error:
                log.warning("openlineage: the writer's settings were not restored: %s", error)


# -------------------------------------------------------------------------------- progress


class _Listener:
    """A ``PythonStreamingQueryListener`` the JVM calls back (py4j), reading each event lean."""

    def __init__(self, events: StreamEvents) -> None:
        self.events = events

    def onQueryStarted(self, event: Any) -> None:  # noqa: N802 - the Java interface's names
        pass

    def onQueryProgress(self, event: Any) -> None:  # noqa: N802
        try:
            self.events.progress(json.loads(str(event.progress().json())))
        except Exception as error:  # never let an exception travel back into Spark
            log.debug("openlineage: a stream's progress was not read: %s", error)

    def onQueryIdle(self, event: Any) -> None:  # noqa: N802
        pass

    def onQueryTerminated(self, event: Any) -> None:  # noqa: N802
        try:
            error = option(event.exception())
            self.events.terminated(
                str(event.runId().toString()), str(error) if error is not None else None
            )
        except Exception as error:
            log.debug("openlineage: a stream's end was not read: %s", error)

    class Java:
        implements = ["org.apache.spark.sql.streaming.PythonStreamingQueryListener"]  # noqa: RUF012


def listen_to_streams(spark: Any, events: StreamEvents) -> Callable[[], None]:
    """Register a streaming listener on the session (its callback server is running)."""
    jvm = spark._jvm
    wrapper = jvm.org.apache.spark.sql.streaming.PythonStreamingQueryListenerWrapper(
        _Listener(events)
    )
    manager = spark._jsparkSession.streams()
    manager.addListener(wrapper)

    def remove() -> None:
        manager.removeListener(wrapper)

    return remove


def recent_progress(query: Any) -> list[dict[str, Any]]:
    """``query.recentProgress`` as JSON read, one call per report."""
    reports = query._jsq.recentProgress()
    return [json.loads(str(reports[i].json())) for i in range(len(reports))]
