"""Under Spark Connect, SQL statements give the events the JVM agent gives in classic Spark.

The JVM ``openlineage-spark`` agent cannot run under Spark Connect. Its own container tests
(``../shared/jvm-spark-tests``: expected events, the scripts they come from, and ``cases.json``)
describe what a user of the agent sees for each statement; here the project's own scenario code
performs the statements of each script that needs no RDD, SparkContext or Hive SerDe through a
Spark Connect session, and the events must match the expected files by the rule of that folder's
README: every field of the file is in the event with an equal value, arrays in any order and with
extra items allowed, placeholders for any string, number or pattern, with no tolerance of our
own (the ``file`` data source URI and the empty arrays are the agent's). RUNNING events are the
agent's own and out of scope. The files must also match by ``tests/spark/test_jvm_agent_events.py``'s
form of the rule (each array item of a file matches a different item of the event, values of
the same JSON type), which leaves these scripts to this test under Connect.

Mapping: the scripts' paths (``/tmp/drop_test``, ...) are the agent's warehouse folders; here
every table lives in the test driver's warehouse, so those roots are mapped to it (also in the
job names' table part, the path's last two folders). The scripts' application name is the
session's, set for the test as the script's driver sets it (one driver serves every test).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.spark import _support
from tests.spark._support import CONNECT_IN_PROCESS, in_scope
from tests.spark.jvm_scenarios import SCENARIOS as PERFORMED_SCENARIOS

pytestmark = pytest.mark.connect

# The JVM agent's expected events, vendored with their licence (see tests/data/jvm-spark/README.md).
JVM_TESTS = Path(__file__).resolve().parents[1] / "data" / "jvm-spark"

if not (JVM_TESTS / "cases.json").exists():  # pragma: no cover - the data comes with the repo
    pytest.skip("the JVM agent's expected events are not here", allow_module_level=True)

# What each script does, as this project's own statements; ``root`` is the script's warehouse.
SCENARIOS: dict[str, dict[str, Any]] = {
    "spark_create_table.py": {
        "root": "/tmp/create_test",
        "tables": ["create_table_test"],
        "statements": ["CREATE TABLE create_table_test (a string, b string)"],
    },
    "spark_drop_table.py": {
        "root": "/tmp/drop_test",
        "tables": ["drop_table_test"],
        "statements": [
            "CREATE TABLE drop_table_test (a string, b string)",
            "DROP TABLE drop_table_test",
        ],
    },
    "spark_truncate_table.py": {
        "root": "/tmp/truncate_test",
        "tables": ["truncate_table_test"],
        "statements": [
            "CREATE TABLE truncate_table_test (a string, b string)",
            "TRUNCATE TABLE truncate_table_test",
        ],
    },
    "spark_alter_table.py": {
        "root": "/tmp/alter_test",
        "tables": ["alter_table_test", "alter_table_test_new"],
        "statements": [
            "CREATE TABLE alter_table_test (a string, b string)",
            "ALTER TABLE alter_table_test ADD COLUMNS (c string, d string)",
            "ALTER TABLE alter_table_test RENAME TO alter_table_test_new",
        ],
    },
    "spark_hadoop_fs_relation.py": {
        "root": "/tmp/warehouse",
        "tables": ["test", "target"],
        "statements": [
            "CREATE TABLE IF NOT EXISTS test (key INT, value STRING) USING parquet",
            "CREATE TABLE IF NOT EXISTS target (key INT, value STRING) USING parquet",
            "INSERT INTO test VALUES (1, 'a'), (2, 'b'), (3, 'c')",
            "INSERT INTO target SELECT * from test WHERE key > 1",
        ],
    },
}


def _cases() -> list[dict[str, Any]]:
    cases = json.loads((JVM_TESTS / "cases.json").read_text())["cases"]
    return [c for c in cases if c["script"] in SCENARIOS]


_ANY_STRING = "${json-unit.any-string}"
_ANY_NUMBER = "${json-unit.any-number}"
_REGEX = "${json-unit.regex}"


def matches(expected: Any, actual: Any, path: tuple[str, ...] = ()) -> list[str]:
    """Why ``actual`` does not match ``expected`` by the README's rule; empty when it does."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{'.'.join(path)}: expected an object"]
        problems: list[str] = []
        for key, value in expected.items():
            if key not in actual:
                problems.append(f"{'.'.join((*path, key))}: missing")
            else:
                problems.extend(matches(value, actual[key], (*path, key)))
        return problems
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{'.'.join(path)}: expected an array"]
        problems = []
        for index, item in enumerate(expected):
            if not any(not matches(item, candidate, path) for candidate in actual):
                problems.append(f"{'.'.join(path)}[{index}]: no match for {json.dumps(item)}")
        return problems
    if isinstance(expected, str):
        if expected == _ANY_STRING:
            return [] if isinstance(actual, str) else [f"{'.'.join(path)}: not a string"]
        if expected == _ANY_NUMBER:
            ok = isinstance(actual, (int, float))
            return [] if ok else [f"{'.'.join(path)}: not a number"]
        if expected.startswith(_REGEX):
            ok = isinstance(actual, str) and re.fullmatch(expected[len(_REGEX) :], actual)
            return [] if ok else [f"{'.'.join(path)}: {actual!r} !~ {expected}"]
    if expected != actual:
        return [f"{'.'.join(path)}: {actual!r} != {expected!r}"]
    return []


