"""Classic PySpark: what the ``debug`` facet says of the driver, read from its JVM.

The fields are the JVM agent's ``DebugRunFacetBuilderDelegate``'s: the classpath (Spark and
Scala versions, the jars added through the confs, whether Delta, Iceberg and the BigQuery
connector are there), the JVM's system properties, a few confs, and the JVM's memory. Read only
when the facet is wanted (it is off by default).
"""

from __future__ import annotations

from typing import Any

from openlineage_sdk.spark.session.classic._jvm import as_list

__all__ = ["driver_facts", "driver_memory"]

# The classes the agent reports on (DebugRunFacetBuilderDelegate.classesToDebug).
_CLASSES = (
    "org.apache.spark.sql.delta.catalog.DeltaCatalog",
    "org.apache.iceberg.catalog.Catalog",
    "com.google.cloud.spark.bigquery.BigQueryRelation",
)

_SYSTEM = {
    "javaVersion": "java.version",
    "javaVendor": "java.vendor",
    "osArch": "os.arch",
    "osName": "os.name",
    "osVersion": "os.version",
    "userLanguage": "user.language",
    "userTimezone": "user.timezone",
}

_MEMORY_CONFS = {
    "sparkConfDriverMemory": "spark.driver.memory",
    "sparkConfDriverMemoryOverhead": "spark.driver.memoryOverhead",
    "sparkConfDriverMinMemoryOverhead": "spark.driver.minMemoryOverhead",
    "sparkConfDriverMemoryOverheadFactor": "spark.driver.memoryOverheadFactor",
}


def _class_details(jvm: Any, name: str) -> dict[str, Any]:
    try:
        loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
        loaded = jvm.java.lang.Class.forName(name, False, loader)
    except Exception:  # not on the classpath
        return {"className": name, "isOnClasspath": False}
    details: dict[str, Any] = {"className": name, "isOnClasspath": True}
    package = loaded.getPackage()
    version = package.getImplementationVersion() if package is not None else None
    if version is not None:
        details["packageVersion"] = str(version)
    return details


def _known(values: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}


def driver_facts(spark: Any) -> dict[str, Any]:
    """The driver's classpath, system and confs, as the agent's debug facet has them.

    Args:
        spark: The classic ``SparkSession``.

    Returns:
        ``classpath``, ``system`` and ``config``, each without the values that are not set.
    """
    jvm = spark._jvm
    sc = spark._jsc.sc()
    conf = sc.getConf()
    system = jvm.java.lang.System
    classpath = _known(
        {
            "sparkVersion": str(spark.version),
            "scalaVersion": str(jvm.scala.util.Properties.versionNumberString()),
            "jars": [str(j) for j in as_list(jvm, sc.listJars())],
            "classDetails": [_class_details(jvm, name) for name in _CLASSES],
        }
    )
    config = _known(
        {
            "extraListeners": conf.get("spark.extraListeners", None),
            "catalogClass": str(spark._jsparkSession.catalog().getClass().getCanonicalName()),
            "extensions": conf.get("spark.sql.extensions", None),
        }
    )
    return {
        "classpath": classpath,
        "system": _known(
            {
                "sparkDeployMode": str(sc.deployMode()),
                **{field: system.getProperty(key) for field, key in _SYSTEM.items()},
            }
        ),
        "config": config,
    }


def driver_memory(spark: Any) -> dict[str, Any]:
    """The driver's memory confs and its JVM's free, total and max memory (MiB), now."""
    runtime = spark._jvm.java.lang.Runtime.getRuntime()
    conf = spark._jsc.sc().getConf()
    mib = 1024 * 1024
    return _known(
        {
            **{field: conf.get(key, None) for field, key in _MEMORY_CONFS.items()},
            "freeMemory": int(runtime.freeMemory()) // mib,
            "totalMemory": int(runtime.totalMemory()) // mib,
            "maxMemory": int(runtime.maxMemory()) // mib,
        }
    )
