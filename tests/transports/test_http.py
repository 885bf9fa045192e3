"""The HTTP transport against a real loopback backend: delivery, faults, spool, replay."""

from __future__ import annotations

import errno
import gc
import logging
import os
import subprocess
import sys
import textwrap
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import RunEvent, read_event
from openlineage_sdk.transports import (
    DeliveryError,
    HttpConfig,
    HttpTransport,
    KafkaConfig,
)
from openlineage_sdk.transports._delivery import PARTITIONS, Outcome, spool
from openlineage_sdk.transports.http import _environment_proxy, _HttpSender
from tests.transports._support import (
    HOLD_LIMIT,
    LineageServer,
    assert_exactly_once_in_order,
    run_event,
    run_events,
)

# Small backoffs keep the fault tests fast; the behaviour is the same.
FAST = {"backoff_initial": 0.02, "backoff_max": 0.1, "timeout": 2.0}
# While the backend holds its answers, the client must not give up on a request first: a
# request it gave up on and sent again would reach the backend twice.
HELD = {"timeout": 2 * HOLD_LIMIT}


def make(server: LineageServer, tmp_path: Path, **settings: Any) -> HttpTransport:
    return HttpTransport(url=server.url, spool_dir=tmp_path / "spool", **{**FAST, **settings})


def emit_all(transport: HttpTransport, events: list[Any]) -> None:
    for event in events:
        transport.emit(event)


def emit_while_held(server: LineageServer, transport: HttpTransport, events: list[Any]) -> None:
    """Emit the first event, wait until the backend holds its request, emit the others.

    The backend answers nothing until every emit returned, so none of them waited for an
    answer; an emit that does wait never returns, and the hold fails the test after
    ``HOLD_LIMIT`` seconds.
    """
    with server.hold.closed():
        transport.emit(events[0])
        server.hold.wait_for_waiting(1)
        emit_all(transport, events[1:])


def keep_in_memory(transport: HttpTransport) -> None:
    """Never spill waiting events to the spool, however long they wait (a slow machine can make
    that half a second): only what a test is about moves events to the spool then."""
    transport._engine.options.spill_after = float("inf")


def partition_of(doc: dict[str, Any]) -> int:
    return zlib.crc32(doc["run"]["runId"].encode()) % PARTITIONS


def spool_files(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "spool").rglob("*.jsonl"))


def test_delivers_every_event_once_in_run_order(server: LineageServer, tmp_path: Path) -> None:
    events = run_events(40)
    with make(server, tmp_path, max_concurrent_requests=4, batch_size=1) as transport:
        emit_all(transport, events)
        result = transport.flush(5)
    assert result.complete
    assert result.delivered == len(events)
    assert_exactly_once_in_order(server.events, events)
    assert {r.path for r in server.requests} == {"/api/v1/lineage"}
    assert spool_files(tmp_path) == []


def test_request_carries_auth_custom_headers_and_endpoint(
    server: LineageServer, tmp_path: Path
) -> None:
    config = HttpConfig(
        url=server.url + "/marquez",
        endpoint="api/v2/events",
        auth={"type": "api_key", "apiKey": "s3cr3t-key"},
        custom_headers={"X-Team": "data"},
        spool_dir=tmp_path,
    )
    with HttpTransport(config) as transport:
        transport.emit(run_events(1)[0])
        assert transport.flush(5).complete
    (request,) = server.requests
    assert request.path == "/marquez/api/v2/events"
    assert request.headers["Authorization"] == "Bearer s3cr3t-key"
    assert request.headers["X-Team"] == "data"
    assert request.headers["Content-Type"] == "application/json"


def test_gzip_bodies_are_decoded_by_the_backend(server: LineageServer, tmp_path: Path) -> None:
    events = run_events(3)
    with make(server, tmp_path, compression="gzip") as transport:
        emit_all(transport, events)
        assert transport.flush(5).complete
    assert all(r.headers["Content-Encoding"] == "gzip" for r in server.requests)
    assert_exactly_once_in_order(server.events, events)


