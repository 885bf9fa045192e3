"""The adapters installed, by session, and what an execution needs of one (:class:`Adapter`).

PySpark's classes are shared by every session of a process: each observed call looks up the
adapter installed on its own session (:func:`adapter_of`); a stream's ``foreachBatch`` puts the
batch's session under an adapter of its own for the time of the batch (``streams``).
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from openlineage_sdk.spark._execution import SparkExecution
    from openlineage_sdk.spark._flow import LineageSink
    from openlineage_sdk.spark.session import Session

__all__ = ["Adapter", "adapter_of", "adapters", "register", "unregister"]


class Adapter(Protocol):
    """What an observer and an execution need of the adapter installed on a session.

    Attributes:
        session: The session, as the adapter asks it things.
        reporter: Where the session's executions are reported.
        input_only_runs: Whether reads that end in an action are runs.
        stream_interval: Seconds between two RUNNING events of a stream (``None``: 60).
    """

    session: Session
    reporter: LineageSink
    input_only_runs: bool
    stream_interval: float | None

    def execution(self, method: str) -> SparkExecution:
        """A new record of an execution that starts now, named by ``method`` until described."""


_adapters: weakref.WeakKeyDictionary[Any, Adapter] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def register(spark: Any, adapter: Adapter) -> None:
    """Make ``adapter`` the one of ``spark``."""
    with _lock:
        _adapters[spark] = adapter


def unregister(spark: Any) -> Adapter | None:
    """Remove the adapter of ``spark``; returns it."""
    with _lock:
        return _adapters.pop(spark, None)


def adapter_of(spark: Any) -> Adapter | None:
    """The adapter installed on ``spark``, if any."""
    if spark is None:
        return None
    try:
        return _adapters.get(spark)
    except TypeError:  # not a session (cannot be referred to weakly)
        return None


def adapters() -> list[Adapter]:
    """Every installed adapter."""
    with _lock:
        return list(_adapters.values())
