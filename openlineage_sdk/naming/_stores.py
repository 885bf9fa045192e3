"""One builder per data store: a dataset's namespace and name from its parts.

Each builder applies its store's row of the naming conventions and nothing
else; the parsers in ``_parse`` take URLs apart and call these, so a dataset
gets the same name whichever way it is described. :func:`hostport` and
:func:`dotted` are shared with ``_parse`` for the few forms no builder has.
"""

from __future__ import annotations

import re
from types import MappingProxyType

from openlineage_sdk.naming import _parts as p
from openlineage_sdk.naming._model import DatasetName

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

Port = int | str | None

#: The port each store listens on when none is given. Ports are part of a
#: namespace (``postgres://host:5432``), so a URL without a port and one with
#: the default port must give the same namespace.
DEFAULT_PORTS: MappingProxyType[str, int] = MappingProxyType(
    {
        "azure_synapse": 1433,
        "box": 443,
        "cassandra": 9042,
        "clickhouse": 8123,
        "crate": 5432,
        "db2": 50000,
        "fabric_warehouse": 1433,
        "h2": 9092,
        "hdfs": 8020,
        "hive": 9083,
        "hive_server2": 10000,
        "kafka": 9092,
        "milvus": 19530,
        "mssql": 1433,
        "mysql": 3306,
        "oceanbase": 2881,
        "oracle": 1521,
        "postgres": 5432,
        "presto": 8080,
        "redshift": 5439,
        "sharepoint": 443,
        "teradata": 1025,
        "trino": 8080,
        "unity_catalog": 443,
    }
)


def hostport(
    store: str, host: str | None, port: Port, *, part: str = "host", omit_default: bool = False
) -> str:
    """``{host}:{port}``, both checked, with the store's default port when none is given.

    Args:
        store: The store, for errors and its :data:`DEFAULT_PORTS` entry; a
            store without one needs a port.
        host: The host as given.
        port: The port as given, or ``None``.
        part: The host's name in errors (``"namenode host"``).
        omit_default: Leave the port out when it is the default (for stores
            whose row allows the host alone).

    Returns:
        The normalized ``host:port``, or ``host``.
    """
    default = DEFAULT_PORTS.get(store)
    name = p.host(host, store, part)
    number = p.port(port, default, store)
    return name if omit_default and number == default else f"{name}:{number}"


def dotted(store: str, **levels: str) -> str:
    """Join name levels with dots, checking each (keyword order is kept)."""
    return ".".join(p.ident(value, store, level) for level, value in levels.items())


# --------------------------------------------------------------------------- warehouses


def _aws_region(region: str, store: str) -> str:
    text = p.ident(region, store, "region").lower()
    if not p.AWS_REGION_RE.match(text):
        raise p.fail(store, f"invalid region {text!r}")
    return text


def athena(region: str, catalog: str, database: str, table: str) -> DatasetName:
    """Name an Amazon Athena table.

    Args:
        region: The AWS region, e.g. ``"us-east-1"``.
        catalog: The data catalog, e.g. ``"AwsDataCatalog"``.
        database: The database.
        table: The table.

    Returns:
        ``awsathena://athena.{region}.amazonaws.com`` and
        ``{catalog}.{database}.{table}``.
    """
    store = "athena"
    return DatasetName(
        f"awsathena://athena.{_aws_region(region, store)}.amazonaws.com",
        dotted(store, catalog=catalog, database=database, table=table),
    )


_ACCOUNT_ID_RE = re.compile(r"^\d{12}$")


