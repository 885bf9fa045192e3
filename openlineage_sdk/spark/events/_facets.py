"""From the record of an execution to OpenLineage datasets and facets.

Facets
------
Each execution becomes, with the producer of the client that emits it:

* for the output and each input, the dataset (namespace and name by the naming module) with its
  ``dataSource``, ``schema`` and ``symlinks`` (a catalog table's name over its location); the
  output also gets ``columnLineage`` and, once the execution ran, ``outputStatistics``; an input
  gets ``inputStatistics`` when Spark reported what its scan read. The facets known before the
  execution are built once, for the start; the end adds only the statistics, which the lifecycle
  merges by key into the datasets the run already holds;
* the run facets ``processing_engine`` (Spark's version and this SDK's) and, when some part could
  not be learned, ``extractionError`` listing why;
* the job facet ``jobType``: ``BATCH``, ``SPARK``, ``SQL_JOB``, as the JVM agent marks the runs
  of Spark actions.

A statistic that is not known is left out of its facet, never filled in; a facet whose statistics
are all unknown is left out. Every facet is built on its own: one that fails is logged, noted in
the execution's problems, and left out, and the rest go out.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from openlineage_sdk._version import __version__
from openlineage_sdk.models.base import (
    DatasetFacet,
    InputDatasetFacet,
    JobFacet,
    OutputDatasetFacet,
    RunFacet,
)
from openlineage_sdk.models.core import (
    DatasetFacets,
    InputDataset,
    InputDatasetFacets,
    OutputDataset,
    OutputDatasetFacets,
)
from openlineage_sdk.models.facets import (
    CatalogDatasetFacet,
    ColumnLineageDatasetFacet,
    DatasetVersionDatasetFacet,
    DatasourceDatasetFacet,
    ExtractionErrorRunFacet,
    InputStatisticsInputDatasetFacet,
    InputSubsetInputDatasetFacet,
    JobTypeJobFacet,
    LifecycleStateChangeDatasetFacet,
    OutputStatisticsOutputDatasetFacet,
    OutputSubsetOutputDatasetFacet,
    ProcessingEngineRunFacet,
    SchemaDatasetFacet,
    SourceCodeLocationJobFacet,
    SQLJobFacet,
    SymlinksDatasetFacet,
)
from openlineage_sdk.models.records import ExtractionErrorRunFacetError, LocationSubsetCondition
from openlineage_sdk.spark._execution import note_problem

if TYPE_CHECKING:
    from openlineage_sdk.spark._execution import DatasetIdentity, DatasetLineage, SparkExecution
    from openlineage_sdk.spark.events._extensions import AnyDatasetFacet, Built

__all__ = [
    "JOB_DETAILS_KEY",
    "application_facets",
    "definition_facets",
    "errors",
    "extraction_error",
    "input_datasets",
    "job_details_facet",
    "job_type_facet",
    "keyed_with",
    "output_datasets",
    "processing_engine_facet",
    "run_facets",
    "running_datasets",
    "sql_facet",
]

log = logging.getLogger("openlineage_sdk.spark")

_T = TypeVar("_T")


def _attempt(execution: SparkExecution, what: str, build: Callable[[], _T]) -> _T | None:
    """``build()``, or ``None`` with the failure logged and noted in the execution's problems."""
    try:
        return build()
    except Exception as error:
        note_problem(execution.problems, what, error)
        return None


# ------------------------------------------------------------------------------------ datasets


def _label(dataset: DatasetLineage) -> str:
    return f"{dataset.role} {dataset.identity.namespace} {dataset.identity.name}"


def _datasource(identity: DatasetIdentity, producer: str) -> DatasourceDatasetFacet:
    """The ``dataSource`` facet, as the JVM agent writes it.

    The naming conventions write a local file system's data source URI as ``file:``; the JVM
    agent writes ``file`` (the namespace itself), and the adapter follows the agent so that a
    dataset both report is one node. ``file`` is not an RFC 3986 URI (it has no scheme), so the
    facet is built without the model's URI check, and strict validation reports that one field.
    """
    facet = identity.dataset_name().datasource_facet(producer)
    if identity.namespace == "file" and facet.uri == "file:":
        return facet.model_copy(update={"uri": "file"})
    return facet


