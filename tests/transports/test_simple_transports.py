"""Console, memory, noop and composite transports, and the registry of kinds."""

from __future__ import annotations

import io
import json
import logging
from datetime import datetime, timezone
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any, ClassVar, Literal

import pytest

from openlineage_sdk import DatasetEvent, Job, JobEvent, RunEvent, StaticDataset, read_event
from openlineage_sdk.transports import (
    CompositeConfig,
    CompositeTransport,
    ConsoleTransport,
    DeliveryError,
    FileTransport,
    FlushResult,
    MemoryTransport,
    NoopTransport,
    Transport,
    TransportConfig,
    TransportConfigError,
    TransportError,
    _registry,
    available_kinds,
    create_transport,
    event_key,
    parse_transport_config,
    transport_class,
)
from tests.transports._support import PRODUCER, run_events


def test_console_writes_one_json_line_per_event() -> None:
    stream = io.StringIO()
    events = run_events(1)
    with ConsoleTransport(stream) as transport:
        for event in events:
            transport.emit(event)
    lines = stream.getvalue().splitlines()
    assert lines == [e.to_json() for e in events]
    assert [read_event(line) for line in lines] == events


def test_console_defaults_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    event = run_events(1)[0]
    create_transport({"type": "console"}).emit(event)
    assert read_event(capsys.readouterr().out) == event


def test_memory_keeps_events_and_their_json_at_emit_time() -> None:
    transport = MemoryTransport()
    event = run_events(1)[0]
    transport.emit(event)
    event.event_type = "FAIL"  # later changes do not rewrite what was emitted
    assert transport.events == [event]
    emitted = read_event(transport.json_events[0])
    assert isinstance(emitted, RunEvent)
    assert emitted.event_type == "START"
    assert transport.close().delivered == 1
    assert transport.closed
    transport.clear()
    assert transport.events == []


def test_noop_drops_everything() -> None:
    NoopTransport().emit(run_events(1)[0])
    assert NoopTransport().flush() == FlushResult()


class _Broken(Transport):
    kind = "broken"

    def emit(self, event: Any) -> None:
        raise OSError("disk on fire")


def test_composite_fans_out_and_survives_a_failing_member(caplog: pytest.LogCaptureFixture) -> None:
    a, b = MemoryTransport(), MemoryTransport()
    composite = CompositeTransport([a, _Broken(), b], names=["a", "broken", "b"])
    event = run_events(1)[0]
    composite.emit(event)
    assert a.events == [event]
    assert b.events == [event]
    assert "broken failed" in caplog.text
    assert composite.close(1).delivered == 2


def test_composite_fail_fast_and_failover() -> None:
    a = MemoryTransport()
    fail_fast = CompositeTransport([_Broken(), a], continue_on_failure=False, raise_on_error=True)
    with pytest.raises(TransportError, match="disk on fire"):
        fail_fast.emit(run_events(1)[0])
    assert a.events == []
    first, second = MemoryTransport(), MemoryTransport()
    failover = CompositeTransport([_Broken(), first, second], continue_on_success=False)
    failover.emit(run_events(1)[0])
    assert len(first.events) == 1
    assert second.events == []
    nobody = CompositeTransport([_Broken()], raise_on_error=True)
    with pytest.raises(TransportError, match="no transport took the event"):
        nobody.emit(run_events(1)[0])


class _Unflushable(MemoryTransport):
    def flush(self, timeout: float | None = None) -> FlushResult:
        raise DeliveryError("delivery to nowhere: 1 pending in memory", FlushResult(pending=1))


def test_composite_closes_every_member_before_raising_a_members_error() -> None:
    first, last = _Unflushable(), MemoryTransport()
    composite = CompositeTransport([first, last])
    with pytest.raises(DeliveryError, match="nowhere"):
        composite.close(1)
    assert first.closed
    assert last.closed


