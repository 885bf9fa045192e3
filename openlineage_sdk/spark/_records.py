"""JSON-shaped records the extraction layer produces, and the small typed values around them.

The record shapes (a schema field, a column-lineage input field) are the spec's JSON, keyed by the
spec's names, so they drop straight into the facet classes. They mirror the TypedDicts the models
generate; when those are on this branch, the aliases below become imports of
``openlineage_sdk.models.records`` and nothing else changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from typing_extensions import NotRequired, TypedDict

__all__ = [
    "ColumnLineageField",
    "ColumnLineageRecord",
    "DatasetIdentity",
    "DatasetLineage",
    "InputField",
    "IoStats",
    "SchemaField",
    "Symlink",
    "Transformation",
]


class SchemaField(TypedDict):
    """One field of a schema facet: ``{"name", "type", "description", "fields"}``."""

    name: str
    type: NotRequired[str]
    description: NotRequired[str]
    fields: NotRequired[list[SchemaField]]


class Transformation(TypedDict):
    """How an input field reaches an output field (spec: ``type``, ``subtype``, ``masking``)."""

    type: str
    subtype: NotRequired[str]
    description: NotRequired[str]
    masking: NotRequired[bool]


class InputField(TypedDict):
    """An input field an output field (or the whole output) depends on."""

    namespace: str
    name: str
    field: str
    transformations: NotRequired[list[Transformation]]


class ColumnLineageField(TypedDict):
    """The inputs of one output field."""

    inputFields: list[InputField]


@dataclass(frozen=True)
class ColumnLineageRecord:
    """Column lineage of one output: per output field, and for the dataset as a whole.

    ``fields`` and ``dataset`` are exactly the ``fields`` and ``dataset`` of the column lineage
    facet.
    """

    fields: dict[str, ColumnLineageField]
    dataset: list[InputField]


@dataclass(frozen=True)
class Symlink:
    """Another name of the same dataset, for example the catalog table over a location."""

    namespace: str
    name: str
    type: str = "TABLE"


@dataclass(frozen=True)
class DatasetIdentity:
    """Who a dataset is: its namespace and name, the data source, and its other names."""

    namespace: str
    name: str
    symlinks: tuple[Symlink, ...] = ()

    @property
    def datasource_name(self) -> str:
        """The dataSource facet's ``name``: the namespace, as the JVM agent writes it."""
        return self.namespace

    @property
    def datasource_uri(self) -> str:
        """The dataSource facet's ``uri``: the namespace, as the JVM agent writes it."""
        return self.namespace


@dataclass(frozen=True)
class IoStats:
    """Statistics of what a write wrote or a read read. ``None`` means unknown, never zero."""

    row_count: int | None = None
    size: int | None = None
    file_count: int | None = None

    def is_empty(self) -> bool:
        """True when nothing is known."""
        return self.row_count is None and self.size is None and self.file_count is None


@dataclass
class DatasetLineage:
    """What the adapter learned about one input or the output of a write.

    Every part but the identity is optional: when extracting a part fails, the adapter logs the
    reason in ``problems`` and the event goes out without that facet.
    """

    identity: DatasetIdentity
    role: Literal["input", "output"]
    schema: list[SchemaField] | None = None
    stats: IoStats | None = None
    column_lineage: ColumnLineageRecord | None = None
    problems: list[str] = field(default_factory=list)
