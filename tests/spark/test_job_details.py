"""``spark_jobDetails``: the Spark job a call ran, as the JVM agent's ``SparkJobDetailsFacet``.

The agent reads a ``SparkListenerJobStart``: the job's id and the properties it was submitted
with (``spark.job.description``, ``spark.jobGroup.id``, ``callSite.short``). Each test sets
those properties as a user does (``setJobGroup``, ``setJobDescription``, a call site) and reads
the job's id back from Spark's status tracker, never from the adapter.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk.spark import install, uninstall
from tests.spark._support import Captured

GENERIC = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet"


def _events(memory: Any) -> list[dict[str, Any]]:
    Captured(memory).events()  # waits for the adapter's finishing thread
    return [json.loads(text) for text in memory.json_events]


def _group_jobs(spark: Any, group: str) -> list[int]:
    """The ids of the jobs of ``group``, once the listener bus delivered every event."""
    sc = spark.sparkContext
    sc._jsc.sc().listenerBus().waitUntilEmpty(10_000)
    return sorted(sc.statusTracker().getJobIdsForGroup(group))


@pytest.fixture
def job_group(spark: Any) -> Iterator[str]:
    """A job group and description on this thread, as a user's scheduler sets them."""
    sc = spark.sparkContext
    sc.setJobGroup("nightly-orders", "orders into the marts")
    yield "nightly-orders"
    sc.setLocalProperty("spark.jobGroup.id", None)
    sc.setLocalProperty("spark.job.description", None)
    sc.setLocalProperty("spark.job.interruptOnCancel", None)


@pytest.mark.spark
def test_a_write_ends_with_its_last_job(
    spark: Any, classic_auto: Captured, memory: Any, data_dir: Path, job_group: str
) -> None:
    frame = spark.range(10).selectExpr("id % 3 AS k", "id").groupBy("k").count()
    frame.write.mode("overwrite").parquet(str(data_dir / "counts"))
    events = _events(memory)
    ids = _group_jobs(spark, job_group)
    assert ids, "the write ran no job in its group"
    start, complete = events
    assert (start["eventType"], complete["eventType"]) == ("START", "COMPLETE")
    # The agent sends it on the events of a job's start; the adapter's START goes before the
    # job, so the end carries the last job of the call.
    assert "spark_jobDetails" not in start["run"]["facets"]
    assert complete["run"]["facets"]["spark_jobDetails"] == {
        "_producer": complete["producer"],
        "_schemaURL": GENERIC,
        "jobId": ids[-1],
        "jobDescription": "orders into the marts",
        "jobGroup": "nightly-orders",
    }  # no jobCallSite: PySpark sets none for a writer call, and the agent's is null then


@pytest.mark.spark
def test_a_call_site_set_on_the_thread_is_the_jobs(
    spark: Any, classic_auto: Captured, memory: Any, data_dir: Path
) -> None:
    jsc = spark.sparkContext._jsc
    jsc.setCallSite("orders at nightly.py:12")
    try:
        spark.range(3).write.mode("overwrite").parquet(str(data_dir / "orders"))
    finally:
        jsc.setCallSite(None)
    complete = _events(memory)[-1]
    details = complete["run"]["facets"]["spark_jobDetails"]
    assert details["jobCallSite"] == "orders at nightly.py:12"
    assert "jobGroup" not in details
    assert "jobDescription" not in details
    # The job Spark ran has that call site as its name (the Spark UI's).
    job = jsc.sc().statusStore().job(details["jobId"])
    assert job.name() == "orders at nightly.py:12"


