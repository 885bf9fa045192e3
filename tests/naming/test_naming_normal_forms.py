"""Scheme aliases, default ports, case rules, JDBC dialects and table arguments."""

from __future__ import annotations

import pytest

from openlineage_sdk import naming
from openlineage_sdk.naming import DatasetName, dataset_from_uri

# --------------------------------------------------------------------------- scheme aliases

# (alias, input, namespace, name)
SCHEMES = [
    ("s3a", "s3a://my-bucket/raw/orders", "s3://my-bucket", "raw/orders"),
    ("s3n", "s3n://my-bucket/raw/orders", "s3://my-bucket", "raw/orders"),
    ("S3 upper case", "S3://my-bucket/raw/orders", "s3://my-bucket", "raw/orders"),
    ("gcs", "gcs://my-bucket/raw/orders", "gs://my-bucket", "raw/orders"),
    (
        "abfs",
        "abfs://raw@lake.dfs.core.windows.net/o",
        "abfss://raw@lake.dfs.core.windows.net",
        "o",
    ),
    (
        "wasb",
        "wasb://raw@lake.blob.core.windows.net/o",
        "wasbs://raw@lake.dfs.core.windows.net",
        "o",
    ),
    (
        "postgresql",
        "postgresql://db.example.com/shop.sales.orders",
        "postgres://db.example.com:5432",
        "shop.sales.orders",
    ),
    (
        "postgresql+driver",
        "postgresql+psycopg://db.example.com/shop.sales.orders",
        "postgres://db.example.com:5432",
        "shop.sales.orders",
    ),
    (
        "mariadb",
        "mariadb://maria.example.com/shop.orders",
        "mysql://maria.example.com:3306",
        "shop.orders",
    ),
    (
        "thrift (Hive metastore)",
        "thrift://metastore.example.com:9083/sales.orders",
        "hive://metastore.example.com:9083",
        "sales.orders",
    ),
    ("bq", "bq://my-project/sales.orders", "bigquery", "my-project.sales.orders"),
    (
        "https S3 virtual-hosted",
        "https://my-bucket.s3.eu-west-1.amazonaws.com/raw/o.csv",
        "s3://my-bucket",
        "raw/o.csv",
    ),
    (
        "https S3 path-style",
        "https://s3.eu-west-1.amazonaws.com/my-bucket/raw/o.csv",
        "s3://my-bucket",
        "raw/o.csv",
    ),
    (
        "https GCS",
        "https://storage.googleapis.com/my-bucket/raw/o.csv",
        "gs://my-bucket",
        "raw/o.csv",
    ),
    (
        "https Azure blob",
        "https://lake.blob.core.windows.net/raw/o.csv",
        "wasbs://raw@lake.dfs.core.windows.net",
        "o.csv",
    ),
    (
        "https Azure dfs",
        "https://lake.dfs.core.windows.net/raw/o.csv",
        "abfss://raw@lake.dfs.core.windows.net",
        "o.csv",
    ),
    ("absolute path", "/data/orders.csv", "file", "/data/orders.csv"),
    ("file: one slash", "file:/data/orders.csv", "file", "/data/orders.csv"),
    ("file://localhost", "file://localhost/data/orders.csv", "file", "/data/orders.csv"),
    ("Windows path", "C:\\data\\orders.csv", "file", "/C:/data/orders.csv"),
    ("file URI of a Windows path", "file:///C:/data/orders.csv", "file", "/C:/data/orders.csv"),
    ("inmemory with one slash pair", "inmemory://temp_view", "inmemory://", "temp_view"),
]


# --------------------------------------------------------------------------- default ports

