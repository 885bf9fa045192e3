"""Where observers hook into PySpark, and how a hooked call finds the adapter of its session.

PySpark's classes are shared by every session of a process, so a method is wrapped once for the
process (:func:`wrap_once`) and each call looks up the adapter installed on its own session
(:func:`adapter_of`, ``executions._adapters``); calls of sessions without one pass straight
through.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from openlineage_sdk.spark.executions import Adapter, adapter_of, adapters, register, unregister

__all__ = ["Adapter", "adapter_of", "adapters", "register", "unregister", "wrap_once"]

_lock = threading.Lock()
_wrapped: set[tuple[type, str]] = set()


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
