"""The PySpark adapter: lineage of every write, SQL statement and action, classic and Connect.

This is the only part of openlineage-sdk that uses PySpark, and it imports PySpark only when it
is used: ``import openlineage_sdk.spark`` works without PySpark installed.

Automatic mode: every write is a run of its own::

    from openlineage_sdk import OpenLineage
    from openlineage_sdk.spark import application_run, install

    client = OpenLineage()                   # nothing configured: openlineage_events.jsonl
    install(spark, client)
    with application_run(spark, client):     # optional: the parent of the writes' runs
        orders.write.parquet("s3a://lake/orders")   # START, then COMPLETE (or FAIL)
        spark.sql("INSERT INTO totals SELECT ...")  # the same, with the JVM agent's names

Explicit mode: writes add their lineage to the run you are in::

    install(spark, mode="explicit")
    with client.run("orders.daily_load"):    # START ... COMPLETE, with the writes' datasets
        orders.write.parquet("s3a://lake/orders")

One call of a writer method (``save``, ``parquet``, ``saveAsTable``, ``insertInto``, ``jdbc``,
``writeTo(...).create()``, ...) is one write, whatever number of commands Spark runs for it.
``spark.sql`` statements that write or change datasets (``INSERT``, CTAS, ``LOAD DATA``,
``CREATE``/``DROP``/``TRUNCATE``/``ALTER TABLE``, ``MERGE``/``UPDATE``/``DELETE`` on v2 tables)
are runs too, with the JVM agent's job names and lifecycle states (see ``executions._statement``
and the command registry, ``describe._commands``); queries that end in an action are runs with
inputs only (``install(..., input_only_runs=False)`` turns those off). In classic PySpark, RDD
writes (``saveAsTextFile`` and the Hadoop writers) are runs of their own, and inputs are traced
through RDDs back to the files they read. A Structured Streaming query is one run from its start
to its end, with bounded RUNNING events, its ``foreachBatch`` writes runs of their own under it
(``executions.streams``); a declarative pipeline (under Spark Connect) is a run, each of its flows
a child run. ``docs/architecture.md`` says where each step lives.

What each kind of session gives:

| | classic PySpark | Spark Connect |
|---|---|---|
| output identity | writer settings; paths qualified by Hadoop; catalog tables by location and a symlink to the name | the same |
| output schema | the DataFrame's schema (JVM agent type names) | the same |
| input schemas | each relation's columns, from the plan | the reader's schema; the catalog's for tables |
| outputStatistics | rows, bytes, files: the write command's metrics | rows (an observation the server computes in the write's job) |
| inputs | leaves of the analyzed plan (files, tables, JDBC), through RDDs | the client plan's reads; SQL's tables from the server's ``EXPLAIN`` |
| inputStatistics | files and bytes each file scan read | none |
| columnLineage | the optimized plan (direct and indirect), with descriptions on request | the server's ``EXPLAIN`` of the optimized plan |

Nothing the adapter does starts a Spark job, and nothing it does can fail the write: a part it
cannot learn is logged and left out of the events (and listed in an ``extractionError`` facet).
A read's run comes from Spark's listener bus after its action returned; :func:`uninstall`, and
the end of the process, wait (bounded) for the bus, so the last action's run is not lost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openlineage_sdk._lazy import lazy_exports

if TYPE_CHECKING:
    from openlineage_sdk.spark._adapter import (
        Mode,
        SparkLineage,
        application_run,
        install,
        installed,
        uninstall,
    )
    from openlineage_sdk.spark._execution import (
        ColumnLineageRecord,
        DatasetIdentity,
        DatasetLineage,
        IoStats,
        SessionKind,
        SparkExecution,
        Symlink,
        WriteLineage,
    )
    from openlineage_sdk.spark._flow import LineageSink
    from openlineage_sdk.spark.describe._schema import schema_fields, spark_type_name
    from openlineage_sdk.spark.events._extensions import FacetBuilder, FacetContext
    from openlineage_sdk.spark.session._versions import SparkVersionError

__all__ = [
    "ColumnLineageRecord",
    "DatasetIdentity",
    "DatasetLineage",
    "FacetBuilder",
    "FacetContext",
    "IoStats",
    "LineageSink",
    "Mode",
    "SessionKind",
    "SparkExecution",
    "SparkLineage",
    "SparkVersionError",
    "Symlink",
    "WriteLineage",
    "application_run",
    "install",
    "installed",
    "schema_fields",
    "spark_type_name",
    "uninstall",
]

# Each name is imported on first access, so importing this package loads neither PySpark nor
# the models. Type checkers read the imports above instead.
if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "._adapter": (
                "Mode",
                "SparkLineage",
                "application_run",
                "install",
                "installed",
                "uninstall",
            ),
            "._execution": (
                "ColumnLineageRecord",
                "DatasetIdentity",
                "DatasetLineage",
                "IoStats",
                "SessionKind",
                "SparkExecution",
                "Symlink",
                "WriteLineage",
            ),
            "._flow": ("LineageSink",),
            ".session._versions": ("SparkVersionError",),
            ".events._extensions": ("FacetBuilder", "FacetContext"),
            ".describe._schema": (
                "schema_fields",
                "spark_type_name",
            ),
        },
    )
