"""What the configuration does to events as they leave the client.

The official client's ``filters``, ``tags``, ``facets`` and ``dataset`` sections, and two
settings of the Java client and JVM agent (dataset namespace resolvers, disabling a facet by
name), read by :func:`parse_sections` into an :class:`EventConfig` and applied by
:meth:`EventConfig.apply` in :meth:`OpenLineage.emit <openlineage_sdk.client.OpenLineage.emit>`,
which the run lifecycle and the Spark adapter go through too.

Nothing configured costs nothing: :func:`parse_sections` returns ``None`` and ``emit`` skips this
module. When something is configured, a run event that a filter drops is dropped before any
work; any other change is made on the event's JSON and the result is read back into a new
event, so the caller's own event object is never changed (the official client changes it in
place).

The rules, as the official client 1.54.0 has them unless said otherwise:

* ``filters``: ``{type: exact, match: NAME}`` drops run events whose job name is ``NAME``;
  ``{type: regex, regex: RE}`` drops those whose job name matches ``RE`` from its start
  (``re.match``). Job and dataset events are never filtered.
* ``tags``: ``job`` tags go to the job's ``tags`` facet of run and job events, ``run`` tags to
  the run's ``tags`` facet of run events, with source ``USER``. A configured tag replaces a tag
  of the event with the same key compared without case, keeping the event's spelling of the
  key; the event's other tags stay, first. (The official client also adds an
  ``openlineage_client_version`` run tag to every run event; this SDK does not: the event's
  ``producer`` already names the library and its version.)
* ``facets.environment_variables``: the named variables that are set go into the
  ``environmentVariables`` run facet of run events, after the ones the event already carries,
  in the configured order (the official client uses the environment's order); a variable the
  event already has keeps the event's value. They are read at each emit, as the official
  client does.
* ``facets.source_code_location``: off by default; when ``disabled: false``, run events get a
  ``sourceCodeLocation`` job facet (``type: git``) with the ``origin`` remote, the commit, the
  branch and a tag pointing at it, read from the ``.git`` folder above the working directory
  (worktrees included), and the pull-request number from the CI's variables (GitLab, Bitbucket,
  Azure Pipelines, GitHub Actions). Configured values win; nothing is added without a URL, and
  an event that has the facet keeps its own.
* ``dataset.reducing_enabled``: input and output names of run events are trimmed with
  :func:`openlineage_sdk.naming.trim_dataset_name` (minus ``disabled_trimmers``, plus
  ``extra_trimmers``); datasets left with the same namespace, name and facets are merged into
  one, which gets a ``subset`` facet listing the original names. Column-lineage input names of
  outputs are trimmed too.
* ``dataset.namespaceResolvers`` (Java client): ``hostList``, ``pattern`` and ``patternGroup``
  resolvers map a dataset namespace (``kafka://broker-3.prod:9092``) to a logical one; the first
  resolver that changes a namespace wins. They apply to every dataset of every event and to the
  namespaces in ``symlinks`` facets.
* ``facets.<name>.disabled: true`` (Java client, JVM agent): the facet ``<name>`` is removed
  from runs, jobs and datasets (``facets: {spark: {logicalPlan: {disabled: true}}}`` removes
  ``spark.logicalPlan``); ``facets.disabled: [a; b]``, the older form, works too. Names are
  compared without case, since ``OPENLINEAGE__FACETS__<NAME>__DISABLED`` arrives lower-cased.
"""

from __future__ import annotations

import configparser
import difflib
import importlib
import json
import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openlineage_sdk.naming._trim import Trimmer
    from openlineage_sdk.transports.base import Emittable

__all__ = ["EventConfig", "NamespaceResolver", "SourceCodeLocation", "parse_sections"]

log = logging.getLogger(__name__)

_TRIM_CACHE_SIZE = 4096

# Why a setting is refused: ``(path, message)``; the caller adds where it came from.
Complaint = tuple[str, str]


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


# -- filters -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Filter:
    kind: str
    text: str
    pattern: re.Pattern[str] | None

    def drops(self, job_name: str) -> bool:
        if self.pattern is not None:
            return self.pattern.match(job_name) is not None
        return job_name == self.text