# (store, URL without a port, namespace with the default port filled in)
PORTS = [
    (
        "postgres",
        "jdbc:postgresql://db.example.com/shop?currentSchema=s",
        "postgres://db.example.com:5432",
    ),
    ("mysql", "jdbc:mysql://db.example.com/shop", "mysql://db.example.com:3306"),
    ("mariadb", "jdbc:mariadb://db.example.com/shop", "mysql://db.example.com:3306"),
    (
        "sqlserver",
        "jdbc:sqlserver://db.example.com;databaseName=shop",
        "mssql://db.example.com:1433",
    ),
    (
        "synapse",
        "jdbc:sqlserver://ws.sql.azuresynapse.net;database=pool",
        "sqlserver://ws.sql.azuresynapse.net:1433",
    ),
    ("oracle", "jdbc:oracle:thin:@//db.example.com/SVC", "oracle://db.example.com:1521"),
    (
        "redshift",
        "jdbc:redshift://c1.abc123.us-east-1.redshift.amazonaws.com/dev",
        "redshift://c1.us-east-1:5439",
    ),
    ("db2", "jdbc:db2://db.example.com/SAMPLE", "db2://db.example.com:50000"),
    ("teradata", "jdbc:teradata://td.example.com/DATABASE=sales", "teradata://td.example.com:1025"),
    ("trino", "jdbc:trino://trino.example.com/hive/sales", "trino://trino.example.com:8080"),
    ("presto", "jdbc:presto://presto.example.com/hive/sales", "presto://presto.example.com:8080"),
    ("clickhouse", "jdbc:clickhouse://ch.example.com/default", "clickhouse://ch.example.com:8123"),
    ("oceanbase", "jdbc:oceanbase://ob.example.com/shop", "oceanbase://ob.example.com:2881"),
    ("crate", "jdbc:crate://crate.example.com/", "crate://crate.example.com:5432"),
    ("hive2 (HiveServer2)", "jdbc:hive2://hs2.example.com/default", "hive://hs2.example.com:10000"),
    ("h2 server", "jdbc:h2:tcp://h2.example.com/data/test", "h2://h2.example.com:9092"),
    ("cassandra", "cassandra://cass.example.com/shop.orders", "cassandra://cass.example.com:9042"),
    ("milvus", "milvus://milvus.example.com/default.docs", "milvus://milvus.example.com:19530"),
    (
        "hive metastore",
        "hive://metastore.example.com/sales.orders",
        "hive://metastore.example.com:9083",
    ),
    ("hdfs", "hdfs://namenode.example.com/warehouse", "hdfs://namenode.example.com:8020"),
    ("kafka", "kafka://broker.example.com/orders", "kafka://broker.example.com:9092"),
    ("box", "box://api.box.com/12345/x.csv", "box://api.box.com:443/12345"),
    (
        "sharepoint",
        "mssharepoint://contoso.sharepoint.com/finance/x.xlsx",
        "mssharepoint://contoso.sharepoint.com:443/finance",
    ),
]


@pytest.mark.parametrize(("store", "uri", "namespace"), PORTS, ids=[p[0] for p in PORTS])
def test_default_port_is_filled(store: str, uri: str, namespace: str) -> None:
    result = dataset_from_uri(uri, table="s.t" if uri.startswith("jdbc:") else None)
    assert result.namespace == namespace


@pytest.mark.parametrize(
    ("without", "with_port"),
    [
        ("jdbc:postgresql://db.example.com/shop", "jdbc:postgresql://db.example.com:5432/shop"),
        ("jdbc:mysql://db.example.com/shop", "jdbc:mysql://db.example.com:3306/shop"),
        ("jdbc:oracle:thin:@db.example.com/SVC", "jdbc:oracle:thin:@db.example.com:1521/SVC"),
    ],
    ids=["postgres", "mysql", "oracle"],
)
def test_default_port_and_explicit_default_port_are_one_dataset(
    without: str, with_port: str
) -> None:
    assert dataset_from_uri(without, "s.t") == dataset_from_uri(with_port, "s.t")


@pytest.mark.parametrize(
    ("build", "namespace"),
    [
        (lambda: naming.postgres("h", "d", "s", "t", port=6543), "postgres://h:6543"),
        (lambda: naming.postgres("h", "d", "s", "t", port="6543"), "postgres://h:6543"),
        (
            lambda: naming.fabric_warehouse(
                "e.datawarehouse.fabric.microsoft.com", "d", "s", "t", port=1433
            ),
            "fabric-warehouse://e.datawarehouse.fabric.microsoft.com",
        ),
        (
            lambda: naming.unity_catalog("uc.example.com", "c", "s", "t", port=443),
            "unitycatalog://uc.example.com",
        ),
        (lambda: naming.kafka("broker.example.com", "t"), "kafka://broker.example.com:9092"),
    ],
    ids=[
        "explicit int",
        "explicit str",
        "fabric default omitted",
        "unity default omitted",
        "kafka default",
    ],
)
def test_builder_ports(build, namespace: str) -> None:
    assert build().namespace == namespace


