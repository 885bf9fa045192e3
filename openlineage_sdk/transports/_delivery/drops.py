"""Dropped events, told without flooding the log: the first one, then a summary now and then.

An event is dropped when it fits neither in memory nor in the spool (the queue is full and no
spool is configured, the spool failed, it reached its size limit) or arrives after the
transport was closed. A destination that is down for an hour may make millions of them; the
log gets one line for the first and one count per ``interval`` after that.
"""

from __future__ import annotations

import logging
import threading
import time

__all__ = ["DropLog"]

log = logging.getLogger("openlineage_sdk.transports")


class DropLog:
    """Logs dropped events: the first at once, later ones summarised every ``interval`` s."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._lock = threading.Lock()
        self._unreported = 0
        self._reason = ""
        self._logged_at: float | None = None

    def dropped(self, reason: str) -> None:
        """One event was dropped because of ``reason``."""
        now = time.monotonic()
        with self._lock:
            self._reason = reason
            if self._logged_at is None:
                self._logged_at = now
                log.error(
                    "OpenLineage: %s; an event was dropped (further drops are summarised "
                    "every %g s)",
                    reason,
                    self.interval,
                )
                return
            self._unreported += 1
        if now - self._logged_at >= self.interval:
            self.report()

    def due(self, now: float) -> bool:
        """Whether drops wait to be summarised and the interval has passed."""
        with self._lock:
            return (
                self._unreported > 0
                and self._logged_at is not None
                and now - self._logged_at >= self.interval
            )

    def report(self) -> None:
        """Log the drops not told yet, if any."""
        with self._lock:
            count, self._unreported = self._unreported, 0
            if not count:
                return
            since = self._logged_at
            self._logged_at = time.monotonic()
            reason = self._reason
        log.error(
            "OpenLineage: %d more event(s) dropped in the last %.0f s (last reason: %s)",
            count,
            self._logged_at - (since or self._logged_at),
            reason,
        )
