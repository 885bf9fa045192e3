"""The queue of a delivery engine: lanes of chunks, and the sender threads' share of them.

An event's ordering key (the run id, else the job, else the dataset; Kafka's message key and
Kinesis's partition key for those transports) picks one of
:data:`~openlineage_sdk.transports._delivery.spool.PARTITIONS` lanes by CRC-32. A lane is an
ordered list of *chunks*: a :class:`MemChunk` holds events in memory, a
:class:`~openlineage_sdk.transports._delivery.spool.SpoolFile` on disk. The sender always works
on a lane's oldest chunk and an event is removed only once the destination has accepted it, so
an event can never overtake an older one of the same key, whether that one waits in memory or
on disk.

Each lane is served by exactly one sender thread, a :class:`Worker`, one batch at a time. A
batch takes the oldest events of several lanes of its worker at once (:meth:`Worker.peek`), so
a busy sender makes few, full requests. The worker also settles what the destination answered
(delivered, refused, some of each) and moves its in-memory events to the spool when asked
(:meth:`Worker.spill`), always under its own lock.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import islice

from openlineage_sdk.transports._delivery.protocol import Record
from openlineage_sdk.transports._delivery.spool import Spool, SpoolFile

__all__ = ["CHUNK_SPAN", "Batch", "Chunk", "Lane", "MemChunk", "Worker"]

#: Seconds during which an in-memory chunk takes new events.
CHUNK_SPAN = 0.1


class MemChunk:
    """Events held in memory, in order."""

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


Chunk = MemChunk | SpoolFile


@dataclass
class Lane:
    """One ordering partition: the chunks of its events, oldest first."""

    index: int
    chunks: deque[Chunk] = field(default_factory=deque)


@dataclass
class Batch:
    """Events taken for one request: ``records`` holds ``parts`` in order, each
    part being the next ``count`` events at the head of one lane."""

    records: list[Record]
    parts: list[tuple[Lane, int]]

    def split(self) -> list[tuple[Lane, list[Record], int]]:
        """Each part as (lane, its records, index of its first record in the batch)."""
        out: list[tuple[Lane, list[Record], int]] = []
        start = 0
        for lane, count in self.parts:
            out.append((lane, self.records[start : start + count], start))
            start += count
        return out


class Worker:
    """A sender thread, the lanes it serves and the counts of their events.

    ``cond`` guards the lanes and the counts; ``spill_lock`` lets one spill of the worker's
    events run at a time.
    """

    def __init__(self, index: int, lanes: list[Lane]) -> None:
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

    def next_lane(self) -> Lane | None:
        """The next lane with events, in turn (caller holds ``cond``)."""
        n = len(self.lanes)
        for i in range(n):
            lane = self.lanes[(self.rr + i) % n]
            if lane.chunks:
                self.rr = (self.rr + i + 1) % n
                return lane
        return None

    def peek(self, lane: Lane, limit: int, max_bytes: int) -> Batch | SpoolFile | None:
        """The next batch, left in place until acknowledged (caller holds ``cond``).

        In memory, the batch starts with the head of ``lane`` and is filled up
        with the heads of the worker's other lanes, so a request carries as
        many events as it may whichever runs they belong to: fewer, fuller
        requests, hence less work per event on the sender threads. Each lane
        contributes a prefix of its oldest chunk, so no event overtakes an
        older one of its lane. For a spool file this returns the file alone:
        its lines are read after the lock is released, since only this sender
        consumes them and lines before ``end`` never change.

        Args:
            lane: the lane :meth:`next_lane` chose.
            limit: the most events in a batch.
            max_bytes: the most bytes in a batch (one event at least).
        """
        chunk = lane.chunks[0]
        if isinstance(chunk, SpoolFile):
            if chunk.count == 0:
                lane.chunks.popleft()
                chunk.release(delete=True)
                return None
            return chunk
        if not chunk.items:
            lane.chunks.popleft()
            return None
        records: list[Record] = []
        parts: list[tuple[Lane, int]] = []
        size = 0
        full = False
        lanes = self.lanes
        # ``next_lane`` left ``rr`` just after ``lane``: the others follow in turn.
        others = (lanes[(self.rr + i) % len(lanes)] for i in range(len(lanes) - 1))
        source: Lane | None = lane
        while source is not None:
            head = source.chunks[0] if source.chunks else None
            if isinstance(head, MemChunk) and head.items:
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
        return Batch(records, parts)

    def consume(self, lane: Lane, batch: Sequence[Record]) -> None:
        """Remove the first ``len(batch)`` events of the lane (caller holds ``cond``)."""
        i = 0
        while i < len(batch) and lane.chunks:
            chunk = lane.chunks[0]
            if isinstance(chunk, MemChunk):
                n = min(len(batch) - i, len(chunk.items))
                if n == len(chunk.items):
                    chunk.items.clear()
                else:
                    for _ in range(n):
                        chunk.items.popleft()
                self.mem_count -= n
                if not chunk.items:
                    lane.chunks.popleft()
            else:
                n = min(len(batch) - i, chunk.count)
                nbytes = sum(len(b) + 1 for _, b in batch[i : i + n])
                chunk.pos += nbytes
                chunk.count -= n
                self.disk_count -= n
                self.disk_bytes -= nbytes
                if chunk.count == 0:
                    lane.chunks.popleft()
                    chunk.release(delete=True)
                else:
                    with contextlib.suppress(OSError):
                        chunk.save_pos()
            i += n

    def acknowledge(self, taken: Batch) -> bool:
        """The destination took the batch: remove its events; whether the worker is empty now."""
        with self.cond:
            for lane, records, _ in taken.split():
                self.consume(lane, records)
            self.delivered += len(taken.records)
            return self.mem_count == 0 and self.disk_count == 0

    def reject(self, taken: Batch) -> None:
        """The destination refused the batch for good: remove its events."""
        with self.cond:
            for lane, records, _ in taken.split():
                self.consume(lane, records)
            self.rejected += len(taken.records)

    def settle_partly(
        self,
        taken: Batch,
        retry_indices: Sequence[int],
        reject_indices: Sequence[int],
        next_seq: Callable[[], int],
    ) -> None:
        """Remove a batch's events, putting back at the heads of their lanes those to retry.

        Args:
            taken: the batch.
            retry_indices: the events to try again.
            reject_indices: the events refused for good (the others were delivered).
            next_seq: a new chunk sequence number, for a lane left without a chunk.
        """
        batch = taken.records
        retry = set(retry_indices)
        with self.cond:
            again_total = 0
            for lane, records, start in taken.split():
                first = lane.chunks[0] if lane.chunks else None
                self.consume(lane, records)
                again = [r for i, r in enumerate(records, start) if i in retry]
                if again:
                    # Named, if spilled, right before the file they came from
                    # (possibly an earlier process's): see MemChunk.session.
                    if first is not None:
                        head = MemChunk(first.seq - 1, first.session)
                    else:
                        head = MemChunk(next_seq())
                    head.frozen = True
                    head.items.extend(again)
                    lane.chunks.appendleft(head)
                    self.mem_count += len(again)
                    again_total += len(again)
            self.rejected += len(reject_indices)
            self.delivered += len(batch) - len(reject_indices) - again_total

    def skip_line(self, file: SpoolFile, line: bytes) -> None:
        """Count a damaged line at the head of a spool file as refused, and move past it."""
        with self.cond:
            file.pos += len(line) + 1
            file.count -= 1
            self.disk_count -= 1
            self.disk_bytes -= len(line) + 1
            self.rejected += 1
            with contextlib.suppress(OSError):
                file.save_pos()

    def spill(self, spool: Spool) -> None:
        """Move the in-memory events to spool files, keeping their order.

        Events added meanwhile go to new chunks after the frozen ones, so the
        copy can be written without holding the lock that ``submit`` needs.
        """
        with self.spill_lock:
            spilled = False
            with self.cond:
                todo: list[tuple[Lane, MemChunk, list[Record]]] = []
                for lane in self.lanes:
                    for chunk in lane.chunks:
                        if isinstance(chunk, MemChunk) and chunk.items:
                            chunk.frozen = True
                            todo.append((lane, chunk, list(chunk.items)))
            for lane, chunk, items in todo:
                payload = b"".join(data + b"\n" for _, data in items)
                try:
                    disk = spool.new_file(lane.index, chunk.seq, payload, len(items), chunk.session)
                except OSError as exc:
                    # The events stay in memory (their chunk stays frozen, in place).
                    spool.failed(exc)
                    return
                spilled = True
                with self.cond:
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
                    self.mem_count -= disk.count
                    self.disk_count += disk.count
                    self.disk_bytes += disk.end - disk.pos
            if spilled:
                spool.worked()

    def oldest_born(self) -> float:
        """When the oldest in-memory chunk began (caller holds ``cond``)."""
        oldest = float("inf")
        for lane in self.lanes:
            for chunk in lane.chunks:
                if isinstance(chunk, MemChunk) and chunk.items:
                    oldest = min(oldest, chunk.born)
                    break
        return oldest
