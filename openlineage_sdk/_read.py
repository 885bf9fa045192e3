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
from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar, Final, TypeAlias

from pydantic import ValidationError
from pydantic_core import PydanticCustomError, SchemaValidator, core_schema

from openlineage_sdk import _freeform_checks, _types
from openlineage_sdk._base import FacetContainer, FacetModel
from openlineage_sdk._errors import (
    OpenLineageValidationError,
    Problem,
    not_an_object,
    problems_from_pydantic,
)
from openlineage_sdk._facet_registry import registry
from openlineage_sdk._json import (
    MAX_DEPTH,
    is_clean,
    may_hold_non_finite,
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
    and its ``schemaURL``, for every published core spec version from 1-0-0 on. Facets of
    installed plugin packages (or registered with :func:`register_facets`) are read into their
    classes; unknown facets and extra fields are kept as given.

    Args:
        data: the event as JSON text, UTF-8 bytes, or an already parsed mapping.

    Returns:
        The typed event; ``to_json()`` writes back the same JSON value (every key, null,
        number, timestamp, unknown facet and extra field).

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

    What could not be written back as read is refused in the same pass, and costs nothing
    where it cannot be: types, finite numbers, text keys and (for parsed data) lone surrogates
    are pydantic-core's own checks; only values the schema leaves open (extra fields, values
    typed ``Any``, a record's keys of its own) call a quick check (see :func:`_value_checks`).
    When the pass fails, :func:`_read_mapping` walks the document to say where.
    """
    reader = _READERS.get(cls)
    if reader is None:
        with _BUILDING:
            reader = _READERS.get(cls) or _build_reader(cls)
            _READERS[cls] = reader
    return reader


def _build_reader(cls: type[Event]) -> _Reader:
    cls.model_rebuild()
    reader = _Reader(cls)
    if not reader.forgives_formats():
        # A pydantic-core that no longer compiles the schema as given: read with the models'
        # own validators under the reading context instead (slower, same results).
        return _ContextReader(cls)
    return reader


def _compile(cls: type[Event], *, text: bool) -> SchemaValidator:
    """The reading validator of ``cls`` for JSON text (``text``) or for parsed data."""
    schema = _for_reading(cls.__pydantic_core_schema__, text=text)
    if not text:
        _guard_recursion(schema)
    models = _model_classes(schema)
    # pydantic-core reuses the validator a complete model class already has ("prebuilt"), which
    # would bring the building-time checks back; the classes are marked incomplete only while
    # this validator is compiled.
    marked = [m for m in models if m.__dict__.get("__pydantic_complete__")]
    try:
        for model in marked:
            type.__setattr__(model, "__pydantic_complete__", False)
        return SchemaValidator(schema)
    finally:
        for model in marked:
            type.__setattr__(model, "__pydantic_complete__", True)


class _Reader:
    """Validates JSON text or parsed data into events with compiled reading schemas.

    Text and parsed data have a validator each, compiled on first use: what a JSON parser has
    read needs fewer checks than what a caller built (see :func:`_value_checks`).
    """

    #: The validators refuse what could not be written back as read (see :func:`_read_mapping`).
    checks_values: ClassVar[bool] = True

    def __init__(self, cls: type[Event]) -> None:
        self._cls = cls
        self._python = _compile(cls, text=False)
        self._text: SchemaValidator | None = None

    def validate_json(self, data: str | bytes | bytearray) -> Any:
        validator = self._text
        if validator is None:
            with _BUILDING:
                validator = self._text or _compile(self._cls, text=True)
                self._text = validator
        return _finish(validator.validate_json, data)

    def validate_python(self, data: Any) -> Any:
        return _finish(self._python.validate_python, data)

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


def _finish(validate: Callable[[Any], Any], data: Any) -> Any:
    """Validate, then settle the facets the pass set aside (see :func:`_settle`).

    The thread's read state is clean before every pass, as every pass leaves it, so it is
    looked at (and cleared) only when something was noted: nothing else runs on a clean event.
    """
    state = _STATE
    try:
        event = validate(data)
    except BaseException:
        state.reset()
        raise
    if state.kept or state.absent:
        try:
            _settle(event, state)
        finally:
            state.reset()
    return event


class _ContextReader(_Reader):
    """Reads with the models' own validators under the reading context."""

    # They do not look inside extra fields when reading: the document is walked first.
    checks_values: ClassVar[bool] = False

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


# Keys of a core schema whose values take no part in validating (writing, documentation).
_NOT_VALIDATING: Final = frozenset({"serialization", "metadata", "json_schema_input_schema"})


def _for_reading(node: Any, *, text: bool) -> Any:
    """The reading form of a model's core schema, for JSON text (``text``) or parsed data."""
    if isinstance(node, list):
        return [_for_reading(item, text=text) for item in node]
    if not isinstance(node, dict):
        return node
    kind = node.get("type")
    if kind == "any":
        return core_schema.no_info_plain_validator_function(_value_check(text))
    if kind == "function-plain":
        function = node.get("function", {}).get("function")
        if function in _FORMAT_CHECKS:
            return core_schema.str_schema(strict=True)
        if function is _types._check_number:
            return core_schema.union_schema(
                [core_schema.int_schema(strict=True), core_schema.float_schema(strict=True)]
            )
        if function is _freeform_checks._json_value:  # a record's keys of its own
            return core_schema.no_info_plain_validator_function(_value_check(text))
    out = {
        key: value if key in _NOT_VALIDATING else _for_reading(value, text=text)
        for key, value in node.items()
    }
    config = out.get("config")
    if text and isinstance(config, dict) and "str_max_length" in config:
        # The length limit only makes pydantic-core look for lone surrogates, which JSON text
        # cannot carry past the parser; in parsed data it is how they are found.
        out["config"] = {k: v for k, v in config.items() if k != "str_max_length"}
    if kind == "typed-dict" and _allows_extras(out) and "extras_schema" not in out:
        out["extras_schema"] = core_schema.no_info_plain_validator_function(_value_check(text))
    if kind == "model":
        out.pop("post_init", None)
        fields_schema = out["schema"]
        if (
            fields_schema.get("type") == "model-fields"
            and "extras_schema" not in fields_schema
            and _allows_extras(fields_schema, out.get("config"))
        ):
            fields_schema["extras_schema"] = core_schema.no_info_plain_validator_function(
                _value_check(text)
            )
        cls = node.get("cls")
        if isinstance(cls, type) and issubclass(cls, FacetModel):
            fields = fields_schema.get("fields", {})
            for name in ("producer", "schema_url"):
                field = fields.get(name)
                if field is not None and field["schema"].get("type") == "default":
                    # Required by the spec: absent means "set aside", not the SDK's default.
                    absent = core_schema.with_default_schema(
                        field["schema"]["schema"], default_factory=_absent
                    )
                    fields[name] = {**field, "schema": absent}
        elif isinstance(cls, type) and issubclass(cls, FacetContainer):
            _forgiving(fields_schema, cls.generic_facet, text=text)
    return out


def _allows_extras(node: dict[str, Any], config: Any = None) -> bool:
    behavior = node.get("extra_behavior")
    if behavior is None:
        config = node.get("config", config)
        behavior = config.get("extra_fields_behavior") if isinstance(config, dict) else None
    return bool(behavior == "allow")


# --- values the schema leaves open ------------------------------------------------------------

#: How deep a value the schema leaves open (an extra field, a value typed ``Any``) may be nested
#: for the quick check of parsed data to pass it; deeper ones take the careful way.
_OPEN_LEVELS: Final = 64


def _unwritable() -> PydanticCustomError:
    # Only ends the compiled pass: the document is then walked to say what is wrong, and where.
    return PydanticCustomError("openlineage_json", "cannot be written as given")


def _text_value(value: Any) -> Any:
    """A value the schema leaves open, read from JSON text.

    The parser has refused lone surrogates and deep nesting, and keys are text: only NaN and
    the infinities (the literals, and numbers too large for a float) are left to find.
    """
    if may_hold_non_finite(value):
        raise _unwritable()
    return value


def _python_value(value: Any) -> Any:
    """A value the schema leaves open, in parsed data: anything may be in it."""
    if is_clean(value, _OPEN_LEVELS) or _STATE.unchecked:
        return value
    raise _unwritable()


def _value_check(text: bool) -> Callable[[Any], Any]:
    """The check of the values a schema leaves open (see :func:`_reader`)."""
    return _text_value if text else _python_value


def _guard_recursion(schema: dict[str, Any]) -> None:
    """Make the parsed-data schema refuse nesting that might go deeper than :data:`MAX_DEPTH`.

    JSON text cannot: its parser stops at about 200 levels. Parsed data can, through the
    records that hold themselves (a schema field's fields) and through open values. Each open
    value is passed only when it is at most :data:`_OPEN_LEVELS` deep, and each way back into a
    record that holds itself counts a level while it is validated; as long as the levels stay
    under the bound computed here, no path can reach :data:`MAX_DEPTH`. Beyond it the compiled
    pass fails and the document is walked, which says exactly. Real events never get there.
    """
    nodes = _definitions(schema)
    cycles = _cycle_edges(nodes)
    static = _static_depth(schema, nodes, cycles)
    # Every path: at most ``static`` levels to the first record holding itself, at most
    # ``static`` more for each level of it, and an open value at the end.
    allowed = (MAX_DEPTH - _OPEN_LEVELS) // max(static, 1) - 1
    guard = _recursion_guard(allowed)
    for node in [node for node in _walk(schema) if id(node) in cycles]:
        inner = dict(node)
        node.clear()
        node.update(core_schema.no_info_wrap_validator_function(guard, inner))


def _walk(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every schema node taking part in validation, each once."""
    stack = [node]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if id(item) not in seen:
            seen.add(id(item))
            yield item
            stack.extend(_children(item))


def _children(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The schema nodes right below ``node`` (a model's fields are named: their schemas)."""
    for key, value in node.items():
        if key in _NOT_VALIDATING:
            continue
        if key == "fields" and isinstance(value, dict):
            yield from (field for field in value.values() if isinstance(field, dict))
        elif isinstance(value, list):
            yield from (item for item in value if isinstance(item, dict))
        elif isinstance(value, dict):
            yield value


def _definitions(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every node that names itself (``ref``), by its name."""
    return {node["ref"]: node for node in _walk(schema) if isinstance(node.get("ref"), str)}


def _refs_below(
    node: dict[str, Any], top: bool = True
) -> Iterator[tuple[str, dict[str, Any] | None]]:
    """The definitions a definition's body leads to: (name, the definition-ref node or None)."""
    for child in _children(node):
        if child.get("type") == "definition-ref":
            yield child["schema_ref"], child
        elif isinstance(child.get("ref"), str):
            yield child["ref"], None  # a definition written in place
        elif child.get("type") != "definitions":
            yield from _refs_below(child, False)


def _cycle_edges(nodes: dict[str, dict[str, Any]]) -> set[int]:
    """The definition-ref nodes that lead back into a definition they are part of."""
    edges = {name: list(_refs_below(node)) for name, node in nodes.items()}
    # Tarjan's strongly connected components, without recursion.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    component: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            name, position = work.pop()
            if position == 0:
                index[name] = low[name] = counter
                counter += 1
                stack.append(name)
                on_stack.add(name)
            targets = edges.get(name, [])
            if position < len(targets):
                work.append((name, position + 1))
                target = targets[position][0]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[name] = min(low[name], index[target])
                continue
            for target, _ in targets:
                if target in on_stack:
                    low[name] = min(low[name], low[target])
            if low[name] == index[name]:
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component[member] = index[name]
                    if member == name:
                        break
    return {
        id(ref)
        for name, targets in edges.items()
        for target, ref in targets
        if ref is not None and component.get(target) == component.get(name)
    }


# The schema nodes that are a level of JSON nesting (an object or an array).
_CONTAINERS: Final = frozenset(
    {"model-fields", "typed-dict", "dict", "list", "tuple", "set", "frozenset", "dataclass-args"}
)


def _static_depth(
    schema: dict[str, Any], nodes: dict[str, dict[str, Any]], cycles: set[int]
) -> int:
    """The most levels of nesting on any path through the schema, not going round a cycle."""
    memo: dict[str, int] = {}

    def depth(node: dict[str, Any], visiting: frozenset[str]) -> int:
        if node.get("type") == "definition-ref":
            name = node["schema_ref"]
            if id(node) in cycles or name in visiting or name not in nodes:
                return 0
            if name not in memo:
                memo[name] = depth(nodes[name], visiting | {name})
            return memo[name]
        below = max((depth(child, visiting) for child in _children(node)), default=0)
        kind = node.get("type")
        return below + (1 if isinstance(kind, str) and kind in _CONTAINERS else 0)

    return depth(schema, frozenset())


def _recursion_guard(allowed: int) -> Callable[[Any, Any], Any]:
    def guard(value: Any, handler: Any) -> Any:
        state = _STATE
        if state.levels >= allowed and not state.unchecked:
            raise PydanticCustomError("openlineage_depth", "nested too deeply to be read quickly")
        state.levels += 1
        try:
            return handler(value)
        finally:
            state.levels -= 1

    return guard


def _forgiving(fields_schema: dict[str, Any], generic: type[FacetModel], *, text: bool) -> None:
    """Let every facet of a container's ``model-fields`` schema fall back to a generic facet.

    Each facet's schema becomes "its class, or else the facet kept as given" (a left-to-right
    union): a facet that reads is untouched and calls no Python code; one that breaks its schema
    (a field of the wrong type, a facet that is not an object) is kept in the same pass by
    :func:`_keep_as_given`. A facet
    kept under a declared key (``outputStatistics``) is then moved to the container's other
    keys by :func:`_settle`, so the typed attribute only ever holds its own class.

    A facet kept as given is a value the schema leaves open: it gets the same check.
    """
    check = _value_check(text)

    def keep(raw: Any) -> Any:
        kept = _keep_as_given(generic, check(raw))
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
        self.levels = 0  # records holding themselves being validated, one in another
        # The document was walked and found writable: the compiled checks pass everything.
        self.unchecked = False

    def reset(self) -> None:
        self.kept.clear()
        self.absent = False
        self.levels = 0


_STATE: Final = _ReadState()


@contextlib.contextmanager
def _unchecked() -> Iterator[None]:
    """Read a document already walked and found writable, without the compiled checks."""
    state = _STATE
    before = state.unchecked
    state.unchecked = True
    try:
        yield
    finally:
        state.unchecked = before


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
        # Most events are RunEvents: read them in one compiled pass, which also refuses what
        # could not be written back as read. Only when it fails is the text parsed and walked,
        # to say what is wrong and where (or to read a JobEvent or DatasetEvent).
        if '"run"' in data if isinstance(data, str) else b'"run"' in data:
            reader = _reader(RunEvent)
            if reader.checks_values:
                try:
                    event: Event = reader.validate_json(data)
                    return event
                except ValidationError:
                    fast = False
            else:
                fast = False
        else:
            fast = True
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
        return _read_mapping(parsed, fast=fast)
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


def _read_mapping(data: Mapping[str, Any], *, fast: bool = True) -> Event:
    """Read parsed data: in one compiled pass, or (``fast`` False, or when it fails) carefully.

    The compiled pass refuses what could not be written back as read (NaN, a lone surrogate, a
    key that is not text, nesting deeper than the writer goes) without saying where. The careful
    way walks the document first, and refuses with the path and the rule.
    """
    cls = event_class(data)
    reader = _reader(cls)
    if fast and reader.checks_values:
        try:
            event: Event = reader.validate_python(data)
            return event
        except ValidationError:
            pass
    problem = unwritable_problem(data)
    if problem is not None:
        raise OpenLineageValidationError(f"cannot read {cls.__name__}", [problem])
    with _unchecked():
        try:
            event = reader.validate_python(data)
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
