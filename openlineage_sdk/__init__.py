"""openlineage-sdk: typed, validated, fast OpenLineage events.

Read any real event, build new ones that are checked as they are built, write compact JSON, and
validate strictly against the bundled spec schemas::

    from openlineage_sdk import RunEvent, read_event, validate_event

    event = read_event(text)          # RunEvent | JobEvent | DatasetEvent
    if isinstance(event, RunEvent) and event.run.facets is not None:
        event.run.facets.parent       # a ParentRunFacet, or None when the run has none
    event.to_json()                   # the same JSON back
    validate_event(text)              # [] when valid, else the problems with their paths

    with OpenLineage().run("orders.daily_load") as run:   # START ... COMPLETE / FAIL / ABORT
        run.add_outputs(naming.s3("lake", "orders/daily"))

Names are imported on first use, so ``import openlineage_sdk.naming`` (standard library only)
does not load pydantic, and ``import openlineage_sdk`` alone loads only the standard library's
``typing``: about 10 ms, nearly all of it ``typing`` itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openlineage_sdk._lazy import lazy_exports
from openlineage_sdk._version import __version__

if TYPE_CHECKING:
    from openlineage_sdk._base import PRODUCER, FacetContainer, FacetModel, OpenLineageModel
    from openlineage_sdk._errors import OpenLineageValidationError, Problem
    from openlineage_sdk._facet_registry import register_facets
    from openlineage_sdk._foreign import UnsupportedEventError
    from openlineage_sdk._ids import deterministic_run_id, uuid7
    from openlineage_sdk._read import Event, read_event
    from openlineage_sdk._types import FacetSchemaURL
    from openlineage_sdk._validate import validate_event
    from openlineage_sdk.client import OpenLineage
    from openlineage_sdk.compat import OpenLineageClient, OpenLineageClientOptions
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
    "OpenLineageClient",
    "OpenLineageClientOptions",
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
    "UnsupportedEventError",
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

# Each name is imported on first access. Type checkers read the imports above instead: a
# module-level __getattr__ would make every misspelt name an Any for them.
if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "._base": (
                "PRODUCER",
                "FacetContainer",
                "FacetModel",
                "OpenLineageModel",
            ),
            "._errors": (
                "OpenLineageValidationError",
                "Problem",
            ),
            "._read": (
                "Event",
                "read_event",
            ),
            "._types": ("FacetSchemaURL",),
            "._facet_registry": ("register_facets",),
            "._validate": ("validate_event",),
            "._ids": (
                "deterministic_run_id",
                "uuid7",
            ),
            "._foreign": ("UnsupportedEventError",),
            ".client": ("OpenLineage",),
            ".compat": (
                "OpenLineageClient",
                "OpenLineageClientOptions",
            ),
            ".lifecycle": (
                "EventType",
                "LineageRun",
                "RunRef",
                "RunState",
                "RunTransitionError",
                "RunTransitionWarning",
                "current_run",
                "dataset_event",
                "input_dataset",
                "job_event",
                "output_dataset",
            ),
            ".models.base": (
                "BaseFacet",
                "DatasetFacet",
                "InputDatasetFacet",
                "JobFacet",
                "OutputDatasetFacet",
                "RunFacet",
            ),
            ".models.core": (
                "BaseEvent",
                "Dataset",
                "DatasetEvent",
                "DatasetFacets",
                "InputDataset",
                "InputDatasetFacets",
                "Job",
                "JobEvent",
                "JobFacets",
                "OutputDataset",
                "OutputDatasetFacets",
                "Run",
                "RunEvent",
                "RunFacets",
                "StaticDataset",
            ),
        },
    )
