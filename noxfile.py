"""Development sessions. ``nox -l`` lists them; each installs what it needs from pyproject.toml."""

from __future__ import annotations

import sys
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = ["lint", "typecheck", "tests"]

PYPROJECT = nox.project.load_toml("pyproject.toml")


def group(name: str) -> list[str]:
    """The requirements of a ``[dependency-groups]`` entry of pyproject.toml."""
    return list(nox.project.dependency_groups(PYPROJECT, name))


def install_for_tests(session: nox.Session) -> None:
    """What the test sessions need: the package with every extra, the example plugin, the groups."""
    session.install(
        "-e",
        ".[http,kafka,codegen,spark,report]",
        # The example plugin package: its entry point registers custom facets, as users' do.
        "-e",
        "examples/myco-facets",
        *group("test"),
        *group("spark"),
        *group("typecheck"),
    )


@nox.session
def tests(session: nox.Session) -> None:
    """Run the whole test suite (Spark, Spark Connect and Kafka tests included)."""
    install_for_tests(session)
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session(default=False)
def fast(session: nox.Session) -> None:
    """The suite for day-to-day work: every test not marked ``slow`` (a few minutes).

    It still runs classic PySpark and Spark Connect in process, on the one local driver the
    Spark tests share. It leaves out what starts Spark drivers of its own in subprocesses or
    takes long: the JVM agent parity scenarios (tests/spark/test_jvm_agent_events.py), the demo,
    ``openlineage-sdk run`` on real scripts, the standalone cluster, scripts that end on an
    action, and the benchmark-sized report and browser tests. ``nox -s tests`` runs everything.
    """
    install_for_tests(session)
    session.run("python", "-m", "pytest", "-m", "not slow", *session.posargs)


# The PySpark of each `spark(version=...)` session: the newest patch of each minor version the
# adapter supports (docs/spark/versions.md). 4.3 is the one the other sessions test (the `spark`
# dependency group). 3.4 is refused by install() (tests/spark/test_versions.py).
SPARK_VERSIONS = {
    "3.5": "3.5.9",
    "4.0": "4.0.5",
    "4.1": "4.1.4",
    "4.2": "4.2.1",
    "4.3": "4.3.0",
}


@nox.session(default=False)
@nox.parametrize("version", list(SPARK_VERSIONS))
def spark(session: nox.Session, version: str) -> None:
    """The Spark tests and the JVM agent's scenarios on one PySpark version (slow).

    ``nox -s "spark(version='3.5')"`` installs PySpark 3.5's newest patch into an environment of
    its own and runs tests/spark: first every test not marked ``slow``, then the agent's
    scenarios (tests/spark/test_jvm_agent_events.py). Arguments after ``--`` replace both runs
    with one ``pytest`` run of them (``-- tests/spark/test_sql.py -x``).
    """
    session.install(
        "-e",
        # Not the `spark` extra: its PySpark bound would refuse the versions below it.
        ".[http,kafka,codegen,report]",
        "-e",
        "examples/myco-facets",
        *group("test"),
        *group("typecheck"),
        f"pyspark[connect]=={SPARK_VERSIONS[version]}",
        *(r for r in group("spark") if not r.startswith("pyspark")),
        # PySpark 3's Connect client asks for NumPy 1; pyarrow 26 imports only with NumPy 2,
        # and without pyarrow PySpark 3's Connect client does not import at all.
        *(["pyarrow<26"] if version.startswith("3.") else []),
    )
    if version.startswith("3."):
        # PySpark 3 has no Connect server of its own: its client is tested against a 4.x server
        # run by another interpreter (tests/spark/connect_server.py), with PySpark 4 of its own.
        server = Path(session.create_tmp()).resolve() / "connect-server"
        python = server / "bin" / "python"
        if not python.exists():
            session.run_install(sys.executable, "-m", "venv", str(server), external=True)
            session.run_install(
                str(python),
                "-m",
                "pip",
                "install",
                "-q",
                f"pyspark=={SPARK_VERSIONS['4.3']}",
                external=True,
            )
        session.env["OPENLINEAGE_SDK_TEST_CONNECT_SERVER_PYTHON"] = str(python)
    if session.posargs:
        session.run("python", "-m", "pytest", *session.posargs)
        return
    session.run("python", "-m", "pytest", "tests/spark", "-m", "not slow")
    session.run("python", "-m", "pytest", "tests/spark/test_jvm_agent_events.py")


@nox.session
def codegen(session: nox.Session) -> None:
    """Regenerate openlineage_sdk/models from spec/ (``-- --check`` reports drift instead)."""
    session.install("-e", ".[codegen]")
    session.run("python", "-m", "codegen", *session.posargs)


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict over the package, generated code included, and the code generator."""
    session.install("-e", ".[http,kafka,codegen]", *group("typecheck"))
    session.run("mypy", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff (lint, formatting) and the layering contracts of pyproject.toml (import-linter)."""
    session.install(*group("lint"))
    session.run("ruff", "check", ".", *session.posargs)
    session.run("ruff", "format", "--check", ".")
    # Reads the package's source from the working directory (put first on sys.path): nothing
    # of it is run, so it needs no install.
    session.run("lint-imports")


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Benchmarks beside the official openlineage-python client (slow; figures, not pass/fail)."""
    session.install("-e", ".[http,kafka,spark]", *group("bench"), *group("spark"))
    session.run("python", "-m", "benchmarks", *session.posargs)


@nox.session(default=False)
def demo(session: nox.Session) -> None:
    """Run the demo pipeline on local Spark; events go to a local JSON Lines file, no server.

    ``nox -s demo -- --connect`` runs it through a local Spark Connect server; ``--workdir DIR``
    chooses where its data, events and lineage graph go (default ``./openlineage-demo``).
    """
    # The example plugin package too: its facet builder adds MyCo's facets to the Spark events.
    session.install("-e", ".[spark,report]", "-e", "examples/myco-facets", *group("spark"))
    session.run("python", "-m", "openlineage_sdk.spark.demo", *session.posargs)


@nox.session(default=False)
def docs(session: nox.Session) -> None:
    """Build the documentation site into site/, strict: a broken link or reference fails it.

    ``nox -s docs -- --pictures`` first takes the site's pictures of the lineage report again
    (the demo on local Spark, the report in headless Chromium); ``-- --serve`` serves the site
    on http://127.0.0.1:8000 while editing.
    """
    session.install("-e", ".", *group("docs"))
    if "--pictures" in session.posargs:
        session.install("-e", ".[spark,report]", "-e", "examples/myco-facets")
        session.install(*group("spark"), *group("test"))
        session.run("python", "-m", "docsgen.pictures")
    # MkDocs 1.6 prints a banner about MkDocs 2.0 at every start; the site is built with 1.6.
    quiet = {"NO_MKDOCS_2_WARNING": "1"}
    if "--serve" in session.posargs:
        session.run("python", "-m", "mkdocs", "serve", "--strict", env=quiet)
    else:
        session.run("python", "-m", "mkdocs", "build", "--strict", env=quiet)


@nox.session(default=False)
def quickstart(session: nox.Session) -> None:
    """Build, validate and print one event (no Spark): the smallest example."""
    session.install("-e", ".")
    session.run("python", "examples/quickstart.py", *session.posargs)