def glue(
    region: str, account_id: str, database: str, table: str, *, partition: str = "aws"
) -> DatasetName:
    """Name an AWS Glue Data Catalog table.

    Args:
        region: The AWS region, e.g. ``"us-east-1"``.
        account_id: The 12-digit AWS account id owning the catalog.
        database: The Glue database.
        table: The table.
        partition: The AWS partition; ``"aws"`` everywhere but in China
            (``"aws-cn"``) and GovCloud (``"aws-us-gov"``).

    Returns:
        ``arn:aws:glue:{region}:{account id}`` and ``table/{database}/{table}``;
        :attr:`DatasetName.uri` then is the table's ARN.
    """
    store = "glue"
    account = p.ident(str(account_id), store, "account id")
    if not _ACCOUNT_ID_RE.match(account):
        raise p.fail(store, "invalid account id: 12 digits expected")
    part = p.ident(partition, store, "partition").lower()
    if part not in ("aws", "aws-cn", "aws-us-gov"):
        raise p.fail(store, f"invalid partition {part!r}")
    db = p.ident(database, store, "database")
    tbl = p.ident(table, store, "table")
    return DatasetName(
        f"arn:{part}:glue:{_aws_region(region, store)}:{account}", f"table/{db}/{tbl}"
    )


def azure_cosmos(host: str, database: str, table: str) -> DatasetName:
    """Name an Azure Cosmos DB container (collection).

    Args:
        host: The account endpoint, ``{account}.documents.azure.com``; a bare
            account name gets that suffix.
        database: The database.
        table: The container (``colls`` in Cosmos DB's resource paths).

    Returns:
        ``azurecosmos://{host}/dbs/{database}`` and ``colls/{table}``.
    """
    store = "azure_cosmos"
    endpoint = p.host(host, store)
    if "." not in endpoint:
        endpoint = f"{endpoint}.documents.azure.com"
    db = p.ident(database, store, "database")
    tbl = p.ident(table, store, "table")
    return DatasetName(f"azurecosmos://{endpoint}/dbs/{db}", f"colls/{tbl}")


def azure_data_explorer(cluster: str, database: str, table: str) -> DatasetName:
    """Name an Azure Data Explorer (Kusto) table.

    Args:
        cluster: ``{cluster name}.{region}``, e.g. ``"help.westeurope"``; a full
            ``https://...kusto.windows.net`` endpoint is accepted too.
        database: The database.
        table: The table.

    Returns:
        ``azurekusto://{cluster}.kusto.windows.net`` and ``{database}/{table}``.
    """
    store = "azure_data_explorer"
    text = p.text(cluster).lower()
    text = text.removeprefix("https://").removeprefix("http://").rstrip("/")
    text = p.host(text.removesuffix(".kusto.windows.net"), store, "cluster")
    db = p.ident(database, store, "database")
    tbl = p.ident(table, store, "table")
    return DatasetName(f"azurekusto://{text}.kusto.windows.net", f"{db}/{tbl}")


def azure_synapse(host: str, schema: str, table: str, *, port: Port = None) -> DatasetName:
    """Name an Azure Synapse Analytics SQL pool table.

    Args:
        host: The SQL endpoint, e.g. ``"ws.sql.azuresynapse.net"``.
        schema: The schema.
        table: The table.
        port: The port; 1433 when not given.

    Returns:
        ``sqlserver://{host}:{port}`` and ``{schema}.{table}``.
    """
    store = "azure_synapse"
    return DatasetName(
        f"sqlserver://{hostport(store, host, port)}",
        dotted(store, schema=schema, table=table),
    )


def bigquery(project: str, dataset: str, table: str) -> DatasetName:
    """Name a BigQuery table.

    Args:
        project: The project id (not its display name or number).
        dataset: The dataset.
        table: The table.

    Returns:
        ``bigquery`` and ``{project}.{dataset}.{table}``.
    """
    store = "bigquery"
    return DatasetName("bigquery", dotted(store, project=project, dataset=dataset, table=table))


def cassandra(host: str, keyspace: str, table: str, *, port: Port = None) -> DatasetName:
    """Name a Cassandra table.

    Args:
        host: A contact point.
        keyspace: The keyspace.
        table: The table.
        port: The native protocol port; 9042 when not given.

    Returns:
        ``cassandra://{host}:{port}`` and ``{keyspace}.{table}``.
    """
    store = "cassandra"
    return DatasetName(
        f"cassandra://{hostport(store, host, port)}",
        dotted(store, keyspace=keyspace, table=table),
    )