def _filters(value: Any) -> tuple[_Filter, ...]:
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
            found.append(_Filter("exact", match, None))
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
            found.append(_Filter("regex", regex, pattern))
        else:
            raise SectionError(
                f"{path}.type",
                f"must be 'exact' or 'regex', not {kind!r}"
                + (did_you_mean(kind, ("exact", "regex")) if isinstance(kind, str) else ""),
            )
    return tuple(found)


# -- tags --------------------------------------------------------------------------------------


def _tag_values(value: Any, path: str) -> tuple[tuple[str, str], ...]:
    tags = _mapping(value, path)
    pairs = []
    for key, tag in tags.items():
        if tag is None or isinstance(tag, (Mapping, list)):
            raise SectionError(f"{path}.{key}", "a tag's value must be a string or a number")
        pairs.append((str(key), str(tag).lower() if isinstance(tag, bool) else str(tag)))
    return tuple(pairs)


# -- dataset namespace resolvers ------------------------------------------------------------


@dataclass(frozen=True)
class NamespaceResolver:
    """A dataset namespace resolver of the Java client (``dataset.namespaceResolvers.<name>``).

    Attributes:
        name: the logical name namespaces are resolved to (the resolver's key).
        kind: ``hostList``, ``pattern`` or ``patternGroup``.
        hosts: ``hostList``: host names (or ``host:port``) replaced, without case, by ``name``.
        pattern: ``pattern``/``patternGroup``: every match is replaced by ``name``, or by the
            value of the group ``matching_group``.
        matching_group: ``patternGroup``: the named group whose value replaces the match.
        schema: only namespaces of this scheme (``kafka``) are resolved.
    """

    name: str
    kind: str
    hosts: tuple[str, ...] = ()
    pattern: re.Pattern[str] | None = None
    matching_group: str | None = None
    schema: str | None = None

    def resolve(self, namespace: str) -> str:
        """The namespace resolved, or unchanged when this resolver does not apply."""
        if self.schema and not namespace.startswith(self.schema + "://"):
            return namespace
        if self.kind == "hostList":
            lowered = namespace.lower()
            for host in self.hosts:
                if host.lower() in lowered:
                    return re.sub(re.escape(host), lambda _: self.name, namespace, flags=re.I)
            return namespace
        assert self.pattern is not None
        match = self.pattern.search(namespace)
        if match is None:
            return namespace
        replacement = self.name if self.kind == "pattern" else match.group(self.matching_group or 0)
        return self.pattern.sub(lambda _: replacement, namespace)


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


# -- source code location ----------------------------------------------------------------------


@dataclass(frozen=True)
class SourceCodeLocation:
    """``facets.source_code_location``: values given in the configuration win over git's."""

    repo_url: str | None = None
    version: str | None = None
    tag: str | None = None
    branch: str | None = None
    pull_request_number: str | None = None


