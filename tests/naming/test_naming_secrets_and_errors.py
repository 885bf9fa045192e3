"""Credentials never reach a name, a namespace or an error; malformed input names its wrong part."""

from __future__ import annotations

import pickle
from collections.abc import Callable

import pytest

from openlineage_sdk import naming
from openlineage_sdk.naming import DatasetName, NamingError, dataset_from_uri

SECRET = "Sup3rS3cret"

# (case, uri, table, expected namespace, expected name). Each input carries
# SECRET where a credential goes; the result must equal the expected name
# and contain SECRET nowhere.
STRIPPED = [
    (
        "user:password@ (postgres)",
        f"jdbc:postgresql://alice:{SECRET}@db.example.com/shop?currentSchema=sales",
        "orders",
        "postgres://db.example.com:5432",
        "shop.sales.orders",
    ),
    (
        "password= query (postgres)",
        f"jdbc:postgresql://db.example.com/shop?user=alice&password={SECRET}&currentSchema=sales",
        "orders",
        "postgres://db.example.com:5432",
        "shop.sales.orders",
    ),
    (
        "sslpassword= (postgres)",
        f"jdbc:postgresql://db.example.com/shop?sslpassword={SECRET}",
        "s.t",
        "postgres://db.example.com:5432",
        "shop.s.t",
    ),
    (
        "user:password@ with '@' in password (mysql)",
        f"jdbc:mysql://alice:p@{SECRET}@db.example.com/shop",
        "orders",
        "mysql://db.example.com:3306",
        "shop.orders",
    ),
    (
        "password= (mysql)",
        f"jdbc:mysql://db.example.com/shop?user=alice&password={SECRET}",
        "orders",
        "mysql://db.example.com:3306",
        "shop.orders",
    ),
    (
        "password= property (sqlserver)",
        f"jdbc:sqlserver://sql.example.com;databaseName=sales;user=alice;password={SECRET}",
        "dbo.orders",
        "mssql://sql.example.com:1433",
        "sales.dbo.orders",
    ),
    (
        "accessToken property (sqlserver)",
        f"jdbc:sqlserver://sql.example.com;databaseName=sales;accessToken={SECRET}",
        "dbo.orders",
        "mssql://sql.example.com:1433",
        "sales.dbo.orders",
    ),
    (
        "password property (jtds)",
        f"jdbc:jtds:sqlserver://sql.example.com/sales;user=alice;password={SECRET}",
        "dbo.orders",
        "mssql://sql.example.com:1433",
        "sales.dbo.orders",
    ),
    (
        "user/password@ (oracle)",
        f"jdbc:oracle:thin:scott/{SECRET}@ora.example.com:1521:ORCL",
        "SCOTT.EMP",
        "oracle://ora.example.com:1521",
        "ORCL.SCOTT.EMP",
    ),
    (
        "user/password@// (oracle)",
        f"jdbc:oracle:thin:scott/{SECRET}@//ora.example.com/SALES",
        "SCOTT.EMP",
        "oracle://ora.example.com:1521",
        "SALES.SCOTT.EMP",
    ),
    (
        "password= (redshift)",
        f"jdbc:redshift://c1.abc123.us-east-1.redshift.amazonaws.com:5439/dev?UID=alice&PWD={SECRET}",
        "public.t",
        "redshift://c1.us-east-1:5439",
        "dev.public.t",
    ),
    (
        "password= (snowflake)",
        f"jdbc:snowflake://myorg-acct.snowflakecomputing.com/?db=d&schema=s&user=alice&password={SECRET}",
        "t",
        "snowflake://myorg-acct",
        "D.S.T",
    ),
    (
        "private_key_file_pwd (snowflake)",
        f"jdbc:snowflake://myorg-acct.snowflakecomputing.com/?db=d&schema=s&private_key_file_pwd={SECRET}",
        "t",
        "snowflake://myorg-acct",
        "D.S.T",
    ),
    (
        "password property (db2)",
        f"jdbc:db2://db2.example.com:50000/SAMPLE:user=alice;password={SECRET};currentSchema=S;",
        "T",
        "db2://db2.example.com:50000",
        "SAMPLE.S.T",
    ),
    (
        "PASSWORD= (teradata)",
        f"jdbc:teradata://td.example.com/DATABASE=sales,USER=alice,PASSWORD={SECRET}",
        "orders",
        "teradata://td.example.com:1025",
        "sales.orders",
    ),
    (
        "password= (trino)",
        f"jdbc:trino://trino.example.com:8443/hive/sales?user=alice&password={SECRET}&SSL=true",
        "orders",
        "trino://trino.example.com:8443",
        "hive.sales.orders",
    ),
    (
        "accessToken= (trino)",
        f"jdbc:trino://trino.example.com:8443/hive/sales?accessToken={SECRET}",
        "orders",
        "trino://trino.example.com:8443",
        "hive.sales.orders",
    ),
    (
        "PWD= token (databricks)",
        f"jdbc:databricks://adb-1.azuredatabricks.net:443/default;AuthMech=3;UID=token;PWD={SECRET};ConnCatalog=main",
        "sales.orders",
        "unitycatalog://adb-1.azuredatabricks.net",
        "main.sales.orders",
    ),
    (
        "Password= key pair (athena)",
        f"jdbc:awsathena://AwsRegion=us-east-1;User=AKIAEXAMPLE;Password={SECRET}",
        "sales.orders",
        "awsathena://athena.us-east-1.amazonaws.com",
        "AwsDataCatalog.sales.orders",
    ),
    (
        "OAuthPvtKey (bigquery)",
        f"jdbc:bigquery://https://www.googleapis.com/bigquery/v2:443;ProjectId=p-1;OAuthPvtKey={SECRET};DefaultDataset=sales",
        "orders",
        "bigquery",
        "p-1.sales.orders",
    ),
    (
        "credentials (spanner)",
        f"jdbc:cloudspanner:/projects/p1/instances/i1/databases/shop;credentials={SECRET}",
        "s.t",
        "spanner://p1:i1",
        "shop.s.t",
    ),
    (
        "password (clickhouse)",
        f"jdbc:clickhouse://ch.example.com/default?password={SECRET}",
        "events",
        "clickhouse://ch.example.com:8123",
        "default.events",
    ),
    (
        "user:password@ (SQLAlchemy URL)",
        f"postgresql+psycopg2://alice:{SECRET}@db.example.com/shop?currentSchema=sales",
        "orders",
        "postgres://db.example.com:5432",
        "shop.sales.orders",
    ),
    (
        "user:password@ (dataset URI)",
        f"postgres://alice:{SECRET}@db.example.com:5432/shop.sales.orders",
        None,
        "postgres://db.example.com:5432",
        "shop.sales.orders",
    ),
    (
        "user:password@ (kafka)",
        f"kafka://alice:{SECRET}@broker.example.com:9092/orders",
        None,
        "kafka://broker.example.com:9092",
        "orders",
    ),
    (
        "user:password@ (hdfs)",
        f"hdfs://alice:{SECRET}@nn.example.com:8020/warehouse/t",
        None,
        "hdfs://nn.example.com:8020",
        "/warehouse/t",
    ),
    (
        "access key in authority (s3)",
        f"s3a://AKIAEXAMPLE:{SECRET}@my-bucket/raw/orders",
        None,
        "s3://my-bucket",
        "raw/orders",
    ),
    (
        "SAS token (azure https)",
        f"https://lake.blob.core.windows.net/raw/o.csv?sv=2022-11-02&sp=r&sig={SECRET}",
        None,
        "wasbs://raw@lake.dfs.core.windows.net",
        "o.csv",
    ),
    (
        "SAS token (wasbs)",
        f"wasbs://raw@lake.blob.core.windows.net/o.csv?sig={SECRET}",
        None,
        "wasbs://raw@lake.dfs.core.windows.net",
        "o.csv",
    ),
    (
        "presigned URL (s3 https)",
        f"https://my-bucket.s3.amazonaws.com/raw/o.csv?X-Amz-Credential=AKIA%2F{SECRET}&X-Amz-Signature={SECRET}&X-Amz-Security-Token={SECRET}",
        None,
        "s3://my-bucket",
        "raw/o.csv",
    ),
    (
        "token query (gcs)",
        f"gs://my-bucket/raw/o.csv?token={SECRET}",
        None,
        "gs://my-bucket",
        "raw/o.csv",
    ),
    ("api key fragment (file)", f"file:///data/o.csv#key={SECRET}", None, "file", "/data/o.csv"),
]


