"""The typical Spark write COMPLETE event, built by each library the way its users build it.

Run facets parent, nominalTime and processing_engine; job facets sql, jobType and
sourceCodeLocation; two inputs with a 20-column schema and dataSource each; one output with schema,
dataSource, outputStatistics and a columnLineage of 20 fields, each from a column of both inputs.
Names are computed once, outside the timed code, so the figures measure the libraries rather than
string formatting; both sides get the same inputs.
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Callable
from typing import Any

COLUMNS = [f"col_{i}" for i in range(20)]
INPUTS = ["raw/orders", "raw/customers"]
NAMESPACE = "s3://warehouse"
PRODUCER = "https://github.com/example/pipelines/tree/v1.4.2"


class _NoModel(dict[str, Any]):
    """Stands in for every class when measuring the user's own code: keeps the keywords."""

    def to_json(self) -> str:
        return ""


class _NoFacets:
    def __getattr__(self, name: str) -> type[_NoModel]:
        return _NoModel


def ours_builder(*, without_sdk: bool = False) -> Callable[[], str]:
    """Build and serialize with openlineage-sdk: typed classes, records as dicts.

    ``without_sdk=True`` runs the same code with every class replaced by ``dict``: what the
    user's own code (dicts, lists, calls, ids, times) costs, with nothing checked or written.
    """
    from openlineage_sdk import (
        DatasetFacets,
        InputDataset,
        Job,
        JobFacets,
        OutputDataset,
        OutputDatasetFacets,
        Run,
        RunEvent,
        RunFacets,
    )
    from openlineage_sdk import facets as f

    if without_sdk:
        DatasetFacets = InputDataset = Job = JobFacets = OutputDataset = _NoModel  # type: ignore[assignment,misc]  # noqa: N806
        OutputDatasetFacets = Run = RunEvent = RunFacets = _NoModel  # type: ignore[assignment,misc]  # noqa: N806
        f = _NoFacets()  # type: ignore[assignment]

    def build() -> str:
        def source() -> f.DatasourceDatasetFacet:
            return f.DatasourceDatasetFacet(name=NAMESPACE, uri=NAMESPACE)

        def schema() -> f.SchemaDatasetFacet:
            return f.SchemaDatasetFacet(fields=[{"name": c, "type": "string"} for c in COLUMNS])

        lineage = f.ColumnLineageDatasetFacet(
            fields={
                c: {
                    "inputFields": [
                        {"namespace": NAMESPACE, "name": name, "field": c} for name in INPUTS
                    ]
                }
                for c in COLUMNS
            }
        )
        event = RunEvent(
            event_type="COMPLETE",
            event_time=datetime.datetime.now(datetime.timezone.utc).isoformat(),
            run=Run(
                run_id=str(uuid.uuid4()),
                facets=RunFacets(
                    parent=f.ParentRunFacet(
                        run={"runId": str(uuid.uuid4())},
                        job={"namespace": "spark", "name": "orders_app"},
                    ),
                    nominal_time=f.NominalTimeRunFacet(nominal_start_time="2024-05-01T00:00:00Z"),
                    processing_engine=f.ProcessingEngineRunFacet(
                        version="4.0.1", name="spark", openlineage_adapter_version="0.1.0"
                    ),
                ),
            ),
            job=Job(
                namespace="spark",
                name="orders_app.execute_insert_into_hadoop_fs_relation_command.curated_orders",
                facets=JobFacets(
                    sql=f.SQLJobFacet(query="INSERT INTO curated.orders SELECT * FROM raw.orders"),
                    job_type=f.JobTypeJobFacet(
                        processing_type="BATCH", integration="SPARK", job_type="SQL_JOB"
                    ),
                    source_code_location=f.SourceCodeLocationJobFacet(
                        type="git", url="https://github.com/example/pipelines"
                    ),
                ),
            ),
            inputs=[
                InputDataset(
                    namespace=NAMESPACE,
                    name=name,
                    facets=DatasetFacets(schema_=schema(), data_source=source()),
                )
                for name in INPUTS
            ],
            outputs=[
                OutputDataset(
                    namespace=NAMESPACE,
                    name="curated/orders",
                    facets=DatasetFacets(
                        schema_=schema(), data_source=source(), column_lineage=lineage
                    ),
                    output_facets=OutputDatasetFacets(
                        output_statistics=f.OutputStatisticsOutputDatasetFacet(
                            row_count=5_000_000, size=734_003_200, file_count=16
                        )
                    ),
                )
            ],
            producer=PRODUCER,
        )
        return event.to_json()

    return build


