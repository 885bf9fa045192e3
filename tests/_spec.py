"""What the vendored ``spec/`` says, for tests that must follow it when a new spec arrives.

Tests take versions and counts from here (or from ``spec/`` itself) rather than writing them
down, so laying a new upstream spec into ``spec/`` and regenerating needs no test edit.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Final

SPEC: Final = Path(__file__).resolve().parent.parent / "spec"
_CORE: Final = re.compile(r"https://openlineage\.io/spec/(\d+-\d+-\d+)/OpenLineage\.json")


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("-"))


#: The ``$id`` of the current core schema: what events built by the SDK name.
CORE_URL: Final[str] = json.loads((SPEC / "OpenLineage.json").read_text(encoding="utf-8"))["$id"]
_match = _CORE.fullmatch(CORE_URL)
assert _match, CORE_URL
#: The current core version, such as ``2-0-2``.
CORE_VERSION: Final[str] = _match.group(1)
#: Every core version whose schema is vendored (published copies and the current one), oldest first.
CORE_VERSIONS: Final[tuple[str, ...]] = tuple(
    sorted(
        {p.parent.name for p in (SPEC / "published").glob("*/OpenLineage.json")} | {CORE_VERSION},
        key=_version_key,
    )
)
#: The current standard facet schema files.
FACET_FILES: Final[tuple[Path, ...]] = tuple(sorted((SPEC / "facets").glob("*.json")))


def event_url(kind: str, version: str = CORE_VERSION) -> str:
    """The ``schemaURL`` of an event ``kind`` (``RunEvent``...) of a core ``version``."""
    return f"https://openlineage.io/spec/{version}/OpenLineage.json#/$defs/{kind}"
