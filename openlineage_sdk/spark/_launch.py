"""Lineage for an unmodified PySpark script: ``openlineage-sdk run python script.py``.

In the manner of ``opentelemetry-instrument``, :func:`launch` runs a command (``python ...``,
``spark-submit ...``) with this package's ``_bootstrap`` folder first on ``PYTHONPATH``. Python
imports the ``sitecustomize`` module there at start-up (``spark-submit`` passes ``PYTHONPATH`` on
to the driver's Python), which calls :func:`bootstrap`:

* an import hook waits for PySpark's session modules; a script that never imports PySpark never
  has it imported by us;
* when they are imported, ``SparkSession.Builder.getOrCreate`` (classic and Connect) is wrapped:
  each session it returns gets the adapter (:func:`~openlineage_sdk.spark.install`, automatic
  mode, configured by the session's ``spark.openlineage.*`` confs, ``openlineage.yml`` and the
  ``OPENLINEAGE_*`` variables), and the first one starts the application's run;
* the application run completes when the session stops or the program exits, or fails when the
  program ends with an uncaught exception.

Nothing here may fail the user's program: every step is inside ``try`` and logged.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import functools
import importlib.abc
import importlib.machinery
import logging
import os
import re
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any

__all__ = [
    "BOOTSTRAP_DIR",
    "BOOTSTRAP_ZIP",
    "PIPELINES_CLI_APP_NAME",
    "Submitted",
    "bootstrap",
    "bootstrap_zip",
    "cluster_submit",
    "launch",
    "launch_env",
    "pipeline_app_name",
]

log = logging.getLogger("openlineage_sdk.spark")

#: The folder the launcher puts first on the child's ``PYTHONPATH``.
BOOTSTRAP_DIR = Path(__file__).with_name("_bootstrap")
_SESSION_MODULES = ("pyspark.sql.session", "pyspark.sql.connect.session")
_ACTIVE = "OPENLINEAGE_SDK_BOOTSTRAP"
# How long stopping a Connect session waits for its releases: as long as the client's close.
_RELEASE_WAIT_S = 10.0


def launch_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a launched command: the bootstrap folder first on ``PYTHONPATH``.

    Args:
        env: The environment to start from; ``os.environ`` when ``None`` (not changed).

    Returns:
        A new mapping.
    """
    result = dict(os.environ if env is None else env)
    paths = [p for p in result.get("PYTHONPATH", "").split(os.pathsep) if p]
    result["PYTHONPATH"] = os.pathsep.join([str(BOOTSTRAP_DIR), *paths])
    result[_ACTIVE] = "1"
    return result


def launch(command: Sequence[str]) -> int:
    """Run ``command`` with lineage on for every SparkSession its Python creates.

    A ``spark-submit`` in cluster deploy mode on YARN or Kubernetes starts its driver on the
    cluster, where this process's environment does not reach: the command gets what the driver
    needs there (see :func:`cluster_submit`).

    Args:
        command: The program and its arguments, e.g. ``["python", "job.py"]`` or
            ``["spark-submit", "--master", "local[2]", "job.py"]``.

    Returns:
        Does not return on POSIX (the process becomes the command); elsewhere the command's
        exit status.

    Raises:
        ValueError: No command was given.
        FileNotFoundError: The program is not found.
    """
    if not command:
        raise ValueError("give the command to run, e.g. openlineage-sdk run python job.py")
    env = launch_env()
    if Path(command[0]).name in ("spark-submit", "spark-submit.cmd"):
        submitted = cluster_submit(command, env)
        for note in submitted.notes:
            print(f"openlineage: {note}", file=sys.stderr)
        command = submitted.command
    if os.name == "posix":
        os.execvpe(command[0], list(command), env)
    import subprocess

    return subprocess.call(list(command), env=env)


# ------------------------------------------------------------------- cluster deploy mode

