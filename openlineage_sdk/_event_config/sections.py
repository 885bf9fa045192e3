"""The configuration's ``filters``, ``tags``, ``facets`` and ``dataset`` sections, read.

:func:`parse_sections` reads the four sections of ``openlineage.yml`` (or of ``OPENLINEAGE__``
variables) into an :class:`~openlineage_sdk._event_config.edits.EventConfig`, refusing an
unknown or invalid setting with a :class:`SectionError` that names it (with a "did you mean"
when a known one is close). The rules each setting stands for are in the package's
documentation (:mod:`openlineage_sdk._event_config`).
"""

from __future__ import annotations

import difflib
import importlib
import logging
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from openlineage_sdk._event_config.edits import EventConfig
from openlineage_sdk._event_config.rules import (
    JobNameFilter,
    NamespaceResolver,
    SourceCodeLocation,
    Tag,
)

if TYPE_CHECKING:
    from openlineage_sdk.naming._trim import Trimmer

__all__ = ["SETTINGS", "SectionError", "SettingDoc", "did_you_mean", "parse_sections"]

log = logging.getLogger("openlineage_sdk._event_config")


class SectionError(ValueError):
    """A setting of ``facets``, ``filters``, ``tags`` or ``dataset`` cannot be used."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` when ``word`` is close to one of ``known``, else ``""``."""
    choices = list(known)
    lowered = {c.lower(): c for c in choices}
    close = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.75)
    return f" (did you mean {lowered[close[0]]!r}?)" if close else ""


def _norm(key: object) -> str:
    """Keys compared without case and underscores: ``namespaceResolvers``, ``namespace_resolvers``
    and ``namespaceresolvers`` (an ``OPENLINEAGE__`` variable, lower-cased) are the same key."""
    return str(key).replace("_", "").lower()


