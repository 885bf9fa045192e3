"""Kafka through librdkafka's built-in mock cluster: a real Kafka protocol peer, no broker to install."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

confluent_kafka = pytest.importorskip("confluent_kafka")

from openlineage_sdk.transports import KafkaConfig, KafkaTransport  # noqa: E402
from tests.transports._support import (  # noqa: E402
    assert_exactly_once_in_order,
    hold_sender,
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


def test_events_are_keyed_by_run_and_stay_in_order(cluster: str, tmp_path: Path) -> None:
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
        assert key.decode() == doc["run"]["runId"]
        partitions.setdefault(key, set()).add(partition)
    assert all(len(p) == 1 for p in partitions.values())  # one run, one partition
    assert len({p for ps in partitions.values() for p in ps}) > 1  # runs spread out


def test_spooled_events_are_replayed_with_their_keys(cluster: str, tmp_path: Path) -> None:
    """Events read back from the spool lost their in-memory key: it is taken from the JSON."""
    events = run_events(3, states=["START", "COMPLETE"])
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
    assert all(key.decode() == event_key_of(doc) for key, doc, _ in got)
    assert not orphan.exists()


def event_key_of(doc: dict[str, Any]) -> str:
    return str(doc["run"]["runId"])


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
