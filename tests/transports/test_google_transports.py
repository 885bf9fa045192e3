"""Cloud Storage against fake-gcs-server (the emulator of its JSON API), and the Data Lineage
API against a loopback server answering as its REST reference says; both with a service
account's credentials exchanged at a loopback token endpoint that checks the signed grant."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("google.auth")
pytest.importorskip("httpx")

from openlineage_sdk import JobEvent, read_event
from openlineage_sdk.transports import (
    TransportConfigError,
    TransportError,
    create_transport,
)
from openlineage_sdk.transports._cloud import object_name, request_id
from openlineage_sdk.transports.gcplineage import GcpLineageTransport
from openlineage_sdk.transports.gcs import GcsTransport
from tests.transports._cloud_support import (
    FakeGcs,
    GoogleTokenServer,
    RecordingApi,
    Seen,
    service_account_file,
)
from tests.transports._support import (
    assert_exactly_once_in_order,
    run_event,
    run_events,
)


@pytest.fixture(autouse=True)
def no_ambient_google(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No credentials, project or emulator of the machine's leak into a test."""
    for name in (
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GOOGLE_CLOUD_PROJECT",
        "GCLOUD_PROJECT",
        "STORAGE_EMULATOR_HOST",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path / "no-gcloud"))
    monkeypatch.setenv("GCE_METADATA_HOST", "127.0.0.1:9")  # no metadata server here
    monkeypatch.setenv("NO_GCE_CHECK", "True")


@pytest.fixture
def account(tmp_path: Path) -> Iterator[tuple[Path, GoogleTokenServer]]:
    path, server = service_account_file(tmp_path)
    yield path, server
    server.stop()


def _millis(event: Any) -> int:
    when = datetime.fromisoformat(str(event.event_time).replace("Z", "+00:00"))
    return int(when.timestamp() * 1000)


# ------------------------------------------------------------------------------- Cloud Storage


@pytest.fixture(scope="module")
def gcs() -> Iterator[FakeGcs]:
    server = FakeGcs()
    yield server
    server.stop()


def _bucket(gcs: FakeGcs) -> str:
    name = f"lineage-{uuid.uuid4().hex[:12]}"
    gcs.create_bucket(name)
    return name


