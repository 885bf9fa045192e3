"""The generated models: facet metadata, typed containers, checks on construction, writing."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from openlineage_sdk import (
    PRODUCER,
    DatasetFacets,
    InputDataset,
    Job,
    JobFacets,
    OpenLineageValidationError,
    OutputDataset,
    OutputDatasetFacets,
    Problem,
    Run,
    RunEvent,
    RunFacets,
    read_event,
    validate_event,
)
from openlineage_sdk import facets as F
from openlineage_sdk.models.base import DatasetFacet, JobFacet, RunFacet
from openlineage_sdk.types import FacetSchemaURL
from tests._spec import event_url
from tests.conftest import SPEC

RUN_ID = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"


def _event(**overrides: Any) -> RunEvent:
    fields: dict[str, Any] = {
        "event_type": "START",
        "event_time": "2024-05-01T12:00:00Z",
        "run": Run(run_id=RUN_ID),
        "job": Job(namespace="ns", name="job"),
    }
    fields.update(overrides)
    return RunEvent(**fields)


# --------------------------------------------------------------------------- facet classes


def _standard_facet_definitions() -> list[tuple[str, str, str, str]]:
    """(class name, key, entity, schema URL) for every facet definition of spec/facets."""
    entity_of = {
        "RunFacet": "run",
        "JobFacet": "job",
        "DatasetFacet": "dataset",
        "InputDatasetFacet": "inputDataset",
        "OutputDatasetFacet": "outputDataset",
    }
    out = []
    for path in sorted((SPEC / "facets").glob("*.json")):
        schema = json.loads(path.read_text())
        keys: dict[str, str] = {}
        for key, prop in schema["properties"].items():
            refs = [prop, *prop.get("anyOf", []), *prop.get("oneOf", [])]
            for ref in refs:
                if "$ref" in ref:
                    name = ref["$ref"].rpartition("/")[2]
                    keys[name] = key
                    for member in schema["$defs"][name].get("oneOf", []):
                        keys[member["$ref"].rpartition("/")[2]] = key
        for name, definition in schema["$defs"].items():
            parts = definition.get("allOf", [])
            base = parts[0]["$ref"].rpartition("/")[2] if parts and "$ref" in parts[0] else None
            if base in entity_of:
                out.append((name, keys[name], entity_of[base], f"{schema['$id']}#/$defs/{name}"))
    return out


FACETS = _standard_facet_definitions()


def test_every_facet_definition_of_the_spec_is_a_standard_facet() -> None:
    assert len(FACETS) >= len(list((SPEC / "facets").glob("*.json")))
    assert sorted(cls.__name__ for cls in F.STANDARD_FACETS) == sorted(f[0] for f in FACETS)


@pytest.mark.parametrize(("name", "key", "entity", "url"), FACETS, ids=[f[0] for f in FACETS])
def test_each_facet_class_knows_its_key_entity_and_url(
    name: str, key: str, entity: str, url: str
) -> None:
    cls = getattr(F, name)
    assert cls.facet_key == key
    assert cls.facet_entity == entity
    assert cls.facet_schema_url == url
    assert cls in F.STANDARD_FACETS


def test_generic_bases_have_no_key_or_url() -> None:
    for cls, entity in ((RunFacet, "run"), (JobFacet, "job"), (DatasetFacet, "dataset")):
        assert cls.facet_key is None
        assert cls.facet_schema_url is None
        assert cls.facet_entity == entity


def test_facet_writes_its_pinned_schema_url_and_producer() -> None:
    facet = F.OutputStatisticsOutputDatasetFacet(row_count=10)
    assert facet.to_dict() == {
        "_producer": PRODUCER,
        "_schemaURL": F.OutputStatisticsOutputDatasetFacet.facet_schema_url,
        "rowCount": 10,
    }
    assert (
        validate_event(
            _event(
                outputs=[
                    OutputDataset(
                        namespace="n",
                        name="o",
                        output_facets=OutputDatasetFacets(output_statistics=facet),
                    )
                ]
            )
        )
        == []
    )


def test_enumerations_are_literals() -> None:
    with pytest.raises(OpenLineageValidationError, match="lifecycleStateChange: expected 'ALTER'"):
        F.LifecycleStateChangeDatasetFacet(lifecycle_state_change="EXPLODE")  # type: ignore[arg-type]
    assert (
        F.LifecycleStateChangeDatasetFacet(lifecycle_state_change="DROP").lifecycle_state_change
        == "DROP"
    )


# --------------------------------------------------------------------------- containers


def test_containers_type_each_standard_key() -> None:
    parent = F.ParentRunFacet(run={"runId": RUN_ID}, job={"namespace": "ns", "name": "dag"})
    event = _event(run=Run(run_id=RUN_ID, facets=RunFacets(parent=parent)))
    read = read_event(event.to_json())
    assert isinstance(read, RunEvent)
    assert read.run.facets is not None
    assert isinstance(read.run.facets.parent, F.ParentRunFacet)
    assert read.run.facets["parent"] is read.run.facets.parent
    assert "parent" in read.run.facets
    assert read.run.facets.parent.run["runId"] == RUN_ID


@pytest.mark.parametrize(
    ("container", "key", "cls"),
    [
        (RunFacets, "tags", F.TagsRunFacet),
        (JobFacets, "tags", F.TagsJobFacet),
        (DatasetFacets, "tags", F.TagsDatasetFacet),
        (JobFacets, "ownership", F.OwnershipJobFacet),
        (DatasetFacets, "ownership", F.OwnershipDatasetFacet),
        (JobFacets, "documentation", F.DocumentationJobFacet),
        (DatasetFacets, "documentation", F.DocumentationDatasetFacet),
    ],
)
def test_the_same_key_resolves_by_its_container(
    container: type[Any], key: str, cls: type[Any]
) -> None:
    field = next(f for name, f in container.model_fields.items() if (f.alias or name) == key)
    assert cls in getattr(field.annotation, "__args__", (field.annotation,))


def test_unknown_keys_are_generic_facets_of_the_entity() -> None:
    raw = {"_producer": "https://x", "_schemaURL": "https://x/s.json#/$defs/MyFacet", "cost": 1.5}
    facets = RunFacets.model_validate({"myCo_costs": raw})
    facet = facets["myCo_costs"]
    assert type(facet) is RunFacet
    assert facet.to_dict() == raw
    assert list(facets.keys()) == ["myCo_costs"]
    assert len(facets) == 1
    assert facets.get("missing") is None


def test_container_of_places_facets_by_key() -> None:
    nominal = F.NominalTimeRunFacet(nominal_start_time="2024-01-01T00:00:00Z")
    facets = RunFacets.of(nominal)
    assert facets.nominal_time is nominal
    with pytest.raises(TypeError, match="no facet key"):
        RunFacets.of(RunFacet(schema_url="https://x/s.json#/$defs/X"))


def test_a_facet_of_another_entity_is_refused() -> None:
    parent = F.ParentRunFacet(run={"runId": RUN_ID}, job={"namespace": "ns", "name": "dag"})
    with pytest.raises(OpenLineageValidationError, match="parent"):
        DatasetFacets(parent=parent)  # type: ignore[call-arg]
    with pytest.raises(
        TypeError, match="ParentRunFacet is a run facet; DatasetFacets holds dataset facets"
    ):
        DatasetFacets.of(parent)


# --------------------------------------------------------------------------- construction checks


def test_event_type_is_one_of_the_six_states() -> None:
    with pytest.raises(OpenLineageValidationError) as caught:
        _event(event_type="FOO")
    assert caught.value.problems == (
        Problem(
            "eventType",
            "expected 'START', 'RUNNING', 'COMPLETE', 'ABORT', 'FAIL' or 'OTHER', got 'FOO'",
            "enum",
        ),
    )
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("bad", ["not-a-uuid", "1234", ""])
def test_run_id_must_be_a_uuid(bad: str) -> None:
    with pytest.raises(OpenLineageValidationError, match=f"runId: expected a UUID, got {bad!r}"):
        Run(run_id=bad)


def test_uuid_values_are_written_as_strings() -> None:
    value = uuid.UUID(RUN_ID)
    assert Run(run_id=value).to_dict() == {"runId": RUN_ID}


@pytest.mark.parametrize(
    "bad", ["2024-05-01T12:00:00", "2024-05-01", "yesterday", "2024-13-01T00:00:00Z"]
)
def test_event_time_needs_rfc3339_with_a_zone(bad: str) -> None:
    with pytest.raises(
        OpenLineageValidationError, match="eventTime: expected an RFC 3339 date-time"
    ):
        _event(event_time=bad)


def test_datetimes_are_written_in_the_spec_form() -> None:
    utc = datetime(2024, 5, 1, 12, 0, 0, 123456, tzinfo=timezone.utc)
    assert _event(event_time=utc).to_dict()["eventTime"] == "2024-05-01T12:00:00.123456Z"
    plus2 = datetime(2024, 5, 1, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    assert _event(event_time=plus2).to_dict()["eventTime"] == "2024-05-01T12:00:00+02:00"
    with pytest.raises(OpenLineageValidationError, match="RFC 3339"):
        _event(event_time=datetime(2024, 5, 1, 12, 0))  # naive: no zone


def test_uris_are_uris() -> None:
    with pytest.raises(
        OpenLineageValidationError, match="producer: expected a URI, got 'not a uri'"
    ):
        _event(producer="not a uri")
    with pytest.raises(OpenLineageValidationError, match="uri: expected a URI, got 'string'"):
        F.DatasourceDatasetFacet(name="db", uri="string")
    assert F.DatasourceDatasetFacet(uri="postgres://db:5432").uri == "postgres://db:5432"


def test_facet_field_types_are_checked_not_converted() -> None:
    with pytest.raises(OpenLineageValidationError) as caught:
        F.OutputStatisticsOutputDatasetFacet(row_count="abc")  # type: ignore[arg-type]
    assert str(caught.value) == (
        "invalid OutputStatisticsOutputDatasetFacet: rowCount: expected an integer, got 'abc'"
    )
    with pytest.raises(OpenLineageValidationError):
        F.OutputStatisticsOutputDatasetFacet(row_count="5")  # type: ignore[arg-type]
    with pytest.raises(OpenLineageValidationError):
        F.OutputStatisticsOutputDatasetFacet(row_count=True)


def test_nested_errors_name_the_json_path() -> None:
    stats = {
        "_producer": PRODUCER,
        "_schemaURL": F.OutputStatisticsOutputDatasetFacet.facet_schema_url,
        "rowCount": "abc",
    }
    with pytest.raises(OpenLineageValidationError) as caught:
        _event(
            outputs=[{"namespace": "n", "name": "o", "outputFacets": {"outputStatistics": stats}}]
        )
    assert [str(p) for p in caught.value.problems] == [
        "outputs[0].outputFacets.outputStatistics.rowCount: expected an integer, got 'abc'"
    ]
    # Python names are written as the spec's JSON names too; the path starts at the object built.
    with pytest.raises(OpenLineageValidationError) as caught:
        OutputDataset(namespace="n", name="o", output_facets={"output_statistics": stats})  # type: ignore[arg-type]
    assert str(caught.value) == (
        "invalid OutputDataset: outputFacets.outputStatistics.rowCount: expected an integer, got 'abc'"
    )
    # pydantic's own entry points keep pydantic's error type.
    data = _event().to_dict()
    data["outputs"] = [{"namespace": "n", "name": "o", "outputFacets": {"outputStatistics": stats}}]
    with pytest.raises(ValidationError) as pydantic_error:
        RunEvent.model_validate(data)
    assert pydantic_error.value.errors()[0]["loc"] == (
        "outputs",
        0,
        "outputFacets",
        "outputStatistics",
        "rowCount",
    )


@pytest.mark.parametrize("column", ["Amount", "int", "str", "amount"])
def test_error_paths_keep_map_keys_that_look_like_union_tags(column: str) -> None:
    with pytest.raises(OpenLineageValidationError) as caught:
        F.DataQualityMetricsInputDatasetFacet(column_metrics={column: {"sum": "10"}})  # type: ignore[typeddict-item]
    assert [p.path for p in caught.value.problems] == [f"columnMetrics.{column}.sum"]


def test_error_paths_keep_custom_facet_keys() -> None:
    with pytest.raises(OpenLineageValidationError) as caught:
        RunFacets(MyFacet={"_producer": 5, "_schemaURL": "https://x/s.json#/$defs/F"})  # type: ignore[call-arg]
    assert [str(p) for p in caught.value.problems] == ["MyFacet._producer: expected a URI, got 5"]


def test_error_paths_leave_out_the_union_member_pydantic_names() -> None:
    # Each error of a union names the member it came from; the path is the JSON path alone.
    entry = {
        "type": "DATASET",
        "namespace": "n",
        "name": "t",
        "inputs": [{"type": "JOB", "name": 3}],
    }
    with pytest.raises(OpenLineageValidationError) as caught:
        F.LineageJobFacet(entries=[entry])  # type: ignore[list-item]
    assert {p.path for p in caught.value.problems} == {
        "entries[0].inputs[0].namespace",
        "entries[0].inputs[0].name",
        "entries[0].inputs[0].type",
        "entries[0].type",
    }
    # A recursive union (a binary condition holds conditions) is followed member by member.
    condition = {"type": "binary", "operator": "AND", "left": {"type": "location"}, "right": {}}
    with pytest.raises(OpenLineageValidationError) as caught:
        F.InputSubsetInputDatasetFacet(input_condition=condition)  # type: ignore[arg-type]
    paths = {p.path for p in caught.value.problems}
    assert "inputCondition.left.locations" in paths
    assert not any("SubsetCondition" in path for path in paths), paths


def test_records_are_checked_inside_facets() -> None:
    with pytest.raises(
        OpenLineageValidationError, match=r"fields\[0\]\.name: required field is missing"
    ):
        F.SchemaDatasetFacet(fields=[{"type": "int"}])  # type: ignore[typeddict-item]
    facet = F.SchemaDatasetFacet(fields=[{"name": "id", "type": "long", "fields": [{"name": "x"}]}])
    assert facet.fields == [{"name": "id", "type": "long", "fields": [{"name": "x"}]}]


def test_numbers_keep_integers_and_refuse_strings() -> None:
    metrics = {"col": {"nullCount": 1, "sum": 10, "min": 0.5}}
    facet = F.DataQualityMetricsInputDatasetFacet(column_metrics=metrics)  # type: ignore[arg-type]
    assert json.loads(facet.to_json())["columnMetrics"] == metrics
    assert '"sum":10,' in facet.to_json()
    with pytest.raises(
        OpenLineageValidationError, match=r"columnMetrics\.c\.sum: expected a number, got '10'"
    ):
        F.DataQualityMetricsInputDatasetFacet(column_metrics={"c": {"sum": "10"}})  # type: ignore[typeddict-item]


# --------------------------------------------------------------------------- writing


def test_writes_compact_json_and_omits_fields_never_set() -> None:
    event = _event()
    text = event.to_json()
    assert " " not in text
    assert json.loads(text) == {
        "eventType": "START",
        "eventTime": "2024-05-01T12:00:00Z",
        "run": {"runId": RUN_ID},
        "job": {"namespace": "ns", "name": "job"},
        "producer": PRODUCER,
        "schemaURL": event_url("RunEvent"),
    }


def test_none_given_in_code_means_absent() -> None:
    facet = F.SQLJobFacet(query="select 1", dialect=None)
    assert "dialect" not in facet.to_dict()
    assert "inputs" not in _event(inputs=None).to_dict()


def test_objects_given_as_dicts_follow_the_same_rules() -> None:
    facets = RunFacets.model_validate(
        {
            "parent": {
                "run": {"runId": RUN_ID},
                "job": {"namespace": "ns", "name": "j"},
                "root": None,
            }
        }
    )
    parent = facets.to_dict()["parent"]
    assert "root" not in parent
    assert parent["_schemaURL"] == F.ParentRunFacet.facet_schema_url
    assert parent["_producer"] == PRODUCER


def test_an_extra_field_given_as_none_is_written_as_null() -> None:
    # Only declared fields have an "absent"; an extra field given as None is a value.
    facet = F.SQLJobFacet(query="select 1", dialect=None, myCo_note=None)  # type: ignore[call-arg]
    assert facet.to_dict()["myCo_note"] is None
    assert "dialect" not in facet.to_dict()


def test_models_take_keyword_arguments_only() -> None:
    with pytest.raises(TypeError):
        F.SQLJobFacet("select 1")  # type: ignore[misc]


def test_a_facet_with_its_own_init_is_built_through_it() -> None:
    class MyCoNoteRunFacet(RunFacet, prefix="myCo", name="note"):
        schema_url: FacetSchemaURL = (
            "https://example.com/spec/facets/1-0-0/MyCoNoteRunFacet.json#/$defs/MyCoNoteRunFacet"
        )
        note: str

        def __init__(self, note: str) -> None:
            super().__init__(note=note.strip() if isinstance(note, str) else note)

    assert MyCoNoteRunFacet(" hi ").note == "hi"
    with pytest.raises(OpenLineageValidationError, match="note: expected a string, got 5"):
        MyCoNoteRunFacet(5)  # type: ignore[arg-type]


def test_null_read_from_json_is_written_back() -> None:
    text = _event().to_json().replace('"run":{', '"run":{"extra":null,')
    assert read_event(text).to_dict()["run"]["extra"] is None


def test_events_built_in_code_validate_strictly() -> None:
    event = _event(
        run=Run(
            run_id=uuid.uuid4(),
            facets=RunFacets(
                nominal_time=F.NominalTimeRunFacet(nominal_start_time=datetime.now(timezone.utc)),
                parent=F.ParentRunFacet(
                    run={"runId": RUN_ID}, job={"namespace": "ns", "name": "dag"}
                ),
            ),
        ),
        job=Job(
            namespace="ns",
            name="job",
            facets=JobFacets(
                sql=F.SQLJobFacet(query="select 1"),
                job_type=F.JobTypeJobFacet(processing_type="BATCH", integration="SPARK"),
            ),
        ),
        inputs=[
            InputDataset(
                namespace="s3://b",
                name="k",
                facets=DatasetFacets(
                    schema_=F.SchemaDatasetFacet(fields=[{"name": "id", "type": "long"}])
                ),
            )
        ],
    )
    assert validate_event(event.to_json()) == []
    assert validate_event(event, formats=True) == []


def test_a_value_that_cannot_be_written_is_refused_when_given() -> None:
    with pytest.raises(ValidationError, match="blob") as caught:
        RunFacet.model_validate(
            {"_producer": "https://x", "_schemaURL": "https://x/s#/$defs/X", "blob": object()}
        )
    assert caught.value.errors()[0]["type"] == "openlineage_json"


def test_generated_modules_carry_the_generated_header(root: Path) -> None:
    for path in (root / "openlineage_sdk" / "models").rglob("*.py"):
        head = path.read_text().splitlines()[:2]
        assert head[0].startswith("# Generated by openlineage-sdk codegen from "), path
        assert "nox -s codegen" in head[1], path
