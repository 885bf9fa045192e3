"""``openlineage-sdk run`` quiet and clean: no warning when nothing is wrong, no request after
the session closed, and pipelines' jobs named by the pipeline.

``spark-submit`` and ``spark-pipelines`` put PySpark on the driver's path as ``pyspark.zip``,
whose modules one ``zipimporter`` loads; the launcher's hook of the session modules must not
touch the modules that loader loads after them. Spark Connect's client releases finished
operations from a thread pool; a ``stop()`` through the launcher sends those releases before it
releases the session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.spark._support import strict_problems
from tests.spark._versions import needs

PROBE = textwrap.dedent(
    """
    import inspect, zipimport
    import pyspark.sql.session as classic
    import pyspark.sql.window as window
    import pyspark.sql.connect.session as connect

    print("zip", isinstance(classic.__loader__, zipimport.zipimporter))
    print("loader", type(window.__loader__).__name__, type(classic.__loader__).__name__)
    print("source", "class Window" in inspect.getsource(window))
    print(
        "hooked",
        getattr(classic.SparkSession.Builder.getOrCreate, "_openlineage", False),
        getattr(connect.SparkSession.Builder.getOrCreate, "_openlineage", False),
    )
    """
)


def _pyspark_zips() -> list[str]:
    import pyspark

    lib = Path(pyspark.__file__).parent / "python" / "lib"
    return [str(p) for p in sorted(lib.glob("*.zip"))]


@pytest.mark.pyspark
def test_pyspark_imported_from_its_zip_is_hooked_without_a_warning(tmp_path: Path) -> None:
    """As ``spark-submit`` and ``spark-pipelines`` start the driver's Python: PySpark from
    ``pyspark.zip``. Each module keeps its own loader, and nothing is logged."""
    from openlineage_sdk.spark._launch import launch_env

    (tmp_path / "probe.py").write_text(PROBE)
    env = launch_env({k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], *_pyspark_zips()])
    completed = subprocess.run(
        [sys.executable, "probe.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert "openlineage" not in completed.stderr + completed.stdout, completed.stderr
    assert completed.stdout.splitlines() == [
        "zip True",
        "loader zipimporter zipimporter",
        "source True",
        "hooked True True",
    ]


def _patched_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    """The launcher's hooks on the Connect session class, taken off after the test."""
    import pyspark.sql.connect.session as connect

    from openlineage_sdk.spark import _launch

    monkeypatch.setattr(connect.SparkSession, "stop", connect.SparkSession.stop)
    monkeypatch.setattr(
        connect.SparkSession.Builder, "getOrCreate", connect.SparkSession.Builder.getOrCreate
    )
    _launch._patch_builder(connect)