@pytest.mark.parametrize(
    ("case", "uri", "table", "namespace", "name"), STRIPPED, ids=[s[0] for s in STRIPPED]
)
def test_credentials_are_stripped(
    case: str, uri: str, table: str | None, namespace: str, name: str
) -> None:
    assert SECRET in uri  # the case must carry a secret to strip
    result = dataset_from_uri(uri, table=table)
    assert result == DatasetName(namespace, name)
    for text in (result.namespace, result.name, result.uri, repr(result)):
        assert SECRET not in text


# (case, input that fails, the wrong part the message must name). Each input
# carries SECRET in a credential position, which the message must not show.
FAILING_WITH_SECRETS = [
    (
        "missing host, user:password@",
        f"jdbc:postgresql://alice:{SECRET}@:5432/shop",
        "s.t",
        "missing host",
    ),
    (
        "missing schema, password=",
        f"jdbc:postgresql://db.example.com/shop?password={SECRET}",
        "orders",
        "missing schema",
    ),
    (
        "password where the port goes",
        f"jdbc:postgresql://alice:{SECRET}/shop",
        "s.t",
        "invalid port",
    ),
    (
        "named instance, password property",
        f"jdbc:sqlserver://sql.example.com\\INST;databaseName=d;password={SECRET}",
        "dbo.t",
        "missing port",
    ),
    (
        "oracle TNS alias with password",
        f"jdbc:oracle:thin:scott/{SECRET}@SALESALIAS",
        "S.T",
        "missing host",
    ),
    (
        "oracle LDAP with password",
        f"jdbc:oracle:thin:scott/{SECRET}@ldap://ldap.example.com/SALES,cn=OracleContext",
        "S.T",
        "missing host",
    ),
    (
        "teradata missing database",
        f"jdbc:teradata://td.example.com/USER=alice,PASSWORD={SECRET}",
        "orders",
        "missing database",
    ),
    (
        "snowflake missing schema",
        f"jdbc:snowflake://acct.snowflakecomputing.com/?db=d&password={SECRET}",
        "t",
        "missing schema",
    ),
    (
        "athena missing region",
        f"jdbc:awsathena://User=AKIA;Password={SECRET}",
        "db.t",
        "missing region",
    ),
    ("unsupported driver", f"jdbc:foodb://alice:{SECRET}@h/db", "t", "unsupported JDBC driver"),
    (
        "unsupported scheme",
        f"ftp://alice:{SECRET}@files.example.com/x.csv",
        None,
        "unsupported scheme",
    ),
    ("missing table", f"jdbc:mysql://alice:{SECRET}@db.example.com/shop", None, "missing table"),
    ("sas on unknown host", f"https://example.com/x.csv?sig={SECRET}", None, "unsupported host"),
]


