"""A throwaway PostgreSQL server for the JDBC tests, and its JDBC driver.

Both come from Debian's packages (``postgresql``, ``libpostgresql-jdbc-java``), which ``.ci/run``
installs. The server is a cluster of its own under a temporary folder, listening on a free
loopback port, with a password for its user (so the URLs and options the tests pass hold a real
secret), every statement logged (so a test can tell which queries reached the database), and
removed when the tests end. PostgreSQL refuses to run as root: as root, the cluster belongs to
the ``postgres`` system user the package creates, and the server runs as that user.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "JDBC_JAR",
    "Postgres",
    "assert_same_statements",
    "caches_request_roots_only",
    "missing",
    "postgres_server",
]

JDBC_JAR = "/usr/share/java/postgresql.jar"
USER = "openlineage"
PASSWORD = "s3cr3t-pw"  # what the tests look for in every event and log line
DATABASE = "openlineage"


_LOGGED = re.compile(r"LOG:\s+(?:statement|execute [^:]*): (.*)$")


def _binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"))
    return Path(found[-1]).parent if found else None


def missing() -> str | None:
    """Why the PostgreSQL tests cannot run here, or ``None`` when they can."""
    if _binaries() is None:
        return "PostgreSQL is not installed (Debian's postgresql package)"
    if not os.path.exists(JDBC_JAR):
        return f"the PostgreSQL JDBC driver is not at {JDBC_JAR} (libpostgresql-jdbc-java)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root, and there is no postgres user to run PostgreSQL as"
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Postgres:
    """A running server: where it listens, and how to run SQL and read its statement log."""

    port: int
    folder: Path
    bin: Path
    log: Path
    _as: dict[str, Any]

    @property
    def url(self) -> str:
        """The JDBC URL of the test database, without credentials."""
        return f"jdbc:postgresql://127.0.0.1:{self.port}/{DATABASE}"

    @property
    def namespace(self) -> str:
        return f"postgres://127.0.0.1:{self.port}"

    def options(self) -> dict[str, str]:
        """The reader options that log in (the password among them)."""
        return {
            "url": self.url,
            "user": USER,
            "password": PASSWORD,
            "driver": "org.postgresql.Driver",
        }

    def psql(self, sql: str, database: str = DATABASE, user: str = USER) -> str:
        """Run ``sql`` through the server's socket (as the tests' user); its output."""
        result = subprocess.run(
            [
                str(self.bin / "psql"),
                "-X",
                "-q",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                str(self.folder),
                "-p",
                str(self.port),
                "-U",
                user,
                "-d",
                database,
                "-At",
                "-c",
                sql,
            ],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
            cwd=self.folder,
            **self._as,
        )
        if result.returncode != 0:
            raise RuntimeError(f"psql failed: {result.stderr.strip()}")
        return str(result.stdout)

    def statements(self) -> list[str]:
        """The statements the server has logged so far (``log_statement = all``)."""
        found: list[str] = []
        logged = False
        for line in self.log.read_text(errors="replace").splitlines():
            # Simple queries log "statement: ...", the JDBC driver's extended protocol
            # "execute <name>: ..." (its parse and bind steps are not logged); a statement's
            # further lines follow, each starting with a tab.
            if line.startswith("\t") and logged:
                found[-1] += "\n" + line[1:]
                continue
            match = _LOGGED.search(line)
            logged = match is not None
            if match is not None:
                found.append(match.group(1))
        return found


def _run(command: list[str], as_user: dict[str, Any], cwd: Path) -> None:
    result = subprocess.run(
        command, capture_output=True, text=True, check=False, timeout=120, cwd=cwd, **as_user
    )
    if result.returncode != 0:
        raise RuntimeError(f"{command[0]} failed: {result.stderr.strip() or result.stdout.strip()}")


@contextlib.contextmanager
def postgres_server() -> Iterator[Postgres]:
    """Start a server in a fresh cluster; stop it and remove the cluster afterwards."""
    bin_dir = _binaries()
    assert bin_dir is not None
    folder = Path(tempfile.mkdtemp(prefix="openlineage-pg-"))
    # As root, the cluster's files and processes belong to the postgres user.
    as_user: dict[str, Any] = {}
    if os.geteuid() == 0:
        account = pwd.getpwnam("postgres")
        os.chown(folder, account.pw_uid, account.pw_gid)
        as_user = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}
    data = folder / "data"
    log = folder / "server.log"
    password_file = folder / "pw"
    password_file.write_text("postgres\n")
    if as_user:
        account = pwd.getpwnam("postgres")
        os.chown(password_file, account.pw_uid, account.pw_gid)
    process: subprocess.Popen[bytes] | None = None
    try:
        _run(
            [
                str(bin_dir / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                f"--pwfile={password_file}",
                "--no-sync",
                "-E",
                "UTF8",
            ],
            as_user,
            folder,
        )
        port = _free_port()
        with open(log, "wb") as sink:
            process = subprocess.Popen(
                [
                    str(bin_dir / "postgres"),
                    "-D",
                    str(data),
                    "-p",
                    str(port),
                    "-k",
                    str(folder),
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    "fsync=off",
                    "-c",
                    "synchronous_commit=off",
                    "-c",
                    "full_page_writes=off",
                    "-c",
                    "log_statement=all",
                    "-c",
                    "logging_collector=off",
                ],
                stdout=sink,
                stderr=subprocess.STDOUT,
                cwd=folder,
                **as_user,
            )
        server = Postgres(port, folder, bin_dir, log, as_user)
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"PostgreSQL stopped: {log.read_text(errors='replace')[-2000:]}")
            ready = subprocess.run(
                [str(bin_dir / "pg_isready"), "-h", str(folder), "-p", str(port), "-q"],
                check=False,
            )
            if ready.returncode == 0:
                break
            if time.monotonic() > deadline:
                raise RuntimeError("PostgreSQL did not start within 60 s")
            time.sleep(0.2)
        server.psql(f"CREATE ROLE {USER} LOGIN PASSWORD '{PASSWORD}'", "postgres", "postgres")
        server.psql(f"CREATE DATABASE {DATABASE} OWNER {USER}", "postgres", "postgres")
        yield server
    finally:
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGINT)  # fast shutdown: ends the sessions left open
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


def caches_request_roots_only(spark: Any) -> bool:
    """Whether ``spark`` is a client of a Spark Connect 4.0 server, whose plan cache keeps and
    finds only the relation a request was about (``SessionHolder.usePlanCache``: both the lookup
    and the store need the request's ``cachePlan``, which only the request's root has).

    Args:
        spark: a classic session or a Connect client.

    Returns:
        True on a Connect 4.0 server.
    """
    server = tuple(int(part) for part in spark.version.split(".")[:2])
    return type(spark).__module__.startswith("pyspark.sql.connect") and server < (4, 1)


def assert_same_statements(spark: Any, with_adapter: list[str], without: list[str]) -> None:
    """Asserts that the database saw the statements of the plain run with the adapter too.

    A Spark Connect server of 4.0 resolves a JDBC relation fewer times with the adapter: its plan
    cache (``SessionHolder.usePlanCache``) keeps the relation an ``AnalyzePlan`` or
    ``ExecutePlan`` request was about, not the relations inside it, so the adapter's schema
    request of a read frame puts the read in the cache and the user's later actions on it find
    it there; without the adapter each of them resolves the read again (a connection, a
    ``WHERE 1=0`` query, a catalog query). From 4.1 the server caches every data source read it
    resolves (``spark.connect.session.planCache.alwaysCacheDataSourceReadsEnabled``), whichever
    request saw it first, and the statements are the same. So on a 4.0 server the rule is "no
    statement the plain run has not" (no connection of the adapter's, never one statement more).

    Args:
        spark: the session the statements came from (classic, or a Connect client).
        with_adapter: the statements seen with the adapter installed, sorted.
        without: the statements seen without it, sorted.
    """
    if caches_request_roots_only(spark):
        extra = Counter(with_adapter) - Counter(without)
        assert not extra, f"statements the plain run has not: {dict(extra)}"
    else:
        assert with_adapter == without
