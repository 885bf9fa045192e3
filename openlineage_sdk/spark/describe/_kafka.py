"""Kafka batch reads and writes, named from their options as the JVM agent names them.

The agent's ``KafkaRelationVisitor``: each topic the options name (``subscribe``, ``topic``, the
keys of ``assign``'s JSON; never ``subscribePattern``, which names no topic) is a dataset in the
namespace ``kafka://{host}:{port}`` of the first bootstrap server. A read's schema is the Kafka
source's, the same for every topic; nothing is asked of a broker.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Literal

from openlineage_sdk.models.records import SchemaDatasetFacetFields
from openlineage_sdk.spark._execution import DatasetIdentity, DatasetLineage

__all__ = ["KAFKA_SOURCE_SCHEMA", "kafka_datasets", "kafka_namespace"]

# The columns of every Kafka batch read (Spark's Kafka source, without headers).
KAFKA_SOURCE_SCHEMA: list[SchemaDatasetFacetFields] = [
    {"name": "key", "type": "binary"},
    {"name": "value", "type": "binary"},
    {"name": "topic", "type": "string"},
    {"name": "partition", "type": "integer"},
    {"name": "offset", "type": "long"},
    {"name": "timestamp", "type": "timestamp"},
    {"name": "timestampType", "type": "integer"},
]


def kafka_namespace(servers: str | None) -> str:
    """``kafka://{host}:{port}`` of the first bootstrap server, as the agent resolves it.

    A port left out is written ``-1``, as ``java.net.URI`` reports it to the agent.
    """
    if not servers:
        return "kafka://"
    first = servers.split(",")[0].strip()
    if "://" not in first:
        first = "PLAINTEXT://" + first
    rest = first.split("://", 1)[1].split("/", 1)[0].rsplit("@", 1)[-1]
    if rest.startswith("[") and "]" in rest:  # an IPv6 address, kept in its brackets
        host = rest[: rest.index("]") + 1]
        port = rest[len(host) + 1 :] if rest[len(host) :].startswith(":") else ""
    else:
        host, _, port = rest.partition(":")
    # The host as written; a port left out (or not a number) is -1, as ``URI.getPort`` says.
    return f"kafka://{host}:{port if port.isdigit() else -1}"


def kafka_datasets(
    options: Mapping[str, str],
    role: Literal["input", "output"],
    schema: list[SchemaDatasetFacetFields] | None = None,
) -> tuple[list[DatasetLineage], list[str]]:
    """The topics a Kafka read or write names, and what could not be told."""
    lowered = {str(k).lower(): str(v) for k, v in options.items()}
    namespace = kafka_namespace(
        options.get("kafka.bootstrap.servers") or lowered.get("kafka.bootstrap.servers")
    )
    topics = [lowered[key] for key in ("subscribe", "topic") if lowered.get(key)]
    problems: list[str] = []
    assign = lowered.get("assign")
    if assign:
        try:
            topics.extend(str(topic) for topic in json.loads(assign))
        except (ValueError, TypeError) as error:
            problems.append(f"Kafka: the assign option is not a JSON object of topics: {error}")
    if lowered.get("subscribepattern"):
        problems.append("Kafka: subscribePattern names no topic, and is not reported as one")
    if role == "input" and schema is None:
        schema = list(KAFKA_SOURCE_SCHEMA)
    datasets = [
        DatasetLineage(DatasetIdentity(namespace, topic), role, schema)
        for topic in dict.fromkeys(topics)
    ]
    return datasets, problems
