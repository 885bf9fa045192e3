"""``openlineage-sdk run spark-submit --deploy-mode cluster``: the adapter reaches the driver on
YARN and Kubernetes.

In cluster deploy mode the driver starts on the cluster, where the launcher's ``PYTHONPATH`` does
not reach. The launcher adds the bootstrap as a py-file and turns it on in the driver's
environment (``spark.yarn.appMasterEnv.*``, ``spark.kubernetes.driverEnv.*``). There is no YARN
or Kubernetes here: the tests check the command the launcher builds, what ``spark-submit``
itself makes of it (``--verbose`` prints the Spark config it hands to YARN or Kubernetes; on
Kubernetes it also uploads the py-files before it reaches the API server), and that a driver
whose Python has only what Spark gives a cluster driver (the py-files, the driver environment's
variable, no launcher ``PYTHONPATH``) reports its writes. Spark itself refuses Python drivers in
a standalone cluster's cluster deploy mode; the launcher passes that through.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import pytest

from openlineage_sdk.spark._launch import (
    BOOTSTRAP_DIR,
    BOOTSTRAP_ZIP,
    bootstrap_zip,
    cluster_submit,
)


def _zip() -> str:
    return str(bootstrap_zip())


ACTIVE = "OPENLINEAGE_SDK_BOOTSTRAP=1"


def test_client_mode_and_other_commands_go_as_they_are() -> None:
    for command in (
        ["spark-submit", "job.py"],
        ["spark-submit", "--master", "yarn", "job.py", "--deploy-mode", "cluster"],
        ["spark-submit", "--master", "yarn", "--deploy-mode", "client", "job.py"],
        ["spark-submit", "--master", "local[2]", "--deploy-mode", "cluster", "job.py"],
        # Spark refuses Python drivers in a standalone cluster's cluster mode: unchanged.
        ["spark-submit", "--master", "spark://h:7077", "--deploy-mode", "cluster", "job.py"],
    ):
        assert cluster_submit(command, {}).command == command
        assert cluster_submit(command, {}).notes == ()


def test_yarn_cluster_mode_ships_the_bootstrap_and_turns_it_on_in_the_driver() -> None:
    command = [
        "spark-submit",
        "--master",
        "yarn",
        "--deploy-mode",
        "cluster",
        "job.py",
        "--day",
        "1",
    ]
    assert cluster_submit(command, {}).command == [
        "spark-submit",
        "--master",
        "yarn",
        "--deploy-mode",
        "cluster",
        "--conf",
        f"spark.yarn.appMasterEnv.{ACTIVE}",
        "--py-files",
        _zip(),
        "job.py",
        "--day",
        "1",
    ]
    # Told by confs, with the values inline.
    by_confs = [
        "spark-submit",
        "--master=yarn",
        "--conf",
        "spark.submit.deployMode=cluster",
        "--verbose",
        "job.py",
    ]
    assert cluster_submit(by_confs, {}).command == [
        *by_confs[:-1],
        "--conf",
        f"spark.yarn.appMasterEnv.{ACTIVE}",
        "--py-files",
        _zip(),
        "job.py",
    ]


def test_the_applications_own_py_files_are_kept(tmp_path: Path) -> None:
    base = ["spark-submit", "--master", "yarn", "--deploy-mode", "cluster"]
    given = cluster_submit([*base, "--py-files", "deps.zip,util.py", "job.py"], {}).command
    assert given[given.index("--py-files") + 1] == f"deps.zip,util.py,{_zip()}"
    inline = cluster_submit([*base, "--py-files=deps.zip", "job.py"], {}).command
    assert f"--py-files=deps.zip,{_zip()}" in inline
    assert "--py-files" not in inline
    conf = cluster_submit([*base, "--conf", "spark.submit.pyFiles=deps.zip", "job.py"], {}).command
    assert f"spark.submit.pyFiles=deps.zip,{_zip()}" in conf
    assert "--py-files" not in conf
    # From spark-defaults.conf, which a --py-files on the command line would hide.
    (tmp_path / "spark-defaults.conf").write_text(
        "# defaults\nspark.master  yarn\nspark.submit.deployMode=cluster\n"
        "spark.submit.pyFiles hdfs:///libs/deps.zip\n"
    )
    defaults = cluster_submit(["spark-submit", "job.py"], {"SPARK_CONF_DIR": str(tmp_path)}).command
    assert defaults[defaults.index("--py-files") + 1] == f"hdfs:///libs/deps.zip,{_zip()}"
    properties = tmp_path / "app.properties"
    properties.write_text("spark.master=yarn\nspark.submit.deployMode=cluster\n")
    from_file = cluster_submit(["spark-submit", "--properties-file", str(properties), "job.py"], {})
    assert from_file.command[-3:] == ["--py-files", _zip(), "job.py"]


def test_a_driver_environment_the_command_sets_is_kept() -> None:
    command = [
        "spark-submit",
        "--master",
        "yarn",
        "--deploy-mode",
        "cluster",
        "--conf",
        "spark.yarn.appMasterEnv.OPENLINEAGE_SDK_BOOTSTRAP=0",
        "job.py",
    ]
    built = cluster_submit(command, {}).command
    assert [a for a in built if "OPENLINEAGE_SDK_BOOTSTRAP" in a] == [command[6]]


def test_kubernetes_cluster_mode() -> None:
    base = [
        "spark-submit",
        "--master",
        "k8s://https://api.example:6443",
        "--deploy-mode",
        "cluster",
        "--conf",
        "spark.kubernetes.container.image=registry.example/spark-py:4.3.0",
    ]
    upload = ["--conf", "spark.kubernetes.file.upload.path=s3a://bucket/spark-uploads"]
    shipped = cluster_submit([*base, *upload, "job.py"], {})
    assert shipped.command == [
        *base,
        *upload,
        "--conf",
        f"spark.kubernetes.driverEnv.{ACTIVE}",
        "--py-files",
        _zip(),
        "job.py",
    ]
    assert shipped.notes == ()
    # Without an upload path Spark refuses local files: the image must hold the bootstrap.
    unshipped = cluster_submit([*base, "job.py"], {})
    assert unshipped.command == [*base, "--conf", f"spark.kubernetes.driverEnv.{ACTIVE}", "job.py"]
    assert len(unshipped.notes) == 1
    assert "spark.kubernetes.file.upload.path" in unshipped.notes[0]


def test_the_bootstrap_zip_holds_the_sitecustomize_and_is_written_once(tmp_path: Path) -> None:
    made = bootstrap_zip(tmp_path)
    assert made.name == BOOTSTRAP_ZIP
    with zipfile.ZipFile(made) as archive:
        assert archive.namelist() == ["sitecustomize.py"]
        assert archive.read("sitecustomize.py") == (BOOTSTRAP_DIR / "sitecustomize.py").read_bytes()
    stamp = made.stat().st_mtime_ns
    assert bootstrap_zip(tmp_path) == made
    assert made.stat().st_mtime_ns == stamp
    made.write_bytes(b"not a zip")
    assert zipfile.is_zipfile(bootstrap_zip(tmp_path))


def test_the_bootstrap_does_nothing_unless_turned_on(tmp_path: Path) -> None:
    """On executors, which get the driver's py-files, the zip's sitecustomize imports nothing
    of this package and still runs the one it hides."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "sitecustomize.py").write_text("import os\nos.environ['OTHER_SITE'] = 'ran'\n")
    probe = "import os, sys; print(os.environ.get('OTHER_SITE'), 'openlineage_sdk' in sys.modules)"
    env = {k: v for k, v in os.environ.items() if k != "OPENLINEAGE_SDK_BOOTSTRAP"}
    env["PYTHONPATH"] = os.pathsep.join([str(bootstrap_zip(tmp_path)), str(other)])
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.split() == ["ran", "False"]
    assert done.stderr == ""


