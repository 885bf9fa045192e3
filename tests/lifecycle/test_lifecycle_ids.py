"""Run ids: UUIDv7 monotonic within a process; deterministic ids stable across processes."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import threading
import time
import uuid
import warnings
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from openlineage_sdk import deterministic_run_id, uuid7
from openlineage_sdk._ids import _Uuid7Generator
from openlineage_sdk.client import OpenLineage
from openlineage_sdk.facets import NominalTimeRunFacet
from openlineage_sdk.transports import MemoryTransport
from tests.lifecycle.conftest import run_events

ROOT = Path(__file__).resolve().parents[2]
NOMINAL = datetime(2024, 5, 1, 3, 0, tzinfo=timezone.utc)


def timestamp_ms(value: uuid.UUID) -> int:
    return value.int >> 80


def counter(value: uuid.UUID) -> int:
    # rand_a (12 bits) and the top 30 bits of rand_b: the 42-bit counter.
    return (((value.int >> 64) & 0xFFF) << 30) | ((value.int >> 32) & ((1 << 30) - 1))


# --------------------------------------------------------------------------- UUIDv7


def test_uuid7_layout() -> None:
    before = time.time_ns() // 1_000_000
    value = uuid7()
    after = time.time_ns() // 1_000_000
    assert value.version == 7
    assert value.variant == uuid.RFC_4122
    assert before <= timestamp_ms(value) <= after + 1
    assert str(value) == str(uuid.UUID(str(value)))


def test_uuid7_strictly_increases_in_a_tight_loop() -> None:
    ids = [uuid7() for _ in range(100_000)]
    assert all(a < b for a, b in itertools.pairwise(ids))
    # And as text, which is how backends see them.
    texts = [str(i) for i in ids]
    assert texts == sorted(texts)


def test_uuid7_is_unique_and_ordered_across_threads() -> None:
    results: list[list[uuid.UUID]] = [[] for _ in range(8)]

    def make(out: list[uuid.UUID]) -> None:
        out.extend(uuid7() for _ in range(5_000))

    threads = [threading.Thread(target=make, args=(out,)) for out in results]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    every = [i for out in results for i in out]
    assert len(set(every)) == len(every)
    for out in results:
        assert out == sorted(out)


class FakeClock:
    def __init__(self, now: int) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


def fixed_bits(value: int) -> object:
    return lambda bits: value & ((1 << bits) - 1)


def test_same_millisecond_counts_up_from_a_seed_with_the_top_bit_clear() -> None:
    clock = FakeClock(1_700_000_000_000)
    make = _Uuid7Generator(clock, lambda bits: (1 << bits) - 1)  # all ones: the largest seed
    first, second, third = make(), make(), make()
    assert {timestamp_ms(v) for v in (first, second, third)} == {1_700_000_000_000}
    assert counter(first) == (1 << 41) - 1  # 41 bits: the 42nd, top bit is clear
    assert counter(second) == counter(first) + 1
    assert counter(third) == counter(first) + 2


def test_a_new_millisecond_reseeds() -> None:
    seeds = iter([5, 0xAAAA, 9, 0xBBBB])
    clock = FakeClock(1_000)
    make = _Uuid7Generator(clock, lambda bits: next(seeds))
    a = make()
    clock.now = 1_001
    b = make()
    assert (timestamp_ms(a), counter(a)) == (1_000, 5)
    assert (timestamp_ms(b), counter(b)) == (1_001, 9)
    assert a < b


def test_a_clock_that_steps_back_never_makes_ids_go_back() -> None:
    clock = FakeClock(10_000)
    make = _Uuid7Generator(clock, lambda bits: 0)
    a = make()
    clock.now = 9_000  # NTP stepped the clock back a second
    b = make()
    c = make()
    assert a < b < c
    assert timestamp_ms(b) == timestamp_ms(c) == 10_000


def test_counter_overflow_carries_into_the_timestamp() -> None:
    clock = FakeClock(2_000)
    make = _Uuid7Generator(clock, lambda bits: (1 << bits) - 1)
    make()
    # Jump the counter to its last value instead of making 2**41 ids.
    make._counter = (1 << 42) - 1
    last = make()
    assert timestamp_ms(last) == 2_001
    assert counter(last) == (1 << 41) - 1
    assert make() > last


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_continues_upwards_and_apart_from_its_parent() -> None:
    before = uuid7()
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():
        # Python 3.12+ warns about fork() in a process that has threads (other tests' transport
        # senders may still be alive); the child here only makes ids and exits.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        try:
            os.close(read_end)
            ids = [str(uuid7()) for _ in range(3)]
            os.write(write_end, ",".join(ids).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    parent_ids = [uuid7() for _ in range(3)]
    with os.fdopen(read_end) as pipe:
        child_ids = [uuid.UUID(text) for text in pipe.read().split(",")]
    os.waitpid(pid, 0)
    assert all(before < i for i in child_ids)
    assert child_ids == sorted(child_ids)
    assert not set(child_ids) & set(parent_ids)
    # Not only the random tail differs: the child's counter moved on by a random step.
    assert {counter(i) for i in child_ids}.isdisjoint({counter(i) for i in parent_ids})


def test_runs_get_uuid7_ids_in_creation_order(client: OpenLineage, memory: MemoryTransport) -> None:
    runs = [client.run(f"job{i}") for i in range(50)]
    ids = [uuid.UUID(r.run_id) for r in runs]
    assert all(i.version == 7 for i in ids)
    assert ids == sorted(ids)


@pytest.mark.parametrize(
    "given",
    [
        uuid.UUID("0190a2b4-1a2b-7c3d-8e4f-0123456789ab"),
        "0190A2B4-1A2B-7C3D-8E4F-0123456789AB",
        "{0190a2b4-1a2b-7c3d-8e4f-0123456789ab}",
    ],
    ids=["UUID", "upper case", "braces"],
)
def test_a_given_run_id_is_written_in_canonical_form(
    client: OpenLineage, memory: MemoryTransport, given: str | uuid.UUID
) -> None:
    with client.run("orders", run_id=given) as run:
        pass
    assert run.run_id == "0190a2b4-1a2b-7c3d-8e4f-0123456789ab"
    assert {e.run.run_id for e in run_events(memory)} == {run.run_id}


# --------------------------------------------------------------------------- deterministic ids

# Pinned: a change to the encoding would give retried runs new ids. Never update these values
# without a new version tag in openlineage_sdk._ids.
GOLDEN = [
    ("airflow", "orders_etl", NOMINAL, "018f3218-3b80-7ee8-a791-7df4fd746b81"),
    ("airflow", "orders_etl.load", NOMINAL, "018f3218-3b80-7e12-a97f-efd2b615f7de"),
]


def test_deterministic_id_layout() -> None:
    value = deterministic_run_id("airflow", "orders_etl", NOMINAL)
    assert value.version == 7
    assert value.variant == uuid.RFC_4122
    assert timestamp_ms(value) == int(NOMINAL.timestamp() * 1000)


@pytest.mark.parametrize(("namespace", "name", "nominal", "expected"), GOLDEN)
def test_deterministic_id_is_pinned(
    namespace: str, name: str, nominal: datetime, expected: str
) -> None:
    assert str(deterministic_run_id(namespace, name, nominal)) == expected


def test_deterministic_id_is_the_same_in_other_processes() -> None:
    code = (
        "from datetime import datetime, timezone\n"
        "from openlineage_sdk import deterministic_run_id\n"
        "print(deterministic_run_id('airflow', 'orders_etl', "
        "datetime(2024, 5, 1, 3, 0, tzinfo=timezone.utc)))\n"
    )
    seen = set()
    for seed in ("0", "1", "random"):
        result = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)},
        )
        seen.add(result.stdout.strip())
    assert seen == {str(deterministic_run_id("airflow", "orders_etl", NOMINAL))}


def test_deterministic_id_ignores_the_zone_the_time_is_written_in() -> None:
    in_paris = NOMINAL.astimezone(timezone(timedelta(hours=2)))
    assert deterministic_run_id("a", "b", in_paris) == deterministic_run_id("a", "b", NOMINAL)


@pytest.mark.parametrize(
    ("namespace", "name", "nominal"),
    [
        ("other", "orders_etl", NOMINAL),
        ("airflow", "orders_etl2", NOMINAL),
        ("airflow", "orders_etl", NOMINAL + timedelta(days=1)),
        ("airflow", "orders_etl", NOMINAL + timedelta(microseconds=1)),  # same millisecond
        # The separator keeps ("a.b", "c") and ("a", "b.c") apart... and ("ab", "") too.
        ("airflowo", "rders_etl", NOMINAL),
    ],
    ids=["namespace", "name", "day", "microsecond", "boundary"],
)
def test_deterministic_id_changes_with_every_part(
    namespace: str, name: str, nominal: datetime
) -> None:
    assert deterministic_run_id(namespace, name, nominal) != deterministic_run_id(
        "airflow", "orders_etl", NOMINAL
    )


@pytest.mark.parametrize(
    ("nominal", "error", "message"),
    [
        (datetime(2024, 5, 1), ValueError, "has no time zone"),
        (datetime(1969, 12, 31, tzinfo=timezone.utc), ValueError, "outside UUIDv7's time range"),
    ],
    ids=["naive", "before 1970"],
)
def test_deterministic_id_refuses(nominal: datetime, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        deterministic_run_id("a", "b", nominal)


def test_deterministic_id_refuses_a_non_string() -> None:
    with pytest.raises(TypeError, match="the job name must be a string, got int"):
        deterministic_run_id("a", 3, NOMINAL)  # type: ignore[arg-type]


def test_a_retried_scheduled_run_keeps_its_id(client: OpenLineage, memory: MemoryTransport) -> None:
    first = client.run("orders.daily_load", nominal_time=NOMINAL, deterministic_id=True)
    retry = client.run("orders.daily_load", nominal_time=NOMINAL, deterministic_id=True)
    next_day = client.run(
        "orders.daily_load", nominal_time=NOMINAL + timedelta(days=1), deterministic_id=True
    )
    assert (
        first.run_id
        == retry.run_id
        == str(deterministic_run_id("team", "orders.daily_load", NOMINAL))
    )
    assert next_day.run_id != first.run_id
    assert uuid.UUID(first.run_id) < uuid.UUID(next_day.run_id)  # sorted by schedule


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"deterministic_id": True}, "deterministic_id=True needs nominal_time"),
        (
            {"deterministic_id": True, "nominal_time": NOMINAL, "run_id": uuid.uuid4()},
            "give either run_id or deterministic_id=True, not both",
        ),
    ],
)
def test_deterministic_id_arguments(
    client: OpenLineage, kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        client.run("orders", **kwargs)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- nominal time


def test_nominal_time_is_a_facet_on_every_event(
    client: OpenLineage, memory: MemoryTransport
) -> None:
    with client.run(
        "orders.daily_load",
        nominal_time=NOMINAL,
        nominal_end_time=NOMINAL + timedelta(days=1),
    ):
        pass
    facets = [e.run.facets.nominal_time for e in run_events(memory) if e.run.facets]
    assert len(facets) == 2
    for facet in facets:
        assert isinstance(facet, NominalTimeRunFacet)
        assert facet.nominal_start_time == "2024-05-01T03:00:00Z"
        assert facet.nominal_end_time == "2024-05-02T03:00:00Z"


def test_nominal_time_without_end(client: OpenLineage, memory: MemoryTransport) -> None:
    with client.run("orders", nominal_time=NOMINAL):
        pass
    data = run_events(memory)[0].to_dict()["run"]["facets"]["nominalTime"]
    assert data["nominalStartTime"] == "2024-05-01T03:00:00Z"
    assert "nominalEndTime" not in data


def test_nominal_time_must_have_a_zone(client: OpenLineage) -> None:
    with pytest.raises(ValueError, match="nominal_time must be a datetime with a time zone"):
        client.run("orders", nominal_time=datetime(2024, 5, 1))
