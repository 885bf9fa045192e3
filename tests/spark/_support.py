"""Reading what the adapter emitted: runs, their events, and the facets tests look at."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openlineage_sdk import OutputDataset, RunEvent

PRODUCER = "https://example.com/tests/spark"


def strict_problems(text: str) -> list[Any]:
    """Strict validation's problems with an event, but for the agent's ``dataSource.uri``.

    The adapter writes a local file system's data source URI as the JVM agent does, ``file``,
    which is not an RFC 3986 URI (see ``openlineage_sdk.spark.events._facets._datasource``); strict
    validation reports that field, and nothing else may be reported.
    """
    from openlineage_sdk import validate_event

    return [
        p
        for p in validate_event(text, strict=True, formats=True)
        if not (
            p.rule == "format"
            and p.path.endswith(".facets.dataSource.uri")
            and "'file'" in p.message
        )
    ]


NAMESPACE = "etl"


def files_of(path: Path) -> list[Path]:
    """The data files Spark wrote under ``path`` (not its ``_SUCCESS`` or checksum files)."""
    return [p for p in path.rglob("*") if p.is_file() and not p.name.startswith((".", "_"))]


def bytes_of(files: list[Path]) -> int:
    return sum(os.path.getsize(f) for f in files)


@dataclass
class RunEvents:
    """The events of one run, in the order they were emitted."""

    events: list[RunEvent]

    @property
    def types(self) -> list[str | None]:
        return [e.event_type for e in self.events]

    @property
    def start(self) -> RunEvent:
        assert self.events[0].event_type == "START", self.types
        return self.events[0]

    @property
    def end(self) -> RunEvent:
        assert self.events[-1].event_type in ("COMPLETE", "FAIL", "ABORT"), self.types
        return self.events[-1]

    @property
    def job_name(self) -> str:
        return self.events[0].job.name

    @property
    def run_id(self) -> str:
        return self.events[0].run.run_id

    def output(self) -> OutputDataset:
        """The one output, as the run's last event carries it."""
        outputs = self.end.outputs or []
        assert len(outputs) == 1, outputs
        return outputs[0]

    def output_json(self) -> dict[str, Any]:
        data: dict[str, Any] = self.output().to_dict()
        return data

    def input_only(self) -> bool:
        """Whether the run reported inputs and never an output (a read)."""
        return all(not e.outputs for e in self.events) and any(e.inputs for e in self.events)

    def job_type(self) -> str | None:
        facets = self.events[0].job.facets
        facet = facets.job_type if facets is not None else None
        return facet.job_type if facet is not None else None


class Captured:
    """The events a test's client emitted, grouped by run."""

    def __init__(self, memory: Any) -> None:
        self.memory = memory

    def events(self) -> list[RunEvent]:
        events = self.memory.events
        assert all(isinstance(e, RunEvent) for e in events)
        return list(events)

    def runs(self) -> list[RunEvents]:
        """Every run, in the order of its first event."""
        grouped: dict[str, list[RunEvent]] = {}
        for event in self.events():
            grouped.setdefault(event.run.run_id, []).append(event)
        return [RunEvents(events) for events in grouped.values()]

    def write_runs(self) -> list[RunEvents]:
        """The runs of writes (``jobType`` ``SQL_JOB``, not a read's run without outputs)."""
        return [r for r in self.runs() if r.job_type() == "SQL_JOB" and not r.input_only()]

    def read_runs(self) -> list[RunEvents]:
        """The runs of queries that ended in an action: inputs and no output."""
        return [r for r in self.runs() if r.input_only()]

    def only_write(self) -> RunEvents:
        runs = self.write_runs()
        assert len(runs) == 1, [r.job_name for r in runs]
        return runs[0]

    def clear(self) -> None:
        self.memory.clear()
