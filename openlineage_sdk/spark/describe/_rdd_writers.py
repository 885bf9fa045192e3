"""RDD saves: which PySpark methods write an RDD, and the output path each call names.

The methods are wrapped by the RDD observer (``observe._rdd_saves``); the classic session reads
the rest of an RDD's lineage from its JVM (``session.classic._rdd_lineage``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["RDD_SAVE_METHODS", "save_path"]

# The PySpark methods that write an RDD: those that take the output path as their first
# argument (``path``), and the Hadoop *Dataset writers, with the configuration keys that hold it.
_PATH_METHODS = (
    "saveAsTextFile",
    "saveAsPickleFile",
    "saveAsSequenceFile",
    "saveAsHadoopFile",
    "saveAsNewAPIHadoopFile",
)
_CONF_METHODS = {
    "saveAsHadoopDataset": ("mapred.output.dir", "mapreduce.output.fileoutputformat.outputdir"),
    "saveAsNewAPIHadoopDataset": (
        "mapreduce.output.fileoutputformat.outputdir",
        "mapred.output.dir",
    ),
}
RDD_SAVE_METHODS = (*_PATH_METHODS, *_CONF_METHODS)


def save_path(method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """The output path of a call of an RDD save ``method``, or ``None`` when it names none."""
    if method in _PATH_METHODS:
        value = args[0] if args else kwargs.get("path")
        return value if isinstance(value, str) else None
    conf = args[0] if args else kwargs.get("conf")
    if isinstance(conf, dict):
        for key in _CONF_METHODS[method]:
            value = conf.get(key)
            if isinstance(value, str) and value:
                return value
    return None
