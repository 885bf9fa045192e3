"""The spec's own facet examples validate, and read into their typed facet classes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import (
    DatasetFacets,
    InputDatasetFacets,
    JobFacets,
    OutputDatasetFacets,
    RunFacets,
    read_event,
    validate_event,
)
from openlineage_sdk._validate import _validator
from tests._spec import event_url
from tests.conftest import CONFORMANCE, SPEC

EXAMPLES = sorted((SPEC / "tests").glob("*/*.json")) + sorted(
    (CONFORMANCE / "facets").glob("*/*.json")
)
CONTAINERS = (RunFacets, JobFacets, DatasetFacets, InputDatasetFacets, OutputDatasetFacets)


def _id(path: Path) -> str:
    return f"{path.parent.parent.name}/{path.parent.name}/{path.name}"


def test_examples_cover_every_facet_schema_with_examples() -> None:
    assert len(EXAMPLES) > 60
    assert {p.parent.name for p in EXAMPLES} >= {
        "ParentRunFacet",
        "SchemaDatasetFacet",
        "LineageFacet",
    }


@pytest.mark.parametrize("path", EXAMPLES, ids=[_id(p) for p in EXAMPLES])
def test_example_validates_against_its_facet_schema(path: Path) -> None:
    document = json.loads(path.read_text())
    schema_id = json.loads((SPEC / "facets" / f"{path.parent.name}.json").read_text())["$id"]
    errors = list(_validator(schema_id, False).iter_errors(document))
    assert errors == []


RUN_ID = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
# Where a container sits in an event, by entity: its JSON path, and how to reach it when read.
PLACES: dict[str, tuple[tuple[str | int, ...], Callable[[Any], Any]]] = {
    "run": (("run", "facets"), lambda e: e.run.facets),
    "job": (("job", "facets"), lambda e: e.job.facets),
    "dataset": (("inputs", 0, "facets"), lambda e: e.inputs[0].facets),
    "inputDataset": (("inputs", 0, "inputFacets"), lambda e: e.inputs[0].input_facets),
    "outputDataset": (("outputs", 0, "outputFacets"), lambda e: e.outputs[0].output_facets),
}


def _event_carrying(entity: str, facets: dict[str, Any]) -> dict[str, Any]:
    event: dict[str, Any] = {
        "eventType": "COMPLETE",
        "eventTime": "2024-05-01T12:00:00Z",
        "run": {"runId": RUN_ID},
        "job": {"namespace": "ns", "name": "job"},
        "inputs": [{"namespace": "ns", "name": "in"}],
        "outputs": [{"namespace": "ns", "name": "out"}],
        "producer": "https://example.com/p",
        "schemaURL": event_url("RunEvent"),
    }
    path, _ = PLACES[entity]
    owner: Any = event
    for part in path[:-1]:
        owner = owner[part]
    owner[path[-1]] = facets
    return event


@pytest.mark.parametrize("path", EXAMPLES, ids=[_id(p) for p in EXAMPLES])
def test_example_reads_into_a_typed_facet_and_back(path: Path) -> None:
    document: dict[str, Any] = json.loads(path.read_text())
    ((key, raw),) = document.items()
    typed = []
    for container in CONTAINERS:
        if key not in container.__openlineage_keys__:
            continue
        entity = container.generic_facet.facet_entity
        event = read_event(json.dumps(_event_carrying(entity, document)))
        facet = PLACES[entity][1](event)[key]
        assert facet.to_dict() == raw
        # A facet that breaks the schema of this entity's class is kept as a generic facet.
        if type(facet) is not container.generic_facet:
            typed.append(type(facet))
    assert typed, f"no container reads {key!r} into a typed facet"
    assert all(cls.facet_key == key for cls in typed)


def test_an_event_carrying_example_facets_validates_strictly() -> None:
    parent = json.loads((SPEC / "tests/ParentRunFacet/1.json").read_text())
    event = {
        "eventType": "START",
        "eventTime": "2024-05-01T12:00:00Z",
        "run": {"runId": "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "facets": parent},
        "job": {"namespace": "ns", "name": "job"},
        "producer": "https://example.com/p",
        "schemaURL": event_url("RunEvent"),
    }
    assert validate_event(event) == []
