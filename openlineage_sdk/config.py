"""Configuration: the official client's ``openlineage.yml`` layout and environment variables.

A deployment configured for the official Python client works unchanged:

* ``OPENLINEAGE_CONFIG`` names the configuration file; otherwise
  ``./openlineage.yml``, then ``~/.openlineage/openlineage.yml``, are used when
  they exist.
* ``OPENLINEAGE__`` variables set nested keys, ``__`` separating the levels:
  ``OPENLINEAGE__TRANSPORT__TYPE=http``, ``OPENLINEAGE__TRANSPORT__URL=...``,
  ``OPENLINEAGE__TRANSPORT__AUTH='{"type": "api_key", "apiKey": "..."}'``. Keys
  are lower-cased; a value is read as JSON when it is JSON, else as a string. A
  shorter variable wins over longer ones below it
  (``OPENLINEAGE__TRANSPORT='{...}'`` replaces every ``OPENLINEAGE__TRANSPORT__*``).
* ``OPENLINEAGE_URL``, ``OPENLINEAGE_API_KEY`` and ``OPENLINEAGE_ENDPOINT``
  describe an HTTP transport when no transport type is configured otherwise;
  with a ``composite`` transport they add a member named ``default_http``.
* ``OPENLINEAGE_DISABLED=true`` turns emission off.

Precedence, highest first: settings passed in code, the configuration file,
``OPENLINEAGE__`` variables, ``OPENLINEAGE_URL`` and friends.

Loading is a pure function of its inputs: :func:`load_config` reads the
environment mapping and files it is given and changes nothing, ``os.environ``
included. Secrets (API keys, passwords, SASL settings) never appear in a repr,
a log line or an error message.

YAML files need PyYAML, which this package does not depend on. Without it, a
configuration file that is JSON (JSON is valid YAML, so ``openlineage.yml`` may
hold JSON) is still read, and a YAML one raises :class:`ConfigError` saying to
``pip install pyyaml`` or to use JSON or environment variables.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny

from openlineage_sdk.transports._registry import TransportConfigError, parse_transport_config
from openlineage_sdk.transports.base import TransportConfig, redact_mapping

__all__ = [
    "CONFIG_FILE_NAME",
    "ENV_PREFIX",
    "ConfigError",
    "OpenLineageConfig",
    "default_config_paths",
    "environment_settings",
    "load_config",
]

log = logging.getLogger(__name__)

CONFIG_FILE_NAME = "openlineage.yml"
"""The file looked for in the working directory and in ``~/.openlineage``."""
ENV_PREFIX = "OPENLINEAGE__"
"""Prefix of the nested-key environment variables (``OPENLINEAGE__TRANSPORT__TYPE``)."""
_DEFAULT_HTTP_MEMBER = "default_http"


class ConfigError(ValueError):
    """The configuration cannot be used; the message says where and why, never a secret value."""


class OpenLineageConfig(BaseModel):
    """The whole configuration, as loaded by :func:`load_config`.

    Attributes:
        transport: where events go; ``None`` when nothing is configured (the
            client then writes to a local JSON Lines file).
        disabled: ``OPENLINEAGE_DISABLED=true``: emit nothing.
        namespace: the default job namespace (``OPENLINEAGE_NAMESPACE``), if set.
        facets, filters, tags, dataset: sections of the official layout, kept as
            given for the parts of the SDK that use them.
        circuit_breaker: the Java client's ``circuitBreaker`` section, as given: the PySpark
            adapter's circuit breaker when no ``spark.openlineage.circuitBreaker.*`` conf sets
            one.
        metrics: the ``metrics`` section, as given: the client's metrics registry (see
            :mod:`openlineage_sdk.metrics`).
        config_file: the file the settings were read from, if any.
        sources: where settings came from, for diagnostics (no values).
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    transport: SerializeAsAny[TransportConfig] | None = None
    disabled: bool = False
    namespace: str | None = None
    facets: dict[str, Any] = Field(default_factory=dict)
    filters: list[Any] = Field(default_factory=list)
    tags: dict[str, Any] = Field(default_factory=dict)
    dataset: dict[str, Any] = Field(default_factory=dict)
    circuit_breaker: dict[str, Any] = Field(default_factory=dict)
    metrics: dict[str, Any] = Field(default_factory=dict)
    config_file: Path | None = None
    sources: tuple[str, ...] = ()

    def __repr_args__(self) -> Any:
        for name, value in super().__repr_args__():
            if name in ("facets", "tags", "dataset"):
                value = redact_mapping(value)
            yield name, value


