"""The JVM agent's ``spark.openlineage.*`` confs, read from a session and applied to its lineage.

A Spark job configured for the JVM agent (``--conf spark.openlineage.transport.type=http`` ...)
or by Airflow's OpenLineage provider (``spark_inject_parent_job_info``,
``spark_inject_transport_info``) is configured the same way for this adapter: the session's
confs are read once, when the adapter is installed (a Spark Connect client reads them from the
server with ``spark.conf``), into a :class:`SparkConfSettings`.

What each conf does
-------------------
``transport.*``
    The transport, in the JVM agent's layout, mapped onto this SDK's transport configuration
    (:mod:`openlineage_sdk.transports`): ``transport.type`` and the type's keys, nested by dots
    (``transport.auth.apiKey``, ``transport.transports.<name>.type`` for a composite). The JVM
    spellings are translated: http ``headers.<h>`` -> ``custom_headers``,
    ``timeoutInMillis`` -> ``timeout`` (seconds), ``urlParams.<p>`` is refused; kafka
    ``topicName`` -> ``topic``, ``properties.<p>`` -> ``config``; file ``location`` ->
    ``log_file_path``; gcplineage without ``location`` is in ``us``, the Java client's default.
    The Java client's ``s3`` (``bucketName``, ``fileNamePrefix``, ``endpoint``), ``gcs``
    (``projectId``, ``bucketName``, ``credentialsFile``, ``fileNamePrefix``...), ``kinesis``
    (``streamName``, ``region``, ``roleArn``, ``properties.<p>``), ``gcplineage`` and
    ``amazon_datazone_api`` keys are those transports' own. Other keys go through as they are,
    and an unknown one is an error of the transport's configuration, reported, never dropped
    silently.
``namespace``, ``appName``, ``applicationRunId``
    The job namespace, the application's name in job names, the application run's id.
    Without ``appName``, a Glue job whose app name is the one Glue generated is named after the
    Glue job (``spark.glue.JOB_NAME``), as the JVM agent names it (see ``platforms._glue``).
``parentJobNamespace``, ``parentJobName``, ``parentRunId`` and the ``rootParent*`` three
    The run that started this application (Airflow's task run) and the root of its chain (the
    DAG run): the parent of the application run, and of each write run outside it.
``facets.<name>.disabled`` and ``facets.disabled`` (``[a;b]``)
    Facets left out of every event (run, job and dataset facets, by their key).
``jobName.appendDatasetName``, ``jobName.replaceDotWithUnderscore``
    Job names without the output's name, and with ``_`` for ``.``.
``dataset.removePath.pattern``
    A regular expression whose ``remove`` group is cut out of dataset names (Java's
    ``(?<remove>...)`` is accepted).
``capturedProperties``
    The Spark properties copied into the ``spark_properties`` run facet (default
    ``spark.master,spark.app.name``).
``job.owners.<type>``, ``job.tags``, ``run.tags``
    The ``ownership`` job facet, and ``tags`` job and run facets (``key:value;key:value``, a tag
    without ``:`` has the value ``true``).
``columnLineage.datasetLineageEnabled``
    ``false``: the column lineage facet without its ``dataset`` part, each field listing the
    filters, joins, groupings and sorts that decide its rows as its own ``INDIRECT`` inputs, as
    the JVM agent then writes it (default ``true``: those are the facet's ``dataset`` list).
``columnLineage.descriptionsEnabled``
    ``true``: each transformation of the column lineage carries a description, as the JVM agent
    writes it: Spark's SQL text of the expression of the optimized plan that applies it
    (``t1.a AS ident``, ``WHERE (t1.a > 1)``, ``GROUP BY t1.a, t1.b``). Classic sessions only:
    under Spark Connect the client sees no expression's SQL text, and the conf is refused
    (logged) there. Default ``false``.
``streaming.runningInterval``
    Seconds (a number, ``0`` or more) between two RUNNING events of a streaming query's run:
    at most one per interval, plus one whenever the stream's datasets change (default ``60``;
    ``install(..., stream_interval=...)`` wins). Not a JVM agent conf: the agent has one run
    per micro-batch.
``disabled``
    ``true``: no lineage for the session.
``facets.custom_environment_variables`` (``[A;B]``)
    Variables of the driver's environment in the ``environment-properties`` run facet, as the JVM
    agent writes it (see ``platforms._databricks``).

The platform the driver runs on (Databricks, Dataproc, Glue, EMR, Kubernetes) is detected with
the settings, from the confs, the driver's environment and files (:mod:`.platforms`):
:attr:`SparkConfSettings.platform` holds its facets and the naming of catalog tables, and
``spark.databricks.workspaceUrl`` the workspace's part of Databricks job names.

Precedence
----------
What the code gives (a client passed to ``install``, a namespace or parent passed to
``application_run``) wins; then the session's confs; then the client configuration
(``openlineage.yml``, ``OPENLINEAGE_*`` variables). A conf that cannot be used is logged with its
key and the rule it breaks, never its value, and left out; the user's job runs on.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from openlineage_sdk.config import ConfigError
from openlineage_sdk.lifecycle import RunRef
from openlineage_sdk.spark import platforms
from openlineage_sdk.spark._safety import (
    SCHEMA_SIZE_LIMIT,
    Safety,
    SafetyError,
    parse_breaker,
)
from openlineage_sdk.transports._registry import TransportConfigError, parse_transport_config

__all__ = [
    "CONFS",
    "CONFS_NOT_READ",
    "CONF_PREFIX",
    "STREAM_INTERVAL_CONF",
    "ConfDoc",
    "RuntimeConfs",
    "SparkConfError",
    "SparkConfSettings",
    "parse_confs",
    "session_confs",
    "session_settings",
    "transport_section",
]

log = logging.getLogger("openlineage_sdk.spark")

#: The prefix of the JVM agent's confs.
CONF_PREFIX = "spark.openlineage."
_DEFAULT_CAPTURED = ("spark.master", "spark.app.name")


class SparkConfError(ConfigError):
    """A ``spark.openlineage.*`` conf cannot be used; the message names the conf and the rule."""


@dataclass(frozen=True)
class DebugSettings:
    """The ``debug`` run facet, as the JVM agent's ``DebugConfig`` asks for it.

    Attributes:
        enabled: ``facets.debug.disabled=false``: every event of an execution carries it (off
            by default, as the agent's).
        smart: ``debug.smart``: a COMPLETE carries it when datasets are missing.
        smart_mode: ``debug.smartMode``: ``any-missing`` (inputs or outputs) or
            ``output-missing``.
        metrics_disabled: ``debug.metricsDisabled``: the facet leaves the client's metrics out.
        payload_limit_kb: ``debug.payloadSizeLimitInKilobytes``: a larger facet is replaced by
            one log line saying its size.
    """

    enabled: bool = False
    smart: bool = False
    smart_mode: str = "any-missing"
    metrics_disabled: bool = False
    payload_limit_kb: int = 100

    @property
    def active(self) -> bool:
        """Whether any event may carry the facet."""
        return self.enabled or self.smart


@dataclass(frozen=True)
class SparkConfSettings:
    """What a session's ``spark.openlineage.*`` confs ask for (see the module's documentation).

    Attributes:
        transport: The transport section in this SDK's layout, ``None`` when no conf sets one.
        namespace: ``spark.openlineage.namespace``.
        app_name: ``spark.openlineage.appName``: the application's name in job names; without
            it, a Glue job's name when Glue generated the app name.
        application_run_id: ``spark.openlineage.applicationRunId``.
        parent: The parent run (with its root) the ``parent*`` and ``rootParent*`` confs name.
        disabled_facets: Facet keys left out of every event.
        append_dataset_name: Whether a write's job name ends with its output's name.
        replace_dot_with_underscore: Whether job names have ``_`` for ``.``.
        remove_path: The ``dataset.removePath.pattern`` expression, compiled.
        captured: The captured Spark properties and their values.
        job_owners: Owner type -> owner name.
        job_tags: Job tags, ``(key, value)``.
        run_tags: Run tags, ``(key, value)``.
        dataset_lineage: ``columnLineage.datasetLineageEnabled``: dataset-wide column lineage
            in the facet's ``dataset`` part (``True``) or in each field (``False``).
        descriptions: ``columnLineage.descriptionsEnabled``: each transformation of the column
            lineage carries Spark's SQL text of its expression (classic sessions).
        disabled: ``spark.openlineage.disabled``.
        stream_interval: ``streaming.runningInterval``: seconds between two RUNNING events of
            a stream's run; ``None`` when not set.
        fail_on_child_failure: ``application.failOnChildFailure``: the application's run ends
            FAIL when a run under it failed.
        job_name_workspace: The Databricks workspace's part of job names
            (``spark.databricks.workspaceUrl``): executions' job names have it for
            ``databricks_shell``.
        platform: Where the driver runs and what says so (facets, catalog naming); ``None``
            until :func:`session_settings` detects it.
        safety: The circuit breaker, time budgets and schema size limit
            (``circuitBreaker.*``, ``timeout.*``, ``columnLineage.schemaSizeLimit``).
        debug: The ``debug`` facet (``facets.debug.disabled``, ``debug.*``).
        problems: The confs that could not be used, each with its rule (never its value).
    """

    transport: dict[str, Any] | None = None
    namespace: str | None = None
    app_name: str | None = None
    application_run_id: str | None = None
    parent: RunRef | None = None
    disabled_facets: frozenset[str] = frozenset()
    append_dataset_name: bool = True
    replace_dot_with_underscore: bool = False
    remove_path: re.Pattern[str] | None = None
    captured: dict[str, str] = field(default_factory=dict)
    job_owners: dict[str, str] = field(default_factory=dict)
    job_tags: tuple[tuple[str, str], ...] = ()
    run_tags: tuple[tuple[str, str], ...] = ()
    dataset_lineage: bool = True
    descriptions: bool = False
    disabled: bool = False
    stream_interval: float | None = None
    fail_on_child_failure: bool = False
    job_name_workspace: str | None = None
    platform: platforms.Platform | None = field(default=None, compare=False)
    safety: Safety = field(default_factory=Safety, compare=False)
    debug: DebugSettings = field(default_factory=DebugSettings)
    problems: tuple[str, ...] = ()

    @property
    def rewrites_events(self) -> bool:
        """Whether events need a change on their way out (facets added, removed, names cut)."""
        return bool(
            self.disabled_facets
            or self.remove_path is not None
            or self.captured
            or self.job_owners
            or self.job_tags
            or self.run_tags
        )


# ------------------------------------------------------------------------------- reading


#: A reader of a session's runtime confs (the session's version's: ``session.runtime_confs``).
RuntimeConfs = Callable[[Any], Mapping[str, str]]


def session_confs(spark: Any, runtime: RuntimeConfs | None = None) -> dict[str, str]:
    """Every conf of a session, classic or Connect, as text.

    Args:
        spark: A classic ``SparkSession`` or a Spark Connect one.
        runtime: The reader of its runtime confs; ``None``: PySpark 4's ``spark.conf.getAll``.

    Returns:
        The session's confs (the runtime ones, which include those it was started with).
    """
    confs: dict[str, str] = {}
    context = getattr(spark, "_sc", None)  # classic: the confs the application started with
    if context is not None:
        confs.update(dict(context.getConf().getAll()))
    found = runtime(spark) if runtime is not None else dict(spark.conf.getAll)
    confs.update({str(k): str(v) for k, v in found.items()})
    return confs


def _flag(key: str, value: str) -> bool:
    text = value.strip().lower()
    if text in ("true", "false"):
        return text == "true"
    raise SparkConfError(f"{key} must be true or false")


def _tags(key: str, value: str) -> tuple[tuple[str, str], ...]:
    tags: list[tuple[str, str]] = []
    for item in value.split(";"):
        item = item.strip()
        if not item:
            continue
        name, sep, tag_value = item.partition(":")
        if not name.strip():
            raise SparkConfError(f"{key}: a tag has no key (the form is key:value;key:value)")
        tags.append((name.strip(), tag_value.strip() if sep else "true"))
    return tuple(tags)


def _nest(flat: Mapping[str, str], *, leaves: Iterable[str] = ()) -> dict[str, Any]:
    """Dotted keys into nested mappings; below a ``leaves`` key the rest is one key."""
    nested: dict[str, Any] = {}
    leaf_keys = set(leaves)
    for dotted, value in flat.items():
        parts = dotted.split(".")
        node = nested
        for index, part in enumerate(parts[:-1]):
            if part in leaf_keys:
                node = node.setdefault(part, {})
                node[".".join(parts[index + 1 :])] = value
                break
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise SparkConfError(
                    f"{CONF_PREFIX}transport.{'.'.join(parts[: index + 1])} is both a value "
                    "and a section"
                )
            node = child
        else:
            node[parts[-1]] = value
    return nested


def _translate(section: dict[str, Any], where: str) -> dict[str, Any]:
    """One transport section from the JVM agent's spellings into this SDK's."""
    kind = section.get("type")
    if not isinstance(kind, str) or not kind:
        raise SparkConfError(f"{where}.type must name a transport type")
    out = dict(section)
    if kind in ("http", "async_http"):
        headers = out.pop("headers", None)
        if headers is not None:
            out["custom_headers"] = {**headers, **out.get("custom_headers", {})}
        if "timeoutInMillis" in out:
            try:
                out["timeout"] = float(out.pop("timeoutInMillis")) / 1000
            except ValueError:
                raise SparkConfError(f"{where}.timeoutInMillis must be a number") from None
        if "urlParams" in out:
            raise SparkConfError(
                f"{where}.urlParams.* is not supported: this SDK's http transport posts to "
                "{url}/{endpoint} and its batch endpoint, with no query parameters"
            )
    elif kind == "kafka":
        if "topicName" in out:
            out["topic"] = out.pop("topicName")
        properties = out.pop("properties", None)
        if properties is not None:
            out["config"] = {**properties, **out.get("config", {})}
    elif kind == "file":
        if "location" in out:
            out["log_file_path"] = out.pop("location")
    elif kind == "gcplineage":
        out.setdefault("location", "us")  # the Java client's default
    elif kind == "composite":
        members = out.get("transports")
        if isinstance(members, dict):
            out["transports"] = {
                name: _translate(member, f"{where}.transports.{name}")
                for name, member in members.items()
                if isinstance(member, dict)
            }
    return out


def transport_section(confs: Mapping[str, str]) -> dict[str, Any] | None:
    """The transport the ``spark.openlineage.transport.*`` confs describe, in this SDK's layout.

    Args:
        confs: A session's confs.

    Returns:
        The section for :func:`openlineage_sdk.transports.parse_transport_config`, ``None``
        when no transport conf is set.

    Raises:
        SparkConfError: The confs do not describe a transport (no type, a key both a value and
            a section).
    """
    prefix = f"{CONF_PREFIX}transport."
    flat = {k[len(prefix) :]: v for k, v in confs.items() if k.startswith(prefix)}
    if not flat:
        return None
    # Kafka's properties and HTTP's headers and URL parameters have dots in their own names.
    nested = _nest(flat, leaves=("properties", "headers", "urlParams", "config"))
    return _translate(nested, f"{CONF_PREFIX}transport")


def _remove_path(key: str, value: str) -> re.Pattern[str]:
    pattern = re.sub(r"\(\?<([A-Za-z][A-Za-z0-9]*)>", r"(?P<\1>", value)  # Java's named groups
    try:
        compiled = re.compile(pattern)
    except re.error as error:
        raise SparkConfError(f"{key} is not a regular expression: {error.msg}") from None
    if "remove" not in compiled.groupindex:
        raise SparkConfError(f"{key} must have a group named remove: (?<remove>...)")
    return compiled


def _parent(confs: Mapping[str, str]) -> RunRef | None:
    def trio(kind: str) -> tuple[str, str, str] | None:
        keys = [f"{CONF_PREFIX}{kind}{part}" for part in ("JobNamespace", "JobName", "RunId")]
        values = [confs.get(k, "").strip() for k in keys]
        if not any(values):
            return None
        missing = [k for k, v in zip(keys, values, strict=True) if not v]
        if missing:
            raise SparkConfError(f"{', '.join(missing)} must be set with the other {kind} confs")
        return values[0], values[1], values[2]

    def ref(kind: str, values: tuple[str, str, str], root: RunRef | None) -> RunRef:
        try:
            return RunRef(*values, root=root)
        except ValueError:
            raise SparkConfError(f"{CONF_PREFIX}{kind}RunId must be a UUID") from None

    parent = trio("parent")
    root_values = trio("rootParent")
    if parent is None:
        if root_values is not None:
            raise SparkConfError(
                f"{CONF_PREFIX}rootParent* confs need the {CONF_PREFIX}parent* confs"
            )
        return None
    root = ref("rootParent", root_values, None) if root_values is not None else None
    return ref("parent", parent, root)


def _disabled_facets(confs: Mapping[str, str]) -> frozenset[str]:
    disabled: set[str] = set()
    old = confs.get(f"{CONF_PREFIX}facets.disabled")
    if old is not None:
        disabled.update(n.strip() for n in old.strip().strip("[]").split(";") if n.strip())
    pattern = re.compile(re.escape(f"{CONF_PREFIX}facets.") + r"(.+)\.disabled$")
    for key, value in confs.items():
        match = pattern.match(key)
        if match is None:
            continue
        if _flag(key, value):
            disabled.add(match.group(1))
        else:
            disabled.discard(match.group(1))
    return frozenset(disabled)


def parse_confs(confs: Mapping[str, str], *, strict: bool = False) -> SparkConfSettings:
    """Read ``spark.openlineage.*`` confs into settings.

    Args:
        confs: The session's confs (other confs are read only when captured).
        strict: Raise on the first conf that cannot be used instead of noting it in
            ``problems`` and leaving it out.

    Returns:
        The settings.

    Raises:
        SparkConfError: With ``strict``, a conf that cannot be used; the message names it.
    """
    problems: list[str] = []
    values: dict[str, Any] = {}

    def read(name: str, parse: Callable[[], Any]) -> None:
        try:
            values[name] = parse()
        except SparkConfError as error:
            if strict:
                raise
            problems.append(str(error))

    def text(key: str) -> str | None:
        return (confs.get(CONF_PREFIX + key) or "").strip() or None

    def flag(key: str, default: bool) -> bool:
        value = confs.get(CONF_PREFIX + key)
        return default if value is None else _flag(CONF_PREFIX + key, value)

    def transport() -> dict[str, Any] | None:
        section = transport_section(confs)
        if section is not None:
            try:
                parse_transport_config(section)
            except TransportConfigError as error:
                raise SparkConfError(f"{CONF_PREFIX}transport.*: {error}") from None
        return section

    def captured() -> dict[str, str]:
        names = text("capturedProperties")
        wanted = [n.strip() for n in names.split(",")] if names else list(_DEFAULT_CAPTURED)
        return {n: confs[n] for n in wanted if n and n in confs}

    def removal() -> re.Pattern[str] | None:
        value = confs.get(f"{CONF_PREFIX}dataset.removePath.pattern")
        return _remove_path(f"{CONF_PREFIX}dataset.removePath.pattern", value) if value else None

    owners_prefix = f"{CONF_PREFIX}job.owners."
    read("transport", transport)
    read("namespace", lambda: text("namespace"))
    read("app_name", lambda: text("appName"))
    read("application_run_id", lambda: _run_id(text("applicationRunId")))
    read("parent", lambda: _parent(confs))
    read("disabled_facets", lambda: _disabled_facets(confs))
    read("append_dataset_name", lambda: flag("jobName.appendDatasetName", True))
    read("replace_dot_with_underscore", lambda: flag("jobName.replaceDotWithUnderscore", False))
    read("remove_path", removal)
    read("captured", captured)
    read(
        "job_owners",
        lambda: {
            k[len(owners_prefix) :]: v for k, v in confs.items() if k.startswith(owners_prefix)
        },
    )
    read(
        "job_tags", lambda: _tags(f"{CONF_PREFIX}job.tags", confs.get(f"{CONF_PREFIX}job.tags", ""))
    )
    read(
        "run_tags", lambda: _tags(f"{CONF_PREFIX}run.tags", confs.get(f"{CONF_PREFIX}run.tags", ""))
    )
    read("dataset_lineage", lambda: flag("columnLineage.datasetLineageEnabled", True))
    read("descriptions", lambda: flag("columnLineage.descriptionsEnabled", False))
    read("disabled", lambda: flag("disabled", False))
    read("fail_on_child_failure", lambda: flag("application.failOnChildFailure", False))
    read("stream_interval", lambda: _seconds(STREAM_INTERVAL_CONF, confs.get(STREAM_INTERVAL_CONF)))
    read("safety", lambda: _safety(confs))
    read("debug", lambda: _debug(confs))
    # -- the platforms' naming rules, from the confs alone (see platforms._glue, _databricks)
    if values.get("app_name") is None:
        values["app_name"] = platforms.application_name(confs)
    values["job_name_workspace"] = platforms.workspace_id(confs)
    return SparkConfSettings(**values, problems=tuple(problems))


BREAKER_PREFIX = f"{CONF_PREFIX}circuitBreaker."


def _safety(confs: Mapping[str, str]) -> Safety:
    """The ``circuitBreaker.*``, ``timeout.*`` and ``columnLineage.schemaSizeLimit`` confs."""
    section = {
        k[len(BREAKER_PREFIX) :]: v for k, v in confs.items() if k.startswith(BREAKER_PREFIX)
    }

    def number(key: str, *, percent: bool = False) -> int | None:
        value = confs.get(CONF_PREFIX + key)
        if value is None or not value.strip():
            return None
        try:
            number = int(value.strip())
        except ValueError:
            raise SparkConfError(f"{CONF_PREFIX}{key}: {value!r} is not a whole number") from None
        if number < 0 or (percent and number > 100):
            rule = "a percentage (0 to 100)" if percent else "at least 0"
            raise SparkConfError(f"{CONF_PREFIX}{key}: must be {rule}, got {number}")
        return number

    try:
        breaker = parse_breaker(section, BREAKER_PREFIX)
    except SafetyError as error:
        raise SparkConfError(str(error)) from None
    limit = number("columnLineage.schemaSizeLimit")
    return Safety(
        breaker,
        number("timeout.buildDatasetsTimePercentage", percent=True),
        number("timeout.facetsBuildingTimePercentage", percent=True),
        SCHEMA_SIZE_LIMIT if limit is None else limit,
    )


#: The conf of the seconds between two RUNNING events of a streaming query's run.
STREAM_INTERVAL_CONF = f"{CONF_PREFIX}streaming.runningInterval"


def _seconds(key: str, value: str | None) -> float | None:
    if value is None or not value.strip():
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        raise SparkConfError(f"{key} must be a number of seconds") from None
    if not seconds >= 0 or seconds == float("inf"):
        raise SparkConfError(f"{key} must be a number of seconds, 0 or more")
    return seconds


_SMART_MODES = ("any-missing", "output-missing")


def _debug(confs: Mapping[str, str]) -> DebugSettings:
    """The ``debug`` facet's confs: on only when ``facets.debug.disabled`` is ``false``."""
    switch = confs.get(f"{CONF_PREFIX}facets.debug.disabled")
    enabled = switch is not None and not _flag(f"{CONF_PREFIX}facets.debug.disabled", switch)

    def flag(key: str) -> bool:
        value = confs.get(CONF_PREFIX + key)
        return value is not None and _flag(CONF_PREFIX + key, value)

    mode = (confs.get(f"{CONF_PREFIX}debug.smartMode") or "").strip().lower() or "any-missing"
    if mode not in _SMART_MODES:
        raise SparkConfError(f"{CONF_PREFIX}debug.smartMode must be any-missing or output-missing")
    limit_key = f"{CONF_PREFIX}debug.payloadSizeLimitInKilobytes"
    limit_text = (confs.get(limit_key) or "").strip()
    limit = 100
    if limit_text:
        try:
            limit = int(limit_text)
        except ValueError:
            raise SparkConfError(f"{limit_key} must be a whole number of kilobytes") from None
        if limit < 1:
            raise SparkConfError(f"{limit_key} must be 1 or more")
    return DebugSettings(
        enabled=enabled,
        smart=flag("debug.smart"),
        smart_mode=mode,
        metrics_disabled=flag("debug.metricsDisabled"),
        payload_limit_kb=limit,
    )


