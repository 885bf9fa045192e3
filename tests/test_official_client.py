"""Code written for the official client moves over with one import changed.

``OpenLineageClient`` has the official client's constructor and methods, and ``emit`` (there and
on ``OpenLineage``) takes the official client's event objects and mappings, read with
``read_event``. Where it can, each test runs the official ``openlineage-python`` 1.54.0 beside
this SDK and compares what they sent.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import (
    OpenLineage,
    OpenLineageClient,
    OpenLineageClientOptions,
    OpenLineageValidationError,
    UnsupportedEventError,
    read_event,
)
from openlineage_sdk.transports import (
    ConsoleTransport,
    FileTransport,
    HttpTransport,
    MemoryTransport,
    NoopTransport,
)
from tests._official import (
    CostRunFacet,
    dataset_event,
    environment_kept,
    fresh,
    job_event,
    official_json,
    rich_run_event,
    simple_run_event,
    strip,
    v1_run_event,
)
from tests.transports._support import LineageServer

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from openlineage.client import OpenLineageClient as OfficialClient
    from openlineage.client import OpenLineageClientOptions as OfficialOptions
    from openlineage.client.transport.file import FileConfig as OfficialFileConfig
    from openlineage.client.transport.file import FileTransport as OfficialFileTransport

EVENTS = {
    "v2 run event": rich_run_event,
    "v2 job event": job_event,
    "v2 dataset event": dataset_event,
    "v1 run event": v1_run_event,
}


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No OPENLINEAGE_* variable, no configuration file found, a fresh working folder."""
    for name in list(os.environ):
        if name.startswith("OPENLINEAGE") or name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- emit() takes the official client's events and mappings


@pytest.mark.parametrize("make", EVENTS.values(), ids=EVENTS.keys())
def test_emit_takes_the_official_client_s_event_objects(make: Any) -> None:
    event = make()
    memory = MemoryTransport()
    client = OpenLineage(transport=memory, config={}, raise_on_error=True)
    client.emit(event)
    client.emit(official_json(event))  # and the same event as a mapping
    sent = memory.events
    assert len(sent) == 2
    # What is sent is what the official client writes, read as read_event reads it.
    assert sent[0] == sent[1] == read_event(json.dumps(official_json(event)))
    assert json.loads(sent[0].to_json()) == official_json(event)


def test_the_official_client_s_quirks_of_writing_are_kept() -> None:
    event = rich_run_event()
    sent = MemoryTransport()
    OpenLineage(transport=sent, config={}, raise_on_error=True).emit(event)
    facets = json.loads(sent.events[0].to_json())["run"]["facets"]
    # None left out of objects and arrays, empty objects out of arrays, enums as values,
    # a user's facet class and with_additional_properties kept whole.
    assert facets["cost"]["labels"] == ["a", "b"]
    assert facets["cost"]["nested"] == {"keep": [1], "when": "x"}
    assert facets["cost"]["stage"] == "bronze"
    assert facets["extra"]["region"] == "eu"
    assert facets["extra"]["retries"] == 3
    assert "_schemaURL" in facets["cost"]


def test_the_caller_s_official_event_is_not_changed() -> None:
    event = rich_run_event()
    before = official_json(event)
    client = OpenLineage(
        transport=MemoryTransport(),
        config={"tags": {"run": {"env": "prod"}}, "facets": {"environment_variables": ["HOME"]}},
    )
    client.emit(event)
    assert official_json(event) == before


def test_a_value_without_a_json_form_is_refused_with_its_path(
    caplog: pytest.LogCaptureFixture,
) -> None:
    event = rich_run_event()
    assert event.run.facets is not None
    event.run.facets["cost"] = CostRunFacet(dollars=1.0, nested={"blob": b"\x00"})
    strict = OpenLineage(transport=MemoryTransport(), config={}, raise_on_error=True)
    with pytest.raises(OpenLineageValidationError) as caught:
        strict.emit(event)
    assert [str(p) for p in caught.value.problems] == [
        "run.facets.cost.nested.blob: a bytes cannot be written as JSON"
    ]
    memory = MemoryTransport()
    OpenLineage(transport=memory, config={}).emit(event)  # logged, never raised
    assert memory.events == []
    assert "run.facets.cost.nested.blob" in caplog.text


