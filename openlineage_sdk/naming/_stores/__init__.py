"""Every data store the naming conventions list: its builder and its declaration, one place each.

A store's module holds its builder (the public function applying its row of the conventions),
then its :class:`~openlineage_sdk.naming._store.Store` declaration and the parsers of its URLs.
Importing this package declares them all.
"""

from openlineage_sdk.naming._store import DEFAULT_PORTS
from openlineage_sdk.naming._stores.databases import (
    cassandra,
    clickhouse,
    crate,
    db2,
    hive,
    milvus,
    mysql,
    oceanbase,
    oracle,
    postgres,
    presto,
    teradata,
    trino,
)
from openlineage_sdk.naming._stores.documents import box, filenet, sharepoint
from openlineage_sdk.naming._stores.embedded import in_memory, sqlite
from openlineage_sdk.naming._stores.file_systems import dbfs, hdfs, local_file, remote_file
from openlineage_sdk.naming._stores.object_stores import abfss, gcs, s3, wasbs
from openlineage_sdk.naming._stores.sql_server import azure_synapse, fabric_warehouse, mssql
from openlineage_sdk.naming._stores.streams import kafka, pubsub_subscription, pubsub_topic
from openlineage_sdk.naming._stores.warehouses import (
    athena,
    azure_cosmos,
    azure_data_explorer,
    bigquery,
    glue,
    redshift,
    snowflake,
    snowflake_account,
    spanner,
    unity_catalog,
)

__all__ = [
    "DEFAULT_PORTS",
    "abfss",
    "athena",
    "azure_cosmos",
    "azure_data_explorer",
    "azure_synapse",
    "bigquery",
    "box",
    "cassandra",
    "clickhouse",
    "crate",
    "db2",
    "dbfs",
    "fabric_warehouse",
    "filenet",
    "gcs",
    "glue",
    "hdfs",
    "hive",
    "in_memory",
    "kafka",
    "local_file",
    "milvus",
    "mssql",
    "mysql",
    "oceanbase",
    "oracle",
    "postgres",
    "presto",
    "pubsub_subscription",
    "pubsub_topic",
    "redshift",
    "remote_file",
    "s3",
    "sharepoint",
    "snowflake",
    "snowflake_account",
    "spanner",
    "sqlite",
    "teradata",
    "trino",
    "unity_catalog",
    "wasbs",
]
