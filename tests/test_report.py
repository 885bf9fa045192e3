"""Reports of event files: the text summary, the HTML lineage graph and the CLI."""

from __future__ import annotations

import io
import itertools
import json
import os
import random
import re
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk import OpenLineage, naming, report
from openlineage_sdk import facets as f
from openlineage_sdk.cli import main
from openlineage_sdk.lifecycle import output_dataset
from openlineage_sdk.report import build_graph, lineage_html, load_events, read_graph, summary
from openlineage_sdk.transports import FileTransport


@pytest.fixture
def events_file(tmp_path: Path) -> Path:
    path = tmp_path / "events.jsonl"
    client = OpenLineage(transport=FileTransport(path=path), namespace="shop")
    raw = naming.s3("lake", "raw/orders")
    curated = output_dataset(
        naming.s3("lake", "curated/orders"),
        facets=[
            f.SchemaDatasetFacet(
                fields=[{"name": "id", "type": "bigint"}, {"name": "total", "type": "double"}]
            ),
            f.ColumnLineageDatasetFacet(
                fields={
                    "total": {
                        "inputFields": [
                            {
                                "namespace": "s3://lake",
                                "name": "raw/orders",
                                "field": "price",
                                "transformations": [{"type": "DIRECT", "subtype": "AGGREGATION"}],
                            },
                            {
                                "namespace": "s3://lake",
                                "name": "raw/orders",
                                "field": "quantity",
                                "transformations": [{"type": "DIRECT", "subtype": "AGGREGATION"}],
                            },
                        ]
                    },
                    "id": {
                        "inputFields": [
                            {
                                "namespace": "s3://lake",
                                "name": "raw/orders",
                                "field": "order_id",
                                "transformations": [{"type": "DIRECT", "subtype": "IDENTITY"}],
                            }
                        ]
                    },
                }
            ),
        ],
        output_facets=[
            f.OutputStatisticsOutputDatasetFacet(row_count=1234, size=2048, file_count=2)
        ],
    )
    report = output_dataset(naming.s3("lake", "reports/daily"))
    with client.run("orders_app"):
        with client.run("orders_app.clean", inputs=[raw], outputs=[curated]):
            pass
        with (
            pytest.raises(RuntimeError),
            client.run(
                "orders_app.report", inputs=[naming.s3("lake", "curated/orders")], outputs=[report]
            ),
        ):
            raise RuntimeError("disk full")
    client.close()
    return path


def test_summary_lists_jobs_runs_states_and_datasets(events_file: Path) -> None:
    events = load_events(events_file)
    text = summary(events)
    assert text.startswith("6 events, 3 jobs, 3 runs, 3 datasets")
    assert re.search(
        r"shop/orders_app\.clean\n    run [0-9a-f-]{36}: START -> COMPLETE in [0-9.]+s  \(child of shop/orders_app\)",
        text,
    )
    assert re.search(
        r"shop/orders_app\.report\n    run [0-9a-f-]{36}: START -> FAIL.*\n      error: .*disk full",
        text,
    )
    assert "s3://lake/curated/orders  [1,234 rows, 2.0 KiB, 2 files]" in text
    assert "written by shop/orders_app.clean" in text


def test_graph_links_inputs_through_jobs_to_outputs(events_file: Path) -> None:
    graph = build_graph(load_events(events_file))
    assert ("s3://lake/raw/orders", "shop/orders_app.clean") in graph.edges
    assert ("shop/orders_app.clean", "s3://lake/curated/orders") in graph.edges
    assert ("s3://lake/curated/orders", "shop/orders_app.report") in graph.edges


def test_a_graph_built_once_serves_both_reports(events_file: Path) -> None:
    events = load_events(events_file)
    graph = build_graph(events)
    assert graph.events == 6
    assert summary(graph) == summary(events)
    assert lineage_html(graph, title="Shop") == lineage_html(iter(events), title="Shop")


def test_html_is_self_contained(events_file: Path) -> None:
    page = lineage_html(load_events(events_file), title="Shop")
    assert page.startswith("<!DOCTYPE html>")
    assert '<svg id="graph"' in page
    assert "src=" not in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "").replace(
        'createElementNS("http://www.w3.org/2000/svg"', ""
    )
    assert "https://" not in page


def _page_data(page: str) -> dict[str, Any]:
    start = page.index('<script type="application/json" id="lineage-data">')
    text = page[page.index(">", start) + 1 : page.index("</script>", start)]
    data: dict[str, Any] = json.loads(text)
    return data