def _run_id(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return RunRef("-", "-", value).run_id
    except ValueError:
        raise SparkConfError(f"{CONF_PREFIX}applicationRunId must be a UUID") from None


def session_settings(spark: Any, runtime: RuntimeConfs | None = None) -> SparkConfSettings:
    """The session's settings, read now (confs set later apply from the next install).

    A session whose confs cannot be read has no settings (logged); each problem is logged.
    ``runtime``: the reader of its runtime confs (see :func:`session_confs`).
    """
    try:
        confs = session_confs(spark, runtime)
        settings = parse_confs(confs)
    except Exception as error:
        log.warning("openlineage: reading the session's spark.openlineage confs failed: %s", error)
        return SparkConfSettings()
    for problem in settings.problems:
        log.error("openlineage: %s; the conf is left out", problem)
    try:
        platform = platforms.detect(platforms.gather(spark, confs))
    except Exception as error:  # lineage without the platform's facets, never none
        log.warning("openlineage: detecting the platform failed: %s", error)
        return settings
    return dataclasses.replace(settings, platform=platform)


# ------------------------------------------------------------------------------- reference
# What the documentation's configuration reference says about each conf read above. It is data,
# kept beside the code that reads it; the tests check that every conf the code reads is listed
# here (``<...>`` stands for a part the user chooses).


class ConfDoc(NamedTuple):
    """One ``spark.openlineage.*`` conf, as the configuration reference shows it.

    Attributes:
        key: the conf after ``spark.openlineage.``; ``<...>`` marks a part the user chooses.
        type: what the value is.
        default: the value when the conf is not set, ``None`` for none.
        description: what the SDK does with it (Markdown).
    """

    key: str
    type: str
    default: str | None
    description: str


#: Every conf the adapter reads, in the order of the reference.
CONFS: tuple[ConfDoc, ...] = (
    ConfDoc(
        "transport.type",
        "a transport type",
        None,
        "The transport, any type the SDK has (`console`, `file`, `http`, `kafka`, `composite`, "
        "...), used when no client is passed in code; without it the client configuration's "
        "transport is used.",
    ),
    ConfDoc(
        "transport.<key>",
        "text",
        None,
        "The transport's keys, nested by dots (`transport.url`, `transport.auth.apiKey`, "
        "`transport.transports.<name>.type` for a composite's members). The JVM agent's "
        "spellings are mapped: http `headers.<h>` to `custom_headers`, `timeoutInMillis` to "
        "`timeout` (seconds); kafka `topicName` to `topic`, `properties.<p>` to `config`; file "
        "`location` to `log_file_path`. `urlParams.*` is refused (the HTTP transport sends no "
        "query parameters); any other key goes through as it is, and an unknown one is an error "
        "of the transport's configuration.",
    ),
    ConfDoc(
        "namespace",
        "text",
        None,
        "The job namespace of the application run and of the write runs.",
    ),
    ConfDoc(
        "appName",
        "text",
        None,
        "The application's name in job names, instead of the session's `spark.app.name`. "
        "Without it, a Glue job whose app name is the one Glue generated is named after the "
        "Glue job (`spark.glue.JOB_NAME`), as the JVM agent names it; under "
        "`openlineage-sdk run spark-pipelines`, a pipeline whose app name is the pipeline "
        "CLI's own (`cli.py`) is named after the pipeline.",
    ),
    ConfDoc(
        "applicationRunId",
        "UUID",
        None,
        "The id of the application run.",
    ),
    ConfDoc(
        "parentJobNamespace",
        "text",
        None,
        "With `parentJobName` and `parentRunId`: the parent of the application run (Airflow's "
        "task run), and of writes made outside it.",
    ),
    ConfDoc("parentJobName", "text", None, "See `parentJobNamespace`."),
    ConfDoc("parentRunId", "UUID", None, "See `parentJobNamespace`."),
    ConfDoc(
        "rootParentJobNamespace",
        "text",
        None,
        "With `rootParentJobName` and `rootParentRunId`, and the `parent*` confs: the `root` of "
        "those parent facets (the DAG run); writes inside the application run have it as "
        "parent, with the same root, as in the JVM agent.",
    ),
    ConfDoc("rootParentJobName", "text", None, "See `rootParentJobNamespace`."),
    ConfDoc("rootParentRunId", "UUID", None, "See `rootParentJobNamespace`."),
    ConfDoc(
        "facets.<name>.disabled",
        "boolean",
        "false",
        "`true`: the facet `<name>` is removed from every run, job and dataset of the events.",
    ),
    ConfDoc(
        "facets.disabled",
        "list `[a;b]`",
        None,
        "The older form: those facets are removed from every event.",
    ),
    ConfDoc(
        "facets.custom_environment_variables",
        "list `[A;B]`",
        None,
        "Variables of the driver's environment in the `environment-properties` run facet of "
        "the application's events, as the JVM agent writes it (on Databricks beside the "
        "runtime's own properties). Classic PySpark only: under Spark Connect the client's "
        "environment is not the driver's.",
    ),
    ConfDoc(
        "jobName.appendDatasetName",
        "boolean",
        "true",
        "`false`: job names without the output's part.",
    ),
    ConfDoc(
        "jobName.replaceDotWithUnderscore",
        "boolean",
        "false",
        "`true`: `_` for `.` in the command part of job names (the parts stay joined by dots, "
        "as the agent writes them).",
    ),
    ConfDoc(
        "dataset.removePath.pattern",
        "regular expression with a group `remove`",
        None,
        "The `remove` group (`(?<remove>...)`, Java's spelling, is read) is cut from dataset "
        "names.",
    ),
    ConfDoc(
        "capturedProperties",
        "comma-separated Spark properties",
        "spark.master,spark.app.name",
        "Those Spark properties, when set, go into the `spark_properties` run facet.",
    ),
    ConfDoc(
        "job.owners.<type>",
        "text",
        None,
        "The owner of that type in the `ownership` job facet.",
    ),
    ConfDoc(
        "job.tags",
        "`key:value;key`",
        None,
        "The `tags` job facet (source `SPARK`); a tag without `:` has the value `true`.",
    ),
    ConfDoc(
        "run.tags",
        "`key:value;key`",
        None,
        "The `tags` run facet, as `job.tags`.",
    ),
    ConfDoc(
        "columnLineage.datasetLineageEnabled",
        "boolean",
        "true",
        "`false`: the column lineage facet without its `dataset` list, each field listing the "
        "filters, joins, groupings and sorts that decide its rows among its own inputs "
        "(`INDIRECT`), as the agent then writes it.",
    ),
    ConfDoc(
        "columnLineage.descriptionsEnabled",
        "boolean",
        "false",
        "`true`: each transformation carries the agent's description, Spark's SQL text of the "
        "expression of the optimized plan that applies it (`t1.a AS ident`, `WHERE (t1.a > "
        "1)`); classic sessions only, refused (logged) under Spark Connect, whose client sees no "
        "expression's SQL text.",
    ),
    ConfDoc(
        "streaming.runningInterval",
        "seconds, 0 or more",
        "60",
        "Seconds between two RUNNING events of a streaming query's run (`0`: one per "
        "micro-batch), plus one whenever the stream's datasets change; "
        "`install(..., stream_interval=...)` wins. The SDK's own: the agent has one run per "
        "micro-batch.",
    ),
    ConfDoc(
        "disabled",
        "boolean",
        "false",
        "`true`: no events for the session.",
    ),
    ConfDoc(
        "columnLineage.schemaSizeLimit",
        "number, 0 or more",
        "1000",
        "An output with more fields than this gets no column lineage (the agent's rule), and "
        "its `extractionError` says so; the wider the schema, the more time and bytes column "
        "lineage costs.",
    ),
    ConfDoc(
        "circuitBreaker.type",
        "`simpleMemory`, `javaRuntime`, `static`, `timeout`, `asyncTaskQueue` or `noop`",
        None,
        "The circuit breaker (the Java client's types): a tripped one stops the description of "
        "an execution, whose events still go out, without datasets, with an `extractionError` "
        "saying why. Memory and GC time are the driver JVM's (classic) or this Python process's "
        "and host's (Spark Connect); `asyncTaskQueue` trips while more executions than "
        "`queueSize` wait to be reported.",
    ),
    ConfDoc(
        "circuitBreaker.memoryThreshold",
        "percentage",
        "20",
        "`simpleMemory`, `javaRuntime`: trips at or below this share of free memory.",
    ),
    ConfDoc(
        "circuitBreaker.gcCpuThreshold",
        "percentage",
        "10",
        "`javaRuntime`: trips when, besides the memory threshold, at least this share of the "
        "time since the last reading went to garbage collection.",
    ),
    ConfDoc(
        "circuitBreaker.circuitCheckIntervalInMillis",
        "milliseconds",
        "1000",
        "The breaker's state is read at most this often; in between, its last reading holds.",
    ),
    ConfDoc(
        "circuitBreaker.timeoutInSeconds",
        "seconds, 1 or more",
        None,
        "The time budget of describing one execution (required by `timeout`; any breaker "
        "may have one); shared out by `timeout.*`. Past it, the rest of the description is "
        "left out at its next checkpoint.",
    ),
    ConfDoc(
        "circuitBreaker.valuesReturned",
        "`true`/`false`, comma-separated",
        None,
        "`static`: the states returned in turn (`true`: tripped), then tripped.",
    ),
    ConfDoc(
        "circuitBreaker.queueSize",
        "number",
        "10",
        "`asyncTaskQueue`: the executions that may wait to be reported before it trips.",
    ),
    ConfDoc(
        "circuitBreaker.<key>",
        "text",
        None,
        "The Java client's other breaker keys (`threadCount`, `blockingTimeInSeconds`, "
        "`shutdownTimeoutSeconds` of `asyncTaskQueue`): accepted, with no use here (the "
        "adapter's own finishing thread is the queue).",
    ),
    ConfDoc(
        "timeout.buildDatasetsTimePercentage",
        "percentage",
        None,
        "The share of `circuitBreaker.timeoutInSeconds` for describing the datasets.",
    ),
    ConfDoc(
        "timeout.facetsBuildingTimePercentage",
        "percentage",
        None,
        "The share of `circuitBreaker.timeoutInSeconds` for column lineage (the facet that "
        "costs); past it, the datasets keep everything but their column lineage.",
    ),
    ConfDoc(
        "facets.debug.disabled",
        "boolean",
        "true",
        "`false`: every event of an execution's run carries the `debug` run facet (what the "
        "adapter saw: Spark, Python, the system, the confs, what was left out and why), as "
        "the JVM agent's `DebugRunFacet`. Off by default, as the agent's: it is for finding "
        "why lineage is missing, not for production.",
    ),
    ConfDoc(
        "debug.smart",
        "boolean",
        "false",
        "`true`: a COMPLETE whose datasets are missing (see `debug.smartMode`) carries the "
        "`debug` facet, with a log line per missing side, even with the facet disabled.",
    ),
    ConfDoc(
        "debug.smartMode",
        "`any-missing` or `output-missing`",
        "any-missing",
        "When `debug.smart` adds the facet: no inputs or no outputs, or no outputs.",
    ),
    ConfDoc(
        "debug.metricsDisabled",
        "boolean",
        "false",
        "`true`: the `debug` facet leaves the client's metrics out.",
    ),
    ConfDoc(
        "debug.payloadSizeLimitInKilobytes",
        "number, 1 or more",
        "100",
        "A `debug` facet larger than this (as JSON) is replaced by one log line giving its "
        "size, as the agent's.",
    ),
    ConfDoc(
        "application.failOnChildFailure",
        "boolean",
        "false",
        "`true`: the application's run ends FAIL, its errorMessage giving how many runs under "
        "it failed, when any did (otherwise it ends COMPLETE whatever its runs did, as the "
        "agent's). The SDK's own: the agent has no such conf.",
    ),
)

#: Confs of the JVM agent the adapter does not read, and why.
CONFS_NOT_READ: tuple[ConfDoc, ...] = (
    ConfDoc("filter.<key>", "text", None, "Not read: it steers the JVM agent's plan analysis."),
    ConfDoc("vendors.<key>", "text", None, "Not read: it steers the JVM agent's plan analysis."),
    ConfDoc("facets.variables", "text", None, "Not read: it steers the JVM agent's plan analysis."),
    ConfDoc(
        "debug.logPlanAsJson",
        "boolean",
        None,
        "Not read: it writes the JVM agent's plan to its log.",
    ),
)
