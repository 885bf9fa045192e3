"""Reading a JSON Lines file of events into the report's graph, line by line.

Each line goes to the fast reader (``fast``, with msgspec) first, which folds what the report
shows straight into the graph (``fold``) or says it cannot; such a line is read as
:func:`~openlineage_sdk.read_event` reads it, which refuses it with its reason (and its line
number here) or reads it leniently, and its dictionary is folded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from openlineage_sdk._report.fold import KEEP_RUNS, Folder, Graph, fold_event

__all__ = ["read_graph"]

# Universal newlines, as reading in text mode splits lines: "\r" alone ends a line too.
_LONE_CR: Final = re.compile(rb"\r(?!\n)")


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """The file's lines with their numbers, as text mode would split them."""
    number = 0
    with path.open("rb") as handle:
        for line in handle:
            if b"\r" in line and _LONE_CR.search(line):
                parts = _LONE_CR.split(line)
                for part in parts[:-1]:
                    number += 1
                    yield number, part + b"\n"
                line = parts[-1]
                if not line:
                    continue
            number += 1
            yield number, line


def read_graph(path: str | Path, *, keep_runs: int | None = KEEP_RUNS) -> Graph:
    """Read a JSON Lines file of events straight into the report's graph, line by line.

    Raises:
        OpenLineageValidationError: a line is not an event; the message names the line.
        OSError: the file cannot be read.
    """
    folder = Folder(keep_runs)
    path = Path(path)
    try:
        from openlineage_sdk._report.fast import Reader
    except ImportError:  # no msgspec (the [report] extra): every line is read by read_event
        fold = _never
    else:
        fold = Reader(folder).fold
    for number, line in _lines(path):
        if line.isspace():
            continue
        if not line.isascii():
            _check_utf8(line, path, number)
        if not fold(line):
            _fold_slowly(folder, line, path, number)
    return folder.finish()


def _never(line: bytes) -> bool:
    return False


def _check_utf8(line: bytes, path: Path, number: int) -> None:
    from openlineage_sdk import OpenLineageValidationError, Problem

    try:
        line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise OpenLineageValidationError(
            f"{path}:{number}: not an OpenLineage event",
            [Problem("", f"not UTF-8 text ({exc.reason} at byte {exc.start})", "encoding")],
        ) from None


def _fold_slowly(folder: Folder, line: bytes, path: Path, number: int) -> None:
    """A line the fast reader could not take: read it as :func:`read_event` does, which
    refuses it with the reason, or reads it leniently; then fold its dictionary."""
    from openlineage_sdk import OpenLineageValidationError

    try:
        event = _read(line)
    except OpenLineageValidationError as exc:
        raise OpenLineageValidationError(f"{path}:{number}: {exc.title}", exc.problems) from None
    fold_event(folder, event)


def _read(line: bytes) -> Any:
    from openlineage_sdk import read_event

    return read_event(line)
