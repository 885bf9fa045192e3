"""The run lifecycle: START, RUNNING, COMPLETE, FAIL, ABORT and OTHER events without assembling them.

::

    client = OpenLineage(namespace="orders")
    with client.run("orders.daily_load", inputs=[naming.postgres(...)]) as run:
        load()
        run.add_outputs(naming.s3("lake", "orders/daily"))
    # START on entry; COMPLETE on a clean exit, FAIL (with an errorMessage facet) on an
    # exception, which is re-raised; ABORT on KeyboardInterrupt or asyncio cancellation.

Design, in short:

* **State machine.** A run emits one START, at most one terminal event (COMPLETE, FAIL or
  ABORT), RUNNING only between the two, and OTHER at any time, also after the end. A wrong
  transition raises :class:`RunTransitionError`, naming the run, its state and the event. With
  ``invalid_transitions="warn"`` (on the client or the run) it is a :class:`RunTransitionWarning`
  instead and the event is emitted anyway, for producers that cannot help it.
* **Accumulated metadata.** Inputs, outputs, run facets and job facets added at any point are
  merged, and *every* event carries everything added so far (the spec also allows sending only
  what changed; accumulated events are what backends handle best, and any single event then
  describes the run on its own). Datasets merge by identity (namespace, name), facets by key,
  and a facet added again under a key replaces the earlier one whole.
* **Run ids** are UUIDv7 (:func:`~openlineage_sdk.uuid7`), or, for schedulers that retry,
  derived from (job namespace, job name, nominal time) (:func:`~openlineage_sdk.deterministic_run_id`).
* **Hierarchy.** A run created inside another run's ``with`` block (or ``async with``) gets
  that run as its parent; ``parent=`` names one explicitly. The parent facet always carries
  ``root``: the parent's root when it has one, else the parent. A child's job namespace is its
  parent's unless given, as the naming conventions ask.
* **Never breaks the pipeline.** Transport errors are logged by the client, not raised, unless
  ``raise_on_error`` is set; the context manager never lets lineage replace the user's own
  exception.

"The current run" lives in a :class:`contextvars.ContextVar`, the one module-level object here.
It is not shared mutable state in the harmful sense: each thread and each asyncio task sees its
own value, which a ``with`` block sets and resets, so concurrent pipelines never see each
other's runs. A new thread starts with no current run (``contextvars.copy_context().run`` or an
explicit ``parent=`` carries it across).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import traceback
import uuid
import warnings
from collections.abc import Iterable, Mapping
from contextvars import ContextVar, Token
from dataclasses import dataclass
from datetime import datetime, timezone
from types import TracebackType
from typing import (
    TYPE_CHECKING,
    Any,
    Final,
    Generic,
    Literal,
    Protocol,
    TypeAlias,
    TypedDict,
    TypeVar,
)

from openlineage_sdk._base import PRODUCER, FacetContainer
from openlineage_sdk._ids import deterministic_run_id, uuid7
from openlineage_sdk._types import format_datetime
from openlineage_sdk.models.base import (
    BaseFacet,
    DatasetFacet,
    InputDatasetFacet,
    JobFacet,
    OutputDatasetFacet,
    RunFacet,
)
from openlineage_sdk.models.core import (
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
from openlineage_sdk.models.facets.error_message_run import ErrorMessageRunFacet
from openlineage_sdk.models.facets.nominal_time_run import NominalTimeRunFacet
from openlineage_sdk.models.facets.parent_run import ParentRunFacet
from openlineage_sdk.naming._model import DatasetName, _nonempty

if TYPE_CHECKING:
    from typing_extensions import Self, Unpack

__all__ = [
    "EventMetadata",
    "EventType",
    "FacetsArg",
    "InputLike",
    "InvalidTransitions",
    "LineageRun",
    "OutputLike",
    "RunClient",
    "RunOptions",
    "RunRef",
    "RunState",
    "RunTransitionError",
    "RunTransitionWarning",
    "current_run",
    "dataset_event",
    "input_dataset",
    "job_event",
    "output_dataset",
]

log = logging.getLogger(__name__)

EventType: TypeAlias = Literal["START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER"]
"""The ``eventType`` of a run event."""

RunState: TypeAlias = Literal["NEW", "START", "RUNNING", "COMPLETE", "FAIL", "ABORT"]
"""Where a run is: ``NEW`` before its first state event, else the last one emitted (OTHER
changes nothing)."""

InvalidTransitions: TypeAlias = Literal["raise", "warn"]
"""What a wrong transition does: raise :class:`RunTransitionError`, or warn with
:class:`RunTransitionWarning` and emit the event anyway."""

InputLike: TypeAlias = InputDataset | DatasetName
"""An input: an ``InputDataset``, or a naming result (which gets its dataSource facet)."""

OutputLike: TypeAlias = OutputDataset | DatasetName
"""An output: an ``OutputDataset``, or a naming result (which gets its dataSource facet)."""

_F = TypeVar("_F", bound=BaseFacet)

FacetsArg: TypeAlias = Iterable[_F] | Mapping[str, _F] | FacetContainer
"""Facets for one entity: instances (each stored under its own ``facet_key``), a mapping of
key to facet (for facets without a key of their own), or a facet container."""


class EventMetadata(TypedDict, total=False):
    """What any event of a run can add: the keywords of each :class:`LineageRun` event method.

    :meth:`~LineageRun.start`, :meth:`~LineageRun.running`, :meth:`~LineageRun.complete`,
    :meth:`~LineageRun.fail`, :meth:`~LineageRun.abort` and :meth:`~LineageRun.other` take
    them. Datasets and facets given are merged into the run before the event is made, so this
    event and every later one carry them.

    Attributes:
        inputs: More inputs; merged by (namespace, name).
        outputs: More outputs; merged by (namespace, name).
        run_facets: More run facets; one under a key already present replaces it whole.
        job_facets: More job facets; one under a key already present replaces it whole.
        event_time: When the event happened (with a time zone); now when ``None`` or not given.
    """

    inputs: Iterable[InputLike]
    outputs: Iterable[OutputLike]
    run_facets: FacetsArg[RunFacet]
    job_facets: FacetsArg[JobFacet]
    event_time: datetime | None


class RunOptions(TypedDict, total=False):
    """The keyword arguments of :class:`LineageRun`, which ``OpenLineage.run`` passes on.

    Each one is described under :class:`LineageRun`.
    """

    namespace: str | None
    inputs: Iterable[InputLike]
    outputs: Iterable[OutputLike]
    run_facets: FacetsArg[RunFacet]
    job_facets: FacetsArg[JobFacet]
    run_id: str | uuid.UUID | None
    deterministic_id: bool
    nominal_time: datetime | None
    nominal_end_time: datetime | None
    parent: LineageRun | RunRef | ParentRunFacet | Literal["auto"] | None
    invalid_transitions: InvalidTransitions | None


_TERMINAL: Final = frozenset({"COMPLETE", "FAIL", "ABORT"})

_current: Final[ContextVar[LineageRun | None]] = ContextVar(
    "openlineage_sdk.current_run", default=None
)


def current_run() -> LineageRun | None:
    """The run whose ``with`` (or ``async with``) block the caller is in, innermost first.

    Adapters use it to add what they observe to the user's run, and new runs use it to find
    their parent. Each thread and asyncio task has its own: a new thread starts with none.

    Returns:
        The run, or ``None`` outside every run's block.
    """
    return _current.get()


# --------------------------------------------------------------------------- identities


@dataclass(frozen=True, slots=True, init=False)
class RunRef:
    """A run of a job, by identity: what a parent facet points at.

    Use it to name a parent that lives in another process, such as the DAG run of a scheduler
    that passes ids to its tasks::

        client.run("orders_etl.load", parent=RunRef("airflow", "orders_etl", dag_run_id))

    Args:
        namespace: The job namespace.
        name: The job name.
        run_id: The run id, a ``uuid.UUID`` or its text.
        root: The root run of the chain this run belongs to, when it has a parent itself;
            ``None`` when this run is the root.

    Attributes:
        run_id: The run id as its canonical lower-case text.

    Raises:
        ValueError: An empty namespace or name, or a run id that is not a UUID.
    """

    namespace: str
    name: str
    run_id: str
    root: RunRef | None

    def __init__(
        self, namespace: str, name: str, run_id: str | uuid.UUID, root: RunRef | None = None
    ) -> None:
        for label, value in (("namespace", namespace), ("name", name)):
            if not _nonempty(value):
                raise ValueError(f"RunRef: the job {label} must be a non-empty string")
        # Frozen: the fields are set once, here.
        object.__setattr__(self, "namespace", namespace)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "run_id", _canonical_run_id(run_id))
        object.__setattr__(self, "root", root)

    def parent_facet(self, producer: str = PRODUCER) -> ParentRunFacet:
        """The parent facet of a run whose parent is this run.

        Args:
            producer: The facet's ``_producer``.

        Returns:
            A ``ParentRunFacet`` with ``root`` set: this run's root, or this run.
        """
        root = self.root if self.root is not None else self
        return ParentRunFacet(
            producer=producer,
            run={"runId": self.run_id},
            job={"namespace": self.namespace, "name": self.name},
            root={
                "run": {"runId": root.run_id},
                "job": {"namespace": root.namespace, "name": root.name},
            },
        )

    @classmethod
    def from_parent_facet(cls, facet: ParentRunFacet) -> RunRef:
        """The parent a parent facet names, with its root when the facet has one.

        Args:
            facet: A parent facet, for example read from an incoming event.

        Returns:
            The parent run.
        """
        root = None
        if facet.root is not None:
            root = cls(
                facet.root["job"]["namespace"],
                facet.root["job"]["name"],
                facet.root["run"]["runId"],
            )
        return cls(facet.job["namespace"], facet.job["name"], facet.run["runId"], root)


def _canonical_run_id(value: object) -> str:
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, str):
        try:
            return str(uuid.UUID(value))
        except ValueError:
            pass
    raise ValueError(f"a run id must be a UUID, got {value!r}")


# --------------------------------------------------------------------------- errors


class _Transition(Exception):  # noqa: N818 - the base of an error and of a warning
    """What a refused transition carries."""

    def __init__(self, run: RunRef, state: RunState, event_type: EventType, reason: str) -> None:
        super().__init__(
            f"run {run.run_id} of job {run.namespace}/{run.name}: cannot emit {event_type} "
            f"in state {state}: {reason}"
        )
        self.run = run
        self.state: RunState = state
        self.event_type: EventType = event_type
        self.reason = reason


class RunTransitionError(_Transition, RuntimeError):
    """A run was asked for an event its state does not allow.

    Attributes:
        run: The run (namespace, name, run id).
        state: The run's state when the event was asked for.
        event_type: The event that was asked for.
        reason: Why it is not allowed.
    """


class RunTransitionWarning(_Transition, UserWarning):
    """A wrong transition, emitted anyway because the run asked for warnings.

    Attributes:
        run: The run (namespace, name, run id).
        state: The run's state when the event was asked for.
        event_type: The event that was emitted.
        reason: Why it is not allowed.
    """


def _refusal(state: RunState, event_type: EventType) -> str | None:
    """Why ``event_type`` may not follow ``state``, or ``None`` when it may."""
    if event_type == "OTHER":
        return None
    if state in _TERMINAL:
        if event_type == "START":
            return "a run has one START, and this run has already ended"
        return f"the run has already ended with {state}; only OTHER may follow"
    if event_type == "START":
        return None if state == "NEW" else "a run has one START, and this run has started"
    if state == "NEW":
        return "the run has not started; START comes first"
    return None


# --------------------------------------------------------------------------- merging


def _keyed(facets: Any, base: type[_F], what: str) -> dict[str, _F]:
    """Facets given as instances, a mapping or a container, keyed by facet key."""
    if isinstance(facets, FacetContainer):
        pairs: Iterable[tuple[str, Any]] = facets.items()
    elif isinstance(facets, Mapping):
        pairs = facets.items()
    else:
        pairs = []
        for facet in facets:
            key = type(facet).facet_key if isinstance(facet, base) else None
            if isinstance(facet, base) and key is None:
                raise TypeError(
                    f"{type(facet).__name__} has no facet key; pass {what} facets without a key "
                    "as a mapping {key: facet}"
                )
            pairs.append((key or "", facet))
    keyed: dict[str, _F] = {}
    for key, facet in pairs:
        if not isinstance(facet, base):
            raise TypeError(
                f"{what} facets must be {base.__name__} instances, got {type(facet).__name__}"
                + (f" under {key!r}" if key else "")
            )
        if not _nonempty(key):
            raise TypeError(f"a facet key must be a non-empty string, got {key!r}")
        keyed[key] = facet
    return keyed


def _flatten(facets: Iterable[_F | Mapping[str, _F]], base: type[_F], what: str) -> dict[str, _F]:
    """Facets given one by one or as mappings, keyed, in the order given."""
    keyed: dict[str, _F] = {}
    for item in facets:
        keyed.update(_keyed(item if isinstance(item, Mapping) else (item,), base, what))
    return keyed


@dataclass(slots=True)
class _Update:
    """Metadata to merge into a run, checked and converted."""

    inputs: _Datasets[InputDataset]
    outputs: _Datasets[OutputDataset]
    run_facets: dict[str, RunFacet]
    job_facets: dict[str, JobFacet]


@dataclass(slots=True)
class _DatasetEntry:
    """One dataset of a run: its identity and its facets, merged by key."""

    namespace: str
    name: str
    facets: dict[str, DatasetFacet]
    io_facets: dict[str, Any]
    extra: dict[str, Any]


_D = TypeVar("_D", InputDataset, OutputDataset)

#: The field and container of the facets only an input, or only an output, has.
_IO_FACETS: Final[Mapping[type[InputDataset | OutputDataset], tuple[str, type[FacetContainer]]]] = {
    InputDataset: ("input_facets", InputDatasetFacets),
    OutputDataset: ("output_facets", OutputDatasetFacets),
}


def _build(kind: type[_D], entry: _DatasetEntry, empty_io: bool = False) -> _D:
    io_field, io_container = _IO_FACETS[kind]
    io: dict[str, Any] = {
        io_field: io_container.model_validate(entry.io_facets)
        if entry.io_facets or empty_io
        else None
    }
    return kind(
        namespace=entry.namespace,
        name=entry.name,
        facets=DatasetFacets.model_validate(entry.facets) if entry.facets else None,
        **io,
        **entry.extra,
    )


class _Datasets(Generic[_D]):
    """Datasets merged by (namespace, name), in the order they were first added."""

    __slots__ = ("_entries", "_kind")

    def __init__(self, kind: type[_D]) -> None:
        self._kind: type[_D] = kind
        self._entries: dict[tuple[str, str], _DatasetEntry] = {}

    def add(self, dataset: object, producer: str) -> None:
        self._put(_entry(dataset, self._kind, producer))

    def merge(self, other: _Datasets[_D]) -> None:
        for entry in other._entries.values():
            self._put(entry)

    def _put(self, entry: _DatasetEntry) -> None:
        known = self._entries.get((entry.namespace, entry.name))
        if known is None:
            self._entries[(entry.namespace, entry.name)] = entry
        else:
            # The same dataset again: its facets merge by key, a new one replacing the old whole.
            known.facets.update(entry.facets)
            known.io_facets.update(entry.io_facets)
            known.extra.update(entry.extra)

    def build(self, empty_io: bool = False) -> list[_D]:
        return [_build(self._kind, entry, empty_io) for entry in self._entries.values()]

    def build_or_none(self, listed: bool = False) -> list[_D] | None:
        """The datasets, or ``None`` when there are none (the field is then left out).

        ``listed``: always a list, and each dataset's input or output facets an object, even
        when empty (see :attr:`LineageRun.list_empty`).
        """
        return self.build(listed) if self._entries or listed else None


def _entry(
    dataset: object, kind: type[InputDataset] | type[OutputDataset], producer: str
) -> _DatasetEntry:
    if isinstance(dataset, DatasetName):
        return _named_entry(dataset, (), {}, producer)
    if not isinstance(dataset, kind):
        other = OutputDataset if kind is InputDataset else InputDataset
        hint = f" (an {other.__name__} is on the other side)" if isinstance(dataset, other) else ""
        raise TypeError(
            f"expected an {kind.__name__} or a DatasetName, got {type(dataset).__name__}{hint}"
        )
    io: FacetContainer | None = getattr(dataset, _IO_FACETS[kind][0])
    return _DatasetEntry(
        dataset.namespace,
        dataset.name,
        dict(dataset.facets.items()) if dataset.facets is not None else {},
        dict(io.items()) if io is not None else {},
        dict(dataset.__pydantic_extra__ or {}),
    )


def _now() -> str:
    return format_datetime(datetime.now(timezone.utc))


def _aware(value: object, what: str) -> str:
    # Typed as object: callers without a type checker may pass anything.
    if not isinstance(value, datetime) or value.utcoffset() is None:
        raise ValueError(f"{what} must be a datetime with a time zone, got {value!r}")
    return format_datetime(value)


def _event_time(value: datetime | None) -> str:
    return _now() if value is None else _aware(value, "event_time")


# --------------------------------------------------------------------------- the run


class RunClient(Protocol):
    """What a run needs from the client its events go through.

    :class:`~openlineage_sdk.client.OpenLineage` is one; the run knows it only by this much.
    """

    @property
    def producer(self) -> str:
        """The ``producer`` of the run's events and of the facets the run adds."""

    @property
    def namespace(self) -> str:
        """The job namespace of runs given none (and without a parent)."""

    @property
    def invalid_transitions(self) -> InvalidTransitions:
        """What a wrong transition does when the run does not say: raise or warn."""

    @property
    def raise_on_error(self) -> bool:
        """Whether an event that cannot be emitted raises out of the run's block."""

    def emit(self, event: RunEvent) -> None:
        """Send one of the run's events."""