def _dataset_facets(
    execution: SparkExecution, dataset: DatasetLineage, producer: str
) -> dict[str, DatasetFacet]:
    identity = dataset.identity
    label = _label(dataset)
    built: dict[str, DatasetFacet | None] = {
        "dataSource": _attempt(
            execution, f"{label}: dataSource facet", lambda: _datasource(identity, producer)
        )
    }
    catalog = dataset.catalog
    if catalog is not None:
        built["catalog"] = _attempt(
            execution,
            f"{label}: catalog facet",
            lambda: CatalogDatasetFacet(
                producer=producer,
                framework=catalog.framework,
                type=catalog.type,
                name=catalog.name,
                warehouse_uri=catalog.warehouse_uri,
                metadata_uri=catalog.metadata_uri,
                source=catalog.source,
            ),
        )
    schema = dataset.schema
    if schema is not None:
        built["schema"] = _attempt(
            execution,
            f"{label}: schema facet",
            lambda: SchemaDatasetFacet(producer=producer, fields=schema),
        )
    if identity.symlinks:
        built["symlinks"] = _attempt(
            execution,
            f"{label}: symlinks facet",
            lambda: SymlinksDatasetFacet(
                producer=producer,
                identifiers=[
                    {"namespace": s.namespace, "name": s.name, "type": s.type}
                    for s in identity.symlinks
                ],
            ),
        )
    state = dataset.lifecycle_state
    if state is not None:
        previous = dataset.previous_identity
        built["lifecycleStateChange"] = _attempt(
            execution,
            f"{label}: lifecycleStateChange facet",
            lambda: LifecycleStateChangeDatasetFacet(
                producer=producer,
                lifecycle_state_change=state,
                previous_identifier=(
                    {"namespace": previous.namespace, "name": previous.name}
                    if previous is not None
                    else None
                ),
            ),
        )
    version = dataset.version
    if version is not None:
        built["version"] = _attempt(
            execution,
            f"{label}: version facet",
            lambda: DatasetVersionDatasetFacet(producer=producer, dataset_version=version),
        )
    for key, data in dataset.facets.items():
        # A facet a table's properties hold: as written, with this producer when it names none.
        built[key] = _attempt(
            execution,
            f"{label}: {key} facet",
            functools.partial(_property_facet, key, data, producer),
        )
    lineage = dataset.column_lineage
    if dataset.role == "output" and lineage is not None and (lineage.fields or lineage.dataset):
        built["columnLineage"] = _attempt(
            execution,
            f"{label}: columnLineage facet",
            lambda: ColumnLineageDatasetFacet(
                producer=producer, fields=lineage.fields, dataset=lineage.dataset or None
            ),
        )
    return {key: facet for key, facet in built.items() if facet is not None}


def _property_facet(key: str, data: dict[str, Any], producer: str) -> DatasetFacet:
    """A facet from its JSON, read as ``read_event`` reads a dataset's facet of that key."""
    facet = DatasetFacets.model_validate({key: {"_producer": producer, **data}}).get(key)
    if not isinstance(facet, DatasetFacet):
        raise ValueError("not a dataset facet")
    return facet


def _statistics(
    execution: SparkExecution, dataset: DatasetLineage, producer: str
) -> dict[str, InputDatasetFacet | OutputDatasetFacet]:
    """``outputStatistics`` of the output or ``inputStatistics`` of an input, when known."""
    stats = dataset.stats
    if execution.error is not None or stats is None or stats.is_empty():
        return {}
    output = dataset.role == "output"
    key = "outputStatistics" if output else "inputStatistics"
    kind = OutputStatisticsOutputDatasetFacet if output else InputStatisticsInputDatasetFacet
    facet = _attempt(
        execution,
        f"{_label(dataset)}: {key} facet",
        lambda: kind(
            producer=producer,
            row_count=stats.row_count,
            size=stats.size,
            file_count=stats.file_count,
        ),
    )
    return {key: facet} if facet is not None else {}


def _subset(
    execution: SparkExecution, dataset: DatasetLineage, producer: str
) -> dict[str, InputDatasetFacet | OutputDatasetFacet]:
    """``subset``: the location a trimmed name stands for, as the JVM agent writes it."""
    location = dataset.identity.location
    assert location is not None
    condition: LocationSubsetCondition = {"type": "location", "locations": [location]}

    def build() -> InputDatasetFacet | OutputDatasetFacet:
        if dataset.role == "output":
            return OutputSubsetOutputDatasetFacet(producer=producer, output_condition=condition)
        return InputSubsetInputDatasetFacet(producer=producer, input_condition=condition)

    facet = _attempt(execution, f"{_label(dataset)}: subset facet", build)
    return {"subset": facet} if facet is not None else {}


