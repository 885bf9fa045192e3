"""From records to runs: the events of each execution, in automatic and in explicit mode.

:class:`RunPerExecution` (automatic mode) makes each execution a run of the client's: START as it
starts, with the inputs, the output and what is known before it ends; COMPLETE after it with the
statistics (or FAIL with its exception in an errorMessage facet, or ABORT when it was
interrupted). The run's parent is found by the lifecycle (``parent="auto"``): the run whose
``with`` block the execution is in, such as the application's run, unless the record names its
own (a streaming query's run is the parent of its ``foreachBatch`` writes). An execution that
outlives its call (a streaming query) also gets RUNNING events between the two
(:meth:`RunPerExecution.execution_running`), as its observer decides.

:class:`IntoCurrentRun` (explicit mode) adds the same datasets and facets to the run whose block
the execution is in (``openlineage_sdk.lifecycle.current_run()``), and emits nothing itself: the
user's run carries them in its next event. It adds no ``jobType``, which is the user's job's to
say, and adds ``processing_engine`` only when the run has none.

Both name jobs by one rule (:func:`job_name_for`) and put the column lineage in the form the
session's confs ask for; registered facet builders (``_extensions``) add their facets to both.
"""

from __future__ import annotations

import logging
import threading
import weakref
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from openlineage_sdk.lifecycle import LineageRun, RunRef, current_run
from openlineage_sdk.models.base import RunFacet
from openlineage_sdk.models.records import (
    ColumnLineageDatasetFacetField,
    ExtractionErrorRunFacetError,
    InputFieldTransformation,
)
from openlineage_sdk.spark._conf import SparkConfSettings
from openlineage_sdk.spark._execution import ColumnLineageRecord, SparkExecution, job_name
from openlineage_sdk.spark.events._client import fallback_parent
from openlineage_sdk.spark.events._debug import DEBUG_KEY, DebugSource
from openlineage_sdk.spark.events._extensions import EventType, FacetBuilders, built_facets
from openlineage_sdk.spark.events._facets import (
    _attempt,
    definition_facets,
    errors,
    extraction_error,
    input_datasets,
    job_details_facet,
    job_type_facet,
    keyed_with,
    output_datasets,
    processing_engine_facet,
    run_facets,
    running_datasets,
)
from openlineage_sdk.spark.platforms import prettify_job_name

if TYPE_CHECKING:
    from openlineage_sdk.client import OpenLineage

__all__ = [
    "IntoCurrentRun",
    "RunPerExecution",
    "RunPerWrite",
    "fold_dataset_lineage",
    "job_name_for",
]

log = logging.getLogger("openlineage_sdk.spark")


def job_name_for(execution: SparkExecution, settings: SparkConfSettings | None = None) -> str:
    """The job name of an execution, with the session's job-name confs applied as the agent does.

    ``appName`` replaces the application's name; ``jobName.appendDatasetName=false`` leaves the
    suffix out; ``jobName.replaceDotWithUnderscore=true`` makes dots in the command part ``_``
    (the parts stay joined by dots). The suffix itself is the command's, by its rule (see
    ``describe._commands``): the confs never recompute it.
    """
    if settings is None:
        return execution.job_name
    command = execution.command
    if settings.replace_dot_with_underscore:
        command = command.replace(".", "_")
    suffix = execution.job_suffix if settings.append_dataset_name else None
    name = job_name(settings.app_name or execution.app_name, command, suffix)
    if settings.append_dataset_name and settings.job_name_workspace is not None:
        # Databricks: the notebook shell's app name made the workspace's, as the agent does.
        name = prettify_job_name(name, settings.job_name_workspace)
    return name


def fold_dataset_lineage(record: ColumnLineageRecord) -> ColumnLineageRecord:
    """The record with its dataset-wide lineage repeated in each field, and no ``dataset`` part.

    The form of the column lineage facet before it had ``dataset`` (1-2-0), which the JVM agent
    sends with ``spark.openlineage.columnLineage.datasetLineageEnabled=false``: every field that
    has inputs of its own also lists, for each input field a filter, a join, a grouping or a
    sort reads, those ``INDIRECT`` transformations. Fields with no input of their own stay out.
    """
    if not record.dataset:
        return record
    fields: dict[str, ColumnLineageDatasetFacetField] = {}
    for name, own in record.fields.items():
        merged: dict[tuple[str, str, str], list[InputFieldTransformation]] = {}
        for item in [*own["inputFields"], *record.dataset]:
            key = (item["namespace"], item["name"], item["field"])
            known = merged.setdefault(key, [])
            for transformation in item.get("transformations") or []:
                if transformation not in known:
                    known.append(transformation)
        fields[name] = {
            **own,
            "inputFields": [
                {"namespace": ns, "name": dataset, "field": column, "transformations": hows}
                for (ns, dataset, column), hows in merged.items()
            ],
        }
    return ColumnLineageRecord(fields=fields, dataset=[])


