"""Types of the facet slots of containers that hold any facet of an entity.

A container's extra keys (custom facets, keys the SDK does not know) are typed with the entity's
base class, so anything read there is at least a valid base facet. They may hold a subclass (a
registered or hand-written custom facet); ``SerializeAsAny`` makes pydantic write such a facet
with all of its own fields rather than only the base class's. Generated code refers to these
names (see ``openlineage_sdk.codegen._stage``).
"""

from __future__ import annotations

from typing import TypeAlias

from pydantic import SerializeAsAny

from openlineage_sdk.models.base import (
    DatasetFacet,
    InputDatasetFacet,
    JobFacet,
    OutputDatasetFacet,
    RunFacet,
)

__all__ = ["AnyDatasetFacet", "AnyInputDatasetFacet", "AnyJobFacet", "AnyOutputDatasetFacet", "AnyRunFacet"]

AnyRunFacet: TypeAlias = SerializeAsAny[RunFacet]
AnyJobFacet: TypeAlias = SerializeAsAny[JobFacet]
AnyDatasetFacet: TypeAlias = SerializeAsAny[DatasetFacet]
AnyInputDatasetFacet: TypeAlias = SerializeAsAny[InputDatasetFacet]
AnyOutputDatasetFacet: TypeAlias = SerializeAsAny[OutputDatasetFacet]
