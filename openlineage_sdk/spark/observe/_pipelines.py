"""Spark Declarative Pipelines: the pipeline's run, and a run per flow, as the client sees them.

A pipeline (``pyspark.pipelines``, run by ``spark-pipelines run``, Spark 4.1 and later) runs on a
Spark Connect server; its command line is a Connect client that registers the graph and then
reads the server's pipeline events. The adapter installed on that client's session (the
launcher installs it: ``openlineage-sdk run spark-pipelines run ...``) observes both, on the
session's own client (nothing is patched for other sessions):

* the definitions, as the client sends them (``execute_command``): the graph's datasets
  (materialized views, streaming tables, sinks, views) and its flows, each with its query (a
  Python flow's plan, a SQL file's statement) and where it is defined;
* the run (``execute_command_as_iterator`` of ``StartRun``): one run of the job
  ``{app}.pipeline.{pipeline}``, ``jobType`` ``PIPELINE``, from the start to the last event; and,
  as the events say each flow starts and ends (``Flow x is STARTING``, ``... has COMPLETED``,
  ``... has FAILED`` with its error), one run of the job ``{app}.{pipeline}.{flow}``,
  ``jobType`` ``FLOW`` (processing type ``STREAMING`` or ``BATCH``), a child of the pipeline's
  run, that reads its query's inputs and writes its target with the target's schema, with the
  ``sourceCodeLocation`` of its definition (and the ``sql`` of a SQL one).

A flow is described when it starts: its target exists in the catalog then (the pipeline
creates every table before it runs the flows), and the server analyses what its query reads
(``EXPLAIN``, no job). A flow that reads a view of the pipeline's own reads what the view reads.
A flow retried after a failure is a run per attempt, as Spark runs it. Dry runs are not reported.
The events carry no row counts, so the flows' runs have no statistics.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from openlineage_sdk.spark._flow import inside_adapter
from openlineage_sdk.spark.describe._pipeline_graph import sql_definitions
from openlineage_sdk.spark.executions import Adapter
from openlineage_sdk.spark.executions._pipeline import (
    Flow,
    FlowFailed,
    Graph,
    Output,
    PipelineFailed,
    PipelineRun,
)

__all__ = ["ConnectPipelines", "FlowFailed", "PipelineFailed"]

log = logging.getLogger("openlineage_sdk.spark")


def _identifier(resolved: Any) -> str | None:
    parts = [resolved.catalog_name, *resolved.namespace, resolved.table_name]
    name = ".".join(p for p in parts if p)
    return name or None


def _location(message: Any) -> tuple[str, int | None] | None:
    if not message.file_name:
        return None
    path = os.path.abspath(message.file_name)
    return path, (message.line_number or None)


def _pipeline_name() -> str | None:
    """The pipeline's name, from the spec the command line runs (found up the call stack)."""
    frame: Any = sys._getframe(1)
    for _ in range(40):
        if frame is None:
            return None
        spec = frame.f_locals.get("spec")
        name = getattr(spec, "name", None)
        if isinstance(name, str) and hasattr(spec, "libraries"):
            return name
        frame = frame.f_back
    return None


