"""Reports of event files: the text summary, the HTML lineage graph and the CLI."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from openlineage_sdk import OpenLineage, naming
from openlineage_sdk import facets as f
from openlineage_sdk.cli import main
from openlineage_sdk.lifecycle import output_dataset
from openlineage_sdk.report import build_graph, lineage_html, load_events, summary
from openlineage_sdk.transports import FileTransport


@pytest.fixture
def events_file(tmp_path: Path) -> Path:
    path = tmp_path / "events.jsonl"
    client = OpenLineage(transport=FileTransport(path=path), namespace="shop")
    raw = naming.s3("lake", "raw/orders")
    curated = output_dataset(
        naming.s3("lake", "curated/orders"),
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
    assert re.search(r"shop/orders_app\.report\n    run [0-9a-f-]{36}: START -> FAIL", text)
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
    assert "<svg" in page
    assert page.count('class="node job"') == 3
    assert page.count('class="node dataset"') == 3
    assert page.count('class="edge"') == 4
    assert "src=" not in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_cli_prints_the_summary_and_writes_the_graph(events_file: Path, tmp_path: Path) -> None:
    out = io.StringIO()
    html_path = tmp_path / "lineage.html"
    assert main(["report", str(events_file), "--html", str(html_path)], out=out) == 0
    assert "3 jobs" in out.getvalue()
    assert html_path.read_text().count("<svg") == 1


def test_a_line_that_is_not_an_event_is_named(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"eventTime": "x"}\n')
    with pytest.raises(ValueError, match=r"bad\.jsonl:1"):
        load_events(path)
