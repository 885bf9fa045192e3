"""The state machine: one START, at most one end, RUNNING between, OTHER at any time."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable

import pytest

from openlineage_sdk import (
    EventType,
    LineageRun,
    RunEvent,
    RunState,
    RunTransitionError,
    RunTransitionWarning,
)
from openlineage_sdk.client import OpenLineage
from openlineage_sdk.transports import MemoryTransport
from tests.lifecycle.conftest import run_events, types_of

EVENTS: list[EventType] = ["START", "RUNNING", "COMPLETE", "FAIL", "ABORT", "OTHER"]

# The events that bring a fresh run to each state.
REACH: dict[RunState, list[EventType]] = {
    "NEW": [],
    "START": ["START"],
    "RUNNING": ["START", "RUNNING"],
    "COMPLETE": ["START", "COMPLETE"],
    "FAIL": ["START", "FAIL"],
    "ABORT": ["START", "ABORT"],
}

# The whole transition table: state -> the events it allows.
ALLOWED: dict[RunState, set[EventType]] = {
    "NEW": {"START", "OTHER"},
    "START": {"RUNNING", "COMPLETE", "FAIL", "ABORT", "OTHER"},
    "RUNNING": {"RUNNING", "COMPLETE", "FAIL", "ABORT", "OTHER"},
    "COMPLETE": {"OTHER"},
    "FAIL": {"OTHER"},
    "ABORT": {"OTHER"},
}

CASES = [(state, event) for state in REACH for event in EVENTS]


def emit(run: LineageRun, event_type: EventType) -> RunEvent:
    call: dict[EventType, Callable[[], RunEvent]] = {
        "START": run.start,
        "RUNNING": run.running,
        "COMPLETE": run.complete,
        "FAIL": run.fail,
        "ABORT": run.abort,
        "OTHER": run.other,
    }
    return call[event_type]()


def reach(client: OpenLineage, state: RunState) -> LineageRun:
    run = client.run("orders.daily_load")
    for event_type in REACH[state]:
        emit(run, event_type)
    assert run.state == state
    return run


@pytest.mark.parametrize(("state", "event_type"), CASES, ids=[f"{s}->{e}" for s, e in CASES])
def test_transition_table(
    client: OpenLineage, memory: MemoryTransport, state: RunState, event_type: EventType
) -> None:
    run = reach(client, state)
    before = types_of(memory)
    if event_type in ALLOWED[state]:
        event = emit(run, event_type)
        assert event.event_type == event_type
        assert types_of(memory) == [*before, event_type]
        # OTHER never moves the run; every other allowed event becomes its state.
        assert run.state == (state if event_type == "OTHER" else event_type)
    else:
        with pytest.raises(RunTransitionError) as raised:
            emit(run, event_type)
        error = raised.value
        # The error names the run and both states, and nothing was emitted or changed.
        assert (error.state, error.event_type) == (state, event_type)
        assert error.run.run_id == run.run_id
        assert (error.run.namespace, error.run.name) == ("team", "orders.daily_load")
        message = str(error)
        assert run.run_id in message
        assert "team/orders.daily_load" in message
        assert f"cannot emit {event_type} in state {state}" in message
        assert types_of(memory) == before
        assert run.state == state


@pytest.mark.parametrize(
    ("state", "event_type", "reason"),
    [
        ("NEW", "RUNNING", "the run has not started; START comes first"),
        ("NEW", "COMPLETE", "the run has not started; START comes first"),
        ("RUNNING", "START", "a run has one START, and this run has started"),
        ("COMPLETE", "START", "a run has one START, and this run has already ended"),
        ("COMPLETE", "FAIL", "the run has already ended with COMPLETE; only OTHER may follow"),
        ("ABORT", "RUNNING", "the run has already ended with ABORT; only OTHER may follow"),
    ],
)
def test_the_error_says_why(
    client: OpenLineage, state: RunState, event_type: EventType, reason: str
) -> None:
    run = reach(client, state)
    with pytest.raises(RunTransitionError) as raised:
        emit(run, event_type)
    assert raised.value.reason == reason
    assert str(raised.value) == (
        f"run {run.run_id} of job team/orders.daily_load: "
        f"cannot emit {event_type} in state {state}: {reason}"
    )


def test_a_refused_event_merges_none_of_its_metadata(client: OpenLineage) -> None:
    from openlineage_sdk.naming import s3

    run = reach(client, "COMPLETE")
    with pytest.raises(RunTransitionError):
        run.complete(outputs=[s3("lake", "late")])
    assert run.outputs == []


# --------------------------------------------------------------------------- warning mode


@pytest.fixture
def lenient(memory: MemoryTransport) -> OpenLineage:
    return OpenLineage(transport=memory, namespace="team", invalid_transitions="warn")


def test_warning_mode_on_the_client_warns_and_emits(
    lenient: OpenLineage, memory: MemoryTransport
) -> None:
    run = lenient.run("orders.daily_load")
    # A producer that only sees the end of a run, and reports it twice.
    with pytest.warns(RunTransitionWarning) as record:
        run.complete()
    with pytest.warns(RunTransitionWarning) as again:
        run.complete()
    assert types_of(memory) == ["COMPLETE", "COMPLETE"]
    assert run.state == "COMPLETE"
    first, second = record[0].message, again[0].message
    assert isinstance(first, RunTransitionWarning)
    assert isinstance(second, RunTransitionWarning)
    assert (first.state, first.event_type) == ("NEW", "COMPLETE")
    assert (second.state, second.event_type) == ("COMPLETE", "COMPLETE")
    assert run.run_id in str(first)
    # The warning points at the caller's line, not at the SDK's insides.
    assert record[0].filename == __file__


def test_warning_mode_per_run_overrides_a_strict_client(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    run = client.run("orders.daily_load", invalid_transitions="warn")
    with pytest.warns(RunTransitionWarning, match="cannot emit RUNNING in state NEW"):
        run.running()
    assert types_of(memory) == ["RUNNING"]
    assert run.state == "RUNNING"


def test_strict_run_overrides_a_lenient_client(lenient: OpenLineage) -> None:
    run = lenient.run("orders.daily_load", invalid_transitions="raise")
    with pytest.raises(RunTransitionError):
        run.running()


def test_valid_transitions_do_not_warn(lenient: OpenLineage) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with lenient.run("orders") as run:
            run.running()


def test_the_client_refuses_an_unknown_setting(memory: MemoryTransport) -> None:
    with pytest.raises(ValueError, match="invalid_transitions must be 'raise' or 'warn'"):
        OpenLineage(transport=memory, invalid_transitions="ignore")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- threads


def test_only_one_of_many_racing_ends_wins(client: OpenLineage, memory: MemoryTransport) -> None:
    run = reach(client, "RUNNING")
    barrier = threading.Barrier(8)
    outcomes: list[str] = []
    lock = threading.Lock()

    def finish() -> None:
        barrier.wait()
        try:
            run.complete()
            result = "emitted"
        except RunTransitionError:
            result = "refused"
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=finish) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["emitted"] + ["refused"] * 7
    assert types_of(memory) == ["START", "RUNNING", "COMPLETE"]


def test_events_of_one_run_reach_the_transport_in_order(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    run = reach(client, "START")
    threads = [threading.Thread(target=run.running) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    run.complete()
    assert types_of(memory) == ["START", *["RUNNING"] * 20, "COMPLETE"]
    times = [e.event_time for e in run_events(memory)]
    assert times == sorted(times)
