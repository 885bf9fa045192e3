"""What the configuration's event sections cost on ``emit()``, side by side with the official client.

Every contender emits the typical Spark COMPLETE event to a transport that serializes it and
throws the JSON away, so the figures are the client's own work plus serialization:

1. ``transport.emit(event)`` called directly: the floor.
2. ``OpenLineage.emit(event)`` with no ``filters``, ``tags``, ``facets`` or ``dataset``
   section: it must cost nothing over the floor.
3. ``OpenLineage.emit(event)`` with tags, an environment-variables facet, a filter that does
   not match and dataset reducing on.
4. The official client's ``emit`` with the same sections (its own event object).

Rounds alternate between the contenders; the best round of each is kept.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Callable
from typing import Any

from benchmarks._event import ours_builder

SECTIONS: dict[str, Any] = {
    "tags": {"job": {"team": "data"}, "run": {"env": "prod"}},
    "facets": {"environment_variables": ["HOME", "PATH"]},
    "filters": [{"type": "regex", "regex": "never_.*"}],
    "dataset": {"reducing_enabled": True},
}
ROUNDS = 5
PER_ROUND = 2_000


def _contenders() -> dict[str, Callable[[], None]]:
    from openlineage_sdk import OpenLineage, read_event
    from openlineage_sdk.config import OpenLineageConfig
    from openlineage_sdk.transports.base import Emittable, Transport

    class Discard(Transport):
        def emit(self, event: Emittable) -> None:
            event.to_json()

    text = ours_builder()()
    event = read_event(text)
    transport = Discard()
    plain = OpenLineage(transport=transport, config=OpenLineageConfig())
    configured = OpenLineage(transport=Discard(), config=OpenLineageConfig(**SECTIONS))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import os

        from openlineage.client import OpenLineageClient
        from openlineage.client.serde import Serde
        from openlineage.client.transport import Transport as OfficialTransport

        class OfficialDiscard(OfficialTransport):
            kind = "discard"

            def emit(self, event: Any) -> None:
                Serde.to_json(event)

        saved = os.environ.pop("OPENLINEAGE_CONFIG", None)
        official = OpenLineageClient(transport=OfficialDiscard(), config=dict(SECTIONS))
        if saved is not None:
            os.environ["OPENLINEAGE_CONFIG"] = saved
        official_event = _official_event(text)

    return {
        "transport.emit (floor)": lambda: transport.emit(event),
        "OpenLineage.emit, no sections": lambda: plain.emit(event),
        "OpenLineage.emit, sections": lambda: configured.emit(event),
        "official emit, sections": lambda: official.emit(official_event),
    }


def _official_event(text: str) -> Any:
    """The same event as the official client's own objects (built once, outside the timing)."""
    from openlineage.client import event_v2 as ev

    data = json.loads(text)
    return ev.RunEvent(
        eventType=ev.RunState(data["eventType"]),
        eventTime=data["eventTime"],
        run=ev.Run(runId=data["run"]["runId"]),
        job=ev.Job(namespace=data["job"]["namespace"], name=data["job"]["name"]),
        inputs=[ev.InputDataset(d["namespace"], d["name"]) for d in data.get("inputs", [])],
        outputs=[ev.OutputDataset(d["namespace"], d["name"]) for d in data.get("outputs", [])],
        producer=data["producer"],
    )


def main(argv: list[str] | None = None) -> int:
    contenders = _contenders()
    best = {name: float("inf") for name in contenders}
    for _ in range(ROUNDS):
        for name, call in contenders.items():
            start = time.perf_counter()
            for _ in range(PER_ROUND):
                call()
            best[name] = min(best[name], (time.perf_counter() - start) / PER_ROUND)
    floor = best["transport.emit (floor)"]
    print("emit() cost of the configuration sections (µs per event, best of 5 rounds)")
    for name, seconds in best.items():
        print(f"  {name:34s} {seconds * 1e6:8.1f} µs   {seconds / floor:5.2f}x the floor")
    print(
        "  (the official client is given only the event's datasets, without their facets: "
        "its figure is a lower bound)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
