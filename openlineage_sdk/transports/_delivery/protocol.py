"""What the delivery engine asks of a destination's sender, and what the sender answers.

A queued transport (HTTP, Kafka) brings a :class:`BatchSender`; the engine hands it batches of
:data:`Record` from its sender threads and acts on the :class:`SendResult`: acknowledge, retry,
keep the refused events aside.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

__all__ = ["BatchSender", "Outcome", "Record", "SendResult"]

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