# The options of spark-submit that take a value (SparkSubmitOptionParser); the first argument
# that is neither one of them, its value, nor a flag is the application.
_VALUED = frozenset(
    {
        "--archives", "--class", "--conf", "-c", "--deploy-mode", "--driver-class-path",
        "--driver-cores", "--driver-java-options", "--driver-library-path", "--driver-memory",
        "--executor-cores", "--executor-memory", "--exclude-packages", "--files", "--jars",
        "--keytab", "--kill", "--master", "--name", "--num-executors", "--packages",
        "--principal", "--properties-file", "--proxy-user", "--py-files", "--queue",
        "--remote", "--repositories", "--status", "--total-executor-cores",
    }
)  # fmt: skip
BOOTSTRAP_ZIP = "openlineage_sdk_bootstrap.zip"


@dataclass(frozen=True)
class Submitted:
    """A ``spark-submit`` command as the launcher runs it.

    Attributes:
        command: The command, with what a driver on the cluster needs added.
        notes: What the user should know (one line each), printed before it runs.
    """

    command: list[str]
    notes: tuple[str, ...] = ()


def bootstrap_zip(folder: Path | None = None) -> Path:
    """A zip holding the bootstrap's ``sitecustomize``, for a driver's ``--py-files``.

    A Python started with the zip on its path imports ``sitecustomize`` from it; the module does
    nothing unless ``OPENLINEAGE_SDK_BOOTSTRAP=1`` is in its environment (so executors, which get
    a driver's ``--py-files`` too, are left alone), and imports this package from the Python it
    runs in: openlineage-sdk must be installed there.

    Args:
        folder: Where to write it; a folder of this user's under the temporary folder when
            ``None``. The zip is written once per version of this package.

    Returns:
        The zip's path.
    """
    import tempfile
    import zipfile

    from openlineage_sdk._version import __version__

    if folder is None:
        uid = os.getuid() if hasattr(os, "getuid") else "user"
        folder = Path(tempfile.gettempdir()) / f"openlineage-sdk-{uid}" / __version__
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / BOOTSTRAP_ZIP
    source = (BOOTSTRAP_DIR / "sitecustomize.py").read_bytes()
    if target.is_file():
        try:
            with zipfile.ZipFile(target) as existing:
                if existing.read("sitecustomize.py") == source:
                    return target
        except (OSError, KeyError, zipfile.BadZipFile):
            pass
    partial = folder / f".{BOOTSTRAP_ZIP}.{os.getpid()}"
    with zipfile.ZipFile(partial, "w") as archive:
        # A fixed time: the same package writes the same bytes.
        info = zipfile.ZipInfo("sitecustomize.py", date_time=(2020, 1, 1, 0, 0, 0))
        archive.writestr(info, source)
    partial.replace(target)
    return target


def _properties_file(options: Mapping[str, str], env: Mapping[str, str]) -> dict[str, str]:
    """The properties spark-submit reads besides the command line: ``--properties-file``, else
    ``spark-defaults.conf`` of ``SPARK_CONF_DIR`` or ``SPARK_HOME/conf`` (Java properties)."""
    path: Path | None = None
    if "--properties-file" in options:
        path = Path(options["--properties-file"])
    else:
        for folder in (
            env.get("SPARK_CONF_DIR"),
            env.get("SPARK_HOME") and f"{env['SPARK_HOME']}/conf",
        ):
            if folder and (Path(folder) / "spark-defaults.conf").is_file():
                path = Path(folder) / "spark-defaults.conf"
                break
    found: dict[str, str] = {}
    if path is None:
        return found
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return found
    for line in lines:
        line = line.strip()
        if not line or line[0] in "#!":
            continue
        match = re.match(r"([^\s=:]+)\s*[=:\s]\s*(.*)", line)
        if match is not None:
            found[match.group(1)] = match.group(2).strip()
    return found


