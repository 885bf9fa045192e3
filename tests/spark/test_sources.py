"""Dataset identities of catalog tables and JDBC tables, input statistics, and mode isolation."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk.spark import WriteLineage, install, uninstall


class Recorder:
    def __init__(self) -> None:
        self.finished: list[WriteLineage] = []

    def write_started(self, write: WriteLineage) -> None:
        pass

    def write_finished(self, write: WriteLineage) -> None:
        self.finished.append(write)


@pytest.fixture
def recorder(mode_spark: Any) -> Iterator[Recorder]:
    sink = Recorder()
    install(mode_spark, sink)
    yield sink
    uninstall(mode_spark)


def _mode(spark: Any) -> str:
    return "connect" if type(spark).__module__.startswith("pyspark.sql.connect") else "classic"


def test_a_catalog_table_input_is_its_location_with_a_table_symlink(
    mode_spark: Any, recorder: Recorder, spark_root: Path, data_dir: Path
) -> None:
    table = f"customers_{_mode(mode_spark)}"
    mode_spark.sql(f"DROP TABLE IF EXISTS {table}")
    mode_spark.sql(f"CREATE TABLE {table} USING parquet AS SELECT 1L AS id, 'a' AS name")
    mode_spark.table(table).write.parquet(str(data_dir / "copy"))

    write = recorder.finished[-1]
    warehouse = spark_root / "warehouse"
    assert [(d.identity.namespace, d.identity.name) for d in write.inputs] == [
        ("file", str(warehouse / table))
    ]
    assert [(s.namespace, s.name, s.type) for s in write.inputs[0].identity.symlinks] == [
        (f"file:{warehouse}", f"default.{table}", "TABLE")
    ]


def test_a_jdbc_output_is_named_by_the_naming_rules_without_credentials(
    mode_spark: Any, recorder: Recorder
) -> None:
    url = "jdbc:postgresql://127.0.0.1:1/shop?user=etl&password=s3cr3t"
    with pytest.raises(Exception):  # noqa: B017, PT011 - no driver, no server: the write fails
        mode_spark.range(3).write.jdbc(url, "sales.orders", mode="append")

    write = recorder.finished[-1]
    assert write.error is not None
    assert write.output is not None
    assert (write.output.identity.namespace, write.output.identity.name) == (
        "postgres://127.0.0.1:1",
        "shop.sales.orders",
    )
    assert write.command == "execute_save_into_data_source_command"
    assert "s3cr3t" not in repr(write.output) + repr(write.problems)


def test_input_statistics_come_from_the_scan_in_classic_mode(spark: Any, data_dir: Path) -> None:
    source = data_dir / "source"
    spark.range(500).selectExpr("id").repartition(3).write.parquet(str(source))
    recorder = Recorder()
    install(spark, recorder)
    try:
        spark.read.parquet(str(source)).where("id > 10").write.parquet(str(data_dir / "out"))
    finally:
        uninstall(spark)

    write = recorder.finished[-1]
    [read] = write.inputs
    files = [p for p in source.iterdir() if p.name.endswith(".parquet")]
    assert read.stats is not None
    assert read.stats.file_count == len(files)
    assert read.stats.size == sum(os.path.getsize(p) for p in files)
    assert write.output is not None
    assert write.output.stats is not None
    assert write.output.stats.row_count == 489


def test_the_connect_path_never_uses_the_jvm(
    spark_connect: Any, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under Connect, every JVM helper of the classic path is booby-trapped: none may run."""
    from openlineage_sdk.spark import _classic

    def trap(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the Connect path reached for the JVM")

    for name in dir(_classic):
        value = getattr(_classic, name)
        if callable(value) and getattr(value, "__module__", "") == _classic.__name__:
            monkeypatch.setattr(_classic, name, trap)

    recorder = Recorder()
    install(spark_connect, recorder)
    try:
        source = data_dir / "source"
        spark_connect.range(10).write.parquet(str(source))
        spark_connect.read.parquet(str(source)).write.parquet(str(data_dir / "out"))
    finally:
        uninstall(spark_connect)
    for write in recorder.finished:
        assert write.problems == []
        assert write.output is not None
        assert write.output.problems == []
        assert write.output.stats is not None
        assert write.output.stats.row_count == 10
    assert [(d.identity.namespace, d.identity.name) for d in recorder.finished[-1].inputs] == [
        ("file", str(data_dir / "source"))
    ]


def test_importing_the_adapter_does_not_import_pyspark() -> None:
    code = (
        "import sys, openlineage_sdk.spark as s; "
        "assert s.install; "
        "assert not [m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j')]"
    )
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)
