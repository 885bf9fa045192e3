"""The adapter's events against the JVM agent's own expected events (tests/data/jvm-spark).

Each runnable script of the agent's PySpark container tests is performed by the project's own
scenario (``tests/spark/jvm_scenarios.py``) on a SparkContext of its own, in a subprocess, with
every path under a private root; the root is taken out of the events before matching. Matching
is the agent tests' rule (see ``tests/data/jvm-spark/README.md``): every field of an expected
file must be in an emitted event with an equal value, arrays in any order and possibly longer.

Only the scenarios the selected tests read are performed, all at once when the first of those
tests asks for its events: a few subprocesses share them out, each performing its share one
after another on one driver JVM. Selecting one test performs its one scenario.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from tests.spark import _recorder
from tests.spark._support import (
    CONNECT_IN_PROCESS,
    in_scope,
    jvm_cases,
    matches,
    skip_without_spark,
)
from tests.spark._versions import connect_server_missing
from tests.spark.jvm_scenarios import SCENARIOS, Performance

DATA = Path(__file__).resolve().parent.parent / "data" / "jvm-spark"
CASES = jvm_cases()
REPO = Path(__file__).resolve().parent.parent.parent

# What differs from the agent, for the files that do not match yet; each reason says what.
KNOWN_DIFFERENCES: dict[str, str] = {}


# Files matched anywhere among the events rather than in the group's order, and why.
ORDER_DIFFERENCES: dict[str, str] = {
    "pysparkCTASWithColumnLineageEnd.json": "the agent sends a second COMPLETE of the CTAS, "
    "after LOAD DATA's events (its listener bus reports the CTAS late); the adapter sends the "
    "CTAS's one COMPLETE, which matches this file too, before LOAD DATA runs",
}

# Runnable scripts without a scenario yet, each with what the adapter lacks for it.
MISSING_SCENARIOS: dict[str, str] = {
    "spark_input_only_rdd.py": "the script runs no action: the agent's map_partitions run is "
    "Spark's own Parquet schema-inference job inside spark.read.parquet, which only a JVM "
    "SparkListener sees (a listener in Python would be called back for every task)",
}


# ------------------------------------------------------------------------------ matching


def test_matching_rule() -> None:
    """The rule itself: fields, arrays in any order, placeholders; and what must not match."""
    event = {"a": [{"x": 1}, {"y": "s"}], "b": "text", "n": 3}
    assert matches({"a": [{"y": "s"}, {"x": 1}]}, event)
    assert matches({"b": "${json-unit.any-string}", "n": "${json-unit.any-number}"}, event)
    assert matches({"b": "${json-unit.regex}te.t"}, event)
    assert matches({"a": []}, event)
    assert not matches({"a": [{"x": 2}]}, event)
    assert not matches({"a": [{"x": 1}, {"x": 1}]}, event)
    assert not matches({"c": 1}, event)
    assert not matches({"n": "${json-unit.any-string}"}, event)
    assert not matches({"b": "${json-unit.regex}te"}, event)


# ------------------------------------------------------------------------------ scenarios


def _runnable() -> list[dict[str, Any]]:
    return [c for c in CASES if c["runs_locally"] and c["script"] in SCENARIOS]


# Scripts that use RDDs or the SparkContext, which a Spark Connect client does not have.
CLASSIC_ONLY = frozenset(
    {"spark_rdd_to_table.py", "spark_rdd_with_parquet.py", "spark_single_input_rdd.py"}
)

# What differs under Spark Connect only, for the files that do not match there yet.
CONNECT_DIFFERENCES: dict[str, str] = {
    "pysparkCLLStart.json": "descriptionsEnabled: the agent's description of a transformation "
    "is Spark's SQL text of an expression (t1.a AS ident), which a Connect client cannot read: "
    "the server's EXPLAIN prints expressions in their debug form (a#12 AS ident#15), without "
    "qualifiers, and string literals without quotes (concat(b#13, test)); the adapter refuses "
    "the conf there and writes none. All else matches: "
    "test_column_lineage_under_connect_matches_but_for_descriptions",
    "pysparkCLLEnd.json": "as the START: the descriptions",
}


# Scripts whose statements tests/spark/test_connect_jvm_expected.py performs under Spark
# Connect on the test driver, matching the same expected files by this rule as well as its own:
# they are not performed under Connect again here.
def _connect_runnable() -> list[dict[str, Any]]:
    return [
        c
        for c in _runnable()
        if c["script"] not in CLASSIC_ONLY and c["script"] not in CONNECT_IN_PROCESS
    ]


# How many subprocesses share the scenarios out: one per core (each runs one local[1] driver).
WORKERS = max(1, min(3, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 2))

Key = tuple[str, str]  # (script, mode)


class Performed:
    """The scenarios' events and output by script and mode, performed when first asked for.

    The first request performs every scenario the selected tests read (``wanted``), shared out
    among ``WORKERS`` subprocesses; a scenario asked for later that was not wanted is performed
    then, alone.
    """

    def __init__(self, base: Path, wanted: list[Key]) -> None:
        self._base = base
        self._wanted = wanted
        self._done: dict[Key, tuple[list[Any], str]] = {}
        self._errors: dict[Key, str] = {}
        self._batches = 0

    def get(self, script: str, mode: str) -> tuple[list[Any], str]:
        key = (script, mode)
        if key not in self._done and key not in self._errors:
            todo = [k for k in self._wanted if k not in self._done and k not in self._errors]
            self._perform(todo if key in todo else [*todo, key])
        if key in self._errors:
            pytest.fail(f"{script} ({mode}) failed:\n{self._errors[key]}", pytrace=False)
        return self._done[key]

    def _perform(self, todo: list[Key]) -> None:
        # Longest first onto the least loaded subprocess: a Hive catalog and a Connect server
        # each cost about as much as the statements themselves.
        def cost(key: Key) -> int:
            return 1 + SCENARIOS[key[0]].hive + (key[1] == "connect")

        shares: list[list[Key]] = [[] for _ in range(min(WORKERS, len(todo)))]
        for key in sorted(todo, key=cost, reverse=True):
            min(shares, key=lambda share: sum(map(cost, share))).append(key)
        first = self._batches + 1
        self._batches += len(shares)
        folders = [self._base / f"driver{first + n}" for n in range(len(shares))]
        with ThreadPoolExecutor(max_workers=len(shares)) as pool:
            list(pool.map(self._perform_share, shares, folders))

    def _perform_share(self, share: list[Key], folder: Path) -> None:
        """One subprocess performs ``share``, one scenario after another on one driver JVM."""
        folder.mkdir()
        plan = []
        for script, mode in share:
            root = self._base / f"{mode}-{script.removesuffix('.py')}"
            root.mkdir()
            plan.append(Performance(script, str(root), str(root / "events.jsonl"), mode=mode))
        (folder / "plan.json").write_text(json.dumps([asdict(job) for job in plan]))
        try:
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "tests.spark.jvm_scenarios",
                    "--plan",
                    str(folder / "plan.json"),
                ],
                cwd=folder,
                env={**os.environ, "PYTHONPATH": str(REPO)},
                capture_output=True,
                text=True,
                timeout=1200,
                check=False,
            )
            ended = f"exit {done.returncode}: {done.stderr[-4000:]}"
        except subprocess.TimeoutExpired as timeout:
            ended = f"{timeout}: {str(timeout.stderr or '')[-4000:]}"
        for key, job in zip(share, plan, strict=True):
            root = Path(job.root)
            error, events, printed = root / "error.txt", Path(job.events), root / "stdout.txt"
            if error.exists():
                self._errors[key] = error.read_text()
            elif not printed.exists():  # the subprocess ended before the scenario did
                self._errors[key] = ended
            else:
                text = events.read_text().replace(str(root), "") if events.exists() else ""
                lines = [json.loads(line) for line in text.splitlines() if line]
                self._done[key] = (lines, printed.read_text())
                _recorder.record_all(lines, test_id=f"jvm_scenarios::{key[1]}::{key[0]}")


class _ByScript(Mapping[str, tuple[list[Any], str]]):
    """One mode's scenarios by script: their events (the private root taken out) and output."""

    def __init__(self, performed: Performed, mode: str, scripts: list[str]) -> None:
        self._performed, self._mode, self._scripts = performed, mode, scripts

    def __getitem__(self, script: str) -> tuple[list[Any], str]:
        return self._performed.get(script, self._mode)

    def __iter__(self) -> Iterator[str]:
        return iter(self._scripts)

    def __len__(self) -> int:
        return len(self._scripts)


