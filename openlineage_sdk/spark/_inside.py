"""What runs inside the adapter: the mark that keeps the adapter's own work out of its reports.

Everything the adapter does inside a user's observed call (its own look-ups, the writer's inner
calls, the wrapped ``foreachBatch`` it hands Spark) runs under :func:`adapter_work`; the
observers check :func:`inside_adapter` so that it is never reported as an execution of its own.
It is the lowest layer of the adapter: sessions use it without knowing the template above them.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

__all__ = ["adapter_work", "inside_adapter"]

# True inside an observed call and inside the adapter's own work: nothing there is reported.
_inside: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "openlineage_inside_adapter", default=False
)


def inside_adapter() -> bool:
    """Whether this thread is inside an observed call or the adapter's own work."""
    return _inside.get()


@contextlib.contextmanager
def adapter_work() -> Iterator[None]:
    """Mark what runs inside as the adapter's own (or as inside an observed call)."""
    token = _inside.set(True)
    try:
        yield
    finally:
        _inside.reset(token)
