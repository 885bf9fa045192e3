"""Custom facet classes registered with the SDK, so events read them back into their classes.

Plugin packages register their facets through the ``openlineage_sdk.facets`` entry point group:
installing the package is enough. An entry point names a module (or any object) with

* ``FACETS``: the facet classes (``MyCoCostsRunFacet``...), and optionally
* ``SCHEMAS``: the facet schemas by ``$id``, shipped in the package, so that strict validation
  checks each facet against its own schema, offline.

``openlineage-sdk codegen`` writes both into the package it generates. Code can also call
:func:`register_facets` directly. Entry points are loaded once, the first time an event is read or
validated; a plugin that fails to load is logged and skipped, never fatal.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from openlineage_sdk._schema_store import register_schema

if TYPE_CHECKING:
    from openlineage_sdk._base import FacetModel

__all__ = ["ENTRY_POINT_GROUP", "FacetRegistry", "register_facets", "registry"]

ENTRY_POINT_GROUP: Final = "openlineage_sdk.facets"


class FacetRegistry:
    """Custom facet classes by entity and key."""

    def __init__(self) -> None:
        self._classes: dict[tuple[str, str], type[FacetModel]] = {}
        self._lock = threading.Lock()
        self._loading = threading.Lock()
        self._entry_points_loaded = False

    def __len__(self) -> int:
        self.load_entry_points()
        return len(self._classes)

    def register(
        self, *classes: type[FacetModel], schemas: Mapping[str, Mapping[str, Any]] | None = None
    ) -> None:
        """Register custom facet classes (and their schemas, for strict validation).

        Raises:
            TypeError: a class is not a keyed custom facet, takes a standard facet's key, or
                takes a key another class already holds for the same entity.
        """
        from openlineage_sdk._base import FacetModel
        from openlineage_sdk._facet_rules import standard_facet_keys

        standard = standard_facet_keys()
        with self._lock:
            for cls in classes:
                candidate: Any = cls  # checked at run time for callers without a type checker
                if not (isinstance(candidate, type) and issubclass(candidate, FacetModel)):
                    raise TypeError(f"{cls!r} is not a facet class")
                if cls.facet_key is None or cls.facet_entity is None:
                    raise TypeError(f"{cls.__name__} has no facet key: declare prefix= and name=")
                if cls.facet_key in standard:
                    raise TypeError(f"{cls.__name__}: {cls.facet_key!r} is a standard facet key")
                slot = (cls.facet_entity, cls.facet_key)
                current = self._classes.get(slot)
                if current is not None and current is not cls:
                    raise TypeError(
                        f"{cls.__name__}: key {cls.facet_key!r} on a {cls.facet_entity} is already "
                        f"registered by {current.__module__}.{current.__name__}"
                    )
                self._classes[slot] = cls
            for schema in (schemas or {}).values():
                register_schema(schema)

    def lookup(self, entity: str, key: str) -> type[FacetModel] | None:
        """The class registered for ``key`` on ``entity``, if any."""
        return self._classes.get((entity, key))

    def _loaded(self) -> bool:
        return self._entry_points_loaded

    def load_entry_points(self) -> None:
        """Register the facets of every installed plugin package (once).

        Every ``read_event`` asks, so the common case is one attribute read; a thread that
        arrives while another loads waits for the plugins rather than reading without them.
        """
        if self._entry_points_loaded:
            return
        with self._loading:
            if self._loaded():  # another thread loaded them while this one waited
                return
            from importlib.metadata import entry_points

            for entry_point in entry_points(group=ENTRY_POINT_GROUP):
                try:
                    plugin = entry_point.load()
                    facets: Iterable[type[FacetModel]] = getattr(plugin, "FACETS", ())
                    schemas = getattr(plugin, "SCHEMAS", None)
                    self.register(*facets, schemas=schemas)
                except Exception:  # a broken plugin must not break anyone's pipeline
                    import logging  # only on this path: it keeps `import openlineage_sdk` light

                    logging.getLogger(__name__).warning(
                        "could not load facets from entry point %r",
                        entry_point.value,
                        exc_info=True,
                    )
            self._entry_points_loaded = True


#: The registry ``read_event`` and ``validate_event`` use.
registry: Final = FacetRegistry()


def register_facets(
    *classes: type[FacetModel], schemas: Mapping[str, Mapping[str, Any]] | None = None
) -> None:
    """Register custom facet classes, so that events read or validated use them.

    Installed plugin packages are registered through the ``openlineage_sdk.facets`` entry
    point group without a call; this is for classes defined or loaded otherwise.
    :func:`read_event` then reads a facet under a registered key into its class, and
    :func:`validate_event` checks it against its schema.

    Args:
        *classes: custom facet classes (subclasses of ``RunFacet``, ``JobFacet``,
            ``DatasetFacet``, ``InputDatasetFacet`` or ``OutputDatasetFacet`` with a key).
        schemas: the facets' JSON Schemas, for strict validation: a mapping whose values are
            schemas, each registered under its ``$id``.

    Raises:
        TypeError: a class is not a keyed custom facet, takes a standard facet's key, or
            takes a key another class already holds for the same entity.
        ValueError: a schema has no ``$id``.
    """
    registry.register(*classes, schemas=schemas)
