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
import importlib.util
import logging
import os
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any

__all__ = [
    "BOOTSTRAP_DIR",
    "PIPELINES_CLI_APP_NAME",
    "bootstrap",
    "chain_sitecustomize",
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
    if os.name == "posix":
        os.execvpe(command[0], list(command), env)
    import subprocess

    return subprocess.call(list(command), env=env)


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
    """
    if not type(session).__module__.startswith("pyspark.sql.connect."):
        return  # a classic session's ``client`` raises
    try:
        futures = getattr(session.client, "_release_futures", None)
        if futures:
            concurrent.futures.wait(list(futures), timeout=_RELEASE_WAIT_S)
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
            if hasattr(adapter.reporter, "default_parent"):
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


def chain_sitecustomize(own_file: str) -> None:
    """Run the ``sitecustomize`` that ours hides, the next one on ``sys.path``, if any."""
    own_dir = str(Path(own_file).resolve().parent)
    for entry in sys.path:
        if not entry or str(Path(entry).resolve()) == own_dir:
            continue
        candidate = Path(entry) / "sitecustomize.py"
        if candidate.is_file():
            spec = importlib.util.spec_from_file_location(
                "_openlineage_next_sitecustomize", candidate
            )
            if spec is not None and spec.loader is not None:
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
            return
