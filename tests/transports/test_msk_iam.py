"""``msk-iam``: Kafka on Amazon MSK with IAM authentication (SASL/OAUTHBEARER).

What is checked, and how:

* the token: made by ``aws-msk-iam-sasl-signer-python`` as the official client makes it, and
  verified here independently: it decodes to a SigV4-presigned ``kafka-cluster:Connect``
  request whose signature, recomputed from the test credentials, matches;
* the producer: librdkafka calls the transport's token callback (against librdkafka's mock
  cluster), with ``SASL_SSL`` and ``OAUTHBEARER`` set as the official client sets them.

What is not: librdkafka's mock cluster has no SASL (it answers that the SASL handshake is not
supported), so no broker here takes the token and accepts a message; the tests show that the
events then wait in the spool, none lost.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

import pytest

confluent_kafka = pytest.importorskip("confluent_kafka")
pytest.importorskip("aws_msk_iam_sasl_signer")

from openlineage_sdk.transports import TransportConfigError, create_transport  # noqa: E402
from openlineage_sdk.transports.kafka import (  # noqa: E402
    MskIamConfig,
    MskIamTransport,
    msk_iam_token,
)
from tests.transports._support import run_events  # noqa: E402

pytestmark = pytest.mark.kafka

ACCESS_KEY = "AKIDMSKIAMTEST"
SECRET_KEY = "msk-test-secret"


@pytest.fixture(autouse=True)
def aws_identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@pytest.fixture
def cluster() -> Iterator[str]:
    holder = confluent_kafka.Producer({"test.mock.num.brokers": 1, "log_level": 0})
    brokers = holder.list_topics(timeout=10).brokers.values()
    yield ",".join(f"{b.host}:{b.port}" for b in brokers)
    holder.flush(1)


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def verify_presigned(url: str, region: str) -> dict[str, str]:
    """Check a SigV4-presigned URL's signature with the test credentials; its parameters."""
    parts = urlsplit(url)
    params = dict(parse_qsl(parts.query, keep_blank_values=True))
    signature = params.pop("X-Amz-Signature")
    # The User-Agent parameter is added after signing (the signer's documented layout).
    params.pop("User-Agent", None)
    canonical_query = "&".join(
        f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}" for k, v in sorted(params.items())
    )
    canonical = "\n".join(
        [
            "GET",
            "/",
            canonical_query,
            f"host:{parts.netloc}",
            "",
            "host",
            hashlib.sha256(b"").hexdigest(),
        ]
    )
    stamp = params["X-Amz-Date"]
    scope = f"{stamp[:8]}/{region}/kafka-cluster/aws4_request"
    to_sign = "\n".join(
        ["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()]
    )
    key = _hmac(("AWS4" + SECRET_KEY).encode(), stamp[:8])
    for part in (region, "kafka-cluster", "aws4_request"):
        key = _hmac(key, part)
    expected = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    assert signature == expected, "the token's signature does not match the credentials"
    return params


def test_the_token_is_a_presigned_connect_request_signed_by_the_credentials() -> None:
    config = MskIamConfig(topic="t", region="eu-west-1")
    before = time.time()
    token, expiry = msk_iam_token(config, "eu-west-1")
    url = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    assert url.startswith("https://kafka.eu-west-1.amazonaws.com/?")
    params = verify_presigned(url, "eu-west-1")
    assert params["Action"] == "kafka-cluster:Connect"
    assert params["X-Amz-Credential"].startswith(f"{ACCESS_KEY}/")
    assert params["X-Amz-SignedHeaders"] == "host"
    signed_at = datetime.strptime(params["X-Amz-Date"], "%Y%m%dT%H%M%SZ").replace(
        tzinfo=timezone.utc
    )
    # librdkafka wants the expiry in seconds since the epoch (the signer answers milliseconds).
    assert expiry == pytest.approx(signed_at.timestamp() + int(params["X-Amz-Expires"]), abs=1)
    assert before - 5 < expiry - int(params["X-Amz-Expires"]) < time.time() + 5


def test_a_tampered_token_fails_the_check() -> None:
    token, _ = msk_iam_token(MskIamConfig(topic="t"), "eu-west-1")
    url = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    with pytest.raises(AssertionError, match="signature"):
        verify_presigned(url.replace("eu-west-1.amazonaws", "eu-west-2.amazonaws"), "eu-west-1")


def test_librdkafka_asks_the_transport_for_its_token_and_events_wait_for_a_broker(
    cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    asked = threading.Event()
    import openlineage_sdk.transports.kafka as kafka_module

    real = kafka_module.msk_iam_token

    def counting(config: MskIamConfig, region: str) -> tuple[str, float]:
        calls.append(region)
        asked.set()
        return real(config, region)

    monkeypatch.setattr(kafka_module, "msk_iam_token", counting)
    transport = create_transport(
        {
            "type": "msk-iam",
            "topic": "lineage",
            "region": "us-west-2",
            # The mock cluster speaks no TLS: the user's security.protocol wins.
            "config": {
                "bootstrap.servers": cluster,
                "security.protocol": "SASL_PLAINTEXT",
                "log_level": 0,
            },
            "spool_dir": str(tmp_path),
            "backoff_initial": 0.05,
            "backoff_max": 0.1,
        }
    )
    assert isinstance(transport, MskIamTransport)
    events = run_events(2)
    for event in events:
        transport.emit(event)
    # librdkafka asks for a token before it connects (on its own thread).
    assert asked.wait(10)
    assert set(calls) == {"us-west-2"}
    result = transport.close(1)
    # No broker here takes the token: nothing is delivered, nothing lost.
    assert result.delivered == 0
    assert result.dropped == 0
    assert result.rejected == 0
    assert result.pending + result.spooled == len(events)


def test_the_producer_is_set_up_as_the_official_client_sets_it() -> None:
    transport = MskIamTransport(
        topic="t", region="eu-central-1", config={"log_level": 0}, spool=False
    )
    try:
        sender: Any = transport._engine.sender
        assert "kafka" in sender.destination.lower()
        # librdkafka reports the settings it was made with.
        settings = _producer_settings(transport)
        assert settings["security.protocol"] == "SASL_SSL"
        assert settings["sasl.mechanism"] == "OAUTHBEARER"
        assert settings["enable.idempotence"] is True
    finally:
        transport.close(0.5)


def _producer_settings(transport: MskIamTransport) -> dict[str, Any]:
    captured: dict[str, Any] = {}
    original = confluent_kafka.Producer
    import openlineage_sdk.transports.kafka as kafka_module

    class Spy(original):  # type: ignore[misc, valid-type]
        def __init__(self, settings: dict[str, Any]) -> None:
            captured.update(settings)
            super().__init__(settings)

    confluent_kafka.Producer = Spy
    try:
        kafka_module._KafkaSender(
            transport.config,
            {**kafka_module._PRODUCER_DEFAULTS, "security.protocol": "SASL_SSL"},
            {"sasl.mechanism": "OAUTHBEARER", "oauth_cb": lambda _c: ("t", time.time() + 60)},
        ).close()
    finally:
        confluent_kafka.Producer = original
    return captured


def test_official_keys_and_profile_and_role() -> None:
    config = MskIamConfig.model_validate(
        {
            "type": "msk-iam",
            "topic": "t",
            "region": "eu-west-1",
            "aws_profile": "lineage",
            "role_arn": "arn:aws:iam::1:role/r",
            "aws_debug_creds": True,
            "config": {"bootstrap.servers": "b-1.msk:9098"},
        }
    )
    assert (config.aws_profile, config.role_arn, config.aws_debug_creds) == (
        "lineage",
        "arn:aws:iam::1:role/r",
        True,
    )


def test_no_region_anywhere_is_a_typed_error_naming_region() -> None:
    with pytest.raises(TransportConfigError, match="region"):
        MskIamTransport(topic="t", spool=False)


def test_region_from_aws_region(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AWS_REGION", "ap-south-1")
    seen: list[str] = []
    asked = threading.Event()
    import openlineage_sdk.transports.kafka as kafka_module

    def token(_config: MskIamConfig, region: str) -> tuple[str, float]:
        seen.append(region)
        asked.set()
        return "t", time.time() + 60

    monkeypatch.setattr(kafka_module, "msk_iam_token", token)
    transport = MskIamTransport(
        topic="t",
        config={"bootstrap.servers": f"127.0.0.1:{_closed_port()}", "log_level": 0},
        spool=False,
    )
    try:
        transport.emit(run_events(1)[0])
        assert asked.wait(10)
        assert seen[0] == "ap-south-1"
    finally:
        transport.close(0.2)


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unique_topic_names_do_not_matter_here() -> None:
    # The configuration is refused, typed, when the topic is missing, as for kafka.
    with pytest.raises(TransportConfigError, match="topic"):
        create_transport({"type": "msk-iam", "region": "eu-west-1", "name": str(uuid.uuid4())})
