"""RDDs (classic PySpark): what an RDD reads and writes, and how the JVM agent names its job.

An RDD never passes through a DataFrame writer or a SQL statement, so neither the writer wrappers
nor the query execution listener see it. Two places do:

* **RDD writes.** PySpark's ``RDD.saveAsTextFile``, ``saveAsPickleFile``, ``saveAsSequenceFile``
  and the four Hadoop writers are wrapped (once, by ``install``), as the DataFrame writers are. A
  call on an RDD of a session the adapter is installed on becomes a run: its output is the
  folder written (its name trimmed of date and partition folders, as every dataset's), its
  inputs the files the RDD's lineage reads, and its job is named as the JVM agent names RDD
  jobs. The statistics come from Spark's status store once the save returned: the rows and
  bytes its stages read and wrote, for the jobs that carry the job tag the adapter set on its
  own thread while the save ran (a tag is added beside the user's, never in place of them).
* **DataFrames made from RDDs** (``rdd.toDF()``, ``createDataFrame(rdd)``, a DataFrame's
  ``.rdd`` made a DataFrame again): their plans have a ``LogicalRDD`` leaf, whose RDD's lineage
  leads to the files it reads, found the same way (:func:`rdd_inputs`).

What an RDD reads is found by walking its dependencies in the driver's JVM down to the RDDs that
read files, as the JVM agent does: a ``HadoopRDD`` or ``NewHadoopRDD`` (``textFile``,
``hadoopFile``..., its job configuration's input paths, a file standing for its folder), a
``FileScanRDD`` (a DataFrame's file scan, the folders of the files it scans). Nothing runs on the
cluster: the RDD objects exist on the driver, and reading their fields is a handful of py4j calls.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from openlineage_sdk.spark._execution import DatasetIdentity
from openlineage_sdk.spark.describe._rdd_writers import RDD_SAVE_METHODS, save_path
from openlineage_sdk.spark.session.classic._jvm import as_list, path_uri

__all__ = [
    "RDD_SAVE_METHODS",
    "RddStats",
    "final_rdd_name",
    "job_stats",
    "rdd_inputs",
    "rdd_job_suffix",
    "save_path",
    "source_jrdd",
]

log = logging.getLogger("openlineage_sdk.spark")

# Bounds on the walk, so a huge lineage or a scan of many files costs bounded time.
_MAX_RDDS = 500
_MAX_FILES = 1000
# The JVM agent cuts the dependencies' part of a job name at this length.
_MAX_NAME = 100


def source_jrdd(rdd: Any) -> Any:
    """The JVM RDD a save of ``rdd`` starts from: what its Python pipeline reads.

    A save adds Python functions to ``rdd``'s pipeline; PySpark runs the whole pipeline as one
    ``PythonRDD`` over the JVM RDD the pipeline began with, which this returns without building
    that ``PythonRDD`` (which would serialize the pipeline's functions once more).
    """
    from pyspark.rdd import PipelinedRDD

    if isinstance(rdd, PipelinedRDD) and rdd._is_pipelinable():
        return rdd._prev_jrdd
    return rdd._jrdd


# ------------------------------------------------------------------------------------- naming

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _class_part(simple_name: str) -> str:
    """``MapPartitionsRDD`` → ``map_partitions``, as the agent names an RDD without a name."""
    base = re.sub(r"RDD\d*$", "", simple_name)
    return _CAMEL.sub("_", base).lower()


def _joined(own: str, dependencies: list[str]) -> str:
    """An RDD's name part followed by its dependencies' (the agent's rule)."""
    if not dependencies:
        return own
    joined = "_".join(dependencies)[:_MAX_NAME]
    return joined if joined.startswith(own) else f"{own}_{joined}"


class _Walk:
    """One walk of a JVM RDD's lineage: each RDD's class, name and dependencies, read once."""

    def __init__(self, jvm: Any) -> None:
        self.jvm = jvm
        self.seen: dict[int, tuple[Any, str, str | None, list[Any]]] = {}
        self.truncated = False

    def node(self, rdd: Any) -> tuple[Any, str, str | None, list[Any]]:
        key = int(rdd.id())
        found = self.seen.get(key)
        if found is None:
            if len(self.seen) >= _MAX_RDDS:
                self.truncated = True
                return rdd, "", None, []

            name = rdd.name()
            parents = [d.rdd() for d in as_list(self.jvm, rdd.dependencies())]
            found = (
                rdd,
                str(rdd.getClass().getSimpleName()),
                None if name is None else str(name),
                parents,
            )
            self.seen[key] = found
        return found

    def all(self, root: Any) -> list[tuple[Any, str, str | None, list[Any]]]:
        stack, order, visited = [root], [], set()
        while stack:
            node = self.node(stack.pop())
            key = int(node[0].id())
            if key in visited:
                continue
            visited.add(key)
            order.append(node)
            stack.extend(node[3])
        return order


def _rdd_name(walk: _Walk, rdd: Any, depth: int = 0) -> str:
    _, kind, name, parents = walk.node(rdd)
    own = name
    if own is None or depth > 64:
        own = _class_part(kind)
    elif kind == "HadoopRDD" and any(own in p for p in _hadoop_input_paths(walk.jvm, rdd)):
        own = _class_part(kind)  # a HadoopRDD is named after its path: not part of a job name
    elif kind == "MapPartitionsRDD" and parents and walk.node(parents[0])[2] == own:
        own = _class_part(kind)  # textFile names the mapped RDD after its HadoopRDD's path
    if depth > 64:
        return own
    return _joined(own, [_rdd_name(walk, p, depth + 1) for p in parents])


def rdd_job_suffix(jvm: Any, source: Any) -> str:
    """The job-name part the JVM agent gives a save of the RDD whose pipeline reads ``source``.

    The agent names an RDD job after its final RDD and that RDD's dependencies: each RDD by its
    name, or by its class in snake case (``map_partitions``, ``python``, ``hadoop``) when it has
    none. Every PySpark save runs the pipeline as a ``PythonRDD`` over ``source`` and maps it
    to Hadoop records (``map_partitions``): so ``rdd.setName("words").map(f).saveAsTextFile(p)``
    is ``map_partitions_python_words``.
    """
    walk = _Walk(jvm)
    return _joined("map_partitions", [_joined("python", [_rdd_name(walk, source)])])


def final_rdd_name(jvm: Any, final_rdd: Any) -> str:
    """The job-name part the JVM agent gives a job whose final RDD is the JVM RDD ``final_rdd``
    (one started from JVM code: no PySpark pipeline above it), by the same rule."""
    return _rdd_name(_Walk(jvm), final_rdd)


# ------------------------------------------------------------------------------------- inputs


def _hadoop_input_paths(jvm: Any, rdd: Any) -> list[str]:
    paths = jvm.org.apache.hadoop.mapred.FileInputFormat.getInputPaths(rdd.getJobConf())
    return [str(paths[i].toString()) for i in range(len(paths))]


def _directories(jvm: Any, paths: list[Any], conf: Any) -> list[Any]:
    """Each path as the folder it stands for: a file's parent, a folder itself (the agent's)."""
    found: dict[str, Any] = {}
    for path in paths:
        parent = path.getParent()
        if parent is not None and str(parent.toString()) in found:
            continue
        folder = path
        try:
            if path.getFileSystem(conf).getFileStatus(path).isFile():
                folder = parent
        except Exception as error:  # a glob or a path that is gone: named as given
            log.debug("openlineage: reading %s failed: %s", path, error)
        found.setdefault(str(folder.toString()), folder)
    return list(found.values())


def _qualified(conf: Any, path: Any) -> str:
    return path_uri(path.getFileSystem(conf).makeQualified(path))


@dataclass
class RddInputs:
    """What an RDD's lineage reads, and what could not be learned."""

    identities: list[DatasetIdentity] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def rdd_inputs(jvm: Any, root: Any) -> RddInputs:
    """The datasets the JVM RDD ``root`` reads, through its dependencies (see the module doc)."""
    conf = root.sparkContext().hadoopConfiguration()
    walk = _Walk(jvm)
    found = RddInputs()
    uris: list[str] = []
    files = [_MAX_FILES]
    for rdd, kind, _, _ in walk.all(root):
        try:
            if kind == "HadoopRDD":
                paths = jvm.org.apache.hadoop.mapred.FileInputFormat.getInputPaths(rdd.getJobConf())
                folders = _directories(jvm, [paths[i] for i in range(len(paths))], rdd.getConf())
                uris.extend(_qualified(conf, f) for f in folders)
            elif kind == "NewHadoopRDD":
                job = jvm.org.apache.hadoop.mapreduce.Job.getInstance(rdd.getConf())
                paths = jvm.org.apache.hadoop.mapreduce.lib.input.FileInputFormat.getInputPaths(job)
                folders = _directories(jvm, [paths[i] for i in range(len(paths))], rdd.getConf())
                uris.extend(_qualified(conf, f) for f in folders)
            elif kind == "FileScanRDD":
                uris.extend(_scanned_folders(jvm, rdd, files))
            elif kind == "DataSourceRDD":
                found.problems.append(
                    "input DataSourceRDD: a v2 source read by an RDD is not named"
                )
        except Exception as error:  # one unreadable RDD must not hide the rest
            found.problems.append(f"input {kind}: {error}")
    if walk.truncated:
        found.problems.append(f"inputs: the RDD lineage has more than {_MAX_RDDS} RDDs")
    if files[0] < 0:
        found.problems.append(f"inputs: only the first {_MAX_FILES} files scanned were named")
    seen: set[tuple[str, str]] = set()
    for uri in uris:
        try:
            identity = DatasetIdentity.from_uri(uri)
        except Exception as error:
            found.problems.append(f"input {uri}: {error}")
            continue
        if (identity.namespace, identity.name) not in seen:
            seen.add((identity.namespace, identity.name))
            found.identities.append(identity)
    return found


def _scanned_folders(jvm: Any, rdd: Any, budget: list[int]) -> list[str]:
    """The folders of the files a ``FileScanRDD`` reads (at most ``budget`` files, shared)."""
    folders: dict[str, None] = {}
    for partition in as_list(jvm, rdd.filePartitions()):
        files = partition.files()
        for i in range(len(files)):
            budget[0] -= 1
            if budget[0] < 0:
                return list(folders)
            parent = files[i].toPath().getParent()
            if parent is not None:
                folders.setdefault(path_uri(parent), None)
    return list(folders)


# ------------------------------------------------------------------------------------- metrics


@dataclass(frozen=True)
class RddStats:
    """What the jobs of one save read and wrote, summed over their stages."""

    input_records: int
    input_bytes: int
    output_records: int
    output_bytes: int


def job_stats(spark: Any, tag: str) -> RddStats | None:
    """The summed stage metrics of the jobs tagged ``tag``, from Spark's status store.

    ``None`` when no job carried the tag. Call after the listener bus drained, so the status
    store has every stage's final metrics.
    """
    sc = spark._jsc.sc()
    ids = sc.statusTracker().getJobIdsForTag(tag)
    store = sc.statusStore()
    totals = [0, 0, 0, 0]
    jobs = 0
    for i in range(len(ids)):
        job = store.job(ids[i])
        jobs += 1
        for stage_id in as_list(spark._jvm, job.stageIds()):
            try:
                stage = store.lastStageAttempt(stage_id)
            except Exception:  # a stage that never ran (skipped) has no attempt
                continue
            totals[0] += int(stage.inputRecords())
            totals[1] += int(stage.inputBytes())
            totals[2] += int(stage.outputRecords())
            totals[3] += int(stage.outputBytes())
    if not jobs:
        return None
    return RddStats(*totals)
