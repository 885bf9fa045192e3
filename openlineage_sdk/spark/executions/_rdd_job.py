"""RDD jobs that write, started from JVM code: a run for each, once it ran (classic PySpark).

A ``JavaRDD`` saved from JVM code (``df._jdf.javaRDD().saveAsTextFile(...)``, a Scala library's
``saveAsHadoopFile``) passes no PySpark method the adapter wraps. The session hears the job on
Spark's listener bus once it ended (``session.classic._rdd_jobs``) and describes it as the JVM
agent's ``RddExecutionContext`` does: the job named after its final RDD and that RDD's
dependencies, the folder it wrote, the files its lineage read, its tasks' statistics. START
(dated when the job started) and its end go out together.
"""

from __future__ import annotations

import logging

from openlineage_sdk.spark._execution import SparkExecution
from openlineage_sdk.spark._flow import LineageSink, report_done
from openlineage_sdk.spark.session import Session

__all__ = ["RddJobError", "report_heard_rdd_job"]

log = logging.getLogger("openlineage_sdk.spark")


class RddJobError(Exception):
    """An RDD job started from JVM code failed; the message is the JVM exception's."""


def report_heard_rdd_job(
    session: Session,
    reporter: LineageSink,
    execution: SparkExecution,
    job: object,
    failure: str | None,
) -> None:
    """Report an RDD job that wrote files, heard with no observed call.

    Args:
        session: The session that heard it.
        reporter: Where the run's events go.
        execution: A new record for it.
        job: The job as the session heard it (a handle for ``Session.rdd_job_lineage``).
        failure: The message of the exception it failed with, ``None`` when it succeeded.
    """
    try:
        if failure is not None:
            execution.error = RddJobError(failure)
        session.rdd_job_lineage(execution, job)
    except Exception as error:  # never let an exception travel back into Spark
        log.debug("openlineage: reporting an RDD job started from JVM code failed: %s", error)
        return
    report_done(reporter, execution)
