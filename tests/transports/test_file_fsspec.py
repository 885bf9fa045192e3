"""The file transport on fsspec filesystems, and side by side with the official client.

fsspec's memory and local filesystems, and S3 through s3fs against moto's S3 server on loopback
(a real S3 wire protocol peer). The official ``openlineage-python`` 1.54.0 client is given the same
configurations and the same event objects; the files (names and contents) are compared.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import OpenLineageClient
from openlineage_sdk.transports import FileConfig, FileTransport, TransportError
from openlineage_sdk.transports._registry import create_transport
from tests._official import dataset_event, fresh, job_event, rich_run_event, strip, v1_run_event
from tests.transports._support import run_events

fsspec = pytest.importorskip("fsspec")

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from openlineage.client import OpenLineageClient as OfficialClient

#: What the ``filesystem`` setting may name: a factory, and an instance.
MEMORY = fsspec.filesystem("memory")


def memory_filesystem(**kwargs: Any) -> Any:
    """A factory of filesystems, as a user's module may have one."""
    assert kwargs == {"skip_instance_cache": False}
    return MEMORY


@pytest.fixture
def memory() -> Iterator[Any]:
    MEMORY.store.clear()
    MEMORY.pseudo_dirs.clear()
    MEMORY.pseudo_dirs.append("")
    yield MEMORY
    MEMORY.store.clear()


@pytest.fixture(scope="module")
def s3() -> Iterator[dict[str, Any]]:
    """moto's S3 server on loopback, with a bucket; the storage_options that reach it."""
    pytest.importorskip("s3fs")
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server._server.server_address[:2]
    options = {
        "key": "test-access-key",
        "secret": "test-secret-key",
        "client_kwargs": {"endpoint_url": f"http://{host}:{port}", "region_name": "us-east-1"},
    }
    import boto3

    boto3.client(
        "s3",
        endpoint_url=options["client_kwargs"]["endpoint_url"],
        aws_access_key_id=options["key"],
        aws_secret_access_key=options["secret"],
        region_name="us-east-1",
    ).create_bucket(Bucket="lake")
    try:
        yield options
    finally:
        server.stop()


def _objects(fs: Any, folder: str) -> dict[str, bytes]:
    fs.invalidate_cache()  # what the transport wrote, not a listing cached before
    return {path.rsplit("/", 1)[1]: fs.cat_file(path) for path in sorted(fs.find(folder))}


def test_memory_filesystem_appends_and_writes_a_file_per_event(memory: Any) -> None:
    events = run_events(2)
    with FileTransport("memory://ol/lines.jsonl") as appending:
        for event in events:
            appending.emit(event)
    with FileTransport("memory://ol/one/events", append=False) as per_event:
        for event in events:
            per_event.emit(event)
    assert memory.cat_file("/ol/lines.jsonl").decode().splitlines() == [e.to_json() for e in events]
    files = _objects(memory, "/ol/one")
    assert all(re.fullmatch(r"events-\d{8}-\d{6}\.\d{6}\.json", name) for name in files)
    assert [body.decode() for body in files.values()] == [e.to_json() + "\n" for e in events]


@pytest.mark.parametrize(
    "filesystem",
    [
        "fsspec.implementations.memory.MemoryFileSystem",  # a class, made with fs_kwargs
        "tests.transports.test_file_fsspec.memory_filesystem",  # a factory, called with them
        "tests.transports.test_file_fsspec.MEMORY",  # an instance
    ],
)
def test_the_filesystem_setting_names_a_class_a_factory_or_an_instance(
    memory: Any, filesystem: str
) -> None:
    config = FileConfig(
        log_file_path="/named/events.jsonl",
        filesystem=filesystem,
        fs_kwargs={"skip_instance_cache": False},
    )
    with create_transport(config) as transport:
        transport.emit(run_events(1)[0])
    assert len(memory.cat_file("/named/events.jsonl").splitlines()) == 1


def test_fsspec_s_local_filesystem(tmp_path: Path) -> None:
    folder = tmp_path / "local"
    folder.mkdir()
    events = run_events(1)
    config = FileConfig(
        log_file_path=str(folder / "events"),
        append=False,
        filesystem="fsspec.implementations.local.LocalFileSystem",
    )
    with create_transport(config) as transport:
        for event in events:
            transport.emit(event)
    files = sorted(folder.iterdir())
    assert [f.read_text() for f in files] == [e.to_json() + "\n" for e in events]


