"""The ``sourceCodeLocation`` facet's values, read from the ``.git`` folder and the CI's variables.

Git's own files are read (``HEAD``, the refs, ``packed-refs`` and the ``origin`` remote of
``config``; worktrees too), never a ``git`` process; the pull-request number comes from GitLab,
Bitbucket, Azure Pipelines or GitHub Actions variables. Values given in the configuration win.
"""

from __future__ import annotations

import configparser
import logging
import re
from collections.abc import Mapping
from pathlib import Path

from openlineage_sdk._event_config.rules import SourceCodeLocation

__all__ = ["read_source_code_location"]

log = logging.getLogger("openlineage_sdk._event_config")


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
