"""Lineage report benchmark: histories of 10,000 to 1,000,000 events, reported as text and HTML.

Run with ``python -m benchmarks.report`` (``nox -s bench`` calls it); ``--sizes 10000,100000``
chooses the sizes. It needs igraph and msgspec (the ``[report]`` extra), Playwright and a system
Chromium (Debian's ``chromium``; without one the draw figures are skipped and said so).

The history (:func:`generate`): 500 jobs in 10 namespaces, 2,262 datasets with schemas,
statistics and column lineage, and 10,000 events (10 runs a job, START and COMPLETE or FAIL,
about 5% failed with an error message); each job reads 3 datasets, mostly written by earlier
jobs of its namespace, sometimes by another namespace's, and writes 4 of its own. The larger
histories are copies of it with fresh run ids, each moved on by ten days: the same platform
over a longer time (100,000 events: 100 days, 420 MB of JSON Lines; 1,000,000: 4.2 GB). They
are written to a temporary folder and removed after use.

Figures per size, each command run in a child process of its own as a user runs it
(``openlineage-sdk report FILE`` and ``... --html PAGE``, output to /dev/null): the wall time,
the child's peak memory (its maximum resident set, from ``wait4``), the page's size, and the
time headless Chromium at 1400x1000 takes from navigation until the page is drawn (median of 3
fresh loads; target: under 2 s), and then to draw the whole graph after a click on "Whole
graph".

This is a benchmark, not a test: it prints figures and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
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
                event = _event(
                    rng, state, when, run, run_id, namespace, job, inputs, outputs, columns
                )
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
                out.write(line.replace(run_id, new_id, 1).replace(_time(when), moved, 1) + "\n")
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


def render_seconds(page_path: Path, loads: int = 3) -> list[tuple[float, float]]:
    """Per fresh load: seconds from navigation until the page is drawn, and then seconds to
    draw the whole graph after a click on "Whole graph"."""
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
    # Until the next frame is painted, after the drawing.
    painted = (
        "new Promise(r => requestAnimationFrame(() => requestAnimationFrame("
        "() => r(performance.now()))))"
    )
    figures = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, args=args, headless=True)
        try:
            for _ in range(loads):
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                page = context.new_page()
                page.goto(page_path.as_uri())
                page.wait_for_function("window.lineageReport !== undefined", timeout=120_000)
                drawn = page.evaluate(painted)
                clicked = page.evaluate(
                    "(() => { const t = performance.now(); "
                    "document.getElementById('whole').click(); return t; })()"
                )
                whole = page.evaluate(painted)
                figures.append((drawn / 1000, (whole - clicked) / 1000))
                context.close()
        finally:
            browser.close()
    return figures


def run_report(
    events: Path, html: Path | None = None, source: Path | None = None
) -> tuple[float, float, int]:
    """Run ``openlineage-sdk report`` in a child process: its wall seconds, CPU seconds (user
    and system: what other work on the machine does not inflate) and peak memory (maximum
    resident set) in bytes. ``source``: a folder whose ``openlineage_sdk`` is run instead of
    this one."""
    command = [
        sys.executable,
        "-c",
        "import sys; from openlineage_sdk.cli import main; sys.exit(main())",
        "report",
        str(events),
    ]
    if html is not None:
        command += ["--html", str(html)]
    env = None
    if source is not None:
        path = os.pathsep.join(filter(None, [str(source), os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "PYTHONPATH": path}
    began = time.perf_counter()
    # Run from the history's folder: "python -c" would import a package from the current one.
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=env, cwd=events.parent)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - began
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {child.returncode}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024  # KiB on Linux


@dataclass
class _Row:
    events: int
    text_s: float
    text_cpu: float
    text_peak: int
    html_s: float
    html_cpu: float
    html_peak: int
    page_size: int
    drawn: float | None = None
    whole: float | None = None
    earlier: tuple[float, float, int, float, float, int] | None = None


def _figures(figures: tuple[float, float, int]) -> str:
    seconds, cpu, peak = figures
    return f"{seconds:.2f} s (CPU {cpu:.2f} s), peak memory {_mib(peak)}"


def _mib(count: float) -> str:
    return f"{count / 2**20:,.0f} MiB"


#: ``python -m benchmarks --against REV`` runs REV's report beside this one's (``--earlier``).
AGAINST = True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--sizes",
        default="10000,100000,1000000",
        help="events per history, multiples of 10,000, comma-separated (default: %(default)s)",
    )
    parser.add_argument("--keep", type=Path, default=None, help="also copy the pages here")
    parser.add_argument(
        "--earlier",
        type=Path,
        default=None,
        metavar="DIR",
        help="also run the report of the openlineage_sdk in DIR (an earlier version, e.g. "
        "`git archive REV openlineage_sdk | tar -x -C DIR`), right after this one's",
    )
    parser.add_argument(
        "--earlier-up-to",
        type=int,
        default=100_000,
        metavar="N",
        help="only on histories of up to N events (default %(default)s: the report before "
        "streaming held every event, about 30 GB for 1,000,000)",
    )
    parser.add_argument(
        "--against",
        metavar="REV",
        default=None,
        help="as --earlier, with the openlineage_sdk of a commit, branch or tag of this repository",
    )
    args = parser.parse_args(argv)
    if args.against is not None:
        from benchmarks._against import checkout

        with checkout(args.against) as tree:
            return main(
                [a for a in (argv or []) if a not in ("--against", args.against)]
                + ["--earlier", str(tree)]
            )
    sizes = [int(size) for size in args.sizes.split(",")]
    if any(size % 10_000 or size <= 0 for size in sizes):
        parser.error("--sizes: each must be a positive multiple of 10,000")
    browser = _chromium() is not None
    rows: list[_Row] = []
    for size in sizes:
        with tempfile.TemporaryDirectory() as folder:
            events_path = Path(folder) / f"history-{size}.jsonl"
            jobs, datasets, events = generate(events_path, copies=size // 10_000)
            print(
                f"\nhistory: {jobs} jobs, {datasets:,} datasets, {events:,} events "
                f"({_mib(events_path.stat().st_size)} of JSON Lines)",
                flush=True,
            )
            page_path = Path(folder) / "lineage.html"
            text_s, text_cpu, text_peak = run_report(events_path)
            print(
                f"  text: {text_s:.2f} s (CPU {text_cpu:.2f} s), peak memory {_mib(text_peak)}",
                flush=True,
            )
            earlier = None
            if args.earlier is not None and events <= args.earlier_up_to:
                old_text = run_report(events_path, source=args.earlier)
                print(f"  earlier version, text: {_figures(old_text)}", flush=True)
            html_s, html_cpu, html_peak = run_report(events_path, page_path)
            page_size = page_path.stat().st_size
            print(
                f"  text and HTML: {html_s:.2f} s (CPU {html_cpu:.2f} s), peak memory "
                f"{_mib(html_peak)}; page {page_size / 1e6:.1f} MB",
                flush=True,
            )
            if args.earlier is not None and events <= args.earlier_up_to:
                old_html = run_report(events_path, Path(folder) / "earlier.html", args.earlier)
                print(f"  earlier version, text and HTML: {_figures(old_html)}", flush=True)
                earlier = old_text + old_html
            if args.keep is not None:
                args.keep.mkdir(parents=True, exist_ok=True)
                shutil.copy(page_path, args.keep / f"lineage-{size}.html")
            drawn = whole = None
            if browser:
                figures = render_seconds(page_path)
                drawn = statistics.median(f[0] for f in figures)
                whole = statistics.median(f[1] for f in figures)
                print(
                    f"  drawn in headless Chromium 1400x1000, navigation to painted: "
                    f"{', '.join(f'{f[0]:.2f}' for f in figures)} s (median {drawn:.2f} s; "
                    f"target: under 2 s); whole graph after the click: median {whole:.2f} s",
                    flush=True,
                )
            rows.append(
                _Row(events, text_s, text_cpu, text_peak, html_s, html_cpu, html_peak, page_size)
            )
            rows[-1].drawn, rows[-1].whole, rows[-1].earlier = drawn, whole, earlier
    print(
        "\n| events | text: time (CPU), peak memory | text and HTML: time (CPU), peak memory "
        "| page | drawn (whole graph) | earlier version: text; text and HTML |"
        "\n|---|---|---|---|---|---|"
    )
    for row in rows:
        drawn_text = (
            "skipped: no browser"
            if row.drawn is None or row.whole is None
            else f"{row.drawn:.2f} s ({row.whole:.2f} s)"
        )
        print(
            f"| {row.events:,} | {row.text_s:.1f} s ({row.text_cpu:.1f} s), "
            f"{_mib(row.text_peak)} | {row.html_s:.1f} s ({row.html_cpu:.1f} s), "
            f"{_mib(row.html_peak)} | {row.page_size / 1e6:.1f} MB | {drawn_text} | "
            + (
                "not run"
                if row.earlier is None
                else f"{row.earlier[0]:.1f} s ({row.earlier[1]:.1f} s), {_mib(row.earlier[2])}; "
                f"{row.earlier[3]:.1f} s ({row.earlier[4]:.1f} s), {_mib(row.earlier[5])}"
            )
            + " |"
        )
    if not browser:
        print("draw times skipped: no browser found (install Debian's chromium)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
