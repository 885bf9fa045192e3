"""The values an event configuration is made of: filters, tags, namespace resolvers, source code.

Each is a small frozen value, made by the configuration reader (:mod:`.sections`) or in code, and
applied by the editor (:mod:`.edits`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["JobNameFilter", "NamespaceResolver", "SourceCodeLocation", "Tag"]


@dataclass(frozen=True)
class JobNameFilter:
    """Drops the run events of some jobs (``filters``).

    Attributes:
        kind: ``exact`` (the job name is :attr:`text`) or ``regex`` (:attr:`pattern` matches
            the job name from its start, as ``re.match`` does).
        text: the name, or the expression as written.
        pattern: the compiled expression of a ``regex`` filter.
    """

    kind: str
    text: str
    pattern: re.Pattern[str] | None = None

    def drops(self, job_name: str) -> bool:
        """Whether the run events of job ``job_name`` are dropped."""
        if self.pattern is not None:
            return self.pattern.match(job_name) is not None
        return job_name == self.text


@dataclass(frozen=True)
class Tag:
    """A tag added to a job's or a run's ``tags`` facet.

    Attributes:
        key: the tag's key; it replaces a tag of the event with the same key compared without
            case, keeping the event's spelling of the key.
        value: its value, as text.
        source: who set it: ``USER`` for the configuration's ``tags`` section, ``SPARK`` for
            the JVM agent's ``spark.openlineage.*.tags`` confs.
    """

    key: str
    value: str
    source: str = "USER"


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


@dataclass(frozen=True)
class SourceCodeLocation:
    """``facets.source_code_location``: values given in the configuration win over git's."""

    repo_url: str | None = None
    version: str | None = None
    tag: str | None = None
    branch: str | None = None
    pull_request_number: str | None = None
