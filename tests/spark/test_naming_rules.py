"""Dataset names for every store the adapter meets, and Spark job names."""

from __future__ import annotations

import pytest

from openlineage_sdk.naming import NamingError
from openlineage_sdk.spark.describe._naming import dataset_name, job_name
from openlineage_sdk.spark.describe._tables import TableInfo, table_identity


@pytest.mark.parametrize(
    ("uri", "namespace", "name"),
    [
        ("file:/data/orders", "file", "/data/orders"),
        ("file:///data/orders/", "file", "/data/orders"),
        ("/data/orders", "file", "/data/orders"),
        ("hdfs://namenode:8020/warehouse/orders", "hdfs://namenode:8020", "/warehouse/orders"),
        ("s3a://lake-bucket/raw/orders", "s3://lake-bucket", "raw/orders"),
        ("s3://lake-bucket/raw/orders", "s3://lake-bucket", "raw/orders"),
        ("gs://lake-bucket/raw/orders", "gs://lake-bucket", "raw/orders"),
        ("hdfs://namenode/warehouse/orders", "hdfs://namenode:8020", "/warehouse/orders"),
        (
            "abfss://lake@account.dfs.core.windows.net/raw/orders",
            "abfss://lake@account.dfs.core.windows.net",
            "raw/orders",
        ),
        (
            "wasbs://lake@account.blob.core.windows.net/raw/orders",
            "wasbs://lake@account.dfs.core.windows.net",
            "raw/orders",
        ),
        # No workspace in the path: the namespace the JVM agent writes for it.
        ("dbfs:/mnt/lake/orders", "dbfs", "/mnt/lake/orders"),
        ("dbfs://workspace/mnt/lake/orders", "dbfs://workspace", "/mnt/lake/orders"),
        (
            "jdbc:postgresql://db.example.com/shop?currentSchema=sales&password=x",
            "postgres://db.example.com:5432",
            "shop.sales.orders",
        ),
    ],
)
def test_storage_locations(uri: str, namespace: str, name: str) -> None:
    located = dataset_name(uri, "orders" if uri.startswith("jdbc:") else None)
    assert (located.namespace, located.name) == (namespace, name)


def test_a_table_on_object_storage_links_to_its_warehouse() -> None:
    info = TableInfo("sales", "orders", "s3a://lake-bucket/warehouse/sales.db/orders")
    identity = table_identity(info)
    assert (identity.namespace, identity.name) == ("s3://lake-bucket", "warehouse/sales.db/orders")
    [link] = identity.symlinks
    assert (link.namespace, link.name, link.type) == (
        "s3://lake-bucket/warehouse/sales.db",
        "sales.orders",
        "TABLE",
    )


@pytest.mark.parametrize(
    ("metastore", "namespace"),
    [
        ("thrift://metastore:9083", "hive://metastore:9083"),
        # Several metastores (high availability): the first names the table, as a client tries it.
        ("thrift://meta-1:9083,thrift://meta-2:9083", "hive://meta-1:9083"),
        # As the JVM agent names it: the authority as written, whatever the scheme, no port
        # added (the naming conventions would write hive://metastore:9083).
        ("thrift://Metastore", "hive://Metastore"),
        ("http://metastore", "hive://metastore"),
        ("thrift://user:secret@metastore:9083", "hive://metastore:9083"),
    ],
)
def test_a_table_in_a_hive_metastore_links_to_the_metastore(metastore: str, namespace: str) -> None:
    info = TableInfo("sales", "orders", "hdfs://namenode:8020/warehouse/sales.db/orders")
    identity = table_identity(info, metastore)
    assert (identity.namespace, identity.name) == (
        "hdfs://namenode:8020",
        "/warehouse/sales.db/orders",
    )
    [link] = identity.symlinks
    assert (link.namespace, link.name, link.type) == (namespace, "sales.orders", "TABLE")


def test_a_hive_table_without_a_database_keeps_its_location_and_has_no_symlink() -> None:
    info = TableInfo(None, "orders", "hdfs://namenode:8020/warehouse/orders")
    identity = table_identity(info, "thrift://metastore:9083")
    assert (identity.namespace, identity.name, identity.symlinks) == (
        "hdfs://namenode:8020",
        "/warehouse/orders",
        (),
    )


def test_other_unnamed_locations_still_raise() -> None:
    with pytest.raises(NamingError, match="bucket"):
        dataset_name("s3a:///raw/orders")


@pytest.mark.parametrize(
    ("app", "command", "table", "name"),
    [
        (
            "my awesome App",
            "execute_insert_into_hive_table",
            "mydb.mytable",
            "my_awesome_app.execute_insert_into_hive_table.mydb_mytable",
        ),
        (
            "etl",
            "execute_insert_into_hadoop_fs_relation_command",
            "/warehouse/raw/orders",
            "etl.execute_insert_into_hadoop_fs_relation_command.raw_orders",
        ),
        # A part that names nothing is dropped, or the app called spark: never a failed write.
        ("etl", "save", "///", "etl.save"),
        ("***", "save", "t", "spark.save.t"),
        ("etl", None, None, "etl"),
    ],
)
def test_job_names_follow_app_command_table(
    app: str, command: str | None, table: str | None, name: str
) -> None:
    assert job_name(app, command, table) == name


@pytest.mark.parametrize(
    ("servers", "namespace"),
    [
        ("localhost:9092", "kafka://localhost:9092"),
        # The first server, its host as written (java.net.URI keeps its case).
        ("Broker-1.example:9092,broker-2:9092", "kafka://Broker-1.example:9092"),
        ("SASL_SSL://secure.example:9093", "kafka://secure.example:9093"),
        ("PLAINTEXT://user@h:9094/", "kafka://h:9094"),
        ("h", "kafka://h:-1"),  # no port: -1, as URI.getPort() says
        ("[::1]:9092", "kafka://[::1]:9092"),
        ("", "kafka://"),
    ],
)
def test_kafka_namespaces_are_the_agents_for_batch_and_streams(
    servers: str, namespace: str
) -> None:
    from openlineage_sdk.spark.describe import _kafka
    from openlineage_sdk.spark.describe import _stream_datasets as _streams

    assert _kafka.kafka_namespace(servers) == namespace
    streamed = _streams.kafka_namespace({"kafka.bootstrap.servers": servers})
    assert streamed == (namespace if servers else None)
