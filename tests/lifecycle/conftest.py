"""A real client over a real MemoryTransport; every event a test emits must validate strictly."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from openlineage_sdk import RunEvent, validate_event
from openlineage_sdk.client import OpenLineage
from openlineage_sdk.transports import MemoryTransport

PRODUCER = "https://example.com/pipelines/orders"


@pytest.fixture
def memory() -> Iterator[MemoryTransport]:
    transport = MemoryTransport()
    yield transport
    # Checked after every test, whichever client emitted them: every event is valid, with facet
    # schemas and string formats (uuid, date-time, uri) checked too.
    for text in transport.json_events:
        assert validate_event(text, strict=True, formats=True) == [], text


@pytest.fixture
def client(memory: MemoryTransport) -> Iterator[OpenLineage]:
    with OpenLineage(transport=memory, producer=PRODUCER, namespace="team") as ol:
        yield ol


def run_events(memory: MemoryTransport) -> list[RunEvent]:
    events = memory.events
    assert all(isinstance(e, RunEvent) for e in events)
    return [e for e in events if isinstance(e, RunEvent)]


def types_of(memory: MemoryTransport) -> list[str | None]:
    return [e.event_type for e in run_events(memory)]
