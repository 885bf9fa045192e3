"""Mistakes with the run lifecycle that mypy must catch. Each marked line is an error."""

from openlineage_sdk import (
    InputDataset,
    OpenLineage,
    OutputDataset,
    dataset_event,
    job_event,
    naming,
)
from openlineage_sdk import facets as f
from openlineage_sdk.transports import MemoryTransport

client = OpenLineage(transport=MemoryTransport())
run = client.run("j")

# An output where an input goes, the reverse, and a URI string instead of a dataset.
client.run("j", inputs=[OutputDataset(namespace="n", name="d")])  # E: list-item
client.run("j", outputs=[InputDataset(namespace="n", name="d")])  # E: list-item
client.run("j", inputs=["s3://lake/x"])  # E: list-item
run.add_inputs(OutputDataset(namespace="n", name="d"))  # E: arg-type
# A job facet among run facets, and facets of other entities.
client.run("j", run_facets=[f.SQLJobFacet(query="q")])  # E: list-item
client.run("j", job_facets=[f.ProcessingEngineRunFacet(version="1")])  # E: list-item
run.add_run_facets(f.SchemaDatasetFacet())  # E: arg-type
run.add_job_facets(f.ProcessingEngineRunFacet(version="1"))  # E: arg-type
job_event("n", "j", facets=[f.SchemaDatasetFacet()])  # E: list-item
dataset_event("s3://lake/x")  # E: arg-type
# Settings and arguments of the wrong kind.
client.run("j", invalid_transitions="ignore")  # E: arg-type
client.run("j", parent="dag")  # E: arg-type
client.run("j", nominal_time="2024-05-01")  # E: arg-type
run.fail(42)  # E: arg-type
# The keywords every event method shares (EventMetadata): a misspelt one, and wrong types.
run.complete(output=[naming.s3("lake", "x")])  # E: call-arg
run.fail("boom", run_facets=[f.SQLJobFacet(query="q")])  # E: list-item
run.other(event_time="2024-05-01T00:00:00Z")  # E: arg-type
# The state is the run's to keep.
run.state = "COMPLETE"  # E: misc
