"""Correct use of the run lifecycle: must type-check cleanly under mypy --strict."""

import asyncio
import uuid
from datetime import datetime, timezone

from openlineage_sdk import (
    EventType,
    InputDataset,
    JobEvent,
    LineageRun,
    OpenLineage,
    OutputDataset,
    RunEvent,
    RunRef,
    RunState,
    current_run,
    dataset_event,
    deterministic_run_id,
    input_dataset,
    job_event,
    naming,
    output_dataset,
    uuid7,
)
from openlineage_sdk import facets as f
from openlineage_sdk.lifecycle import EventMetadata
from openlineage_sdk.transports import MemoryTransport

client = OpenLineage(transport=MemoryTransport(), namespace="team", invalid_transitions="warn")
orders = naming.postgres("db", "shop", "sales", "orders")
nominal = datetime(2024, 5, 1, tzinfo=timezone.utc)

with client.run(
    naming.airflow_job_name("orders_etl", "load"),
    inputs=[orders, InputDataset(namespace="n", name="d"), input_dataset(orders)],
    outputs=[naming.s3("lake", "x"), OutputDataset(namespace="n", name="o")],
    run_facets=[f.ProcessingEngineRunFacet(version="3.5.0")],
    job_facets={"sql": f.SQLJobFacet(query="select 1")},
    nominal_time=nominal,
    deterministic_id=True,
    parent=RunRef("airflow", "orders_etl", uuid.uuid4()),
) as run:
    event: RunEvent = run.running(outputs=[output_dataset(naming.s3("lake", "y"))])
    state: RunState = run.state
    kind: EventType | None = event.event_type
    ref: RunRef = run.ref
    inner: LineageRun | None = current_run()
    run.add_run_facets(f.NominalTimeRunFacet(nominal_start_time="2024-05-01T00:00:00Z"))
    run.add_job_facets(f.DocumentationJobFacet(description="d"), {"sql": f.SQLJobFacet(query="q")})
    run.add_inputs(orders)
    run.add_outputs(OutputDataset(namespace="n", name="o"))

failed: RunEvent = client.run("j", run_id=uuid7()).fail(
    ValueError("x"),
    stack_trace="...",
    inputs=[orders],
    outputs=[OutputDataset(namespace="n", name="o")],
    run_facets={"costs": f.ProcessingEngineRunFacet(version="1")},
    job_facets=[f.SQLJobFacet(query="q")],
    event_time=nominal,
)
metadata: EventMetadata = {"outputs": [naming.s3("lake", "z")], "event_time": None}
client.run("j").start(**metadata)
client.run("j", parent=run, run_id=str(deterministic_run_id("n", "j", nominal)))
declared: JobEvent = job_event("n", "j", facets=[f.SQLJobFacet(query="q")], inputs=[orders])
client.emit(dataset_event(orders, facets=[f.SchemaDatasetFacet(fields=[{"name": "id"}])]))


async def main() -> None:
    async with client.run("async_job") as arun:
        arun.other()


asyncio.run(main())