@pytest.mark.connect
def test_stop_sends_the_releases_of_finished_operations_before_it_releases_the_session(
    spark_connect: Any, connect_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spark's ``stop()`` releases the session, then waits for the operations' releases: one
    still on its way reaches a closed session (``INVALID_HANDLE.SESSION_CLOSED`` on the
    server). Through the launcher, the releases go first. Each release is held back for a second
    on the client's release threads (as many as the machine has cores), so that releases are
    still on their way when ``stop()`` is called right after the query; the launcher's bound on
    the wait is raised above what the held releases take."""
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    from openlineage_sdk.spark import _launch

    _patched_stop(monkeypatch)
    monkeypatch.setattr(_launch, "_RELEASE_WAIT_S", 120.0)
    session = ConnectSession.builder.remote(f"sc://127.0.0.1:{connect_port}").create()
    calls: list[str] = []
    hold = threading.Event()
    stub = session.client._stub
    release_execute = stub.ReleaseExecute
    sent: list[threading.Event] = []  # one per release, set once it was answered

    def held_release_execute(*args: Any, **kwargs: Any) -> Any:
        answered = threading.Event()
        sent.append(answered)
        hold.wait(1.0)
        try:
            return release_execute(*args, **kwargs)
        finally:
            calls.append("ReleaseExecute")
            answered.set()

    monkeypatch.setattr(stub, "ReleaseExecute", held_release_execute)
    release_session = session.client.release_session

    def recorded_release_session() -> None:
        calls.append(f"ReleaseSession with {sum(not e.is_set() for e in sent)} pending")
        release_session()

    monkeypatch.setattr(session.client, "release_session", recorded_release_session)
    assert session.range(3).collect()[-1][0] == 2
    try:
        session.stop()
    finally:
        hold.set()
    # Spark's close waits for the releases still on their way (the client's own, or its pool's).
    assert sent, "the query's results were released"
    assert all(answered.wait(30) for answered in sent)
    assert "ReleaseExecute" in calls
    assert calls[-1] == "ReleaseSession with 0 pending", calls


@pytest.mark.pyspark
@needs(4, 1, "Spark Declarative Pipelines (spark-pipelines)")
def test_the_pipelines_command_line_is_named_by_its_pipeline(tmp_path: Path) -> None:
    from openlineage_sdk.spark._launch import pipeline_app_name

    project = tmp_path / "proj"
    (project / "sub").mkdir(parents=True)
    (project / "spark-pipeline.yml").write_text("name: orders_daily\nstorage: file:///tmp/x\n")
    cli = "/site-packages/pyspark/python/lib/pyspark.zip/pyspark/pipelines/cli.py"
    # The spec found from the working folder, as the command line finds it (parents too).
    assert pipeline_app_name("cli.py", [cli, "run"], project / "sub") == "orders_daily"
    other = tmp_path / "other.yml"
    other.write_text("name: other_pipeline\nstorage: file:///tmp/y\n")
    assert pipeline_app_name("cli.py", [cli, "run", "--spec", str(other)], tmp_path) == (
        "other_pipeline"
    )
    assert pipeline_app_name("cli.py", [cli, "dry-run", f"--spec={other}"], tmp_path) == (
        "other_pipeline"
    )
    # An app named with --name, another script named cli.py, no spec: the session's name.
    assert pipeline_app_name("nightly", [cli, "run"], project) is None
    assert pipeline_app_name("cli.py", ["/home/me/cli.py", "run"], project) is None
    assert pipeline_app_name("cli.py", [cli, "run"], tmp_path) is None


def _pipelines(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    import pyspark

    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENLINEAGE")}
    env["PYSPARK_PYTHON"] = env["PYSPARK_DRIVER_PYTHON"] = sys.executable
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    command = str(Path(pyspark.__file__).parent / "bin" / "spark-pipelines")
    return subprocess.run(
        [command, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _launched_pipeline(root: Path, *confs: str) -> tuple[str, list[dict[str, Any]]]:
    """``spark-pipelines init --name myproj``, then its run through the launcher."""
    root.mkdir()
    made = _pipelines(root, "init", "--name", "myproj")
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    project = root / "myproj"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENLINEAGE")}
    env["PYSPARK_PYTHON"] = env["PYSPARK_DRIVER_PYTHON"] = sys.executable
    import pyspark

    command = str(Path(pyspark.__file__).parent / "bin" / "spark-pipelines")
    completed = subprocess.run(
        [sys.executable, "-m", "openlineage_sdk.cli", "run", command, *confs, "run"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output[-4000:]
    lines = (project / "openlineage_events.jsonl").read_text().splitlines()
    for line in lines:
        assert strict_problems(line) == [], line
    return output, [json.loads(line) for line in lines]


@pytest.mark.spark
@pytest.mark.slow
def test_spark_pipelines_through_the_launcher_is_quiet_and_named_by_its_pipeline(
    tmp_path: Path,
) -> None:
    output, events = _launched_pipeline(tmp_path / "default")
    assert "openlineage" not in output, output[-4000:]
    assert "SESSION_CLOSED" not in output, output[-4000:]
    assert "ERROR" not in output, output[-4000:]
    names = [(e["eventType"], e["job"]["name"]) for e in events]
    flow = "myproj.myproj.spark_catalog_default_example_python_materialized_view"
    assert names[0] == ("START", "myproj")
    assert names[-1] == ("COMPLETE", "myproj")
    assert ("START", "myproj.pipeline.myproj") in names
    assert ("COMPLETE", flow) in names
    assert all(not name.startswith("cli_py") for _, name in names)

    # spark.openlineage.appName still names the application.
    _, renamed = _launched_pipeline(
        tmp_path / "renamed", "--conf", "spark.openlineage.appName=orders"
    )
    assert {e["job"]["name"].split(".")[0] for e in renamed} == {"orders"}
