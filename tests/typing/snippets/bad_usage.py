"""Mistakes mypy must catch through the generated types alone. Each marked line is an error."""

from myco_facets import MyCoCostsRunFacet

import openlineage_sdk
import openlineage_sdk.transports
from openlineage_sdk import (
    DatasetFacets,
    InputDataset,
    InputDatasetFacets,
    JobFacets,
    RunFacets,
    naming,
)
from openlineage_sdk import facets as f

parent = f.ParentRunFacet(run={"runId": "x"}, job={"namespace": "n", "name": "j"})

# A run facet in a dataset's facets.
DatasetFacets(parent=parent)  # E: call-arg
# A job facet in an input facet map.
InputDatasetFacets(documentation=f.DocumentationJobFacet(description="d"))  # E: call-arg
InputDataset(namespace="n", name="d", input_facets=JobFacets())  # E: arg-type
# A wrong field type.
f.OutputStatisticsOutputDatasetFacet(row_count="abc")  # E: arg-type
MyCoCostsRunFacet(amount="12", currency="EUR")  # E: arg-type
MyCoCostsRunFacet(amount=1.0, currency="YEN")  # E: arg-type
f.SchemaDatasetFacet(fields=[{"name": 1}])  # E: typeddict-item
# A missing required field.
f.ParentRunFacet(run={"runId": "x"})  # E: call-arg
MyCoCostsRunFacet(amount=1.0)  # E: call-arg
f.SchemaDatasetFacet(fields=[{"type": "int"}])  # E: typeddict-item
# A facet of the wrong type for a typed slot.
RunFacets(parent=f.SQLJobFacet(query="q"))  # E: arg-type
# A misspelt name: the packages' lazy imports must not turn it into an Any.
print(openlineage_sdk.RunEvnt)  # E: attr-defined
print(openlineage_sdk.transports.HttpTransprt)  # E: attr-defined
naming.kafak("b", "t")  # E: attr-defined