def test_bucket_with_secret_is_masked() -> None:
    # A secret pasted where a bucket goes is not in a credential position;
    # the message still must not echo it once it looks like user info.
    with pytest.raises(NamingError) as caught:
        dataset_from_uri(f"s3://AKIA:{SECRET}@/x")
    assert SECRET not in str(caught.value)


# (case, input, the message expected exactly): the brief's own example and a
# few more where the exact wording matters to users.
EXACT = [
    (
        "brief example",
        "jdbc:postgresql://:5432/db",
        "t",
        "jdbc:postgresql://:5432/db: missing host",
    ),
    ("masked user info", "jdbc:mysql://alice:pw@/db", "t", "jdbc:mysql://***@/db: missing host"),
    (
        "connection URL without table",
        "sqlite::memory:",
        None,
        "sqlite::memory:: missing table: a connection URL names no table, pass table=",
    ),
]


@pytest.mark.parametrize(("case", "uri", "table", "message"), EXACT, ids=[e[0] for e in EXACT])
def test_exact_message(case: str, uri: str, table: str | None, message: str) -> None:
    with pytest.raises(NamingError) as caught:
        dataset_from_uri(uri, table=table)
    assert str(caught.value) == message


# (case, input, table, the wrong part the message must name)
MALFORMED_URIS = [
    ("empty uri", "", None, "missing uri"),
    ("no scheme", "db.example.com/shop", None, "missing scheme"),
    ("jdbc without subprotocol", "jdbc:", "t", "unsupported JDBC driver"),
    ("postgres without //", "jdbc:postgresql:", "s.t", "missing database"),
    ("mysql without host", "jdbc:mysql:///shop", "t", "missing host"),
    ("invalid host", "jdbc:mysql://db example.com/shop", "t", "invalid host"),
    ("port out of range", "jdbc:postgresql://h:70000/shop", "s.t", "invalid port 70000"),
    ("table too many parts", "jdbc:mysql://h/shop", "a.b.c", "table has 3 parts"),
    (
        "table is a sub-query",
        "jdbc:postgresql://h/shop",
        "(select * from t) x",
        "table is a sub-query",
    ),
    ("table empty part", "jdbc:postgresql://h/shop", "sales..orders", "table: empty part"),
    ("table unclosed quote", "jdbc:postgresql://h/shop", '"sales.orders', "table: unclosed quote"),
    ("table blank", "jdbc:postgresql://h/shop", "   ", "missing table"),
    ("postgres no database", "jdbc:postgresql://h/", "s.t", "missing database"),
    ("trino no catalog", "jdbc:trino://h:8080", "s.t", "missing catalog"),
    ("sqlserver no database", "jdbc:sqlserver://h", "dbo.t", "missing database"),
    ("sqlserver no host", "jdbc:sqlserver://;databaseName=d", "dbo.t", "missing host"),
    ("oracle no driver type", "jdbc:oracle:@h:1521:ORCL", "S.T", "missing driver type"),
    ("oracle no @", "jdbc:oracle:thin:h:1521:ORCL", "S.T", "missing '@'"),
    (
        "oracle TNS without HOST",
        "jdbc:oracle:thin:@(DESCRIPTION=(CONNECT_DATA=(SID=X)))",
        "S.T",
        "missing host",
    ),
    (
        "hive2 zookeeper",
        "jdbc:hive2://zk1:2181,zk2:2181/;serviceDiscoveryMode=zooKeeper",
        "d.t",
        "missing host",
    ),
    ("spanner path", "jdbc:cloudspanner:/projects/p1/databases/d", "s.t", "missing database"),
    ("h2 relative path", "jdbc:h2:~/test", "t", "path must be absolute"),
    ("h2 unnamed memory", "jdbc:h2:mem:", "t", "missing database: an unnamed in-memory"),
    ("sqlite relative path", "jdbc:sqlite:app.db", "t", "path must be absolute"),
    ("sqlite without table", "sqlite:///data/app.db", None, "missing table"),
    ("h2 mem control character", "jdbc:h2:mem:db", '"a\x01b"', "invalid table: control"),
    ("h2 file control character", "jdbc:h2:/data/db;SCHEMA=a\x01b", "t", "invalid schema: control"),
    ("h2 tcp control character", "jdbc:h2:tcp://h/db\x01", "s.t", "invalid database: control"),
    ("redshift other host control character", "jdbc:redshift://h/d", 's."t\x01"', "invalid table"),
    ("doc URI without name", "postgres://db.example.com:5432", None, "missing name"),
    ("doc URI short name", "postgres://db.example.com:5432/orders", None, "missing database"),
    ("doc URI too long name", "mysql://h/a.b.c", None, "table has 3 parts"),
    ("redshift name too short", "redshift://c1.us-east-1:5439/s.t", None, "missing database"),
    ("athena wrong host", "awsathena://athena.example.com/c.d.t", None, "invalid host"),
    ("azure without container", "abfss://lake.dfs.core.windows.net/x", None, "missing container"),
    ("azure bad container", "wasbs://Bad_Container@lake/x", None, "invalid container"),
    ("hdfs without namenode", "hdfs:///warehouse/t", None, "missing namenode host"),
    ("dbfs workspace with port", "dbfs://ws:8080/mnt/raw", None, "invalid workspace"),
    ("kafka without topic", "kafka://broker:9092", None, "missing topic"),
    ("kafka invalid topic", "kafka://broker:9092/orders%20v2", None, "invalid topic"),
    ("kafka topic twice", "kafka://broker:9092/a", "b", "topic given twice"),
    ("pubsub wrong type", "pubsub:queue:p:t", None, "invalid resource type"),
    ("pubsub missing project", "pubsub:topic::t", None, "missing project"),
    ("glue not glue", "arn:aws:s3:::my-bucket", None, "unsupported ARN"),
    (
        "glue account not 12 digits",
        "arn:aws:glue:us-east-1:1234:table/d/t",
        None,
        "invalid account id",
    ),
    ("glue missing table", "arn:aws:glue:us-east-1:123456789012:table/d", None, "missing table"),
    (
        "cosmos without dbs",
        "azurecosmos://acc.documents.azure.com/colls/t",
        None,
        "missing database",
    ),
    (
        "kusto without table",
        "azurekusto://help.westeurope.kusto.windows.net/Samples",
        None,
        "missing table",
    ),
    ("bucket too short", "s3://ab/x", None, "invalid bucket"),
    ("bucket with port", "s3://my-bucket:443/x", None, "invalid bucket"),
    ("bucket with invalid characters", "s3://bad_bucket!x/x", None, "invalid bucket"),
    ("relative file", "file:data/x.csv", None, "path must be absolute"),
    ("https other host", "https://example.com/x", None, "unsupported host"),
    ("inmemory empty", "inmemory://", None, "missing name"),
    ("table not a string", "jdbc:postgresql://h/shop", 42, "invalid table"),
]