@pytest.mark.parametrize("wrong", [42, "{}", None, object(), [simple_run_event(1)]])
def test_emit_of_what_is_not_an_event_names_the_parameter(
    wrong: Any, caplog: pytest.LogCaptureFixture
) -> None:
    strict = OpenLineage(transport=MemoryTransport(), config={}, raise_on_error=True)
    with pytest.raises(UnsupportedEventError, match=r"^event: expected a RunEvent") as caught:
        strict.emit(wrong)
    assert isinstance(caught.value, TypeError)
    lenient = OpenLineage(transport=MemoryTransport(), config={})
    lenient.emit(wrong)  # the pipeline goes on
    assert "event: expected a RunEvent" in caplog.text
    assert "AttributeError" not in caplog.text


def test_an_attrs_object_that_is_not_an_event_is_refused() -> None:
    client = OpenLineage(transport=MemoryTransport(), config={}, raise_on_error=True)
    with pytest.raises(UnsupportedEventError, match=r"openlineage\.client\.generated\.base\.Run$"):
        client.emit(rich_run_event().run)


def test_this_package_never_imports_the_official_client() -> None:
    # Events read by their shape: an attrs class of the test's own, with an eventTime field.
    script = """
import sys, attr, json
from openlineage_sdk import OpenLineage
from openlineage_sdk.transports import MemoryTransport

@attr.define
class Job:
    namespace: str
    name: str

@attr.define
class Run:
    runId: str

@attr.define
class RunEvent:
    eventTime: str
    run: Run
    job: Job
    producer: str
    eventType: str = "START"

memory = MemoryTransport()
client = OpenLineage(transport=memory, config={}, raise_on_error=True)
client.emit(RunEvent("2024-01-01T00:00:00Z", Run("0190d2a4-0000-7000-8000-000000000001"),
                     Job("ns", "job"), "https://example.com/p"))
client.emit({"eventTime": "2024-01-01T00:00:00Z", "producer": "https://example.com/p",
             "job": {"namespace": "ns", "name": "declared"}})
print(json.dumps({"sent": [json.loads(e.to_json()) for e in memory.events],
                  "official": sorted(m for m in sys.modules if m.split(".")[0] == "openlineage")}))
"""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    result = json.loads(out)
    assert result["official"] == []
    assert [e["job"]["name"] for e in result["sent"]] == ["job", "declared"]
    assert result["sent"][0]["eventType"] == "START"


# -- config given as a mapping or a file


def test_openlineage_takes_config_as_a_mapping(clean_env: Path) -> None:
    out = clean_env / "ev.jsonl"
    client = OpenLineage(config={"transport": {"type": "file", "log_file_path": str(out)}})
    assert isinstance(client.transport, FileTransport)
    client.emit(simple_run_event(1))
    client.close()
    assert [json.loads(line)["job"]["name"] for line in out.read_text().splitlines()] == [
        "etl.load"
    ]


def test_the_mapping_wins_over_the_file_and_the_file_s_other_sections_apply(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = clean_env / "openlineage.yml"
    file.write_text(
        json.dumps(
            {
                "transport": {"type": "file", "log_file_path": str(clean_env / "file.jsonl")},
                "tags": {"run": {"from": "file"}},
            }
        )
    )
    monkeypatch.setenv("OPENLINEAGE_CONFIG", str(file))
    out = clean_env / "code.jsonl"
    client = OpenLineage(config={"transport": {"type": "file", "log_file_path": str(out)}})
    client.emit(simple_run_event(1))
    client.close()
    assert not (clean_env / "file.jsonl").exists()
    [line] = out.read_text().splitlines()
    tags = json.loads(line)["run"]["facets"]["tags"]["tags"]
    assert {"key": "from", "value": "file", "source": "USER"} in tags


def test_openlineage_takes_the_path_of_a_configuration_file(clean_env: Path) -> None:
    file = clean_env / "conf" / "lineage.yml"
    file.parent.mkdir()
    out = clean_env / "ev.jsonl"
    file.write_text(json.dumps({"transport": {"type": "file", "log_file_path": str(out)}}))
    for given in (file, str(file)):
        client = OpenLineage(config=given)
        assert isinstance(client.transport, FileTransport)
        assert client.config.config_file == file
        client.emit(simple_run_event(1))
        client.close()
    assert len(out.read_text().splitlines()) == 2


def test_a_transport_given_with_a_mapping_gets_its_event_sections(clean_env: Path) -> None:
    memory = MemoryTransport()
    client = OpenLineage(
        transport=memory,
        config={
            "transport": {"type": "console"},  # not used: the transport is given
            "filters": [{"type": "exact", "match": "dropped"}],
        },
    )
    client.emit(simple_run_event(1, "dropped"))
    client.emit(simple_run_event(2, "kept"))
    assert [json.loads(e.to_json())["job"]["name"] for e in memory.events] == ["kept"]


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"transport": "http"}, "transport"),
        ({"producer": 3}, "producer"),
        ({"namespace": 1}, "namespace"),
    ],
)
def test_openlineage_s_other_parameters_of_a_wrong_type_are_named(
    kwargs: dict[str, Any], parameter: str
) -> None:
    with pytest.raises(TypeError, match=rf"^{parameter}: expected "):
        OpenLineage(**kwargs)


