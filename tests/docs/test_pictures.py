"""The site's picture of a large history's report is taken from the page the code makes today.

``docsgen.pictures`` takes the pictures in the tests' headless Chromium; the test takes the
failures picture from a small copy of the benchmark's history and checks the page it shows is
what the picture's caption says (the latest failures, a failed job's runs). The demo's picture
needs a Spark driver: ``tests/spark/test_docs_spark.py``.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from docsgen.pictures import DEMO_SIZE, FAILURES_SIZE, failures_picture


def png_size(path: Path) -> tuple[int, int]:
    """The width and height a PNG file's header gives."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


@pytest.mark.slow
def test_the_failures_picture_shows_the_latest_failures_and_a_failed_jobs_runs(
    tmp_path: Path,
) -> None:
    picture = tmp_path / "failures.png"
    shown = failures_picture(picture, tmp_path, copies=1)
    assert shown["view"].startswith("The 3 latest failures (of 21 jobs whose latest run failed)")
    assert shown["runs"] == 10  # one copy of the history: ten runs a job, all listed
    assert shown["earlier"] is None
    assert png_size(picture) == FAILURES_SIZE


def test_the_pages_show_the_pictures_the_tools_take() -> None:
    from tests.conftest import ROOT

    report = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    for name, size in (("lineage-demo.png", DEMO_SIZE), ("lineage-failures.png", FAILURES_SIZE)):
        assert f"]({name})" in report
        assert png_size(ROOT / "docs" / name) == size
