"""The spec's own facet examples validate, and read into their typed facet classes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import (
    DatasetFacets,
    InputDatasetFacets,
    JobFacets,
    OutputDatasetFacets,
    RunFacets,
    validate_event,
)
from openlineage_sdk._types import READ_CONTEXT
from openlineage_sdk._validate import _validator
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


@pytest.mark.parametrize("path", EXAMPLES, ids=[_id(p) for p in EXAMPLES])
def test_example_reads_into_a_typed_facet_and_back(path: Path) -> None:
    document: dict[str, Any] = json.loads(path.read_text())
    ((key, raw),) = document.items()
    typed = []
    for container in CONTAINERS:
        if key not in container.__openlineage_keys__:
            continue
        try:
            facets = container.model_validate(document, context=READ_CONTEXT)
        except ValueError:
            continue
        facet = facets[key]
        assert facet.to_dict() == raw
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
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }
    assert validate_event(event) == []
