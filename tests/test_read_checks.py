"""Reading refuses what could not be written back as read in its compiled pass, where it enters.

A clean event is read without the document being walked in Python; a value that could not be
written as read (NaN, an infinity, a number too large for a float, a lone surrogate, a key that
is not text, nesting deeper than 200 levels) is refused wherever it sits, from JSON text, bytes
or parsed data alike, with the path of the value and the same words as everywhere else.
"""

from __future__ import annotations

import copy
import json
import math
import random
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from openlineage_sdk import OpenLineageValidationError, _read, read_event
from openlineage_sdk import _json as json_checks

P = "https://p"
CORE = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
FACETS = "https://openlineage.io/spec/facets"
SCHEMA_URL = f"{FACETS}/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
ASSERTIONS_URL = f"{FACETS}/1-1-0/DataQualityAssertionsDatasetFacet.json#/$defs/DataQualityAssertionsDatasetFacet"
STATS_URL = (
    f"{FACETS}/1-0-2/OutputStatisticsOutputDatasetFacet.json"
    "#/$defs/OutputStatisticsOutputDatasetFacet"
)
MARKER = 12345.678


def _fields(levels: int) -> list[dict[str, Any]]:
    """Schema fields, each the only one of the one before, ``levels`` deep."""
    field: dict[str, Any] = {"name": "leaf", "type": "int"}
    for level in range(levels):
        field = {"name": f"f{level}", "type": "struct", "fields": [field]}
    return [field]


def _event() -> dict[str, Any]:
    """An event with a value in every kind of place the schema leaves open."""
    return {
        "eventType": "COMPLETE",
        "eventTime": "2024-05-01T12:00:00Z",
        "run": {
            "runId": str(uuid.uuid4()),
            "facets": {
                # a facet the SDK does not know: all of it is open
                "spark.logicalPlan": {"_producer": P, "_schemaURL": P, "plan": [{"n": 1.5}]},
            },
        },
        "job": {
            "namespace": "n",
            "name": "j",
            # an extra field of a known facet
            "facets": {"sql": {"_producer": P, "_schemaURL": P, "query": "q", "own": {"a": 1}}},
        },
        "inputs": [
            {
                "namespace": "n",
                "name": "in",
                "inputFacets": {
                    "dataQualityAssertions": {
                        "_producer": P,
                        "_schemaURL": ASSERTIONS_URL,
                        # params is typed dict[str, Any]
                        "assertions": [{"assertion": "a", "success": True, "params": {"x": 2.5}}],
                    }
                },
            }
        ],
        "outputs": [
            {
                "namespace": "n",
                "name": "out",
                "facets": {
                    "schema": {
                        "_producer": P,
                        "_schemaURL": SCHEMA_URL,
                        # a record's key of its own
                        "fields": [{"name": "c", "type": "int", "own": [0.5]}],
                    }
                },
                "outputFacets": {
                    "outputStatistics": {
                        "_producer": P,
                        "_schemaURL": STATS_URL,
                        "rowCount": 3,
                        "size": 1500,
                    }
                },
            }
        ],
        "producer": P,
        "schemaURL": CORE,
        "x": [1, "t", None, True, 0.25],  # an extra field of the event
    }


# Where each kind of open value sits, and a number inside it to replace.
PLACES: dict[str, tuple[tuple[int | str, ...], str]] = {
    "event extra": (("x", 4), "x[4]"),
    "unknown facet": (
        ("run", "facets", "spark.logicalPlan", "plan", 0, "n"),
        "run.facets['spark.logicalPlan'].plan[0].n",
    ),
    "extra of a known facet": (("job", "facets", "sql", "own", "a"), "job.facets.sql.own.a"),
    "value typed Any": (
        ("inputs", 0, "inputFacets", "dataQualityAssertions", "assertions", 0, "params", "x"),
        "inputs[0].inputFacets.dataQualityAssertions.assertions[0].params.x",
    ),
    "record's own key": (
        ("outputs", 0, "facets", "schema", "fields", 0, "own", 0),
        "outputs[0].facets.schema.fields[0].own[0]",
    ),
    "typed number": (
        ("outputs", 0, "outputFacets", "outputStatistics", "size"),
        "outputs[0].outputFacets.outputStatistics.size",
    ),
}


