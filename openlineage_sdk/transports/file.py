"""A transport that writes events to files: one JSON line each, or one file each.

**Appending** (``append: true``, this transport's default): every event becomes one line of a
JSON Lines file. Several processes may write the same file at once (Spark executors, Airflow
workers, parallel tests): every event is written with a single ``write`` on a descriptor opened
with ``O_APPEND``, so the kernel places it at the current end of the file, and the write happens
under an exclusive ``flock`` so a line can never be split by another writer, whatever its size.
The file is reopened when it is rotated or removed under us.

**One file per event** (``append: false``, the official Python client's default): each event is
written to a new file named as the official client names it, ``{log_file_path}-{time}.json``
with the local time as ``%Y%m%d-%H%M%S.%f``; with ``debug_mode``,
``{log_file_path}-{%y%m%dT%H%M%S.%f}-{job or dataset name}-{event type}.json`` and indented
JSON. Directory watchers rely on that naming. A file is never overwritten: a name already taken
(two events in the same microsecond, another process) moves on to the next microsecond, so names
also sort in the order this transport wrote them.

**Other filesystems**: a ``log_file_path`` with a scheme (``s3://``, ``gs://``, ``abfs://``,
``memory://``...) is written through `fsspec <https://filesystem-spec.readthedocs.io>`_ with
``storage_options``, or through the filesystem ``filesystem`` names (a class, a factory or an
instance, by dotted path, made with ``fs_kwargs``), as in the official client. fsspec is an
optional dependency: ``pip install 'openlineage-sdk[fsspec]'`` (and the filesystem's own
package, ``s3fs``, ``gcsfs``...). ``file://`` URLs are local files.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import logging
import os
import threading
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit
from urllib.request import url2pathname

from pydantic import Field, field_serializer, field_validator
from typing_extensions import Self

from openlineage_sdk.transports._append import append_line, write_all
from openlineage_sdk.transports.base import (
    Emittable,
    FlushResult,
    Transport,
    TransportConfig,
    TransportError,
    redact_mapping,
)

__all__ = ["DEFAULT_FILE_NAME", "FileConfig", "FileTransport", "append_line"]

log = logging.getLogger(__name__)

#: Where events go when nothing is configured: a file in the working directory.
DEFAULT_FILE_NAME = "openlineage_events.jsonl"

# A name taken by another writer moves to the next microsecond; past this many, give up.
_MAX_NAME_TRIES = 10_000


class FileConfig(TransportConfig):
    """Configuration of :class:`FileTransport` (``type: file``), with the official client's keys.

    Secret-looking entries of ``storage_options`` and ``fs_kwargs`` (keys naming a secret,
    token, password, credential...) are masked in reprs and dumps.
    """

    type: Literal["file"] = "file"
    log_file_path: str = Field(
        default=DEFAULT_FILE_NAME,
        description=(
            "Where events go: the JSON Lines file (``append: true``), or the start of the name "
            "of each event's file (``append: false``). A local path, a ``file://`` URL, or a URL "
            "of another filesystem (``s3://bucket/lineage/events``, ``gs://``, ``memory://``...) "
            "written through fsspec (the ``[fsspec]`` extra)."
        ),
    )
    append: bool = Field(
        default=True,
        description=(
            "``true``: every event is appended as one line to ``log_file_path``. ``false``: "
            "every event is written to a file of its own, named as the official client names "
            "it, ``{log_file_path}-{%Y%m%d-%H%M%S.%f}.json`` (local time), never overwriting "
            "one. The official Python client's default is ``false``; this transport's is "
            "``true`` (the Java client's behaviour), except in ``OpenLineageClient``, which "
            "keeps the official default."
        ),
    )
    debug_mode: bool = Field(
        default=False,
        description=(
            "With ``append: false``: files named "
            "``{log_file_path}-{%y%m%dT%H%M%S.%f}-{job or dataset name}-{event type}.json`` "
            "(characters other than letters, digits, ``_``, ``.`` and ``-`` in the name become "
            "``__``; ``unknown_event_type`` for job and dataset events) holding indented JSON "
            "with sorted keys, as the official client writes them. No effect when appending."
        ),
    )
    storage_options: dict[str, Any] | None = Field(
        default=None,
        description=(
            "Options of the fsspec filesystem of a ``log_file_path`` URL (credentials, "
            "``endpoint_url``, ``client_kwargs``...), given to ``fsspec.url_to_fs``. Ignored, "
            "with a warning, when ``filesystem`` is set."
        ),
    )
    filesystem: str | None = Field(
        default=None,
        description=(
            "The dotted path of the filesystem to write through: a class (made with "
            "``fs_kwargs``), a factory (called with ``fs_kwargs``) or an instance; whatever it "
            "gives must have an ``open(path, mode)`` method. ``log_file_path`` is then given to "
            "it as written."
        ),
    )
    fs_kwargs: dict[str, Any] | None = Field(
        default=None, description="The keyword arguments ``filesystem`` is made or called with."
    )
    fsync: bool = Field(
        default=False,
        description="Flush each local file write to the device before ``emit`` returns.",
    )
    raise_on_error: bool = Field(
        default=False,
        description="Raise ``TransportError`` when writing fails instead of logging it.",
    )

    if TYPE_CHECKING:
        # A path object is taken as well as text (and kept as text): say so to type checkers.
        def __init__(
            self,
            *,
            type: Literal["file"] = "file",
            log_file_path: str | os.PathLike[str] = DEFAULT_FILE_NAME,
            append: bool = True,
            debug_mode: bool = False,
            storage_options: dict[str, Any] | None = None,
            filesystem: str | None = None,
            fs_kwargs: dict[str, Any] | None = None,
            fsync: bool = False,
            raise_on_error: bool = False,
        ) -> None: ...

    @field_validator("log_file_path", mode="before")
    @classmethod
    def _path_text(cls, value: Any) -> Any:
        return os.fspath(value) if isinstance(value, os.PathLike) else value

    @field_serializer("storage_options", "fs_kwargs")
    def _dump_options(self, value: dict[str, Any] | None) -> Any:
        return None if value is None else redact_mapping(value)

    def __repr_args__(self) -> Any:
        for name, value in super().__repr_args__():
            if name in ("storage_options", "fs_kwargs") and value is not None:
                value = redact_mapping(value)
            yield name, value

    def needs_fsspec(self) -> bool:
        """Whether events are written through a filesystem rather than as local files.

        Returns:
            True when ``filesystem`` is set or ``log_file_path`` is a URL other than ``file://``,
            as the official client decides.
        """
        return bool(self.filesystem) or (
            "://" in self.log_file_path and not self.log_file_path.startswith("file://")
        )


def _local_path(location: str) -> str:
    """The local path of ``location``: a ``file://`` URL's path, anything else as it is."""
    if not location.startswith("file://"):
        return location
    parts = urlsplit(location)
    if parts.netloc and parts.netloc != "localhost":
        return url2pathname(f"//{parts.netloc}{parts.path}")
    return url2pathname(parts.path)


