"""The event recorder: every event each Spark test emitted, normalized, one file per test.

Set ``OPENLINEAGE_SDK_RECORD_EVENTS`` to a folder and run the tests: every event a test's
client emits (in this process, through :class:`openlineage_sdk.client.OpenLineage`), and every
event a scenario run in a subprocess wrote to the file the test reads, is written to
``FOLDER/<test id>.json``, in the order it was emitted, with what differs from one run to the
next taken out:

- run ids and other UUIDs become ``<uuid:N>``, numbered in order of first appearance in the
  test (a parent's id stays its child's parent's id);
- times (ISO 8601 strings) become ``<time>``;
- the test's temporary folders (pytest's base temporary folder, ``tempfile``'s) become ``<tmp>``;
- long digit runs (clocks in folder names, Spark's application ids) become ``<n>``;
- loopback ports (the Connect server's, PostgreSQL's, Kafka's mock cluster's) become ``<port>``;
- the repository's folder becomes ``<repo>``; the example plugin's facets (its own clock's
  values) become one placeholder;
- the tables a test named with a counter (``made``) become ``<table:N>``, in the order made.

Two recordings (the same suite on two commits, or on two Spark versions) are compared by::

    python -m tests.spark._recorder compare BEFORE AFTER

which prints, per test, whether its events are the same, and where they differ.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ENV = "OPENLINEAGE_SDK_RECORD_EVENTS"

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"(?<![0-9a-fA-F])[0-9a-f]{32}(?![0-9a-fA-F])")
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
_TMP = re.compile(r"/tmp/(?:pytest-of-[^/]+/pytest-\d+|tmp[\w]{6,})")
_DIGITS = re.compile(r"\d{10,}")
_PORT = re.compile(r"(localhost|127\.0\.0\.1|\[::1\]|0\.0\.0\.0):\d{2,5}")

_REPO = str(Path(__file__).resolve().parent.parent.parent)
# The example plugin's facets (installed with the tests) carry values of its own clock.
_PLUGIN = "<the example plugin's facet>"

_lock = threading.Lock()
_current: _Test | None = None


def folder() -> Path | None:
    """Where recordings go, or ``None`` when the tests are not recording."""
    value = os.environ.get(ENV)
    return Path(value) if value else None


class _Test:
    """What one test emitted so far, and the names it made."""

    def __init__(self, test_id: str) -> None:
        self.test_id = test_id
        self.events: list[Any] = []
        self.names: list[str] = []


def begin(test_id: str) -> None:
    """Start recording the events of ``test_id`` (the previous test's are written first)."""
    global _current
    end()
    with _lock:
        _current = _Test(test_id)


def made(*names: str) -> None:
    """Tell the recorder the table names the current test generated (with a counter)."""
    with _lock:
        if _current is not None:
            _current.names.extend(n for n in names if n not in _current.names)


def record(event: Any) -> None:
    """Record one event (a model or its JSON) of the current test."""
    with _lock:
        if _current is None:
            return
        _current.events.append(_as_json(event))


def record_all(events: Iterable[Any], label: str = "", test_id: str | None = None) -> None:
    """Record ``events`` (read back from a file a subprocess wrote) at once.

    Args:
        events: the events, as JSON objects or lines.
        label: what sets these events apart from others the same test records (a scenario).
        test_id: the test they belong to; by default the test running now.
    """
    where = folder()
    if where is None:
        return
    if test_id is None:
        test_id = os.environ.get("PYTEST_CURRENT_TEST", "unknown").rsplit(" (", 1)[0]
    test = _Test(f"{test_id}::{label}" if label else test_id)
    test.events = [_as_json(e) for e in events]
    _write(where, test)


def end() -> None:
    """Write the current test's recording (if any) and stop recording."""
    global _current
    with _lock:
        test, _current = _current, None
    where = folder()
    if test is not None and where is not None and test.events:
        _write(where, test)


def _as_json(event: Any) -> Any:
    if isinstance(event, (dict, list)):
        return json.loads(json.dumps(event))
    if isinstance(event, (str, bytes)):
        return json.loads(event)
    return json.loads(event.to_json())


def _write(where: Path, test: _Test) -> None:
    where.mkdir(parents=True, exist_ok=True)
    events = normalize(test.events, test.names)
    name = re.sub(r"[^\w.\-\[\]]+", "_", test.test_id)[:200]
    (where / f"{name}.json").write_text(
        json.dumps({"test": test.test_id, "events": events}, indent=1, sort_keys=True) + "\n"
    )


def normalize(events: list[Any], names: Iterable[str] = ()) -> list[Any]:
    """``events`` with what differs from run to run replaced by placeholders (see the module)."""
    ids: dict[str, str] = {}
    tables = sorted(
        ((name, f"<table:{n}>") for n, name in enumerate(names)),
        key=lambda pair: -len(pair[0]),
    )

    def text(value: str) -> str:
        value = _UUID.sub(lambda m: ids.setdefault(m[0].lower(), f"<uuid:{len(ids)}>"), value)
        value = _HEX.sub(lambda m: ids.setdefault(m[0], f"<uuid:{len(ids)}>"), value)
        value = _TIME.sub("<time>", value).replace(_REPO, "<repo>")
        value = _TMP.sub("<tmp>", value)
        value = _PORT.sub(r"\1:<port>", value)
        for name, placeholder in tables:
            value = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", placeholder, value)
        return _DIGITS.sub("<n>", value)

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                text(k): _PLUGIN if k.startswith("myCo_") else walk(v) for k, v in value.items()
            }
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, str):
            return text(value)
        return value

    return [walk(e) for e in events]


