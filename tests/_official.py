"""The official openlineage-python client (1.54.0, a test dependency): its events, and what to
leave out when comparing what it sends with what this SDK sends."""

from __future__ import annotations

import copy
import enum
import json
import os
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import attr

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from openlineage.client import event_v2 as ev
    from openlineage.client import facet as facet_v1
    from openlineage.client import run as run_v1
    from openlineage.client.facet_v2 import (
        RunFacet,
        column_lineage_dataset,
        data_quality_metrics_input_dataset,
        documentation_job,
        error_message_run,
        nominal_time_run,
        output_statistics_output_dataset,
        ownership_job,
        parent_run,
        schema_dataset,
        sql_job,
        symlinks_dataset,
        tags_job,
    )
    from openlineage.client.serde import Serde

PRODUCER = "https://example.com/official-producer"
EVENT_TIME = "2024-05-01T10:00:00.123+02:00"


def run_id(n: int) -> str:
    return str(uuid.UUID(int=n))


def strip(value: Any) -> Any:
    """Drop what legitimately differs: each library's ``_producer``, and the official client's
    version tag (with the ``tags`` facet and the ``facets`` it made for it alone)."""
    if isinstance(value, dict):
        kept = {k: strip(v) for k, v in value.items() if k != "_producer"}
        return {k: v for k, v in kept.items() if not _emptied(k, value[k], v)}
    if isinstance(value, list):
        return [
            strip(v)
            for v in value
            if not (isinstance(v, dict) and v.get("source") == "OPENLINEAGE_CLIENT")
        ]
    return value


def _emptied(key: str, given: Any, kept: Any) -> bool:
    """A ``tags`` facet the official client made for its version tag alone, and ``facets``
    left empty (it makes one to hold that tag): left out."""
    return _version_only(key, given) or (key == "facets" and kept == {})


def _version_only(key: str, value: Any) -> bool:
    tags = value.get("tags") if key == "tags" and isinstance(value, dict) else None
    return (
        isinstance(tags, list)
        and bool(tags)
        and all(isinstance(t, dict) and t.get("source") == "OPENLINEAGE_CLIENT" for t in tags)
    )


def fresh(events: list[Any]) -> list[Any]:
    """Copies of ``events``: the official client changes the events it is given."""
    return copy.deepcopy(events)


def official_json(event: Any) -> dict[str, Any]:
    """What the official client writes for ``event``."""
    data: dict[str, Any] = json.loads(Serde.to_json(event))
    return data


@contextmanager
def environment_kept() -> Iterator[None]:
    """The official client writes OPENLINEAGE__TRANSPORT__TRANSPORTS__DEFAULT_HTTP__* into
    ``os.environ`` when OPENLINEAGE_URL is set: put the environment back afterwards."""
    before = dict(os.environ)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(before)


class Stage(enum.Enum):
    """A user's enumeration in a user's facet: the official Serde writes its value."""

    BRONZE = "bronze"


@attr.define
class CostRunFacet(RunFacet):
    """A user's own facet class, as teams define them on the official client."""

    dollars: float
    stage: Stage = Stage.BRONZE
    labels: list[str | None] = attr.field(factory=list)
    nested: dict[str, Any] = attr.field(factory=dict)


