"""Lineage report benchmark: a large generated history, written as HTML and opened in Chromium.

Run with ``python -m benchmarks.report`` (``nox -s bench`` calls it). It needs igraph (the
``[report]`` extra), Playwright and a system Chromium (Debian's ``chromium``; without one the
render figure is skipped and said so).

The history (:func:`generate`): 500 jobs in 10 namespaces, 2,000 datasets with schemas,
statistics and column lineage, and 10,000 events (10 runs a job, START and COMPLETE or FAIL,
about 5% failed with an error message); each job reads 3 datasets, mostly written by earlier
jobs of its namespace, sometimes by another namespace's, and writes 4 of its own.

Figures: the time to read the events and write the page (layout included), the page's size
(target: under 5 MB), and the time headless Chromium at 1400x1000 takes from navigation until
the graph is drawn and fitted (target: under 2 s), the median of 3 fresh page loads.

This is a benchmark, not a test: it prints figures and exits 0.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

JOBS, NAMESPACES, RUNS, READS, WRITES = 500, 10, 10, 3, 4
SCHEMA = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
PRODUCER = "https://github.com/openlineage-sdk/openlineage-sdk/benchmarks"
FACET = "https://openlineage.io/spec/facets/1-0-0/{}.json#/$defs/{}"


def generate(path: Path, copies: int = 1, seed: int = 7) -> tuple[int, int, int]:
    """Write the history as JSON Lines at ``path``; return (jobs, datasets, events).

    ``copies`` > 1 writes the history that many times over, each copy with fresh run ids and
    its times moved on by the length of one history (``RUNS`` days): the same platform over a
    longer time, with ``copies`` times the runs and events.
    """
    rng = random.Random(seed)
    written: dict[int, list[tuple[str, str]]] = {n: [] for n in range(NAMESPACES)}
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    datasets: set[tuple[str, str]] = set()
    columns = ["id", "customer", "amount", "day", "status"]
    # The first copy, kept as (line, run id, event time) to write the other copies from.
    history: list[tuple[str, str, datetime]] = []
    for number in range(JOBS):
        space = number % NAMESPACES
        namespace, job = f"team{space}", f"pipeline{space}.step{number // NAMESPACES:03d}"
        pool = (
            written[space]
            if rng.random() < 0.9 or not number
            else written[rng.randrange(NAMESPACES)]
        )
        inputs = []
        for _ in range(READS):
            if pool and rng.random() < 0.85:
                inputs.append(rng.choice(pool))
            else:
                inputs.append((f"s3://raw-{space}", f"landing/source_{number}_{len(inputs)}"))
        inputs = list(dict.fromkeys(inputs))
        outputs = [
            (f"s3://lake-{space}", f"{job.replace('.', '/')}/table{k}") for k in range(WRITES)
        ]
        written[space].extend(outputs)
        datasets.update(inputs, outputs)
        for run in range(RUNS):
            run_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            began = start + timedelta(hours=run * 24 + number % 24, seconds=rng.randrange(600))
            failed = rng.random() < 0.05
            for state in ("START", "FAIL" if failed else "COMPLETE"):
                when = (
                    began if state == "START" else began + timedelta(seconds=rng.randrange(30, 900))
                )
                event = _event(rng, state, when, run, run_id, namespace, job, inputs, outputs, columns)
                history.append((json.dumps(event, separators=(",", ":")), run_id, when))
    with path.open("w", encoding="utf-8") as out:
        for line, _, _ in history:
            out.write(line + "\n")
        for copy in range(1, copies):
            fresh: dict[str, str] = {}
            shift = timedelta(days=RUNS * copy)
            for line, run_id, when in history:
                new_id = fresh.get(run_id)
                if new_id is None:
                    new_id = fresh[run_id] = str(uuid.UUID(int=rng.getrandbits(128), version=4))
                moved = (when + shift).isoformat().replace("+00:00", "Z")
                out.write(
                    line.replace(run_id, new_id, 1).replace(_time(when), moved, 1) + "\n"
                )
    return JOBS, len(datasets), len(history) * copies


def _time(when: datetime) -> str:
    return when.isoformat().replace("+00:00", "Z")


def _event(
    rng: random.Random,
    state: str,
    when: datetime,
    run: int,
    run_id: str,
    namespace: str,
    job: str,
    inputs: list[tuple[str, str]],
    outputs: list[tuple[str, str]],
    columns: list[str],
) -> dict[str, object]:
    run_facets: dict[str, object] = {}
    if state == "FAIL":
        run_facets["errorMessage"] = {
            "_producer": PRODUCER,
            "_schemaURL": FACET.format("ErrorMessageRunFacet", "ErrorMessageRunFacet"),
            "message": f"java.io.IOException: disk quota exceeded writing run {run}",
            "programmingLanguage": "JAVA",
        }
    return {
        "eventType": state,
        "eventTime": _time(when),
        "run": {"runId": run_id, "facets": run_facets},
        "job": {"namespace": namespace, "name": job},
        "inputs": [{"namespace": ns, "name": name} for ns, name in inputs],
        "outputs": [
            {
                "namespace": ns,
                "name": name,
                "facets": {
                    "schema": {
                        "_producer": PRODUCER,
                        "_schemaURL": FACET.format("SchemaDatasetFacet", "SchemaDatasetFacet"),
                        "fields": [{"name": c, "type": "string"} for c in columns],
                    },
                    "columnLineage": {
                        "_producer": PRODUCER,
                        "_schemaURL": FACET.format(
                            "ColumnLineageDatasetFacet", "ColumnLineageDatasetFacet"
                        ),
                        "fields": {
                            c: {
                                "inputFields": [
                                    {
                                        "namespace": inputs[0][0],
                                        "name": inputs[0][1],
                                        "field": c,
                                        "transformations": [
                                            {"type": "DIRECT", "subtype": "IDENTITY"}
                                        ],
                                    }
                                ]
                            }
                            for c in columns
                        },
                    },
                }
                if state != "START"
                else {},
                "outputFacets": {
                    "outputStatistics": {
                        "_producer": PRODUCER,
                        "_schemaURL": FACET.format(
                            "OutputStatisticsOutputDatasetFacet",
                            "OutputStatisticsOutputDatasetFacet",
                        ),
                        "rowCount": rng.randrange(10**6),
                        "size": rng.randrange(10**9),
                        "fileCount": rng.randrange(1, 50),
                    }
                }
                if state == "COMPLETE"
                else {},
            }
            for ns, name in outputs
        ],
        "producer": PRODUCER,
        "schemaURL": SCHEMA,
    }


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def render_seconds(page_path: Path, loads: int = 3) -> list[float]:
    """Seconds from navigation until the page has drawn and fitted the graph, per fresh load."""
    from playwright.sync_api import sync_playwright

    executable = _chromium()
    assert executable is not None
    args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
    figures = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, args=args, headless=True)
        try:
            for _ in range(loads):
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                page = context.new_page()
                page.goto(page_path.as_uri())
                page.wait_for_function("window.lineageReport !== undefined", timeout=120_000)
                # Until the next frame is painted, after the drawing and the fit.
                ms = page.evaluate(
                    "new Promise(r => requestAnimationFrame(() => requestAnimationFrame("
                    "() => r(performance.now()))))"
                )
                figures.append(ms / 1000)
                context.close()
        finally:
            browser.close()
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, default=None, help="also copy the page here")
    args = parser.parse_args(argv)

    from openlineage_sdk.report import build_graph, lineage_html, load_events

    with tempfile.TemporaryDirectory() as folder:
        events_path = Path(folder) / "history.jsonl"
        jobs, datasets, events = generate(events_path)
        print(
            f"history: {jobs} jobs, {datasets:,} datasets, {events:,} events "
            f"({events_path.stat().st_size / 2**20:.1f} MiB of JSON Lines)"
        )
        began = time.perf_counter()
        graph = build_graph(load_events(events_path))
        read = time.perf_counter() - began
        began = time.perf_counter()
        page = lineage_html(graph, title="Generated history")
        made = time.perf_counter() - began
        page_path = Path(folder) / "lineage.html"
        page_path.write_text(page, encoding="utf-8")
        size = page_path.stat().st_size
        print(f"read and fold the events: {read:.2f} s; lay out and write the page: {made:.2f} s")
        print(f"page size: {size / 1e6:.2f} MB (target: under 5 MB)")
        if args.keep is not None:
            shutil.copy(page_path, args.keep)
        if _chromium() is None:
            print("render time: skipped, no browser found (install Debian's chromium)")
            return 0
        figures = render_seconds(page_path)
        print(
            f"render in headless Chromium 1400x1000, navigation to drawn and fitted: median "
            f"{statistics.median(figures):.2f} s of {len(figures)} loads "
            f"({', '.join(f'{f:.2f}' for f in figures)}) (target: under 2 s)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