def _fold(execution: SparkExecution, settings: SparkConfSettings | None) -> None:
    """With ``datasetLineageEnabled=false``, dataset-wide column lineage goes into each field."""
    output = execution.output
    if settings is None or settings.dataset_lineage or output is None:
        return
    if output.column_lineage is None:
        return
    try:
        output.column_lineage = fold_dataset_lineage(output.column_lineage)
    except Exception as error:  # the facet goes out in its default form rather than not
        log.warning("openlineage: folding the column lineage into its fields failed: %s", error)


class RunPerExecution:
    """Automatic mode: each execution is a run of ``client``: START, then COMPLETE, FAIL or ABORT.

    Args:
        client: Where the events go; its producer and namespace are the runs'.
        settings: The session's ``spark.openlineage.*`` settings (job names, column lineage).
        builders: Facet builders whose facets join the adapter's.
    """

    #: An execution's end may reach this sink after the user's call returned (see
    #: ``_flow.finish_later``): each execution is a run of its own, which nothing else holds.
    reports_later = True

    def __init__(
        self,
        client: OpenLineage,
        settings: SparkConfSettings | None = None,
        builders: FacetBuilders | None = None,
    ) -> None:
        self.client = client
        self.settings = settings
        self.builders = builders if builders is not None else FacetBuilders()
        #: The parent of runs made outside every run, before the confs' parent: the launcher
        #: sets the application run here, which is started but not entered as a block.
        self.default_parent: LineageRun | None = None
        #: The application run open now (``application_run``): the parent of commands heard
        #: from Spark's listener bus, started from JVM code, outside every thread's run.
        self.heard_parent: LineageRun | None = None
        self._lock = threading.Lock()
        self._runs: dict[int, LineageRun] = {}
        #: Parent run id -> how many runs under it ended FAIL (the application's end reads it).
        self.failed_children: dict[str, int] = {}
        #: Builds the ``debug`` facet, when the confs ask for it (set by ``install``).
        self.debug: DebugSource | None = None
        # The datasets each open run announced with all their facets (see execution_running).
        self._announced: dict[int, set[tuple[str, str, str]]] = {}

    def run_ref(self, execution: SparkExecution) -> RunRef | None:
        """The run of an execution that started and has not ended (a parent for its children)."""
        with self._lock:
            run = self._runs.get(id(execution))
        return run.ref if run is not None else None

    def _debug(self, execution: SparkExecution, event_type: EventType) -> dict[str, RunFacet]:
        """The ``debug`` facet of an event, by key, when the confs ask for it."""
        debug = self.debug
        if debug is None:
            return {}
        facet = _attempt(
            execution,
            "debug facet",
            lambda: debug.facet(execution, event_type, self.client.producer),
        )
        return {DEBUG_KEY: facet} if facet is not None else {}

    def execution_running(self, execution: SparkExecution) -> None:
        """Emit a RUNNING event of an open run: the statistics its datasets have now.

        A dataset the run has not announced yet (a stream's new Kafka topic) goes out with all
        its facets; the others with their statistics alone, merged by the run into what it
        holds.
        """
        with self._lock:
            run = self._runs.get(id(execution))
            announced = self._announced.setdefault(id(execution), set())
        if run is None or run.ended:
            return
        producer = self.client.producer
        extra = built_facets(self.builders, execution, "RUNNING")
        inputs, outputs = running_datasets(execution, producer, announced, extra)
        with self._lock:
            announced.update(_identities(execution))
        facets = [*run_facets(execution, producer, finished=True).values(), *extra.run]
        run.running(inputs=inputs, outputs=outputs, run_facets=facets, job_facets=extra.job)

    def execution_started(self, execution: SparkExecution) -> None:
        """Open the execution's run and emit its START."""
        producer = self.client.producer
        _fold(execution, self.settings)
        extra = built_facets(self.builders, execution, "START")
        inputs = input_datasets(execution, producer, extra=extra)
        outputs = output_datasets(execution, producer, extra=extra)
        job_type = _attempt(
            execution,
            "jobType facet",
            lambda: job_type_facet(producer, execution.job_type, execution.processing_type),
        )
        settings = self.settings
        run = self.client.run(
            job_name_for(execution, settings),
            # The conf's namespace, as the JVM agent's: not the parent's, as a child would have.
            namespace=self.client.namespace if settings and settings.namespace else None,
            inputs=inputs,
            outputs=outputs,
            run_facets=keyed_with(
                [*run_facets(execution, producer).values(), *extra.run],
                self._debug(execution, "START"),
            ),
            job_facets=[
                *([job_type] if job_type is not None else []),
                *definition_facets(execution, producer),
                *extra.job,
            ],
            parent=(
                execution.parent
                if execution.parent is not None
                else fallback_parent(settings, self.default_parent)
            ),
        )
        run.list_empty = True  # "inputs": [] and empty inputFacets, as the JVM agent writes
        with self._lock:
            self._runs[id(execution)] = run
            self._announced[id(execution)] = _identities(execution)
        # When the execution started: its START may be sent later, once described beside it.
        started = (
            datetime.fromtimestamp(execution.started, timezone.utc) if execution.started else None
        )
        run.start(event_time=started)

    def execution_finished(self, execution: SparkExecution) -> None:
        """Emit the execution's COMPLETE with its statistics, or FAIL or ABORT."""
        with self._lock:
            run = self._runs.pop(id(execution), None)
            self._announced.pop(id(execution), None)
        if run is None:
            return  # its start failed, and was logged then
        producer = self.client.producer
        _fold(execution, self.settings)
        error = execution.error
        state: EventType = (
            "COMPLETE" if error is None else "FAIL" if isinstance(error, Exception) else "ABORT"
        )
        extra = built_facets(self.builders, execution, state)
        inputs = input_datasets(execution, producer, finished=True, extra=extra)
        outputs = output_datasets(execution, producer, finished=True, extra=extra)
        facets = keyed_with(
            [*run_facets(execution, producer, finished=True).values(), *extra.run],
            {**job_details_facet(execution, producer), **self._debug(execution, state)},
        )
        if error is None:
            run.complete(inputs=inputs, outputs=outputs, run_facets=facets, job_facets=extra.job)
        elif isinstance(error, Exception):
            parent = run.parent
            if parent is not None:
                with self._lock:
                    count = self.failed_children.get(parent.run_id, 0)
                    self.failed_children[parent.run_id] = count + 1
            run.fail(error, inputs=inputs, outputs=outputs, run_facets=facets, job_facets=extra.job)
        else:  # KeyboardInterrupt and the like: stopped from outside
            run.abort(inputs=inputs, outputs=outputs, run_facets=facets, job_facets=extra.job)


