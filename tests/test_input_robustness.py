"""Bad input always gets the documented error, and nothing is written changed.

Building raises ``OpenLineageValidationError`` naming the field, reading raises it too, and
``validate_event`` answers with a list of problems: never a ``RecursionError``, never a value
that is written as something else (``NaN`` as ``null``, a key twice) or that only fails when the
event is written.
"""

from __future__ import annotations

import json
import logging
import random
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import (
    Job,
    OpenLineageValidationError,
    Run,
    RunEvent,
    read_event,
    validate_event,
)
from openlineage_sdk import facets as f
from openlineage_sdk.transports import (
    CompositeTransport,
    ConsoleTransport,
    FileTransport,
    MemoryTransport,
)

CORE = "https://openlineage.io/spec/{version}/OpenLineage.json#/$defs/{kind}"


def _event(**extra: Any) -> dict[str, Any]:
    return {
        "eventType": "START",
        "eventTime": "2024-05-01T12:00:00Z",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "n", "name": "j"},
        "producer": "https://p",
        "schemaURL": CORE.format(version="2-0-2", kind="RunEvent"),
        **extra,
    }


def _nested_list(depth: int) -> str:
    return "[" * depth + "]" * depth


def _nested_object(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def _with_raw(event: dict[str, Any], key: str, raw: str) -> str:
    """The event's JSON with ``"key": raw`` (raw JSON text) added at its top level."""
    text = json.dumps(event)
    return text[:-1] + f', "{key}": {raw}}}'


def _build(**extra: Any) -> RunEvent:
    return RunEvent(
        event_type="START",
        event_time="2024-05-01T12:00:00Z",
        run=Run(run_id=str(uuid.uuid4())),
        job=Job(namespace="n", name="j"),
        **extra,
    )


def _refused(call: Callable[[], object], path: str, words: str) -> OpenLineageValidationError:
    with pytest.raises(OpenLineageValidationError) as caught:
        call()
    paths = [problem.path for problem in caught.value.problems]
    assert path in paths, caught.value
    assert words in str(caught.value)
    return caught.value


# --- deep nesting ---------------------------------------------------------------------------


@pytest.mark.parametrize("raw", [_nested_list(1000), _nested_object(1000)], ids=["array", "object"])
def test_json_nested_a_thousand_levels_is_refused_by_reading(raw: str) -> None:
    with pytest.raises(OpenLineageValidationError, match="nested"):
        read_event(_with_raw(_event(), "x", raw))
    as_bytes = _with_raw(_event(), "x", raw).encode()
    with pytest.raises(OpenLineageValidationError, match="nested"):
        read_event(as_bytes)


@pytest.mark.parametrize("depth", [250, 1000])
def test_json_nested_deeply_is_a_problem_for_validation(depth: int) -> None:
    text = _with_raw(_event(), "x", _nested_object(depth))
    problems = validate_event(text)
    assert [p.rule for p in problems] == ["depth"], problems


def test_a_deep_custom_facet_is_refused_by_reading_and_reported_by_validation() -> None:
    facet = (
        '{"_producer": "https://p", "_schemaURL": "https://x/y.json#/$defs/A", "a": '
        + _nested_object(1000)
        + "}"
    )
    event = _event()
    event["run"]["facets"] = {"myCo_x": "PLACEHOLDER"}
    text = json.dumps(event).replace('"PLACEHOLDER"', facet)
    with pytest.raises(OpenLineageValidationError, match="nested"):
        read_event(text)
    assert [p.rule for p in validate_event(text)] == ["depth"]


def test_a_mapping_nested_deeper_than_the_writer_goes_is_refused_by_reading() -> None:
    value: Any = 1
    for _ in range(300):
        value = {"a": value}
    _refused(lambda: read_event(_event(x=value)), "x" + ".a" * 199, "nested more than 200")


def test_a_mapping_nested_deeply_is_a_problem_for_validation() -> None:
    value: Any = []
    for _ in range(5000):
        value = [value]
    assert [p.rule for p in validate_event(_event(x=value))] == ["depth"]


def _deep_field(levels: int) -> dict[str, Any]:
    field: dict[str, Any] = {"name": "leaf", "type": "int"}
    for level in range(levels):
        field = {"name": f"f{level}", "type": "struct", "fields": [field]}
    return field


def test_a_schema_facet_with_a_thousand_levels_of_fields_is_refused_on_construction() -> None:
    with pytest.raises(OpenLineageValidationError) as caught:
        f.SchemaDatasetFacet(fields=[_deep_field(1000)])
    problem = caught.value.problems[0]
    assert problem.rule == "depth"
    assert problem.path.startswith("fields[0].fields[0].fields[0]")


def test_a_schema_facet_with_a_thousand_levels_of_fields_is_a_problem_for_validation() -> None:
    event = _event(
        outputs=[
            {
                "namespace": "n",
                "name": "t",
                "facets": {
                    "schema": {
                        "_producer": "https://p",
                        "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet",
                        "fields": [_deep_field(1000)],
                    }
                },
            }
        ]
    )
    problems = validate_event(event)
    assert problems
    assert {p.rule for p in problems} == {"depth"}
    with pytest.raises(OpenLineageValidationError):
        read_event(event)


def test_a_schema_facet_nested_moderately_still_builds_and_reads() -> None:
    facet = f.SchemaDatasetFacet(fields=[_deep_field(40)])
    assert json.loads(facet.to_json())["fields"][0]["name"] == "f39"


# --- references the bundled schemas cannot resolve ------------------------------------------


@pytest.mark.parametrize("version", ["1-0-4", "1-0-5", "2-0-0", "2-0-1"])
def test_a_broken_facet_of_an_older_core_version_gives_problems(version: str) -> None:
    # These core versions refer to their facets by relative URLs (facets/X.json) that the
    # bundle resolves to its own facet schemas instead of raising "Unresolvable".
    event = _event(schemaURL=CORE.format(version=version, kind="RunEvent"))
    event["job"]["facets"] = {"documentation": {"description": 5}}
    assert isinstance(validate_event(event), list)
    assert isinstance(validate_event(event, formats=True), list)
    event["job"]["facets"]["documentation"].update(
        {
            "_producer": "https://p",
            "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/DocumentationJobFacet.json#/$defs/DocumentationJobFacet",
        }
    )
    problems = validate_event(event)
    assert [p.path for p in problems] == ["job.facets.documentation.description"]


# --- values that would be written changed ---------------------------------------------------


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_nan_and_infinity_are_refused_on_construction(value: float) -> None:
    _refused(lambda: Job(namespace="n", name="j", x=value), "x", "not a JSON number")
    _refused(lambda: Job(namespace="n", name="j", x={"a": [1, value]}), "x.a[1]", "NaN")
    _refused(
        lambda: f.DataQualityMetricsInputDatasetFacet(
            column_metrics={"c": {"nullCount": 1, "sum": value}}
        ),
        "columnMetrics.c.sum",
        "not a JSON number",
    )


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999", "-2.5E+400"])
def test_nan_and_infinity_literals_are_refused_by_reading(literal: str) -> None:
    """Also numbers too large for a float, which would be read as infinity and written null."""
    text = _with_raw(_event(), "x", f"[1, {literal}]")
    _refused(lambda: read_event(text), "x[1]", "not a JSON number")
    _refused(lambda: read_event(text.encode()), "x[1]", "not a JSON number")
    assert [p.path for p in validate_event(text)] == ["x[1]"]


def test_nan_read_from_a_mapping_is_refused() -> None:
    _refused(lambda: read_event(_event(x={"y": float("nan")})), "x.y", "not a JSON number")


def test_the_word_nan_inside_text_is_read_as_text() -> None:
    text = json.dumps(_event(x="NaN and Infinity", y=1.5e300, z="1e999"))
    event = read_event(text)
    assert json.loads(event.to_json())["x"] == "NaN and Infinity"
    assert json.loads(event.to_json())["y"] == 1.5e300
    assert json.loads(event.to_json())["z"] == "1e999"


def test_a_key_that_is_not_text_is_refused_rather_than_written_twice() -> None:
    _refused(lambda: _build(x={1: "a", "1": "b"}), "x", "a key must be text")
    _refused(lambda: Job(namespace="n", name="j", x={(1, 2): 3}), "x", "got tuple")
    _refused(lambda: read_event(_event(x={1: "a", "1": "b"})), "x", "a key must be text")


@pytest.mark.parametrize(
    ("value", "kind"),
    [({1, 2}, "set"), (frozenset({1}), "frozenset"), (b"ab", "bytes"), (object(), "object")],
)
def test_values_that_are_not_json_are_refused_on_construction(value: object, kind: str) -> None:
    _refused(lambda: Job(namespace="n", name="j", x=value), "x", f"got {kind}")
    _refused(lambda: Job(namespace="n", name="j", x={"deeper": [value]}), "x.deeper[0]", kind)


def test_tuples_and_nested_models_are_written_as_given() -> None:
    job = Job(namespace="n", name="j", x=(1, 2), y={"z": [True, None, 1.5]})
    assert json.loads(job.to_json()) == {
        "namespace": "n",
        "name": "j",
        "x": [1, 2],
        "y": {"z": [True, None, 1.5]},
    }


def test_a_lone_surrogate_is_refused_on_construction_with_the_field_named() -> None:
    _refused(lambda: Job(namespace="n", name="a\ud800"), "name", "lone surrogate")
    _refused(lambda: Job(namespace="n", name="j", x=["a\udfff"]), "x[0]", "lone surrogate")
    _refused(lambda: Job(namespace="n", name="j", **{"k\ud800": 1}), "", "lone surrogate")
    _refused(lambda: _build(producer="https://p/\ud800"), "producer", "lone surrogate")
    _refused(
        lambda: f.SchemaDatasetFacet(fields=[{"name": "id\ud800"}]),
        "fields[0].name",
        "lone surrogate",
    )


def test_a_lone_surrogate_escape_is_refused_by_reading() -> None:
    text = json.dumps(_event()).replace('"name": "j"', '"name": "a\\ud800"')
    _refused(lambda: read_event(text), "job.name", "lone surrogate")
    text = _with_raw(_event(), "x", '"\\udc00"')
    _refused(lambda: read_event(text), "x", "lone surrogate")


def test_text_with_paired_surrogates_is_fine() -> None:
    job = Job(namespace="n", name="emoji \U0001f600")
    assert "\U0001f600" in json.loads(job.to_json())["name"]


@pytest.mark.parametrize(
    "when",
    [
        "2024-05-01T12:00:00+25:00",
        "2024-05-01T12:00:00-24:00",
        "2024-05-01T12:00:00+01:60",
    ],
)
def test_a_time_zone_offset_out_of_range_is_refused(when: str) -> None:
    _refused(
        lambda: RunEvent(
            event_type="START",
            event_time=when,
            run=Run(run_id=str(uuid.uuid4())),
            job=Job(namespace="n", name="j"),
        ),
        "eventTime",
        "RFC 3339",
    )
    assert [p.path for p in validate_event(_event(eventTime=when), formats=True)] == ["eventTime"]


def test_the_widest_time_zone_offsets_are_accepted() -> None:
    for when in ("2024-05-01T12:00:00+23:59", "2024-05-01T12:00:00-12:00"):
        RunEvent(
            event_type="START",
            event_time=when,
            run=Run(run_id=str(uuid.uuid4())),
            job=Job(namespace="n", name="j"),
        )


# --- whatever was built can be written, by every transport -----------------------------------


def test_every_event_built_can_be_written(tmp_path: Path) -> None:
    event = _build(x={"a": [1, 2.5, None, "t"]})
    transport = FileTransport(tmp_path / "events.jsonl")
    transport.emit(event)
    assert json.loads((tmp_path / "events.jsonl").read_text())["x"] == {"a": [1, 2.5, None, "t"]}


class _Unwritable:
    def to_json(self) -> str:
        raise ValueError("cannot write this event")


def test_the_file_transport_logs_an_event_it_cannot_write(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    transport = FileTransport(tmp_path / "events.jsonl")
    with caplog.at_level(logging.ERROR):
        transport.emit(_Unwritable())
    assert "cannot write this event" in caplog.text
    assert not (tmp_path / "events.jsonl").exists() or (tmp_path / "events.jsonl").read_text() == ""
    with pytest.raises(Exception, match="cannot write this event"):
        FileTransport(tmp_path / "events.jsonl", raise_on_error=True).emit(_Unwritable())


def test_the_console_transport_logs_an_event_it_cannot_write(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR):
        ConsoleTransport().emit(_Unwritable())
    assert "cannot write this event" in caplog.text


def test_the_composite_transport_logs_an_event_it_cannot_write(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    composite = CompositeTransport([FileTransport(tmp_path / "a.jsonl")])
    with caplog.at_level(logging.ERROR):
        composite.emit(_Unwritable())
    assert "cannot write this event" in caplog.text


def _configs(tmp_path: Path) -> dict[str, dict[str, Any]]:
    """A configuration of every transport kind, each pointing nowhere that answers."""
    memory = {"type": "memory"}
    return {
        "console": {"type": "console"},
        "file": {"type": "file", "log_file_path": str(tmp_path / "f.jsonl")},
        "memory": memory,
        "noop": {"type": "noop"},
        "http": {"type": "http", "url": "http://127.0.0.1:9", "spool": False},
        "kafka": {
            "type": "kafka",
            "topic": "lineage",
            "config": {"bootstrap.servers": "127.0.0.1:9"},
            "spool": False,
        },
        "composite": {"type": "composite", "transports": [memory]},
        "transform": {
            "type": "transform",
            "transformer_class": (
                "openlineage_sdk.transports.transform.JobNamespaceReplaceTransformer"
            ),
            "transformer_properties": {"new_job_namespace": "n"},
            "transport": memory,
        },
    }


@pytest.mark.parametrize(
    "kind", ["console", "file", "memory", "noop", "http", "kafka", "composite", "transform"]
)
def test_no_transport_raises_for_an_event_it_cannot_write(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, kind: str
) -> None:
    """Every kind, as configured by users: logged, never raised, unless raise_on_error."""
    from openlineage_sdk.transports import create_transport

    if kind == "kafka":
        pytest.importorskip("confluent_kafka")
    transport = create_transport(_configs(tmp_path)[kind])
    try:
        with caplog.at_level(logging.ERROR):
            transport.emit(_Unwritable())
        if kind != "noop":  # the no-op transport never looks at an event
            assert "cannot write this event" in caplog.text
        if isinstance(transport, MemoryTransport):
            assert transport.events == []
            assert transport.json_events == []
    finally:
        transport.close(0)


def test_the_memory_transport_raises_only_when_asked(tmp_path: Path) -> None:
    from openlineage_sdk.transports import TransportError, create_transport

    strict = create_transport({"type": "memory", "raise_on_error": True})
    assert isinstance(strict, MemoryTransport)
    with pytest.raises(TransportError, match="cannot write this event"):
        strict.emit(_Unwritable())
    strict.emit(_build())
    assert len(strict.json_events) == 1


# --- many values: what is accepted is written as given ----------------------------------------

_SCALARS: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    2**70,
    1.5,
    -0.0,
    1e308,
    float("nan"),
    float("inf"),
    "",
    "text",
    "\u00e9\U0001f600",
    "a\ud800",
    b"x",
    {1, 2},
    object(),
]


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth >= 3 or roll < 0.5:
        return rng.choice(_SCALARS)
    if roll < 0.7:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if roll < 0.8:
        return tuple(_random_value(rng, depth + 1) for _ in range(rng.randrange(3)))
    keys: list[Any] = ["a", "b", "c", 1, (1, 2)] if rng.random() < 0.2 else ["a", "b", "c"]
    return {rng.choice(keys): _random_value(rng, depth + 1) for _ in range(rng.randrange(4))}


def _as_json(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_as_json(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_json(item) for key, item in value.items()}
    return value


def test_an_extra_field_is_written_as_given_or_refused_when_built() -> None:
    rng = random.Random(14)
    refused = accepted = 0
    paths: list[str] = []
    for _ in range(2000):
        value = _random_value(rng)
        try:
            job = Job(namespace="n", name="j", x=value)
        except OpenLineageValidationError as exc:
            paths.append(exc.problems[0].path)
            refused += 1
            continue
        accepted += 1
        written = json.loads(job.to_json())["x"]
        assert written == _as_json(value)
        assert json.dumps(written, allow_nan=False)
        again = read_event(_event(job={"namespace": "n", "name": "j", "x": written}))
        assert json.loads(again.to_json())["job"]["x"] == written
    assert refused > 100
    assert accepted > 100
    assert all(path.startswith("x") for path in paths), paths


# --- records inside facets and values typed Any ------------------------------------------------


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (float("nan"), "not a JSON number"),
        (float("-inf"), "not a JSON number"),
        ({1, 2}, "got set"),
        (b"ab", "got bytes"),
        (object(), "got object"),
        ("a\ud800", "lone surrogate"),
        ({1: "a", "1": "b"}, "a key must be text"),
    ],
)
def test_a_record_key_of_its_own_is_refused_when_built(value: object, words: str) -> None:
    """A schema field, a column-lineage input: records keep keys they do not declare, checked."""
    _refused(
        lambda: f.SchemaDatasetFacet(fields=[{"name": "a", "type": "int", "x": value}]),
        "fields[0].x",
        words,
    )
    nested = [{"name": "a", "fields": [{"name": "b"}, {"name": "c", "y": [value]}]}]
    _refused(lambda: f.SchemaDatasetFacet(fields=nested), "fields[0].fields[1].y[0]", words)
    lineage = {
        "c": {
            "inputFields": [
                {
                    "namespace": "n",
                    "name": "t",
                    "field": "c",
                    "transformations": [{"type": "DIRECT", "z": value}],
                }
            ]
        }
    }
    _refused(
        lambda: f.ColumnLineageDatasetFacet(fields=lineage),
        "fields.c.inputFields[0].transformations[0].z",
        words,
    )


def test_a_record_key_of_its_own_is_refused_inside_an_event_built_from_dicts() -> None:
    _refused(
        lambda: _build(
            outputs=[
                {
                    "namespace": "n",
                    "name": "d",
                    "facets": {"schema": {"fields": [{"name": "a", "x": float("nan")}]}},
                }
            ]
        ),
        "outputs[0].facets.schema.fields[0].x",
        "not a JSON number",
    )


def test_record_keys_of_their_own_are_written_as_given() -> None:
    extra = {"x": (1, 2), "y": {"z": [True, None, 1.5, "t"]}}
    facet = f.SchemaDatasetFacet(fields=[{"name": "a", "type": "int", **extra}])  # type: ignore[typeddict-unknown-key]
    written = json.loads(facet.to_json())["fields"]
    assert written == [{"name": "a", "type": "int", "x": [1, 2], "y": extra["y"]}]
    again = read_event(
        _event(
            inputs=[
                {"namespace": "n", "name": "d", "facets": {"schema": json.loads(facet.to_json())}}
            ]
        )
    )
    assert json.loads(again.to_json())["inputs"][0]["facets"]["schema"]["fields"] == written


def test_a_value_typed_any_is_refused_when_it_cannot_be_written() -> None:
    """A partition's dimensions are ``dict[str, Any]``: what pydantic does not look at is checked."""
    condition = {"type": "partition", "partitions": [{"dimensions": {"d": float("nan")}}]}
    _refused(
        lambda: f.InputSubsetInputDatasetFacet(input_condition=condition),
        "inputCondition.partitions[0].dimensions.d",
        "not a JSON number",
    )
    fine = {"type": "partition", "partitions": [{"dimensions": {"d": "2024-05-01", "h": 3}}]}
    facet = f.InputSubsetInputDatasetFacet(input_condition=fine)
    assert json.loads(facet.to_json())["inputCondition"] == fine


def test_a_custom_facet_field_typed_any_is_refused_when_it_cannot_be_written() -> None:
    from typing_extensions import TypedDict

    from openlineage_sdk.models.base import RunFacet
    from openlineage_sdk.types import FacetSchemaURL

    class Line(TypedDict):
        sku: str

    class RobustAnyRunFacet(RunFacet, prefix="robust", name="any"):
        schema_url: FacetSchemaURL = (
            "https://example.com/schemas/1-0-0/RobustAnyRunFacet.json#/$defs/RobustAnyRunFacet"
        )
        payload: Any = None
        labels: dict[str, Any] | None = None
        lines: list[Line] | None = None

    _refused(lambda: RobustAnyRunFacet(payload={"a": float("inf")}), "payload.a", "not a JSON")
    _refused(lambda: RobustAnyRunFacet(labels={"a": [{1, 2}]}), "labels.a[0]", "got set")
    _refused(
        lambda: RobustAnyRunFacet(lines=[{"sku": "s", "qty": b"1"}]),  # type: ignore[typeddict-unknown-key]
        "lines[0].qty",
        "got bytes",
    )
    facet = RobustAnyRunFacet(payload=[1, "a"], labels={"a": None}, lines=[{"sku": "s"}])
    assert json.loads(facet.to_json())["payload"] == [1, "a"]


# --- a key given twice ---------------------------------------------------------------------------


def _twice(inner: str) -> str:
    """A valid event's JSON with ``inner`` (raw JSON members) added to its job object."""
    text = json.dumps(_event())
    return text.replace('"name": "j"', f'"name": "j", {inner}', 1)


@pytest.mark.parametrize("as_bytes", [False, True], ids=["text", "bytes"])
def test_a_key_given_twice_is_a_problem_for_validation(as_bytes: bool) -> None:
    text = _twice('"name": "k"')
    problems = validate_event(text.encode() if as_bytes else text)
    assert [(p.path, p.rule) for p in problems] == [("job.name", "json")]
    assert "more than once" in problems[0].message


def test_a_key_given_twice_deep_inside_a_facet_is_named_and_the_rest_still_checked() -> None:
    schema = (
        '"facets": {"sourceCode": {"_producer": "https://p", '
        '"_schemaURL": "https://openlineage.io/spec/facets/1-0-1/SourceCodeJobFacet.json'
        '#/$defs/SourceCodeJobFacet", "language": "py", "sourceCode": "x", "x": {"a": 1, "a": 2}}}'
    )
    text = _twice(schema).replace('"eventType": "START"', '"eventType": 7')
    paths = [p.path for p in validate_event(text)]
    assert paths[0] == "job.facets.sourceCode.x.a"
    assert "eventType" in paths


def test_reading_keeps_the_last_value_of_a_key_given_twice_as_json_parsers_do() -> None:
    event = read_event(_twice('"name": "k"'))
    assert event.job.name == "k"
