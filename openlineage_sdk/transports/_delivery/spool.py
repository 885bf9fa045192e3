"""The spool: events kept on disk until their destination takes them.

Layout
------
Each destination has its own folder under the spool folder (:func:`default_spool_dir`, or the
one configured), named by its sender's ``spool_name``. In it:

* ``{session}.p{partition}.{sequence}.jsonl``: spool files, one event per line, so they are
  readable with any JSON Lines tool. ``session`` is the writing process's start time and pid,
  ``partition`` one of the :data:`PARTITIONS` ordering partitions (two digits), ``sequence`` the
  file's place in its partition (ten digits from :data:`FIRST_SEQ`): sorted by name, the files
  of a partition are in the order their events were emitted.
* ``{spool file}.pos``: how far delivery of that file got, a byte offset.
* ``rejected.jsonl`` (:data:`REJECTED_FILE`): every event the destination refused for good, and
  every damaged spool line, one per line; ``openlineage-sdk rejected`` shows and replays them.

The process that writes a spool file holds an exclusive ``flock`` on it until the file is
drained or the process ends. A process that starts takes over every file nobody holds (left by
a process that ended with the destination down, or that died): :meth:`Spool.orphans`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from openlineage_sdk.transports._append import append_line, write_all
from openlineage_sdk.transports._delivery.protocol import Record

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: files are not shared between processes
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "FIRST_SEQ",
    "PARTITIONS",
    "REJECTED_FILE",
    "Spool",
    "SpoolFile",
    "default_spool_dir",
    "rejected_files",
]

log = logging.getLogger("openlineage_sdk.transports")

#: Fixed number of ordering partitions; part of the spool layout, so a process
#: that takes over another's spool files maps every run to the same partition.
PARTITIONS = 16
#: The first sequence number of a process's files: every sequence has ten digits.
FIRST_SEQ = 1_000_000_000
#: The file of a destination's folder that keeps what it refused for good.
REJECTED_FILE = "rejected.jsonl"
_READ_BLOCK = 1 << 20


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


def rejected_files(spool_dir: Path) -> list[Path]:
    """The rejected files under a spool folder (one per destination), sorted.

    Args:
        spool_dir: the spool folder (as configured, or the default one), or one rejected file.

    Returns:
        The files found; none when the folder does not exist.
    """
    if spool_dir.is_file():
        return [spool_dir]
    return sorted(spool_dir.glob(f"*/{REJECTED_FILE}")) + sorted(spool_dir.glob(REJECTED_FILE))


def _file_name(session: str, partition: int, seq: int) -> str:
    return f"{session}.p{partition:02d}.{seq:010d}.jsonl"


def _parse_file_name(name: str) -> tuple[str, int, int] | None:
    """``(session, partition, sequence)`` of a spool file's name, or ``None``."""
    parts = name.split(".")
    try:
        partition = int(parts[1][1:])
        seq = int(parts[2])
    except (IndexError, ValueError):
        return None
    if not 0 <= partition < PARTITIONS:
        return None
    return parts[0], partition, seq


def _pos_path(path: Path) -> Path:
    return path.with_name(path.name + ".pos")


def is_event_line(line: bytes) -> bool:
    """Whether a spool line is a JSON object, the only thing worth sending."""
    stripped = line.strip()
    if not stripped.startswith(b"{"):
        return False
    try:
        return isinstance(json.loads(stripped), dict)
    except ValueError:  # also invalid UTF-8 (UnicodeDecodeError)
        return False