FIXTURE_MODES = {"emitted": "classic", "emitted_connect": "connect"}


def _wanted(items: list[pytest.Item]) -> list[Key]:
    """The scenarios the selected tests of this module read: their ``script`` parameter, or the
    scripts their ``scenarios`` mark names, in each mode whose fixture they use."""
    wanted: list[Key] = []
    for item in items:
        if item.path != Path(__file__):
            continue
        callspec = getattr(item, "callspec", None)
        if callspec is not None and "script" in callspec.params:
            scripts = [callspec.params["script"]]
        else:
            scripts = [s for mark in item.iter_markers("scenarios") for s in mark.args]
        fixtures = getattr(item, "fixturenames", ())
        for fixture, mode in FIXTURE_MODES.items():
            if mode == "connect" and connect_server_missing() is not None:
                continue  # its tests skip (``emitted_connect``)
            if fixture in fixtures:
                wanted.extend((s, mode) for s in scripts if (s, mode) not in wanted)
    return wanted


@pytest.fixture(scope="module")
def performed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Performed:
    skip_without_spark()
    return Performed(tmp_path_factory.mktemp("jvm"), _wanted(request.session.items))


@pytest.fixture
def emitted(performed: Performed) -> Mapping[str, tuple[list[Any], str]]:
    """The scenarios' events in classic PySpark, by script."""
    return _ByScript(performed, "classic", [c["script"] for c in _runnable()])


