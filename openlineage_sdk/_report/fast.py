"""The report's fast reader: a line of JSON straight into the folded graph, with msgspec.

A line is decoded into the structs below, which hold what the report shows and check what
:func:`~openlineage_sdk.read_event` checks of an event's core structure: the types of
``eventTime``, ``producer``, ``schemaURL``, ``eventType``, the run id, the job's and datasets'
namespaces and names, that facet containers are objects, and which kind of event it is. The
rest of the line is checked to be JSON (msgspec refuses malformed JSON and lone surrogates
anywhere) but not read. A line the structs cannot take is left to the caller, which reads it
with ``read_event``: the fast reader never accepts a line for a reason ``read_event`` would not.
"""

from __future__ import annotations

from typing import Any, Final, Literal

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

from openlineage_sdk._report.fold import Folder, _DatasetInfo

__all__ = ["Reader"]

_ABSENT: Final = Raw()


class _Job(Struct):
    namespace: str
    name: str
    facets: Raw = _ABSENT


class _Dataset(Struct):
    namespace: str
    name: str
    facets: Raw = _ABSENT


class _Input(Struct):
    namespace: str
    name: str
    facets: Raw = _ABSENT
    inputFacets: Raw = _ABSENT  # noqa: N815 - the JSON name


class _Output(Struct):
    namespace: str
    name: str
    facets: Raw = _ABSENT
    outputFacets: Raw = _ABSENT  # noqa: N815 - the JSON name


class _Run(Struct):
    runId: str  # noqa: N815 - the JSON name
    facets: Raw = _ABSENT


class _Event(Struct):
    eventTime: str  # noqa: N815 - the JSON name
    producer: str = ""
    schemaURL: str = ""  # noqa: N815 - the JSON name (never null in any kind of event)
    eventType: Literal["START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER"] | None = None  # noqa: N815
    run: _Run | UnsetType = UNSET
    job: _Job | UnsetType = UNSET
    dataset: _Dataset | UnsetType = UNSET
    inputs: list[_Input] | None = None
    outputs: list[_Output] | None = None


# The facets the report shows, each as its JSON value; every other facet is skipped unread.
class _RunFacets(Struct):
    parent: Any = None
    errorMessage: Any = None  # noqa: N815 - the JSON name


class _DatasetFacets(Struct):
    schema: Any = None
    symlinks: Any = None
    lifecycleStateChange: Any = None  # noqa: N815 - the JSON name
    columnLineage: Any = None  # noqa: N815 - the JSON name


class _OutputFacets(Struct):
    outputStatistics: Any = None  # noqa: N815 - the JSON name


_EVENT: Final = msgspec.json.Decoder(_Event)
_RUN_FACETS: Final = msgspec.json.Decoder(_RunFacets)
_DATASET_FACETS: Final = msgspec.json.Decoder(_DatasetFacets)
_OUTPUT_FACETS: Final = msgspec.json.Decoder(_OutputFacets)
_FAILED: Final = (msgspec.DecodeError,)  # ValidationError is a DecodeError


def _container(raw: Raw) -> bool:
    """Whether a facet container is absent, null or an object, as events allow."""
    if not raw:
        return True
    first = memoryview(raw)[0]
    return first == 0x7B or (first == 0x6E and bytes(raw) == b"null")  # "{", "null"


def _named(namespace: str, name: str) -> str:
    return f"{namespace}/{name}"


class Reader:
    """Folds lines of JSON into a :class:`Folder`; :meth:`fold` says when it cannot."""

    def __init__(self, folder: Folder) -> None:
        self._folder = folder

    def _dataset_facets(
        self, info: _DatasetInfo, raw: Raw, pending: list[tuple[_DatasetInfo, bytes, Any]]
    ) -> bool:
        """Note the facets to fold into ``info`` unless they are the ones it last had."""
        data = bytes(raw)
        if data == info.seen or data == b"{}" or data == b"null":
            return True
        try:
            facets = _DATASET_FACETS.decode(data)
        except _FAILED:
            return False
        pending.append((info, data, facets))
        return True

    def fold(self, line: bytes) -> bool:
        """Fold one line; False (having changed nothing) when it must be read the careful way."""
        try:
            event = _EVENT.decode(line)
        except _FAILED:
            return False
        folder = self._folder
        run, job = event.run, event.job
        pending: list[tuple[_DatasetInfo, bytes, Any]] = []
        if isinstance(job, UnsetType):
            dataset = event.dataset
            if not isinstance(run, UnsetType) or isinstance(dataset, UnsetType):
                return False  # a run event without a job, or no kind of event at all
            info = folder.dataset(dataset.namespace, dataset.name)
            raw = dataset.facets
            if raw and (not _container(raw) or not self._dataset_facets(info, raw, pending)):
                return False
            folder.graph.events += 1
            self._apply(pending)
            return True
        if not _container(job.facets):
            return False
        parent: str | None = None
        error: str | None = None
        if not isinstance(run, UnsetType):
            raw = run.facets
            if not _container(raw):
                return False
            if len(raw) > 2 and bytes(raw) != b"null":
                try:
                    facets = _RUN_FACETS.decode(raw)
                except _FAILED:
                    return False
                parent_facet = facets.parent
                if isinstance(parent_facet, dict):
                    parent_job = parent_facet.get("job")
                    if isinstance(parent_job, dict) and parent_job:
                        parent = _named(
                            str(parent_job.get("namespace", "")), str(parent_job.get("name", ""))
                        )
                error_facet = facets.errorMessage
                if isinstance(error_facet, dict):
                    message = error_facet.get("message")
                    if isinstance(message, str):
                        error = message
        job_key = _named(job.namespace, job.name)
        inputs = event.inputs or ()
        outputs = event.outputs or ()
        by_name = folder.by_name
        read = []
        for source in inputs:
            if source.inputFacets and not _container(source.inputFacets):
                return False
            info = by_name.get((source.namespace, source.name)) or folder.dataset(
                source.namespace, source.name
            )
            if source.facets and not self._dataset_facets(info, source.facets, pending):
                return False
            read.append(info)
        written = []
        for target in outputs:
            info = by_name.get((target.namespace, target.name)) or folder.dataset(
                target.namespace, target.name
            )
            if target.facets and not self._dataset_facets(info, target.facets, pending):
                return False
            raw = target.outputFacets
            stats = None
            if len(raw) > 2:
                data = bytes(raw)
                if data != b"null":
                    try:
                        stats = _OUTPUT_FACETS.decode(data).outputStatistics
                    except _FAILED:
                        return False
            elif raw and not _container(raw):
                return False
            written.append((info, stats))
        # Everything read: from here on nothing can fail.
        folder.graph.events += 1
        graph_jobs = folder.graph.jobs
        if job_key not in graph_jobs:
            graph_jobs[job_key] = []
        if not isinstance(run, UnsetType):
            folder.run(
                job_key, run.runId, event.eventType or "OTHER", event.eventTime, parent, error
            )
        self._apply(pending)
        for info in read:
            info.read_by.add(job_key)
        for info, stats in written:
            if stats is not None:
                folder.statistics(info, stats)
            info.written_by.add(job_key)
        return True

    def _apply(self, pending: list[tuple[_DatasetInfo, bytes, Any]]) -> None:
        for info, data, facets in pending:
            Folder.facets(
                info,
                facets.schema,
                facets.symlinks,
                facets.lifecycleStateChange,
                facets.columnLineage,
            )
            info.seen = data
