"""``with client.run(...)``: START on entry, and COMPLETE, FAIL or ABORT on the way out."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from openlineage_sdk import LineageRun, RunEvent, current_run
from openlineage_sdk.client import OpenLineage
from openlineage_sdk.facets import ErrorMessageRunFacet
from openlineage_sdk.transports import MemoryTransport, Transport
from tests.lifecycle.conftest import PRODUCER, run_events, types_of


class BoomError(Exception):
    pass


def _raise(exc: BaseException) -> Callable[[], None]:
    def body() -> None:
        raise exc

    return body


def _nothing() -> None:
    return None


# (case, the block's body, the exception that leaves the block or None, the events emitted)
OUTCOMES: list[tuple[str, Callable[[], None], type[BaseException] | None, list[str]]] = [
    ("clean exit", _nothing, None, ["START", "COMPLETE"]),
    ("exception", _raise(BoomError("no orders today")), BoomError, ["START", "FAIL"]),
    ("KeyboardInterrupt", _raise(KeyboardInterrupt()), KeyboardInterrupt, ["START", "ABORT"]),
    (
        "asyncio.CancelledError",
        _raise(asyncio.CancelledError()),
        asyncio.CancelledError,
        ["START", "ABORT"],
    ),
    ("GeneratorExit", _raise(GeneratorExit()), GeneratorExit, ["START", "ABORT"]),
    ("sys.exit(0)", _raise(SystemExit(0)), SystemExit, ["START", "COMPLETE"]),
    ("sys.exit()", _raise(SystemExit()), SystemExit, ["START", "COMPLETE"]),
    ("sys.exit(2)", _raise(SystemExit(2)), SystemExit, ["START", "FAIL"]),
    ("sys.exit('message')", _raise(SystemExit("bad input")), SystemExit, ["START", "FAIL"]),
]


@pytest.mark.parametrize(
    ("case", "body", "escapes", "expected"), OUTCOMES, ids=[o[0] for o in OUTCOMES]
)
def test_block_outcome_decides_the_final_event(
    client: OpenLineage,
    memory: MemoryTransport,
    case: str,
    body: Callable[[], None],
    escapes: type[BaseException] | None,
    expected: list[str],
) -> None:
    if escapes is None:
        with client.run("orders.daily_load") as run:
            body()
    else:
        # The user's exception always comes out unchanged.
        with pytest.raises(escapes), client.run("orders.daily_load") as run:
            body()
    assert types_of(memory) == expected
    assert run.state == expected[-1]
    assert run.ended
    events = run_events(memory)
    assert {e.run.run_id for e in events} == {run.run_id}
    assert all(e.job.namespace == "team" and e.job.name == "orders.daily_load" for e in events)
    assert all(e.producer == PRODUCER for e in events)
    error = events[-1].run.facets.error_message if events[-1].run.facets else None
    # Only a failure carries an errorMessage; an interruption is not the job's error.
    assert (error is not None) == (expected[-1] == "FAIL")


def test_fail_carries_message_language_and_stack_trace(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    def load_orders() -> None:
        raise BoomError("table orders is locked")

    with pytest.raises(BoomError) as raised, client.run("orders.daily_load"):
        load_orders()
    fail = run_events(memory)[-1]
    assert fail.event_type == "FAIL"
    assert fail.run.facets is not None
    facet = fail.run.facets["errorMessage"]
    assert isinstance(facet, ErrorMessageRunFacet)
    assert (
        facet.message == "tests.lifecycle.test_lifecycle_context.BoomError: table orders is locked"
    )
    assert facet.programming_language == "python"
    assert facet.stack_trace is not None
    assert facet.stack_trace.startswith("Traceback (most recent call last):")
    assert "in load_orders" in facet.stack_trace
    assert facet.stack_trace.rstrip().endswith("BoomError: table orders is locked")
    assert facet.producer == PRODUCER
    assert raised.value.args == ("table orders is locked",)
    assert fail.to_dict()["run"]["facets"]["errorMessage"]["programmingLanguage"] == "python"


def test_system_exit_with_a_code_fails_with_it(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    with pytest.raises(SystemExit), client.run("cli"):
        sys.exit(3)
    facets = run_events(memory)[-1].run.facets
    assert facets is not None
    assert facets.error_message is not None
    assert facets.error_message.message == "SystemExit: 3"


def test_async_with(client: OpenLineage, memory: MemoryTransport) -> None:
    async def main() -> str:
        async with client.run("orders.async_load") as run:
            assert current_run() is run
            await asyncio.sleep(0)
        return run.run_id

    run_id = asyncio.run(main())
    assert types_of(memory) == ["START", "COMPLETE"]
    assert all(e.run.run_id == run_id for e in run_events(memory))


def test_async_cancellation_aborts(client: OpenLineage, memory: MemoryTransport) -> None:
    started = asyncio.Event

    async def job(ready: asyncio.Event) -> None:
        async with client.run("orders.slow"):
            ready.set()
            await asyncio.sleep(60)

    async def main() -> None:
        ready = started()
        task = asyncio.create_task(job(ready))
        await ready.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert types_of(memory) == ["START", "ABORT"]


def test_async_exception_fails(client: OpenLineage, memory: MemoryTransport) -> None:
    async def main() -> None:
        async with client.run("orders.async_load"):
            raise BoomError("async")

    with pytest.raises(BoomError):
        asyncio.run(main())
    assert types_of(memory) == ["START", "FAIL"]


@pytest.mark.parametrize(
    ("finish", "expected"),
    [
        (lambda run: run.complete(), ["START", "COMPLETE"]),
        (lambda run: run.fail("gave up"), ["START", "FAIL"]),
        (lambda run: run.abort(), ["START", "ABORT"]),
    ],
    ids=["complete", "fail", "abort"],
)
def test_a_block_that_ends_its_run_gets_no_second_end(
    client: OpenLineage,
    memory: MemoryTransport,
    finish: Callable[[LineageRun], Any],
    expected: list[str],
) -> None:
    with client.run("orders.daily_load") as run:
        finish(run)
    assert types_of(memory) == expected


def test_a_block_that_ended_its_run_and_raises_emits_nothing_more(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    def complete_then_raise(run: LineageRun) -> None:
        run.complete()
        raise BoomError("after the end")

    with pytest.raises(BoomError), client.run("orders.daily_load") as run:
        complete_then_raise(run)
    assert types_of(memory) == ["START", "COMPLETE"]


def test_entering_a_started_run_does_not_start_it_again(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    run = client.run("orders.daily_load")
    run.start()
    with run:
        assert current_run() is run
    assert types_of(memory) == ["START", "COMPLETE"]


def test_running_and_other_inside_a_block(client: OpenLineage, memory: MemoryTransport) -> None:
    with client.run("orders.daily_load") as run:
        run.running()
        run.other()
        run.running()
    run.other()  # OTHER after the end
    assert types_of(memory) == ["START", "RUNNING", "OTHER", "RUNNING", "COMPLETE", "OTHER"]


def test_current_run_is_set_inside_and_restored_after(client: OpenLineage) -> None:
    assert current_run() is None
    with client.run("outer") as outer:
        assert current_run() is outer
        with client.run("inner") as inner:
            assert current_run() is inner
        assert current_run() is outer
    assert current_run() is None


def test_current_run_is_restored_after_an_exception(client: OpenLineage) -> None:
    with pytest.raises(BoomError), client.run("outer"):
        raise BoomError("x")
    assert current_run() is None


def test_a_new_thread_has_no_current_run_unless_the_context_is_copied(
    client: OpenLineage,
) -> None:
    seen: dict[str, LineageRun | None] = {}
    with client.run("outer") as outer:
        plain = threading.Thread(target=lambda: seen.update(plain=current_run()))
        plain.start()
        plain.join()
        context = contextvars.copy_context()
        copied = threading.Thread(
            target=lambda: context.run(lambda: seen.update(copied=current_run()))
        )
        copied.start()
        copied.join()
    assert seen == {"plain": None, "copied": outer}


# --------------------------------------------------------------------------- never break the job


class Exploding(Transport):
    kind = "exploding"

    def emit(self, event: Any) -> None:
        raise RuntimeError("backend client bug")


@pytest.fixture
def exploding() -> Iterator[OpenLineage]:
    with OpenLineage(transport=Exploding(), namespace="team") as ol:
        yield ol


def test_transport_errors_are_logged_not_raised(
    exploding: OpenLineage, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR), exploding.run("orders.daily_load") as run:
        run.running()
    assert run.state == "COMPLETE"
    emitted = [r for r in caplog.records if "could not be emitted" in r.getMessage()]
    assert len(emitted) == 3  # START, RUNNING, COMPLETE


def test_the_users_exception_survives_a_broken_transport(exploding: OpenLineage) -> None:
    with pytest.raises(BoomError), exploding.run("orders.daily_load"):
        raise BoomError("the real problem")


def test_raise_on_error_raises_on_a_clean_path() -> None:
    ol = OpenLineage(transport=Exploding(), raise_on_error=True)
    with pytest.raises(RuntimeError, match="backend client bug"), ol.run("orders"):
        pass  # pragma: no cover - START already raises


def test_raise_on_error_never_replaces_the_users_exception(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # START succeeds (the transport breaks afterwards); FAIL then cannot be delivered.
    class BreaksAfterOne(Transport):
        kind = "breaks"
        calls = 0

        def emit(self, event: Any) -> None:
            self.calls += 1
            if self.calls > 1:
                raise RuntimeError("backend down")

    ol = OpenLineage(transport=BreaksAfterOne(), raise_on_error=True)
    with caplog.at_level(logging.ERROR), pytest.raises(BoomError), ol.run("orders"):
        raise BoomError("the real problem")
    assert any("could not be emitted" in r.getMessage() for r in caplog.records)


def test_a_disabled_client_runs_the_lifecycle_and_emits_nothing(memory: MemoryTransport) -> None:
    with OpenLineage(transport=memory, disabled=True) as ol:
        with ol.run("orders") as run:
            run.running()
        assert run.state == "COMPLETE"
    assert memory.events == []


def test_events_are_returned_as_handed_to_the_client(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    run = client.run("orders")
    events = [run.start(), run.running(), run.complete(), run.other()]
    assert all(isinstance(e, RunEvent) for e in events)
    assert memory.events == events


def test_repr_names_the_job_run_and_state(client: OpenLineage) -> None:
    run = client.run("orders.daily_load")
    assert repr(run) == (
        f"LineageRun(job='team/orders.daily_load', run_id={run.run_id!r}, state='NEW')"
    )
