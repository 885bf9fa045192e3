"""The HTTP transport beside the official client: the same requests on the wire, the same retries.

The same configuration (``OpenLineageClient(config=...)`` and the official client's own) and the
same event objects go to a real HTTP server on loopback; what it received is compared: the path,
the headers both clients set, the bodies (as JSON, without what legitimately differs). The
official ``retry`` block (urllib3's ``Retry``) is given to both, against a server answering
with the statuses each case needs; the requests each client made are counted.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import logging
import os
import ssl
import subprocess
import threading
import warnings
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import OpenLineage, OpenLineageClient
from openlineage_sdk.config import ConfigError, load_config
from openlineage_sdk.transports import HttpConfig, HttpTransport
from openlineage_sdk.transports.http import HttpRetry
from tests._official import (
    dataset_event,
    environment_kept,
    fresh,
    job_event,
    rich_run_event,
    simple_run_event,
    strip,
    v1_run_event,
)
from tests.transports._support import LineageServer

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from openlineage.client import OpenLineageClient as OfficialClient

EVENTS = [rich_run_event(1), job_event(), dataset_event(), v1_run_event()]
#: The headers both clients set; each sends its own User-Agent, Accept and the like.
COMPARED = ("content-type", "content-encoding", "authorization", "x-team", "x-api-key")


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in list(os.environ):
        if name.startswith("OPENLINEAGE") or name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _wire(server: LineageServer) -> list[tuple[str, dict[str, str], list[Any]]]:
    out = []
    for request in server.requests:
        headers = {k.lower(): v for k, v in request.headers.items()}
        out.append(
            (
                request.path,
                {k: headers[k] for k in COMPARED if k in headers},
                [strip(event) for event in request.events],
            )
        )
    return out


def _both(
    transport: dict[str, Any],
    events: list[Any],
    statuses: list[int] | None = None,
    retry_after: str | None = None,
) -> tuple[LineageServer, LineageServer]:
    """Each client sends ``events`` (one request each) to a server of its own that first
    answers ``statuses``; the servers, official first."""
    servers = []
    for who in ("official", "ours"):
        server = LineageServer()
        server.behaviour.statuses = list(statuses or [])
        server.behaviour.retry_after = retry_after
        conf = {"transport": json.loads(json.dumps(transport).replace("LINEAGE_URL", server.url))}
        try:
            if who == "official":
                with environment_kept():
                    client: Any = OfficialClient(config=conf)
                    for event in fresh(events):
                        # It raises when it gives up; the server counted its requests.
                        with contextlib.suppress(Exception):
                            client.emit(event)
                    client.close()
            else:
                conf["transport"]["spool_dir"] = "spool"
                ours = OpenLineageClient(config=conf)
                for event in fresh(events):
                    ours.emit(event)
                    assert ours.sdk.flush(30).complete  # one request per event, as the official
                ours.close()
        finally:
            server.stop()
        servers.append(server)
    return servers[0], servers[1]


@pytest.mark.parametrize(
    "transport",
    [
        {"type": "http", "url": "LINEAGE_URL"},
        {
            "type": "http",
            "url": "LINEAGE_URL/",
            "endpoint": "lineage/v2/events",
            "auth": {"type": "api_key", "apiKey": "k-42"},
            "custom_headers": {"X-Team": "data", "X-Api-Key": "h-1"},
            "compression": "gzip",
            "timeout": 3,
        },
        {"type": "http", "url": "LINEAGE_URL/base/", "endpoint": "/api/v1/lineage"},
        {"type": "async_http", "url": "LINEAGE_URL", "auth": {"type": "api_key", "apiKey": "a"}},
    ],
    ids=["plain", "auth, headers, gzip, endpoint", "absolute endpoint", "async_http"],
)
def test_the_same_requests_on_the_wire(clean_env: Path, transport: dict[str, Any]) -> None:
    official, ours = _both(transport, EVENTS)
    assert len(ours.requests) == len(EVENTS)

    # The official async_http sends concurrently: its requests may arrive in any order.
    def canonical(request: Any) -> str:
        return json.dumps(request, sort_keys=True)

    assert sorted(_wire(ours), key=canonical) == sorted(_wire(official), key=canonical)


def test_gzip_bodies_are_compressed_by_both(clean_env: Path) -> None:
    transport = {"type": "http", "url": "LINEAGE_URL", "compression": "gzip"}
    official, ours = _both(transport, EVENTS[:1])
    for server in (official, ours):
        assert server.requests[0].headers["Content-Encoding"] == "gzip"
    # LineageServer decompressed both: the JSON inside is the same.
    assert _wire(ours) == _wire(official)
    assert gzip.decompress(gzip.compress(b"{}")) == b"{}"


# -- the retry block


@pytest.mark.parametrize(
    ("retry", "statuses", "retry_after", "attempts", "delivered"),
    [
        # The official defaults (retried 500, 502, 503, 504) under a block that sets one key.
        ({"total": 3}, [500, 502], None, 3, 1),
        # total: 1 retry, then the official client gives up; here the event is refused.
        ({"total": 1, "backoff_factor": 0}, [500, 500, 500], None, 2, 0),
        # status is counted too: the smaller of the two.
        ({"total": 5, "status": 0}, [503], None, 1, 0),
        # Only the listed statuses are retried: a 500 is not; a 409 is.
        ({"status_forcelist": [503]}, [500], None, 1, 0),
        ({"status_forcelist": [409]}, [409, 409], None, 3, 1),
        # A 429 with Retry-After is retried though not listed, unless told not to.
        ({"status_forcelist": []}, [429], "0", 2, 1),
        ({"status_forcelist": [], "respect_retry_after_header": False}, [429], "0", 1, 0),
        # POST not among allowed_methods: no status is retried.
        ({"allowed_methods": ["GET"]}, [500], None, 1, 0),
        ({"allowed_methods": ["post"]}, [500], None, 1, 0),  # compared as written, as urllib3
    ],
)
def test_the_retry_block_retries_as_the_official_client(
    clean_env: Path,
    retry: dict[str, Any],
    statuses: list[int],
    retry_after: str | None,
    attempts: int,
    delivered: int,
) -> None:
    transport = {"type": "http", "url": "LINEAGE_URL", "retry": {"backoff_factor": 0.01, **retry}}
    official, ours = _both(transport, [simple_run_event(1)], statuses, retry_after)
    assert (official.attempts, len(official.requests)) == (attempts, delivered)
    assert (ours.attempts, len(ours.requests)) == (attempts, delivered)
    assert _wire(ours) == _wire(official)


def test_a_refused_event_is_kept(clean_env: Path, server: LineageServer) -> None:
    server.behaviour.statuses = [500, 500]
    client = OpenLineage(
        config={
            "transport": {
                "type": "http",
                "url": server.url,
                "spool_dir": "spool",
                "retry": {"total": 1, "backoff_factor": 0},
            }
        }
    )
    client.emit(simple_run_event(1))
    result = client.flush(10)
    assert (result.rejected, server.attempts) == (1, 2)
    [kept] = Path("spool").rglob("rejected.jsonl")
    assert json.loads(kept.read_text())["job"]["name"] == "etl.load"
    client.close()


def test_the_retry_block_maps_onto_the_delivery_settings(clean_env: Path) -> None:
    def options(**settings: Any) -> Any:
        transport = HttpTransport(HttpConfig(url="http://127.0.0.1:9", spool=False, **settings))
        try:
            return transport._engine.options
        finally:
            transport.close(0)

    plain = options()
    assert (plain.backoff_initial, plain.backoff_max, plain.max_server_error_attempts) == (
        0.5,
        30.0,
        10,
    )
    mapped = options(retry={"total": 4, "status": 2, "backoff_factor": 0.25, "backoff_max": 60})
    assert mapped.backoff_initial == 0.5  # 2 x backoff_factor: urllib3's 2nd delay onwards
    assert mapped.backoff_max == 60
    assert mapped.max_server_error_attempts == 3  # min(total, status) retries, + the first
    assert mapped.retry_after_max == 300.0
    assert options(retry={"respect_retry_after_header": False}).retry_after_max == 0
    assert options(retry={"retry_after_max": 20}).retry_after_max == 20
    # This transport's own settings, given too, win.
    own = options(
        retry={"total": 2, "backoff_factor": 1}, max_server_error_attempts=7, backoff_initial=0.1
    )
    assert (own.max_server_error_attempts, own.backoff_initial) == (7, 0.1)


def test_what_has_no_equivalent_is_said_once_when_the_configuration_is_read(
    clean_env: Path, server: LineageServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    client = OpenLineageClient(
        config={
            "transport": {
                "type": "http",
                "url": server.url,
                "spool_dir": "spool",
                "retry": {"total": None, "connect": 2, "backoff_jitter": 0.5, "redirect": 3},
            }
        }
    )
    client.emit(simple_run_event(1))
    assert client.close() is True
    said = [r.getMessage() for r in caplog.records if "retry block" in r.getMessage()]
    assert len(said) == 1
    assert "connection errors, timeouts and read errors are retried until" in said[0]
    assert "backoff_jitter is not used" in said[0]
    assert "with neither total nor status" in said[0]
    assert "redirect" not in said[0].split("what has no equivalent:")[1].split("other say")[1]


def test_the_retry_block_from_environment_variables(clean_env: Path) -> None:
    env = {
        "HOME": str(clean_env),
        "OPENLINEAGE__TRANSPORT__TYPE": "http",
        "OPENLINEAGE__TRANSPORT__URL": "http://127.0.0.1:9",
        "OPENLINEAGE__TRANSPORT__RETRY__TOTAL": "2",
        "OPENLINEAGE__TRANSPORT__RETRY__STATUS_FORCELIST": "[502, 503]",
        "OPENLINEAGE__TRANSPORT__RETRY__ALLOWED_METHODS": '["POST"]',
    }
    config = load_config(env).transport
    assert isinstance(config, HttpConfig)
    assert config.retry == HttpRetry(total=2, status_forcelist=[502, 503], allowed_methods=["POST"])
    assert config.retry.retried_statuses() == {502, 503}


@pytest.mark.parametrize(
    ("retry", "problem"),
    [
        (
            {"totl": 3},
            "transport.retry.totl: Extra inputs are not permitted (did you mean 'total'?)",
        ),
        ({"total": -1}, "transport.retry.total: Input should be greater than or equal to 0"),
        ({"status_forcelist": [700]}, "700 is not an HTTP status"),
        ({"method_whitelist": ["POST"]}, "retry.method_whitelist: Extra inputs"),
    ],
)
def test_a_bad_retry_block_is_refused_clearly(
    clean_env: Path, retry: dict[str, Any], problem: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(
            {"HOME": str(clean_env)},
            overrides={"transport": {"type": "http", "url": "http://h", "retry": retry}},
        )
    assert problem in str(caught.value).replace(
        "invalid 'http' transport configuration: ", "transport."
    )


# -- sslContext: a CA bundle and a client certificate (mutual TLS)


def _openssl(folder: Path, *args: str) -> None:
    subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A CA, a server certificate for 127.0.0.1 and a client certificate, made by openssl."""
    folder = tmp_path_factory.mktemp("pki")
    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    _openssl(
        folder,
        "req",
        "-x509",
        *ec,
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=lineage-test-ca",
    )
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    for name in ("server", "client"):
        _openssl(
            folder,
            "req",
            *ec,
            "-keyout",
            f"{name}.key",
            "-out",
            f"{name}.csr",
            "-subj",
            f"/CN=lineage-{name}",
        )
        _openssl(
            folder,
            "x509",
            "-req",
            "-in",
            f"{name}.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            f"{name}.pem",
            "-days",
            "2",
            *(("-extfile", "san.ext") if name == "server" else ()),
        )
    return folder


