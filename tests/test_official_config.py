"""The official client and this SDK, given the same ``openlineage.yml`` and environment, emit the same.

Each test writes one configuration file whose transport is a JSON Lines file, points
``OPENLINEAGE_CONFIG`` at it, emits the same events through ``openlineage-python`` 1.54.0 and
through this SDK, and compares the two files. The official client always adds an
``openlineage_client_version`` run tag and its own ``_producer``; both are left out of the
comparison (see docs/configuration/index.md).
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import uuid
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import OpenLineage, read_event
from openlineage_sdk.config import ConfigError, load_config
from tests._official import strip

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from openlineage.client import OpenLineageClient
    from openlineage.client import event_v2 as ev
    from openlineage.client.dataset.trimmers import DatasetNameTrimmer
    from openlineage.client.facet_v2 import (
        column_lineage_dataset,
        environment_variables_run,
        tags_job,
        tags_run,
    )
    from openlineage.client.serde import Serde

RUN_ID = str(uuid.UUID(int=7))


class DropVersionSuffix(DatasetNameTrimmer):
    """A user's trimmer both libraries load by its dotted path: ``/t/v3`` -> ``/t``."""

    def trim(self, name: str) -> str:
        head, _, last = name.rpartition("/")
        return head if head and last.startswith("v") and last[1:].isdigit() else name


