"""The configuration reference, generated from the code that reads the configuration.

Nothing here is written by hand about a key: each table is made from what the package itself
holds when the site is built, so the reference cannot drift from the code.

* ``openlineage.yml``'s top-level sections: ``config._SECTIONS`` and ``_JAVA_ONLY_SECTIONS``,
  described by ``config._SECTION_DOCS``.
* Each transport: every ``type`` the transport registry knows (the built-in kinds and those
  installed packages register through entry points), and for each its config class's fields
  (pydantic's ``model_fields``: key, alias, type, constraints, default), described by the
  field's ``description`` or the ``Attributes:`` section of the class's docstring (or of a base
  class's). A field without a description is an error, so the build fails on it.
* The ``facets``, ``filters``, ``tags`` and ``dataset`` sections:
  ``_event_config.sections.SETTINGS``.
* Environment variables: ``config._ENVIRONMENT_VARIABLES``.
* ``spark.openlineage.*`` confs: ``spark._conf.CONFS`` and ``CONFS_NOT_READ``.

Each table is the text of one marker (``<!-- reference: transports -->``) that
:mod:`docsgen.hooks` replaces in the page that holds it; :data:`MARKERS` lists them.
"""

from __future__ import annotations

import enum
import inspect
import re
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

import annotated_types
from pydantic import BaseModel, SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

__all__ = [
    "MARKERS",
    "KeyDoc",
    "ReferenceError",
    "TransportDoc",
    "attribute_docs",
    "environment_table",
    "event_settings_table",
    "model_keys",
    "render",
    "sections_table",
    "spark_confs_table",
    "transport_docs",
    "transports_reference",
]


class ReferenceError(Exception):
    """The code holds a key the reference cannot describe (no description, unknown type)."""


