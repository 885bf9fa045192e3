"""The ``openlineage-sdk`` command line.

``openlineage-sdk codegen --schemas DIR --package NAME --out DIR [--check]`` turns a folder of
custom facet schemas into an importable package of typed facet classes (see
:func:`openlineage_sdk.codegen.generate_package`); it exits 1 when a schema breaks a naming rule
(or, with ``--check``, when the package on disk has drifted) and names each problem. When a
schema gets a new version (a new ``$id``), the package keeps the earlier version's schema under
``schemas/<version>/``, so events that name it still validate.

``openlineage-sdk report EVENTS.jsonl [--html FILE] [--runs N]`` prints a summary of the jobs,
runs and datasets in a JSON Lines file of events and, with ``--html``, writes a self-contained
HTML page of their lineage graph (see :mod:`openlineage_sdk.report`). The file is read in one
pass, line by line; each job keeps its latest N runs (20 by default) and counts the others.

``openlineage-sdk rejected [SPOOL_DIR|FILE] [--replay --url URL]`` lists the events a
destination refused (kept in the spool's ``rejected.jsonl``) or sends one file's events again,
removing those accepted (see :mod:`openlineage_sdk.transports._rejected`).

``openlineage-sdk validate [--core-only] [--no-formats] PATH...`` checks events in ``.json`` files
(one event, or a JSON array of events), ``.jsonl`` files (one event per line) and folders (searched
for both). By default it is strict: the core schema, every facet against the schema its
``_schemaURL`` names, and the spec's string formats (a runId must be a UUID, an eventTime an
RFC 3339 date-time, a URI a URI). It prints one line per problem to stdout,
``file[:line]: event-id: json.path: message``, then a summary line ``N event(s), M invalid``,
also on stdout so the whole result can be piped. It exits 0 when every event is valid, 1 when
any is not, and 2 on a usage error.

Every command exits quietly when its reader goes away (``... | head``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

__all__ = ["main"]


def _parsed(text: str) -> Any:
    """The JSON value of ``text``; the text itself when it is not JSON or is a JSON string, for
    validate_event to report ("not valid JSON", "expected a JSON object, got a string")."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return text if isinstance(value, str) else value


def _events(path: Path) -> Iterator[tuple[str, Any]]:
    """Yield ``(location, event or raw text)`` for every event in a file, each parsed once."""
    if path.suffix == ".jsonl":
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    yield f"{path}:{number}", _parsed(line)
        return
    parsed = _parsed(path.read_text(encoding="utf-8"))
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
    print(f"{events} event(s), {invalid} invalid", file=out)
    return 1 if invalid else 0


_CODEGEN_HEADER = (
    "# Generated by openlineage-sdk codegen from {sources}.\n"
    "# Do not edit by hand: change the schemas, then run `{command}`.\n"
)


def _codegen(args: argparse.Namespace, out: TextIO) -> int:
    import importlib.util

    # datamodel-code-generator is an optional dependency, imported only when generating: say
    # which extra brings it before doing anything, rather than fail halfway with a traceback.
    try:
        found = importlib.util.find_spec("datamodel_code_generator") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        print(
            "openlineage-sdk codegen: needs datamodel-code-generator; "
            "install it with: pip install 'openlineage-sdk[codegen]'",
            file=sys.stderr,
        )
        return 2
    from openlineage_sdk.codegen import SchemaError, check, generate_package, write

    if not args.schemas.is_dir():
        print(f"openlineage-sdk codegen: {args.schemas}: not a folder", file=sys.stderr)
        return 2
    command = f"openlineage-sdk codegen --schemas {args.schemas} --package {args.package} --out {args.out}"
    header = _CODEGEN_HEADER.replace("{command}", command)
    try:
        files = generate_package(
            args.schemas,
            args.package,
            header=header,
            display_root=args.schemas,
            # Earlier versions of the schemas stay in the package: old events still validate.
            previous=args.out / Path(*args.package.split(".")),
        )
    except SchemaError as exc:
        print(f"openlineage-sdk codegen: {exc}", file=sys.stderr)
        return 1
    package_dir = Path(*args.package.split("."))
    if args.check:
        problems = check(files, args.out, owned=[package_dir])
        for line in problems:
            print(line, file=out)
        return 1 if problems else 0
    changed = write(files, args.out)
    print(f"wrote {len(changed)} of {len(files)} files under {args.out / package_dir}", file=out)
    return 0


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


def _report(args: argparse.Namespace, out: TextIO) -> int:
    from openlineage_sdk import OpenLineageValidationError
    from openlineage_sdk.report import lineage_html, read_graph, summary

    try:
        graph = read_graph(args.path, keep_runs=args.runs) if args.runs else read_graph(args.path)
    except (OSError, OpenLineageValidationError) as exc:
        print(f"openlineage-sdk report: {exc}", file=sys.stderr)
        return 2
    if args.html is not None:  # written first: a reader that stops early (| head) still gets it
        try:
            page = lineage_html(graph, title=f"Lineage of {args.path.name}")
        except ModuleNotFoundError as exc:  # the layout's optional dependency
            print(f"openlineage-sdk report: {exc}", file=sys.stderr)
            return 2
        args.html.write_text(page, encoding="utf-8")
    print(summary(graph), file=out)
    if args.html is not None:
        print(f"\nlineage graph: {args.html}", file=out)
    return 0