# ------------------------------------------------------------------------------ in this process


def install_on_client() -> None:
    """Record every event any :class:`OpenLineage` client of this process emits (idempotent).

    The event recorded is the one the transport gets: the client's event configuration applied.
    """
    from openlineage_sdk.client import OpenLineage

    if getattr(OpenLineage.emit, "_recorded", False):
        return
    original = OpenLineage.emit

    def emit(self: Any, event: Any) -> None:
        if not self.disabled:
            try:
                edited = event
                if self._events is not None:
                    edited = self._events.apply(event, producer=self.producer, env=self._env)
                if edited is not None:
                    record(edited)
            except Exception:
                pass
        original(self, event)

    emit._recorded = True  # type: ignore[attr-defined]
    OpenLineage.emit = emit  # type: ignore[method-assign]


# ------------------------------------------------------------------------------ comparing


def _load(where: Path) -> dict[str, list[Any]]:
    loaded = {}
    for path in sorted(where.glob("*.json")):
        data = json.loads(path.read_text())
        loaded[data["test"]] = data["events"]
    return loaded


def _key(event: Any) -> str:
    return json.dumps(event, sort_keys=True)


def compare(before: Path, after: Path, *, show: int = 3) -> int:
    """Print how two recordings differ; returns the number of tests whose events differ."""
    old, new = _load(before), _load(after)
    same = reordered = 0
    differing: list[str] = []
    for test in sorted(set(old) | set(new)):
        if test not in new or test not in old:
            print(f"ONLY {'BEFORE' if test in old else 'AFTER'}: {test}")
            differing.append(test)
            continue
        a, b = old[test], new[test]
        if a == b:
            same += 1
        elif sorted(map(_key, a)) == sorted(map(_key, b)):
            reordered += 1
            print(f"REORDERED: {test} ({len(a)} events, the same set)")
        else:
            differing.append(test)
            print(f"DIFFERENT: {test} ({len(a)} events before, {len(b)} after)")
            lines = list(
                difflib.unified_diff(
                    json.dumps(a, indent=1, sort_keys=True).splitlines(),
                    json.dumps(b, indent=1, sort_keys=True).splitlines(),
                    "before",
                    "after",
                    n=2,
                    lineterm="",
                )
            )
            print("\n".join(lines[: 40 * show]))
    events = sum(len(v) for k, v in old.items() if k in new)
    print(
        f"\n{len(set(old) & set(new))} tests in both ({events} events before); {same} the same, "
        f"{reordered} the same events in another order, {len(differing)} different or in one only"
    )
    return len(differing)


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[0] != "compare":
        print(__doc__)
        return 2
    return 1 if compare(Path(argv[1]), Path(argv[2])) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