def test_composite_from_the_official_layout(tmp_path: Path) -> None:
    config = parse_transport_config(
        {
            "type": "composite",
            "sort_transports": True,
            "transports": {
                "low": {"type": "memory", "priority": 1},
                "file": {"type": "file", "log_file_path": str(tmp_path / "e.jsonl"), "priority": 5},
            },
        }
    )
    assert isinstance(config, CompositeConfig)
    assert config.names == ["file", "low"]
    transport = create_transport(config)
    assert isinstance(transport, CompositeTransport)
    assert isinstance(transport.transports[0], FileTransport)
    transport.emit(run_events(1)[0])
    transport.close()
    assert (tmp_path / "e.jsonl").read_text().count("\n") == 1


def test_event_key_prefers_run_then_job_then_dataset() -> None:
    event = run_events(1)[0]
    assert event_key(event) == event.run.run_id
    when = datetime(2024, 1, 1, tzinfo=timezone.utc)
    job = JobEvent(eventTime=when, job=Job(namespace="ns", name="daily"), producer=PRODUCER)
    dataset = DatasetEvent(
        eventTime=when, dataset=StaticDataset(namespace="ns", name="daily"), producer=PRODUCER
    )
    assert event_key(job) == "ns/daily"
    assert event_key(dataset) == "ns/daily"
    assert event_key(object()) == ""
    # The same keys from the events' JSON, as a spool gives them back.
    for built in (event, job, dataset):
        assert event_key(json.loads(built.to_json())) == event_key(built)
    assert event_key({"run": {}, "job": {"namespace": "ns", "name": "j"}}) == "ns/j"
    assert event_key([1, 2]) == ""


def test_registry_knows_builtins_and_loads_them_lazily() -> None:
    assert {"http", "kafka", "file", "console", "composite", "memory", "noop"} <= set(
        available_kinds()
    )
    assert transport_class("memory") is MemoryTransport
    with pytest.raises(TransportConfigError, match="unknown transport type 'nope'"):
        transport_class("nope")
    with pytest.raises(TransportConfigError, match="needs a 'type'"):
        parse_transport_config({"url": "http://x"})


class PluginConfig(TransportConfig):
    type: Literal["plugin"] = "plugin"
    password: str
    label: str = "x"


class PluginTransport(Transport):
    kind = "plugin"
    config_class: ClassVar[type[TransportConfig]] = PluginConfig

    def __init__(self, label: str) -> None:
        self.label = label

    @classmethod
    def from_config(cls, config: TransportConfig) -> PluginTransport:
        assert isinstance(config, PluginConfig)
        return cls(config.label)

    def emit(self, event: Any) -> None:
        pass


def test_third_party_transport_through_an_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    ep = EntryPoint(
        name="plugin", value=f"{__name__}:PluginTransport", group=_registry.ENTRY_POINT_GROUP
    )

    def fake_entry_points(*, group: str, name: str | None = None) -> list[EntryPoint]:
        assert group == _registry.ENTRY_POINT_GROUP
        return [ep] if name in (None, "plugin") else []

    monkeypatch.setattr(_registry, "entry_points", fake_entry_points)
    assert "plugin" in available_kinds()
    transport = create_transport({"type": "plugin", "password": "hunter2", "label": "mine"})
    assert isinstance(transport, PluginTransport)
    assert transport.label == "mine"
    with pytest.raises(TransportConfigError) as info:
        create_transport({"type": "plugin", "password": {"nested": "hunter2"}})
    assert "password" in str(info.value)
    assert "hunter2" not in str(info.value)


def test_dotted_class_path_as_type() -> None:
    transport = create_transport({"type": f"{__name__}.PluginTransport", "password": "p"})
    assert isinstance(transport, PluginTransport)


def test_importing_the_package_does_not_import_network_libraries() -> None:
    import subprocess
    import sys

    code = (
        "import sys, openlineage_sdk.transports, openlineage_sdk.config, openlineage_sdk.client;"
        "print(any(m in sys.modules for m in ('httpx', 'confluent_kafka', 'yaml')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_transport_errors_are_logged_not_raised_by_default(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Failing(io.StringIO):
        def write(self, s: str) -> int:
            raise OSError("closed pipe")

    with caplog.at_level(logging.ERROR):
        ConsoleTransport(Failing()).emit(run_events(1)[0])
    assert "closed pipe" in caplog.text