def _rejected(args: argparse.Namespace, out: TextIO) -> int:
    from openlineage_sdk.transports._delivery.spool import default_spool_dir, rejected_files
    from openlineage_sdk.transports._rejected import describe_line, replay_rejected

    files = rejected_files(args.path if args.path is not None else default_spool_dir())
    if not args.replay:
        for path in files:
            lines = path.read_bytes().splitlines()
            print(f"{path}: {len(lines)} event(s)", file=out)
            for number, line in enumerate(lines, start=1):
                print(f"  {number}: {describe_line(line)}", file=out)
        if not files:
            print("no rejected events", file=out)
        return 0
    if not args.url or len(files) != 1:
        print(
            "openlineage-sdk rejected: --replay needs --url and one rejected.jsonl file",
            file=sys.stderr,
        )
        return 2
    result = replay_rejected(files[0], args.url, endpoint=args.endpoint)
    print(
        f"{files[0]}: {result.delivered} delivered, {result.refused} refused again, "
        f"{result.unsendable} not events, {result.failed} not sent",
        file=out,
    )
    for message in result.messages[:10]:
        print(f"  {message}", file=out)
    return 0 if result.refused + result.unsendable + result.failed == 0 else 1


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None) -> int:
    """Run the command line; return the exit status.

    Args:
        argv: the arguments (``sys.argv[1:]`` when None).
        out: where results go (stdout when None); errors always go to stderr.

    Returns:
        0 on success, 1 when a check found problems, 2 on a usage error; 141 (like a shell's
        SIGPIPE) when the reader of the output went away, e.g. ``openlineage-sdk report ... | head``.
    """
    try:
        try:
            return _main(argv, out)
        finally:
            # Flushed here rather than at exit: output still buffered when the reader has gone
            # would otherwise fail in Python's own flush at exit, which prints "Exception ignored
            # ... BrokenPipeError" and exits 120, whether the reader left first or not.
            (out or sys.stdout).flush()
    except BrokenPipeError:
        # The reader closed the pipe: nothing more can be said to it. Point stdout at devnull
        # so Python's flush at exit does not raise (and print a traceback) a second time.
        import os

        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):  # stdout is not a real file (e.g. captured in tests)
            pass
        return 141


def _main(argv: Sequence[str] | None, out: TextIO | None) -> int:
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
    formats = validate.add_mutually_exclusive_group()
    formats.add_argument(
        "--formats",
        dest="formats",
        action="store_true",
        default=True,
        help="check the spec's string formats: uuid, date-time, uri (the default)",
    )
    formats.add_argument(
        "--no-formats",
        dest="formats",
        action="store_false",
        help="do not check string formats (JSON Schema's annotation-only reading)",
    )
    codegen = commands.add_parser(
        "codegen",
        help="generate typed facet classes from custom facet schemas",
        description="Generate an importable package of typed facet classes from a folder of custom "
        "facet schemas, enforcing the facet naming rules.",
    )
    codegen.add_argument(
        "--schemas", type=Path, required=True, help="folder of facet schemas (*.json)"
    )
    codegen.add_argument(
        "--package", required=True, help="Python package to generate, e.g. myco_facets"
    )
    codegen.add_argument(
        "--out", type=Path, required=True, help="folder the package is written under"
    )
    codegen.add_argument("--check", action="store_true", help="report drift instead of writing")
    report = commands.add_parser(
        "report",
        help="summarize a JSON Lines file of events; optionally draw the lineage graph",
        description="Print jobs, runs, states, datasets, row counts and schemas from a JSON Lines "
        "file of events; with --html, also write a self-contained HTML lineage graph.",
    )
    report.add_argument("path", type=Path, metavar="EVENTS.jsonl")
    report.add_argument("--html", type=Path, default=None, help="write the lineage graph here")
    report.add_argument(
        "--runs",
        type=_positive,
        default=None,
        metavar="N",
        help="runs listed per job, the latest; the earlier ones are counted (default 20)",
    )
    rejected = commands.add_parser(
        "rejected",
        help="look at or replay the events a destination refused (rejected.jsonl)",
        description="List the events kept in the spool's rejected.jsonl files, or send those of "
        "one file again (--replay --url URL) once the cause is fixed; events accepted are "
        "removed from the file. Exit 1 when some are still not accepted.",
    )
    rejected.add_argument(
        "path", type=Path, nargs="?", default=None, metavar="SPOOL_DIR|rejected.jsonl"
    )
    rejected.add_argument("--replay", action="store_true", help="send the events again")
    rejected.add_argument("--url", help="the backend's base URL, for --replay")
    rejected.add_argument("--endpoint", default="api/v1/lineage", help="the lineage path")
    # -- run: lineage for an unmodified PySpark script (openlineage_sdk.spark._launch) --
    run = commands.add_parser(
        "run",
        help="run a command with lineage on for every SparkSession its Python creates",
        description="Run COMMAND (python script.py, spark-submit ...) with the adapter installed "
        "on each SparkSession the script creates, configured by spark.openlineage.* confs, "
        "openlineage.yml or OPENLINEAGE_* variables; the script needs no change.",
    )
    run.add_argument("launched", nargs=argparse.REMAINDER, metavar="COMMAND ...")
    # -- end run --
    args = parser.parse_args(argv)
    if args.command == "rejected":
        return _rejected(args, out or sys.stdout)
    if args.command == "run":
        from openlineage_sdk.spark._launch import launch

        if not args.launched:
            parser.error("run needs a command, e.g. openlineage-sdk run python job.py")
        return launch(args.launched)
    if args.command == "report":
        return _report(args, out or sys.stdout)
    if args.command == "validate":
        return _validate(args, out or sys.stdout)
    if args.command == "codegen":
        return _codegen(args, out or sys.stdout)
    parser.error(f"unknown command {args.command}")  # argparse exits: no other command exists


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