def test_page_data_has_states_runs_errors_and_column_lineage(events_file: Path) -> None:
    data = _page_data(lineage_html(load_events(events_file), title="Shop"))
    nodes = {n["name"] if n["kind"] == "job" else n["uri"]: n for n in data["nodes"]}
    assert nodes["orders_app.report"]["state"] == "FAIL"
    [run] = nodes["orders_app.report"]["runs"]
    assert run[1] == "FAIL"
    assert "disk full" in run[5]
    assert nodes["orders_app.clean"]["state"] == "COMPLETE"
    index = data["nodes"].index(nodes["orders_app"])
    assert nodes["orders_app.clean"]["parent"] == index
    curated = nodes["s3://lake/curated/orders"]
    assert (curated["rows"], curated["bytes"], curated["files"]) == (1234, 2048, 2)
    assert [(uri, col, how) for _, uri, col, how in curated["lineage"]["total"]] == [
        ("s3://lake/raw/orders", "price", "DIRECT/AGGREGATION"),
        ("s3://lake/raw/orders", "quantity", "DIRECT/AGGREGATION"),
    ]
    kinds = sorted(e[2] for e in data["edges"])
    assert kinds == ["data"] * 4 + ["parent"] * 2


def _overlaps(box: tuple[float, float, float, float], a: list[float], b: list[float]) -> bool:
    """Whether the segment a-b passes through the inside of box (x, y, w, h)."""
    x, y, w, h = box
    steps = 50
    for i in range(steps + 1):
        px = a[0] + (b[0] - a[0]) * i / steps
        py = a[1] + (b[1] - a[1]) * i / steps
        if x + 1 < px < x + w - 1 and y + 1 < py < y + h - 1:
            return True
    return False


def test_layout_is_layered_left_to_right_and_no_edge_passes_under_a_node(tmp_path: Path) -> None:
    # A wide and deep graph: long edges that skip layers must go around the boxes between.
    path = tmp_path / "many.jsonl"
    client = OpenLineage(transport=FileTransport(path=path), namespace="wide")
    for step in range(6):
        inputs = [naming.s3("lake", f"t{step}")] + ([naming.s3("lake", "t0")] if step > 1 else [])
        outputs = [output_dataset(naming.s3("lake", f"t{step + 1}"))]
        outputs += [output_dataset(naming.s3("lake", f"side{step}_{k}")) for k in range(3)]
        with client.run(f"job{step}", inputs=inputs, outputs=outputs):
            pass
    client.close()
    data = _page_data(lineage_html(load_events(path)))
    width, height = data["box"]
    nodes = data["nodes"]
    for source, target, _, bends in data["edges"]:
        assert nodes[source]["x"] < nodes[target]["x"]  # left to right
        points = [[nodes[source]["x"] + width, nodes[source]["y"] + height / 2]]
        for x, y in bends:
            points += [[x, y + height / 2], [x + width, y + height / 2]]
        points.append([nodes[target]["x"], nodes[target]["y"] + height / 2])
        for node in nodes:
            box = (node["x"], node["y"], width, height)
            for a, b in itertools.pairwise(points):
                assert not _overlaps(box, a, b), (source, target, node)


def test_cli_prints_the_summary_and_writes_the_graph(events_file: Path, tmp_path: Path) -> None:
    out = io.StringIO()
    html_path = tmp_path / "lineage.html"
    assert main(["report", str(events_file), "--html", str(html_path)], out=out) == 0
    assert "3 jobs" in out.getvalue()
    assert html_path.read_text().count("<svg") == 1


def _cli(*arguments: str) -> list[str]:
    script = "import sys; from openlineage_sdk.cli import main; sys.exit(main())"
    return [sys.executable, "-c", script, *arguments]