# ------------------------------------------------------------------ with spark-submit itself


def _spark_env(tmp_path: Path) -> dict[str, str]:
    import pyspark

    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENLINEAGE")}
    env.update(
        {
            "SPARK_HOME": str(Path(pyspark.__file__).parent),
            "PYSPARK_PYTHON": sys.executable,
            "PYSPARK_DRIVER_PYTHON": sys.executable,
            "SPARK_LOCAL_IP": "127.0.0.1",
            "HADOOP_CONF_DIR": str(tmp_path / "hadoop-conf"),
            # No kubeconfig of the machine's: the master URL alone says where the API server is.
            "KUBECONFIG": str(tmp_path / "no-kubeconfig"),
        }
    )
    (tmp_path / "hadoop-conf").mkdir(exist_ok=True)
    return env


def _spark_submit() -> str:
    import pyspark

    return str(Path(pyspark.__file__).parent / "bin" / "spark-submit")


def _submitted_config(
    tmp_path: Path, *args: str, to_the_end: bool = False
) -> tuple[dict[str, str], str]:
    """``openlineage-sdk run spark-submit --verbose ...``: the Spark config spark-submit hands
    to the cluster manager. Then the process is stopped (there is no cluster to reach), or, with
    ``to_the_end``, left to end by itself once the cluster manager cannot be reached."""
    (tmp_path / "job.py").write_text("print('the job')\n")
    (tmp_path / "deps.py").write_text("VALUE = 1\n")
    log = tmp_path / "submit.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "openlineage_sdk.cli",
                "run",
                _spark_submit(),
                "--verbose",
                *args,
            ],
            cwd=tmp_path,
            env=_spark_env(tmp_path),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 300
        while "Classpath elements:" not in log.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        text = log.read_text(errors="replace")
        assert "Classpath elements:" in text, text[-3000:]
        if to_the_end:
            process.wait(300)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(30)
    section = text.split("Spark config:", 1)[1].split("Classpath elements:", 1)[0]
    config: dict[str, str] = {}
    for line in section.splitlines():
        if line.startswith("(") and line.endswith(")") and "," in line:
            key, value = line[1:-1].split(",", 1)
            config[key] = value
    return config, log.read_text(errors="replace")


