"""Test helpers: real run events, and a real OpenLineage HTTP backend on loopback that misbehaves on request."""

from __future__ import annotations

import contextlib
import gzip
import json
import socket
import struct
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from openlineage_sdk import Job, JobFacets, Run, RunEvent, read_event
from openlineage_sdk.facets import DocumentationJobFacet
from openlineage_sdk.lifecycle import EventType

PRODUCER = "https://example.com/openlineage-sdk/tests"
_EPOCH = datetime(2024, 1, 1, tzinfo=timezone.utc)


def run_event(
    run_id: str,
    job: str,
    state: EventType,
    seq: int,
    *,
    namespace: str = "ns",
    padding: int = 0,
) -> RunEvent:
    """A real ``RunEvent``; its eventTime, ``seq`` seconds into 2024, tells when it was emitted.

    ``padding`` adds a documentation facet of that many characters, for large events.
    """
    facets = None
    if padding:
        facets = JobFacets(documentation=DocumentationJobFacet(description="x" * padding))
    return RunEvent(
        eventType=state,
        eventTime=_EPOCH + timedelta(seconds=seq),
        run=Run(runId=run_id),
        job=Job(namespace=namespace, name=job, facets=facets),
        producer=PRODUCER,
    )


def seq_of(event: RunEvent | Mapping[str, Any]) -> int:
    """The emission number of an event made by :func:`run_event`, or of its JSON."""
    text = event.event_time if isinstance(event, RunEvent) else event["eventTime"]
    when = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    return int((when - _EPOCH).total_seconds())


def run_events(
    runs: int,
    states: Iterable[EventType] = ("START", "RUNNING", "COMPLETE"),
    padding: int = 0,
    namespace: str = "ns",
) -> list[RunEvent]:
    """Events of several runs, interleaved the way concurrent jobs emit them."""
    states = list(states)
    ids = [str(uuid.uuid4()) for _ in range(runs)]
    events: list[RunEvent] = []
    seq = 0
    for state in states:
        for i, run_id in enumerate(ids):
            events.append(
                run_event(run_id, f"job{i}", state, seq, namespace=namespace, padding=padding)
            )
            seq += 1
    return events


#: The longest a :class:`Hold` keeps anything waiting. A safety net, not a speed target: what
#: runs while a hold is closed takes microseconds, and a transport that waits for what is held
#: makes its test fail once this much time has passed, instead of hanging.
HOLD_LIMIT = 30.0


class Hold:
    """A gate that delivery waits at (a backend's answers, a sender's batches) until released.

    A test closes it (``with hold.closed(): ...``), does something, and opens it again at
    the end of the block. Whatever the block did returned while delivery was held, so it
    cannot have waited for delivery, however slow the machine. A block that does wait for
    what is held would never end: after :data:`HOLD_LIMIT` seconds the gate opens by itself
    and the block fails.
    """

    def __init__(self) -> None:
        self._open = threading.Event()
        self._open.set()
        self._cond = threading.Condition()
        self.waiting = 0  # how many are waiting at the gate now
        self.expired = False

    def wait(self) -> None:
        """Called by whatever is held: return once the gate is open."""
        if self._open.is_set():
            return
        with self._cond:
            self.waiting += 1
            self._cond.notify_all()
        try:
            if not self._open.wait(HOLD_LIMIT):
                self.expired = True
                self._open.set()
        finally:
            with self._cond:
                self.waiting -= 1

    def wait_for_waiting(self, count: int = 1) -> None:
        """Return once ``count`` are waiting at the gate (failing after :data:`HOLD_LIMIT`)."""
        with self._cond:
            assert self._cond.wait_for(lambda: self.waiting >= count, HOLD_LIMIT), (
                f"{count} expected at the gate, {self.waiting} came"
            )

    @contextlib.contextmanager
    def closed(self) -> Iterator[None]:
        """Hold delivery while the block runs; fail if the block waited for what was held."""
        self.expired = False
        self._open.clear()
        try:
            yield
        finally:
            self._open.set()
        assert not self.expired, (
            f"the block was still running when the hold gave way after {HOLD_LIMIT} s: "
            "it waited for what was held"
        )


def wait_until(condition: Callable[[], object], what: str) -> None:
    """Poll until ``condition()`` holds; fail after :data:`HOLD_LIMIT` seconds instead of hanging."""
    deadline = time.monotonic() + HOLD_LIMIT
    while not condition():
        assert time.monotonic() < deadline, f"still waiting after {HOLD_LIMIT} s for {what}"
        time.sleep(0.01)


def hold_sender(transport: Any) -> Hold:
    """Make a queued transport's real sender wait at a :class:`Hold` before each batch."""
    hold = Hold()
    sender = transport._engine.sender
    send = sender.send

    def held_send(batch: Any) -> Any:
        hold.wait()
        return send(batch)

    sender.send = held_send
    return hold


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    events: list[dict[str, Any]]
    at: float


