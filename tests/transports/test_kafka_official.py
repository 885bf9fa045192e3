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

import attr
import pytest

confluent_kafka = pytest.importorskip("confluent_kafka")

from openlineage_sdk import OpenLineageClient  # noqa: E402
from openlineage_sdk.transports import KafkaTransport  # noqa: E402
from tests._official import (  # noqa: E402
    dataset_event,
    fresh,
    job_event,
    rich_run_event,
    run_id,
    strip,
    v1_run_event,
)

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from openlineage.client import OpenLineageClient as OfficialClient
    from openlineage.client import event_v2 as ev
    from openlineage.client import facet as facet_v1
    from openlineage.client.facet_v2 import parent_run

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


def _both(
    cluster: str, transport: dict[str, Any], tmp_path: Path, events: list[Any] = EVENTS
) -> tuple[list[Any], list[Any]]:
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
        for event in fresh(events):
            client.emit(event)
        assert client.close() is True
        # Events of different keys may be delivered in any order here (each key's stay in
        # order): compare the messages as a set.
        got = _consume(cluster, topic, len(events))
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


def child_run_event(n: int, root: bool) -> Any:
    """A task run of an Airflow DAG run: its parent names the DAG run, and as ``root`` too."""
    parent = parent_run.ParentRunFacet(
        run=parent_run.Run(runId=run_id(200)),
        job=parent_run.Job(namespace="airflow", name="dag"),
        root=parent_run.Root(
            run=parent_run.RootRun(runId=run_id(201)),
            job=parent_run.RootJob(namespace="airflow", name="dag.root"),
        )
        if root
        else None,
    )
    return ev.RunEvent(
        eventType=ev.RunState.START,
        eventTime="2024-01-01T00:00:00Z",
        run=ev.Run(runId=run_id(n), facets={"parent": parent}),
        job=ev.Job(namespace="airflow", name=f"dag.task{n}"),
        producer="https://example.com/official-producer",
    )


def v1_child_run_event() -> Any:
    """A run of the older API whose parent facet is the older one (its job a plain dict)."""
    event = v1_run_event()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        parent = facet_v1.ParentRunFacet.create(run_id(300), "dbt", "project.run")
    return attr.evolve(event, run=attr.evolve(event.run, facets={"parent": parent}))


#: Every way the official client picks a key: a run's own job, its parent's job (in either
#: API), its root parent's job, a job event's, a dataset event's.
KEYED = [
    *EVENTS,
    child_run_event(11, root=False),
    child_run_event(12, root=True),
    v1_child_run_event(),
]


@pytest.mark.parametrize("transport", [{"type": "kafka"}, {"type": "kafka", "messageKey": ""}])
def test_the_same_default_keys(cluster: str, tmp_path: Path, transport: dict[str, Any]) -> None:
    """Without ``messageKey`` (an empty one is none, there too), the official keys."""
    official, ours = _both(cluster, transport, tmp_path, KEYED)
    assert len(ours) == len(KEYED)
    # Each value with its key, whatever the order of delivery.
    assert sorted((json.dumps(v, sort_keys=True), k) for k, v, _ in ours) == sorted(
        (json.dumps(v, sort_keys=True), k) for k, v, _ in official
    )
    assert {k for k, _, _ in ours} == {
        "run:airflow/dag",  # the rich event's root parent
        "job:etl/orders.declared",
        "dataset:s3://lake/orders/daily",
        "run:dbt/model.orders",
        "run:dbt/project.run",
        "run:airflow/dag.root",
    }
