"""The adapter's events against the JVM agent's own expected events (tests/data/jvm-spark).

Each runnable script of the agent's PySpark container tests is performed by the project's own
scenario (``tests/spark/jvm_scenarios.py``) on a Spark driver of its own, in a subprocess, with
every path under a private root; the root is taken out of the events before matching. Matching
is the agent tests' rule (see ``tests/data/jvm-spark/README.md``): every field of an expected
file must be in an emitted event with an equal value, arrays in any order and possibly longer.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.spark.jvm_scenarios import SCENARIOS

DATA = Path(__file__).resolve().parent.parent / "data" / "jvm-spark"
CASES = json.loads((DATA / "cases.json").read_text())["cases"]
OUT_OF_SCOPE_FACETS = ("spark_unknown", "spark.logicalPlan", "debug")
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


def _in_scope(expected: Any) -> Any:
    """The expected event without the agent-internal facets the README leaves out of scope."""
    if isinstance(expected, dict):
        return {k: _in_scope(v) for k, v in expected.items() if k not in OUT_OF_SCOPE_FACETS}
    if isinstance(expected, list):
        return [_in_scope(v) for v in expected]
    return expected


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


def _connect_runnable() -> list[dict[str, Any]]:
    return [c for c in _runnable() if c["script"] not in CLASSIC_ONLY]


def _perform(
    base: Path, cases: list[dict[str, Any]], mode: str
) -> dict[str, tuple[list[Any], str]]:
    """Every scenario's events (the private root taken out) and its output, by script."""

    def run(case: dict[str, Any]) -> tuple[str, tuple[list[Any], str]]:
        script = case["script"]
        root = base / script.removesuffix(".py")
        root.mkdir()
        events = root / "events.jsonl"
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "tests.spark.jvm_scenarios",
                script,
                str(root),
                str(events),
                "local[1]",
                mode,
            ],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=1200,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-4000:]
        text = events.read_text() if events.exists() else ""
        text = text.replace(str(root), "")
        return script, ([json.loads(line) for line in text.splitlines() if line], done.stdout)

    with ThreadPoolExecutor(max_workers=3) as pool:
        return dict(pool.map(run, cases))


@pytest.fixture(scope="module")
def emitted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[list[Any], str]]:
    """Every scenario's events in classic PySpark, by script."""
    return _perform(tmp_path_factory.mktemp("jvm"), _runnable(), "classic")


@pytest.fixture(scope="module")
def emitted_connect(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[list[Any], str]]:
    """The scenarios without RDDs, their statements sent through a Spark Connect client."""
    return _perform(tmp_path_factory.mktemp("jvm-connect"), _connect_runnable(), "connect")


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
        expected = _in_scope(json.loads((DATA / "expected" / name).read_text()))
        if not descriptions:
            expected = _without_descriptions(expected)
        start = 0 if name in ORDER_DIFFERENCES else position
        found = next((i for i in range(start, len(events)) if matches(expected, events[i])), None)
        summary = [(e["eventType"], e["job"]["name"]) for e in events]
        assert found is not None, f"{name} matches no event after #{start}: {summary}"
        if name not in ORDER_DIFFERENCES:
            position = found + 1


@pytest.mark.parametrize(("script", "group"), _params(_runnable(), KNOWN_DIFFERENCES))
def test_expected_events_match(
    emitted: dict[str, tuple[list[Any], str]], script: str, group: int
) -> None:
    """Classic PySpark: every expected file of the group, in order."""
    _match_group(emitted[script][0], script, group)


@pytest.mark.connect
@pytest.mark.parametrize(
    ("script", "group"),
    _params(_connect_runnable(), {**KNOWN_DIFFERENCES, **CONNECT_DIFFERENCES}),
)
def test_expected_events_match_under_connect(
    emitted_connect: dict[str, tuple[list[Any], str]], script: str, group: int
) -> None:
    """Spark Connect, which the JVM agent cannot run under: the same files, in order."""
    _match_group(emitted_connect[script][0], script, group)


@pytest.mark.connect
def test_column_lineage_under_connect_matches_but_for_descriptions(
    emitted_connect: dict[str, tuple[list[Any], str]],
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


def test_create_table_job_names(emitted: dict[str, tuple[list[Any], str]]) -> None:
    """other_checks create_table_job_names: START and COMPLETE share one name."""
    events, _ = emitted["spark_create_table.py"]
    names = {e["job"]["name"] for e in events if e["eventType"] in ("START", "COMPLETE")}
    assert len(names) == 1, names
    assert next(iter(names)).endswith("create_table_test"), names


def test_facets_disable_regex(emitted: dict[str, tuple[list[Any], str]]) -> None:
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


def test_rdd_with_parquet_stats(emitted: dict[str, tuple[list[Any], str]]) -> None:
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


def test_script_prints_spark_is_fine(emitted: dict[str, tuple[list[Any], str]]) -> None:
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