@pytest.mark.parametrize("wrong", [42, ["transport"], b"openlineage.yml"])
def test_config_of_a_wrong_type_names_the_parameter(wrong: Any) -> None:
    with pytest.raises(TypeError, match=r"^config: expected .* got "):
        OpenLineage(config=wrong)
    with pytest.raises(TypeError, match=r"^config: expected .* got "):
        OpenLineageClient(config=wrong)


def test_a_mapping_that_cannot_be_used_is_logged_or_raised(
    clean_env: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bad = {"transport": {"type": "file", "log_file_path": "x", "apend": False}}
    client = OpenLineage(config=bad)
    assert isinstance(client.transport, FileTransport)
    assert client.transport.path == Path("openlineage_events.jsonl").absolute()
    assert "did you mean 'append'?" in caplog.text
    from openlineage_sdk.config import ConfigError

    with pytest.raises(ConfigError, match="apend"):
        OpenLineage(config=bad, raise_on_error=True)


# -- OpenLineageClient: the official constructor and methods


def _official_and_ours(config: dict[str, Any], events: list[Any]) -> tuple[list[Any], list[Any]]:
    """Emit ``events`` through both clients made with ``config`` (a file transport whose
    ``log_file_path`` is ``OUT``); the files each wrote (names, JSON), official first."""
    results = []
    for library in ("official", "ours"):
        folder = Path(library)
        folder.mkdir()
        conf = json.loads(json.dumps(config).replace("OUT", str(folder / "events")))
        if library == "official":
            client: Any = OfficialClient(config=conf)
        else:
            client = OpenLineageClient(config=conf)
        for event in fresh(events):
            client.emit(event)
        assert client.close() is True
        files = sorted(folder.iterdir())
        results.append(
            [
                (f.name, [strip(json.loads(line)) for line in f.read_text().splitlines()])
                for f in files
            ]
        )
    return results[0], results[1]


def test_openlineage_client_writes_a_file_per_event_as_the_official_one(clean_env: Path) -> None:
    # No ``append``: the official client's default, a file per event.
    config = {"transport": {"type": "file", "log_file_path": "OUT"}}
    events = [rich_run_event(1), job_event(), dataset_event(), v1_run_event()]
    official, ours = _official_and_ours(config, events)
    name = re.compile(r"events-\d{8}-\d{6}\.\d{6}\.json")
    assert len(ours) == len(official) == len(events)
    assert all(name.fullmatch(n) for n, _ in official + ours)
    assert [body for _, body in ours] == [body for _, body in official]


def test_openlineage_client_appends_when_told_to(clean_env: Path) -> None:
    config = {"transport": {"type": "file", "log_file_path": "OUT", "append": True}}
    events = [simple_run_event(n) for n in range(3)]
    official, ours = _official_and_ours(config, events)
    assert ours == official
    assert [n for n, _ in ours] == ["events"]


def test_openlineage_client_applies_the_configuration_as_the_official_one(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPLOY", "prod")
    config = {
        "transport": {"type": "file", "log_file_path": "OUT", "append": True},
        "filters": [{"type": "regex", "regex": "tmp_.*"}],
        "tags": {"job": {"team": "data"}, "run": {"tier": "1"}},
        "facets": {"environment_variables": ["DEPLOY"]},
    }
    events = [rich_run_event(1), simple_run_event(2, "tmp_scratch"), job_event("tmp_kept")]
    official, ours = _official_and_ours(config, events)
    assert ours == official
    assert [e["job"]["name"] for e in ours[0][1]] == ["orders.load_1", "tmp_kept"]


def test_filter_event_answers_as_the_official_one(clean_env: Path) -> None:
    config = {
        "transport": {"type": "console"},
        "filters": [{"type": "exact", "match": "noisy"}],
    }
    official = OfficialClient(config=config)
    ours = OpenLineageClient(config=config)
    for event in (simple_run_event(1, "noisy"), simple_run_event(2, "quiet"), job_event("noisy")):
        expected = official.filter_event(event)
        assert ours.filter_event(event) is expected
        assert ours.sdk.filter_event(official_json(event)) == (
            None if expected is None else official_json(event)
        )


def test_nothing_configured_prints_to_the_console_as_the_official_one(
    clean_env: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    client = OpenLineageClient()
    assert isinstance(client.transport, ConsoleTransport)
    assert client.transport.kind == OfficialClient().transport.kind == "console"
    assert "no transport is configured" in caplog.text
    client.emit(simple_run_event(1))
    assert json.loads(capsys.readouterr().out)["job"]["name"] == "etl.load"


def test_disabled_sends_nothing(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENLINEAGE_DISABLED", "true")
    memory = MemoryTransport()
    for client in (
        OpenLineageClient(config={"transport": {"type": "file", "log_file_path": "x"}}),
        OpenLineageClient(transport=memory),
    ):
        assert isinstance(client.sdk.transport, NoopTransport)
        assert client.transport.kind == "noop"
        client.emit(simple_run_event(1))
    assert memory.events == []
    assert not Path("x").exists()


@pytest.mark.parametrize("options_class", [OpenLineageClientOptions, OfficialOptions])
def test_url_and_options_make_an_http_transport(
    clean_env: Path, server: LineageServer, options_class: Any
) -> None:
    options = options_class(timeout=3.0, verify=False, api_key="k-1")
    client = OpenLineageClient(url=server.url, options=options)
    assert isinstance(client.transport, HttpTransport)
    assert client.transport.config.timeout == 3.0
    assert client.transport.config.verify is False
    client.emit(simple_run_event(1))
    assert client.close() is True
    [request] = server.requests
    assert request.path == "/api/v1/lineage"
    assert request.headers["Authorization"] == "Bearer k-1"


def test_the_configuration_comes_before_url_and_url_before_openlineage_url(
    clean_env: Path, server: LineageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENLINEAGE_URL", "http://127.0.0.1:9/never")
    configured = OpenLineageClient(url=server.url, config={"transport": {"type": "console"}})
    assert isinstance(configured.transport, ConsoleTransport)
    by_url = OpenLineageClient(url=server.url)
    assert isinstance(by_url.transport, HttpTransport)
    assert by_url.transport.url == f"{server.url}/api/v1/lineage"
    by_url.close()
    monkeypatch.setenv("OPENLINEAGE_URL", server.url)
    monkeypatch.setenv("OPENLINEAGE_API_KEY", "env-key")
    from_env = OpenLineageClient.from_environment()
    from_env.emit(simple_run_event(1))
    assert from_env.close() is True
    assert server.requests[-1].headers["Authorization"] == "Bearer env-key"


def test_an_official_transport_given_in_code_is_used(clean_env: Path) -> None:
    official = OfficialFileTransport(
        OfficialFileConfig(log_file_path=str(clean_env / "official.jsonl"), append=True)
    )
    client = OpenLineageClient(transport=official, config={"tags": {"run": {"tier": "1"}}})
    assert client.transport is official
    assert client.transport.kind == "file"
    client.emit(rich_run_event(1))
    assert client.close() is True
    [line] = (clean_env / "official.jsonl").read_text().splitlines()
    written = json.loads(line)
    expected = official_json(rich_run_event(1))
    assert written["run"]["facets"].pop("tags")["tags"][0]["key"] == "tier"
    assert strip(written) == strip(expected)


def test_from_dict_and_the_official_class_attributes(clean_env: Path) -> None:
    client = OpenLineageClient.from_dict({"type": "file", "log_file_path": "e", "append": True})
    assert isinstance(client.transport, FileTransport)
    assert client.user_defined_config == {
        "transport": {"type": "file", "log_file_path": "e", "append": True}
    }
    assert client.config.transport is not None
    assert client.config.transport.type == "file"
    assert client.DYNAMIC_ENV_VARS_PREFIX == OfficialClient.DYNAMIC_ENV_VARS_PREFIX
    assert client.DEFAULT_URL_TRANSPORT_NAME == OfficialClient.DEFAULT_URL_TRANSPORT_NAME


def test_the_sdk_underneath_runs_lifecycles(clean_env: Path) -> None:
    memory = MemoryTransport()
    client = OpenLineageClient(transport=memory)
    with client.sdk.run("orders.load"):
        pass
    assert [json.loads(e.to_json())["eventType"] for e in memory.events] == ["START", "COMPLETE"]


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"url": 5}, "url"),
        ({"options": "fast"}, "options"),
        ({"transport": "http"}, "transport"),
        ({"config": 3.5}, "config"),
    ],
)
def test_wrong_types_name_the_parameter(
    clean_env: Path, kwargs: dict[str, Any], parameter: str
) -> None:
    with pytest.raises(TypeError, match=rf"^{parameter}: expected "):
        OpenLineageClient(**kwargs)


def test_what_has_no_equivalent_is_said(
    clean_env: Path, server: LineageServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    client = OpenLineageClient(
        url=server.url,
        options=OpenLineageClientOptions(adapter=object()),
        session=object(),
        factory=object(),
    )
    client.close()
    said = caplog.text
    for name in ("session is not used", "factory is not used", "options.adapter is not used"):
        assert name in said


def test_close_says_whether_everything_was_delivered(
    clean_env: Path, server: LineageServer
) -> None:
    server.behaviour.always_status = 503
    client = OpenLineageClient(
        config={"transport": {"type": "http", "url": server.url, "spool_dir": "spool"}}
    )
    client.emit(simple_run_event(1))
    assert client.close(0.5) is False  # kept in the spool for the next process
    server.behaviour.always_status = None
    again = OpenLineageClient(
        config={"transport": {"type": "http", "url": server.url, "spool_dir": "spool"}}
    )
    assert again.close() is True
    assert [e["job"]["name"] for e in server.events] == ["etl.load"]


def test_the_official_client_s_url_variables_are_not_left_in_the_environment(
    clean_env: Path, server: LineageServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENLINEAGE_URL", server.url)
    before = dict(os.environ)
    with environment_kept():
        OfficialClient()
        assert dict(os.environ) != before  # the official client writes into os.environ
    client = OpenLineageClient()
    assert dict(os.environ) == before  # this one does not
    client.close()


@pytest.fixture
def sdk_logger() -> Iterator[logging.Logger]:
    """This SDK's logger, its level put back afterwards (setLevel clears logging's caches)."""
    logger = logging.getLogger("openlineage_sdk")
    before = logger.level
    yield logger
    logger.setLevel(before)


@pytest.mark.parametrize(
    ("value", "level"), [("DEBUG", logging.DEBUG), ("warning", logging.WARNING)]
)
def test_openlineage_client_logging_sets_the_level(
    clean_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    sdk_logger: logging.Logger,
    value: str,
    level: int,
) -> None:
    monkeypatch.setenv("OPENLINEAGE_CLIENT_LOGGING", value)
    OpenLineageClient(transport=MemoryTransport())
    assert sdk_logger.level == level


def test_a_logging_level_that_is_not_one_is_said(
    clean_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    sdk_logger: logging.Logger,
) -> None:
    monkeypatch.setenv("OPENLINEAGE_CLIENT_LOGGING", "LOUD")
    OpenLineageClient(transport=MemoryTransport())
    assert "OPENLINEAGE_CLIENT_LOGGING is not a logging level" in caplog.text
