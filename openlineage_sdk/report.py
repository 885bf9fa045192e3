"""Readable reports of lineage events: a text summary and a self-contained HTML lineage graph.

    from openlineage_sdk.report import read_graph, summary, lineage_html

    graph = read_graph("openlineage_events.jsonl")
    print(summary(graph))
    Path("lineage.html").write_text(lineage_html(graph))

:func:`read_graph` reads a file in one pass into a :class:`Graph` whose size does not grow with
the number of events (each job keeps its latest runs and counts the others); :func:`build_graph`
folds events already read (:func:`load_events`) the same way. Both reports take the graph or the
events.

Also on the command line: ``openlineage-sdk report openlineage_events.jsonl --html lineage.html``.

The HTML file is self-contained and opens offline in any browser. The whole graph's layout is
computed when the page is written, by igraph's layered (Sugiyama) layout in C (the ``[report]``
extra), not in the browser: JavaScript layered layouts (dagre, elkjs) took 15 to 200 s on a
history of 500 jobs and 2,000 datasets. A large history opens on a neighbourhood instead (its
latest failures, a namespace or one node, to a depth the reader sets, other namespaces folded),
small enough for the page's own script (``_report/report.js``) to lay out at once. That script
draws the graph as SVG and adds zoom, pan, fit, search, a namespace filter, the views, and the
panels of jobs (runs, states, durations, errors) and datasets (schema, statistics, symlinks,
column lineage).
"""

from __future__ import annotations

import html
import json
import math
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openlineage_sdk._report.fold import (
    KEEP_RUNS,
    Graph,
    _RunInfo,
    fold_events,
)
from openlineage_sdk._report.reading import read_graph as _read_graph

if TYPE_CHECKING:  # the models load in a third of a second: only reading events needs them
    from openlineage_sdk import Event

__all__ = ["Graph", "build_graph", "lineage_html", "load_events", "read_graph", "summary"]


def load_events(path: str | Path) -> list[Event]:
    """Read every event of a JSON Lines file (blank lines skipped) into typed events.

    For a report of a large file, :func:`read_graph` reads it in one pass into the graph
    instead, without holding its events.

    Args:
        path: the JSON Lines file.

    Returns:
        The events, in the file's order.

    Raises:
        OpenLineageValidationError: a line is not an event; the message names the line.
    """
    from openlineage_sdk import OpenLineageValidationError, read_event

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


def read_graph(path: str | Path, *, keep_runs: int | None = KEEP_RUNS) -> Graph:
    """Read a JSON Lines file of events straight into the graph the reports draw.

    The file is read line by line, and memory grows with its jobs, datasets and kept runs, not
    with its events: each job keeps its latest ``keep_runs`` runs (by start time) and counts
    the others by final state; a dataset keeps the facts of its latest facets. With msgspec
    installed (the ``[report]`` extra) each line is read straight into what the report shows,
    skipping the rest: a line is checked to be JSON, and its core structure (the kind of event,
    its time, run id, job and dataset names, and that facet containers are objects) as
    :func:`~openlineage_sdk.read_event` checks it; a line that fails goes to ``read_event``,
    which refuses it as :func:`load_events` does, or reads it. Values the report does not read
    are not checked further: a number too large for a double or nesting deeper than 200 levels
    in a part it skips does not stop the report, where ``read_event`` would refuse the event.

    Args:
        path: the JSON Lines file (blank lines skipped).
        keep_runs: runs kept per job; None keeps them all.

    Raises:
        OpenLineageValidationError: a line is not an event, or not UTF-8 text; the message
            names the line.
        OSError: the file cannot be read.
    """
    return _read_graph(path, keep_runs=keep_runs)


