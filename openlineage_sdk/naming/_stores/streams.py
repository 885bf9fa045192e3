"""Message streams: Kafka topics, Google Cloud Pub/Sub topics and subscriptions.

Each store is its builder followed by its declaration (see :mod:`openlineage_sdk.naming._store`).
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from openlineage_sdk.naming import _parts as p
from openlineage_sdk.naming import _urls as u
from openlineage_sdk.naming._model import DatasetName
from openlineage_sdk.naming._store import Store, declare, hostport

__all__ = ["kafka", "pubsub_subscription", "pubsub_topic"]


# --------------------------------------------------------------------------- Kafka

_TOPIC_RE = re.compile(r"^[A-Za-z0-9._-]{1,249}$")
_LISTENER_RE = re.compile(r"^[A-Za-z_]+://")


def kafka(bootstrap_server: str, topic: str) -> DatasetName:
    """Name a Kafka topic.

    Args:
        bootstrap_server: ``host:port`` of a bootstrap server (port 9092 when
            left out). A comma-separated list names the cluster by its first
            server, and a listener prefix such as ``SASL_SSL://`` is dropped.
        topic: The topic.

    Returns:
        ``kafka://{host}:{port}`` and ``{topic}``.
    """
    store = "kafka"
    host, port = p.host_port(_LISTENER_RE.sub("", p.text(bootstrap_server)))
    server = hostport(store, host, port, part="bootstrap server host")
    name = p.text(topic)
    if not name:
        raise p.fail(store, "missing topic")
    if not _TOPIC_RE.match(name):
        raise p.fail(store, f"invalid topic {p.redact(name)!r}")
    return DatasetName(f"kafka://{server}", name)


def _kafka_uri(store: Store, uri: str, table: str | None) -> DatasetName:
    # kafka://{bootstrap servers}/{topic}: kafka() reads the servers.
    servers, remainder = u.authority(uri, uri.partition(":")[2])
    topic = unquote(u.path_and_query(remainder)[0].strip("/"))
    if table is not None:
        if topic:
            raise p.fail(uri, "topic given twice: in the path and as table")
        topic = table
    with u.reported_against(uri):
        return kafka(servers, topic)


declare(Store("kafka", default_port=9092, schemes=("kafka",), parse_uri=_kafka_uri))


# --------------------------------------------------------------------------- Pub/Sub


def _pubsub(kind: str, project: str, resource: str) -> DatasetName:
    store = "pubsub"
    proj = p.ident(project, store, "project")
    res = p.ident(resource, store, kind)
    # ':' separates the parts of the name; ids never contain '/' or ':'
    # (a legacy domain-scoped project, "example.com:proj", keeps its ':').
    if "/" in proj:
        raise p.fail(store, "invalid project: '/' not allowed")
    if "/" in res or ":" in res:
        raise p.fail(store, f"invalid {kind}: '/' and ':' not allowed")
    return DatasetName("pubsub", f"{kind}:{proj}:{res}")


def pubsub_topic(project: str, topic: str) -> DatasetName:
    """Name a Google Cloud Pub/Sub topic.

    Args:
        project: The project id.
        topic: The topic id (not its ``projects/.../topics/...`` path).

    Returns:
        ``pubsub`` and ``topic:{project}:{topic}``.
    """
    return _pubsub("topic", project, topic)


def pubsub_subscription(project: str, subscription: str) -> DatasetName:
    """Name a Google Cloud Pub/Sub subscription.

    Args:
        project: The project id.
        subscription: The subscription id.

    Returns:
        ``pubsub`` and ``subscription:{project}:{subscription}``.
    """
    return _pubsub("subscription", project, subscription)


def _pubsub_uri(store: Store, uri: str, table: str | None) -> DatasetName:
    # pubsub:topic:{project}:{topic}, the namespace and name joined by ':'
    body = uri.partition(":")[2].lstrip("/")
    if table is not None:
        body = f"{body.rstrip(':')}:{table}" if body else table
    kind, _, rest = body.partition(":")
    project, _, resource = rest.rpartition(":")
    with u.reported_against(uri):
        if kind == "topic":
            return pubsub_topic(project, resource)
        if kind == "subscription":
            return pubsub_subscription(project, resource)
    raise p.fail(uri, "invalid resource type: 'topic' or 'subscription' expected")


declare(Store("pubsub", schemes=("pubsub",), parse_uri=_pubsub_uri))