@pytest.fixture
def emitted_connect(performed: Performed) -> Mapping[str, tuple[list[Any], str]]:
    """The scenarios without RDDs, their statements sent through a Spark Connect client."""
    reason = connect_server_missing()
    if reason is not None:
        pytest.skip(reason)
    return _ByScript(performed, "connect", [c["script"] for c in _connect_runnable()])


def _params(cases: list[dict[str, Any]], known_differences: dict[str, str]) -> list[Any]:
    params = []
    for case in cases:
        for number, group in enumerate(case["ordered_groups"]):
            names = [e["expected"] for e in group if "Running" not in e["expected"]]
            known = [known_differences[n] for n in names if n in known_differences]
            marks = [pytest.mark.xfail(reason="; ".join(known), strict=True)] if known else []
            params.append(
                pytest.param(case["script"], number, id=f"{case['script']}-{number}", marks=marks)
            )
    return params


def _without_descriptions(expected: Any) -> Any:
    """The expected event without the transformations' ``description`` texts."""
    if isinstance(expected, dict):
        return {k: _without_descriptions(v) for k, v in expected.items() if k != "description"}
    if isinstance(expected, list):
        return [_without_descriptions(v) for v in expected]
    return expected


def _match_group(events: list[Any], script: str, group: int, *, descriptions: bool = True) -> None:
    """Every expected file of the group matches an emitted event, in the group's order."""
    case = next(c for c in CASES if c["script"] == script)
    position = 0
    for item in case["ordered_groups"][group]:
        name = item["expected"]
        if "Running" in name:
            continue  # RUNNING events are the agent's own (README)
        expected = in_scope(json.loads((DATA / "expected" / name).read_text()))
        if not descriptions:
            expected = _without_descriptions(expected)
        start = 0 if name in ORDER_DIFFERENCES else position
        found = next((i for i in range(start, len(events)) if matches(expected, events[i])), None)
        summary = [(e["eventType"], e["job"]["name"]) for e in events]
        assert found is not None, f"{name} matches no event after #{start}: {summary}"
        if name not in ORDER_DIFFERENCES:
            position = found + 1


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.parametrize(("script", "group"), _params(_runnable(), KNOWN_DIFFERENCES))
def test_expected_events_match(
    emitted: Mapping[str, tuple[list[Any], str]], script: str, group: int
) -> None:
    """Classic PySpark: every expected file of the group, in order."""
    _match_group(emitted[script][0], script, group)


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.connect
@pytest.mark.parametrize(
    ("script", "group"),
    _params(_connect_runnable(), {**KNOWN_DIFFERENCES, **CONNECT_DIFFERENCES}),
)
def test_expected_events_match_under_connect(
    emitted_connect: Mapping[str, tuple[list[Any], str]], script: str, group: int
) -> None:
    """Spark Connect, which the JVM agent cannot run under: the same files, in order."""
    _match_group(emitted_connect[script][0], script, group)


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.connect
@pytest.mark.scenarios("spark_cll.py")
def test_column_lineage_under_connect_matches_but_for_descriptions(
    emitted_connect: Mapping[str, tuple[list[Any], str]],
) -> None:
    """spark_cll.py under Connect: the column lineage of the CTAS is the agent's, field for
    field, the FILTERs the optimizer infers from the join included (the CTAS's query is
    explained on its own for its optimized plan); only the descriptions are left out (see
    CONNECT_DIFFERENCES)."""
    events = emitted_connect["spark_cll.py"][0]
    _match_group(events, "spark_cll.py", 0, descriptions=False)
    complete = next(
        e
        for e in events
        if e["eventType"] == "COMPLETE" and e["outputs"] and "tbl1" in e["outputs"][0]["name"]
    )
    fields = complete["outputs"][0]["facets"]["columnLineage"]["fields"]
    source1_a = next(
        f
        for f in fields["ident"]["inputFields"]
        if f["name"].endswith("cll_source1") and f["field"] == "a"
    )
    # cll_source1 has no WHERE: its FILTER is the one the optimizer infers (t1.a > 1).
    assert {"type": "INDIRECT", "subtype": "FILTER", "masking": False} in source1_a[
        "transformations"
    ]


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.scenarios("spark_create_table.py")
def test_create_table_job_names(emitted: Mapping[str, tuple[list[Any], str]]) -> None:
    """other_checks create_table_job_names: START and COMPLETE share one name."""
    events, _ = emitted["spark_create_table.py"]
    names = {e["job"]["name"] for e in events if e["eventType"] in ("START", "COMPLETE")}
    assert len(names) == 1, names
    assert next(iter(names)).endswith("create_table_test"), names


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.scenarios("spark_facets_disable.py", "spark_hive.py")
def test_facets_disable_regex(emitted: Mapping[str, tuple[list[Any], str]]) -> None:
    """other_checks facets_disable_regex: no event names a facet the confs disable.

    The agent's test asks that one request matches its regex; here every event must, and the
    statements must have been reported at all.
    """
    events, _ = emitted["spark_facets_disable.py"]
    assert len(events) >= 8, [(e["eventType"], e["job"]["name"]) for e in events]
    regex = re.compile(r"^((?!(spark_unknown|spark.logicalPlan|dataSource)).)*$")
    for event in events:
        assert regex.match(json.dumps(event)), event
    # Not vacuous: without the confs, the same statements carry a dataSource facet.
    others, _ = emitted["spark_hive.py"]
    assert any("dataSource" in json.dumps(e) for e in others)


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.scenarios("spark_rdd_with_parquet.py")
def test_rdd_with_parquet_stats(emitted: Mapping[str, tuple[list[Any], str]]) -> None:
    """other_checks rdd_with_parquet_stats: rdd_c's write counts 4 rows; no input statistics."""
    events, _ = emitted["spark_rdd_with_parquet.py"]
    rows = [
        o["outputFacets"]["outputStatistics"]["rowCount"]
        for e in events
        for o in e["outputs"]
        if "rdd_c" in o["name"] and "outputStatistics" in (o.get("outputFacets") or {})
    ]
    assert rows == [4]
    assert not any(
        "inputStatistics" in (i.get("inputFacets") or {})
        for e in events
        for i in e["inputs"]
        if "rdd_c" in i["name"]
    )


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.scenarios("spark_test_failures.py")
def test_script_prints_spark_is_fine(emitted: Mapping[str, tuple[list[Any], str]]) -> None:
    """other_checks script_prints_spark_is_fine: the statements and the script run through."""
    events, stdout = emitted["spark_test_failures.py"]
    assert "Spark is fine!" in stdout
    assert any(e["job"]["name"].endswith(".failure_test_failure_test") for e in events)


@pytest.mark.parametrize(
    "script",
    [
        pytest.param(
            c["script"],
            marks=pytest.mark.xfail(
                c["script"] in MISSING_SCENARIOS,
                reason=MISSING_SCENARIOS.get(c["script"], ""),
                run=False,
            ),
        )
        for c in CASES
        if c["runs_locally"]
    ],
)
def test_every_locally_runnable_script_has_a_scenario(script: str) -> None:
    assert script in SCENARIOS
