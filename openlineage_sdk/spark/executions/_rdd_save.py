"""RDD saves (classic PySpark): the output and inputs before the save, its statistics after.

The session reads the save's lineage (its output folder, the inputs the RDD's lineage reads,
the job name the agent gives RDD jobs) before the save runs, and tags the Spark jobs the save
starts; after it, the statistics of the tagged jobs (rows and bytes read and written).
"""

from __future__ import annotations

from typing import Any

from openlineage_sdk.spark._execution import SparkExecution
from openlineage_sdk.spark._execution import note_problem as _note
from openlineage_sdk.spark._flow import ExecutionSteps
from openlineage_sdk.spark.session import Session

__all__ = ["RddSave"]


class RddSave(ExecutionSteps):
    """An RDD save: its output and inputs before it runs, its statistics after."""

    def __init__(
        self,
        session: Session,
        execution: SparkExecution,
        rdd: Any,
        method: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> None:
        self.session = session
        self.execution = execution
        self.rdd = rdd
        self.method = method
        self.args = args
        self.kwargs = kwargs
        self.tag: str | None = None
        execution.job_type = "RDD_JOB"

    def before(self) -> bool:
        try:
            self.session.rdd_lineage(self.execution, self.rdd, self.method, self.args, self.kwargs)
        except Exception as error:  # whatever broke, the save still runs, with what is known
            _note(self.execution.problems, "lineage", error)
        self.tag = self.session.tag_jobs()
        return True

    def after(self) -> bool:
        if self.tag is not None:
            self.session.tagged_job_statistics(self.tag, self.execution)
        return True
