"""py4j: reading the driver's JVM from Python, in few and short round trips.

Only code in ``session.classic`` touches the JVM, and only in classic mode (under Spark Connect
there is no JVM on the client). Each call of a JVM method through py4j is a round trip; these
helpers keep them few (classes looked up once per gateway, lists read by index) and short (long
answers read in pieces that each fit one py4j write: see :func:`jvm_json`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from py4j.java_gateway import JavaClass

__all__ = [
    "JvmClasses",
    "as_list",
    "declared_field",
    "frame_schema",
    "jvm_json",
    "jvm_writer_settings",
    "option",
    "path_uri",
    "qualify_path",
    "sql_text",
    "writer_settings",
]

log = logging.getLogger("openlineage_sdk.spark")


class JvmClasses:
    """JVM classes the adapter calls, looked up once.

    Each step of a py4j package path (``jvm.scala.jdk...``) is a round trip to the JVM, so a
    class is resolved once per gateway rather than on every use.
    """

    _cache: dict[int, JvmClasses] = {}  # noqa: RUF012 - a process-wide cache by gateway

    def __init__(self, jvm: Any) -> None:
        # Static methods, held: each lookup of a member of a class is a round trip of its own.
        # Scala 2.13's converters (Spark 4) where the JVM has them, else 2.12's (Spark 3), which
        # spell a Seq's and a Map's apart; py4j answers a package for a class it cannot find.
        converters = jvm.scala.jdk.javaapi.CollectionConverters
        if isinstance(converters, JavaClass):
            self.as_java_list = self.as_java_map = converters.asJava
        else:
            older = jvm.scala.collection.JavaConverters
            self.as_java_list = older.seqAsJavaList
            self.as_java_map = older.mapAsJavaMap
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
    def of(cls, jvm: Any) -> JvmClasses:
        found = cls._cache.get(id(jvm))
        if found is None:
            found = cls._cache[id(jvm)] = cls(jvm)
        return found


# Characters per piece of a long text read from the JVM: all ASCII, at most two bytes each once
# py4j escapes them, so a piece and its line's framing fit py4j's 8 KiB write buffer.
_PIECE = 4000
# Above this many pieces, one long answer (one delayed write) costs less than the round trips.
_MOST_PIECES = 64


def jvm_json(jvm: Any, value: Any, fallback: Callable[[], str]) -> str:
    """The JSON text of a JVM plan node or data type (what its ``toJSON`` or ``json`` gives).

    py4j sends each answer as one line through an 8 KiB buffer. A longer answer leaves in two
    writes, and the second waits for the peer to acknowledge the first, which the Python side
    delays (Nagle's algorithm against delayed ACKs): measured, every answer over 8 KiB took
    44 ms more, whatever its length, and a plan's JSON passes 8 KiB soon (a four-column
    ``INSERT ... SELECT ... WHERE``: 9.3 KB). So the JSON is written on the JVM side, into a
    buffer, in ASCII (other characters as ``\\u`` escapes, which JSON reads back as they
    were), and read in pieces that each fit one write. A text of more than ``_MOST_PIECES``
    pieces (a plan hundreds of columns wide) is read as one answer: its one delay costs less
    than that many round trips (measured on a 5,000-column plan's 4.7 MB: 0.04 to 0.13 s whole,
    0.13 to 0.27 s in pieces, on a quiet machine; far more in pieces on a loaded one).
    ``fallback`` (the one long answer) is used if that fails.
    """
    try:
        classes = JvmClasses.of(jvm)
        writer = classes.string_writer()
        classes.json_writer().writeValue(writer, value.jsonValue())
        buffer = writer.getBuffer()
        size = int(buffer.length())
        if size > _PIECE * _MOST_PIECES:
            return str(buffer.toString())
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


def as_list(jvm: Any, seq: Any) -> list[Any]:
    """A Scala ``Seq`` as a Python list.

    Indexing by ``size()`` rather than iterating the py4j list proxy: the proxy finds the end
    of a list by provoking an exception in the JVM, which alone costs some 20 ms.
    """
    java_list = JvmClasses.of(jvm).as_java_list(seq)
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
    hadoop_path = JvmClasses.of(spark._jvm).hadoop_path(path)
    conf = spark._jsc.hadoopConfiguration()
    return path_uri(hadoop_path.getFileSystem(conf).makeQualified(hadoop_path))


def option(value: Any) -> Any:
    return value.get() if value.isDefined() else None


def sql_text(jvm: Any, plan: Any, limit: int = 16) -> str | None:
    """The SQL text a logical plan was parsed from, as the JVM agent finds it.

    The agent walks the plan breadth-first for the first node whose origin holds the text Spark
    parsed (``spark.sql(...)``'s query; a write built from it has it one level down). Each node
    costs a few round trips, so the walk stops after ``limit`` nodes: a plan built in code
    (``spark.read...``) has no such node, and the text of a query lies near the top.
    """
    queue = [plan]
    visited = 0
    while queue and visited < limit:
        node = queue.pop(0)
        visited += 1
        text = option(node.origin().sqlText())
        if text is not None:
            return str(text)
        queue.extend(as_list(jvm, node.children()))
    return None


def jvm_writer_settings(jwrite: Any) -> tuple[str | None, dict[str, str]]:
    """``(source, options)`` of a JVM ``DataFrameWriter`` (Spark 4's).

    They are protected members of Spark 4's writer, which Scala compiles to public accessors.
    """
    return writer_settings(jwrite.source(), jwrite.extraOptions())


def writer_settings(source: Any, extra_options: Any) -> tuple[str | None, dict[str, str]]:
    """``(source, options)`` from a JVM writer's ``source`` and ``extraOptions`` (a Scala map)."""
    options: dict[str, str] = {}
    iterator = extra_options.iterator()
    while iterator.hasNext():
        pair = iterator.next()
        options[str(pair._1())] = str(pair._2())
    return (str(source) if source is not None else None), options


def declared_field(obj: Any, name: str) -> Any:
    """The value of a JVM object's field ``name`` of its own class, private or not (reflection)."""
    field = obj.getClass().getDeclaredField(name)
    field.setAccessible(True)
    return field.get(obj)