class LineageRun:
    """One run of a job, and the events that tell its story.

    Made by :meth:`OpenLineage.run <openlineage_sdk.client.OpenLineage.run>`, whose arguments
    it takes. Use it as a context manager (``with`` or ``async with``) or call :meth:`start`,
    :meth:`running`, :meth:`complete`, :meth:`fail`, :meth:`abort` and :meth:`other`. Every
    method is safe to call from several threads; the events of one run reach the transport in
    the order they were made.

    Args:
        client: Where the events go; it also gives the producer and default namespace.
        job_name: The job's name (see :mod:`openlineage_sdk.naming` for the conventions).
        namespace: The job namespace; else the parent's, else the client's.
        inputs: Datasets read; merged by (namespace, name).
        outputs: Datasets written; merged by (namespace, name).
        run_facets: Facets of the run.
        job_facets: Facets of the job.
        run_id: The run id; a new UUIDv7 when ``None``.
        deterministic_id: Derive the run id from (namespace, job name, nominal time), so that
            retries of one scheduled run share it; needs ``nominal_time``.
        nominal_time: When the run was scheduled to start; adds the nominalTime facet.
        nominal_end_time: When the scheduled interval ends (needs ``nominal_time``).
        parent: ``"auto"``: the run whose block this one is created in, if any; ``None``: no
            parent; else a :class:`LineageRun`, a :class:`RunRef` or a ``ParentRunFacet``.
        invalid_transitions: ``"raise"`` or ``"warn"``; ``None`` follows the client.

    Raises:
        ValueError: Conflicting or missing arguments (both ``run_id`` and
            ``deterministic_id``, a nominal end without a start, a bad run id, a nominal
            time without a time zone).
        TypeError: A dataset or facet of the wrong kind.
        OpenLineageValidationError: A value a facet cannot hold.

    Attributes:
        client: The client the events go through.
    """

    def __init__(
        self,
        client: RunClient,
        job_name: str,
        *,
        namespace: str | None = None,
        inputs: Iterable[InputLike] = (),
        outputs: Iterable[OutputLike] = (),
        run_facets: FacetsArg[RunFacet] = (),
        job_facets: FacetsArg[JobFacet] = (),
        run_id: str | uuid.UUID | None = None,
        deterministic_id: bool = False,
        nominal_time: datetime | None = None,
        nominal_end_time: datetime | None = None,
        parent: LineageRun | RunRef | ParentRunFacet | Literal["auto"] | None = "auto",
        invalid_transitions: InvalidTransitions | None = None,
    ) -> None:
        if not _nonempty(job_name):
            raise ValueError("the job name must be a non-empty string")
        self.client = client
        self._lock = threading.Lock()
        self._tokens: list[Token[LineageRun | None]] = []
        self._state: RunState = "NEW"
        producer = client.producer
        self._invalid_transitions = invalid_transitions

        # The parent first: it gives the default namespace, which the deterministic id needs.
        self._parent: RunRef | None = None
        parent_facet: ParentRunFacet | None = None
        resolved = current_run() if parent == "auto" else parent
        if isinstance(resolved, LineageRun):
            self._parent = resolved.ref
        elif isinstance(resolved, RunRef):
            self._parent = resolved
        elif isinstance(resolved, ParentRunFacet):
            self._parent = RunRef.from_parent_facet(resolved)
            if resolved.root is not None:
                parent_facet = resolved  # complete as given; keep what else it carries
        elif resolved is not None:
            raise TypeError(
                "parent must be a LineageRun, a RunRef, a ParentRunFacet, 'auto' or None, "
                f"got {type(resolved).__name__}"
            )
        if self._parent is not None and parent_facet is None:
            parent_facet = self._parent.parent_facet(producer)

        # The naming conventions: "If there's a parent job, we use the same namespace,
        # otherwise it is provided by configuration."
        self._job_namespace = namespace or (
            self._parent.namespace if self._parent is not None else client.namespace
        )
        self._job_name = job_name

        if nominal_end_time is not None and nominal_time is None:
            raise ValueError("nominal_end_time needs nominal_time")
        if deterministic_id:
            if run_id is not None:
                raise ValueError("give either run_id or deterministic_id=True, not both")
            if nominal_time is None:
                raise ValueError("deterministic_id=True needs nominal_time")
            run_id = deterministic_run_id(self._job_namespace, job_name, nominal_time)
        self._run_id = _canonical_run_id(run_id if run_id is not None else uuid7())

        self._run_facets: dict[str, RunFacet] = {}
        self._job_facets: dict[str, JobFacet] = {}
        self._inputs = _Datasets(InputDataset)
        self._outputs = _Datasets(OutputDataset)
        # Write "inputs": [] and "outputs": [] when there are none, and each dataset's
        # inputFacets / outputFacets even when empty, as the JVM Spark agent writes its events.
        self.list_empty = False
        if parent_facet is not None:
            self._run_facets["parent"] = parent_facet
        if nominal_time is not None:
            self._run_facets["nominalTime"] = NominalTimeRunFacet(
                producer=producer,
                nominal_start_time=_aware(nominal_time, "nominal_time"),
                nominal_end_time=(
                    _aware(nominal_end_time, "nominal_end_time")
                    if nominal_end_time is not None
                    else None
                ),
            )
        self._apply(self._prepare(inputs, outputs, run_facets, job_facets))

    # ----------------------------------------------------------------- identity and state

    @property
    def run_id(self) -> str:
        """The run id, as its canonical lower-case text."""
        return self._run_id

    @property
    def job_namespace(self) -> str:
        """The job namespace: as given, else the parent's, else the client's."""
        return self._job_namespace

    @property
    def job_name(self) -> str:
        """The job name."""
        return self._job_name

    @property
    def parent(self) -> RunRef | None:
        """The parent run (with its root), or ``None``."""
        return self._parent

    @property
    def root(self) -> RunRef | None:
        """The root of this run's chain of parents; ``None`` when this run is the root."""
        if self.parent is None:
            return None
        return self.parent.root if self.parent.root is not None else self.parent

    @property
    def ref(self) -> RunRef:
        """This run by identity, with its root: what a child's parent facet points at."""
        return RunRef(self.job_namespace, self.job_name, self.run_id, self.root)

    @property
    def state(self) -> RunState:
        """``NEW`` before the first state event, else the last one emitted."""
        return self._state

    @property
    def ended(self) -> bool:
        """Whether a COMPLETE, FAIL or ABORT has been emitted."""
        return self._state in _TERMINAL

    @property
    def invalid_transitions(self) -> InvalidTransitions:
        """What a wrong transition does here: the run's own setting, else the client's."""
        if self._invalid_transitions is not None:
            return self._invalid_transitions
        return self.client.invalid_transitions

    @property
    def inputs(self) -> list[InputDataset]:
        """The inputs added so far, merged, as the next event will carry them."""
        with self._lock:
            return self._inputs.build()

    @property
    def outputs(self) -> list[OutputDataset]:
        """The outputs added so far, merged, as the next event will carry them."""
        with self._lock:
            return self._outputs.build()

    @property
    def run_facets(self) -> dict[str, RunFacet]:
        """The run facets so far, by key (a copy)."""
        with self._lock:
            return dict(self._run_facets)

    @property
    def job_facets(self) -> dict[str, JobFacet]:
        """The job facets so far, by key (a copy)."""
        with self._lock:
            return dict(self._job_facets)

    # ----------------------------------------------------------------- adding metadata

    def add_inputs(self, *datasets: InputLike) -> None:
        """Add inputs; a dataset already present gets the new facets merged in by key.

        Args:
            *datasets: ``InputDataset`` models or naming results.
        """
        self._apply(self._prepare(datasets, (), (), ()))

    def add_outputs(self, *datasets: OutputLike) -> None:
        """Add outputs; a dataset already present gets the new facets merged in by key.

        Args:
            *datasets: ``OutputDataset`` models or naming results.
        """
        self._apply(self._prepare((), datasets, (), ()))

    def add_run_facets(self, *facets: RunFacet | Mapping[str, RunFacet]) -> None:
        """Add run facets; one under a key already present replaces it whole.

        Args:
            *facets: Facets (stored under their ``facet_key``) or mappings of key to facet.
        """
        self._apply(self._prepare((), (), _flatten(facets, RunFacet, "run"), ()))

    def add_job_facets(self, *facets: JobFacet | Mapping[str, JobFacet]) -> None:
        """Add job facets; one under a key already present replaces it whole.

        Args:
            *facets: Facets (stored under their ``facet_key``) or mappings of key to facet.
        """
        self._apply(self._prepare((), (), (), _flatten(facets, JobFacet, "job")))

    def _prepare(
        self,
        inputs: Iterable[object],
        outputs: Iterable[object],
        run_facets: Any,
        job_facets: Any,
    ) -> _Update:
        # Everything is checked and converted before anything is merged, so a bad argument
        # raises and changes nothing.
        producer = self.client.producer
        update = _Update(
            _Datasets(InputDataset),
            _Datasets(OutputDataset),
            _keyed(run_facets, RunFacet, "run"),
            _keyed(job_facets, JobFacet, "job"),
        )
        for dataset in inputs:
            update.inputs.add(dataset, producer)
        for dataset in outputs:
            update.outputs.add(dataset, producer)
        return update

    def _apply(self, update: _Update) -> None:
        with self._lock:
            self._merge(update)

    def _merge(self, update: _Update) -> None:
        """Merge checked metadata in; the caller holds the lock."""
        self._inputs.merge(update.inputs)
        self._outputs.merge(update.outputs)
        self._run_facets.update(update.run_facets)
        self._job_facets.update(update.job_facets)

    # ----------------------------------------------------------------- events

    def start(self, **metadata: Unpack[EventMetadata]) -> RunEvent:
        """Emit START. Metadata given here is merged first and stays for later events.

        Args:
            **metadata: More inputs, outputs and facets, and the event time
                (:class:`EventMetadata`).

        Returns:
            The event, as it was handed to the client.

        Raises:
            RunTransitionError: The run has already started (unless the run warns).
        """
        return self._transition("START", **metadata)

    def running(self, **metadata: Unpack[EventMetadata]) -> RunEvent:
        """Emit RUNNING, between START and the end, for example with progress facets.

        Args:
            **metadata: More inputs, outputs and facets, and the event time
                (:class:`EventMetadata`).

        Returns:
            The event, as it was handed to the client.

        Raises:
            RunTransitionError: The run has not started or has ended (unless the run warns).
        """
        return self._transition("RUNNING", **metadata)

    def complete(self, **metadata: Unpack[EventMetadata]) -> RunEvent:
        """Emit COMPLETE: the run succeeded.

        Args:
            **metadata: More inputs, outputs and facets, and the event time
                (:class:`EventMetadata`).

        Returns:
            The event, as it was handed to the client.

        Raises:
            RunTransitionError: The run has not started or has ended (unless the run warns).
        """
        return self._transition("COMPLETE", **metadata)

    def fail(
        self,
        error: BaseException | str | None = None,
        *,
        stack_trace: str | None = None,
        **metadata: Unpack[EventMetadata],
    ) -> RunEvent:
        """Emit FAIL, with an errorMessage facet when ``error`` is given.

        Args:
            error: The exception (its message and stack trace go into the facet, with
                ``programmingLanguage`` ``"python"``), or a message.
            stack_trace: The stack trace to write instead of the exception's own.
            **metadata: More inputs, outputs and facets, and the event time
                (:class:`EventMetadata`).

        Returns:
            The event, as it was handed to the client.

        Raises:
            RunTransitionError: The run has not started or has ended (unless the run warns).
        """
        extra: dict[str, RunFacet] = {}
        if error is not None:
            extra["errorMessage"] = _error_facet(error, stack_trace, self.client.producer)
        return self._transition("FAIL", extra, **metadata)

    def abort(self, **metadata: Unpack[EventMetadata]) -> RunEvent:
        """Emit ABORT: the run was stopped before it could finish (interrupted, cancelled).

        Args:
            **metadata: More inputs, outputs and facets, and the event time
                (:class:`EventMetadata`).

        Returns:
            The event, as it was handed to the client.

        Raises:
            RunTransitionError: The run has not started or has ended (unless the run warns).
        """
        return self._transition("ABORT", **metadata)

    def other(self, **metadata: Unpack[EventMetadata]) -> RunEvent:
        """Emit OTHER: more metadata at any time, also before START or after the end.

        Args:
            **metadata: More inputs, outputs and facets, and the event time
                (:class:`EventMetadata`).

        Returns:
            The event, as it was handed to the client.
        """
        return self._transition("OTHER", **metadata)

    def _transition(
        self,
        event_type: EventType,
        extra_run_facets: Mapping[str, RunFacet] | None = None,
        /,
        *,
        # EventMetadata's keys, spelt out so that Python refuses a misspelt one at run time.
        inputs: Iterable[InputLike] = (),
        outputs: Iterable[OutputLike] = (),
        run_facets: FacetsArg[RunFacet] = (),
        job_facets: FacetsArg[JobFacet] = (),
        event_time: datetime | None = None,
    ) -> RunEvent:
        given_time = _aware(event_time, "event_time") if event_time is not None else None
        update = self._prepare(inputs, outputs, run_facets, job_facets)
        if extra_run_facets:
            update.run_facets.update(extra_run_facets)
        with self._lock:
            # Checked under the lock, so that two threads cannot both end the run.
            reason = _refusal(self._state, event_type)
            if reason is not None:
                self._refuse(event_type, reason)
            self._merge(update)
            # The time is read under the lock, so that event times follow the events' order.
            event = self._event(event_type, given_time or _now())
            if event_type != "OTHER":
                self._state = event_type
            # Emitted under the lock, so that a run's events reach the transport in order.
            self.client.emit(event)
        return event

    def _refuse(self, event_type: EventType, reason: str) -> None:
        if self.invalid_transitions == "raise":
            raise RunTransitionError(self.ref, self._state, event_type, reason)
        # stacklevel 4: the user's call, above _refuse, _transition and the public method.
        warnings.warn(RunTransitionWarning(self.ref, self._state, event_type, reason), stacklevel=4)

    def _event(self, event_type: EventType, event_time: str) -> RunEvent:
        return RunEvent(
            event_type=event_type,
            event_time=event_time,
            producer=self.client.producer,
            run=Run(
                run_id=self.run_id,
                facets=RunFacets.model_validate(self._run_facets) if self._run_facets else None,
            ),
            job=Job(
                namespace=self.job_namespace,
                name=self.job_name,
                facets=JobFacets.model_validate(self._job_facets) if self._job_facets else None,
            ),
            inputs=self._inputs.build_or_none(self.list_empty),
            outputs=self._outputs.build_or_none(self.list_empty),
        )

    # ----------------------------------------------------------------- context manager

    def __enter__(self) -> Self:
        if self._state == "NEW":
            self._quietly(self.start, in_flight=False)
        self._tokens.append(_current.set(self))
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._tokens:
            token = self._tokens.pop()
            # Exited in another context than it was entered in (an unusual async pattern): the
            # value there was never ours to restore.
            with contextlib.suppress(ValueError):
                _current.reset(token)
        if self.ended:
            return  # the block finished the run itself (run.fail(...), run.complete())
        if exc is None:
            self._quietly(self.complete, in_flight=False)
        elif isinstance(exc, Exception) or (
            isinstance(exc, SystemExit) and exc.code not in (0, None)
        ):
            self._quietly(lambda: self.fail(exc), in_flight=True)
        elif isinstance(exc, SystemExit):
            self._quietly(self.complete, in_flight=True)
        else:
            # KeyboardInterrupt, asyncio.CancelledError, GeneratorExit: stopped from outside.
            self._quietly(self.abort, in_flight=True)

    async def __aenter__(self) -> Self:
        # Emitting does not wait on the network (network transports queue and return), so the
        # synchronous path is safe on an event loop.
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.__exit__(exc_type, exc, tb)

    def _quietly(self, emit: Any, *, in_flight: bool) -> None:
        # The context manager never breaks the pipeline for lineage's sake: what goes wrong is
        # logged; with raise_on_error it is raised, unless the user's own exception is on its
        # way out, which lineage must never replace.
        try:
            emit()
        except Exception:
            if self.client.raise_on_error and not in_flight:
                raise
            log.exception(
                "OpenLineage: an event of run %s (job %s/%s) could not be emitted",
                self.run_id,
                self.job_namespace,
                self.job_name,
            )

    def __repr__(self) -> str:
        return (
            f"LineageRun(job={self.job_namespace + '/' + self.job_name!r}, "
            f"run_id={self.run_id!r}, state={self._state!r})"
        )