def _mapped(expected: dict[str, Any], root: str, warehouse: Path) -> dict[str, Any]:
    text = json.dumps(expected).replace(root, str(warehouse))
    mapped: dict[str, Any] = json.loads(text)
    job = mapped.get("job", {})
    name = job.get("name")
    if isinstance(name, str):
        prefix = _REGEX if name.startswith(_REGEX) else ""
        body = name[len(prefix) :]
        app, _, rest = body.partition(".")
        rest = rest.replace(f"{Path(root).name}_", f"{warehouse.name}_")
        job["name"] = f"{prefix}{app}.{rest}" if rest else f"{prefix}{app}"
    return mapped


@pytest.fixture
def clean_tables(spark_connect: Any) -> Iterator[None]:
    names = [t for s in SCENARIOS.values() for t in s["tables"]]
    for name in names:
        spark_connect.sql(f"DROP TABLE IF EXISTS {name}")
    yield
    for name in names:
        spark_connect.sql(f"DROP TABLE IF EXISTS {name}")


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c["script"])
def test_statements_under_connect_match_the_jvm_agents_events(
    spark_connect: Any, spark_root: Path, memory: Any, clean_tables: None, case: dict[str, Any]
) -> None:
    from openlineage_sdk.client import OpenLineage
    from openlineage_sdk.spark import install, uninstall

    scenario = SCENARIOS[case["script"]]
    warehouse = spark_root / "warehouse"
    app = PERFORMED_SCENARIOS[case["script"]].app
    assert app is not None
    previous_app = spark_connect.conf.get("spark.app.name")
    spark_connect.conf.set("spark.app.name", app)  # the session's, as the script's driver's
    try:
        with OpenLineage(
            transport=memory, namespace=case["job_namespace"], raise_on_error=True
        ) as client:
            install(spark_connect, client)
            try:
                for statement in scenario["statements"]:
                    spark_connect.sql(statement)
            finally:
                uninstall(spark_connect)
    finally:
        spark_connect.conf.set("spark.app.name", previous_app)
    events = [json.loads(text) for text in memory.json_events]
    assert events
    checked = 0
    for group in case["ordered_groups"]:
        position = 0
        for entry in group:
            if "RUNNING" in entry["operation"]:
                continue  # the agent's own events
            expected = json.loads((JVM_TESTS / "expected" / entry["expected"]).read_text())
            wanted = _mapped(expected, scenario["root"], warehouse)
            reasons: list[list[str]] = []
            for index in range(position, len(events)):
                problems = matches(wanted, events[index])
                if not problems:
                    position = index + 1
                    break
                reasons.append(problems)
            else:
                closest = min(reasons, key=len) if reasons else ["no events left"]
                pytest.fail(f"{entry['expected']} ({entry['operation']}): {closest}")
            checked += 1
    assert checked >= 1
    # The same files by the agent tests' rule as test_jvm_agent_events.py applies it.
    for group in case["ordered_groups"]:
        position = 0
        for entry in group:
            if "RUNNING" in entry["operation"]:
                continue
            expected = json.loads((JVM_TESTS / "expected" / entry["expected"]).read_text())
            wanted = in_scope(_mapped(expected, scenario["root"], warehouse))
            found = next(
                (i for i in range(position, len(events)) if _support.matches(wanted, events[i])),
                None,
            )
            assert found is not None, f"{entry['expected']} matches no event after #{position}"
            position = found + 1


def test_these_scripts_are_left_to_this_test_under_connect() -> None:
    """test_jvm_agent_events.py leaves these scripts to this test under Connect: the same ones."""
    assert set(SCENARIOS) == CONNECT_IN_PROCESS
    assert all(c["runs_locally"] for c in _cases())


def test_the_matching_rule_fails_what_it_must() -> None:
    """The rule itself: extra fields pass; a missing or different field, or pattern, fails."""
    event = {"job": {"name": "app.cmd.t"}, "outputs": [{"name": "/a"}, {"name": "/b", "x": 1}]}
    assert matches({"outputs": [{"name": "/b"}, {"name": "/a"}]}, event) == []
    assert matches({"job": {"name": "${json-unit.regex}app\\..*"}}, event) == []
    assert matches({"job": {"name": "${json-unit.any-string}"}}, event) == []
    assert matches({"outputs": [{"name": "/c"}]}, event) != []
    assert matches({"job": {"name": "${json-unit.regex}other.*"}}, event) != []
    assert matches({"job": {"namespace": "ns"}}, event) != []
    assert matches({"outputs": [{"name": "/b", "x": 2}]}, event) != []
    assert matches({"job": {"name": "${json-unit.any-number}"}}, event) != []
