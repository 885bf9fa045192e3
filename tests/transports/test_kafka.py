"""Kafka through librdkafka's built-in mock cluster: a real Kafka protocol peer, no broker to install."""

from __future__ import annotations

import json
import threading
import time
import uuid
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

confluent_kafka = pytest.importorskip("confluent_kafka")

from openlineage_sdk import (  # noqa: E402
    DatasetEvent,
    Job,
    JobEvent,
    Run,
    RunEvent,
    RunFacets,
    StaticDataset,
)
from openlineage_sdk.facets import ParentRunFacet  # noqa: E402
from openlineage_sdk.lifecycle import EventType  # noqa: E402
from openlineage_sdk.transports import KafkaConfig, KafkaTransport  # noqa: E402
from openlineage_sdk.transports._delivery import PARTITIONS  # noqa: E402
from openlineage_sdk.transports.kafka import default_message_key  # noqa: E402
from tests.transports._support import (  # noqa: E402
    assert_exactly_once_in_order,
    hold_sender,
    run_event,
    run_events,
    wait_until,
)

pytestmark = pytest.mark.kafka

TOPIC = "openlineage.events"


@pytest.fixture
def cluster() -> Iterator[str]:
    """Start a 3-broker mock cluster and return its bootstrap address."""
    # The mock cluster creates topics on first use, with 4 partitions each.
    holder = confluent_kafka.Producer({"test.mock.num.brokers": 3, "log_level": 0})
    yield _bootstrap(holder)
    holder.flush(1)


def _bootstrap(producer: Any) -> str:
    # The mock cluster replaces bootstrap.servers; its real address is the broker list.
    brokers = producer.list_topics(timeout=10).brokers.values()
    return ",".join(f"{b.host}:{b.port}" for b in brokers)


def consume(
    bootstrap: str, count: int, timeout: float = 15.0
) -> list[tuple[bytes, dict[str, Any], int]]:
    consumer = confluent_kafka.Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"test-{uuid.uuid4()}",
            "auto.offset.reset": "earliest",
            "log_level": 0,
        }
    )
    consumer.subscribe([TOPIC])
    got: list[tuple[bytes, dict[str, Any], int]] = []
    deadline = time.monotonic() + timeout
    try:
        while len(got) < count and time.monotonic() < deadline:
            msg = consumer.poll(0.2)
            if msg is None or msg.error():
                continue
            got.append((msg.key(), json.loads(msg.value()), msg.partition()))
    finally:
        consumer.close()
    return got


def test_events_are_keyed_by_job_and_stay_in_order(cluster: str, tmp_path: Path) -> None:
    """Keys as the official clients make them; every emit returns while delivery is held."""
    events = run_events(20)
    config = KafkaConfig(
        topic=TOPIC, config={"bootstrap.servers": cluster, "log_level": 0}, spool_dir=tmp_path
    )
    with KafkaTransport(config) as transport:
        hold = hold_sender(transport)
        with hold.closed():
            # The first batch is handed to the sender, which waits at the hold: the other
            # emits return while a delivery is under way and none has finished.
            transport.emit(events[0])
            hold.wait_for_waiting(1)
            for event in events[1:]:
                transport.emit(event)
        result = transport.close(15)
    assert result.complete
    assert result.delivered == len(events)
    got = consume(cluster, len(events))
    assert_exactly_once_in_order([doc for _, doc, _ in got], events)
    partitions: dict[bytes, set[int]] = {}
    for key, doc, partition in got:
        assert key.decode() == f"run:{doc['job']['namespace']}/{doc['job']['name']}"
        partitions.setdefault(key, set()).add(partition)
    assert len(partitions) == 20  # one job per run here
    assert all(len(p) == 1 for p in partitions.values())  # one key, one partition
    assert len({p for ps in partitions.values() for p in ps}) > 1  # keys spread out