def test_batches_go_to_the_batch_endpoint(server: LineageServer, tmp_path: Path) -> None:
    events = run_events(50)
    with make(server, tmp_path, batch_size=25, max_concurrent_requests=2) as transport:
        emit_all(transport, events)
        assert transport.flush(5).complete
    assert any(r.path == "/api/v1/lineage/batch" and len(r.events) > 1 for r in server.requests)
    assert_exactly_once_in_order(server.events, events)


def test_one_request_carries_the_waiting_events_of_many_runs(
    server: LineageServer, tmp_path: Path
) -> None:
    events = run_events(40)
    with make(server, tmp_path, max_concurrent_requests=1, batch_size=100, **HELD) as transport:
        keep_in_memory(transport)
        emit_while_held(server, transport, events)  # the others pile up behind the first
        assert transport.flush(5).complete
    assert_exactly_once_in_order(server.events, events)
    # The run ids spread over every ordering partition, and the request after the first
    # takes the events of them all that waited behind it.
    first, second = server.requests[:2]
    assert len(first.events) == 1
    assert len({partition_of(e) for e in second.events}) > PARTITIONS // 2


def test_partial_success_retries_and_refuses_event_by_event(
    server: LineageServer, tmp_path: Path
) -> None:
    server.behaviour.partial = [{0: True, 3: False, 7: True, 8: False}]
    # One event per run: a backend that accepts an event and asks for an earlier
    # one of the same run again has itself chosen to take them out of order.
    events = run_events(30, states=["START"])
    with make(server, tmp_path, max_concurrent_requests=1, batch_size=100, **HELD) as transport:
        keep_in_memory(transport)
        # The first event alone, then the 29 others in one batch, which the backend
        # answers event by event.
        emit_while_held(server, transport, events)
        result = transport.flush(5)
    assert result.complete
    assert result.rejected == 2
    (kept,) = (tmp_path / "spool").rglob("rejected.jsonl")
    refused = [read_event(line) for line in kept.read_text().splitlines()]
    assert len(refused) == 2
    assert all(e in events for e in refused)
    assert_exactly_once_in_order(server.events, [e for e in events if e not in refused])
    assert result.delivered == 28  # the two retriable ones included, each counted once


def test_raise_on_error_reports_events_refused_one_by_one_in_a_batch(
    server: LineageServer, tmp_path: Path
) -> None:
    server.behaviour.partial = [{2: False}]
    events = run_events(5, states=["START"])
    with make(server, tmp_path, raise_on_error=True, max_concurrent_requests=1) as transport:
        emit_all(transport, events)
        with pytest.raises(DeliveryError, match="1 event\\(s\\) refused") as info:
            transport.flush(5)
    assert info.value.result.rejected == 1
    assert info.value.result.delivered == 4


def test_requests_leave_no_garbage_holding_the_body(server: LineageServer) -> None:
    """A response in a reference cycle would keep its request body alive until the
    garbage collector runs, in whatever thread allocates next: the emitting one, often."""
    sender = _HttpSender(HttpConfig(url=server.url))
    batch = [("k", e.to_json().encode()) for e in run_events(3, states=["START"])]
    assert sender.send(batch).outcome is Outcome.OK
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(5):
            assert sender.send(batch).outcome is Outcome.OK
            assert sender.send(batch[:1]).outcome is Outcome.OK
        gc.collect()
        leaked = [o for o in gc.garbage if type(o).__module__.startswith(("httpx", "httpcore"))]
        assert leaked == []
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
        sender.close()


