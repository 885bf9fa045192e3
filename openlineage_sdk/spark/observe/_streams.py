"""Streaming queries: where a stream's start is seen, classic PySpark and Spark Connect.

``DataStreamWriter.start`` and ``toTable`` are wrapped, once for the process, as the batch
writers are; ``foreachBatch`` is wrapped to keep the user's function for ``start`` to wrap. A
query started on a session the adapter is installed on is one run of the job its sink names,
whose lifecycle is the stream's execution's (``executions.streams``).
"""

from __future__ import annotations

import functools
import importlib
import logging
from collections.abc import Callable
from typing import Any

from openlineage_sdk.spark._flow import inside_adapter
from openlineage_sdk.spark.executions.streams import stream_runs
from openlineage_sdk.spark.observe._hooks import adapter_of, wrap_once

__all__ = ["hook_streams"]

log = logging.getLogger("openlineage_sdk.spark")


def hook_streams(kind: str) -> None:
    """Wrap the ``DataStreamWriter`` of ``kind`` (``classic`` or ``connect``), once."""
    module = importlib.import_module(
        "pyspark.sql.connect.streaming.readwriter"
        if kind == "connect"
        else "pyspark.sql.streaming.readwriter"
    )
    writer = module.DataStreamWriter
    wrap_once(writer, "foreachBatch", _remembering)
    for method in ("start", "toTable"):
        wrap_once(writer, method, functools.partial(_starting, method))


def _writer_session(writer: Any) -> Any:
    return getattr(writer, "_spark", None) or getattr(writer, "_session", None)


def _remembering(original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def foreach_batch(self: Any, func: Any) -> Any:
        result = original(self, func)
        if not inside_adapter():
            try:
                self._openlineage_batch = func  # what start() wraps (see BatchScope)
            except Exception as error:
                log.debug("openlineage: the foreachBatch function is not kept: %s", error)
        return result

    return foreach_batch


def _starting(method: str, original: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def start(self: Any, *args: Any, **kwargs: Any) -> Any:
        adapter = None if inside_adapter() else adapter_of(_writer_session(self))
        if adapter is None:
            return original(self, *args, **kwargs)
        return stream_runs(adapter).start(self, method, original, args, kwargs)

    return start