def test_storage_options_beside_a_filesystem_are_said_to_be_unused(
    memory: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    FileTransport(
        "/x",
        filesystem="tests.transports.test_file_fsspec.MEMORY",
        storage_options={"anon": True},
    )
    assert "storage_options are not used when a filesystem is given" in caplog.text


def test_s3_through_storage_options(s3: dict[str, Any]) -> None:
    events = run_events(2)
    with FileTransport("s3://lake/lines/events.jsonl", storage_options=s3) as appending:
        for event in events:
            appending.emit(event)
        assert appending.flush().delivered == len(events)
    with FileTransport("s3://lake/each/events", append=False, storage_options=s3) as each:
        for event in events:
            each.emit(event)
    fs = fsspec.filesystem("s3", **s3)
    assert fs.cat_file("lake/lines/events.jsonl").decode().splitlines() == [
        e.to_json() for e in events
    ]
    bodies = list(_objects(fs, "lake/each").values())
    assert [b.decode() for b in bodies] == [e.to_json() + "\n" for e in events]


def test_an_s3_object_is_never_overwritten(
    s3: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.transports.test_file import _FrozenClock

    monkeypatch.setattr("openlineage_sdk.transports.file.datetime", _FrozenClock)
    fs = fsspec.filesystem("s3", **s3)
    fs.pipe_file("lake/taken/events-20240501-100000.999998.json", b"another writer\n")
    event = run_events(1, states=["START"])[0]
    with FileTransport(
        "s3://lake/taken/events", append=False, storage_options=s3, raise_on_error=True
    ) as t:
        t.emit(event)
    assert _objects(fs, "lake/taken") == {
        "events-20240501-100000.999998.json": b"another writer\n",
        "events-20240501-100000.999999.json": (event.to_json() + "\n").encode(),
    }


def test_secrets_in_storage_options_are_masked(s3: dict[str, Any]) -> None:
    config = FileConfig(
        log_file_path="s3://lake/x",
        storage_options={**s3, "client_kwargs": {"aws_session_token": "tok-123"}},
    )
    shown = repr(config) + json.dumps(config.model_dump(mode="json"))
    assert "test-secret-key" not in shown
    assert "tok-123" not in shown
    assert "test-access-key" in shown  # an access key id is not a secret


def test_without_fsspec_the_error_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "fsspec", None)
    with pytest.raises(TransportError, match=r"pip install 'openlineage-sdk\[fsspec\]'"):
        FileTransport("s3://lake/events")
    # Through the client: logged, and events go to the local file instead.
    monkeypatch.chdir(tmp_path)
    client = OpenLineageClient(config={"transport": {"type": "file", "log_file_path": "gs://b/e"}})
    assert isinstance(client.transport, FileTransport)
    assert client.transport.path == tmp_path / "openlineage_events.jsonl"
    assert "openlineage-sdk[fsspec]" in caplog.text


# -- side by side with the official client


def _side_by_side(
    transport: dict[str, Any], read: Any, events: list[Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Both clients made with ``{"transport": transport}`` (``WHO`` in it becomes the
    library's name) emit ``events``; ``read(who)`` gives what each wrote: {name: text}."""
    seen = []
    for who in ("official", "ours"):
        conf = {"transport": json.loads(json.dumps(transport).replace("WHO", who))}
        client: Any = (
            OfficialClient(config=conf) if who == "official" else OpenLineageClient(config=conf)
        )
        for event in fresh(events):
            client.emit(event)
        assert client.close() is True
        seen.append(read(who))
    return seen[0], seen[1]


def _shape(files: dict[str, str]) -> list[tuple[str, Any]]:
    """Names without their times, and contents as JSON without what legitimately differs."""
    out = []
    for name, text in files.items():
        pattern = re.sub(r"\d{6}T\d{6}\.\d{6}|\d{8}-\d{6}\.\d{6}", "TIME", name)
        if text.startswith("{\n"):  # one indented document
            docs = [strip(json.loads(text))]
        else:
            docs = [strip(json.loads(line)) for line in text.splitlines() if line.strip()]
        out.append((pattern, docs))
    return out


EVENTS = [rich_run_event(1), job_event(), dataset_event(), v1_run_event()]


@pytest.mark.parametrize(
    "settings",
    [{"append": True}, {}, {"append": False, "debug_mode": True}],
    ids=["append", "a file per event", "debug_mode"],
)
def test_memory_filesystem_side_by_side(memory: Any, settings: dict[str, Any]) -> None:
    transport = {"type": "file", "log_file_path": "memory://WHO/events", **settings}

    def read(who: str) -> dict[str, str]:
        return {k: v.decode() for k, v in _objects(memory, f"/{who}").items()}

    official, ours = _side_by_side(transport, read, EVENTS)
    assert _shape(ours) == _shape(official)
    assert len(ours) == (1 if settings.get("append") else len(EVENTS))
    if settings.get("debug_mode"):
        # Indented JSON with sorted keys, as the official client writes it.
        assert (
            list(ours.values())[1]
            == json.dumps(json.loads(list(ours.values())[1]), indent=2, sort_keys=True) + "\n"
        )


def test_s3_side_by_side(s3: dict[str, Any]) -> None:
    transport = {"type": "file", "log_file_path": "s3://lake/WHO/events", "storage_options": s3}
    fs = fsspec.filesystem("s3", **s3)

    def read(who: str) -> dict[str, str]:
        return {k: v.decode() for k, v in _objects(fs, f"lake/{who}").items()}

    official, ours = _side_by_side(transport, read, EVENTS)
    assert len(ours) == len(EVENTS)
    assert _shape(ours) == _shape(official)


def test_local_filesystem_class_side_by_side(tmp_path: Path) -> None:
    for who in ("official", "ours"):
        (tmp_path / who).mkdir()
    transport = {
        "type": "file",
        "log_file_path": f"{tmp_path}/WHO/events",
        "filesystem": "fsspec.implementations.local.LocalFileSystem",
        "fs_kwargs": {"auto_mkdir": True},
    }

    def read(who: str) -> dict[str, str]:
        return {f.name: f.read_text() for f in sorted((tmp_path / who).iterdir())}

    official, ours = _side_by_side(transport, read, EVENTS)
    assert len(ours) == len(EVENTS)
    assert _shape(ours) == _shape(official)


def test_a_relative_local_path_side_by_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for who in ("official", "ours"):
        (tmp_path / who).mkdir()
    transport = {"type": "file", "log_file_path": "WHO/events", "append": False}

    def read(who: str) -> dict[str, str]:
        return {f.name: f.read_text() for f in sorted((tmp_path / who).iterdir())}

    official, ours = _side_by_side(transport, read, EVENTS)
    assert _shape(ours) == _shape(official)
    assert [name for name, _ in _shape(ours)] == ["events-TIME.json"] * len(EVENTS)
