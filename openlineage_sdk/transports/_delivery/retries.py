"""When to try a batch again, and how to find the events a destination refuses alone.

Connection errors, timeouts, 408, 429 and 5xx are retried with exponential backoff and jitter,
honouring ``Retry-After`` (:func:`backoff_delay`). While the destination is unreachable, retries
go on for as long as the process lives: the events are safe in the spool. A batch answered with
a 5xx ``max_server_error_attempts`` times in a row is treated as refused, so one poisonous event
cannot block its run's lane forever. Other 4xx answers are not retried; a refused batch of
several events is searched for the ones refused alone (:func:`isolate`), so that one bad event
does not take the others with it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from openlineage_sdk.transports._delivery.protocol import Outcome, Record, SendResult

__all__ = ["backoff_delay", "isolate"]


def backoff_delay(
    attempts: int,
    retry_after: float | None,
    *,
    initial: float,
    longest: float,
    retry_after_max: float,
) -> float:
    """Seconds to wait before attempt ``attempts + 1``.

    Args:
        attempts: the failed attempts so far (1 after the first failure).
        retry_after: the wait the destination asked for, if it did.
        initial: the first delay.
        longest: the longest delay, before jitter.
        retry_after_max: the longest ``Retry-After`` honoured.
    """
    delay: float = min(longest, initial * (2 ** min(attempts - 1, 30)))
    # Equal jitter: keep half the delay, randomise the rest, so that many
    # clients that failed together do not come back together.
    delay = delay / 2 + random.uniform(0, delay / 2)
    if retry_after is not None:
        delay = max(delay, min(retry_after, retry_after_max))
    return delay


def isolate(
    send: Callable[[Sequence[Record]], SendResult], batch: Sequence[Record], message: str
) -> SendResult:
    """Find the events of a refused batch that the destination refuses alone.

    The batch is halved, and each refused half halved again, in order, down
    to single events: about ``2 * log2(len(batch))`` requests for one bad
    event. Halves that are accepted are delivered on the way. At the first
    half that cannot be sent now (retry, or the sender changed how it
    sends), it and everything after it are to be sent again, so that no
    event overtakes an older one of its run.

    Args:
        send: sends part of the batch.
        batch: the refused batch.
        message: why it was refused, for the answer when no single event is found.

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
            result = send(batch[a:b])
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
