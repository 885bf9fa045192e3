"""Folding events into the report's graph, and reading an event file for it in one pass.

The graph keeps what the report shows and nothing that grows with the number of events: jobs
with their latest runs (and counts of the runs before them), datasets with the facts of their
latest facets, and the edges between them. Reading a file goes line by line through
:class:`Folder`, so memory grows with the jobs, datasets and kept runs, not with the events.

Each line is read by msgspec straight into a few small structs that hold only what the report
shows; the facets it shows stay raw JSON bytes until they differ from those last seen for the
same dataset (a dataset's schema and column lineage usually repeat from run to run). A line the
structs cannot take goes to :func:`~openlineage_sdk.read_event`, which either refuses it (the
error names the line) or reads it, leniently, into an event that is folded from its dictionary.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from openlineage_sdk.naming._model import dataset_uri

#: Runs kept per job by default: the latest ones; the others are counted by final state.
KEEP_RUNS: Final = 20
#: Ids of runs folded away, remembered per job, so that a late event of such a run (the
#: COMPLETE of a long run, an OTHER after the end) updates its count instead of starting a run.
_WINDOW: Final = 256
#: Transitions kept per run: a run that changes state more often keeps its first and last ones
#: and the number of events between them (repeats of one state are counted, not listed).
_TRANSITIONS: Final = 12
ENDED: Final = ("COMPLETE", "FAIL", "ABORT")
_Raw = bytes  # for the one field of _DatasetInfo that a field named "bytes" would shadow


@dataclass
class _RunInfo:
    run_id: str
    job: str
    # [state, events] pairs: consecutive repeats counted; ["…", n] stands for n events elided.
    states: list[list[Any]] = field(default_factory=list)
    started: str | None = None
    ended: str | None = None
    parent: str | None = None
    error: str | None = None  # the errorMessage run facet's message, when a run reported one
    first_seen: str | None = None  # the time of its first event (ordering runs without START)
    end_state: str | None = None  # the last of COMPLETE, FAIL, ABORT it reported

    @property
    def state(self) -> str:
        """The run's final state, or RUNNING while it has reported none."""
        return self.end_state or "RUNNING"

    @property
    def when(self) -> str:
        """What orders runs in time: the start, or else the first event's time."""
        return self.started or self.first_seen or ""


@dataclass
class _Earlier:
    """The runs of a job folded away, counted: how many, by final state, and when."""

    runs: int = 0
    states: dict[str, int] = field(default_factory=dict)
    first: str | None = None  # the earliest start (or first event) among them
    last: str | None = None  # the latest


@dataclass
class _DatasetInfo:
    key: str
    rows: int | None = None
    bytes: int | None = None
    files: int | None = None
    fields: list[str] = field(default_factory=list)
    written_by: set[str] = field(default_factory=set)
    read_by: set[str] = field(default_factory=set)
    namespace: str = ""
    name: str = ""
    columns: list[tuple[str, str]] = field(default_factory=list)  # (name, type) of the schema
    symlinks: list[str] = field(default_factory=list)  # the dataset URIs of its other names
    lifecycle: str | None = None  # the last lifecycleStateChange (CREATE, DROP, ...)
    # output column -> the input columns it comes from: (dataset URI, column, transformation)
    column_lineage: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    # The raw JSON of the facets last folded in: the same bytes again need no parsing.
    seen: _Raw | None = field(default=None, repr=False, compare=False)


