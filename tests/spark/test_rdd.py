"""RDDs in classic PySpark: saves are runs of their own, and inputs are traced through RDDs.

Every test runs real RDD jobs on the shared local driver and checks the events the adapter sent
through a real client; statistics are checked against what Spark wrote on disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from openlineage_sdk.spark import install, uninstall
from tests.spark._support import Captured, RunEvents, bytes_of, files_of

pytestmark = pytest.mark.spark


def _rdd_runs(captured: Captured) -> list[RunEvents]:
    return [r for r in captured.runs() if r.job_type() == "RDD_JOB"]


def _lines(folder: Path, count: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "part.txt").write_text("".join(f"line {i}\n" for i in range(count)))
    return folder


def _io(run: RunEvents) -> tuple[list[str], list[str]]:
    start = run.start
    return (
        [i.name for i in start.inputs or []],
        [o.name for o in start.outputs or []],
    )


def test_save_as_text_file_is_a_run_with_its_input_output_and_statistics(
    spark: Any, classic_auto: Captured, data_dir: Path
) -> None:
    source = _lines(data_dir / "in", 7)
    out = data_dir / "out"
    spark.sparkContext.textFile(str(source)).map(str.upper).saveAsTextFile(str(out))

    [run] = _rdd_runs(classic_auto)
    assert run.types == ["START", "COMPLETE"]
    assert _io(run) == ([str(source)], [str(out)])
    # The JVM agent's name: the final RDD and its dependencies, by class where unnamed.
    assert run.job_name == "openlineage_sdk_tests.map_partitions_python_map_partitions_hadoop"
    end = run.end
    [output] = end.outputs or []
    stats = output.output_facets.output_statistics if output.output_facets else None
    assert stats is not None
    # Spark's own figure, as the JVM agent reports it: the bytes its file system counted, the
    # data and (on a checksummed file system) some of the checksum files' bytes.
    everything = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    assert stats.row_count == 7
    assert stats.size is not None
    assert bytes_of(files_of(out)) <= stats.size <= everything
    [read] = end.inputs or []
    read_stats = read.input_facets.input_statistics if read.input_facets else None
    assert read_stats is not None
    assert read_stats.row_count == 7
    assert output.facets is not None
    assert output.facets.data_source is not None


def test_a_named_rdd_names_the_job(spark: Any, classic_auto: Captured, data_dir: Path) -> None:
    rdd = spark.sparkContext.parallelize([(1, "a"), (2, "b")])
    rdd.setName("list of pairs")
    rdd.map(lambda x: f"{x[0]},{x[1]}").saveAsTextFile(str(data_dir / "out"))

    [run] = _rdd_runs(classic_auto)
    assert run.job_name == "openlineage_sdk_tests.map_partitions_python_list_of_pairs"
    assert _io(run) == ([], [str(data_dir / "out")])  # a local collection is no dataset


@pytest.mark.parametrize(
    "method",
    [
        "saveAsPickleFile",
        "saveAsSequenceFile",
        "saveAsHadoopFile",
        "saveAsNewAPIHadoopFile",
        "saveAsNewAPIHadoopDataset",
        "saveAsHadoopDataset",
    ],
)
def test_every_rdd_writer_is_reported(
    spark: Any, classic_auto: Captured, data_dir: Path, method: str
) -> None:
    source = _lines(data_dir / "in", 5)
    out = data_dir / "out"
    pairs = spark.sparkContext.textFile(str(source)).map(lambda line: (line, len(line)))
    text = "org.apache.hadoop.io.Text"
    number = "org.apache.hadoop.io.IntWritable"
    if method == "saveAsPickleFile":
        pairs.saveAsPickleFile(str(out))
    elif method == "saveAsSequenceFile":
        pairs.saveAsSequenceFile(str(out))
    elif method == "saveAsHadoopFile":
        pairs.saveAsHadoopFile(str(out), "org.apache.hadoop.mapred.TextOutputFormat", text, number)
    elif method == "saveAsNewAPIHadoopFile":
        pairs.saveAsNewAPIHadoopFile(
            str(out), "org.apache.hadoop.mapreduce.lib.output.TextOutputFormat", text, number
        )
    elif method == "saveAsNewAPIHadoopDataset":
        pairs.saveAsNewAPIHadoopDataset(
            {
                "mapreduce.job.outputformat.class": (
                    "org.apache.hadoop.mapreduce.lib.output.TextOutputFormat"
                ),
                "mapreduce.job.output.key.class": text,
                "mapreduce.job.output.value.class": number,
                "mapreduce.output.fileoutputformat.outputdir": str(out),
            }
        )
    else:
        pairs.saveAsHadoopDataset(
            {
                "mapred.output.format.class": "org.apache.hadoop.mapred.TextOutputFormat",
                "mapreduce.job.output.key.class": text,
                "mapreduce.job.output.value.class": number,
                "mapreduce.output.fileoutputformat.outputdir": str(out),
            }
        )

    [run] = _rdd_runs(classic_auto)
    assert run.types == ["START", "COMPLETE"]
    assert _io(run) == ([str(source)], [str(out)])
    [output] = run.end.outputs or []
    stats = output.output_facets.output_statistics if output.output_facets else None
    # Records as Hadoop counts them: a pickle file's record is a batch of up to 10 objects.
    rows = pairs.getNumPartitions() if method == "saveAsPickleFile" else 5
    assert stats is not None
    assert stats.row_count == rows
    assert run.start.run.facets is None or run.start.run.facets.extraction_error is None


def test_a_dated_folder_names_its_parent_with_the_location_as_subset(
    spark: Any, classic_auto: Captured, data_dir: Path
) -> None:
    source = _lines(data_dir / "events" / "dt=2025-09-01", 3)
    out = data_dir / "daily" / "20251030"
    spark.sparkContext.textFile(str(source)).saveAsTextFile(str(out))

    [run] = _rdd_runs(classic_auto)
    assert _io(run) == ([str(data_dir / "events")], [str(data_dir / "daily")])
    data = run.start.to_dict()
    assert data["outputs"][0]["outputFacets"]["subset"]["outputCondition"] == {
        "type": "location",
        "locations": [str(out)],
    }
    assert data["inputs"][0]["inputFacets"]["subset"]["inputCondition"]["locations"] == [
        str(source)
    ]


def test_a_failing_save_fails_its_run_and_raises_unchanged(
    spark: Any, classic_auto: Captured, data_dir: Path
) -> None:
    out = _lines(data_dir / "exists", 1)
    rdd = spark.sparkContext.parallelize(["a"])
    with pytest.raises(Exception, match="already exists") as raised:
        rdd.saveAsTextFile(str(out))
    uninstall(spark)
    with pytest.raises(type(raised.value), match="already exists"):
        rdd.saveAsTextFile(str(out))  # the same error without the adapter

    [run] = _rdd_runs(classic_auto)
    assert run.types == ["START", "FAIL"]
    facets = run.end.run.facets
    assert facets is not None
    assert facets.error_message is not None
    assert "already exists" in facets.error_message.message


def test_rdd_saves_start_no_extra_job_and_leave_the_users_job_tags(
    spark: Any, client: Any, jobs: Any, data_dir: Path
) -> None:
    source = _lines(data_dir / "in", 50)
    sc = spark.sparkContext

    def save(label: str) -> int:
        before = jobs.count()
        sc.textFile(str(source)).map(str.upper).saveAsTextFile(str(data_dir / label))
        return int(jobs.count() - before)

    plain = save("plain")
    sc.addJobTag("users-own-tag")
    try:
        install(spark, client)
        try:
            traced = save("traced")
            assert set(sc.getJobTags()) == {"users-own-tag"}
        finally:
            uninstall(spark)
    finally:
        sc.removeJobTag("users-own-tag")
    assert traced == plain == 1


def test_a_dataframe_made_from_rdds_reads_their_files(
    spark: Any, classic_auto: Captured, data_dir: Path
) -> None:
    frame = spark.createDataFrame([{"a": "x", "b": "z"}, {"a": "y", "b": "z"}])
    frame.write.parquet(str(data_dir / "a"))
    frame.write.parquet(str(data_dir / "b"))
    text = _lines(data_dir / "text", 2)
    classic_auto.clear()

    rdd_a = spark.read.parquet(str(data_dir / "a")).rdd
    rdd_b = spark.read.parquet(str(data_dir / "b")).rdd
    rows = rdd_a.union(rdd_b).map(lambda r: (r["a"] + r["b"],))
    rows.toDF().write.parquet(str(data_dir / "from_to_df"))
    lines = spark.sparkContext.textFile(str(text)).map(lambda line: (line,))
    spark.createDataFrame(lines, "line string").write.parquet(str(data_dir / "from_create"))

    to_df, created = classic_auto.write_runs()
    assert sorted(i.name for i in to_df.start.inputs or []) == [
        str(data_dir / "a"),
        str(data_dir / "b"),
    ]
    assert [i.name for i in created.start.inputs or []] == [str(text)]
    stats = to_df.output().output_facets
    assert stats is not None
    assert stats.output_statistics is not None
    assert stats.output_statistics.row_count == 4


def test_an_rdd_of_another_context_or_session_is_not_reported(
    spark: Any, client: Any, memory: Any, data_dir: Path
) -> None:
    spark.sparkContext.parallelize(["a"]).saveAsTextFile(str(data_dir / "before"))
    install(spark, client)
    uninstall(spark)
    spark.sparkContext.parallelize(["a"]).saveAsTextFile(str(data_dir / "after"))
    assert memory.events == []
