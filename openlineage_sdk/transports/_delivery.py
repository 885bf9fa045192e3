"""Asynchronous, ordered, loss-free delivery shared by the network transports.

How an event travels
--------------------
``submit(key, data)`` runs on the caller's thread and only appends bytes to an
in-memory list under a lock, so it returns in microseconds whatever the backend
does. The key (the run id, else the job, else the dataset) picks one of
``PARTITIONS`` partitions by CRC-32, and each partition is served by exactly one
sender thread, one batch at a time; so events of one run leave in the order they
were emitted, always, while different runs travel in parallel. A batch takes the
oldest events of several partitions of its sender at once, so a busy sender makes
few, full requests.

Sender threads share the GIL with the application, and while one builds a
request (Python code in the HTTP stack) the thread that emits waits for it. So
they do as little Python per event as possible: two of them by default, bodies
made by one C-level join, requests that hold no reference cycle (the body is
freed at once, not by a later garbage collection in some other thread).

A partition is an ordered list of *chunks*. A chunk holds events either in
memory or in a spool file on disk; the sender always works on the oldest chunk
and an event is removed only once the destination has accepted it. Events go to
disk instead of memory when the in-memory queue is full or the destination is
failing; when it answers again the sender drains the files in order, then goes
back to memory. Because order is kept chunk by chunk, an event can never
overtake an older one of the same run, whether that one waits in memory or on
disk.

The spool
---------
Each destination has its own folder. A spool file is named
``{session}.p{partition}.{sequence}.jsonl`` and holds one event per line, so it
is readable with any JSON Lines tool; a sidecar ``.pos`` file records how far
delivery got. The process that writes a file holds an exclusive ``flock`` on it
until the file is drained or the process ends. A transport that starts takes
over every file nobody holds (left by a process that ended with the destination
down, or that died) and replays it before its own events, in the order the old
process emitted them. Events the destination refused for good are appended to
``rejected.jsonl`` in the same folder, with the reason in the log.

Retries
-------
Connection errors, timeouts, 408, 429 and 5xx are retried with exponential
backoff and jitter, honouring ``Retry-After``. While the destination is
unreachable, retries go on for as long as the process lives: the events are safe
in the spool. A batch answered with a 5xx ``max_server_error_attempts`` times in
a row is treated as refused, so one poisonous event cannot block its run's lane
forever. Other 4xx answers are not retried.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import enum
import json
import logging
import os
import random
import threading
import time
import zlib
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Protocol

from openlineage_sdk.transports.base import DeliveryError, FlushResult, TransportError
from openlineage_sdk.transports.file import append_line, write_all

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: files are not shared between processes
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "PARTITIONS",
    "BatchSender",
    "DeliveryEngine",
    "DeliveryOptions",
    "Outcome",
    "Record",
    "SendResult",
]

log = logging.getLogger("openlineage_sdk.transports")

#: Fixed number of ordering partitions; part of the spool layout, so a process
#: that takes over another's spool files maps every run to the same partition.
PARTITIONS = 16
_FIRST_SEQ = 1_000_000_000
_READ_BLOCK = 1 << 20
_REJECTED_FILE = "rejected.jsonl"
#: Seconds during which an in-memory chunk takes new events.
_CHUNK_SPAN = 0.1


#: One queued event: its ordering key (``None`` once read back from a spool
#: file, where only the JSON is kept) and its compact JSON.
Record = tuple[str | None, bytes]


class Outcome(enum.Enum):
    """What a destination did with a batch."""

    OK = "ok"
    RETRY = "retry"  # a transient failure: try the same batch again later
    REJECT = "reject"  # refused for good: do not try again
    RESEND = "resend"  # the sender changed how it sends (batch endpoint missing): again, now
    PARTIAL = "partial"  # some events need another try, some were refused


@dataclass(frozen=True)
class SendResult:
    """The answer of a :class:`BatchSender` for one batch.

    Attributes:
        outcome: what happened.
        message: a short description for logs (status and the backend's answer);
            it must never contain credentials.
        retry_after: seconds the destination asked us to wait, if it did.
        server_error: the destination answered (5xx), as opposed to being unreachable.
        retry_indices: for ``PARTIAL``, the events to try again.
        reject_indices: for ``PARTIAL``, the events refused for good.
    """

    outcome: Outcome
    message: str = ""
    retry_after: float | None = None
    server_error: bool = False
    retry_indices: tuple[int, ...] = ()
    reject_indices: tuple[int, ...] = ()


class BatchSender(Protocol):
    """Sends batches of encoded events to one destination; used by one or more threads."""

    #: A human-readable name of the destination, without credentials.
    destination: str
    #: A stable, file-name-safe identity of the destination, naming its spool folder.
    spool_name: str

    @property
    def max_batch(self) -> int:
        """How many events to hand to :meth:`send` at most."""
        ...

    def send(self, batch: Sequence[Record]) -> SendResult:
        """Deliver the events (key and compact JSON) in the given order."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...


@dataclass
class DeliveryOptions:
    """Tuning of the asynchronous delivery (all have sensible defaults).

    Attributes:
        max_queue_size: events held in memory at most; beyond, they go to the spool.
        concurrency: sender threads, i.e. requests in flight at once. Each one
            takes GIL time from the application while it builds a request; two
            keep one request in flight while another is answered, and since a
            request carries a whole batch, more rarely deliver faster.
        spool_dir: the spool folder, or ``None`` to keep events in memory only
            (then events that do not fit are dropped and counted).
        spool_max_bytes: the most this process writes to the spool; beyond, events are dropped.
        max_batch_bytes: the most bytes put in one batch.
        backoff_initial: first retry delay in seconds.
        backoff_max: longest retry delay in seconds.
        retry_after_max: the longest ``Retry-After`` honoured, in seconds.
        max_server_error_attempts: 5xx answers in a row after which a batch is refused.
        flush_timeout: default timeout of ``flush``.
        close_timeout: default timeout of ``close`` and of the exit handler.
        raise_on_error: raise :class:`TransportError` / :class:`DeliveryError`
            instead of only logging.
        spill_after: with a spool, an event still in memory this many seconds
            after ``submit`` (a stalled or slow destination) is written to the
            spool, so that a crash does not lose it.
        drop_log_interval: dropped events are logged once, then summarised with
            counts at most this often, not one line each.
        spool_retry_interval: seconds between attempts to use a spool that
            failed (unwritable folder, full disk); meanwhile events stay in memory.
    """

    max_queue_size: int = 10_000
    concurrency: int = 2
    spool_dir: Path | None = None
    spool_max_bytes: int = 1 << 30
    max_batch_bytes: int = 4 << 20
    backoff_initial: float = 0.5
    backoff_max: float = 30.0
    retry_after_max: float = 300.0
    max_server_error_attempts: int = 10
    flush_timeout: float = 10.0
    close_timeout: float = 10.0
    raise_on_error: bool = False
    spill_after: float = 0.5
    drop_log_interval: float = 60.0
    spool_retry_interval: float = 1.0


def default_spool_dir(env: Mapping[str, str] | None = None) -> Path:
    """The spool folder used when none is configured.

    ``$XDG_CACHE_HOME/openlineage-sdk/spool``, else ``~/.cache/openlineage-sdk/spool``.

    Args:
        env: the environment to read (``os.environ`` when ``None``); never changed.

    Returns:
        The folder (it may not exist yet).
    """
    env = os.environ if env is None else env
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "openlineage-sdk" / "spool"


class _MemChunk:
    __slots__ = ("born", "frozen", "items", "seq", "session")

    def __init__(self, seq: int, session: str | None = None) -> None:
        self.seq = seq
        # The spool file name a spill gives it: events taken back from a file of
        # an earlier process keep that process's session, so that they still
        # sort before the rest of its file for whoever takes the spool over next.
        self.session = session
        self.items: deque[Record] = deque()
        self.frozen = False  # once being copied to disk, no event is added to it
        self.born = time.monotonic()  # when its first event came (it takes new ones briefly)


class _DiskChunk:
    __slots__ = ("count", "end", "fd", "path", "pos", "pos_fd", "seq", "session", "writable")

    def __init__(
        self,
        seq: int,
        path: Path,
        fd: int,
        pos_fd: int,
        *,
        writable: bool,
        session: str | None = None,
    ) -> None:
        self.seq = seq
        self.session = session
        self.path = path
        self.fd = fd  # O_RDWR | O_APPEND, flock'ed for as long as we own the file
        self.pos_fd = pos_fd
        self.pos = 0  # byte offset of the first undelivered line
        self.end = 0  # byte offset just past the last complete line
        self.count = 0  # undelivered lines
        self.writable = writable

    def append(self, data: bytes, lines: int = 1) -> None:
        try:
            write_all(self.fd, data)
        except OSError:
            # Part of ``data`` may be in the file now, past ``end``: a line added
            # after it would be read back glued to that fragment.
            self.writable = False
            raise
        self.end += len(data)
        self.count += lines

    def save_pos(self) -> None:
        os.pwrite(self.pos_fd, b"%020d\n" % self.pos, 0)

    def release(self, *, delete: bool) -> None:
        if delete:
            for p in (self.path, _pos_path(self.path)):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(p)
        # Closing the descriptor drops the flock, so another process may take the file.
        for fd in (self.pos_fd, self.fd):
            with contextlib.suppress(OSError):
                os.close(fd)


_Chunk = _MemChunk | _DiskChunk


def _pos_path(path: Path) -> Path:
    return path.with_name(path.name + ".pos")


@dataclass
class _Lane:
    """One ordering partition: the chunks of its events, oldest first."""

    index: int
    chunks: deque[_Chunk] = field(default_factory=deque)


@dataclass
class _Batch:
    """Events taken for one request: ``records`` holds ``parts`` in order, each
    part being the next ``count`` events at the head of one lane."""

    records: list[Record]
    parts: list[tuple[_Lane, int]]

    def split(self) -> list[tuple[_Lane, list[Record], int]]:
        """Each part as (lane, its records, index of its first record in the batch)."""
        out: list[tuple[_Lane, list[Record], int]] = []
        start = 0
        for lane, count in self.parts:
            out.append((lane, self.records[start : start + count], start))
            start += count
        return out


class _Worker:
    """A sender thread and the partitions it serves."""

    def __init__(self, index: int, lanes: list[_Lane]) -> None:
        self.index = index
        self.lanes = lanes
        self.cond = threading.Condition(threading.Lock())
        self.spill_lock = threading.Lock()
        self.idle = False
        self.mem_count = 0
        self.disk_count = 0
        self.disk_bytes = 0
        self.delivered = 0
        self.rejected = 0
        self.dropped = 0
        self.rr = 0
        self.thread: threading.Thread | None = None

    def next_lane(self) -> _Lane | None:
        n = len(self.lanes)
        for i in range(n):
            lane = self.lanes[(self.rr + i) % n]
            if lane.chunks:
                self.rr = (self.rr + i + 1) % n
                return lane
        return None


class DeliveryEngine:
    """The queue, the sender threads and the spool behind one network transport."""

    def __init__(self, sender: BatchSender, options: DeliveryOptions) -> None:
        """Start the sender threads and take over spool files nobody holds.

        Args:
            sender: delivers batches to the destination.
            options: queue, spool and retry settings.
        """
        self.sender = sender
        self.options = options
        self._session = f"{time.time_ns():019d}-{os.getpid()}"
        self._seq = _FIRST_SEQ
        self._seq_lock = threading.Lock()
        self._down = False
        self._stopping = threading.Event()
        self._closed = False
        self._progress = threading.Condition(threading.Lock())
        self._errors: list[str] = []
        self._errors_lock = threading.Lock()
        concurrency = max(1, min(options.concurrency, PARTITIONS))
        lanes = [_Lane(i) for i in range(PARTITIONS)]
        self._lanes = lanes
        self._workers = [
            _Worker(w, [lane for lane in lanes if lane.index % concurrency == w])
            for w in range(concurrency)
        ]
        self._mem_capacity = max(1, options.max_queue_size // concurrency)
        self.spool_path: Path | None = None
        if options.spool_dir is not None:
            self.spool_path = Path(options.spool_dir) / sender.spool_name
            try:
                self.spool_path.mkdir(parents=True, exist_ok=True)
                self._adopt_orphans()
            except OSError as exc:
                log.error(
                    "OpenLineage: cannot use the spool folder %s (%s); events that cannot be "
                    "delivered will be kept in memory only",
                    self.spool_path,
                    exc,
                )
                self.spool_path = None
        # Dropped events: the first is logged, later ones summarised (see _drop).
        self._drop_lock = threading.Lock()
        self._drops_unreported = 0
        self._drop_reason = ""
        self._drop_logged_at: float | None = None
        # A spool that failed: when (monotonic), so as to try it again later.
        self._spool_failed_at: float | None = None
        for worker in self._workers:
            worker.thread = threading.Thread(
                target=self._run,
                args=(worker,),
                name=f"openlineage-sender-{worker.index}",
                daemon=True,  # never keeps the interpreter alive; the exit handler flushes
            )
            worker.thread.start()
        self._watchdog: threading.Thread | None = None
        self._watchdog = threading.Thread(
            target=self._watch, name="openlineage-spiller", daemon=True
        )
        self._watchdog.start()
        atexit.register(self._at_exit)

    # ------------------------------------------------------------------ intake

    def submit(self, key: str, data: bytes) -> None:
        """Queue one encoded event; never waits for the network.

        Args:
            key: the ordering key of the event.
            data: the event's compact JSON, encoded.
        """
        if b"\n" in data:
            # A newline can only be insignificant whitespace in JSON; the spool is
            # one event per line, so turn it into a space.
            data = data.replace(b"\n", b" ")
        lane = self._lanes[zlib.crc32(key.encode()) % PARTITIONS]
        worker = self._workers[lane.index % len(self._workers)]
        with worker.cond:
            if self._closed:
                worker.dropped += 1
                self._fail("an event was emitted after the transport was closed; it was dropped")
                return
            room = worker.mem_count < self._mem_capacity
            # A spool that failed a moment ago is left alone while memory has room;
            # without room it is tried anyway, dropping being worse than a failed write.
            spool = self.spool_path is not None and (not room or self._spool_usable())
            # In memory while there is room, unless the destination is down and a spool
            # can keep the event safe meanwhile.
            if not (room and (not self._down or not spool)) and spool:
                if self._append_to_disk(worker, lane, data):
                    if worker.idle:
                        worker.cond.notify()
                    return
                # The spool failed (and said so): memory is the fallback while it has room.
                room = worker.mem_count < self._mem_capacity
            if room:
                last = lane.chunks[-1] if lane.chunks else None
                if (
                    not isinstance(last, _MemChunk)
                    or last.frozen
                    or last.born < time.monotonic() - _CHUNK_SPAN
                ):
                    # A chunk takes events for a short while only, so that its
                    # age is close to the age of its oldest event (see _watch).
                    last = _MemChunk(self._next_seq())
                    lane.chunks.append(last)
                last.items.append((key, data))
                worker.mem_count += 1
            else:
                self._drop(
                    worker,
                    "the event queue is full and "
                    + ("the spool is not working" if self.spool_path else "no spool is configured"),
                )
                return
            if worker.idle:
                worker.cond.notify()

    def _spool_usable(self) -> bool:
        """Whether to write to the spool now: it is configured and did not just fail."""
        if self.spool_path is None:
            return False
        failed = self._spool_failed_at
        return failed is None or time.monotonic() - failed >= self.options.spool_retry_interval

    def _spool_failed(self, exc: OSError) -> None:
        """Fall back to memory; say so once per outage of the spool."""
        first = self._spool_failed_at is None
        self._spool_failed_at = time.monotonic()
        if first:
            log.error(
                "OpenLineage: the spool %s stopped working (%s); events are kept in memory "
                "until it works again",
                self.spool_path,
                exc,
            )

    def _spool_worked(self) -> None:
        if self._spool_failed_at is not None:
            self._spool_failed_at = None
            log.warning("OpenLineage: the spool %s is working again", self.spool_path)

    def _drop(self, worker: _Worker, reason: str) -> None:
        """Count a dropped event: log the first one, then a summary now and then.

        Called with ``worker.cond`` held.
        """
        worker.dropped += 1
        if self.options.raise_on_error:
            raise TransportError(f"{reason}; an event was dropped")
        now = time.monotonic()
        with self._drop_lock:
            self._drop_reason = reason
            if self._drop_logged_at is None:
                self._drop_logged_at = now
                log.error(
                    "OpenLineage: %s; an event was dropped (further drops are summarised "
                    "every %g s)",
                    reason,
                    self.options.drop_log_interval,
                )
                return
            self._drops_unreported += 1
        if now - self._drop_logged_at >= self.options.drop_log_interval:
            self._report_drops()

    def _report_drops(self) -> None:
        with self._drop_lock:
            count, self._drops_unreported = self._drops_unreported, 0
            if not count:
                return
            since = self._drop_logged_at
            self._drop_logged_at = time.monotonic()
            reason = self._drop_reason
        log.error(
            "OpenLineage: %d more event(s) dropped in the last %.0f s (last reason: %s)",
            count,
            self._drop_logged_at - (since or self._drop_logged_at),
            reason,
        )

    def _next_seq(self) -> int:
        with self._seq_lock:
            self._seq += 1
            return self._seq

    def _new_disk_chunk(
        self, lane: _Lane, seq: int, data: bytes, lines: int, session: str | None = None
    ) -> _DiskChunk:
        """A new spool file holding ``data`` (``lines`` events); on failure none is left."""
        assert self.spool_path is not None
        session = session or self._session
        path = self.spool_path / f"{session}.p{lane.index:02d}.{seq:010d}.jsonl"
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o600)
        chunk = _DiskChunk(seq, path, fd, -1, writable=True, session=session)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            chunk.pos_fd = os.open(_pos_path(path), os.O_RDWR | os.O_CREAT, 0o600)
            chunk.append(data, lines)
        except OSError:
            # A file left behind would block this name for a later spill and
            # hand its events to the next process although they are still queued here.
            chunk.release(delete=True)
            raise
        return chunk

    def _append_to_disk(self, worker: _Worker, lane: _Lane, data: bytes) -> bool:
        """Write one event to the newest spool file of the lane (caller holds the lock).

        Returns:
            Whether the event is taken care of (written, or dropped at the spool's
            size limit); ``False`` when the spool failed and the caller should
            keep it in memory.
        """
        if worker.disk_bytes + len(data) > self.options.spool_max_bytes:
            self._drop(
                worker, f"the spool reached its limit of {self.options.spool_max_bytes} bytes"
            )
            return True
        last = lane.chunks[-1] if lane.chunks else None
        try:
            if isinstance(last, _DiskChunk) and last.writable:
                last.append(data + b"\n")
            else:
                lane.chunks.append(self._new_disk_chunk(lane, self._next_seq(), data + b"\n", 1))
        except OSError as exc:
            self._spool_failed(exc)
            return False
        self._spool_worked()
        worker.disk_count += 1
        worker.disk_bytes += len(data) + 1
        return True

    # ------------------------------------------------------------------ sending

    def _run(self, worker: _Worker) -> None:
        attempts = 0
        server_errors = 0
        while True:
            with worker.cond:
                lane = worker.next_lane()
                while lane is None:
                    if self._stopping.is_set():
                        return
                    worker.idle = True
                    self._notify_progress()
                    worker.cond.wait()
                    worker.idle = False
                    lane = worker.next_lane()
                if self._stopping.is_set():
                    return  # closing: what is left is spooled by close()
                peeked = self._peek(worker, lane)
            if peeked is None:
                continue
            if isinstance(peeked, _Batch):
                taken = peeked
            else:
                lines = self._read_lines(worker, peeked)
                if not lines:
                    continue  # only damaged lines, now skipped
                taken = _Batch(lines, [(lane, len(lines))])
            batch = taken.records
            result = self._send(batch)
            if result.outcome is Outcome.REJECT and len(batch) > 1 and not self._closed:
                # One refused event must not take the others with it: find it.
                result = self._isolate(batch, result.message)
            if self._closed:
                return
            outcome = result.outcome
            if outcome is Outcome.OK:
                attempts = server_errors = 0
                self._down = False
                self._ack(worker, taken)
            elif outcome is Outcome.RESEND:
                continue
            elif outcome is Outcome.REJECT:
                attempts = server_errors = 0
                self._reject(worker, taken, result.message)
            elif outcome is Outcome.PARTIAL:
                self._partial(worker, taken, result)
                if result.retry_indices:
                    attempts += 1
                    self._backoff(attempts, result.retry_after)
                else:
                    attempts = server_errors = 0
            else:  # RETRY
                attempts += 1
                server_errors = server_errors + 1 if result.server_error else 0
                if server_errors >= self.options.max_server_error_attempts:
                    attempts = server_errors = 0
                    self._reject(
                        worker,
                        taken,
                        f"{result.message} (gave up after "
                        f"{self.options.max_server_error_attempts} server errors in a row)",
                    )
                    continue
                if not self._down or attempts == 1:
                    log.warning(
                        "OpenLineage: delivery to %s failed (%s); retrying%s",
                        self.sender.destination,
                        result.message,
                        ", events wait in the spool meanwhile" if self.spool_path else "",
                    )
                self._down = True
                if self.spool_path is not None:
                    self.spill(worker)
                self._backoff(attempts, result.retry_after)

    def _send(self, batch: Sequence[Record]) -> SendResult:
        try:
            return self.sender.send(batch)
        except Exception as exc:  # a sender bug must not kill the thread
            log.exception(
                "OpenLineage: unexpected error while sending to %s", self.sender.destination
            )
            return SendResult(Outcome.RETRY, f"unexpected error: {exc!r}")

    def _isolate(self, batch: Sequence[Record], message: str) -> SendResult:
        """Find the events of a refused batch that the destination refuses alone.

        The batch is halved, and each refused half halved again, in order, down
        to single events: about ``2 * log2(len(batch))`` requests for one bad
        event. Halves that are accepted are delivered on the way. At the first
        half that cannot be sent now (retry, or the sender changed how it
        sends), it and everything after it are to be sent again, so that no
        event overtakes an older one of its run.

        Returns:
            ``PARTIAL`` with the refused and the to-retry indices (possibly none).
        """
        rejected: list[int] = []
        retry: list[int] = []
        reasons: list[str] = []
        retry_after: float | None = None
        stop: int | None = None

        def visit(lo: int, hi: int) -> None:
            nonlocal stop, retry_after
            mid = (lo + hi) // 2
            for a, b in ((lo, mid), (mid, hi)):
                if stop is not None or a >= b:
                    return
                result = self._send(batch[a:b])
                outcome = result.outcome
                if outcome is Outcome.OK:
                    continue
                if outcome is Outcome.REJECT:
                    if b - a == 1:
                        rejected.append(a)
                        reasons.append(f"#{a}: {result.message}")
                    else:
                        visit(a, b)
                elif outcome is Outcome.PARTIAL:
                    rejected.extend(a + i for i in result.reject_indices)
                    retry.extend(a + i for i in result.retry_indices)
                    if result.reject_indices:
                        reasons.append(result.message)
                else:  # RETRY or RESEND: this part and what follows go again later
                    stop = a
                    retry_after = result.retry_after

        visit(0, len(batch))
        if stop is not None:
            retry.extend(range(stop, len(batch)))
        return SendResult(
            Outcome.PARTIAL,
            "; ".join(reasons[:5]) or message,
            retry_after=retry_after,
            retry_indices=tuple(sorted(set(retry))),
            reject_indices=tuple(rejected),
        )

    def _backoff(self, attempts: int, retry_after: float | None) -> None:
        opts = self.options
        delay = min(opts.backoff_max, opts.backoff_initial * (2 ** min(attempts - 1, 30)))
        # Equal jitter: keep half the delay, randomise the rest, so that many
        # clients that failed together do not come back together.
        delay = delay / 2 + random.uniform(0, delay / 2)
        if retry_after is not None:
            delay = max(delay, min(retry_after, opts.retry_after_max))
        self._stopping.wait(delay)

    def _peek(self, worker: _Worker, lane: _Lane) -> _Batch | _DiskChunk | None:
        """The next batch, left in place until acknowledged (caller holds the lock).

        In memory, the batch starts with the head of ``lane`` and is filled up
        with the heads of the worker's other lanes, so a request carries as
        many events as it may whichever runs they belong to: fewer, fuller
        requests, hence less work per event on the sender threads. Each lane
        contributes a prefix of its oldest chunk, so no event overtakes an
        older one of its lane. For a spool file this returns the chunk alone:
        its lines are read after the lock is released, since only this sender
        consumes them and lines before ``end`` never change.
        """
        chunk = lane.chunks[0]
        if isinstance(chunk, _DiskChunk):
            if chunk.count == 0:
                lane.chunks.popleft()
                chunk.release(delete=True)
                return None
            return chunk
        if not chunk.items:
            lane.chunks.popleft()
            return None
        limit = max(1, self.sender.max_batch)
        max_bytes = self.options.max_batch_bytes
        records: list[Record] = []
        parts: list[tuple[_Lane, int]] = []
        size = 0
        full = False
        lanes = worker.lanes
        # ``next_lane`` left ``rr`` just after ``lane``: the others follow in turn.
        others = (lanes[(worker.rr + i) % len(lanes)] for i in range(len(lanes) - 1))
        source: _Lane | None = lane
        while source is not None:
            head = source.chunks[0] if source.chunks else None
            if isinstance(head, _MemChunk) and head.items:
                # The common case: as many as the count allows at once, if their bytes fit.
                some = list(islice(head.items, limit - len(records)))
                nbytes = sum(len(data) for _, data in some)
                if size + nbytes <= max_bytes:
                    records += some
                    size += nbytes
                else:
                    some = []
                    for item in head.items:
                        if records and size + len(item[1]) > max_bytes:
                            full = True
                            break
                        records.append(item)
                        some.append(item)
                        size += len(item[1])
                        if len(records) >= limit:
                            break
                if some:
                    parts.append((source, len(some)))
            if full or len(records) >= limit:
                break
            source = next(others, None)
        return _Batch(records, parts)

    def _read_lines(self, worker: _Worker, chunk: _DiskChunk) -> list[Record]:
        """The next lines of a spool file, up to a batch; damaged lines are skipped alone.

        A line that is not a JSON object (garbage, blank, invalid UTF-8: a
        damaged or hand-edited file) is never sent, so that it can neither make
        the destination refuse the valid events of its batch nor be taken for
        a missing batch endpoint. At the head of the file it is moved to the
        rejected file and logged; after other lines, the batch stops before it.
        """
        # Lines before chunk.end are complete and never change, so reading them
        # needs no coordination with writers appending after end.
        limit = max(1, self.sender.max_batch)
        lines: list[Record] = []
        pos, end = chunk.pos, chunk.end
        buf = b""
        size = 0
        while pos < end and len(lines) < limit:
            block = os.pread(chunk.fd, min(max(_READ_BLOCK, len(buf) * 2), end - pos), pos)
            if not block:
                break
            buf += block
            pos += len(block)
            start = 0
            while len(lines) < limit:
                nl = buf.find(b"\n", start)
                if nl < 0:
                    break
                line = buf[start:nl]
                if not _is_event_line(line):
                    if lines:
                        return lines
                    self._skip_line(worker, chunk, line)
                    start = nl + 1
                    continue
                if lines and size + len(line) > self.options.max_batch_bytes:
                    return lines
                lines.append((None, line))
                size += len(line)
                start = nl + 1
            buf = buf[start:]
        return lines

    def _skip_line(self, worker: _Worker, chunk: _DiskChunk, line: bytes) -> None:
        """Move a damaged line at the head of a spool file out of the way."""
        kept = self._keep_rejected([line])
        log.error(
            "OpenLineage: skipped a damaged line in the spool file %s (%d bytes, not a JSON "
            "object: %r)%s",
            chunk.path,
            len(line),
            line[:80],
            f"; it is kept in {kept}" if kept else "",
        )
        with worker.cond:
            chunk.pos += len(line) + 1
            chunk.count -= 1
            worker.disk_count -= 1
            worker.disk_bytes -= len(line) + 1
            worker.rejected += 1
            with contextlib.suppress(OSError):
                chunk.save_pos()

    def _consume(self, worker: _Worker, lane: _Lane, batch: Sequence[Record]) -> None:
        """Remove the first ``len(batch)`` events of the lane (caller holds the lock)."""
        i = 0
        while i < len(batch) and lane.chunks:
            chunk = lane.chunks[0]
            if isinstance(chunk, _MemChunk):
                n = min(len(batch) - i, len(chunk.items))
                if n == len(chunk.items):
                    chunk.items.clear()
                else:
                    for _ in range(n):
                        chunk.items.popleft()
                worker.mem_count -= n
                if not chunk.items:
                    lane.chunks.popleft()
            else:
                n = min(len(batch) - i, chunk.count)
                nbytes = sum(len(b) + 1 for _, b in batch[i : i + n])
                chunk.pos += nbytes
                chunk.count -= n
                worker.disk_count -= n
                worker.disk_bytes -= nbytes
                if chunk.count == 0:
                    lane.chunks.popleft()
                    chunk.release(delete=True)
                else:
                    with contextlib.suppress(OSError):
                        chunk.save_pos()
            i += n

    def _ack(self, worker: _Worker, taken: _Batch) -> None:
        with worker.cond:
            for lane, records, _ in taken.split():
                self._consume(worker, lane, records)
            worker.delivered += len(taken.records)
            if worker.mem_count == 0 and worker.disk_count == 0:
                self._notify_progress()

    def _reject(self, worker: _Worker, taken: _Batch, message: str) -> None:
        """The destination refused the whole batch for good."""
        self._refuse([data for _, data in taken.records], message)
        with worker.cond:
            for lane, records, _ in taken.split():
                self._consume(worker, lane, records)
            worker.rejected += len(taken.records)

    def _refuse(self, refused: Sequence[bytes], message: str) -> None:
        """Keep refused events in the spool's rejected file, log them, report them at flush."""
        kept = self._keep_rejected(refused)
        log.error(
            "OpenLineage: %s refused %d event(s): %s%s",
            self.sender.destination,
            len(refused),
            message,
            f"; they are kept in {kept}" if kept else "",
        )
        with self._errors_lock:
            self._errors.append(f"{len(refused)} event(s) refused: {message}")

    def _keep_rejected(self, refused: Sequence[bytes]) -> Path | None:
        if self.spool_path is None:
            return None
        path = self.spool_path / _REJECTED_FILE
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                append_line(fd, b"".join(r + b"\n" for r in refused))
            finally:
                os.close(fd)
        except OSError as exc:
            log.error("OpenLineage: could not keep refused events in %s: %s", path, exc)
            return None
        return path

    def _partial(self, worker: _Worker, taken: _Batch, result: SendResult) -> None:
        """Some events of a batch were accepted: keep only those to try again, at the heads."""
        batch = taken.records
        if result.reject_indices:
            self._refuse([batch[i][1] for i in result.reject_indices], result.message)
        retry = set(result.retry_indices)
        with worker.cond:
            again_total = 0
            for lane, records, start in taken.split():
                first = lane.chunks[0] if lane.chunks else None
                self._consume(worker, lane, records)
                again = [r for i, r in enumerate(records, start) if i in retry]
                if again:
                    # Named, if spilled, right before the file they came from
                    # (possibly an earlier process's): see _MemChunk.session.
                    if first is not None:
                        head = _MemChunk(first.seq - 1, first.session)
                    else:
                        head = _MemChunk(self._next_seq())
                    head.frozen = True
                    head.items.extend(again)
                    lane.chunks.appendleft(head)
                    worker.mem_count += len(again)
                    again_total += len(again)
            worker.rejected += len(result.reject_indices)
            worker.delivered += len(batch) - len(result.reject_indices) - again_total

    # ------------------------------------------------------------------ spilling

    def spill(self, worker: _Worker) -> None:
        """Move the worker's in-memory events to spool files, keeping their order.

        Events added meanwhile go to new chunks after the frozen ones, so the
        copy can be written without holding the lock that ``submit`` needs.
        """
        if self.spool_path is None:
            return
        with worker.spill_lock:
            spilled = False
            with worker.cond:
                todo: list[tuple[_Lane, _MemChunk, list[Record]]] = []
                for lane in worker.lanes:
                    for chunk in lane.chunks:
                        if isinstance(chunk, _MemChunk) and chunk.items:
                            chunk.frozen = True
                            todo.append((lane, chunk, list(chunk.items)))
            for lane, chunk, items in todo:
                payload = b"".join(data + b"\n" for _, data in items)
                try:
                    disk = self._new_disk_chunk(lane, chunk.seq, payload, len(items), chunk.session)
                except OSError as exc:
                    # The events stay in memory (their chunk stays frozen, in place).
                    self._spool_failed(exc)
                    return
                spilled = True
                with worker.cond:
                    # Events acknowledged while we were writing are skipped by
                    # moving the read position past them.
                    done = len(items) - len(chunk.items)
                    disk.pos = sum(len(data) + 1 for _, data in items[:done])
                    disk.count = len(chunk.items)
                    disk.writable = False
                    with contextlib.suppress(OSError):
                        disk.save_pos()
                    try:
                        at = lane.chunks.index(chunk)
                    except ValueError:  # fully acknowledged and removed meanwhile
                        disk.release(delete=True)
                        continue
                    if disk.count == 0:
                        del lane.chunks[at]
                        disk.release(delete=True)
                        continue
                    lane.chunks[at] = disk
                    worker.mem_count -= disk.count
                    worker.disk_count += disk.count
                    worker.disk_bytes += disk.end - disk.pos
            if spilled:
                self._spool_worked()

    def _watch(self) -> None:
        """Spill events that wait in memory too long; summarise dropped events.

        A destination that accepts connections but answers slowly or never
        keeps a batch in flight until the request times out, and with it the
        events behind it in memory. Writing them to the spool after
        ``spill_after`` seconds makes them survive a crash (even ``SIGKILL``):
        the next process delivers them. A healthy destination takes them well
        before, so this costs nothing then.
        """
        opts = self.options
        tick = max(0.01, min(0.1, opts.spill_after / 4))
        while not self._stopping.wait(tick):
            now = time.monotonic()
            with self._drop_lock:
                due = (
                    self._drops_unreported > 0
                    and self._drop_logged_at is not None
                    and now - self._drop_logged_at >= opts.drop_log_interval
                )
            if due:
                self._report_drops()
            if not self._spool_usable():
                continue
            limit = now - opts.spill_after
            for worker in self._workers:
                with worker.cond:
                    late = worker.mem_count > 0 and _oldest_born(worker) < limit
                if late:
                    self.spill(worker)

    # ------------------------------------------------------------------ takeover

    def _adopt_orphans(self) -> None:
        """Take over the spool files of processes that are gone, oldest first."""
        assert self.spool_path is not None
        found = 0
        for path in sorted(self.spool_path.glob("*.p[0-9][0-9].*.jsonl")):
            try:
                partition = int(path.name.split(".")[1][1:])
                int(path.name.split(".")[2])
            except (IndexError, ValueError):
                continue
            if not 0 <= partition < PARTITIONS:
                continue
            try:
                fd = os.open(path, os.O_RDWR | os.O_APPEND)
            except OSError:
                continue
            try:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # its writer is alive and still owns it
                os.close(fd)
                continue
            try:
                chunk = self._load_orphan(path, fd)
            except OSError as exc:
                log.error("OpenLineage: could not read the spool file %s: %s", path, exc)
                continue
            if chunk is None:
                continue
            lane = self._lanes[partition]
            worker = self._workers[partition % len(self._workers)]
            lane.chunks.append(chunk)
            worker.disk_count += chunk.count
            worker.disk_bytes += chunk.end - chunk.pos
            found += chunk.count
        if found:
            log.info(
                "OpenLineage: %d event(s) left in the spool %s by an earlier process will be "
                "delivered first",
                found,
                self.spool_path,
            )

    def _load_orphan(self, path: Path, fd: int) -> _DiskChunk | None:
        """The undelivered lines of a spool file, or ``None`` (and the file removed) if none.

        Takes ``fd`` over: on failure it is closed.
        """
        session, _, seq = path.name.split(".")[:3]
        chunk = _DiskChunk(int(seq), path, fd, -1, writable=False, session=session)
        try:
            chunk.pos_fd = os.open(_pos_path(path), os.O_RDWR | os.O_CREAT, 0o600)
            size = os.fstat(fd).st_size
            raw = os.pread(chunk.pos_fd, 64, 0)
            try:
                chunk.pos = int(raw.strip() or 0)
            except ValueError:
                chunk.pos = -1
            if (
                chunk.pos < 0
                or chunk.pos > size
                or (chunk.pos > 0 and os.pread(fd, 1, chunk.pos - 1) != b"\n")
            ):
                # Not a position delivery could have reached: deliver the file
                # from its start again rather than lose what it holds (at least once).
                log.warning(
                    "OpenLineage: the position file of %s is damaged (%r for a file of %d "
                    "bytes); its events are sent again from the start",
                    path,
                    raw.strip()[:30],
                    size,
                )
                chunk.pos = 0
                chunk.save_pos()
            # A process that died in the middle of a write leaves a partial last
            # line: only complete lines count.
            offset = chunk.pos
            while offset < size:
                block = os.pread(fd, min(_READ_BLOCK, size - offset), offset)
                if not block:
                    break
                newlines = block.count(b"\n")
                if newlines:
                    chunk.count += newlines
                    chunk.end = offset + block.rfind(b"\n") + 1
                offset += len(block)
        except OSError:
            chunk.release(delete=False)
            raise
        if chunk.count == 0:
            chunk.release(delete=True)
            return None
        return chunk

    # ------------------------------------------------------------------ flush and close

    def _notify_progress(self) -> None:
        with self._progress:
            self._progress.notify_all()

    def _counts(self) -> FlushResult:
        pending = spooled = delivered = rejected = dropped = 0
        for w in self._workers:
            # Under the lock: an acknowledgement updates several counters at once.
            with w.cond:
                pending += w.mem_count
                spooled += w.disk_count
                delivered += w.delivered
                rejected += w.rejected
                dropped += w.dropped
        return FlushResult(pending, spooled, delivered, rejected, dropped)

    def flush(self, timeout: float | None = None) -> FlushResult:
        """Wait until every queued event is delivered, or ``timeout`` passes.

        When time runs out, events still in memory are written to the spool, so
        that nothing is lost if the process ends right after.

        Args:
            timeout: seconds to wait; ``None`` means ``options.flush_timeout``.

        Returns:
            What is delivered, still pending, spooled, refused and dropped.
        """
        self._drain(self.options.flush_timeout if timeout is None else timeout)
        result = self._result()
        self._raise_if_lost(result)
        return result

    def _drain(self, timeout: float) -> None:
        """Wait for delivery up to ``timeout`` seconds, then spool what is left in memory."""
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            # Counted outside the progress lock: senders take their own lock first.
            counts = self._counts()
            if counts.complete:
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            # Woken when a sender empties its queue; the cap covers a wake-up that
            # came between the count and the wait.
            with self._progress:
                self._progress.wait(min(remaining, 0.05))
        if not counts.complete and counts.pending and self.spool_path is not None:
            for worker in self._workers:
                self.spill(worker)

    def _result(self) -> FlushResult:
        counts = self._counts()
        with self._errors_lock:
            details = tuple(self._errors)
            self._errors.clear()
        return dataclasses.replace(counts, details=details)

    def close(self, timeout: float | None = None) -> FlushResult:
        """Flush within ``timeout``, stop the senders and keep what is left in the spool.

        Args:
            timeout: seconds to wait for delivery; ``None`` means ``options.close_timeout``.

        Returns:
            The final summary; ``spooled`` events will be sent by the next process.
        """
        if self._closed:
            return self._result()
        self._drain(self.options.close_timeout if timeout is None else timeout)
        self._stopping.set()
        for worker in self._workers:
            with worker.cond:
                worker.cond.notify_all()
        for worker in self._workers:
            if worker.thread is not None:
                # A sender in the middle of a request is not waited for: its
                # events are in the spool and are sent again by the next process.
                worker.thread.join(0.05)
        for worker in self._workers:
            self.spill(worker)
        self._closed = True
        for worker in self._workers:
            with worker.cond:
                for lane in worker.lanes:
                    for chunk in lane.chunks:
                        if isinstance(chunk, _DiskChunk):
                            chunk.release(delete=chunk.count == 0)
        try:
            self.sender.close()
        except Exception:  # closing connections must not fail the caller
            log.debug("OpenLineage: error closing the sender", exc_info=True)
        with contextlib.suppress(Exception):
            atexit.unregister(self._at_exit)
        self._report_drops()
        result = self._result()
        if result.spooled:
            log.warning(
                "OpenLineage: %d event(s) for %s could not be delivered yet; they are kept in "
                "%s and will be sent by the next process that starts",
                result.spooled,
                self.sender.destination,
                self.spool_path,
            )
        if result.pending:
            log.error(
                "OpenLineage: %d event(s) for %s could not be delivered nor spooled and are lost",
                result.pending,
                self.sender.destination,
            )
        self._raise_if_lost(result)
        return result

    def _raise_if_lost(self, result: FlushResult) -> None:
        if self.options.raise_on_error and (result.pending or result.dropped or result.details):
            raise DeliveryError(_describe(result, self.sender.destination), result)

    def _at_exit(self) -> None:
        try:
            self.close(self.options.close_timeout)
        except Exception:  # an exit handler must never raise
            log.debug("OpenLineage: error in the exit handler", exc_info=True)

    def _fail(self, message: str) -> None:
        if self.options.raise_on_error:
            raise TransportError(message)
        log.error("OpenLineage: %s", message)


def _oldest_born(worker: _Worker) -> float:
    """When the oldest in-memory chunk of the worker began (caller holds its lock)."""
    oldest = float("inf")
    for lane in worker.lanes:
        for chunk in lane.chunks:
            if isinstance(chunk, _MemChunk) and chunk.items:
                oldest = min(oldest, chunk.born)
                break
    return oldest


def _is_event_line(line: bytes) -> bool:
    """Whether a spool line is a JSON object, the only thing worth sending."""
    stripped = line.strip()
    if not stripped.startswith(b"{"):
        return False
    try:
        return isinstance(json.loads(stripped), dict)
    except ValueError:  # also invalid UTF-8 (UnicodeDecodeError)
        return False


def _describe(result: FlushResult, destination: str) -> str:
    parts = [f"delivery to {destination}:"]
    if result.pending:
        parts.append(f"{result.pending} pending in memory")
    if result.spooled:
        parts.append(f"{result.spooled} waiting in the spool")
    if result.rejected:
        parts.append(f"{result.rejected} refused")
    if result.dropped:
        parts.append(f"{result.dropped} dropped")
    parts.extend(result.details)
    return " ".join(parts)
