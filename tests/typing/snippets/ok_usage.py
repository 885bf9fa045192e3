"""Correct use of the generated types: mypy must accept all of it."""

import uuid
from datetime import datetime, timezone

from myco_facets import MyCoCostsRunFacet, MyCoQualityDatasetFacet

from openlineage_sdk import (
    DatasetFacets,
    InputDataset,
    InputDatasetFacets,
    Job,
    JobFacets,
    OutputDataset,
    Run,
    RunEvent,
    RunFacets,
    naming,
)
from openlineage_sdk import facets as f

parent = f.ParentRunFacet(
    run={"runId": str(uuid.uuid4())}, job={"namespace": "airflow", "name": "dag"}
)
event = RunEvent(
    event_type="START",
    event_time="2024-05-01T00:00:00Z",
    run=Run(run_id="0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", facets=RunFacets(parent=parent)),
    job=Job(namespace="ns", name="job", facets=JobFacets(sql=f.SQLJobFacet(query="select 1"))),
    inputs=[
        InputDataset(
            namespace="s3://b",
            name="k",
            facets=DatasetFacets(
                schema_=f.SchemaDatasetFacet(fields=[{"name": "id", "type": "long"}])
            ),
            input_facets=InputDatasetFacets(
                input_statistics=f.InputStatisticsInputDatasetFacet(row_count=1)
            ),
        )
    ],
    outputs=[
        OutputDataset(
            namespace="s3://b",
            name="o",
            facets=DatasetFacets.of(
                MyCoQualityDatasetFacet(score=90, checked_at=datetime.now(timezone.utc).isoformat())
            ),
        )
    ],
)
facet: f.ParentRunFacet | None = event.run.facets.parent if event.run.facets else None
run_id: str = event.run.run_id
costs = MyCoCostsRunFacet(amount=1.5, currency="EUR")
amount: float = costs.amount
key: str | None = MyCoCostsRunFacet.facet_key

# The naming builders are exported for type checkers, not only at run time.
pg: naming.DatasetName = naming.postgres("h", "d", "s", "t", port=naming.DEFAULT_PORTS["postgres"])
s3: naming.DatasetName = naming.dataset_from_uri("s3://bucket/key")
sql_job: str = naming.sql_job_name("s", "t")
