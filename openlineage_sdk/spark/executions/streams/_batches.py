"""A stream's ``foreachBatch`` writes as children of the stream's run, here and on a server.

In classic PySpark Spark calls the function back in this process: :class:`BatchScope` puts the
batch's session under an adapter whose executions have the stream's run as their parent and
the stream's sources among their inputs (:func:`enter_batch`). Under Spark Connect the user's
function runs in a Python worker of the server, where this process's adapter is not: the
function the session sends instead (:meth:`BatchScope.remote_command`) is built here, next to the
worker that runs it (``_worker``), and handed to the session as bytes. It is a closure that
refers to no module of this package by a global name, so cloudpickle sends it by value and the
server loads it whether or not this package is installed there; in the worker it imports the
worker (``openlineage_sdk.spark.executions.streams._worker``) and the adapter's public API
(``openlineage_sdk.spark``) if it can, and else calls the user's function alone. The user's
function is called exactly once per batch either way, its exception reaching Spark unchanged.
"""

from __future__ import annotations

import logging
import pickle
import sys
from collections.abc import Callable
from typing import Any, Protocol

from openlineage_sdk.spark._execution import DatasetLineage, SparkExecution
from openlineage_sdk.spark._flow import LineageSink, sink_method
from openlineage_sdk.spark.executions._adapters import (
    Adapter,
    adapter_of,
    register,
    unregister,
)

__all__ = [
    "BatchScope",
    "StreamsOwner",
    "enter_batch",
    "remote_batch_function",
    "transport_config",
]

log = logging.getLogger("openlineage_sdk.spark")

# The modules the function sent to a server imports there, by name (see the module).
WORKER_MODULE = "openlineage_sdk.spark.executions.streams._worker"
API_MODULE = "openlineage_sdk.spark"


class StreamsOwner(Protocol):
    """What a stream's batches need of the streams of its adapter."""

    adapter: Adapter
    closed: bool


def remote_batch_function(
    func: Callable[[Any, int], None], payload: bytes
) -> Callable[[Any, int], None]:
    """The user's ``foreachBatch`` function wrapped to report its batches on the server.

    The wrapper is a closure that refers to no global name: cloudpickle sends it by value, so
    the server's worker loads it whether or not this package is installed there.
    """
    worker_module, api_module = WORKER_MODULE, API_MODULE

    def openlineage_foreach_batch(df: Any, batch_id: int) -> None:
        try:
            worker = __import__(worker_module, fromlist=["run_batch"])
            api = __import__(api_module, fromlist=["install"])
            run_batch = worker.run_batch
            install, installed = api.install, api.installed
        except Exception:  # the package is not on the server: the batch runs unreported
            run_batch = None
        if run_batch is None:
            func(df, batch_id)
            return
        run_batch(payload, func, df, batch_id, install, installed)

    return openlineage_foreach_batch


class BatchScope:
    """A stream's ``foreachBatch`` function, wrapped: each batch's writes are the stream's children.

    Called in this process (classic PySpark), it puts the batch's session under an adapter
    whose executions have the stream's run as their parent and the stream's sources among
    their inputs, for the time of the call. Under Spark Connect the user's function runs in a
    Python worker on the server: :meth:`remote_command` is the function Spark sends there
    instead, which does the same in the worker (``_worker``).
    """

    def __init__(self, streams: StreamsOwner, execution: SparkExecution, func: Any) -> None:
        self.streams = streams
        self.execution = execution
        self.func = func

    def __call__(self, df: Any, batch_id: int) -> None:
        restore = None
        try:
            restore = self._enter(df)
        except Exception as error:  # the batch runs as without the adapter
            log.warning("openlineage: the batch's writes are not linked to the stream: %s", error)
        try:
            self.func(df, batch_id)
        finally:
            if restore is not None:
                try:
                    restore()
                except Exception as error:
                    log.debug("openlineage: restoring the batch's session failed: %s", error)

    def _enter(self, df: Any) -> Callable[[], None] | None:
        adapter = self.streams.adapter
        if self.streams.closed:
            return None
        run_ref = getattr(adapter.reporter, "run_ref", None)
        parent = run_ref(self.execution) if run_ref is not None else None
        if parent is None:
            return None
        return enter_batch(adapter, df.sparkSession, parent, self.execution.inputs)

    def remote_command(self) -> bytes | None:
        """The user's function wrapped to report its batches in the server's worker, pickled as
        the Connect client sends a function (``None``: the batches cannot be reported there)."""
        payload = self.remote_payload()
        if payload is None:
            return None
        from pyspark.serializers import CloudPickleSerializer

        serializer = CloudPickleSerializer()  # type: ignore[no-untyped-call, unused-ignore]
        command: bytes = serializer.dumps(remote_batch_function(self.func, payload))  # type: ignore[no-untyped-call, unused-ignore]
        return command

    def remote_payload(self) -> bytes | None:
        """The stream's run, the client's transport: for a Python worker on a Connect server.

        ``None`` when the batches cannot be reported there: explicit mode or a sink of one's
        own (no run of the stream's own), or a transport that cannot be rebuilt elsewhere (an
        in-memory one); the stream's run says so in its ``extractionError`` facet.
        """
        reporter = self.streams.adapter.reporter
        client = getattr(reporter, "client", None)
        run_ref = getattr(reporter, "run_ref", None)
        parent = run_ref(self.execution) if run_ref is not None else None
        problems = self.execution.problems
        if client is None or parent is None:
            problems.append(
                "foreachBatch: its writes run in the server's Python worker, which reports them "
                "only for a run of the stream's own (automatic mode)"
            )
            return None
        if client.disabled:
            return None
        transport = transport_config(client.transport)
        if transport is None:
            problems.append(
                "foreachBatch: its writes run in the server's Python worker, and the client's "
                f"transport ({type(client.transport).__name__}) cannot be rebuilt there"
            )
            return None
        payload = {
            "config": client.config.model_copy(update={"transport": transport}),
            "producer": client.producer,
            "namespace": client.namespace,
            "parent": parent,
            "inputs": [(d.identity, d.schema) for d in self.execution.inputs],
        }
        return pickle.dumps(payload)


