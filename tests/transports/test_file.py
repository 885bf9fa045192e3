"""The file transport: JSON Lines (several processes appending at once) and a file per event."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import RunEvent, dataset_event, job_event, read_event
from openlineage_sdk.naming import DatasetName
from openlineage_sdk.transports import FileConfig, FileTransport, TransportError
from openlineage_sdk.transports._registry import create_transport, parse_transport_config
from tests.transports._support import run_event, run_events, seq_of


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


# -- a file per event (append: false), as the official client names them

_NAME = re.compile(r"events-(\d{8}-\d{6}\.\d{6})\.json")


def test_append_false_writes_a_file_per_event_with_the_official_names(tmp_path: Path) -> None:
    base = tmp_path / "out" / "events"
    events = run_events(3)
    with FileTransport(base, append=False) as transport:
        for event in events:
            transport.emit(event)
        assert transport.flush().delivered == len(events)
    files = sorted((tmp_path / "out").iterdir())
    assert not base.exists()
    assert len(files) == len(events)
    assert all(_NAME.fullmatch(f.name) for f in files)
    # One compact JSON document and a newline each; the names sort in the order written.
    assert [f.read_text() for f in files] == [e.to_json() + "\n" for e in events]
    stamp = _NAME.fullmatch(files[0].name)
    assert stamp is not None
    written = datetime.strptime(stamp.group(1), "%Y%m%d-%H%M%S.%f")
    assert abs(written - datetime.now()) < timedelta(minutes=5)  # local time, as the official


class _FrozenClock(datetime):
    """``datetime.now()`` always says the same microsecond."""

    @classmethod
    def now(cls, tz: Any = None) -> _FrozenClock:
        return cls(2024, 5, 1, 10, 0, 0, 999_998)


def test_a_taken_name_is_never_overwritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("openlineage_sdk.transports.file.datetime", _FrozenClock)
    taken = tmp_path / "events-20240501-100000.999998.json"
    taken.write_text("another writer's event\n")
    events = run_events(1)
    with FileTransport(tmp_path / "events", append=False) as transport:
        for event in events:
            transport.emit(event)
    assert taken.read_text() == "another writer's event\n"
    # The same microsecond for every event: each moved to the next free one, in order.
    assert sorted(f.name for f in tmp_path.iterdir()) == [
        "events-20240501-100000.999998.json",
        "events-20240501-100000.999999.json",
        "events-20240501-100001.000000.json",
        "events-20240501-100001.000001.json",
    ]
    names = sorted(tmp_path.iterdir())[1:]
    assert [f.read_text() for f in names] == [e.to_json() + "\n" for e in events]


def test_debug_mode_names_the_job_and_the_event_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("openlineage_sdk.transports.file.datetime", _FrozenClock)
    run = run_event(str(uuid.UUID(int=1)), "orders/daily load:v2", "COMPLETE", 0)
    job = job_event("ns", "declared.job")
    dataset = dataset_event(DatasetName("s3://lake", "orders/daily"))
    with FileTransport(tmp_path / "ol", append=False, debug_mode=True) as transport:
        for event in (run, job, dataset):
            transport.emit(event)
    files = sorted(tmp_path.iterdir())
    assert [f.name for f in files] == [
        "ol-240501T100000.999998-orders__daily__load__v2-COMPLETE.json",
        "ol-240501T100000.999999-declared.job-unknown_event_type.json",
        "ol-240501T100001.000000-orders__daily-unknown_event_type.json",
    ]
    text = files[0].read_text()
    assert text == json.dumps(json.loads(run.to_json()), sort_keys=True, indent=2) + "\n"


def test_debug_mode_does_nothing_when_appending(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    events = run_events(1)
    with FileTransport(path, debug_mode=True) as transport:
        for event in events:
            transport.emit(event)
    assert path.read_text().splitlines() == [e.to_json() for e in events]


def _file_writer(base: str, writer: int, count: int) -> None:
    transport = FileTransport(base, append=False)
    for event in run_events(count, states=["START"], namespace=str(writer)):
        transport.emit(event)


def test_several_processes_writing_files_lose_none(tmp_path: Path) -> None:
    writers, per_writer = 4, 150
    ctx = multiprocessing.get_context("spawn")
    base = str(tmp_path / "events")
    procs = [ctx.Process(target=_file_writer, args=(base, w, per_writer)) for w in range(writers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    files = list(tmp_path.iterdir())
    assert len(files) == writers * per_writer
    seen: dict[str, list[int]] = {}
    for f in sorted(files):
        assert _NAME.fullmatch(f.name)
        event = read_event(f.read_text())
        assert isinstance(event, RunEvent)
        seen.setdefault(event.job.namespace, []).append(seq_of(event))
    # Names sort in each writer's order of emission.
    assert all(order == list(range(per_writer)) for order in seen.values())


def test_a_file_per_event_that_cannot_be_written_is_logged_or_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")
    event = run_events(1)[0]
    FileTransport(blocked / "events", append=False).emit(event)
    assert "could not write the event to" in caplog.text
    with pytest.raises(TransportError, match="could not write the event to"):
        FileTransport(blocked / "events", append=False, raise_on_error=True).emit(event)


def test_file_urls_are_local_files_and_the_configuration_rebuilds_the_transport(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "events.jsonl"
    config = parse_transport_config({"type": "file", "log_file_path": path.as_uri()})
    assert isinstance(config, FileConfig)
    transport = create_transport(config)
    assert isinstance(transport, FileTransport)
    assert transport.path == path
    transport.emit(run_events(1)[0])
    transport.close()
    assert len(path.read_text().splitlines()) == 1
    # A relative path is made absolute for another process (a Spark Connect server's worker).
    monkeypatch.chdir(tmp_path)
    relative = FileTransport("rel/events", append=False, fsync=True)
    assert relative.config == FileConfig(
        log_file_path=str(tmp_path / "rel" / "events"), append=False, fsync=True
    )
    assert FileConfig(log_file_path=Path("a") / "b").log_file_path == str(Path("a") / "b")