def test_requests_go_through_the_proxy_from_the_environment(
    server: LineageServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", server.url)  # the test server plays the proxy
    events = run_events(2, states=["START"])
    with HttpTransport(url="http://lineage.invalid:5000", spool_dir=tmp_path, **FAST) as t:
        emit_all(t, events)
        assert t.flush(5).complete
    assert {r.path for r in server.requests} <= {
        "http://lineage.invalid:5000/api/v1/lineage",
        "http://lineage.invalid:5000/api/v1/lineage/batch",
    }
    assert_exactly_once_in_order(server.events, events)


@pytest.mark.parametrize(
    ("env", "url", "proxy"),
    [
        ({}, "http://h.example.com", None),
        ({"HTTP_PROXY": "proxy:3128"}, "http://h.example.com", "http://proxy:3128"),
        ({"http_proxy": "http://p:1"}, "http://h.example.com", "http://p:1"),
        ({"HTTP_PROXY": "http://p:1"}, "https://h.example.com", None),
        ({"HTTPS_PROXY": "http://p:2"}, "https://h.example.com", "http://p:2"),
        ({"ALL_PROXY": "http://p:3"}, "https://h.example.com", "http://p:3"),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "*"}, "http://h.example.com", None),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "example.com"}, "http://h.example.com", None),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": ".example.com"}, "http://h.example.com", None),
        ({"HTTP_PROXY": "http://p:1", "no_proxy": "h.example.com"}, "http://h.example.com", None),
        (
            {"HTTP_PROXY": "http://p:1", "NO_PROXY": "xample.com"},
            "http://h.example.com",
            "http://p:1",
        ),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "a, 127.0.0.1"}, "http://127.0.0.1:5000", None),
        ({"HTTP_PROXY": "http://p:1", "NO_PROXY": "::1"}, "http://[::1]:5000", None),
    ],
)
def test_proxy_settings_are_read_like_httpx_and_requests(
    env: dict[str, str], url: str, proxy: str | None
) -> None:
    assert _environment_proxy(url, env) == proxy


def test_a_ca_bundle_or_folder_is_trusted(tmp_path: Path) -> None:
    import certifi

    for verify in (Path(certifi.where()), tmp_path):
        config = HttpConfig(url="https://localhost:5000", verify=verify, spool=False)
        HttpTransport(config).close(0)  # no deprecation warning from httpx either


def test_two_sender_threads_by_default() -> None:
    assert HttpConfig(url="http://localhost:5000").max_concurrent_requests == 2


@pytest.mark.parametrize("status", [404, 405, 400, 501])
def test_backend_without_batch_endpoint_gets_single_events(
    server: LineageServer, tmp_path: Path, status: int
) -> None:
    server.behaviour.batch_supported = False
    server.behaviour.batch_status = status
    events = run_events(30)
    with make(server, tmp_path, batch_size=50) as transport:
        emit_all(transport, events)
        assert transport.flush(5).complete
    assert {r.path for r in server.requests} == {"/api/v1/lineage"}
    assert_exactly_once_in_order(server.events, events)


def test_500s_are_retried_until_the_backend_recovers(server: LineageServer, tmp_path: Path) -> None:
    server.behaviour.statuses = [500, 502, 503, 500, 504, 500]
    events = run_events(20)
    with make(server, tmp_path, **HELD) as transport:
        # Every emit returns before the backend answered the first request, a failure:
        # emit waits neither for an answer nor for the retries that follow it.
        emit_while_held(server, transport, events)
        result = transport.flush(5)
    assert result.complete
    assert result.rejected == 0
    assert server.attempts > 6
    assert_exactly_once_in_order(server.events, events)


def test_429_waits_for_retry_after(server: LineageServer, tmp_path: Path) -> None:
    server.behaviour.statuses = [429]
    server.behaviour.retry_after = "1"
    events = run_events(1, states=["START"])
    with make(server, tmp_path, max_concurrent_requests=1, batch_size=1) as transport:
        t0 = time.monotonic()
        emit_all(transport, events)
        assert transport.flush(5).complete
    (request,) = server.requests
    # The backoff alone would be ~0.02 s; the backend asked for a full second.
    assert request.at - t0 >= 0.95
    assert server.attempts == 2