@pytest.mark.parametrize(
    ("case", "uri", "table", "part"),
    [*FAILING_WITH_SECRETS, *MALFORMED_URIS],
    ids=[f[0] for f in [*FAILING_WITH_SECRETS, *MALFORMED_URIS]],
)
def test_error_names_the_part_and_hides_secrets(
    case: str, uri: str, table: object, part: str
) -> None:
    with pytest.raises(NamingError) as caught:
        dataset_from_uri(uri, table=table)  # type: ignore[arg-type]
    assert caught.value.problem.startswith(part)
    assert SECRET not in str(caught.value)


# (case, call, the wrong part the message must name)
MALFORMED_PARTS: list[tuple[str, Callable[[], DatasetName], str]] = [
    ("postgres missing host", lambda: naming.postgres("", "d", "s", "t"), "postgres: missing host"),
    (
        "postgres missing schema",
        lambda: naming.postgres("h", "d", "", "t"),
        "postgres: missing schema",
    ),
    (
        "postgres None table",
        lambda: naming.postgres("h", "d", "s", None),  # type: ignore[arg-type]
        "postgres: missing table",
    ),
    (
        "postgres port zero",
        lambda: naming.postgres("h", "d", "s", "t", port=0),
        "postgres: invalid port 0",
    ),
    (
        "postgres port text",
        lambda: naming.postgres("h", "d", "s", "t", port="http"),
        "postgres: invalid port",
    ),
    (
        "postgres port bool",
        lambda: naming.postgres("h", "d", "s", "t", port=True),
        "postgres: invalid port",
    ),
    ("mysql control character", lambda: naming.mysql("h", "d", "t\x00x"), "mysql: invalid table"),
    (
        "host with user info",
        lambda: naming.mysql(f"alice:{SECRET}@h", "d", "t"),
        "mysql: invalid host",
    ),
    ("athena bad region", lambda: naming.athena("moon-1", "c", "d", "t"), "athena: invalid region"),
    (
        "glue bad account",
        lambda: naming.glue("us-east-1", "12ab", "d", "t"),
        "glue: invalid account id",
    ),
    (
        "glue bad partition",
        lambda: naming.glue("us-east-1", "123456789012", "d", "t", partition="azure"),
        "glue: invalid partition",
    ),
    (
        "redshift bad cluster",
        lambda: naming.redshift("1cluster", "us-east-1", "d", "s", "t"),
        "redshift: invalid cluster identifier",
    ),
    (
        "snowflake bad account",
        lambda: naming.snowflake("my org", "d", "s", "t"),
        "snowflake: invalid account",
    ),
    (
        "snowflake empty quoted",
        lambda: naming.snowflake("acct", '""', "s", "t"),
        "snowflake: missing database",
    ),
    (
        "spanner instance with colon",
        lambda: naming.spanner("p", "i:x", "d", "s", "t"),
        "spanner: invalid instance",
    ),
    ("s3 missing bucket", lambda: naming.s3("", "k"), "s3: missing bucket"),
    ("gcs bucket with slash", lambda: naming.gcs("my/bucket", "k"), "gcs: invalid bucket"),
    ("abfss missing container", lambda: naming.abfss("", "lake", "p"), "abfss: missing container"),
    (
        "wasbs missing account",
        lambda: naming.wasbs("raw", "", "k"),
        "wasbs: missing storage account",
    ),
    ("dbfs missing workspace", lambda: naming.dbfs("", "/p"), "dbfs: missing workspace"),
    ("hdfs missing namenode", lambda: naming.hdfs("", "/p"), "hdfs: missing namenode host"),
    (
        "local relative path",
        lambda: naming.local_file("data/x.csv"),
        "local_file: path must be absolute",
    ),
    ("local missing path", lambda: naming.local_file(""), "local_file: missing path"),
    ("remote missing host", lambda: naming.remote_file("", "/x"), "remote_file: missing host"),
    ("kafka missing topic", lambda: naming.kafka("b:9092", ""), "kafka: missing topic"),
    ("kafka missing server", lambda: naming.kafka("", "t"), "kafka: missing bootstrap server host"),
    ("kafka bad port", lambda: naming.kafka("b:abc", "t"), "kafka: invalid port"),
    (
        "pubsub topic with path",
        lambda: naming.pubsub_topic("p", "projects/p/topics/t"),
        "pubsub: invalid topic",
    ),
    (
        "pubsub missing project",
        lambda: naming.pubsub_subscription("", "s"),
        "pubsub: missing project",
    ),
    ("in_memory missing name", lambda: naming.in_memory(" "), "in_memory: missing name"),
    (
        "filenet missing port",
        lambda: naming.filenet("h", "OS1", "k", port=None),
        "filenet: missing port",
    ),
    ("box root with slash", lambda: naming.box("h", "a/b", "k"), "box: invalid enterprise id"),
    (
        "cosmos missing table",
        lambda: naming.azure_cosmos("acc", "d", ""),
        "azure_cosmos: missing table",
    ),
    (
        "kusto missing cluster",
        lambda: naming.azure_data_explorer("", "d", "t"),
        "azure_data_explorer: missing cluster",
    ),
    ("sqlite relative path", lambda: naming.sqlite("app.db", "t"), "sqlite: path must be absolute"),
    ("DatasetName empty namespace", lambda: DatasetName("", "n"), "DatasetName: missing namespace"),
    ("DatasetName empty name", lambda: DatasetName("ns", ""), "DatasetName: missing name"),
]


