"""Fan events out to several transports at once."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field, model_validator
from typing_extensions import Self

from openlineage_sdk.transports._registry import create_transport, parse_transport_config
from openlineage_sdk.transports.base import (
    Emittable,
    FlushResult,
    Transport,
    TransportConfig,
    TransportError,
)

__all__ = ["CompositeConfig", "CompositeTransport"]

log = logging.getLogger(__name__)


class CompositeConfig(TransportConfig):
    """Configuration of :class:`CompositeTransport` (``type: composite``), as in the official client.

    Attributes:
        transports: the members, a list of transport sections or a mapping of
            name to section; a member may carry ``name`` and ``priority`` (higher first when
            ``sort_transports`` is on).
        names: the members' names, in the order of ``transports``: filled in from the
            mapping's keys or each member's ``name`` (``type#position`` without one).
        continue_on_failure: when a member fails, log it and go on with the
            others (default); otherwise stop and report the failure.
        continue_on_success: send to every member (default); otherwise stop at
            the first member that takes the event (a failover chain).
        sort_transports: order members by ``priority``, highest first.
        raise_on_error: raise when no member took an event.
    """

    type: Literal["composite"] = "composite"
    transports: list[TransportConfig]
    names: list[str] = Field(default_factory=list)
    continue_on_failure: bool = True
    continue_on_success: bool = True
    sort_transports: bool = False
    raise_on_error: bool = False

    @model_validator(mode="before")
    @classmethod
    def _members(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        data = dict(data)
        value = data.get("transports")
        if isinstance(value, Mapping):
            # The mapping form names members by their keys.
            value = [{**section, "name": name} for name, section in value.items() if section]
        if not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
            raise ValueError(
                "'transports' must be a list of transports or a mapping of name to transport"
            )
        entries: list[tuple[int, int, str, TransportConfig]] = []
        for position, section in enumerate(value):
            if isinstance(section, TransportConfig):
                entries.append((0, position, section.type, section))
                continue
            if not isinstance(section, Mapping):
                raise ValueError("each member of 'transports' must be a mapping with a 'type'")
            section = dict(section)
            name = str(section.pop("name", "") or f"{section.get('type')}#{position}")
            try:
                priority = int(section.pop("priority", 0) or 0)
            except (TypeError, ValueError):
                raise ValueError(f"the priority of transport {name!r} must be an integer") from None
            entries.append((priority, position, name, parse_transport_config(section)))
        if data.get("sort_transports"):
            entries.sort(key=lambda e: (-e[0], e[1]))
        data["transports"] = [e[3] for e in entries]
        data["names"] = [e[2] for e in entries]
        return data


class _Serialized:
    """An event whose JSON is computed once for all members; other attributes pass through."""

    __slots__ = ("__wrapped__", "_json")

    def __init__(self, event: Emittable) -> None:
        self.__wrapped__ = event  # the user's own event, for members that keep it
        self._json = event.to_json()

    def to_json(self) -> str:
        return self._json

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__wrapped__, name)


class CompositeTransport(Transport):
    """Sends every event to each member transport, with a policy for a member that fails."""

    kind = "composite"
    config_class = CompositeConfig

    def __init__(
        self,
        transports: Sequence[Transport],
        *,
        names: Sequence[str] | None = None,
        continue_on_failure: bool = True,
        continue_on_success: bool = True,
        raise_on_error: bool = False,
    ) -> None:
        """Make the composite.

        Args:
            transports: the members, in the order they receive events.
            names: names for log lines, one per member.
            continue_on_failure: log a failing member and go on (default).
            continue_on_success: send to all members (default), or stop at the
                first one that takes the event.
            raise_on_error: raise :class:`TransportError` when a member fails and
                ``continue_on_failure`` is off, or when no member took the event.
        """
        if not transports:
            raise ValueError("a composite transport needs at least one member")
        self.transports = list(transports)
        self.names = list(names) if names else [t.kind or type(t).__name__ for t in transports]
        if len(self.names) != len(self.transports):
            raise ValueError("give one name per member transport")
        self._continue_on_failure = continue_on_failure
        self._continue_on_success = continue_on_success
        self._raise = raise_on_error

    @classmethod
    def from_config(cls, config: TransportConfig) -> Self:
        """Build the members and the composite from a :class:`CompositeConfig`."""
        assert isinstance(config, CompositeConfig)
        members = [create_transport(member) for member in config.transports]
        return cls(
            members,
            names=config.names or None,
            continue_on_failure=config.continue_on_failure,
            continue_on_success=config.continue_on_success,
            raise_on_error=config.raise_on_error,
        )

    def emit(self, event: Emittable) -> None:
        """Hand the event to the members according to the policy."""
        try:
            shared = _Serialized(event)
        except Exception as exc:
            message = f"could not write the event as JSON: {exc}"
            if self._raise:
                raise TransportError(message) from exc
            log.error("OpenLineage: %s", message)
            return
        successes = 0
        failures: list[str] = []
        for name, member in zip(self.names, self.transports, strict=True):
            try:
                member.emit(shared)
            except Exception as exc:
                failures.append(f"{name}: {exc}")
                if not self._continue_on_failure:
                    message = f"transport {name} failed to take the event: {exc}"
                    if self._raise:
                        raise TransportError(message) from exc
                    log.error("OpenLineage: %s; the remaining transports were skipped", message)
                    return
                log.warning("OpenLineage: transport %s failed to take the event: %s", name, exc)
            else:
                successes += 1
                if not self._continue_on_success:
                    return
        if successes == 0:
            message = "no transport took the event: " + "; ".join(failures)
            if self._raise:
                raise TransportError(message)
            log.error("OpenLineage: %s", message)

    def _each(self, method: str, timeout: float | None) -> FlushResult:
        deadline = None if timeout is None else time.monotonic() + timeout
        total = FlushResult()
        error: TransportError | None = None
        for name, member in zip(self.names, self.transports, strict=True):
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                total = total + getattr(member, method)(left)
            except TransportError as exc:
                # Raised once every member had its turn: one failing member must
                # not leave the others unflushed or open.
                error = error or exc
            except Exception as exc:
                log.error("OpenLineage: %s of transport %s failed: %s", method, name, exc)
        if error is not None:
            raise error
        return total

    def flush(self, timeout: float | None = None) -> FlushResult:
        """Flush every member within one shared ``timeout``; the results are added up."""
        return self._each("flush", timeout)

    def close(self, timeout: float | None = None) -> FlushResult:
        """Close every member within one shared ``timeout``; the results are added up."""
        return self._each("close", timeout)