def test_default_ports_table_is_read_only() -> None:
    with pytest.raises(TypeError):
        naming.DEFAULT_PORTS["postgres"] = 1  # type: ignore[index]
    assert naming.DEFAULT_PORTS["postgres"] == 5432


# --------------------------------------------------------------------------- case rules

# (rule, result, expected namespace, expected name)
CASE = [
    (
        "hostname lower-cased",
        lambda: naming.postgres("DB.Example.COM", "Shop", "Sales", "Orders"),
        "postgres://db.example.com:5432",
        "Shop.Sales.Orders",
    ),
    (
        "JDBC hostname lower-cased",
        lambda: dataset_from_uri("jdbc:mysql://DB.EXAMPLE.com/Shop", "Orders"),
        "mysql://db.example.com:3306",
        "Shop.Orders",
    ),
    (
        "trailing root dot dropped",
        lambda: naming.mysql("db.example.com.", "shop", "orders"),
        "mysql://db.example.com:3306",
        "shop.orders",
    ),
    (
        "Snowflake identifiers upper-cased",
        lambda: naming.snowflake("myorg-myaccount", "analytics", "raw", "orders"),
        "snowflake://myorg-myaccount",
        "ANALYTICS.RAW.ORDERS",
    ),
    (
        "Snowflake quoted identifier keeps case",
        lambda: naming.snowflake("myorg-myaccount", "analytics", '"Raw"', "orders"),
        "snowflake://myorg-myaccount",
        "ANALYTICS.Raw.ORDERS",
    ),
    (
        "Snowflake quoted table in dbtable",
        lambda: dataset_from_uri(
            "jdbc:snowflake://myorg-myaccount.snowflakecomputing.com/?db=analytics&schema=raw",
            '"MixedCase"',
        ),
        "snowflake://myorg-myaccount",
        "ANALYTICS.RAW.MixedCase",
    ),
    (
        "Snowflake account lower-cased",
        lambda: naming.snowflake("MyOrg-MyAccount", "d", "s", "t"),
        "snowflake://myorg-myaccount",
        "D.S.T",
    ),
    (
        "Snowflake host reduced to account",
        lambda: naming.snowflake("https://MyOrg-MyAccount.snowflakecomputing.com/", "d", "s", "t"),
        "snowflake://myorg-myaccount",
        "D.S.T",
    ),
    (
        "Snowflake privatelink dropped",
        lambda: dataset_from_uri(
            "jdbc:snowflake://xy12345.us-east-2.aws.privatelink.snowflakecomputing.com/?db=d&schema=s",
            "t",
        ),
        "snowflake://xy12345.us-east-2.aws",
        "D.S.T",
    ),
    (
        "BigQuery case kept",
        lambda: naming.bigquery("my-project", "Sales", "Orders"),
        "bigquery",
        "my-project.Sales.Orders",
    ),
    (
        "Azure container lower-cased",
        lambda: naming.abfss("RAW", "DataLake", "Orders"),
        "abfss://raw@datalake.dfs.core.windows.net",
        "Orders",
    ),
    (
        "object key case kept",
        lambda: naming.s3("my-bucket", "Raw/Orders"),
        "s3://my-bucket",
        "Raw/Orders",
    ),
    (
        "Redshift cluster lower-cased",
        lambda: naming.redshift("ExampleCluster", "US-WEST-2", "dev", "public", "t"),
        "redshift://examplecluster.us-west-2:5439",
        "dev.public.t",
    ),
    (
        "AWS region and partition lower-cased",
        lambda: naming.glue("US-EAST-1", "123456789012", "Sales", "Orders", partition="AWS"),
        "arn:aws:glue:us-east-1:123456789012",
        "table/Sales/Orders",
    ),
    (
        "IPv6 host bracketed",
        lambda: naming.postgres("2001:DB8::1", "d", "s", "t"),
        "postgres://[2001:db8::1]:5432",
        "d.s.t",
    ),
]


@pytest.mark.parametrize(("rule", "build", "namespace", "name"), CASE, ids=[c[0] for c in CASE])
def test_case_rules(rule: str, build, namespace: str, name: str) -> None:
    assert build() == DatasetName(namespace, name)


# --------------------------------------------------------------------------- JDBC dialects

