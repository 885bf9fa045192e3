"""Run ids: UUIDv7, monotonic within a process, and deterministic ids for schedulers that retry.

UUIDv7 (RFC 9562, section 5.7) puts the Unix time in milliseconds in the first 48 bits, so run
ids sort by the time they were made and index well in a backend's database. Python 3.10 has no
``uuid.uuid7``; :func:`uuid7` implements it here.

Layout of an id from :func:`uuid7` (RFC 9562, section 6.2, "Method 1": a fixed-length dedicated
counter)::

    48 bits  unix_ts_ms   milliseconds since the epoch
     4 bits  ver          0b0111
    12 bits  rand_a   ┐
     2 bits  var      │   0b10
    30 bits           ┘   together with rand_a: a 42-bit counter
    32 bits  random       fresh from os.urandom for every id

In a new millisecond the counter starts at a random value whose top bit is clear, leaving at
least 2**41 increments before it overflows; every further id in the same millisecond adds one.
If the counter does overflow, or the clock steps back (NTP), the timestamp is carried forward
instead of ever going back. Ids made by one process therefore strictly increase, in the order
they were made, across threads.

That ordering needs a little state shared by the whole process: the last timestamp and counter.
It lives in one private generator guarded by a lock, and nothing else in the SDK is process
state. A forked child process gets a fresh lock and advances its counter by a random step, so
that parent and child never continue from the same point.

:func:`deterministic_run_id` is for schedulers that retry: every attempt of one scheduled run
(job namespace, job name, nominal start time) gets the same id, in any process, on any machine.
It keeps the UUIDv7 layout, so these ids sort by schedule time among the others: the 48-bit time
is the nominal start time and the 74 other bits are the first bits of a SHA-256 over a fixed,
versioned encoding of the three values (see the function).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Final

__all__ = ["deterministic_run_id", "uuid7"]

_COUNTER_BITS: Final = 42
_COUNTER_LIMIT: Final = 1 << _COUNTER_BITS
_TIMESTAMP_LIMIT: Final = 1 << 48
_VERSION_7: Final = 0x7
_VARIANT_RFC: Final = 0b10
# The domain of the deterministic ids: changing the encoding would need a new tag, so that an
# id, once written, keeps meaning the same scheduled run.
_DETERMINISTIC_TAG: Final = b"openlineage-sdk/run-id/v1"
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)
_ONE_MS: Final = timedelta(milliseconds=1)


def _random_bits(bits: int) -> int:
    return int.from_bytes(os.urandom((bits + 7) // 8), "big") >> (-bits % 8)


def _assemble(unix_ts_ms: int, rand_a: int, rand_b: int) -> uuid.UUID:
    """Lay out a UUIDv7 from its 48-bit time, 12-bit ``rand_a`` and 62-bit ``rand_b``."""
    value = (unix_ts_ms << 80) | (_VERSION_7 << 76) | (rand_a << 64) | (_VARIANT_RFC << 62) | rand_b
    return uuid.UUID(int=value)


class _Uuid7Generator:
    """Monotonic UUIDv7 ids (see the module docstring for the layout).

    Args:
        clock: Milliseconds since the Unix epoch (tests pass a fake clock).
        random_bits: ``n -> an integer of n random bits`` (tests pass a fixed source).
    """

    def __init__(
        self,
        clock: Callable[[], int] | None = None,
        random_bits: Callable[[int], int] = _random_bits,
    ) -> None:
        self._clock = clock if clock is not None else (lambda: time.time_ns() // 1_000_000)
        self._random_bits = random_bits
        self._lock = threading.Lock()
        self._last_ms = -1
        self._counter = 0

    def _seed(self) -> int:
        # Top bit clear: at least 2**41 increments before an overflow (RFC 9562, 6.2).
        return self._random_bits(_COUNTER_BITS - 1)

    def __call__(self) -> uuid.UUID:
        now = self._clock()
        with self._lock:
            if now > self._last_ms:
                self._last_ms = now
                self._counter = self._seed()
            else:
                # Same millisecond, or the clock went back: count on from the last id.
                self._advance(1)
            unix_ts_ms, counter = self._last_ms, self._counter
        if unix_ts_ms >= _TIMESTAMP_LIMIT:  # pragma: no cover - the year 10889
            raise OverflowError("the clock is past the end of UUIDv7's 48-bit timestamp")
        rand_a = counter >> 30
        rand_b = ((counter & ((1 << 30) - 1)) << 32) | self._random_bits(32)
        return _assemble(unix_ts_ms, rand_a, rand_b)

    def _after_fork_in_child(self) -> None:
        # The parent's lock may have been held by another thread at the fork; the child has only
        # this thread, so a new lock is safe. A random step keeps the child's ids increasing
        # while making them diverge from the parent's, which goes on from the same state.
        self._lock = threading.Lock()
        self._advance(1 + self._random_bits(32))

    def _advance(self, step: int) -> None:
        # Count on by `step` (the lock held); on overflow the timestamp is carried forward and
        # the counter starts afresh.
        self._counter += step
        if self._counter >= _COUNTER_LIMIT:
            self._last_ms += 1
            self._counter = self._seed()


# The one piece of process-wide state (see the module docstring).
_generator: Final = _Uuid7Generator()
if hasattr(os, "register_at_fork"):  # not on Windows
    os.register_at_fork(after_in_child=_generator._after_fork_in_child)


def uuid7() -> uuid.UUID:
    """Make a new UUIDv7 (RFC 9562), greater than every id this process made before.

    Returns:
        A version 7, RFC-variant ``uuid.UUID``; ``str()`` gives the form events carry.
    """
    return _generator()


def deterministic_run_id(namespace: str, name: str, nominal_time: datetime) -> uuid.UUID:
    """The run id of one scheduled run of a job, the same for every attempt, everywhere.

    A scheduler that retries a run (after a crash, on another worker) calls this with the same
    job and nominal time and gets the same id, so the backend sees one run, not several.

    The id has the UUIDv7 layout (version 7, RFC variant): its 48-bit time is ``nominal_time``
    in whole milliseconds, so these ids sort by schedule time among other UUIDv7 ids. Its 74
    other bits are the first 74 bits of SHA-256 over
    ``b"openlineage-sdk/run-id/v1" 0x00 namespace 0x00 name 0x00 time``, where ``namespace``
    and ``name`` are UTF-8 and ``time`` is ``nominal_time`` in UTC written as
    ``YYYY-MM-DDTHH:MM:SS.ffffffZ``. Two nominal times within the same millisecond still get
    different ids. The encoding is fixed: it does not depend on the Python version, the
    platform or ``PYTHONHASHSEED``.

    Args:
        namespace: The job namespace.
        name: The job name.
        nominal_time: The run's nominal (scheduled) start time; it must have a time zone.

    Returns:
        The run id.

    Raises:
        ValueError: ``nominal_time`` has no time zone or lies before 1970.
        TypeError: ``namespace`` or ``name`` is not a string.
    """
    for label, value in (("namespace", namespace), ("name", name)):
        if not isinstance(value, str):
            raise TypeError(f"the job {label} must be a string, got {type(value).__name__}")
    if nominal_time.utcoffset() is None:
        raise ValueError(
            f"nominal_time {nominal_time.isoformat()} has no time zone: one schedule would "
            "give different run ids on machines in different zones"
        )
    utc = nominal_time.astimezone(timezone.utc)
    unix_ts_ms = (utc - _EPOCH) // _ONE_MS
    if not 0 <= unix_ts_ms < _TIMESTAMP_LIMIT:
        raise ValueError(f"nominal_time {utc.isoformat()} is outside UUIDv7's time range")
    text = utc.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    digest = hashlib.sha256(
        b"\x00".join((_DETERMINISTIC_TAG, namespace.encode(), name.encode(), text.encode("ascii")))
    ).digest()
    bits = int.from_bytes(digest[:10], "big") >> 6  # the first 74 bits
    return _assemble(unix_ts_ms, bits >> 62, bits & ((1 << 62) - 1))