def test_gcs_writes_each_event_as_an_object_named_by_its_time(
    gcs: FakeGcs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", gcs.url)
    bucket = _bucket(gcs)
    events = run_events(4)
    transport = create_transport(
        {
            "type": "gcs",
            "projectId": "lineage-project",
            "bucketName": bucket,
            "fileNamePrefix": "events/",
            "spool_dir": str(tmp_path),
        }
    )
    for event in events:
        transport.emit(event)
    result = transport.close(20)
    assert result.complete
    assert result.delivered == len(events)
    stored = gcs.objects(bucket)
    assert set(stored) == {f"events/{_millis(e)}.json" for e in events}
    for event in events:
        assert stored[f"events/{_millis(event)}.json"] == event.to_json().encode()
    assert_exactly_once_in_order([json.loads(v) for v in stored.values()], events)


def test_gcs_events_of_one_millisecond_never_overwrite_each_other(
    gcs: FakeGcs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", gcs.url)
    bucket = _bucket(gcs)
    first = run_event(str(uuid.uuid4()), "a", "START", 5)
    ms = _millis(first)
    # Another writer holds the first name; an earlier attempt of ours holds the second.
    other = GcsTransport(bucketName=bucket, fileNamePrefix="x", spool=False)
    other._engine.sender._upload_object(object_name("x", ms), b'{"other": "writer"}')  # type: ignore[attr-defined]
    mine = run_event(str(uuid.uuid4()), "b", "START", 5)
    other._engine.sender._upload_object(object_name("x", ms, 1), mine.to_json().encode())  # type: ignore[attr-defined]
    other.close(1)
    third = run_event(str(uuid.uuid4()), "c", "START", 5)
    with GcsTransport(bucketName=bucket, fileNamePrefix="x", spool_dir=tmp_path) as transport:
        transport.emit(mine)
        transport.emit(third)
        result = transport.close(20)
    assert result.delivered == 2
    stored = gcs.objects(bucket)
    assert stored[f"x_{ms}.json"] == b'{"other": "writer"}'  # never overwritten
    assert stored[f"x_{ms}-1.json"] == mine.to_json().encode()  # not written twice
    assert stored[f"x_{ms}-2.json"] == third.to_json().encode()
    assert len(stored) == 3


def test_gcs_upload_request_is_the_json_api_s_multipart_upload(
    tmp_path: Path, account: tuple[Path, GoogleTokenServer]
) -> None:
    key_file, tokens = account
    api = RecordingApi(
        answer=lambda seen: (200, {"Content-Type": "application/json"}, b'{"name": "x"}')
    )
    try:
        event = run_event(str(uuid.uuid4()), "job", "START", 1)
        with GcsTransport(
            bucketName="my-bucket",
            credentialsFile=str(key_file),
            endpoint=api.url,
            spool_dir=tmp_path,
        ) as transport:
            transport.emit(event)
            assert transport.close(20).delivered == 1
        (seen,) = api.wait_for(1)
    finally:
        api.stop()
    assert seen.method == "POST"
    assert seen.path == "/upload/storage/v1/b/my-bucket/o"
    assert seen.query == {"uploadType": ["multipart"], "ifGenerationMatch": ["0"]}
    assert seen.header("Authorization") == f"Bearer {tokens.tokens[0]}"
    content_type = seen.header("Content-Type") or ""
    assert content_type.startswith("multipart/related; boundary=")
    boundary = content_type.split("boundary=", 1)[1]
    expected = (
        f"--{boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n"
        + json.dumps({"name": f"{_millis(event)}.json", "contentType": "application/json"})
        + f"\r\n--{boundary}\r\nContent-Type: application/json\r\n\r\n"
        + event.to_json()
        + f"\r\n--{boundary}--\r\n"
    ).encode()
    assert seen.body == expected
    # The service account's grant was signed with its key and asked for Cloud's scope.
    assert tokens.grants[0]["scope"] == "https://www.googleapis.com/auth/cloud-platform"


def test_gcs_retry_interval_is_the_java_client_s_fixed_delay(
    account: tuple[Path, GoogleTokenServer],
) -> None:
    transport = GcsTransport(
        bucketName="b",
        retryIntervalMillis=1500,
        credentialsFile=str(account[0]),
        spool=False,
    )
    try:
        assert (transport.config.backoff_initial, transport.config.backoff_max) == (1.5, 1.5)
    finally:
        transport.close(0.1)


# ------------------------------------------------------------------------------- Data Lineage


def _lineage_answer(seen: Seen) -> tuple[int, dict[str, str], bytes]:
    parent = seen.path.removeprefix("/v1/").split(":")[0]
    body = {
        "process": f"{parent}/processes/p1",
        "run": f"{parent}/processes/p1/runs/r1",
        "lineageEvents": [f"{parent}/processes/p1/runs/r1/lineageEvents/e1"],
    }
    return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()


@pytest.fixture
def lineage_api() -> Iterator[RecordingApi]:
    api = RecordingApi(answer=_lineage_answer)
    yield api
    api.stop()


def test_lineage_requests_are_process_open_lineage_run_event(
    lineage_api: RecordingApi,
    account: tuple[Path, GoogleTokenServer],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    key_file, tokens = account
    events = run_events(3)
    transport = create_transport(
        {
            "type": "gcplineage",
            "project_id": "my-project",
            "location": "europe-west1",
            "credentials_path": str(key_file),
            "endpoint": lineage_api.url,
            "spool_dir": str(tmp_path),
        }
    )
    job_event = JobEvent(
        eventTime="2024-01-01T00:00:00Z",
        job={"namespace": "n", "name": "j"},
        producer="https://example.com/p",
    )
    with caplog.at_level(logging.WARNING):
        transport.emit(job_event)
        for event in events:
            transport.emit(event)
        result = transport.close(20)
    assert result.complete
    assert result.delivered == len(events)
    assert "takes run events only" in caplog.text
    seen = lineage_api.wait_for(len(events))
    assert len(seen) == len(events)
    assert_exactly_once_in_order([json.loads(s.body) for s in seen], events)
    for request in seen:
        assert request.method == "POST"
        assert (
            request.path
            == "/v1/projects/my-project/locations/europe-west1:processOpenLineageRunEvent"
        )
        assert request.query == {"requestId": [request_id(request.body)]}
        assert len(request.query["requestId"][0]) == 36
        assert request.header("Content-Type") == "application/json"
        assert request.header("Authorization") == f"Bearer {tokens.tokens[0]}"
        # The body is the event itself (the request's open_lineage Struct), byte for byte.
        assert read_event(json.loads(request.body)).to_json().encode() == request.body
    # One token for every request: it is cached until it is about to expire.
    assert len(tokens.tokens) == 1


def test_lineage_project_comes_from_the_credentials_when_not_set(
    lineage_api: RecordingApi, account: tuple[Path, GoogleTokenServer], tmp_path: Path
) -> None:
    key_file, _ = account
    with GcpLineageTransport(
        credentialsFile=str(key_file), endpoint=lineage_api.url, spool_dir=tmp_path
    ) as transport:
        transport.emit(run_event(str(uuid.uuid4()), "job", "START", 1))
        assert transport.close(20).delivered == 1
    (seen,) = lineage_api.wait_for(1)
    assert seen.path.startswith("/v1/projects/lineage-project/locations/us-central1:")


def test_no_credentials_anywhere_is_said_when_the_transport_is_made() -> None:
    with pytest.raises(TransportError, match="no usable Google Cloud credentials"):
        GcsTransport(bucketName="b", spool=False)


def test_lineage_without_any_project_is_a_typed_error(tmp_path: Path) -> None:
    info = {
        "type": "authorized_user",
        "client_id": "c",
        "client_secret": "s",
        "refresh_token": "r",
    }
    path = tmp_path / "user.json"
    path.write_text(json.dumps(info))
    with pytest.raises(TransportConfigError, match="project_id"):
        GcpLineageTransport(credentialsFile=str(path), spool=False)


def test_lineage_retries_keep_the_request_id_and_refusals_are_kept(
    lineage_api: RecordingApi, account: tuple[Path, GoogleTokenServer], tmp_path: Path
) -> None:
    key_file, _ = account
    lineage_api.statuses.extend([503, 429])
    with GcpLineageTransport(
        projectId="p",
        credentialsFile=str(key_file),
        endpoint=lineage_api.url,
        spool_dir=tmp_path,
        backoff_initial=0.01,
        backoff_max=0.05,
    ) as transport:
        transport.emit(run_event(str(uuid.uuid4()), "a", "START", 1))
        assert transport.flush(20).delivered == 1
        lineage_api.statuses.append(400)
        transport.emit(run_event(str(uuid.uuid4()), "b", "START", 2))
        result = transport.close(20)
    assert result.rejected == 1
    names = [json.loads(s.body)["job"]["name"] for s in lineage_api.seen]
    assert names == ["a", "a", "a", "b"]
    assert len({s.query["requestId"][0] for s in lineage_api.seen[:3]}) == 1
    assert transport.spool_path is not None
    kept = (transport.spool_path / "rejected.jsonl").read_text().splitlines()
    assert [json.loads(line)["job"]["name"] for line in kept] == ["b"]


def test_lineage_refused_credentials_keep_events_safe(
    lineage_api: RecordingApi, tmp_path: Path
) -> None:
    # A key the token endpoint does not trust: no token, so no request; the event waits.
    _trusted, server = service_account_file(tmp_path)
    (tmp_path / "other").mkdir()
    other, other_server = service_account_file(tmp_path / "other")
    info = json.loads(other.read_text())
    info["token_uri"] = server.token_uri
    other.write_text(json.dumps(info))
    try:
        transport = GcpLineageTransport(
            projectId="p",
            credentialsFile=str(other),
            endpoint=lineage_api.url,
            spool_dir=tmp_path / "spool",
            backoff_initial=0.05,
        )
        transport.emit(run_event(str(uuid.uuid4()), "a", "START", 1))
        result = transport.close(1)
    finally:
        server.stop()
        other_server.stop()
    assert result.delivered == 0
    assert result.rejected == 0
    assert result.dropped == 0
    assert result.spooled + result.pending == 1
    assert lineage_api.seen == []


def test_lineage_java_keys_and_the_endpoint_as_host_and_port() -> None:
    from openlineage_sdk.transports import parse_transport_config

    config = parse_transport_config(
        {
            "type": "gcplineage",
            "projectId": "p",
            "credentialsFile": "/k.json",
            "endpoint": "datalineage.googleapis.com:443",
            "mode": "async",
            "gracefulShutdownDuration": "PT45S",
        }
    )
    assert config.project_id == "p"  # type: ignore[attr-defined]
    assert config.credentials_path == "/k.json"  # type: ignore[attr-defined]
    assert config.close_timeout == 45.0  # type: ignore[attr-defined]
    from openlineage_sdk.transports._cloud import endpoint_url

    assert endpoint_url("datalineage.googleapis.com:443") == "https://datalineage.googleapis.com"
    with pytest.raises(
        TransportConfigError, match=r"graceful_shutdown_duration|gracefulShutdownDuration"
    ):
        parse_transport_config({"type": "gcplineage", "gracefulShutdownDuration": "soon"})
