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
import threading
from collections.abc import Mapping
from typing import Any, Final, TypeAlias

from pydantic import ValidationError
from pydantic_core import SchemaValidator, core_schema

from openlineage_sdk import _types
from openlineage_sdk._base import FacetContainer, FacetModel
from openlineage_sdk._errors import (
    OpenLineageValidationError,
    Problem,
    not_an_object,
    problems_from_pydantic,
)
from openlineage_sdk._facet_registry import registry
from openlineage_sdk._json import (
    BIG_EXPONENT,
    BIG_EXPONENT_BYTES,
    too_deep,
    unwritable_problem,
)
from openlineage_sdk._types import READ_CONTEXT
from openlineage_sdk.models.core import DatasetEvent, JobEvent, RunEvent

__all__ = ["Event", "read_event"]

Event: TypeAlias = RunEvent | JobEvent | DatasetEvent
"""Any OpenLineage event."""

_KINDS: Final[Mapping[str, type[Event]]] = {
    "RunEvent": RunEvent,
    "JobEvent": JobEvent,
    "DatasetEvent": DatasetEvent,
}
# The JSON names of the facet containers of runs, jobs and datasets.
_FACET_CONTAINERS: Final = ("facets", "inputFacets", "outputFacets")
# A broken facet is set aside at most once per container key, so a few rounds always suffice;
# the bound only guards against a validator that keeps failing on the same input.
_MAX_ROUNDS: Final = 8


def read_event(data: str | bytes | bytearray | Mapping[str, Any]) -> Event:
    """Read an OpenLineage event (JSON text, bytes, or a parsed mapping) into a typed event.

    The class (``RunEvent``, ``JobEvent`` or ``DatasetEvent``) is chosen by the event's shape
    and its ``schemaURL``, for every published core spec version from 1-0-0 on.

    Raises:
        OpenLineageValidationError: the input is not JSON, not an object, or its core structure
            cannot make an event; the problems name the missing or broken fields. Also when a
            value could not be written back as read (``NaN``, ``Infinity``, text with a lone
            surrogate, arrays and objects nested more than 200 levels deep).
        TypeError: ``data`` is neither text, bytes nor a mapping.
    """
    event = _read(data)
    if len(registry):
        _upgrade_custom_facets(event)
    return event


def _reader(cls: type[Event]) -> _Reader:
    """The validator that reads ``cls`` from JSON entirely in pydantic-core.

    It is the model's own core schema with the checks that only building in code needs taken
    out: string formats become plain strings (reading keeps them as given), numbers are kept as
    the JSON number they are, and no ``model_post_init`` runs (it settles what "set" means for
    objects built in code). Reading a typical event then calls no Python code at all; the
    objects it returns are instances of the same model classes.

    A facet that breaks its schema is forgiven in the same pass, never by reading again:

    * a facet read without ``_producer`` or ``_schemaURL`` (common in real events: older
      producers, hand-written fixtures) reads as its class, the missing field's default factory
      noting it; :func:`_settle` then turns it into the generic facet it must be;
    * any other broken facet falls to the second member of a union (see :func:`_forgiving`),
      which keeps it as given.
    """
    reader = _READERS.get(cls)
    if reader is None:
        with _BUILDING:
            reader = _READERS.get(cls) or _build_reader(cls)
            _READERS[cls] = reader
    return reader


def _build_reader(cls: type[Event]) -> _Reader:
    cls.model_rebuild()
    schema = _for_reading(cls.__pydantic_core_schema__)
    models = _model_classes(schema)
    # pydantic-core reuses the validator a complete model class already has ("prebuilt"), which
    # would bring the building-time checks back; the classes are marked incomplete only while
    # this validator is compiled.
    marked = [m for m in models if m.__dict__.get("__pydantic_complete__")]
    try:
        for model in marked:
            type.__setattr__(model, "__pydantic_complete__", False)
        validator = SchemaValidator(schema)
    finally:
        for model in marked:
            type.__setattr__(model, "__pydantic_complete__", True)
    reader = _Reader(validator)
    if not reader.forgives_formats():
        # A pydantic-core that no longer compiles the schema as given: read with the models'
        # own validators under the reading context instead (slower, same results).
        return _ContextReader(cls)
    return reader


class _Reader:
    """Validates JSON text or parsed data into events with a compiled reading schema."""

    def __init__(self, validator: SchemaValidator) -> None:
        self._validator = validator

    def validate_json(self, data: str | bytes | bytearray) -> Any:
        state = _STATE
        state.reset()
        try:
            event = self._validator.validate_json(data)
            if state.kept or state.absent:
                _settle(event, state)
        finally:
            state.reset()
        return event

    def validate_python(self, data: Any) -> Any:
        state = _STATE
        state.reset()
        try:
            event = self._validator.validate_python(data)
            if state.kept or state.absent:
                _settle(event, state)
        finally:
            state.reset()
        return event

    def forgives_formats(self) -> bool:
        probe = {
            "eventTime": "noon",
            "run": {"runId": "not-a-uuid"},
            "job": {"namespace": "n", "name": "j"},
            "producer": "p",
            "schemaURL": "s",
        }
        try:
            self.validate_python(probe)
        except ValidationError:
            return False
        return True


