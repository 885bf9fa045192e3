"""String formats of the OpenLineage schemas, as annotated types the generated models use.

The spec types ``eventTime``, ``runId``, ``producer``, ``_schemaURL`` and a few facet fields as
strings with a JSON Schema ``format`` (``date-time``, ``uuid``, ``uri``). The models keep them as
``str`` so that an event read from JSON is written back byte for byte (``2020-12-28T19:52:00.001+10:00``
stays exactly that), but they are *checked* when an event is built in code:

* ``DateTimeString`` accepts an RFC 3339 string with a time zone, or an aware ``datetime``, which is
  written in the spec's string form (``2024-05-01T12:00:00.123456Z``). A naive ``datetime`` is
  refused: an event time without a zone cannot be placed on a timeline.
* ``UuidString`` accepts a UUID string or a ``uuid.UUID``.
* ``UriString`` accepts an absolute URI (RFC 3986: a scheme, then anything without spaces).

Reading is more forgiving than building: JSON Schema treats ``format`` as an annotation, and real
producers send run ids that are not UUIDs and times without a zone. ``read_event`` reads with a
compiled validator in which these fields are plain strings. Where the models' own validators read
instead (the fallback reader of :mod:`openlineage_sdk._read`, and custom facets read into their
registered classes), they run under the :data:`READ_CONTEXT` marker, which skips these checks.
Either way the values are kept as given, and ``validate_event`` reports them when asked.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Mapping
from datetime import date, datetime, timedelta, timezone
from math import isfinite
from typing import Annotated, Final, TypeAlias

from pydantic import Field, GetCoreSchemaHandler, ValidationInfo
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from openlineage_sdk._json import has_surrogate

__all__ = [
    "DATE_TIME_PATTERN",
    "FORMATS",
    "READ_CONTEXT",
    "READ_CONTEXT_KEY",
    "URI_PATTERN",
    "UUID_PATTERN",
    "DateTimeString",
    "FacetSchemaURL",
    "Number",
    "UriString",
    "UuidString",
    "format_datetime",
    "is_date_time",
    "is_reading",
    "is_uri",
    "is_uuid",
]

#: Validation context that marks lenient reading (see the module docstring).
READ_CONTEXT_KEY: Final = "openlineage_sdk.read"
READ_CONTEXT: Final[Mapping[str, bool]] = {READ_CONTEXT_KEY: True}

# RFC 3339 section 5.6, with the "T" separator; fractional seconds of any length.
DATE_TIME_PATTERN: Final = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})\Z"
)
UUID_PATTERN: Final = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z"
)
# RFC 3986 absolute URI: scheme ":" hier-part; no whitespace, no control characters.
URI_PATTERN: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[^\s\x00-\x1f\x7f\"<>\\^`{|}]*\Z")


def is_reading(info: ValidationInfo) -> bool:
    """Tell whether a validator runs under :data:`READ_CONTEXT` (lenient reading)."""
    context = info.context
    return context is not None and bool(context.get(READ_CONTEXT_KEY))


def format_datetime(value: datetime) -> str:
    """Write an aware ``datetime`` in the spec's RFC 3339 form (UTC as ``Z``).

    Raises:
        ValueError: ``value`` has no time zone.
    """
    offset = value.utcoffset()
    if offset is None:
        raise ValueError("a datetime without a time zone cannot be written as an event time")
    text = value.isoformat()
    if offset == timedelta(0) and value.tzinfo is timezone.utc:
        return text[: -len("+00:00")] + "Z"
    return text


_DATE_TIME_MATCH: Final = DATE_TIME_PATTERN.match


def is_date_time(text: str) -> bool:
    """Tell whether ``text`` is an RFC 3339 date-time with a time zone (a real calendar date)."""
    match = _DATE_TIME_MATCH(text)
    if match is None:
        return False
    # The pattern fixes where each part is and that it is digits: two-digit parts compare as
    # text. Hours 00-23 and minutes 00-59; any seconds (leap seconds, ":60", are valid RFC 3339).
    if text[11:13] > "23" or text[14:16] > "59":
        return False
    offset = match.group(8)
    # RFC 3339 time-numoffset: hours 00-23, minutes 00-59 ("+25:00" is no time zone).
    if len(offset) > 1 and (offset[1:3] > "23" or offset[4:6] > "59"):
        return False
    try:
        date.fromisoformat(text[:10])  # a real calendar date, in C
    except ValueError:
        return False
    return True


def is_uuid(text: str) -> bool:
    """Tell whether ``text`` is a UUID in its string form."""
    return UUID_PATTERN.match(text) is not None


def is_uri(text: str) -> bool:
    """Tell whether ``text`` is an absolute URI."""
    return URI_PATTERN.match(text) is not None


#: The string formats of the spec: JSON Schema ``format`` name -> (check, what it expects).
#: Building checks them (below); ``validate_event(formats=True)`` checks them the same way.
FORMATS: Final[Mapping[str, tuple[Callable[[str], bool], str]]] = {
    "date-time": (is_date_time, "an RFC 3339 date-time with a time zone"),
    "uuid": (is_uuid, "a UUID"),
    "uri": (is_uri, "a URI"),
}


def _expected(kind: str, value: object) -> PydanticCustomError:
    # The message template is formatted by pydantic-core with str(); the repr is made here.
    return PydanticCustomError(
        "openlineage_format", "expected {kind}, got {value}", {"kind": kind, "value": repr(value)}
    )


def _check_string(value: object, info: ValidationInfo, format_name: str) -> str:
    is_valid, expected = FORMATS[format_name]
    if isinstance(value, str) and (is_reading(info) or is_valid(value)):
        if has_surrogate(value):
            # Kept as given when read, but UTF-8 cannot write it: refused either way.
            raise PydanticCustomError("string_unicode", "invalid text")
        return value
    raise _expected(expected, value)


# Building checks every formatted string given; the common case (plain ASCII text in the format)
# is answered in the first lines of each check, the rest by _check_string.
_UUID_MATCH: Final = UUID_PATTERN.match
_URI_MATCH: Final = URI_PATTERN.match


def _check_date_time(value: object, info: ValidationInfo) -> str:
    if type(value) is str and value.isascii() and is_date_time(value):
        return value
    if isinstance(value, datetime):
        if value.utcoffset() is None:
            raise _expected(FORMATS["date-time"][1], value)
        return format_datetime(value)
    return _check_string(value, info, "date-time")


def _check_uuid(value: object, info: ValidationInfo) -> str:
    if type(value) is str and value.isascii() and _UUID_MATCH(value) is not None:
        return value
    if isinstance(value, uuid.UUID):
        return str(value)
    return _check_string(value, info, "uuid")


def _check_uri(value: object, info: ValidationInfo) -> str:
    if type(value) is str and value.isascii() and _URI_MATCH(value) is not None:
        return value
    return _check_string(value, info, "uri")


class _Checked:
    """Validate with a plain function; write the value as it is.

    The function replaces pydantic's own str check, so that a datetime or UUID can be accepted
    and written in the spec's string form. Unlike ``PlainValidator``, no serializer is attached:
    the value (already a str or number) is written by pydantic-core directly, with no Python call
    per field when an event is serialized.
    """

    def __init__(
        self, function: Callable[[object, ValidationInfo], object], json_type: str
    ) -> None:
        self.function = function
        self.json_type = json_type

    def __get_pydantic_core_schema__(
        self, source: object, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        input_schema = (
            core_schema.str_schema() if self.json_type == "string" else core_schema.float_schema()
        )
        return core_schema.with_info_plain_validator_function(
            self.function, json_schema_input_schema=input_schema
        )


DateTimeString: TypeAlias = Annotated[str, _Checked(_check_date_time, "string")]
"""An RFC 3339 date-time with a time zone, held as the string that is written."""

UuidString: TypeAlias = Annotated[str, _Checked(_check_uuid, "string")]
"""A UUID, held as its string form."""

UriString: TypeAlias = Annotated[str, _Checked(_check_uri, "string")]
"""An absolute URI."""


def _check_number(value: object, info: ValidationInfo) -> int | float:
    # bool is an int subclass; JSON true is not a number. NaN and Infinity are no JSON numbers.
    if type(value) is int:
        return value
    if type(value) is float:
        if not isfinite(value):
            raise PydanticCustomError("finite_number", "not a finite number")
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not isfinite(value):
            raise PydanticCustomError("finite_number", "not a finite number")
        return value
    raise _expected("a number", value)


Number: TypeAlias = Annotated[int | float, _Checked(_check_number, "number")]
"""A JSON number. An integer stays an ``int`` so that ``5`` is written back as ``5``, not ``5.0``;
strings and booleans are refused rather than converted."""

FacetSchemaURL: TypeAlias = Annotated[UriString, Field(alias="_schemaURL")]
"""The type of a facet's ``_schemaURL`` field, for facets written by hand::

    class MyCoCostsRunFacet(RunFacet, prefix="myCo", name="costs"):
        schema_url: FacetSchemaURL = "https://example.com/spec/facets/1-0-0/MyCoCostsRunFacet.json#/$defs/MyCoCostsRunFacet"
        amount: float
"""