def build_graph(events: Iterable[Event], *, keep_runs: int | None = KEEP_RUNS) -> Graph:
    """Fold events into jobs (with their runs), datasets and input/output edges.

    Args:
        events: events as :func:`load_events` or :func:`~openlineage_sdk.read_event` give them.
        keep_runs: runs kept per job, the latest by start time, the others counted by final
            state; None keeps them all.

    Returns:
        The jobs with their runs (states, times, error message, parent), the datasets with
        their schema, statistics, symlinks, lifecycle state and column lineage, and the edges.
    """
    return fold_events(events, keep_runs)


def _fit_end(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, keeping its start (where a message says what)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


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


#: Between a state and how many events in a row reported it (a multiplication sign).
_TIMES = "\u00d7"


def _states(info: _RunInfo) -> str:
    """A run's states in order, with repeats counted (``START -> RUNNING x3 -> COMPLETE``,
    written with a multiplication sign)."""
    return " -> ".join(
        f"… ({count} events)"
        if state == "…"
        else state
        if count == 1
        else f"{state} {_TIMES}{count}"
        for state, count in info.states
    )


def _by_state(counts: dict[str, int]) -> str:
    """``970 COMPLETE, 10 FAIL``: the final states in the order the legend gives them."""
    order = {state: rank for rank, state in enumerate(("COMPLETE", "FAIL", "ABORT", "RUNNING"))}
    return ", ".join(
        f"{count} {state}"
        for state, count in sorted(counts.items(), key=lambda item: order.get(item[0], 9))
        if count
    )


def _day(time: str | None) -> str:
    return time[:10] if time else "?"


def summary(events: Iterable[Event] | Graph) -> str:
    """A readable summary: jobs with their runs and states, datasets with rows and schemas.

    A job with more runs than the graph kept (see :func:`read_graph`) lists its latest runs
    after a line that counts the earlier ones by final state.

    Args:
        events: the events, or a :class:`Graph` already built from them.

    Returns:
        The text, starting with the counts of events, jobs, runs and datasets.
    """
    graph = events if isinstance(events, Graph) else build_graph(events)
    run_count = sum(graph.run_count(job) for job in graph.jobs)
    lines = [
        f"{graph.events} events, {len(graph.jobs)} jobs, {run_count} runs, {len(graph.datasets)} datasets",
        "",
    ]
    lines.append("Jobs and runs")
    for job, runs in sorted(graph.jobs.items()):
        lines.append(f"  {job}")
        earlier = graph.earlier.get(job)
        if earlier is not None:
            lines.append(
                f"    {earlier.runs} earlier runs, {_day(earlier.first)} to {_day(earlier.last)}: "
                f"{_by_state(earlier.states)}"
            )
        for info in runs:
            parent = f"  (child of {info.parent})" if info.parent else ""
            lines.append(f"    run {info.run_id}: {_states(info)}{_duration(info)}{parent}")
            if info.error:
                first_line = info.error.strip().splitlines()[0] if info.error.strip() else ""
                lines.append(f"      error: {_fit_end(first_line, 160)}")
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


def _seconds(start: str | None, end: str | None) -> float | None:
    if start is None or end is None:
        return None
    try:
        return (
            datetime.fromisoformat(end.replace("Z", "+00:00"))
            - datetime.fromisoformat(start.replace("Z", "+00:00"))
        ).total_seconds()
    except ValueError:
        return None


#: The most nodes a page opens on as a whole graph; larger graphs open on a neighbourhood.
WHOLE_GRAPH_NODES = 60

#: Node box size and the gaps between layers (x) and between nodes of a layer (y), in SVG units.
_WIDTH, _HEIGHT, _GAP_X, _GAP_Y = 240, 60, 90, 20


def _layers(count: int, edges: list[tuple[int, int]]) -> list[int]:
    """Each node's layer: cycles broken, then longest-path layering from the sources.

    The layering igraph's Sugiyama layout makes when given none (Eades, Lin and Smyth's
    heuristic orders the nodes; the edges that go backwards in that order are reversed; each
    node then goes one layer after the furthest of its predecessors), in Python: igraph's C
    code once crashed the process while layering on a loaded machine, and this part needs no C.
    """
    outgoing: list[set[int]] = [set() for _ in range(count)]
    incoming: list[set[int]] = [set() for _ in range(count)]
    for source, target in edges:
        if source != target:
            outgoing[source].add(target)
            incoming[target].add(source)
    # Eades, Lin and Smyth: sinks to the back, sources to the front, else the node whose
    # outgoing edges outnumber its incoming ones the most.
    remaining_out = [len(o) for o in outgoing]
    remaining_in = [len(i) for i in incoming]
    alive = [True] * count
    front: list[int] = []
    back: list[int] = []
    left = count
    sinks = [v for v in range(count) if remaining_out[v] == 0]
    sources = [v for v in range(count) if remaining_in[v] == 0 and remaining_out[v] > 0]

    def remove(vertex: int) -> None:
        alive[vertex] = False
        for target in outgoing[vertex]:
            if alive[target]:
                remaining_in[target] -= 1
                if remaining_in[target] == 0 and remaining_out[target] > 0:
                    sources.append(target)
        for source in incoming[vertex]:
            if alive[source]:
                remaining_out[source] -= 1
                if remaining_out[source] == 0:
                    sinks.append(source)

    while left:
        if sinks:
            vertex = sinks.pop()
            if alive[vertex]:
                back.append(vertex)
                remove(vertex)
                left -= 1
            continue
        if sources:
            vertex = sources.pop()
            if alive[vertex] and remaining_in[vertex] == 0:
                front.append(vertex)
                remove(vertex)
                left -= 1
            continue
        vertex = max(
            (v for v in range(count) if alive[v]), key=lambda v: remaining_out[v] - remaining_in[v]
        )
        front.append(vertex)
        remove(vertex)
        left -= 1
    position = {vertex: rank for rank, vertex in enumerate(front + back[::-1])}
    # Longest-path layering over the edges, each backward edge taken reversed.
    predecessors: list[set[int]] = [set() for _ in range(count)]
    for source in range(count):
        for target in outgoing[source]:
            if position[source] < position[target]:
                predecessors[target].add(source)
            else:
                predecessors[source].add(target)
    order = sorted(range(count), key=position.__getitem__)
    layers = [0] * count
    for vertex in order:
        if predecessors[vertex]:
            layers[vertex] = 1 + max(layers[p] for p in predecessors[vertex])
    # Shorter edges: a node with more edges out than in moves as far right as its successors
    # allow, one with more in than out as far left as its predecessors allow, until none moves
    # (igraph minimises the edges' total span exactly, with GLPK; this gets close to it).
    successors: list[list[int]] = [[] for _ in range(count)]
    for vertex in range(count):
        for p in predecessors[vertex]:
            successors[p].append(vertex)
    moved = True
    while moved:
        moved = False
        for vertex in reversed(order):
            pull = len(successors[vertex]) - len(predecessors[vertex])
            if pull > 0:
                best = min(layers[s] for s in successors[vertex]) - 1
            elif pull < 0:
                best = max(layers[p] for p in predecessors[vertex]) + 1
            else:
                continue
            if best != layers[vertex]:
                layers[vertex] = best
                moved = True
    low = min(layers, default=0)
    return [layer - low for layer in layers]


def _layout(
    nodes: list[str], edges: list[tuple[int, int]]
) -> tuple[list[tuple[float, float]], list[list[tuple[float, float]]]]:
    """Left-to-right layered layout: each node's top-left corner, and each edge's bends.

    The layers are assigned here (:func:`_layers`, as igraph's own layering would). Every edge that spans more than one layer then gets a dummy vertex in each layer
    it crosses, and a second run orders each layer of that extended graph by the barycenter
    heuristic, keeping crossings low. A dummy takes a slot of its own in its layer, so an edge
    drawn through its dummies' slots never passes under a node: between layers it curves
    across an empty gap, and within a layer it runs level through its own slot.
    """
    try:
        import igraph
    except ImportError:
        raise ModuleNotFoundError(
            "the HTML lineage graph needs igraph for its layout: "
            "pip install 'openlineage-sdk[report]'",
            name="igraph",
        ) from None
    if not nodes:
        return [], []
    layers = _layers(len(nodes), edges)
    extended_layers = list(layers)
    extended_edges: list[tuple[int, int]] = []
    chains: list[list[int]] = []  # the dummy vertices of each edge, left to right
    for source, target in edges:
        chain = []
        previous = source
        for layer in range(layers[source] + 1, layers[target]):
            extended_layers.append(layer)
            chain.append(len(extended_layers) - 1)
            extended_edges.append((previous, chain[-1]))
            previous = chain[-1]
        extended_edges.append((previous, target))
        chains.append(chain)
    extended = igraph.Graph(n=len(extended_layers), edges=extended_edges, directed=True)
    layout = extended.layout_sugiyama(layers=extended_layers, hgap=1, vgap=1, maxiter=100)
    # igraph's final placement may put two members of a layer closer than one slot: keep its
    # order and positions, pushing each member down to at least one slot below the one before.
    coords = layout.coords  # a property that copies every coordinate: read it once
    members: dict[int, list[tuple[float, int]]] = {}
    for vertex, layer in enumerate(extended_layers):
        members.setdefault(layer, []).append((coords[vertex][0], vertex))
    slot = [0.0] * len(extended_layers)
    for layer_members in members.values():
        previous_slot = -math.inf
        for across, vertex in sorted(layer_members):
            previous_slot = max(across, previous_slot + 1)
            slot[vertex] = previous_slot
    tallest = max(len(m) for m in members.values())
    if max(slot) - min(slot) > 2 * tallest:
        # On large graphs igraph's placement spreads layers far apart (a strip many times
        # taller than the widest layer): keep each layer's order, packed and centred.
        for layer_members in members.values():
            for rank, (_, vertex) in enumerate(sorted(layer_members)):
                slot[vertex] = rank - (len(layer_members) - 1) / 2
    low = min(slot)
    step_x, step_y = _WIDTH + _GAP_X, _HEIGHT + _GAP_Y

    def corner(vertex: int) -> tuple[float, float]:
        return extended_layers[vertex] * step_x, (slot[vertex] - low) * step_y

    return [corner(v) for v in range(len(nodes))], [[corner(v) for v in c] for c in chains]


def _page_data(graph: Graph, title: str) -> dict[str, Any]:
    """Everything the page draws, as compact JSON: nodes with positions, edges with bends."""
    jobs = sorted(graph.jobs)
    datasets = sorted(graph.datasets)
    names = jobs + datasets
    index = {name: number for number, name in enumerate(names)}
    links = sorted({(index[a], index[b]) for a, b in graph.edges if a != b})
    parent_links = sorted(
        {(index[a], index[b]) for a, b in graph.parents if a != b and a in index and b in index}
        - set(links)
    )
    corners, bends = _layout(names, links + parent_links)
    reads: dict[str, list[int]] = defaultdict(list)
    writes: dict[str, list[int]] = defaultdict(list)
    for a, b in graph.edges:
        if a in graph.jobs:
            writes[a].append(index[b])
        else:
            reads[b].append(index[a])
    children: dict[str, list[int]] = defaultdict(list)
    parents_of: dict[str, list[str]] = defaultdict(list)
    for a, b in graph.parents:
        children[a].append(index[b])
        parents_of[b].append(a)
    nodes: list[dict[str, Any]] = []
    for job in jobs:
        runs = sorted(graph.jobs[job], key=lambda r: r.when)
        namespace, _, name = job.partition("/")
        latest = runs[-1] if runs else None
        parents = sorted(parents_of[job])
        earlier = graph.earlier.get(job)
        nodes.append(
            {
                "kind": "job",
                "ns": namespace,
                "name": name,
                "state": "NONE" if latest is None else latest.state,
                "parent": index[parents[0]] if parents else None,
                "children": sorted(children[job]),
                "runs": [
                    [
                        r.run_id,
                        r.state,
                        r.started,
                        r.ended,
                        _seconds(r.started, r.ended),
                        r.error,
                        r.first_seen,
                    ]
                    for r in runs
                ],
                "total": graph.run_count(job),
                "failed": graph.failed_count(job),
                "earlier": None
                if earlier is None
                else [earlier.runs, earlier.states, earlier.first, earlier.last],
                "in": sorted(reads[job]),
                "out": sorted(writes[job]),
            }
        )
    for key in datasets:
        data = graph.datasets[key]
        nodes.append(
            {
                "kind": "dataset",
                "ns": data.namespace or key.split("/", 1)[0],
                "name": data.name or key,
                "uri": key,
                "rows": data.rows,
                "bytes": data.bytes,
                "files": data.files,
                "columns": data.columns,
                "symlinks": data.symlinks,
                "lifecycle": data.lifecycle,
                "lineage": {
                    column: [[index.get(uri, -1), uri, field_, how] for uri, field_, how in items]
                    for column, items in data.column_lineage.items()
                },
                "writers": sorted(index[j] for j in data.written_by),
                "readers": sorted(index[j] for j in data.read_by),
            }
        )
    for node, (x, y) in zip(nodes, corners, strict=True):
        node["x"], node["y"] = round(x), round(y)
    edges = [
        [a, b, kind, [[round(x), round(y)] for x, y in points]]
        for (a, b), kind, points in zip(
            links + parent_links,
            ["data"] * len(links) + ["parent"] * len(parent_links),
            bends,
            strict=True,
        )
    ]
    return {
        "title": title,
        "events": graph.events,
        "runs": sum(graph.run_count(job) for job in graph.jobs),
        "keep": graph.keep_runs,
        # A history small enough to read whole opens on the whole graph; a larger one on the
        # neighbourhood of its latest failures (the page's script chooses and lays it out).
        "start": "whole" if len(nodes) <= WHOLE_GRAPH_NODES else "focus",
        "box": [_WIDTH, _HEIGHT],
        "nodes": nodes,
        "edges": edges,
    }


def _asset(name: str) -> str:
    from importlib.resources import files

    return files("openlineage_sdk").joinpath("_report").joinpath(name).read_text(encoding="utf-8")


def lineage_html(events: Iterable[Event] | Graph, *, title: str = "Lineage") -> str:
    """A self-contained HTML page of the lineage graph: open it offline in any browser.

    The whole graph is laid out left to right when the page is made (igraph's layered
    Sugiyama layout) and drawn as SVG by the page's own script: zoom (wheel), pan (drag), fit to window; jobs
    coloured and labelled by their latest run's state, with their runs, durations and error
    messages one click away; datasets with schema, statistics, symlinks, readers and writers,
    and the upstream columns of any column (column lineage); search and a namespace filter.
    A graph of more than ``WHOLE_GRAPH_NODES`` nodes opens on the neighbourhood of its latest
    failures instead (upstream and downstream to a depth the reader sets, other namespaces
    folded into a box each), with namespaces, any one node and the whole graph one click away.

    Args:
        events: the events, or a :class:`Graph` already built from them.
        title: the page's title and heading.

    Returns:
        The HTML text; it loads nothing from the network.

    Raises:
        ModuleNotFoundError: igraph, which lays the graph out, is not installed (it comes with
            the ``[report]`` extra).
    """
    graph = events if isinstance(events, Graph) else build_graph(events)
    data = json.dumps(_page_data(graph, title), separators=(",", ":"), ensure_ascii=False)
    # Inside <script>, "</" could end the element early: JSON allows writing it as "<\/".
    data = data.replace("</", "<\\/")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{_asset('report.css')}</style></head><body>"
        f"{_asset('report.html')}"
        f'<script type="application/json" id="lineage-data">{data}</script>'
        f"<script>{_asset('report.js')}</script></body></html>\n"
    )
