"""Run every benchmark in one process, side by side with the official client: ``nox -s bench``."""

from __future__ import annotations

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
    selected = [b for b in BENCHMARKS if not argv or b.rsplit(".", 1)[1] in argv]
    for name in selected:
        module = importlib.import_module(name)
        print(f"\n=== {name.rsplit('.', 1)[1]} " + "=" * 60)
        module.main([])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
