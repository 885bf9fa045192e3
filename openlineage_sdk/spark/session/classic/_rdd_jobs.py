"""RDD jobs that write, started from JVM code (classic PySpark): heard on Spark's listener bus.

A save of a ``JavaRDD`` (``df._jdf.javaRDD().saveAsTextFile(...)``, ``rdd._jrdd.saveAs...``, a
Scala library's ``rdd.saveAsHadoopFile``) passes none of PySpark's ``RDD`` methods the adapter
wraps, and runs no SQL execution, so the ``QueryExecutionListener`` does not hear it either. The
JVM agent hears it as a job on the listener bus (its ``RddExecutionContext``). So does this
module, with a ``SparkListener`` of its own in the driver's JVM.

A ``SparkListener`` implemented in Python would be called through py4j for every event of the
bus (each task's start and end, each executor heartbeat): a cost per task, on the bus thread
every listener of the shared queue waits on. So the listener is a small Java class, compiled in
the driver's JVM when the adapter is installed, by the Janino compiler Spark itself ships (and
compiles its generated code with). It keeps in the JVM what the JVM answers cheaply, and calls
Python once per job that wrote files, at its end:

* a job Spark started for a SQL execution (``spark.sql.execution.id``) is not its kind: the
  ``QueryExecutionListener`` describes those; a job of a save the adapter's RDD hook observes
  (tagged ``openlineage-sdk-N`` on the user's thread) is that hook's;
* at a job's start, while its ``ActiveJob`` is still the scheduler's, it reads the job's final
  RDD and, as the agent does, the Hadoop write configuration the final stage's function holds
  (``HadoopMapRedWriteConfigUtil`` or ``HadoopMapReduceWriteConfigUtil``): its output folder.
  A job whose function holds none writes no files (``count``, ``collect``, ``foreach``), and is
  forgotten there, as the agent skips a job without outputs;
* while it runs, it sums its tasks' input and output metrics (the agent's ``JobMetricsHolder``);
* at its end, Python gets the job's id, start and end times, final RDD, output folder, sums and
  failure, and describes the rest (the job name, the inputs of the RDD's lineage) by the same
  readers as an RDD save the hook observed (``_rdd_lineage``).

Compiling costs about a second once per process; a driver without Janino (or where compiling
fails) gets no such runs, and a warning says so.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from openlineage_sdk.spark.session.classic._rdd_lineage import RddStats

__all__ = ["TAG_PREFIX", "HeardRddJob", "RddJobRelay"]

log = logging.getLogger("openlineage_sdk.spark")

#: The prefix of the job tags the adapter's RDD save hook sets: such a job is the hook's run.
TAG_PREFIX = "openlineage-sdk-"

_CLASS = "OpenLineageSdkRddJobRelay"

# The listener, as Janino compiles it (Java 8 syntax without generics or lambdas). Every event
# handler catches everything: an exception must never travel into Spark's listener bus.
_SOURCE = """
import org.apache.spark.scheduler.*;

public class OpenLineageSdkRddJobRelay extends SparkListener {
  private volatile java.util.function.Consumer sink;
  private org.apache.spark.SparkContext context;
  private final java.util.Map jobs = new java.util.concurrent.ConcurrentHashMap();
  private final java.util.Map stages = new java.util.concurrent.ConcurrentHashMap();

  public void open(org.apache.spark.SparkContext context, java.util.function.Consumer sink) {
    this.context = context;
    this.sink = sink;
  }

  public void close() {
    sink = null;
    jobs.clear();
    stages.clear();
  }

  private static Object writeConfig(Object function) throws Exception {
    java.lang.reflect.Field[] fields = function.getClass().getDeclaredFields();
    for (int i = 0; i < fields.length; i++) {
      fields[i].setAccessible(true);
      Object value = fields[i].get(function);
      if (value instanceof org.apache.spark.internal.io.HadoopWriteConfigUtil) return value;
    }
    return null;
  }

  private static String outputPath(Object config) throws Exception {
    java.lang.reflect.Field field = config.getClass().getDeclaredField("conf");
    field.setAccessible(true);
    Object holder = field.get(config);
    org.apache.hadoop.conf.Configuration conf = (org.apache.hadoop.conf.Configuration)
        holder.getClass().getMethod("value", new Class[0]).invoke(holder, new Object[0]);
    org.apache.hadoop.fs.Path path = org.apache.hadoop.mapred.FileOutputFormat.getOutputPath(
        new org.apache.hadoop.mapred.JobConf(conf));
    if (path == null) {
      path = org.apache.hadoop.mapreduce.lib.output.FileOutputFormat.getOutputPath(
          org.apache.hadoop.mapreduce.Job.getInstance(conf));
    }
    return path == null ? null : path.toString();
  }

  public void onJobStart(SparkListenerJobStart event) {
    try {
      if (sink == null) return;
      java.util.Properties properties = event.properties();
      if (properties != null) {
        if (properties.getProperty("spark.sql.execution.id") != null) return;
        String tags = properties.getProperty("spark.job.tags");
        if (tags != null && tags.indexOf("TAG_PREFIX") >= 0) return;
      }
      scala.Option found = context.dagScheduler().jobIdToActiveJob().get(
          Integer.valueOf(event.jobId()));
      if (found.isEmpty()) return;
      ActiveJob job = (ActiveJob) found.get();
      if (!(job.finalStage() instanceof ResultStage)) return;
      Object config = writeConfig(((ResultStage) job.finalStage()).func());
      if (config == null) return;
      String output = outputPath(config);
      if (output == null) return;
      long[] totals = new long[4];
      jobs.put(Integer.valueOf(event.jobId()),
          new Object[] {Long.valueOf(event.time()), job.finalStage().rdd(), output, totals});
      scala.collection.Iterator ids = event.stageIds().iterator();
      while (ids.hasNext()) stages.put(ids.next(), totals);
    } catch (Throwable error) {
      // a job not read is a job not reported
    }
  }