def family(seq: int) -> list[RunEvent]:
    """An Airflow DAG run, its task runs and a Spark run one task started, as each emits them.

    Every run but the DAG's names its parent; the Spark run and two of the tasks also name
    the DAG run as their root, the third task names only its parent.
    """
    dag, spark = str(uuid.uuid4()), str(uuid.uuid4())
    tasks = [str(uuid.uuid4()) for _ in range(3)]

    def parent(run_id: str, job: str, root: bool = True) -> ParentRunFacet:
        return ParentRunFacet(
            run={"runId": run_id},
            job={"namespace": "airflow", "name": job},
            root={"run": {"runId": dag}, "job": {"namespace": "airflow", "name": "dag"}}
            if root
            else None,
        )

    def event(run_id: str, job: str, state: EventType, up: ParentRunFacet | None) -> RunEvent:
        nonlocal seq
        seq += 1
        plain = run_event(run_id, job, state, seq, namespace="airflow")
        facets = RunFacets(parent=up) if up is not None else None
        return plain.model_copy(update={"run": Run(runId=run_id, facets=facets)})

    of_task = [parent(dag, "dag"), parent(dag, "dag"), parent(dag, "dag", root=False)]
    of_spark = parent(tasks[1], "dag.task1")
    return [
        event(dag, "dag", "START", None),
        *[event(t, f"dag.task{i}", "START", of_task[i]) for i, t in enumerate(tasks)],
        event(spark, "spark.write", "START", of_spark),
        event(tasks[0], "dag.task0", "COMPLETE", of_task[0]),
        event(spark, "spark.write", "COMPLETE", of_spark),
        event(tasks[1], "dag.task1", "COMPLETE", of_task[1]),
        event(tasks[2], "dag.task2", "FAIL", of_task[2]),
        event(dag, "dag", "FAIL", None),
    ]


def test_a_parent_and_its_children_share_a_partition_in_emission_order(
    cluster: str, tmp_path: Path
) -> None:
    """The point of the official key: a DAG's runs, its tasks' and theirs, read back as emitted."""
    events = family(0)
    others = run_events(8, states=["START", "COMPLETE"], namespace="airflow")
    # The family's events mixed with those of other jobs, as a scheduler emits them.
    mixed = [e for pair in zip(events, others, strict=False) for e in pair]
    mixed += events[len(others) :] + others[len(events) :]
    config = KafkaConfig(
        topic=TOPIC,
        config={"bootstrap.servers": cluster, "log_level": 0},
        spool_dir=tmp_path,
        batch_size=3,  # several batches: each must keep the key's order
    )
    with KafkaTransport(config) as transport:
        for event in mixed:
            transport.emit(event)
        assert transport.close(15).complete
    got = consume(cluster, len(mixed))
    assert_exactly_once_in_order([doc for _, doc, _ in got], mixed)
    ours = [(key, doc, partition) for key, doc, partition in got if key == b"run:airflow/dag"]
    assert [doc for _, doc, _ in ours] == [e.to_dict() for e in events]  # in emission order
    assert len({partition for _, _, partition in ours}) == 1


def test_spooled_events_are_replayed_with_their_keys(cluster: str, tmp_path: Path) -> None:
    """Events read back from the spool lost their in-memory key: it is taken from the JSON."""
    events = run_events(3, states=["START", "COMPLETE"]) + family(100)[4:6]
    expected = [f"run:ns/{e.job.name}" for e in events[:6]] + ["run:airflow/dag"] * 2
    settings = {"bootstrap.servers": cluster, "log_level": 0}
    spool = tmp_path / "spool"
    # Write a spool file the way a process that could not reach Kafka leaves it.
    first = KafkaTransport(topic=TOPIC, config=settings, spool_dir=spool)
    assert first.spool_path is not None
    first.close(5)
    orphan = first.spool_path / "0000000000000000001-1.p00.1000000001.jsonl"
    orphan.write_text("".join(e.to_json() + "\n" for e in events))
    with KafkaTransport(topic=TOPIC, config=settings, spool_dir=spool) as second:
        assert second.flush(15).complete
    got = consume(cluster, len(events))
    assert_exactly_once_in_order([doc for _, doc, _ in got], events)
    keys = {
        json.dumps(e.to_dict(), sort_keys=True): k for e, k in zip(events, expected, strict=True)
    }
    assert all(key.decode() == keys[json.dumps(doc, sort_keys=True)] for key, doc, _ in got)
    assert not orphan.exists()


def test_a_fixed_key_keys_every_message_and_replays_with_it(cluster: str, tmp_path: Path) -> None:
    events = run_events(3, states=["START"])
    settings = {"bootstrap.servers": cluster, "log_level": 0}
    spool = tmp_path / "spool"
    first = KafkaTransport(topic=TOPIC, config=settings, spool_dir=spool)
    assert first.spool_path is not None
    first.close(5)
    # In the file of the lane the key picks, where this SDK spools the key's events.
    lane = zlib.crc32(b"lineage") % PARTITIONS
    orphan = first.spool_path / f"0000000000000000001-1.p{lane:02d}.1000000001.jsonl"
    orphan.write_text(events[0].to_json() + "\n")
    with KafkaTransport(
        topic=TOPIC, config=settings, spool_dir=spool, messageKey="lineage"
    ) as second:
        for event in events[1:]:
            second.emit(event)
        assert second.flush(15).complete
    got = consume(cluster, len(events))
    assert [doc for _, doc, _ in got] == [e.to_dict() for e in events]  # one key, one order
    assert {key for key, _, _ in got} == {b"lineage"}


