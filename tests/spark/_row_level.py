"""The row-level test catalog: Java source in ``tests/spark/java``, compiled when the tests start.

``RowLevelCatalog.java`` is compiled by the JDK's ``javac`` against the JARs of the PySpark
wheel the tests run (so it always matches that Spark), into a JAR the test driver puts on its
classpath. ``None`` (and the row-level tests skip) when there is no ``javac``.

``java/connect`` holds a Spark Connect server plugin (a relation of its own, as Delta Connect's),
compiled the same way into a JAR of its own when the PySpark wheel carries the Connect server
(4.0 on), and registered by the test driver that serves Spark Connect.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

__all__ = ["CATALOG_CLASS", "CONNECT_PLUGIN_CLASS", "catalog_jar", "connect_plugin_jar", "missing"]

CATALOG_CLASS = "io.openlineage.sdk.tests.RowLevelCatalog"
_SOURCES = Path(__file__).parent / "java"
_reason: str | None = None


def missing() -> str | None:
    """Why the row-level catalog is not there, once :func:`catalog_jar` was asked for it."""
    return _reason


def catalog_jar(folder: Path | None = None) -> Path | None:
    """The compiled catalog's JAR, or ``None``.

    Built once per source and PySpark version, under ``folder`` (by default a folder of the
    system's temporary files, so that later test runs find it: javac takes some seconds).
    """
    global _reason
    jar, _reason = _compiled(sorted(_SOURCES.glob("*.java")), "row-level-catalog", folder)
    return jar


#: The Spark Connect server plugin the tests' driver registers (``java/connect``).
CONNECT_PLUGIN_CLASS = "io.openlineage.sdk.tests.TableRelationPlugin"


def connect_plugin_jar(folder: Path | None = None) -> Path | None:
    """The compiled Spark Connect server plugin's JAR (``java/connect``), or ``None``: no javac,
    or a PySpark whose wheel has no Connect server to compile it against (before 4.0)."""
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    if not any(jars.glob("spark-connect_*.jar")):
        return None
    jar, _ = _compiled(sorted((_SOURCES / "connect").glob("*.java")), "connect-plugin", folder)
    return jar


def _compiled(
    sources: list[Path], stem: str, folder: Path | None = None
) -> tuple[Path | None, str | None]:
    """``sources`` compiled into a JAR (once per source and PySpark version), or why not."""
    javac = shutil.which("javac")
    if javac is None:
        return None, f"no javac (a JDK) to compile the {stem} test classes"
    import pyspark

    hashed = hashlib.sha256(pyspark.__version__.encode())
    for source in sources:
        hashed.update(source.read_bytes())
    digest = hashed.hexdigest()[:16]
    folder = folder or Path(tempfile.gettempdir()) / "openlineage-sdk-tests"
    folder.mkdir(parents=True, exist_ok=True)
    jar = folder / f"{stem}-{digest}.jar"
    if jar.exists():
        return jar, None
    classes = folder / f"classes-{stem}-{digest}"
    classes.mkdir(parents=True, exist_ok=True)
    classpath = str(Path(pyspark.__file__).parent / "jars" / "*")
    result = subprocess.run(
        [javac, "-nowarn", "-d", str(classes), "-cp", classpath, *map(str, sources)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if result.returncode != 0:
        return None, f"javac failed on the {stem} test classes: {result.stderr.strip()[-2000:]}"
    partial = jar.with_suffix(".part")
    with zipfile.ZipFile(partial, "w") as archive:
        for path in sorted(classes.rglob("*.class")):
            archive.write(path, path.relative_to(classes).as_posix())
    partial.replace(jar)  # whole or not at all, for a run that starts beside this one
    shutil.rmtree(classes, ignore_errors=True)
    return jar, None
