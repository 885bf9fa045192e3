"""The delivery engine: asynchronous, ordered, loss-free delivery behind one network transport.

How an event travels
--------------------
``submit(key, data)`` runs on the caller's thread and only appends bytes to an in-memory list
under a lock, so it returns in microseconds whatever the backend does. The key picks a lane and
each lane is served by exactly one sender thread (see :mod:`.lanes`), so events of one run leave
in the order they were emitted, always, while different runs travel in parallel.

Sender threads share the GIL with the application, and while one builds a request (Python code
in the HTTP stack) the thread that emits waits for it. So they do as little Python per event as
possible: two of them by default, bodies made by one C-level join, requests that hold no
reference cycle (the body is freed at once, not by a later garbage collection in some other
thread).

Events go to the spool (see :mod:`.spool`) instead of memory when the in-memory queue is full
or the destination is failing, and events that wait in memory too long are spilled there, so
that a crash does not lose them; when the destination answers again the sender drains the files
in order, then goes back to memory. A transport that starts takes over every spool file nobody
holds and replays it before its own events. Failures are retried (see :mod:`.retries`); events
the destination refused for good are kept in the spool's rejected file, with the reason in the
log.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import logging
import os
import threading
import time
import zlib
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from openlineage_sdk.transports._delivery.drops import DropLog
from openlineage_sdk.transports._delivery.lanes import CHUNK_SPAN, Batch, Lane, MemChunk, Worker
from openlineage_sdk.transports._delivery.options import DeliveryOptions
from openlineage_sdk.transports._delivery.protocol import (
    BatchSender,
    Outcome,
    Record,
    SendResult,
)
from openlineage_sdk.transports._delivery.retries import backoff_delay, isolate
from openlineage_sdk.transports._delivery.spool import FIRST_SEQ, PARTITIONS, Spool, SpoolFile
from openlineage_sdk.transports.base import DeliveryError, FlushResult, TransportError

__all__ = ["DeliveryEngine"]

log = logging.getLogger("openlineage_sdk.transports")


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
        self._seq = FIRST_SEQ
        self._seq_lock = threading.Lock()
        self._down = False
        self._stopping = threading.Event()
        self._closed = False
        self._progress = threading.Condition(threading.Lock())
        self._errors: list[str] = []
        self._errors_lock = threading.Lock()
        concurrency = max(1, min(options.concurrency, PARTITIONS))
        lanes = [Lane(i) for i in range(PARTITIONS)]
        self._lanes = lanes
        self._workers = [
            Worker(w, [lane for lane in lanes if lane.index % concurrency == w])
            for w in range(concurrency)
        ]
        self._mem_capacity = max(1, options.max_queue_size // concurrency)
        self._drops = DropLog(options.drop_log_interval)
        self.spool: Spool | None = None
        if options.spool_dir is not None:
            folder = Path(options.spool_dir) / sender.spool_name
            try:
                self.spool = Spool(
                    folder,
                    f"{time.time_ns():019d}-{os.getpid()}",
                    options.spool_retry_interval,
                )
                self._adopt_orphans(self.spool)
            except OSError as exc:
                log.error(
                    "OpenLineage: cannot use the spool folder %s (%s); events that cannot be "
                    "delivered will be kept in memory only",
                    folder,
                    exc,
                )
                self.spool = None
        for worker in self._workers:
            worker.thread = threading.Thread(
                target=self._run,
                args=(worker,),
                name=f"openlineage-sender-{worker.index}",
                daemon=True,  # never keeps the interpreter alive; the exit handler flushes
            )
            worker.thread.start()
        self._watchdog = threading.Thread(
            target=self._watch, name="openlineage-spiller", daemon=True
        )
        self._watchdog.start()
        atexit.register(self._at_exit)

    @property
    def spool_path(self) -> Path | None:
        """The destination's spool folder, or ``None`` when events are kept in memory only."""
        spool = self.spool
        return spool.folder if spool is not None else None

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
            spool = self.spool
            # A spool that failed a moment ago is left alone while memory has room;
            # without room it is tried anyway, dropping being worse than a failed write.
            to_disk = spool is not None and (not room or spool.usable())
            # In memory while there is room, unless the destination is down and a spool
            # can keep the event safe meanwhile.
            if not (room and (not self._down or not to_disk)) and to_disk:
                assert spool is not None
                if self._append_to_disk(spool, worker, lane, data):
                    if worker.idle:
                        worker.cond.notify()
                    return
                # The spool failed (and said so): memory is the fallback while it has room.
                room = worker.mem_count < self._mem_capacity
            if room:
                last = lane.chunks[-1] if lane.chunks else None
                if (
                    not isinstance(last, MemChunk)
                    or last.frozen
                    or last.born < time.monotonic() - CHUNK_SPAN
                ):
                    # A chunk takes events for a short while only, so that its
                    # age is close to the age of its oldest event (see _watch).
                    last = MemChunk(self._next_seq())
                    lane.chunks.append(last)
                last.items.append((key, data))
                worker.mem_count += 1
            else:
                self._drop(
                    worker,
                    "the event queue is full and "
                    + ("the spool is not working" if self.spool else "no spool is configured"),
                )
                return
            if worker.idle:
                worker.cond.notify()

    def _drop(self, worker: Worker, reason: str) -> None:
        """Count a dropped event and tell the log (called with ``worker.cond`` held)."""
        worker.dropped += 1
        if self.options.raise_on_error:
            raise TransportError(f"{reason}; an event was dropped")
        self._drops.dropped(reason)

    def _next_seq(self) -> int:
        with self._seq_lock:
            self._seq += 1
            return self._seq

    def _append_to_disk(self, spool: Spool, worker: Worker, lane: Lane, data: bytes) -> bool:
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
            if isinstance(last, SpoolFile) and last.writable:
                last.append(data + b"\n")
            else:
                lane.chunks.append(spool.new_file(lane.index, self._next_seq(), data + b"\n", 1))
        except OSError as exc:
            spool.failed(exc)
            return False
        spool.worked()
        worker.disk_count += 1
        worker.disk_bytes += len(data) + 1
        return True

    # ------------------------------------------------------------------ sending

    def _run(self, worker: Worker) -> None:
        attempts = 0
        server_errors = 0
        max_bytes = self.options.max_batch_bytes
        while True:
            # Asked each time: a sender may change how it sends (one event per request).
            limit = max(1, self.sender.max_batch)
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
                peeked = worker.peek(lane, limit, max_bytes)
            if peeked is None:
                continue
            if isinstance(peeked, Batch):
                taken = peeked
            else:
                skip = partial(self._skip_line, worker, peeked)
                lines = peeked.read_lines(limit, max_bytes, skip)
                if not lines:
                    continue  # only damaged lines, now skipped
                taken = Batch(lines, [(lane, len(lines))])
            batch = taken.records
            result = self._send(batch)
            if result.outcome is Outcome.REJECT and len(batch) > 1 and not self._closed:
                # One refused event must not take the others with it: find it.
                result = isolate(self._send, batch, result.message)
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
                        ", events wait in the spool meanwhile" if self.spool else "",
                    )
                self._down = True
                if self.spool is not None:
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

    def _backoff(self, attempts: int, retry_after: float | None) -> None:
        opts = self.options
        self._stopping.wait(
            backoff_delay(
                attempts,
                retry_after,
                initial=opts.backoff_initial,
                longest=opts.backoff_max,
                retry_after_max=opts.retry_after_max,
            )
        )

    def _skip_line(self, worker: Worker, file: SpoolFile, line: bytes) -> None:
        """Move a damaged line at the head of a spool file out of the way."""
        kept = self.spool.keep_rejected([line]) if self.spool is not None else None
        log.error(
            "OpenLineage: skipped a damaged line in the spool file %s (%d bytes, not a JSON "
            "object: %r)%s",
            file.path,
            len(line),
            line[:80],
            f"; it is kept in {kept}" if kept else "",
        )
        worker.skip_line(file, line)

    # ------------------------------------------------------------------ answers

    def _ack(self, worker: Worker, taken: Batch) -> None:
        if worker.acknowledge(taken):
            self._notify_progress()

    def _reject(self, worker: Worker, taken: Batch, message: str) -> None:
        """The destination refused the whole batch for good."""
        self._refuse([data for _, data in taken.records], message)
        worker.reject(taken)

    def _refuse(self, refused: Sequence[bytes], message: str) -> None:
        """Keep refused events in the spool's rejected file, log them, report them at flush."""
        kept = self.spool.keep_rejected(refused) if self.spool is not None else None
        log.error(
            "OpenLineage: %s refused %d event(s): %s%s",
            self.sender.destination,
            len(refused),
            message,
            f"; they are kept in {kept}" if kept else "",
        )
        with self._errors_lock:
            self._errors.append(f"{len(refused)} event(s) refused: {message}")

    def _partial(self, worker: Worker, taken: Batch, result: SendResult) -> None:
        """Some events of a batch were accepted: keep only those to try again, at the heads."""
        if result.reject_indices:
            batch = taken.records
            self._refuse([batch[i][1] for i in result.reject_indices], result.message)
        worker.settle_partly(taken, result.retry_indices, result.reject_indices, self._next_seq)

    # ------------------------------------------------------------------ the spool

    def spill(self, worker: Worker) -> None:
        """Move the worker's in-memory events to the spool, if there is one."""
        if self.spool is not None:
            worker.spill(self.spool)

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
            if self._drops.due(now):
                self._drops.report()
            spool = self.spool
            if spool is None or not spool.usable():
                continue
            limit = now - opts.spill_after
            for worker in self._workers:
                with worker.cond:
                    late = worker.mem_count > 0 and worker.oldest_born() < limit
                if late:
                    self.spill(worker)

    def _adopt_orphans(self, spool: Spool) -> None:
        """Queue the spool files of processes that are gone, oldest first, before any event."""
        found = 0
        for partition, file in spool.orphans():
            lane = self._lanes[partition]
            worker = self._workers[partition % len(self._workers)]
            lane.chunks.append(file)
            worker.disk_count += file.count
            worker.disk_bytes += file.end - file.pos
            found += file.count
        if found:
            log.info(
                "OpenLineage: %d event(s) left in the spool %s by an earlier process will be "
                "delivered first",
                found,
                spool.folder,
            )

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
        if not counts.complete and counts.pending and self.spool is not None:
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
                        if isinstance(chunk, SpoolFile):
                            chunk.release(delete=chunk.count == 0)
        try:
            self.sender.close()
        except Exception:  # closing connections must not fail the caller
            log.debug("OpenLineage: error closing the sender", exc_info=True)
        with contextlib.suppress(Exception):
            atexit.unregister(self._at_exit)
        self._drops.report()
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
