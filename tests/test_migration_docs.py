"""Every example of the migration guide (docs/migration/official-client.md) runs as written."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

GUIDE = ROOT / "docs" / "migration" / "official-client.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)


def test_the_guide_has_its_examples() -> None:
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("number", range(len(EXAMPLES)))
def test_each_example_runs(number: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Each example alone, as a reader runs it: a fresh folder, no OPENLINEAGE_* settings.
    for name in list(os.environ):
        if name.startswith("OPENLINEAGE"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    fsspec = pytest.importorskip("fsspec")
    fsspec.filesystem("memory").store.clear()
    code = compile(EXAMPLES[number], f"{GUIDE.name} example {number + 1}", "exec")
    exec(code, {"__name__": f"example_{number + 1}"})
