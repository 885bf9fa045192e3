"""The client's metrics: what the configuration's ``metrics`` section turns on.

The Java client measures its emits with Micrometer, and its ``metrics`` section picks a registry
(``simple``, ``statsd``, ``composite``). This module is the Python equivalent, with the same
section and the Java client's meter names:

========================== ======= ===============================================================
``openlineage.emit.start``   counter events the client started to send
``openlineage.emit.complete``counter events the transport took (for a network transport: queued)
``openlineage.emit.failed``  counter events whose sending raised (this SDK's own)
``openlineage.emit.filtered``counter run events a configured filter dropped (this SDK's own)
``openlineage.emit.time``    timer   time in the transport's ``emit`` (total and count)
========================== ======= ===============================================================

Each meter is tagged ``openlineage.transport`` with the transport's class, as the Java client
tags it. Registries:

- ``simple``: kept in this process; read with ``client.metrics.snapshot()`` (and the PySpark
  adapter's ``debug`` facet lists them);
- ``statsd``: each emit's meters sent as one UDP datagram to ``host``:``port`` (``localhost``,
  ``8125``), in the line format of ``flavor`` (``datadog``, the default as Micrometer's;
  ``etsy``, ``telegraf``); also kept as ``simple`` keeps them;
- ``composite``: every registry of ``registries``.

Without the section there is no registry, and an emit does one ``None`` check more.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

__all__ = ["Meter", "Metrics", "MetricsConfigError", "metrics_from_config"]

_FLAVORS = ("datadog", "etsy", "telegraf")


class MetricsConfigError(ValueError):
    """The ``metrics`` section cannot be used; the message names the field and the rule."""


class Meter(NamedTuple):
    """One meter's value now.

    Attributes:
        name: The meter's name (``openlineage.emit.start``).
        kind: ``counter`` or ``timer``.
        value: A counter's count; a timer's total time in microseconds (as the agent's debug
            facet reports a timer).
        updates: How many times it was incremented or recorded.
        tags: Its tags, ``(key, value)``.
    """

    name: str
    kind: str
    value: float
    updates: int
    tags: tuple[tuple[str, str], ...]

    def to_dict(self) -> dict[str, Any]:
        """The meter as the JVM agent's ``MetricsNode``: ``name``, ``value``, ``tags``."""
        return {
            "name": self.name,
            "value": self.value,
            "tags": [{"key": k, "value": v} for k, v in self.tags],
        }


class Metrics:
    """A registry of counters and timers, kept in this process (the ``simple`` type).

    Thread-safe; one lock taken per update.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # (name, tags) -> [kind, value, count]
        self._meters: dict[tuple[str, tuple[tuple[str, str], ...]], list[Any]] = {}

    def _update(self, lines: Sequence[tuple[str, str, float, tuple[tuple[str, str], ...]]]) -> None:
        with self._lock:
            for name, kind, value, tags in lines:
                meter = self._meters.get((name, tags))
                if meter is None:
                    meter = self._meters[(name, tags)] = [kind, 0.0, 0]
                meter[1] += value
                meter[2] += 1

    def record(self, lines: Sequence[tuple[str, str, float, tuple[tuple[str, str], ...]]]) -> None:
        """Add one batch of updates: ``(name, kind, value, tags)``, a counter's increment or a
        timer's duration in seconds."""
        self._update([(n, k, v * 1e6 if k == "timer" else v, t) for n, k, v, t in lines])

    def snapshot(self) -> list[Meter]:
        """Every meter's value now, sorted by name.

        Returns:
            The meters; a timer's value is its total time in microseconds.
        """
        with self._lock:
            items = [(key, list(meter)) for key, meter in self._meters.items()]
        meters = [
            Meter(name, kind, float(value), int(count), tags)
            for (name, tags), (kind, value, count) in items
        ]
        return sorted(meters, key=lambda m: (m.name, m.tags))

    def close(self) -> None:
        """Release what the registry holds (a socket)."""


