"""The two forms of event the editor changes, behind one small interface: models and JSON.

An event of the SDK is edited as the models it is made of (:class:`ModelTree`): every change
makes a shallow copy of the objects on its path (the event, a run, a facet container...), so
the caller's event is never changed and the parts no rule touches are shared, not copied. An
event the SDK cannot read as a typed one (a hand-made object whose JSON breaks the spec) is
edited as its parsed JSON (:class:`JsonTree`). The editor's rules are written once, against
:class:`EventTree`.

Nodes and facets are addressed by their JSON names. A facet made from JSON (a body the editor
built or changed) is read exactly as :func:`~openlineage_sdk.read_event` reads it in an event
(:func:`read_facet`), so an edited event holds what reading its JSON would give.
"""

from __future__ import annotations

import copy
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal, Protocol, TypeAlias

from openlineage_sdk._base import FacetContainer, OpenLineageModel
from openlineage_sdk._read import read_event
from openlineage_sdk.models.core import RunEvent

__all__ = ["EventTree", "JsonTree", "ModelTree", "Place", "read_facet"]

#: Where a facet container sits: a run's, a job's, a dataset's, or a dataset's as an input or
#: an output.
Place: TypeAlias = Literal["run", "job", "dataset", "inputDataset", "outputDataset"]


class EventTree(Protocol):
    """What the editor does to an event's parts; each change returns a new part."""

    def is_node(self, value: Any) -> bool:
        """Whether ``value`` is an object of the event (a run, a job, a dataset...)."""

    def field(self, node: Any, key: str) -> Any:
        """The value of ``node``'s field ``key`` (a JSON name); ``None`` when absent."""

    def replaced(self, node: Any, updates: Mapping[str, Any]) -> Any:
        """A copy of ``node`` with the fields ``updates`` names (JSON names) replaced."""

    def facet_keys(self, container: Any) -> list[str]:
        """The keys present in a facet container (``None`` holds none)."""

    def has_facet(self, container: Any, key: str) -> bool:
        """Whether a facet container has the key (even with a null facet)."""

    def facet(self, container: Any, key: str) -> Any:
        """The facet under ``key``, or ``None``."""

    def with_facet(self, container: Any, place: Place, key: str, facet: Any) -> Any:
        """A copy of the container (a new one for ``None``) with ``facet`` under ``key``."""

    def without_facets(self, container: Any, keys: Iterable[str]) -> Any:
        """A copy of the container without ``keys``."""

    def body(self, facet: Any) -> Any:
        """The facet as JSON: a copy the caller may change."""

    def facet_from_json(self, place: Place, key: str, body: Any) -> Any:
        """The facet ``body`` (JSON) makes under ``key`` of a container at ``place``."""

    def json(self, node: Any) -> Any:
        """``node`` as JSON, for comparing (not to be changed)."""


class JsonTree:
    """An event as parsed JSON: dicts, lists and scalars."""

    def is_node(self, value: Any) -> bool:
        return isinstance(value, dict)

    def field(self, node: Any, key: str) -> Any:
        return node.get(key) if isinstance(node, dict) else None

    def replaced(self, node: Any, updates: Mapping[str, Any]) -> Any:
        return {**node, **updates}

    def facet_keys(self, container: Any) -> list[str]:
        return list(container) if isinstance(container, dict) else []

    def has_facet(self, container: Any, key: str) -> bool:
        return isinstance(container, dict) and key in container

    def facet(self, container: Any, key: str) -> Any:
        return container.get(key) if isinstance(container, dict) else None

    def with_facet(self, container: Any, place: Place, key: str, facet: Any) -> Any:
        return {**(container if isinstance(container, dict) else {}), key: facet}

    def without_facets(self, container: Any, keys: Iterable[str]) -> Any:
        gone = set(keys)
        return {key: value for key, value in container.items() if key not in gone}

    def body(self, facet: Any) -> Any:
        return copy.deepcopy(facet)

    def facet_from_json(self, place: Place, key: str, body: Any) -> Any:
        return body

    def json(self, node: Any) -> Any:
        return node