@dataclass
class Graph:
    """Jobs, datasets and the edges between them, as the events describe them.

    Attributes:
        events: how many events were folded in.
        jobs: each job's kept runs (its latest ``keep_runs``), in the order of their first
            event; a job seen only as a parent has none.
        earlier: for jobs with more runs than were kept, the others counted by final state.
        datasets: each dataset, by URI, with the facts of its latest facets.
        edges: (dataset, job) for each input and (job, dataset) for each output.
        parents: (parent job, child job) from the parent run facet.
        keep_runs: how many runs were kept per job (None: all).
    """

    events: int = 0
    jobs: dict[str, list[_RunInfo]] = field(default_factory=dict)
    datasets: dict[str, _DatasetInfo] = field(default_factory=dict)
    edges: set[tuple[str, str]] = field(default_factory=set)  # (from node, to node)
    parents: set[tuple[str, str]] = field(default_factory=set)  # (parent job, child job)
    earlier: dict[str, _Earlier] = field(default_factory=dict)
    keep_runs: int | None = KEEP_RUNS

    def run_count(self, job: str) -> int:
        """All the runs of ``job`` seen, kept or not."""
        earlier = self.earlier.get(job)
        return len(self.jobs.get(job, ())) + (earlier.runs if earlier else 0)

    def failed_count(self, job: str) -> int:
        """The runs of ``job`` that ended in FAIL, kept or not."""
        earlier = self.earlier.get(job)
        kept = sum(1 for run in self.jobs.get(job, ()) if run.end_state == "FAIL")
        return kept + (earlier.states.get("FAIL", 0) if earlier else 0)


class _Job:
    """A job while folding: its kept runs, the count of the others, and their recent ids."""

    __slots__ = ("earlier", "folded", "runs")

    def __init__(self) -> None:
        self.runs: dict[str, _RunInfo] = {}
        self.earlier = _Earlier()
        self.folded: dict[str, str] = {}  # run id -> final state, the latest _WINDOW only


def _mapping(value: Any, *keys: str) -> dict[str, Any]:
    """``value[keys[0]][keys[1]]...`` when each step is a JSON object, else an empty one."""
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, dict) else {}


def _transformation(item: dict[str, Any], entry: dict[str, Any]) -> str:
    """A short name of how a column was derived: the input field's transformations (spec
    1.1+, e.g. ``DIRECT/IDENTITY``), else the field's older ``transformationType``."""
    kinds = [
        "/".join(str(t[k]) for k in ("type", "subtype") if isinstance(t.get(k), str))
        for t in item.get("transformations") or ()
        if isinstance(t, dict)
    ]
    named = [k for k in kinds if k]
    if named:
        return ", ".join(dict.fromkeys(named))
    old = entry.get("transformationType")
    return old if isinstance(old, str) else ""