@pytest.mark.spark
def test_statements_and_rdd_saves_carry_it_a_statement_without_a_job_does_not(
    spark: Any, classic_auto: Captured, memory: Any, data_dir: Path, job_group: str
) -> None:
    spark.sql("DROP TABLE IF EXISTS job_details_t")
    spark.sql("CREATE TABLE job_details_t (id BIGINT) USING parquet")
    spark.sql("INSERT INTO job_details_t SELECT id FROM range(4)")
    spark.sparkContext.parallelize(["a", "b"], 1).saveAsTextFile(str(data_dir / "words"))
    spark.sql("DROP TABLE job_details_t")
    ends = [e for e in _events(memory) if e["eventType"] == "COMPLETE"]
    by_job = {e["job"]["name"]: e["run"]["facets"].get("spark_jobDetails") for e in ends}
    ids = _group_jobs(spark, job_group)
    create = next(v for k, v in by_job.items() if "create_data_source_table" in k)
    insert = next(v for k, v in by_job.items() if "insert_into" in k)
    save = next(v for k, v in by_job.items() if "parallel_collection" in k)
    assert create is None  # a CREATE TABLE runs no Spark job: the agent hears no job start
    assert insert is not None
    assert save is not None
    assert insert["jobGroup"] == save["jobGroup"] == job_group
    assert insert["jobId"] in ids
    assert save["jobId"] in ids
    assert insert["jobId"] < save["jobId"] == ids[-1]


@pytest.mark.spark
def test_disabled_it_is_not_read(
    spark: Any, client: Any, memory: Any, data_dir: Path, job_group: str
) -> None:
    earlier = set(_group_jobs(spark, job_group))
    spark.conf.set("spark.openlineage.facets.spark_jobDetails.disabled", "true")
    install(spark, client)
    try:
        spark.range(3).write.mode("overwrite").parquet(str(data_dir / "off"))
    finally:
        uninstall(spark)
        spark.conf.unset("spark.openlineage.facets.spark_jobDetails.disabled")
    events = _events(memory)
    assert [e["eventType"] for e in events] == ["START", "COMPLETE"]
    assert all("spark_jobDetails" not in e["run"]["facets"] for e in events)
    # Not read at all: the job carries no tag of the adapter's.
    store = spark.sparkContext._jsc.sc().statusStore()
    ran = set(_group_jobs(spark, job_group)) - earlier
    assert ran
    for job_id in ran:
        tags = store.job(job_id).jobTags()
        assert not any(str(tags.apply(i)).startswith("openlineage") for i in range(tags.size()))


@pytest.mark.spark
def test_the_users_own_job_tags_are_left_as_they_were(
    spark: Any, classic_auto: Captured, memory: Any, data_dir: Path
) -> None:
    sc = spark.sparkContext
    sc.addJobTag("users-tag")
    try:
        spark.range(3).write.mode("overwrite").parquet(str(data_dir / "tagged"))
        assert set(sc.getJobTags()) == {"users-tag"}
    finally:
        sc.removeJobTag("users-tag")
    details = _events(memory)[-1]["run"]["facets"]["spark_jobDetails"]
    sc._jsc.sc().listenerBus().waitUntilEmpty(10_000)
    assert details["jobId"] in list(sc._jsc.sc().statusTracker().getJobIdsForTag("users-tag"))


@pytest.mark.spark
@pytest.mark.connect
def test_a_connect_client_sees_no_job(
    spark_connect: Any, client: Any, memory: Any, data_dir: Path
) -> None:
    install(spark_connect, client)
    try:
        spark_connect.range(3).write.mode("overwrite").parquet(str(data_dir / "connect"))
    finally:
        uninstall(spark_connect)
    events = _events(memory)
    assert [e["eventType"] for e in events] == ["START", "COMPLETE"]
    assert all("spark_jobDetails" not in e["run"]["facets"] for e in events)


@pytest.mark.spark
def test_explicit_mode_reads_no_job(
    spark: Any, client: Any, memory: Any, data_dir: Path, job_group: str
) -> None:
    earlier = set(_group_jobs(spark, job_group))
    install(spark, mode="explicit")
    try:
        with client.run("orders.daily_load"):
            spark.range(3).write.mode("overwrite").parquet(str(data_dir / "explicit"))
    finally:
        uninstall(spark)
    events = _events(memory)
    assert [e["eventType"] for e in events] == ["START", "COMPLETE"]
    assert all("spark_jobDetails" not in e["run"].get("facets", {}) for e in events)
    store = spark.sparkContext._jsc.sc().statusStore()
    ran = set(_group_jobs(spark, job_group)) - earlier
    assert ran
    for job_id in ran:
        tags = store.job(job_id).jobTags()
        assert not any(str(tags.apply(i)).startswith("openlineage") for i in range(tags.size()))