def cluster_submit(command: Sequence[str], env: Mapping[str, str] | None = None) -> Submitted:
    """What a ``spark-submit`` needs so that its driver gets the adapter in cluster deploy mode.

    In client deploy mode the driver is ``spark-submit``'s own child and inherits the
    launcher's ``PYTHONPATH``: nothing is added. In cluster deploy mode (``--deploy-mode
    cluster`` or ``spark.submit.deployMode=cluster``) on YARN (``yarn``) or Kubernetes
    (``k8s://...``) the driver starts on the cluster, and gets:

    * the bootstrap, as a py-file (:func:`bootstrap_zip`) added to the application's own
      (``--py-files``, ``spark.submit.pyFiles`` from the command line or the properties file):
      Spark puts py-files first on the driver's ``PYTHONPATH``. On Kubernetes a local py-file
      is uploaded to ``spark.kubernetes.file.upload.path``; without it Spark would refuse the
      file, so none is added and a note says how the image can hold the bootstrap instead;
    * ``OPENLINEAGE_SDK_BOOTSTRAP=1`` in the driver's environment
      (``spark.yarn.appMasterEnv.*``, ``spark.kubernetes.driverEnv.*``), which turns the
      bootstrap on in the driver alone (executors get the py-files too).

    The adapter is configured there by the ``spark.openlineage.*`` confs, which travel with the
    application (``OPENLINEAGE_*`` variables and ``openlineage.yml`` of this machine do not).
    A setting the command already makes is kept. Standalone clusters do not run Python drivers
    in cluster deploy mode (Spark refuses it), and the command goes as it is.

    Args:
        command: ``spark-submit`` and its arguments.
        env: The environment spark-submit runs with (``SPARK_CONF_DIR``, ``SPARK_HOME``).

    Returns:
        The command to run, and notes for the user.
    """
    env = os.environ if env is None else env
    args = list(command)
    options: dict[str, str] = {}
    confs: dict[str, str] = {}
    positions: dict[str, int] = {}  # option or conf key -> index of its value
    index = 1
    while index < len(args):
        arg = args[index]
        if not arg.startswith("-"):
            break  # the application
        name, eq, inline = arg.partition("=")
        if name in _VALUED:
            if eq:
                value, at = inline, index
            elif index + 1 < len(args):
                value, at = args[index + 1], index + 1
                index += 1
            else:
                break
            if name in ("--conf", "-c"):
                key, _, conf_value = value.partition("=")
                confs[key] = conf_value
                positions[key] = at
            else:
                options[name] = value
                positions[name] = at
        index += 1
    application = index
    defaults = _properties_file(options, env)
    master = (
        options.get("--master") or confs.get("spark.master") or defaults.get("spark.master", "")
    )
    mode = (
        options.get("--deploy-mode")
        or confs.get("spark.submit.deployMode")
        or defaults.get("spark.submit.deployMode", "client")
    )
    if mode != "cluster" or application >= len(args):
        return Submitted(args)
    if master.startswith("yarn"):
        env_conf = "spark.yarn.appMasterEnv."
    elif master.startswith("k8s://"):
        env_conf = "spark.kubernetes.driverEnv."
    else:
        return Submitted(args)
    added: list[str] = []
    notes: list[str] = []
    if f"{env_conf}{_ACTIVE}" not in confs:
        added += ["--conf", f"{env_conf}{_ACTIVE}=1"]
    upload = confs.get("spark.kubernetes.file.upload.path") or defaults.get(
        "spark.kubernetes.file.upload.path"
    )
    if env_conf.startswith("spark.kubernetes.") and not upload:
        notes.append(
            "--deploy-mode cluster on Kubernetes: the bootstrap is not shipped without "
            "spark.kubernetes.file.upload.path; the driver's image must have it on its "
            "PYTHONPATH (see docs/spark/deploy-modes.md)"
        )
    else:
        shipped = str(bootstrap_zip())
        if "--py-files" in options:
            at = positions["--py-files"]
            joined = f"{options['--py-files']},{shipped}"
            args[at] = f"--py-files={joined}" if args[at].startswith("--py-files=") else joined
        elif "spark.submit.pyFiles" in confs:
            at = positions["spark.submit.pyFiles"]
            value = f"spark.submit.pyFiles={confs['spark.submit.pyFiles']},{shipped}"
            args[at] = (
                f"{args[at].partition('=')[0]}={value}" if args[at].startswith("-") else value
            )
        else:
            earlier = defaults.get("spark.submit.pyFiles")
            added += ["--py-files", f"{earlier},{shipped}" if earlier else shipped]
    return Submitted([*args[:application], *added, *args[application:]], tuple(notes))