class MutualTlsServer:
    """An HTTPS lineage endpoint on loopback that requires a client certificate from the CA."""

    def __init__(self, pki: Path) -> None:
        self.clients: list[str] = []
        self.bodies: list[Any] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                cert = self.connection.getpeercert()  # type: ignore[attr-defined]
                owner.clients.append(dict(x[0] for x in cert["subject"])["commonName"])
                owner.bodies.append(json.loads(body))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        class Quiet(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client without a certificate fails the handshake: expected

        self.server = Quiet(("127.0.0.1", 0), Handler)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(pki / "ca.pem"))
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_cert_chain(str(pki / "server.pem"), str(pki / "server.key"))
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def tls_server(pki: Path) -> Iterator[MutualTlsServer]:
    server = MutualTlsServer(pki)
    yield server
    server.close()


def test_ssl_context_side_by_side(clean_env: Path, pki: Path, tls_server: MutualTlsServer) -> None:
    ssl_context = {
        "caCertPath": str(pki / "ca.pem"),
        "clientCertPath": str(pki / "client.pem"),
        "clientKeyPath": str(pki / "client.key"),
    }
    conf = {"transport": {"type": "http", "url": tls_server.url, "sslContext": ssl_context}}
    with environment_kept():
        official = OfficialClient(config=conf)
        official.emit(simple_run_event(1))
    ours = OpenLineageClient(config=json.loads(json.dumps(conf)))
    ours.emit(simple_run_event(1))
    assert ours.close() is True
    assert tls_server.clients == ["lineage-client", "lineage-client"]
    assert strip(tls_server.bodies[1]) == strip(tls_server.bodies[0])


