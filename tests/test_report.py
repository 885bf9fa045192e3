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

from openlineage_sdk import OpenLineage, OpenLineageValidationError, naming, read_event, report
from openlineage_sdk import facets as f
from openlineage_sdk.cli import main
from openlineage_sdk.lifecycle import output_dataset
from openlineage_sdk.report import build_graph, lineage_html, load_events, read_graph, summary
from openlineage_sdk.transports import FileTransport
from tests.conftest import CONFORMANCE


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


# ----------------------------------------------------------------------- reading a large file
RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
PRODUCER = "https://example.com/tests"


def _event(
    job: str,
    run: int | str,
    state: str | None,
    when: str,
    *,
    namespace: str = "shop",
    inputs: tuple[tuple[str, str], ...] = (),
    outputs: tuple[tuple[str, str], ...] = (),
    error: str | None = None,
    **more: Any,
) -> dict[str, Any]:
    """A run event as a JSON dictionary; ``run`` a number stands for a UUID made from it."""
    facets: dict[str, Any] = {}
    if error is not None:
        facets["errorMessage"] = {
            "_producer": PRODUCER,
            "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json",
            "message": error,
            "programmingLanguage": "python",
        }
    event: dict[str, Any] = {
        "eventTime": when,
        "run": {
            "runId": str(uuid.UUID(int=run)) if isinstance(run, int) else run,
            "facets": facets,
        },
        "job": {"namespace": namespace, "name": job},
        "inputs": [{"namespace": ns, "name": name} for ns, name in inputs],
        "outputs": [{"namespace": ns, "name": name} for ns, name in outputs],
        "producer": PRODUCER,
        "schemaURL": RUN_EVENT,
        **more,
    }
    if state is not None:
        event["eventType"] = state
    return event