def milvus(host: str, database: str, collection: str, *, port: Port = None) -> DatasetName:
    """Name a Milvus collection.

    Args:
        host: The Milvus server.
        database: The database (Milvus's is ``default`` unless chosen).
        collection: The collection.
        port: The port; 19530 when not given.

    Returns:
        ``milvus://{host}:{port}`` and ``{database}.{collection}``.
    """
    store = "milvus"
    return DatasetName(
        f"milvus://{hostport(store, host, port)}",
        dotted(store, database=database, collection=collection),
    )


def fabric_warehouse(
    endpoint: str, database: str, schema: str, table: str, *, port: Port = None
) -> DatasetName:
    """Name a Microsoft Fabric Warehouse table.

    The naming conventions allow the SQL analytics endpoint with or without
    a port; to give one dataset one name, the port is written only when it
    is not the TDS default 1433.

    Args:
        endpoint: The SQL analytics endpoint,
            ``{id}.datawarehouse.fabric.microsoft.com``.
        database: The warehouse.
        schema: The schema.
        table: The table.
        port: The port, if not 1433.

    Returns:
        ``fabric-warehouse://{endpoint}`` (or ``...:{port}``) and
        ``{database}.{schema}.{table}``.
    """
    store = "fabric_warehouse"
    return DatasetName(
        f"fabric-warehouse://{hostport(store, endpoint, port, part='endpoint', omit_default=True)}",
        dotted(store, database=database, schema=schema, table=table),
    )


def mysql(host: str, database: str, table: str, *, port: Port = None) -> DatasetName:
    """Name a MySQL (or MariaDB) table.

    Args:
        host: The server.
        database: The database.
        table: The table.
        port: The port; 3306 when not given.

    Returns:
        ``mysql://{host}:{port}`` and ``{database}.{table}``.
    """
    store = "mysql"
    return DatasetName(
        f"mysql://{hostport(store, host, port)}",
        dotted(store, database=database, table=table),
    )


def crate(host: str, database: str, schema: str, table: str, *, port: Port = None) -> DatasetName:
    """Name a CrateDB table.

    Args:
        host: The server.
        database: The database (CrateDB's is ``crate``).
        schema: The schema.
        table: The table.
        port: The PostgreSQL-protocol port; 5432 when not given.

    Returns:
        ``crate://{host}:{port}`` and ``{database}.{schema}.{table}``.
    """
    store = "crate"
    return DatasetName(
        f"crate://{hostport(store, host, port)}",
        dotted(store, database=database, schema=schema, table=table),
    )


def db2(host: str, database: str, schema: str, table: str, *, port: Port = None) -> DatasetName:
    """Name an IBM Db2 table.

    Args:
        host: The server.
        database: The database (location).
        schema: The schema.
        table: The table.
        port: The port; 50000 when not given.

    Returns:
        ``db2://{host}:{port}`` and ``{database}.{schema}.{table}``.
    """
    store = "db2"
    return DatasetName(
        f"db2://{hostport(store, host, port)}",
        dotted(store, database=database, schema=schema, table=table),
    )


def hive(host: str, database: str, table: str, *, port: Port = None) -> DatasetName:
    """Name a Hive table.

    Args:
        host: The metastore (or HiveServer2) host.
        database: The database.
        table: The table.
        port: The port; the metastore's 9083 when not given. (A
            ``jdbc:hive2://`` URL without a port means HiveServer2's 10000.)

    Returns:
        ``hive://{host}:{port}`` and ``{database}.{table}``.
    """
    store = "hive"
    return DatasetName(
        f"hive://{hostport(store, host, port)}",
        dotted(store, database=database, table=table),
    )


def mssql(host: str, database: str, schema: str, table: str, *, port: Port = None) -> DatasetName:
    """Name a Microsoft SQL Server (or Azure SQL Database) table.

    Args:
        host: The server.
        database: The database.
        schema: The schema, e.g. ``dbo``.
        table: The table.
        port: The port; 1433 when not given.

    Returns:
        ``mssql://{host}:{port}`` and ``{database}.{schema}.{table}``.
    """
    store = "mssql"
    return DatasetName(
        f"mssql://{hostport(store, host, port)}",
        dotted(store, database=database, schema=schema, table=table),
    )