def test_ssl_context_keys_in_every_spelling(clean_env: Path, pki: Path) -> None:
    env = {
        "HOME": str(clean_env),
        "OPENLINEAGE__TRANSPORT__TYPE": "http",
        "OPENLINEAGE__TRANSPORT__URL": "https://127.0.0.1:9",
        "OPENLINEAGE__TRANSPORT__SSLCONTEXT__CACERTPATH": str(pki / "ca.pem"),
        "OPENLINEAGE__TRANSPORT__SSLCONTEXT__CLIENTCERTPATH": str(pki / "client.pem"),
    }
    config = load_config(env).transport
    assert isinstance(config, HttpConfig)
    assert config.ssl_context is not None
    assert config.ssl_context.ca_cert_path == pki / "ca.pem"
    assert config.ssl_context.client_cert_path == pki / "client.pem"
    with pytest.raises(ConfigError, match="clientKeyPath needs clientCertPath"):
        load_config(
            {"HOME": str(clean_env)},
            overrides={
                "transport": {
                    "type": "http",
                    "url": "https://h",
                    "ssl_context": {"client_key_path": str(pki / "client.key")},
                }
            },
        )


def test_without_the_client_certificate_nothing_is_accepted(
    clean_env: Path, pki: Path, tls_server: MutualTlsServer
) -> None:
    client = OpenLineage(
        config={
            "transport": {
                "type": "http",
                "url": tls_server.url,
                "spool_dir": "spool",
                "sslContext": {"caCertPath": str(pki / "ca.pem")},
            }
        }
    )
    client.emit(simple_run_event(1))
    result = client.close(1)
    assert (result.delivered, result.spooled) == (0, 1)  # kept for the next process
    assert tls_server.clients == []
