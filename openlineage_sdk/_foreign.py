"""Events this package did not build: the official client's event objects, and JSON objects.

``OpenLineage.emit`` takes them besides its own events, read through
:func:`~openlineage_sdk.read_event`, so that an event the official ``openlineage-python`` client
sends is sent here too:

* The official client's events (``openlineage.client.event_v2`` and the older
  ``openlineage.client.run``, with their facets, user-made facet classes and
  ``with_additional_properties`` included) are ``attrs`` classes. They are recognised by their
  shape, the ``__attrs_attrs__`` every attrs class carries and an ``eventTime`` field, without
  importing that package, which this one never depends on. They are written as the official
  client's ``Serde`` writes them: every field under its own name (``_producer``, ``_schemaURL``),
  ``None`` left out, enumerations as their values, dates in ISO 8601, UUIDs as text, and in
  arrays ``null`` and empty objects left out.
* Any mapping is read as the event's JSON object.

Where ``Serde`` would write a placeholder text for a value JSON has no form for (an arbitrary
object, bytes, a ``Decimal``), this module refuses the event instead, naming the field: nothing
is silently changed.
"""

from __future__ import annotations

import datetime
import enum
import numbers
import uuid
from collections.abc import Mapping
from typing import Any, ClassVar, Protocol

from openlineage_sdk._errors import OpenLineageValidationError, Problem, format_path
from openlineage_sdk._json import MAX_DEPTH, too_deep
from openlineage_sdk._read import Event, read_event

__all__ = ["OfficialEvent", "UnsupportedEventError", "adopt_event", "is_official_event"]


class OfficialEvent(Protocol):
    """An event of the official client: an instance of an ``attrs`` class (see the module)."""

    __attrs_attrs__: ClassVar[Any]


class UnsupportedEventError(TypeError):
    """A value given as an event is none of the kinds of event this package takes.

    Those are: this package's ``RunEvent``, ``JobEvent`` and ``DatasetEvent`` (or any object
    with a ``to_json()`` method), the official client's event objects, and mappings (an
    event's JSON object). The message names the parameter and the type that was given.
    """


def is_official_event(value: object) -> bool:
    """Whether ``value`` has the shape of an official client's event.

    Args:
        value: anything.

    Returns:
        True for an instance of an ``attrs`` class with an ``eventTime`` field.
    """
    fields = getattr(type(value), "__attrs_attrs__", None)
    return fields is not None and any(field.name == "eventTime" for field in fields)


def adopt_event(value: object, parameter: str = "event") -> Event:
    """This package's event for an official client's event object or a mapping.

    Args:
        value: an official client's ``RunEvent``, ``JobEvent`` or ``DatasetEvent`` (v2 or the
            older ``openlineage.client.run``), or an event's JSON object as a mapping.
        parameter: the name the caller's parameter has, for the error.

    Returns:
        The event, read by :func:`~openlineage_sdk.read_event` (so it is kept as given, unknown
        facets and fields included).

    Raises:
        UnsupportedEventError: ``value`` is neither.
        OpenLineageValidationError: a value inside the event has no JSON form (its path and
            type are named), or the event's core structure cannot make an event.
    """
    if isinstance(value, Mapping):
        return read_event(value)
    if is_official_event(value):
        return read_event(_plain(value, (), 1))
    kind = type(value)
    raise UnsupportedEventError(
        f"{parameter}: expected a RunEvent, JobEvent or DatasetEvent (this package's or the "
        "official openlineage-python client's) or an event's JSON object as a mapping, got "
        f"{_name(kind)}"
    )


def official_event_data(event: OfficialEvent) -> dict[str, Any]:
    """The JSON object of an official client's event, as its ``Serde.to_dict`` makes it.

    Args:
        event: an official client's event object.

    Returns:
        The event's JSON object.

    Raises:
        OpenLineageValidationError: a value has no JSON form; the problem names its path.
    """
    data = _plain(event, (), 1)
    assert isinstance(data, dict)  # an attrs instance becomes an object
    return data


def _name(kind: type) -> str:
    module = kind.__module__
    return kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"


def _refuse(path: tuple[str | int, ...], message: str) -> OpenLineageValidationError:
    return OpenLineageValidationError(
        "cannot read the official client's event", [Problem(format_path(path), message, "type")]
    )


def _key(key: object, path: tuple[str | int, ...]) -> str:
    # As json.dumps writes the keys of an object: text as it is, numbers, booleans and None
    # spelt as JSON spells them.
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, (int, float)):
        return repr(float(key)) if isinstance(key, float) else str(int(key))
    raise _refuse(path, f"a key of type {_name(type(key))} cannot be written as JSON")


def _plain(value: Any, path: tuple[str | int, ...], depth: int) -> Any:
    """``value`` as JSON values, as the official ``Serde`` makes them (see the module)."""
    if value is None or (
        isinstance(value, (str, bool, int, float)) and not isinstance(value, enum.Enum)
    ):
        return value
    if depth > MAX_DEPTH:
        problem = too_deep()
        raise OpenLineageValidationError(
            "cannot read the official client's event",
            [Problem(format_path(path), problem.message, problem.rule)],
        )
    if isinstance(value, enum.Enum):
        return _plain(value.value, path, depth)
    if isinstance(value, datetime.date):  # a datetime is a date too
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    fields = getattr(type(value), "__attrs_attrs__", None)
    if fields is not None:
        out: dict[str, Any] = {}
        for field in fields:
            item = _plain(getattr(value, field.name), (*path, field.name), depth + 1)
            if item is not None:
                out[field.name] = item
        return out
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            name = _key(key, path)
            plain = _plain(item, (*path, name), depth + 1)
            if plain is not None:
                out[name] = plain
        return out
    if isinstance(value, (list, tuple, set, frozenset)):
        items: list[Any] = []
        for index, item in enumerate(value):
            plain = _plain(item, (*path, index), depth + 1)
            # Serde leaves nulls and empty objects out of arrays.
            if plain is not None and plain != {}:
                items.append(plain)
        return items
    if isinstance(value, numbers.Integral):  # numpy's integers, which pandas gives
        return int(value)
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Rational):
        return float(value)  # numpy's float32 and others: a float, as JSON has it
    raise _refuse(path, f"a {_name(type(value))} cannot be written as JSON")