def _read_lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [strip(json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def side_by_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[..., tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """``emit(config, events)``: what each library wrote, official first."""
    for name in list(__import__("os").environ):
        if name.startswith("OPENLINEAGE"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    counter = iter(range(1000))

    def emit(
        config: dict[str, Any], events: list[Any], **extra: Any
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        n = next(counter)
        official_out, ours_out = tmp_path / f"official{n}.jsonl", tmp_path / f"ours{n}.jsonl"
        results = []
        for out in (official_out, ours_out):
            conf = {
                **config,
                "transport": {"type": "file", "log_file_path": str(out), "append": True},
            }
            file = tmp_path / f"openlineage{n}.yml"
            file.write_text(json.dumps(conf))
            monkeypatch.setenv("OPENLINEAGE_CONFIG", str(file))
            # Each library gets its own copies: the official client changes the events it is
            # given (its tags, facets and reducing), which the other must not see.
            given = copy.deepcopy(events)
            if out is official_out:
                client = OpenLineageClient()
                for event in given:
                    client.emit(event)
                client.close()
            else:
                ours = OpenLineage.from_environment(raise_on_error=True, **extra)
                for event in given:
                    ours.emit(event)  # the official event object itself
                ours.close()
            results.append(_read_lines(out))
        return results[0], results[1]

    return emit


def run_event(job: str = "etl.load", **kwargs: Any) -> ev.RunEvent:
    return ev.RunEvent(
        eventType=ev.RunState.START,
        eventTime="2024-01-01T00:00:00Z",
        run=ev.Run(runId=RUN_ID, facets=kwargs.pop("run_facets", None)),
        job=ev.Job(namespace="ns", name=job, facets=kwargs.pop("job_facets", None)),
        producer="https://example.com/producer",
        **kwargs,
    )


def job_event(job: str) -> ev.JobEvent:
    return ev.JobEvent(
        eventTime="2024-01-01T00:00:00Z",
        job=ev.Job(namespace="ns", name=job),
        producer="https://example.com/producer",
    )


def test_filters_drop_the_same_run_events(side_by_side: Any) -> None:
    config = {
        "filters": [
            {"type": "exact", "match": "noisy.job"},
            {"type": "regex", "regex": "tmp_.*"},
            {"type": "regex", "regex": "debug"},  # from the start only: my_debug_job stays
        ]
    }
    names = ["noisy.job", "noisy.job.child", "tmp_123", "x.tmp_1", "debug_run", "my_debug_job"]
    events = [run_event(name) for name in names] + [job_event("noisy.job")]
    official, ours = side_by_side(config, events)
    assert ours == official
    emitted = [e["job"]["name"] for e in ours]
    assert emitted == ["noisy.job.child", "x.tmp_1", "my_debug_job", "noisy.job"]


def test_tags_merge_with_the_event_s_own_tags(side_by_side: Any) -> None:
    config = {"tags": {"job": {"team": "data", "Env": "prod"}, "run": {"TEAM": "y", "tier": "1"}}}
    event = run_event(
        run_facets={
            "tags": tags_run.TagsRunFacet(
                tags=[
                    tags_run.TagsRunFacetFields("Team", "integration", "INTEGRATION"),
                    tags_run.TagsRunFacetFields("keep", "me", "INTEGRATION"),
                ]
            )
        },
        job_facets={
            "tags": tags_job.TagsJobFacet(
                tags=[tags_job.TagsJobFacetFields("ENV", "dev", "INTEGRATION")]
            )
        },
    )
    official, ours = side_by_side(config, [event, job_event("static"), run_event("plain")])
    assert ours == official
    run_tags = ours[0]["run"]["facets"]["tags"]["tags"]
    assert run_tags == [
        {"key": "keep", "value": "me", "source": "INTEGRATION"},
        {"key": "Team", "value": "y", "source": "USER"},
        {"key": "tier", "value": "1", "source": "USER"},
    ]
    assert ours[0]["job"]["facets"]["tags"]["tags"][0] == {
        "key": "team",
        "value": "data",
        "source": "USER",
    }
    assert ours[0]["job"]["facets"]["tags"]["tags"][1]["key"] == "ENV"  # the event's spelling
    assert "tags" in ours[1]["job"]["facets"]  # job events get job tags


def test_environment_variables_facet(side_by_side: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_ENV", "prod")
    monkeypatch.setenv("REGION", "eu-west-1")
    monkeypatch.delenv("NOT_SET", raising=False)
    config = {"facets": {"environment_variables": ["DEPLOY_ENV", "REGION", "NOT_SET"]}}
    given = environment_variables_run.EnvironmentVariablesRunFacet(
        environmentVariables=[environment_variables_run.EnvironmentVariable("REGION", "us")]
    )
    events = [run_event(run_facets={"environmentVariables": given}), run_event("other")]
    official, ours = side_by_side(config, events)
    assert ours == official
    facet = ours[0]["run"]["facets"]["environmentVariables"]["environmentVariables"]
    assert facet == [
        {"name": "REGION", "value": "us"},  # the event's own value is kept
        {"name": "DEPLOY_ENV", "value": "prod"},
    ]


def _datasets() -> dict[str, Any]:
    column_lineage = column_lineage_dataset.ColumnLineageDatasetFacet(
        fields={
            "id": column_lineage_dataset.Fields(
                inputFields=[
                    column_lineage_dataset.InputField("s3://b", "/raw/events/dt=2024-01-01", "id"),
                ],
                transformationDescription="",
                transformationType="",
            )
        }
    )
    return {
        "inputs": [
            ev.InputDataset("s3://b", "/raw/events/dt=2024-01-01"),
            ev.InputDataset("s3://b", "/raw/events/dt=2024-01-02"),
            ev.InputDataset("s3://b", "/raw/logs/2024/01/02"),
            ev.InputDataset("s3://b", "/raw/models/v3"),
            ev.InputDataset("s3://b", "/raw/monthly/2024-01"),
            ev.InputDataset("s3://b", "/20240101"),
            ev.InputDataset("kafka://broker", "topic"),
        ],
        "outputs": [
            ev.OutputDataset(
                "s3://b", "/out/daily/20240102", facets={"columnLineage": column_lineage}
            ),
        ],
    }


def test_dataset_reducing_trims_and_merges(side_by_side: Any) -> None:
    config = {
        "dataset": {
            "reducing_enabled": True,
            "extra_trimmers": [f"{__name__}.DropVersionSuffix"],
        }
    }
    official, ours = side_by_side(config, [run_event(**_datasets())])
    assert ours == official
    names = [d["name"] for d in ours[0]["inputs"]]
    assert names == [
        "/raw/events",
        "/raw/logs",
        "/raw/models",
        "/raw/monthly",
        "/20240101",
        "topic",
    ]
    assert ours[0]["inputs"][0]["inputFacets"]["subset"]["inputCondition"]["locations"] == [
        "/raw/events/dt=2024-01-01",
        "/raw/events/dt=2024-01-02",
    ]
    column = ours[0]["outputs"][0]["facets"]["columnLineage"]["fields"]["id"]
    assert column["inputFields"][0]["name"] == "/raw/events"


def test_dataset_disabled_trimmers_by_the_official_class_names(side_by_side: Any) -> None:
    config = {
        "dataset": {
            "reducing_enabled": True,
            "disabled_trimmers": "openlineage.client.dataset.trimmers.KeyValueTrimmer;"
            "openlineage.client.dataset.trimmers.MultiDirDateTrimmer",
        }
    }
    official, ours = side_by_side(config, [run_event(**_datasets())])
    assert ours == official
    names = [d["name"] for d in ours[0]["inputs"]]
    assert names[:3] == [
        "/raw/events/dt=2024-01-01",
        "/raw/events/dt=2024-01-02",
        "/raw/logs/2024/01/02",
    ]


def test_reducing_is_off_by_default(side_by_side: Any) -> None:
    official, ours = side_by_side({"dataset": {}}, [run_event(**_datasets())])
    assert ours == official
    assert ours[0]["inputs"][0]["name"] == "/raw/events/dt=2024-01-01"


needs_git = pytest.mark.skipif(
    shutil.which("git") is None,
    reason="the git command is not installed (the hand-made repository test covers the reading)",
)


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


@needs_git
@pytest.mark.parametrize("packed", [False, True])
def test_source_code_location_from_git_and_ci(
    side_by_side: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, packed: bool
) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "feature/x")
    (repo / "f.txt").write_text("x")
    _git(repo, "add", "f.txt")
    _git(repo, "commit", "-q", "-m", "one")
    _git(repo, "tag", "-a", "v1.2", "-m", "release")
    _git(repo, "remote", "add", "origin", "git@github.com:acme/pipelines.git")
    if packed:
        _git(repo, "pack-refs", "--all")
    monkeypatch.chdir(repo / "src")
    monkeypatch.setenv("GITHUB_REF", "refs/pull/42/merge")
    for name in (
        "CI_MERGE_REQUEST_IID",
        "BITBUCKET_PR_ID",
        "SYSTEM_PULLREQUEST_PULLREQUESTNUMBER",
        "SYSTEM_PULLREQUEST_PULLREQUESTID",
    ):
        monkeypatch.delenv(name, raising=False)
    config = {"facets": {"source_code_location": {"disabled": False}}}
    official, ours = side_by_side(config, [run_event(), job_event("static")])
    assert ours == official
    facet = ours[0]["job"]["facets"]["sourceCodeLocation"]
    assert facet["url"] == facet["repoUrl"] == "git@github.com:acme/pipelines.git"
    assert facet["version"] == _git(repo, "rev-parse", "HEAD")
    assert facet["branch"] == "feature/x"
    assert facet["pullRequestNumber"] == "42"
    assert facet["tag"] == "v1.2" if packed else True  # loose annotated tags: see the docs


def test_source_code_location_from_a_hand_made_repository(
    side_by_side: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The files git writes, written here: no git command needed. A detached HEAD at a
    # lightweight tag in packed-refs, the remote in config, a GitLab merge request.
    sha = "0123456789abcdef0123456789abcdef01234567"
    git = tmp_path / "repo" / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text(sha + "\n")
    (git / "packed-refs").write_text(
        "# pack-refs with: peeled fully-peeled sorted\n"
        f"{sha} refs/heads/main\n{sha} refs/tags/release/2024.1\n"
    )
    (git / "config").write_text(
        '[core]\n\tbare = false\n[remote "origin"]\n\turl = https://git.example.com/a%2Fb.git\n'
    )
    (tmp_path / "repo" / "jobs").mkdir()
    monkeypatch.chdir(tmp_path / "repo" / "jobs")
    monkeypatch.setenv("CI_MERGE_REQUEST_IID", "17")
    config = {"facets": {"source_code_location": {"disabled": False, "branch": "main"}}}
    official, ours = side_by_side(config, [run_event()])
    assert ours == official
    assert ours[0]["job"]["facets"]["sourceCodeLocation"] == {
        "_schemaURL": ours[0]["job"]["facets"]["sourceCodeLocation"]["_schemaURL"],
        "type": "git",
        "url": "https://git.example.com/a%2Fb.git",
        "repoUrl": "https://git.example.com/a%2Fb.git",
        "version": sha,
        "branch": "main",
        "tag": "release/2024.1",
        "pullRequestNumber": "17",
    }


def test_source_code_location_is_off_by_default(side_by_side: Any) -> None:
    official, ours = side_by_side({"facets": {}}, [run_event()])
    assert ours == official
    assert "sourceCodeLocation" not in (ours[0]["job"].get("facets") or {})


def test_the_same_sections_from_openlineage_variables(
    side_by_side: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENLINEAGE__TAGS__JOB__TEAM", "data")
    monkeypatch.setenv("OPENLINEAGE__FILTERS", '[{"type": "exact", "match": "drop.me"}]')
    monkeypatch.setenv("OPENLINEAGE__DATASET__REDUCING_ENABLED", "true")
    official, ours = side_by_side({}, [run_event("drop.me"), run_event(**_datasets())])
    assert ours == official
    assert len(ours) == 1
    assert ours[0]["job"]["facets"]["tags"]["tags"][0]["key"] == "team"
    assert ours[0]["inputs"][0]["name"] == "/raw/events"


# -- what only this SDK (and the Java client) has ------------------------------------------------


def _one(config: dict[str, Any], event: Any) -> dict[str, Any]:
    from openlineage_sdk.transports.memory import MemoryTransport

    client = OpenLineage(transport=MemoryTransport(), config=load_config({}, overrides=config))
    client.emit(read_event(Serde.to_json(event)))
    events = client.transport.events  # type: ignore[attr-defined]
    assert len(events) == 1
    result: dict[str, Any] = json.loads(events[0].to_json())
    return result


def test_namespace_resolvers_as_the_java_client_reads_them() -> None:
    config = {
        "dataset": {
            "namespaceResolvers": {
                "kafka-prod": {
                    "type": "hostList",
                    "hosts": ["broker-1.prod.acme.com", "broker-2.prod.acme.com"],
                    "schema": "kafka",
                },
                "warehouse": {"type": "pattern", "regex": r"pg-\d+\.acme\.com"},
                "by-group": {
                    "type": "patternGroup",
                    "regex": r"(?<cluster>[a-z]+)-node-\d+",
                    "matchingGroup": "cluster",
                },
            }
        }
    }
    symlinks = {
        "symlinks": {
            "_producer": "p",
            "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/SymlinksDatasetFacet.json"
            "#/$defs/SymlinksDatasetFacet",
            "identifiers": [
                {"namespace": "postgres://pg-7.acme.com:5432", "name": "db.t", "type": "TABLE"}
            ],
        }
    }
    event = run_event(
        inputs=[
            ev.InputDataset("kafka://BROKER-2.prod.acme.com:9092", "orders"),
            ev.InputDataset("http://broker-1.prod.acme.com", "not-kafka"),
            ev.InputDataset("postgres://pg-12.acme.com:5432", "db.t", facets=symlinks),
            ev.InputDataset("hdfs://analytics-node-3:8020", "/t"),
        ]
    )
    out = _one(config, event)
    assert [d["namespace"] for d in out["inputs"]] == [
        "kafka://kafka-prod:9092",
        "http://broker-1.prod.acme.com",
        "postgres://warehouse:5432",
        "hdfs://analytics:8020",
    ]
    identifier = out["inputs"][2]["facets"]["symlinks"]["identifiers"][0]
    assert identifier["namespace"] == "postgres://warehouse:5432"


def test_facets_disabled_by_name() -> None:
    config = {
        "facets": {
            "environmentVariables": {"disabled": True},
            "spark": {"logicalPlan": {"disabled": "true"}},
            "nominalTime": {"disabled": False},
        }
    }
    env = environment_variables_run.EnvironmentVariablesRunFacet(
        environmentVariables=[environment_variables_run.EnvironmentVariable("A", "b")]
    )
    event = run_event(run_facets={"environmentVariables": env})
    data = json.loads(Serde.to_json(event))
    data["run"]["facets"]["spark.logicalPlan"] = {"_producer": "p", "_schemaURL": "https://e.com/s"}
    data["run"]["facets"]["keep"] = {"_producer": "p", "_schemaURL": "https://e.com/s"}
    from openlineage_sdk.transports.memory import MemoryTransport

    client = OpenLineage(transport=MemoryTransport(), config=load_config({}, overrides=config))
    client.emit(read_event(data))
    out = json.loads(client.transport.events[0].to_json())  # type: ignore[attr-defined]
    assert set(out["run"]["facets"]) == {"keep"}
    lowered = load_config(
        {"OPENLINEAGE__FACETS__SPARK.LOGICALPLAN__DISABLED": "true"}, search_paths=[]
    )
    client = OpenLineage(transport=MemoryTransport(), config=lowered)
    client.emit(read_event(data))
    out = json.loads(client.transport.events[0].to_json())  # type: ignore[attr-defined]
    assert "spark.logicalPlan" not in out["run"]["facets"]
    assert "environmentVariables" in out["run"]["facets"]


def test_old_form_of_disabled_facets() -> None:
    env = environment_variables_run.EnvironmentVariablesRunFacet(environmentVariables=[])
    out = _one(
        {"facets": {"disabled": "[environmentVariables;tags]"}},
        run_event(run_facets={"environmentVariables": env}),
    )
    assert "environmentVariables" not in (out["run"].get("facets") or {})


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"tag": {"job": {"a": "b"}}}, "tag: unknown section; known: "),
        ({"tag": {}}, "(did you mean 'tags'?)"),
        ({"dataset": {"reducingEnabled": "yes"}}, "dataset.reducingEnabled: must be true or false"),
        ({"dataset": {"reduce_enabled": True}}, "(did you mean 'reducing_enabled'?)"),
        (
            {"tags": {"jobs": {"a": "b"}}},
            "tags.jobs: unknown setting; known: job, run (did you mean 'job'?)",
        ),
        (
            {"filters": [{"type": "exakt", "match": "a"}]},
            "filters[0].type: must be 'exact' or 'regex', not 'exakt' (did you mean 'exact'?)",
        ),
        (
            {"filters": [{"type": "regex", "regex": "("}]},
            "filters[0].regex: not a valid regular expression",
        ),
        ({"facets": {"enviroment_variables": ["A"]}}, "(did you mean 'environment_variables'?)"),
        (
            {"facets": {"source_code_location": {"repo": "x"}}},
            "facets.source_code_location.repo: unknown setting",
        ),
        (
            {"dataset": {"disabled_trimmers": ["KeyValueTrimer"]}},
            "(did you mean 'KeyValueTrimmer'?)",
        ),
        (
            {"dataset": {"namespaceResolvers": {"k": {"type": "hostlists", "hosts": ["a"]}}}},
            "(did you mean 'hostList'?)",
        ),
        (
            {
                "dataset": {
                    "namespaceResolvers": {
                        "k": {"type": "patternGroup", "regex": "a", "matchingGroup": "g"}
                    }
                }
            },
            "matchingGroup: must name a group",
        ),
    ],
)
def test_unknown_or_invalid_settings_are_refused_clearly(
    tmp_path: Path, config: dict[str, Any], message: str
) -> None:
    file = tmp_path / "openlineage.yml"
    file.write_text(json.dumps(config))
    with pytest.raises(ConfigError) as caught:
        load_config({}, config_file=file)
    assert message in str(caught.value)
    assert f"(read from {file})" in str(caught.value)


def test_the_source_of_a_bad_setting_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"from the OPENLINEAGE__ environment variables"):
        load_config({"OPENLINEAGE__TAGS__JOBS__A": "b"}, search_paths=[])
    with pytest.raises(ConfigError, match=r"given in code"):
        load_config({}, search_paths=[], overrides={"filterz": []})


def test_java_only_sections_are_named_in_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    config = load_config({}, search_paths=[], overrides={"run": {"id": "x"}})
    assert config.transport is None
    assert "'run' section of the Java client is not used" in caplog.text


def test_the_circuit_breaker_section_is_kept_for_the_spark_adapter(
    caplog: pytest.LogCaptureFixture,
) -> None:
    section = {"type": "simpleMemory", "memoryThreshold": 30}
    config = load_config({}, search_paths=[], overrides={"circuitBreaker": section})
    assert config.circuit_breaker == section
    assert "circuitBreaker" not in caplog.text
    with pytest.raises(ConfigError, match="circuitBreaker"):
        load_config({}, search_paths=[], overrides={"circuitBreaker": ["static"]})


def test_a_client_with_a_bad_section_logs_and_keeps_emitting(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from openlineage_sdk.config import OpenLineageConfig
    from openlineage_sdk.transports.memory import MemoryTransport

    client = OpenLineage(
        transport=MemoryTransport(),
        config=OpenLineageConfig(
            tags={"jbo": {"a": "b"}}, filters=[{"type": "exact", "match": "etl.load"}]
        ),
    )
    client.emit(read_event(Serde.to_json(run_event())))
    client.emit(read_event(Serde.to_json(run_event("other"))))
    # The filters still apply; only the tags section at fault is left out.
    events = [json.loads(e.to_json()) for e in client.transport.events]  # type: ignore[attr-defined]
    assert [e["job"]["name"] for e in events] == ["other"]
    assert "tags" not in (events[0]["job"].get("facets") or {})
    assert "tags.jbo: unknown setting" in caplog.text
    assert "the 'tags' section is ignored" in caplog.text
    with pytest.raises(ConfigError, match=r"tags\.jbo"):
        OpenLineage(
            transport=MemoryTransport(),
            config=OpenLineageConfig(tags={"jbo": {}}),
            raise_on_error=True,
        )


def test_the_caller_s_event_is_not_changed_and_nothing_configured_passes_it_through() -> None:
    from openlineage_sdk.transports.memory import MemoryTransport

    event = read_event(Serde.to_json(run_event(**_datasets())))
    before = event.to_json()
    client = OpenLineage(
        transport=MemoryTransport(),
        config=load_config(
            {}, overrides={"tags": {"job": {"a": "b"}}, "dataset": {"reducing_enabled": True}}
        ),
    )
    client.emit(event)
    assert event.to_json() == before
    assert client.transport.events[0] is not event  # type: ignore[attr-defined]
    plain = OpenLineage(transport=MemoryTransport(), config=load_config({}, search_paths=[]))
    assert plain._events is None
    plain.emit(event)
    assert plain.transport.events[0] is event  # type: ignore[attr-defined]


# -- the transform transport ---------------------------------------------------------------------

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from openlineage.client.transport.transform import EventTransformer


class PrefixJobNames(EventTransformer):
    """A user's transformer both libraries load by its dotted path: it works on either's events."""

    def transform(self, event: Any) -> Any:
        if event.job.name.startswith(self.properties.get("drop", "\0")):
            return None
        event.job.name = self.properties["prefix"] + event.job.name
        return event


def _transform_config(out: Path, transformer: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "transport": {
            "type": "transform",
            "transformer_class": transformer,
            "transformer_properties": properties,
            "transport": {"type": "file", "log_file_path": str(out), "append": True},
        }
    }


@pytest.mark.parametrize(
    ("transformer", "properties"),
    [
        (
            "openlineage.client.transport.transform.JobNamespaceReplaceTransformer",
            {"new_job_namespace": "prod"},
        ),
        (
            "openlineage.client.transport.transform.JobNamespaceReplaceTransformer",
            {"new_job_namespace": "prod", "include_parent_facet": False},
        ),
        (f"{__name__}.PrefixJobNames", {"prefix": "team_a.", "drop": "tmp"}),
    ],
)
def test_transform_transport(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    transformer: str,
    properties: dict[str, Any],
) -> None:
    from openlineage.client.facet_v2 import parent_run

    monkeypatch.chdir(tmp_path)
    parent = parent_run.ParentRunFacet(
        run=parent_run.Run(runId=str(uuid.UUID(int=9))),
        job=parent_run.Job(namespace="airflow", name="dag.task"),
        root=parent_run.Root(
            run=parent_run.RootRun(runId=str(uuid.UUID(int=10))),
            job=parent_run.RootJob(namespace="airflow", name="dag"),
        ),
    )
    events = [run_event(run_facets={"parent": parent}), run_event("tmp_x"), job_event("j")]
    outputs = []
    for library in ("official", "ours"):
        out = tmp_path / f"{library}.jsonl"
        file = tmp_path / f"{library}.yml"
        file.write_text(json.dumps(_transform_config(out, transformer, properties)))
        monkeypatch.setenv("OPENLINEAGE_CONFIG", str(file))
        if library == "official":
            client = OpenLineageClient()
            for event in events:
                client.emit(event)
        else:
            ours = OpenLineage.from_environment(raise_on_error=True)
            for event in events:
                ours.emit(event)
            ours.close()
        outputs.append(_read_lines(out))
    official, ours_out = outputs
    assert ours_out == official
    if "new_job_namespace" in properties:
        assert {e["job"]["namespace"] for e in ours_out} == {"prod"}
        root = ours_out[0]["run"]["facets"]["parent"]["root"]["job"]["namespace"]
        assert root == ("prod" if properties.get("include_parent_facet", True) else "airflow")
    else:
        assert [e["job"]["name"] for e in ours_out] == ["team_a.etl.load", "team_a.j"]


def test_transform_transport_refuses_what_it_cannot_load(tmp_path: Path) -> None:
    from openlineage_sdk.transports.base import TransportError

    config = _transform_config(tmp_path / "o.jsonl", "no.such.Transformer", {})
    with pytest.raises(TransportError, match=r"'no\.such\.Transformer' cannot be imported"):
        OpenLineage(config=load_config({}, search_paths=[], overrides=config), raise_on_error=True)
    config = _transform_config(
        tmp_path / "o.jsonl",
        "openlineage.client.transport.transform.JobNamespaceReplaceTransformer",
        {},
    )
    with pytest.raises(TransportError, match="new_job_namespace is required"):
        OpenLineage(config=load_config({}, search_paths=[], overrides=config), raise_on_error=True)


def test_a_bad_section_does_not_take_the_transport_away(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    out = tmp_path / "events.jsonl"
    file = tmp_path / "openlineage.yml"
    file.write_text(
        json.dumps(
            {
                "transport": {"type": "file", "log_file_path": str(out)},
                "tags": {"jobs": {"team": "a"}},
                "filtres": [],
            }
        )
    )
    client = OpenLineage.from_environment({}, config_file=file)
    client.emit(read_event(Serde.to_json(run_event())))
    client.close()
    assert len(out.read_text().splitlines()) == 1
    assert "tags.jobs: unknown setting" in caplog.text
    assert f"(read from {file})" in caplog.text
    with pytest.raises(ConfigError, match="did you mean 'filters'"):
        OpenLineage.from_environment({}, config_file=file, raise_on_error=True)


@needs_git
def test_source_code_location_in_a_linked_worktree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from openlineage_sdk._event_config import SourceCodeLocation, read_source_code_location

    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "f.txt").write_text("x")
    _git(repo, "add", "f.txt")
    _git(repo, "commit", "-q", "-m", "one")
    _git(repo, "remote", "add", "origin", "https://git.example.com/acme/etl.git")
    _git(repo, "worktree", "add", "-q", "-b", "fix/thing", str(tmp_path / "wt"))
    values = read_source_code_location(
        SourceCodeLocation(pull_request_number="7"), {}, cwd=tmp_path / "wt"
    )
    assert values == {
        "type": "git",
        "url": "https://git.example.com/acme/etl.git",
        "repoUrl": "https://git.example.com/acme/etl.git",
        "version": _git(repo, "rev-parse", "HEAD"),
        "branch": "fix/thing",
        "pullRequestNumber": "7",
    }


def test_the_run_lifecycle_goes_through_the_configuration() -> None:
    from openlineage_sdk import naming
    from openlineage_sdk.transports.memory import MemoryTransport

    config = load_config(
        {},
        search_paths=[],
        overrides={
            "tags": {"run": {"team": "data"}},
            "filters": [{"type": "exact", "match": "skip.me"}],
            "dataset": {
                "reducing_enabled": True,
                "namespaceResolvers": {"lake": {"type": "hostList", "hosts": ["nn-1:8020"]}},
            },
        },
    )
    client = OpenLineage(transport=MemoryTransport(), config=config)
    with client.run("skip.me"):
        pass
    with client.run("keep.me", outputs=[naming.hdfs("nn-1", "/data/t/dt=2024-01-01", port=8020)]):
        pass
    events = [json.loads(e.to_json()) for e in client.transport.events]  # type: ignore[attr-defined]
    assert [(e["job"]["name"], e["eventType"]) for e in events] == [
        ("keep.me", "START"),
        ("keep.me", "COMPLETE"),
    ]
    for event in events:
        assert event["run"]["facets"]["tags"]["tags"] == [
            {"key": "team", "value": "data", "source": "USER"}
        ]
        assert (event["outputs"][0]["namespace"], event["outputs"][0]["name"]) == (
            "hdfs://lake",
            "/data/t",
        )


@pytest.mark.parametrize(
    ("transport", "message"),
    [
        (
            {"type": "http", "url": "http://h", "endpont": "api/v1/lineage"},
            "endpont: Extra inputs are not permitted (did you mean 'endpoint'?)",
        ),
        (
            {
                "type": "http",
                "url": "http://h",
                "auth": {
                    "type": "oauth2",
                    "clientId": "a",
                    "clientSecret": "TOPSECRET",
                    "tokenEndpoint": "http://t",
                    "scpoe": "x",
                },
            },
            "auth.oauth2.scpoe: Extra inputs are not permitted (did you mean 'scope'?)",
        ),
    ],
)
def test_misspelt_transport_keys_are_named_with_a_close_match(
    tmp_path: Path, transport: dict[str, Any], message: str
) -> None:
    file = tmp_path / "openlineage.yml"
    file.write_text(json.dumps({"transport": transport}))
    with pytest.raises(ConfigError) as caught:
        load_config({}, config_file=file)
    assert message in str(caught.value)
    assert str(caught.value).endswith(f"(read from {file})")
    assert "TOPSECRET" not in str(caught.value)
    with pytest.raises(ConfigError, match="from the OPENLINEAGE__ environment variables"):
        load_config({"OPENLINEAGE__TRANSPORT": json.dumps(transport)}, search_paths=[])


def test_environment_variables_named_in_one_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    from openlineage_sdk.transports.memory import MemoryTransport

    env = {
        "OPENLINEAGE__FACETS__ENVIRONMENT_VARIABLES": "REGION;TEAM_NAME",
        "REGION": "eu",
        "TEAM": "not wanted",
        "TEAM_NAME": "n",
        "A": "not wanted",
    }
    client = OpenLineage.from_environment(env, transport=MemoryTransport())
    client.emit(read_event(Serde.to_json(run_event())))
    out = json.loads(client.transport.events[0].to_json())  # type: ignore[attr-defined]
    assert out["run"]["facets"]["environmentVariables"]["environmentVariables"] == [
        {"name": "REGION", "value": "eu"},
        {"name": "TEAM_NAME", "value": "n"},
    ]


def test_a_transport_given_in_code_still_gets_the_file_s_sections(
    side_by_side: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from openlineage_sdk.transports.memory import MemoryTransport

    file = tmp_path / "openlineage.yml"
    file.write_text(
        json.dumps(
            {
                "transport": {"type": "http", "url": "not a url"},  # not used, not checked
                "tags": {"job": {"team": "data"}},
                "filters": [{"type": "exact", "match": "drop.me"}],
            }
        )
    )
    monkeypatch.setenv("OPENLINEAGE_CONFIG", str(file))
    monkeypatch.setenv("OPENLINEAGE_URL", "http://127.0.0.1:9")
    client = OpenLineage(transport=MemoryTransport(), raise_on_error=True)
    client.emit(read_event(Serde.to_json(run_event("drop.me"))))
    client.emit(read_event(Serde.to_json(run_event("keep.me"))))
    events = [json.loads(e.to_json()) for e in client.transport.events]  # type: ignore[attr-defined]
    assert [e["job"]["name"] for e in events] == ["keep.me"]
    assert events[0]["job"]["facets"]["tags"]["tags"][0]["key"] == "team"


def test_an_event_the_sdk_cannot_read_is_still_sent_with_the_changes() -> None:
    from openlineage_sdk.transports.memory import MemoryTransport

    class HandMade:
        def to_json(self) -> str:
            return json.dumps(
                {
                    "eventType": "START",
                    "run": {"runId": "not-a-uuid"},
                    "job": {"namespace": "n", "name": "j"},
                }
            )

    client = OpenLineage(
        transport=MemoryTransport(),
        config=load_config({}, search_paths=[], overrides={"tags": {"run": {"a": "b"}}}),
        raise_on_error=True,
    )
    client.emit(HandMade())
    sent = json.loads(client.transport.json_events[0])  # type: ignore[attr-defined]
    assert sent["run"]["runId"] == "not-a-uuid"
    assert sent["run"]["facets"]["tags"]["tags"] == [{"key": "a", "value": "b", "source": "USER"}]


def test_the_java_client_s_custom_environment_variables_key() -> None:
    from openlineage_sdk.transports.memory import MemoryTransport

    env = {"REGION": "eu", "TEAM": "t"}
    config = load_config(
        env,
        search_paths=[],
        overrides={"facets": {"custom_environment_variables": "[TEAM;REGION]"}},
    )
    client = OpenLineage(transport=MemoryTransport(), config=config)
    client._env = env
    client.emit(read_event(Serde.to_json(run_event())))
    out = json.loads(client.transport.json_events[0])  # type: ignore[attr-defined]
    assert out["run"]["facets"]["environmentVariables"]["environmentVariables"] == [
        {"name": "TEAM", "value": "t"},
        {"name": "REGION", "value": "eu"},
    ]
