"""RDD saves (classic PySpark): each save of an RDD of an installed session is a run of its own.

PySpark's ``RDD`` save methods (``saveAsTextFile``, ``saveAsPickleFile``, the Hadoop writers ...)
are wrapped once for the process, as the DataFrame writers are; a save of an RDD whose
SparkContext belongs to a session the adapter is installed on is described by that session
(``session.classic``: the output folder, the inputs its lineage reads, the job name the agent
gives RDD jobs, the statistics of the jobs it ran). A Spark Connect client has no RDDs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from openlineage_sdk.spark._flow import inside_adapter, run_observed
from openlineage_sdk.spark.describe._rdd_writers import RDD_SAVE_METHODS
from openlineage_sdk.spark.executions import RddSave
from openlineage_sdk.spark.observe._hooks import Adapter, adapters, wrap_once

__all__ = ["hook_rdd_saves"]


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