def oceanbase(host: str, database: str, table: str, *, port: Port = None) -> DatasetName:
    """Name an OceanBase table.

    Args:
        host: The server (or OBProxy).
        database: The database.
        table: The table.
        port: The port; 2881 when not given.

    Returns:
        ``oceanbase://{host}:{port}`` and ``{database}.{table}``.
    """
    store = "oceanbase"
    return DatasetName(
        f"oceanbase://{hostport(store, host, port)}",
        dotted(store, database=database, table=table),
    )


def oracle(host: str, service: str, schema: str, table: str, *, port: Port = None) -> DatasetName:
    """Name an Oracle table.

    Args:
        host: The listener host.
        service: The service name or, for old-style URLs, the SID.
        schema: The schema (owner).
        table: The table.
        port: The listener port; 1521 when not given.

    Returns:
        ``oracle://{host}:{port}`` and ``{service}.{schema}.{table}``.
    """
    store = "oracle"
    return DatasetName(
        f"oracle://{hostport(store, host, port)}",
        dotted(store, service=service, schema=schema, table=table),
    )


def postgres(
    host: str, database: str, schema: str, table: str, *, port: Port = None
) -> DatasetName:
    """Name a PostgreSQL table.

    Args:
        host: The server.
        database: The database.
        schema: The schema, e.g. ``public``.
        table: The table.
        port: The port; 5432 when not given.

    Returns:
        ``postgres://{host}:{port}`` and ``{database}.{schema}.{table}``.
    """
    store = "postgres"
    return DatasetName(
        f"postgres://{hostport(store, host, port)}",
        dotted(store, database=database, schema=schema, table=table),
    )


def teradata(host: str, database: str, table: str, *, port: Port = None) -> DatasetName:
    """Name a Teradata table.

    Args:
        host: The server.
        database: The database.
        table: The table.
        port: The port; 1025 when not given.

    Returns:
        ``teradata://{host}:{port}`` and ``{database}.{table}``.
    """
    store = "teradata"
    return DatasetName(
        f"teradata://{hostport(store, host, port)}",
        dotted(store, database=database, table=table),
    )


_CLUSTER_ID_RE = re.compile(r"^[a-z][a-z0-9-]*$")


def redshift(
    cluster_identifier: str,
    region: str,
    database: str,
    schema: str,
    table: str,
    *,
    port: Port = None,
) -> DatasetName:
    """Name an Amazon Redshift table.

    The cluster identifier and region, not the endpoint host, identify a
    cluster: they are what both SQL connections and the Data API see.

    Args:
        cluster_identifier: The cluster identifier (or serverless workgroup).
        region: The AWS region, e.g. ``"us-west-2"``.
        database: The database.
        schema: The schema.
        table: The table.
        port: The port; 5439 when not given.

    Returns:
        ``redshift://{cluster_identifier}.{region}:{port}`` and
        ``{database}.{schema}.{table}``.
    """
    store = "redshift"
    cluster = p.ident(cluster_identifier, store, "cluster identifier").lower()
    if not _CLUSTER_ID_RE.match(cluster):
        raise p.fail(store, f"invalid cluster identifier {cluster!r}")
    number = p.port(port, DEFAULT_PORTS[store], store)
    return DatasetName(
        f"redshift://{cluster}.{_aws_region(region, store)}:{number}",
        dotted(store, database=database, schema=schema, table=table),
    )


_SNOWFLAKE_ACCOUNT_RE = re.compile(r"^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$")


