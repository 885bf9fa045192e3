"""Entity-specific bases of the generated facet containers.

A container's extra keys (custom facets, keys the SDK does not know) hold facets of the entity's
base class, so anything read there is at least a valid base facet of that entity. They may hold a
subclass (a registered or hand-written custom facet): ``SerializeAsAny`` makes pydantic write such
a facet with all of its own fields rather than only the base class's. ``Field(init=False)`` keeps
``__pydantic_extra__`` out of the constructor signature type checkers see. ``generic_facet`` is
the class a facet read under an unknown key, or with content that breaks its schema, is kept as.

The generated containers (``RunFacets``...) inherit these through codegen's ``base_class_map``.
"""

from typing import ClassVar

from pydantic import Field, SerializeAsAny

from openlineage_sdk._base import FacetContainer
from openlineage_sdk.models.base import (
    DatasetFacet,
    InputDatasetFacet,
    JobFacet,
    OutputDatasetFacet,
    RunFacet,
)

__all__ = [
    "DatasetFacetContainer",
    "InputDatasetFacetContainer",
    "JobFacetContainer",
    "OutputDatasetFacetContainer",
    "RunFacetContainer",
]


class RunFacetContainer(FacetContainer):
    """Base of ``RunFacets``: any other key holds a run facet."""

    __pydantic_extra__: dict[str, SerializeAsAny[RunFacet]] = Field(init=False)
    generic_facet: ClassVar[type[RunFacet]] = RunFacet


class JobFacetContainer(FacetContainer):
    """Base of ``JobFacets``: any other key holds a job facet."""

    __pydantic_extra__: dict[str, SerializeAsAny[JobFacet]] = Field(init=False)
    generic_facet: ClassVar[type[JobFacet]] = JobFacet


class DatasetFacetContainer(FacetContainer):
    """Base of ``DatasetFacets``: any other key holds a dataset facet."""

    __pydantic_extra__: dict[str, SerializeAsAny[DatasetFacet]] = Field(init=False)
    generic_facet: ClassVar[type[DatasetFacet]] = DatasetFacet


class InputDatasetFacetContainer(FacetContainer):
    """Base of ``InputDatasetFacets``: any other key holds an input dataset facet."""

    __pydantic_extra__: dict[str, SerializeAsAny[InputDatasetFacet]] = Field(init=False)
    generic_facet: ClassVar[type[InputDatasetFacet]] = InputDatasetFacet


class OutputDatasetFacetContainer(FacetContainer):
    """Base of ``OutputDatasetFacets``: any other key holds an output dataset facet."""

    __pydantic_extra__: dict[str, SerializeAsAny[OutputDatasetFacet]] = Field(init=False)
    generic_facet: ClassVar[type[OutputDatasetFacet]] = OutputDatasetFacet