def default_config_paths(env: Mapping[str, str], cwd: Path | None = None) -> list[Path]:
    """The files looked for, in order, as the official client does.

    Args:
        env: the environment (``OPENLINEAGE_CONFIG`` and ``HOME`` are read).
        cwd: the working directory; the process's when ``None``.

    Returns:
        ``$OPENLINEAGE_CONFIG`` (when set), ``./openlineage.yml``,
        ``~/.openlineage/openlineage.yml``.
    """
    paths: list[Path] = []
    if env.get("OPENLINEAGE_CONFIG"):
        paths.append(Path(env["OPENLINEAGE_CONFIG"]).expanduser())
    paths.append((cwd or Path.cwd()) / CONFIG_FILE_NAME)
    home = env.get("HOME") or os.path.expanduser("~")
    paths.append(Path(home) / ".openlineage" / CONFIG_FILE_NAME)
    return paths


def _yaml_error(path: Path, exc: Exception) -> ConfigError:
    # PyYAML's message quotes the offending line, which may hold a secret:
    # keep only the problem and its position.
    problem = getattr(exc, "problem", None) or type(exc).__name__
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return ConfigError(f"{path} is not valid YAML: {problem}{where}")


def _read_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the configuration file {path}: {exc.strerror}") from None
    if not text.strip():
        log.warning("OpenLineage: the configuration file %s is empty", path)
        return {}
    data: Any
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ConfigError(f"{path} is not valid JSON: {exc.args[0].split(':')[0]}") from None
    else:
        try:
            import yaml
        except ImportError:
            try:
                data = json.loads(text)
            except ValueError:
                raise ConfigError(
                    f"{path} is YAML, and reading YAML needs PyYAML, which is not installed. "
                    "Install it (pip install pyyaml), or write the file as JSON (JSON is valid "
                    "YAML, so the same file name works), or configure with OPENLINEAGE__ "
                    "environment variables."
                ) from None
        else:
            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as exc:
                raise _yaml_error(path, exc) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path} must hold a mapping at the top level, not a {type(data).__name__}"
        )
    return data


