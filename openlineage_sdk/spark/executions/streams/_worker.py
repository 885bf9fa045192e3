"""The lineage of a ``foreachBatch`` function run in a Spark Connect server's Python worker.

Under Spark Connect, a streaming query's ``foreachBatch`` function is pickled by the client and
run by the server, in a Python worker of its own that holds a Connect session of the query's
(``pyspark.sql.connect.streaming.worker.foreach_batch_worker``); the client's adapter is not
there. The adapter sends the user's function wrapped (``_batches.remote_batch_function``, built
next to this module): in the worker, the wrapper hands each batch to :func:`run_batch`, with
what the client packed for it (the stream's run, the client's transport and event
configuration, the stream's sources) and the adapter's public ``install`` and ``installed``.

:func:`run_batch` installs the adapter on the worker's session once (the worker runs the
query's batches one after another, in one process), puts the batch under it with the stream's
run as the parent of what it writes, calls the user's function exactly once, and flushes the
batch's events. Whatever fails on the adapter's side is logged, and the batch runs unreported;
the user's function and its exception are as without the adapter.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
import threading
import weakref
from collections.abc import Callable
from typing import Any

from openlineage_sdk.spark._execution import DatasetLineage
from openlineage_sdk.spark.executions.streams._batches import enter_batch

__all__ = ["run_batch"]

log = logging.getLogger("openlineage_sdk.spark")

_FLUSH_TIMEOUT = 10.0

_lock = threading.Lock()
_clients: dict[str, tuple[Any, dict[str, Any]]] = {}  # by the payload's digest
# The payload each worker session's adapter was installed for.
_installed_for: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


def run_batch(
    payload: bytes,
    func: Callable[[Any, int], None],
    df: Any,
    batch_id: int,
    install: Callable[[Any, Any], Any],
    installed: Callable[[Any], Any],
) -> None:
    """Run one batch of a stream's ``foreachBatch`` function with its writes reported.

    Args:
        payload: What the client packed for the stream's batches.
        func: The user's function.
        df: The batch.
        batch_id: The batch's id.
        install: ``openlineage_sdk.spark.install``, which puts the adapter on the worker's
            session (handed in by the wrapper, which imports the public API by name).
        installed: ``openlineage_sdk.spark.installed``.
    """
    restore: Callable[[], None] | None = None
    client: Any = None
    try:
        client, restore = _enter(payload, df, install, installed)
    except Exception as error:  # the batch runs as without the adapter
        log.warning("openlineage: the batch's writes are not reported: %s", error)
    try:
        func(df, batch_id)
    finally:
        if restore is not None:
            try:
                restore()
            except Exception as error:
                log.debug("openlineage: restoring the batch's session failed: %s", error)
        if client is not None:
            try:
                client.flush(_FLUSH_TIMEOUT)
            except Exception as error:
                log.warning("openlineage: the batch's events were not delivered: %s", error)


def _enter(
    payload: bytes,
    df: Any,
    install: Callable[[Any, Any], Any],
    installed: Callable[[Any], Any],
) -> tuple[Any, Callable[[], None]]:
    from openlineage_sdk.client import OpenLineage

    digest = hashlib.sha256(payload).hexdigest()
    with _lock:
        known = _clients.get(digest)
        if known is None:
            packed = pickle.loads(payload)
            client = OpenLineage(
                config=packed["config"], producer=packed["producer"], namespace=packed["namespace"]
            )
            known = _clients[digest] = (client, packed)
    client, packed = known
    session = df.sparkSession
    adapter = installed(session)
    if adapter is None or _installed_for.get(session) != digest:
        adapter = install(session, client)
        _installed_for[session] = digest
    inputs = [DatasetLineage(identity, "input", schema) for identity, schema in packed["inputs"]]
    return client, enter_batch(adapter, session, packed["parent"], inputs)
