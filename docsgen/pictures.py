"""The site's pictures of the lineage report, taken in the tests' own headless Chromium.

* :func:`demo_picture`: the demo's graph (``nox -s demo``'s pipeline on local Spark), with the
  customer value table's panel open on where its ``total_spent`` column comes from
  (``docs/lineage-demo.png``).
* :func:`failures_picture`: the page of the report benchmark's large history, which opens on the
  latest failures, with a failed job's panel open (``docs/lineage-failures.png``).

Each returns what the picture shows, read from the page, so that a test can check it says what
the page's caption says. ``python -m docsgen.pictures`` (what ``nox -s docs -- --pictures``
runs) takes both again into ``docs/``; it needs PySpark and Java for the demo, the report's
extra (igraph) and Chromium (``.ci/install-browser``).
"""

from __future__ import annotations

import io
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["DEMO_SIZE", "FAILURES_SIZE", "demo_picture", "failures_picture", "main"]

ROOT = Path(__file__).resolve().parents[1]
#: The pictures' sizes: the demo's graph is wide and low, a large history's page fills a screen.
DEMO_SIZE, FAILURES_SIZE = (1700, 700), (1400, 1000)


def _open(page: Any, html: Path) -> None:
    page.goto(html.as_uri())
    page.wait_for_function("window.lineageReport !== undefined")


def demo_picture(out: Path, workdir: Path, *, orders: int = 100_000) -> dict[str, Any]:
    """Run the demo and photograph its graph, a table's panel open on a column's lineage.

    Args:
        out: the PNG to write.
        workdir: the demo's working folder.
        orders: how many orders the demo generates (its default, 100,000, for the site).

    Returns:
        What the picture shows: ``table`` (the panel's heading), ``column`` and ``upstream``
        (the columns it comes from, as ``dataset:field``).
    """
    sys.path.insert(0, str(ROOT))
    from openlineage_sdk.spark.demo import run_demo
    from tests._browser import chromium_page

    result = run_demo(workdir, orders=orders, out=io.StringIO())
    with chromium_page(*DEMO_SIZE) as page:
        _open(page, result.html)
        table = page.locator(".node.dataset", has=page.locator("title", has_text="customer_value"))
        table.first.click()
        page.locator("#panel button.col[data-field='total_spent']").click()
        upstream = page.locator("#panel li.upcol")
        upstream.first.wait_for()
        page.locator("#fit").click()  # the whole graph in view (at once), the panel still open
        shown = {
            "table": page.locator("#panel h2").text_content(),
            "column": "total_spent",
            "upstream": sorted(
                f"{u.get_attribute('data-dataset')}:{u.get_attribute('data-field')}"
                for u in upstream.all()
            ),
        }
        page.screenshot(path=str(out))
    return shown


def failures_picture(out: Path, workdir: Path, *, copies: int = 10) -> dict[str, Any]:
    """Photograph the report of the benchmark's history: it opens on its latest failures.

    Args:
        out: the PNG to write.
        workdir: where the history and its page are written.
        copies: copies of the benchmark's 10,000-event history (10 for the site's 100,000).

    Returns:
        What the picture shows: ``view`` (the line under the tools), ``job`` (the failed job
        whose panel is open), ``runs`` (the runs its panel lists) and ``earlier`` (its line
        about the earlier runs, or ``None``).
    """
    sys.path.insert(0, str(ROOT))
    from benchmarks.report import generate
    from openlineage_sdk.report import lineage_html, read_graph
    from tests._browser import chromium_page

    history = workdir / "history.jsonl"
    generate(history, copies=copies)
    html = workdir / "lineage.html"
    html.write_text(lineage_html(read_graph(history), title="Platform"), encoding="utf-8")
    with chromium_page(*FAILURES_SIZE) as page:
        _open(page, html)
        failed = page.locator(".node.job.FAIL").first
        failed.click()
        page.locator("#panel tr.run").first.wait_for()
        earlier = page.locator("#panel .earlier")
        shown = {
            "view": page.locator("#view-info").text_content(),
            "job": page.locator("#panel h2").text_content(),
            "runs": page.locator("#panel tr.run").count(),
            "earlier": earlier.text_content() if earlier.count() else None,
        }
        page.screenshot(path=str(out))
    return shown


def main(arguments: list[str] | None = None) -> int:
    """Take both pictures again into ``docs/`` (``nox -s docs -- --pictures``).

    Args:
        arguments: unused; the command takes none.

    Returns:
        0.
    """
    # The demo's folder shows in the picture's panel: a plain name, not a random one.
    demo = Path(tempfile.gettempdir()) / "openlineage-demo"
    try:
        shown = demo_picture(ROOT / "docs" / "lineage-demo.png", demo)
        print(f"docs/lineage-demo.png: {shown}")
    finally:
        shutil.rmtree(demo, ignore_errors=True)
    with tempfile.TemporaryDirectory() as folder:
        shown = failures_picture(ROOT / "docs" / "lineage-failures.png", Path(folder))
        print(f"docs/lineage-failures.png: {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
