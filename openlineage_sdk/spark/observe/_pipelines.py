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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timezone
from typing import Any

from openlineage_sdk.spark._execution import DatasetLineage, SparkExecution
from openlineage_sdk.spark._execution import note_problem as _note
from openlineage_sdk.spark._flow import (
    adapter_work,
    inside_adapter,
    report_finished,
    report_started,
)
from openlineage_sdk.spark.describe._pipelines import (
    flow_event,
    query_tables,
    run_event,
    sql_definitions,
    unquoted,
)
from openlineage_sdk.spark.describe._schema import schema_fields
from openlineage_sdk.spark.describe._streams import StreamSink, StreamSource
from openlineage_sdk.spark.observe._hooks import Adapter

__all__ = ["ConnectPipelines", "FlowFailed", "PipelineFailed"]

log = logging.getLogger("openlineage_sdk.spark")

_VIEW_DEPTH = 8  # how deep views of the pipeline's own are followed to what they read


class FlowFailed(Exception):  # noqa: N818 - it names what happened, as Spark's own do
    """A pipeline's flow failed; the message is the pipeline event's error."""


class PipelineFailed(Exception):  # noqa: N818
    """A pipeline's run failed, as its last event says."""


class FlowStopped(BaseException):
    """A pipeline's flow was stopped before it finished: its run ends with ABORT."""


@dataclass
class _Output:
    """A dataset of the graph: ``kind`` is ``table``, ``view`` or ``sink``."""

    name: str
    kind: str
    qualified: str | None = None
    format: str | None = None
    options: dict[str, str] = field(default_factory=dict)


@dataclass
class _Flow:
    """A flow of the graph, with its query and where it is defined."""

    name: str
    target: str
    relation: Any = None  # a Python flow's plan
    query: str | None = None  # a SQL flow's query
    statement: str | None = None  # a SQL flow's whole statement
    location: tuple[str, int | None] | None = None
    streaming: bool = False
    qualified: str | None = None
    tables: list[str] = field(default_factory=list)  # an AUTO CDC flow's source


@dataclass
class _Graph:
    """What the client registered of one dataflow graph."""

    default_catalog: str | None = None
    default_database: str | None = None
    outputs: dict[str, _Output] = field(default_factory=dict)
    flows: dict[str, _Flow] = field(default_factory=dict)

    def flow(self, name: str) -> _Flow | None:
        """The flow an event names (qualified by the server), by its name or its last part."""
        for flow in self.flows.values():
            if name in (flow.qualified, flow.name):
                return flow
        last = name.rsplit(".", 1)[-1]
        matches = [f for f in self.flows.values() if f.name.rsplit(".", 1)[-1] == last]
        return matches[0] if len(matches) == 1 else None

    def view(self, name: str) -> _Flow | None:
        """The flow of a view of the graph's own that ``name`` refers to, if it is one."""
        last = unquoted(name).rsplit(".", 1)[-1]
        for output in self.outputs.values():
            if output.kind == "view" and output.name.rsplit(".", 1)[-1] == last:
                return self.flows.get(output.name)
        return None


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
        self.graphs: dict[str, _Graph] = {}
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
                self.graphs[graph_id] = _Graph(
                    created.default_catalog or None, created.default_database or None
                )
            return
        message = getattr(command, kind)
        graph = self._graph(message.dataflow_graph_id)
        if kind == "define_output":
            output = _Output(message.output_name, _output_kind(message.output_type))
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
            flow = _Flow(
                message.flow_name,
                message.target_dataset_name,
                relation=relation,
                location=_location(message.source_code_location),
                streaming=relation is not None and _streams(relation),
            )
            if message.HasField("auto_cdc_flow_details"):
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
                    graph.outputs.setdefault(definition.target, _Output(definition.target, kind_of))
                if definition.query is None:
                    continue
                graph.flows[definition.name] = _Flow(
                    definition.name,
                    definition.target,
                    query=definition.query,
                    statement=definition.text,
                    location=(path, definition.line),
                    streaming=definition.streaming,
                )

    def _graph(self, graph_id: str) -> _Graph:
        with self.lock:
            return self.graphs.setdefault(graph_id, _Graph())

    # the run

    def iterate(self, original: Callable[..., Any], command: Any, observations: Any = None) -> Any:
        """Run a command as an iterator; a pipeline's run is followed through its events."""
        if inside_adapter() or _pipeline_command(command) != "start_run":
            return original(command, observations)
        start = command.pipeline_command.start_run
        if start.dry:
            return original(command, observations)
        run: _PipelineRun | None = None
        try:
            graph = self._graph(start.dataflow_graph_id)
            run = _PipelineRun(self.adapter, graph, _pipeline_name() or "pipeline")
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