class ModelTree:
    """An event of the SDK's models, changed copy-on-write."""

    def is_node(self, value: Any) -> bool:
        return isinstance(value, OpenLineageModel)

    def field(self, node: Any, key: str) -> Any:
        if node is None:
            return None
        name = _names(type(node)).get(key)
        if name is None:
            extra = node.__pydantic_extra__
            return extra.get(key) if extra else None
        return node.__dict__.get(name)

    def replaced(self, node: Any, updates: Mapping[str, Any]) -> Any:
        names = _names(type(node))
        changed = node.__copy__()
        for key, value in updates.items():
            name = names.get(key)
            if name is None:
                _extra(changed)[key] = value
            else:
                changed.__dict__[name] = value
                changed.__pydantic_fields_set__.add(name)
        return changed

    def facet_keys(self, container: Any) -> list[str]:
        if container is None:
            return []
        key_of = _keys(type(container))
        # A declared facet read as null is set (and written) though its value is None.
        found = [key_of[name] for name in container.__pydantic_fields_set__ if name in key_of]
        found.extend(container.__pydantic_extra__ or ())
        return found

    def has_facet(self, container: Any, key: str) -> bool:
        if container is None:
            return False
        name = container.__openlineage_keys__.get(key)
        if name is not None and name in container.__pydantic_fields_set__:
            return True
        return key in (container.__pydantic_extra__ or ())

    def facet(self, container: Any, key: str) -> Any:
        return None if container is None else container.get(key)

    def with_facet(self, container: Any, place: Place, key: str, facet: Any) -> Any:
        changed = (
            _CONTAINERS[place].model_construct() if container is None else container.__copy__()
        )
        name = changed.__openlineage_keys__.get(key)
        extra = _extra(changed)
        if name is not None and isinstance(facet, _declared(type(changed), name)):
            changed.__dict__[name] = facet
            changed.__pydantic_fields_set__.add(name)
            extra.pop(key, None)
            return changed
        if name is not None:
            # What reading does with a facet that breaks its declared key's schema: it is
            # kept under the container's other keys, and the typed attribute stays empty.
            changed.__dict__[name] = None
            changed.__pydantic_fields_set__.discard(name)
        # Other keys are written whatever the set fields say; a key is not one of them, as it
        # may be spelt like a declared attribute ("tags").
        extra[key] = facet
        return changed

    def without_facets(self, container: Any, keys: Iterable[str]) -> Any:
        changed = container.__copy__()
        extra = changed.__pydantic_extra__
        for key in keys:
            name = changed.__openlineage_keys__.get(key)
            if name is not None and name in changed.__pydantic_fields_set__:
                changed.__dict__[name] = None
                changed.__pydantic_fields_set__.discard(name)
            elif extra is not None and key in extra:
                del extra[key]
        return changed

    def body(self, facet: Any) -> Any:
        if isinstance(facet, OpenLineageModel):
            return facet.to_dict()
        return copy.deepcopy(facet)  # a facet read as a value that is not an object

    def facet_from_json(self, place: Place, key: str, body: Any) -> Any:
        return read_facet(place, key, body)

    def json(self, node: Any) -> Any:
        return node.to_dict() if isinstance(node, OpenLineageModel) else node


# The smallest event that reads: a facet is read in its place inside it (see read_facet).
_SKELETON: Final[Mapping[str, Any]] = {
    "eventTime": "1970-01-01T00:00:00Z",
    "producer": "-",
    "schemaURL": "-",
    "run": {"runId": "-"},
    "job": {"namespace": "-", "name": "-"},
}


def read_facet(place: Place, key: str, body: Any) -> Any:
    """The facet ``body`` (JSON) makes under ``key`` of a container at ``place``.

    It is read inside the smallest event that holds it, by :func:`~openlineage_sdk.read_event`
    itself: a standard facet becomes its class, a registered custom facet its own, and a facet
    that breaks its schema (or lacks ``_producer``) a generic facet of its entity carrying
    exactly what it was given, as in any event read.

    Raises:
        OpenLineageValidationError: ``body`` holds what JSON cannot hold as given (NaN, a lone
            surrogate...).
    """
    holder = {key: body}
    dataset = {"namespace": "-", "name": "-"}
    data: dict[str, Any] = dict(_SKELETON)
    if place == "run":
        data["run"] = {"runId": "-", "facets": holder}
    elif place == "job":
        data["job"] = {"namespace": "-", "name": "-", "facets": holder}
    elif place == "dataset":
        data["inputs"] = [{**dataset, "facets": holder}]
    elif place == "inputDataset":
        data["inputs"] = [{**dataset, "inputFacets": holder}]
    else:
        data["outputs"] = [{**dataset, "outputFacets": holder}]
    event = read_event(data)
    assert isinstance(event, RunEvent)
    if place == "run":
        container: Any = event.run.facets
    elif place == "job":
        container = event.job.facets
    elif place == "dataset":
        container = event.inputs[0].facets if event.inputs else None
    elif place == "inputDataset":
        container = event.inputs[0].input_facets if event.inputs else None
    else:
        container = event.outputs[0].output_facets if event.outputs else None
    assert isinstance(container, FacetContainer)
    return container.get(key)


def _container_classes() -> dict[str, type[FacetContainer]]:
    from openlineage_sdk.models.core import (
        DatasetFacets,
        InputDatasetFacets,
        JobFacets,
        OutputDatasetFacets,
        RunFacets,
    )

    return {
        "run": RunFacets,
        "job": JobFacets,
        "dataset": DatasetFacets,
        "inputDataset": InputDatasetFacets,
        "outputDataset": OutputDatasetFacets,
    }


_CONTAINERS: Final = _container_classes()
_NAMES: dict[type[Any], dict[str, str]] = {}
_KEYS: dict[type[Any], dict[str, str]] = {}
_DECLARED: dict[tuple[type[Any], str], type[Any]] = {}


def _names(cls: type[Any]) -> dict[str, str]:
    """JSON name -> attribute name of a model class's fields."""
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = {
            (field.alias or name): name for name, field in cls.model_fields.items()
        }
    return names


def _keys(cls: type[Any]) -> dict[str, str]:
    """Attribute name -> facet key of a container class's declared facets."""
    keys = _KEYS.get(cls)
    if keys is None:
        keys = _KEYS[cls] = {name: key for key, name in cls.__openlineage_keys__.items()}
    return keys


def _declared(cls: type[Any], name: str) -> type[Any]:
    """The facet class a container declares for its attribute ``name``."""
    found = _DECLARED.get((cls, name))
    if found is None:
        annotation = cls.model_fields[name].annotation
        union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
        args = typing.get_args(annotation) if union else ()
        classes = [arg for arg in args if isinstance(arg, type) and arg is not type(None)]
        found = classes[0] if classes else object
        _DECLARED[(cls, name)] = found
    return found


def _extra(model: Any) -> dict[str, Any]:
    extra: dict[str, Any] | None = model.__pydantic_extra__
    if extra is None:
        extra = {}
        object.__setattr__(model, "__pydantic_extra__", extra)
    return extra