def transport_config(transport: Any) -> Any:
    """The configuration that rebuilds ``transport`` in another process, or ``None``."""
    from openlineage_sdk.transports.base import TransportConfig
    from openlineage_sdk.transports.composite import CompositeConfig, CompositeTransport
    from openlineage_sdk.transports.console import ConsoleConfig, ConsoleTransport
    from openlineage_sdk.transports.file import FileConfig, FileTransport

    config = getattr(transport, "config", None)
    if isinstance(config, TransportConfig):
        return config
    if isinstance(transport, FileTransport):
        return FileConfig(log_file_path=transport.path.absolute(), fsync=transport._fsync)
    if isinstance(transport, ConsoleTransport):
        stream = transport._stream
        if stream is None:
            return ConsoleConfig(stream="stdout")
        return ConsoleConfig(stream="stderr") if stream is sys.stderr else None
    if isinstance(transport, CompositeTransport):
        members = [transport_config(member) for member in transport.transports]
        if any(member is None for member in members):
            return None
        return CompositeConfig(transports=members, names=transport.names)
    return None


class _BatchReporter:
    """The adapter's sink, for a batch's executions: the stream's run is their parent."""

    def __init__(self, inner: LineageSink, parent: Any, inputs: list[DatasetLineage]) -> None:
        self.inner = inner
        self.parent = parent
        self.inputs = inputs

    def execution_started(self, execution: SparkExecution) -> None:
        execution.parent = self.parent
        _add_stream_inputs(execution, self.inputs)
        _call(self.inner, "execution_started", execution)

    def execution_finished(self, execution: SparkExecution) -> None:
        _call(self.inner, "execution_finished", execution)


def _call(sink: LineageSink, name: str, execution: SparkExecution) -> None:
    method = sink_method(sink, name)
    if method is not None:
        method(execution)


def _add_stream_inputs(execution: SparkExecution, stream_inputs: list[DatasetLineage]) -> None:
    """The stream's sources among a batch write's inputs, in place of the batch's own files."""
    folders = [(d.identity.namespace, d.identity.name.rstrip("/") + "/") for d in stream_inputs]
    kept = [
        d
        for d in execution.inputs
        if not any(
            d.identity.namespace == ns and d.identity.name.startswith(folder)
            for ns, folder in folders
        )
    ]
    known = {(d.identity.namespace, d.identity.name) for d in kept}
    for dataset in stream_inputs:
        if (dataset.identity.namespace, dataset.identity.name) not in known:
            kept.append(DatasetLineage(dataset.identity, "input", dataset.schema))
    execution.inputs = kept


class _BatchAdapter:
    """An installed adapter as a batch of a stream sees it: the same session, another sink."""

    def __init__(self, adapter: Adapter, reporter: _BatchReporter) -> None:
        self.adapter = adapter
        self.session = adapter.session
        self.reporter: LineageSink = reporter
        self.input_only_runs = adapter.input_only_runs
        self.stream_interval = getattr(adapter, "stream_interval", None)

    def execution(self, method: str) -> SparkExecution:
        return self.adapter.execution(method)


def enter_batch(
    adapter: Adapter, spark: Any, parent: Any, inputs: list[DatasetLineage]
) -> Callable[[], None]:
    """Put a batch's Spark session under ``adapter``, the stream's run its parent; returns undo."""
    previous = adapter_of(spark)
    register(spark, _BatchAdapter(adapter, _BatchReporter(adapter.reporter, parent, inputs)))

    def restore() -> None:
        if previous is not None:
            register(spark, previous)
        else:
            unregister(spark)

    return restore
