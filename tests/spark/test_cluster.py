"""On a cluster exactly as on ``local[2]``: a standalone master and worker on loopback.

The adapter runs on the driver and asks Spark only what the driver knows (plans, the catalog,
the metrics the executors report back), so a statement's events must not depend on where its
tasks run. Each scenario below (SQL on Hive and data source tables, CTAS and LOAD DATA, column
lineage, a cached DataFrame written out) runs twice, on ``local[2]`` and on a standalone
cluster of one master and one two-core worker started from PySpark's own ``spark-class``; the
events, with run ids and times taken out, must be equal. The fields allowed to differ are the
``spark.master`` property of the ``spark_properties`` facet and the master and application id of
``spark_applicationDetails``, which say where it ran, and the files and bytes a write made, which
Spark's partitioning decides (the rows may not differ).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.spark import _recorder

REPO = Path(__file__).resolve().parent.parent.parent
SCENARIOS = ["spark_hive.py", "spark_ctas_load.py", "spark_cll.py", "spark_cached.py"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _spark_env() -> dict[str, str]:
    import pyspark

    return {
        **os.environ,
        "SPARK_HOME": str(Path(pyspark.__file__).parent),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "PYSPARK_PYTHON": sys.executable,
        "PYSPARK_DRIVER_PYTHON": sys.executable,
    }


def _daemon(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    spark_class = Path(env["SPARK_HOME"]) / "bin" / "spark-class"
    with log.open("wb") as out:
        return subprocess.Popen(
            [str(spark_class), *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # its JVM is stopped with its process group
        )


def _wait_for(log: Path, text: str, process: subprocess.Popen[bytes], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if text in log.read_text(errors="replace"):
            return
        if process.poll() is not None:
            break
        time.sleep(0.5)
    raise AssertionError(f"{text!r} not in {log}:\n{log.read_text(errors='replace')[-3000:]}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A standalone master and a two-core worker on loopback; yields the master URL."""
    base = tmp_path_factory.mktemp("cluster")
    env = _spark_env()
    port = _free_port()
    url = f"spark://127.0.0.1:{port}"
    master = _daemon(
        [
            "org.apache.spark.deploy.master.Master",
            *("--host", "127.0.0.1", "--port", str(port), "--webui-port", str(_free_port())),
        ],
        base / "master.log",
        env,
    )
    daemons = [master]
    try:
        _wait_for(base / "master.log", f"Starting Spark master at {url}", master, 120)
        worker = _daemon(
            [
                "org.apache.spark.deploy.worker.Worker",
                url,
                *("--host", "127.0.0.1", "--cores", "2", "--memory", "2g"),
                *("--webui-port", str(_free_port()), "--work-dir", str(base / "work")),
            ],
            base / "worker.log",
            env,
        )
        daemons.append(worker)
        _wait_for(base / "worker.log", "Successfully registered with master", worker, 120)
        yield url
    finally:
        for daemon in daemons:
            if daemon.poll() is None:
                os.killpg(daemon.pid, signal.SIGTERM)
        for daemon in daemons:
            try:
                daemon.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(daemon.pid, signal.SIGKILL)


def _events(script: str, root: Path, master: str) -> list[dict[str, Any]]:
    """A scenario's events on ``master``, with the root, the run ids and the times taken out."""
    root.mkdir()
    events = root / "events.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "tests.spark.jvm_scenarios", script, str(root), str(events), master],
        cwd=root,
        env={**_spark_env(), "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    problems = [line for line in done.stderr.splitlines() if not line.startswith("\tat ")]
    assert done.returncode == 0, "\n".join(problems)[-4000:]
    _recorder.record_all(events.read_text().replace(str(root), "").splitlines(), label=root.name)
    runs: dict[str, str] = {}
    read = []
    for line in events.read_text().replace(str(root), "").splitlines():
        event = json.loads(line)
        del event["eventTime"]
        event["run"]["runId"] = runs.setdefault(event["run"]["runId"], f"run {len(runs)}")
        properties = event["run"].get("facets", {}).get("spark_properties", {})
        master_property = properties.get("properties", {}).pop("spark.master", None)
        assert master_property in (None, master)
        # The application's master, and its id, which each application has of its own.
        details = event["run"].get("facets", {}).get("spark_applicationDetails")
        if details is not None:
            assert details.pop("master") == master
            assert details.pop("applicationId")
        # How many files a write makes (and so their bytes) is Spark's choice of partitions,
        # which may differ from run to run; the rows written may not.
        for output in event.get("outputs", []):
            statistics = output.get("outputFacets", {}).get("outputStatistics")
            if statistics is not None:
                statistics.pop("fileCount", None)
                statistics.pop("size", None)
        # The example plugin's facets (installed with the tests) carry its own clock's values.
        for facets in [
            event["run"].get("facets", {}),
            *(d.get("facets", {}) for d in [*event.get("inputs", []), *event.get("outputs", [])]),
        ]:
            for key in [k for k in facets if k.startswith("myCo_")]:
                del facets[key]
        read.append(event)
    return read


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.parametrize("script", SCENARIOS)
def test_a_cluster_gives_the_events_of_local_mode(
    cluster: str, script: str, tmp_path: Path
) -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        local, remote = pool.map(
            # (Folder names without brackets: Hadoop reads them as glob patterns.)
            lambda where: _events(script, tmp_path / where[0], where[1]),
            [("local", "local[2]"), ("cluster", cluster)],
        )
    assert len(local) >= 2
    assert _differences(local, remote) == []


def _differences(local: Any, remote: Any, path: str = "") -> list[str]:
    """Where two JSON values differ, as ``path: local != remote`` lines."""
    if isinstance(local, dict) and isinstance(remote, dict):
        return [
            line
            for key in sorted({*local, *remote})
            for line in (
                _differences(local[key], remote[key], f"{path}/{key}")
                if key in local and key in remote
                else [f"{path}/{key}: only {'local' if key in local else 'on the cluster'}"]
            )
        ]
    if isinstance(local, list) and isinstance(remote, list) and len(local) == len(remote):
        return [
            line
            for i, (a, b) in enumerate(zip(local, remote, strict=True))
            for line in _differences(a, b, f"{path}[{i}]")
        ]
    return [] if local == remote else [f"{path}: {local!r} != {remote!r}"]
