"""Run every benchmark in one process, side by side with the official client: ``nox -s bench``.

``python -m benchmarks models spark`` runs the named ones only. ``--against REV`` also runs the
measures of the benchmarks that support it (models, report) on an earlier commit or release
of this repository, in turns with this tree (see :mod:`benchmarks._against`).
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
    args = parser.parse_args(argv)
    selected = [b for b in BENCHMARKS if not args.names or b.rsplit(".", 1)[1] in args.names]
    for name in selected:
        module = importlib.import_module(name)
        print(f"\n=== {name.rsplit('.', 1)[1]} " + "=" * 60)
        against = (
            ["--against", args.against]
            if args.against and getattr(module, "AGAINST", False)
            else []
        )
        module.main(against)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