def _git_dir(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / ".git"
        if candidate.is_dir():
            return candidate
        if candidate.is_file():
            text = candidate.read_text(encoding="utf-8").strip()
            if text.startswith("gitdir:"):
                target = Path(text[len("gitdir:") :].strip())
                return target if target.is_absolute() else (folder / target).resolve()
    return None


def _git_common_dir(git_dir: Path) -> Path:
    """A worktree's own folder holds HEAD; refs, packed-refs and config are in the common one."""
    common = git_dir / "commondir"
    if common.is_file():
        target = Path(common.read_text(encoding="utf-8").strip())
        return target if target.is_absolute() else (git_dir / target).resolve()
    return git_dir


def _packed_refs(common: Path) -> list[tuple[str, str, str | None]]:
    """``(sha, ref, peeled commit of an annotated tag)`` from ``packed-refs``."""
    path = common / "packed-refs"
    if not path.is_file():
        return []
    entries: list[tuple[str, str, str | None]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        if line.startswith("^") and entries:
            sha, ref, _ = entries[-1]
            entries[-1] = (sha, ref, line[1:].strip())
            continue
        sha, _, ref = line.partition(" ")
        entries.append((sha.strip(), ref.strip(), None))
    return entries


def _ref_sha(git_dir: Path, common: Path, ref: str) -> str | None:
    for folder in (git_dir, common):
        loose = folder / ref
        if loose.is_file():
            return loose.read_text(encoding="utf-8").strip()
    for sha, name, _ in _packed_refs(common):
        if name == ref:
            return sha
    return None


def _ci_pull_request(env: Mapping[str, str]) -> str | None:
    for name in (
        "CI_MERGE_REQUEST_IID",  # GitLab
        "BITBUCKET_PR_ID",  # Bitbucket Pipelines
        "SYSTEM_PULLREQUEST_PULLREQUESTNUMBER",  # Azure Pipelines, GitHub repository
        "SYSTEM_PULLREQUEST_PULLREQUESTID",  # Azure Pipelines, Azure Repos
    ):
        if env.get(name):
            return env[name]
    match = re.match(r"refs/pull/(\d+)/(?:merge|head)", env.get("GITHUB_REF", ""))
    return match.group(1) if match else None


def read_source_code_location(
    configured: SourceCodeLocation, env: Mapping[str, str], cwd: Path | None = None
) -> dict[str, str] | None:
    """The ``sourceCodeLocation`` values (JSON names), or ``None`` without a repository URL.

    Git's files are read directly (no ``git`` process): ``HEAD``, the refs, ``packed-refs``
    and the ``origin`` remote of ``config``.
    """
    url, sha, branch, tag = (
        configured.repo_url,
        configured.version,
        configured.branch,
        configured.tag,
    )
    try:
        git_dir = _git_dir((cwd or Path.cwd()).resolve())
        if git_dir is not None:
            common = _git_common_dir(git_dir)
            head_file = git_dir / "HEAD"
            head = head_file.read_text(encoding="utf-8").strip() if head_file.is_file() else ""
            head_sha = (
                _ref_sha(git_dir, common, head[5:].strip()) if head.startswith("ref:") else head
            ) or None
            if url is None:
                parser = configparser.RawConfigParser(strict=False)
                parser.read(common / "config", encoding="utf-8")
                url = parser.get('remote "origin"', "url", fallback=None)
            if sha is None:
                sha = head_sha
            if branch is None and head.startswith("ref: refs/heads/"):
                branch = head[len("ref: refs/heads/") :]
            if tag is None and head_sha:
                tag = _tag_at(common, head_sha)
    except (OSError, configparser.Error, UnicodeDecodeError) as exc:
        log.warning("OpenLineage: cannot read git metadata for sourceCodeLocation: %s", exc)
    if not url:
        return None
    pull_request = configured.pull_request_number or _ci_pull_request(env)
    values = {
        "type": "git",
        "url": url,
        "repoUrl": url,
        "version": sha,
        "branch": branch,
        "tag": tag,
        "pullRequestNumber": pull_request,
    }
    return {k: v for k, v in values.items() if v is not None}


def _tag_at(common: Path, sha: str) -> str | None:
    tags = common / "refs" / "tags"
    if tags.is_dir():
        for path in sorted(tags.rglob("*")):
            if path.is_file() and path.read_text(encoding="utf-8").strip() == sha:
                return path.relative_to(tags).as_posix()
    for tag_sha, ref, peeled in _packed_refs(common):
        if ref.startswith("refs/tags/") and sha in (tag_sha, peeled):
            return ref[len("refs/tags/") :]
    return None


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


@dataclass(frozen=True)
class EventConfig:
    """What the configuration changes in events; see the module's documentation for the rules."""

    filters: tuple[_Filter, ...] = ()
    job_tags: tuple[tuple[str, str], ...] = ()
    run_tags: tuple[tuple[str, str], ...] = ()
    environment_variables: tuple[str, ...] = ()
    source_code_location: SourceCodeLocation | None = None
    reducing: tuple[Trimmer, ...] | None = None
    resolvers: tuple[NamespaceResolver, ...] = ()
    disabled_facets: frozenset[str] = frozenset()
    changes: bool = field(default=False)
    # Names seen and their trimmed form: a column-lineage facet repeats the same input names.
    trimmed: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def apply(
        self,
        event: Emittable,
        *,
        producer: str,
        env: Mapping[str, str] | None = None,
    ) -> Emittable | None:
        """The event as the configuration wants it sent, or ``None`` when a filter drops it.

        Args:
            event: any event; it is not changed.
            producer: the ``_producer`` of facets added here.
            env: where environment variables are read (``os.environ`` when ``None``).

        Returns:
            A new event with the changes, ``event`` itself when nothing applies, or ``None``.
        """
        if self.filters:
            name = _run_job_name(event)
            if name is not None and any(f.drops(name) for f in self.filters):
                log.debug("OpenLineage: the run event of job %r is filtered out", name)
                return None
        if not self.changes:
            return event
        # The SDK's own events give their JSON-ready form directly; any other Emittable its
        # JSON text.
        from pydantic_core import PydanticSerializationError, to_json

        from openlineage_sdk._base import OpenLineageModel

        data = (
            event.to_dict() if isinstance(event, OpenLineageModel) else json.loads(event.to_json())
        )
        if not isinstance(data, dict):
            return event
        if not _Editor(self, producer, os.environ if env is None else env).edit(data):
            return event
        from openlineage_sdk._read import read_event

        try:
            # Written by pydantic-core and read back in one pass: what the edits added that
            # cannot be written as given (a lone surrogate in an environment variable) fails
            # here, as in reading any event. NaN stays NaN in the text, so reading refuses it.
            return read_event(to_json(data, inf_nan_mode="constants"))
        except (ValueError, PydanticSerializationError):
            # An event the SDK cannot read as a typed one (a hand-made Emittable that breaks
            # the spec) is still sent, as the JSON it had, with the changes.
            return _JsonEvent(json.dumps(data, separators=(",", ":"), ensure_ascii=False))


class _JsonEvent:
    """An event held as its JSON text."""

    __slots__ = ("_json",)

    def __init__(self, text: str) -> None:
        self._json = text

    def to_json(self) -> str:
        return self._json


def _run_job_name(event: object) -> str | None:
    """The job name when ``event`` is a run event (an SDK event or any object shaped like one)."""
    from openlineage_sdk.models.core import JobEvent, RunEvent

    if isinstance(event, RunEvent):
        return event.job.name
    if isinstance(event, JobEvent):
        return None
    run, job = getattr(event, "run", None), getattr(event, "job", None)
    if run is not None and job is not None:
        name = getattr(job, "name", None)
        return name if isinstance(name, str) else None
    if run is None and job is None and not hasattr(event, "dataset"):
        try:
            data = json.loads(event.to_json())  # type: ignore[attr-defined]
        except Exception:
            return None
        if isinstance(data, dict) and "run" in data and isinstance(data.get("job"), dict):
            name = data["job"].get("name")
            return name if isinstance(name, str) else None
    return None


class _Editor:
    """Applies an :class:`EventConfig` to an event's JSON object, in place."""

    def __init__(self, config: EventConfig, producer: str, env: Mapping[str, str]) -> None:
        self.config = config
        self.producer = producer
        self.env = env
        self.changed = False

    def _facet(self, cls_name: str, module: str, body: dict[str, Any]) -> dict[str, Any]:
        cls = getattr(importlib.import_module(f"openlineage_sdk.models.facets.{module}"), cls_name)
        return {"_producer": self.producer, "_schemaURL": cls.facet_schema_url, **body}

    def edit(self, data: dict[str, Any]) -> bool:
        config = self.config
        is_run = isinstance(data.get("run"), dict) and isinstance(data.get("job"), dict)
        is_job = not is_run and isinstance(data.get("job"), dict)
        if is_run and config.environment_variables:
            self._environment(data)
        if (is_run or is_job) and config.job_tags:
            self._tags(data["job"], config.job_tags, "TagsJobFacet", "tags_job")
        if is_run and config.run_tags:
            self._tags(data["run"], config.run_tags, "TagsRunFacet", "tags_run")
        if is_run and config.source_code_location is not None:
            self._source_code_location(data)
        if is_run and config.reducing is not None:
            self._reduce(
                data, "inputs", "inputFacets", "InputSubsetInputDatasetFacet", "inputCondition"
            )
            self._reduce(
                data, "outputs", "outputFacets", "OutputSubsetOutputDatasetFacet", "outputCondition"
            )
        if config.resolvers:
            for dataset in _datasets(data):
                self._resolve(dataset)
        if config.disabled_facets:
            self._disable(data)
        return self.changed

    def _environment(self, data: dict[str, Any]) -> None:
        env = self.env
        found = [(k, env[k]) for k in self.config.environment_variables if k in env]
        missing = set(self.config.environment_variables).difference(k for k, _ in found)
        if missing:
            log.warning(
                "OpenLineage: environment variables configured for the environmentVariables "
                "facet are not set: %s",
                ", ".join(sorted(missing)),
            )
        if not found:
            return
        facets = data["run"].setdefault("facets", {}) or {}
        data["run"]["facets"] = facets
        current = facets.get("environmentVariables")
        existing = (
            list(current.get("environmentVariables") or []) if isinstance(current, dict) else []
        )
        names = {e.get("name") for e in existing if isinstance(e, dict)}
        added = [{"name": k, "value": v} for k, v in found if k not in names]
        body = {"environmentVariables": existing + added}
        if isinstance(current, dict):
            facets["environmentVariables"] = {**current, **body}
        else:
            facets["environmentVariables"] = self._facet(
                "EnvironmentVariablesRunFacet", "environment_variables_run", body
            )
        self.changed = True

    def _tags(
        self, holder: dict[str, Any], tags: Sequence[tuple[str, str]], cls: str, module: str
    ) -> None:
        facets = holder.get("facets") or {}
        holder["facets"] = facets
        current = facets.get("tags")
        old = list(current.get("tags") or []) if isinstance(current, dict) else []
        user_keys = {key.lower() for key, _ in tags}
        spelling = {
            t["key"].lower(): t["key"]
            for t in old
            if isinstance(t, dict) and isinstance(t.get("key"), str)
        }
        kept = [
            t
            for t in old
            if not (
                isinstance(t, dict)
                and isinstance(t.get("key"), str)
                and t["key"].lower() in user_keys
            )
        ]
        for key, _ in tags:
            if key.lower() in spelling:
                log.info("OpenLineage: the configured tag %r replaces the event's own", key)
        added = [{"key": spelling.get(k.lower(), k), "value": v, "source": "USER"} for k, v in tags]
        if isinstance(current, dict):
            facets["tags"] = {**current, "tags": kept + added}
        else:
            facets["tags"] = self._facet(cls, module, {"tags": kept + added})
        self.changed = True

    def _source_code_location(self, data: dict[str, Any]) -> None:
        values = _SCL_CACHE.get(self.config.source_code_location, self.env)
        if not values:
            return
        facets = data["job"].get("facets") or {}
        data["job"]["facets"] = facets
        if "sourceCodeLocation" in facets:
            return
        facets["sourceCodeLocation"] = self._facet(
            "SourceCodeLocationJobFacet", "source_code_location_job", dict(values)
        )
        self.changed = True

    def _trim(self, name: str) -> str:
        cache = self.config.trimmed
        trimmed = cache.get(name)
        if trimmed is None:
            from openlineage_sdk.naming._trim import trim_dataset_name

            assert self.config.reducing is not None
            trimmed = trim_dataset_name(name, self.config.reducing)
            if len(cache) >= _TRIM_CACHE_SIZE:
                cache.clear()
            cache[name] = trimmed
        return trimmed

    def _reduce(
        self, data: dict[str, Any], key: str, io_key: str, subset_cls: str, condition_key: str
    ) -> None:
        datasets = data.get(key)
        if not isinstance(datasets, list) or not datasets:
            return
        if key == "outputs":
            for dataset in datasets:
                if isinstance(dataset, dict):
                    self._trim_column_lineage(dataset)
        merged: list[tuple[dict[str, Any], set[str]]] = []
        kept: list[Any] = []  # entries that are not datasets, kept as they are
        for dataset in datasets:
            if not isinstance(dataset, dict) or not isinstance(dataset.get("name"), str):
                kept.append(dataset)
                continue
            original = dataset["name"]
            trimmed = self._trim(original)
            if trimmed != original:
                dataset = {**dataset, "name": trimmed}
                self.changed = True
            same = next(
                (
                    entry
                    for entry in merged
                    if entry[0].get("namespace") == dataset.get("namespace")
                    and entry[0].get("name") == trimmed
                    and all(
                        (entry[0].get(k) or {}) == (dataset.get(k) or {})
                        for k in ("facets", "inputFacets", "outputFacets")
                    )
                ),
                None,
            )
            if same is not None:
                self.changed = True
                if trimmed != original:
                    same[1].add(original)
            else:
                merged.append((dataset, {original} if trimmed != original else set()))
        result: list[Any] = []
        for dataset, originals in merged:
            if originals:
                io = dict(dataset.get(io_key) or {})
                io["subset"] = self._facet(
                    subset_cls,
                    "base_subset_dataset",
                    {condition_key: {"type": "location", "locations": sorted(originals)}},
                )
                dataset = {**dataset, io_key: io}
            result.append(dataset)
        data[key] = result + kept

    def _trim_column_lineage(self, dataset: dict[str, Any]) -> None:
        facets = dataset.get("facets")
        lineage = facets.get("columnLineage") if isinstance(facets, dict) else None
        if not isinstance(lineage, dict):
            return
        entries: list[Any] = []
        for column in (lineage.get("fields") or {}).values():
            if isinstance(column, dict):
                entries.extend(column.get("inputFields") or [])
        entries.extend(lineage.get("dataset") or [])
        for entry in entries:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                trimmed = self._trim(entry["name"])
                if trimmed != entry["name"]:
                    entry["name"] = trimmed
                    self.changed = True

    def _resolve_namespace(self, namespace: str) -> str:
        for resolver in self.config.resolvers:
            resolved = resolver.resolve(namespace)
            if resolved != namespace:
                return resolved
        return namespace

    def _resolve(self, dataset: dict[str, Any]) -> None:
        namespace = dataset.get("namespace")
        if isinstance(namespace, str):
            resolved = self._resolve_namespace(namespace)
            if resolved != namespace:
                dataset["namespace"] = resolved
                self.changed = True
        facets = dataset.get("facets")
        symlinks = facets.get("symlinks") if isinstance(facets, dict) else None
        if isinstance(symlinks, dict):
            for identifier in symlinks.get("identifiers") or []:
                if isinstance(identifier, dict) and isinstance(identifier.get("namespace"), str):
                    resolved = self._resolve_namespace(identifier["namespace"])
                    if resolved != identifier["namespace"]:
                        identifier["namespace"] = resolved
                        self.changed = True

    def _disable(self, data: dict[str, Any]) -> None:
        holders: list[Any] = [data.get("run"), data.get("job")]
        for dataset in _datasets(data):
            holders.append(dataset)
        for holder in holders:
            if not isinstance(holder, dict):
                continue
            for key in ("facets", "inputFacets", "outputFacets"):
                facets = holder.get(key)
                if isinstance(facets, dict):
                    # Without case: OPENLINEAGE__FACETS__<NAME>__DISABLED arrives lower-cased.
                    off = [k for k in facets if k.lower() in self.config.disabled_facets]
                    for name in off:
                        del facets[name]
                        self.changed = True


def _datasets(data: dict[str, Any]) -> list[dict[str, Any]]:
    found = [d for k in ("inputs", "outputs") for d in (data.get(k) or []) if isinstance(d, dict)]
    if isinstance(data.get("dataset"), dict):
        found.append(data["dataset"])
    return found


class _SourceCodeCache:
    """Git is read once per configuration, as the official client does (a cached property)."""

    def __init__(self) -> None:
        self._values: dict[int, tuple[SourceCodeLocation, dict[str, str] | None]] = {}

    def get(
        self, configured: SourceCodeLocation | None, env: Mapping[str, str]
    ) -> dict[str, str] | None:
        if configured is None:
            return None
        entry = self._values.get(id(configured))
        if entry is None or entry[0] is not configured:
            entry = (configured, read_source_code_location(configured, env))
            self._values[id(configured)] = entry
        return entry[1]


_SCL_CACHE = _SourceCodeCache()


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

    off = frozenset(name.lower() for name, is_off in disabled.items() if is_off)
    config = EventConfig(
        filters=found_filters,
        job_tags=job_tags,
        run_tags=run_tags,
        environment_variables=tuple(env_vars),
        source_code_location=scl,
        reducing=reducing,
        resolvers=resolvers,
        disabled_facets=off,
    )
    changes = bool(
        job_tags or run_tags or env_vars or scl or reducing is not None or resolvers or off
    )
    if not (changes or found_filters):
        return None
    return EventConfig(**{**config.__dict__, "changes": changes, "trimmed": {}})
