"""Facet builders: plugins that add their own facets to every event the adapter builds.

A facet builder is a callable that receives a :class:`FacetContext` for each event of each run
the adapter builds (START, then COMPLETE, FAIL or ABORT), in classic PySpark and under Spark
Connect alike, and adds typed facets to it: run and job facets with :meth:`FacetContext.add`,
dataset facets with :meth:`FacetContext.add_to` on one of the execution's datasets. The context
carries what the adapter learned about the execution (:class:`SparkExecution`: its session kind,
Spark command, job name parts, inputs, output, schemas, statistics, error)::

    from myco_facets import MyCoCostsRunFacet

    def costs(context):
        if context.event_type == "COMPLETE" and context.execution.output is not None:
            context.add(MyCoCostsRunFacet(amount=1.5, currency="EUR"))

Builders are found two ways, as the JVM agent's ``CustomFacetBuilder`` are: in code
(``install(spark, client, facet_builders=[costs])``), and through the package entry points of
the group ``openlineage_sdk.spark.facet_builders`` (``myco = "myco_facets.spark:costs"``),
which installing a plugin package is enough for. A builder that raises is logged and left out;
the event and the other builders' facets still go out.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Literal

from openlineage_sdk.models.base import (
    DatasetFacet,
    InputDatasetFacet,
    JobFacet,
    OutputDatasetFacet,
    RunFacet,
)
from openlineage_sdk.spark._execution import DatasetLineage, SparkExecution

__all__ = [
    "ENTRY_POINT_GROUP",
    "AnyDatasetFacet",
    "Built",
    "EventType",
    "FacetBuilder",
    "FacetBuilders",
    "FacetContext",
    "built_facets",
]

log = logging.getLogger("openlineage_sdk.spark")

#: The entry point group plugin packages register their builders in.
ENTRY_POINT_GROUP = "openlineage_sdk.spark.facet_builders"

EventType = Literal["START", "RUNNING", "COMPLETE", "FAIL", "ABORT"]
AnyDatasetFacet = DatasetFacet | InputDatasetFacet | OutputDatasetFacet


class FacetContext:
    """One event being built, as a facet builder sees it.

    Attributes:
        execution: What the adapter learned about the execution.
        event_type: The event being built.
    """

    def __init__(self, execution: SparkExecution, event_type: EventType) -> None:
        self.execution = execution
        self.event_type = event_type
        self._run: list[RunFacet] = []
        self._job: list[JobFacet] = []
        self._datasets: dict[int, list[AnyDatasetFacet]] = {}

    @property
    def datasets(self) -> list[DatasetLineage]:
        """The execution's inputs, then its output."""
        output = self.execution.output
        return [*self.execution.inputs, *([output] if output is not None else [])]

    def add(self, facet: RunFacet | JobFacet) -> None:
        """Add a run facet or a job facet to the event.

        Raises:
            TypeError: ``facet`` is neither (a dataset facet goes through :meth:`add_to`).
        """
        if isinstance(facet, RunFacet):
            self._run.append(facet)
        elif isinstance(facet, JobFacet):
            self._job.append(facet)
        else:
            raise TypeError(
                f"{type(facet).__name__} is not a run or job facet: add a dataset facet with "
                "add_to(dataset, facet)"
            )

    def add_to(self, dataset: DatasetLineage, facet: AnyDatasetFacet) -> None:
        """Add a dataset facet (or an input's or output's own facet) to one of the datasets.

        Raises:
            TypeError: ``facet`` is not a dataset facet, or it is an input facet for the output
                (or the other way round).
            ValueError: ``dataset`` is not one of the execution's.
        """
        if not any(dataset is known for known in self.datasets):
            raise ValueError("the dataset is not one of the execution's inputs or its output")
        if isinstance(facet, InputDatasetFacet) and dataset.role != "input":
            raise TypeError(f"{type(facet).__name__} is an input facet, for an input dataset")
        if isinstance(facet, OutputDatasetFacet) and dataset.role != "output":
            raise TypeError(f"{type(facet).__name__} is an output facet, for the output dataset")
        if not isinstance(facet, (DatasetFacet, InputDatasetFacet, OutputDatasetFacet)):
            raise TypeError(f"{type(facet).__name__} is not a dataset facet")
        self._datasets.setdefault(id(dataset), []).append(facet)


FacetBuilder = Callable[[FacetContext], None]
"""A facet builder: called with each event's context, adds facets to it."""


@dataclass
class Built:
    """What the builders added to one event."""

    run: list[RunFacet] = field(default_factory=list)
    job: list[JobFacet] = field(default_factory=list)
    datasets: dict[int, list[AnyDatasetFacet]] = field(default_factory=dict)

    def for_dataset(self, dataset: DatasetLineage) -> list[AnyDatasetFacet]:
        """The facets added to ``dataset``."""
        return self.datasets.get(id(dataset), [])


_loaded: list[tuple[str, FacetBuilder]] | None = None
_load_lock = threading.Lock()


def _entry_point_builders() -> list[tuple[str, FacetBuilder]]:
    """The builders registered through entry points, loaded once for the process."""
    global _loaded
    with _load_lock:
        if _loaded is None:
            found: list[tuple[str, FacetBuilder]] = []
            for point in entry_points(group=ENTRY_POINT_GROUP):
                try:
                    builder = point.load()
                except Exception as error:
                    log.warning(
                        "openlineage: the facet builder %s (%s) could not be loaded: %s",
                        point.name,
                        point.value,
                        error,
                    )
                    continue
                if not callable(builder):
                    log.warning(
                        "openlineage: the facet builder %s (%s) is not callable",
                        point.name,
                        point.value,
                    )
                    continue
                found.append((point.name, builder))
            _loaded = found
        return list(_loaded)


class FacetBuilders:
    """The builders an adapter calls: those given in code, then those of entry points.

    Args:
        builders: Builders given in code.
        entry_points: Whether to add the builders registered through entry points.
    """

    def __init__(
        self, builders: Sequence[FacetBuilder] = (), *, entry_points: bool = False
    ) -> None:
        named = [(getattr(b, "__qualname__", repr(b)), b) for b in builders]
        if entry_points:
            named.extend(_entry_point_builders())
        self.builders: list[tuple[str, FacetBuilder]] = named

    def __bool__(self) -> bool:
        return bool(self.builders)

    def __iter__(self) -> Iterator[tuple[str, FacetBuilder]]:
        return iter(self.builders)


def built_facets(
    builders: FacetBuilders, execution: SparkExecution, event_type: EventType
) -> Built:
    """Call every builder for one event; what each added (a builder that raises adds nothing)."""
    built = Built()
    for name, builder in builders.builders:
        context = FacetContext(execution, event_type)
        try:
            builder(context)
        except Exception as error:
            log.warning(
                "openlineage: the facet builder %s failed on %s of %s; its facets are left out: %s",
                name,
                event_type,
                execution.command,
                error,
                exc_info=log.isEnabledFor(logging.DEBUG),
            )
            continue
        built.run.extend(context._run)
        built.job.extend(context._job)
        for key, facets in context._datasets.items():
            built.datasets.setdefault(key, []).extend(facets)
    return built
