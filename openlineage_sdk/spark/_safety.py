"""The agent's safety limits: circuit breakers, time budgets and the schema size limit.

The JVM agent (``openlineage-spark``) protects the driver with three confs, honoured here with
the same names and defaults:

- ``spark.openlineage.circuitBreaker.*``: a breaker (the Java client's types: ``simpleMemory``,
  ``javaRuntime``, ``static``, ``timeout``, ``asyncTaskQueue``, ``noop``) whose state is read
  before an execution is described and again while it is; a tripped breaker stops the
  description. The agent then sends nothing; the adapter still sends the execution's events,
  lighter (no datasets), with an ``extractionError`` that says why.
- ``spark.openlineage.timeout.buildDatasetsTimePercentage`` and
  ``facetsBuildingTimePercentage``: shares of the breaker's ``timeoutInSeconds`` given to
  describing datasets and to building facets (here: column lineage, the facet that costs).
  Python cannot interrupt a thread, so the budget is checked at the description's checkpoints
  (each plan node read, each field of column lineage); past the budget the rest is left out.
- ``spark.openlineage.columnLineage.schemaSizeLimit`` (1,000): an output with more fields gets
  no column lineage.

A breaker's state is read at most once per ``circuitCheckIntervalInMillis`` (1,000 ms, as the
agent's): between two readings a check is one clock read and a comparison. Nothing here is
read when no breaker and no budget are configured (:attr:`Safety.guarded` is ``False``).
"""

from __future__ import annotations

import contextlib
import contextvars
import gc
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "BREAKER_TYPES",
    "SCHEMA_SIZE_LIMIT",
    "Breaker",
    "BudgetExceededError",
    "Deadline",
    "Runtime",
    "Safety",
    "SafetyError",
    "SchemaSizeExceededError",
    "checkpoint",
    "current",
    "guarding",
    "parse_breaker",
    "schema_size_check",
]

#: The agent's default ``columnLineage.schemaSizeLimit``.
SCHEMA_SIZE_LIMIT = 1_000
_CHECK_INTERVAL_MS = 1_000  # the Java client's CIRCUIT_CHECK_INTERVAL_IN_MILLIS
_MEMORY_THRESHOLD = 20
_GC_CPU_THRESHOLD = 10
_QUEUE_SIZE = 10

#: The breaker types of the Java client (``CircuitBreakerBuilder.getType``), case-insensitive.
BREAKER_TYPES = ("simpleMemory", "javaRuntime", "static", "timeout", "asyncTaskQueue", "noop")


class SafetyError(ValueError):
    """A breaker's settings that cannot be used; the message names the key and the rule."""


class BudgetExceededError(Exception):
    """The description's time budget was spent, or its breaker tripped, at a checkpoint."""


class SchemaSizeExceededError(Exception):
    """An output too wide for column lineage (``columnLineage.schemaSizeLimit``)."""


# ------------------------------------------------------------------------------- readings


def _meminfo() -> tuple[int, int] | None:
    """(available, total) bytes of the memory this process may use (cgroup v2, else the host)."""
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit != "max":
            used = int(Path("/sys/fs/cgroup/memory.current").read_text())
            return max(int(limit) - used, 0), int(limit)
    except (OSError, ValueError):
        pass
    try:
        fields: dict[str, int] = {}
        with open("/proc/meminfo") as lines:
            for line in lines:
                name, _, rest = line.partition(":")
                fields[name] = int(rest.split()[0]) * 1024
        return fields["MemAvailable"], fields["MemTotal"]
    except (OSError, KeyError, ValueError, IndexError):
        return None


class _PythonGcTime:
    """Seconds Python's collector has run in this process (from ``gc.callbacks``).

    One for the process (:func:`_python_gc_time`): a callback per breaker would stay in
    ``gc.callbacks`` for good and slow every collection a little more.
    """

    def __init__(self) -> None:
        self.total = 0.0
        self._began = 0.0
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, _info: Mapping[str, Any]) -> None:
        if phase == "start":
            self._began = _perf_counter()
        elif self._began:
            self.total += _perf_counter() - self._began


_perf_counter = time.perf_counter  # bound once: the collector's callback runs anywhere
_gc_time: list[_PythonGcTime] = []
_gc_time_lock = threading.Lock()


def _python_gc_time() -> _PythonGcTime:
    """The process's one :class:`_PythonGcTime`, made at its first use."""
    if not _gc_time:
        with _gc_time_lock:
            if not _gc_time:
                _gc_time.append(_PythonGcTime())
    return _gc_time[0]