@dataclass
class Behaviour:
    """What the next requests get; each list is consumed one request at a time."""

    statuses: list[int] = field(default_factory=list)
    retry_after: str | None = None
    body: bytes = b""
    resets: int = 0
    delay: float = 0.0
    batch_supported: bool = True
    batch_status: int = 404  # what a backend without the batch endpoint answers
    always_status: int | None = None
    # Per batch request answered 200, one at a time: the events (by index) that
    # failed, retriable or not; answered as the batch endpoint's partial_success.
    partial: list[dict[int, bool]] = field(default_factory=list)


class LineageServer:
    """A real HTTP/1.1 server on 127.0.0.1 speaking the OpenLineage API, with faults on demand."""

    def __init__(self) -> None:
        self.behaviour = Behaviour()
        #: Closed, it keeps every request waiting, unanswered, until it opens again.
        self.hold = Hold()
        self.lock = threading.Lock()
        self.requests: list[Request] = []
        self.attempts = 0
        self.received = threading.Condition(self.lock)
        self._conns: set[socket.socket] = set()
        self._server: ThreadingHTTPServer | None = None
        self.port = 0
        self.start()

    # -- lifecycle
    def start(self) -> None:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                with owner.lock:
                    owner._conns.add(self.connection)

            def finish(self) -> None:
                with owner.lock:
                    owner._conns.discard(self.connection)
                with contextlib.suppress(OSError):
                    super().finish()

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                owner._handle(self)

        class QuietServer(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # clients that hang up (timeouts, closing transports) are expected here

        server = QuietServer(("127.0.0.1", self.port), Handler)
        server.daemon_threads = True
        self.port = server.server_address[1]
        self._server = server
        threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        ).start()

    def stop(self) -> None:
        """Go down: stop listening and cut every open connection."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        with self.lock:
            conns = list(self._conns)
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- requests
    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length", "0"))
        raw = h.rfile.read(length)
        self.hold.wait()  # the request is read; its answer waits while the hold is closed
        with self.lock:
            self.attempts += 1
            b = self.behaviour
            reset = b.resets > 0
            if reset:
                b.resets -= 1
            status = b.statuses.pop(0) if b.statuses else (b.always_status or 200)
            delay = b.delay
            batch_ok, batch_status = b.batch_supported, b.batch_status
            retry_after, body = b.retry_after, b.body
        if reset:
            # Abort with a TCP reset before the request is taken into account.
            h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            h.connection.close()
            h.close_connection = True
            return
        if delay:
            time.sleep(delay)
        if h.path.endswith("/batch") and not batch_ok:
            status = batch_status
        payload = body if status != 200 else b""
        if status == 200:
            if h.headers.get("Content-Encoding") == "gzip":
                raw = gzip.decompress(raw)
            doc = json.loads(raw)
            events = doc if isinstance(doc, list) else [doc]
            failed: dict[int, bool] = {}
            if isinstance(doc, list):
                with self.lock:
                    failed = self.behaviour.partial.pop(0) if self.behaviour.partial else {}
            if failed:
                report = [
                    {"index": i, "retriable": again, "reason": "not now" if again else "invalid"}
                    for i, again in sorted(failed.items())
                ]
                payload = json.dumps(
                    {"status": "partial_success", "failed_events": report}
                ).encode()
                events = [e for i, e in enumerate(events) if i not in failed]
            with self.received:
                self.requests.append(Request(h.path, dict(h.headers), events, time.monotonic()))
                self.received.notify_all()
        h.send_response(status)
        if status != 200 and retry_after is not None:
            h.send_header("Retry-After", retry_after)
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        h.wfile.write(payload)

    @property
    def events(self) -> list[dict[str, Any]]:
        with self.lock:
            return [e for r in self.requests for e in r.events]

    def wait_for(self, count: int, timeout: float = HOLD_LIMIT) -> list[dict[str, Any]]:
        """The events once ``count`` have arrived, or when ``timeout`` (a safety net) runs out."""
        deadline = time.monotonic() + timeout
        with self.received:
            while sum(len(r.events) for r in self.requests) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.received.wait(left)
        return self.events


def assert_exactly_once_in_order(
    received: Sequence[Mapping[str, Any] | str], sent: Sequence[RunEvent]
) -> None:
    """Every sent event arrived once, as itself, and each run's events arrived in emission order.

    What arrived is read back with ``read_event``: it must be a valid event
    equal to one that was sent, not merely JSON with the right ids.
    """
    got = [read_event(doc) for doc in received]
    assert all(isinstance(e, RunEvent) for e in got)
    assert Counter(e.to_json() for e in got) == Counter(e.to_json() for e in sent), (
        "events lost, duplicated or changed"
    )
    by_run: dict[str, list[int]] = {}
    for e in got:
        assert isinstance(e, RunEvent)
        by_run.setdefault(e.run.run_id, []).append(seq_of(e))
    for run_id, order in by_run.items():
        assert order == sorted(order), f"run {run_id} arrived out of order: {order}"
