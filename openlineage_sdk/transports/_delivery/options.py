"""The settings of a delivery engine: queue size, threads, spool, batches, retries, timeouts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["DeliveryOptions"]


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
