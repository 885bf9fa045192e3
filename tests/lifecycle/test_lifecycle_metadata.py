"""Additive metadata: datasets merge by (namespace, name), facets by key; every event carries it all."""

from __future__ import annotations

from typing import Any

import pytest

from openlineage_sdk import (
    DatasetFacets,
    InputDataset,
    OutputDataset,
    OutputDatasetFacets,
    RunFacet,
    input_dataset,
    output_dataset,
)
from openlineage_sdk.client import OpenLineage
from openlineage_sdk.facets import (
    DatasourceDatasetFacet,
    DocumentationJobFacet,
    InputStatisticsInputDatasetFacet,
    JobTypeJobFacet,
    OutputStatisticsOutputDatasetFacet,
    ProcessingEngineRunFacet,
    SchemaDatasetFacet,
    SQLJobFacet,
)
from openlineage_sdk.naming import postgres, s3
from openlineage_sdk.transports import MemoryTransport
from tests.lifecycle.conftest import PRODUCER, run_events

ORDERS = postgres("db.example.com", "shop", "sales", "orders")
CUSTOMERS = postgres("db.example.com", "shop", "sales", "customers")
DAILY = s3("lake", "orders/daily")

SCHEMA_V1 = SchemaDatasetFacet(fields=[{"name": "id", "type": "bigint"}])
SCHEMA_V2 = SchemaDatasetFacet(
    fields=[{"name": "id", "type": "bigint"}, {"name": "amount", "type": "decimal(10,2)"}]
)


def custom_run_facet(**fields: Any) -> RunFacet:
    # A facet of a key the SDK does not know, kept as a generic facet of its entity.
    return RunFacet(
        schema_url="https://example.com/schemas/costs.json#/$defs/CostsRunFacet", **fields
    )


def as_dicts(event: Any) -> dict[str, Any]:
    data: dict[str, Any] = event.to_dict()
    return data


