"""A griffe extension: the docstrings' Sphinx roles become cross-references of the site.

The package's docstrings are Google style with Sphinx roles (``:class:`~openlineage_sdk.X```,
``:meth:`flush```) and reStructuredText's ``::`` before a literal block. mkdocstrings renders
Markdown, so each docstring is rewritten as it is loaded:

* a role naming this package's objects (a dotted path under ``openlineage_sdk``, or a bare name
  resolved in the object's scope) becomes an autorefs link, ``[`Name`][openlineage_sdk.X]``:
  the strict build fails when it does not resolve;
* a role naming another library's object (``~pydantic.SecretStr``) becomes code, since the site
  does not link into other sites' inventories;
* a paragraph ending in ``::`` ends in ``:`` (the literal block under it is indented, which
  Markdown reads as code already).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

__all__ = ["SphinxRoles", "markdown"]

_ROLE = re.compile(r":(?:py:)?(class|func|meth|mod|attr|data|exc|obj):`(~?)([^`<]+?)`")
_PACKAGE = "openlineage_sdk"


def markdown(text: str) -> str:
    """A docstring's Sphinx roles as Markdown cross-references (see the module's docstring).

    Args:
        text: the docstring.

    Returns:
        The docstring in Markdown.
    """

    def role(match: re.Match[str]) -> str:
        short, target = match.group(2) == "~", match.group(3).strip()
        shown = target.rsplit(".", 1)[-1] if short else target
        if match.group(1) in ("meth", "func") and not shown.endswith(")"):
            shown += "()"
        foreign = "." in target and not target.startswith(_PACKAGE + ".")
        if foreign and not target[:1].isupper():
            return f"`{shown}`"  # another library's object (``pydantic.X``): no link
        return f"[`{shown}`][{target}]"

    text = _ROLE.sub(role, text)
    return re.sub(r"(?<=\S)::(?=\n)", ":", text)


class SphinxRoles(griffe.Extension):  # type: ignore[misc]  # griffe is not installed for mypy
    """Rewrites every loaded object's docstring with :func:`markdown`."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite ``obj``'s docstring, if it has one.

        Args:
            obj: the object griffe loaded.
            **kwargs: what griffe passes besides.
        """
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