def _error_facet(
    error: BaseException | str, stack_trace: str | None, producer: str
) -> ErrorMessageRunFacet:
    if isinstance(error, BaseException):
        message = "".join(traceback.format_exception_only(type(error), error)).strip()
        if stack_trace is None:
            stack_trace = "".join(
                traceback.format_exception(type(error), error, error.__traceback__)
            )
    else:
        message = error
    return ErrorMessageRunFacet(
        producer=producer,
        message=message,
        programming_language="python",
        stack_trace=stack_trace,
    )


# --------------------------------------------------------------------------- datasets


def input_dataset(
    dataset: DatasetName,
    *,
    facets: FacetsArg[DatasetFacet] = (),
    input_facets: FacetsArg[InputDatasetFacet] = (),
    producer: str = PRODUCER,
) -> InputDataset:
    """An input dataset from a naming result, with its dataSource facet and more facets.

    Args:
        dataset: The dataset's identity, from :mod:`openlineage_sdk.naming`.
        facets: Dataset facets (schema, ...); a ``dataSource`` here replaces the derived one.
        input_facets: Input facets (inputStatistics, dataQualityMetrics, ...).
        producer: The ``_producer`` of the dataSource facet.

    Returns:
        The ``InputDataset``.
    """
    io = _keyed(input_facets, InputDatasetFacet, "input dataset")
    return _build(InputDataset, _named_entry(dataset, facets, io, producer))


