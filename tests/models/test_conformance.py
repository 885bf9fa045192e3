"""Every real event in the conformance corpus reads losslessly and validates as the manifest says."""

from __future__ import annotations

import json
from typing import Any

import pytest

from openlineage_sdk import (
    DatasetEvent,
    JobEvent,
    OpenLineageValidationError,
    RunEvent,
    _read,
    read_event,
    validate_event,
)
from tests.conftest import CONFORMANCE, load_manifest

MANIFEST = load_manifest()
REFUSED = {"events/ol-fluentd/fluentd-events_event_no_run_id.json"}
KINDS = {"RunEvent": RunEvent, "JobEvent": JobEvent, "DatasetEvent": DatasetEvent}


def _text(record: dict[str, Any]) -> str:
    return (CONFORMANCE / record["path"]).read_text(encoding="utf-8")


def _ids(records: list[dict[str, Any]]) -> list[str]:
    return [r["path"].split("/", 1)[1] for r in records]


def test_manifest_covers_the_whole_folder() -> None:
    on_disk = {
        p.relative_to(CONFORMANCE).as_posix() for p in (CONFORMANCE / "events").rglob("*.json")
    }
    assert on_disk == {r["path"] for r in MANIFEST}
    assert len(on_disk) == 61


READABLE = [r for r in MANIFEST if r["path"] not in REFUSED]


@pytest.mark.parametrize("record", READABLE, ids=_ids(READABLE))
def test_read_from_text_writes_the_same_json(record: dict[str, Any]) -> None:
    text = _text(record)
    event = read_event(text)
    assert isinstance(event, KINDS[record["kind"]])
    assert event.to_dict() == json.loads(text)
    assert json.loads(event.to_json()) == json.loads(text)


@pytest.mark.parametrize("record", READABLE, ids=_ids(READABLE))
def test_read_from_bytes_and_mapping_agree(record: dict[str, Any]) -> None:
    text = _text(record)
    expected = json.loads(text)
    assert read_event(text.encode()).to_dict() == expected
    assert read_event(expected).to_dict() == expected


def test_lossless_means_exact_numbers_nulls_and_strings() -> None:
    # JSON text equality, not only Python equality: 1 stays 1, 1.0 stays 1.0, null stays null.
    for record in READABLE:
        text = _text(record)
        expected = json.loads(text)
        written = json.loads(read_event(text).to_json())
        assert json.dumps(written, sort_keys=True) == json.dumps(expected, sort_keys=True), record[
            "path"
        ]


@pytest.mark.parametrize("path", sorted(REFUSED))
def test_only_an_event_without_core_structure_is_refused(path: str) -> None:
    with pytest.raises(OpenLineageValidationError) as caught:
        read_event((CONFORMANCE / path).read_text(encoding="utf-8"))
    assert [str(p) for p in caught.value.problems] == ["run.runId: required field is missing"]
    assert "run.runId" in str(caught.value)


@pytest.mark.parametrize("record", MANIFEST, ids=_ids(MANIFEST))
def test_validate_event_agrees_with_the_manifest(record: dict[str, Any]) -> None:
    # The manifest's schema_valid reads `format` as JSON Schema 2020-12 does (an annotation).
    problems = validate_event(_text(record), formats=False)
    assert (not problems) is record["schema_valid"], [str(p) for p in problems]


def test_schema_errors_name_the_field() -> None:
    text = (
        CONFORMANCE / "events/ol-fluentd/fluentd-events_event_invalid_input_dataset_facet.json"
    ).read_text()
    problems = validate_event(text)
    assert [str(p) for p in problems] == [
        "inputs[0].inputFacets.dataQualityMetrics.columnMetrics: required field is missing"
    ]
    assert problems[0].rule == "required"


@pytest.mark.parametrize("key", ["environment-properties", "spark.logicalPlan"])
def test_odd_facet_keys_and_unknown_facets_are_kept(key: str) -> None:
    record = next(r for r in MANIFEST if f'"{key}"' in _text(r))
    raw = json.loads(_text(record))["run"]["facets"][key]
    event = read_event(_text(record))
    assert isinstance(event, RunEvent)
    assert event.run.facets is not None
    assert key in event.run.facets
    facet = event.run.facets[key]
    assert facet.to_dict() == raw
    # A key the SDK does not know is a generic run facet carrying every field.
    assert type(facet).__name__ == "RunFacet"
    assert facet.schema_url == raw["_schemaURL"]


def _read_all() -> dict[str, Any]:
    """Every corpus event read: the event, or the problems that refuse it."""
    results: dict[str, Any] = {}
    for record in MANIFEST:
        try:
            results[record["path"]] = read_event(_text(record))
        except OpenLineageValidationError as exc:
            results[record["path"]] = exc.problems
    return results


def test_the_fallback_reader_reads_the_corpus_identically(monkeypatch: pytest.MonkeyPatch) -> None:
    # A pydantic-core that cannot compile the reading schema makes read_event fall back to the
    # models' own validators under the reading context: the same events must come out.
    compiled = _read_all()
    monkeypatch.setattr(_read, "_READERS", {})
    monkeypatch.setattr(_read._Reader, "forgives_formats", lambda self: False)
    fallback = _read_all()
    assert all(isinstance(r, _read._ContextReader) for r in _read._READERS.values())
    assert set(_read._READERS) == set(KINDS.values())
    for path, event in compiled.items():
        # pydantic equality: same classes all the way down, same fields and extra fields.
        assert fallback[path] == event, path
        if not isinstance(event, tuple):
            assert fallback[path].to_json() == event.to_json(), path


@pytest.mark.parametrize(
    ("text", "words"),
    [("[1]", "an array"), ('"event"', "a string"), ("null", "null"), ("5", "an integer")],
)
def test_json_that_is_not_an_object_is_named_by_its_json_type(text: str, words: str) -> None:
    expected = f"expected a JSON object, got {words}"
    with pytest.raises(OpenLineageValidationError, match=expected):
        read_event(text)
    assert [p.message for p in validate_event(text)] == [expected]


@pytest.mark.parametrize(("value", "words"), [([1], "an array"), (None, "null"), (5, "an integer")])
def test_parsed_json_that_is_not_an_object_is_a_problem_not_an_error(
    value: Any, words: str
) -> None:
    assert [p.message for p in validate_event(value)] == [f"expected a JSON object, got {words}"]