def test_other_4xx_is_not_retried_and_is_reported(
    server: LineageServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server.behaviour.statuses = [400]
    server.behaviour.body = b'{"error": "facet outputStatistics: rowCount must be an integer"}'
    events = run_events(2, states=["START"])
    with make(server, tmp_path, max_concurrent_requests=1, batch_size=1) as transport:
        emit_all(transport, events)
        result = transport.flush(5)
    assert result.complete
    assert result.rejected == 1
    assert result.delivered == 1
    assert server.attempts == 2  # one refused, one accepted, no retry
    assert "HTTP 400" in caplog.text
    assert "rowCount must be an integer" in caplog.text
    (kept,) = (tmp_path / "spool").rglob("rejected.jsonl")
    (refused,) = [read_event(line) for line in kept.read_text().splitlines()]
    assert refused in events
    assert server.events == [e.to_dict() for e in events if e != refused]


def test_raise_on_error_reports_refused_events_at_flush(
    server: LineageServer, tmp_path: Path
) -> None:
    server.behaviour.statuses = [422]
    with make(server, tmp_path, raise_on_error=True, batch_size=1) as transport:
        transport.emit(run_events(1)[0])
        with pytest.raises(DeliveryError, match="refused") as info:
            transport.flush(5)
    assert info.value.result.rejected == 1


def test_a_poisonous_event_is_given_up_after_repeated_5xx(
    server: LineageServer, tmp_path: Path
) -> None:
    server.behaviour.always_status = 500
    with make(server, tmp_path, max_server_error_attempts=3) as transport:
        transport.emit(run_events(1)[0])
        result = transport.flush(5)
        assert result.rejected == 1
        assert result.complete
    assert server.attempts == 3


def test_connection_resets_are_retried(server: LineageServer, tmp_path: Path) -> None:
    server.behaviour.resets = 5
    events = run_events(15)
    with make(server, tmp_path, **HELD) as transport:
        # Every emit returns before the connection of the first request is reset.
        emit_while_held(server, transport, events)
        assert transport.flush(5).complete
    assert server.attempts > 5
    assert_exactly_once_in_order(server.events, events)


def test_slow_backend_never_slows_emit(server: LineageServer, tmp_path: Path) -> None:
    """Every emit returns while the backend holds its answers: emit never waits for delivery."""
    events = run_events(50)
    with make(server, tmp_path, batch_size=10, max_concurrent_requests=2, **HELD) as transport:
        emit_while_held(server, transport, events)
        assert transport.flush(10).complete
    assert_exactly_once_in_order(server.events, events)


def test_full_queue_overflows_to_the_spool_in_order(server: LineageServer, tmp_path: Path) -> None:
    """A full queue never blocks emit: what does not fit goes to the spool, and comes back in order."""
    events = run_events(40)
    with make(
        server, tmp_path, max_queue_size=4, max_concurrent_requests=2, batch_size=8, **HELD
    ) as transport:
        keep_in_memory(transport)  # only the overflow may take events to the spool here
        with server.hold.closed():
            transport.emit(events[0])
            server.hold.wait_for_waiting(1)
            emit_all(transport, events[1:])  # returns although the queue of 4 is full
            on_disk = sum(len(f.read_bytes().splitlines()) for f in spool_files(tmp_path))
        assert on_disk >= len(events) - 4  # all but what the queue holds
        assert transport.flush(10).complete
    assert_exactly_once_in_order(server.events, events)


def test_backend_down_then_back(server: LineageServer, tmp_path: Path) -> None:
    server.stop()
    first = run_events(10)
    with make(server, tmp_path) as transport:
        emit_all(transport, first)
        during = transport.flush(0.3)
        # Nothing is only in memory once flush gives up: it is all on disk.
        assert during.pending == 0
        assert during.spooled == len(first)
        assert spool_files(tmp_path)
        second = run_events(5)
        emit_all(transport, second)
        server.start()
        after = transport.flush(5)
    assert len(server.events) == len(first) + len(second), (after, len(server.events))
    assert after.complete
    assert after.delivered == len(first) + len(second)
    assert_exactly_once_in_order(server.events, first + second)
    assert spool_files(tmp_path) == []


def test_close_is_bounded_and_spools_what_is_left(server: LineageServer, tmp_path: Path) -> None:
    """close(timeout) returns while a request is still unanswered, its events in the spool."""
    transport = make(server, tmp_path, **HELD)
    events = run_events(5)
    with server.hold.closed():
        emit_all(transport, events)
        server.hold.wait_for_waiting(1)  # a request is in flight, and stays unanswered
        result = transport.close(0.3)
    assert result.pending == 0
    assert result.spooled == len(events)
    assert len(spool_files(tmp_path)) >= 1


def test_next_transport_replays_the_spool_first(server: LineageServer, tmp_path: Path) -> None:
    server.stop()
    old = run_events(6)
    first = make(server, tmp_path)
    emit_all(first, old)
    assert first.close(0.2).spooled == len(old)
    server.start()
    # Same runs continue in the new process: their old events must still come first.
    new = [run_event(e.run.run_id, e.job.name, "COMPLETE", 100 + i) for i, e in enumerate(old)]
    with make(server, tmp_path) as second:
        emit_all(second, new)
        assert second.flush(5).complete
    assert_exactly_once_in_order(server.events, old + new)
    assert spool_files(tmp_path) == []


def test_exit_handler_spools_and_a_new_process_delivers(
    server: LineageServer, tmp_path: Path
) -> None:
    server.stop()
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parents[2])!r})
        from openlineage_sdk.transports.http import HttpTransport
        from tests.transports._support import run_events
        t = HttpTransport(url={server.url!r}, spool_dir={str(tmp_path / "spool")!r},
                          backoff_initial=0.02, backoff_max=0.1, close_timeout=0.2)
        for e in run_events(4):
            t.emit(e)
        # no close(): the exit handler must keep the events
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    lines = [ln for f in spool_files(tmp_path) for ln in f.read_text().splitlines()]
    assert len(lines) == 12
    server.start()
    with make(server, tmp_path) as transport:
        assert transport.flush(5).complete
    received = [read_event(doc) for doc in server.events]
    assert len(received) == 12
    by_run: dict[str, list[str | None]] = {}
    for e in received:
        assert isinstance(e, RunEvent)
        by_run.setdefault(e.run.run_id, []).append(e.event_type)
    assert all(states == ["START", "RUNNING", "COMPLETE"] for states in by_run.values())


