"""The documentation's PySpark examples run as written, on a Spark driver of their own.

A page needs a driver when its examples use a session named ``spark`` they do not make
(``docsgen.examples.needs_spark``); the pages are found by themselves, so a page added later is
run too. They run one after the other in one process on one local driver started in a fresh
folder (its working folder, so the examples' relative paths, ``lake/raw/orders``, are what they
say), which ``docsgen.examples.main`` leaves empty between two pages; each page's hidden checks
assert its events. One test per page reads that page's outcome.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from docsgen.examples import needs_spark, pages
from tests.conftest import ROOT

SPARK_PAGES = [page for page in pages() if needs_spark(page)]


def _id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def test_the_pyspark_guides_have_examples_that_need_a_driver() -> None:
    found = {_id(page) for page in SPARK_PAGES}
    assert {"docs/spark/index.md", "docs/spark/streams.md", "docs/spark/sql.md"} <= found


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str | None]:
    """Every Spark page run once, on one driver: page -> None, or what went wrong."""
    root = tmp_path_factory.mktemp("docs-spark")
    work = root / "work"
    work.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("OPENLINEAGE", "SPARK_CONNECT_MODE", "PYSPARK_DRIVER"))
    }
    env.update(
        PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        HOME=str(root / "home"),
        XDG_CACHE_HOME=str(root / "cache"),
        SPARK_LOCAL_IP="127.0.0.1",
        PYSPARK_PYTHON=sys.executable,
    )
    report = root / "outcomes.json"
    completed = subprocess.run(
        [sys.executable, "-m", "docsgen.examples", "--report", str(report)]
        + [str(page) for page in SPARK_PAGES],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if not report.exists():
        pytest.fail(f"the examples' driver did not report:\n{completed.stderr[-6000:]}")
    result: dict[str, str | None] = json.loads(report.read_text(encoding="utf-8"))
    return result


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.parametrize("page", SPARK_PAGES, ids=_id)
def test_the_pyspark_examples_of_a_page_run(page: Path, outcomes: dict[str, str | None]) -> None:
    assert str(page) in outcomes, "the page was not run"
    assert outcomes[str(page)] is None, outcomes[str(page)]


@pytest.mark.spark
@pytest.mark.slow
def test_the_demo_picture_shows_a_tables_column_and_where_it_comes_from(tmp_path: Path) -> None:
    """The site's picture of the demo's graph: the demo run small, photographed as the site's.

    In a process of its own, as the site's build takes it: the demo starts a Spark driver of its
    own, and this process may run the tests' shared one.
    """
    work = tmp_path / "demo"
    work.mkdir()
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from docsgen.pictures import demo_picture\n"
        "shown = demo_picture(Path(sys.argv[1]), Path(sys.argv[2]), orders=2_000)\n"
        "print(json.dumps(shown))\n"
    )
    env = {key: value for key, value in os.environ.items() if not key.startswith("OPENLINEAGE")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    completed = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "demo.png"), str(work)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-6000:]
    shown = json.loads(completed.stdout.strip().splitlines()[-1])
    assert shown["table"].endswith("customer_value")
    assert shown["upstream"], "the column's upstream columns are listed"
    assert all(item.endswith(":amount") for item in shown["upstream"]), shown["upstream"]
    assert (tmp_path / "demo.png").stat().st_size > 10_000


@pytest.mark.spark
def test_the_demo_refuses_to_take_over_a_driver_already_running(spark: Any, tmp_path: Path) -> None:
    """In-process, with a driver running, the demo says so and leaves that driver running."""
    from openlineage_sdk.spark.demo import run_demo

    with pytest.raises(RuntimeError, match="a Spark driver of its own"):
        run_demo(tmp_path, orders=10, out=io.StringIO())
    assert spark.range(3).count() == 3
