"""Reading any real event into typed models, losslessly.

The fast path validates JSON text straight into the models in pydantic-core. Real events break
the schema in small ways, so reading forgives what the spec lets a reader forgive:

* string formats (a run id that is not a UUID, a time without a zone) are kept as given;
* a facet whose content breaks its schema (``rowCount: "abc"``, a missing required field, a
  missing ``_producer``) is kept, under its key, as a generic facet of its entity's base class
  with exactly the fields it carried, and ``validate_event`` reports what is wrong;
* unknown fields and unknown facet keys are kept everywhere.

Only an event whose core structure cannot make an event (a RunEvent without a run id, an event
without a job) is refused, with an error that names the missing field. Writing a read event back
with ``to_dict()``/``to_json()`` gives the same JSON: every key, null, number and string.
"""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import Mapping
from typing import Any, Final, TypeAlias

from pydantic import ValidationError

from openlineage_sdk._errors import OpenLineageValidationError, Problem, problems_from_pydantic
from openlineage_sdk._facet_registry import registry
from openlineage_sdk._types import READ_CONTEXT
from openlineage_sdk.models.base import (
    DatasetFacet,
    InputDatasetFacet,
    JobFacet,
    OutputDatasetFacet,
    RunFacet,
)
from openlineage_sdk.models.core import DatasetEvent, JobEvent, RunEvent

__all__ = ["Event", "read_event"]

Event: TypeAlias = RunEvent | JobEvent | DatasetEvent
"""Any OpenLineage event."""

_GENERIC: Final[Mapping[str, type[Any]]] = {
    "run": RunFacet,
    "job": JobFacet,
    "facets": DatasetFacet,
    "inputFacets": InputDatasetFacet,
    "outputFacets": OutputDatasetFacet,
}
_KINDS: Final[Mapping[str, type[Event]]] = {
    "RunEvent": RunEvent,
    "JobEvent": JobEvent,
    "DatasetEvent": DatasetEvent,
}
# A broken facet is set aside at most once per container key, so a few rounds always suffice;
# the bound only guards against a validator that keeps failing on the same input.
_MAX_ROUNDS: Final = 8


def read_event(data: str | bytes | bytearray | Mapping[str, Any]) -> Event:
    """Read an OpenLineage event (JSON text, bytes, or a parsed mapping) into a typed event.

    The class (``RunEvent``, ``JobEvent`` or ``DatasetEvent``) is chosen by the event's shape
    and its ``schemaURL``, for every core spec version from 1-0-0 to 2-0-2.

    Raises:
        OpenLineageValidationError: the input is not JSON, not an object, or its core structure
            cannot make an event; the problems name the missing or broken fields.
        TypeError: ``data`` is neither text, bytes nor a mapping.
    """
    event = _read(data)
    if len(registry):
        _upgrade_custom_facets(event)
    return event


def _read(data: str | bytes | bytearray | Mapping[str, Any]) -> Event:
    if isinstance(data, (str, bytes, bytearray)):
        # Most events are RunEvents; try the single-pass path first and fall back to the
        # careful one only when that fails.
        if ('"run"' in data) if isinstance(data, str) else (b'"run"' in data):
            try:
                return RunEvent.model_validate_json(data, context=READ_CONTEXT)
            except ValidationError:
                pass
        try:
            parsed = json.loads(data)
        except ValueError as exc:
            raise OpenLineageValidationError(
                "not an OpenLineage event", [Problem("", f"not valid JSON ({exc})", "json")]
            ) from None
        if not isinstance(parsed, dict):
            raise OpenLineageValidationError(
                "not an OpenLineage event",
                [Problem("", f"expected a JSON object, got {type(parsed).__name__}", "type")],
            )
        return _read_mapping(parsed)
    if isinstance(data, Mapping):
        return _read_mapping(data)
    raise TypeError(f"read_event() takes JSON text, bytes or a mapping, not {type(data).__name__}")


def _containers(event: Event) -> list[tuple[str, Any]]:
    """(entity, container) for every facet container of an event that is present."""
    found: list[tuple[str, Any]] = []
    if isinstance(event, RunEvent):
        found.append(("run", event.run.facets))
    if isinstance(event, (RunEvent, JobEvent)):
        found.append(("job", event.job.facets))
        for source in event.inputs or ():
            found += [("dataset", source.facets), ("inputDataset", source.input_facets)]
        for target in event.outputs or ():
            found += [("dataset", target.facets), ("outputDataset", target.output_facets)]
    if isinstance(event, DatasetEvent):
        found.append(("dataset", event.dataset.facets))
    return [(entity, container) for entity, container in found if container is not None]


def _upgrade_custom_facets(event: Event) -> None:
    """Read registered custom facets into their own classes (they arrive as generic facets)."""
    for entity, container in _containers(event):
        extra = container.__pydantic_extra__
        if not extra:
            continue
        for key, facet in extra.items():
            cls = registry.lookup(entity, key)
            if cls is None or isinstance(facet, cls) or not hasattr(facet, "to_dict"):
                continue
            # On failure it stays a generic facet with its fields as given; validate_event says why.
            with contextlib.suppress(ValidationError):
                extra[key] = cls.model_validate(facet.to_dict(), context=READ_CONTEXT)