def test_every_event_carries_everything_added_so_far(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    with client.run("orders.daily_load", inputs=[ORDERS]) as run:
        run.add_inputs(CUSTOMERS)
        run.running()
        run.add_outputs(DAILY)
    start, running, complete = (as_dicts(e) for e in run_events(memory))

    def names(event: dict[str, Any], side: str) -> list[str]:
        return [d["name"] for d in event.get(side, [])]

    assert names(start, "inputs") == ["shop.sales.orders"]
    assert "outputs" not in start
    assert names(running, "inputs") == ["shop.sales.orders", "shop.sales.customers"]
    assert "outputs" not in running
    assert names(complete, "inputs") == ["shop.sales.orders", "shop.sales.customers"]
    assert names(complete, "outputs") == ["orders/daily"]


def test_a_naming_result_gets_its_datasource_facet(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    with client.run("orders.daily_load", inputs=[ORDERS], outputs=[DAILY]):
        pass
    complete = run_events(memory)[-1]
    assert complete.inputs is not None
    assert complete.outputs is not None
    source = complete.inputs[0]
    assert (source.namespace, source.name) == (
        "postgres://db.example.com:5432",
        "shop.sales.orders",
    )
    assert source.facets is not None
    facet = source.facets.data_source
    assert isinstance(facet, DatasourceDatasetFacet)
    assert (facet.name, facet.uri) == ("postgres://db.example.com:5432",) * 2
    assert facet.producer == PRODUCER  # the client's producer, not the SDK's default
    assert complete.outputs[0].facets is not None
    assert complete.outputs[0].facets["dataSource"].uri == "s3://lake"


def test_the_same_dataset_merges_its_facets_by_key(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    run = client.run("orders.daily_load")
    run.add_inputs(
        input_dataset(
            ORDERS,
            facets=[SCHEMA_V1],
            input_facets=[InputStatisticsInputDatasetFacet(row_count=10)],
        )
    )
    run.start()
    # The same dataset again, by another route (a plain model with the same identity).
    run.add_inputs(
        InputDataset(
            namespace=ORDERS.namespace,
            name=ORDERS.name,
            facets=DatasetFacets.of(SCHEMA_V2),
        )
    )
    run.complete()
    start, complete = run_events(memory)
    assert start.inputs is not None
    assert complete.inputs is not None
    assert len(complete.inputs) == 1
    merged = complete.inputs[0]
    assert merged.facets is not None
    assert merged.input_facets is not None
    # schema was replaced whole (no field-by-field merge); dataSource and inputStatistics kept.
    assert merged.facets.schema_ == SCHEMA_V2
    assert merged.facets.keys() == {"dataSource", "schema"}
    assert merged.input_facets.input_statistics == InputStatisticsInputDatasetFacet(row_count=10)
    # The START event kept what was true then.
    assert start.inputs[0].facets is not None
    assert start.inputs[0].facets.schema_ == SCHEMA_V1


def test_output_facets_merge_by_key(client: OpenLineage, memory: MemoryTransport) -> None:
    with client.run("orders.daily_load") as run:
        run.add_outputs(
            output_dataset(DAILY, output_facets=[OutputStatisticsOutputDatasetFacet(row_count=1)])
        )
        run.add_outputs(
            OutputDataset(
                namespace=DAILY.namespace,
                name=DAILY.name,
                output_facets=OutputDatasetFacets.of(
                    OutputStatisticsOutputDatasetFacet(row_count=42, size=4096)
                ),
            )
        )
    complete = run_events(memory)[-1]
    assert complete.outputs is not None
    assert len(complete.outputs) == 1
    stats = complete.outputs[0].to_dict()["outputFacets"]["outputStatistics"]
    assert (stats["rowCount"], stats["size"]) == (42, 4096)


def test_an_input_and_an_output_of_the_same_dataset_stay_apart(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    with client.run("orders.dedupe", inputs=[DAILY], outputs=[DAILY]):
        pass
    complete = run_events(memory)[-1]
    assert complete.inputs is not None
    assert complete.outputs is not None
    assert [(d.namespace, d.name) for d in complete.inputs] == [(DAILY.namespace, DAILY.name)]
    assert [(d.namespace, d.name) for d in complete.outputs] == [(DAILY.namespace, DAILY.name)]


def test_run_and_job_facets_merge_by_key_and_replace_whole(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    engine_v1 = ProcessingEngineRunFacet(version="3.5.0", name="spark")
    engine_v2 = ProcessingEngineRunFacet(version="4.0.0")
    job_type = JobTypeJobFacet(processing_type="BATCH", integration="PYTHON", job_type="JOB")
    with client.run("orders.daily_load", run_facets=[engine_v1], job_facets=[job_type]) as run:
        run.add_job_facets(SQLJobFacet(query="select 1"))
        run.add_run_facets(engine_v2)
        run.running(job_facets=[SQLJobFacet(query="select 2")])
    start, running, complete = run_events(memory)
    assert start.run.facets is not None
    assert complete.run.facets is not None
    assert start.run.facets.processing_engine == engine_v1
    # Replaced whole: name is gone, not kept from the first facet.
    assert complete.run.facets.processing_engine == engine_v2
    assert "name" not in complete.to_dict()["run"]["facets"]["processing_engine"]
    assert complete.job.facets is not None
    assert complete.job.facets.keys() == {"jobType", "sql"}
    assert complete.job.facets.sql == SQLJobFacet(query="select 2")
    assert running.job.facets is not None
    assert running.job.facets.sql is not None
    assert running.job.facets.sql.query == "select 2"


def test_facets_of_keys_the_sdk_does_not_know_go_in_a_mapping(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    with client.run("orders", run_facets={"myCo_costs": custom_run_facet(dollars=3)}) as run:
        run.add_run_facets({"myCo_costs": custom_run_facet(dollars=5)})
    complete = as_dicts(run_events(memory)[-1])
    assert complete["run"]["facets"]["myCo_costs"]["dollars"] == 5
    assert (
        complete["run"]["facets"]["myCo_costs"]["_schemaURL"]
        == "https://example.com/schemas/costs.json#/$defs/CostsRunFacet"
    )


def test_a_custom_facet_class_is_placed_by_its_own_key(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    from openlineage_sdk import FacetSchemaURL

    class AcmeCostsRunFacet(RunFacet, prefix="acme", name="costs"):
        schema_url: FacetSchemaURL = (
            "https://schemas.acme.example/facets/1-0-0/AcmeCostsRunFacet.json"
            "#/$defs/AcmeCostsRunFacet"
        )
        amount: float

    with client.run("orders", run_facets=[AcmeCostsRunFacet(amount=1.5)]) as run:
        run.add_run_facets(AcmeCostsRunFacet(amount=2.5))
    complete = run_events(memory)[-1]
    assert complete.run.facets is not None
    facet = complete.run.facets["acme_costs"]
    assert isinstance(facet, AcmeCostsRunFacet)
    assert facet.amount == 2.5


def test_a_facet_container_is_accepted_too(client: OpenLineage, memory: MemoryTransport) -> None:
    from openlineage_sdk import JobFacets

    with client.run(
        "orders", job_facets=JobFacets.of(DocumentationJobFacet(description="Loads orders"))
    ):
        pass
    job_facets = run_events(memory)[-1].job.facets
    assert job_facets is not None
    assert job_facets.documentation is not None
    assert job_facets.documentation.description == "Loads orders"


def test_snapshots_are_copies(client: OpenLineage) -> None:
    run = client.run("orders", inputs=[ORDERS])
    run.run_facets.clear()
    run.job_facets["x"] = DocumentationJobFacet(description="x")
    assert run.job_facets == {}
    assert [d.name for d in run.inputs] == ["shop.sales.orders"]


def test_a_datasource_given_explicitly_replaces_the_derived_one() -> None:
    own = DatasourceDatasetFacet(name="orders-db", uri="postgres://db.example.com:5432")
    dataset = input_dataset(ORDERS, facets=[own])
    assert dataset.facets is not None
    assert dataset.facets.data_source == own


# --------------------------------------------------------------------------- wrong arguments


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"inputs": [OutputDataset(namespace="n", name="x")]},
            "expected an InputDataset or a DatasetName, got OutputDataset "
            "(an OutputDataset is on the other side)",
        ),
        ({"outputs": ["s3://lake/x"]}, "expected an OutputDataset or a DatasetName, got str"),
        (
            {"run_facets": [SQLJobFacet(query="q")]},
            "run facets must be RunFacet instances, got SQLJobFacet",
        ),
        (
            {"job_facets": {"sql": ProcessingEngineRunFacet(version="1")}},
            "job facets must be JobFacet instances, got ProcessingEngineRunFacet under 'sql'",
        ),
        (
            {"run_facets": [custom_run_facet(dollars=1)]},
            "RunFacet has no facet key; pass run facets without a key as a mapping {key: facet}",
        ),
        ({"run_facets": {"": custom_run_facet()}}, "a facet key must be a non-empty string"),
    ],
    ids=[
        "output as input",
        "string as output",
        "job facet as run facet",
        "run facet as job facet",
        "facet without a key",
        "empty key",
    ],
)
def test_wrong_kinds_are_refused_with_what_was_expected(
    client: OpenLineage, kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(TypeError) as raised:
        client.run("orders", **kwargs)
    assert str(raised.value).startswith(message)


def test_a_bad_argument_changes_nothing(client: OpenLineage) -> None:
    run = client.run("orders", inputs=[ORDERS])
    with pytest.raises(TypeError):
        run.add_inputs(CUSTOMERS, OutputDataset(namespace="n", name="x"))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        run.add_run_facets(ProcessingEngineRunFacet(version="1"), SQLJobFacet(query="q"))  # type: ignore[arg-type]
    assert [d.name for d in run.inputs] == ["shop.sales.orders"]
    assert run.run_facets == {}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"job_name": ""}, "the job name must be a non-empty string"),
        ({"run_id": "not-a-uuid"}, "a run id must be a UUID, got 'not-a-uuid'"),
        ({"nominal_end_time": "x"}, "nominal_end_time needs nominal_time"),
    ],
)
def test_bad_run_arguments(client: OpenLineage, kwargs: dict[str, Any], message: str) -> None:
    name = kwargs.pop("job_name", "orders")
    with pytest.raises(ValueError, match=message):
        client.run(name, **kwargs)