@pytest.mark.parametrize(
    ("case", "call", "message"), MALFORMED_PARTS, ids=[m[0] for m in MALFORMED_PARTS]
)
def test_malformed_parts(case: str, call: Callable[[], DatasetName], message: str) -> None:
    with pytest.raises(NamingError) as caught:
        call()
    assert str(caught.value).startswith(message)
    assert SECRET not in str(caught.value)


def test_naming_error_is_a_value_error_and_pickles() -> None:
    with pytest.raises(ValueError, match="missing host") as caught:
        naming.postgres("", "d", "s", "t")
    error = caught.value
    assert isinstance(error, NamingError)
    copy = pickle.loads(pickle.dumps(error))
    assert isinstance(copy, NamingError)
    assert (copy.context, copy.problem, str(copy)) == (error.context, error.problem, str(error))


@pytest.mark.parametrize(
    ("raw", "masked"),
    [
        ("jdbc:postgresql://alice:pw@h/db", "jdbc:postgresql://***@h/db"),
        ("jdbc:oracle:thin:scott/tiger@h:1521:X", "jdbc:oracle:thin:***@h:1521:X"),
        ("jdbc:oracle:thin:@//h/X", "jdbc:oracle:thin:@//h/X"),
        (
            "jdbc:sqlserver://h;password=pw;databaseName=d",
            "jdbc:sqlserver://h;password=***;databaseName=d",
        ),
        (
            "jdbc:teradata://h/USER=u,PASSWORD=pw,DATABASE=d",
            "jdbc:teradata://h/USER=***,PASSWORD=***,DATABASE=d",
        ),
        (
            "https://a.blob.core.windows.net/c/x?sv=1&sig=abc",
            "https://a.blob.core.windows.net/c/x?sv=1&sig=***",
        ),
        ("jdbc:postgresql://alice:pw/db", "jdbc:postgresql://alice:***/db"),
        ("s3://bucket/key", "s3://bucket/key"),
    ],
    ids=[
        "user info",
        "oracle user/password",
        "oracle without credentials",
        "properties",
        "teradata",
        "sas",
        "password as port",
        "nothing to mask",
    ],
)
def test_redact(raw: str, masked: str) -> None:
    from openlineage_sdk.naming._parts import redact

    assert redact(raw) == masked
