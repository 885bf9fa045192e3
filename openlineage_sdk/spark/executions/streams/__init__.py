"""Streaming queries: one run per query, from ``start()`` to its end (the stream's execution).

``DataStreamWriter.start`` and ``toTable`` are observed (``observe._streams``); what happens
then, and when, is here:

* ``_start``: the description of the start (sources, sink, job name), before it starts;
* ``_runs``: the run's lifecycle and progress (the session's streaming listener, RUNNING events
  bounded by an interval, the end from the listener or the user's ``awaitTermination``/``stop``);
* ``_batches``: ``foreachBatch`` writes as children of the stream's run, in this process or (the
  function sent to a Spark Connect server, built here) in the server's Python worker;
* ``_worker``: what runs there.

Nothing here starts a Spark job or changes what the query computes: the rows written are
counted by an observation Spark computes inside each micro-batch's own job; the user's
function, exceptions and the query itself are as without the adapter.
"""

from __future__ import annotations

from openlineage_sdk.spark.executions.streams._batches import BatchScope, enter_batch
from openlineage_sdk.spark.executions.streams._runs import (
    DEFAULT_STREAM_INTERVAL,
    StreamFailed,
    StreamUnobserved,
    close_streams,
    stream_runs,
)

__all__ = [
    "DEFAULT_STREAM_INTERVAL",
    "BatchScope",
    "StreamFailed",
    "StreamUnobserved",
    "close_streams",
    "enter_batch",
    "stream_runs",
]