def snowflake_account(account: str) -> str:
    """Normalize a Snowflake account identifier for a namespace.

    Accepts the preferred ``{organization}-{account name}`` form, a legacy
    account locator with its optional compliance, region and cloud parts
    (``xy12345.us-east-2.aws``), or a whole account URL or host. The
    ``snowflakecomputing.com`` domain and a ``privatelink`` segment are
    connection details, not identity, and are dropped; the rest is
    lower-cased (Snowflake account identifiers are case-insensitive).

    Args:
        account: The account identifier, host or URL.

    Returns:
        The identifier, e.g. ``"myorg-myaccount"`` or ``"xy12345.us-east-2.aws"``.

    Raises:
        NamingError: The account is missing or is not an account identifier.
    """
    store = "snowflake"
    text = p.ident(account, store, "account").lower()
    text = text.removeprefix("https://").removeprefix("http://").rstrip("/")
    for domain in (".snowflakecomputing.com", ".snowflakecomputing.cn"):
        text = text.removesuffix(domain)
    text = text.removesuffix(".privatelink")
    if not _SNOWFLAKE_ACCOUNT_RE.match(text):
        raise p.fail(store, f"invalid account {text!r}")
    return text


def _snowflake_ident(value: str, level: str) -> str:
    # Snowflake stores unquoted identifiers in upper case and resolves them
    # case-insensitively; only a double-quoted identifier keeps its case.
    quoted = isinstance(value, p.Ident) and value.quoted
    text = p.ident(value, "snowflake", level)
    if not quoted and len(text) >= 2 and text.startswith('"') and text.endswith('"'):
        text, quoted = text[1:-1].replace('""', '"'), True
        if not text:
            raise p.fail("snowflake", f"missing {level}")
    return text if quoted else text.upper()


def snowflake(account: str, database: str, schema: str, table: str) -> DatasetName:
    """Name a Snowflake table.

    Unquoted identifiers are upper-cased, as Snowflake stores them; wrap
    one in double quotes (``'"MixedCase"'``) to keep its case.

    Args:
        account: ``{organization}-{account name}`` (preferred), a legacy
            account locator such as ``xy12345.us-east-2.aws``, or the
            account's host; see :func:`snowflake_account`.
        database: The database.
        schema: The schema.
        table: The table.

    Returns:
        ``snowflake://{account}`` and ``{DATABASE}.{SCHEMA}.{TABLE}``.
    """
    return DatasetName(
        f"snowflake://{snowflake_account(account)}",
        ".".join(
            _snowflake_ident(value, level)
            for level, value in (("database", database), ("schema", schema), ("table", table))
        ),
    )


def spanner(project: str, instance: str, database: str, schema: str, table: str) -> DatasetName:
    """Name a Cloud Spanner table.

    Args:
        project: The project id.
        instance: The instance id.
        database: The database.
        schema: The named schema.
        table: The table.

    Returns:
        ``spanner://{project}:{instance}`` and ``{database}.{schema}.{table}``.
    """
    store = "spanner"
    proj = p.ident(project, store, "project")
    inst = p.ident(instance, store, "instance")
    for label, value in (("project", proj), ("instance", inst)):
        if "/" in value or (label == "instance" and ":" in value):
            raise p.fail(store, f"invalid {label} {value!r}")
    return DatasetName(
        f"spanner://{proj}:{inst}",
        dotted(store, database=database, schema=schema, table=table),
    )


def trino(host: str, catalog: str, schema: str, table: str, *, port: Port = None) -> DatasetName:
    """Name a table queried through Trino.

    Args:
        host: The coordinator.
        catalog: The catalog.
        schema: The schema.
        table: The table.
        port: The port; 8080 when not given.

    Returns:
        ``trino://{host}:{port}`` and ``{catalog}.{schema}.{table}``.
    """
    store = "trino"
    return DatasetName(
        f"trino://{hostport(store, host, port)}",
        dotted(store, catalog=catalog, schema=schema, table=table),
    )


