"""Build an OpenLineage event in code, check it, write it, read it back.

python examples/quickstart.py
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

from openlineage_sdk import (
    DatasetFacets,
    InputDataset,
    Job,
    OutputDataset,
    OutputDatasetFacets,
    Run,
    RunEvent,
    RunFacets,
    read_event,
    validate_event,
)
from openlineage_sdk import facets as f
from openlineage_sdk.naming import dataset_from_uri


def main() -> None:
    orders = dataset_from_uri(
        "jdbc:postgresql://db.example.com/shop?currentSchema=sales", table="orders"
    )
    report = dataset_from_uri("s3a://analytics/reports/daily_orders")
    event = RunEvent(
        event_type="COMPLETE",
        event_time=datetime.now(timezone.utc).isoformat(),
        run=Run(
            run_id=str(uuid.uuid4()),
            facets=RunFacets(
                nominal_time=f.NominalTimeRunFacet(nominal_start_time="2024-05-01T00:00:00Z")
            ),
        ),
        job=Job(namespace="examples", name="orders.daily_report"),
        inputs=[
            InputDataset(
                namespace=orders.namespace,
                name=orders.name,
                facets=DatasetFacets(
                    schema_=f.SchemaDatasetFacet(
                        fields=[
                            {"name": "id", "type": "bigint"},
                            {"name": "amount", "type": "decimal(10,2)"},
                        ]
                    ),
                    data_source=f.DatasourceDatasetFacet(
                        name=orders.namespace, uri=orders.namespace
                    ),
                ),
            )
        ],
        outputs=[
            OutputDataset(
                namespace=report.namespace,
                name=report.name,
                output_facets=OutputDatasetFacets(
                    output_statistics=f.OutputStatisticsOutputDatasetFacet(row_count=1234)
                ),
            )
        ],
    )
    text = event.to_json()
    problems = validate_event(text, formats=True)
    print(text)
    print(f"valid: {not problems}")
    again = read_event(text)
    assert isinstance(again, RunEvent)
    assert again.to_json() == text
    print(f"read back: {type(again).__name__} for job {again.job.namespace}/{again.job.name}")


if __name__ == "__main__":
    main()