# (variant, JDBC URL, table, namespace, name)
JDBC = [
    (
        "postgresql",
        "jdbc:postgresql://db.example.com/shop?currentSchema=sales",
        "orders",
        "postgres://db.example.com:5432",
        "shop.sales.orders",
    ),
    (
        "postgresql schema in table",
        "jdbc:postgresql://db.example.com:5433/shop",
        "sales.orders",
        "postgres://db.example.com:5433",
        "shop.sales.orders",
    ),
    (
        "postgresql fully qualified table",
        "jdbc:postgresql://db.example.com/shop",
        "shop.sales.orders",
        "postgres://db.example.com:5432",
        "shop.sales.orders",
    ),
    (
        "postgresql currentSchema list",
        "jdbc:postgresql://db.example.com/shop?currentSchema=sales,public",
        "orders",
        "postgres://db.example.com:5432",
        "shop.sales.orders",
    ),
    (
        "postgresql fail-over hosts",
        "jdbc:postgresql://db1.example.com:5432,db2.example.com:5432/shop",
        "s.t",
        "postgres://db1.example.com:5432",
        "shop.s.t",
    ),
    (
        "postgresql localhost form",
        "jdbc:postgresql:shop",
        "s.t",
        "postgres://localhost:5432",
        "shop.s.t",
    ),
    (
        "mysql",
        "jdbc:mysql://db.example.com:3307/shop?useSSL=true",
        "orders",
        "mysql://db.example.com:3307",
        "shop.orders",
    ),
    (
        "mysql loadbalance",
        "jdbc:mysql:loadbalance://db1.example.com,db2.example.com/shop",
        "orders",
        "mysql://db1.example.com:3306",
        "shop.orders",
    ),
    (
        "mysql+srv",
        "jdbc:mysql+srv://_mysql._tcp.example.com/shop",
        "orders",
        "mysql://_mysql._tcp.example.com:3306",
        "shop.orders",
    ),
    (
        "mariadb",
        "jdbc:mariadb://db.example.com/shop",
        "orders",
        "mysql://db.example.com:3306",
        "shop.orders",
    ),
    (
        "mysql database in table",
        "jdbc:mysql://db.example.com/",
        "shop.orders",
        "mysql://db.example.com:3306",
        "shop.orders",
    ),
    (
        "sqlserver databaseName",
        "jdbc:sqlserver://sql.example.com:1433;databaseName=sales;encrypt=true",
        "dbo.orders",
        "mssql://sql.example.com:1433",
        "sales.dbo.orders",
    ),
    (
        "sqlserver database",
        "jdbc:sqlserver://sql.example.com;database=sales",
        "dbo.orders",
        "mssql://sql.example.com:1433",
        "sales.dbo.orders",
    ),
    (
        "sqlserver serverName property",
        "jdbc:sqlserver://;serverName=sql.example.com;portNumber=1500;databaseName=sales",
        "dbo.orders",
        "mssql://sql.example.com:1500",
        "sales.dbo.orders",
    ),
    (
        "sqlserver named instance with port",
        "jdbc:sqlserver://sql.example.com\\INST1:1500;databaseName=sales",
        "dbo.orders",
        "mssql://sql.example.com:1500",
        "sales.dbo.orders",
    ),
    (
        "sqlserver bracketed table",
        "jdbc:sqlserver://sql.example.com;databaseName=sales",
        "[dbo].[Order Lines]",
        "mssql://sql.example.com:1433",
        "sales.dbo.Order Lines",
    ),
    (
        "sqlserver Azure SQL Database",
        "jdbc:sqlserver://srv.database.windows.net:1433;database=sales",
        "dbo.orders",
        "mssql://srv.database.windows.net:1433",
        "sales.dbo.orders",
    ),
    (
        "sqlserver Synapse",
        "jdbc:sqlserver://ws1.sql.azuresynapse.net:1433;database=pool1",
        "dbo.orders",
        "sqlserver://ws1.sql.azuresynapse.net:1433",
        "dbo.orders",
    ),
    (
        "sqlserver Fabric",
        "jdbc:sqlserver://abc.datawarehouse.fabric.microsoft.com:1433;database=wh",
        "dbo.orders",
        "fabric-warehouse://abc.datawarehouse.fabric.microsoft.com",
        "wh.dbo.orders",
    ),
    (
        "jtds sqlserver",
        "jdbc:jtds:sqlserver://sql.example.com:1433/sales;appName=x",
        "dbo.orders",
        "mssql://sql.example.com:1433",
        "sales.dbo.orders",
    ),
    (
        "oracle thin sid",
        "jdbc:oracle:thin:@ora.example.com:1521:ORCL",
        "SCOTT.EMP",
        "oracle://ora.example.com:1521",
        "ORCL.SCOTT.EMP",
    ),
    (
        "oracle thin service",
        "jdbc:oracle:thin:@//ora.example.com:1521/sales.example.com",
        "SCOTT.EMP",
        "oracle://ora.example.com:1521",
        "sales.example.com.SCOTT.EMP",
    ),
    (
        "oracle ezconnect without slashes",
        "jdbc:oracle:thin:@ora.example.com:1522/SALES",
        "SCOTT.EMP",
        "oracle://ora.example.com:1522",
        "SALES.SCOTT.EMP",
    ),
    (
        "oracle tcps",
        "jdbc:oracle:thin:@tcps://ora.example.com:2484/SALES?wallet_location=/w",
        "SCOTT.EMP",
        "oracle://ora.example.com:2484",
        "SALES.SCOTT.EMP",
    ),
    (
        "oracle TNS descriptor",
        "jdbc:oracle:thin:@(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=ora.example.com)(PORT=1521))(CONNECT_DATA=(SERVICE_NAME=SALES)))",
        "SCOTT.EMP",
        "oracle://ora.example.com:1521",
        "SALES.SCOTT.EMP",
    ),
    (
        "oracle TNS descriptor with SID",
        "jdbc:oracle:thin:@(DESCRIPTION=(ADDRESS=(HOST=ora.example.com)(PORT=1530))(CONNECT_DATA=(SID=ORCL)))",
        "SCOTT.EMP",
        "oracle://ora.example.com:1530",
        "ORCL.SCOTT.EMP",
    ),
    (
        "oracle oci",
        "jdbc:oracle:oci:@ora.example.com:1521:ORCL",
        "SCOTT.EMP",
        "oracle://ora.example.com:1521",
        "ORCL.SCOTT.EMP",
    ),
    (
        "redshift endpoint",
        "jdbc:redshift://examplecluster.abc123xyz789.us-west-2.redshift.amazonaws.com:5439/dev",
        "public.orders",
        "redshift://examplecluster.us-west-2:5439",
        "dev.public.orders",
    ),
    (
        "redshift serverless",
        "jdbc:redshift://wg1.123456789012.eu-central-1.redshift-serverless.amazonaws.com:5439/dev",
        "public.orders",
        "redshift://wg1.eu-central-1:5439",
        "dev.public.orders",
    ),
    (
        "redshift iam cluster:region",
        "jdbc:redshift:iam://examplecluster:us-west-2/dev",
        "public.orders",
        "redshift://examplecluster.us-west-2:5439",
        "dev.public.orders",
    ),
    (
        "redshift other host",
        "jdbc:redshift://localhost:15439/dev",
        "public.orders",
        "redshift://localhost:15439",
        "dev.public.orders",
    ),
    (
        "snowflake",
        "jdbc:snowflake://myorg-myaccount.snowflakecomputing.com/?db=analytics&schema=raw&warehouse=wh",
        "orders",
        "snowflake://myorg-myaccount",
        "ANALYTICS.RAW.ORDERS",
    ),
    (
        "snowflake locator",
        "jdbc:snowflake://xy12345.eu-west-1.snowflakecomputing.com:443/?db=analytics",
        "raw.orders",
        "snowflake://xy12345.eu-west-1",
        "ANALYTICS.RAW.ORDERS",
    ),
    (
        "db2",
        "jdbc:db2://db2.example.com:50001/SAMPLE:currentSchema=DB2INST1;",
        "EMPLOYEE",
        "db2://db2.example.com:50001",
        "SAMPLE.DB2INST1.EMPLOYEE",
    ),
    (
        "teradata",
        "jdbc:teradata://td.example.com/DATABASE=sales,DBS_PORT=1026,TMODE=ANSI",
        "orders",
        "teradata://td.example.com:1026",
        "sales.orders",
    ),
    (
        "teradata database in table",
        "jdbc:teradata://td.example.com/TMODE=ANSI",
        "sales.orders",
        "teradata://td.example.com:1025",
        "sales.orders",
    ),
    (
        "trino",
        "jdbc:trino://trino.example.com:8443/hive/sales?SSL=true",
        "orders",
        "trino://trino.example.com:8443",
        "hive.sales.orders",
    ),
    (
        "trino catalog only",
        "jdbc:trino://trino.example.com:8080/hive",
        "sales.orders",
        "trino://trino.example.com:8080",
        "hive.sales.orders",
    ),
    (
        "presto",
        "jdbc:presto://presto.example.com:8080/hive/sales",
        "orders",
        "presto://presto.example.com:8080",
        "hive.sales.orders",
    ),
    (
        "clickhouse",
        "jdbc:clickhouse://ch.example.com:8123/default",
        "events",
        "clickhouse://ch.example.com:8123",
        "default.events",
    ),
    (
        "clickhouse ch https",
        "jdbc:ch:https://ch.example.com:8443/analytics",
        "events",
        "clickhouse://ch.example.com:8443",
        "analytics.events",
    ),
    (
        "clickhouse qualified table",
        "jdbc:clickhouse://ch.example.com/default",
        "analytics.events",
        "clickhouse://ch.example.com:8123",
        "analytics.events",
    ),
    (
        "crate",
        "jdbc:crate://crate.example.com:5432/",
        "doc.orders",
        "crate://crate.example.com:5432",
        "crate.doc.orders",
    ),
    (
        "oceanbase",
        "jdbc:oceanbase://ob.example.com:2881/shop",
        "orders",
        "oceanbase://ob.example.com:2881",
        "shop.orders",
    ),
    (
        "hive2",
        "jdbc:hive2://hs2.example.com:10000/sales;transportMode=http",
        "orders",
        "hive://hs2.example.com:10000",
        "sales.orders",
    ),
    (
        "databricks",
        "jdbc:databricks://adb-1.azuredatabricks.net:443/default;transportMode=http;httpPath=/sql/1;ConnCatalog=main;ConnSchema=sales",
        "orders",
        "unitycatalog://adb-1.azuredatabricks.net",
        "main.sales.orders",
    ),
    (
        "athena region property",
        "jdbc:awsathena://AwsRegion=eu-west-1;S3OutputLocation=s3://out/",
        "sales.orders",
        "awsathena://athena.eu-west-1.amazonaws.com",
        "AwsDataCatalog.sales.orders",
    ),
    (
        "athena host",
        "jdbc:awsathena://athena.us-east-2.amazonaws.com:443;Catalog=lake;Schema=sales",
        "orders",
        "awsathena://athena.us-east-2.amazonaws.com",
        "lake.sales.orders",
    ),
    (
        "cloudspanner",
        "jdbc:cloudspanner:/projects/p1/instances/i1/databases/shop",
        "sales.orders",
        "spanner://p1:i1",
        "shop.sales.orders",
    ),
    (
        "cloudspanner emulator host",
        "jdbc:cloudspanner://localhost:9010/projects/p1/instances/i1/databases/shop;autoConfigEmulator=true",
        "sales.orders",
        "spanner://p1:i1",
        "shop.sales.orders",
    ),
    (
        "bigquery",
        "jdbc:bigquery://https://www.googleapis.com/bigquery/v2:443;ProjectId=my-project;DefaultDataset=sales",
        "orders",
        "bigquery",
        "my-project.sales.orders",
    ),
    (
        "sqlite file",
        "jdbc:sqlite:/var/data/app.db",
        "orders",
        "sqlite:///var/data/app.db",
        "orders",
    ),
    (
        "sqlite file: prefix",
        "jdbc:sqlite:file:/var/data/app.db?mode=ro",
        "orders",
        "sqlite:///var/data/app.db",
        "orders",
    ),
    ("sqlite memory", "jdbc:sqlite::memory:", "orders", "inmemory://", "orders"),
    (
        "h2 mem",
        "jdbc:h2:mem:testdb;DB_CLOSE_DELAY=-1",
        "orders",
        "inmemory://",
        "testdb.PUBLIC.orders",
    ),
    (
        "h2 mem SCHEMA property",
        "jdbc:h2:mem:testdb;SCHEMA=SALES",
        "orders",
        "inmemory://",
        "testdb.SALES.orders",
    ),
    ("h2 file", "jdbc:h2:file:/data/test", "orders", "h2:///data/test", "PUBLIC.orders"),
    (
        "h2 tcp",
        "jdbc:h2:tcp://h2.example.com:9093/data/test",
        "orders",
        "h2://h2.example.com:9093",
        "data/test.PUBLIC.orders",
    ),
    (
        "jdbc prefix upper case",
        "JDBC:PostgreSQL://db.example.com/shop?currentSchema=sales",
        "orders",
        "postgres://db.example.com:5432",
        "shop.sales.orders",
    ),
]