def output_dataset(
    dataset: DatasetName,
    *,
    facets: FacetsArg[DatasetFacet] = (),
    output_facets: FacetsArg[OutputDatasetFacet] = (),
    producer: str = PRODUCER,
) -> OutputDataset:
    """An output dataset from a naming result, with its dataSource facet and more facets.

    Args:
        dataset: The dataset's identity, from :mod:`openlineage_sdk.naming`.
        facets: Dataset facets (schema, columnLineage, ...); a ``dataSource`` here replaces
            the derived one.
        output_facets: Output facets (outputStatistics, ...).
        producer: The ``_producer`` of the dataSource facet.

    Returns:
        The ``OutputDataset``.
    """
    io = _keyed(output_facets, OutputDatasetFacet, "output dataset")
    return _build(OutputDataset, _named_entry(dataset, facets, io, producer))


def _named_entry(
    dataset: DatasetName,
    facets: FacetsArg[DatasetFacet],
    io_facets: dict[str, Any],
    producer: str,
) -> _DatasetEntry:
    """A named dataset with its derived dataSource facet, which ``facets`` may replace."""
    keyed: dict[str, DatasetFacet] = {"dataSource": dataset.datasource_facet(producer)}
    keyed.update(_keyed(facets, DatasetFacet, "dataset"))
    return _DatasetEntry(dataset.namespace, dataset.name, keyed, io_facets, {})