def _set(document: Any, path: tuple[int | str, ...], value: Any) -> None:
    for part in path[:-1]:
        document = document[part]
    document[path[-1]] = value


def _forms(event: dict[str, Any], raw: str | None = None) -> dict[str, Any]:
    """The event as JSON text, bytes and parsed data; ``raw`` replaces the marker number."""
    text = json.dumps(event)
    if raw is not None:
        assert text.count(repr(MARKER)) == 1
        text = text.replace(repr(MARKER), raw)
    parsed = json.loads(text)
    return {"text": text, "bytes": text.encode(), "mapping": parsed}


def _refused(call: Callable[[], object], path: str, words: str) -> None:
    with pytest.raises(OpenLineageValidationError) as caught:
        call()
    assert [problem.path for problem in caught.value.problems] == [path], caught.value
    assert words in str(caught.value)


def _no_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    def walk(*_: Any, **__: Any) -> Any:
        raise AssertionError("the document was walked")

    monkeypatch.setattr(_read, "unwritable_problem", walk)
    monkeypatch.setattr(json_checks, "find_unwritable", walk)


def test_the_path_of_each_place_is_what_the_walk_names() -> None:
    # The test's own table: the places point at numbers, the paths name them.
    event = _event()
    for place, (path, _) in PLACES.items():
        node: Any = event
        for part in path:
            node = node[part]
        assert isinstance(node, (int, float)), place
        assert not isinstance(node, bool), place


