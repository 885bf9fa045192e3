"""Run every benchmark in one process, side by side with the official client: ``nox -s bench``."""

from __future__ import annotations

import importlib
import sys

BENCHMARKS = (
    "benchmarks.models",
    "benchmarks.transport",
    "benchmarks.config",
    "benchmarks.spark",
    "benchmarks.report",
)


def main(argv: list[str]) -> int:
    """``python -m benchmarks [NAME ...] [OPTIONS]``: the benchmarks named (default: all).

    Options go to the one benchmark named, as its own command line would take them (``python -m
    benchmarks spark --small-only``: the Spark benchmark's rows of small statements alone).
    """
    short = {b.rsplit(".", 1)[1]: b for b in BENCHMARKS}
    names = [a for a in argv if a in short]
    options = [a for a in argv if a not in short]
    if options and len(names) != 1:
        print("options go to one benchmark: name it first (python -m benchmarks spark --help)")
        return 2
    selected = [b for b in BENCHMARKS if not names or b.rsplit(".", 1)[1] in names]
    for name in selected:
        module = importlib.import_module(name)
        print(f"\n=== {name.rsplit('.', 1)[1]} " + "=" * 60)
        module.main(options)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
