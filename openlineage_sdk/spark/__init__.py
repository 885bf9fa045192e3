"""The PySpark adapter: lineage of DataFrame writes, in classic PySpark and under Spark Connect.

This is the only part of openlineage-sdk that uses PySpark, and it imports PySpark only when it
is used: ``import openlineage_sdk.spark`` is cheap and works without PySpark installed.

    from openlineage_sdk.spark import install

    install(spark, sink)           # every write through spark's DataFrame writers is reported
    df.write.parquet("s3a://bucket/orders")

Each write is reported to the sink as a :class:`WriteLineage`: its inputs and output with their
identities, schemas, column lineage and statistics, taken from the write itself without a second
pass over the data.

What each mode knows:

==================  ===============================================  ===========================
                    classic PySpark                                  Spark Connect
==================  ===============================================  ===========================
output identity     writer settings; paths qualified by Hadoop;      writer settings; catalog
                    catalog tables by location + ``TABLE`` symlink   tables the same way
output schema       DataFrame schema (JVM agent type names)          the same
output statistics   rows, bytes, files: the write command's metrics  rows (an observation the
                    (``QueryExecutionListener``)                     server computes in the
                                                                     write's job); no bytes/files
inputs              leaves of the analyzed plan (files, tables,      ``read`` relations of the
                    JDBC)                                            client plan
input statistics    files and bytes each file scan read              none
column lineage      analyzed plan (direct and indirect)              none
==================  ===============================================  ===========================
"""

from __future__ import annotations

from openlineage_sdk.spark._adapter import (
    LineageSink,
    SparkLineage,
    WriteLineage,
    install,
    installed,
    uninstall,
)
from openlineage_sdk.spark._records import (
    ColumnLineageRecord,
    DatasetIdentity,
    DatasetLineage,
    IoStats,
    Symlink,
)
from openlineage_sdk.spark._schema import schema_fields, spark_type_name

__all__ = [
    "ColumnLineageRecord",
    "DatasetIdentity",
    "DatasetLineage",
    "IoStats",
    "LineageSink",
    "SparkLineage",
    "Symlink",
    "WriteLineage",
    "install",
    "installed",
    "schema_fields",
    "spark_type_name",
    "uninstall",
]
