"""Job names by the "Job naming" table of ``spec/naming.md``.

A job name is unique within its job namespace, and the same job must get the
same name from every producer and on every run, or its runs do not line up
in a backend. These builders are the one place the conventions are spelled
out; like the rest of :mod:`openlineage_sdk.naming` they are pure and use
only the standard library.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from openlineage_sdk.naming._model import NamingError

__all__ = [
    "airflow_job_name",
    "debezium_job_name",
    "spark_job_name",
    "sql_job_name",
]

# Java's \w, \d and [a-z] are ASCII-only; re.ASCII gives Python the same classes, so a name
# normalized here is the name the JVM agent writes.
_TRIM: Final = re.compile(r"^\W+|\W+$", re.ASCII)
_LOWER_UPPER: Final = re.compile(r"([a-z])([A-Z])")
_ACRONYM_END: Final = re.compile(r"(?<!^)([A-Z])([a-z])")
_DIGIT_THEN_OTHER: Final = re.compile(r"(\d)(?=\D)", re.ASCII)
_NOT_ALNUM: Final = re.compile(r"[^a-z0-9]+")


def _part(value: object, context: str, what: str) -> str:
    # Typed as object: callers without a type checker may pass anything.
    if not isinstance(value, str):
        raise NamingError(context, f"{what} must be a string, got {type(value).__name__}")
    if not value:
        raise NamingError(context, f"missing {what}")
    return value


def _normalize(value: str, context: str, what: str) -> str:
    """``"My Awesome-App"`` → ``"my_awesome_app"``, ``"InsertIntoHiveTable"`` → ``"insert_into_hive_table"``."""
    # Accented letters become the letter and its accent; the accents (Unicode marks) go. This
    # happens before the ends are trimmed (the JVM agent trims first, and so drops a leading "Ō"
    # whole); names in plain ASCII come out the same either way.
    decomposed = unicodedata.normalize("NFKD", value)
    plain = "".join(ch for ch in decomposed if not unicodedata.category(ch).startswith("M"))
    plain = _TRIM.sub("", plain)
    # Word boundaries inside identifiers: camelCase, the end of an ACRONYMWord, digits then text.
    words = _LOWER_UPPER.sub(r"\1 \2", plain)
    words = _ACRONYM_END.sub(r" \1\2", words)
    words = _DIGIT_THEN_OTHER.sub(r"\1 ", words)
    normalized = _NOT_ALNUM.sub("_", words.lower())
    if not normalized.strip("_"):
        raise NamingError(context, f"{what} {value!r} has no letter or digit")
    return normalized


def _table_suffix(table: str) -> str:
    # A path names its dataset by its last two elements, a table by its qualified name; either
    # way the dots become underscores, since dots separate the parts of a job name.
    path = table.strip("/")
    if "/" in path:
        path = "_".join(path.split("/")[-2:])
    return path.replace(".", "_")


def airflow_job_name(dag_id: str, task_id: str) -> str:
    """The job name of an Airflow task: ``{dag_id}.{task_id}``.

    The DAG itself is the job ``{dag_id}``, the parent of its task runs.

    Args:
        dag_id: The DAG's id, e.g. ``"orders_etl"``.
        task_id: The task's id, e.g. ``"count_orders"`` (a task in a task group
            keeps its dotted id, ``"group.count_orders"``).

    Returns:
        For example ``"orders_etl.count_orders"``.

    Raises:
        NamingError: A part is empty or not a string.
    """
    context = "airflow job name"
    return f"{_part(dag_id, context, 'dag id')}.{_part(task_id, context, 'task id')}"


def spark_job_name(app_name: str, command: str | None = None, table: str | None = None) -> str:
    """The job name of a Spark application or action: ``{appName}.{command}.{table}``.

    The parts are normalized as the JVM openlineage-spark agent does, so both
    name one action the same way: accents dropped, words split at camelCase
    and acronym boundaries, lower-cased, and every run of other characters
    made one ``_``. The table part names the action's output: a table's
    qualified name with its dots made ``_`` (``mydb.mytable`` →
    ``mydb_mytable``), or a path's last two elements joined by ``_``
    (``/warehouse/raw/orders`` → ``raw_orders``).

    Args:
        app_name: ``spark.app.name``. Alone, it names the application's own
            run (the parent of its actions), as the seed document asks.
        command: The action's command or plan node, e.g.
            ``"InsertIntoHadoopFsRelationCommand"`` or
            ``"execute_insert_into_hive_table"``.
        table: The output dataset's name; leave it out when the action
            writes no dataset.

    Returns:
        For example ``"my_awesome_app.execute_insert_into_hive_table.mydb_mytable"``,
        ``"my_awesome_app.collect_limit"`` or ``"my_awesome_app"``.

    Raises:
        NamingError: A part is empty or has no letter or digit, or ``table``
            is given without ``command``.
    """
    context = "spark job name"
    parts = [_normalize(_part(app_name, context, "app name"), context, "app name")]
    if command is not None:
        parts.append(_normalize(_part(command, context, "command"), context, "command"))
    if table is not None:
        if command is None:
            raise NamingError(context, "a table needs a command")
        suffix = _table_suffix(_part(table, context, "table"))
        if not suffix:
            raise NamingError(context, f"table {table!r} names nothing")
        parts.append(suffix)
    return ".".join(parts)


def sql_job_name(schema: str, table: str) -> str:
    """The job name of a SQL job: ``{schema}.{table}``.

    Args:
        schema: The schema, e.g. ``"gx"``.
        table: The table or procedure the job is named after, e.g. ``"validate_datasets"``.

    Returns:
        For example ``"gx.validate_datasets"``.

    Raises:
        NamingError: A part is empty or not a string.
    """
    context = "sql job name"
    return f"{_part(schema, context, 'schema')}.{_part(table, context, 'table')}"


def debezium_job_name(topic_prefix: str, task_id: str | int) -> str:
    """The job name of a Debezium connector task: ``{topic.prefix}.{taskId}``.

    Args:
        topic_prefix: The connector's ``topic.prefix``, e.g. ``"inventory"``.
        task_id: The connector task's id, e.g. ``0``.

    Returns:
        For example ``"inventory.0"``.

    Raises:
        NamingError: A part is empty, or the task id is negative or neither a
            string nor an integer.
    """
    context = "debezium job name"
    prefix = _part(topic_prefix, context, "topic prefix")
    if isinstance(task_id, int) and not isinstance(task_id, bool):
        if task_id < 0:
            raise NamingError(context, f"task id must not be negative, got {task_id}")
        return f"{prefix}.{task_id}"
    return f"{prefix}.{_part(task_id, context, 'task id')}"
