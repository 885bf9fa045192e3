"""Dataset naming: a dataset's namespace and name, built from its parts or parsed from a URL.

OpenLineage connects lineage seen by different producers only when they
name a dataset the same way. This module implements the naming conventions
(``spec/naming.md``) for every data store they list, so that the rest of
the SDK, and its users, never format a namespace by hand::

    >>> from openlineage_sdk import naming
    >>> naming.dataset_from_uri(
    ...     "jdbc:postgresql://db.example.com/shop?currentSchema=sales", table="orders"
    ... )
    DatasetName(namespace='postgres://db.example.com:5432', name='shop.sales.orders')
    >>> naming.dataset_from_uri("s3a://bucket/raw/orders").uri
    's3://bucket/raw/orders'
    >>> naming.bigquery("my-project", "sales", "orders").name
    'my-project.sales.orders'

Every function is pure: no I/O, no network, no state; only the standard
library is imported.

Builders
========

One function per store takes the parts its row of the conventions names and
returns a :class:`DatasetName`. Required parts are positional; ports are
keyword-only and default to the store's usual port (:data:`DEFAULT_PORTS`),
except FileNet's: it has no usual port, so ``filenet()`` requires one.

==========================  ==================================================  ===========================================
Store                       Builder                                             Namespace / name
==========================  ==================================================  ===========================================
Athena                      ``athena(region, catalog, database, table)``        ``awsathena://athena.{region}.amazonaws.com`` / ``{catalog}.{database}.{table}``
AWS Glue                    ``glue(region, account_id, database, table)``       ``arn:aws:glue:{region}:{account}`` / ``table/{database}/{table}``
Azure Cosmos DB             ``azure_cosmos(host, database, table)``             ``azurecosmos://{host}/dbs/{database}`` / ``colls/{table}``
Azure Data Explorer         ``azure_data_explorer(cluster, database, table)``   ``azurekusto://{cluster}.kusto.windows.net`` / ``{database}/{table}``
Azure Synapse               ``azure_synapse(host, schema, table, port=1433)``   ``sqlserver://{host}:{port}`` / ``{schema}.{table}``
BigQuery                    ``bigquery(project, dataset, table)``               ``bigquery`` / ``{project}.{dataset}.{table}``
Cassandra                   ``cassandra(host, keyspace, table, port=9042)``     ``cassandra://{host}:{port}`` / ``{keyspace}.{table}``
Milvus                      ``milvus(host, database, collection, port=19530)``  ``milvus://{host}:{port}`` / ``{database}.{collection}``
Microsoft Fabric Warehouse  ``fabric_warehouse(endpoint, database, schema,      ``fabric-warehouse://{endpoint}[:{port}]`` / ``{database}.{schema}.{table}``
                            table, port=1433)``
MySQL (and MariaDB)         ``mysql(host, database, table, port=3306)``         ``mysql://{host}:{port}`` / ``{database}.{table}``
CrateDB                     ``crate(host, database, schema, table, port=5432)``  ``crate://{host}:{port}`` / ``{database}.{schema}.{table}``
DB2                         ``db2(host, database, schema, table, port=50000)``  ``db2://{host}:{port}`` / ``{database}.{schema}.{table}``
Hive                        ``hive(host, database, table, port=9083)``          ``hive://{host}:{port}`` / ``{database}.{table}``
MSSQL                       ``mssql(host, database, schema, table, port=1433)``  ``mssql://{host}:{port}`` / ``{database}.{schema}.{table}``
OceanBase                   ``oceanbase(host, database, table, port=2881)``     ``oceanbase://{host}:{port}`` / ``{database}.{table}``
Oracle                      ``oracle(host, service, schema, table, port=1521)``  ``oracle://{host}:{port}`` / ``{service or sid}.{schema}.{table}``
Postgres                    ``postgres(host, database, schema, table,           ``postgres://{host}:{port}`` / ``{database}.{schema}.{table}``
                            port=5432)``
Teradata                    ``teradata(host, database, table, port=1025)``      ``teradata://{host}:{port}`` / ``{database}.{table}``
Redshift                    ``redshift(cluster_identifier, region, database,    ``redshift://{cluster}.{region}:{port}`` / ``{database}.{schema}.{table}``
                            schema, table, port=5439)``
Snowflake                   ``snowflake(account, database, schema, table)``     ``snowflake://{account}`` / ``{DATABASE}.{SCHEMA}.{TABLE}``
Spanner                     ``spanner(project, instance, database, schema,      ``spanner://{project}:{instance}`` / ``{database}.{schema}.{table}``
                            table)``
Trino                       ``trino(host, catalog, schema, table, port=8080)``  ``trino://{host}:{port}`` / ``{catalog}.{schema}.{table}``
Unity Catalog               ``unity_catalog(host, catalog, schema, table,       ``unitycatalog://{host}[:{port}]`` / ``{catalog}.{schema}.{table}``
                            port=443)``
ABFSS (ADLS Gen2)           ``abfss(container, account, path)``                 ``abfss://{container}@{account}.dfs.core.windows.net`` / ``{path}``
DBFS                        ``dbfs(workspace, path)``,                          ``dbfs://{workspace}`` / ``{path}``,
                            ``dbfs(None, path)``                                ``dbfs`` / ``{path}``
GCS                         ``gcs(bucket, key)``                                ``gs://{bucket}`` / ``{key}``
HDFS                        ``hdfs(host, path, port=8020)``                     ``hdfs://{host}:{port}`` / ``{path}``
Kafka                       ``kafka(bootstrap_server, topic)``                  ``kafka://{host}:{port}`` / ``{topic}``
Local file system           ``local_file(path)``                                ``file`` / ``{path}``
Remote file system          ``remote_file(host, path)``                         ``file://{host}`` / ``{path}``
Box                         ``box(host, enterprise_id, key, port=443)``         ``box://{host}:{port}/{enterprise id}`` / ``{key}``
FileNet                     ``filenet(host, repository_id, key, *, port)``      ``filenet://{host}:{port}/{repository id}`` / ``{key}``
S3                          ``s3(bucket, key)``                                 ``s3://{bucket}`` / ``{key}``
SharePoint                  ``sharepoint(host, site, key, port=443)``           ``mssharepoint://{host}:{port}/{site}`` / ``{key}``
WASBS (Azure Blob Storage)  ``wasbs(container, account, key)``                  ``wasbs://{container}@{account}.dfs.core.windows.net`` / ``{key}``
PubSub                      ``pubsub_topic(project, topic)``,                   ``pubsub`` / ``topic:{project}:{topic}``,
                            ``pubsub_subscription(project, subscription)``      ``subscription:{project}:{subscription}``
In memory                   ``in_memory(name)``                                 ``inmemory://`` / ``{name}``
==========================  ==================================================  ===========================================

Three stores that neither document lists have builders so that their JDBC
URLs can be named: ``clickhouse(host, database, table, port=8123)``
(``clickhouse://``, named like MySQL), ``presto(host, catalog, schema,
table, port=8080)`` (``presto://``, named like Trino) and ``sqlite(path,
table)`` (``sqlite://{absolute path}`` / ``{table}``). H2 URLs name
in-memory databases ``inmemory://`` / ``{database}.{schema}.{table}``, file
databases ``h2://{absolute path}`` / ``{schema}.{table}`` and servers
``h2://{host}:{port}`` / ``{database}.{schema}.{table}``.

A Redshift JDBC URL whose host is neither a cluster endpoint
(``{cluster}.{id}.{region}.redshift.amazonaws.com``) nor IAM's
``{cluster}:{region}`` (a tunnel, a private DNS name) does not tell the
cluster and region; its host stands in for them:
``redshift://{host}:{port}`` / ``{database}.{schema}.{table}``.

A DBFS path without a workspace (``dbfs:/mnt/raw``, as a Databricks cluster
spells its own workspace's file system) is named ``dbfs`` / ``{path}``, as the
JVM openlineage-spark agent names it, just as ``file`` names the local file
system of whichever machine reads it.

Normal forms
============

* Schemes: ``s3a``/``s3n`` → ``s3``, ``gcs`` → ``gs``, ``abfs`` → ``abfss``,
  ``wasb`` → ``wasbs``, ``postgresql`` → ``postgres``, ``mariadb`` →
  ``mysql``, ``thrift`` → ``hive``, ``bq`` → ``bigquery``; SQLAlchemy's
  ``+driver`` is dropped. HTTPS URLs of S3, GCS and Azure storage become
  ``s3``, ``gs``, ``wasbs`` (blob endpoint) or ``abfss`` (dfs endpoint).
  JDBC URLs are named by their store: ``jdbc:sqlserver`` and
  ``jdbc:jtds:sqlserver`` → ``mssql`` (or the Synapse or Fabric row by host),
  ``jdbc:hive2`` → ``hive``, ``jdbc:databricks`` → ``unitycatalog`` and so on.
  A ``sqlserver://`` URI is the seed document's Synapse form.
* Ports: filled from :data:`DEFAULT_PORTS` when a URL or call gives none, so
  ``host`` and ``host:5432`` are one Postgres. Fabric and Unity Catalog,
  whose rows allow the port to be left out, write it only when it is not
  the default.
* Case: schemes and hosts are lower-cased (they are case-insensitive), and
  so are the other namespace parts their services read without case: Azure
  containers, AWS regions and partitions, Redshift cluster identifiers and
  Snowflake accounts. Snowflake identifiers are upper-cased unless
  double-quoted, as the seed document asks. Other identifiers are kept as
  given: the documents set no rule for them.
* Paths: object store keys have no leading or trailing slash (``raw/orders``);
  file system paths (HDFS, DBFS, ABFSS, files) are absolute (``/raw/orders``).
  The whole bucket or container is ``/``.
* Hosts: a list of hosts (fail-over, replicas, Kafka bootstrap servers)
  names its data source by its first host.
* Qualified table names (Spark's ``dbtable``): dots separate parts;
  ``"..."``, ```...``` and ``[...]`` quote a part. A sub-query is refused.
  When the URL and the table together leave a level unnamed (a Postgres
  table without ``currentSchema`` or ``schema.table``), that is an error
  naming the level rather than a guess. The exceptions are levels a driver
  always fills the same way: Athena's catalog (``AwsDataCatalog``), CrateDB's
  database (``crate``) and H2's schema (``PUBLIC``).

Credentials
===========

Names are assembled only from hosts, ports, paths and the handful of
properties that name a level (``currentSchema``, ``databaseName``, ``db``,
``schema``, ``DATABASE``, ``ConnCatalog`` ...). User info (``user:password@``,
Oracle's ``user/password@``), ``password=``, ``pwd=``, tokens, keys,
signatures and SAS query parameters are never copied. Error messages show
the input with all of those masked as ``***``.

Where the two naming documents differ
=====================================

The seed document (older conventions given by users) and ``naming.md``
disagree in these places; in each, this module follows ``naming.md``:

* **DBFS** — seed: ``hdfs://{workspace name}``; naming.md:
  ``dbfs://{workspace name}``. We use ``dbfs://`` (and ``dbfs`` for a path
  that names no workspace, see above).
* **ABFSS** — seed: ``abfss://{container name}@{service name}``; naming.md
  adds the endpoint: ``abfss://{container}@{service}.dfs.core.windows.net``.
  We write the full endpoint (a bare account name gets the suffix).
* **WASBS** — seed: ``wasbs://{container name}@{service name}``; naming.md:
  ``wasbs://{container}@{service}.dfs.core.windows.net``. We write the
  ``dfs`` endpoint, also for URLs that use the ``blob`` endpoint of the same
  storage account, so one container has one namespace.
* **S3 and GCS names** — seed: ``{path}`` (its URI is ``s3://{bucket}{path}``,
  a path with a leading slash); naming.md: ``{object key}``. We use the key,
  without a leading slash.
* **Local file system** — seed: ``file://{IP}:{port}``; naming.md: ``file``
  for the local file system and ``file://{host}`` for a remote one. We use
  ``file`` and ``file://{host}``; a port in a ``file:`` URL is dropped.
* **Azure Synapse** — seed: ``sqlserver://{host}:{port};database={database};``;
  naming.md: ``sqlserver://{host}:{port}``, name ``{schema}.{table}``. We drop
  the database.
* **Azure Cosmos DB** — seed name ``/colls/{table}`` (and a URI with
  ``{host}.documents.azure.com``); naming.md name ``colls/{table}`` with the
  namespace ``azurecosmos://{host}/dbs/{database}``. We use ``colls/{table}``
  and the full host.
* **Azure Data Explorer** — seed namespace
  ``azurekusto://{host}.kusto.windows.net/{database}``; naming.md
  ``azurekusto://{host}.kusto.windows.net``, both with the name
  ``{database}/{table}``. We leave the database out of the namespace.
* **Snowflake** — seed namespace ``snowflake://{account name}``; naming.md
  ``snowflake://{organization}-{account name}``, or the legacy account
  locator with its optional compliance, region and cloud parts. We accept
  both forms as given (lower-cased, without ``.snowflakecomputing.com`` or
  ``.privatelink``). The seed's rule that database, schema and table names
  are upper case is kept: naming.md says nothing against it.
* **Rows only in naming.md** — AWS Glue, Cassandra, Milvus, Fabric
  Warehouse, CrateDB, DB2, Hive, MSSQL, OceanBase, Oracle, Teradata,
  Spanner, Unity Catalog, Kafka, remote files, Box, FileNet, SharePoint,
  PubSub and in-memory datasets are named by naming.md alone.

The dataSource facet
====================

:meth:`DatasetName.datasource_facet` returns the generated
``DatasourceDatasetFacet`` whose ``name`` and ``uri`` are
:attr:`DatasetName.datasource_name` and :attr:`DatasetName.datasource_uri`::

    >>> naming.postgres("db", "shop", "sales", "orders").datasource_facet().uri
    'postgres://db:5432'

It imports the facet models on first call; the rest of this module never
does.

Job naming
==========

Jobs are named by the "Job naming" table of ``spec/naming.md``; the job
namespace is the scheduler's (the client's configured namespace, or the
parent job's, as the seed document asks):

=============  ==========================================  ============================================
Job type       Builder                                     Name
=============  ==========================================  ============================================
Airflow task   ``airflow_job_name(dag_id, task_id)``        ``{dag_id}.{task_id}``
Spark job      ``spark_job_name(app_name, command,          ``{appName}.{command}.{table}``
               table=None)``
SQL            ``sql_job_name(schema, table)``             ``{schema}.{table}``
Debezium       ``debezium_job_name(topic_prefix, task_id)``  ``{topic.prefix}.{taskId}``
=============  ==========================================  ============================================

The Spark builder normalizes its parts the way the JVM openlineage-spark
agent does, so that both name the same action the same way:
``spark_job_name("My Awesome App", "InsertIntoHiveTable", "mydb.mytable")``
is ``"my_awesome_app.insert_into_hive_table.mydb_mytable"``. The seed
document's ``{spark.app.name}.{node.name}`` is the same name without a table.
"""

from __future__ import annotations

from openlineage_sdk.naming import _jobs, _stores
from openlineage_sdk.naming._jdbc import jdbc_dataset, jdbc_dialect, jdbc_url_without_credentials
from openlineage_sdk.naming._jobs import *  # noqa: F403
from openlineage_sdk.naming._model import DatasetName, NamingError
from openlineage_sdk.naming._parse import dataset_from_uri
from openlineage_sdk.naming._stores import *  # noqa: F403
from openlineage_sdk.naming._trim import DEFAULT_TRIMMERS, TRIMMERS, trim_dataset_name

__all__ = [
    "DEFAULT_TRIMMERS",
    "TRIMMERS",
    "DatasetName",
    "NamingError",
    "dataset_from_uri",
    "jdbc_dataset",
    "jdbc_dialect",
    "jdbc_url_without_credentials",
    "trim_dataset_name",
    *_jobs.__all__,
    *_stores.__all__,
]
