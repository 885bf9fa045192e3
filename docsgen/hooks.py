"""The MkDocs hooks of ``mkdocs.yml``.

* Each page's reference markers (``<!-- reference: transports -->``) are replaced by the tables
  :mod:`docsgen.reference` generates from the code.
* Once the site is built, every public name of the documented modules (each module's
  ``__all__``) must have its entry in the API reference; a missing one fails the build.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

# MkDocs loads this file by its path: the repository's root must be importable for docsgen.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mkdocs.exceptions import PluginError  # noqa: E402

from docsgen import api, reference  # noqa: E402

__all__ = ["on_page_markdown", "on_post_build"]


def on_page_markdown(markdown: str, *, page: Any, **kwargs: Any) -> str:
    """The page's Markdown with its reference markers replaced.

    Args:
        markdown: the page's Markdown.
        page: the MkDocs page.
        **kwargs: what MkDocs passes besides.

    Returns:
        The Markdown to render.
    """
    try:
        return reference.render(markdown, page=page.file.src_uri)
    except reference.ReferenceError as error:
        raise PluginError(str(error)) from None


def on_post_build(*, config: Any, **kwargs: Any) -> None:
    """Fail the build when a public name has no entry in the API reference.

    Args:
        config: the MkDocs configuration (its ``site_dir`` is read).
        **kwargs: what MkDocs passes besides.
    """
    missing = api.missing_names(Path(config["site_dir"]))
    if missing:
        raise PluginError(
            f"{len(missing)} public name(s) have no entry in the API reference: "
            + ", ".join(missing)
        )