def unity_catalog(
    host: str, catalog: str, schema: str, table: str, *, port: Port = None
) -> DatasetName:
    """Name a Unity Catalog table (Databricks or the open-source server).

    The naming conventions allow the host with or without a port; to give
    one dataset one name, the port is written only when it is not 443.

    Args:
        host: The workspace or Unity Catalog server host.
        catalog: The catalog.
        schema: The schema.
        table: The table.
        port: The port, if not 443.

    Returns:
        ``unitycatalog://{host}`` (or ``...:{port}``) and
        ``{catalog}.{schema}.{table}``.
    """
    store = "unity_catalog"
    return DatasetName(
        f"unitycatalog://{hostport(store, host, port, omit_default=True)}",
        dotted(store, catalog=catalog, schema=schema, table=table),
    )


# Stores that neither naming document lists, named the same way as their
# closest listed relatives so that their JDBC URLs can be named at all.


def clickhouse(host: str, database: str, table: str, *, port: Port = None) -> DatasetName:
    """Name a ClickHouse table (not in the naming documents; modelled on MySQL).

    Args:
        host: The server.
        database: The database.
        table: The table.
        port: The HTTP port; 8123 when not given.

    Returns:
        ``clickhouse://{host}:{port}`` and ``{database}.{table}``.
    """
    store = "clickhouse"
    return DatasetName(
        f"clickhouse://{hostport(store, host, port)}",
        dotted(store, database=database, table=table),
    )


def presto(host: str, catalog: str, schema: str, table: str, *, port: Port = None) -> DatasetName:
    """Name a table queried through Presto (not in the naming documents; as Trino).

    Args:
        host: The coordinator.
        catalog: The catalog.
        schema: The schema.
        table: The table.
        port: The port; 8080 when not given.

    Returns:
        ``presto://{host}:{port}`` and ``{catalog}.{schema}.{table}``.
    """
    store = "presto"
    return DatasetName(
        f"presto://{hostport(store, host, port)}",
        dotted(store, catalog=catalog, schema=schema, table=table),
    )


def sqlite(path: str, table: str) -> DatasetName:
    """Name a table in an SQLite database file (not in the naming documents).

    The database file is the data source, so its absolute path is the
    namespace's path; the table is the name.

    Args:
        path: The database file's absolute path.
        table: The table.

    Returns:
        ``sqlite://{path}`` (e.g. ``sqlite:///data/app.db``) and ``{table}``.
    """
    store = "sqlite"
    return DatasetName(f"sqlite://{p.absolute_path(path, store)}", p.ident(table, store, "table"))


# --------------------------------------------------------------------------- object stores, file systems

_BUCKET_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{1,253}[A-Za-z0-9]$")


def _bucket(bucket: str, store: str) -> str:
    text = p.text(bucket)
    if not text:
        raise p.fail(store, "missing bucket")
    if not _BUCKET_RE.match(text) or ".." in text:
        raise p.fail(store, f"invalid bucket {p.redact(text)!r}")
    return text


def s3(bucket: str, key: str = "") -> DatasetName:
    """Name an Amazon S3 object or prefix.

    Args:
        bucket: The bucket.
        key: The object key or prefix, without the bucket; empty for the
            whole bucket.

    Returns:
        ``s3://{bucket}`` and ``{key}`` (``raw/orders``, no leading slash).
    """
    store = "s3"
    return DatasetName(f"s3://{_bucket(bucket, store)}", p.object_key(key, store))


def gcs(bucket: str, key: str = "") -> DatasetName:
    """Name a Google Cloud Storage object or prefix.

    Args:
        bucket: The bucket.
        key: The object name or prefix; empty for the whole bucket.

    Returns:
        ``gs://{bucket}`` and ``{key}``.
    """
    store = "gcs"
    return DatasetName(f"gs://{_bucket(bucket, store)}", p.object_key(key, store))


_CONTAINER_RE = re.compile(r"^\$?[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$")


def _azure_container(container: str, store: str) -> str:
    text = p.text(container).lower()
    if not text:
        raise p.fail(store, "missing container")
    if not _CONTAINER_RE.match(text):
        raise p.fail(store, f"invalid container {p.redact(text)!r}")
    return text


