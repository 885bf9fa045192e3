"""The row-level test catalog: Java source in ``tests/spark/java``, compiled when the tests start.

``RowLevelCatalog.java`` is compiled by the JDK's ``javac`` against the JARs of the PySpark
wheel the tests run (so it always matches that Spark), into a JAR the test driver puts on its
classpath. ``None`` (and the row-level tests skip) when there is no ``javac``.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

__all__ = ["CATALOG_CLASS", "catalog_jar", "missing"]

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
    javac = shutil.which("javac")
    if javac is None:
        _reason = "no javac (a JDK) to compile the row-level test catalog"
        return None
    import pyspark

    sources = sorted(_SOURCES.glob("*.java"))
    hashed = hashlib.sha256(pyspark.__version__.encode())
    for source in sources:
        hashed.update(source.read_bytes())
    digest = hashed.hexdigest()[:16]
    folder = folder or Path(tempfile.gettempdir()) / "openlineage-sdk-tests"
    folder.mkdir(parents=True, exist_ok=True)
    jar = folder / f"row-level-catalog-{digest}.jar"
    if jar.exists():
        return jar
    classes = folder / f"classes-{digest}"
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
        _reason = f"javac failed on the row-level test catalog: {result.stderr.strip()[-2000:]}"
        return None
    partial = jar.with_suffix(".part")
    with zipfile.ZipFile(partial, "w") as archive:
        for path in sorted(classes.rglob("*.class")):
            archive.write(path, path.relative_to(classes).as_posix())
    partial.replace(jar)  # whole or not at all, for a run that starts beside this one
    shutil.rmtree(classes, ignore_errors=True)
    return jar