class Runtime:
    """What a breaker reads: the driver's JVM (classic, by py4j) or this Python process."""

    def __init__(self, jvm: Any = None) -> None:
        self.jvm = jvm
        self._gc_bean: Any = None

    def free_memory_percent(self) -> float | None:
        """As the agent: 100 * (free + (max - total)) / max of the heap; else this host's."""
        if self.jvm is not None:
            runtime = self.jvm.java.lang.Runtime.getRuntime()
            free, total, most = runtime.freeMemory(), runtime.totalMemory(), runtime.maxMemory()
            return float(100.0 * (free + (most - total)) / most)
        info = _meminfo()
        return None if info is None or not info[1] else 100.0 * info[0] / info[1]

    def gc_seconds(self) -> float:
        """Time spent in the old generation's collector (JVM), or Python's collector."""
        if self.jvm is not None:
            if self._gc_bean is None:
                beans = list(self.jvm.java.lang.management.ManagementFactory
                             .getGarbageCollectorMXBeans())  # fmt: skip
                # The agent's rule: the collector that ran least is the old generation's.
                self._gc_bean = min(beans, key=lambda b: b.getCollectionCount())
            return float(self._gc_bean.getCollectionTime()) / 1000.0
        return _python_gc_time().total


# ------------------------------------------------------------------------------- breakers


