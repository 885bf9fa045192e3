"""Under Spark Connect, a command of a kind the adapter does not know still gets a run.

The client sends a real ``Command.extension`` (an ``Any``, as Delta Connect's commands are) to
the tests' Connect server, which has no plugin for it and refuses it: the run is named after the
message's type and carries an ``extractionError`` facet saying what was not understood.
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