def _env_value(name: str, raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        if any(c in raw for c in "{}[]"):
            # The value may be a secret: name the variable only.
            log.warning(
                "OpenLineage: the value of %s looks like JSON but is not valid JSON; "
                "it is used as a plain string",
                name,
            )
        return raw


def _from_env_vars(env: Mapping[str, str]) -> dict[str, Any]:
    config: dict[str, Any] = {}
    # Longer names first, so that OPENLINEAGE__TRANSPORT, applied after
    # OPENLINEAGE__TRANSPORT__URL, replaces it: the shorter variable wins.
    for name in sorted((k for k in env if k.startswith(ENV_PREFIX)), reverse=True):
        keys = [k.lower() for k in name[len(ENV_PREFIX) :].split("__")]
        if not all(keys):
            log.warning("OpenLineage: ignoring the malformed variable %s", name)
            continue
        node = config
        for key in keys[:-1]:
            child = node.get(key)
            if not isinstance(child, dict):
                child = node[key] = {}
            node = child
        node[keys[-1]] = _env_value(name, env[name])
    return config


def _deep_merge(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    """``top`` wins; two mappings under the same key are merged, anything else is replaced."""
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _legacy_http(env: Mapping[str, str]) -> dict[str, Any]:
    section: dict[str, Any] = {"type": "http", "url": env["OPENLINEAGE_URL"]}
    if env.get("OPENLINEAGE_ENDPOINT"):
        section["endpoint"] = env["OPENLINEAGE_ENDPOINT"]
    if env.get("OPENLINEAGE_API_KEY"):
        section["auth"] = {"type": "api_key", "apiKey": env["OPENLINEAGE_API_KEY"]}
    return section


def _apply_legacy_url(transport: Any, env: Mapping[str, str]) -> Any:
    """Fold ``OPENLINEAGE_URL``/``_API_KEY``/``_ENDPOINT`` in, where the official client does."""
    legacy = _legacy_http(env)
    if not isinstance(transport, Mapping):
        return legacy
    if not transport.get("type"):
        # Settings given without a type (a spool folder, a timeout) refine the URL's
        # transport, and win over it where both set a key, as settings from files and code do.
        return {**legacy, **{k: v for k, v in transport.items() if k != "type"}}
    transport = dict(transport)
    kind = transport.get("type")
    if kind == "composite":
        members = transport.get("transports")
        if isinstance(members, Mapping) and _DEFAULT_HTTP_MEMBER not in members:
            transport["transports"] = {**members, _DEFAULT_HTTP_MEMBER: legacy}
        elif isinstance(members, Sequence) and not isinstance(members, (str, bytes)):
            names = {m.get("name") for m in members if isinstance(m, Mapping)}
            if _DEFAULT_HTTP_MEMBER not in names:
                transport["transports"] = [*members, {**legacy, "name": _DEFAULT_HTTP_MEMBER}]
        elif members is None:
            transport["transports"] = {_DEFAULT_HTTP_MEMBER: legacy}
    elif kind in ("http", "async_http") and not transport.get("url"):
        for key in ("url", "endpoint", "auth"):
            if key in legacy and key not in transport:
                transport[key] = legacy[key]
    return transport


#: The top-level sections read here, and those of the Java client this SDK has no use for.
_SECTIONS = (
    "transport",
    "facets",
    "filters",
    "tags",
    "dataset",
    "disabled",
    "circuitBreaker",
    "metrics",
)
_JAVA_ONLY_SECTIONS = ("run", "job")


def _where(path: str, origins: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """`` (read from FILE)``: the source, highest precedence first, that sets the path's section."""
    keys = [k for k in path.split("[", 1)[0].split(".") if k][:2]
    for label, data in reversed(origins):
        node: Any = data
        for key in keys:
            if isinstance(node, Mapping) and key in node:
                node = node[key]
            else:
                node = None
                break
        if node is not None:
            return f" ({label})"
    return ""


def _check_sections(
    merged: Mapping[str, Any],
    origins: Sequence[tuple[str, Mapping[str, Any]]],
    *,
    strict: bool = True,
) -> None:
    """Refuse an unknown top-level key: a misspelt section must not be silently dropped."""
    from openlineage_sdk._event_config import did_you_mean

    known = {k.lower(): k for k in (*_SECTIONS, *_JAVA_ONLY_SECTIONS)}
    for key in merged:
        name = known.get(str(key).lower())
        if name in _JAVA_ONLY_SECTIONS:
            log.warning(
                "OpenLineage: the %r section of the Java client is not used by this SDK%s",
                key,
                _where(str(key), origins),
            )
        elif name is None and not strict:
            log.error(
                "OpenLineage: %r is not a configuration section%s; it is ignored",
                key,
                _where(str(key), origins),
            )
        elif name is None:
            raise ConfigError(
                f"{key}: unknown section; known: {', '.join(_SECTIONS)}"
                f"{did_you_mean(str(key), _SECTIONS)}{_where(str(key), origins)}"
            )


def _check_event_sections(
    facets: Mapping[str, Any],
    filters: Sequence[Any],
    tags: Mapping[str, Any],
    dataset: Mapping[str, Any],
    origins: Sequence[tuple[str, Mapping[str, Any]]],
) -> None:
    from openlineage_sdk._event_config import SectionError, parse_sections

    try:
        parse_sections(facets, filters, tags, dataset)
    except SectionError as exc:
        raise ConfigError(f"{exc}{_where(exc.path, origins)}") from None


def _is_true(value: object) -> bool:
    """``true`` as the official client reads ``OPENLINEAGE_DISABLED``: any case, nothing else."""
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def _with_defaults(section: Any, defaults: Mapping[str, Mapping[str, Any]]) -> Any:
    """``section`` with ``defaults[type]`` under the keys it does not set, members included.

    The members of a ``composite`` transport and the transport a ``transform`` wraps get
    their type's defaults too.
    """
    if not isinstance(section, Mapping):
        return section
    out = dict(section)
    kind = out.get("type")
    if isinstance(kind, str) and kind in defaults:
        out = {**defaults[kind], **out}
    members = out.get("transports")
    if kind == "composite" and isinstance(members, Mapping):
        out["transports"] = {name: _with_defaults(m, defaults) for name, m in members.items()}
    elif (
        kind == "composite"
        and isinstance(members, Sequence)
        and not isinstance(members, (str, bytes))
    ):
        out["transports"] = [_with_defaults(m, defaults) for m in members]
    elif kind == "transform" and "transport" in out:
        out["transport"] = _with_defaults(out["transport"], defaults)
    return out


def environment_settings(env: Mapping[str, str] | None = None) -> OpenLineageConfig:
    """The settings that hold whatever the transport: ``OPENLINEAGE_DISABLED`` and ``_NAMESPACE``.

    A client given its transport in code reads these, and the configuration's event
    sections (``facets``, ``filters``, ``tags``, ``dataset``).

    Args:
        env: the environment variables to read; ``os.environ`` when ``None``.

    Returns:
        A configuration with ``disabled`` and ``namespace`` set, and no transport.
    """
    env = os.environ if env is None else env
    disabled = _is_true(env.get("OPENLINEAGE_DISABLED"))
    return OpenLineageConfig(
        disabled=disabled,
        namespace=env.get("OPENLINEAGE_NAMESPACE") or None,
        sources=("env:OPENLINEAGE_DISABLED",) if disabled else (),
    )


def load_config(
    env: Mapping[str, str] | None = None,
    *,
    config_file: str | os.PathLike[str] | None = None,
    search_paths: Sequence[str | os.PathLike[str]] | None = None,
    overrides: Mapping[str, Any] | None = None,
    cwd: Path | None = None,
    check_sections: bool = True,
    transport_defaults: Mapping[str, Mapping[str, Any]] | None = None,
) -> OpenLineageConfig:
    """Build the configuration from an environment and configuration files.

    Nothing outside is changed: the environment mapping is only read (a copy of
    ``os.environ`` is taken when ``env`` is ``None``).

    Args:
        env: the environment variables to read; ``os.environ`` when ``None``.
        config_file: a configuration file to use instead of searching; it must exist.
        search_paths: the files to look for, first existing one wins; by
            default those of :func:`default_config_paths`.
        overrides: settings given in code, in the file's layout; they win over
            everything else.
        cwd: the working directory for the default search; the process's when ``None``.
        check_sections: refuse an unknown top-level section and an unknown or invalid
            setting of ``facets``, ``filters``, ``tags`` and ``dataset``; when false, an
            unknown section is only logged and those four are kept unchecked.
        transport_defaults: settings by transport type, below every source: each
            transport section of that type (a composite's members and a transform's wrapped
            transport included) gets those it does not set. ``OpenLineageClient`` gives the
            official client's defaults this way (``{"file": {"append": False}}``).

    Returns:
        The typed configuration.

    Raises:
        ConfigError: a file cannot be read or parsed, or a setting is invalid; the message
            names the setting, the rule, where it was read from and, for a misspelt key,
            the known key it is close to.
    """
    env = dict(os.environ) if env is None else env
    sources: list[str] = []
    basics = environment_settings(env)
    if basics.disabled:
        return basics

    path: Path | None = None
    if config_file is not None:
        path = Path(config_file).expanduser()
        if not path.is_file():
            raise ConfigError(f"the configuration file {path} does not exist")
    else:
        candidates = (
            [Path(p).expanduser() for p in search_paths]
            if search_paths is not None
            else default_config_paths(env, cwd)
        )
        if env.get("OPENLINEAGE_CONFIG") and search_paths is None:
            named = candidates[0]
            if not named.is_file():
                log.warning(
                    "OpenLineage: OPENLINEAGE_CONFIG names %s, which does not exist; "
                    "looking for %s elsewhere",
                    named,
                    CONFIG_FILE_NAME,
                )
        path = next((p for p in candidates if p.is_file() and os.access(p, os.R_OK)), None)

    merged: dict[str, Any] = {}
    origins: list[tuple[str, Mapping[str, Any]]] = []
    from_env = _from_env_vars(env)
    if from_env:
        merged = from_env
        sources.append(f"env:{ENV_PREFIX}*")
        origins.append((f"from the {ENV_PREFIX} environment variables", from_env))
    if path is not None:
        from_file = _read_file(path)
        merged = _deep_merge(merged, from_file)
        sources.append(f"file:{path}")
        origins.append((f"read from {path}", from_file))
    if overrides:
        origins.append(("given in code", overrides))
        merged = _deep_merge(merged, overrides)
        sources.append("code")
    if env.get("OPENLINEAGE_URL"):
        merged["transport"] = _apply_legacy_url(merged.get("transport"), env)
        sources.append("env:OPENLINEAGE_URL")

    transport: TransportConfig | None = None
    section = merged.get("transport")
    if transport_defaults:
        section = _with_defaults(section, transport_defaults)
    if isinstance(section, TransportConfig):
        transport = section
    elif isinstance(section, Mapping) and section:
        problem: str | None = None
        try:
            transport = parse_transport_config(section)
        except TransportConfigError as exc:
            problem = str(exc)
        if problem is not None:
            # Raised with no chained exception (see transports._registry._resolve); the source
            # that set the transport's type, since the settings usually come with it.
            raise ConfigError(f"{problem}{_where('transport.type', origins)}")
    elif section not in (None, {}):
        raise ConfigError("the 'transport' setting must be a mapping with a 'type'")

    _check_sections(merged, origins, strict=check_sections)

    def section_of(name: str, kind: type) -> Any:
        value = merged.get(name)
        if value is None:
            return kind()
        if not isinstance(value, kind):
            raise ConfigError(f"the '{name}' setting must be a {kind.__name__}")
        return value

    facets = section_of("facets", dict)
    filters = section_of("filters", list)
    tags = section_of("tags", dict)
    dataset = section_of("dataset", dict)
    circuit_breaker = section_of("circuitBreaker", dict)
    metrics = section_of("metrics", dict)
    if check_sections and (facets or filters or tags or dataset):
        _check_event_sections(facets, filters, tags, dataset, origins)
    return OpenLineageConfig(
        transport=transport,
        disabled=_is_true(merged.get("disabled")),
        namespace=basics.namespace,
        facets=facets,
        filters=filters,
        tags=tags,
        dataset=dataset,
        circuit_breaker=circuit_breaker,
        metrics=metrics,
        config_file=path,
        sources=tuple(sources),
    )


# --------------------------------------------------------------------------- reference
# What the documentation's configuration reference says about the sections and variables read
# above. It is data, kept beside the code that reads it; the tests check that every section
# and every variable the code reads is listed here.

#: Each top-level section of ``openlineage.yml`` (the keys of ``_SECTIONS`` and
#: ``_JAVA_ONLY_SECTIONS``) and what this SDK does with it.
_SECTION_DOCS: dict[str, str] = {
    "transport": "Where events go: a mapping with a `type` and that transport's keys.",
    "facets": "Facets added to events (`environment_variables`, `source_code_location`) or "
    "removed from them (`<name>: {disabled: true}`, `disabled: [a; b]`).",
    "filters": "Run events of the jobs they match are not emitted.",
    "tags": "Tags added to the `tags` facets of jobs (`job`) and runs (`run`).",
    "dataset": "Dataset names trimmed and reduced, and dataset namespaces resolved.",
    "disabled": "`true`: emit nothing (as `OPENLINEAGE_DISABLED=true`).",
    "circuitBreaker": "The circuit breaker of the PySpark adapter, keyed as the Java client's "
    "(`type`, `memoryThreshold`, `timeoutInSeconds`...); `spark.openlineage.circuitBreaker.*` "
    "confs win.",
    "metrics": "The client's metrics, keyed as the Java client's: `type` `simple` (read with "
    "`client.metrics.snapshot()`), `statsd` (`host`, `port`, `flavor`: UDP datagrams) or "
    "`composite` (`registries`); see the configuration guide.",
    "run": "A section of the Java client: not used here; a warning names it.",
    "job": "A section of the Java client: not used here; a warning names it.",
}


class _Variable(NamedTuple):
    """An environment variable the SDK reads: its name (``<...>`` for a part the user chooses),
    its default when unset, and what it does."""

    name: str
    default: str | None
    description: str


#: Every environment variable the package reads, and what it does.
_ENVIRONMENT_VARIABLES: tuple[_Variable, ...] = (
    _Variable(
        "OPENLINEAGE_CONFIG",
        None,
        "The configuration file to read. When it names a file that does not exist, a warning "
        "says so and `./openlineage.yml`, then `~/.openlineage/openlineage.yml`, are looked for.",
    ),
    _Variable(
        "OPENLINEAGE__<KEY>",
        None,
        "Any key of `openlineage.yml`, `__` separating the levels "
        "(`OPENLINEAGE__TRANSPORT__TYPE=http`); names are lower-cased and a value is read as "
        "JSON when it is JSON, else as text. A shorter variable replaces the longer ones below "
        "it (`OPENLINEAGE__TRANSPORT='{...}'` wins over every `OPENLINEAGE__TRANSPORT__*`). The "
        "configuration file wins over these variables.",
    ),
    _Variable(
        "OPENLINEAGE_URL",
        None,
        "The URL of an HTTP transport, used when no transport type is configured otherwise; "
        "with a `composite` transport it adds a member named `default_http`, and it fills in an "
        "`http` transport that has no `url`. A user name and password in it are sent as Basic "
        "authentication when no `auth` is set.",
    ),
    _Variable(
        "OPENLINEAGE_API_KEY",
        None,
        "With `OPENLINEAGE_URL`: the API key, sent as `Authorization: Bearer <key>` "
        "(`auth: {type: api_key}`).",
    ),
    _Variable(
        "OPENLINEAGE_ENDPOINT",
        "api/v1/lineage",
        "With `OPENLINEAGE_URL`: the path events are posted to under the URL.",
    ),
    _Variable(
        "OPENLINEAGE_DISABLED",
        "false",
        "`true` (in any case): emit nothing; nothing else of the configuration is read.",
    ),
    _Variable(
        "OPENLINEAGE_NAMESPACE",
        "default",
        "The default job namespace of a client made without one.",
    ),
    _Variable(
        "HOME",
        None,
        "Where `~/.openlineage/openlineage.yml` is looked for.",
    ),
    _Variable(
        "XDG_CACHE_HOME",
        "~/.cache",
        "The default spool folder of the HTTP and Kafka transports is "
        "`$XDG_CACHE_HOME/openlineage-sdk/spool`.",
    ),
    _Variable(
        "http_proxy, https_proxy, all_proxy, no_proxy, HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, "
        "NO_PROXY",
        None,
        "The HTTP transport's proxy, as `httpx` and `requests` read them (a lower-case name "
        "first): the URL scheme's own proxy, else `all_proxy`; none for a host `no_proxy` "
        "covers (`*`, the host, a domain above it, its address).",
    ),
    _Variable(
        "CI_MERGE_REQUEST_IID, BITBUCKET_PR_ID, SYSTEM_PULLREQUEST_PULLREQUESTNUMBER, "
        "SYSTEM_PULLREQUEST_PULLREQUESTID, GITHUB_REF",
        None,
        "With `facets.source_code_location` on: the pull-request number of the "
        "`sourceCodeLocation` facet, from GitLab, Bitbucket Pipelines, Azure Pipelines or "
        "GitHub Actions (`refs/pull/<n>/merge`).",
    ),
    _Variable(
        "<the names in facets.environment_variables>",
        None,
        "Read at each emit into the `environmentVariables` run facet, in the configured order; "
        "a variable that is not set is left out.",
    ),
    _Variable(
        "OPENLINEAGE_CLIENT_LOGGING",
        None,
        "Read by `OpenLineageClient` (the official client's entry point): a level name "
        "(`DEBUG`, `INFO`...) set on this SDK's loggers (`openlineage_sdk`), as the official "
        "client sets its own.",
    ),
    _Variable(
        "DD_API_KEY, DD_SITE",
        None,
        "The `datadog` transport's `apiKey` and `site` when the configuration leaves them out.",
    ),
    _Variable(
        "AWS_REGION",
        None,
        "The `msk-iam` Kafka transport's region when `region` is not set (else the AWS "
        "configuration's); the other AWS transports take their region from boto3, which reads "
        "it too.",
    ),
    _Variable(
        "STORAGE_EMULATOR_HOST",
        None,
        "The `gcs` transport sends its requests to this Cloud Storage emulator, without "
        "credentials, when no `endpoint` is set (as Google's own clients do).",
    ),
    _Variable(
        "PYTHONPATH",
        None,
        "`openlineage-sdk run` puts its bootstrap folder first on the command's `PYTHONPATH` "
        "(the rest is kept); `spark-submit` passes it on to the driver's Python.",
    ),
    _Variable(
        "OPENLINEAGE_SDK_BOOTSTRAP",
        None,
        "`1`: the bootstrap `openlineage-sdk run` puts on the path hooks SparkSession creation "
        "in this Python. The launcher sets it for its command; in cluster deploy mode on YARN "
        "and Kubernetes it sets it in the driver's environment alone "
        "(`spark.yarn.appMasterEnv.*`, `spark.kubernetes.driverEnv.*`), so executors, which get "
        "the bootstrap among the py-files too, are left alone.",
    ),
    _Variable(
        "SPARK_CONF_DIR, SPARK_HOME",
        None,
        "`openlineage-sdk run spark-submit` reads the `spark-defaults.conf` of `SPARK_CONF_DIR`, "
        "else of `SPARK_HOME/conf`, as `spark-submit` does, for the master, the deploy mode and "
        "the py-files a command does not set itself.",
    ),
)