class _ContextReader(_Reader):
    """Reads with the models' own validators under the reading context."""

    def __init__(self, cls: type[Event]) -> None:
        self._cls = cls

    def validate_json(self, data: str | bytes | bytearray) -> Any:
        return self._cls.model_validate_json(data, context=READ_CONTEXT)

    def validate_python(self, data: Any) -> Any:
        return self._cls.model_validate(data, context=READ_CONTEXT)


def _model_classes(node: Any) -> set[type[Any]]:
    found: set[type[Any]] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.get("type") == "model" and isinstance(item.get("cls"), type):
                found.add(item["cls"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


_READERS: dict[type[Any], _Reader] = {}
_BUILDING = threading.Lock()
_FORMAT_CHECKS: Final = frozenset(
    getattr(_types, name) for name in ("_check_date_time", "_check_uuid", "_check_uri")
)


def _for_reading(node: Any) -> Any:
    if isinstance(node, list):
        return [_for_reading(item) for item in node]
    if not isinstance(node, dict):
        return node
    kind = node.get("type")
    if kind == "function-plain":
        function = node.get("function", {}).get("function")
        if function in _FORMAT_CHECKS:
            return core_schema.str_schema(strict=True)
        if function is _types._check_number:
            return core_schema.union_schema(
                [core_schema.int_schema(strict=True), core_schema.float_schema(strict=True)]
            )
    out = {key: _for_reading(value) for key, value in node.items()}
    config = out.get("config")
    if isinstance(config, dict) and "str_max_length" in config:
        # The length limit only makes building look for lone surrogates; JSON text cannot
        # carry one past the parser, and a mapping is checked as a whole before it is read.
        out["config"] = {k: v for k, v in config.items() if k != "str_max_length"}
    if kind == "model":
        out.pop("post_init", None)
        cls = node.get("cls")
        if isinstance(cls, type) and issubclass(cls, FacetModel):
            fields = out["schema"].get("fields", {})
            for name in ("producer", "schema_url"):
                field = fields.get(name)
                if field is not None and field["schema"].get("type") == "default":
                    # Required by the spec: absent means "set aside", not the SDK's default.
                    absent = core_schema.with_default_schema(
                        field["schema"]["schema"], default_factory=_absent
                    )
                    fields[name] = {**field, "schema": absent}
        elif isinstance(cls, type) and issubclass(cls, FacetContainer):
            _forgiving(out["schema"], cls.generic_facet)
    return out


def _forgiving(fields_schema: dict[str, Any], generic: type[FacetModel]) -> None:
    """Let every facet of a container's ``model-fields`` schema fall back to a generic facet.

    Each facet's schema becomes "its class, or else the facet kept as given" (a left-to-right
    union): a facet that reads is untouched and calls no Python code; one that breaks its schema
    (a field of the wrong type, a facet that is not an object) is kept in the same pass by
    :func:`_keep_as_given`. A facet
    kept under a declared key (``outputStatistics``) is then moved to the container's other
    keys by :func:`_settle`, so the typed attribute only ever holds its own class.
    """

    def keep(raw: Any) -> Any:
        kept = _keep_as_given(generic, raw)
        _STATE.kept.append(kept)
        return kept

    for field in fields_schema.get("fields", {}).values():
        schema = field["schema"]
        if schema.get("type") == "default" and schema["schema"].get("type") == "nullable":
            nullable = schema["schema"]
            nullable["schema"] = core_schema.union_schema(
                [nullable["schema"], core_schema.no_info_plain_validator_function(keep)],
                mode="left_to_right",
            )
    extras = fields_schema.get("extras_schema")
    if extras is not None:
        fields_schema["extras_schema"] = core_schema.union_schema(
            [extras, core_schema.no_info_plain_validator_function(keep)], mode="left_to_right"
        )


def _keep_as_given(generic: type[FacetModel], raw: Any) -> Any:
    """A facet that breaks its schema: a generic facet with exactly its fields (or the value)."""
    return _construct_generic(generic, raw) if isinstance(raw, dict) else raw


class _ReadState(threading.local):
    """What the forgiving members noted during this thread's current read."""

    def __init__(self) -> None:
        self.kept: list[Any] = []  # facets kept as given by a union's second member
        self.absent = False  # some facet was read without _producer or _schemaURL

    def reset(self) -> None:
        self.kept.clear()
        self.absent = False


_STATE: Final = _ReadState()


def _absent() -> None:
    """The default of a facet's ``_producer``/``_schemaURL`` when reading: note the absence."""
    _STATE.absent = True


def _incomplete(facet: Any) -> bool:
    """A facet read without ``_producer`` or ``_schemaURL``."""
    if not isinstance(facet, FacetModel):
        return False
    given = facet.__pydantic_fields_set__
    return "producer" not in given or "schema_url" not in given


def _settle(event: Event, state: _ReadState) -> None:
    """Give every facet that broke its schema the same form, whatever its key.

    The typed attribute stays ``None`` and ``facets[key]`` is a generic facet of the entity
    carrying exactly the fields given: facets kept as given under a declared key move to the
    container's other keys; facets read without ``_producer`` or ``_schemaURL`` become generic.
    """
    kept = {id(facet) for facet in state.kept}  # already in their final form
    absent = state.absent
    for container in _containers(event):
        cls = type(container)
        generic = cls.generic_facet
        extra = container.__pydantic_extra__
        if absent and extra:
            for key, value in extra.items():
                if id(value) not in kept and _incomplete(value):
                    extra[key] = _as_generic(generic, value)
        key_of = _KEY_OF.get(cls)
        if key_of is None:
            key_of = _KEY_OF[cls] = {name: key for key, name in cls.__openlineage_keys__.items()}
        values = container.__dict__
        given = container.__pydantic_fields_set__
        # Only the keys the event carried (an entity's container declares a dozen or more).
        for name in [name for name in given if name in key_of]:
            value = values[name]
            if value is None:
                continue
            if id(value) in kept:
                moved = value
            elif absent and _incomplete(value):
                moved = _as_generic(generic, value)
            else:
                continue
            values[name] = None
            given.discard(name)
            if extra is None:
                extra = container.__pydantic_extra__ = {}
            extra[key_of[name]] = moved


_KEY_OF: dict[type[Any], dict[str, str]] = {}


def _as_generic(generic: type[FacetModel], facet: FacetModel) -> FacetModel:
    """The generic facet a facet read without ``_producer`` or ``_schemaURL`` must be.

    It carries the JSON the facet was read from: the fields given, by JSON name, then its other
    keys. Inside a facet every value is plain JSON (records are dicts, formatted strings stay
    strings, numbers the JSON number they were), so the values read are the values given.
    """
    cls = type(facet)
    aliases = _ALIASES.get(cls)
    if aliases is None:
        aliases = _ALIASES[cls] = {
            name: field.alias or name for name, field in cls.model_fields.items()
        }
    values = facet.__dict__
    given = facet.__pydantic_fields_set__
    raw = {aliases[name]: value for name, value in values.items() if name in given}
    extra = facet.__pydantic_extra__
    if extra:
        raw.update(extra)
    # What _construct_generic does, knowing which of the generic's fields were given.
    template = _GENERIC_SHAPES.get(generic) or _generic_shape(generic)
    own = dict(template[0])
    for name, _alias in template[1]:
        if name in given:
            own[name] = values[name]
    kept: FacetModel = object.__new__(generic)
    _set = object.__setattr__
    _set(kept, "__dict__", own)
    _set(kept, "__pydantic_fields_set__", set())
    _set(kept, "__pydantic_extra__", raw)
    _set(kept, "__pydantic_private__", None)
    return kept


def _read(data: str | bytes | bytearray | Mapping[str, Any]) -> Event:
    if isinstance(data, (str, bytes, bytearray)):
        # Most events are RunEvents; try the single-pass path first and fall back to the
        # careful one only when that fails. The JSON literals NaN and Infinity, and numbers
        # with an exponent of three digits (``1e999`` overflows to infinity), which
        # pydantic-core would read and write back as null, go the careful way at once.
        if isinstance(data, str):
            single_pass = (
                '"run"' in data
                and "NaN" not in data
                and "Infinity" not in data
                and BIG_EXPONENT.search(data) is None
            )
        else:
            single_pass = (
                b'"run"' in data
                and b"NaN" not in data
                and b"Infinity" not in data
                and BIG_EXPONENT_BYTES.search(data) is None
            )
        if single_pass:
            try:
                event: Event = _reader(RunEvent).validate_json(data)
                return event
            except ValidationError:
                pass
        try:
            parsed = json.loads(data)
        except ValueError as exc:
            raise OpenLineageValidationError(
                "not an OpenLineage event", [Problem("", f"not valid JSON ({exc})", "json")]
            ) from None
        except RecursionError:
            raise OpenLineageValidationError("not an OpenLineage event", [too_deep()]) from None
        if not isinstance(parsed, dict):
            raise OpenLineageValidationError(
                "not an OpenLineage event",
                [not_an_object(parsed)],
            )
        return _read_mapping(parsed)
    if isinstance(data, Mapping):
        return _read_mapping(data)
    raise TypeError(f"read_event() takes JSON text, bytes or a mapping, not {type(data).__name__}")


def _containers(event: Event) -> list[FacetContainer]:
    """Every facet container of an event that is present."""
    found: list[FacetContainer | None] = []
    if isinstance(event, RunEvent):
        found.append(event.run.facets)
    if isinstance(event, (RunEvent, JobEvent)):
        found.append(event.job.facets)
        for source in event.inputs or ():
            found += [source.facets, source.input_facets]
        for target in event.outputs or ():
            found += [target.facets, target.output_facets]
    if isinstance(event, DatasetEvent):
        found.append(event.dataset.facets)
    return [container for container in found if container is not None]


def _upgrade_custom_facets(event: Event) -> None:
    """Read registered custom facets into their own classes (they arrive as generic facets)."""
    for container in _containers(event):
        extra = container.__pydantic_extra__
        if not extra:
            continue
        entity = type(container).generic_facet.facet_entity
        assert entity is not None  # the generic facet of a container is an entity's base
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
    # What could not be written back as it was read (NaN, a lone surrogate, a non-text key,
    # nesting deeper than the writer goes) is refused here rather than changed on the way out.
    problem = unwritable_problem(data)
    if problem is not None:
        raise OpenLineageValidationError(f"cannot read {cls.__name__}", [problem])
    try:
        event: Event = _reader(cls).validate_python(data)
        return event
    except ValidationError as exc:
        return _read_leniently(cls, data, exc)


def _facet_location(loc: tuple[int | str, ...]) -> tuple[tuple[int | str, ...], str] | None:
    """Split an error location into (facet container path, facet key), if inside a facet."""
    for index, part in enumerate(loc):
        if part in _FACET_CONTAINERS and index + 1 < len(loc):
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
            # Name what keeps the event from being read: its core errors (facets are forgiven).
            problems = problems_from_pydantic(core_errors or error, model=cls)
            raise OpenLineageValidationError(f"cannot read {cls.__name__}", problems) from None
        try:
            event: Event = _reader(cls).validate_python(working)
        except ValidationError as exc:
            error = exc
            continue
        for (container_path, key), raw in set_aside.items():
            _keep_generic(event, container_path, key, raw)
        return event
    raise OpenLineageValidationError(  # pragma: no cover - see _MAX_ROUNDS
        f"cannot read {cls.__name__}", problems_from_pydantic(error, model=cls) if error else []
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
    container = getattr(owner, _attribute(owner, str(container_path[-1])))
    generic = type(container).generic_facet
    if container.__pydantic_extra__ is None:
        container.__pydantic_extra__ = {}
    # A facet that is not even an object (null, a string) is kept as the value it was.
    container.__pydantic_extra__[key] = (
        _construct_generic(generic, raw) if isinstance(raw, dict) else raw
    )


def _construct_generic(cls: type[Any], raw: dict[str, Any]) -> Any:
    # Every field is kept exactly as given, as an extra field of a generic facet, so writing it
    # back reproduces the input and no value is checked again (it already failed). The declared
    # attributes (producer, schema_url) show the given values where there are any. What
    # model_construct() does, with its per-class work done once: this runs for every facet
    # that breaks its schema, and real events often carry several.
    template, aliases = _GENERIC_SHAPES.get(cls) or _generic_shape(cls)
    values = dict(template)
    for name, alias in aliases:
        if alias in raw:
            values[name] = raw[alias]
    facet = object.__new__(cls)
    _set = object.__setattr__
    _set(facet, "__dict__", values)
    _set(facet, "__pydantic_fields_set__", set())
    _set(facet, "__pydantic_extra__", dict(raw))
    _set(facet, "__pydantic_private__", None)
    return facet


_ALIASES: dict[type[Any], dict[str, str]] = {}
_GENERIC_SHAPES: dict[type[Any], tuple[dict[str, Any], tuple[tuple[str, str], ...]]] = {}


def _generic_shape(cls: type[Any]) -> tuple[dict[str, Any], tuple[tuple[str, str], ...]]:
    """A generic facet class's defaults and ``(field, JSON name)`` pairs, computed once."""
    template = dict(cls.model_construct().__dict__)
    aliases = tuple((name, field.alias or name) for name, field in cls.model_fields.items())
    shape = _GENERIC_SHAPES[cls] = (template, aliases)
    return shape


def _attribute(model: Any, json_name: str) -> str:
    for name, field in type(model).model_fields.items():
        if (field.alias or name) == json_name:
            return str(name)
    return json_name
