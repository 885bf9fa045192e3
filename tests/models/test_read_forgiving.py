"""Facets that break their schema are forgiven in the reading pass itself, never by reading again.

Facets without ``_producer`` or ``_schemaURL`` are common in real events; they, and facets whose
content breaks their schema, are kept under their key as generic facets with exactly the fields
they carried, whether the event comes as text, bytes or a mapping.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from openlineage_sdk import facets as F
from openlineage_sdk import read_event, validate_event
from openlineage_sdk._read import _construct_generic
from openlineage_sdk.models.base import DatasetFacet, OutputDatasetFacet, RunFacet
from tests._spec import event_url

P = "https://example.com/p"
STATS_URL = F.OutputStatisticsOutputDatasetFacet.facet_schema_url
SCHEMA_URL = F.SchemaDatasetFacet.facet_schema_url


def _event() -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": "2024-05-01T12:00:00Z",
        "run": {
            "runId": "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
            "facets": {
                "nominalTime": {"_schemaURL": "x", "nominalStartTime": "2024-05-01T00:00:00Z"},
                "myCo_costs": {"amount": 3},
            },
        },
        "job": {"namespace": "ns", "name": "job"},
        "inputs": [
            {
                "namespace": "s3://b",
                "name": "in",
                "facets": {
                    "schema": {
                        "_schemaURL": SCHEMA_URL,
                        "fields": [{"name": "a", "type": "int", "x-extra": [1, None]}],
                    },
                },
            }
        ],
        "outputs": [
            {
                "namespace": "s3://b",
                "name": "out",
                "outputFacets": {
                    "outputStatistics": {"_producer": P, "rowCount": 3, "size": 1500},
                },
                "facets": {"symlinks": "not an object", "storage": None},
            }
        ],
        "producer": P,
        "schemaURL": event_url("RunEvent"),
    }


def _forbid_second_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    def second(*_: Any) -> Any:
        raise AssertionError("the event was read a second time")

    monkeypatch.setattr("openlineage_sdk._read._read_leniently", second)


@pytest.mark.parametrize("form", ["text", "bytes", "mapping"])
def test_broken_facets_are_kept_generic_in_one_pass(
    form: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _forbid_second_reading(monkeypatch)
    raw = _event()
    text = json.dumps(raw)
    data: Any = {"text": text, "bytes": text.encode(), "mapping": json.loads(text)}[form]
    event = read_event(data)
    assert event.to_dict() == raw
    assert json.loads(event.to_json()) == raw
    if form == "mapping":
        assert data == raw  # the caller's mapping is left as it was

    run = event.run.facets
    assert run is not None
    assert run.nominal_time is None  # no _producer: not a NominalTimeRunFacet
    assert type(run["nominalTime"]) is RunFacet
    assert run["nominalTime"].to_dict() == raw["run"]["facets"]["nominalTime"]
    assert type(run["myCo_costs"]) is RunFacet
    assert set(run.keys()) == {"nominalTime", "myCo_costs"}

    schema = event.inputs[0].facets
    assert schema is not None
    assert schema.schema_ is None
    assert type(schema["schema"]) is DatasetFacet
    assert schema["schema"].to_dict() == raw["inputs"][0]["facets"]["schema"]

    output = event.outputs[0]
    assert output.output_facets is not None
    stats = output.output_facets["outputStatistics"]
    assert type(stats) is OutputDatasetFacet
    assert stats.producer == P
    assert output.output_facets.output_statistics is None
    assert output.facets is not None
    assert output.facets["symlinks"] == "not an object"
    assert output.facets.symlinks is None


def test_validation_still_names_what_the_forgiven_facets_break() -> None:
    rules = {(p.path, p.rule) for p in validate_event(_event())}
    assert ("run.facets.nominalTime._producer", "required") in rules
    assert ("inputs[0].facets.schema._producer", "required") in rules


def test_complete_facets_still_read_into_their_classes() -> None:
    raw = _event()
    raw["outputs"][0]["outputFacets"]["outputStatistics"]["_schemaURL"] = STATS_URL
    stats = read_event(json.dumps(raw)).outputs[0].output_facets
    assert stats is not None
    assert type(stats.output_statistics) is F.OutputStatisticsOutputDatasetFacet


def test_a_facet_breaking_its_content_is_kept_as_given() -> None:
    raw = _event()
    raw["outputs"][0]["outputFacets"]["outputStatistics"] = {
        "_producer": P,
        "_schemaURL": STATS_URL,
        "rowCount": "many",
    }
    event = read_event(json.dumps(raw))
    facets = event.outputs[0].output_facets
    assert facets is not None
    assert facets.output_statistics is None
    assert (
        facets["outputStatistics"].to_dict()
        == raw["outputs"][0]["outputFacets"]["outputStatistics"]
    )
    assert event.to_dict() == raw


def test_reading_in_threads_keeps_each_event_apart() -> None:
    complete = _event()
    complete["run"]["facets"]["nominalTime"]["_producer"] = P
    complete["run"]["facets"]["nominalTime"]["_schemaURL"] = F.NominalTimeRunFacet.facet_schema_url
    texts = [json.dumps(_event()), json.dumps(complete)]
    failures: list[str] = []

    def work(index: int) -> None:
        for _ in range(200):
            event = read_event(texts[index % 2])
            facets = event.run.facets
            assert facets is not None
            typed = facets.nominal_time is not None
            if typed != (index % 2 == 1) or event.to_dict() != json.loads(texts[index % 2]):
                failures.append(f"thread {index}")
                return

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_a_generic_facet_kept_as_given_shows_what_it_carried() -> None:
    facet = _construct_generic(RunFacet, {"_producer": P, "a": 1})
    assert facet.producer == P
    assert facet.to_dict() == {"_producer": P, "a": 1}