  public void onTaskEnd(SparkListenerTaskEnd event) {
    try {
      if (stages.isEmpty()) return;
      long[] totals = (long[]) stages.get(Integer.valueOf(event.stageId()));
      org.apache.spark.executor.TaskMetrics metrics = event.taskMetrics();
      if (totals == null || metrics == null) return;
      synchronized (totals) {
        totals[0] += metrics.inputMetrics().recordsRead();
        totals[1] += metrics.inputMetrics().bytesRead();
        totals[2] += metrics.outputMetrics().recordsWritten();
        totals[3] += metrics.outputMetrics().bytesWritten();
      }
    } catch (Throwable error) {
      // statistics left out
    }
  }

  public void onJobEnd(SparkListenerJobEnd event) {
    try {
      Object[] started = (Object[]) jobs.remove(Integer.valueOf(event.jobId()));
      if (started == null) return;
      java.util.Iterator values = stages.values().iterator();
      while (values.hasNext()) if (values.next() == started[3]) values.remove();
      java.util.function.Consumer to = sink;
      if (to == null) return;
      String failure = null;
      if (event.jobResult() instanceof JobFailed) {
        Throwable exception = ((JobFailed) event.jobResult()).exception();
        failure = exception.getMessage() == null ? exception.toString() : exception.getMessage();
      }
      to.accept(new Object[] {Integer.valueOf(event.jobId()), started[0],
          Long.valueOf(event.time()), started[1], started[2], started[3], failure});
    } catch (Throwable error) {
      // a job not handed over is a job not reported
    }
  }
}
""".replace("TAG_PREFIX", TAG_PREFIX)

_compile_lock = threading.Lock()
# The compiled class, per JVM (py4j gateway): compiled once per process and driver.
_compiled: dict[int, tuple[Any, Any]] = {}


@dataclass
class HeardRddJob:
    """A job that wrote files, heard once it ended, with no SQL execution and no hook of ours.

    Attributes:
        job_id: Spark's id of the job.
        began_ms: When it started (epoch milliseconds).
        ended_ms: When it ended (epoch milliseconds).
        final_rdd: The JVM RDD its final stage computes (the RDD written).
        output: The output folder, as the job's Hadoop configuration names it (qualified).
        stats: Its tasks' input and output metrics, summed.
        failure: The message of the exception it failed with, ``None`` when it succeeded.
    """

    job_id: int
    began_ms: int
    ended_ms: int
    final_rdd: Any
    output: str
    stats: RddStats
    failure: str | None


def _relay_class(spark: Any) -> Any:
    gateway = spark.sparkContext._gateway
    with _compile_lock:
        found = _compiled.get(id(gateway))
        if found is not None and found[0] is gateway:
            return found[1]
        jvm = spark._jvm
        compiler = jvm.org.codehaus.janino.SimpleCompiler()
        compiler.setParentClassLoader(
            jvm.org.apache.spark.util.Utils.getContextOrSparkClassLoader()
        )
        compiler.cook(_SOURCE)
        relay_class = compiler.getClassLoader().loadClass(_CLASS)
        _compiled[id(gateway)] = (gateway, relay_class)
        return relay_class


class RddJobRelay:
    """The JVM listener of RDD jobs that write (see the module), registered until :meth:`remove`.

    Args:
        spark: The classic session whose SparkContext it listens to.
        on_job: Called (on Spark's listener bus thread) with each job heard.
    """

    def __init__(self, spark: Any, on_job: Callable[[HeardRddJob], None]) -> None:
        self._on_job: Callable[[HeardRddJob], None] | None = on_job
        relay_class = _relay_class(spark)
        no_arguments = spark.sparkContext._gateway.new_array(spark._jvm.java.lang.Object, 0)
        self._relay: Any = relay_class.getConstructors()[0].newInstance(no_arguments)
        self._context: Any = spark.sparkContext._jsc.sc()
        self._relay.open(self._context, self)  # the one JVM proxy of this object
        self._context.addSparkListener(self._relay)

    def remove(self) -> None:
        """Stop listening: the JVM listener forgets what it holds and is unregistered."""
        self._on_job = None
        relay, self._relay = self._relay, None
        if relay is None:
            return
        relay.close()
        self._context.removeSparkListener(relay)

    # -- the JVM's side (py4j calls it on the listener bus thread)

    def accept(self, values: Any) -> None:
        """One job heard: ``[id, began ms, ended ms, final RDD, output, sums, failure]``."""
        on_job = self._on_job
        if on_job is None:
            return
        try:
            totals = values[5]
            job = HeardRddJob(
                job_id=int(values[0]),
                began_ms=int(values[1]),
                ended_ms=int(values[2]),
                final_rdd=values[3],
                output=str(values[4]),
                stats=RddStats(int(totals[0]), int(totals[1]), int(totals[2]), int(totals[3])),
                failure=None if values[6] is None else str(values[6]),
            )
            on_job(job)
        except Exception as error:  # never let an exception travel back into Spark
            log.debug("openlineage: reporting an RDD job started from JVM code failed: %s", error)

    class Java:
        implements = ["java.util.function.Consumer"]  # noqa: RUF012
