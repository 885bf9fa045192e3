"""``DataFrame.mergeInto(...).merge()``: a MERGE built in code is a run, as a MERGE statement is.

Classic PySpark hands the merge to the JVM's ``MergeIntoWriter`` in one call, which is wrapped
here (once for the process); the session describes the command Spark ran once it ran. Under
Spark Connect the merge is a command of the client's (``MergeIntoTableCommand``), which the
client's command wrapper sees (``observe._statements``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from openlineage_sdk.spark._flow import inside_adapter, run_observed
from openlineage_sdk.spark.executions import statement_description
from openlineage_sdk.spark.observe._hooks import adapter_of, wrap_once

__all__ = ["hook_classic_merge"]


def hook_classic_merge() -> None:
    """Wrap the classic ``MergeIntoWriter.merge``, once for the process (PySpark 4 and later)."""
    try:
        from pyspark.sql.merge import MergeIntoWriter
    except ImportError:  # a PySpark before DataFrame.mergeInto
        return
    wrap_once(MergeIntoWriter, "merge", _merge)


def _merge(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def merge(self: Any) -> Any:
        adapter = None if inside_adapter() else adapter_of(getattr(self, "_spark", None))
        if adapter is None:
            return original(self)
        execution = adapter.execution("mergeInto")
        description = statement_description(adapter.session, execution, None)  # once it ran
        return run_observed(
            adapter.reporter, execution, description, functools.partial(original, self)
        )

    return merge