def event_class(data: Mapping[str, Any]) -> type[Event]:
    """The event class for a parsed event: by its shape first, then by its ``schemaURL``."""
    if "run" in data:
        return RunEvent
    if "job" in data:
        return JobEvent
    if "dataset" in data:
        return DatasetEvent
    url = data.get("schemaURL")
    if isinstance(url, str):
        kind = _KINDS.get(url.rpartition("/")[2])
        if kind is not None:
            return kind
    return RunEvent


def _read_mapping(data: Mapping[str, Any]) -> Event:
    cls = event_class(data)
    try:
        return cls.model_validate(data, context=READ_CONTEXT)
    except ValidationError as exc:
        return _read_leniently(cls, data, exc)


def _facet_location(loc: tuple[int | str, ...]) -> tuple[tuple[int | str, ...], str] | None:
    """Split an error location into (facet container path, facet key), if inside a facet."""
    for index, part in enumerate(loc):
        if part in ("facets", "inputFacets", "outputFacets") and index + 1 < len(loc):
            owner = loc[:index]
            # Only the containers of the event's own run, job and datasets; facets nested in
            # a facet (the parent facet's run facets) are part of that facet.
            if owner in (("run",), ("job",), ("dataset",)) or (
                len(owner) == 2 and owner[0] in ("inputs", "outputs") and isinstance(owner[1], int)
            ):
                key = loc[index + 1]
                if isinstance(key, str):
                    return loc[: index + 1], key
            return None
    return None


def _read_leniently(cls: type[Event], data: Mapping[str, Any], first: ValidationError) -> Event:
    working: dict[str, Any] = copy.deepcopy(dict(data))
    set_aside: dict[tuple[tuple[int | str, ...], str], Any] = {}
    error: ValidationError | None = first
    for _ in range(_MAX_ROUNDS):
        assert error is not None
        core_errors = []
        moved = False
        for detail in error.errors(include_url=False):
            located = _facet_location(tuple(detail["loc"]))
            if located is None:
                core_errors.append(detail)
                continue
            container_path, key = located
            container = _resolve(working, container_path)
            if isinstance(container, dict) and key in container:
                set_aside[(container_path, key)] = container.pop(key)
                moved = True
        if core_errors or not moved:
            problems = problems_from_pydantic(error)
            core = [p for p in problems if not _is_facet_path(p.path)] or problems
            raise OpenLineageValidationError(f"cannot read {cls.__name__}", core) from None
        try:
            event = cls.model_validate(working, context=READ_CONTEXT)
        except ValidationError as exc:
            error = exc
            continue
        for (container_path, key), raw in set_aside.items():
            _keep_generic(event, container_path, key, raw)
        return event
    raise OpenLineageValidationError(  # pragma: no cover - see _MAX_ROUNDS
        f"cannot read {cls.__name__}", problems_from_pydantic(error) if error else []
    )


def _is_facet_path(path: str) -> bool:
    return any(
        f".{name}." in f".{path}" or f".{name}[" in f".{path}"
        for name in _GENERIC
        if name not in ("run", "job")
    )


def _resolve(node: Any, path: tuple[int | str, ...]) -> Any:
    for part in path:
        if isinstance(part, int):
            node = node[part] if isinstance(node, list) and part < len(node) else None
        else:
            node = node.get(part) if isinstance(node, dict) else None
        if node is None:
            return None
    return node


def _keep_generic(event: Event, container_path: tuple[int | str, ...], key: str, raw: Any) -> None:
    owner: Any = event
    for part in container_path[:-1]:
        owner = owner[part] if isinstance(part, int) else getattr(owner, _attribute(owner, part))
    container_name = str(container_path[-1])
    container = getattr(owner, _attribute(owner, container_name))
    generic_kind = (
        container_name
        if container_name != "facets"
        else (
            "run"
            if container_path[:-1] == ("run",)
            else "job"
            if container_path[:-1] == ("job",)
            else "facets"
        )
    )
    generic = _GENERIC[generic_kind]
    if container.__pydantic_extra__ is None:
        container.__pydantic_extra__ = {}
    # A facet that is not even an object (null, a string) is kept as the value it was.
    container.__pydantic_extra__[key] = (
        _construct_generic(generic, raw) if isinstance(raw, dict) else raw
    )


def _construct_generic(cls: type[Any], raw: dict[str, Any]) -> Any:
    # Every field is kept exactly as given, as an extra field of a generic facet, so writing it
    # back reproduces the input and no value is checked again (it already failed). The declared
    # attributes (producer, schema_url) show the given values where there are any.
    facet = cls.model_construct()
    for name, field in cls.model_fields.items():
        if field.alias in raw:
            facet.__dict__[name] = raw[field.alias]
    facet.__pydantic_fields_set__ = set()
    facet.__pydantic_extra__ = dict(raw)
    return facet


def _attribute(model: Any, json_name: str) -> str:
    for name, field in type(model).model_fields.items():
        if (field.alias or name) == json_name:
            return str(name)
    return json_name
