"""A stream's start: its sources, its sink's dataset and the job's name, before it starts.

Described before the user's ``start`` (or ``toTable``) runs, from the writer and its streaming
DataFrame (the session reads them), so the run's START goes out with its datasets. What the
writer starts in (a row-counting observation for file and table sinks, the wrapped
``foreachBatch`` function) is the session's ``stream_start``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from openlineage_sdk.spark._execution import DatasetLineage, SparkExecution
from openlineage_sdk.spark._execution import note_problem as _note
from openlineage_sdk.spark._flow import ExecutionSteps
from openlineage_sdk.spark._inside import adapter_work
from openlineage_sdk.spark.describe._schema import schema_fields
from openlineage_sdk.spark.describe._stream_datasets import (
    StreamSink,
    StreamSource,
    sink_kind,
    stream_command,
)
from openlineage_sdk.spark.executions.streams._batches import BatchScope, StreamsOwner
from openlineage_sdk.spark.session import Session

__all__ = ["Source", "StreamStart"]


@dataclass
class Source:
    """A source of the query with the datasets it reads (a Kafka source may read several)."""

    source: StreamSource
    datasets: list[DatasetLineage]
    locations: list[str]


def _start_arguments(
    method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[str | None, str | None]:
    """The path (``start``) or table (``toTable``) the call was given."""
    first = args[0] if args else None
    if method == "toTable":
        table = kwargs.get("tableName", first)
        return None, str(table) if table is not None else None
    path = kwargs.get("path", first)
    return (str(path) if path else None), None


def _with_call_settings(sink: StreamSink, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The sink with what ``start``/``toTable``'s own arguments set (format, name, options)."""
    from dataclasses import replace

    options = dict(sink.options)
    named = ("path", "tableName", "format", "outputMode", "partitionBy", "queryName")
    options.update({k: str(v) for k, v in kwargs.items() if k not in named and v is not None})
    fmt = kwargs.get("format") or (args[1] if len(args) > 1 else None)
    name = kwargs.get("queryName") or (args[4] if len(args) > 4 else None)
    return replace(
        sink,
        format=str(fmt).lower() if fmt else sink.format,
        query_name=str(name) if name else sink.query_name,
        options=options,
        path=(sink.path or options.get("path")) if sink.table is None else None,
    )


class StreamStart(ExecutionSteps):
    """How a stream's ``start`` is described: sources, sink, job name, before it starts."""

    def __init__(
        self,
        streams: StreamsOwner,
        execution: SparkExecution,
        writer: Any,
        method: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> None:
        self.streams = streams
        self.session: Session = streams.adapter.session
        self.execution = execution
        self.writer = writer
        self.method = method
        self.args = args
        self.kwargs = kwargs
        self.sources: list[Source] = []
        self.rows_observation: str | None = None
        self.batch: BatchScope | None = None
        self.reported = False

    def before(self) -> bool:
        session, execution = self.session, self.execution
        problems = execution.problems
        path, table = _start_arguments(self.method, self.args, self.kwargs)
        try:
            sink = _with_call_settings(
                session.stream_sink(self.writer, path, table), self.args, self.kwargs
            )
        except Exception as error:
            _note(problems, "sink", error)
            sink = StreamSink(None, path=path, table=table)
        df = session.stream_frame(self.writer)
        static: list[DatasetLineage] = []
        sources: list[StreamSource] = []
        try:
            sources, static = session.stream_sources(df, problems)
        except Exception as error:
            _note(problems, "inputs", error)
        for source in sources:
            try:
                datasets = session.source_datasets(source, problems)
            except Exception as error:
                _note(problems, f"input {source.format or source.table}", error)
                datasets = []
            self.sources.append(Source(source, datasets, [d.identity.name for d in datasets]))
        inputs = [d for s in self.sources for d in s.datasets]
        known = {(d.identity.namespace, d.identity.name) for d in inputs}
        inputs.extend(d for d in static if (d.identity.namespace, d.identity.name) not in known)
        execution.inputs = inputs
        output: DatasetLineage | None = None
        try:
            output = session.sink_dataset(sink, problems)
        except Exception as error:
            _note(problems, "output", error)
        if output is not None:
            try:
                schema = session.stream_schema(df, sources)
                if schema is not None:
                    output.schema = schema_fields(schema)
            except Exception as error:
                _note(output.problems, "output schema", error)
        execution.output = output
        self._name(sink, output)
        if output is not None and sink_kind(sink) in ("file", "table"):
            # Spark reports no rows written for these sinks: they are counted as they pass.
            self.rows_observation = f"openlineage_rows_{uuid.uuid4().hex}"
        function = getattr(self.writer, "_openlineage_batch", None)
        if sink.foreach_batch and function is not None:
            self.batch = BatchScope(self.streams, execution, function)
        self.reported = True
        return True

    def _name(self, sink: StreamSink, output: DatasetLineage | None) -> None:
        try:
            default = self.session.default_format()
        except Exception:
            default = "parquet"
        command = stream_command(sink, default)
        suffix: str | None = sink.query_name
        if output is not None:
            symlinks = output.identity.symlinks
            if sink_kind(sink) == "table" and symlinks:
                suffix = symlinks[0].name
            else:
                suffix = output.identity.name
        self.execution.name_job(command.name, suffix)

    def start_context(self) -> Any:
        """What the user's ``start`` runs in (the counting plan, the wrapped batch function)."""
        import contextlib

        if self.rows_observation is None and self.batch is None:
            return contextlib.nullcontext()
        try:
            with adapter_work():
                return self.session.stream_start(self.writer, self.rows_observation, self.batch)
        except Exception as error:
            _note(self.execution.problems, "observing the stream", error)
            self.rows_observation = None
            return contextlib.nullcontext()
