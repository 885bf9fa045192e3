"""Spark Declarative Pipelines: ``spark-pipelines run`` against the tests' Spark Connect server.

The pipeline is a real project (a spec, Python and SQL definitions) run by PySpark's own
``spark-pipelines`` command under ``openlineage-sdk run``, which installs the adapter on the
command's Connect session: the pipeline is a run, each flow a run of its own under it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.spark import _recorder
from tests.spark._support import strict_problems
from tests.spark._versions import needs

# spark-pipelines and the pipelines' Connect commands came with Spark 4.1.
pytestmark = needs(4, 1, "Spark Declarative Pipelines (spark-pipelines)")

APP = "openlineage_sdk_tests"
PIPELINE = "orders_pipeline"

FLOWS_PY = """\
from pyspark import pipelines as dp
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

# The command line's session (PySpark 4.2 on also hands it to the definitions as ``spark``).
spark = SparkSession.active()

@dp.table(name="{prefix}_raw")
def raw() -> DataFrame:
    return spark.readStream.schema("id INT, amount DOUBLE, status STRING").json("{landing}")


@dp.materialized_view(name="{prefix}_totals")
def totals() -> DataFrame:
    return spark.read.table("{prefix}_raw").groupBy("status").agg(F.sum("amount").alias("total"))


@dp.temporary_view(name="{prefix}_valid")
def valid() -> DataFrame:
    return spark.read.table("{prefix}_raw").where("status = 'ok'")


dp.create_sink("{prefix}_export", format="parquet", options={{"path": "{export}"}})


@dp.append_flow(target="{prefix}_export", name="{prefix}_export_flow")
def export() -> DataFrame:
    return spark.readStream.table("{prefix}_raw").where("amount > 8")
"""

MARTS_SQL = """\
-- Large orders, and what the valid ones add up to.
CREATE MATERIALIZED VIEW {prefix}_big AS
SELECT id, amount FROM {prefix}_raw WHERE amount > 5;

