"""Dataset names for every store the adapter meets, and Spark job names."""

from __future__ import annotations

import pytest

from openlineage_sdk.spark._naming import dataset_name, job_name, normalize_name_part
from openlineage_sdk.spark._tables import TableInfo, table_identity


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
        (
            "abfss://lake@account.dfs.core.windows.net/raw/orders",
            "abfss://lake@account.dfs.core.windows.net",
            "/raw/orders",
        ),
        (
            "wasbs://lake@account.blob.core.windows.net/raw/orders",
            "wasbs://lake@account.dfs.core.windows.net",
            "raw/orders",
        ),
        ("dbfs:/mnt/lake/orders", "dbfs", "/mnt/lake/orders"),
    ],
)
def test_storage_locations(uri: str, namespace: str, name: str) -> None:
    located = dataset_name(uri)
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


def test_a_table_in_a_hive_metastore_links_to_the_metastore() -> None:
    info = TableInfo("sales", "orders", "hdfs://namenode:8020/warehouse/sales.db/orders")
    [link] = table_identity(info, "thrift://metastore:9083").symlinks
    assert (link.namespace, link.name) == ("hive://metastore:9083", "sales.orders")


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("InsertIntoHadoopFsRelationCommand", "insert_into_hadoop_fs_relation_command"),
        ("/data/orders.v2", "data_orders_v2"),
        ("my awesome App", "my_awesome_app"),
        ("default.orders_2024", "default_orders_2024"),
    ],
)
def test_name_parts(text: str, normalized: str) -> None:
    assert normalize_name_part(text) == normalized


def test_job_names_follow_app_command_table() -> None:
    assert (
        job_name("my_awesome_app", "execute_insert_into_hive_table", "mydb.mytable")
        == "my_awesome_app.execute_insert_into_hive_table.mydb_mytable"
    )
