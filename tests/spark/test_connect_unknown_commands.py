"""Under Spark Connect, a command of a kind the adapter does not know still gets a run.

The client sends a real ``Command.extension`` (an ``Any``, as Delta Connect's commands are) to
the tests' Connect server, which has no plugin for it and refuses it: the run is named after the
message's type and carries an ``extractionError`` facet saying what was not understood.

A ``Relation.extension`` the server's relation plugin understands (the tests' driver registers
one, compiled at test time: ``java/connect/TableRelationPlugin.java``) is described by the
server's EXPLAIN of the plan, in an action and in a write; one it does not keeps the
``extractionError``.
"""

from __future__ import annotations

from typing import Any

import pytest

from openlineage_sdk.spark.executions._unknown_command import extension_command_name
from tests.spark._support import Captured


def test_an_extension_command_is_a_run_with_an_extraction_error(
    spark_connect: Any, connect_auto: Captured
) -> None:
    from google.protobuf.wrappers_pb2 import StringValue
    from pyspark.sql.connect.proto import Command

    command = Command()
    command.extension.Pack(StringValue(value="OPTIMIZE events"))
    connect_auto.clear()
    with pytest.raises(Exception, match=r"(?i)extension|unsupported|not supported"):
        spark_connect.client.execute_command(command)

    (run,) = connect_auto.runs()
    assert run.types == ["START", "FAIL"]
    assert run.job_name == "openlineage_sdk_tests.string_value"
    facets = run.end.to_dict()["run"]["facets"]
    (error,) = facets["extractionError"]["errors"]
    assert "google.protobuf.StringValue" in error["errorMessage"]
    assert "not one the adapter reads" in error["errorMessage"]


def test_an_extension_commands_job_name_is_its_types_name_in_snake_case() -> None:
    assert extension_command_name("type.googleapis.com/delta.connect.DeltaCommand") == (
        "delta_command"
    )
    assert extension_command_name("") == "extension"


def test_an_action_over_an_extension_relation_is_a_run_with_an_extraction_error(
    spark_connect: Any, connect_auto: Captured
) -> None:
    """A relation of a server plugin's (an ``Any``, as Delta Connect's relations are) in an
    action's plan: what it reads is not known to the adapter, and the run says so."""
    from google.protobuf.wrappers_pb2 import StringValue
    from pyspark.sql.connect.proto import Plan

    plan = Plan()
    plan.root.extension.Pack(StringValue(value="delta table scan"))
    connect_auto.clear()
    with pytest.raises(Exception, match=r"(?i)extension|unsupported|not supported|unknown"):
        spark_connect.client.to_table(plan, {})

    (run,) = connect_auto.runs()
    assert run.types == ["START", "FAIL"]
    assert run.job_name == "openlineage_sdk_tests.extension"
    facets = run.end.to_dict()["run"]["facets"]
    (error,) = facets["extractionError"]["errors"]
    assert "google.protobuf.StringValue" in error["errorMessage"]
    assert "is not one the adapter reads" in error["errorMessage"]


def test_an_action_over_a_server_plugins_relation_is_described_by_the_servers_explain(
    spark_connect: Any, connect_auto: Captured
) -> None:
    """The tests' driver serves Spark Connect with a relation plugin compiled at test time
    (``java/connect/TableRelationPlugin.java``): ``table:NAME`` reads the table NAME. The
    client cannot read the message; the server's EXPLAIN of the plan says what it reads (as the
    same read sent as a plain table) and names the run."""
    from google.protobuf.wrappers_pb2 import StringValue
    from pyspark.sql.connect.proto import Plan

    from tests.spark._row_level import connect_plugin_jar

    if connect_plugin_jar() is None:
        pytest.skip("no Connect server plugin compiled (no javac, or a PySpark before 4.0)")
    name = "plugin_read_source"
    spark_connect.sql(f"DROP TABLE IF EXISTS {name}")
    spark_connect.sql(f"CREATE TABLE {name} USING parquet AS SELECT 1 AS a, 'x' AS b")
    try:
        connect_auto.clear()
        spark_connect.table(name).collect()
        (plain,) = connect_auto.runs()

        plan = Plan()
        plan.root.extension.Pack(StringValue(value=f"table:{name}"))
        connect_auto.clear()
        table = spark_connect.client.to_table(plan, {})[0]
        assert table.num_rows == 1

        (run,) = connect_auto.runs()
        assert run.types == ["START", "COMPLETE"]
        # Named after the root of the plan the server runs, as the agent names a read's run
        # (a Parquet scan collected: ``*(1) ColumnarToRow``), not after the client's message.
        assert run.job_name == "openlineage_sdk_tests.columnar_to_row"
        end = run.end.to_dict()
        assert [i["name"] for i in end["inputs"]] == [
            i["name"] for i in plain.end.to_dict()["inputs"]
        ]
        assert end["inputs"][0]["name"].endswith(f"/{name}")
        assert "extractionError" not in end["run"]["facets"]
    finally:
        spark_connect.sql(f"DROP TABLE IF EXISTS {name}")


def test_a_write_of_a_server_plugins_relation_reads_what_the_servers_explain_says(
    spark_connect: Any, connect_auto: Captured, tmp_path: Any
) -> None:
    """A DataFrame over the test plugin's relation, written: its input is the table the
    server's EXPLAIN names, and no extractionError is left."""
    from google.protobuf.wrappers_pb2 import StringValue
    from pyspark.sql.connect.dataframe import DataFrame
    from pyspark.sql.connect.plan import LogicalPlan

    from tests.spark._row_level import connect_plugin_jar

    if connect_plugin_jar() is None:
        pytest.skip("no Connect server plugin compiled (no javac, or a PySpark before 4.0)")

    class PluginRelation(LogicalPlan):
        def __init__(self, value: str) -> None:
            super().__init__(None)
            self.value = value

        def plan(self, session: Any) -> Any:
            relation = self._create_proto_relation()
            relation.extension.Pack(StringValue(value=self.value))
            return relation

    name = "plugin_write_source"
    spark_connect.sql(f"DROP TABLE IF EXISTS {name}")
    spark_connect.sql(f"CREATE TABLE {name} USING parquet AS SELECT 1 AS a, 'x' AS b")
    try:
        frame = DataFrame(PluginRelation(f"table:{name}"), spark_connect)
        connect_auto.clear()
        frame.write.mode("overwrite").parquet(str(tmp_path / "plugin_out"))
        run = connect_auto.only_write()
        assert run.types == ["START", "COMPLETE"]
        end = run.end.to_dict()
        (read,) = end["inputs"]
        assert read["name"].endswith(f"/{name}")
        assert [o["name"] for o in end["outputs"]] == [str(tmp_path / "plugin_out")]
        assert "extractionError" not in end["run"]["facets"]
    finally:
        spark_connect.sql(f"DROP TABLE IF EXISTS {name}")