def _dataset(
    execution: SparkExecution,
    dataset: DatasetLineage,
    producer: str,
    finished: bool,
    extra: Sequence[AnyDatasetFacet] = (),
) -> InputDataset | OutputDataset | None:
    """The dataset with its facets for the start, or with its statistics alone for the end.

    ``extra`` are the facets facet builders added to it. ``None`` when building it failed, or
    at the end when there is nothing to add.
    """
    identity = dataset.identity
    facets: dict[str, DatasetFacet] = {}
    io: dict[str, Any] = {}
    if finished:
        io = _statistics(execution, dataset, producer)
        if dataset.role == "output" and execution.output_changed:
            # The statement changed the output (ALTER, RENAME): the end says what it is now.
            facets = _dataset_facets(execution, dataset, producer)
        elif not io and not extra:
            return None
    else:
        facets = _dataset_facets(execution, dataset, producer)
        if identity.location is not None:
            io = _subset(execution, dataset, producer)
    for facet in extra:
        key = facet.facet_key or type(facet).__name__
        if isinstance(facet, DatasetFacet):
            facets[key] = facet
        else:
            io[key] = facet

    def build() -> InputDataset | OutputDataset:
        common = DatasetFacets.model_validate(facets) if facets else None
        if dataset.role == "input":
            return InputDataset(
                namespace=identity.namespace,
                name=identity.name,
                facets=common,
                input_facets=InputDatasetFacets.model_validate(io) if io else None,
            )
        return OutputDataset(
            namespace=identity.namespace,
            name=identity.name,
            facets=common,
            output_facets=OutputDatasetFacets.model_validate(io) if io else None,
        )

    return _attempt(execution, _label(dataset), build)


def input_datasets(
    execution: SparkExecution, producer: str, *, finished: bool = False, extra: Built | None = None
) -> list[InputDataset]:
    """The execution's inputs as ``InputDataset``s.

    For the start, each with every facet that could be built; ``finished``, for the end, only
    the inputs that have statistics (or facets from ``extra``, the facet builders'), with
    those alone.
    """
    built = (
        _dataset(
            execution, dataset, producer, finished, extra.for_dataset(dataset) if extra else ()
        )
        for dataset in execution.inputs
    )
    return [dataset for dataset in built if isinstance(dataset, InputDataset)]


def output_datasets(
    execution: SparkExecution, producer: str, *, finished: bool = False, extra: Built | None = None
) -> list[OutputDataset]:
    """The execution's output as a list of one ``OutputDataset``, as :func:`input_datasets`.

    The list is empty when the output is not known, or at the end when it has nothing to add.
    """
    output = execution.output
    if output is None:
        return []
    more = extra.for_dataset(output) if extra else ()
    built = _dataset(execution, output, producer, finished, more)
    return [built] if isinstance(built, OutputDataset) else []


def running_datasets(
    execution: SparkExecution,
    producer: str,
    announced: set[tuple[str, str, str]],
    extra: Built | None = None,
) -> tuple[list[InputDataset], list[OutputDataset]]:
    """The datasets of a RUNNING event of an open run (a stream's progress).

    Each dataset with its statistics; one not in ``announced`` (``(role, namespace, name)``:
    those the run's earlier events carried) also with every facet the start would give it.
    """
    inputs: list[InputDataset] = []
    outputs: list[OutputDataset] = []
    datasets = [*execution.inputs, *([execution.output] if execution.output is not None else [])]
    for dataset in datasets:
        more = extra.for_dataset(dataset) if extra else ()
        built: list[InputDataset | OutputDataset | None] = [
            _dataset(execution, dataset, producer, True, more)
        ]
        key = (dataset.role, dataset.identity.namespace, dataset.identity.name)
        if key not in announced:
            built.append(_dataset(execution, dataset, producer, False))
        for item in built:
            if isinstance(item, InputDataset):
                inputs.append(item)
            elif isinstance(item, OutputDataset):
                outputs.append(item)
    return inputs, outputs


# ----------------------------------------------------------------------------- run and job


def processing_engine_facet(spark_version: str, producer: str) -> ProcessingEngineRunFacet:
    """``processing_engine``: Spark's version and this SDK's, as the JVM agent writes it."""
    return ProcessingEngineRunFacet(
        producer=producer,
        name="spark",
        version=spark_version,
        openlineage_adapter_version=__version__,
    )


def sql_facet(producer: str, query: str) -> SQLJobFacet:
    """``sql``: the SQL text the execution ran, in Spark's dialect, as the JVM agent writes it."""
    return SQLJobFacet(producer=producer, query=query, dialect="spark")


def job_type_facet(
    producer: str, job_type: str = "SQL_JOB", processing_type: str | None = None
) -> JobTypeJobFacet:
    """``jobType`` of a Spark action's job (``SQL_JOB``) or an application's (``APPLICATION``).

    The JVM agent marks an application's own run ``processingType: NONE`` (it runs no data
    processing of its own; its actions do) and each action ``BATCH``.
    """
    if processing_type is None:
        processing_type = "NONE" if job_type == "APPLICATION" else "BATCH"
    return JobTypeJobFacet(
        producer=producer,
        processing_type=processing_type,
        integration="SPARK",
        job_type=job_type,
    )