def official_builder() -> Callable[[], str]:
    """Build and serialize with openlineage-python 1.54.0: its attrs classes and ``Serde``."""
    from openlineage.client.event_v2 import (
        InputDataset,
        Job,
        OutputDataset,
        Run,
        RunEvent,
        RunState,
    )
    from openlineage.client.facet_v2 import (
        column_lineage_dataset,
        datasource_dataset,
        job_type_job,
        nominal_time_run,
        output_statistics_output_dataset,
        parent_run,
        processing_engine_run,
        schema_dataset,
        source_code_location_job,
        sql_job,
    )
    from openlineage.client.serde import Serde

    def build() -> str:
        def source() -> Any:
            return datasource_dataset.DatasourceDatasetFacet(name=NAMESPACE, uri=NAMESPACE)

        def schema() -> Any:
            return schema_dataset.SchemaDatasetFacet(
                fields=[
                    schema_dataset.SchemaDatasetFacetFields(name=c, type="string") for c in COLUMNS
                ]
            )

        lineage = column_lineage_dataset.ColumnLineageDatasetFacet(
            fields={
                c: column_lineage_dataset.Fields(
                    inputFields=[
                        column_lineage_dataset.InputField(namespace=NAMESPACE, name=name, field=c)
                        for name in INPUTS
                    ]
                )
                for c in COLUMNS
            }
        )
        event = RunEvent(
            eventType=RunState.COMPLETE,
            eventTime=datetime.datetime.now(datetime.timezone.utc).isoformat(),
            run=Run(
                runId=str(uuid.uuid4()),
                facets={
                    "parent": parent_run.ParentRunFacet(
                        run=parent_run.Run(runId=str(uuid.uuid4())),
                        job=parent_run.Job(namespace="spark", name="orders_app"),
                    ),
                    "nominalTime": nominal_time_run.NominalTimeRunFacet(
                        nominalStartTime="2024-05-01T00:00:00Z"
                    ),
                    "processing_engine": processing_engine_run.ProcessingEngineRunFacet(
                        version="4.0.1", name="spark", openlineageAdapterVersion="0.1.0"
                    ),
                },
            ),
            job=Job(
                namespace="spark",
                name="orders_app.execute_insert_into_hadoop_fs_relation_command.curated_orders",
                facets={
                    "sql": sql_job.SQLJobFacet(
                        query="INSERT INTO curated.orders SELECT * FROM raw.orders"
                    ),
                    "jobType": job_type_job.JobTypeJobFacet(
                        processingType="BATCH", integration="SPARK", jobType="SQL_JOB"
                    ),
                    "sourceCodeLocation": source_code_location_job.SourceCodeLocationJobFacet(
                        type="git", url="https://github.com/example/pipelines"
                    ),
                },
            ),
            inputs=[
                InputDataset(
                    namespace=NAMESPACE,
                    name=name,
                    facets={"schema": schema(), "dataSource": source()},
                )
                for name in INPUTS
            ],
            outputs=[
                OutputDataset(
                    namespace=NAMESPACE,
                    name="curated/orders",
                    facets={"schema": schema(), "dataSource": source(), "columnLineage": lineage},
                    outputFacets={
                        "outputStatistics": output_statistics_output_dataset.OutputStatisticsOutputDatasetFacet(
                            rowCount=5_000_000, size=734_003_200, fileCount=16
                        )
                    },
                )
            ],
            producer=PRODUCER,
        )
        return Serde.to_json(event)

    return build
