"""Where observers hook into PySpark, and how a hooked call finds the adapter of its session.

PySpark's classes are shared by every session of a process, so a method is wrapped once for the
process (:func:`wrap_once`) and each call looks up the adapter installed on its own session
(:func:`adapter_of`); calls of sessions without one pass straight through.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from openlineage_sdk.spark._execution import SparkExecution
    from openlineage_sdk.spark._flow import LineageSink
    from openlineage_sdk.spark.session import Session

__all__ = ["Adapter", "adapter_of", "adapters", "register", "unregister", "wrap_once"]


class Adapter(Protocol):
    """What an observer needs of the adapter installed on a session."""

    session: Session
    reporter: LineageSink
    input_only_runs: bool

    def execution(self, method: str) -> SparkExecution:
        """A new record of an execution that starts now, named by ``method`` until described."""


_adapters: weakref.WeakKeyDictionary[Any, Adapter] = weakref.WeakKeyDictionary()
_lock = threading.Lock()
_wrapped: set[tuple[type, str]] = set()


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


def wrap_once(
    cls: type, name: str, wrap: Callable[[Callable[..., Any]], Callable[..., Any]]
) -> None:
    """Replace ``cls.name`` by ``wrap(original)``, once for the process."""
    with _lock:
        original = cls.__dict__.get(name)
        if original is None or (cls, name) in _wrapped:
            return
        _wrapped.add((cls, name))
        setattr(cls, name, wrap(original))
