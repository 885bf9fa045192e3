"""Configuration: the official layout and variables, precedence, purity, and secrets."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path

import pytest
from pydantic import SecretStr

from openlineage_sdk.config import ConfigError, load_config
from openlineage_sdk.transports import (
    CompositeConfig,
    ConsoleConfig,
    FileConfig,
    HttpConfig,
    KafkaConfig,
)

SECRET = "sk-live-7f3a9c"


@pytest.fixture(autouse=True)
def _environ_untouched():
    def snapshot() -> dict[str, str]:
        return {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}

    before = snapshot()
    yield
    assert snapshot() == before, "loading the configuration changed os.environ"


def load(env: dict[str, str], tmp_path: Path, **kwargs):
    # An empty search path by default: the machine's own files must not leak in.
    kwargs.setdefault("search_paths", [])
    return load_config(env, cwd=tmp_path, **kwargs)


def test_nothing_configured(tmp_path: Path) -> None:
    config = load({}, tmp_path)
    assert config.transport is None
    assert not config.disabled
    assert config.config_file is None


def test_legacy_url_variables(tmp_path: Path) -> None:
    env = {
        "OPENLINEAGE_URL": "http://marquez:5000",
        "OPENLINEAGE_API_KEY": SECRET,
        "OPENLINEAGE_ENDPOINT": "api/v1/lineage",
        "OPENLINEAGE_NAMESPACE": "team",
    }
    config = load(env, tmp_path)
    assert isinstance(config.transport, HttpConfig)
    assert config.transport.url == "http://marquez:5000"
    assert config.transport.auth is not None
    assert config.transport.auth.api_key.get_secret_value() == SECRET
    assert config.namespace == "team"


def test_nested_variables_with_json_values(tmp_path: Path) -> None:
    env = {
        "OPENLINEAGE__TRANSPORT__TYPE": "http",
        "OPENLINEAGE__TRANSPORT__URL": "https://lineage.example.com",
        "OPENLINEAGE__TRANSPORT__TIMEOUT": "2.5",
        "OPENLINEAGE__TRANSPORT__VERIFY": "false",
        "OPENLINEAGE__TRANSPORT__AUTH": json.dumps({"type": "api_key", "apiKey": SECRET}),
        "OPENLINEAGE__TRANSPORT__COMPRESSION": "gzip",
    }
    config = load(env, tmp_path)
    t = config.transport
    assert isinstance(t, HttpConfig)
    assert (t.url, t.timeout, t.verify, t.compression) == (
        "https://lineage.example.com",
        2.5,
        False,
        "gzip",
    )
    assert t.auth is not None
    assert t.auth.api_key.get_secret_value() == SECRET


def test_nested_variables_reach_deep_keys_and_numbers_stay_strings_for_keys(tmp_path: Path) -> None:
    env = {
        "OPENLINEAGE__TRANSPORT__TYPE": "http",
        "OPENLINEAGE__TRANSPORT__URL": "http://h",
        "OPENLINEAGE__TRANSPORT__AUTH__TYPE": "api_key",
        "OPENLINEAGE__TRANSPORT__AUTH__APIKEY": "123456",  # JSON-parses to a number
    }
    t = load(env, tmp_path).transport
    assert isinstance(t, HttpConfig)
    assert t.auth is not None
    assert t.auth.api_key.get_secret_value() == "123456"


def test_shorter_variable_wins_over_longer_ones(tmp_path: Path) -> None:
    env = {
        "OPENLINEAGE__TRANSPORT": json.dumps({"type": "console"}),
        "OPENLINEAGE__TRANSPORT__URL": "http://ignored",
    }
    assert isinstance(load(env, tmp_path).transport, ConsoleConfig)


def test_kafka_from_variables(tmp_path: Path) -> None:
    env = {
        "OPENLINEAGE__TRANSPORT__TYPE": "kafka",
        "OPENLINEAGE__TRANSPORT__TOPIC": "lineage",
        "OPENLINEAGE__TRANSPORT__CONFIG": json.dumps(
            {"bootstrap.servers": "k:9092", "sasl.password": SECRET, "sasl.mechanism": "PLAIN"}
        ),
        "OPENLINEAGE__TRANSPORT__MESSAGE_KEY": "fixed",
    }
    t = load(env, tmp_path).transport
    assert isinstance(t, KafkaConfig)
    assert t.topic == "lineage"
    assert t.message_key == "fixed"
    assert t.config["sasl.password"] == SecretStr(SECRET)
    assert SECRET not in repr(t)
    assert SECRET not in str(t)
    assert "k:9092" in repr(t)


YAML = f"""
transport:
  type: http
  url: http://from-file:5000
  auth:
    type: api_key
    apiKey: {SECRET}
  custom_headers:
    X-Team: data