@pytest.mark.parametrize(
    "table",
    ['"x""""y"', '"Mixed Case"', "plain", '"a""b"'],
    ids=["doubled", "case", "plain", "one"],
)
def test_snowflake_jdbc_and_builder_agree_on_quoting(table: str) -> None:
    url = "jdbc:snowflake://acc.snowflakecomputing.com/?db=D&schema=S"
    assert dataset_from_uri(url, table) == naming.snowflake("acc", "D", "S", table)


@pytest.mark.parametrize(
    ("uri", "table"),
    [
        ("awsathena://athena.us-east-1.amazonaws.com/sales.orders", None),
        ("jdbc:awsathena://AwsRegion=us-east-1", "sales.orders"),
    ],
    ids=["dataset URI", "JDBC URL"],
)
def test_athena_default_catalog(uri: str, table: str | None) -> None:
    assert dataset_from_uri(uri, table) == naming.athena(
        "us-east-1", "AwsDataCatalog", "sales", "orders"
    )


# --------------------------------------------------------------------------- the table argument

# (case, uri, table, namespace, name)
TABLES = [
    (
        "quoted part keeps its dot",
        "jdbc:postgresql://h/shop",
        '"my.schema".orders',
        "postgres://h:5432",
        "shop.my.schema.orders",
    ),
    (
        "backtick quotes",
        "jdbc:mysql://h/shop",
        "`order lines`",
        "mysql://h:3306",
        "shop.order lines",
    ),
    (
        "doubled quote inside quotes",
        "jdbc:postgresql://h/shop",
        '"a""b".t',
        "postgres://h:5432",
        'shop.a"b.t',
    ),
    (
        "surrounding white space",
        "jdbc:postgresql://h/shop",
        "  sales.orders  ",
        "postgres://h:5432",
        "shop.sales.orders",
    ),
    (
        "database URL with table",
        "postgresql://u@h/shop?currentSchema=sales",
        "orders",
        "postgres://h:5432",
        "shop.sales.orders",
    ),
    (
        "trino URL with table",
        "trino://h:8080/hive/sales",
        "orders",
        "trino://h:8080",
        "hive.sales.orders",
    ),
    (
        "s3 prefix plus table",
        "s3://my-bucket/warehouse",
        "orders",
        "s3://my-bucket",
        "warehouse/orders",
    ),
    (
        "hdfs prefix plus table",
        "hdfs://nn:8020/warehouse/",
        "orders",
        "hdfs://nn:8020",
        "/warehouse/orders",
    ),
    ("kafka topic as table", "kafka://broker:9092", "orders", "kafka://broker:9092", "orders"),
    ("inmemory name as table", "inmemory://", "temp_view", "inmemory://", "temp_view"),
    (
        "glue database ARN plus table",
        "arn:aws:glue:us-east-1:123456789012:database/sales",
        "orders",
        "arn:aws:glue:us-east-1:123456789012",
        "table/sales/orders",
    ),
    (
        "bigquery project plus table",
        "bigquery:my-project",
        "sales.orders",
        "bigquery",
        "my-project.sales.orders",
    ),
    (
        "cosmos database plus table",
        "azurecosmos://acc.documents.azure.com/dbs/shop",
        "orders",
        "azurecosmos://acc.documents.azure.com/dbs/shop",
        "colls/orders",
    ),
    (
        "kusto database plus table",
        "azurekusto://help.westeurope.kusto.windows.net/Samples",
        "Storm",
        "azurekusto://help.westeurope.kusto.windows.net",
        "Samples/Storm",
    ),
]