# --------------------------------------------------------------------------- static lineage


def job_event(
    namespace: str,
    name: str,
    *,
    inputs: Iterable[InputLike] = (),
    outputs: Iterable[OutputLike] = (),
    facets: FacetsArg[JobFacet] = (),
    event_time: datetime | None = None,
    producer: str = PRODUCER,
) -> JobEvent:
    """A JobEvent: a job's declared inputs, outputs and facets, without a run.

    Args:
        namespace: The job namespace.
        name: The job name.
        inputs: The datasets the job reads; merged by (namespace, name).
        outputs: The datasets the job writes; merged by (namespace, name).
        facets: Job facets (jobType, sql, sourceCodeLocation, ownership, ...).
        event_time: When the declaration was made (with a time zone); now when ``None``.
        producer: The event's ``producer`` (and that of derived dataSource facets).

    Returns:
        The event, ready for ``client.emit``.
    """
    ins = _Datasets(InputDataset)
    for source in inputs:
        ins.add(source, producer)
    outs = _Datasets(OutputDataset)
    for target in outputs:
        outs.add(target, producer)
    keyed = _keyed(facets, JobFacet, "job")
    return JobEvent(
        event_time=_event_time(event_time),
        producer=producer,
        job=Job(
            namespace=namespace,
            name=name,
            facets=JobFacets.model_validate(keyed) if keyed else None,
        ),
        inputs=ins.build_or_none(),
        outputs=outs.build_or_none(),
    )


