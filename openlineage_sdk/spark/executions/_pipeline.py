"""Declarative pipelines (Spark Connect): the pipeline's run, and a run per flow, as events say.

A pipeline's run goes from its start to its last event; as the server's events say each flow
starts and ends (``Flow x is STARTING``, ``... has COMPLETED``, ``... has FAILED``), one run of
the job ``{app}.{pipeline}.{flow}``, a child of the pipeline's run. A flow is described when it
starts: its target exists in the catalog then (the pipeline creates every table before it runs
the flows), and the server analyses what its query reads (``EXPLAIN``, no job). What the
client registered of the graph (its datasets and flows) is kept in a :class:`Graph`
(``observe._pipelines`` reads the definitions).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timezone
from typing import Any

from openlineage_sdk.spark._execution import DatasetLineage, SparkExecution
from openlineage_sdk.spark._execution import note_problem as _note
from openlineage_sdk.spark._flow import report_finished, report_started
from openlineage_sdk.spark._inside import adapter_work
from openlineage_sdk.spark.describe._pipeline_graph import (
    flow_event,
    query_tables,
    run_event,
    unquoted,
)
from openlineage_sdk.spark.describe._schema import schema_fields
from openlineage_sdk.spark.describe._stream_datasets import StreamSink, StreamSource
from openlineage_sdk.spark.executions._adapters import Adapter
from openlineage_sdk.spark.session import Session

__all__ = ["Flow", "FlowFailed", "Graph", "Output", "PipelineFailed", "PipelineRun"]

log = logging.getLogger("openlineage_sdk.spark")

_VIEW_DEPTH = 8  # how deep views of the pipeline's own are followed to what they read


class FlowFailed(Exception):  # noqa: N818 - it names what happened, as Spark's own do
    """A pipeline's flow failed; the message is the pipeline event's error."""


class PipelineFailed(Exception):  # noqa: N818
    """A pipeline's run failed, as its last event says."""


class FlowStopped(BaseException):
    """A pipeline's flow was stopped before it finished: its run ends with ABORT."""


@dataclass
class Output:
    """A dataset of the graph: ``kind`` is ``table``, ``view`` or ``sink``."""

    name: str
    kind: str
    qualified: str | None = None
    format: str | None = None
    options: dict[str, str] = field(default_factory=dict)


@dataclass
class Flow:
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
class Graph:
    """What the client registered of one dataflow graph."""

    default_catalog: str | None = None
    default_database: str | None = None
    outputs: dict[str, Output] = field(default_factory=dict)
    flows: dict[str, Flow] = field(default_factory=dict)

    def flow(self, name: str) -> Flow | None:
        """The flow an event names (qualified by the server), by its name or its last part."""
        for flow in self.flows.values():
            if name in (flow.qualified, flow.name):
                return flow
        last = name.rsplit(".", 1)[-1]
        matches = [f for f in self.flows.values() if f.name.rsplit(".", 1)[-1] == last]
        return matches[0] if len(matches) == 1 else None

    def view(self, name: str) -> Flow | None:
        """The flow of a view of the graph's own that ``name`` refers to, if it is one."""
        last = unquoted(name).rsplit(".", 1)[-1]
        for output in self.outputs.values():
            if output.kind == "view" and output.name.rsplit(".", 1)[-1] == last:
                return self.flows.get(output.name)
        return None


class PipelineRun:
    """One run of a pipeline, and the runs of its flows as its events start and end them."""

    def __init__(self, adapter: Adapter, graph: Graph, name: str) -> None:
        self.adapter = adapter
        self.session: Session = adapter.session
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

    def _target(self, flow: Flow, flow_name: str, problems: list[str]) -> DatasetLineage | None:
        output = self.graph.outputs.get(flow.target)
        if output is not None and output.kind == "view":
            return None
        if output is not None and output.kind == "sink":
            sink = StreamSink(output.format, options=output.options)
            return self.session.sink_dataset(sink, problems)
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

    def _inputs(self, flow: Flow, problems: list[str], depth: int) -> list[DatasetLineage]:
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

    def _query_inputs(self, flow: Flow, problems: list[str], depth: int) -> list[DatasetLineage]:
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