def definition_facets(execution: SparkExecution, producer: str) -> list[JobFacet]:
    """``sourceCodeLocation`` and ``sql`` of a job, where its definition or its SQL is known.

    The location is the file's ``file:`` URI with the line as its fragment (``#L12``), and its
    path; the type is ``file``, as the definition is a file on the machine that ran it.
    """
    facets: list[JobFacet] = []
    location = execution.source_location
    if location is not None:
        path, line = location

        def build() -> SourceCodeLocationJobFacet:
            url = Path(path).as_uri() + (f"#L{line}" if line else "")
            return SourceCodeLocationJobFacet(producer=producer, type="file", url=url, path=path)

        built = _attempt(execution, "sourceCodeLocation facet", build)
        if built is not None:
            facets.append(built)
    sql = execution.sql
    if sql is not None:
        facet = _attempt(execution, "sql facet", lambda: sql_facet(producer, sql))
        if facet is not None:
            facets.append(facet)
    return facets


def _problems(execution: SparkExecution) -> list[str]:
    found = list(execution.problems)
    for dataset in [
        *execution.inputs,
        *([execution.output] if execution.output is not None else []),
    ]:
        found.extend(dataset.problems)
    return found


def extraction_error(
    producer: str, total: int, failed: int, errors: list[ExtractionErrorRunFacetError]
) -> ExtractionErrorRunFacet:
    return ExtractionErrorRunFacet(
        producer=producer, total_tasks=total, failed_tasks=failed, errors=errors
    )


def errors(execution: SparkExecution, number: int) -> list[ExtractionErrorRunFacetError]:
    """The execution's problems as the ``extractionError`` facet's errors (task ``number``)."""
    return [
        {"errorMessage": problem, "task": execution.method, "taskNumber": number}
        for problem in _problems(execution)
    ]


def run_facets(
    execution: SparkExecution, producer: str, *, finished: bool = False
) -> dict[str, RunFacet]:
    """``processing_engine``, and ``extractionError`` when a part of the execution's lineage failed.

    ``finished``, for the end, leaves out ``processing_engine``, which the run has from its
    start; ``extractionError`` lists every problem so far, so the end's replaces the start's.
    Call it after the datasets were built, so that failures in building them are listed too.
    """
    facets: dict[str, RunFacet] = {}
    version = execution.spark_version
    if version and not finished:
        engine = _attempt(
            execution, "processing_engine facet", lambda: processing_engine_facet(version, producer)
        )
        if engine is not None:
            facets["processing_engine"] = engine
    found = errors(execution, 0)
    if found:
        error_facet = _attempt(
            execution, "extractionError facet", lambda: extraction_error(producer, 1, 1, found)
        )
        if error_facet is not None:
            facets["extractionError"] = error_facet
    return facets


#: The key of the JVM agent's ``SparkJobDetailsFacet``.
JOB_DETAILS_KEY = "spark_jobDetails"


def job_details_facet(execution: SparkExecution, producer: str) -> dict[str, RunFacet]:
    """``spark_jobDetails`` of the end, by key, when the call ran a Spark job.

    The facet has no schema of its own: a JSON object with the generic ``_schemaURL``, as the
    agent writes it (``jobId``, ``jobDescription``, ``jobGroup``, ``jobCallSite``), under the
    agent's key.
    """
    details = execution.job_details
    if not details:
        return {}
    from openlineage_sdk.spark.platforms import GENERIC_RUN_FACET

    job = _attempt(
        execution,
        "spark_jobDetails facet",
        lambda: RunFacet.model_validate(
            {"_producer": producer, "_schemaURL": GENERIC_RUN_FACET, **details}
        ),
    )
    return {JOB_DETAILS_KEY: job} if job is not None else {}


def keyed_with(
    facets: list[RunFacet], more: dict[str, RunFacet]
) -> list[RunFacet] | dict[str, RunFacet]:
    """Run ``facets`` (each under its own key) with ``more``, facets without a key of their own.

    Args:
        facets: Facets whose classes have a key.
        more: Facets by the key they go under; one of ``facets`` under the same key replaces
            it (a facet builder's own ``spark_jobDetails``).

    Returns:
        ``facets`` unchanged when there is nothing more, else every facet by key.
    """
    if not more or any(type(facet).facet_key is None for facet in facets):
        return facets  # (a facet without a key is refused where the run takes them)
    keyed = dict(more)
    keyed.update((str(type(facet).facet_key), facet) for facet in facets)
    return keyed


def application_facets(
    spark_version: str | None, producer: str
) -> tuple[list[RunFacet], list[JobTypeJobFacet]]:
    """Run and job facets of a Spark application's own run."""
    run: list[RunFacet] = []
    if spark_version:
        run.append(processing_engine_facet(spark_version, producer))
    return run, [job_type_facet(producer, "APPLICATION")]
