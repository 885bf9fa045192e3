"""Classic PySpark: the Spark jobs one of the user's calls starts, for ``spark_jobDetails``.

The JVM agent builds ``spark_jobDetails`` from each ``SparkListenerJobStart``: the job's id, and
three of the properties the job was submitted with (the submitting thread's local properties):
``spark.job.description``, ``spark.jobGroup.id`` and ``callSite.short``. A Python listener for
job starts would be called through py4j for every task of every job as well (Spark's listener
interface has no per-event subscription), so the adapter reads what Spark already keeps:

- around the call, on the calling thread, the jobs it starts are tagged (``addJobTag``, a local
  property the jobs are submitted with), and the thread's ``callSite.short`` is read: the jobs
  the call starts are submitted with it (PySpark sets it only inside its own actions, such as
  ``collect``; a writer call or ``spark.sql`` runs with none, unless the user set one);
- after the call, Spark's status store (which Spark keeps for its UI whether or not the UI
  runs) gives the tagged jobs, and of the last one its id, description and group, which the
  store keeps from the same properties.

Three py4j calls on the calling thread (tag, call site, untag), and six to eight when the end is
built; nothing when ``spark_jobDetails`` is disabled.
"""

from __future__ import annotations

import itertools
import logging
from typing import Any

from openlineage_sdk.spark.session._base import JobWindow

__all__ = ["StatusReader", "TaggedJobs"]

log = logging.getLogger("openlineage_sdk.spark")

_numbers = itertools.count(1)  # next() is atomic under the GIL: one tag per window


def _option(value: Any) -> str | None:
    """A ``scala.Option[String]``'s value, ``None`` when empty."""
    return None if value.isEmpty() else str(value.get())


class StatusReader:
    """Spark's status tracker and status store of a session, asked for once."""

    def __init__(self, spark: Any) -> None:
        self._spark = spark
        self._both: tuple[Any, Any] | None = None

    def get(self) -> tuple[Any, Any]:
        """The ``SparkStatusTracker`` and the ``AppStatusStore``."""
        if self._both is None:
            sc = self._spark._jsc.sc()
            self._both = (sc.statusTracker(), sc.statusStore())
        return self._both


class TaggedJobs(JobWindow):
    """The jobs one call starts, tagged around it on its thread and read from the status store.

    Args:
        spark: The classic ``SparkSession``.
        status: Its status tracker and store.
    """

    def __init__(self, spark: Any, status: StatusReader) -> None:
        self._spark = spark
        self._status = status
        self._tag: str | None = None
        self._call_site: str | None = None

    def __enter__(self) -> None:
        jsc = self._spark._jsc
        tag = f"openlineage-sdk-jobs-{next(_numbers)}"
        try:
            call_site = jsc.getLocalProperty("callSite.short")
            jsc.addJobTag(tag)
        except Exception as error:  # a Spark without job tags: no job details
            log.debug("openlineage: tagging the call's jobs failed: %s", error)
            return
        self._tag = tag
        self._call_site = None if call_site is None else str(call_site)

    def __exit__(self, *exc: object) -> None:
        if self._tag is not None:
            try:
                self._spark._jsc.removeJobTag(self._tag)
            except Exception as error:
                log.debug("openlineage: removing the job tag failed: %s", error)

    def details(self) -> dict[str, Any] | None:
        """The last tagged job's id, description, group and call site (those that are set).

        Returns:
            ``jobId``, ``jobDescription``, ``jobGroup``, ``jobCallSite``: the agent's fields,
            those without a value left out, as its JSON leaves out a null; ``None`` when the
            status store knows no job of the call.
        """
        if self._tag is None:
            return None
        tracker, store = self._status.get()
        ids = tracker.getJobIdsForTag(self._tag)
        if len(ids) == 0:
            return None
        # The tracker lists the store's jobs newest first (AppStatusStore.jobsList reads its
        # view reversed): the first is the call's last job, read with one call.
        job_id = int(ids[0])
        job = store.job(job_id)
        fields: dict[str, Any] = {
            "jobId": job_id,
            "jobDescription": _option(job.description()),
            "jobGroup": _option(job.jobGroup()),
            "jobCallSite": self._call_site,
        }
        return {key: value for key, value in fields.items() if value is not None}