# The three tables above as one: (case, uri, table, namespace, name).
URIS: list[tuple[str, str, str | None, str, str]] = [
    *((f"scheme {alias}", uri, None, ns, name) for alias, uri, ns, name in SCHEMES),
    *((f"jdbc {variant}", uri, table, ns, name) for variant, uri, table, ns, name in JDBC),
    *((f"table {case}", uri, table, ns, name) for case, uri, table, ns, name in TABLES),
]


@pytest.mark.parametrize(
    ("case", "uri", "table", "namespace", "name"), URIS, ids=[u[0] for u in URIS]
)
def test_dataset_from_uri(
    case: str, uri: str, table: str | None, namespace: str, name: str
) -> None:
    assert dataset_from_uri(uri, table) == DatasetName(namespace, name)


# --------------------------------------------------------------------------- paths and keys

PATHS = [
    ("s3 trailing slash", lambda: naming.s3("my-bucket", "raw/orders/"), "raw/orders"),
    ("s3 leading slash", lambda: naming.s3("my-bucket", "/raw/orders"), "raw/orders"),
    ("s3 whole bucket", lambda: naming.s3("my-bucket"), "/"),
    ("gcs whole bucket from URI", lambda: dataset_from_uri("gs://my-bucket"), "/"),
    (
        "hdfs relative made absolute",
        lambda: naming.hdfs("nn", "warehouse/orders/"),
        "/warehouse/orders",
    ),
    ("abfss root", lambda: naming.abfss("raw", "lake"), "/"),
    (
        "percent-encoded key decoded",
        lambda: dataset_from_uri("s3://my-bucket/raw/my%20file.csv"),
        "raw/my file.csv",
    ),
]


