"""Secrets stay secret: in every dump of a transport configuration, in every chained exception of
a configuration error, and in the naming module's error messages (JDBC brace syntax included)."""

from __future__ import annotations

import json
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr, ValidationError

from openlineage_sdk import naming
from openlineage_sdk.config import ConfigError, load_config
from openlineage_sdk.naming import NamingError
from openlineage_sdk.transports import HttpConfig, HttpTransport, KafkaConfig, create_transport

SECRETS = (
    "URLPASSWORD",
    "QUERYTOKEN",
    "HEADERSECRET",
    "APIKEYSECRET",
    "SASLSECRET",
    "SSLKEYSECRET",
    "KEYSTORESECRET",
    "PEMSECRET",
)


def _http() -> HttpConfig:
    return HttpConfig(
        url="https://lineage-user:URLPASSWORD@lineage.example.com/ol?token=QUERYTOKEN&team=data",
        auth={"type": "api_key", "apiKey": "APIKEYSECRET"},
        custom_headers={"X-Api-Key": "HEADERSECRET", "Authorization": "Basic HEADERSECRET"},
    )


def _kafka() -> KafkaConfig:
    return KafkaConfig(
        topic="lineage",
        config={
            "bootstrap.servers": "broker:9092",
            "security.protocol": "SASL_SSL",
            "sasl.username": "svc",
            "sasl.password": "SASLSECRET",
            "ssl.key.password": "SSLKEYSECRET",
            "ssl.keystore.password": "KEYSTORESECRET",
            "ssl.key.pem": "PEMSECRET",
        },
    )


def _every_dump(model: Any) -> Iterator[str]:
    yield repr(model)
    yield str(model)
    yield repr(model.model_dump())
    yield repr(model.model_dump(mode="json"))
    yield model.model_dump_json()
    yield model.model_dump_json(indent=2, by_alias=True)


@pytest.mark.parametrize("make", [_http, _kafka], ids=["http", "kafka"])
def test_no_dump_of_a_transport_configuration_shows_a_secret(make: Any) -> None:
    config = make()
    for text in _every_dump(config):
        for secret in SECRETS:
            assert secret not in text, (secret, text)


def test_the_dump_masks_the_secrets_and_keeps_the_rest() -> None:
    dumped = json.loads(_http().model_dump_json())
    assert dumped["url"] == (
        "https://lineage-user:**********@lineage.example.com/ol?token=**********&team=data"
    )
    assert dumped["custom_headers"] == {"X-Api-Key": "**********", "Authorization": "**********"}
    assert dumped["auth"]["api_key"] == "**********"
    kafka = json.loads(_kafka().model_dump_json())["config"]
    assert kafka["bootstrap.servers"] == "broker:9092"
    assert kafka["security.protocol"] == "SASL_SSL"
    assert kafka["sasl.password"] == "**********"


def test_a_dump_masks_every_custom_header_value() -> None:
    # A header's name does not say whether its value is a credential (X-Tenant-Token,
    # X-Custom): dumps, which may be stored or sent, mask them all.
    config = HttpConfig(url="http://h", custom_headers={"X-Custom": "HEADERSECRET"})
    for text in (config.model_dump_json(), repr(config.model_dump())):
        assert "HEADERSECRET" not in text


def test_the_configuration_holds_the_secrets_as_secret_types() -> None:
    config = _http()
    assert "URLPASSWORD" in config.url  # what requests go to; masked in every dump
    header = config.custom_headers["X-Api-Key"]
    assert isinstance(header, SecretStr)
    assert header.get_secret_value() == "HEADERSECRET"
    settings = _kafka().config
    for key in ("sasl.password", "ssl.key.password", "ssl.keystore.password", "ssl.key.pem"):
        assert isinstance(settings[key], SecretStr), key
    assert settings["sasl.password"].get_secret_value() == "SASLSECRET"  # type: ignore[union-attr]
    assert settings["bootstrap.servers"] == "broker:9092"
    assert settings["security.protocol"] == "SASL_SSL"


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    stack: list[BaseException | None] = [exc]
    while stack:
        item = stack.pop()
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        stack += [item.__cause__, item.__context__]


def _assert_no_secret(exc: BaseException) -> None:
    for item in _chain(exc):
        text = str(item) + repr(item) + "".join(traceback.format_exception(item))
        if isinstance(item, ValidationError):
            text += repr(item.errors(include_input=False))
        for secret in SECRETS:
            assert secret not in text, (secret, type(item), text)


BAD_HTTP: dict[str, Any] = {
    "type": "http",
    "url": "ftp://lineage-user:URLPASSWORD@lineage.example.com?token=QUERYTOKEN",
    "timeout": -1,
    "auth": {"type": "api_key", "apiKey": "APIKEYSECRET"},
    "custom_headers": {"X-Api-Key": "HEADERSECRET", "bad": 5},
}


def test_a_configuration_error_chains_no_secret(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config({}, overrides={"transport": BAD_HTTP}, cwd=tmp_path)
    assert "url" in str(caught.value)
    _assert_no_secret(caught.value)


def test_a_configuration_file_error_chains_no_secret(tmp_path: Path) -> None:
    (tmp_path / "openlineage.json").write_text(json.dumps({"transport": BAD_HTTP}))
    with pytest.raises(ConfigError) as caught:
        load_config({}, config_file=tmp_path / "openlineage.json", cwd=tmp_path)
    _assert_no_secret(caught.value)


def test_a_transport_error_chains_no_secret() -> None:
    with pytest.raises(ValueError, match="url") as caught:
        create_transport(BAD_HTTP)
    _assert_no_secret(caught.value)
    kafka = {"type": "kafka", "topic": "", "config": {"sasl.password": ["SASLSECRET"]}}
    with pytest.raises(ValueError, match="topic") as caught:
        create_transport(kafka)
    _assert_no_secret(caught.value)


def test_building_a_configuration_in_code_quotes_no_secret() -> None:
    settings = {key: value for key, value in BAD_HTTP.items() if key != "type"}
    with pytest.raises(ValidationError) as caught:
        HttpConfig(**settings)
    _assert_no_secret(caught.value)
    with pytest.raises(ValidationError) as caught:
        HttpTransport(**settings)
    _assert_no_secret(caught.value)


@pytest.mark.parametrize(
    "url",
    [
        "jdbc:sqlserver://db;user=u;password={abc;TAILSECRET}",
        "jdbc:sqlserver://db;user=u;password={abc;TAILSECRET};databaseName=x",
        "jdbc:sqlserver://db;password={ab}}c;TAILSECRET};databaseName=x",
        "jdbc:sqlserver://db;password={abc;TAIL}SECRET};databaseName=x",
        "jdbc:sqlserver://db;password={abc;TAILSECRET",
        "jdbc:sqlserver://db;PWD = {x;y TAILSECRET} ;databaseName=x",
    ],
)
def test_a_jdbc_password_in_braces_is_masked_whole(url: str) -> None:
    with pytest.raises(NamingError) as caught:
        naming.dataset_from_uri(url)
    message = str(caught.value)
    assert "SECRET" not in message
    assert "TAIL" not in message
    assert "password=***" in message.lower() or "pwd=***" in message.lower()
