"""SQL statements and DDL through ``spark.sql`` in classic PySpark, and reads ending in actions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.spark._support import Captured

pytestmark = pytest.mark.spark


def _sql(spark: Any, *statements: str) -> None:
    for statement in statements:
        spark.sql(statement)


def test_insert_select_is_one_run_with_the_agents_names_and_statistics(
    spark: Any, classic_auto: Captured
) -> None:
    _sql(
        spark,
        "DROP TABLE IF EXISTS sql_src",
        "DROP TABLE IF EXISTS sql_dst",
        "CREATE TABLE sql_src (k INT, v STRING) USING parquet",
        "CREATE TABLE sql_dst (k INT, v STRING) USING parquet",
        "INSERT INTO sql_src VALUES (1, 'a'), (2, 'b'), (3, 'c')",
    )
    classic_auto.clear()
    spark.sql("INSERT INTO sql_dst SELECT k, upper(v) FROM sql_src WHERE k > 1")

    run = classic_auto.only_write()
    assert run.types == ["START", "COMPLETE"]
    assert run.job_name == (
        "openlineage_sdk_tests.execute_insert_into_hadoop_fs_relation_command.warehouse_sql_dst"
    )
    start = run.start.to_dict()
    (output,) = start["outputs"]
    assert output["namespace"] == "file"
    assert output["name"].endswith("/warehouse/sql_dst")
    assert output["facets"]["dataSource"] == {
        **output["facets"]["dataSource"],
        "name": "file",
        "uri": "file",
    }
    assert output["facets"]["symlinks"]["identifiers"][0]["name"] == "default.sql_dst"
    assert [f["name"] for f in output["facets"]["schema"]["fields"]] == ["k", "v"]
    assert "lifecycleStateChange" not in output["facets"]
    (source,) = start["inputs"]
    assert source["name"].endswith("/warehouse/sql_src")
    lineage = output["facets"]["columnLineage"]["fields"]
    assert lineage["v"]["inputFields"][0]["field"] == "v"
    end = run.output_json()
    assert end["outputFacets"]["outputStatistics"]["rowCount"] == 2


def test_overwrite_create_drop_truncate_alter_carry_their_lifecycle_states(
    spark: Any, classic_auto: Captured
) -> None:
    _sql(spark, "DROP TABLE IF EXISTS life", "DROP TABLE IF EXISTS life2")
    classic_auto.clear()
    _sql(
        spark,
        "CREATE TABLE life (a STRING) USING parquet",
        "INSERT OVERWRITE TABLE life VALUES ('x')",
        "ALTER TABLE life ADD COLUMNS (b STRING)",
        "TRUNCATE TABLE life",
        "ALTER TABLE life RENAME TO life2",
        "DROP TABLE life2",
    )
    runs = classic_auto.write_runs()
    states = []
    for run in runs:
        output = run.output_json()
        states.append(
            (
                run.job_name.split(".")[1],
                output["name"].rsplit("/", 1)[-1],
                output["facets"]["lifecycleStateChange"]["lifecycleStateChange"],
            )
        )
    assert states == [
        ("execute_create_data_source_table_command", "life", "CREATE"),
        ("execute_insert_into_hadoop_fs_relation_command", "life", "OVERWRITE"),
        ("execute_alter_table_add_columns_command", "life", "ALTER"),
        ("execute_truncate_table_command", "life", "TRUNCATE"),
        ("execute_alter_table_rename_command", "life2", "RENAME"),
        # Spark 4 drops a session catalog table with the v2 DropTable (no RunnableCommand):
        # the agent names the run after that physical node, as under Spark Connect.
        ("drop_table", "life2", "DROP"),
    ]
    altered = runs[2].output_json()["facets"]["schema"]["fields"]
    assert [f["name"] for f in altered] == ["a", "b"]  # the schema after the change
    renamed = runs[4].output_json()["facets"]["lifecycleStateChange"]
    assert renamed["previousIdentifier"]["name"].endswith("/warehouse/life")


def test_sql_and_ddl_start_no_spark_job(spark: Any, jobs: Any, client: Any) -> None:
    from openlineage_sdk.spark import install, uninstall

    def statements(label: str) -> int:
        before = jobs.count()
        _sql(
            spark,
            f"DROP TABLE IF EXISTS nojob_{label}",
            f"CREATE TABLE nojob_{label} (k BIGINT, v STRING) USING parquet",
            f"INSERT INTO nojob_{label} SELECT id, CAST(id AS STRING) FROM range(100)",
            f"INSERT OVERWRITE TABLE nojob_{label} SELECT id, 'x' FROM range(10)",
        )
        spark.sql(f"INSERT INTO nojob_{label} SELECT id, :v FROM range(5)", args={"v": "p"})
        _sql(
            spark,
            f"ALTER TABLE nojob_{label} ADD COLUMNS (w STRING)",
            f"TRUNCATE TABLE nojob_{label}",
            f"CREATE TABLE nojob_{label}_ctas USING parquet AS SELECT * FROM nojob_{label}",
            f"DROP TABLE nojob_{label}_ctas",
            f"DROP TABLE nojob_{label}",
        )
        return int(jobs.count() - before)

    plain = statements("plain")
    assert plain >= 3
    install(spark, client)
    try:
        traced = statements("traced")
    finally:
        uninstall(spark)
    assert traced == plain


def test_a_failing_statement_reaches_the_user_unchanged_and_the_run_fails(
    spark: Any, classic_auto: Captured
) -> None:
    _sql(
        spark,
        "DROP TABLE IF EXISTS failing",
        "CREATE TABLE failing (a STRING) USING parquet",
    )
    classic_auto.clear()
    statement = "INSERT INTO failing SELECT raise_error('boom') FROM range(1)"
    with pytest.raises(Exception, match="boom") as traced:
        spark.sql(statement)
    from openlineage_sdk.spark import uninstall

    uninstall(spark)
    with pytest.raises(Exception, match="boom") as plain:
        spark.sql(statement)
    assert type(traced.value) is type(plain.value)
    assert "boom" in str(traced.value)
    run = classic_auto.only_write()
    assert run.types == ["START", "FAIL"]
    facets = run.end.run.facets
    assert facets is not None
    assert facets.error_message is not None
    assert "boom" in facets.error_message.message


def test_statements_with_parameters_or_format_arguments_give_the_literal_statements_run(
    spark: Any, classic_auto: Captured
) -> None:
    """PySpark formats ``{df}`` and Spark binds ``:name`` and ``?`` while parsing: the adapter
    describes the command Spark ran, and the run is the one the same statement written out
    gives (sent when the statement returns)."""
    _sql(
        spark,
        "DROP TABLE IF EXISTS bound_src",
        "DROP TABLE IF EXISTS bound_dst",
        "CREATE TABLE bound_src (k INT, v STRING) USING parquet",
        "CREATE TABLE bound_dst (k INT, v STRING) USING parquet",
        "INSERT INTO bound_src VALUES (1, 'a'), (2, 'b'), (3, 'c')",
    )
    insert = "INSERT INTO bound_dst SELECT k, upper(v) FROM {table} WHERE k > {low}"

    def run_of(text: str, *args: Any, **kwargs: Any) -> Any:
        classic_auto.clear()
        spark.sql(text, *args, **kwargs)
        run = classic_auto.only_write()
        end = run.end.to_dict()
        return run.types, run.job_name, end["inputs"], end["outputs"]

    literal = run_of(insert.format(table="bound_src", low=1))
    assert literal[3][0]["outputFacets"]["outputStatistics"]["rowCount"] == 2
    assert literal[3][0]["facets"]["columnLineage"]["fields"]
    named = run_of(insert.format(table="bound_src", low=":low"), args={"low": 1})
    positional = run_of(insert.format(table="bound_src", low="?"), args=[1])
    formatted = run_of(insert, table=spark.table("bound_src"), low=1)
    assert named == literal
    assert positional == literal
    assert formatted == literal

    classic_auto.clear()
    spark.sql(
        "CREATE TABLE IDENTIFIER(:name) USING parquet AS SELECT * FROM bound_src",
        args={"name": "bound_ctas"},
    )
    spark.sql("DROP TABLE bound_ctas")
    ctas = classic_auto.write_runs()[0].end.to_dict()
    assert ctas["job"]["name"].endswith(
        ".execute_create_data_source_table_as_select_command.default_bound_ctas"
    )
    assert ctas["outputs"][0]["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "CREATE"


def test_a_failing_statement_with_parameters_reaches_the_user_unchanged_and_the_run_fails(
    spark: Any, classic_auto: Captured
) -> None:
    _sql(
        spark,
        "DROP TABLE IF EXISTS bound_failing",
        "CREATE TABLE bound_failing (a STRING) USING parquet",
    )
    """A command that fails while it runs is described from what the listener saw fail: its
    FAIL names the table it was writing, as the written-out statement's does. One that fails
    before Spark runs it (binding, analysis) has no command to describe, and says so."""
    from openlineage_sdk.spark import uninstall

    classic_auto.clear()
    literal = "INSERT INTO bound_failing SELECT raise_error('boom') FROM range(1)"
    with pytest.raises(Exception, match="boom"):
        spark.sql(literal)
    written_out = classic_auto.only_write().end.to_dict()
    classic_auto.clear()
    statement = "INSERT INTO bound_failing SELECT raise_error(:message) FROM range(1)"
    with pytest.raises(Exception, match="boom") as traced:
        spark.sql(statement, args={"message": "boom"})
    run = classic_auto.only_write()
    assert run.types == ["START", "FAIL"]
    end = run.end.to_dict()
    assert "boom" in end["run"]["facets"]["errorMessage"]["message"]
    assert "extractionError" not in end["run"]["facets"]
    assert end["job"]["name"] == written_out["job"]["name"]
    assert end["outputs"] == written_out["outputs"]
    assert end["outputs"][0]["name"].endswith("bound_failing")

    classic_auto.clear()
    unbound = "INSERT INTO bound_failing SELECT :missing FROM range(1)"
    with pytest.raises(Exception, match=r"missing|UNBOUND") as never_ran:
        spark.sql(unbound, args={"message": "boom"})
    run = classic_auto.only_write()
    assert run.types == ["START", "FAIL"]
    [problem] = run.end.to_dict()["run"]["facets"]["extractionError"]["errors"]
    assert "it failed before there was one" in problem["errorMessage"]

    uninstall(spark)
    with pytest.raises(Exception, match="boom") as plain:
        spark.sql(statement, args={"message": "boom"})
    with pytest.raises(Exception, match=r"missing|UNBOUND") as plain_never_ran:
        spark.sql(unbound, args={"message": "boom"})
    assert type(traced.value) is type(plain.value)
    assert type(never_ran.value) is type(plain_never_ran.value)


def test_reads_ending_in_actions_are_runs_with_inputs_only(
    spark: Any, client: Any, memory: Any, data_dir: Path
) -> None:
    from openlineage_sdk.spark import install, installed, uninstall

    path = str(data_dir / "people")
    spark.range(5).selectExpr("id", "id * 2 AS twice").write.parquet(path)

    def settle() -> None:
        """An action's run comes from Spark's listener bus, after the action returned."""
        adapter = installed(spark)
        assert adapter is not None
        adapter.drain_listeners()

    install(spark, client)
    try:
        captured = Captured(memory)
        spark.read.parquet(path).filter("id > 1").collect()
        spark.sql("SET spark.sql.shuffle.partitions=2").collect()
        spark.range(3).count()
        spark.createDataFrame([(1,)], "a INT").collect()
        settle()
        reads = captured.read_runs()
        assert len(reads) == 1, [r.job_name for r in captured.runs()]
        (read,) = reads
        assert read.types == ["START", "COMPLETE"]
        (dataset,) = read.end.to_dict()["inputs"]
        assert dataset["name"] == path
        assert [f["name"] for f in dataset["facets"]["schema"]["fields"]] == ["id", "twice"]
        assert not captured.write_runs()

        install(spark, client, input_only_runs=False)
        memory.clear()
        spark.read.parquet(path).count()
        settle()
        assert captured.runs() == []
    finally:
        uninstall(spark)
