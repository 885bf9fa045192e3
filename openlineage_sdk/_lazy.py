"""Names a package exports but imports only when they are first used."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, where: Mapping[str, Sequence[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of a package with lazily imported names.

    Args:
        package: the package's ``__name__``.
        where: for each module (relative to the package, e.g. ``"._base"``), the
            names it gives the package.

    Returns:
        ``(__getattr__, __dir__)``: the first imports a name's module on first
        access and keeps the value in the package, so later accesses cost nothing.
    """
    modules = {name: module for module, names in where.items() for name in names}
    namespace = vars(sys.modules[package])

    def get_attribute(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    def directory() -> list[str]:
        return sorted({*namespace, *modules})

    return get_attribute, directory
