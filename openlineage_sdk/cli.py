"""The ``openlineage-sdk`` command line.

``openlineage-sdk validate [--strict] PATH...`` checks events in ``.json`` files (one event, or a
JSON array of events), ``.jsonl`` files (one event per line) and folders (searched for both),
and prints one line per problem: ``file[:line]: event-id: json.path: message``. It exits 0 when
every event is valid, 1 when any is not, and 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

__all__ = ["main"]


def _events(path: Path) -> Iterator[tuple[str, Any]]:
    """Yield ``(location, event or raw text)`` for every event in a file."""
    if path.suffix == ".jsonl":
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    yield f"{path}:{number}", line
        return
    text = path.read_text(encoding="utf-8")
    try:
        parsed = json.loads(text)
    except ValueError:
        yield str(path), text  # reported as "not valid JSON" by validate_event
        return
    if isinstance(parsed, list):
        for index, item in enumerate(parsed):
            yield f"{path}[{index}]", item
    else:
        yield str(path), parsed


def _files(paths: Sequence[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            yield from sorted(
                p for p in path.rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file()
            )
        else:
            yield path


def _label(event: Any) -> str:
    if not isinstance(event, dict):
        try:
            event = json.loads(event)
        except (TypeError, ValueError):
            return "?"
    if not isinstance(event, dict):
        return "?"
    run = event.get("run")
    if isinstance(run, dict) and isinstance(run.get("runId"), str):
        return f"run {run['runId']} {event.get('eventType', '')}".rstrip()
    job = event.get("job")
    if isinstance(job, dict):
        return f"job {job.get('namespace')}/{job.get('name')}"
    dataset = event.get("dataset")
    if isinstance(dataset, dict):
        return f"dataset {dataset.get('namespace')}/{dataset.get('name')}"
    return "?"


def _validate(args: argparse.Namespace, out: TextIO) -> int:
    from openlineage_sdk._validate import validate_event

    missing = [p for p in args.paths if not p.exists()]
    if missing:
        for path in missing:
            print(f"openlineage-sdk validate: {path}: no such file or folder", file=sys.stderr)
        return 2
    events = invalid = 0
    for path in _files(args.paths):
        try:
            items = list(_events(path))
        except (OSError, UnicodeDecodeError) as exc:
            print(f"{path}: cannot read ({exc})", file=out)
            invalid += 1
            continue
        for location, event in items:
            events += 1
            problems = validate_event(event, strict=args.strict, formats=args.formats)
            if problems:
                invalid += 1
                label = _label(event)
                for problem in problems:
                    print(f"{location}: {label}: {problem}", file=out)
    summary = f"{events} event(s), {invalid} invalid"
    print(summary, file=sys.stderr)
    return 1 if invalid else 0


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = argparse.ArgumentParser(prog="openlineage-sdk", description="OpenLineage SDK tools")
    commands = parser.add_subparsers(dest="command", required=True)
    validate = commands.add_parser(
        "validate",
        help="validate events against the bundled OpenLineage schemas",
        description="Validate events in .json/.jsonl files and folders. Exit 0 when all are valid.",
    )
    validate.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    mode = validate.add_mutually_exclusive_group()
    mode.add_argument(
        "--strict",
        dest="strict",
        action="store_true",
        default=True,
        help="also check each facet against the schema its _schemaURL names (the default)",
    )
    mode.add_argument(
        "--core-only", dest="strict", action="store_false", help="check the core schema only"
    )
    validate.add_argument(
        "--formats", action="store_true", help="also check date-time, uuid and uri string formats"
    )
    args = parser.parse_args(argv)
    if args.command == "validate":
        return _validate(args, out or sys.stdout)
    parser.error(f"unknown command {args.command}")  # argparse exits: no other command exists


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