class SpoolFile:
    """One spool file this process owns: its undelivered lines, from ``pos`` to ``end``."""

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
        """Append ``data``, complete lines holding ``lines`` events."""
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
        """Record how far delivery got, for a process that takes the file over."""
        os.pwrite(self.pos_fd, b"%020d\n" % self.pos, 0)

    def release(self, *, delete: bool) -> None:
        """Let go of the file (another process may take it then), deleting it if asked."""
        if delete:
            for p in (self.path, _pos_path(self.path)):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(p)
        # Closing the descriptor drops the flock, so another process may take the file.
        for fd in (self.pos_fd, self.fd):
            with contextlib.suppress(OSError):
                os.close(fd)

    def read_lines(self, limit: int, max_bytes: int, skip: Callable[[bytes], None]) -> list[Record]:
        """The next lines, up to ``limit`` events and ``max_bytes`` (at least one line).

        A line that is not a JSON object (garbage, blank, invalid UTF-8: a damaged or
        hand-edited file) is never sent, so that it can neither make the destination refuse
        the valid events of its batch nor be taken for a missing batch endpoint. At the head of
        the file it is handed to ``skip`` (which moves ``pos`` past it); after other lines,
        the batch stops before it.
        """
        # Lines before end are complete and never change, so reading them
        # needs no coordination with writers appending after end.
        lines: list[Record] = []
        pos, end = self.pos, self.end
        buf = b""
        size = 0
        while pos < end and len(lines) < limit:
            block = os.pread(self.fd, min(max(_READ_BLOCK, len(buf) * 2), end - pos), pos)
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
                if not is_event_line(line):
                    if lines:
                        return lines
                    skip(line)
                    start = nl + 1
                    continue
                if lines and size + len(line) > max_bytes:
                    return lines
                lines.append((None, line))
                size += len(line)
                start = nl + 1
            buf = buf[start:]
        return lines

    @classmethod
    def _taken_over(cls, path: Path, fd: int) -> SpoolFile | None:
        """The undelivered lines of another process's file, or ``None`` (and the file removed).

        Takes ``fd`` over: on failure it is closed.
        """
        session, _, seq = path.name.split(".")[:3]
        chunk = cls(int(seq), path, fd, -1, writable=False, session=session)
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


class Spool:
    """One destination's spool folder, and whether writing to it works at the moment.

    Args:
        folder: the destination's folder (made if missing).
        session: this process's part of the names of the files it writes.
        retry_interval: seconds between attempts to use a spool that failed.

    Raises:
        OSError: the folder cannot be made.
    """

    def __init__(self, folder: Path, session: str, retry_interval: float) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.session = session
        self._retry_interval = retry_interval
        # A spool that failed: when (monotonic), so as to try it again later.
        self._failed_at: float | None = None

    def usable(self) -> bool:
        """Whether to write to the spool now: it did not just fail."""
        failed = self._failed_at
        return failed is None or time.monotonic() - failed >= self._retry_interval

    def failed(self, exc: OSError) -> None:
        """Note that writing failed; say so once per outage of the spool."""
        first = self._failed_at is None
        self._failed_at = time.monotonic()
        if first:
            log.error(
                "OpenLineage: the spool %s stopped working (%s); events are kept in memory "
                "until it works again",
                self.folder,
                exc,
            )

    def worked(self) -> None:
        """Note that writing worked (again)."""
        if self._failed_at is not None:
            self._failed_at = None
            log.warning("OpenLineage: the spool %s is working again", self.folder)

    def new_file(
        self, partition: int, seq: int, data: bytes, lines: int, session: str | None = None
    ) -> SpoolFile:
        """A new spool file holding ``data`` (``lines`` events); on failure none is left.

        Args:
            partition: the ordering partition of its events.
            seq: its place in the partition.
            data: complete lines.
            lines: how many events ``data`` holds.
            session: the session it is named after; this process's when ``None`` (events
                taken back from an earlier process's file keep that process's session, so
                that they still sort before the rest of its file).
        """
        session = session or self.session
        path = self.folder / _file_name(session, partition, seq)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o600)
        chunk = SpoolFile(seq, path, fd, -1, writable=True, session=session)
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

    def orphans(self) -> Iterator[tuple[int, SpoolFile]]:
        """Take over the spool files of processes that are gone, oldest first.

        Yields:
            ``(partition, file)`` for each file with undelivered events.
        """
        for path in sorted(self.folder.glob("*.p[0-9][0-9].*.jsonl")):
            parsed = _parse_file_name(path.name)
            if parsed is None:
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
                chunk = SpoolFile._taken_over(path, fd)
            except OSError as exc:
                log.error("OpenLineage: could not read the spool file %s: %s", path, exc)
                continue
            if chunk is not None:
                yield parsed[1], chunk

    def keep_rejected(self, refused: Sequence[bytes]) -> Path | None:
        """Append refused events (or damaged lines) to the rejected file; where, if it worked."""
        path = self.folder / REJECTED_FILE
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