@dataclass
class Breaker:
    """One circuit breaker, as the Java client's ``CircuitBreakerConfig`` describes it.

    Attributes:
        type: One of :data:`BREAKER_TYPES`.
        memory_threshold: ``memoryThreshold``: trips at or below this free memory (%).
        gc_cpu_threshold: ``gcCpuThreshold`` (``javaRuntime``): and at or above this share of
            time in garbage collection since the last reading (%).
        check_interval_ms: ``circuitCheckIntervalInMillis``: the state is read at most this
            often.
        timeout_s: ``timeoutInSeconds``: the time budget of one execution's description.
        values: ``valuesReturned`` (``static``): the states returned in turn, then tripped.
        queue_size: ``queueSize`` (``asyncTaskQueue``): trips while more executions than this
            wait on the adapter's finishing thread.
    """

    type: str = "noop"
    memory_threshold: int = _MEMORY_THRESHOLD
    gc_cpu_threshold: int = _GC_CPU_THRESHOLD
    check_interval_ms: int = _CHECK_INTERVAL_MS
    timeout_s: float | None = None
    values: tuple[bool, ...] = ()
    queue_size: int = _QUEUE_SIZE
    runtime: Runtime = field(default_factory=Runtime, compare=False, repr=False)
    pending: Callable[[], int] = field(default=lambda: 0, compare=False, repr=False)
    _next: float = field(default=0.0, compare=False, repr=False)
    _reason: str | None = field(default=None, compare=False, repr=False)
    _index: int = field(default=0, compare=False, repr=False)
    reading_error: str | None = field(default=None, compare=False, repr=False)
    _gc_mark: tuple[float, float] | None = field(default=None, compare=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    def start(self) -> None:
        """Take the first GC reading now (``javaRuntime``), as the agent does when it is built."""
        if self.type == "javaRuntime":
            try:
                self._gc_mark = (time.monotonic(), self.runtime.gc_seconds())
            except Exception as error:  # a reading that fails never stops lineage
                self.reading_error = f"{type(error).__name__}: {error}"

    @property
    def trips(self) -> bool:
        """Whether this type can trip at all (``timeout`` and ``noop`` never do)."""
        return self.type in ("simpleMemory", "javaRuntime", "static", "asyncTaskQueue")

    def tripped(self) -> str | None:
        """Why the breaker is tripped now, ``None`` when it is not (read once per interval)."""
        now = time.monotonic()
        if now < self._next:
            return self._reason
        with self._lock:
            if now >= self._next:
                try:
                    self._reason = self._read()
                except Exception as error:  # a reading that fails never stops lineage
                    self._reason = None
                    self.reading_error = f"{type(error).__name__}: {error}"
                self._next = now + self.check_interval_ms / 1000.0
        return self._reason

    def _read(self) -> str | None:
        if self.type == "static":
            if self._index >= len(self.values):
                return "circuit breaker tripped (static: no more values)"
            self._index += 1
            return "circuit breaker tripped (static)" if self.values[self._index - 1] else None
        if self.type == "asyncTaskQueue":
            waiting = self.pending()
            if waiting > self.queue_size:
                return (
                    f"circuit breaker tripped: {waiting} executions wait to be reported "
                    f"(queueSize {self.queue_size})"
                )
            return None
        if self.type == "simpleMemory":
            free = self.runtime.free_memory_percent()
            if free is not None and free <= self.memory_threshold:
                return (
                    f"circuit breaker tripped at memory {free:.2f}% "
                    f"(freeMemoryThreshold {self.memory_threshold}%)"
                )
            return None
        if self.type == "javaRuntime":
            now, spent = time.monotonic(), self.runtime.gc_seconds()
            last, self._gc_mark = self._gc_mark, (now, spent)
            free = self.runtime.free_memory_percent()
            if last is None or now <= last[0] or free is None:
                return None
            gc_share = 100.0 * (spent - last[1]) / (now - last[0])
            if gc_share >= self.gc_cpu_threshold and free <= self.memory_threshold:
                return (
                    f"circuit breaker tripped at memory {free:.2f}% GC CPU time {gc_share:.2f}% "
                    f"(freeMemoryThreshold {self.memory_threshold}%, "
                    f"gcCPUThreshold {self.gc_cpu_threshold}%)"
                )
        return None


def _int(key: str, value: str, *, percent: bool = False, low: int = 0) -> int:
    try:
        number = int(value.strip())
    except ValueError:
        raise SafetyError(f"{key}: {value!r} is not a whole number") from None
    if number < low or (percent and number > 100):
        rule = "a percentage (0 to 100)" if percent else f"at least {low}"
        raise SafetyError(f"{key}: must be {rule}, got {number}")
    return number


def parse_breaker(section: Mapping[str, Any], where: str) -> Breaker | None:
    """A breaker from its settings, keyed as the Java client's (``type``, ``memoryThreshold``...).

    Args:
        section: The ``circuitBreaker`` settings (values as text or numbers).
        where: The prefix of the keys in messages (the conf prefix ``circuitBreaker.`` with ``spark.openlineage.`` before it).

    Returns:
        The breaker, or ``None`` when no ``type`` is set.

    Raises:
        SafetyError: An unknown type, or a value out of its range; the message names the key.
    """
    given = {str(k): str(v) for k, v in section.items() if v is not None}
    kind = given.pop("type", "").strip()
    if not kind:
        return None
    types = {t.lower(): t for t in BREAKER_TYPES}
    if kind.lower() not in types:
        raise SafetyError(
            f"{where}type: unknown circuit breaker {kind!r}; known: {', '.join(BREAKER_TYPES)}"
        )
    breaker = Breaker(types[kind.lower()])
    keys = {
        "memoryThreshold": lambda v: setattr(
            breaker, "memory_threshold", _int(f"{where}memoryThreshold", v, percent=True)
        ),
        "gcCpuThreshold": lambda v: setattr(
            breaker, "gc_cpu_threshold", _int(f"{where}gcCpuThreshold", v, percent=True)
        ),
        "circuitCheckIntervalInMillis": lambda v: setattr(
            breaker,
            "check_interval_ms",
            _int(f"{where}circuitCheckIntervalInMillis", v),
        ),
        "timeoutInSeconds": lambda v: setattr(
            breaker, "timeout_s", float(_int(f"{where}timeoutInSeconds", v, low=1))
        ),
        "valuesReturned": lambda v: setattr(
            breaker, "values", tuple(s.strip().lower() == "true" for s in v.split(","))
        ),
        "queueSize": lambda v: setattr(breaker, "queue_size", _int(f"{where}queueSize", v)),
    }
    for key, value in given.items():
        setter = keys.get(key)
        if setter is not None:  # the agent's other keys (threadCount...) have no use here
            setter(value)
    if breaker.type == "timeout" and breaker.timeout_s is None:
        raise SafetyError(f"{where}timeoutInSeconds: required by the timeout circuit breaker")
    return breaker


# ------------------------------------------------------------------------------- the limits


@dataclass
class Safety:
    """A session's safety limits (see the module's documentation).

    Attributes:
        breaker: The circuit breaker, ``None`` for none.
        datasets_percent: ``timeout.buildDatasetsTimePercentage``.
        facets_percent: ``timeout.facetsBuildingTimePercentage``.
        schema_size_limit: ``columnLineage.schemaSizeLimit``.
    """

    breaker: Breaker | None = None
    datasets_percent: int | None = None
    facets_percent: int | None = None
    schema_size_limit: int = SCHEMA_SIZE_LIMIT

    @property
    def guarded(self) -> bool:
        """Whether any breaker or budget is at work (else nothing is checked at all)."""
        return self.breaker is not None and (
            self.breaker.trips or self.breaker.timeout_s is not None
        )

    def budgets(self) -> tuple[float | None, float | None]:
        """Seconds for the description (datasets) and for column lineage (facets), as the agent.

        Without percentages the whole ``timeoutInSeconds`` is the description's (the agent
        then cancels the event's building as a whole); a share is taken only when it is
        between 1 and 100.
        """
        total = self.breaker.timeout_s if self.breaker is not None else None
        if total is None:
            return None, None

        def share(percent: int | None) -> float | None:
            return total * percent / 100.0 if percent and 0 < percent <= 100 else None

        datasets, facets = share(self.datasets_percent), share(self.facets_percent)
        if datasets is None and facets is None:
            return total, None
        if datasets is None:
            datasets = facets
        elif facets is not None:
            datasets = min(datasets, facets)
        return datasets, facets


class Deadline:
    """One execution's description under a :class:`Safety`: its budgets and its breaker.

    The budgets count the adapter's own time: the steps of the description, between
    :meth:`resume` and :meth:`pause` (steps that run at once on two threads count once), never
    the user's call between them. A new deadline counts from its creation unless ``running``
    is false.
    """

    def __init__(self, safety: Safety, *, running: bool = True) -> None:
        self.safety = safety
        self.datasets, self.facets = safety.budgets()
        self.stopped: str | None = None
        self._spent = 0.0
        self._active = 1 if running else 0
        self._since = time.monotonic() if running else 0.0
        self._lock = threading.Lock()

    def resume(self) -> None:
        """A step of the description begins: its time counts."""
        if self.datasets is None and self.facets is None:
            return
        with self._lock:
            if self._active == 0:
                self._since = time.monotonic()
            self._active += 1

    def pause(self) -> None:
        """A step of the description ends (the user's call does not count)."""
        if self.datasets is None and self.facets is None:
            return
        with self._lock:
            self._active -= 1
            if self._active == 0:
                self._spent += time.monotonic() - self._since

    def _elapsed(self) -> float:
        with self._lock:
            running = time.monotonic() - self._since if self._active else 0.0
            return self._spent + running

    def check(self, *, facets: bool = False) -> None:
        """Raise :class:`BudgetExceededError` when the budget is spent or the breaker tripped."""
        if self.stopped is not None:
            raise BudgetExceededError(self.stopped)
        limit = self.facets if facets and self.facets is not None else self.datasets
        if limit is not None and self._elapsed() > limit:
            timeout = self.safety.breaker.timeout_s if self.safety.breaker else None
            what = "column lineage" if facets and self.facets is not None else "the description"
            self.stopped = f"the time budget of {what} was spent (timeoutInSeconds {timeout:g})"
            raise BudgetExceededError(self.stopped)
        breaker = self.safety.breaker
        if breaker is not None and breaker.trips:
            reason = breaker.tripped()
            if reason is not None:
                self.stopped = reason
                raise BudgetExceededError(reason)


_current: contextvars.ContextVar[tuple[Safety, Deadline | None] | None] = contextvars.ContextVar(
    "openlineage_safety", default=None
)


def current() -> Safety | None:
    """The limits of the description running on this thread, ``None`` outside one."""
    now = _current.get()
    return None if now is None else now[0]


@contextlib.contextmanager
def guarding(safety: Safety, deadline: Deadline | None) -> Iterator[None]:
    """Run a description step under ``safety`` (its checkpoints see ``deadline``)."""
    token = _current.set((safety, deadline))
    try:
        yield
    finally:
        _current.reset(token)


def checkpoint(*, facets: bool = False) -> None:
    """A point where a description may stop: past its budget, or with its breaker tripped.

    Costs one context-variable read when no breaker or budget is configured.
    """
    now = _current.get()
    if now is not None and now[1] is not None:
        now[1].check(facets=facets)


def schema_size_check(fields: int) -> None:
    """Raise :class:`SchemaSizeExceededError` for an output wider than the schema size limit."""
    now = _current.get()
    limit = SCHEMA_SIZE_LIMIT if now is None else now[0].schema_size_limit
    if fields > limit:
        raise SchemaSizeExceededError(
            f"column lineage left out: {fields} fields exceed "
            f"spark.openlineage.columnLineage.schemaSizeLimit ({limit})"
        )
