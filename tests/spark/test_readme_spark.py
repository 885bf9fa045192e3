"""The README's PySpark examples run as written, on the test session."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import RunEvent
from openlineage_sdk.report import load_events
from tests.conftest import ROOT
from tests.spark._support import strict_problems


def _examples() -> list[str]:
    section = (ROOT / "README.md").read_text().split("## PySpark", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_pyspark_examples_run(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from openlineage_sdk.spark import uninstall

    automatic, explicit, _builder = _examples()
    # The examples use paths relative to where the program runs; Spark's JVM runs in the
    # folder the tests started in, so the paths are made absolute here.
    automatic = automatic.replace('"lake/', f'"{tmp_path}/lake/')
    explicit = explicit.replace('"lake/', f'"{tmp_path}/lake/')
    spark.range(30).selectExpr("id", "id % 4 AS customer_id").write.parquet(
        str(tmp_path / "lake" / "raw" / "orders")
    )
    monkeypatch.chdir(tmp_path)  # the client's default event file is in the working folder
    namespace: dict[str, Any] = {"spark": spark}
    try:
        exec(compile(automatic, "README.md", "exec"), namespace)
        exec(compile(explicit, "README.md", "exec"), namespace)
    finally:
        uninstall(spark)

    events = load_events(tmp_path / "openlineage_events.jsonl")
    assert all(isinstance(e, RunEvent) for e in events)
    runs = [(e.job.name, e.event_type) for e in events if isinstance(e, RunEvent)]
    write = "openlineage_sdk_tests.execute_insert_into_hadoop_fs_relation_command"
    assert runs == [
        ("openlineage_sdk_tests", "START"),
        (f"{write}.marts_order_counts", "START"),
        (f"{write}.marts_order_counts", "COMPLETE"),
        ("openlineage_sdk_tests", "COMPLETE"),
        ("orders.daily_load", "START"),
        ("orders.daily_load", "COMPLETE"),
    ]
    for event in events:
        assert strict_problems(event) == []
    counts = events[2]
    assert isinstance(counts, RunEvent)
    [output] = counts.outputs or []
    assert output.output_facets is not None
    assert output.output_facets.output_statistics is not None
    assert output.output_facets.output_statistics.row_count == 4
    loaded = events[-1]
    assert isinstance(loaded, RunEvent)
    assert [o.name for o in loaded.outputs or []] == [str(tmp_path / "lake" / "staging" / "orders")]


def test_the_facet_builder_example_adds_its_facet(
    spark: Any, client: Any, memory: Any, data_dir: Path
) -> None:
    """The README's facet builder, given in code, puts its facet on the run's end."""
    from openlineage_sdk.spark import install, uninstall

    builder = _examples()[2]
    namespace: dict[str, Any] = {}
    exec(compile(builder, "README.md", "exec"), namespace)
    install(spark, client, facet_builders=[namespace["costs"]])
    try:
        spark.range(3).write.parquet(str(data_dir / "out"))
    finally:
        uninstall(spark)
    [start, end] = [e for e in memory.events if e.event_type in ("START", "COMPLETE")]
    assert start.run.facets.get("myCo_costs") is None
    costs = end.run.facets.get("myCo_costs")
    assert costs is not None
    assert (costs.amount, costs.currency) == (1.5, "EUR")