def test_the_key_of_an_event_is_the_key_of_its_json() -> None:
    """What replay relies on: the key read from the spool is the key the event had."""
    job = JobEvent(
        eventTime="2024-01-01T00:00:00Z",
        producer="https://example.com/p",
        job=Job(namespace="etl", name="orders"),
    )
    dataset = DatasetEvent(
        eventTime="2024-01-01T00:00:00Z",
        producer="https://example.com/p",
        dataset=StaticDataset(namespace="s3://lake", name="orders"),
    )
    events = [*family(0), *run_events(1), job, dataset]
    keys = [default_message_key(e) for e in events]
    assert keys == [default_message_key(json.loads(e.to_json())) for e in events]
    assert keys[:10] == ["run:airflow/dag"] * 10
    assert keys[10:] == ["run:ns/job0"] * 3 + ["job:etl/orders", "dataset:s3://lake/orders"]


@pytest.mark.parametrize(
    ("parent", "key"),
    [
        ({"job": {"namespace": "a", "name": "p"}}, "run:a/p"),
        (
            {
                "job": {"namespace": "a", "name": "p"},
                "root": {"job": {"namespace": "r", "name": "q"}},
            },
            "run:r/q",
        ),
        # As the official Python client: a root or parent job with a part missing counts as none.
        (
            {
                "job": {"namespace": "a", "name": "p"},
                "root": {"job": {"namespace": "r", "name": ""}},
            },
            "run:ns/own",
        ),
        ({"job": {"namespace": "a"}}, "run:ns/own"),
        ({}, "run:ns/own"),
    ],
)
def test_the_run_key_falls_back_as_the_official_client_does(
    parent: dict[str, Any], key: str
) -> None:
    doc = {
        "run": {"runId": "r", "facets": {"parent": parent}},
        "job": {"namespace": "ns", "name": "own"},
    }
    assert default_message_key(doc) == key


def test_an_event_without_run_job_or_dataset_has_no_key() -> None:
    assert default_message_key({"eventTime": "2024-01-01T00:00:00Z"}) is None
    assert default_message_key({"run": {"runId": "r"}}) is None


def test_unreachable_cluster_spools_and_close_does_not_wait_for_the_producer(
    tmp_path: Path,
) -> None:
    """librdkafka keeps undeliverable messages for ``message.timeout.ms`` (a minute here),
    and the sender waits for their verdict; ``close`` returns without it, events spooled."""
    config = KafkaConfig(
        topic=TOPIC,
        config={"bootstrap.servers": "127.0.0.1:1", "message.timeout.ms": 60_000, "log_level": 0},
        spool_dir=tmp_path,
        backoff_initial=0.05,
    )
    transport = KafkaTransport(config)
    sender: Any = transport._engine.sender
    sending, sent = threading.Event(), threading.Event()
    send = sender.send

    def watched_send(batch: Any) -> Any:
        sending.set()
        try:
            return send(batch)  # produces, then waits for the delivery reports
        finally:
            sent.set()

    sender.send = watched_send
    events = run_events(2)
    for event in events:
        transport.emit(event)
    wait_until(sending.is_set, "the sender handing a batch to the producer")
    result = transport.close(0.5)
    assert not sent.is_set()  # close returned while the sender still waits for a verdict
    assert result.pending == 0
    assert result.spooled == len(events)


def test_sasl_settings_are_masked() -> None:
    config = KafkaConfig(
        topic=TOPIC,
        config={"bootstrap.servers": "k:9092", "sasl.username": "u", "sasl.password": "pw-SECRET"},
    )
    assert "pw-SECRET" not in repr(config)
    assert "pw-SECRET" not in str(config)


def test_a_message_too_large_is_refused_not_retried_forever(cluster: str, tmp_path: Path) -> None:
    """librdkafka refuses it in ``produce`` itself, before any delivery report."""
    (big,) = run_events(1, states=["START"], padding=1_100_000)  # over message.max.bytes
    small = run_events(2, states=["START"])
    config = KafkaConfig(
        topic=TOPIC,
        config={"bootstrap.servers": cluster, "log_level": 0},
        spool_dir=tmp_path,
        max_concurrent_requests=1,
    )
    with KafkaTransport(config) as transport:
        for event in [big, *small]:
            transport.emit(event)
        result = transport.flush(15)
    assert result.complete
    assert result.rejected == 1
    assert result.delivered == len(small)
    assert_exactly_once_in_order([doc for _, doc, _ in consume(cluster, len(small))], small)
    (kept,) = tmp_path.rglob("rejected.jsonl")
    assert kept.read_text() == big.to_json() + "\n"
