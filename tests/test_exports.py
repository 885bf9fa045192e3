"""The packages' lazily imported names: each one listed resolves, and each one resolving is listed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

_PROBE = """
import json, sys, types
m = __import__({module!r}, fromlist=["_"])
listed = set(m.__all__)
offered = {{n for n in dir(m) if not n.startswith("_")
            and not isinstance(getattr(m, n), types.ModuleType)
            and n not in ("TYPE_CHECKING", "lazy_exports", "annotations")}}
print(json.dumps({{
    "unresolved": sorted(n for n in listed if not hasattr(m, n)),
    "unlisted": sorted(offered - listed),
    "unoffered": sorted(listed - set(dir(m))),
}}))
"""


@pytest.mark.parametrize("module", ["openlineage_sdk", "openlineage_sdk.transports"])
def test_listed_names_resolve_and_resolving_names_are_listed(module: str) -> None:
    # A fresh interpreter: nothing imported yet, so every name goes through the lazy path.
    result = subprocess.run(
        [sys.executable, "-c", _PROBE.format(module=module)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(result.stdout) == {"unresolved": [], "unlisted": [], "unoffered": []}


def test_an_unknown_name_is_an_attribute_error() -> None:
    import openlineage_sdk

    with pytest.raises(AttributeError, match="module 'openlineage_sdk' has no attribute 'Nope'"):
        _ = openlineage_sdk.Nope  # type: ignore[attr-defined]
