"""Importing the adapter's package costs nothing until it is used."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_package_loads_neither_pyspark_nor_the_models() -> None:
    code = (
        "import sys, openlineage_sdk.spark\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'pydantic')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"
