"""``datadog``: side by side with the official client 1.54.0, against one loopback intake.

The same configuration and the same event give the same request on the wire: path, the
headers that carry meaning (content type, encoding, authorization) and the body.
"""

from __future__ import annotations

import gzip
import json
import logging
import uuid
from pathlib import Path

import pytest

pytest.importorskip("httpx")

from openlineage_sdk import read_event
from openlineage_sdk.transports import (
    TransportConfigError,
    create_transport,
    parse_transport_config,
)
from openlineage_sdk.transports.datadog import (
    SITE_INTAKES,
    DatadogConfig,
    DatadogTransport,
)
from tests.transports._cloud_support import RecordingApi, official_run_event
from tests.transports._support import (
    LineageServer,
    assert_exactly_once_in_order,
    run_event,
    run_events,
)

API_KEY = "dd-api-key-0123456789abcdef"


@pytest.fixture(autouse=True)
def no_datadog_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DD_API_KEY", raising=False)
    monkeypatch.delenv("DD_SITE", raising=False)


def test_the_same_request_as_the_official_client(tmp_path: Path) -> None:
    official = pytest.importorskip("openlineage.client.transport.datadog")
    from openlineage.client.serde import Serde

    intake = RecordingApi(answer=lambda seen: (202, {}, b""))
    try:
        event = run_event(str(uuid.uuid4()), "job", "START", 1)
        their_event = official_run_event(event)
        settings = {"apiKey": API_KEY, "site": intake.url}
        theirs = official.DatadogTransport(official.DatadogConfig.from_dict(dict(settings)))
        theirs.emit(their_event)
        theirs.close()
        ours = create_transport({"type": "datadog", **settings, "spool_dir": str(tmp_path)})
        ours.emit(read_event(Serde.to_json(their_event)))
        assert ours.close(10).delivered == 1
        their_request, our_request = intake.wait_for(2)
    finally:
        intake.stop()
    assert their_request.method == our_request.method == "POST"
    assert their_request.path == our_request.path == "/api/v1/lineage"
    for header in ("Content-Type", "Content-Encoding", "Authorization"):
        assert their_request.header(header) == our_request.header(header), header
    assert our_request.header("Authorization") == f"Bearer {API_KEY}"
    assert our_request.header("Content-Encoding") == "gzip"
    # gzip's header carries a time stamp: the bodies are compared once decompressed, as JSON
    # (the official client writes it with spaces after separators and sorted keys; this
    # package compactly, in the spec's order).
    assert json.loads(gzip.decompress(our_request.body)) == json.loads(
        gzip.decompress(their_request.body)
    )


def test_sites_map_to_their_intakes() -> None:
    for site, intake in SITE_INTAKES.items():
        config = DatadogConfig(apiKey="k", site=site)
        assert config.intake == intake
        assert config.http_section()["url"] == intake
    assert DatadogConfig(apiKey="k").intake == "https://data-obs-intake.datadoghq.com"
    assert DatadogConfig(apiKey="k", site="https://intake.example.com").intake == (
        "https://intake.example.com"
    )


def test_api_key_and_site_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DD_API_KEY", API_KEY)
    monkeypatch.setenv("DD_SITE", "datadoghq.eu")
    config = parse_transport_config({"type": "datadog"})
    assert isinstance(config, DatadogConfig)
    assert config.api_key.get_secret_value() == API_KEY
    assert config.intake == "https://data-obs-intake.datadoghq.eu"
    # The configuration's own keys win (OPENLINEAGE__TRANSPORT__APIKEY arrives lower-cased).
    config = parse_transport_config(
        {"type": "datadog", "apikey": "other", "site": "ap1.datadoghq.com"}
    )
    assert isinstance(config, DatadogConfig)
    assert config.api_key.get_secret_value() == "other"
    assert config.site == "ap1.datadoghq.com"


def test_bad_settings_are_typed_errors_that_name_the_key_and_not_the_secret() -> None:
    with pytest.raises(TransportConfigError, match="apiKey") as missing:
        parse_transport_config({"type": "datadog"})
    assert "DD_API_KEY" in str(missing.value)
    with pytest.raises(TransportConfigError, match="site") as bad_site:
        parse_transport_config({"type": "datadog", "apiKey": API_KEY, "site": "datadog.example"})
    with pytest.raises(TransportConfigError, match="timeout") as bad_timeout:
        parse_transport_config({"type": "datadog", "apiKey": API_KEY, "timeout": -1})
    for error in (missing, bad_site, bad_timeout):
        assert API_KEY not in str(error.value)
        assert error.value.__context__ is None
    config = parse_transport_config({"type": "datadog", "apiKey": API_KEY})
    assert API_KEY not in repr(config)
    assert API_KEY not in json.dumps(config.model_dump(mode="json"))


def test_the_key_never_reaches_the_log(
    server: LineageServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server.behaviour.statuses = [500, 403]
    with caplog.at_level(logging.DEBUG):
        transport = DatadogTransport(
            apiKey=API_KEY,
            site=server.url,
            spool_dir=tmp_path,
            backoff_initial=0.01,
            backoff_max=0.02,
        )
        transport.emit(run_event(str(uuid.uuid4()), "job", "START", 1))
        transport.close(10)
    assert caplog.records
    assert API_KEY not in caplog.text


def test_delivery_in_order_through_outages(server: LineageServer, tmp_path: Path) -> None:
    events = run_events(5)
    server.behaviour.statuses = [503, 503]
    transport = DatadogTransport(
        apiKey=API_KEY, site=server.url, spool_dir=tmp_path, backoff_initial=0.01, backoff_max=0.05
    )
    for event in events:
        transport.emit(event)
    result = transport.close(20)
    assert result.complete
    assert result.delivered == len(events)
    assert_exactly_once_in_order(server.wait_for(len(events)), events)
    # One event per request, as the official client posts them.
    assert all(r.path == "/api/v1/lineage" and len(r.events) == 1 for r in server.requests)
    assert transport.spool_path is not None
    assert transport.spool_path.parent == tmp_path


def test_more_threads_than_partitions_mean_sixteen(caplog: pytest.LogCaptureFixture) -> None:
    config = DatadogConfig(apiKey="k", max_concurrent_requests=100)  # the official default
    assert config.http_section()["max_concurrent_requests"] == 16


def test_synchronous_rules_are_named(caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    transport = DatadogTransport(
        apiKey="k",
        site="http://127.0.0.1:9",
        async_transport_rules={"dbt": {"*": True}, "spark": {"batch": False}},
        spool_dir=tmp_path,
    )
    transport.close(0.1)
    assert "spark/batch" in caplog.text
