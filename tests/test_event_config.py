"""EventConfig: editing events once, as models, and what the Spark confs need from it.

The configuration's own sections are compared with the official client in
``test_official_config.py``; here: the editor copies only what it changes, facets added when
absent, tags of another source, dataset name cuts, combining two configurations, and giving a
client one more configuration.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import pytest

from openlineage_sdk import OpenLineage, RunEvent, read_event
from openlineage_sdk import facets as f
from openlineage_sdk._event_config import EventConfig, Tag, parse_sections
from openlineage_sdk.transports.memory import MemoryTransport

RUN_FACET_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet"
PRODUCER = "https://example.com/producer"


def run_event(job: str = "orders.load", **extra: Any) -> RunEvent:
    data = {
        "eventType": "COMPLETE",
        "eventTime": "2024-05-01T12:00:00Z",
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "shop", "name": job},
        "inputs": [
            {"namespace": "s3://raw", "name": "orders/year=2024/day=01"},
            {"namespace": "s3://raw", "name": "customers"},
        ],
        "outputs": [{"namespace": "s3://lake", "name": "orders/year=2024/day=01"}],
        **extra,
    }
    event = read_event(data)
    assert isinstance(event, RunEvent)
    return event


def applied(config: EventConfig, event: Any) -> dict[str, Any]:
    result = config.apply(event, producer=PRODUCER, env={})
    assert result is not None
    return dict(json.loads(result.to_json()))


def spark_properties(**properties: str) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": RUN_FACET_URL, "properties": properties}


# -- editing once, as models -----------------------------------------------------------------


def test_only_the_parts_a_rule_changes_are_copied() -> None:
    event = run_event()
    before = event.to_json()
    config = EventConfig(job_tags=(Tag("team", "orders"),))
    edited = config.apply(event, producer=PRODUCER)
    assert isinstance(edited, RunEvent)
    assert edited is not event
    assert edited.job is not event.job
    # What no rule touched is shared with the caller's event, not read again from JSON.
    assert edited.run is event.run
    assert edited.inputs is event.inputs
    assert edited.outputs is event.outputs
    assert event.to_json() == before
    assert edited.job.facets is not None
    assert edited.job.facets.tags is not None
    assert edited.job.facets.tags.tags == [{"key": "team", "value": "orders", "source": "USER"}]


def test_editing_never_writes_and_reads_the_event(monkeypatch: pytest.MonkeyPatch) -> None:
    event = run_event()
    written: list[str] = []
    real_json, real_dict = RunEvent.to_json, RunEvent.to_dict

    def to_json(self: RunEvent) -> str:
        written.append("to_json")
        return real_json(self)

    def to_dict(self: RunEvent) -> dict[str, Any]:
        written.append("to_dict")
        return real_dict(self)

    monkeypatch.setattr(RunEvent, "to_json", to_json)
    monkeypatch.setattr(RunEvent, "to_dict", to_dict)
    config = EventConfig(run_tags=(Tag("env", "prod"),), disabled_facets=frozenset({"x"}))
    assert config.apply(event, producer=PRODUCER) is not event
    assert written == []


def test_an_event_built_in_code_is_edited_as_reading_its_json_would_give() -> None:
    client = OpenLineage(transport=MemoryTransport(), namespace="shop")
    with client.run(
        "orders.load", run_facets=[f.NominalTimeRunFacet(nominal_start_time="2024-05-01T00:00:00Z")]
    ):
        pass
    config = parse_sections(
        {"spark": {"logicalPlan": {"disabled": True}}},
        None,
        {"job": {"team": "a"}, "run": {"env": "prod"}},
        None,
    )
    assert config is not None
    for event in client.transport.events:  # type: ignore[attr-defined]
        edited = config.apply(event, producer=PRODUCER)
        assert edited is not None
        # Reading the edited event's JSON gives back the same event, byte for byte.
        assert read_event(edited.to_json()).to_json() == edited.to_json()
        assert type(read_event(edited.to_json())) is type(edited)


# -- what the Spark confs need ------------------------------------------------------------------


def test_facets_are_added_only_when_absent() -> None:
    owners = f.OwnershipJobFacet(owners=[{"name": "ada", "type": "team"}], producer=PRODUCER)
    config = EventConfig(
        run_facets={"spark_properties": spark_properties(**{"spark.master": "local[2]"})},
        job_facets={"ownership": owners},
    )
    out = applied(config, run_event())
    assert out["run"]["facets"]["spark_properties"] == spark_properties(
        **{"spark.master": "local[2]"}
    )
    assert out["job"]["facets"]["ownership"] == {
        "_producer": PRODUCER,
        "_schemaURL": f.OwnershipJobFacet.facet_schema_url,
        "owners": [{"name": "ada", "type": "team"}],
    }
    given = {"_producer": "p", "_schemaURL": RUN_FACET_URL, "properties": {"mine": "1"}}
    kept = applied(
        config, run_event(run={"runId": str(uuid.uuid4()), "facets": {"spark_properties": given}})
    )
    assert kept["run"]["facets"]["spark_properties"] == given


def test_added_facets_are_typed_as_reading_them_would_make_them() -> None:
    owners = {
        "_producer": PRODUCER,
        "_schemaURL": f.OwnershipJobFacet.facet_schema_url,
        "owners": [{"name": "ada", "type": "team"}],
    }
    edited = EventConfig(job_facets={"ownership": owners}).apply(run_event(), producer=PRODUCER)
    assert isinstance(edited, RunEvent)
    assert edited.job.facets is not None
    assert isinstance(edited.job.facets.ownership, f.OwnershipJobFacet)


def test_tags_keep_the_source_they_are_given() -> None:
    config = EventConfig(
        job_tags=(Tag("env", "prod", source="SPARK"), Tag("pii", "true", source="SPARK")),
        run_tags=(Tag("attempt", "2", source="SPARK"),),
    )
    out = applied(config, run_event())
    assert out["job"]["facets"]["tags"]["tags"] == [
        {"key": "env", "value": "prod", "source": "SPARK"},
        {"key": "pii", "value": "true", "source": "SPARK"},
    ]
    assert out["run"]["facets"]["tags"]["tags"] == [
        {"key": "attempt", "value": "2", "source": "SPARK"}
    ]


def test_the_remove_group_is_cut_from_input_and_output_names() -> None:
    config = EventConfig(dataset_name_cuts=(re.compile(r"(.*)(?P<remove>/year=.*)"),))
    out = applied(config, run_event())
    assert [d["name"] for d in out["inputs"]] == ["orders", "customers"]
    assert [d["name"] for d in out["outputs"]] == ["orders"]


def test_a_cut_needs_its_remove_group() -> None:
    with pytest.raises(ValueError, match="no group named remove"):
        EventConfig(dataset_name_cuts=(re.compile(r"(.*)/year=.*"),))


@pytest.mark.parametrize(
    ("facets", "error", "message"),
    [
        ({"ownership": {"owners": []}}, ValueError, "needs _producer and _schemaURL"),
        (
            {"ownership": f.DocumentationJobFacet(description="d")},
            ValueError,
            "is the facet 'documentation'",
        ),
        (
            {"ownership": f.ErrorMessageRunFacet(message="m", programming_language="py")},
            TypeError,
            "is a run facet",
        ),
        ({"ownership": "owners"}, TypeError, "a facet or a JSON object expected"),
    ],
)
def test_a_facet_to_add_is_checked_and_named(
    facets: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message) as raised:
        EventConfig(job_facets=facets)
    assert "job_facets['ownership']" in str(raised.value)


# -- combining -------------------------------------------------------------------------------


def test_combined_configurations_edit_as_one_after_the_other() -> None:
    spark = EventConfig(
        run_facets={"spark_properties": spark_properties(**{"spark.app.name": "etl"})},
        job_tags=(Tag("Env", "dev", source="SPARK"), Tag("pii", "true", source="SPARK")),
        dataset_name_cuts=(re.compile(r"(.*)(?P<remove>/year=.*)"),),
        disabled_facets=frozenset({"processing_engine"}),
    )
    user = parse_sections(
        {"environment_variables": ["REGION"]},
        [{"type": "exact", "match": "tmp.job"}],
        {"job": {"env": "prod"}, "run": {"owner": "ada"}},
        {"reducing_enabled": True},
    )
    assert user is not None
    env = {"REGION": "eu"}
    combined = spark.combine(user)
    for event in (
        run_event(),
        run_event("tmp.job"),
        run_event(
            run={
                "runId": str(uuid.uuid4()),
                "facets": {"processing_engine": {"_producer": "p", "_schemaURL": RUN_FACET_URL}},
            }
        ),
    ):
        first = spark.apply(event, producer=PRODUCER, env=env)
        assert first is not None
        one_after_the_other = user.apply(first, producer=PRODUCER, env=env)
        at_once = combined.apply(event, producer=PRODUCER, env=env)
        assert (at_once is None) == (one_after_the_other is None)
        if at_once is not None and one_after_the_other is not None:
            assert at_once.to_json() == one_after_the_other.to_json()
    tags = applied(combined, run_event())["job"]["facets"]["tags"]["tags"]
    # The client's tag replaces the Spark one of the same key, keeping the first spelling.
    assert tags == [
        {"key": "pii", "value": "true", "source": "SPARK"},
        {"key": "Env", "value": "prod", "source": "USER"},
    ]


def test_combining_keeps_the_first_facet_and_joins_the_rest() -> None:
    first = EventConfig(
        run_facets={"spark_properties": spark_properties(a="1")},
        disabled_facets=frozenset({"Schema"}),
    )
    then = EventConfig(
        run_facets={"spark_properties": spark_properties(a="2"), "other_x": spark_properties()},
        disabled_facets=frozenset({"symlinks"}),
    )
    combined = first.combine(then)
    assert list(combined.run_facets) == ["spark_properties", "other_x"]
    assert combined.run_facets["spark_properties"]["properties"] == {"a": "1"}
    assert combined.disabled_facets == {"schema", "symlinks"}
    assert first.combine(None) is first


# -- a client with one more configuration -------------------------------------------------------


def test_a_client_gets_one_more_configuration_and_shares_its_transport() -> None:
    transport = MemoryTransport()
    client = OpenLineage(
        transport=transport,
        producer=PRODUCER,
        config=parse_sections_config({"tags": {"job": {"team": "orders"}}}),
    )
    spark = EventConfig(job_tags=(Tag("env", "prod", source="SPARK"),))
    configured = client.with_event_config(spark)
    assert configured.transport is transport
    assert configured is not client
    configured.emit(run_event())
    client.emit(run_event())
    sent = [
        json.loads(event.to_json())["job"]["facets"]["tags"]["tags"] for event in transport.events
    ]
    assert sent[0] == [
        {"key": "env", "value": "prod", "source": "SPARK"},
        {"key": "team", "value": "orders", "source": "USER"},
    ]
    assert sent[1] == [{"key": "team", "value": "orders", "source": "USER"}]


def parse_sections_config(overrides: dict[str, Any]) -> Any:
    from openlineage_sdk.config import load_config

    return load_config({}, search_paths=[], overrides=overrides)