@pytest.mark.parametrize(("case", "build", "name"), PATHS, ids=[x[0] for x in PATHS])
def test_paths_and_keys(case: str, build, name: str) -> None:
    assert build().name == name


@pytest.mark.parametrize(
    ("path", "table", "name"),
    [
        ("/data/a#b.csv", None, "/data/a#b.csv"),
        ("/data/what?.csv", None, "/data/what?.csv"),
        ("/data/100%25.csv", None, "/data/100%25.csv"),
        ("C:\\data\\x#1.csv", None, "/C:/data/x#1.csv"),
        ("/data/in", "a#b.csv", "/data/in/a#b.csv"),
        ("C:\\data", "x?.csv", "/C:/data/x?.csv"),
    ],
    ids=["hash", "question mark", "percent", "Windows hash", "table", "Windows table"],
)
def test_plain_path_is_a_path_not_a_url(path: str, table: str | None, name: str) -> None:
    # '?', '#' and '%' are URL syntax only in URLs: a plain path names the file of that name,
    # as local_file does.
    assert dataset_from_uri(path, table) == naming.local_file(name) == DatasetName("file", name)


@pytest.mark.parametrize(
    ("uri", "table", "name"),
    [
        ("dbfs:/mnt/raw/orders", None, "/mnt/raw/orders"),
        ("dbfs:/mnt/a%20b", None, "/mnt/a b"),
        ("dbfs:mnt/x", None, "/mnt/x"),
        ("DBFS:/x", None, "/x"),
        ("dbfs:///x/", None, "/x"),
        ("dbfs:/mnt/raw", "orders", "/mnt/raw/orders"),
    ],
    ids=["absolute", "percent-encoded", "relative", "upper-case scheme", "empty host", "table"],
)
def test_dbfs_without_workspace(uri: str, table: str | None, name: str) -> None:
    # As the JVM openlineage-spark agent names the DBFS a cluster sees as its own.
    assert dataset_from_uri(uri, table) == naming.dbfs(None, name) == DatasetName("dbfs", name)


@pytest.mark.parametrize(
    ("server", "namespace"),
    [
        ("b1.example.com:9092,b2.example.com:9092", "kafka://b1.example.com:9092"),
        ("SASL_SSL://b1.example.com:9094", "kafka://b1.example.com:9094"),
        ("[::1]:9093", "kafka://[::1]:9093"),
        ("::1", "kafka://[::1]:9092"),
        ("B1.EXAMPLE.COM", "kafka://b1.example.com:9092"),
    ],
    ids=["list", "listener prefix", "ipv6", "bare ipv6", "upper case"],
)
def test_kafka_bootstrap_server(server: str, namespace: str) -> None:
    assert naming.kafka(server, "orders").namespace == namespace