def _write(path: Path, events: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return path


def _day(day: int, hour: int = 0) -> str:
    return f"2026-{1 + day // 28:02d}-{1 + day % 28:02d}T{hour:02d}:00:00Z"


def _without_positions(data: dict[str, Any]) -> dict[str, Any]:
    for node in data["nodes"]:
        node.pop("x"), node.pop("y")
    data["edges"] = sorted(e[:3] for e in data["edges"])
    return data


def _outcome(read: Callable[[], report.Graph]) -> tuple[str, Any]:
    """What a reader makes of a file: the error's title and problems, or the whole report."""
    try:
        graph = read()
    except OpenLineageValidationError as exc:
        return "refused", (exc.title.rsplit(": ", 1)[-1], [str(p) for p in exc.problems])
    return "read", (summary(graph), _without_positions(report._page_data(graph, "t")))


def _both(path: Path, line: str) -> tuple[tuple[str, Any], tuple[str, Any]]:
    """The outcome of the fast reader and of read_event, for a file of one line."""
    path.write_text(line + "\n", encoding="utf-8")

    def slowly() -> report.Graph:  # as load_events reads a line: with its newline
        try:
            return build_graph([read_event(line + "\n")])
        except OpenLineageValidationError as exc:
            raise OpenLineageValidationError(f"{path}:1: {exc.title}", exc.problems) from None

    return _outcome(lambda: read_graph(path)), _outcome(slowly)


def test_read_graph_folds_a_file_as_build_graph_does(events_file: Path) -> None:
    assert summary(read_graph(events_file)) == summary(build_graph(load_events(events_file)))
    assert lineage_html(read_graph(events_file), title="Shop") == lineage_html(
        load_events(events_file), title="Shop"
    )


def test_the_fast_reader_folds_every_conformance_event_as_read_event_does(
    tmp_path: Path,
) -> None:
    from openlineage_sdk._report import fast, fold

    taken = 0
    paths = sorted((CONFORMANCE / "events").rglob("*.json"))
    assert len(paths) > 50
    for number, source in enumerate(paths):
        line = json.dumps(json.loads(source.read_text(encoding="utf-8")))
        fast_way, slow_way = _both(tmp_path / f"e{number}.jsonl", line)
        assert fast_way == slow_way, source
        taken += fast.Reader(fold.Folder()).fold(line.encode())
    # Most of them never reach read_event: the fast reader took them itself.
    assert taken >= 0.8 * len(paths)


TRICKY = {
    "no run id": {"eventTime": "t", "run": {}, "job": {"namespace": "n", "name": "j"}},
    "a run of no job": {"eventTime": "t", "run": {"runId": "r"}},
    "a null run": {"eventTime": "t", "run": None, "job": {"namespace": "n", "name": "j"}},
    "a job name not a string": {"eventTime": "t", "job": {"namespace": "n", "name": 5}},
    "a numeric time": {
        "eventTime": 5,
        "run": {"runId": "r"},
        "job": {"namespace": "n", "name": "j"},
    },
    "a null producer": _event("j", 1, "START", "t", producer=None),
    "a null schema URL": _event("j", 1, "START", "t", schemaURL=None),
    "an unknown event type": _event("j", 1, "DONE", "t"),
    "a null event type": _event("j", 1, "START", "t", eventType=None),
    "no event type": _event("j", 1, None, "t"),
    "a null input": {**_event("j", 1, "START", "t"), "inputs": [None]},
    "input facets not an object": {
        **_event("j", 1, "START", "t"),
        "inputs": [{"namespace": "n", "name": "d", "facets": "x"}],
    },
    "output facets an array": {
        **_event("j", 1, "START", "t"),
        "outputs": [{"namespace": "n", "name": "d", "outputFacets": []}],
    },
    "run facets a number": {**_event("j", 1, "START", "t"), "run": {"runId": "r", "facets": 5}},
    "job facets an array": {
        **_event("j", 1, "START", "t"),
        "job": {"namespace": "n", "name": "j", "facets": []},
    },
    "a job event": {
        "eventTime": "t",
        "job": {"namespace": "n", "name": "j"},
        "outputs": [{"namespace": "n", "name": "d"}],
    },
    "a job event with an odd event type": {
        "eventTime": "t",
        "job": {"namespace": "n", "name": "j"},
        "eventType": 5,
    },
    "a dataset event": {
        "eventTime": "t",
        "dataset": {
            "namespace": "n",
            "name": "d",
            "facets": {"lifecycleStateChange": {"lifecycleStateChange": "DROP"}},
        },
    },
    "a dataset event with null facets": {
        "eventTime": "t",
        "dataset": {"namespace": "n", "name": "d", "facets": None},
    },
    "a dataset event with an odd input": {
        "eventTime": "t",
        "dataset": {"namespace": "n", "name": "d"},
        "inputs": 5,
    },
    "no kind at all": {"eventTime": "t", "producer": "p"},
    "row count not a number": {
        **_event("j", 1, "COMPLETE", "t"),
        "outputs": [
            {
                "namespace": "n",
                "name": "d",
                "outputFacets": {"outputStatistics": {"rowCount": "abc", "size": 5}},
            }
        ],
    },
    "an error message without message": {
        **_event("j", 1, "FAIL", "t"),
        "run": {
            "runId": "r",
            "facets": {"errorMessage": {"programmingLanguage": "x"}, "parent": {"job": 5}},
        },
    },
    "schema fields not objects": {
        **_event("j", 1, "COMPLETE", "t"),
        "outputs": [
            {"namespace": "n", "name": "d", "facets": {"schema": {"fields": [1, {"name": "a"}]}}}
        ],
    },
    "a run event that also names a dataset": {**_event("j", 1, "START", "t"), "dataset": "x"},
    "an array": [1, 2],
    "a string": "event",
}


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_the_fast_reader_refuses_and_reads_as_read_event_does(tmp_path: Path, name: str) -> None:
    fast_way, slow_way = _both(tmp_path / "one.jsonl", json.dumps(TRICKY[name]))
    assert fast_way == slow_way


@pytest.mark.parametrize(
    "line",
    [
        '{"eventTime": "t", "run": {"runId": "r"}, "job": {"namespace": "n", "name": "j"}, "x": NaN}',
        '{"eventTime": "t", "run": {"runId": "r"}, "job": {"namespace": "n", "name": "\\udc00"}}',
        '{"eventTime": "t", "run": {"runId": "r"}, "job": {"namespace": "n", "name": "j"}, "x": "\\ud800"}',
        '{"eventTime": "t", "run": {"runId": "r"}, "job": {"namespace": "n", "name": "j"}',
        '{"eventTime": "t", "eventType": "START", "eventType": "FAIL", "run": {"runId": "r"}, "job": {"namespace": "n", "name": "j"}}',
        '{"eventTime": "t", "run": {"runId": "r"}, "job": {"namespace": "n", "name": "j"}, '
        '"outputs": [{"namespace": "n", "name": "d", "outputFacets": {"outputStatistics": {"rowCount": 1e999}}}]}',
    ],
    ids=[
        "NaN",
        "a lone surrogate read",
        "a lone surrogate skipped",
        "cut short",
        "a repeated key",
        "a huge row count",
    ],
)
def test_the_fast_reader_takes_text_as_read_event_does(tmp_path: Path, line: str) -> None:
    fast_way, slow_way = _both(tmp_path / "one.jsonl", line)
    assert fast_way == slow_way


def test_facets_read_either_way_fold_in_file_order(tmp_path: Path) -> None:
    # The fast reader skips a dataset's facets when they are the bytes it last folded in; a
    # line read the careful way in between changes them, so they are folded in again.
    def schema(column: str) -> dict[str, Any]:
        return {"schema": {"fields": [{"name": column, "type": "string"}]}}

    first = _event("j", 1, "COMPLETE", _day(0))
    first["outputs"] = [{"namespace": "n", "name": "d", "facets": schema("a")}]
    careful = {  # a dataset event with a field of its own the fast reader cannot take
        "eventTime": _day(1),
        "dataset": {"namespace": "n", "name": "d", "facets": schema("b")},
        "inputs": 5,
    }
    third = {**first, "eventTime": _day(2)}
    path = _write(tmp_path / "order.jsonl", [first, careful, third])
    assert "    schema     a: string" in summary(read_graph(path))
    assert summary(read_graph(path)) == summary(build_graph(load_events(path)))


def test_a_huge_number_where_the_report_does_not_read_is_skipped(tmp_path: Path) -> None:
    # As read_graph's documentation says: values in parts the report does not read are only
    # checked to be JSON; read_event refuses this number (it would be written back as null).
    event = _event("j", 1, "START", _day(0))
    line = json.dumps(event)[:-1] + ', "x-custom": {"big": 1e999}}'
    path = tmp_path / "huge.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    assert summary(read_graph(path)).startswith("1 events, 1 jobs, 1 runs")
    with pytest.raises(OpenLineageValidationError):
        load_events(path)


def test_without_msgspec_every_line_is_read_by_read_event(
    events_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast_graph = read_graph(events_file)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(events_file.read_text() + '{"eventTime": "x"}\n')
    # As if the [report] extra were missing: the same report, the same refusal.
    monkeypatch.setitem(sys.modules, "openlineage_sdk._report.fast", None)
    assert summary(read_graph(events_file)) == summary(fast_graph)
    with pytest.raises(OpenLineageValidationError, match=r"bad\.jsonl:7: "):
        read_graph(bad)


def test_only_the_latest_runs_are_kept_and_the_others_counted(tmp_path: Path) -> None:
    days = list(range(50))
    random.Random(5).shuffle(days)  # the file is not in time order: "latest" is by start time
    events = []
    for day in days:
        failed = day in (3, 13, 40)
        events.append(_event("etl", day, "START", _day(day)))
        events.append(
            _event(
                "etl",
                day,
                "FAIL" if failed else "COMPLETE",
                _day(day, 1),
                error="boom" if failed else None,
            )
        )
    path = _write(tmp_path / "runs.jsonl", events)
    graph = read_graph(path, keep_runs=20)
    kept = graph.jobs["shop/etl"]
    assert sorted(r.run_id for r in kept) == sorted(str(uuid.UUID(int=d)) for d in range(30, 50))
    earlier = graph.earlier["shop/etl"]
    assert (earlier.runs, earlier.states) == (30, {"COMPLETE": 28, "FAIL": 2})
    assert (earlier.first, earlier.last) == (_day(0), _day(29))
    assert (graph.run_count("shop/etl"), graph.failed_count("shop/etl")) == (50, 3)
    text = summary(graph)
    assert text.startswith("100 events, 1 jobs, 50 runs, 0 datasets")
    assert f"    30 earlier runs, {_day(0)[:10]} to {_day(29)[:10]}: 28 COMPLETE, 2 FAIL\n" in text
    assert text.count("    run ") == 20
    data = report._page_data(graph, "t")
    [job] = data["nodes"]
    assert (job["total"], job["failed"], job["earlier"][0], len(job["runs"])) == (50, 3, 30, 20)
    assert job["runs"][-1][2] == _day(49)  # the latest last
    # keep_runs=None keeps them all, as build_graph and read_graph agree.
    assert len(read_graph(path, keep_runs=None).jobs["shop/etl"]) == 50
    assert summary(read_graph(path)) == summary(build_graph(load_events(path)))


def test_a_late_event_of_a_run_folded_away_is_counted_with_it(tmp_path: Path) -> None:
    events = [_event("stream", 0, "START", _day(0))]
    for day in range(1, 46):
        events += [
            _event("stream", day, "START", _day(day)),
            _event("stream", day, "COMPLETE", _day(day, 1)),
        ]
    events.append(_event("stream", 0, "COMPLETE", _day(46)))  # the first run ends last
    events.append(_event("stream", 0, "OTHER", _day(47)))  # and says more after its end
    graph = read_graph(_write(tmp_path / "late.jsonl", events), keep_runs=20)
    earlier = graph.earlier["shop/stream"]
    assert graph.run_count("shop/stream") == 46  # not a 47th run
    assert earlier.states == {"COMPLETE": 26}  # it was folded away while RUNNING
    assert str(uuid.UUID(int=0)) not in {r.run_id for r in graph.jobs["shop/stream"]}


def test_repeated_events_of_a_run_are_counted_not_listed(tmp_path: Path) -> None:
    events = [_event("poll", 1, "START", _day(0))]
    events += [_event("poll", 1, "RUNNING", _day(0, 1))] * 1000
    events.append(_event("poll", 1, "COMPLETE", _day(1)))
    for k in range(100):  # a run that keeps changing state: its first and last changes stay
        events.append(_event("flap", 2, "RUNNING" if k % 2 else "OTHER", _day(0, 1)))
    events.append(_event("flap", 2, "FAIL", _day(1)))
    graph = read_graph(_write(tmp_path / "repeats.jsonl", events))
    text = summary(graph)
    assert f"run {uuid.UUID(int=1)}: START -> RUNNING \u00d71000 -> COMPLETE in 86400.00s" in text
    [flap] = graph.jobs["shop/flap"]
    assert len(flap.states) <= 12
    assert sum(count for _, count in flap.states) == 101
    assert flap.states[0] == ["OTHER", 1]
    assert flap.states[-1] == ["FAIL", 1]
    assert (
        "OTHER -> RUNNING -> OTHER -> RUNNING -> … (90 events) -> "
        "OTHER -> RUNNING -> OTHER -> RUNNING -> OTHER -> RUNNING -> FAIL\n"
    ) in text


def test_a_longer_history_keeps_as_many_runs_and_counts_the_rest(tmp_path: Path) -> None:
    # Memory grows with jobs, datasets and kept runs: ten times the events, the same graph.
    events = []
    for copy in range(10):
        for job in range(30):
            run = copy * 100 + job
            io = {"inputs": (("s3://lake", f"t{job}"),), "outputs": (("s3://lake", f"t{job + 1}"),)}
            events.append(_event(f"job{job}", run, "START", _day(copy), **io))
            events.append(_event(f"job{job}", run, "COMPLETE", _day(copy, 1), **io))
    path = _write(tmp_path / "long.jsonl", events)
    graph = read_graph(path, keep_runs=3)
    assert graph.events == 600
    assert {len(runs) for runs in graph.jobs.values()} == {3}
    assert {e.runs for e in graph.earlier.values()} == {7}
    assert len(graph.datasets) == 31
    assert len(graph.edges) == 60


def test_line_numbers_count_as_text_mode_does(tmp_path: Path) -> None:
    good = json.dumps(_event("j", 1, "START", _day(0)))
    path = tmp_path / "numbered.jsonl"
    # Line 2 is blank, and a lone carriage return ends line 3 as text mode reads it.
    path.write_bytes((good + "\n\n" + good + '\r{"eventTime": 5}\n').encode())
    for read in (load_events, read_graph):
        with pytest.raises(OpenLineageValidationError, match=r"numbered\.jsonl:4: "):
            read(path)


def test_a_line_that_is_not_utf8_is_named(tmp_path: Path, capsys) -> None:
    path = tmp_path / "latin1.jsonl"
    event = json.dumps(_event("j", 1, "START", _day(0), namespace="caf\u00e9"), ensure_ascii=False)
    path.write_bytes((event + "\n").encode() + (event + "\n").encode("latin-1"))
    with pytest.raises(OpenLineageValidationError, match=r"latin1\.jsonl:2: .*not UTF-8"):
        read_graph(path)
    assert main(["report", str(path)], out=io.StringIO()) == 2
    assert "latin1.jsonl:2" in capsys.readouterr().err


def test_cli_lists_the_runs_asked_for(tmp_path: Path, capsys) -> None:
    events = [_event("etl", day, "COMPLETE", _day(day)) for day in range(8)]
    path = _write(tmp_path / "eight.jsonl", events)
    out = io.StringIO()
    assert main(["report", str(path), "--runs", "3"], out=out) == 0
    assert "    5 earlier runs, " in out.getvalue()
    assert out.getvalue().count("    run ") == 3
    with pytest.raises(SystemExit):
        main(["report", str(path), "--runs", "0"], out=io.StringIO())
    assert "--runs: expected a whole number of at least 1, got '0'" in capsys.readouterr().err


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
    assert page.evaluate("window.lineageReport.view().kind") == "whole"  # small: all of it
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


# A platform too large to read whole: 6 teams of 8 jobs in a chain, each job writing a dataset
# its successor reads (96 nodes). Four jobs' latest runs failed, at different times; the latest
# failure also reads a dataset of team2 and is read by team4, so other namespaces lie two steps
# from it; team3's job5 derives its column "amount" from job4's output.
FAILED_AT = {("team3", 4): 23, ("team1", 6): 22, ("team5", 2): 21, ("team0", 1): 20}


def _platform_events() -> list[dict[str, Any]]:
    events = []
    for team in range(6):
        for step in range(8):
            job, lake = f"job{step}", f"s3://lake-{team}"
            inputs = [(lake, f"t{team}/d{step - 1}")] if step else []
            if (team, step) == (3, 4):
                inputs.append(("s3://lake-2", "t2/d7"))
            if (team, step) == (4, 0):
                inputs.append(("s3://lake-3", "t3/d4"))
            output: dict[str, Any] = {"namespace": lake, "name": f"t{team}/d{step}"}
            if (team, step) == (3, 5):
                output["facets"] = {
                    "schema": {"fields": [{"name": "amount", "type": "double"}]},
                    "columnLineage": {
                        "fields": {
                            "amount": {
                                "inputFields": [
                                    {"namespace": lake, "name": "t3/d4", "field": "total"}
                                ]
                            }
                        }
                    },
                }
            for day in range(3):
                run = team * 1000 + step * 10 + day
                hour = FAILED_AT.get((f"team{team}", step), 10)
                failed = day == 2 and (f"team{team}", step) in FAILED_AT
                common = {"namespace": f"team{team}", "inputs": tuple(inputs)}
                events.append(_event(job, run, "START", _day(day, hour - 1), **common))
                end = _event(
                    job,
                    run,
                    "FAIL" if failed else "COMPLETE",
                    _day(day, hour),
                    error=f"disk full on team{team}" if failed else None,
                    **common,
                )
                end["outputs"] = [output]
                events.append(end)
    return events


@pytest.fixture
def platform(tmp_path: Path) -> str:
    path = _write(tmp_path / "platform.jsonl", _platform_events())
    return lineage_html(read_graph(path), title="Platform")


def _drawn(page: Any) -> list[str]:
    return sorted(t.text_content() for t in page.locator(".node > title").all())


def _set_depth(page: Any, depth: int) -> None:
    page.locator("#depth").fill(str(depth))
    page.locator("#depth").dispatch_event("change")


@pytest.mark.slow
def test_browser_a_large_history_opens_on_its_latest_failures(platform: str, page_of) -> None:
    page = page_of(platform)
    assert page.evaluate("window.lineageReport.view().kind") == "failures"
    seeds = sorted(t.text_content() for t in page.locator(".node.seed > title").all())
    assert seeds == ["team1/job6", "team3/job4", "team5/job2"]  # the three latest failures
    drawn = _drawn(page)
    assert "team0/job1" not in drawn  # an older failure, and far from these
    assert 12 <= len(drawn) <= 40  # of 96 nodes
    # Upstream and downstream two steps, within the namespaces one step away...
    for name in ("team3/job3", "s3://lake-3/t3/d3", "s3://lake-3/t3/d4", "team3/job5"):
        assert name in drawn
    assert "s3://lake-3/t3/d2" not in drawn  # three steps away
    # ...and other namespaces folded: team2's writer upstream, team4's reader downstream.
    assert page.locator(".node.folded").count() == 2
    assert "team2/job7" not in drawn
    assert "team4/job0" not in drawn
    assert (
        page.locator(".node.folded[data-ns='team2'] .tag").text_content().startswith("▲ UPSTREAM")
    )
    assert (
        page.locator(".node.folded[data-ns='team4'] .tag").text_content().startswith("▼ DOWNSTREAM")
    )
    info = page.locator("#view-info").text_content()
    assert "The 3 latest failures (of 4 jobs whose latest run failed)" in info
    # Readable as it opens: names drawn, boxes at least 0.6 of their size, seeds in the window.
    assert "far" not in (page.locator("#graph").get_attribute("class") or "").split()
    assert page.locator(".node .short").count() == len(drawn)
    canvas = page.locator("#graph").bounding_box()
    for seed in page.locator(".node.seed").all():
        box = seed.bounding_box()
        assert box["height"] >= 0.6 * 60 - 1
        assert canvas["x"] <= box["x"]
        assert box["x"] + box["width"] <= canvas["x"] + canvas["width"]
        assert canvas["y"] <= box["y"]
        assert box["y"] + box["height"] <= canvas["y"] + canvas["height"]
    # The failed run and its error are one click away, as in the whole graph.
    _node(page, "team3/job4").click()
    assert page.locator("#panel tr.run.FAIL").count() == 1
    assert "disk full on team3" in page.locator("#panel .error").text_content()


@pytest.mark.slow
def test_browser_without_failures_it_opens_on_the_jobs_run_last(tmp_path: Path, page_of) -> None:
    events = _platform_events()
    for event in events:
        if event.get("eventType") == "FAIL":
            event["eventType"] = "COMPLETE"
    page = page_of(lineage_html(read_graph(_write(tmp_path / "fine.jsonl", events))))
    seeds = sorted(t.text_content() for t in page.locator(".node.seed > title").all())
    assert seeds == ["team1/job6", "team3/job4", "team5/job2"]  # their runs ended last
    assert (
        "No job's latest run failed: the 3 jobs run last"
        in page.locator("#view-info").text_content()
    )


@pytest.mark.slow
def test_browser_a_job_counts_the_runs_it_does_not_list(tmp_path: Path, page_of) -> None:
    path = _write(tmp_path / "platform.jsonl", _platform_events())
    page = page_of(lineage_html(read_graph(path, keep_runs=2)))
    failed = _node(page, "team3/job4")
    assert "✖ FAIL · 3 runs, 1 failed" in failed.locator(".tag").text_content()
    failed.click()
    assert page.locator("#panel h3", has_text="Runs").text_content() == "Runs (3, 1 failed)"
    assert page.locator("#panel tr.run").count() == 2
    earlier = page.locator("#panel .earlier").text_content()
    assert (
        earlier == "1 earlier run (2026-01-01 to 2026-01-01): 1 COMPLETE. The latest 2 runs below."
    )


@pytest.mark.slow
def test_browser_the_depth_changes_what_is_shown(platform: str, page_of) -> None:
    page = page_of(platform)
    two = _drawn(page)
    _set_depth(page, 1)  # the failures, what they read and what they wrote
    one = _drawn(page)
    assert set(one) < set(two)
    assert "team3/job3" not in one
    assert "s3://lake-3/t3/d3" in one
    assert page.locator(".node.folded").count() == 0
    _set_depth(page, 3)
    three = _drawn(page)
    assert set(two) < set(three)
    assert "s3://lake-3/t3/d2" in three
    assert "s3://lake-3/t3/d5" in three
    assert page.evaluate("window.lineageReport.view().depth") == 3
    assert "with 3 steps up- and downstream" in page.locator("#view-info").text_content()


@pytest.mark.slow
def test_browser_a_folded_namespace_opens(platform: str, page_of) -> None:
    page = page_of(platform)
    folded = page.locator(".node.folded[data-ns='team2']")
    assert "1 job" in folded.locator(".sub").text_content()
    folded.click()
    drawn = _drawn(page)
    assert "team2/job7" in drawn  # drawn as itself now
    assert page.locator(".node.folded[data-ns='team2']").count() == 0
    assert page.locator(".node.folded[data-ns='team4']").count() == 1  # the other stays folded
    assert page.evaluate("window.lineageReport.view().kind") == "failures"
    _set_depth(page, 3)  # the same view, deeper: still open
    assert "team2/job7" in _drawn(page)
    page.locator("#view").select_option("whole")
    page.locator("#view").select_option("failures")  # a view shown anew starts folded
    assert page.locator(".node.folded[data-ns='team2']").count() == 1


@pytest.mark.slow
def test_browser_the_whole_graph_is_one_click_away(platform: str, page_of) -> None:
    page = page_of(platform)
    page.locator("#whole").click()
    assert page.locator(".node").count() == 96
    assert page.locator(".node.folded").count() == 0
    assert page.locator("#depth").is_disabled()
    page.locator("#view").select_option("failures")
    assert page.locator(".node").count() < 40
    page.locator("#view").select_option("ns:team4")  # a namespace and its lineage
    drawn = _drawn(page)
    assert all(f"team4/job{k}" in drawn for k in range(8))
    assert "s3://lake-3/t3/d4" in drawn  # what team4 reads from team3


@pytest.mark.slow
def test_browser_search_panels_and_column_lineage_in_a_neighbourhood(
    platform: str, page_of
) -> None:
    page = page_of(platform)
    assert "s3://lake-3/t3/d5" not in _drawn(page)
    page.locator("#search").fill("t3/d5")
    page.locator("#search").press("Enter")  # not drawn: the view moves to it
    assert page.evaluate("window.lineageReport.view().kind") == "node"
    chosen = _node(page, "s3://lake-3/t3/d5")
    assert "selected" in (chosen.get_attribute("class") or "").split()
    assert page.locator("#view option:checked").text_content() == "Around s3://lake-3/t3/d5"
    page.locator("#search").fill("")
    page.locator("#panel button.col[data-field='amount']").click()
    source = _node(page, "s3://lake-3/t3/d4")
    assert "upstream" in (source.get_attribute("class") or "").split()
    assert source.locator(".cols").text_content() == "⇢ total"
    page.locator("#panel a", has_text="team3/job5").click()  # a link in the panel
    assert "selected" in (_node(page, "team3/job5").get_attribute("class") or "").split()
    assert page.locator("#panel h2").text_content() == "job5"
    page.locator("#panel button.around").click()
    assert page.locator(".node.seed > title").all_text_contents() == ["team3/job5"]
    page.locator("#view").select_option("failures")
    page.locator("#view").select_option("node")  # back to the last node shown
    assert page.locator(".node.seed > title").all_text_contents() == ["team3/job5"]
    page.locator("#namespace").select_option("team3")
    assert page.locator(".node:not(.dim)").count() == 3  # team3's jobs within two steps


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


def test_the_layers_put_every_edge_forward_and_a_late_read_source_next_to_its_reader() -> None:
    from openlineage_sdk.report import _layers

    # A chain 0 -> 1 -> 2 -> 3, and a source 4 read only by 3: next to 3, not at the start.
    assert _layers(5, [(0, 1), (1, 2), (2, 3), (4, 3)]) == [0, 1, 2, 3, 2]
    # A cycle 0 -> 1 -> 2 -> 0 is broken by one edge: the others still go forward.
    cyclic = _layers(3, [(0, 1), (1, 2), (2, 0)])
    assert sorted(cyclic) == [0, 1, 2]
    # Random graphs with and without cycles: no edge within a layer; without cycles, forward.
    rng = random.Random(7)
    for size in (2, 10, 60, 400):
        edges = [tuple(rng.sample(range(size), 2)) for _ in range(size * 2)]
        forward = [(min(e), max(e)) for e in edges]
        layers = _layers(size, forward)
        assert all(layers[b] > layers[a] for a, b in forward)
        layers = _layers(size, edges)  # type: ignore[arg-type]
        assert all(layers[a] != layers[b] for a, b in edges)
        assert min(layers) == 0
