"""A real client over a real MemoryTransport; every event a test emits must validate strictly."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from openlineage_sdk import RunEvent, validate_event
from openlineage_sdk.client import OpenLineage
from openlineage_sdk.transports import MemoryTransport

PRODUCER = "https://example.com/pipelines/orders"


@pytest.fixture
def memory() -> MemoryTransport:
    return MemoryTransport()


@pytest.fixture
def client(memory: MemoryTransport) -> Iterator[OpenLineage]:
    with OpenLineage(transport=memory, producer=PRODUCER, namespace="team") as ol:
        yield ol
    # Checked after every test: whatever the lifecycle emitted is a valid event, with facet
    # schemas and string formats (uuid, date-time, uri) checked too.
    for text in memory.json_events:
        assert validate_event(text, strict=True, formats=True) == [], text


def run_events(memory: MemoryTransport) -> list[RunEvent]:
    events = memory.events
    assert all(isinstance(e, RunEvent) for e in events)
    return [e for e in events if isinstance(e, RunEvent)]


def types_of(memory: MemoryTransport) -> list[str | None]:
    return [e.event_type for e in run_events(memory)]
