"""Laying an upstream OpenLineage ``spec/`` folder into the vendored ``spec/``.

Upstream publishes each schema at its ``$id``, and a published ``$id`` never changes content.
Taking a new spec therefore replaces the current schemas, facet examples and registry, and adds
each schema to ``spec/published/`` under the version its ``$id`` names, so that events naming an
earlier version keep validating against their own schemas. Nothing is edited: files are copied
byte for byte. ``naming.md`` and ``custom-facets.md`` are left alone (the naming tests follow
them; update them on purpose).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Final

from openlineage_sdk.codegen import SchemaError

__all__ = ["take_spec"]

_CORE_ID: Final = re.compile(r"https://openlineage\.io/spec/(\d+-\d+-\d+)/OpenLineage\.json")
_FACET_ID: Final = re.compile(r"https://openlineage\.io/spec/facets/(\d+-\d+-\d+)/(\w+)\.json")
#: Folders mirrored from upstream as they are.
_MIRRORED: Final = ("facets", "tests", "registry")


def _schema_id(path: Path) -> str:
    try:
        schema_id = json.loads(path.read_text(encoding="utf-8")).get("$id")
    except (OSError, ValueError, AttributeError) as exc:
        raise SchemaError(f"{path}: cannot read a JSON schema ({exc})") from exc
    if not isinstance(schema_id, str):
        raise SchemaError(f"{path}: a schema needs an '$id'")
    return schema_id


def _publish(source: Path, target: Path) -> bool:
    """Copy ``source`` to its published place; refuse to change a published schema."""
    if target.exists():
        if target.read_bytes() != source.read_bytes() and json.loads(
            target.read_text(encoding="utf-8")
        ) != json.loads(source.read_text(encoding="utf-8")):
            raise SchemaError(
                f"{source}: {_schema_id(source)} is already published with different content "
                f"({target}); the rule: a published $id is immutable"
            )
        return False
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return True


def take_spec(upstream: Path, spec: Path) -> list[str]:
    """Lay the upstream ``spec/`` folder ``upstream`` into the vendored ``spec``.

    Returns:
        One line per schema version newly published into ``spec/published``.

    Raises:
        SchemaError: ``upstream`` is not a spec folder, a schema's ``$id`` is not a published
            OpenLineage URL, or a published schema would change.
    """
    core = upstream / "OpenLineage.json"
    if not core.is_file() or not (upstream / "facets").is_dir():
        raise SchemaError(f"{upstream}: not an OpenLineage spec folder (OpenLineage.json, facets/)")
    # Check everything before changing anything.
    core_match = _CORE_ID.fullmatch(_schema_id(core))
    if core_match is None:
        raise SchemaError(
            f"{core}: '$id' is not https://openlineage.io/spec/<version>/OpenLineage.json"
        )
    facets: list[tuple[Path, Path]] = []
    for path in sorted((upstream / "facets").glob("*.json")):
        match = _FACET_ID.fullmatch(_schema_id(path))
        if match is None or match.group(2) != path.stem:
            raise SchemaError(
                f"{path}: '$id' is not https://openlineage.io/spec/facets/<version>/{path.stem}.json"
            )
        facets.append((path, spec / "published" / "facets" / match.group(1) / path.name))
    published = [(core, spec / "published" / core_match.group(1) / "OpenLineage.json"), *facets]
    for source, target in published:
        if target.exists():
            _publish(source, target)  # raises when a published schema would change

    added = [
        f"published {target.relative_to(spec)}"
        for source, target in published
        if _publish(source, target)
    ]
    shutil.copyfile(core, spec / "OpenLineage.json")
    for name in _MIRRORED:
        if (upstream / name).is_dir():
            shutil.rmtree(spec / name, ignore_errors=True)
            shutil.copytree(upstream / name, spec / name)
    return added