"""


def test_yaml_file_found_in_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "openlineage.yml").write_text(YAML)
    config = load_config({}, cwd=tmp_path)
    assert config.config_file == tmp_path / "openlineage.yml"
    assert isinstance(config.transport, HttpConfig)
    assert config.transport.url == "http://from-file:5000"
    assert config.transport.custom_headers == {"X-Team": SecretStr("data")}


def test_search_order_openlineage_config_then_cwd_then_home(tmp_path: Path) -> None:
    home, cwd, named = tmp_path / "home", tmp_path / "cwd", tmp_path / "named.yml"
    (home / ".openlineage").mkdir(parents=True)
    cwd.mkdir()
    (home / ".openlineage" / "openlineage.yml").write_text("transport: {type: console}")
    assert isinstance(load_config({"HOME": str(home)}, cwd=cwd).transport, ConsoleConfig)
    (cwd / "openlineage.yml").write_text("transport: {type: file, log_file_path: cwd.jsonl}")
    t = load_config({"HOME": str(home)}, cwd=cwd).transport
    assert isinstance(t, FileConfig)
    assert t.log_file_path == "cwd.jsonl"  # text: a local path or a URL
    named.write_text("transport: {type: http, url: 'http://named'}")
    t = load_config({"HOME": str(home), "OPENLINEAGE_CONFIG": str(named)}, cwd=cwd).transport
    assert isinstance(t, HttpConfig)
    assert t.url == "http://named"


def test_missing_openlineage_config_file_falls_back_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "openlineage.yml").write_text("transport: {type: console}")
    env = {"OPENLINEAGE_CONFIG": str(tmp_path / "nope.yml"), "HOME": str(tmp_path / "h")}
    assert isinstance(load_config(env, cwd=tmp_path).transport, ConsoleConfig)
    assert "does not exist" in caplog.text


def test_precedence_code_then_file_then_nested_variables_then_url(tmp_path: Path) -> None:
    path = tmp_path / "ol.yml"
    path.write_text("transport: {type: http, url: 'http://file', timeout: 7}")
    env = {
        "OPENLINEAGE__TRANSPORT__TYPE": "http",
        "OPENLINEAGE__TRANSPORT__URL": "http://env",
        "OPENLINEAGE__TRANSPORT__ENDPOINT": "from/env",
        "OPENLINEAGE_URL": "http://legacy",
    }
    t = load(env, tmp_path, config_file=path).transport
    assert isinstance(t, HttpConfig)
    # the file beats the variables; the variables fill what the file leaves out
    assert (t.url, t.timeout, t.endpoint) == ("http://file", 7, "from/env")
    t = load(
        env, tmp_path, config_file=path, overrides={"transport": {"url": "http://code"}}
    ).transport
    assert isinstance(t, HttpConfig)
    assert t.url == "http://code"
    t = load(
        {"OPENLINEAGE_URL": "http://legacy", "OPENLINEAGE__TRANSPORT__TYPE": "console"}, tmp_path
    ).transport
    assert isinstance(t, ConsoleConfig)  # a configured type beats OPENLINEAGE_URL


def test_settings_without_a_type_refine_the_url_transport_and_win_over_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ol.yml"
    path.write_text("transport: {url: 'http://file', timeout: 7}")
    env = {"OPENLINEAGE_URL": "http://legacy", "OPENLINEAGE_ENDPOINT": "from/env"}
    t = load(env, tmp_path, config_file=path).transport
    assert isinstance(t, HttpConfig)
    assert (t.url, t.timeout, t.endpoint) == ("http://file", 7, "from/env")
    t = load(env, tmp_path, overrides={"transport": {"url": "http://code"}}).transport
    assert isinstance(t, HttpConfig)
    assert t.url == "http://code"


def test_disabled_by_the_environment_keeps_the_namespace(tmp_path: Path) -> None:
    config = load({"OPENLINEAGE_DISABLED": "true", "OPENLINEAGE_NAMESPACE": "team"}, tmp_path)
    assert (config.disabled, config.namespace) == (True, "team")


def test_url_adds_a_default_http_member_to_a_composite(tmp_path: Path) -> None:
    env = {
        "OPENLINEAGE__TRANSPORT__TYPE": "composite",
        "OPENLINEAGE__TRANSPORT__TRANSPORTS__LOCAL__TYPE": "console",
        "OPENLINEAGE_URL": "http://marquez",
    }
    t = load(env, tmp_path).transport
    assert isinstance(t, CompositeConfig)
    assert t.names == ["local", "default_http"]
    assert isinstance(t.transports[1], HttpConfig)


def test_disabled(tmp_path: Path) -> None:
    config = load(
        {"OPENLINEAGE_DISABLED": "True", "OPENLINEAGE__TRANSPORT__TYPE": "bogus"}, tmp_path
    )
    assert config.disabled
    assert config.transport is None


@pytest.mark.parametrize(
    ("value", "disabled"),
    [
        ("true", True),
        ("True", True),
        ("false", False),
        ("False", False),
        ("no", False),
        ("1", False),
    ],
)
def test_disabled_by_a_nested_variable_only_when_true(
    tmp_path: Path, value: str, disabled: bool
) -> None:
    # Read as OPENLINEAGE_DISABLED is: "False" is not JSON, and a non-empty string is not true.
    assert load({"OPENLINEAGE__DISABLED": value}, tmp_path).disabled is disabled


def test_json_config_file(tmp_path: Path) -> None:
    path = tmp_path / "ol.json"
    path.write_text(json.dumps({"transport": {"type": "console"}}))
    assert isinstance(load({}, tmp_path, config_file=path).transport, ConsoleConfig)


def test_without_pyyaml_json_still_works_and_yaml_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "yaml", None)  # import yaml now fails
    path = tmp_path / "openlineage.yml"
    path.write_text(json.dumps({"transport": {"type": "console"}}))
    assert isinstance(load({}, tmp_path, config_file=path).transport, ConsoleConfig)
    path.write_text(YAML)
    with pytest.raises(ConfigError, match="pip install pyyaml") as info:
        load({}, tmp_path, config_file=path)
    assert SECRET not in str(info.value)


def test_invalid_settings_name_the_setting_never_the_secret(tmp_path: Path) -> None:
    env = {
        "OPENLINEAGE__TRANSPORT__TYPE": "http",
        "OPENLINEAGE__TRANSPORT__URL": f"not-a-url-{SECRET}",
        "OPENLINEAGE__TRANSPORT__AUTH": json.dumps({"type": "api_key", "apiKey": {"k": SECRET}}),
    }
    with pytest.raises(ConfigError) as info:
        load(env, tmp_path)
    message = str(info.value)
    assert "url" in message
    assert "apiKey" in message
    assert SECRET not in message
    assert SECRET not in repr(info.value)


def test_broken_yaml_does_not_quote_the_file(tmp_path: Path) -> None:
    path = tmp_path / "openlineage.yml"
    path.write_text(f"transport:\n  type: http\n  apiKey: [{SECRET}\n")
    with pytest.raises(ConfigError, match="not valid YAML") as info:
        load({}, tmp_path, config_file=path)
    assert SECRET not in str(info.value)


def test_unknown_transport_type(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown transport type 'carrier_pigeon'"):
        load({"OPENLINEAGE__TRANSPORT__TYPE": "carrier_pigeon"}, tmp_path)


def test_secrets_absent_from_reprs_and_logs(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    env = {
        "OPENLINEAGE_URL": "http://marquez",
        "OPENLINEAGE__TRANSPORT__AUTH__TYPE": "api_key",
        # Not JSON although it starts like it: used as a plain string, and the
        # warning about it must name the variable, not quote it.
        "OPENLINEAGE__TRANSPORT__AUTH__APIKEY": "{" + SECRET,
    }
    with caplog.at_level(logging.DEBUG):
        config = load(env, tmp_path)
    assert "looks like JSON" in caplog.text
    assert isinstance(config.transport, HttpConfig)
    assert config.transport.auth is not None
    assert config.transport.auth.api_key.get_secret_value() == "{" + SECRET
    for text in (repr(config), str(config), repr(config.transport), caplog.text):
        assert SECRET not in text


def test_official_client_reads_the_same_layout(tmp_path: Path) -> None:
    """The same file drives the official client and this one to the same destination."""
    official = pytest.importorskip("openlineage.client")
    (tmp_path / "openlineage.yml").write_text(YAML)
    ours = load_config({}, cwd=tmp_path)
    assert isinstance(ours.transport, HttpConfig)
    old_cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        client = official.OpenLineageClient()
    finally:
        os.chdir(old_cwd)
    assert client.transport.kind == "http"
    assert client.transport.url == ours.transport.url
