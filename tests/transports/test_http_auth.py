"""HTTP authentication, side by side with the official client, against real loopback servers.

The same ``openlineage.yml`` (and ``OPENLINEAGE_URL``) configures ``openlineage-python`` 1.54.0
and this SDK; each sends three events to a loopback lineage server, the token providers get
their tokens from a loopback token endpoint, and what both servers received is compared.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
import uuid
import warnings
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from openlineage_sdk import OpenLineage, read_event
from openlineage_sdk.config import ConfigError, load_config
from tests.transports._support import LineageServer

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from openlineage.client import OpenLineageClient
    from openlineage.client import event_v2 as ev
    from openlineage.client.serde import Serde


@dataclass
class TokenEndpoint:
    """A loopback OAuth token endpoint: each request gets a new token ``tok-N``."""

    answer: dict[str, Any] = field(default_factory=lambda: {"expires_in": 3600})
    token_field: str = "access_token"
    jwt_exp: float | None = None
    requests: list[tuple[dict[str, list[str]], str | None]] = field(default_factory=list)
    port: int = 0

    def __post_init__(self) -> None:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
                owner.requests.append((parse_qs(body), self.headers.get("Authorization")))
                token = f"tok-{len(owner.requests)}"
                if owner.jwt_exp is not None:
                    token = _jwt({"exp": owner.jwt_exp, "n": len(owner.requests)})
                payload = json.dumps({owner.token_field: token, **owner.answer}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/oauth/token"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _jwt(claims: dict[str, Any]) -> str:
    def part(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none'})}.{part(claims)}.c2ln"


def _event(n: int) -> ev.RunEvent:
    return ev.RunEvent(
        eventType=ev.RunState.START,
        eventTime="2024-01-01T00:00:00Z",
        run=ev.Run(runId=str(uuid.UUID(int=n + 1))),
        job=ev.Job(namespace="ns", name=f"job{n}"),
        producer="https://example.com/producer",
    )


@dataclass
class Seen:
    """What the servers received from one library."""

    authorization: list[str | None]
    token_requests: list[tuple[dict[str, list[str]], str | None]]


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith("OPENLINEAGE") or name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def _run_both(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    transport: dict[str, Any] | None,
    *,
    url_env: str | None = None,
    endpoint: TokenEndpoint | None = None,
) -> tuple[Seen, Seen]:
    """Emit three events through each library; what the servers saw, official first."""
    seen = []
    for library in ("official", "ours"):
        server = LineageServer()
        token = endpoint or TokenEndpoint()
        token.requests.clear()
        try:
            config: dict[str, Any] = {}
            if transport is not None:
                section = json.loads(
                    json.dumps(transport)
                    .replace("LINEAGE_URL", server.url)
                    .replace("TOKEN_URL", token.url)
                )
                config["transport"] = section
            file = tmp_path / f"{library}.yml"
            file.write_text(json.dumps(config))
            monkeypatch.setenv("OPENLINEAGE_CONFIG", str(file))
            if url_env is not None:
                host = server.url.removeprefix("http://")
                monkeypatch.setenv("OPENLINEAGE_URL", url_env.replace("LINEAGE_HOST", host))
            if library == "official":
                before = dict(os.environ)
                try:
                    client = OpenLineageClient()
                    for n in range(3):
                        client.emit(_event(n))
                    client.close()
                finally:
                    # It writes OPENLINEAGE__TRANSPORT__TRANSPORTS__DEFAULT_HTTP__* into
                    # os.environ when OPENLINEAGE_URL is set: undo that.
                    os.environ.clear()
                    os.environ.update(before)
            else:
                ours = OpenLineage.from_environment(raise_on_error=True)
                for n in range(3):
                    ours.emit(_event(n))  # the official event object itself
                    assert ours.flush(10).complete  # one request per event, as the official
                ours.close()
            server.wait_for(3)
            headers = [
                {k.lower(): v for k, v in r.headers.items()}.get("authorization")
                for r in server.requests
            ]
            seen.append(Seen(headers, list(token.requests)))
        finally:
            server.stop()
            if endpoint is None:
                token.close()
    return seen[0], seen[1]


def test_api_key(clean_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    transport = {"type": "http", "url": "LINEAGE_URL", "auth": {"type": "api_key", "apiKey": "k1"}}
    official, ours = _run_both(tmp_path, monkeypatch, transport)
    assert ours == official
    assert ours.authorization == ["Bearer k1"] * 3


def test_basic_auth_from_the_url_user_info(
    clean_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    official, ours = _run_both(
        tmp_path, monkeypatch, None, url_env="http://ann%40acme:p%3Ass@LINEAGE_HOST"
    )
    assert ours == official
    expected = "Basic " + base64.b64encode(b"ann@acme:p:ss").decode()
    assert ours.authorization == [expected] * 3


def test_jwt_token_is_fetched_once_and_reused(
    clean_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    transport = {
        "type": "http",
        "url": "LINEAGE_URL",
        "auth": {
            "type": "jwt",
            "apiKey": "the-api-key",
            "tokenEndpoint": "TOKEN_URL",
            "grantType": "urn:ibm:params:oauth:grant-type:apikey",
            "responseType": "cloud_iam",
        },
    }
    endpoint = TokenEndpoint(token_field="token")
    try:
        official, ours = _run_both(tmp_path, monkeypatch, transport, endpoint=endpoint)
    finally:
        endpoint.close()
    assert ours == official
    assert ours.authorization == ["Bearer tok-1"] * 3
    assert ours.token_requests == [
        (
            {
                "grant_type": ["urn:ibm:params:oauth:grant-type:apikey"],
                "response_type": ["cloud_iam"],
                "apikey": ["the-api-key"],
            },
            None,
        )
    ]


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_oauth2_client_credentials(
    clean_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    transport = {
        "type": "http",
        "url": "LINEAGE_URL",
        "auth": {
            "type": "oauth2",
            "clientId": "svc:lineage",
            "clientSecret": "s3cr3t&more",
            "tokenEndpoint": "TOKEN_URL",
            "scope": "lineage.write",
            "clientAuthMethod": method,
        },
    }
    official, ours = _run_both(tmp_path, monkeypatch, transport)
    assert ours == official
    assert ours.authorization == ["Bearer tok-1"] * 3
    form, authorization = ours.token_requests[0]
    assert form["grant_type"] == ["client_credentials"]
    assert form["scope"] == ["lineage.write"]
    if method == "client_secret_basic":
        assert authorization == "Basic " + base64.b64encode(b"svc%3Alineage:s3cr3t%26more").decode()
    else:
        assert authorization is None
        assert form["client_secret"] == ["s3cr3t&more"]


def test_token_refreshed_before_it_expires(
    clean_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Expiring in 100 s, within the default 120 s refresh buffer: a new token for every request.
    transport = {
        "type": "http",
        "url": "LINEAGE_URL",
        "auth": {
            "type": "oauth2",
            "clientId": "a",
            "clientSecret": "b",
            "tokenEndpoint": "TOKEN_URL",
        },
    }
    endpoint = TokenEndpoint(answer={"expires_in": 100})
    try:
        official, ours = _run_both(tmp_path, monkeypatch, transport, endpoint=endpoint)
    finally:
        endpoint.close()
    assert ours == official
    assert ours.authorization == ["Bearer tok-1", "Bearer tok-2", "Bearer tok-3"]


@pytest.mark.parametrize(("lifetime", "fetches"), [(3600, 1), (60, 3)])
def test_expiry_from_the_jwt_exp_claim(
    clean_env: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    lifetime: int,
    fetches: int,
) -> None:
    transport = {
        "type": "http",
        "url": "LINEAGE_URL",
        "auth": {"type": "jwt", "apiKey": "k", "tokenEndpoint": "TOKEN_URL"},
    }
    endpoint = TokenEndpoint(answer={}, token_field="token", jwt_exp=time.time() + lifetime)
    try:
        official, ours = _run_both(tmp_path, monkeypatch, transport, endpoint=endpoint)
    finally:
        endpoint.close()
    assert ours == official
    assert len(ours.token_requests) == fetches


def test_token_settings_from_lower_cased_variables(clean_env: None) -> None:
    config = load_config(
        {
            "OPENLINEAGE__TRANSPORT__TYPE": "http",
            "OPENLINEAGE__TRANSPORT__URL": "http://127.0.0.1:1",
            "OPENLINEAGE__TRANSPORT__AUTH": json.dumps(
                {
                    "type": "oauth2",
                    "clientid": "a",
                    "client_secret": 123,
                    "tokenendpoint": "http://127.0.0.1:2/t",
                    "tokenrefreshbuffer": 5,
                }
            ),
        },
        search_paths=[],
    )
    auth = config.transport.auth  # type: ignore[union-attr]
    assert auth.client_id == "a"
    assert auth.client_secret.get_secret_value() == "123"
    assert auth.token_refresh_buffer == 5
    assert "123" not in repr(config)


def test_bad_auth_settings_name_the_setting_not_the_secret(clean_env: None) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(
            {},
            search_paths=[],
            overrides={
                "transport": {
                    "type": "http",
                    "url": "http://h",
                    "auth": {"type": "oauth2", "clientSecret": "TOPSECRET", "tokenEndpoint": "x"},
                }
            },
        )
    text = str(caught.value)
    assert "clientId" in text
    assert "tokenEndpoint" in text
    assert "TOPSECRET" not in text


def test_a_failing_token_endpoint_keeps_the_event_for_later(
    clean_env: None, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    server = LineageServer()
    try:
        config = load_config(
            {},
            search_paths=[],
            overrides={
                "transport": {
                    "type": "http",
                    "url": server.url,
                    "spool_dir": str(tmp_path / "spool"),
                    "auth": {
                        "type": "oauth2",
                        "clientId": "a",
                        "clientSecret": "TOPSECRET",
                        "tokenEndpoint": "http://127.0.0.1:9/nothing-listens-here",
                    },
                }
            },
        )
        client = OpenLineage(config=config)
        client.emit(read_event(Serde.to_json(_event(0))))
        result = client.close(1)
        assert not result.complete  # kept (pending or spooled), not lost
        assert server.requests == []
        assert "TOPSECRET" not in caplog.text
    finally:
        server.stop()


with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from openlineage.client.transport.http import TokenProvider


class VaultTokenProvider(TokenProvider):
    """A user's token provider, named by its dotted path; both libraries make and call it."""

    def __init__(self, config: dict[str, str]) -> None:
        super().__init__(config)
        self.role = config["role"]
        self.calls = 0

    def get_bearer(self) -> str | None:
        self.calls += 1
        return f"Vault {self.role}-{self.calls}"


def test_user_token_provider_class(
    clean_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    transport = {
        "type": "http",
        "url": "LINEAGE_URL",
        "auth": {"type": f"{__name__}.VaultTokenProvider", "role": "etl"},
    }
    official, ours = _run_both(tmp_path, monkeypatch, transport)
    assert ours == official
    assert ours.authorization == ["Vault etl-1", "Vault etl-2", "Vault etl-3"]


def test_user_token_provider_settings_stay_out_of_reprs_and_errors(clean_env: None) -> None:
    config = load_config(
        {},
        search_paths=[],
        overrides={
            "transport": {
                "type": "http",
                "url": "http://127.0.0.1:1",
                "auth": {"type": f"{__name__}.VaultTokenProvider", "token": "TOPSECRET"},
            }
        },
    )
    assert "TOPSECRET" not in repr(config)
    with pytest.raises(ConfigError) as caught:
        load_config(
            {},
            search_paths=[],
            overrides={
                "transport": {"type": "http", "url": "http://h", "auth": {"type": "bearer"}}
            },
        )
    assert "must be api_key, jwt, oauth2 or the dotted path" in str(caught.value)
