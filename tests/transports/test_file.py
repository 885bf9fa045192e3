"""The JSON Lines file transport, including several processes appending at once."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from openlineage_sdk import RunEvent, read_event
from openlineage_sdk.transports import FileTransport, TransportError
from tests.transports._support import run_events, seq_of


def _writer(path: str, writer: int, count: int) -> None:
    transport = FileTransport(path)
    events = run_events(count, states=["START"], padding=(writer + 1) * 9000, namespace=str(writer))
    for event in events:
        transport.emit(event)
    transport.close()


def test_appends_one_event_per_line(tmp_path: Path) -> None:
    path = tmp_path / "out" / "events.jsonl"
    events = run_events(2)
    with FileTransport(path) as transport:
        for event in events:
            transport.emit(event)
        assert transport.flush().delivered == len(events)
    lines = path.read_text().splitlines()
    assert lines == [e.to_json() for e in events]
    assert [read_event(line) for line in lines] == events
    with FileTransport(path) as again:  # a second transport appends, never truncates
        again.emit(events[0])
    assert len(path.read_text().splitlines()) == len(events) + 1


def test_several_processes_never_mix_lines(tmp_path: Path) -> None:
    path = tmp_path / "shared.jsonl"
    writers, per_writer = 4, 300
    # Lines of 9 to 36 KB: far above PIPE_BUF, where unlocked writes could interleave.
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(path), w, per_writer)) for w in range(writers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    seen: dict[int, list[int]] = {}
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    for line in lines[:-1]:
        event = read_event(line)  # a torn or interleaved line would not parse
        assert isinstance(event, RunEvent)
        writer = int(event.job.namespace)
        assert event.job.facets is not None
        assert event.job.facets.documentation is not None
        assert len(event.job.facets.documentation.description) == 9000 * (writer + 1)
        seen.setdefault(writer, []).append(seq_of(event))
    assert sorted(seen) == list(range(writers))
    for order in seen.values():
        assert order == list(range(per_writer))  # each writer's lines in its own order


def test_reopens_a_rotated_file(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    events = run_events(2, states=["START"])
    with FileTransport(path) as transport:
        transport.emit(events[0])
        path.rename(tmp_path / "events.jsonl.1")
        transport.emit(events[1])
    assert read_event(path.read_text()) == events[1]
    assert read_event((tmp_path / "events.jsonl.1").read_text()) == events[0]


def test_write_errors_are_logged_or_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")
    event = run_events(1)[0]
    FileTransport(blocked / "events.jsonl").emit(event)  # parent is a file: cannot create
    assert "could not append" in caplog.text
    with pytest.raises(TransportError, match="could not append"):
        FileTransport(blocked / "events.jsonl", raise_on_error=True).emit(event)
    assert os.path.isfile(blocked)
