"""Lineage for an unmodified PySpark script: loaded by ``openlineage-sdk run`` (see ``_launch``).

Python imports ``sitecustomize`` at start-up from its path; the launcher puts this folder first
on ``PYTHONPATH``. It hooks SparkSession creation (without importing PySpark), then hands over
to a ``sitecustomize`` further along the path, if there is one, so that one still runs.
"""

try:
    from openlineage_sdk.spark._launch import bootstrap

    bootstrap()
except Exception as error:  # lineage must never stop the user's program
    import sys

    print(f"openlineage: the lineage bootstrap failed: {error!r}", file=sys.stderr)

try:
    from openlineage_sdk.spark._launch import chain_sitecustomize

    chain_sitecustomize(__file__)
except Exception:  # the next sitecustomize's own failure is its business, as without us
    pass