class ConnectPipelines:
    """The wrappers on one Connect session's client that observe its pipelines.

    Made after the SQL commands' wrapper, on top of it; :meth:`close` takes it off (before
    that one's own ``close``).
    """

    _METHODS = ("execute_command", "execute_command_as_iterator")

    def __init__(self, adapter: Adapter) -> None:
        self.adapter = adapter
        self.client = adapter.session.spark.client
        self.graphs: dict[str, Graph] = {}
        self.lock = threading.Lock()
        self._saved = {name: self.client.__dict__.get(name) for name in self._METHODS}
        execute = self.client.execute_command
        iterate = self.client.execute_command_as_iterator
        self.client.execute_command = functools.partial(self.execute, execute)
        self.client.execute_command_as_iterator = functools.partial(self.iterate, iterate)

    def close(self) -> None:
        """Let the client's commands pass as before."""
        for name, previous in self._saved.items():
            if previous is None:
                self.client.__dict__.pop(name, None)
            else:
                setattr(self.client, name, previous)

    # definitions

    def execute(self, original: Callable[..., Any], command: Any, observations: Any = None) -> Any:
        """Run a command; a pipeline definition is remembered for the run."""
        kind = None if inside_adapter() else _pipeline_command(command)
        result = original(command, observations)
        if kind is not None:
            try:
                self._define(kind, command.pipeline_command, result)
            except Exception as error:  # a definition of a shape this code does not know
                log.warning("openlineage: a pipeline definition was not read: %s", error)
        return result

    def _define(self, kind: str, command: Any, result: Any) -> None:
        properties = result[1] if isinstance(result, tuple) and len(result) > 1 else {}
        answer: Any = properties.get("pipeline_command_result") if properties else None
        if kind == "create_dataflow_graph":
            created = command.create_dataflow_graph
            graph_id = answer.create_dataflow_graph_result.dataflow_graph_id
            with self.lock:
                self.graphs[graph_id] = Graph(
                    created.default_catalog or None, created.default_database or None
                )
            return
        message = getattr(command, kind)
        graph = self._graph(message.dataflow_graph_id)
        if kind == "define_output":
            output = Output(message.output_name, _output_kind(message.output_type))
            if message.HasField("sink_details"):
                output.format = message.sink_details.format or None
                output.options = dict(message.sink_details.options)
            if answer is not None and answer.HasField("define_output_result"):
                output.qualified = _identifier(answer.define_output_result.resolved_identifier)
            graph.outputs[output.name] = output
        elif kind == "define_flow":
            relation = (
                message.relation_flow_details.relation
                if message.HasField("relation_flow_details")
                else None
            )
            flow = Flow(
                message.flow_name,
                message.target_dataset_name,
                relation=relation,
                location=_location(message.source_code_location),
                streaming=relation is not None and self.adapter.session.relation_streams(relation),
            )
            # PySpark 4.1's protocol has no AUTO CDC flows (HasField raises for a field it lacks).
            if "auto_cdc_flow_details" in message.DESCRIPTOR.fields_by_name and message.HasField(
                "auto_cdc_flow_details"
            ):
                flow.tables = [message.auto_cdc_flow_details.source]
                flow.streaming = True
            if answer is not None and answer.HasField("define_flow_result"):
                flow.qualified = _identifier(answer.define_flow_result.resolved_identifier)
            graph.flows[flow.name] = flow
        elif kind == "define_sql_graph_elements":
            # The command line registers a file with its path relative to the spec's folder,
            # from that folder.
            path = os.path.abspath(message.sql_file_path)
            for definition in sql_definitions(message.sql_text):
                if definition.kind != "flow":
                    kind_of = "view" if definition.kind == "view" else "table"
                    graph.outputs.setdefault(definition.target, Output(definition.target, kind_of))
                if definition.query is None:
                    continue
                graph.flows[definition.name] = Flow(
                    definition.name,
                    definition.target,
                    query=definition.query,
                    statement=definition.text,
                    location=(path, definition.line),
                    streaming=definition.streaming,
                )

    def _graph(self, graph_id: str) -> Graph:
        with self.lock:
            return self.graphs.setdefault(graph_id, Graph())

    # the run

    def iterate(self, original: Callable[..., Any], command: Any, observations: Any = None) -> Any:
        """Run a command as an iterator; a pipeline's run is followed through its events."""
        if inside_adapter() or _pipeline_command(command) != "start_run":
            return original(command, observations)
        start = command.pipeline_command.start_run
        if start.dry:
            return original(command, observations)
        run: PipelineRun | None = None
        try:
            graph = self._graph(start.dataflow_graph_id)
            run = PipelineRun(self.adapter, graph, _pipeline_name() or "pipeline")
            run.start()
        except Exception as error:
            log.warning("openlineage: the pipeline's run is not reported: %s", error)
            run = None
        try:
            results = original(command, observations)
        except BaseException as error:
            if run is not None:
                run.end(error)
            raise
        return results if run is None else run.follow(results)


def _pipeline_command(command: Any) -> str | None:
    try:
        if command.WhichOneof("command_type") != "pipeline_command":
            return None
        kind = command.pipeline_command.WhichOneof("command_type")
    except Exception:
        return None
    return str(kind) if kind else None


def _output_kind(output_type: Any) -> str:
    from pyspark.sql.connect.proto import OutputType

    if output_type == OutputType.TEMPORARY_VIEW:
        return "view"
    if output_type == OutputType.SINK:
        return "sink"
    return "table"
