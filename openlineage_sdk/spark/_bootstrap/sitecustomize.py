"""Lineage for an unmodified PySpark script: loaded by ``openlineage-sdk run`` (see ``_launch``).

Python imports ``sitecustomize`` at start-up from its path; the launcher puts this folder first
on ``PYTHONPATH`` (a driver in cluster deploy mode gets this file in a zip among its py-files).
With ``OPENLINEAGE_SDK_BOOTSTRAP=1`` in the environment (the launcher's, or the driver's
environment confs in cluster deploy mode) it hooks SparkSession creation (without importing
PySpark); without it, as on executors, which get a driver's py-files too, it does nothing. Either
way it hands over to a ``sitecustomize`` further along the path, if there is one, so that one
still runs.
"""

import contextlib
import os

if os.environ.get("OPENLINEAGE_SDK_BOOTSTRAP") == "1":
    try:
        from openlineage_sdk.spark._launch import bootstrap

        bootstrap()
    except Exception as error:  # lineage must never stop the user's program
        import sys

        print(f"openlineage: the lineage bootstrap failed: {error!r}", file=sys.stderr)


def _chain() -> None:
    """Run the ``sitecustomize`` this one hides: the next one on ``sys.path``, if any.

    The standard library alone: on an executor, this package may not be installed.
    """
    import importlib.util
    import sys
    from pathlib import Path

    own = Path(__file__).resolve().parent
    for entry in sys.path:
        if not entry or Path(entry).resolve() == own:
            continue
        candidate = Path(entry) / "sitecustomize.py"
        if candidate.is_file():
            spec = importlib.util.spec_from_file_location(
                "_openlineage_next_sitecustomize", candidate
            )
            if spec is not None and spec.loader is not None:
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
            return


# The next sitecustomize's own failure is its business, as without this one.
with contextlib.suppress(Exception):
    _chain()
