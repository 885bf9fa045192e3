"""openlineage-sdk: typed, validated, fast OpenLineage events.

Read any real event, build new ones that are checked as they are built, write compact JSON, and
validate strictly against the bundled spec schemas::

    from openlineage_sdk import read_event, validate_event

    event = read_event(text)          # RunEvent | JobEvent | DatasetEvent
    event.run.facets.parent           # a ParentRunFacet (or None)
    event.to_json()                   # the same JSON back
    validate_event(text)              # [] when valid, else the problems with their paths
"""

from __future__ import annotations

from openlineage_sdk._base import PRODUCER, FacetContainer, FacetModel, OpenLineageModel
from openlineage_sdk._errors import OpenLineageValidationError, Problem
from openlineage_sdk._read import Event, read_event
from openlineage_sdk._version import __version__
from openlineage_sdk.models.base import (
    BaseFacet,
    DatasetFacet,
    InputDatasetFacet,
    JobFacet,
    OutputDatasetFacet,
    RunFacet,
)
from openlineage_sdk.models.core import (
    BaseEvent,
    Dataset,
    DatasetEvent,
    DatasetFacets,
    InputDataset,
    InputDatasetFacets,
    Job,
    JobEvent,
    JobFacets,
    OutputDataset,
    OutputDatasetFacets,
    Run,
    RunEvent,
    RunFacets,
    StaticDataset,
)

__all__ = [
    "PRODUCER",
    "BaseEvent",
    "BaseFacet",
    "Dataset",
    "DatasetEvent",
    "DatasetFacet",
    "DatasetFacets",
    "Event",
    "FacetContainer",
    "FacetModel",
    "InputDataset",
    "InputDatasetFacet",
    "InputDatasetFacets",
    "Job",
    "JobEvent",
    "JobFacet",
    "JobFacets",
    "OpenLineageModel",
    "OpenLineageValidationError",
    "OutputDataset",
    "OutputDatasetFacet",
    "OutputDatasetFacets",
    "Problem",
    "Run",
    "RunEvent",
    "RunFacet",
    "RunFacets",
    "StaticDataset",
    "__version__",
    "read_event",
]