def _azure_endpoint(account: str, store: str) -> str:
    # A bare storage account name gets the endpoint suffix the naming
    # conventions give; a full host (another Azure cloud's, say) is kept.
    endpoint = p.host(account, store, "storage account")
    if "." not in endpoint:
        return f"{endpoint}.dfs.core.windows.net"
    # The blob and dfs endpoints of one storage account hold the same data.
    if endpoint.endswith(".blob.core.windows.net"):
        return endpoint.removesuffix(".blob.core.windows.net") + ".dfs.core.windows.net"
    return endpoint


def abfss(container: str, account: str, path: str = "") -> DatasetName:
    """Name a path in Azure Data Lake Storage Gen2.

    Args:
        container: The container (file system).
        account: The storage account name, or its full endpoint host.
        path: The path in the container; empty for the container's root.

    Returns:
        ``abfss://{container}@{account}.dfs.core.windows.net`` and ``/{path}``.
    """
    store = "abfss"
    return DatasetName(
        f"abfss://{_azure_container(container, store)}@{_azure_endpoint(account, store)}",
        p.fs_path(path, store),
    )


def wasbs(container: str, account: str, key: str = "") -> DatasetName:
    """Name a blob or prefix in Azure Blob Storage.

    Args:
        container: The container.
        account: The storage account name, or its full endpoint host.
        key: The blob name or prefix; empty for the whole container.

    Returns:
        ``wasbs://{container}@{account}.dfs.core.windows.net`` and ``{key}``.
    """
    store = "wasbs"
    return DatasetName(
        f"wasbs://{_azure_container(container, store)}@{_azure_endpoint(account, store)}",
        p.object_key(key, store),
    )


def dbfs(workspace: str | None, path: str) -> DatasetName:
    """Name a path in the Databricks File System.

    Args:
        workspace: The workspace name, or ``None`` for a path that names none
            (``dbfs:/mnt/raw``, as a cluster spells its own workspace's DBFS).
        path: The path, e.g. ``/mnt/raw/orders``.

    Returns:
        ``dbfs://{workspace}`` and ``{path}``; without a workspace, ``dbfs``
        and ``{path}``, as the JVM openlineage-spark agent names such paths.
    """
    store = "dbfs"
    namespace = "dbfs" if workspace is None else f"dbfs://{p.host(workspace, store, 'workspace')}"
    return DatasetName(namespace, p.fs_path(path, store))


def hdfs(host: str, path: str, *, port: Port = None) -> DatasetName:
    """Name a path in HDFS.

    Args:
        host: The namenode host.
        path: The path.
        port: The namenode RPC port; 8020 when not given.

    Returns:
        ``hdfs://{namenode host}:{namenode port}`` and ``{path}``.
    """
    store = "hdfs"
    return DatasetName(
        f"hdfs://{hostport(store, host, port, part='namenode host')}", p.fs_path(path, store)
    )


def local_file(path: str) -> DatasetName:
    """Name a file or directory on the local file system.

    Args:
        path: The absolute path (POSIX, or a Windows drive path).

    Returns:
        ``file`` and ``{path}``.
    """
    return DatasetName("file", p.absolute_path(path, "local_file"))


def remote_file(host: str, path: str) -> DatasetName:
    """Name a file or directory on another host's file system.

    Args:
        host: The host.
        path: The absolute path on that host.

    Returns:
        ``file://{host}`` and ``{path}``.
    """
    store = "remote_file"
    return DatasetName(f"file://{p.host(host, store)}", p.absolute_path(path, store))


def _document_store(
    scheme: str, store: str, host: str, port: Port, root: str, label: str, key: str
) -> DatasetName:
    root_id = p.ident(root, store, label)
    if "/" in root_id:
        raise p.fail(store, f"invalid {label}: '/' not allowed")
    return DatasetName(
        f"{scheme}://{hostport(store, host, port)}/{root_id}", p.object_key(key, store)
    )