def _mapping(value: Any, path: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SectionError(path, f"must be a mapping, not a {type(value).__name__}")
    return value


def _names(value: Any, path: str) -> list[str]:
    """A list of names: a YAML list, or one string separated by ``;`` (or ``,``), as the
    official clients write them (``[a; b]`` from the JVM agent's confs too)."""
    if value is None:
        return []
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("[") and text.endswith("]"):
            text = text[1:-1]
        return [part.strip() for part in re.split(r"[;,]", text) if part.strip()]
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return [v.strip() for v in value if v.strip()]
    raise SectionError(path, "must be a list of names or a string separated by ';'")


def _bool(value: Any, path: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise SectionError(path, "must be true or false")


def _check_keys(section: Mapping[str, Any], path: str, known: Mapping[str, str]) -> None:
    """Refuse a key not in ``known`` (normalized key -> spelling shown)."""
    for key in section:
        if _norm(key) not in known:
            raise SectionError(
                f"{path}.{key}",
                "unknown setting; known: "
                + ", ".join(sorted(set(known.values())))
                + did_you_mean(str(key), known.values()),
            )


# -- filters ---------------------------------------------------------------------------------------


def _filters(value: Any) -> tuple[JobNameFilter, ...]:
    if value is None:
        return ()
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
        raise SectionError(
            "filters", "must be a list of {type: exact, match: ...} or {type: regex, regex: ...}"
        )
    found = []
    for index, entry in enumerate(value):
        path = f"filters[{index}]"
        entry = _mapping(entry, path)
        _check_keys(entry, path, {"type": "type", "match": "match", "regex": "regex"})
        kind = entry.get("type")
        if kind == "exact":
            match = entry.get("match")
            if not isinstance(match, str) or not match:
                raise SectionError(f"{path}.match", "an exact filter needs the job name to drop")
            found.append(JobNameFilter("exact", match))
        elif kind == "regex":
            regex = entry.get("regex")
            if not isinstance(regex, str) or not regex:
                raise SectionError(f"{path}.regex", "a regex filter needs a regular expression")
            try:
                pattern = re.compile(regex)
            except re.error as exc:
                raise SectionError(
                    f"{path}.regex", f"not a valid regular expression: {exc}"
                ) from None
            found.append(JobNameFilter("regex", regex, pattern))
        else:
            raise SectionError(
                f"{path}.type",
                f"must be 'exact' or 'regex', not {kind!r}"
                + (did_you_mean(kind, ("exact", "regex")) if isinstance(kind, str) else ""),
            )
    return tuple(found)


# -- tags --------------------------------------------------------------------------------------


def _tag_values(value: Any, path: str) -> tuple[Tag, ...]:
    tags = _mapping(value, path)
    found = []
    for key, tag in tags.items():
        if tag is None or isinstance(tag, (Mapping, list)):
            raise SectionError(f"{path}.{key}", "a tag's value must be a string or a number")
        found.append(Tag(str(key), str(tag).lower() if isinstance(tag, bool) else str(tag)))
    return tuple(found)


# -- dataset namespace resolvers ------------------------------------------------------------

_RESOLVER_KINDS = {"hostlist": "hostList", "pattern": "pattern", "patterngroup": "patternGroup"}


def _resolvers(value: Any, path: str) -> tuple[NamespaceResolver, ...]:
    found = []
    for name, spec in _mapping(value, path).items():
        where = f"{path}.{name}"
        spec = _mapping(spec, where)
        _check_keys(
            spec,
            where,
            {
                "type": "type",
                "hosts": "hosts",
                "regex": "regex",
                "matchinggroup": "matchingGroup",
                "schema": "schema",
            },
        )
        kind_text = spec.get("type")
        kind = _RESOLVER_KINDS.get(_norm(kind_text)) if isinstance(kind_text, str) else None
        if kind is None:
            raise SectionError(
                f"{where}.type",
                f"must be hostList, pattern or patternGroup, not {kind_text!r}"
                + (
                    did_you_mean(kind_text, _RESOLVER_KINDS.values())
                    if isinstance(kind_text, str)
                    else ""
                ),
            )
        values = {_norm(k): v for k, v in spec.items()}
        schema = values.get("schema")
        if schema is not None and not isinstance(schema, str):
            raise SectionError(f"{where}.schema", "must be a URI scheme such as 'kafka'")
        if kind == "hostList":
            hosts = _names(values.get("hosts"), f"{where}.hosts")
            if not hosts:
                raise SectionError(f"{where}.hosts", "a hostList resolver needs its hosts")
            found.append(NamespaceResolver(str(name), kind, hosts=tuple(hosts), schema=schema))
            continue
        regex = values.get("regex")
        if not isinstance(regex, str) or not regex:
            raise SectionError(f"{where}.regex", f"a {kind} resolver needs a regular expression")
        try:
            # Java spells a named group (?<name>...), Python (?P<name>...): both are read.
            pattern = re.compile(re.sub(r"\(\?<(?![=!])", "(?P<", regex))
        except re.error as exc:
            raise SectionError(f"{where}.regex", f"not a valid regular expression: {exc}") from None
        group = values.get("matchinggroup")
        if kind == "patternGroup" and (
            not isinstance(group, str) or group not in pattern.groupindex
        ):
            raise SectionError(
                f"{where}.matchingGroup", "must name a group (?<name>...) of the regex"
            )
        found.append(
            NamespaceResolver(str(name), kind, pattern=pattern, matching_group=group, schema=schema)
        )
    return tuple(found)


# -- trimmers ----------------------------------------------------------------------------------

# The official clients name their trimmers by class; either spelling selects ours.
_TRIMMER_CLASSES = {
    "KeyValueTrimmer": "key_value",
    "DateTrimmer": "date",
    "MultiDirDateTrimmer": "multi_dir_date",
    "YearMonthTrimmer": "year_month",
}


def _builtin_trimmer(name: str) -> str | None:
    from openlineage_sdk.naming._trim import TRIMMERS

    if name in TRIMMERS:
        return name
    return _TRIMMER_CLASSES.get(name.rpartition(".")[2])


def _load_trimmer(path: str, where: str) -> Trimmer:
    """A user's trimmer by dotted path: a function ``str -> str``, or a class (made with no
    arguments) whose instances have ``trim(name)``, like the official clients' trimmers."""
    module, _, attr = path.rpartition(".")
    try:
        target = getattr(importlib.import_module(module), attr) if module else None
    except (ImportError, AttributeError) as exc:
        raise SectionError(where, f"{path!r} cannot be imported: {exc}") from None
    if isinstance(target, type):
        try:
            instance = target()
        except Exception as exc:
            raise SectionError(where, f"{path!r} cannot be made: {exc}") from None
        trim = getattr(instance, "trim", None)
        if callable(trim):
            return _guarded(trim, path)
    elif callable(target):
        return _guarded(target, path)
    raise SectionError(where, f"{path!r} is neither a function nor a class with trim(name)")


def _guarded(trim: Callable[[str], Any], path: str) -> Trimmer:
    def rule(name: str) -> str:
        try:
            result = trim(name)
        except Exception:
            log.warning("OpenLineage: the trimmer %s failed on a dataset name; skipped", path)
            return name
        return result if isinstance(result, str) else name

    return rule


def _trimmers(section: Mapping[str, Any]) -> tuple[Trimmer, ...]:
    from openlineage_sdk.naming._trim import TRIMMERS

    values = {_norm(k): (str(k), v) for k, v in section.items()}
    disabled_key, disabled = values.get("disabledtrimmers", ("disabled_trimmers", None))
    extra_key, extra = values.get("extratrimmers", ("extra_trimmers", None))
    off = set()
    for name in _names(disabled, f"dataset.{disabled_key}"):
        builtin = _builtin_trimmer(name)
        if builtin is None:
            raise SectionError(
                f"dataset.{disabled_key}",
                f"{name!r} is not a built-in trimmer; built-in: {', '.join(TRIMMERS)} (or their "
                "class names, KeyValueTrimmer...)"
                + did_you_mean(name.rpartition(".")[2], [*TRIMMERS, *_TRIMMER_CLASSES]),
            )
        off.add(builtin)
    rules = [rule for name, rule in TRIMMERS.items() if name not in off]
    for name in _names(extra, f"dataset.{extra_key}"):
        builtin = _builtin_trimmer(name)
        if builtin is not None:
            continue  # a built-in one named again: already there
        rules.append(_load_trimmer(name, f"dataset.{extra_key}"))
    return tuple(rules)


# -- facets ------------------------------------------------------------------------------------

_FACETS_KEYS = {
    "environmentvariables": "environment_variables",
    "customenvironmentvariables": "custom_environment_variables",
    "sourcecodelocation": "source_code_location",
    "disabled": "disabled",
}
_SCL_KEYS = {
    "disabled": "disabled",
    "repourl": "repo_url",
    "version": "version",
    "tag": "tag",
    "branch": "branch",
    "pullrequestnumber": "pull_request_number",
}


def _disabled_facets(key: str, value: Any, path: str, into: dict[str, bool]) -> None:
    """``<facet>: {disabled: true}``, nested names joined with dots, as the Java client reads them."""
    if not isinstance(value, Mapping):
        raise SectionError(
            path,
            "unknown setting; known: environment_variables, source_code_location, or "
            "<facet name>: {disabled: true}" + did_you_mean(key, _FACETS_KEYS.values()),
        )
    found = False
    for sub, inner in value.items():
        if sub == "disabled":
            into[key] = _bool(inner, f"{path}.disabled")
            found = True
        elif isinstance(inner, Mapping):
            _disabled_facets(f"{key}.{sub}", inner, f"{path}.{sub}", into)
            found = True
        else:
            raise SectionError(f"{path}.{sub}", "a facet's only setting is 'disabled'")
    if not found:
        raise SectionError(path, "a facet's only setting is 'disabled'")


# -- the whole -----------------------------------------------------------------------------------


def parse_sections(
    facets: Mapping[str, Any] | None,
    filters: Sequence[Any] | None,
    tags: Mapping[str, Any] | None,
    dataset: Mapping[str, Any] | None,
) -> EventConfig | None:
    """Read the four sections; ``None`` when none of them asks for anything.

    Args:
        facets: the ``facets`` section.
        filters: the ``filters`` section.
        tags: the ``tags`` section.
        dataset: the ``dataset`` section.

    Returns:
        The event configuration, or ``None`` when events leave unchanged.

    Raises:
        SectionError: a setting is unknown (with a "did you mean" when one is close) or invalid;
            its ``path`` names it (``dataset.namespaceResolvers.kafka.type``).
    """
    found_filters = _filters(filters)

    tag_section = _mapping(tags, "tags")
    _check_keys(tag_section, "tags", {"job": "job", "run": "run"})
    job_tags = _tag_values(tag_section.get("job"), "tags.job")
    run_tags = _tag_values(tag_section.get("run"), "tags.run")

    facet_section = _mapping(facets, "facets")
    env_vars: list[str] = []
    scl: SourceCodeLocation | None = None
    disabled: dict[str, bool] = {}
    for key, value in facet_section.items():
        # Exact names: a facet's own name (environmentVariables) may disable it.
        known = key if key in _FACETS_KEYS.values() else None
        path = f"facets.{key}"
        if known in ("environment_variables", "custom_environment_variables"):
            env_vars.extend(n for n in _names(value, path) if n not in env_vars)
        elif known == "source_code_location":
            section = _mapping(value, path)
            _check_keys(section, path, _SCL_KEYS)
            values = {_SCL_KEYS[_norm(k)]: v for k, v in section.items()}
            if not _bool(values.pop("disabled", True), f"{path}.disabled"):
                for name, text in values.items():
                    if text is not None and not isinstance(text, (str, int)):
                        raise SectionError(f"{path}.{name}", "must be a string")
                scl = SourceCodeLocation(**{k: str(v) for k, v in values.items() if v is not None})
        elif known == "disabled":
            for name in _names(value, path):
                disabled[name] = True
        else:
            _disabled_facets(str(key), value, path, disabled)

    data_section = _mapping(dataset, "dataset")
    _check_keys(
        data_section,
        "dataset",
        {
            "reducingenabled": "reducing_enabled",
            "disabledtrimmers": "disabled_trimmers",
            "extratrimmers": "extra_trimmers",
            "namespaceresolvers": "namespaceResolvers",
        },
    )
    values = {_norm(k): (str(k), v) for k, v in data_section.items()}
    reducing_key, reducing_on = values.get("reducingenabled", ("reducing_enabled", False))
    trimmers = _trimmers(data_section)  # checked even when reducing is off
    reducing = trimmers if _bool(reducing_on, f"dataset.{reducing_key}") else None
    resolver_key, resolver_spec = values.get("namespaceresolvers", ("namespaceResolvers", None))
    resolvers = _resolvers(resolver_spec, f"dataset.{resolver_key}")

    config = EventConfig(
        filters=found_filters,
        job_tags=job_tags,
        run_tags=run_tags,
        environment_variables=tuple(env_vars),
        source_code_location=scl,
        reducing=reducing,
        resolvers=resolvers,
        disabled_facets=frozenset(name for name, is_off in disabled.items() if is_off),
    )
    return config if config.changes or config.filters else None


# -- reference -----------------------------------------------------------------------------------
# What the documentation's configuration reference says about each setting read above. It is
# data, kept beside the code that reads it; the tests check that every key the code accepts is
# listed here (``<...>`` stands for a name the user chooses).


class SettingDoc(NamedTuple):
    """One setting of the ``facets``, ``filters``, ``tags`` or ``dataset`` section.

    Attributes:
        key: the dotted path in ``openlineage.yml`` (``dataset.reducing_enabled``); ``[]``
            marks the items of a list, ``<...>`` a name the user chooses.
        type: what the value is.
        default: the value when the setting is absent, ``None`` for none.
        description: what this SDK does with it (Markdown).
    """

    key: str
    type: str
    default: str | None
    description: str


#: Every setting of the four event sections, in the order of the reference.
SETTINGS: tuple[SettingDoc, ...] = (
    SettingDoc(
        "filters[].type",
        "`exact` or `regex`",
        None,
        "The kind of filter. Filters drop **run** events of the jobs they match; job and "
        "dataset events pass.",
    ),
    SettingDoc(
        "filters[].match",
        "text",
        None,
        "With `type: exact`: the job name whose run events are dropped.",
    ),
    SettingDoc(
        "filters[].regex",
        "regular expression",
        None,
        "With `type: regex`: run events of the jobs whose name it matches from the start "
        "(`re.match`) are dropped.",
    ),
    SettingDoc(
        "tags.job",
        "mapping of tag key to text or number",
        None,
        "Tags added to the job's `tags` facet of run and job events, with source `USER`. A "
        "tag the event has with the same key, compared without case, is replaced, keeping the "
        "event's spelling of the key; the event's other tags stay, first.",
    ),
    SettingDoc(
        "tags.run",
        "mapping of tag key to text or number",
        None,
        "Tags added to the run's `tags` facet of run events, as `tags.job`.",
    ),
    SettingDoc(
        "facets.environment_variables",
        "list of names, or one text separated by `;`",
        None,
        "The variables that are set go into the run's `environmentVariables` facet, in this "
        "order, after the event's own; the event's value wins for a name it already has. Read "
        "at each emit. The Java client's `custom_environment_variables` is the same setting.",
    ),
    SettingDoc(
        "facets.custom_environment_variables",
        "list of names, or one text separated by `;`",
        None,
        "The Java client's name of `facets.environment_variables`.",
    ),
    SettingDoc(
        "facets.source_code_location.disabled",
        "boolean",
        "true",
        "`false` adds a `sourceCodeLocation` job facet (`type: git`) to run events: the "
        "`origin` remote, commit, branch and tag at `HEAD`, read from the `.git` folder above "
        "the working directory (worktrees and packed refs too), and the pull-request number "
        "from the CI's variables. Nothing is added without a URL, and an event that has the "
        "facet keeps its own.",
    ),
    SettingDoc(
        "facets.source_code_location.repo_url",
        "text",
        None,
        "The repository URL, instead of the `origin` remote's.",
    ),
    SettingDoc(
        "facets.source_code_location.version",
        "text",
        None,
        "The commit, instead of `HEAD`'s.",
    ),
    SettingDoc(
        "facets.source_code_location.tag",
        "text",
        None,
        "The tag, instead of the one pointing at `HEAD`.",
    ),
    SettingDoc(
        "facets.source_code_location.branch",
        "text",
        None,
        "The branch, instead of `HEAD`'s.",
    ),
    SettingDoc(
        "facets.source_code_location.pull_request_number",
        "text",
        None,
        "The pull-request number, instead of the CI's.",
    ),
    SettingDoc(
        "facets.<name>.disabled",
        "boolean",
        "false",
        "`true` removes the facet `<name>` from runs, jobs and datasets (Java client, JVM "
        "agent); nested names are joined by dots (`facets: {spark: {logicalPlan: {disabled: "
        "true}}}` removes `spark.logicalPlan`). Names are compared without case.",
    ),
    SettingDoc(
        "facets.disabled",
        "list of facet names, or one text `[a; b]`",
        None,
        "The older form of `facets.<name>.disabled: true`: those facets are removed.",
    ),
    SettingDoc(
        "dataset.reducing_enabled",
        "boolean",
        "false",
        "`true`: the input and output names of run events are trimmed with "
        "`openlineage_sdk.naming.trim_dataset_name` (the Spark adapter's trimming: `key=value`, "
        "dates, `yyyy/MM/dd` and `yyyy-MM` folders); datasets left with the same namespace, "
        "name and facets are merged into one, with a `subset` facet listing the original "
        "names, and column-lineage input names follow.",
    ),
    SettingDoc(
        "dataset.disabled_trimmers",
        "list of names, or one text separated by `;`",
        None,
        "Built-in trimmers turned off, by name (`key_value`, `date`, `multi_dir_date`, "
        "`year_month`) or by the official clients' class names "
        "(`openlineage.client.dataset.trimmers.KeyValueTrimmer`...).",
    ),
    SettingDoc(
        "dataset.extra_trimmers",
        "list of dotted paths, or one text separated by `;`",
        None,
        "More trimmers, by dotted path: a function `str -> str`, or a class made with no "
        "arguments whose instances have `trim(name)` (the official `DatasetNameTrimmer` "
        "subclasses work). A trimmer that raises is logged and skipped.",
    ),
    SettingDoc(
        "dataset.namespaceResolvers.<name>.type",
        "`hostList`, `pattern` or `patternGroup`",
        None,
        "A resolver of the Java client, mapping a dataset namespace "
        "(`kafka://broker-3.prod:9092`) to a logical one (`kafka://<name>:9092`) in every "
        "dataset of every event and in `symlinks` facets; the first resolver that changes a "
        "namespace wins.",
    ),
    SettingDoc(
        "dataset.namespaceResolvers.<name>.hosts",
        "list of host names, or one text separated by `;`",
        None,
        "With `type: hostList`: host names (or `host:port`) found in a namespace, compared "
        "without case, are replaced by `<name>`.",
    ),
    SettingDoc(
        "dataset.namespaceResolvers.<name>.regex",
        "regular expression",
        None,
        "With `type: pattern`: every match in a namespace is replaced by `<name>`; with "
        "`type: patternGroup`, by the value of the group `matchingGroup`. Java's named groups "
        "`(?<g>...)` are read.",
    ),
    SettingDoc(
        "dataset.namespaceResolvers.<name>.matchingGroup",
        "a group name of `regex`",
        None,
        "With `type: patternGroup`: the named group whose value replaces the match.",
    ),
    SettingDoc(
        "dataset.namespaceResolvers.<name>.schema",
        "URI scheme",
        None,
        "Only namespaces of this scheme (`kafka`) are resolved.",
    ),
)