def dataset_event(
    dataset: DatasetName | Dataset,
    *,
    facets: FacetsArg[DatasetFacet] = (),
    event_time: datetime | None = None,
    producer: str = PRODUCER,
) -> DatasetEvent:
    """A DatasetEvent: a dataset's metadata (schema, ownership, ...) without a run.

    Args:
        dataset: A naming result (which gets its dataSource facet) or a dataset model whose
            facets are kept.
        facets: More dataset facets, merged by key over the dataset's own.
        event_time: When the metadata was observed (with a time zone); now when ``None``.
        producer: The event's ``producer`` (and that of a derived dataSource facet).

    Returns:
        The event, ready for ``client.emit``.
    """
    if isinstance(dataset, DatasetName):
        keyed: dict[str, DatasetFacet] = {"dataSource": dataset.datasource_facet(producer)}
    elif isinstance(dataset, Dataset):
        keyed = dict(dataset.facets.items()) if dataset.facets is not None else {}
    else:
        raise TypeError(f"expected a Dataset or a DatasetName, got {type(dataset).__name__}")
    keyed.update(_keyed(facets, DatasetFacet, "dataset"))
    return DatasetEvent(
        event_time=_event_time(event_time),
        producer=producer,
        dataset=StaticDataset(
            namespace=dataset.namespace,
            name=dataset.name,
            facets=DatasetFacets.model_validate(keyed) if keyed else None,
        ),
    )
