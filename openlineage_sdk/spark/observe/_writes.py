"""DataFrame writes: one call of a writer method, one run.

The public write methods of PySpark's ``DataFrameWriter`` and ``DataFrameWriterV2`` (``save``,
``parquet``, ``saveAsTable``, ``insertInto``, ``jdbc``, ..., ``create``, ``append``, ...) are
wrapped, for the classic classes and the Connect classes alike. A wrapped call on a session the
adapter is installed on becomes one execution, whatever Spark does inside (``saveAsTable`` alone
runs three commands); calls the wrappers make to each other (Connect's ``parquet`` calls
``save``) are one write, not two. Writers of other sessions pass straight through.

How it is described, and when, is the write's execution's (``executions._write``).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

from openlineage_sdk.spark._flow import inside_adapter, run_observed
from openlineage_sdk.spark.describe._write_commands import WRITER_METHODS, WRITER_V2_METHODS
from openlineage_sdk.spark.executions import WriteExecution
from openlineage_sdk.spark.observe._hooks import adapter_of, wrap_once

__all__ = ["hook_writers"]


def hook_writers(kind: str) -> None:
    """Wrap the writer classes of ``kind`` (``classic`` or ``connect``), once for the process."""
    module = importlib.import_module(
        "pyspark.sql.connect.readwriter" if kind == "connect" else "pyspark.sql.readwriter"
    )
    for cls, methods in (
        (module.DataFrameWriter, WRITER_METHODS),
        (module.DataFrameWriterV2, WRITER_V2_METHODS),
    ):
        for method in methods:
            wrap_once(cls, method, functools.partial(_wrapper, method))
    if kind == "classic":
        # The classic DataFrameWriterV2 hands the table name to the JVM and keeps no copy.
        wrap_once(module.DataFrameWriterV2, "__init__", _noting_table)


def _noting_table(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def init(self: Any, df: Any, table: str) -> None:
        original(self, df, table)
        self._openlineage_table = table

    return init


def _wrapper(method: str, original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def write(self: Any, *args: Any, **kwargs: Any) -> Any:
        adapter = None if inside_adapter() else adapter_of(getattr(self, "_spark", None))
        if adapter is None:
            return original(self, *args, **kwargs)
        execution = adapter.execution(method)
        description = WriteExecution(
            adapter.session, execution, self, method, original, args, kwargs
        )
        return run_observed(
            adapter.reporter,
            execution,
            description,
            functools.partial(original, self, *args, **kwargs),
        )

    return write