# --------------------------------------------------------------------------- docstrings

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj):`~?([^`]+)`")


def plain(text: str) -> str:
    """A docstring's text as Markdown on one line: Sphinx roles and ````code```` as `code`.

    Args:
        text: text taken from a docstring.

    Returns:
        The text with ``:class:`~a.b.C``` as `` `C` ``, ````x```` as `` `x` ``, and its lines
        joined.
    """

    def role(match: re.Match[str]) -> str:
        target = match.group(1)
        shown = target.rsplit(".", 1)[-1] if match.group(0).count("~") else target
        return f"`{shown}`"

    text = _ROLE.sub(role, text)
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    return " ".join(text.split())


def attribute_docs(cls: type) -> dict[str, str]:
    """The entries of the ``Attributes:`` sections of a class's docstring and its bases'.

    A class's own entry wins over a base class's for the same name.

    Args:
        cls: a class with Google-style docstrings.

    Returns:
        Attribute name -> its description, as Markdown on one line.
    """
    found: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        found.update(_attributes_section(inspect.cleandoc(klass.__dict__.get("__doc__") or "")))
    return found


def _attributes_section(doc: str) -> dict[str, str]:
    entries: dict[str, str] = {}
    lines = doc.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Attributes:")
    except StopIteration:
        return entries
    base: int | None = None
    name: str | None = None
    for line in lines[start + 1 :]:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if base is None:
            base = indent
        if indent < base:
            break  # the next section
        if indent == base:
            key, sep, text = line.strip().partition(":")
            if not sep:
                raise ReferenceError(f"cannot read the Attributes entry {line.strip()!r}")
            name = key.strip()
            entries[name] = text.strip()
        elif name is not None:
            entries[name] += " " + line.strip()
    return {key: plain(text) for key, text in entries.items()}


# --------------------------------------------------------------------------- transports


@dataclass(frozen=True)
class KeyDoc:
    """One key of a configuration section, as the reference shows it.

    Attributes:
        key: the key as written in ``openlineage.yml`` (the field's alias, else its name).
        also: other spellings the key is read under (the field's name when it has an alias).
        value_type: the value's type, in words.
        default: the default, or ``required``.
        description: what it does (Markdown, one line).
        nested: the models a value of this key may be (``auth``'s kinds), with their keys.
    """

    key: str
    also: tuple[str, ...]
    value_type: str
    default: str
    description: str
    nested: tuple[tuple[str, type[BaseModel], tuple[KeyDoc, ...]], ...] = ()


@dataclass(frozen=True)
class TransportDoc:
    """A transport ``type`` of the registry and its configuration.

    Attributes:
        kinds: the ``type`` values that select it (``http``, ``async_http``).
        transport: the transport class.
        config: its configuration class.
        summary: the first line of the configuration class's docstring.
        keys: the configuration's keys.
    """

    kinds: tuple[str, ...]
    transport: type
    config: type[BaseModel]
    summary: str
    keys: tuple[KeyDoc, ...]


_SCALARS: dict[Any, str] = {
    str: "text",
    int: "integer",
    float: "number",
    bool: "boolean",
    Path: "path",
    SecretStr: "secret text",
    Any: "any value",
    type(None): "null",
}


def _type_words(annotation: Any) -> str:
    """A field's type in the words of a YAML file's author."""
    origin = get_origin(annotation)
    args = get_args(annotation)
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    if origin is Literal:
        return " or ".join(f"`{a}`" for a in args)
    if origin in (Union, types.UnionType):
        members = [a for a in args if a is not type(None)]
        return " or ".join(_type_words(a) for a in members)
    if origin is not None and getattr(origin, "__name__", "") == "Annotated":
        return _type_words(args[0])
    if hasattr(annotation, "__metadata__"):  # Annotated[X, ...]
        return _type_words(annotation.__origin__)
    if origin in (list, tuple, set, frozenset):
        return f"list of {_type_words(args[0])}" if args else "list"
    if origin is dict:
        return f"mapping of {_type_words(args[0])} to {_type_words(args[1])}" if args else "mapping"
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return " or ".join(f"`{m.value}`" for m in annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        from openlineage_sdk.transports.base import TransportConfig

        if annotation is TransportConfig:
            return "transport section"
        return "mapping"
    raise ReferenceError(f"no words for the type {annotation!r}")


def _constraints(info: FieldInfo) -> str:
    words = []
    for item in info.metadata:
        if isinstance(item, annotated_types.Ge):
            words.append(f"≥ {item.ge}")
        elif isinstance(item, annotated_types.Gt):
            words.append(f"> {item.gt}")
        elif isinstance(item, annotated_types.Le):
            words.append(f"≤ {item.le}")
        elif isinstance(item, annotated_types.Lt):
            words.append(f"< {item.lt}")
        elif isinstance(item, annotated_types.MinLen) and item.min_length:
            words.append("not empty" if item.min_length == 1 else f"at least {item.min_length}")
    return f", {', '.join(words)}" if words else ""


def _value(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if isinstance(value, (dict, list, tuple)) and not value:
        return "empty"
    if isinstance(value, enum.Enum):
        value = value.value
    return f"`{value}`"


def _default(info: FieldInfo) -> str:
    if info.default_factory is not None:
        factory: Callable[[], Any] = info.default_factory  # type: ignore[assignment]
        return _value(factory())
    if info.default is PydanticUndefined:
        return "required"
    return _value(info.default)


def _nested_models(annotation: Any) -> Iterator[type[BaseModel]]:
    """The models (other than a bare transport section) a field's value may be."""
    from openlineage_sdk.transports.base import TransportConfig

    pending = [annotation]
    seen: set[type[BaseModel]] = set()
    while pending:
        current = pending.pop(0)
        if (
            isinstance(current, type)
            and issubclass(current, BaseModel)
            and current is not TransportConfig
            and current not in seen
        ):
            seen.add(current)
            yield current
        pending.extend(get_args(current))
        if hasattr(current, "__origin__") and hasattr(current, "__metadata__"):
            pending.append(current.__origin__)


def model_keys(model: type[BaseModel], *, skip: tuple[str, ...] = ("type",)) -> tuple[KeyDoc, ...]:
    """The keys of a configuration model, described.

    Args:
        model: a pydantic model (a transport's config class, an ``auth`` kind).
        skip: fields not listed as keys (``type``, which names the section's kind).

    Returns:
        One entry per field, in the model's order.

    Raises:
        ReferenceError: a field has no description in ``Field(description=...)`` nor in an
            ``Attributes:`` section, or a type the reference cannot put in words.
    """
    described = attribute_docs(model)
    keys = []
    for name in _own_fields_first(model):
        info = model.model_fields[name]
        if name in skip:
            continue
        description = plain(info.description) if info.description else described.get(name)
        if description and info.alias:
            # "(`apiKey`)", which the docstring adds for the Python name's readers, is the key.
            description = description.replace(f" (`{info.alias}`)", "")
        if not description:
            raise ReferenceError(
                f"{model.__module__}.{model.__qualname__}.{name} has no description: add it to "
                "the class's Attributes section (or Field(description=...))"
            )
        nested = tuple(
            (_kind_of(sub), sub, model_keys(sub)) for sub in _nested_models(info.annotation)
        )
        words = "a mapping" if nested else _type_words(info.annotation)
        keys.append(
            KeyDoc(
                key=info.alias or name,
                also=(name,) if info.alias and info.alias != name else (),
                value_type=words + _constraints(info),
                default=_default(info),
                description=description,
                nested=nested,
            )
        )
    return tuple(keys)


def _own_fields_first(model: type[BaseModel]) -> list[str]:
    """The model's fields, the class's own first (a transport's keys before the delivery
    settings it shares with others), each class's in the order it declares them."""
    order: list[str] = []
    for klass in model.__mro__:
        for name in inspect.get_annotations(klass):
            if name in model.model_fields and name not in order:
                order.append(name)
    return order + [name for name in model.model_fields if name not in order]


def _kind_of(model: type[BaseModel]) -> str:
    """``type: api_key`` for a model whose ``type`` field has one value, else its name."""
    field = model.model_fields.get("type")
    if field is not None:
        args = get_args(field.annotation)
        if get_origin(field.annotation) is Literal and len(args) == 1:
            return f"type: {args[0]}"
        if field.annotation is str:
            return "type: the dotted path of a class"
    return model.__name__


def _summary(cls: type) -> str:
    doc = inspect.cleandoc(cls.__doc__ or "")
    first = doc.split("\n\n", 1)[0]
    return plain(first)


def transport_docs() -> list[TransportDoc]:
    """Every transport the registry knows, with its configuration's keys.

    The kinds come from :func:`openlineage_sdk.transports.available_kinds`: the built-in ones
    and those installed packages register, so a transport added later appears by itself.

    Returns:
        One entry per transport class, in the order of its first kind.

    Raises:
        ReferenceError: a kind cannot be loaded, or a key cannot be described.
    """
    from openlineage_sdk.transports import (
        TransportConfigError,
        available_kinds,
        transport_class,
    )

    by_class: dict[type, list[str]] = {}
    for kind in available_kinds():
        try:
            cls = transport_class(kind)
        except TransportConfigError as error:
            raise ReferenceError(f"the transport {kind!r} cannot be loaded: {error}") from None
        by_class.setdefault(cls, []).append(kind)
    docs = []
    for cls, kinds in by_class.items():
        own = getattr(cls, "kind", "")
        kinds.sort(key=lambda k: (k != own, k))
        config = cls.config_class
        docs.append(
            TransportDoc(
                kinds=tuple(kinds),
                transport=cls,
                config=config,
                summary=_summary(cls),
                keys=model_keys(config),
            )
        )
    return docs


# --------------------------------------------------------------------------- rendering


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _keys_table(keys: tuple[KeyDoc, ...], prefix: str = "") -> list[str]:
    lines = ["| key | type | default | what it does |", "|---|---|---|---|"]
    for key in keys:
        also = "".join(f" (or `{prefix}{a}`)" for a in key.also)
        lines.append(
            f"| `{prefix}{key.key}`{also} | {_cell(key.value_type)} | {_cell(key.default)} | "
            f"{_cell(key.description)} |"
        )
    return lines


def transports_reference() -> str:
    """The ``transport`` section of ``openlineage.yml``: one table per transport ``type``.

    Returns:
        Markdown, a heading (level 3) per transport.
    """
    out: list[str] = []
    for doc in transport_docs():
        kinds = ", ".join(f"`{k}`" for k in doc.kinds)
        path = f"{doc.transport.__module__}.{doc.transport.__qualname__}"
        public = path.rsplit(".", 1)[0].split(".")
        if doc.transport.__module__.startswith("openlineage_sdk.transports."):
            path = f"openlineage_sdk.transports.{doc.transport.__qualname__}"
        anchor = f"transport-{doc.kinds[0].replace('_', '-')}"
        out += [f"#### `type: {doc.kinds[0]}` {{#{anchor}}}", ""]
        line = (
            f"{doc.summary} Selected by `type:` {kinds}; the class is `{path}`, configured by "
            f"`{doc.config.__name__}`."
        )
        if public[0] != "openlineage_sdk":
            line += " (registered by an installed package)"
        out += [line, ""]
        if not doc.keys:
            out += ["No other keys.", ""]
            continue
        out += [*_keys_table(doc.keys), ""]
        for key in doc.keys:
            for kind, model, nested in key.nested:
                out += [f"`{key.key}` with `{kind}`: {_summary(model)}", ""]
                if nested:
                    out += [*_keys_table(nested, prefix=f"{key.key}."), ""]
    return "\n".join(out)


def sections_table() -> str:
    """The top-level sections of ``openlineage.yml``.

    Returns:
        A Markdown table.

    Raises:
        ReferenceError: a section the code reads has no description.
    """
    from openlineage_sdk import config

    lines = ["| section | what it does |", "|---|---|"]
    for name in (*config._SECTIONS, *config._JAVA_ONLY_SECTIONS):
        if name not in config._SECTION_DOCS:
            raise ReferenceError(f"the section {name!r} has no entry in config._SECTION_DOCS")
        lines.append(f"| `{name}` | {_cell(config._SECTION_DOCS[name])} |")
    return "\n".join(lines)


def event_settings_table() -> str:
    """The settings of the ``facets``, ``filters``, ``tags`` and ``dataset`` sections.

    Returns:
        A Markdown table.
    """
    from openlineage_sdk._event_config.sections import SETTINGS

    lines = ["| key | type | default | what it does |", "|---|---|---|---|"]
    for setting in SETTINGS:
        default = "none" if setting.default is None else f"`{setting.default}`"
        lines.append(
            f"| `{setting.key}` | {_cell(setting.type)} | {default} | "
            f"{_cell(setting.description)} |"
        )
    return "\n".join(lines)


def environment_table() -> str:
    """Every environment variable the package reads.

    Returns:
        A Markdown table.
    """
    from openlineage_sdk import config

    lines = ["| variable | default | what it does |", "|---|---|---|"]
    for variable in config._ENVIRONMENT_VARIABLES:
        names = ", ".join(f"`{n.strip()}`" for n in variable.name.split(","))
        default = "none" if variable.default is None else f"`{variable.default}`"
        lines.append(f"| {names} | {default} | {_cell(variable.description)} |")
    return "\n".join(lines)


def spark_confs_table(*, read: bool = True) -> str:
    """The ``spark.openlineage.*`` confs the adapter reads (or, ``read=False``, does not).

    Args:
        read: the confs read (``CONFS``), or those of the JVM agent left alone
            (``CONFS_NOT_READ``).

    Returns:
        A Markdown table.
    """
    from openlineage_sdk.spark._conf import CONF_PREFIX, CONFS, CONFS_NOT_READ

    lines = ["| conf | type | default | what it does |", "|---|---|---|---|"]
    for conf in CONFS if read else CONFS_NOT_READ:
        default = "none" if conf.default is None else f"`{conf.default}`"
        lines.append(
            f"| `{CONF_PREFIX}{conf.key}` | {_cell(conf.type)} | {default} | "
            f"{_cell(conf.description)} |"
        )
    return "\n".join(lines)


#: The markers a page may hold (``<!-- reference: NAME -->``) and what replaces each.
MARKERS: dict[str, Callable[[], str]] = {
    "sections": sections_table,
    "transports": transports_reference,
    "event-settings": event_settings_table,
    "environment": environment_table,
    "spark-confs": spark_confs_table,
    "spark-confs-not-read": lambda: spark_confs_table(read=False),
}

_MARKER = re.compile(r"<!--\s*reference:\s*([\w-]+)\s*-->")


def render(markdown: str, *, page: str = "") -> str:
    """A page's Markdown with each reference marker replaced by its generated text.

    Args:
        markdown: the page's text.
        page: the page's path, for errors.

    Returns:
        The text with the markers replaced.

    Raises:
        ReferenceError: a marker names no known table.
    """

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in MARKERS:
            raise ReferenceError(
                f"{page}: unknown reference marker {name!r}; known: {', '.join(MARKERS)}"
            )
        return MARKERS[name]()

    return _MARKER.sub(replace, markdown)
