"""The record of one Spark execution: what the adapter learned, before it becomes events.

Every kind of execution the adapter observes (a DataFrame write, a SQL statement, a query that
ends in an action, an RDD save) is described into one :class:`SparkExecution`, and the event
builder (``build``) turns that record into OpenLineage events: it never looks at Spark itself.

The JSON-shaped parts (schema fields, column-lineage input fields) are the TypedDicts of
:mod:`openlineage_sdk.models.records`, keyed by the spec's JSON names, so they go into the facet
classes as they are. The dataclasses here are the adapter's own: a dataset's identity with its
symlinks, statistics where ``None`` means unknown, and one dataset's findings with the reasons for
what is missing.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from openlineage_sdk.models.records import (
    ColumnLineageDatasetFacetField,
    InputField,
    SchemaDatasetFacetFields,
)
from openlineage_sdk.naming import DatasetName, dataset_from_uri, trim_dataset_name
from openlineage_sdk.spark._safety import Deadline, Safety

if TYPE_CHECKING:
    from openlineage_sdk.lifecycle import RunRef

__all__ = [
    "CatalogInfo",
    "ColumnLineageRecord",
    "DatasetIdentity",
    "DatasetLineage",
    "IoStats",
    "JobType",
    "LifecycleState",
    "ProcessingType",
    "SessionKind",
    "SparkExecution",
    "Symlink",
    "WriteLineage",
    "job_name",
    "note_problem",
]

log = logging.getLogger("openlineage_sdk.spark")

LifecycleState = Literal["ALTER", "CREATE", "DROP", "OVERWRITE", "RENAME", "TRUNCATE"]
"""What a statement did to a dataset as a whole: the ``lifecycleStateChange`` facet's value."""

SessionKind = Literal["classic", "connect"]
"""Whether a session is classic PySpark (a JVM in this process) or a Spark Connect client."""

JobType = Literal["SQL_JOB", "RDD_JOB", "STREAMING", "APPLICATION", "PIPELINE", "FLOW"]
"""The ``jobType`` facet's type, as the JVM agent marks each kind of Spark job.

``STREAMING`` marks a streaming query's run; ``PIPELINE`` and ``FLOW`` a declarative pipeline's
run and its flows' (the agent has neither).
"""

ProcessingType = Literal["BATCH", "STREAMING", "NONE"]
"""The ``jobType`` facet's processing type."""


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
    metadata_uri: str | None = None


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
        located = dataset_from_uri(uri, table)
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
    version: str | None = None  # the table's version (a snapshot): the ``version`` facet
    facets: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Facets the dataset describes itself with (a v2 table's properties), as JSON, by key."""


def note_problem(problems: list[str], what: str, error: BaseException) -> None:
    """Log that ``what`` failed with ``error``, and add the reason to ``problems``.

    A reason already listed is not added again: a stream's run meets the same problem at every
    micro-batch, and its list (and its events' ``extractionError`` facet) stays one entry long.
    """
    message = f"{what}: {type(error).__name__}: {error}"
    log.warning("openlineage: %s", message, exc_info=log.isEnabledFor(logging.DEBUG))
    if message not in problems:
        problems.append(message)


@dataclass
class SparkExecution:
    """Everything the adapter learned about one Spark execution.

    One record per user-visible execution: a DataFrame write (one call of a writer method,
    whatever number of commands Spark runs for it), a SQL statement, a query that ends in an
    action, an RDD save. ``started`` and ``finished`` are the wall-clock times around it;
    ``error`` is the exception it raised, if it did. ``problems`` lists what the adapter could
    not learn, each with its reason; the matching facets are absent, never filled with a guess.

    The job is named ``{app_name}.{command}.{job_suffix}`` (see :attr:`job_name`): ``command``
    is the Spark command the execution ran, named as the JVM agent names it, and
    ``job_suffix`` the part the agent's rule for that command gives (a table's qualified name, a
    location's last two folders, or nothing); session confs may change the app name or leave
    the suffix out when the events are built.
    """

    session_kind: SessionKind
    method: str
    app_name: str
    command: str
    job_suffix: str | None = None
    inputs: list[DatasetLineage] = field(default_factory=list)
    output: DatasetLineage | None = None
    problems: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.time)
    finished: float | None = None
    error: BaseException | None = None
    spark_version: str | None = None
    #: ``spark_jobDetails``'s fields: the last Spark job the user's call started (classic).
    job_details: dict[str, Any] | None = None
    output_changed: bool = False
    """The output was (re)described after the execution ran: the end carries all its facets."""
    job_type: JobType = "SQL_JOB"
    """The ``jobType`` facet's type: ``RDD_JOB`` for RDD actions, as the JVM agent marks them."""
    processing_type: ProcessingType = "BATCH"
    """The ``jobType`` facet's processing type."""
    parent: RunRef | None = None
    """The run this execution belongs to when it is not the one its call is made in: a
    streaming query's run for the writes of its ``foreachBatch`` function, a pipeline's run for
    its flows."""
    source_location: tuple[str, int | None] | None = None
    """Where the job is defined (a file's absolute path and a line): a pipeline flow's
    definition, for the ``sourceCodeLocation`` job facet."""
    sql: str | None = None
    """The SQL text the execution ran (a statement, the query a write or read was built from, a
    pipeline flow's definition): the ``sql`` job facet, dialect ``spark``, as the JVM agent
    sends it."""
    safety: Safety | None = field(default=None, repr=False, compare=False)
    """The session's safety limits (circuit breaker, time budgets, schema size limit)."""
    deadline: Deadline | None = field(default=None, repr=False, compare=False)
    """Its description's budgets and breaker, from its first step on (``_flow``)."""

    @property
    def job_name(self) -> str:
        """``{app_name}.{command}.{job_suffix}``, normalized as the JVM agent normalizes it."""
        return job_name(self.app_name, self.command, self.job_suffix)

    def name_job(self, command: str, suffix: str | None = None) -> None:
        """Set the job name's command and suffix parts."""
        self.command = command
        self.job_suffix = suffix


WriteLineage = SparkExecution
"""The name :class:`SparkExecution` had when the adapter reported writes only."""


def job_name(app_name: str, command: str | None, suffix: str | None) -> str:
    """``{app_name}.{command}.{suffix}`` by :func:`openlineage_sdk.naming.spark_job_name`.

    A part that names nothing (an app name of punctuation alone, a suffix that normalizes to
    nothing) is dropped, or the app name replaced by ``spark``, rather than failing the
    execution's lineage.
    """
    from openlineage_sdk.naming import NamingError, spark_job_name

    for app, table in ((app_name, suffix), (app_name, None), ("spark", suffix)):
        try:
            return spark_job_name(app, command, table if command is not None else None)
        except NamingError:
            pass
    return spark_job_name("spark", command)
