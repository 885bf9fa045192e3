"""A synthetic spec update, laid into a copy of the project the way upstream publishes one.

Upstream publishes a new core version as ``spec/OpenLineage.json`` with a new ``$id`` (and the
website serves it at that URL), a new facet version as ``spec/facets/<Name>.json`` with a new
``$id``, and a new facet as a new schema file with its examples in ``spec/tests/<Name>/``. The
vendored ``spec/published/`` keeps a copy of every published version. This module makes such an
update on a copy; nothing in the real ``spec/`` is touched.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any, Final

NEW_CORE: Final = "2-0-3"
STATS: Final = "OutputStatisticsOutputDatasetFacet"
NEW_STATS_VERSION: Final = "1-1-0"
COST: Final = "CostRunFacet"
COST_VERSION: Final = "1-0-0"
NEW_CORE_URL: Final = f"https://openlineage.io/spec/{NEW_CORE}/OpenLineage.json"
NEW_STATS_URL: Final = f"https://openlineage.io/spec/facets/{NEW_STATS_VERSION}/{STATS}.json"
COST_URL: Final = f"https://openlineage.io/spec/facets/{COST_VERSION}/{COST}.json"
COST_EXAMPLE: Final = {
    "cost": {
        "_producer": "https://github.com/OpenLineage/OpenLineage/tree/1.99.0/client/python",
        "_schemaURL": f"{COST_URL}#/$defs/{COST}",
        "amount": 12.5,
        "currency": "EUR",
    }
}

# What a copy of the project needs to generate, import and test the models.
_PARTS: Final = ("codegen", "examples", "openlineage_sdk", "spec", "tests", "pyproject.toml")


def copy_project(root: Path, target: Path) -> Path:
    """Copy what generating and testing the models needs from ``root`` into ``target``."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
    for name in _PARTS:
        source = root / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignore)
        else:
            shutil.copy2(source, target / name)
    return target


def _write(path: Path, document: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


def _core_version(spec: Path) -> str:
    core_id = json.loads((spec / "OpenLineage.json").read_text(encoding="utf-8"))["$id"]
    match = re.fullmatch(r"https://openlineage\.io/spec/(\d+-\d+-\d+)/OpenLineage\.json", core_id)
    assert match, core_id
    return match.group(1)


def upstream_copy(spec: Path, target: Path) -> Path:
    """An upstream-style ``spec/`` folder (no ``published/``) made from the vendored one."""
    target.mkdir(parents=True)
    shutil.copy2(spec / "OpenLineage.json", target / "OpenLineage.json")
    for name in ("facets", "tests", "registry"):
        shutil.copytree(spec / name, target / name)
    return target


def update_spec(spec: Path, *, publish: bool = True) -> None:
    """Lay the synthetic update into ``spec`` (a copy of the project's ``spec/``).

    * core 2-0-3: ``Job`` gains an optional ``owner``; facets keep referencing the core version
      they were published against, as upstream's do;
    * ``OutputStatisticsOutputDatasetFacet`` 1-0-2 -> 1-1-0, adding ``partitionCount``;
    * a brand-new ``CostRunFacet`` 1-0-0 with its spec example.

    With ``publish``, each new schema also gets its published copy under ``published/`` (as
    ``python -m codegen --take`` lays them; upstream's own folder has no ``published/``).
    """
    old_core = _core_version(spec)
    core = json.loads((spec / "OpenLineage.json").read_text(encoding="utf-8"))
    text = json.dumps(core).replace(
        f"/spec/{old_core}/OpenLineage.json", f"/spec/{NEW_CORE}/OpenLineage.json"
    )
    core = json.loads(text)
    core["$defs"]["Job"]["properties"]["owner"] = {
        "description": "The team or person that owns the job",
        "type": "string",
    }
    _write(spec / "OpenLineage.json", core)
    if publish:
        _write(spec / "published" / NEW_CORE / "OpenLineage.json", core)

    stats_path = spec / "facets" / f"{STATS}.json"
    stats = json.loads(stats_path.read_text(encoding="utf-8"))
    stats["$id"] = NEW_STATS_URL
    properties = stats["$defs"][STATS]["allOf"][1]["properties"]
    properties["partitionCount"] = {
        "description": "The number of partitions written to the dataset",
        "type": "integer",
    }
    _write(stats_path, stats)
    if publish:
        _write(spec / "published" / "facets" / NEW_STATS_VERSION / f"{STATS}.json", stats)

    cost = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": COST_URL,
        "$defs": {
            COST: {
                "allOf": [
                    {"$ref": f"{NEW_CORE_URL}#/$defs/RunFacet"},
                    {
                        "type": "object",
                        "properties": {
                            "amount": {
                                "description": "What the run cost",
                                "type": "number",
                                "example": 12.5,
                            },
                            "currency": {
                                "description": "ISO 4217 currency code",
                                "type": "string",
                                "example": "EUR",
                            },
                        },
                        "required": ["amount", "currency"],
                    },
                ],
                "type": "object",
            }
        },
        "type": "object",
        "properties": {"cost": {"$ref": f"#/$defs/{COST}"}},
    }
    _write(spec / "facets" / f"{COST}.json", cost)
    if publish:
        _write(spec / "published" / "facets" / COST_VERSION / f"{COST}.json", cost)
    _write(spec / "tests" / COST / "1.json", COST_EXAMPLE)