def _environment(unbuffered: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
def test_report_to_a_reader_gone_before_it_writes_ends_quietly(
    events_file: Path, tmp_path: Path, unbuffered: bool
) -> None:
    # The reader has gone before anything is written: every write fails, also the last flush
    # of what stdout still buffers, which Python would otherwise report at exit (status 120).
    html_path = tmp_path / "lineage.html"
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            _cli("report", str(events_file), "--html", str(html_path)),
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=_environment(unbuffered),
            check=False,
        )
    finally:
        os.close(write_end)
    errors = done.stderr.decode()
    assert "Traceback" not in errors
    assert "BrokenPipeError" not in errors
    assert done.returncode == 141
    assert html_path.read_text(encoding="utf-8").count("<svg") == 1  # written before the text


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
def test_report_into_a_closed_pipe_ends_quietly(tmp_path: Path, unbuffered: bool) -> None:
    # `report ... | head -1`: the reader takes the first line and goes away. The summary is
    # far larger than any pipe holds, so the command is still writing when it goes.
    many = tmp_path / "many.jsonl"
    with many.open("w", encoding="utf-8") as out:
        for number in range(40_000):
            event = {
                "eventType": "START",
                "eventTime": "2026-01-01T00:00:00Z",
                "run": {"runId": str(uuid.UUID(int=number))},
                "job": {"namespace": "big", "name": f"job{number:05d}"},
                "producer": "https://example.com/test",
                "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
            }
            out.write(json.dumps(event) + "\n")
    with subprocess.Popen(
        _cli("report", str(many)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_environment(unbuffered),
    ) as proc:
        assert proc.stdout is not None
        assert proc.stderr is not None
        first = proc.stdout.readline()
        proc.stdout.close()
        errors = proc.stderr.read().decode()
    assert first.startswith(b"40000 events, 40000 jobs")
    assert "Traceback" not in errors
    assert "BrokenPipeError" not in errors
    assert proc.returncode == 141


def test_a_line_that_is_not_an_event_is_named(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"eventTime": "x"}\n')
    with pytest.raises(ValueError, match=r"bad\.jsonl:1"):
        load_events(path)
    with pytest.raises(ValueError, match=r"bad\.jsonl:1"):
        read_graph(path)


@pytest.mark.parametrize("seed", range(12))
def test_no_edge_passes_under_a_node_in_random_graphs(seed: int) -> None:
    rng = random.Random(seed)
    size = rng.randint(8, 40)
    edges = sorted({tuple(sorted(rng.sample(range(size), 2))) for _ in range(size * 2)})
    corners, bends = report._layout([str(n) for n in range(size)], edges)  # type: ignore[arg-type]
    width, height = report._WIDTH, report._HEIGHT
    for (source, target), route in zip(edges, bends, strict=True):
        points = [[corners[source][0] + width, corners[source][1] + height / 2]]
        for x, y in route:
            points += [[x, y + height / 2], [x + width, y + height / 2]]
        points.append([corners[target][0], corners[target][1] + height / 2])
        for x, y in corners:
            for a, b in itertools.pairwise(points):
                assert not _overlaps((x, y, width, height), a, b)
    assert len(set(corners)) == size  # no two boxes on one spot


# ----------------------------------------------------------------------- in a real browser
@pytest.fixture
def page_of(tmp_path: Path) -> Iterator[Callable[[str], Any]]:
    """Open a report in headless Chromium (1400x1000); record console errors and requests."""
    from tests._browser import chromium_page

    with chromium_page() as page:
        problems: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on(
            "request",
            lambda r: None if r.url.startswith("file:") else problems.append(f"request {r.url}"),
        )

        def open_page(html_text: str) -> Any:
            path = tmp_path / "lineage.html"
            path.write_text(html_text, encoding="utf-8")
            page.goto(path.as_uri())
            page.wait_for_function("window.lineageReport !== undefined")
            page.problems = problems
            return page

        yield open_page
    assert problems == []


def _node(page: Any, label: str) -> Any:
    return page.locator(".node", has=page.locator(f"title:text-is('{label}')"))


@pytest.mark.slow
def test_browser_page_loads_offline_with_every_node_in_view(events_file: Path, page_of) -> None:
    page = page_of(lineage_html(load_events(events_file), title="Shop"))
    assert page.problems == []
    canvas = page.locator("#graph").bounding_box()
    boxes = [n.bounding_box() for n in page.locator(".node").all()]
    assert len(boxes) == 6
    for box in boxes:
        assert box["x"] >= canvas["x"]
        assert box["y"] >= canvas["y"]
        assert box["x"] + box["width"] <= canvas["x"] + canvas["width"] + 0.5
        assert box["y"] + box["height"] <= canvas["y"] + canvas["height"] + 0.5
    page.locator("#zoom-in").click()
    page.locator("#zoom-in").click()
    page.locator("#fit").click()  # fit brings everything back after zooming
    for node in page.locator(".node").all():
        box = node.bounding_box()
        assert canvas["x"] <= box["x"] <= canvas["x"] + canvas["width"] - box["width"] + 0.5


@pytest.mark.slow
def test_browser_shows_a_failed_run_as_failed_with_its_error(events_file: Path, page_of) -> None:
    page = page_of(lineage_html(load_events(events_file), title="Shop"))
    failed = _node(page, "shop/orders_app.report")
    assert "FAIL" in (failed.get_attribute("class") or "").split()
    assert "✖ FAIL" in failed.locator(".tag").text_content()
    healthy = _node(page, "shop/orders_app.clean")
    assert "COMPLETE" in (healthy.get_attribute("class") or "").split()
    assert "in orders_app" in healthy.locator(".tag").text_content()  # its parent job
    failed.click()
    assert page.locator("#panel tr.run.FAIL").count() == 1
    assert "disk full" in page.locator("#panel .error").text_content()


@pytest.mark.slow
def test_browser_column_click_highlights_the_upstream_columns(events_file: Path, page_of) -> None:
    page = page_of(lineage_html(load_events(events_file), title="Shop"))
    _node(page, "s3://lake/curated/orders").click()
    assert page.locator("#panel h3", has_text="Statistics").count() == 1
    assert "1,234 rows · 2.0 KiB · 2 files" in page.locator("#panel").text_content()
    page.locator("#panel button.col[data-field='total']").click()
    upstream = page.locator("#panel li.upcol")
    assert sorted(
        (u.get_attribute("data-dataset"), u.get_attribute("data-field")) for u in upstream.all()
    ) == [("s3://lake/raw/orders", "price"), ("s3://lake/raw/orders", "quantity")]
    assert "DIRECT/AGGREGATION" in upstream.first.text_content()
    raw = _node(page, "s3://lake/raw/orders")
    assert "upstream" in (raw.get_attribute("class") or "").split()
    assert raw.locator(".cols").text_content() == "⇢ price, quantity"
    assert page.locator(".node.upstream").count() == 1  # only the source dataset
    page.locator("#panel button.col[data-field='id']").click()
    assert [u.get_attribute("data-field") for u in page.locator("#panel li.upcol").all()] == [
        "order_id"
    ]


@pytest.mark.slow
def test_browser_search_filters_and_recentres(events_file: Path, page_of) -> None:
    page = page_of(lineage_html(load_events(events_file), title="Shop"))
    page.locator("#search").fill("report")
    page.locator("#search").press("Enter")
    chosen = _node(page, "shop/orders_app.report")
    assert "selected" in (chosen.get_attribute("class") or "").split()
    assert page.locator(".node.dim").count() == 4  # the job and its daily report match
    canvas = page.locator("#graph").bounding_box()
    box = chosen.bounding_box()
    assert abs(box["x"] + box["width"] / 2 - (canvas["x"] + canvas["width"] / 2)) < 2
    assert abs(box["y"] + box["height"] / 2 - (canvas["y"] + canvas["height"] / 2)) < 2
    page.locator("#search").fill("")
    page.locator("#namespace").select_option("shop")
    assert page.locator(".node:not(.dim)").count() == 3  # the jobs, not the s3 datasets


def test_a_source_sits_just_before_its_first_reader() -> None:
    # a -> j1 -> b -> j2 -> c -> j3, and a raw table read only by j3: beside c, not beside a.
    names = ["a", "j1", "b", "j2", "c", "j3", "raw"]
    edges = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (6, 5)]
    corners, bends = report._layout(names, edges)
    assert corners[6][0] == corners[4][0]
    assert bends[5] == []  # one layer apart: no bend


def test_slots_of_a_layer_never_overlap_in_large_graphs() -> None:
    rng = random.Random(3)
    size = 600
    edges = sorted({tuple(sorted(rng.sample(range(size), 2))) for _ in range(size * 2)})
    corners, bends = report._layout([str(n) for n in range(size)], edges)  # type: ignore[arg-type]
    columns: dict[float, list[float]] = {}
    for x, y in corners + [point for route in bends for point in route]:
        columns.setdefault(x, []).append(y)
    for ys in columns.values():
        ys.sort()
        assert all(
            b - a >= report._HEIGHT + report._GAP_Y - 1e-6 for a, b in itertools.pairwise(ys)
        )


def test_html_without_igraph_names_the_extra(
    events_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setitem(sys.modules, "igraph", None)  # as if the [report] extra were missing
    html_path = tmp_path / "lineage.html"
    assert main(["report", str(events_file), "--html", str(html_path)], out=io.StringIO()) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert "pip install 'openlineage-sdk[report]'" in error
    assert not html_path.exists()
