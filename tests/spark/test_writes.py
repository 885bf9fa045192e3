"""Writes through the adapter, in classic PySpark and under Spark Connect."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk.spark import WriteLineage, install, uninstall
from openlineage_sdk.spark._naming import normalize_name_part


class Recorder:
    """A sink that keeps what it is told."""

    def __init__(self) -> None:
        self.started: list[WriteLineage] = []
        self.finished: list[WriteLineage] = []

    def write_started(self, write: WriteLineage) -> None:
        self.started.append(write)

    def write_finished(self, write: WriteLineage) -> None:
        self.finished.append(write)

    def only(self) -> WriteLineage:
        assert len(self.started) == 1, self.started
        assert len(self.finished) == 1, self.finished
        assert self.started[0] is self.finished[0]
        return self.finished[0]


@pytest.fixture
def recorder(mode_spark: Any) -> Iterator[Recorder]:
    sink = Recorder()
    install(mode_spark, sink)
    yield sink
    uninstall(mode_spark)


def _mode(spark: Any) -> str:
    return "connect" if type(spark).__module__.startswith("pyspark.sql.connect") else "classic"


def _files(path: Path) -> list[Path]:
    return [p for p in path.rglob("*") if p.is_file() and not p.name.startswith((".", "_"))]


def test_a_parquet_write_is_one_write_with_its_output(
    mode_spark: Any, recorder: Recorder, data_dir: Path
) -> None:
    out = data_dir / "orders"
    mode_spark.range(1000).selectExpr("id", "id % 7 AS k").write.parquet(str(out))

    write = recorder.only()
    assert write.mode == _mode(mode_spark)
    assert write.error is None
    assert write.output is not None
    assert (write.output.identity.namespace, write.output.identity.name) == ("file", str(out))
    assert write.output.schema == [{"name": "id", "type": "long"}, {"name": "k", "type": "long"}]
    assert write.command == "execute_insert_into_hadoop_fs_relation_command"
    assert write.job_name == (
        "openlineage_sdk_tests.execute_insert_into_hadoop_fs_relation_command."
        + normalize_name_part(str(out))
    )
    stats = write.output.stats
    assert stats is not None
    assert stats.row_count == 1000
    if write.mode == "classic":
        files = _files(out)
        assert stats.file_count == len(files)
        assert stats.size == sum(os.path.getsize(f) for f in files)
    else:
        # The Connect server does not return a command's write metrics: left out, not guessed.
        assert stats.size is None
        assert stats.file_count is None


def test_save_as_table_is_one_write_named_by_location_with_a_table_symlink(
    mode_spark: Any, recorder: Recorder, spark_root: Path
) -> None:
    table = f"orders_{_mode(mode_spark)}"
    mode_spark.sql(f"DROP TABLE IF EXISTS {table}")
    mode_spark.range(50).selectExpr("id").write.mode("overwrite").saveAsTable(table)

    write = recorder.only()
    assert write.output is not None
    identity = write.output.identity
    warehouse = spark_root / "warehouse"
    assert (identity.namespace, identity.name) == ("file", str(warehouse / table))
    assert [(s.namespace, s.name, s.type) for s in identity.symlinks] == [
        (f"file:{warehouse}", f"default.{table}", "TABLE")
    ]
    assert write.command == "execute_create_data_source_table_as_select_command"
    assert write.job_name.endswith(f".default_{table}")
    assert write.output.problems == []
    assert write.output.stats is not None
    assert write.output.stats.row_count == 50


def test_inputs_of_a_join_are_both_files(
    mode_spark: Any, recorder: Recorder, data_dir: Path
) -> None:
    left, right, out = data_dir / "left", data_dir / "right", data_dir / "out"
    mode_spark.range(20).selectExpr("id", "id % 3 AS k").write.parquet(str(left))
    mode_spark.range(3).selectExpr("id AS k", "concat('name', id) AS name").write.parquet(
        str(right)
    )
    recorder.started.clear()
    recorder.finished.clear()

    joined = mode_spark.read.parquet(str(left)).join(mode_spark.read.parquet(str(right)), "k")
    joined.write.parquet(str(out))

    write = recorder.only()
    assert sorted((d.identity.namespace, d.identity.name) for d in write.inputs) == [
        ("file", str(left)),
        ("file", str(right)),
    ]


def test_a_failing_write_reports_its_error_and_raises_it_unchanged(
    mode_spark: Any, recorder: Recorder, data_dir: Path
) -> None:
    out = data_dir / "exists"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    with pytest.raises(Exception, match="already exists") as raised:
        mode_spark.range(5).write.mode("error").parquet(str(out))

    write = recorder.only()
    assert write.error is raised.value
    assert write.output is not None
    assert write.output.stats is None


def test_the_adapter_starts_no_spark_job(mode_spark: Any, jobs: Any, data_dir: Path) -> None:
    df = mode_spark.range(10_000).selectExpr("id", "id % 10 AS k")

    before = jobs.count()
    df.write.parquet(str(data_dir / "plain"))
    plain = jobs.count() - before
    assert plain >= 1

    sink = Recorder()
    install(mode_spark, sink)
    try:
        before = jobs.count()
        df.write.parquet(str(data_dir / "traced"))
        traced = jobs.count() - before
    finally:
        uninstall(mode_spark)
    assert traced == plain
    assert sink.only().output is not None

    # The counter does see the extra jobs of the naive way to a row count (count, then write).
    before = jobs.count()
    df.count()
    df.write.parquet(str(data_dir / "naive"))
    assert jobs.count() - before > plain


def test_writes_of_another_session_pass_through(
    spark: Any, recorder: Recorder, mode_spark: Any, data_dir: Path
) -> None:
    other = spark.newSession() if _mode(mode_spark) == "classic" else spark
    other.range(3).write.parquet(str(data_dir / "other"))
    assert recorder.finished == []


def test_a_failing_sink_never_fails_the_write(mode_spark: Any, data_dir: Path) -> None:
    class Broken:
        def write_started(self, write: WriteLineage) -> None:
            raise RuntimeError("sink down")

        def write_finished(self, write: WriteLineage) -> None:
            raise RuntimeError("sink down")

    install(mode_spark, Broken())
    try:
        mode_spark.range(3).write.parquet(str(data_dir / "out"))
    finally:
        uninstall(mode_spark)
    assert len(_files(data_dir / "out")) >= 1


def test_a_failing_extraction_leaves_that_part_out(
    mode_spark: Any, recorder: Recorder, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from openlineage_sdk.spark import _adapter

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("injected")

    monkeypatch.setattr(_adapter, "schema_fields", broken)
    mode_spark.range(3).write.parquet(str(data_dir / "out"))

    write = recorder.only()
    assert write.output is not None
    assert write.output.schema is None
    assert any("injected" in p for p in write.output.problems)
    assert write.output.stats is not None
    assert write.output.stats.row_count == 3


def test_writer_v2_create_is_one_write_of_the_table(
    mode_spark: Any, recorder: Recorder, spark_root: Path
) -> None:
    table = f"v2_orders_{_mode(mode_spark)}"
    mode_spark.sql(f"DROP TABLE IF EXISTS {table}")
    mode_spark.range(7).selectExpr("id").writeTo(table).using("parquet").create()

    write = recorder.only()
    assert write.command == "create_table_as_select"
    assert write.output is not None
    assert (write.output.identity.namespace, write.output.identity.name) == (
        "file",
        str(spark_root / "warehouse" / table),
    )
    assert write.output.stats is not None
    assert write.output.stats.row_count == 7


def test_a_writer_used_twice_is_two_writes(
    mode_spark: Any, recorder: Recorder, data_dir: Path
) -> None:
    writer = mode_spark.range(4).write.mode("overwrite").format("parquet")
    writer.save(str(data_dir / "a"))
    writer.save(str(data_dir / "b"))

    assert [w.output.identity.name for w in recorder.finished if w.output] == [
        str(data_dir / "a"),
        str(data_dir / "b"),
    ]
    assert all(
        w.output and w.output.stats and w.output.stats.row_count == 4 for w in recorder.finished
    )


def test_a_new_table_in_a_database_with_its_own_location(
    mode_spark: Any, recorder: Recorder, data_dir: Path
) -> None:
    database = f"mart_{_mode(mode_spark)}"
    mode_spark.sql(f"DROP DATABASE IF EXISTS {database} CASCADE")
    mode_spark.sql(f"CREATE DATABASE {database} LOCATION '{data_dir / 'mart'}'")
    mode_spark.range(2).write.saveAsTable(f"{database}.Daily")

    write = recorder.only()
    assert write.output is not None
    identity = write.output.identity
    assert (identity.namespace, identity.name) == ("file", str(data_dir / "mart" / "daily"))
    assert [(s.namespace, s.name) for s in identity.symlinks] == [
        (f"file:{data_dir / 'mart'}", f"{database}.daily")
    ]
    assert write.output.problems == []


@pytest.mark.parametrize("broken", ["_dataframe", "_target", "_inputs", "_after"])
def test_any_failing_step_of_the_adapter_leaves_the_write_intact(
    mode_spark: Any,
    recorder: Recorder,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    broken: str,
) -> None:
    from openlineage_sdk.spark._adapter import SparkLineage

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"injected into {broken}")

    monkeypatch.setattr(SparkLineage, broken, fail)
    out = data_dir / "out"
    mode_spark.range(6).write.parquet(str(out))

    assert mode_spark.read.parquet(str(out)).count() == 6
    write = recorder.only()
    assert write.error is None
    problems = write.problems + (write.output.problems if write.output else [])
    assert any(f"injected into {broken}" in p for p in problems), problems
