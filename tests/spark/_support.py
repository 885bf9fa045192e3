"""Reading what the adapter emitted: runs, their events, and the facets tests look at."""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import OutputDataset, RunEvent

PRODUCER = "https://example.com/tests/spark"

# The JVM agent's expected events, vendored with their licence (see tests/data/jvm-spark/README.md).
JVM_SPARK = Path(__file__).resolve().parent.parent / "data" / "jvm-spark"


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


def pyspark_missing() -> str | None:
    """Why pyspark cannot be imported here, or ``None``."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed (the [spark] extra and the spark dependency group)"
    return None


def spark_missing() -> str | None:
    """Why no Spark driver can start here (no pyspark, no ``java`` on the PATH), or ``None``."""
    if shutil.which("java") is None:
        return pyspark_missing() or "no java on the PATH: a Spark driver needs Java 17"
    return pyspark_missing()


def skip_without_spark() -> None:
    """Skip the calling test or fixture, with the reason, where no Spark driver can start."""
    reason = spark_missing()
    if reason is not None:
        pytest.skip(reason)


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


def _finished() -> None:
    """Wait for the events of short INSERTs, which go out once their calls returned."""
    from openlineage_sdk.spark._flow import wait_finished

    assert wait_finished(60.0), "the adapter did not finish its executions in a minute"


class Captured:
    """The events a test's client emitted, grouped by run."""

    def __init__(self, memory: Any) -> None:
        self.memory = memory

    def events(self) -> list[RunEvent]:
        _finished()
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
        """Forget the events so far, those still being finished included."""
        _finished()
        self.memory.clear()


# ------------------------------------------------------------------------------ the JVM agent's events

# The scripts whose statements tests/spark/test_connect_jvm_expected.py performs under Spark
# Connect on the test driver; test_jvm_agent_events.py performs them in classic PySpark only.
CONNECT_IN_PROCESS = frozenset(
    {
        "spark_create_table.py",
        "spark_drop_table.py",
        "spark_truncate_table.py",
        "spark_alter_table.py",
        "spark_hadoop_fs_relation.py",
    }
)

# The agent-internal facets tests/data/jvm-spark/README.md leaves out of scope.
OUT_OF_SCOPE_FACETS = ("spark_unknown", "spark.logicalPlan", "debug")


def jvm_cases() -> list[dict[str, Any]]:
    """``cases.json``'s cases: each agent test script, its confs and its expected files."""
    cases: list[dict[str, Any]] = json.loads((JVM_SPARK / "cases.json").read_text())["cases"]
    return cases


def matches(expected: Any, actual: Any) -> bool:
    """MockServer's "only matching fields": ``expected``'s fields are all in ``actual``."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return False
        return all(key in actual and matches(value, actual[key]) for key, value in expected.items())
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return False
        return _match_items(expected, actual, set())
    if isinstance(expected, str):
        if expected == "${json-unit.any-string}":
            return isinstance(actual, str)
        if expected == "${json-unit.any-number}":
            return isinstance(actual, int | float) and not isinstance(actual, bool)
        if expected.startswith("${json-unit.regex}"):
            pattern = expected[len("${json-unit.regex}") :]
            return isinstance(actual, str) and re.fullmatch(pattern, actual) is not None
    return bool(expected == actual) and type(expected) is type(actual)


def _match_items(expected: list[Any], actual: list[Any], used: set[int]) -> bool:
    """Each expected item matches a different actual item (any order, extra items allowed)."""
    if not expected:
        return True
    first, rest = expected[0], expected[1:]
    for index, item in enumerate(actual):
        if (
            index not in used
            and matches(first, item)
            and _match_items(rest, actual, used | {index})
        ):
            return True
    return False


def in_scope(expected: Any) -> Any:
    """The expected event without the agent-internal facets the README leaves out of scope."""
    if isinstance(expected, dict):
        return {k: in_scope(v) for k, v in expected.items() if k not in OUT_OF_SCOPE_FACETS}
    if isinstance(expected, list):
        return [in_scope(v) for v in expected]
    return expected
