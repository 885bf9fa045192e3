"""Events of every vendored core spec version read and validate, each against its own schema."""

from __future__ import annotations

from typing import Any

import pytest

from openlineage_sdk import (
    DatasetEvent,
    JobEvent,
    OpenLineageValidationError,
    RunEvent,
    read_event,
    validate_event,
)
from openlineage_sdk._validate import bundled_core_versions
from tests._spec import CORE_VERSIONS, event_url

VERSIONS = list(CORE_VERSIONS)
# Job and dataset events exist from 2-0-0 on.
VERSIONS_2 = [v for v in VERSIONS if not v.startswith("1-")]


def _run_event(url: str) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": "2024-05-01T12:00:00.000Z",
        "run": {"runId": "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"},
        "job": {"namespace": "ns", "name": "job"},
        "inputs": [{"namespace": "s3://b", "name": "in"}],
        "outputs": [],
        "producer": "https://example.com/producer",
        "schemaURL": url,
    }


def test_every_published_core_version_is_bundled() -> None:
    assert bundled_core_versions() == tuple(VERSIONS)


def test_events_built_in_code_name_the_newest_version() -> None:
    event = RunEvent(
        eventType="START",
        eventTime="2024-05-01T12:00:00Z",
        run={"runId": "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"},
        job={"namespace": "ns", "name": "job"},
    )
    assert event.schema_url == event_url("RunEvent", VERSIONS[-1])
    assert validate_event(event.to_dict()) == []


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("container", ["definitions", "$defs"])
def test_run_events_of_every_version(version: str, container: str) -> None:
    event = _run_event(
        f"https://openlineage.io/spec/{version}/OpenLineage.json#/{container}/RunEvent"
    )
    read = read_event(event)
    assert isinstance(read, RunEvent)
    assert read.to_dict() == event
    assert validate_event(event) == []


@pytest.mark.parametrize("version", VERSIONS_2)
def test_job_and_dataset_events_of_the_2_x_line(version: str) -> None:
    base = {"eventTime": "2024-05-01T12:00:00Z", "producer": "https://example.com/p"}
    job = {
        **base,
        "job": {"namespace": "ns", "name": "job"},
        "schemaURL": f"https://openlineage.io/spec/{version}/OpenLineage.json#/$defs/JobEvent",
    }
    dataset = {
        **base,
        "dataset": {"namespace": "ns", "name": "ds"},
        "schemaURL": f"https://openlineage.io/spec/{version}/OpenLineage.json#/$defs/DatasetEvent",
    }
    assert isinstance(read_event(job), JobEvent)
    assert isinstance(read_event(dataset), DatasetEvent)
    assert validate_event(job) == []
    assert validate_event(dataset) == []


def test_a_version_without_job_events_says_so() -> None:
    event = {
        "eventTime": "2024-05-01T12:00:00Z",
        "producer": "https://example.com/p",
        "job": {"namespace": "ns", "name": "job"},
        "schemaURL": "https://openlineage.io/spec/1-0-5/OpenLineage.json#/$defs/JobEvent",
    }
    assert isinstance(read_event(event), JobEvent)
    problems = validate_event(event)
    assert problems[0].rule == "schemaURL"
    assert str(problems[0]) == "schemaURL: core schema 1-0-5 defines no JobEvent"


def test_shape_decides_when_the_url_names_another_kind() -> None:
    event = _run_event(event_url("JobEvent"))
    assert isinstance(read_event(event), RunEvent)  # it has a run: it can only be a RunEvent


def test_formats_are_checked_unless_turned_off() -> None:
    event = _run_event(event_url("RunEvent"))
    event["run"]["runId"] = "not-a-uuid"
    event["eventTime"] = "2024-05-01T12:00:00"
    assert validate_event(event, formats=False) == []
    assert {str(p) for p in validate_event(event)} == {
        "run.runId: expected a UUID, got 'not-a-uuid'",
        "eventTime: expected an RFC 3339 date-time with a time zone, got '2024-05-01T12:00:00'",
    }
    read = read_event(event)  # reading forgives formats and keeps them as given
    assert read.to_dict() == event


def test_validation_checks_formats_as_building_does() -> None:
    # A date that is not on the calendar matches the date-time pattern; both refuse it.
    event = _run_event(event_url("RunEvent"))
    event["eventTime"] = "2023-02-29T12:00:00Z"
    expected = (
        "eventTime: expected an RFC 3339 date-time with a time zone, got '2023-02-29T12:00:00Z'"
    )
    assert [str(p) for p in validate_event(event, formats=True)] == [expected]
    with pytest.raises(OpenLineageValidationError, match="expected an RFC 3339 date-time"):
        RunEvent(**event)
