"""Model benchmark: openlineage-sdk beside the official client and jsonschema, in one run.

Run with ``python -m benchmarks.models`` (``nox -s bench`` runs every benchmark). Measured on the
typical Spark write COMPLETE event of :mod:`benchmarks._event`:

1. build and serialize the event: openlineage-sdk vs ``openlineage-python`` 1.54.0.
   Target: at least 10x the official client's rate. Beside it, what pydantic-core alone needs
   (the finished event validated in one call and written, plus the user's own dicts and calls):
   building may take at most 1.3 times that floor.
2. read the JSON into a typed, validated event (``read_event``) vs validating the same JSON
   against the official schema with jsonschema (core schema, then each facet against the schema
   its ``_schemaURL`` names; validators built once). Target: at least 100x.
   The same event with its dataset facets lacking ``_producer`` (common in real events) beside
   the complete one: those facets are kept as generic facets in the same reading pass.
   Target: at most 1.5 times the complete event's reading time.
3. cold import in a fresh interpreter: ``import openlineage_sdk`` and, the realistic first step,
   ``from openlineage_sdk import RunEvent, read_event`` vs ``import openlineage.client``.
   Target: at most 0.3 times, in every round. The pydantic floor (pydantic and one model
   class) is printed beside it.

Rounds alternate between the contenders so that both see the same machine; each figure is the
best round. This is a benchmark, not a test: it prints figures and ratios and exits 0.

``--against REV`` also runs the measures of this SDK (building, reading text, reading a mapping
and writing it, validating, cold imports) on an earlier commit or release, in child processes
taking turns with this tree (see :mod:`benchmarks._against`), and prints the ratios: how a
change moved the figures, told apart from how fast the machine is this hour.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks._event import official_builder, ours_builder

#: ``python -m benchmarks --against REV`` passes the option on to this module.
AGAINST = True


def _rate(
    fn: Callable[[], object], seconds: float, clock: Callable[[], float] = time.perf_counter
) -> float:
    """Calls per second of ``fn`` over about ``seconds`` of ``clock``."""
    fn()
    calls = 0
    start = clock()
    deadline = start + seconds
    while True:
        fn()
        calls += 1
        now = clock()
        if now >= deadline:
            return calls / (now - start)


def _race(
    ours: Callable[[], object], theirs: Callable[[], object], rounds: int, seconds: float
) -> tuple[float, float]:
    best_ours = best_theirs = 0.0
    for _ in range(rounds):
        best_ours = max(best_ours, _rate(ours, seconds))
        best_theirs = max(best_theirs, _rate(theirs, seconds))
    return best_ours, best_theirs


def measures(seconds: float) -> dict[str, float]:
    """Seconds per call of each measure of the SDK first on ``sys.path`` (one child's round).

    The same typical event for every tree: built with this tree's :mod:`benchmarks._event`.
    """
    from openlineage_sdk import read_event, validate_event

    build = ours_builder()
    text = build()
    event = json.loads(text)
    calls: dict[str, Callable[[], object]] = {
        "build + serialize": build,
        "read_event(JSON text)": lambda: read_event(text),
        "read_event(mapping).to_json()": lambda: read_event(event).to_json(),
        "validate_event(JSON text)": lambda: validate_event(text),
    }
    # The CPU time of the child, which other work on the machine changes far less than the
    # time on the clock, and the best of three windows: a round should not hang on one moment.
    return {
        name: min(1 / _rate(call, seconds / 3, time.process_time) for _ in range(3))
        for name, call in calls.items()
    }


def _against(rev: str, rounds: int, seconds: float, imports: int) -> None:
    """The measures of this tree beside those of ``rev``, in turns (see benchmarks._against)."""
    from benchmarks import _against

    print(f"\nagainst {_against.describe(rev)}: child processes in turns, {rounds} rounds")
    with _against.checkout(rev) as tree:
        result = _against.race(tree, "benchmarks.models", "measures", rounds, seconds=seconds)
        # ``import openlineage_sdk`` alone loads next to nothing (names load on first use).
        cold = _against.import_race(
            tree, ["from openlineage_sdk import RunEvent, read_event"], imports
        )
    result.ours.update(cold.ours)
    result.theirs.update(cold.theirs)
    _against.print_race(result, rev)
    print("(ratio: median of the rounds' ratios, this tree over the other; above 1 is slower)")


def _jsonschema_validator() -> Callable[[dict[str, Any]], None]:
    """Validate as a user of the official schema would: jsonschema, validators built once."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    from openlineage_sdk._schema_store import bundled

    registry: Registry = Registry().with_resources(
        (uri, Resource.from_contents(doc, default_specification=DRAFT202012))
        for uri, doc in bundled().items()
    )
    core = Draft202012Validator(
        {"$ref": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"},
        registry=registry,
    )
    facet_validators: dict[str, Draft202012Validator] = {}

    def each(facets: dict[str, Any] | None) -> None:
        for facet in (facets or {}).values():
            url = facet["_schemaURL"]
            validator = facet_validators.get(url)
            if validator is None:
                validator = facet_validators[url] = Draft202012Validator(
                    {"$ref": url}, registry=registry
                )
            validator.validate(facet)

    def validate(event: dict[str, Any]) -> None:
        core.validate(event)
        each(event["run"].get("facets"))
        each(event["job"].get("facets"))
        for dataset in [*event.get("inputs", []), *event.get("outputs", [])]:
            each(dataset.get("facets"))
            each(dataset.get("inputFacets"))
            each(dataset.get("outputFacets"))

    return validate


def _without_producers(event: dict[str, Any]) -> str:
    """The event as JSON with every dataset facet's ``_producer`` left out."""
    bare = json.loads(json.dumps(event))
    for dataset in [*bare.get("inputs", []), *bare.get("outputs", [])]:
        for container in ("facets", "inputFacets", "outputFacets"):
            for facet in (dataset.get(container) or {}).values():
                facet.pop("_producer", None)
    return json.dumps(bare, separators=(",", ":"))


def _import_times(statements: list[str], repeat: int) -> list[list[float]]:
    """Wall times of ``python -c statement`` minus an empty interpreter's, in seconds.

    The statements take turns in each round, so that all of them see the same machine.
    """

    def run(code: str) -> float:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - start

    times: list[list[float]] = [[] for _ in statements]
    for _ in range(repeat):
        for index, statement in enumerate(statements):
            empty = run("pass")
            times[index].append(max(run(statement) - empty, 1e-6))
    return times


#: What any pydantic-based library pays at import: pydantic and one (deferred) model class.
_PYDANTIC_FLOOR = (
    "from pydantic import BaseModel, ConfigDict\n"
    "class Model(BaseModel):\n"
    "    model_config = ConfigDict(defer_build=True)\n"
    "    name: str"
)


def _large_event_validation(outputs: int) -> None:
    """``validate_event`` of one event with ``outputs`` output datasets, beside reading it.

    Target: validating takes at most 3 times as long as reading (``read_event``) the same JSON.
    One round each (the event is some 25 MB); CPU time of this process, so that other
    processes on the machine count less.
    """
    import uuid

    from openlineage_sdk import read_event, validate_event

    schema_url = (
        "https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
    )
    event = {
        "eventType": "COMPLETE",
        "eventTime": "2024-05-01T12:00:00Z",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "bench", "name": "fan_out"},
        "producer": "https://github.com/openlineage-sdk/openlineage-sdk",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "outputs": [
            {
                "namespace": "s3://bucket",
                "name": f"table_{index}",
                "facets": {
                    "schema": {
                        "_producer": "https://github.com/openlineage-sdk/openlineage-sdk",
                        "_schemaURL": schema_url,
                        "fields": [{"name": "id", "type": "long"}, {"name": "v", "type": "string"}],
                    }
                },
            }
            for index in range(outputs)
        ],
    }
    text = json.dumps(event)
    start = time.process_time()
    read_event(text)
    read = time.process_time() - start
    start = time.process_time()
    problems = validate_event(text, formats=True)
    validate = time.process_time() - start
    assert problems == [], problems
    share = validate / read
    print(
        _row(
            f"validate_event, {outputs:,} outputs ({len(text) / 1e6:.0f} MB), vs read",
            f"{validate:.2f}s",
            f"{read:.2f}s",
            f"{share:.2f}x",
            "<= 3x",
            share <= 3,
        )
    )


def _row(name: str, ours: str, theirs: str, ratio: str, target: str, met: bool) -> str:
    return (
        f"{name:<46} {ours:>14} {theirs:>14} {ratio:>9}  {target:<14} {'met' if met else 'NOT MET'}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one timed round")
    parser.add_argument(
        "--imports", type=int, default=15, help="fresh interpreters per import figure"
    )
    parser.add_argument(
        "--against",
        metavar="REV",
        help="also run the measures on this commit, branch or tag, in turns with this tree",
    )
    parser.add_argument(
        "--against-rounds", type=int, default=9, help="rounds of each tree with --against"
    )
    args = parser.parse_args(argv)

    from openlineage_sdk import RunEvent, read_event, validate_event

    build_ours = ours_builder()
    text = build_ours()
    assert validate_event(text, formats=True) == [], "the benchmark event must be valid"
    event = json.loads(text)
    print(f"typical Spark COMPLETE event: {len(text):,} bytes of JSON")
    print(f"{'':<46} {'openlineage-sdk':>14} {'baseline':>14} {'ratio':>9}  {'target':<14}")

    try:
        build_official = official_builder()
    except ImportError:
        build_official = None
        print(
            "openlineage-python is not installed: install the 'bench' group for the side-by-side figures"
        )
    if build_official is not None:
        ours_rate, official_rate = _race(build_ours, build_official, args.rounds, args.seconds)
        ratio = ours_rate / official_rate
        print(
            _row(
                "build + serialize (events/s), vs official",
                f"{ours_rate:,.0f}/s",
                f"{official_rate:,.0f}/s",
                f"{ratio:.1f}x",
                ">= 10x",
                ratio >= 10,
            )
        )
        # What pydantic-core alone needs for this event: the reading validator (the same models,
        # compiled with no Python hooks) taking the finished event in one call, then writing it.
        # Building through 25 constructors and the user's own code come on top of this.
        from openlineage_sdk._read import _reader

        reader = _reader(RunEvent)
        parsed = reader.validate_python(event)
        user_code = ours_builder(without_sdk=True)
        # Alternating with the build itself, best of the same rounds.
        core = write = user = built = float("inf")
        for _ in range(args.rounds):
            core = min(core, 1 / _rate(lambda: reader.validate_python(event), args.seconds))
            write = min(write, 1 / _rate(parsed.to_json, args.seconds))
            user = min(user, 1 / _rate(user_code, args.seconds))
            built = min(built, 1 / _rate(build_ours, args.seconds))
        core_floor = core + write + user
        print(
            f"  pydantic-core alone: validate {core * 1e6:.0f} us + write {write * 1e6:.0f} us; "
            f"the user's own code {user * 1e6:.0f} us; a 10x build has "
            f"{1e6 / official_rate / 10:.0f} us in all"
        )
        print(
            _row(
                "build + serialize (us), vs that floor",
                f"{built * 1e6:,.0f} us",
                f"{core_floor * 1e6:,.0f} us",
                f"{built / core_floor:.2f}x",
                "<= 1.3x",
                built / core_floor <= 1.3,
            )
        )

    validate = _jsonschema_validator()
    read_rate, schema_rate = _race(
        lambda: read_event(text), lambda: validate(event), args.rounds, args.seconds
    )
    ratio = read_rate / schema_rate
    print(
        _row(
            "read into typed event (events/s), vs jsonschema",
            f"{read_rate:,.0f}/s",
            f"{schema_rate:,.0f}/s",
            f"{ratio:.1f}x",
            ">= 100x",
            ratio >= 100,
        )
    )

    bare = _without_producers(event)
    bare_rate, full_rate = _race(
        lambda: read_event(bare), lambda: read_event(text), args.rounds, args.seconds
    )
    slower = full_rate / bare_rate
    print(
        _row(
            "read, dataset facets without _producer, vs with",
            f"{1e6 / bare_rate:,.0f} us",
            f"{1e6 / full_rate:,.0f} us",
            f"{slower:.2f}x",
            "<= 1.5x",
            slower <= 1.5,
        )
    )

    if build_official is not None:
        # pip compiles a wheel's modules to bytecode when it installs them; an editable install
        # (and PYTHONDONTWRITEBYTECODE) may not have, so compile ours as an installed package is.
        import compileall

        import openlineage_sdk

        compileall.compile_dir(Path(openlineage_sdk.__file__).parent, quiet=1)
        statements = [
            "import openlineage.client",
            "import openlineage_sdk",
            "from openlineage_sdk import RunEvent, read_event",
            _PYDANTIC_FLOOR,
        ]
        official, *ours_times, floor = _import_times(statements, args.imports)
        official_import = min(official)
        for statement, times in zip(statements[1:3], ours_times, strict=True):
            ours_import = min(times)
            share = ours_import / official_import
            print(
                _row(
                    f"cold {statement}",
                    f"{ours_import * 1000:.0f}ms",
                    f"{official_import * 1000:.0f}ms",
                    f"{share:.2f}x",
                    "<= 0.3x",
                    share <= 0.3,
                )
            )
            # The spread: each round's ratio (both imports in the same round).
            ratios = sorted(t / o for t, o in zip(times, official, strict=True))
            print(
                f"  per round: {ratios[0]:.2f}x to {ratios[-1]:.2f}x, "
                f"median {ratios[len(ratios) // 2]:.2f}x"
            )
        print(
            f"  the floor of any pydantic-based library (pydantic and one model class): "
            f"{min(floor) * 1000:.0f}ms, {min(floor) / official_import:.2f}x"
        )

    _large_event_validation(outputs=100_000)
    print(
        f"(best of {args.rounds} alternating rounds; imports: best of {args.imports} fresh interpreters, "
        "an empty interpreter's start subtracted)"
    )
    if args.against:
        _against(args.against, args.against_rounds, args.seconds, args.imports)
    return 0


if __name__ == "__main__":
    sys.exit(main())