@pytest.mark.spark
@pytest.mark.slow
def test_spark_submit_hands_yarn_the_bootstrap_and_the_drivers_environment(tmp_path: Path) -> None:
    config, output = _submitted_config(
        tmp_path, "--master", "yarn", "--deploy-mode", "cluster", "--py-files", "deps.py", "job.py"
    )
    shipped = Path(_zip()).as_uri()
    assert config["spark.submit.deployMode"] == "cluster"
    assert config["spark.yarn.appMasterEnv.OPENLINEAGE_SDK_BOOTSTRAP"] == "1"
    assert config["spark.submit.pyFiles"] == f"{(tmp_path / 'deps.py').as_uri()},{shipped}"
    assert config["spark.yarn.dist.pyFiles"] == config["spark.submit.pyFiles"]
    assert "openlineage:" not in output


@pytest.mark.spark
@pytest.mark.slow
def test_spark_submit_uploads_the_bootstrap_for_a_kubernetes_driver(tmp_path: Path) -> None:
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    config, output = _submitted_config(
        tmp_path,
        "--master",
        "k8s://http://127.0.0.1:9",  # nothing listens: the submission ends at the API server
        "--deploy-mode",
        "cluster",
        "--conf",
        "spark.kubernetes.container.image=registry.example/spark-py:4.3.0",
        "--conf",
        f"spark.kubernetes.file.upload.path={uploads.as_uri()}",
        "job.py",
        to_the_end=True,
    )
    assert config["spark.kubernetes.driverEnv.OPENLINEAGE_SDK_BOOTSTRAP"] == "1"
    assert config["spark.submit.pyFiles"].endswith(BOOTSTRAP_ZIP)
    uploaded = list(uploads.rglob(BOOTSTRAP_ZIP))
    assert uploaded, output[-3000:]
    assert uploaded[0].read_bytes() == Path(_zip()).read_bytes()
    assert "openlineage:" not in output


DRIVER = textwrap.dedent(
    """
    import os, sys
    from pyspark.sql import SparkSession

    # What a cluster driver has: no launcher PYTHONPATH, the py-files first on its path.
    assert sys.argv[2] not in os.environ.get("PYTHONPATH", "").split(os.pathsep)
    spark = SparkSession.builder.appName("cluster_driver").config("spark.ui.enabled", "false").getOrCreate()
    spark.range(3).write.mode("overwrite").parquet(sys.argv[1])
    spark.stop()
    """
)


@pytest.mark.spark
@pytest.mark.slow
def test_a_driver_with_only_the_bootstrap_py_file_and_its_variable_reports_its_writes(
    tmp_path: Path,
) -> None:
    """The driver as a YARN or Kubernetes cluster starts it: Spark's ``PythonRunner`` puts the
    py-files first on its path, and the driver's environment conf gives it the variable."""
    (tmp_path / "driver.py").write_text(DRIVER)
    (tmp_path / "openlineage.yml").write_text(
        json.dumps({"transport": {"type": "file", "log_file_path": str(tmp_path / "events.jsonl")}})
    )
    env = _spark_env(tmp_path)
    env.pop("PYTHONPATH", None)
    env["OPENLINEAGE_SDK_BOOTSTRAP"] = "1"
    out = tmp_path / "out"
    done = subprocess.run(
        [
            _spark_submit(),
            "--master",
            "local[1]",
            "--py-files",
            _zip(),
            "driver.py",
            str(out),
            str(BOOTSTRAP_DIR),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    # Spark's own log names the zip it ships; the adapter says nothing.
    assert "openlineage:" not in done.stderr
    assert "openlineage_sdk" not in done.stderr.replace(BOOTSTRAP_ZIP, "")
    events = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    kinds = sorted((e["job"]["facets"]["jobType"]["jobType"], e["eventType"]) for e in events)
    assert kinds == [
        ("APPLICATION", "COMPLETE"),
        ("APPLICATION", "START"),
        ("SQL_JOB", "COMPLETE"),
        ("SQL_JOB", "START"),
    ]
    assert {e["job"]["name"] for e in events} == {
        "cluster_driver",
        "cluster_driver.execute_insert_into_hadoop_fs_relation_command." + f"{tmp_path.name}_out",
    }


@pytest.mark.spark
def test_a_standalone_clusters_refusal_of_python_drivers_reaches_the_user(tmp_path: Path) -> None:
    (tmp_path / "job.py").write_text("print('never runs')\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "openlineage_sdk.cli",
            "run",
            _spark_submit(),
            "--master",
            "spark://127.0.0.1:7077",
            "--deploy-mode",
            "cluster",
            "job.py",
        ],
        cwd=tmp_path,
        env=_spark_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode != 0
    assert (
        "Cluster deploy mode is currently not supported for python applications on standalone "
        "clusters." in done.stderr
    )
    assert "openlineage" not in done.stderr
