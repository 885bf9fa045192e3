"""``openlineage-sdk run``: lineage for a PySpark script that never imports this SDK."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.spark import _recorder
from tests.spark._support import strict_problems

SCRIPT = textwrap.dedent(
    """
    import sys
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[1]").appName("plain_script")
        .config("spark.ui.enabled", "false").getOrCreate()
    )
    spark.range(4).write.mode("overwrite").parquet(sys.argv[1])
    assert "openlineage_sdk.spark" in sys.modules  # the bootstrap installed the adapter
    spark.stop()
    """
)


def _launch(tmp_path: Path, command: list[str]) -> list[dict[str, object]]:
    events = tmp_path / "events.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENLINEAGE")}
    env["PYSPARK_PYTHON"] = env["PYSPARK_DRIVER_PYTHON"] = sys.executable
    completed = subprocess.run(
        [sys.executable, "-m", "openlineage_sdk.cli", "run", *command],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "openlineage:" not in completed.stderr, completed.stderr[-3000:]
    lines = events.read_text().splitlines()
    for line in lines:
        assert strict_problems(line) == [], line
    _recorder.record_all(lines)
    return [json.loads(line) for line in lines]


def _check(events: list[dict[str, object]], out: Path, namespace: str) -> None:
    kinds = [(e["job"]["facets"]["jobType"]["jobType"], e["eventType"]) for e in events]  # type: ignore[index]
    assert sorted(kinds) == sorted(
        [
            ("APPLICATION", "START"),
            ("APPLICATION", "COMPLETE"),
            ("SQL_JOB", "START"),
            ("SQL_JOB", "COMPLETE"),
        ]
    )
    app = next(e for e in events if e["job"]["facets"]["jobType"]["jobType"] == "APPLICATION")  # type: ignore[index]
    assert app["job"]["name"] == "plain_script"  # type: ignore[index]
    writes = [e for e in events if e["job"]["facets"]["jobType"]["jobType"] == "SQL_JOB"]  # type: ignore[index]
    for write in writes:
        assert write["job"]["namespace"] == namespace  # type: ignore[index]
        assert write["outputs"][0]["name"] == str(out)  # type: ignore[index]
        assert write["run"]["facets"]["parent"]["run"]["runId"] == app["run"]["runId"]  # type: ignore[index]


@pytest.mark.spark
@pytest.mark.slow
def test_python_script_configured_by_openlineage_yml(tmp_path: Path) -> None:
    (tmp_path / "job.py").write_text(SCRIPT)
    (tmp_path / "openlineage.yml").write_text(
        json.dumps({"transport": {"type": "file", "log_file_path": str(tmp_path / "events.jsonl")}})
    )
    out = tmp_path / "out"
    events = _launch(tmp_path, [sys.executable, "job.py", str(out)])
    _check(events, out, "default")


@pytest.mark.spark
@pytest.mark.slow
def test_spark_submit_configured_by_confs(tmp_path: Path) -> None:
    import pyspark  # here: the other tests of this file run without pyspark

    (tmp_path / "job.py").write_text(SCRIPT)
    spark_submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    out = tmp_path / "out"
    events = _launch(
        tmp_path,
        [
            str(spark_submit),
            "--conf",
            "spark.openlineage.transport.type=file",
            "--conf",
            f"spark.openlineage.transport.location={tmp_path / 'events.jsonl'}",
            "--conf",
            "spark.openlineage.namespace=submitted",
            str(tmp_path / "job.py"),
            str(out),
        ],
    )
    _check(events, out, "submitted")


def test_run_without_a_command_is_an_error() -> None:
    from openlineage_sdk.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["run"])
    assert exit_info.value.code == 2


def test_a_script_without_pyspark_runs_unchanged_and_the_next_sitecustomize_still_runs(
    tmp_path: Path,
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "sitecustomize.py").write_text("import os\nos.environ['OTHER_SITE'] = 'ran'\n")
    (tmp_path / "plain.py").write_text(
        "import os, sys\n"
        "print(os.environ.get('OTHER_SITE'), 'pyspark' in sys.modules,"
        " 'openlineage_sdk.spark._launch' in sys.modules)\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([env.get("PYTHONPATH", ""), str(other)]).strip(os.pathsep)
    completed = subprocess.run(
        [sys.executable, "-m", "openlineage_sdk.cli", "run", sys.executable, "plain.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == ["ran", "False", "True"]


INSERT_LAST = textwrap.dedent(
    """
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[1]").appName("insert_last")
        .config("spark.ui.enabled", "false").getOrCreate()
    )
    spark.sql("CREATE TABLE src USING parquet AS SELECT id, id % 3 AS k FROM range(9)")
    spark.sql("CREATE TABLE dst (k BIGINT, n BIGINT) USING parquet")
    spark.sql("INSERT INTO dst SELECT k, count(*) FROM src GROUP BY k")
    # No spark.stop(): the interpreter's exit ends the application.
    """
)


@pytest.mark.spark
@pytest.mark.slow
def test_a_script_that_ends_with_an_insert_reports_it_before_the_applications_end(
    tmp_path: Path,
) -> None:
    """The INSERT's end is reported on the adapter's finishing thread, once its call returned:
    the exit waits for it, and the application's COMPLETE comes after it."""
    (tmp_path / "job.py").write_text(INSERT_LAST)
    (tmp_path / "openlineage.yml").write_text(
        json.dumps({"transport": {"type": "file", "log_file_path": str(tmp_path / "events.jsonl")}})
    )
    env_warehouse = tmp_path / "spark-warehouse"
    events = _launch(tmp_path, [sys.executable, "job.py"])
    order = [
        (e["job"]["name"].split(".")[1] if "." in e["job"]["name"] else "app", e["eventType"])  # type: ignore[index]
        for e in events
    ]
    insert = "execute_insert_into_hadoop_fs_relation_command"
    assert order[-3:] == [(insert, "START"), (insert, "COMPLETE"), ("app", "COMPLETE")], order
    [end] = [e for e in events if e["eventType"] == "COMPLETE" and insert in e["job"]["name"]]  # type: ignore[operator]
    assert end["outputs"][0]["name"] == str(env_warehouse / "dst")  # type: ignore[index]
    assert end["outputs"][0]["outputFacets"]["outputStatistics"]["rowCount"] == 3  # type: ignore[index]
