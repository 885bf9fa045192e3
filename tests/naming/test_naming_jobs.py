"""Job names: every row of the "Job naming" table, the Spark normalization, and bad input."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from openlineage_sdk import naming
from openlineage_sdk.naming import NamingError

# (job type as naming.md writes it, the builder applied to the row's parts, the row's example)
JOB_ROWS: list[tuple[str, Callable[[], str], str]] = [
    (
        "Airflow task",
        lambda: naming.airflow_job_name("orders_etl", "count_orders"),
        "orders_etl.count_orders",
    ),
    (
        "Spark job",
        lambda: naming.spark_job_name(
            "my_awesome_app", "execute_insert_into_hive_table", "mydb.mytable"
        ),
        "my_awesome_app.execute_insert_into_hive_table.mydb_mytable",
    ),
    ("SQL", lambda: naming.sql_job_name("gx", "validate_datasets"), "gx.validate_datasets"),
    ("Debezium", lambda: naming.debezium_job_name("inventory", 0), "inventory.0"),
]


@pytest.mark.parametrize(("job_type", "build", "example"), JOB_ROWS, ids=[r[0] for r in JOB_ROWS])
def test_job_naming_row(job_type: str, build: Callable[[], str], example: str) -> None:
    assert build() == example


def test_every_job_naming_row_of_naming_md_is_covered() -> None:
    # The rows above are the "Job naming" table of the vendored spec/naming.md, examples included.
    text = (Path(__file__).parents[2] / "spec" / "naming.md").read_text(encoding="utf-8")
    table = text.split("## Job Naming", 1)[1].split("##", 1)[0]
    rows = [
        [cell.strip().strip("`") for cell in line.split("|")[1:-1]]
        for line in table.splitlines()
        if line.startswith("| ") and not line.startswith("| Job type")
    ]
    assert {(row[0], row[2]) for row in rows} == {(r[0], r[2]) for r in JOB_ROWS}


@pytest.mark.parametrize(
    ("app_name", "command", "table", "expected"),
    [
        # The seed document's forms: the application alone, and {spark.app.name}.{node.name}.
        ("orders_app", None, None, "orders_app"),
        ("orders_app", "collect_limit", None, "orders_app.collect_limit"),
        # Words are split at camelCase and at the end of an acronym, then lower-cased.
        (
            "MyAwesomeApp",
            "InsertIntoHadoopFsRelationCommand",
            None,
            "my_awesome_app.insert_into_hadoop_fs_relation_command",
        ),
        ("CLI test application", None, None, "cli_test_application"),
        ("someACRONYMInside", None, None, "some_acronym_inside"),
        ("etl v2app", None, None, "etl_v2_app"),
        # Accents go, other characters become one underscore, and the ends are trimmed.
        ("Ōrders — Café!", None, None, "orders_cafe"),
        ("  daily load  ", "Execute Insert", None, "daily_load.execute_insert"),
        # The table part: dots of a qualified name become underscores ...
        ("app", "insert", "mydb.mytable", "app.insert.mydb_mytable"),
        ("app", "insert", "cat.db.t", "app.insert.cat_db_t"),
        # ... a path is named by its last two elements, as the JVM agent does.
        ("app", "save", "/warehouse/raw/orders", "app.save.raw_orders"),
        ("app", "save", "raw/orders.parquet/", "app.save.raw_orders_parquet"),
        ("app", "save", "/orders", "app.save.orders"),
    ],
)
def test_spark_job_name_normalizes_like_the_jvm_agent(
    app_name: str, command: str | None, table: str | None, expected: str
) -> None:
    assert naming.spark_job_name(app_name, command, table) == expected


def test_airflow_task_group_ids_keep_their_dots() -> None:
    assert naming.airflow_job_name("dag", "group.task") == "dag.group.task"


def test_debezium_task_id_as_text() -> None:
    assert naming.debezium_job_name("inventory", "3") == "inventory.3"


@pytest.mark.parametrize(
    ("call", "problem"),
    [
        (lambda: naming.airflow_job_name("", "t"), "missing dag id"),
        (lambda: naming.airflow_job_name("d", ""), "missing task id"),
        (lambda: naming.airflow_job_name("d", 3), "task id must be a string, got int"),  # type: ignore[arg-type]
        (lambda: naming.sql_job_name("", "t"), "missing schema"),
        (lambda: naming.sql_job_name("s", None), "table must be a string, got NoneType"),  # type: ignore[arg-type]
        (lambda: naming.debezium_job_name("", 0), "missing topic prefix"),
        (lambda: naming.debezium_job_name("p", -1), "task id must not be negative, got -1"),
        (lambda: naming.debezium_job_name("p", True), "task id must be a string, got bool"),
        (lambda: naming.spark_job_name(""), "missing app name"),
        (lambda: naming.spark_job_name("!!!"), "app name '!!!' has no letter or digit"),
        (lambda: naming.spark_job_name("app", "—"), "command '—' has no letter or digit"),
        (lambda: naming.spark_job_name("app", None, "t"), "a table needs a command"),
        (lambda: naming.spark_job_name("app", "c", "/"), "table '/' names nothing"),
    ],
)
def test_bad_parts_name_the_part(call: Callable[[], str], problem: str) -> None:
    with pytest.raises(NamingError) as caught:
        call()
    assert caught.value.problem == problem
