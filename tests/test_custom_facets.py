"""Custom facets in Python: rules at class definition, registration, reading and validation."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from openlineage_sdk import (
    FacetSchemaURL,
    Job,
    JobFacet,
    Run,
    RunEvent,
    RunFacet,
    RunFacets,
    read_event,
    validate_event,
)
from openlineage_sdk._facet_registry import FacetRegistry, registry
from openlineage_sdk.facets import ParentRunFacet

URL = "https://schemas.acme.example/facets/1-0-0/AcmeCostsRunFacet.json#/$defs/AcmeCostsRunFacet"


def test_a_hand_written_facet_follows_the_rules() -> None:
    class AcmeCostsRunFacet(RunFacet, prefix="acme", name="costs"):
        schema_url: FacetSchemaURL = URL
        amount: float

    assert AcmeCostsRunFacet.facet_key == "acme_costs"
    assert AcmeCostsRunFacet.facet_entity == "run"
    assert AcmeCostsRunFacet.facet_schema_url == URL
    facets = RunFacets.of(AcmeCostsRunFacet(amount=2.5))
    assert facets.to_dict()["acme_costs"] == {
        "_producer": facets["acme_costs"].producer,
        "_schemaURL": URL,
        "amount": 2.5,
    }


@pytest.mark.parametrize(
    ("prefix", "name", "url", "expected"),
    [
        ("acme", "cost", URL, "for key 'acme_cost' on a run it is 'AcmeCostRunFacet'"),
        ("ac-me", "costs", URL, "use 'acMe_costs'"),
        ("schema", "costs", URL, "'schema' is a standard facet"),
        ("acme", "costs", URL.replace("1-0-0", "main"), "the $id is immutable"),
        ("acme", "costs", URL.replace("/1-0-0", ""), "the $id is versioned"),
        (
            "acme",
            "costs",
            URL.replace("#/$defs/AcmeCostsRunFacet", "#/$defs/RunFacet"),
            "#/$defs/AcmeCostsRunFacet",
        ),
    ],
)
def test_a_rule_broken_at_class_definition_is_a_type_error(
    prefix: str, name: str, url: str, expected: str
) -> None:
    with pytest.raises(TypeError) as caught:

        class AcmeCostsRunFacet(RunFacet, prefix=prefix, name=name):
            schema_url: FacetSchemaURL = url

    assert expected in str(caught.value)


def test_a_custom_facet_needs_a_pinned_schema_url() -> None:
    with pytest.raises(TypeError, match=r"no pinned schema URL.*#/\$defs/AcmeCostsRunFacet"):

        class AcmeCostsRunFacet(RunFacet, prefix="acme", name="costs"):
            amount: float


def test_prefix_and_name_go_together() -> None:
    with pytest.raises(TypeError, match="declare both prefix= and name="):

        class AcmeCostsRunFacet(RunFacet, prefix="acme"):
            schema_url: FacetSchemaURL = URL


def test_registration_refuses_standard_and_taken_keys() -> None:
    class AcmeCostsRunFacet(RunFacet, prefix="acme", name="costs"):
        schema_url: FacetSchemaURL = URL

    class AcmeCostsJobFacet(JobFacet, prefix="acme", name="costs"):
        schema_url: FacetSchemaURL = URL.replace("RunFacet", "JobFacet")

    local = FacetRegistry()
    local.register(AcmeCostsRunFacet, AcmeCostsJobFacet)  # same key, two entities: fine
    assert local.lookup("run", "acme_costs") is AcmeCostsRunFacet
    assert local.lookup("job", "acme_costs") is AcmeCostsJobFacet
    local.register(AcmeCostsRunFacet)  # registering the same class again changes nothing

    first = AcmeCostsRunFacet

    class AcmeCostsRunFacet(RunFacet, prefix="acme", name="costs"):  # another class, same key
        schema_url: FacetSchemaURL = URL

    assert AcmeCostsRunFacet is not first
    with pytest.raises(TypeError, match="'acme_costs' on a run is already registered"):
        local.register(AcmeCostsRunFacet)
    with pytest.raises(TypeError, match="no facet key"):
        local.register(RunFacet)
    with pytest.raises(TypeError, match="'parent' is a standard facet key"):
        local.register(ParentRunFacet)


def test_installed_plugin_facets_are_read_into_their_classes() -> None:
    # examples/myco-facets is installed in the test environment; its entry point registers it.
    from myco_facets import MyCoCostsRunFacet

    registry.load_entry_points()
    assert registry.lookup("run", "myCo_costs") is MyCoCostsRunFacet
    event = _event({"myCo_costs": _costs()})
    read = read_event(json.dumps(event))
    assert isinstance(read, RunEvent)
    assert read.run.facets is not None
    facet = read.run.facets["myCo_costs"]
    assert isinstance(facet, MyCoCostsRunFacet)
    assert facet.amount == 12
    assert read.to_dict() == event


def test_a_broken_custom_facet_stays_generic_and_validation_names_its_rule() -> None:
    bad = _costs()
    bad["currency"] = "YEN"
    event = _event({"myCo_costs": bad})
    read = read_event(event)
    assert isinstance(read, RunEvent)
    assert read.run.facets is not None
    assert type(read.run.facets["myCo_costs"]) is RunFacet
    assert read.to_dict() == event
    problems = validate_event(event)
    assert [str(p) for p in problems] == [
        "run.facets.myCo_costs.currency: expected one of 'EUR', 'USD', 'GBP', got 'YEN'"
    ]
    # Without strict mode only the base facet is checked.
    assert validate_event(event, strict=False) == []


def _costs() -> dict[str, Any]:
    return {
        "_producer": "https://github.com/myco/pipelines",
        "_schemaURL": "https://schemas.myco.example/openlineage/facets/1-0-0/MyCoCostsRunFacet.json#/$defs/MyCoCostsRunFacet",
        "amount": 12,
        "currency": "EUR",
    }


def _event(facets: dict[str, Any]) -> dict[str, Any]:
    event = RunEvent(
        event_type="COMPLETE",
        event_time="2024-05-01T00:00:00Z",
        run=Run(run_id="0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"),
        job=Job(namespace="ns", name="job"),
    ).to_dict()
    event["run"]["facets"] = copy.deepcopy(facets)
    return event