# ------------------------------------------------------------------------- in the child


class _SessionModuleFinder(importlib.abc.MetaPathFinder):
    """Patches PySpark's session modules right after they are imported, by whoever imports them."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in _SESSION_MODULES:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _PatchingLoader(spec.loader)
                return spec
        return None


class _PatchingLoader(importlib.abc.Loader):
    """The loader of one session module: loads it with its own loader, then hooks it.

    The module's loader is wrapped, never changed: one loader object may load many modules (a
    ``zipimporter`` loads every module of ``pyspark.zip``, as ``spark-submit`` and
    ``spark-pipelines`` put PySpark on the path), and a hook set on it would run after each of
    them, on modules that are still being imported. Once executed, the module names its own
    loader again.
    """

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        try:
            _patch_builder(module)
        except Exception as error:
            log.warning("openlineage: hooking SparkSession creation failed: %s", error)

    def __getattr__(self, name: str) -> Any:
        # get_source, get_resource_reader ... of the module's own loader.
        return getattr(self._loader, name)


_lock = threading.Lock()
_state: dict[str, Any] = {"run": None, "spark": None, "error": None}


def _patch_builder(module: ModuleType) -> None:
    builder = module.SparkSession.Builder
    original: Callable[..., Any] = builder.getOrCreate
    if getattr(original, "_openlineage", False):
        return

    @functools.wraps(original)
    def get_or_create(self: Any) -> Any:
        session = original(self)
        _on_session(session)
        return session

    get_or_create._openlineage = True  # type: ignore[attr-defined]
    builder.getOrCreate = get_or_create
    stop = module.SparkSession.stop
    if not getattr(stop, "_openlineage", False):

        @functools.wraps(stop)
        def stopped(self: Any) -> None:
            _finish(self)
            _await_releases(self)
            stop(self)

        stopped._openlineage = True  # type: ignore[attr-defined]
        module.SparkSession.stop = stopped


def _await_releases(session: Any) -> None:
    """Wait (bounded) for the Connect requests that release finished operations on the server.

    A Spark Connect client releases what the server keeps of each finished operation with a
    ``ReleaseExecute`` request sent from a thread pool, after the operation's last result. Its
    ``stop()`` releases the session first and waits for those requests only afterwards, while it
    closes the channel: a release still on its way then reaches a closed session, and the server
    logs ``INVALID_HANDLE.SESSION_CLOSED`` with a stack trace. Waiting for them first (as long
    as ``close`` would) sends each before the session is released. A classic session has none.

    A client that keeps its releases' futures (PySpark 4.2 on) is waited for by them. An older
    one (PySpark 3.5 to 4.1) sends them on a thread pool its process shares, which ``close``
    shuts down, waiting for every release: the same shutdown is made before the session is
    released (the next operation of any session makes a new pool, as after ``close``).
    """
    if not type(session).__module__.startswith("pyspark.sql.connect."):
        return  # a classic session's ``client`` raises
    try:
        futures = getattr(session.client, "_release_futures", None)
        if futures is not None:
            if futures:
                concurrent.futures.wait(list(futures), timeout=_RELEASE_WAIT_S)
            return
        from pyspark.sql.connect.client.reattach import ExecutePlanResponseReattachableIterator

        shutdown = getattr(ExecutePlanResponseReattachableIterator, "shutdown", None)
        if shutdown is None:
            return
        waiting = threading.Thread(target=shutdown, name="openlineage-releases", daemon=True)
        waiting.start()
        waiting.join(_RELEASE_WAIT_S)
    except Exception as error:  # a client of another shape: stop as without the launcher
        log.debug("openlineage: waiting for the session's releases failed: %s", error)


#: The application name ``spark-submit`` gives the pipelines command line (its file's name).
PIPELINES_CLI_APP_NAME = "cli.py"


def pipeline_app_name(app_name: str, argv: Sequence[str], cwd: Path) -> str | None:
    """The name of the pipeline ``spark-pipelines`` runs, when the session has the CLI's name.

    ``spark-pipelines run`` starts PySpark's pipelines command line (``pyspark/pipelines/cli.py``)
    through ``spark-submit``, which names the application after that file: every job would be
    ``cli_py...``. The pipeline's own name, from its spec (``--spec``, else the spec file the
    command line finds from the working folder), says what ran. An app name given with
    ``--name`` is kept, and ``spark.openlineage.appName`` wins over both.

    Args:
        app_name: The session's ``spark.app.name``.
        argv: The process's arguments (``sys.argv``).
        cwd: The working folder.

    Returns:
        The pipeline's name; ``None`` when this is not the pipelines command line with its
        default app name, or its spec cannot be read.
    """
    if app_name != PIPELINES_CLI_APP_NAME or not argv:
        return None
    script = Path(argv[0])
    if script.name != "cli.py" or script.parent.name != "pipelines":
        return None
    spec: Path | None = None
    for index, arg in enumerate(argv[1:], start=1):
        if arg == "--spec" and index + 1 < len(argv):
            spec = Path(argv[index + 1])
        elif arg.startswith("--spec="):
            spec = Path(arg.split("=", 1)[1])
    try:
        from pyspark.pipelines import cli

        found = spec if spec is not None else cli.find_pipeline_spec(cwd)
        name: Any = cli.load_pipeline_spec(found).name  # YAML: whatever the file holds
    except Exception as error:  # the command line itself says what is wrong with its spec
        log.debug("openlineage: the pipeline's spec was not read: %s", error)
        return None
    return name if isinstance(name, str) and name.strip() else None


def _on_session(session: Any) -> None:
    """Install the adapter on a session the script made; the first one starts the application."""
    try:
        from openlineage_sdk.spark import application_run, install, installed
        from openlineage_sdk.spark.events._sinks import RunPerExecution

        if installed(session) is not None:
            return
        adapter = install(session)
        pipeline = pipeline_app_name(adapter.app_name, sys.argv, Path.cwd())
        if pipeline is not None:
            # The executions' records and the application's run take the session's app name.
            adapter.session.app_name = pipeline
        with _lock:
            if _state["run"] is not None:
                return
            run = application_run(session)
            if isinstance(adapter.reporter, RunPerExecution):
                adapter.reporter.default_parent = run  # the writes' parent, from any thread
            _state["run"], _state["spark"] = run, session
            # Registered after PySpark's own exit handlers, so it runs before them, while the
            # session still works.
            atexit.register(_finish)
        run.start()
    except Exception as error:
        log.warning("openlineage: turning lineage on for the session failed: %s", error)


def _finish(session: Any | None = None) -> None:
    """End the application run (COMPLETE, or FAIL after an uncaught exception) and flush."""
    with _lock:
        run, spark = _state["run"], _state["spark"]
        if run is None or (session is not None and session is not spark):
            return
        _state["run"] = None
    try:
        error = _state["error"]
        if error is None:
            run.complete()
        else:
            run.fail(error)
    except Exception as failure:
        log.warning("openlineage: ending the application run failed: %s", failure)
    try:
        from openlineage_sdk.spark import uninstall

        uninstall(spark)
    except Exception as failure:
        log.warning("openlineage: closing the lineage client failed: %s", failure)


def bootstrap() -> None:
    """Hook SparkSession creation in this process (what ``sitecustomize`` calls)."""
    if any(isinstance(f, _SessionModuleFinder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _SessionModuleFinder())
    for name in _SESSION_MODULES:  # imported already (unusual at start-up): patch now
        if name in sys.modules:
            _patch_builder(sys.modules[name])
    previous = sys.excepthook

    def excepthook(
        kind: type[BaseException], value: BaseException, traceback: TracebackType | None
    ) -> None:
        _state["error"] = value
        _finish()
        previous(kind, value, traceback)

    sys.excepthook = excepthook
