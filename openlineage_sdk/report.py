"""Readable reports of lineage events: a text summary and a self-contained HTML lineage graph.

    from openlineage_sdk.report import load_events, summary, lineage_html

    events = load_events("openlineage_events.jsonl")
    print(summary(events))
    Path("lineage.html").write_text(lineage_html(events))

Both take the events or a :class:`Graph` already built from them with :func:`build_graph`.

Also on the command line: ``openlineage-sdk report openlineage_events.jsonl --html lineage.html``.
The HTML file has no outside dependencies (inline SVG and CSS): open it in any browser.
"""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from openlineage_sdk._read import Event, read_event
from openlineage_sdk.models.core import DatasetEvent, JobEvent, RunEvent
from openlineage_sdk.naming._model import dataset_uri

__all__ = ["Graph", "build_graph", "lineage_html", "load_events", "summary"]


def load_events(path: str | Path) -> list[Event]:
    """Read every event of a JSON Lines file (blank lines skipped).

    Raises:
        OpenLineageValidationError: a line is not an event; the message names the line.
    """
    from openlineage_sdk._errors import OpenLineageValidationError

    events: list[Event] = []
    with Path(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                events.append(read_event(line))
            except OpenLineageValidationError as exc:
                raise OpenLineageValidationError(
                    f"{path}:{number}: {exc.title}", exc.problems
                ) from None
    return events


@dataclass
class _RunInfo:
    run_id: str
    job: str
    states: list[str] = field(default_factory=list)
    started: str | None = None
    ended: str | None = None
    parent: str | None = None


@dataclass
class _DatasetInfo:
    key: str
    rows: int | None = None
    bytes: int | None = None
    files: int | None = None
    fields: list[str] = field(default_factory=list)
    written_by: set[str] = field(default_factory=set)
    read_by: set[str] = field(default_factory=set)


@dataclass
class Graph:
    """Jobs, datasets and the edges between them, as the events describe them."""

    events: int = 0
    jobs: dict[str, list[_RunInfo]] = field(default_factory=dict)
    datasets: dict[str, _DatasetInfo] = field(default_factory=dict)
    edges: set[tuple[str, str]] = field(default_factory=set)  # (from node, to node)
    parents: set[tuple[str, str]] = field(default_factory=set)  # (parent job, child job)


def _job_key(namespace: str, name: str) -> str:
    return f"{namespace}/{name}"


def _dataset_key(namespace: str, name: str) -> str:
    return dataset_uri(namespace, name)


def _schema_fields(dataset: Any) -> list[str]:
    facets = dataset.facets
    schema = facets.schema_ if facets is not None else None
    if schema is None or not schema.fields:
        return []
    return [f"{f['name']}: {f.get('type', '?')}" for f in schema.fields]


def build_graph(events: Iterable[Event]) -> Graph:
    """Fold events into jobs (with their runs), datasets and input/output edges."""
    graph = Graph()
    runs: dict[str, _RunInfo] = {}
    for event in events:
        graph.events += 1
        if isinstance(event, DatasetEvent):
            key = _dataset_key(event.dataset.namespace, event.dataset.name)
            graph.datasets.setdefault(key, _DatasetInfo(key))
            continue
        job = _job_key(event.job.namespace, event.job.name)
        graph.jobs.setdefault(job, [])
        if isinstance(event, RunEvent):
            info = runs.get(event.run.run_id)
            if info is None:
                info = runs[event.run.run_id] = _RunInfo(event.run.run_id, job)
                graph.jobs[job].append(info)
            state = event.event_type or "OTHER"
            info.states.append(state)
            if state == "START":
                info.started = event.event_time
            elif state in ("COMPLETE", "FAIL", "ABORT"):
                info.ended = event.event_time
            facets = event.run.facets
            if facets is not None and facets.parent is not None:
                info.parent = _job_key(facets.parent.job["namespace"], facets.parent.job["name"])
                graph.parents.add((info.parent, job))
        assert isinstance(event, (RunEvent, JobEvent))
        for source in event.inputs or ():
            key = _dataset_key(source.namespace, source.name)
            data = graph.datasets.setdefault(key, _DatasetInfo(key))
            data.read_by.add(job)
            data.fields = _schema_fields(source) or data.fields
            graph.edges.add((key, job))
        for target in event.outputs or ():
            key = _dataset_key(target.namespace, target.name)
            data = graph.datasets.setdefault(key, _DatasetInfo(key))
            data.written_by.add(job)
            data.fields = _schema_fields(target) or data.fields
            stats = target.output_facets.output_statistics if target.output_facets else None
            if stats is not None:
                data.rows = stats.row_count if stats.row_count is not None else data.rows
                data.bytes = stats.size if stats.size is not None else data.bytes
                data.files = stats.file_count if stats.file_count is not None else data.files
            graph.edges.add((job, key))
    return graph


def _duration(info: _RunInfo) -> str:
    if info.started is None or info.ended is None:
        return ""
    try:
        seconds = (
            datetime.fromisoformat(info.ended.replace("Z", "+00:00"))
            - datetime.fromisoformat(info.started.replace("Z", "+00:00"))
        ).total_seconds()
    except ValueError:
        return ""
    return f" in {seconds:.2f}s"


def _size(count: int) -> str:
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"


def summary(events: Iterable[Event] | Graph) -> str:
    """A readable summary: jobs with their runs and states, datasets with rows and schemas."""
    graph = events if isinstance(events, Graph) else build_graph(events)
    run_count = sum(len(runs) for runs in graph.jobs.values())
    lines = [
        f"{graph.events} events, {len(graph.jobs)} jobs, {run_count} runs, {len(graph.datasets)} datasets",
        "",
    ]
    lines.append("Jobs and runs")
    for job, runs in sorted(graph.jobs.items()):
        lines.append(f"  {job}")
        for info in runs:
            parent = f"  (child of {info.parent})" if info.parent else ""
            lines.append(
                f"    run {info.run_id}: {' -> '.join(info.states)}{_duration(info)}{parent}"
            )
    lines += ["", "Datasets"]
    for key, data in sorted(graph.datasets.items()):
        facts = []
        if data.rows is not None:
            facts.append(f"{data.rows:,} rows")
        if data.bytes is not None:
            facts.append(_size(data.bytes))
        if data.files is not None:
            facts.append(f"{data.files} files")
        lines.append(f"  {key}" + (f"  [{', '.join(facts)}]" if facts else ""))
        if data.written_by:
            lines.append(f"    written by {', '.join(sorted(data.written_by))}")
        if data.read_by:
            lines.append(f"    read by    {', '.join(sorted(data.read_by))}")
        if data.fields:
            lines.append(f"    schema     {', '.join(data.fields)}")
    return "\n".join(lines)


def _layers(graph: Graph) -> dict[str, int]:
    """Longest-path layering: every edge goes from a lower layer to a higher one."""
    nodes = set(graph.jobs) | set(graph.datasets)
    incoming: dict[str, set[str]] = defaultdict(set)
    for source, target in graph.edges:
        incoming[target].add(source)
    layer: dict[str, int] = {}

    def depth(node: str, seen: frozenset[str]) -> int:
        if node in layer:
            return layer[node]
        parents = [p for p in incoming[node] if p not in seen]
        value = 1 + max((depth(p, seen | {node}) for p in parents), default=-1)
        layer[node] = value
        return value

    for node in sorted(nodes):
        depth(node, frozenset())
    return layer


_STYLE = """
body { font: 14px system-ui, sans-serif; margin: 24px; color: #1f2933; }
h1 { font-size: 20px; } .meta { color: #52606d; }
svg text { font: 12px system-ui, sans-serif; }
.job rect { fill: #e3f2fd; stroke: #1565c0; } .dataset rect { fill: #e8f5e9; stroke: #2e7d32; }
.node rect { stroke-width: 1.5; rx: 6; } .node:hover rect { stroke-width: 3; }
.edge { stroke: #9aa5b1; stroke-width: 1.5; fill: none; marker-end: url(#arrow); }
.kind { font-size: 10px; fill: #52606d; letter-spacing: 0.05em; } .short { font-weight: 600; font-size: 13px; }
.long { font-size: 11px; fill: #52606d; } .legend { color: #52606d; font-size: 12px; }
table { border-collapse: collapse; margin-top: 16px; } td, th { border: 1px solid #cbd2d9; padding: 4px 8px; text-align: left; }
"""


def _fit(text: str, limit: int) -> str:
    """Shorten ``text`` to ``limit`` characters, keeping its end (where names differ)."""
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


def _labels(node: str, kind: str) -> tuple[str, str]:
    """A short name (the last part) and the full name, for a node's two lines of text."""
    if kind == "job":
        namespace, _, name = node.partition("/")
        return name.rsplit(".", 1)[-1], f"{namespace}/{name}"
    return node.rstrip("/").rsplit("/", 1)[-1], node


def lineage_html(events: Iterable[Event] | Graph, *, title: str = "Lineage") -> str:
    """A self-contained HTML page with the lineage graph of datasets and jobs (inline SVG)."""
    graph = events if isinstance(events, Graph) else build_graph(events)
    layers = _layers(graph)
    columns: dict[int, list[str]] = defaultdict(list)
    for node, index in sorted(layers.items(), key=lambda item: (item[1], item[0])):
        columns[index].append(node)
    width, height, gap_x, gap_y = 300, 62, 80, 22
    position: dict[str, tuple[int, int]] = {}
    for index, nodes in columns.items():
        for row, node in enumerate(nodes):
            position[node] = (20 + index * (width + gap_x), 20 + row * (height + gap_y))
    svg_width = 40 + (max(columns, default=0) + 1) * (width + gap_x)
    svg_height = 40 + max((len(n) for n in columns.values()), default=1) * (height + gap_y)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{svg_width}" height="{svg_height}">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" '
        'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#9aa5b1"/></marker></defs>',
    ]
    for source, target in sorted(graph.edges):
        (x1, y1), (x2, y2) = position[source], position[target]
        start, end = (x1 + width, y1 + height // 2), (x2, y2 + height // 2)
        middle = (start[0] + end[0]) // 2
        parts.append(
            f'<path class="edge" d="M {start[0]} {start[1]} C {middle} {start[1]}, {middle} {end[1]}, {end[0]} {end[1]}"/>'
        )
    for node, (x, y) in sorted(position.items()):
        if node in graph.jobs:
            kind, runs = "job", graph.jobs[node]
            detail = f"{len(runs)} run(s): " + "; ".join(" → ".join(r.states) for r in runs)
        else:
            kind, data = "dataset", graph.datasets[node]
            detail = ", ".join(data.fields) or "no schema"
            if data.rows is not None:
                detail = f"{data.rows:,} rows; " + detail
        short, long = _labels(node, kind)
        parents = sorted(p for p, c in graph.parents if c == node)
        heading = kind.upper() + (f" · in {_labels(parents[0], 'job')[0]}" if parents else "")
        parts.append(
            f'<g class="node {kind}"><title>{html.escape(node)}\n{html.escape(detail)}</title>'
            f'<rect x="{x}" y="{y}" width="{width}" height="{height}"/>'
            f'<text class="kind" x="{x + 10}" y="{y + 15}">{html.escape(_fit(heading, 44))}</text>'
            f'<text class="short" x="{x + 10}" y="{y + 34}">{html.escape(_fit(short, 36))}</text>'
            f'<text class="long" x="{x + 10}" y="{y + 52}">{html.escape(_fit(long, 46))}</text></g>'
        )
    parts.append("</svg>")

    rows = []
    for key, data in sorted(graph.datasets.items()):
        rows.append(
            f"<tr><td>{html.escape(key)}</td><td>{'' if data.rows is None else f'{data.rows:,}'}</td>"
            f"<td>{html.escape(', '.join(data.fields))}</td></tr>"
        )
    run_count = sum(len(r) for r in graph.jobs.values())
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>"
        f'<p class="meta">{graph.events} events · {len(graph.jobs)} jobs · {run_count} runs · '
        f"{len(graph.datasets)} datasets. Hover a node for details.</p>"
        '<p class="legend">Arrows: data flows from input datasets through jobs to output datasets. '
        '"in X": the job runs as a child of job X\'s run.</p>'
        + "".join(parts)
        + "<table><tr><th>dataset</th><th>rows written</th><th>schema</th></tr>"
        + "".join(rows)
        + "</table></body></html>\n"
    )
