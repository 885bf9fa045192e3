"""Which write a command the listener bus delivers belongs to, by the windows of the writes.

No Spark here: the listener on its own, given commands as the bus would deliver them (each a
stand-in for a ``QueryExecution``, with or without write metrics).
"""

from __future__ import annotations

from typing import Any

import pytest

from openlineage_sdk.spark._execution import IoStats
from openlineage_sdk.spark.session.classic import _metrics


class _Command:
    """A command as the bus delivers it: a write (with its rows) or a query (none)."""

    def __init__(self, rows: int | None) -> None:
        self.rows = rows


@pytest.fixture
def listener(monkeypatch: pytest.MonkeyPatch) -> _metrics.WriteMetricsListener:
    def metrics(jvm: Any, qe: _Command) -> _metrics.CommandMetrics | None:
        return None if qe.rows is None else _metrics.CommandMetrics(IoStats(row_count=qe.rows), [])

    monkeypatch.setattr(_metrics, "command_metrics", metrics)
    heard = _metrics.WriteMetricsListener(jvm=None)
    heard.on_query = lambda name, qe: reads.append(qe)
    reads.clear()
    return heard


reads: list[_Command] = []


def _rows(listener: _metrics.WriteMetricsListener, token: int) -> list[int | None]:
    return [c.output.row_count for c in listener.collector(token).commands if c.output]


def test_a_closed_write_gets_the_command_delivered_after_the_next_write_began(
    listener: _metrics.WriteMetricsListener,
) -> None:
    first = listener.begin()
    listener.close(first)  # its call returned; its command is still on the bus
    second = listener.begin()
    listener.onSuccess("command", _Command(4), 0)
    listener.onSuccess("command", _Command(7), 0)
    listener.close(second)
    assert _rows(listener, first) == [4]
    assert _rows(listener, second) == [7]


def test_a_query_delivered_inside_an_open_window_does_not_close_it(
    listener: _metrics.WriteMetricsListener,
) -> None:
    """A read that ended before the write began, delivered while it runs, is not its command:
    the write's own command, delivered once its call returned, still reaches it."""
    write = listener.begin()
    listener.onSuccess("collect", _Command(None), 0)  # an earlier read, delivered late
    listener.close(write)
    listener.onSuccess("command", _Command(3), 0)
    assert _rows(listener, write) == [3]


def test_once_a_closed_write_has_its_command_the_queries_after_it_are_reads(
    listener: _metrics.WriteMetricsListener,
) -> None:
    write = listener.begin()
    listener.close(write)
    listener.onSuccess("command", _Command(3), 0)
    after = _Command(None)
    listener.onSuccess("count", after, 0)
    assert reads == [after]
    assert _rows(listener, write) == [3]


def test_a_closed_write_takes_one_command_at_most(
    listener: _metrics.WriteMetricsListener,
) -> None:
    """A write whose command reports no metrics (none to wait for) takes the first command after
    it closed and no more: the reads after it are reported."""
    write = listener.begin()
    listener.close(write)
    listener.onSuccess("command", _Command(None), 0)
    after = _Command(None)
    listener.onSuccess("count", after, 0)
    assert reads == [after]


def test_writes_whose_windows_overlap_get_nothing_they_cannot_be_told_apart(
    listener: _metrics.WriteMetricsListener,
) -> None:
    one = listener.begin()
    two = listener.begin()  # another thread's write, begun before the first returned
    listener.close(one)
    listener.onSuccess("command", _Command(5), 0)
    assert _rows(listener, one) == []
    assert _rows(listener, two) == []