class Folder:
    """Folds events, one at a time, into a :class:`Graph` of bounded size.

    Args:
        keep_runs: the runs kept per job, the latest by start (or first event) time; the
            others are counted by final state. None keeps them all.
    """

    def __init__(self, keep_runs: int | None = KEEP_RUNS) -> None:
        if keep_runs is not None and keep_runs < 1:
            raise ValueError(f"keep_runs must be at least 1 (or None for all), not {keep_runs}")
        self.graph = Graph(keep_runs=keep_runs)
        self._keep = keep_runs
        self._jobs: dict[str, _Job] = {}
        # (namespace, name) -> dataset: the URI is built once per dataset, not once per mention.
        self.by_name: dict[tuple[str, str], _DatasetInfo] = {}

    # ------------------------------------------------------------------ jobs and runs
    def _job(self, key: str) -> _Job:
        job = self._jobs.get(key)
        if job is None:
            job = self._jobs[key] = _Job()
        return job

    def run(
        self,
        job_key: str,
        run_id: str,
        state: str,
        time: str,
        parent: str | None,
        error: str | None,
    ) -> None:
        """Fold one run event's run part: its state, time, parent job and error message."""
        job = self._job(job_key)
        if parent is not None:
            self.graph.parents.add((parent, job_key))
        info = job.runs.get(run_id)
        if info is None:
            before = job.folded.get(run_id)
            if before is not None:  # a late event of a run already folded away: recount it
                if state in ENDED and state != before:
                    counts = job.earlier.states
                    counts[before] -= 1
                    if not counts[before]:
                        del counts[before]
                    counts[state] = counts.get(state, 0) + 1
                    job.folded[run_id] = state
                return
            info = job.runs[run_id] = _RunInfo(run_id, job_key, first_seen=time)
            if self._keep is not None and len(job.runs) > 2 * self._keep:
                self._fold_earlier(job, self._keep)
        states = info.states
        if states and states[-1][0] == state:
            states[-1][1] += 1
        else:
            if len(states) >= _TRANSITIONS:
                # Keep the first transitions and the latest: merge the one after the elided
                # stretch into it.
                middle = _TRANSITIONS // 3
                if states[middle][0] != "…":
                    states[middle] = ["…", states[middle][1]]
                states[middle][1] += states.pop(middle + 1)[1]
            states.append([state, 1])
        if state == "START":
            info.started = time
        elif state in ENDED:
            info.ended = time
            info.end_state = state
        if parent is not None:
            info.parent = parent
        if error is not None:
            info.error = error

    def _fold_earlier(self, job: _Job, keep: int) -> None:
        """Count all but the latest ``keep`` runs of a job by final state, and let them go."""
        ordered = sorted(job.runs.values(), key=lambda r: r.when)
        earlier = job.earlier
        counts = earlier.states
        for info in ordered[: len(ordered) - keep]:
            del job.runs[info.run_id]
            state = info.state
            counts[state] = counts.get(state, 0) + 1
            earlier.runs += 1
            when = info.when or None
            if when is not None:
                if earlier.first is None or when < earlier.first:
                    earlier.first = when
                if earlier.last is None or when > earlier.last:
                    earlier.last = when
            job.folded[info.run_id] = state
            if len(job.folded) > _WINDOW:
                del job.folded[next(iter(job.folded))]

    # ------------------------------------------------------------------ datasets
    def dataset(self, namespace: str, name: str) -> _DatasetInfo:
        """The dataset of that namespace and name (created on first sight)."""
        info = self.by_name.get((namespace, name))
        if info is None:
            key = dataset_uri(namespace, name)
            info = self.graph.datasets.get(key)
            if info is None:
                info = self.graph.datasets[key] = _DatasetInfo(key, namespace=namespace, name=name)
            self.by_name[(namespace, name)] = info
        return info

    @staticmethod
    def facets(
        info: _DatasetInfo,
        schema: Any,
        symlinks: Any,
        lifecycle: Any,
        column_lineage: Any,
    ) -> None:
        """Update a dataset with the facts its facets carry: schema, symlinks, lifecycle state
        and column lineage (each as the facet's JSON object, or None when not given)."""
        fields = [f for f in _mapping(schema).get("fields") or () if isinstance(f, dict)]
        if fields:
            info.fields = [f"{f.get('name')}: {f.get('type', '?')}" for f in fields]
            info.columns = [(str(f.get("name")), str(f.get("type", ""))) for f in fields]
        links = [
            dataset_uri(str(i.get("namespace", "")), str(i.get("name", "")))
            for i in _mapping(symlinks).get("identifiers") or ()
            if isinstance(i, dict)
        ]
        if links:
            info.symlinks = list(dict.fromkeys([*info.symlinks, *links]))
        state = _mapping(lifecycle).get("lifecycleStateChange")
        if isinstance(state, str):
            info.lifecycle = state
        for column, entry in _mapping(column_lineage, "fields").items():
            if not isinstance(entry, dict):
                continue
            info.column_lineage[column] = [
                (
                    dataset_uri(str(i.get("namespace", "")), str(i.get("name", ""))),
                    str(i.get("field", "")),
                    _transformation(i, entry),
                )
                for i in entry.get("inputFields") or ()
                if isinstance(i, dict)
            ]

    @staticmethod
    def statistics(info: _DatasetInfo, stats: Any) -> None:
        """Update a dataset's rows, bytes and files from an outputStatistics facet (each a
        JSON integer; anything else is not shown)."""
        if not isinstance(stats, dict):
            return
        # type() rather than isinstance(): True is an int to isinstance, not a count.
        value = stats.get("rowCount")
        if type(value) is int:
            info.rows = value
        value = stats.get("size")
        if type(value) is int:
            info.bytes = value
        value = stats.get("fileCount")
        if type(value) is int:
            info.files = value

    # ------------------------------------------------------------------ whole events
    def event(self, raw: Mapping[str, Any], kind: Literal["run", "job", "dataset"]) -> None:
        """Fold an event given as its JSON dictionary (``kind``: which of the three it is)."""
        self.graph.events += 1
        if kind == "dataset":
            data = _mapping(raw, "dataset")
            info = self.dataset(str(data.get("namespace", "")), str(data.get("name", "")))
            self._facets_of(info, _mapping(data, "facets"))
            return
        job_data = _mapping(raw, "job")
        job = f"{job_data.get('namespace', '')}/{job_data.get('name', '')}"
        self.graph.jobs.setdefault(job, [])
        if kind == "run":
            run = _mapping(raw, "run")
            run_facets = _mapping(run, "facets")
            parent_job = _mapping(run_facets, "parent", "job")
            parent = (
                f"{parent_job.get('namespace', '')}/{parent_job.get('name', '')}"
                if parent_job
                else None
            )
            message = _mapping(run_facets, "errorMessage").get("message")
            state = raw.get("eventType")
            self.run(
                job,
                str(run.get("runId", "")),
                state if isinstance(state, str) and state else "OTHER",
                str(raw.get("eventTime", "")),
                parent,
                message if isinstance(message, str) else None,
            )
        for source in raw.get("inputs") or ():
            info = self.dataset(str(source.get("namespace", "")), str(source.get("name", "")))
            self._facets_of(info, _mapping(source, "facets"))
            info.read_by.add(job)
        for target in raw.get("outputs") or ():
            info = self.dataset(str(target.get("namespace", "")), str(target.get("name", "")))
            self._facets_of(info, _mapping(target, "facets"))
            self.statistics(info, _mapping(target, "outputFacets").get("outputStatistics"))
            info.written_by.add(job)

    def _facets_of(self, info: _DatasetInfo, facets: dict[str, Any]) -> None:
        if not facets:
            return
        info.seen = None  # what it last had is no longer the raw JSON the fast reader saw
        self.facets(
            info,
            facets.get("schema"),
            facets.get("symlinks"),
            facets.get("lifecycleStateChange"),
            facets.get("columnLineage"),
        )

    def finish(self) -> Graph:
        """The graph: each job's latest runs, the others counted, and the edges."""
        graph = self.graph
        for key, job in self._jobs.items():
            if self._keep is not None and len(job.runs) > self._keep:
                self._fold_earlier(job, self._keep)
            graph.jobs[key] = list(job.runs.values())
            if job.earlier.runs:
                graph.earlier[key] = job.earlier
        for info in graph.datasets.values():
            graph.edges.update((info.key, job) for job in info.read_by)
            graph.edges.update((job, info.key) for job in info.written_by)
        for parent, _child in graph.parents:  # a parent job may have sent no event of its own
            graph.jobs.setdefault(parent, [])
        return graph


def fold_event(folder: Folder, event: Any) -> None:
    """Fold a typed event (a RunEvent, JobEvent or DatasetEvent) through its dictionary."""
    from openlineage_sdk import DatasetEvent, RunEvent

    kind: Literal["run", "job", "dataset"] = (
        "run"
        if isinstance(event, RunEvent)
        else "dataset"
        if isinstance(event, DatasetEvent)
        else "job"
    )
    folder.event(event.to_dict(), kind)


def fold_events(events: Iterable[Any], keep_runs: int | None = KEEP_RUNS) -> Graph:
    """Fold typed events into a graph (see :class:`Folder`)."""
    folder = Folder(keep_runs)
    for event in events:
        fold_event(folder, event)
    return folder.finish()