def _import(dotted: str) -> Any:
    """The object ``module.attribute`` names, as the official client imports it."""
    module, _, name = dotted.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise TransportError(f"the filesystem {dotted!r} cannot be imported: {exc}") from None


def _safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "_.-" else "__" for c in name)


class FileTransport(Transport):
    """Writes every event to a file: one compact JSON line each, or one file each.

    Writing is synchronous: a local write costs microseconds, and an event is on disk (in the
    page cache, or on the device with ``fsync=True``) when :meth:`emit` returns.
    """

    kind = "file"
    config_class = FileConfig

    def __init__(
        self,
        path: str | os.PathLike[str] = DEFAULT_FILE_NAME,
        *,
        fsync: bool = False,
        raise_on_error: bool = False,
        append: bool = True,
        debug_mode: bool = False,
        storage_options: Mapping[str, Any] | None = None,
        filesystem: str | None = None,
        fs_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        """Make the transport; files and folders are created on the first event.

        Args:
            path: the JSON Lines file, or the start of each event's file name
                (``append=False``); a local path or a URL (see the module).
            fsync: flush each local write to the device before returning.
            raise_on_error: raise :class:`TransportError` instead of logging when
                writing fails.
            append: append one line per event (``True``), or write a file per event.
            debug_mode: with ``append=False``, the official client's debug file names and
                indented JSON.
            storage_options: options of the fsspec filesystem of a URL.
            filesystem: the dotted path of a filesystem class, factory or instance.
            fs_kwargs: what ``filesystem`` is made or called with.

        Raises:
            TransportError: the path needs fsspec, which is not installed.
        """
        self._config = FileConfig(
            log_file_path=os.fspath(path),
            append=append,
            debug_mode=debug_mode,
            storage_options=dict(storage_options) if storage_options is not None else None,
            filesystem=filesystem,
            fs_kwargs=dict(fs_kwargs) if fs_kwargs is not None else None,
            fsync=fsync,
            raise_on_error=raise_on_error,
        )
        self._remote = self._config.needs_fsspec()
        if filesystem and storage_options:
            log.warning(
                "OpenLineage: the file transport's storage_options are not used when a "
                "filesystem is given; give its settings in fs_kwargs"
            )
        if self._remote and not filesystem and importlib.util.find_spec("fsspec") is None:
            raise TransportError(
                f"the file transport writes {self._config.log_file_path!r} through fsspec, which "
                "is not installed: pip install 'openlineage-sdk[fsspec]' (and the filesystem's "
                "package, such as s3fs or gcsfs)"
            )
        #: The local file (or, for a file per event, the start of each name); not used for
        #: another filesystem.
        self.path = Path(_local_path(self._config.log_file_path))
        self._fsync = fsync
        self._raise = raise_on_error
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._ino: tuple[int, int] | None = None
        self._delivered = 0
        self._last: datetime | None = None  # the time in the latest per-event file name
        self._fs: Any = None  # the filesystem and the path in it, made on first use
        self._fs_path = ""
        self._exclusive = True  # the filesystem takes "xb" (create, never overwrite)
        self._local_append = append and not self._remote

    @classmethod
    def from_config(cls, config: TransportConfig) -> Self:
        """Build the transport from a :class:`FileConfig`."""
        assert isinstance(config, FileConfig)
        return cls(
            config.log_file_path,
            fsync=config.fsync,
            raise_on_error=config.raise_on_error,
            append=config.append,
            debug_mode=config.debug_mode,
            storage_options=config.storage_options,
            filesystem=config.filesystem,
            fs_kwargs=config.fs_kwargs,
        )

    @property
    def config(self) -> FileConfig:
        """The configuration that makes this transport again, in another process too.

        A relative local path is made absolute (against the working directory now).
        """
        if self._remote or self.path.is_absolute():
            return self._config
        return self._config.model_copy(update={"log_file_path": str(self.path.absolute())})

    def _open(self) -> int:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        st = os.fstat(fd)
        self._fd, self._ino = fd, (st.st_dev, st.st_ino)
        return fd

    def _current_fd(self) -> int:
        fd = self._fd
        if fd is None:
            return self._open()
        # Reopen when the file was rotated or removed since we opened it, so
        # events keep landing in the file a reader looks at.
        try:
            st = os.stat(self.path)
            if (st.st_dev, st.st_ino) == self._ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)
        self._fd = None
        return self._open()

    def emit(self, event: Emittable) -> None:
        """Write the event's JSON: a line appended, or a file of its own.

        Raises:
            TransportError: only with ``raise_on_error``, when the event cannot be written as
                JSON or the file cannot be written; otherwise the failure is logged.
        """
        try:
            text = event.to_json()
        except Exception as exc:
            # A custom event that cannot write itself must not fail the pipeline either.
            if self._raise:
                raise TransportError(f"could not write the event as JSON: {exc}") from exc
            log.error("OpenLineage: could not write the event as JSON: %s", exc)
            return
        if not self._local_append:
            self._emit_other(text)
            return
        data = (text + "\n").encode()
        try:
            with self._lock:
                fd = self._current_fd()
                append_line(fd, data)
                if self._fsync:
                    os.fsync(fd)
                self._delivered += 1
        except OSError as exc:
            if self._raise:
                raise TransportError(f"could not append the event to {self.path}: {exc}") from exc
            log.error("OpenLineage: could not append the event to %s: %s", self.path, exc)

    def _emit_other(self, text: str) -> None:
        """A file per event, or a line appended on another filesystem."""
        config = self._config
        name_parts: tuple[str, str] | None = None
        if config.debug_mode and not config.append:
            data = json.loads(text)
            text = json.dumps(data, sort_keys=True, indent=2)
            name_parts = _debug_parts(data)
        body = (text + "\n").encode()
        where = config.log_file_path
        try:
            with self._lock:
                if self._remote:
                    where = self._write_remote(body, name_parts)
                else:
                    where = self._write_new_file(body, name_parts)
                self._delivered += 1
        except Exception as exc:  # fsspec's filesystems raise more than OSError
            if self._raise:
                raise TransportError(f"could not write the event to {where}: {exc}") from exc
            log.error("OpenLineage: could not write the event to %s: %s", where, exc)

    def _next_time(self) -> datetime:
        now = datetime.now()
        if self._last is not None and now <= self._last:
            now = self._last + timedelta(microseconds=1)
        return now

    def _file_name(self, base: str, when: datetime, name_parts: tuple[str, str] | None) -> str:
        if name_parts is None:
            return f"{base}-{when:%Y%m%d-%H%M%S.%f}.json"
        return f"{base}-{when:%y%m%dT%H%M%S.%f}-{name_parts[0]}-{name_parts[1]}.json"

    def _write_new_file(self, body: bytes, name_parts: tuple[str, str] | None) -> str:
        """Create the event's file, never replacing one; its name."""
        when = self._next_time()
        base = str(self.path)
        made_folder = False
        for _ in range(_MAX_NAME_TRIES):
            name = self._file_name(base, when, name_parts)
            try:
                fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                when += timedelta(microseconds=1)
                continue
            except FileNotFoundError:
                if made_folder:
                    raise
                self.path.parent.mkdir(parents=True, exist_ok=True)
                made_folder = True
                continue
            self._last = when
            try:
                write_all(fd, body)
                if self._fsync:
                    os.fsync(fd)
            finally:
                os.close(fd)
            return name
        raise OSError(f"no free file name after {base} ({_MAX_NAME_TRIES} tried)")

    def _filesystem(self) -> Any:
        if self._fs is None:
            config = self._config
            if config.filesystem:
                target = _import(config.filesystem)
                if inspect.isclass(target) or callable(target):
                    target = target(**(config.fs_kwargs or {}))
                if not callable(getattr(target, "open", None)):
                    raise TransportError(
                        f"{config.filesystem!r} gives no filesystem with an open() method"
                    )
                self._fs, self._fs_path = target, config.log_file_path
            else:
                # Imported by name: fsspec is optional and has no type information.
                url_to_fs = importlib.import_module("fsspec.core").url_to_fs
                self._fs, self._fs_path = url_to_fs(
                    config.log_file_path, **(config.storage_options or {})
                )
        return self._fs

    def _write_remote(self, body: bytes, name_parts: tuple[str, str] | None) -> str:
        fs = self._filesystem()
        if self._config.append:
            with fs.open(self._fs_path, "ab") as file:
                file.write(body)
            return self._config.log_file_path
        when = self._next_time()
        for _ in range(_MAX_NAME_TRIES):
            name = self._file_name(self._fs_path, when, name_parts)
            mode = "xb" if self._exclusive else "wb"
            try:
                handle = fs.open(name, mode)
            except FileExistsError:
                when += timedelta(microseconds=1)
                continue
            except (ValueError, NotImplementedError, TypeError):
                if mode == "wb":
                    raise
                # This filesystem cannot create without replacing: names stay unique within
                # this process, as the official client's are.
                self._exclusive = False
                continue
            try:
                # An object store may say that the name is taken only when the file is
                # closed (S3 answers the upload's conditional PUT with 412).
                with handle as file:
                    file.write(body)
            except FileExistsError:
                when += timedelta(microseconds=1)
                continue
            self._last = when
            return name
        raise OSError(f"no free file name after {self._fs_path} ({_MAX_NAME_TRIES} tried)")

    def flush(self, timeout: float | None = None) -> FlushResult:
        """Every event is written at emit; report how many."""
        return FlushResult(delivered=self._delivered)

    def close(self, timeout: float | None = None) -> FlushResult:
        """Close the file."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
        return self.flush(timeout)


def _debug_parts(data: Any) -> tuple[str, str]:
    """The job (else dataset) name and the event type in a debug-mode file name."""
    name = "unknown_job_name"
    event_type = "unknown_event_type"
    if isinstance(data, dict):
        for holder in ("job", "dataset"):
            entity = data.get(holder)
            if isinstance(entity, dict) and isinstance(entity.get("name"), str):
                name = entity["name"]
                break
        if "run" in data:  # only run events have a type; the official client writes "None"
            event_type = str(data.get("eventType"))  # when a run event has none
    return _safe_name(name), event_type
