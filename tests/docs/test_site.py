"""The documentation site builds in strict mode, and every public name is in its API reference."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from docsgen import api
from tests.conftest import ROOT


@pytest.mark.slow
def test_the_site_builds_strict_with_every_public_name_in_the_api_reference(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    completed = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    assert api.missing_names(site) == []
    names = api.public_names()
    assert len(names) > 200
    assert "openlineage_sdk.read_event" in names
    assert "openlineage_sdk.spark.install" in api.anchors(site)
    # The generated configuration reference is on its page, not its markers.
    reference = (site / "configuration" / "reference" / "index.html").read_text(encoding="utf-8")
    assert "spark.openlineage.streaming.runningInterval" in reference
    assert "reference:" not in reference


def test_a_public_name_without_an_entry_is_found_missing(tmp_path: Path) -> None:
    names = api.public_names()
    page = tmp_path / "api" / "all" / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text("".join(f'<h2 id="{name}">{name}</h2>' for name in names[1:]), encoding="utf-8")
    assert api.missing_names(tmp_path) == [names[0]]
