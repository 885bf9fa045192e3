"""Static lineage: JobEvent and DatasetEvent, without a run."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from openlineage_sdk import (
    DatasetEvent,
    DatasetFacets,
    JobEvent,
    StaticDataset,
    dataset_event,
    input_dataset,
    job_event,
    read_event,
    validate_event,
)
from openlineage_sdk.client import OpenLineage
from openlineage_sdk.facets import (
    DocumentationDatasetFacet,
    JobTypeJobFacet,
    OwnershipDatasetFacet,
    SchemaDatasetFacet,
    SQLJobFacet,
)
from openlineage_sdk.naming import postgres, s3
from openlineage_sdk.transports import MemoryTransport
from tests.lifecycle.conftest import PRODUCER

ORDERS = postgres("db.example.com", "shop", "sales", "orders")
DAILY = s3("lake", "orders/daily")
SCHEMA = SchemaDatasetFacet(
    fields=[
        {"name": "id", "type": "bigint", "description": "order id"},
        {"name": "amount", "type": "decimal(10,2)"},
    ]
)
OWNERS = OwnershipDatasetFacet(owners=[{"name": "team:orders", "type": "MAINTAINER"}])
WHEN = datetime(2024, 5, 1, 12, tzinfo=timezone.utc)


def test_client_declares_a_jobs_inputs_and_outputs(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    event = client.declare_job(
        "orders.daily_load",
        inputs=[input_dataset(ORDERS, facets=[SCHEMA])],
        outputs=[DAILY],
        facets=[
            JobTypeJobFacet(processing_type="BATCH", integration="PYTHON", job_type="JOB"),
            SQLJobFacet(query="insert into daily select * from orders", dialect="postgres"),
        ],
        event_time=WHEN,
    )
    assert memory.events == [event]
    data = event.to_dict()
    assert data["schemaURL"].endswith("#/$defs/JobEvent")
    assert "eventType" not in data
    assert "run" not in data
    assert data["eventTime"] == "2024-05-01T12:00:00Z"
    assert data["producer"] == PRODUCER
    assert data["job"]["namespace"] == "team"
    assert data["job"]["name"] == "orders.daily_load"
    assert set(data["job"]["facets"]) == {"jobType", "sql"}
    assert [(d["namespace"], d["name"]) for d in data["inputs"]] == [
        ("postgres://db.example.com:5432", "shop.sales.orders")
    ]
    assert set(data["inputs"][0]["facets"]) == {"dataSource", "schema"}
    assert [(d["namespace"], d["name"]) for d in data["outputs"]] == [("s3://lake", "orders/daily")]
    assert isinstance(read_event(event.to_json()), JobEvent)


def test_client_declares_a_datasets_schema_and_ownership(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    event = client.declare_dataset(ORDERS, facets=[SCHEMA, OWNERS])
    assert memory.events == [event]
    data = event.to_dict()
    assert data["schemaURL"].endswith("#/$defs/DatasetEvent")
    assert data["dataset"]["namespace"] == "postgres://db.example.com:5432"
    assert data["dataset"]["name"] == "shop.sales.orders"
    facets = data["dataset"]["facets"]
    assert set(facets) == {"dataSource", "schema", "ownership"}
    assert facets["schema"]["fields"][0] == {
        "name": "id",
        "type": "bigint",
        "description": "order id",
    }
    assert facets["ownership"]["owners"] == [{"name": "team:orders", "type": "MAINTAINER"}]
    again = read_event(event.to_json())
    assert isinstance(again, DatasetEvent)
    assert again.dataset.facets is not None
    assert again.dataset.facets.ownership == OWNERS


def test_a_dataset_models_facets_are_kept_and_merged_by_key() -> None:
    dataset = StaticDataset(
        namespace="kafka://broker:9092",
        name="orders",
        facets=DatasetFacets.of(
            DocumentationDatasetFacet(description="Order events"),
            SchemaDatasetFacet(fields=[{"name": "old"}]),
        ),
    )
    event = dataset_event(dataset, facets=[SCHEMA], event_time=WHEN, producer=PRODUCER)
    facets = event.dataset.facets
    assert facets is not None
    assert set(facets.keys()) == {"documentation", "schema"}
    assert facets.schema_ == SCHEMA  # replaced whole
    assert validate_event(event.to_json(), strict=True, formats=True) == []


def test_job_event_merges_repeated_datasets() -> None:
    event = job_event(
        "team",
        "orders.dedupe",
        inputs=[ORDERS, input_dataset(ORDERS, facets=[SCHEMA])],
        event_time=WHEN,
    )
    assert event.inputs is not None
    assert len(event.inputs) == 1
    assert event.inputs[0].facets is not None
    assert set(event.inputs[0].facets.keys()) == {"dataSource", "schema"}
    assert event.outputs is None


def test_a_job_event_with_nothing_but_the_job(client: OpenLineage) -> None:
    event = client.declare_job("orders.noop", namespace="other")
    assert event.to_dict()["job"] == {"namespace": "other", "name": "orders.noop"}


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: dataset_event("s3://lake/x"),  # type: ignore[arg-type]
            TypeError,
            "expected a Dataset or a DatasetName",
        ),
        (
            lambda: dataset_event(ORDERS, facets=[SQLJobFacet(query="q")]),  # type: ignore[list-item]
            TypeError,
            "dataset facets must be DatasetFacet instances, got SQLJobFacet",
        ),
        (
            lambda: job_event("n", "j", facets=[SCHEMA]),  # type: ignore[list-item]
            TypeError,
            "job facets must be JobFacet instances, got SchemaDatasetFacet",
        ),
        (
            lambda: job_event("n", "j", event_time=datetime(2024, 5, 1)),
            ValueError,
            "event_time must be a datetime with a time zone",
        ),
    ],
    ids=["string dataset", "job facet on a dataset", "dataset facet on a job", "naive time"],
)
def test_wrong_arguments(call: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call()


def test_static_events_validate_strictly() -> None:
    for event in (
        job_event("team", "j", inputs=[ORDERS], outputs=[DAILY], facets=[SQLJobFacet(query="q")]),
        dataset_event(DAILY, facets=[SCHEMA, OWNERS]),
    ):
        assert validate_event(event.to_json(), strict=True, formats=True) == []
