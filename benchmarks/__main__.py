"""Run every benchmark in one process, side by side with the official client: ``nox -s bench``.

``python -m benchmarks models spark`` runs the named ones only. ``--against REV`` also runs the
measures of the benchmarks that support it (models, report) on an earlier commit or release
of this repository, in turns with this tree (see :mod:`benchmarks._against`). Other options go
to the one benchmark named, as its own command line takes them: ``python -m benchmarks spark
--small-only`` prints the Spark benchmark's rows of small statements alone.
"""

from __future__ import annotations

import argparse
import importlib
import sys

BENCHMARKS = (
    "benchmarks.models",
    "benchmarks.transport",
    "benchmarks.config",
    "benchmarks.spark",
    "benchmarks.spark_streams",
    "benchmarks.report",
)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.splitlines()[0]
    )
    parser.add_argument("names", nargs="*", help="benchmarks to run (default: all)")
    parser.add_argument("--against", metavar="REV", help="a commit, branch or tag to compare with")
    short = {b.rsplit(".", 1)[1] for b in BENCHMARKS}
    if {"-h", "--help"} & set(argv):
        parser.parse_args(["--help"])
    # The names are told apart first: an option's value ("--small-rounds 6") is not a name, and
    # every option but --against goes to the benchmark, values and all.
    own = argparse.ArgumentParser(add_help=False)
    own.add_argument("--against")
    args, options = own.parse_known_args([a for a in argv if a not in short])
    args.names = [a for a in argv if a in short]
    if options and len(args.names) != 1:
        parser.error(f"{' '.join(options)}: options go to one benchmark, named first")
    selected = [b for b in BENCHMARKS if not args.names or b.rsplit(".", 1)[1] in args.names]
    for name in selected:
        module = importlib.import_module(name)
        print(f"\n=== {name.rsplit('.', 1)[1]} " + "=" * 60)
        against = (
            ["--against", args.against]
            if args.against and getattr(module, "AGAINST", False)
            else []
        )
        module.main(against + options)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