@pytest.mark.parametrize("keyword", ["input", "run_facet", "extra_run_facets", "event_type"])
def test_an_event_method_refuses_an_unknown_keyword(
    client: OpenLineage, memory: MemoryTransport, keyword: str
) -> None:
    # The keywords are typed through EventMetadata; without a type checker Python refuses them.
    run = client.run("orders")
    with pytest.raises(TypeError, match=f"'{keyword}'"):
        run.start(**{keyword: [ORDERS]})
    with pytest.raises(TypeError, match=f"'{keyword}'"):
        run.fail("boom", **{keyword: [ORDERS]})
    assert run.state == "NEW"
    assert memory.events == []


def test_event_time_must_have_a_zone(client: OpenLineage, memory: MemoryTransport) -> None:
    from datetime import datetime

    run = client.run("orders")
    with pytest.raises(ValueError, match="event_time must be a datetime with a time zone"):
        run.start(event_time=datetime(2024, 5, 1, 12))
    assert run.state == "NEW"
    assert memory.events == []


def test_event_time_given_is_written(client: OpenLineage, memory: MemoryTransport) -> None:
    from datetime import datetime, timedelta, timezone

    run = client.run("orders")
    run.start(event_time=datetime(2024, 5, 1, 12, 0, 0, 250000, tzinfo=timezone.utc))
    run.complete(event_time=datetime(2024, 5, 1, 14, tzinfo=timezone(timedelta(hours=2))))
    assert [e.event_time for e in run_events(memory)] == [
        "2024-05-01T12:00:00.250000Z",
        "2024-05-01T14:00:00+02:00",
    ]
