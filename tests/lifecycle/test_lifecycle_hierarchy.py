"""Job hierarchy: parent facets with their root, found from the enclosing run or given."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import (
    LineageRun,
    OutputDataset,
    OutputDatasetFacets,
    RunEvent,
    RunRef,
    current_run,
    read_event,
    validate_event,
)
from openlineage_sdk.client import OpenLineage
from openlineage_sdk.facets import (
    OutputStatisticsOutputDatasetFacet,
    ParentRunFacet,
)
from openlineage_sdk.naming import airflow_job_name, hdfs, postgres, s3, spark_job_name
from openlineage_sdk.transports import MemoryTransport
from tests.lifecycle.conftest import PRODUCER, run_events

ROOT = Path(__file__).resolve().parents[2]


def parent_of(event: RunEvent) -> dict[str, Any] | None:
    facets = event.to_dict()["run"].get("facets", {})
    parent: dict[str, Any] | None = facets.get("parent")
    return parent


def ref(namespace: str, name: str, run_id: str) -> dict[str, Any]:
    return {"run": {"runId": run_id}, "job": {"namespace": namespace, "name": name}}


def events_of(memory: MemoryTransport, run: LineageRun) -> list[RunEvent]:
    return [e for e in run_events(memory) if e.run.run_id == run.run_id]


def test_a_run_without_parent_has_no_parent_facet(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    with client.run("orders") as run:
        pass
    assert run.parent is None
    assert run.root is None
    assert all(parent_of(e) is None for e in run_events(memory))


def test_a_run_inside_another_is_its_child_and_the_parent_is_the_root(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    with client.run("outer") as outer, client.run("inner") as inner:
        pass
    assert inner.parent == RunRef("team", "outer", outer.run_id)
    assert inner.root == RunRef("team", "outer", outer.run_id)
    for event in events_of(memory, inner):
        facet = parent_of(event)
        assert facet is not None
        assert {k: facet[k] for k in ("run", "job", "root")} == {
            **ref("team", "outer", outer.run_id),
            "root": ref("team", "outer", outer.run_id),
        }
        assert facet["_producer"] == PRODUCER
        assert facet["_schemaURL"].endswith("ParentRunFacet.json#/$defs/ParentRunFacet")


def test_three_levels_point_at_the_top_as_root(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    with client.run("a") as a, client.run("a.b") as b, client.run("a.b.c") as c:
        pass
    facet = parent_of(events_of(memory, c)[0])
    assert facet is not None
    assert facet["run"]["runId"] == b.run_id
    assert facet["root"] == ref("team", "a", a.run_id)
    assert c.root == a.ref
    assert b.ref == RunRef("team", "a.b", b.run_id, root=RunRef("team", "a", a.run_id))


def test_parent_none_opts_out_inside_a_block(client: OpenLineage, memory: MemoryTransport) -> None:
    with client.run("outer"), client.run("detached", parent=None) as detached:
        pass
    assert detached.parent is None
    assert all(parent_of(e) is None for e in events_of(memory, detached))


def test_the_parent_is_found_when_the_run_is_made(client: OpenLineage) -> None:
    # Made inside the block, started after it: the parent is the run it was made in.
    with client.run("outer") as outer:
        later = client.run("later")
    later.start()
    assert later.parent == outer.ref


def test_an_explicit_lineage_run_parent(client: OpenLineage) -> None:
    parent = client.run("dag")
    child = client.run("dag.task", parent=parent)  # not started, not entered
    assert child.parent == RunRef("team", "dag", parent.run_id)


def test_an_explicit_parent_beats_the_enclosing_run(client: OpenLineage) -> None:
    other = RunRef("scheduler", "nightly", uuid.uuid4())
    with client.run("outer"):
        child = client.run("child", parent=other)
    assert child.parent == other


def test_a_run_ref_with_a_root(client: OpenLineage, memory: MemoryTransport) -> None:
    root = RunRef("airflow", "orders_etl", str(uuid.uuid4()))
    parent = RunRef("spark", "orders_app", str(uuid.uuid4()), root=root)
    with client.run("orders_app.save", parent=parent) as run:
        pass
    facet = parent_of(events_of(memory, run)[0])
    assert facet is not None
    assert facet["run"]["runId"] == parent.run_id
    assert facet["root"] == ref("airflow", "orders_etl", root.run_id)


def test_a_parent_facet_without_root_gets_the_parent_as_root(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    parent_id = str(uuid.uuid4())
    given = ParentRunFacet(
        producer="https://example.com/scheduler",
        run={"runId": parent_id},
        job={"namespace": "airflow", "name": "orders_etl"},
    )
    with client.run("orders_etl.load", parent=given) as run:
        pass
    facet = parent_of(events_of(memory, run)[0])
    assert facet is not None
    assert facet["root"] == ref("airflow", "orders_etl", parent_id)


def test_a_complete_parent_facet_is_kept_as_given(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    parent_id, root_id = str(uuid.uuid4()), str(uuid.uuid4())
    given = ParentRunFacet(
        producer="https://example.com/scheduler",
        run={"runId": parent_id},
        job={"namespace": "airflow", "name": "orders_etl"},
        root={"run": {"runId": root_id}, "job": {"namespace": "airflow", "name": "master"}},
    )
    with client.run("orders_etl.load", parent=given) as run:
        pass
    facets = events_of(memory, run)[0].run.facets
    assert facets is not None
    assert facets["parent"] is given
    assert run.root == RunRef("airflow", "master", root_id)


def test_a_bad_parent_is_refused(client: OpenLineage) -> None:
    with pytest.raises(TypeError, match="parent must be a LineageRun, a RunRef"):
        client.run("x", parent="dag")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="a run id must be a UUID"):
        RunRef("airflow", "dag", "run-1")
    with pytest.raises(ValueError, match="the job name must be a non-empty string"):
        RunRef("airflow", "", str(uuid.uuid4()))


@pytest.mark.parametrize(
    ("namespace", "parent_namespace", "expected"),
    [
        (None, None, "team"),  # no parent: the client's
        (None, "airflow", "airflow"),  # a parent: the parent's, as the naming conventions say
        ("spark", "airflow", "spark"),  # given: as given
    ],
)
def test_the_job_namespace(
    client: OpenLineage, namespace: str | None, parent_namespace: str | None, expected: str
) -> None:
    parent = RunRef(parent_namespace, "dag", uuid.uuid4()) if parent_namespace is not None else None
    run = client.run("job", namespace=namespace, parent=parent)
    assert run.job_namespace == expected


def test_concurrent_asyncio_tasks_each_see_their_own_parent(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    async def pipeline(name: str) -> tuple[str, str | None]:
        async with client.run(name) as outer:
            await asyncio.sleep(0)  # let the other pipeline interleave
            async with client.run(f"{name}.step") as step:
                await asyncio.sleep(0)
                assert current_run() is step
            return outer.run_id, step.parent.run_id if step.parent else None

    async def main() -> list[tuple[str, str | None]]:
        return list(await asyncio.gather(pipeline("a"), pipeline("b")))

    for outer_id, parent_id in asyncio.run(main()):
        assert outer_id == parent_id


# --------------------------------------------------------------------------- the Airflow pattern

NOMINAL = datetime(2024, 5, 1, 3, 0, tzinfo=timezone.utc)


def test_airflow_dag_run_is_the_parent_of_its_task_runs(memory: MemoryTransport) -> None:
    # One process plays the scheduler: the DAG run, then each task inside it.
    airflow = OpenLineage(transport=memory, producer=PRODUCER, namespace="airflow-prod")
    dag_id = "orders_etl"
    with airflow.run(dag_id, nominal_time=NOMINAL, deterministic_id=True) as dag_run:
        for task_id in ("extract", "count_orders", "load"):
            with airflow.run(
                airflow_job_name(dag_id, task_id),
                nominal_time=NOMINAL,
                deterministic_id=True,
                inputs=[postgres("db", "shop", "sales", "orders")],
            ):
                pass
    events = run_events(memory)
    assert [(e.job.name, e.event_type) for e in events] == [
        ("orders_etl", "START"),
        ("orders_etl.extract", "START"),
        ("orders_etl.extract", "COMPLETE"),
        ("orders_etl.count_orders", "START"),
        ("orders_etl.count_orders", "COMPLETE"),
        ("orders_etl.load", "START"),
        ("orders_etl.load", "COMPLETE"),
        ("orders_etl", "COMPLETE"),
    ]
    dag_ref = ref("airflow-prod", "orders_etl", dag_run.run_id)
    for event in events:
        facet = parent_of(event)
        if event.job.name == dag_id:
            assert facet is None
        else:
            assert facet is not None
            assert {k: facet[k] for k in ("run", "job")} == dag_ref
            assert facet["root"] == dag_ref
            assert event.job.namespace == "airflow-prod"
    # Task run ids are per task and stable for the schedule: a retry gets the same id.
    task_ids = {e.job.name: e.run.run_id for e in events if e.job.name != dag_id}
    assert len(set(task_ids.values())) == 3
    for task_name, run_id in task_ids.items():
        retry = airflow.run(task_name, nominal_time=NOMINAL, deterministic_id=True, parent=None)
        assert retry.run_id == run_id


def test_airflow_task_in_a_worker_process_names_its_dag_run(
    tmp_path: Path, memory: MemoryTransport
) -> None:
    # The scheduler knows the DAG run; the worker only gets ids (as Airflow passes them).
    scheduler = OpenLineage(transport=memory, namespace="airflow-prod")
    dag_run = scheduler.run("orders_etl", nominal_time=NOMINAL, deterministic_id=True)
    dag_run.start()
    out = tmp_path / "events.jsonl"
    worker = (
        "import sys\n"
        "from openlineage_sdk import RunRef\n"
        "from openlineage_sdk.client import OpenLineage\n"
        "from openlineage_sdk.naming import airflow_job_name\n"
        "from openlineage_sdk.transports import FileTransport\n"
        "namespace, dag_id, run_id, path = sys.argv[1:]\n"
        "with OpenLineage(transport=FileTransport(path)) as client:\n"
        "    parent = RunRef(namespace, dag_id, run_id)\n"
        "    with client.run(airflow_job_name(dag_id, 'load'), parent=parent):\n"
        "        pass\n"
    )
    subprocess.run(
        [sys.executable, "-c", worker, "airflow-prod", "orders_etl", dag_run.run_id, str(out)],
        check=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    dag_run.complete()
    lines = out.read_text().splitlines()
    assert all(validate_event(line, strict=True, formats=True) == [] for line in lines)
    task_events = [read_event(line) for line in lines]
    assert [e.event_type for e in task_events if isinstance(e, RunEvent)] == ["START", "COMPLETE"]
    for event in task_events:
        assert isinstance(event, RunEvent)
        assert event.job.namespace == "airflow-prod"  # the parent's namespace
        assert event.job.name == "orders_etl.load"
        facet = parent_of(event)
        assert facet is not None
        assert facet["run"]["runId"] == dag_run.run_id
        assert facet["root"] == ref("airflow-prod", "orders_etl", dag_run.run_id)


# --------------------------------------------------------------------------- the Spark pattern


def test_spark_application_run_is_the_parent_of_its_action_runs(
    memory: MemoryTransport,
) -> None:
    # An Airflow task starts a Spark application, whose writes are action runs of their own.
    spark = OpenLineage(transport=memory, producer=PRODUCER, namespace="spark")
    airflow_task = RunRef(
        "airflow-prod",
        "orders_etl.transform",
        uuid.uuid4(),
        root=RunRef("airflow-prod", "orders_etl", uuid.uuid4()),
    )
    app_name = "Orders Daily"
    raw = hdfs("namenode", "/raw/orders")
    actions = [
        ("InsertIntoHadoopFsRelationCommand", s3("lake", "curated/orders")),
        ("CreateDataSourceTableAsSelectCommand", postgres("db", "shop", "sales", "daily")),
    ]
    with spark.run(spark_job_name(app_name), parent=airflow_task) as app:
        for command, target in actions:
            with spark.run(spark_job_name(app_name, command, target.name), inputs=[raw]) as action:
                action.add_outputs(target)
                action.add_outputs(  # what the write reports when it ends
                    OutputDataset(
                        namespace=target.namespace,
                        name=target.name,
                        output_facets=OutputDatasetFacets.of(
                            OutputStatisticsOutputDatasetFacet(row_count=7)
                        ),
                    )
                )
    events = run_events(memory)
    assert [(e.job.name, e.event_type) for e in events] == [
        ("orders_daily", "START"),
        ("orders_daily.insert_into_hadoop_fs_relation_command.curated_orders", "START"),
        ("orders_daily.insert_into_hadoop_fs_relation_command.curated_orders", "COMPLETE"),
        ("orders_daily.create_data_source_table_as_select_command.shop_sales_daily", "START"),
        ("orders_daily.create_data_source_table_as_select_command.shop_sales_daily", "COMPLETE"),
        ("orders_daily", "COMPLETE"),
    ]
    airflow_root = ref("airflow-prod", "orders_etl", str(airflow_task.root.run_id))  # type: ignore[union-attr]
    for event in events:
        facet = parent_of(event)
        assert facet is not None
        # Every run in the chain names the Airflow DAG run as its root.
        assert facet["root"] == airflow_root
        # "If there's a parent job, we use the same namespace": the Airflow one, all the way down.
        assert event.job.namespace == "airflow-prod"
        if event.job.name == "orders_daily":
            assert facet["run"]["runId"] == airflow_task.run_id
        else:
            assert {k: facet[k] for k in ("run", "job")} == ref(
                "airflow-prod", "orders_daily", app.run_id
            )
    completes = [e for e in events if e.event_type == "COMPLETE" and e.job.name != "orders_daily"]
    for event in completes:
        data = event.to_dict()
        assert data["outputs"][0]["outputFacets"]["outputStatistics"]["rowCount"] == 7
        assert data["inputs"][0]["namespace"] == "hdfs://namenode:8020"


def test_spark_without_a_parent_uses_the_configured_namespace(memory: MemoryTransport) -> None:
    spark = OpenLineage(transport=memory, namespace="spark")
    with (
        spark.run(spark_job_name("orders_app")) as app,
        spark.run(spark_job_name("orders_app", "collect_limit")) as action,
    ):
        pass
    assert (app.job_namespace, app.parent) == ("spark", None)
    assert (action.job_namespace, action.job_name) == ("spark", "orders_app.collect_limit")
    assert action.parent == app.ref


def test_every_hierarchy_event_round_trips(memory: MemoryTransport) -> None:
    client = OpenLineage(transport=memory, namespace="n")
    with client.run("a"), client.run("a.b"):
        pass
    for text in memory.json_events:
        assert json.loads(read_event(text).to_json()) == json.loads(text)
