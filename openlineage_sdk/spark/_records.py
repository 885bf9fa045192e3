"""What the extraction layer learns about a write, before it becomes facets.

The JSON-shaped parts (schema fields, column-lineage input fields) are the TypedDicts of
:mod:`openlineage_sdk.models.records`, keyed by the spec's JSON names, so they go into the facet
classes as they are. The dataclasses here are the adapter's own: a dataset's identity with its
symlinks, statistics where ``None`` means unknown, and one dataset's findings with the reasons for
what is missing.
"""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from openlineage_sdk.models.records import (
    ColumnLineageDatasetFacetField,
    InputField,
    SchemaDatasetFacetFields,
)
from openlineage_sdk.naming import DatasetName, trim_dataset_name
from openlineage_sdk.spark._naming import dataset_name

__all__ = [
    "CatalogInfo",
    "ColumnLineageRecord",
    "DatasetIdentity",
    "DatasetLineage",
    "IoStats",
    "LifecycleState",
    "Symlink",
    "note_problem",
]

log = logging.getLogger("openlineage_sdk.spark")

LifecycleState = Literal["ALTER", "CREATE", "DROP", "OVERWRITE", "RENAME", "TRUNCATE"]
"""What a statement did to a dataset as a whole: the ``lifecycleStateChange`` facet's value."""


@dataclass(frozen=True)
class ColumnLineageRecord:
    """Column lineage of one output: per output field, and for the dataset as a whole.

    ``fields`` and ``dataset`` are exactly the ``fields`` and ``dataset`` of the column lineage
    facet.
    """

    fields: dict[str, ColumnLineageDatasetFacetField]
    dataset: list[InputField]


@dataclass(frozen=True)
class CatalogInfo:
    """The catalog a table lives in, for the ``catalog`` facet (the JVM agent's values)."""

    framework: str
    type: str
    name: str
    warehouse_uri: str | None = None
    source: str | None = "spark"


@dataclass(frozen=True)
class Symlink:
    """Another name of the same dataset, for example the catalog table over a location."""

    namespace: str
    name: str
    type: str = "TABLE"


@dataclass(frozen=True)
class DatasetIdentity:
    """Who a dataset is: its namespace and name, and its other names.

    ``location`` is the name before trimming, when trimming changed it (``/tmp/rdd_c/20251030``
    for the dataset ``/tmp/rdd_c``); it does not take part in equality.
    """

    namespace: str
    name: str
    symlinks: tuple[Symlink, ...] = ()
    location: str | None = field(default=None, compare=False)

    @classmethod
    def from_uri(
        cls, uri: str, table: str | None = None, symlinks: tuple[Symlink, ...] = ()
    ) -> DatasetIdentity:
        """The dataset at ``uri`` (and ``table``, for JDBC), named by the naming module.

        The name is trimmed of partition and date folders (``/data/events/dt=2025-09-01`` is
        the dataset ``/data/events``) by every built-in trimmer of
        :func:`openlineage_sdk.naming.trim_dataset_name`, as the JVM agent trims the datasets
        of its events by default.

        Raises:
            NamingError: The URI cannot name a dataset.
        """
        located = dataset_name(uri, table)
        trimmed = trim_dataset_name(located.name)
        if trimmed != located.name:
            return cls(located.namespace, trimmed, symlinks, located.name)
        return cls(located.namespace, located.name, symlinks)

    def dataset_name(self) -> DatasetName:
        """The naming module's value for this dataset (it makes the dataSource facet)."""
        return DatasetName(self.namespace, self.name)


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
    schema: list[SchemaDatasetFacetFields] | None = None
    stats: IoStats | None = None
    column_lineage: ColumnLineageRecord | None = None
    lifecycle_state: LifecycleState | None = None
    previous_identity: DatasetIdentity | None = None  # the name before a RENAME
    catalog: CatalogInfo | None = None
    problems: list[str] = field(default_factory=list)


def start_beside(function: Callable[..., None], *args: Any, name: str) -> threading.Thread:
    """Start ``function(*args)`` on a daemon thread of the adapter's, beside the user's work.

    It runs in a copy of the caller's context variables (its current run, for explicit mode);
    the caller joins the thread before it reports the work's end.
    """
    thread = threading.Thread(
        target=contextvars.copy_context().run, args=(function, *args), name=name, daemon=True
    )
    thread.start()
    return thread


def note_problem(problems: list[str], what: str, error: BaseException) -> None:
    """Log that ``what`` failed with ``error``, and add the reason to ``problems``."""
    message = f"{what}: {type(error).__name__}: {error}"
    log.warning("openlineage: %s", message, exc_info=log.isEnabledFor(logging.DEBUG))
    problems.append(message)
