"""openlineage-sdk: typed, validated, fast OpenLineage events.

Read any real event, build new ones that are checked as they are built, write compact JSON, and
validate strictly against the bundled spec schemas::

    from openlineage_sdk import read_event, validate_event

    event = read_event(text)          # RunEvent | JobEvent | DatasetEvent
    event.run.facets.parent           # a ParentRunFacet (or None)
    event.to_json()                   # the same JSON back
    validate_event(text)              # [] when valid, else the problems with their paths

    with OpenLineage().run("orders.daily_load") as run:   # START ... COMPLETE / FAIL / ABORT
        run.add_outputs(naming.s3("lake", "orders/daily"))

Names are imported on first use, so ``import openlineage_sdk.naming`` (standard library only)
does not load pydantic, and ``import openlineage_sdk`` alone costs nothing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from openlineage_sdk._version import __version__

if TYPE_CHECKING:
    from openlineage_sdk._base import PRODUCER, FacetContainer, FacetModel, OpenLineageModel
    from openlineage_sdk._errors import OpenLineageValidationError, Problem
    from openlineage_sdk._facet_registry import register_facets
    from openlineage_sdk._ids import deterministic_run_id, uuid7
    from openlineage_sdk._read import Event, read_event
    from openlineage_sdk._types import FacetSchemaURL
    from openlineage_sdk._validate import validate_event
    from openlineage_sdk.client import OpenLineage
    from openlineage_sdk.lifecycle import (
        EventType,
        LineageRun,
        RunRef,
        RunState,
        RunTransitionError,
        RunTransitionWarning,
        current_run,
        dataset_event,
        input_dataset,
        job_event,
        output_dataset,
    )
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
    "EventType",
    "FacetContainer",
    "FacetModel",
    "FacetSchemaURL",
    "InputDataset",
    "InputDatasetFacet",
    "InputDatasetFacets",
    "Job",
    "JobEvent",
    "JobFacet",
    "JobFacets",
    "LineageRun",
    "OpenLineage",
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
    "RunRef",
    "RunState",
    "RunTransitionError",
    "RunTransitionWarning",
    "StaticDataset",
    "__version__",
    "current_run",
    "dataset_event",
    "deterministic_run_id",
    "input_dataset",
    "job_event",
    "output_dataset",
    "read_event",
    "register_facets",
    "uuid7",
    "validate_event",
]

# Where each exported name lives; imported on first access.
_EXPORTS: dict[str, str] = {
    "PRODUCER": "openlineage_sdk._base",
    "FacetContainer": "openlineage_sdk._base",
    "FacetModel": "openlineage_sdk._base",
    "OpenLineageModel": "openlineage_sdk._base",
    "OpenLineageValidationError": "openlineage_sdk._errors",
    "Problem": "openlineage_sdk._errors",
    "Event": "openlineage_sdk._read",
    "FacetSchemaURL": "openlineage_sdk._types",
    "register_facets": "openlineage_sdk._facet_registry",
    "read_event": "openlineage_sdk._read",
    "validate_event": "openlineage_sdk._validate",
    "deterministic_run_id": "openlineage_sdk._ids",
    "uuid7": "openlineage_sdk._ids",
    "OpenLineage": "openlineage_sdk.client",
    "EventType": "openlineage_sdk.lifecycle",
    "LineageRun": "openlineage_sdk.lifecycle",
    "RunRef": "openlineage_sdk.lifecycle",
    "RunState": "openlineage_sdk.lifecycle",
    "RunTransitionError": "openlineage_sdk.lifecycle",
    "RunTransitionWarning": "openlineage_sdk.lifecycle",
    "current_run": "openlineage_sdk.lifecycle",
    "dataset_event": "openlineage_sdk.lifecycle",
    "input_dataset": "openlineage_sdk.lifecycle",
    "job_event": "openlineage_sdk.lifecycle",
    "output_dataset": "openlineage_sdk.lifecycle",
    "BaseFacet": "openlineage_sdk.models.base",
    "DatasetFacet": "openlineage_sdk.models.base",
    "InputDatasetFacet": "openlineage_sdk.models.base",
    "JobFacet": "openlineage_sdk.models.base",
    "OutputDatasetFacet": "openlineage_sdk.models.base",
    "RunFacet": "openlineage_sdk.models.base",
    "BaseEvent": "openlineage_sdk.models.core",
    "Dataset": "openlineage_sdk.models.core",
    "DatasetEvent": "openlineage_sdk.models.core",
    "DatasetFacets": "openlineage_sdk.models.core",
    "InputDataset": "openlineage_sdk.models.core",
    "InputDatasetFacets": "openlineage_sdk.models.core",
    "Job": "openlineage_sdk.models.core",
    "JobEvent": "openlineage_sdk.models.core",
    "JobFacets": "openlineage_sdk.models.core",
    "OutputDataset": "openlineage_sdk.models.core",
    "OutputDatasetFacets": "openlineage_sdk.models.core",
    "Run": "openlineage_sdk.models.core",
    "RunEvent": "openlineage_sdk.models.core",
    "RunFacets": "openlineage_sdk.models.core",
    "StaticDataset": "openlineage_sdk.models.core",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'openlineage_sdk' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
