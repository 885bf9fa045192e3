"""The OpenLineage client: building from the environment, the local default, errors never failing the job."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import read_event
from openlineage_sdk.client import DEFAULT_NAMESPACE, DEFAULT_PRODUCER, OpenLineage
from openlineage_sdk.transports import (
    FileTransport,
    HttpTransport,
    MemoryTransport,
    NoopTransport,
    Transport,
)
from tests.transports._support import LineageServer, run_events


class Exploding(Transport):
    kind = "exploding"

    def emit(self, event: Any) -> None:
        raise RuntimeError("backend client bug")


def test_explicit_transport_producer_and_namespace() -> None:
    memory = MemoryTransport()
    with OpenLineage(
        transport=memory, producer="https://example.com/p", namespace="team"
    ) as client:
        event = run_events(1)[0]
        client.emit(event)
        assert client.producer == "https://example.com/p"
        assert client.namespace == "team"
    assert memory.events == [event]
    assert memory.closed


def test_nothing_configured_writes_a_local_file_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    with caplog.at_level(logging.INFO):
        client = OpenLineage.from_environment({"HOME": str(tmp_path)})
    assert isinstance(client.transport, FileTransport)
    assert client.namespace == DEFAULT_NAMESPACE
    assert client.producer == DEFAULT_PRODUCER
    event = run_events(1)[0]
    client.emit(event)
    client.close()
    lines = (tmp_path / "openlineage_events.jsonl").read_text().splitlines()
    assert [read_event(line) for line in lines] == [event]
    notes = [r for r in caplog.records if "openlineage_events.jsonl" in r.getMessage()]
    assert len(notes) == 1


def test_from_environment_builds_the_http_transport(
    server: LineageServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    env = {
        "HOME": str(tmp_path),
        "OPENLINEAGE_URL": server.url,
        "OPENLINEAGE_API_KEY": "k-123",
        "OPENLINEAGE__TRANSPORT__SPOOL_DIR": str(tmp_path / "spool"),
        "OPENLINEAGE_NAMESPACE": "etl",
    }
    # OPENLINEAGE__TRANSPORT__* without a type is merged into the legacy HTTP section.
    with OpenLineage.from_environment(env) as client:
        assert isinstance(client.transport, HttpTransport)
        assert client.namespace == "etl"
        event = run_events(1)[0]
        client.emit(event)
        assert client.flush(5).complete
        assert client.transport.spool_path is not None
        assert client.transport.spool_path.parent == tmp_path / "spool"
    assert server.requests[0].headers["Authorization"] == "Bearer k-123"
    assert [read_event(doc) for doc in server.events] == [event]


def test_disabled_emits_nothing(tmp_path: Path) -> None:
    client = OpenLineage.from_environment({"OPENLINEAGE_DISABLED": "true", "HOME": str(tmp_path)})
    assert client.disabled
    assert isinstance(client.transport, NoopTransport)
    client.emit(run_events(1)[0])
    memory = MemoryTransport()
    off = OpenLineage(transport=memory, disabled=True)
    off.emit(run_events(1)[0])
    assert memory.events == []


def test_a_transport_given_in_code_still_follows_the_namespace_and_disabled_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENLINEAGE_NAMESPACE", "team")
    assert OpenLineage(transport=MemoryTransport()).namespace == "team"
    assert OpenLineage(transport=MemoryTransport(), namespace="mine").namespace == "mine"
    monkeypatch.setenv("OPENLINEAGE_DISABLED", "true")
    memory = MemoryTransport()
    client = OpenLineage(transport=memory)
    assert client.disabled
    client.emit(run_events(1)[0])
    assert memory.events == []
    assert not OpenLineage(transport=memory, disabled=False).disabled


def test_raise_on_error_raises_for_an_unusable_configuration_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("OPENLINEAGE__TRANSPORT__TYPE", "http")  # no url
    with pytest.raises(ValueError, match="url"):
        OpenLineage(raise_on_error=True)
    assert isinstance(OpenLineage().transport, FileTransport)


def test_a_failing_transport_never_fails_the_job(caplog: pytest.LogCaptureFixture) -> None:
    client = OpenLineage(transport=Exploding())
    client.emit(run_events(1)[0])  # logged, not raised
    assert "backend client bug" in caplog.text
    strict = OpenLineage(transport=Exploding(), raise_on_error=True)
    with pytest.raises(RuntimeError, match="backend client bug"):
        strict.emit(run_events(1)[0])


def test_an_unusable_configuration_falls_back_to_the_local_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    env = {"OPENLINEAGE__TRANSPORT__TYPE": "http", "HOME": str(tmp_path)}  # no url
    client = OpenLineage.from_environment(env)
    assert isinstance(client.transport, FileTransport)
    assert "cannot be used" in caplog.text
    with pytest.raises(ValueError, match="url"):
        OpenLineage.from_environment(env, raise_on_error=True)