#: The earlier name of :class:`RunPerExecution` (deprecated).
RunPerWrite = RunPerExecution


def _identities(execution: SparkExecution) -> set[tuple[str, str, str]]:
    datasets = [*execution.inputs, *([execution.output] if execution.output is not None else [])]
    return {(d.role, d.identity.namespace, d.identity.name) for d in datasets}


@dataclass
class _Tally:
    """The executions one run received in explicit mode, for its extractionError facet."""

    total: int = 0
    failed: int = 0
    errors: list[ExtractionErrorRunFacetError] = field(default_factory=list)


class IntoCurrentRun:
    """Explicit mode: each execution adds its lineage to the current run and emits nothing."""

    def __init__(
        self, settings: SparkConfSettings | None = None, builders: FacetBuilders | None = None
    ) -> None:
        self.settings = settings
        self.builders = builders if builders is not None else FacetBuilders()
        self._lock = threading.Lock()
        self._runs: dict[int, LineageRun] = {}
        self._tallies: weakref.WeakKeyDictionary[LineageRun, _Tally] = weakref.WeakKeyDictionary()
        self._warned = False

    def run_ref(self, execution: SparkExecution) -> RunRef | None:
        """The run an execution that started and has not ended was added to."""
        with self._lock:
            run = self._runs.get(id(execution))
        return run.ref if run is not None else None

    def execution_started(self, execution: SparkExecution) -> None:
        """Add the execution's inputs, output and run facets to the current run."""
        run = current_run()
        if run is None:
            if not self._warned:
                self._warned = True
                log.warning(
                    "openlineage: a Spark write outside every run is not reported in explicit "
                    "mode (install(spark, client) reports each write as a run of its own)"
                )
            return
        with self._lock:
            self._runs[id(execution)] = run
        producer = run.client.producer
        _fold(execution, self.settings)
        extra = built_facets(self.builders, execution, "START")
        run.add_inputs(*input_datasets(execution, producer, extra=extra))
        run.add_outputs(*output_datasets(execution, producer, extra=extra))
        version = execution.spark_version
        if version and "processing_engine" not in run.run_facets:
            run.add_run_facets(processing_engine_facet(version, producer))
        if extra.run:
            run.add_run_facets(*extra.run)

    def execution_finished(self, execution: SparkExecution) -> None:
        """Add what the execution reported (statistics) and what could not be learned."""
        with self._lock:
            run = self._runs.pop(id(execution), None)
        if run is None:
            return
        producer = run.client.producer
        state: EventType = "COMPLETE" if execution.error is None else "FAIL"
        extra = built_facets(self.builders, execution, state)
        run.add_inputs(*input_datasets(execution, producer, finished=True, extra=extra))
        run.add_outputs(*output_datasets(execution, producer, finished=True, extra=extra))
        with self._lock:
            tally = self._tallies.setdefault(run, _Tally())
            number = tally.total
            tally.total += 1
            found = errors(execution, number)
            if found:
                tally.failed += 1
                tally.errors.extend(found)
            facet = (
                extraction_error(producer, tally.total, tally.failed, list(tally.errors))
                if tally.failed
                else None
            )
        if facet is not None:
            run.add_run_facets(facet)
        if extra.run:
            run.add_run_facets(*extra.run)