@pytest.mark.parametrize("form", ["text", "bytes", "mapping"])
def test_a_clean_event_is_read_in_one_pass_without_a_walk(
    form: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    event = _event()
    data = _forms(event)[form]
    _no_walk(monkeypatch)
    read = read_event(data)
    assert json.loads(read.to_json()) == event
    if form == "mapping":
        assert data == event  # the caller's mapping is left as it was


@pytest.mark.parametrize("form", ["text", "bytes", "mapping"])
@pytest.mark.parametrize("place", list(PLACES))
@pytest.mark.parametrize("raw", ["NaN", "Infinity", "-Infinity", "1e999", "-2.5E+400"])
def test_a_number_that_is_not_finite_is_refused_wherever_it_sits(
    form: str, place: str, raw: str
) -> None:
    event = _event()
    path, name = PLACES[place]
    _set(event, path, MARKER)
    data = _forms(event, raw)[form]
    _refused(lambda: read_event(data), name, "not a JSON number")


@pytest.mark.parametrize("form", ["text", "bytes", "mapping"])
@pytest.mark.parametrize("place", list(PLACES))
def test_a_large_but_finite_number_reads_and_writes_back(form: str, place: str) -> None:
    event = _event()
    path, _ = PLACES[place]
    _set(event, path, 1.7e308)
    read = read_event(_forms(event)[form])
    assert json.loads(read.to_json()) == event


@pytest.mark.parametrize("place", [p for p in PLACES if p != "typed number"])
@pytest.mark.parametrize(
    ("value", "inside", "words"),
    [
        ({1: "a"}, "", "a key must be text"),
        ({"a": {2, 3}}, ".a", "got set"),
        ([b"x"], "[0]", "got bytes"),
        ("a\ud800", "", "lone surrogate"),
        ({"k\udc00": 1}, "", "lone surrogate"),
        (object(), "", "got object"),
    ],
)
def test_parsed_data_that_is_not_json_is_refused_wherever_it_sits(
    place: str, value: Any, inside: str, words: str
) -> None:
    event = _event()
    path, name = PLACES[place]
    _set(event, path, value)
    _refused(lambda: read_event(event), name + inside, words)


def test_a_lone_surrogate_in_a_typed_field_of_parsed_data_is_refused() -> None:
    event = _event()
    event["job"]["name"] = "j\ud800"
    _refused(lambda: read_event(event), "job.name", "lone surrogate")
    event = _event()
    event["outputs"][0]["facets"]["schema"]["fields"][0]["name"] = "\udfff"
    _refused(lambda: read_event(event), "outputs[0].facets.schema.fields[0].name", "lone surrogate")


def test_a_broken_facet_holding_nan_is_refused_not_kept() -> None:
    event = _event()
    stats = event["outputs"][0]["outputFacets"]["outputStatistics"]
    stats["rowCount"] = "three"  # breaks the facet's schema: it would be kept as given
    stats["size"] = MARKER
    for data in _forms(event, "NaN").values():
        _refused(
            lambda data=data: read_event(data),
            "outputs[0].outputFacets.outputStatistics.size",
            "not a JSON number",
        )


def test_schema_fields_nested_beyond_the_quick_bound_still_read() -> None:
    # Past the levels the compiled pass vouches for, the document is walked, and it is fine.
    event = _event()
    event["outputs"][0]["facets"]["schema"]["fields"] = _fields(40)
    for data in _forms(event).values():
        assert json.loads(read_event(data).to_json()) == event


def test_parsed_schema_fields_deeper_than_the_writer_goes_are_refused() -> None:
    # pydantic-core itself accepts records within records up to 255 levels.
    event = _event()
    event["outputs"][0]["facets"]["schema"]["fields"] = _fields(110)
    with pytest.raises(OpenLineageValidationError) as caught:
        read_event(event)
    assert [problem.rule for problem in caught.value.problems] == ["depth"]
    assert "nested more than 200" in str(caught.value)


def _nested(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = {"a": value}
    return value


def test_an_open_value_nested_deeply_but_within_the_bound_reads() -> None:
    event = _event()
    event["x"] = _nested(150)
    assert json.loads(read_event(event).to_json()) == event
    assert json.loads(read_event(json.dumps(event)).to_json()) == event


def test_an_open_value_one_level_too_deep_is_refused_from_parsed_data() -> None:
    event = _event()
    event["x"] = _nested(199)  # x is level 2: its innermost object is level 200
    assert json.loads(read_event(event).to_json()) == event
    event["x"] = _nested(200)
    _refused(lambda: read_event(event), "x" + ".a" * 199, "nested more than 200")


def test_text_that_merely_looks_like_a_float_in_binary_is_read() -> None:
    # A false alarm of the quick look for infinities takes the careful way, which reads it.
    event = _event()
    event["x"] = [1.5, 2146435072, -1, -(2**31), 2**40, "\x7f\xff", 4.9e-324, -0.0]
    for data in _forms(event).values():
        assert json.loads(read_event(data).to_json()) == event


def _random_json(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 4 else 5)
    if kind == 0:
        return rng.choice(["", "a", "é", "\U0001f600", "NaN", "1e999"])
    if kind == 1:
        return rng.randrange(-(2**40), 2**40)
    if kind == 2:
        return rng.choice([0.5, -1e300, 1.7e308, 5e-324, rng.random()])
    if kind == 3:
        return rng.choice([True, False])
    if kind == 4:
        return None
    if kind in (5, 6):
        return [_random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {f"k{i}": _random_json(rng, depth + 1) for i in range(rng.randrange(4))}


def test_the_quick_checks_never_pass_what_the_walk_refuses() -> None:
    rng = random.Random(7)
    bad: list[Any] = [math.nan, math.inf, -math.inf, {1: 2}, {"a": {3}}, "\ud800", b"b"]
    for _ in range(300):
        value = _random_json(rng)
        assert json_checks.is_clean(value)
        assert not json_checks.may_hold_non_finite(value)
        assert json_checks.find_unwritable(value) is None
        for poison in bad:
            spoiled = [copy.deepcopy(value), {"deep": [poison]}]
            assert json_checks.find_unwritable(spoiled) is not None
            assert not json_checks.is_clean(spoiled)
            if isinstance(poison, float):
                assert json_checks.may_hold_non_finite(spoiled)
