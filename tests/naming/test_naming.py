"""Every row of both naming documents, one parametrized case each.

``NAMING_MD`` has one row per data store row of ``spec/naming.md`` (two
where a row allows two forms); ``SEED`` one per data store section of the
seed naming document (``shared/seeds/004_*.txt``). Where the two disagree,
``DIFFERENCES`` checks that naming.md wins.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from openlineage_sdk import naming
from openlineage_sdk.naming import DatasetName, dataset_from_uri

Row = tuple[str, Callable[[], DatasetName], str, str]

NAMING_MD: list[Row] = [
    (
        "Athena",
        lambda: naming.athena("us-east-1", "AwsDataCatalog", "sales", "orders"),
        "awsathena://athena.us-east-1.amazonaws.com",
        "AwsDataCatalog.sales.orders",
    ),
    (
        "AWS Glue",
        lambda: naming.glue("eu-west-1", "123456789012", "sales", "orders"),
        "arn:aws:glue:eu-west-1:123456789012",
        "table/sales/orders",
    ),
    (
        "Azure Cosmos DB",
        lambda: naming.azure_cosmos("shop.documents.azure.com", "orders_db", "orders"),
        "azurecosmos://shop.documents.azure.com/dbs/orders_db",
        "colls/orders",
    ),
    (
        "Azure Data Explorer",
        lambda: naming.azure_data_explorer("help.westeurope", "Samples", "StormEvents"),
        "azurekusto://help.westeurope.kusto.windows.net",
        "Samples/StormEvents",
    ),
    (
        "Azure Synapse",
        lambda: naming.azure_synapse("ws1.sql.azuresynapse.net", "dbo", "orders"),
        "sqlserver://ws1.sql.azuresynapse.net:1433",
        "dbo.orders",
    ),
    (
        "BigQuery",
        lambda: naming.bigquery("my-project", "sales", "orders"),
        "bigquery",
        "my-project.sales.orders",
    ),
    (
        "Cassandra",
        lambda: naming.cassandra("cass.example.com", "shop", "orders"),
        "cassandra://cass.example.com:9042",
        "shop.orders",
    ),
    (
        "Milvus",
        lambda: naming.milvus("milvus.example.com", "default", "documents"),
        "milvus://milvus.example.com:19530",
        "default.documents",
    ),
    (
        "Microsoft Fabric Warehouse",
        lambda: naming.fabric_warehouse(
            "abc123.datawarehouse.fabric.microsoft.com", "wh", "dbo", "orders"
        ),
        "fabric-warehouse://abc123.datawarehouse.fabric.microsoft.com",
        "wh.dbo.orders",
    ),
    (
        "Microsoft Fabric Warehouse (with port)",
        lambda: naming.fabric_warehouse(
            "abc123.datawarehouse.fabric.microsoft.com", "wh", "dbo", "orders", port=1444
        ),
        "fabric-warehouse://abc123.datawarehouse.fabric.microsoft.com:1444",
        "wh.dbo.orders",
    ),
    (
        "MySQL",
        lambda: naming.mysql("mysql.example.com", "shop", "orders"),
        "mysql://mysql.example.com:3306",
        "shop.orders",
    ),
    (
        "CrateDB",
        lambda: naming.crate("crate.example.com", "crate", "doc", "orders"),
        "crate://crate.example.com:5432",
        "crate.doc.orders",
    ),
    (
        "DB2",
        lambda: naming.db2("db2.example.com", "SAMPLE", "DB2INST1", "EMPLOYEE"),
        "db2://db2.example.com:50000",
        "SAMPLE.DB2INST1.EMPLOYEE",
    ),
    (
        "Hive",
        lambda: naming.hive("metastore.example.com", "sales", "orders"),
        "hive://metastore.example.com:9083",
        "sales.orders",
    ),
    (
        "MSSQL",
        lambda: naming.mssql("sql.example.com", "sales", "dbo", "orders"),
        "mssql://sql.example.com:1433",
        "sales.dbo.orders",
    ),
    (
        "OceanBase",
        lambda: naming.oceanbase("ob.example.com", "shop", "orders"),
        "oceanbase://ob.example.com:2881",
        "shop.orders",
    ),
    (
        "Oracle (service name)",
        lambda: naming.oracle("ora.example.com", "SALESPDB", "SCOTT", "EMP"),
        "oracle://ora.example.com:1521",
        "SALESPDB.SCOTT.EMP",
    ),
    (
        "Oracle (sid)",
        lambda: naming.oracle("ora.example.com", "ORCL", "SCOTT", "EMP", port=1522),
        "oracle://ora.example.com:1522",
        "ORCL.SCOTT.EMP",
    ),
    (
        "Postgres",
        lambda: naming.postgres("db.example.com", "shop", "sales", "orders"),
        "postgres://db.example.com:5432",
        "shop.sales.orders",
    ),
    (
        "Teradata",
        lambda: naming.teradata("td.example.com", "sales", "orders"),
        "teradata://td.example.com:1025",
        "sales.orders",
    ),
    (
        "Redshift",
        lambda: naming.redshift("examplecluster", "us-west-2", "dev", "public", "orders"),
        "redshift://examplecluster.us-west-2:5439",
        "dev.public.orders",
    ),
    (
        "Snowflake (organization-account)",
        lambda: naming.snowflake("myorg-myaccount", "analytics", "raw", "orders"),
        "snowflake://myorg-myaccount",
        "ANALYTICS.RAW.ORDERS",
    ),
    (
        "Snowflake (account locator)",
        lambda: naming.snowflake("xy12345.us-east-2.aws", "analytics", "raw", "orders"),
        "snowflake://xy12345.us-east-2.aws",
        "ANALYTICS.RAW.ORDERS",
    ),
    (
        "Spanner",
        lambda: naming.spanner("my-project", "my-instance", "shop", "sales", "orders"),
        "spanner://my-project:my-instance",
        "shop.sales.orders",
    ),
    (
        "Trino",
        lambda: naming.trino("trino.example.com", "hive", "sales", "orders"),
        "trino://trino.example.com:8080",
        "hive.sales.orders",
    ),
    (
        "Unity Catalog",
        lambda: naming.unity_catalog("adb-1.azuredatabricks.net", "main", "sales", "orders"),
        "unitycatalog://adb-1.azuredatabricks.net",
        "main.sales.orders",
    ),
    (
        "Unity Catalog (with port)",
        lambda: naming.unity_catalog("uc.example.com", "main", "sales", "orders", port=8080),
        "unitycatalog://uc.example.com:8080",
        "main.sales.orders",
    ),
    (
        "ABFSS (Azure Data Lake Gen2)",
        lambda: naming.abfss("raw", "datalake", "orders/2024"),
        "abfss://raw@datalake.dfs.core.windows.net",
        "orders/2024",
    ),
    (
        "DBFS (Databricks File System)",
        lambda: naming.dbfs("my-workspace", "/mnt/raw/orders"),
        "dbfs://my-workspace",
        "/mnt/raw/orders",
    ),
    (
        "GCS",
        lambda: naming.gcs("my-bucket", "raw/orders.parquet"),
        "gs://my-bucket",
        "raw/orders.parquet",
    ),
    (
        "HDFS",
        lambda: naming.hdfs("namenode.example.com", "/warehouse/orders"),
        "hdfs://namenode.example.com:8020",
        "/warehouse/orders",
    ),
    (
        "Kafka",
        lambda: naming.kafka("broker1.example.com:9093", "orders"),
        "kafka://broker1.example.com:9093",
        "orders",
    ),
    (
        "Local file system",
        lambda: naming.local_file("/data/orders.csv"),
        "file",
        "/data/orders.csv",
    ),
    (
        "Remote file system",
        lambda: naming.remote_file("fileserver.example.com", "/share/orders.csv"),
        "file://fileserver.example.com",
        "/share/orders.csv",
    ),
    (
        "Box",
        lambda: naming.box("api.box.com", "12345", "finance/orders.xlsx"),
        "box://api.box.com:443/12345",
        "finance/orders.xlsx",
    ),
    (
        "FileNet",
        lambda: naming.filenet("cpe.example.com", "OS1", "invoices/2024/inv-1.pdf", port=9443),
        "filenet://cpe.example.com:9443/OS1",
        "invoices/2024/inv-1.pdf",
    ),
    (
        "S3",
        lambda: naming.s3("my-bucket", "raw/orders"),
        "s3://my-bucket",
        "raw/orders",
    ),
    (
        "SharePoint",
        lambda: naming.sharepoint("contoso.sharepoint.com", "finance", "Shared Documents/q1.xlsx"),
        "mssharepoint://contoso.sharepoint.com:443/finance",
        "Shared Documents/q1.xlsx",
    ),
    (
        "WASBS (Azure Blob Storage)",
        lambda: naming.wasbs("raw", "datalake", "orders/2024.csv"),
        "wasbs://raw@datalake.dfs.core.windows.net",
        "orders/2024.csv",
    ),
    (
        "PubSub (topic)",
        lambda: naming.pubsub_topic("my-project", "orders"),
        "pubsub",
        "topic:my-project:orders",
    ),
    (
        "PubSub (subscription)",
        lambda: naming.pubsub_subscription("my-project", "orders-sub"),
        "pubsub",
        "subscription:my-project:orders-sub",
    ),
    (
        "In memory",
        lambda: naming.in_memory("temp_orders_view"),
        "inmemory://",
        "temp_orders_view",
    ),
]


def _ids(rows: list[Row]) -> list[str]:
    return [row[0] for row in rows]


def test_naming_md_table_is_the_one_in_spec() -> None:
    # The rows above are the "Data Store" column of the vendored spec/naming.md, every store
    # with a row and every row a store's ("Oracle (sid)" is one of Oracle's two forms).
    text = (Path(__file__).parents[2] / "spec" / "naming.md").read_text(encoding="utf-8")
    table = text.split("## Job Naming", 1)[0]
    stores = {
        line.split("|")[1].strip() for line in table.splitlines() if line.startswith("| ")
    } - {"Data Store"}
    covered = {row if row in stores else row.rsplit(" (", 1)[0] for row in _ids(NAMING_MD)}
    assert covered == stores


@pytest.mark.parametrize(("store", "build", "namespace", "name"), NAMING_MD, ids=_ids(NAMING_MD))
def test_naming_md_row_builder(
    store: str, build: Callable[[], DatasetName], namespace: str, name: str
) -> None:
    assert build() == DatasetName(namespace, name)


@pytest.mark.parametrize(("store", "build", "namespace", "name"), NAMING_MD, ids=_ids(NAMING_MD))
def test_naming_md_row_uri_round_trip(
    store: str, build: Callable[[], DatasetName], namespace: str, name: str
) -> None:
    # The naming conventions combine namespace and name into one URI; parsing
    # that URI must give the dataset back, whatever the store.
    dataset = DatasetName(namespace, name)
    assert dataset_from_uri(dataset.uri) == dataset


# --------------------------------------------------------------------------- seed document

# (section of the seed document, an input written the way that section
# writes its URI, expected namespace, expected name). The seed's sections
# are, in order: Postgres, MySQL, Trino, Redshift, Athena, Snowflake,
# BigQuery, Azure Synapse, Azure Cosmos DB, Azure Data Explorer, GCS, S3,
# HDFS, DBFS, ABFSS, WASBS, Local file system.
SEED: list[tuple[str, Callable[[], DatasetName], str, str]] = [
    (
        "Postgres",
        lambda: dataset_from_uri("postgres://db.example.com:5432/shop.sales.orders"),
        "postgres://db.example.com:5432",
        "shop.sales.orders",
    ),
    (
        "MySQL",
        lambda: dataset_from_uri("mysql://mysql.example.com:3306/shop.orders"),
        "mysql://mysql.example.com:3306",
        "shop.orders",
    ),
    (
        "Trino",
        lambda: dataset_from_uri("trino://trino.example.com:8080/hive.sales.orders"),
        "trino://trino.example.com:8080",
        "hive.sales.orders",
    ),
    (
        "Redshift (host)",
        lambda: dataset_from_uri(
            "jdbc:redshift://examplecluster.abc123xyz789.us-west-2.redshift.amazonaws.com:5439/dev",
            table="public.orders",
        ),
        "redshift://examplecluster.us-west-2:5439",
        "dev.public.orders",
    ),
    (
        "Redshift (cluster identifier and region)",
        lambda: dataset_from_uri("redshift://examplecluster.us-west-2:5439/dev.public.orders"),
        "redshift://examplecluster.us-west-2:5439",
        "dev.public.orders",
    ),
    (
        "Athena",
        lambda: dataset_from_uri(
            "awsathena://athena.us-east-1.amazonaws.com/AwsDataCatalog.sales.orders"
        ),
        "awsathena://athena.us-east-1.amazonaws.com",
        "AwsDataCatalog.sales.orders",
    ),
    (
        "Snowflake",
        lambda: dataset_from_uri("snowflake://myorg-myaccount/analytics.raw.orders"),
        "snowflake://myorg-myaccount",
        "ANALYTICS.RAW.ORDERS",
    ),
    (
        "BigQuery",
        lambda: dataset_from_uri("bigquery:my-project.sales.orders"),
        "bigquery",
        "my-project.sales.orders",
    ),
    (
        "Azure Synapse",
        lambda: dataset_from_uri(
            "sqlserver://ws1.sql.azuresynapse.net:1433;database=SQLPool1;/dbo.orders"
        ),
        "sqlserver://ws1.sql.azuresynapse.net:1433",
        "dbo.orders",
    ),
    (
        "Azure Cosmos DB",
        lambda: dataset_from_uri(
            "azurecosmos://shop.documents.azure.com/dbs/orders_db/colls/orders"
        ),
        "azurecosmos://shop.documents.azure.com/dbs/orders_db",
        "colls/orders",
    ),
    (
        "Azure Data Explorer",
        lambda: dataset_from_uri(
            "azurekusto://help.westeurope.kusto.windows.net/Samples/StormEvents"
        ),
        "azurekusto://help.westeurope.kusto.windows.net",
        "Samples/StormEvents",
    ),
    (
        "GCS",
        lambda: dataset_from_uri("gs://my-bucket/raw/orders.parquet"),
        "gs://my-bucket",
        "raw/orders.parquet",
    ),
    (
        "S3",
        lambda: dataset_from_uri("s3://my-bucket/raw/orders"),
        "s3://my-bucket",
        "raw/orders",
    ),
    (
        "HDFS",
        lambda: dataset_from_uri("hdfs://namenode.example.com:8020/warehouse/orders"),
        "hdfs://namenode.example.com:8020",
        "/warehouse/orders",
    ),
    (
        "DBFS",
        lambda: naming.dbfs("my-workspace", "/mnt/raw/orders"),
        "dbfs://my-workspace",
        "/mnt/raw/orders",
    ),
    (
        "ABFSS",
        lambda: dataset_from_uri("abfss://raw@datalake/orders/2024"),
        "abfss://raw@datalake.dfs.core.windows.net",
        "orders/2024",
    ),
    (
        "WASBS",
        lambda: dataset_from_uri("wasbs://raw@datalake/orders/2024.csv"),
        "wasbs://raw@datalake.dfs.core.windows.net",
        "orders/2024.csv",
    ),
    (
        "Local file system",
        lambda: dataset_from_uri("file://10.0.0.5:2049/exports/orders.csv"),
        "file://10.0.0.5",
        "/exports/orders.csv",
    ),
]


@pytest.mark.parametrize(("section", "make", "namespace", "name"), SEED, ids=[r[0] for r in SEED])
def test_seed_row(section: str, make: Callable[[], DatasetName], namespace: str, name: str) -> None:
    assert make() == DatasetName(namespace, name)


# --------------------------------------------------------------------------- differences

# (difference, what this SDK produces, naming.md's form, the seed's form)
DIFFERENCES: list[tuple[str, Callable[[], str], str, str]] = [
    (
        "DBFS scheme",
        lambda: naming.dbfs("ws", "/mnt/x").namespace,
        "dbfs://ws",
        "hdfs://ws",
    ),
    (
        "ABFSS endpoint",
        lambda: naming.abfss("raw", "datalake", "x").namespace,
        "abfss://raw@datalake.dfs.core.windows.net",
        "abfss://raw@datalake",
    ),
    (
        "WASBS endpoint",
        lambda: naming.wasbs("raw", "datalake", "x").namespace,
        "wasbs://raw@datalake.dfs.core.windows.net",
        "wasbs://raw@datalake",
    ),
    (
        "WASBS blob endpoint",
        lambda: dataset_from_uri("wasbs://raw@datalake.blob.core.windows.net/x").namespace,
        "wasbs://raw@datalake.dfs.core.windows.net",
        "wasbs://raw@datalake.blob.core.windows.net",
    ),
    (
        "S3 name is the key",
        lambda: dataset_from_uri("s3://my-bucket/raw/orders").name,
        "raw/orders",
        "/raw/orders",
    ),
    (
        "GCS name is the key",
        lambda: dataset_from_uri("gs://my-bucket/raw/orders").name,
        "raw/orders",
        "/raw/orders",
    ),
    (
        "Local file namespace",
        lambda: dataset_from_uri("file:///data/orders.csv").namespace,
        "file",
        "file://127.0.0.1:0",
    ),
    (
        "Remote file namespace has no port",
        lambda: dataset_from_uri("file://10.0.0.5:2049/x").namespace,
        "file://10.0.0.5",
        "file://10.0.0.5:2049",
    ),
    (
        "Synapse namespace has no database",
        lambda: (
            dataset_from_uri(
                "jdbc:sqlserver://ws1.sql.azuresynapse.net:1433;database=SQLPool1", "dbo.orders"
            ).namespace
        ),
        "sqlserver://ws1.sql.azuresynapse.net:1433",
        "sqlserver://ws1.sql.azuresynapse.net:1433;database=SQLPool1;",
    ),
    (
        "Cosmos DB name has no leading slash",
        lambda: naming.azure_cosmos("shop.documents.azure.com", "db", "orders").name,
        "colls/orders",
        "/colls/orders",
    ),
    (
        "Data Explorer namespace has no database",
        lambda: naming.azure_data_explorer("help.westeurope", "Samples", "T").namespace,
        "azurekusto://help.westeurope.kusto.windows.net",
        "azurekusto://help.westeurope.kusto.windows.net/Samples",
    ),
    (
        "Snowflake organization-account namespace",
        lambda: naming.snowflake("myorg-myaccount.snowflakecomputing.com", "d", "s", "t").namespace,
        "snowflake://myorg-myaccount",
        "snowflake://myorg-myaccount.snowflakecomputing.com",
    ),
]


@pytest.mark.parametrize(
    ("difference", "produce", "naming_md", "seed"), DIFFERENCES, ids=[d[0] for d in DIFFERENCES]
)
def test_difference_follows_naming_md(
    difference: str, produce: Callable[[], str], naming_md: str, seed: str
) -> None:
    assert produce() == naming_md


def test_module_docs_list_every_difference() -> None:
    # The module docs must say what was chosen for each difference.
    doc = naming.__doc__ or ""
    section = doc.split("Where the two naming documents differ", 1)[1]
    for store in (
        "DBFS",
        "ABFSS",
        "WASBS",
        "S3 and GCS",
        "Local file system",
        "Azure Synapse",
        "Azure Cosmos DB",
        "Azure Data Explorer",
        "Snowflake",
    ):
        assert f"**{store}" in section, store


# --------------------------------------------------------------------------- dataSource facet


@pytest.mark.parametrize(
    ("store", "build", "namespace", "name"),
    [*NAMING_MD, *SEED],
    ids=[f"naming.md {r[0]}" for r in NAMING_MD] + [f"seed {r[0]}" for r in SEED],
)
def test_every_row_gives_a_valid_datasource_facet(
    store: str, build: Callable[[], DatasetName], namespace: str, name: str
) -> None:
    # One call gives the facet, and it is valid for every store of both documents: its uri is
    # an absolute URI even where the namespace is a bare scheme (bigquery, file, pubsub).
    from openlineage_sdk import DatasetEvent, DatasetFacets, StaticDataset, validate_event
    from openlineage_sdk.facets import DatasourceDatasetFacet

    dataset = build()
    facet = dataset.datasource_facet()
    assert isinstance(facet, DatasourceDatasetFacet)
    assert (facet.name, facet.uri) == (dataset.datasource_name, dataset.datasource_uri)
    assert facet.name == namespace
    event = DatasetEvent(
        event_time="2024-05-01T00:00:00Z",
        dataset=StaticDataset(
            namespace=dataset.namespace, name=dataset.name, facets=DatasetFacets.of(facet)
        ),
    )
    assert validate_event(event.to_json(), strict=True, formats=True) == []
