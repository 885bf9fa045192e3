"""The adapter's finishing thread: executions finished after the user's call returned.

No Spark here: the template's thread on its own (order, a bound on what waits, failures).
"""

from __future__ import annotations

import os
import threading
import time

import pytest

from openlineage_sdk.spark import _flow


@pytest.fixture
def finisher(monkeypatch: pytest.MonkeyPatch) -> _flow._Finisher:
    """A finishing thread of the test's own, in place of the adapter's."""
    own = _flow._Finisher()
    monkeypatch.setattr(_flow, "_finisher", own)
    return own


def test_work_is_finished_in_the_order_it_was_handed_over(finisher: _flow._Finisher) -> None:
    done: list[int] = []
    for i in range(20):
        assert _flow.finish_later(lambda i=i: (time.sleep(0.001), done.append(i)))
    assert _flow.wait_finished(30)
    assert done == list(range(20))
    assert finisher.pending == 0


def test_beyond_the_limit_the_caller_finishes_its_own(
    finisher: _flow._Finisher, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(finisher, "limit", 2)
    release = threading.Event()
    assert _flow.finish_later(lambda: release.wait(30) and None)
    assert _flow.finish_later(lambda: None)
    assert not _flow.finish_later(lambda: None)  # two wait: the third is the caller's
    assert not _flow.wait_finished(0.05)  # and waiting says it timed out
    release.set()
    assert _flow.wait_finished(30)


def test_a_failing_piece_of_work_does_not_stop_the_rest(
    finisher: _flow._Finisher, caplog: pytest.LogCaptureFixture
) -> None:
    done: list[str] = []

    def fails() -> None:
        raise RuntimeError("broken sink")

    _flow.finish_later(fails)
    _flow.finish_later(lambda: done.append("after"))
    assert _flow.wait_finished(30)
    assert done == ["after"]
    assert "broken sink" in caplog.text


def test_a_start_waits_for_the_ends_handed_over_before_it(finisher: _flow._Finisher) -> None:
    order: list[str] = []
    _flow.finish_later(lambda: (time.sleep(0.2), order.append("earlier end")))
    _flow._in_order()
    order.append("later start")
    assert order == ["earlier end", "later start"]


def test_work_on_the_finishing_thread_does_not_wait_for_itself(
    finisher: _flow._Finisher,
) -> None:
    waited: list[bool] = []
    _flow.finish_later(lambda: waited.append(_flow.wait_finished(1)))
    assert _flow.wait_finished(30)
    assert waited == [True]


def test_only_a_sink_that_makes_a_run_of_each_execution_hears_of_ends_later() -> None:
    from openlineage_sdk.client import OpenLineage
    from openlineage_sdk.spark.events._sinks import IntoCurrentRun, RunPerExecution
    from openlineage_sdk.transports import MemoryTransport

    assert _flow._reports_later(RunPerExecution(OpenLineage(transport=MemoryTransport())))
    assert not _flow._reports_later(IntoCurrentRun())
    assert not _flow._reports_later(object())  # type: ignore[arg-type]


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="no per-thread priority here")
def test_the_finishing_thread_yields_the_cpu_to_the_users_work(finisher: _flow._Finisher) -> None:
    """On Linux the finishing thread runs at a lower priority (a higher nice value) than the
    thread that hands work over."""
    seen: list[int] = []
    _flow.finish_later(
        lambda: seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
    )
    assert _flow.wait_finished(30)
    [finishing] = seen
    assert finishing > os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


class _EarlierSink:
    """A sink of one's own written before the sink's methods said "execution"."""

    def __init__(self) -> None:
        self.heard: list[str] = []

    def write_started(self, write: object) -> None:
        self.heard.append("started")

    def write_running(self, write: object) -> None:
        self.heard.append("running")

    def write_finished(self, write: object) -> None:
        self.heard.append("finished")


def test_a_sink_with_the_earlier_method_names_is_still_called_by_them() -> None:
    from openlineage_sdk.spark._execution import SparkExecution

    sink = _EarlierSink()
    assert _flow.earlier_sink_names(sink) == ["write_started", "write_finished", "write_running"]
    execution = SparkExecution("classic", "save", "app", "save")
    assert _flow.run_observed(sink, execution, _flow.ExecutionSteps(), lambda: 7) == 7  # type: ignore[arg-type]
    _flow.report_running(sink, execution)  # type: ignore[arg-type]
    assert sink.heard == ["started", "finished", "running"]


def test_install_warns_of_a_sink_with_the_earlier_method_names(spark: object) -> None:
    from openlineage_sdk.spark import install, uninstall

    with pytest.warns(DeprecationWarning, match="execution_started, execution_finished"):
        install(spark, sink=_EarlierSink())
    uninstall(spark)
