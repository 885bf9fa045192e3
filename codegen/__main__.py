"""Regenerate ``openlineage_sdk/models`` from ``spec/``, or check that it is up to date.

The same run generates the facet packages of the Spark adapter's platform detection, as any
plugin's facets are generated (``openlineage_sdk.codegen.generate_package``): this SDK's own
custom facets from ``spec/custom/`` and the facet registry's ``GcpDataprocRunFacet`` from
``spec/registry/gcp/dataproc/``.

Usage::

    python -m codegen                 # write the generated modules
    python -m codegen --check         # exit 1 and name the files that drifted from spec/
    python -m codegen --take UPSTREAM # lay an upstream spec/ folder into spec/, then write

The spec version, the facets and the published versions all come from ``spec/`` itself.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from openlineage_sdk.codegen import (
    GeneratedFile,
    SchemaError,
    check,
    generate_package,
    generate_standard,
    write,
)

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec"
HEADER = (Path(__file__).parent / "header.txt").read_text(encoding="utf-8")
# The facet packages of the Spark adapter's platforms: (schemas under spec/, package).
FACET_PACKAGES = (
    ("custom", "openlineage_sdk.spark.platforms.facets"),
    ("registry/gcp/dataproc/facets", "openlineage_sdk.spark.platforms.gcp"),
)
OWNED = [Path("openlineage_sdk", "models")] + [
    Path(*package.split(".")) for _, package in FACET_PACKAGES
]


def generate_facet_packages() -> list[GeneratedFile]:
    """The adapter's facet packages, with the schemas of their earlier versions kept."""
    files: list[GeneratedFile] = []
    for folder, package in FACET_PACKAGES:
        files.extend(
            generate_package(
                SPEC / folder,
                package,
                header=HEADER,
                display_root=ROOT,
                previous=ROOT / Path(*package.split(".")),
            )
        )
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codegen", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report drift instead of writing")
    parser.add_argument(
        "--take",
        type=Path,
        metavar="UPSTREAM",
        help="first lay this upstream spec/ folder into spec/ (see spec/SOURCE.md)",
    )
    args = parser.parse_args(argv)
    try:
        if args.take is not None:
            from codegen._take import take_spec

            for line in take_spec(args.take, SPEC):
                print(f"codegen: {line}")
        files = generate_standard(SPEC, header=HEADER, display_root=ROOT)
        files.extend(generate_facet_packages())
    except SchemaError as exc:
        print(f"codegen: {exc}", file=sys.stderr)
        return 2
    if args.check:
        problems = check(files, ROOT, owned=OWNED)
        for line in problems:
            print(line, file=sys.stderr)
        if problems:
            print(
                f"codegen: {len(problems)} file(s) drifted; run `nox -s codegen`", file=sys.stderr
            )
            return 1
        print(f"codegen: {len(files)} generated files are up to date")
        return 0
    changed = write(files, ROOT)
    print(f"codegen: wrote {len(changed)} of {len(files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