def rich_run_event(n: int = 1) -> ev.RunEvent:
    """A run event with the facets integrations send, a user's facet and extra properties."""
    schema = schema_dataset.SchemaDatasetFacet(
        fields=[
            schema_dataset.SchemaDatasetFacetFields(name="id", type="BIGINT"),
            schema_dataset.SchemaDatasetFacetFields(
                name="address",
                type="STRUCT",
                fields=[schema_dataset.SchemaDatasetFacetFields(name="city", type="STRING")],
            ),
        ]
    )
    lineage = column_lineage_dataset.ColumnLineageDatasetFacet(
        fields={
            "id": column_lineage_dataset.Fields(
                inputFields=[
                    column_lineage_dataset.InputField(
                        namespace="postgres://db:5432",
                        name="public.orders",
                        field="id",
                        transformations=[
                            column_lineage_dataset.Transformation(
                                type="DIRECT", subtype="IDENTITY", masking=False
                            )
                        ],
                    )
                ]
            )
        }
    )
    return ev.RunEvent(
        eventType=ev.RunState.COMPLETE,
        eventTime=EVENT_TIME,
        run=ev.Run(
            runId=run_id(n),
            facets={
                "parent": parent_run.ParentRunFacet(
                    run=parent_run.Run(runId=run_id(100)),
                    job=parent_run.Job(namespace="airflow", name="dag.task"),
                    root=parent_run.Root(
                        run=parent_run.RootRun(runId=run_id(101)),
                        job=parent_run.RootJob(namespace="airflow", name="dag"),
                    ),
                ),
                "nominalTime": nominal_time_run.NominalTimeRunFacet(
                    nominalStartTime="2024-05-01T00:00:00Z"
                ),
                "errorMessage": error_message_run.ErrorMessageRunFacet(
                    message="boom", programmingLanguage="python"
                ),
                "cost": CostRunFacet(
                    dollars=1.5,
                    labels=["a", None, "b"],
                    nested={"skip": None, "keep": [1, None, {}], "when": "x"},
                ),
                "extra": ownership_job.OwnershipJobFacet(
                    owners=[ownership_job.Owner(name="team:data")]
                ).with_additional_properties(region="eu", retries=3),
            },
        ),
        job=ev.Job(
            namespace="etl",
            name=f"orders.load_{n}",
            facets={
                "sql": sql_job.SQLJobFacet(
                    query="INSERT INTO t SELECT * FROM s", dialect="postgres"
                ),
                "documentation": documentation_job.DocumentationJobFacet(description="Loads é ☃"),
                "tags": tags_job.TagsJobFacet(
                    tags=[tags_job.TagsJobFacetFields("team", "data", "INTEGRATION")]
                ),
            },
        ),
        inputs=[
            ev.InputDataset(
                namespace="postgres://db:5432",
                name="public.orders",
                facets={
                    "schema": schema,
                    "symlinks": symlinks_dataset.SymlinksDatasetFacet(
                        identifiers=[
                            symlinks_dataset.Identifier(
                                namespace="hive://metastore", name="db.orders", type="TABLE"
                            )
                        ]
                    ),
                },
                inputFacets={
                    "dataQualityMetrics": (
                        data_quality_metrics_input_dataset.DataQualityMetricsInputDatasetFacet(
                            columnMetrics={
                                "id": data_quality_metrics_input_dataset.ColumnMetrics(
                                    nullCount=0, distinctCount=10
                                )
                            },
                            rowCount=10,
                        )
                    )
                },
            )
        ],
        outputs=[
            ev.OutputDataset(
                namespace="s3://lake",
                name="orders/daily",
                facets={"columnLineage": lineage},
                outputFacets={
                    "outputStatistics": (
                        output_statistics_output_dataset.OutputStatisticsOutputDatasetFacet(
                            rowCount=10, size=2048
                        )
                    )
                },
            )
        ],
        producer=PRODUCER,
    )


def job_event(name: str = "orders.declared") -> ev.JobEvent:
    return ev.JobEvent(
        eventTime=EVENT_TIME,
        job=ev.Job(namespace="etl", name=name),
        inputs=[ev.InputDataset(namespace="postgres://db:5432", name="public.orders")],
        producer=PRODUCER,
    )


def dataset_event() -> ev.DatasetEvent:
    return ev.DatasetEvent(
        eventTime=EVENT_TIME,
        dataset=ev.StaticDataset(
            namespace="s3://lake",
            name="orders/daily",
            facets={
                "schema": schema_dataset.SchemaDatasetFacet(
                    fields=[schema_dataset.SchemaDatasetFacetFields(name="id", type="BIGINT")]
                )
            },
        ),
        producer=PRODUCER,
    )


def v1_run_event() -> run_v1.RunEvent:
    """An event of the older ``openlineage.client.run`` API, which dbt's and older Airflow
    integrations still build."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return run_v1.RunEvent(
            eventType=run_v1.RunState.START,
            eventTime=EVENT_TIME,
            run=run_v1.Run(
                runId=run_id(7),
                facets={
                    "nominalTime": facet_v1.NominalTimeRunFacet(
                        nominalStartTime="2024-05-01T00:00:00Z"
                    )
                },
            ),
            job=run_v1.Job(
                namespace="dbt",
                name="model.orders",
                facets={"sql": facet_v1.SqlJobFacet(query="select 1")},
            ),
            producer=PRODUCER,
            inputs=[run_v1.Dataset(namespace="pg", name="public.orders")],
            outputs=[
                run_v1.Dataset(
                    namespace="pg",
                    name="public.orders_daily",
                    facets={
                        "schema": facet_v1.SchemaDatasetFacet(
                            fields=[facet_v1.SchemaField(name="id", type="int")]
                        )
                    },
                )
            ],
        )


def simple_run_event(n: int, job: str = "etl.load") -> ev.RunEvent:
    return ev.RunEvent(
        eventType=ev.RunState.START,
        eventTime="2024-01-01T00:00:00Z",
        run=ev.Run(runId=run_id(n + 1)),
        job=ev.Job(namespace="ns", name=job),
        producer=PRODUCER,
    )