class _Statsd(Metrics):
    """Sends each batch of updates as one StatsD datagram, and keeps them as ``simple`` does."""

    def __init__(self, host: str, port: int, flavor: str) -> None:
        super().__init__()
        self.flavor = flavor
        try:
            address = socket.getaddrinfo(host, port, type=socket.SOCK_DGRAM)[0]
        except OSError as error:
            raise MetricsConfigError(
                f"metrics.host: {host!r} cannot be resolved ({error})"
            ) from None
        self._socket = socket.socket(address[0], socket.SOCK_DGRAM)
        self._socket.setblocking(False)
        self._address = address[4]

    def _line(self, name: str, kind: str, value: float, tags: tuple[tuple[str, str], ...]) -> str:
        if kind == "timer":
            amount, unit = f"{value * 1000:g}", "ms"
        else:
            amount, unit = f"{value:g}", "c"
        if self.flavor == "datadog":
            suffix = "|#" + ",".join(f"{k}:{v}" for k, v in tags) if tags else ""
            return f"{name}:{amount}|{unit}{suffix}"
        if self.flavor == "telegraf":
            tagged = name + "".join(f",{k}={v}" for k, v in tags)
            return f"{tagged}:{amount}|{unit}"
        hierarchical = name + "".join(f".{k}.{v}" for k, v in tags)  # etsy: tags in the name
        return f"{hierarchical}:{amount}|{unit}"

    def record(self, lines: Sequence[tuple[str, str, float, tuple[tuple[str, str], ...]]]) -> None:
        super().record(lines)
        payload = "\n".join(self._line(*line) for line in lines).encode()
        with contextlib.suppress(OSError):  # metrics never break an emit (full buffer, no route)
            self._socket.sendto(payload, self._address)

    def close(self) -> None:
        self._socket.close()


class _Composite(Metrics):
    """Every registry of a ``composite`` section; its snapshot is the first one's."""

    def __init__(self, registries: list[Metrics]) -> None:
        super().__init__()
        self.registries = registries

    def record(self, lines: Sequence[tuple[str, str, float, tuple[tuple[str, str], ...]]]) -> None:
        super().record(lines)
        for registry in self.registries:
            registry.record(lines)

    def close(self) -> None:
        for registry in self.registries:
            registry.close()


def metrics_from_config(section: Mapping[str, Any], *, where: str = "metrics") -> Metrics | None:
    """The registry a ``metrics`` section asks for.

    Args:
        section: The section, keyed as the Java client's (``type``, and for ``statsd``
            ``host``, ``port``, ``flavor``; for ``composite`` ``registries``).
        where: The section's path, for messages.

    Returns:
        The registry; ``None`` for an empty section.

    Raises:
        MetricsConfigError: A field breaks its rule; the message names it.
    """
    if not section:
        return None
    kind = str(section.get("type") or "").strip().lower()
    if kind == "simple":
        return Metrics()
    if kind == "statsd":
        host = str(section.get("host") or "localhost")
        raw_port = section.get("port", 8125)
        try:
            port = int(raw_port)
        except (TypeError, ValueError):
            raise MetricsConfigError(f"{where}.port must be a port number") from None
        if not 0 < port < 65536:
            raise MetricsConfigError(f"{where}.port must be a port number (1 to 65535)")
        flavor = str(section.get("flavor") or "datadog").strip().lower()
        if flavor not in _FLAVORS:
            raise MetricsConfigError(f"{where}.flavor must be one of {', '.join(_FLAVORS)}")
        return _Statsd(host, port, flavor)
    if kind == "composite":
        registries = section.get("registries") or []
        if not isinstance(registries, list):
            raise MetricsConfigError(f"{where}.registries must be a list of metrics sections")
        built: list[Metrics] = []
        for number, registry in enumerate(registries):
            if not isinstance(registry, Mapping):
                raise MetricsConfigError(f"{where}.registries[{number}] must be a mapping")
            one = metrics_from_config(registry, where=f"{where}.registries[{number}]")
            if one is not None:
                built.append(one)
        return _Composite(built)
    raise MetricsConfigError(f"{where}.type must be simple, statsd or composite")