def test_a_live_process_keeps_its_spool(server: LineageServer, tmp_path: Path) -> None:
    server.stop()
    first = make(server, tmp_path)
    emit_all(first, run_events(3, states=["START"]))
    assert first.flush(0.2).spooled == 3
    server.start()
    server.behaviour.statuses = [503] * 1000  # keep the first one failing for now
    # A second transport must not take over files the first still owns.
    with make(server, tmp_path) as second:
        assert second.flush(0.1).spooled == 0
    server.behaviour.statuses = []
    assert first.flush(5).complete
    first.close(1)
    assert len(server.events) == 3


def test_without_spool_overflow_is_dropped_and_counted(
    server: LineageServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server.stop()
    transport = make(server, tmp_path, spool=False, max_queue_size=4, max_concurrent_requests=1)
    with caplog.at_level(logging.ERROR):
        emit_all(transport, run_events(10, states=["START"]))
    result = transport.close(0.1)
    assert result.dropped == 6
    assert "dropped" in caplog.text
    assert not (tmp_path / "spool").exists()


def test_secrets_stay_out_of_reprs_and_logs(
    server: LineageServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = HttpConfig(
        url=f"http://user:pa55word@127.0.0.1:{server.port}",
        auth={"type": "api_key", "api_key": "TOPSECRETKEY"},
        custom_headers={"X-Api-Token": "HEADERSECRET", "X-Team": "data"},
        spool_dir=tmp_path,
    )
    text = repr(config) + str(config)
    for secret in ("TOPSECRETKEY", "HEADERSECRET", "pa55word", "data"):
        assert secret not in text  # header values are all masked: names do not tell secrets
    assert "X-Team" in text
    server.behaviour.statuses = [401]
    with caplog.at_level(logging.DEBUG, logger="openlineage_sdk"), HttpTransport(config) as t:
        t.emit(run_events(1)[0])
        t.flush(5)
    assert "HTTP 401" in caplog.text
    for secret in ("TOPSECRETKEY", "HEADERSECRET", "pa55word"):
        assert secret not in caplog.text


def test_invalid_url_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="http:// or https:// URL"):
        HttpConfig(url="localhost:5000")


def test_settings_given_with_a_config_are_checked_like_the_config() -> None:
    config = HttpConfig(url="http://localhost:5000", spool=False)
    with pytest.raises(ValueError, match="batch_size"):
        HttpTransport(config, batch_size=0)
    with pytest.raises(ValueError, match="http:// or https:// URL"):
        HttpTransport(config, url="localhost:5000")
    with HttpTransport(config, endpoint="ol/v1") as transport:
        assert transport.url == "http://localhost:5000/ol/v1"
        assert transport.config.spool is False  # the rest of the config is kept


def test_building_from_another_kind_of_config_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="HttpTransport needs a HttpConfig, got KafkaConfig"):
        HttpTransport.from_config(KafkaConfig(topic="lineage"))


