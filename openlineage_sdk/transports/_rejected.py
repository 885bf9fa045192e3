"""Look at and replay the events a destination refused (the rejected file of a spool folder).

The delivery engine keeps every event a destination refused for good (and every
damaged spool line) in the rejected file of that destination's spool folder (see
:mod:`openlineage_sdk.transports._delivery.spool` for the layout and
:func:`~openlineage_sdk.transports._delivery.spool.rejected_files` to find them),
one per line, so that nothing is lost silently. Once the cause is fixed (a
backend that rejected a schema it now accepts, a bad facet corrected on the
backend side), ``openlineage-sdk rejected replay --url URL FILE`` sends them
again, one request per event, in file order, and keeps in the file only those
refused again or not sent.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from openlineage_sdk.transports._delivery.protocol import Outcome

__all__ = ["ReplayResult", "describe_line", "replay_rejected"]


def _lines(path: Path) -> Iterator[bytes]:
    with path.open("rb") as handle:
        for line in handle:
            yield line.rstrip(b"\n")


def describe_line(line: bytes) -> str:
    """A one-line label of a rejected line: the run and state, or why it cannot be sent."""
    try:
        doc = json.loads(line)
    except ValueError:
        return f"not JSON ({len(line)} bytes; a damaged spool line, never sent)"
    if not isinstance(doc, dict):
        return "not a JSON object (never sent)"
    run = doc.get("run")
    run = run if isinstance(run, dict) else {}
    job = doc.get("job")
    job = job if isinstance(job, dict) else {}
    parts = [
        str(doc.get("eventType", "")),
        f"run {run.get('runId')}" if run.get("runId") else "",
        f"job {job.get('namespace')}/{job.get('name')}" if job else "",
        str(doc.get("eventTime", "")),
    ]
    return " ".join(p for p in parts if p) or "event"


@dataclass(frozen=True)
class ReplayResult:
    """What a replay did.

    Attributes:
        delivered: events the destination accepted (removed from the file).
        refused: events refused again (kept in the file).
        unsendable: lines that are not JSON objects (kept in the file).
        failed: events not sent because the destination could not be reached (kept).
        messages: the destination's answers for refused or failed events.
    """

    delivered: int
    refused: int
    unsendable: int
    failed: int
    messages: tuple[str, ...]


def replay_rejected(path: Path, url: str, *, endpoint: str = "api/v1/lineage") -> ReplayResult:
    """Send the events of a rejected file again over HTTP; keep in it only those not accepted.

    Events are sent one per request, in file order. When the destination
    cannot be reached, the replay stops and keeps that event and all after it.

    Args:
        path: a rejected file.
        url: the backend's base URL.
        endpoint: the lineage path under ``url``.

    Returns:
        The counts of what happened.

    Raises:
        OSError: the file cannot be read or rewritten.
    """
    from openlineage_sdk.transports.http import HttpConfig, _HttpSender

    sender = _HttpSender(HttpConfig(url=url, endpoint=endpoint, spool=False, batch_size=1))
    keep: list[bytes] = []
    delivered = refused = unsendable = failed = 0
    messages: list[str] = []
    try:
        stopped = False
        for line in _lines(path):
            if stopped:
                keep.append(line)
                failed += 1
                continue
            try:
                if not isinstance(json.loads(line), dict):
                    raise ValueError
            except ValueError:
                keep.append(line)
                unsendable += 1
                continue
            result = sender.send([(None, line)])
            if result.outcome is Outcome.OK:
                delivered += 1
                continue
            keep.append(line)
            messages.append(result.message)
            if result.outcome is Outcome.REJECT:
                refused += 1
            else:
                failed += 1
                stopped = True
    finally:
        sender.close()
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(b"".join(line + b"\n" for line in keep))
    os.replace(tmp, path)
    return ReplayResult(delivered, refused, unsendable, failed, tuple(messages))
