"""The configuration's ``metrics`` section: the client's counters and timers, as the Java client's.

``simple`` is read back with ``client.metrics.snapshot()``; ``statsd`` is received by a real UDP
socket on loopback, in each flavor's line format.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import OpenLineage
from openlineage_sdk.config import ConfigError, load_config
from openlineage_sdk.transports import MemoryTransport

TAGS = (("openlineage.transport", "MemoryTransport"),)


def _emit_runs(client: OpenLineage, *names: str) -> None:
    for name in names:
        client.run(name).start()


def _meters(client: OpenLineage) -> dict[str, tuple[float, int]]:
    assert client.metrics is not None
    return {m.name: (m.value, m.updates) for m in client.metrics.snapshot()}


@pytest.fixture
def udp() -> Iterator[socket.socket]:
    """A StatsD server's socket: a real UDP socket on loopback."""
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind(("127.0.0.1", 0))
    server.settimeout(10)
    yield server
    server.close()


def test_without_the_section_there_is_no_registry() -> None:
    with OpenLineage(transport=MemoryTransport(), config={}) as client:
        assert client.metrics is None


def test_simple_counts_what_was_sent_filtered_and_failed() -> None:
    memory = MemoryTransport()
    config = {"metrics": {"type": "simple"}, "filters": [{"type": "exact", "match": "noisy"}]}
    with OpenLineage(transport=memory, config=config) as client:
        _emit_runs(client, "orders", "noisy", "customers")
        meters = _meters(client)
        assert client.metrics is not None
        tags = {m.tags for m in client.metrics.snapshot()}
    assert len(memory.events) == 2
    assert meters["openlineage.emit.start"] == (3, 3)
    assert meters["openlineage.emit.complete"] == (2, 2)
    assert meters["openlineage.emit.filtered"] == (1, 1)
    assert "openlineage.emit.failed" not in meters
    total_us, timed = meters["openlineage.emit.time"]
    assert timed == 2
    assert total_us > 0
    assert tags == {TAGS}


class _Broken(MemoryTransport):
    def emit(self, event: Any) -> None:
        raise OSError("the backend is down")


def test_a_failed_emit_is_counted_and_still_logged(caplog: pytest.LogCaptureFixture) -> None:
    with OpenLineage(transport=_Broken(), config={"metrics": {"type": "simple"}}) as client:
        _emit_runs(client, "orders")
        meters = _meters(client)
    assert meters["openlineage.emit.failed"] == (1, 1)
    assert "openlineage.emit.complete" not in meters
    assert "the event could not be emitted" in caplog.text


@pytest.mark.parametrize(
    ("flavor", "start", "timer"),
    [
        (
            "datadog",
            "openlineage.emit.start:1|c|#openlineage.transport:MemoryTransport",
            "openlineage.emit.time:",
        ),
        (
            "etsy",
            "openlineage.emit.start.openlineage.transport.MemoryTransport:1|c",
            "openlineage.emit.time.openlineage.transport.MemoryTransport:",
        ),
        (
            "telegraf",
            "openlineage.emit.start,openlineage.transport=MemoryTransport:1|c",
            "openlineage.emit.time,openlineage.transport=MemoryTransport:",
        ),
    ],
)
def test_statsd_sends_each_emit_as_one_datagram(
    udp: socket.socket, flavor: str, start: str, timer: str
) -> None:
    port = udp.getsockname()[1]
    section = {"type": "statsd", "host": "127.0.0.1", "port": port, "flavor": flavor}
    with OpenLineage(transport=MemoryTransport(), config={"metrics": section}) as client:
        _emit_runs(client, "orders")
        lines = udp.recv(65535).decode().split("\n")
        assert _meters(client)["openlineage.emit.complete"] == (1, 1)  # kept as simple keeps them
    assert lines[0] == start
    assert lines[1].startswith(timer)
    assert lines[1].split("|")[1] == "ms"
    assert "openlineage.emit.complete" in lines[2]


def test_composite_feeds_every_registry(udp: socket.socket) -> None:
    port = udp.getsockname()[1]
    section = {
        "type": "composite",
        "registries": [{"type": "simple"}, {"type": "statsd", "host": "127.0.0.1", "port": port}],
    }
    with OpenLineage(transport=MemoryTransport(), config={"metrics": section}) as client:
        _emit_runs(client, "orders")
        assert udp.recv(65535).decode().startswith("openlineage.emit.start:1|c")
        assert _meters(client)["openlineage.emit.start"] == (1, 1)


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"type": "prometheus"}, "metrics.type must be simple, statsd or composite"),
        ({"type": "statsd", "port": "eighty"}, "metrics.port must be a port number"),
        ({"type": "statsd", "port": 70000}, r"metrics.port must be a port number \(1 to 65535\)"),
        ({"type": "statsd", "flavor": "sysdig"}, "metrics.flavor must be one of datadog"),
        ({"type": "composite", "registries": [{"type": "x"}]}, r"metrics.registries\[0\].type"),
    ],
)
def test_a_bad_section_is_named_with_its_rule(
    section: dict[str, Any], message: str, caplog: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(ConfigError, match=message):
        OpenLineage(transport=MemoryTransport(), config={"metrics": section}, raise_on_error=True)
    with OpenLineage(transport=MemoryTransport(), config={"metrics": section}) as client:
        assert client.metrics is None
    assert "the 'metrics' section is ignored" in caplog.text


def test_the_file_section_is_read_without_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "openlineage.yml"
    path.write_text("transport:\n  type: console\nmetrics:\n  type: statsd\n  port: 8125\n")
    with caplog.at_level(logging.WARNING, logger="openlineage_sdk"):
        config = load_config(env={}, config_file=path)
    assert config.metrics == {"type": "statsd", "port": 8125}
    assert caplog.records == []