def test_async_http_type_is_the_same_transport(server: LineageServer, tmp_path: Path) -> None:
    config = HttpConfig(type="async_http", url=server.url, spool_dir=tmp_path)
    with HttpTransport(config) as transport:
        transport.emit(run_events(1)[0])
        assert transport.flush(5).complete
    assert len(server.events) == 1


def test_synchronous_mode_delivers_before_emit_returns(
    server: LineageServer, tmp_path: Path
) -> None:
    with make(server, tmp_path, synchronous=True) as transport:
        transport.emit(run_events(1)[0])
        assert len(server.events) == 1


def test_spool_file_is_plain_json_lines(server: LineageServer, tmp_path: Path) -> None:
    server.stop()
    events = run_events(2)
    transport = make(server, tmp_path)
    emit_all(transport, events)
    transport.close(0.1)
    lines = [ln for f in spool_files(tmp_path) for ln in f.read_text().splitlines()]
    assert sorted(lines) == sorted(e.to_json() for e in events)  # each the event's own JSON
    assert all(read_event(line) in events for line in lines)
    assert all(os.stat(f).st_mode & 0o077 == 0 for f in spool_files(tmp_path))


def full_disk_on(monkeypatch: pytest.MonkeyPatch, fails: Callable[[bytes], bool]) -> None:
    """Spool writes for which ``fails(data)`` is true write part of ``data``, then hit ENOSPC."""
    real = spool.write_all

    def write_all(fd: int, data: bytes) -> None:
        if fails(data):
            os.write(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd, data)

    monkeypatch.setattr(spool, "write_all", write_all)


def test_a_short_write_to_the_spool_costs_at_most_that_event(
    server: LineageServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.stop()
    events = run_events(1, states=["START", "RUNNING", "COMPLETE", "ABORT"])  # one run, one lane
    lost = events[2].to_json().encode() + b"\n"
    full_disk_on(monkeypatch, lambda data: data == lost)
    # One event fits in memory, the others overflow to the same spool file.
    with make(server, tmp_path, max_queue_size=1, max_concurrent_requests=1) as transport:
        emit_all(transport, events)
        server.start()
        result = transport.flush(5)
    assert result.complete
    # The event whose write was cut short waits in memory instead if the queue has
    # room again by then (once the first event is spooled), else only it is lost;
    # the event after the torn line is delivered intact, not glued to the fragment.
    assert result.dropped in (0, 1)
    kept = events if result.dropped == 0 else [e for i, e in enumerate(events) if i != 2]
    assert_exactly_once_in_order(server.events, kept)


def test_a_failed_spill_leaves_no_file_and_is_tried_again(
    server: LineageServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.stop()
    events = run_events(1)
    attempts = [1]
    full_disk_on(monkeypatch, lambda data: bool(attempts and attempts.pop()))
    transport = make(server, tmp_path, max_concurrent_requests=1)
    emit_all(transport, events)
    # The first spill fails: its partial file must not outlive it, or the next
    # process would deliver events this one still holds, and the name would stay taken.
    assert transport.flush(0.3).spooled == len(events)
    server.start()
    assert transport.close(5).complete
    assert_exactly_once_in_order(server.events, events)
    assert spool_files(tmp_path) == []


def test_takeover_resumes_at_the_saved_position_and_skips_a_torn_last_line(
    server: LineageServer, tmp_path: Path
) -> None:
    """The spool file of a process that died: delivered lines before ``.pos``, a torn write at the end."""
    events = run_events(1, states=["START", "RUNNING", "COMPLETE"])
    lines = [e.to_json().encode() + b"\n" for e in events]
    with make(server, tmp_path) as first:
        assert first.spool_path is not None
        folder = first.spool_path
    orphan = folder / "0000000000000000001-1.p00.1000000001.jsonl"
    orphan.write_bytes(b"".join(lines) + lines[0][:40])
    Path(f"{orphan}.pos").write_bytes(b"%020d\n" % len(lines[0]))
    with make(server, tmp_path) as second:
        result = second.flush(5)
    assert result.complete
    assert result.delivered == 2
    assert_exactly_once_in_order(server.events, events[1:])
    assert spool_files(tmp_path) == []
