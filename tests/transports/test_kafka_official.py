"""Kafka beside the official client, through librdkafka's mock cluster.

The same configuration (``OpenLineageClient(config=...)`` and the official client's) and the same
event objects; each client writes to a topic of its own, and the messages (topic, key, value as
JSON, headers) are compared.
"""

from __future__ import annotations

import json
import time
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

confluent_kafka = pytest.importorskip("confluent_kafka")

from openlineage_sdk import OpenLineageClient  # noqa: E402
from openlineage_sdk.transports import KafkaTransport  # noqa: E402
from tests._official import (  # noqa: E402
    dataset_event,
    fresh,
    job_event,
    rich_run_event,
    strip,
    v1_run_event,
)

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from openlineage.client import OpenLineageClient as OfficialClient

pytestmark = pytest.mark.kafka

EVENTS = [rich_run_event(1), job_event(), dataset_event(), v1_run_event()]


@pytest.fixture
def cluster() -> Iterator[str]:
    """A 3-broker mock cluster; its bootstrap address."""
    holder = confluent_kafka.Producer({"test.mock.num.brokers": 3, "log_level": 0})
    brokers = holder.list_topics(timeout=10).brokers.values()
    yield ",".join(f"{b.host}:{b.port}" for b in brokers)
    holder.flush(1)


def _consume(bootstrap: str, topic: str, count: int) -> list[tuple[Any, Any, Any]]:
    consumer = confluent_kafka.Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"test-{uuid.uuid4()}",
            "auto.offset.reset": "earliest",
            "log_level": 0,
        }
    )
    # Partitions assigned, not subscribed: no consumer group to join and wait for.
    partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
    consumer.assign(
        [
            confluent_kafka.TopicPartition(topic, p, confluent_kafka.OFFSET_BEGINNING)
            for p in partitions
        ]
    )
    got: list[tuple[Any, Any, Any]] = []
    deadline = time.monotonic() + 20
    try:
        while len(got) < count and time.monotonic() < deadline:
            msg = consumer.poll(0.2)
            if msg is None or msg.error():
                continue
            key = msg.key().decode() if msg.key() is not None else None
            got.append((key, strip(json.loads(msg.value())), msg.headers()))
    finally:
        consumer.close()
    return got


def _both(cluster: str, transport: dict[str, Any], tmp_path: Path) -> tuple[list[Any], list[Any]]:
    seen = []
    for who in ("official", "ours"):
        topic = f"lineage.{who}"
        conf = {
            "transport": {
                **transport,
                "topic": topic,
                "config": {"bootstrap.servers": cluster, "log_level": 0},
            }
        }
        if who == "official":
            client: Any = OfficialClient(config=conf)
        else:
            conf["transport"]["spool_dir"] = str(tmp_path / "spool")
            client = OpenLineageClient(config=conf)
            assert isinstance(client.transport, KafkaTransport)
        for event in fresh(EVENTS):
            client.emit(event)
        assert client.close() is True
        # Events of different runs may be delivered in any order here (each run's stay in
        # order): compare the messages as a set.
        got = _consume(cluster, topic, len(EVENTS))
        seen.append(sorted(got, key=lambda m: (str(m[0]), json.dumps(m[1], sort_keys=True))))
    return seen[0], seen[1]


def test_the_same_values_and_the_same_fixed_key(cluster: str, tmp_path: Path) -> None:
    official, ours = _both(cluster, {"type": "kafka", "messageKey": "lineage"}, tmp_path)
    assert len(ours) == len(EVENTS)
    assert ours == official
    assert {key for key, _, _ in ours} == {"lineage"}


def test_the_same_values(cluster: str, tmp_path: Path) -> None:
    official, ours = _both(cluster, {"type": "kafka", "flush": True}, tmp_path)
    assert len(ours) == len(official) == len(EVENTS)
    assert sorted(json.dumps(v, sort_keys=True) for _, v, _ in ours) == sorted(
        json.dumps(v, sort_keys=True) for _, v, _ in official
    )
    assert {headers for _, _, headers in ours} == {headers for _, _, headers in official} == {None}


@pytest.mark.xfail(
    strict=True,
    reason=(
        "The default message key differs: the official client keys a run event by its root "
        "parent's (else its parent's, else its own) job, run:{namespace}/{name}, and job and "
        "dataset events by job:/dataset:{namespace}/{name}; this SDK's Kafka transport keys "
        "a run event by its run id and the others by {namespace}/{name}."
    ),
)
def test_the_same_default_keys(cluster: str, tmp_path: Path) -> None:
    official, ours = _both(cluster, {"type": "kafka"}, tmp_path)
    # Each value with its key, whatever the order of delivery.
    assert sorted((json.dumps(v, sort_keys=True), k) for k, v, _ in ours) == sorted(
        (json.dumps(v, sort_keys=True), k) for k, v, _ in official
    )