def box(host: str, enterprise_id: str, key: str, *, port: Port = None) -> DatasetName:
    """Name a Box file or folder.

    Args:
        host: The API host, e.g. ``"api.box.com"``.
        enterprise_id: The enterprise id.
        key: The object key (file or folder path or id).
        port: The port; 443 when not given.

    Returns:
        ``box://{host}:{port}/{enterprise id}`` and ``{key}``.
    """
    return _document_store("box", "box", host, port, enterprise_id, "enterprise id", key)


def filenet(host: str, repository_id: str, key: str, *, port: Port) -> DatasetName:
    """Name an IBM FileNet document or folder.

    FileNet servers listen on no single well-known port, so it must be given.

    Args:
        host: The content engine host.
        repository_id: The repository (object store) id.
        key: The object key.
        port: The content engine's port.

    Returns:
        ``filenet://{host}:{port}/{repository id}`` and ``{key}``.
    """
    return _document_store("filenet", "filenet", host, port, repository_id, "repository id", key)


def sharepoint(host: str, site: str, key: str, *, port: Port = None) -> DatasetName:
    """Name a SharePoint document or folder.

    Args:
        host: The tenant host, e.g. ``"contoso.sharepoint.com"``.
        site: The site.
        key: The object key (path within the site).
        port: The port; 443 when not given.

    Returns:
        ``mssharepoint://{host}:{port}/{site}`` and ``{key}``.
    """
    return _document_store("mssharepoint", "sharepoint", host, port, site, "site", key)


# --------------------------------------------------------------------------- streams, memory

_TOPIC_RE = re.compile(r"^[A-Za-z0-9._-]{1,249}$")
_LISTENER_RE = re.compile(r"^[A-Za-z_]+://")


def kafka(bootstrap_server: str, topic: str) -> DatasetName:
    """Name a Kafka topic.

    Args:
        bootstrap_server: ``host:port`` of a bootstrap server (port 9092 when
            left out). A comma-separated list names the cluster by its first
            server, and a listener prefix such as ``SASL_SSL://`` is dropped.
        topic: The topic.

    Returns:
        ``kafka://{host}:{port}`` and ``{topic}``.
    """
    store = "kafka"
    host, port = p.host_port(_LISTENER_RE.sub("", p.text(bootstrap_server)))
    server = hostport(store, host, port, part="bootstrap server host")
    name = p.text(topic)
    if not name:
        raise p.fail(store, "missing topic")
    if not _TOPIC_RE.match(name):
        raise p.fail(store, f"invalid topic {p.redact(name)!r}")
    return DatasetName(f"kafka://{server}", name)


def _pubsub(kind: str, project: str, resource: str) -> DatasetName:
    store = "pubsub"
    proj = p.ident(project, store, "project")
    res = p.ident(resource, store, kind)
    # ':' separates the parts of the name; ids never contain '/' or ':'
    # (a legacy domain-scoped project, "example.com:proj", keeps its ':').
    if "/" in proj:
        raise p.fail(store, "invalid project: '/' not allowed")
    if "/" in res or ":" in res:
        raise p.fail(store, f"invalid {kind}: '/' and ':' not allowed")
    return DatasetName("pubsub", f"{kind}:{proj}:{res}")


def pubsub_topic(project: str, topic: str) -> DatasetName:
    """Name a Google Cloud Pub/Sub topic.

    Args:
        project: The project id.
        topic: The topic id (not its ``projects/.../topics/...`` path).

    Returns:
        ``pubsub`` and ``topic:{project}:{topic}``.
    """
    return _pubsub("topic", project, topic)


def pubsub_subscription(project: str, subscription: str) -> DatasetName:
    """Name a Google Cloud Pub/Sub subscription.

    Args:
        project: The project id.
        subscription: The subscription id.

    Returns:
        ``pubsub`` and ``subscription:{project}:{subscription}``.
    """
    return _pubsub("subscription", project, subscription)


def in_memory(name: str) -> DatasetName:
    """Name a temporary dataset that lives only in memory.

    Args:
        name: The temporary dataset's name or id (a view, a DataFrame ...).

    Returns:
        ``inmemory://`` and ``{name}``.
    """
    return DatasetName("inmemory://", p.ident(name, "in_memory", "name"))