CREATE MATERIALIZED VIEW {prefix}_valid_amounts AS
SELECT count(*) AS orders, sum(amount) AS amount FROM {prefix}_valid;
"""


def _project(root: Path, prefix: str, sql: str = MARTS_SQL) -> Path:
    landing = root / "landing"
    landing.mkdir(parents=True)
    rows = [
        {"id": i, "amount": float(i), "status": "ok" if i % 3 else "cancelled"} for i in range(12)
    ]
    (landing / "orders.json").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    definitions = root / "transformations"
    definitions.mkdir()
    (definitions / "flows.py").write_text(
        FLOWS_PY.format(prefix=prefix, landing=landing, export=root / "export")
    )
    (definitions / "marts.sql").write_text(sql.format(prefix=prefix))
    spec = root / "spark-pipeline.yml"
    spec.write_text(
        textwrap.dedent(
            f"""\
            name: {PIPELINE}
            storage: {(root / "storage").as_uri()}
            configuration:
              spark.sql.pipelines.maxFlowRetryAttempts: "0"
            libraries:
              - glob:
                  include: transformations/**
            """
        )
    )
    (root / "openlineage.yml").write_text(
        json.dumps({"transport": {"type": "file", "log_file_path": str(root / "events.jsonl")}})
    )
    return spec


def _run_pipeline(root: Path, spec: Path, port: int) -> subprocess.CompletedProcess[str]:
    command = Path(sys.executable).with_name("spark-pipelines")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENLINEAGE")}
    env["PYSPARK_PYTHON"] = env["PYSPARK_DRIVER_PYTHON"] = sys.executable
    env["PATH"] = f"{command.parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "openlineage_sdk.cli",
            "run",
            str(command),
            "run",
            "--spec",
            str(spec),
            "--remote",
            f"sc://127.0.0.1:{port}",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _events(root: Path) -> list[dict[str, Any]]:
    lines = (root / "events.jsonl").read_text().splitlines()
    for line in lines:
        assert strict_problems(line) == [], line
    _recorder.record_all(lines)
    return [json.loads(line) for line in lines]


def _by_run(events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    runs: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        runs.setdefault(event["run"]["runId"], []).append(event)
    return runs


def _job_type(event: dict[str, Any]) -> str:
    return str(event["job"]["facets"]["jobType"]["jobType"])


@pytest.fixture
def pipeline_tables(spark: Any) -> Any:
    made: list[str] = []

    def prefix(name: str) -> str:
        made.append(name)
        return name

    yield prefix
    for name in made:
        for suffix in ("raw", "totals", "big", "valid_amounts", "broken"):
            spark.sql(f"DROP TABLE IF EXISTS {name}_{suffix}")


@pytest.mark.connect
def test_a_declarative_pipeline_is_a_run_with_a_run_per_flow(
    spark_connect: Any, connect_port: int, tmp_path: Path, pipeline_tables: Any
) -> None:
    prefix = pipeline_tables("sdp")
    spec = _project(tmp_path, prefix)
    done = _run_pipeline(tmp_path, spec, connect_port)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "openlineage:" not in done.stderr, done.stderr[-3000:]

    runs = _by_run(_events(tmp_path))
    [application] = [r for r in runs.values() if _job_type(r[0]) == "APPLICATION"]
    [pipeline] = [r for r in runs.values() if _job_type(r[0]) == "PIPELINE"]
    flows = [r for r in runs.values() if _job_type(r[0]) == "FLOW"]
    assert [e["eventType"] for e in pipeline] == ["START", "COMPLETE"]
    assert pipeline[0]["job"]["name"] == f"{APP}.pipeline.{PIPELINE}"
    assert (
        pipeline[0]["run"]["facets"]["parent"]["run"]["runId"] == (application[0]["run"]["runId"])
    )
    pipeline_run = pipeline[0]["run"]["runId"]

    by_target: dict[str, list[dict[str, Any]]] = {}
    for flow in flows:
        assert [e["eventType"] for e in flow] == ["START", "COMPLETE"]
        start = flow[0]
        assert start["run"]["facets"]["parent"]["run"]["runId"] == pipeline_run
        assert start["run"]["facets"].get("extractionError") is None, start["run"]["facets"]
        [output] = start["outputs"]
        by_target[output["name"].rsplit("/", 1)[-1]] = flow
    # Four flows write tables, one a sink; the view is read through, not written.
    assert sorted(by_target) == sorted(
        [*(f"{prefix}_{t}" for t in ("raw", "totals", "big", "valid_amounts")), "export"]
    )
    export = by_target["export"][0]
    assert [(o["namespace"], o["name"]) for o in export["outputs"]] == [
        ("file", str(tmp_path / "export"))
    ]
    assert export["job"]["facets"]["jobType"]["processingType"] == "STREAMING"
    assert [i["name"] for i in export["inputs"]] == [
        by_target[f"{prefix}_raw"][0]["outputs"][0]["name"]
    ]
    assert export["job"]["name"].endswith(f"{prefix}_export_flow")

    def flow(name: str) -> dict[str, Any]:
        return by_target[f"{prefix}_{name}"][0]

    raw = flow("raw")
    assert raw["job"]["name"] == f"{APP}.{PIPELINE}.spark_catalog_default_{prefix}_raw"
    assert raw["job"]["facets"]["jobType"]["processingType"] == "STREAMING"
    assert [(i["namespace"], i["name"]) for i in raw["inputs"]] == [
        ("file", str(tmp_path / "landing"))
    ]
    [written] = raw["outputs"]
    assert written["namespace"] == "file"
    assert written["name"].endswith(f"/warehouse/{prefix}_raw")
    assert [f["name"] for f in written["facets"]["schema"]["fields"]] == ["id", "amount", "status"]
    assert written["facets"]["symlinks"]["identifiers"][0]["name"] == f"default.{prefix}_raw"
    location = raw["job"]["facets"]["sourceCodeLocation"]
    assert location["type"] == "file"
    assert location["path"] == str(tmp_path / "transformations" / "flows.py")
    line = FLOWS_PY.splitlines().index('@dp.table(name="{prefix}_raw")') + 1  # its decorator
    assert location["url"] == (tmp_path / "transformations" / "flows.py").as_uri() + f"#L{line}"

    totals = flow("totals")
    assert totals["job"]["facets"]["jobType"]["processingType"] == "BATCH"
    assert [i["name"] for i in totals["inputs"]] == [written["name"]]
    assert [f["name"] for f in totals["outputs"][0]["facets"]["schema"]["fields"]] == [
        "status",
        "total",
    ]

    big = flow("big")
    assert [i["name"] for i in big["inputs"]] == [written["name"]]
    sql_path = tmp_path / "transformations" / "marts.sql"
    assert big["job"]["facets"]["sourceCodeLocation"]["url"] == sql_path.as_uri() + "#L2"
    assert big["job"]["facets"]["sql"]["query"].startswith(
        f"CREATE MATERIALIZED VIEW {prefix}_big AS"
    )
    # A view of the pipeline's own is read through to what it reads.
    valid = flow("valid_amounts")
    assert [i["name"] for i in valid["inputs"]] == [written["name"]]
    assert valid["job"]["facets"]["sourceCodeLocation"]["url"] == sql_path.as_uri() + "#L5"
    assert spark_connect.table(f"{prefix}_big").count() == 6


@pytest.mark.connect
def test_a_failing_flow_fails_its_run_and_the_pipelines(
    spark_connect: Any, connect_port: int, tmp_path: Path, pipeline_tables: Any
) -> None:
    prefix = pipeline_tables("sdp_failing")
    broken = (
        "CREATE MATERIALIZED VIEW {prefix}_broken AS SELECT id, 1 / 0 AS ratio FROM {prefix}_raw;\n"
    )
    spec = _project(tmp_path, prefix, sql=broken)
    done = _run_pipeline(tmp_path, spec, connect_port)
    assert done.returncode != 0  # the pipeline's own error reaches the command line
    assert "DIVIDE_BY_ZERO" in done.stdout + done.stderr

    runs = _by_run(_events(tmp_path))
    [pipeline] = [r for r in runs.values() if _job_type(r[0]) == "PIPELINE"]
    assert [e["eventType"] for e in pipeline] == ["START", "FAIL"]
    assert "DIVIDE_BY_ZERO" in pipeline[-1]["run"]["facets"]["errorMessage"]["message"]
    flows = {
        r[0]["outputs"][0]["name"].rsplit("/", 1)[-1]: r
        for r in runs.values()
        if _job_type(r[0]) == "FLOW"
    }
    failed = flows[f"{prefix}_broken"]
    assert [e["eventType"] for e in failed] == ["START", "FAIL"]
    assert "DIVIDE_BY_ZERO" in failed[-1]["run"]["facets"]["errorMessage"]["message"]
    assert [e["eventType"] for e in flows[f"{prefix}_raw"]] == ["START", "COMPLETE"]
