"""RDD saves (classic PySpark): each save of an RDD of an installed session is a run of its own.

PySpark's ``RDD`` save methods (``saveAsTextFile``, ``saveAsPickleFile``, the Hadoop writers ...)
are wrapped once for the process, as the DataFrame writers are; a save of an RDD whose
SparkContext belongs to a session the adapter is installed on is described by that session
(``session.classic``: the output folder, the inputs its lineage reads, the job name the agent
gives RDD jobs, the statistics of the jobs it ran). A Spark Connect client has no RDDs.

An RDD saved from JVM code (``rdd._jrdd.saveAsTextFile``, a Scala library's save) passes none
of those methods: the session hears its job on Spark's listener bus once it ended, and it is
reported then (:func:`listen_for_jvm_rdd_jobs`). A save the wrapper observes tags its jobs, and
the session does not hand those over: one run per save.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from openlineage_sdk.spark._flow import inside_adapter, run_observed
from openlineage_sdk.spark.describe._rdd_writers import RDD_SAVE_METHODS
from openlineage_sdk.spark.executions import RddSave, report_heard_rdd_job
from openlineage_sdk.spark.observe._hooks import Adapter, adapters, wrap_once

__all__ = ["hook_rdd_saves", "listen_for_jvm_rdd_jobs"]


def hook_rdd_saves() -> None:
    """Wrap PySpark's RDD save methods, once for the process."""
    from pyspark.rdd import RDD

    for method in RDD_SAVE_METHODS:
        wrap_once(RDD, method, functools.partial(_wrapper, method))


def _adapter_of_rdd(rdd: Any) -> Adapter | None:
    """The adapter of the classic session whose SparkContext ``rdd`` belongs to."""
    if getattr(rdd, "ctx", None) is None or inside_adapter():
        return None
    for adapter in adapters():
        if adapter.session.owns_rdd(rdd):
            return adapter
    return None


def _wrapper(method: str, original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def save(self: Any, *args: Any, **kwargs: Any) -> Any:
        adapter = _adapter_of_rdd(self)
        if adapter is None:
            return original(self, *args, **kwargs)
        execution = adapter.execution(method)
        description = RddSave(adapter.session, execution, self, method, args, kwargs)
        return run_observed(
            adapter.reporter,
            execution,
            description,
            functools.partial(original, self, *args, **kwargs),
        )

    return save


def listen_for_jvm_rdd_jobs(adapter: Adapter) -> None:
    """Report the RDD jobs that wrote files a classic session hears that no observed save ran:
    those started from JVM code (``executions._rdd_job``), under the application run."""
    session = adapter.session

    def job_ended(job: object, failure: str | None) -> None:
        execution = adapter.execution("rdd_job")
        if execution.parent is None:
            # The application run open now (``application_run``), else the sink's default.
            application = getattr(adapter.reporter, "heard_parent", None)
            if application is not None:
                execution.parent = application.ref
        report_heard_rdd_job(session, adapter.reporter, execution, job, failure)

    session.listen_for_rdd_jobs(job_ended)
