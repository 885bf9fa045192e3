"""The API reference's coverage: every public name of the documented modules has its entry.

The API pages (``docs/api/``) render each module with mkdocstrings, which lists the names of its
``__all__``. :func:`missing_names` reads the built site and names each public name that has no
entry (no element with its dotted path as ``id``), so a name added to an ``__all__`` without a
page, or lost by a rendering option, fails the build (:mod:`docsgen.hooks`) and the tests.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

__all__ = ["MODULES", "anchors", "missing_names", "public_names"]

#: The modules of the API reference; each has a page under ``docs/api/``.
MODULES = (
    "openlineage_sdk",
    "openlineage_sdk.facets",
    "openlineage_sdk.naming",
    "openlineage_sdk.types",
    "openlineage_sdk.transports",
    "openlineage_sdk.config",
    "openlineage_sdk.report",
    "openlineage_sdk.spark",
)

_ID = re.compile(r'\bid="(openlineage_sdk[\w.]*)"')


def public_names() -> list[str]:
    """The dotted path of every name of the documented modules' ``__all__``.

    Returns:
        ``module.name`` for each, in the modules' order.
    """
    names = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        names += [f"{module_name}.{name}" for name in module.__all__]
    return names


def anchors(site_dir: Path) -> set[str]:
    """The ids of the API reference's entries in a built site.

    Args:
        site_dir: the built site (``site/``).

    Returns:
        Every ``id`` that is a dotted path under ``openlineage_sdk``, on the API pages.
    """
    found: set[str] = set()
    for page in sorted((site_dir / "api").rglob("*.html")):
        found.update(_ID.findall(page.read_text(encoding="utf-8")))
    return found


def missing_names(site_dir: Path) -> list[str]:
    """The public names without an entry in a built site's API reference.

    Args:
        site_dir: the built site.

    Returns:
        The missing names' dotted paths; empty when every one is there.
    """
    present = anchors(site_dir)
    return [name for name in public_names() if name not in present]