def _streams(relation: Any) -> bool:
    from openlineage_sdk.spark.session.connect._plan import relations

    return any(
        node.WhichOneof("rel_type") == "read" and node.read.is_streaming
        for node in relations(relation)
    )


class _PipelineRun:
    """One run of a pipeline, and the runs of its flows as its events start and end them."""

    def __init__(self, adapter: Adapter, graph: _Graph, name: str) -> None:
        self.adapter = adapter
        self.session: Any = adapter.session
        self.graph = graph
        self.name = name
        self.execution = adapter.execution("pipeline")
        self.execution.name_job("pipeline", name)
        self.execution.job_type = "PIPELINE"
        self.execution.processing_type = "NONE"
        self.flows: dict[str, SparkExecution] = {}
        self.state: tuple[str, str] | None = None
        self.ended = False
        self.lock = threading.Lock()

    def start(self) -> None:
        report_started(self.adapter.reporter, self.execution)

    def follow(self, results: Iterator[Any]) -> Iterator[Any]:
        """The server's answers, as they are, while the run's events are read from them."""
        try:
            for result in results:
                try:
                    self.handle(result)
                except Exception as error:
                    log.warning("openlineage: a pipeline event was not read: %s", error)
                yield result
        except BaseException as error:
            self.end(error)
            raise
        self.end(None)

    def handle(self, result: Any) -> None:
        if not isinstance(result, dict) or "pipeline_event_result" not in result:
            return
        event = result["pipeline_event_result"].event
        message = event.message
        when = event.timestamp.ToDatetime().replace(tzinfo=timezone.utc).timestamp()
        found = flow_event(message)
        if found is not None:
            name, state, detail = found
            if state in ("STARTING", "RUNNING"):
                self.flow_started(name, when)
            elif state == "COMPLETED":
                self.flow_ended(name, None)
            elif state == "FAILED":
                self.flow_ended(name, FlowFailed(detail or message))
            elif state == "STOPPED":
                self.flow_ended(name, FlowStopped(message))
            return
        ran = run_event(message)
        if ran is not None:
            self.state = ran

    def flow_started(self, name: str, when: float) -> None:
        if name in self.flows:
            return  # RUNNING after STARTING: the same run
        run_ref = getattr(self.adapter.reporter, "run_ref", None)
        execution = self.adapter.execution("flow")
        execution.started = when
        execution.parent = run_ref(self.execution) if run_ref is not None else None
        execution.job_type = "FLOW"
        execution.name_job(self.name, name)
        try:
            with adapter_work():
                self.describe(execution, name)
        except Exception as error:
            _note(execution.problems, "flow", error)
        self.flows[name] = execution
        report_started(self.adapter.reporter, execution)

    def flow_ended(self, name: str, error: BaseException | None) -> None:
        execution = self.flows.pop(name, None)
        if execution is None:
            return
        execution.error = error
        report_finished(self.adapter.reporter, execution)

    def end(self, error: BaseException | None) -> None:
        with self.lock:
            if self.ended:
                return
            self.ended = True
        for name in list(self.flows):
            self.flow_ended(name, FlowStopped("the pipeline's run ended before the flow"))
        if error is None and self.state is not None and self.state[0] != "COMPLETED":
            error = PipelineFailed(f"Run is {self.state[0]}. {self.state[1]}".strip())
        self.execution.error = error
        report_finished(self.adapter.reporter, self.execution)

    # describing a flow

    def describe(self, execution: SparkExecution, name: str) -> None:
        flow = self.graph.flow(name)
        if flow is None:
            execution.problems.append(f"flow: {name} is not among the pipeline's definitions")
            return
        execution.processing_type = "STREAMING" if flow.streaming else "BATCH"
        execution.source_location = flow.location
        execution.sql = flow.statement
        problems = execution.problems
        execution.output = self._target(flow, name, problems)
        execution.inputs = self._inputs(flow, problems, _VIEW_DEPTH)

    def _target(self, flow: _Flow, flow_name: str, problems: list[str]) -> DatasetLineage | None:
        output = self.graph.outputs.get(flow.target)
        if output is not None and output.kind == "view":
            return None
        if output is not None and output.kind == "sink":
            sink = StreamSink(output.format, options=output.options)
            found: DatasetLineage | None = self.session.sink_dataset(sink, problems)
            return found
        name = (output.qualified if output is not None else None) or _qualified(
            flow.target, flow_name
        )
        info = self.session.describe_table(name, with_schema=True)
        if info is None or info.location is None:
            problems.append(f"output: the table {name} is not in the catalog")
            return None
        dataset = DatasetLineage(self.session.table_identity(info), "output")
        try:
            dataset.schema = info.schema or schema_fields(self.session.table_schema(name))
        except Exception as error:
            _note(dataset.problems, "output schema", error)
        dataset.catalog = self.session.catalog_info()
        return dataset

    def _inputs(self, flow: _Flow, problems: list[str], depth: int) -> list[DatasetLineage]:
        found: list[DatasetLineage] = []
        if flow.relation is not None:
            found = self._relation_inputs(flow.relation, problems, depth)
        elif flow.query is not None:
            found = self._query_inputs(flow, problems, depth)
        for name in flow.tables:
            found.extend(self._named_inputs([name], problems, depth))
        return _unique(found)

    def _relation_inputs(
        self, relation: Any, problems: list[str], depth: int
    ) -> list[DatasetLineage]:
        session = self.session
        sources, static = session.relation_reads(relation, problems)
        found: list[DatasetLineage] = []
        for source in sources:
            if source.table is not None and self._is_view(source.table):
                found.extend(self._view_inputs(source.table, problems, depth))
            else:
                found.extend(session.source_datasets(source, problems))
        tables = list(static.tables)
        static.tables = [t for t in tables if not self._is_view(t)]
        for table in tables:
            if self._is_view(table):
                found.extend(self._view_inputs(table, problems, depth))
        problems.extend(static.problems)
        found.extend(session.resolve_reads(static, problems))
        return found

    def _query_inputs(self, flow: _Flow, problems: list[str], depth: int) -> list[DatasetLineage]:
        assert flow.query is not None
        names = query_tables(flow.query)
        if not flow.streaming and not any(self._is_view(n) for n in names):
            try:
                return list(self.session.query_inputs(flow.query, problems))
            except Exception as error:
                log.debug("openlineage: the flow's query is read from its text: %s", error)
        return self._named_inputs(names, problems, depth)

    def _named_inputs(
        self, names: list[str], problems: list[str], depth: int
    ) -> list[DatasetLineage]:
        """The tables (or the views of the pipeline's own) ``names`` name, and what they are."""
        found: list[DatasetLineage] = []
        for name in names:
            if self._is_view(name):
                found.extend(self._view_inputs(name, problems, depth))
                continue
            source = StreamSource(None, table=name)
            try:
                found.extend(self.session.source_datasets(source, problems))
            except Exception as error:
                _note(problems, f"input table {name}", error)
        return found

    def _is_view(self, name: str) -> bool:
        return self.graph.view(name) is not None

    def _view_inputs(self, name: str, problems: list[str], depth: int) -> list[DatasetLineage]:
        view = self.graph.view(name)
        if view is None or depth <= 0:
            problems.append(f"input: the view {name} is not followed to what it reads")
            return []
        return self._inputs(view, problems, depth - 1)


def _qualified(target: str, flow_name: str) -> str:
    """The target's name qualified as the server qualified the flow's (its catalog, database)."""
    parts = target.split(".")
    flow_parts = flow_name.split(".")
    if len(parts) < len(flow_parts):
        return ".".join([*flow_parts[: len(flow_parts) - len(parts)], *parts])
    return target


def _unique(datasets: list[DatasetLineage]) -> list[DatasetLineage]:
    seen: set[tuple[str, str]] = set()
    kept: list[DatasetLineage] = []
    for dataset in datasets:
        key = (dataset.identity.namespace, dataset.identity.name)
        if key not in seen:
            seen.add(key)
            kept.append(DatasetLineage(dataset.identity, "input", dataset.schema))
    return kept
