"""Dataset name trimming: a partition or date folder at the end of a path names its table.

A job that writes ``/data/events/dt=2025-09-01`` today and ``/data/events/dt=2025-09-02``
tomorrow writes one dataset, ``/data/events``. The JVM openlineage-spark agent and the Java and
Python clients trim such names with the same four rules, applied again and again until none
applies:

==================  ================================================  ===========================
trimmer             removes the last folder(s) when they are          example
==================  ================================================  ===========================
``key_value``       one ``key=value`` pair (exactly one ``=``)        ``/t/dt=2025-09-01`` → ``/t``
``date``            a date ``yyyy-MM-dd``, ``dd.MM.yyyy`` or          ``/t/20251030`` → ``/t``,
                    ``yyyyMMdd``, alone or with time noise            ``/t/20250722T0901Z`` → ``/t``
                    (``T``, ``Z``, digits, ``:``, ``.``, ``-``)
``multi_dir_date``  ``yyyy/MM`` or ``yyyy/MM/dd`` folders             ``/t/2025/07/22`` → ``/t``
``year_month``      ``yyyyMM`` or ``yyyy-MM``                          ``/t/2025-07`` → ``/t``
==================  ================================================  ===========================

A name with a single folder is never trimmed (``/20250721`` stays), so a dataset never becomes
the root. Only the standard library is used; every function is pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime

__all__ = ["DEFAULT_TRIMMERS", "TRIMMERS", "Trimmer", "trim_dataset_name"]

Trimmer = Callable[[str], str]
"""A trimming rule: the name with its last folder(s) removed, or the name unchanged."""

_SEP = "/"
_DATE_PATTERNS = (
    ("%Y-%m-%d", re.compile(r"\d{4}-\d{2}-\d{2}")),
    ("%d.%m.%Y", re.compile(r"\d{2}\.\d{2}\.\d{4}")),
    ("%Y%m%d", re.compile(r"\d{8}")),
)
_DATE_NOISE = re.compile(r"[TZ\s:.\-\d]*")
_YEAR_MONTH = ((re.compile(r"\d{6}"), "%Y%m"), (re.compile(r"\d{4}-\d{2}"), "%Y-%m"))


def _valid(text: str, fmt: str) -> bool:
    try:
        datetime.strptime(text, fmt)
    except ValueError:
        return False
    return True


def _parts(name: str) -> list[str]:
    return [part for part in name.split(_SEP) if part]


def _last(name: str) -> str:
    return name.rstrip(_SEP).rsplit(_SEP, 1)[-1]


def _drop(name: str, count: int = 1) -> str:
    result = name.rstrip(_SEP)
    for _ in range(count):
        index = result.rfind(_SEP)
        if index == -1:
            return name
        result = result[:index]
    return result


def trim_key_value(name: str) -> str:
    """``/t/dt=2025-09-01`` → ``/t``: a last folder with exactly one ``=``."""
    if len(_parts(name)) > 1 and _last(name).count("=") == 1:
        return _drop(name)
    return name


def _looks_like_date(segment: str) -> bool:
    for fmt, pattern in _DATE_PATTERNS:
        for match in pattern.findall(segment):
            if _valid(match, fmt) and not _DATE_NOISE.sub("", segment.replace(match, "", 1)):
                return True
    return False


def trim_date(name: str) -> str:
    """``/t/20251030`` or ``/t/2025-10-30T09:01Z`` → ``/t``: a last folder that is a date."""
    if len(_parts(name)) > 1 and _looks_like_date(_last(name)):
        return _drop(name)
    return name


def trim_multi_dir_date(name: str) -> str:
    """``/t/2025/10/30`` → ``/t`` and ``/t/2025/10`` → ``/t``: dates spread over folders."""
    parts = _parts(name)
    if len(parts) >= 4 and _valid("/".join(parts[-3:]), "%Y/%m/%d"):
        return _drop(name, 3)
    if len(parts) >= 3 and _valid("/".join(parts[-2:]), "%Y/%m"):
        return _drop(name, 2)
    return name


def trim_year_month(name: str) -> str:
    """``/t/202510`` or ``/t/2025-10`` → ``/t``: a last folder that is a year and month."""
    if len(_parts(name)) > 1:
        last = _last(name)
        for pattern, fmt in _YEAR_MONTH:
            if pattern.fullmatch(last) and _valid(last, fmt):
                return _drop(name)
    return name


TRIMMERS: Mapping[str, Trimmer] = {
    "key_value": trim_key_value,
    "date": trim_date,
    "multi_dir_date": trim_multi_dir_date,
    "year_month": trim_year_month,
}
"""The built-in trimmers by name."""

DEFAULT_TRIMMERS: tuple[Trimmer, ...] = tuple(TRIMMERS.values())
"""Every built-in trimmer: what the JVM agent and the official clients apply by default."""

# A trimmer that never stops shortening is cut off after this many rounds.
_MAX_ROUNDS = 64


def trim_dataset_name(name: str, trimmers: Iterable[Trimmer] = DEFAULT_TRIMMERS) -> str:
    """``name`` with its partition and date folders removed, by ``trimmers``, until none applies.

    A trimmer whose result is not shorter than its input is ignored for that round, and a name
    that keeps changing after 64 rounds is returned untrimmed, so a user's trimmer that misbehaves
    cannot lengthen a name or loop forever.

    Args:
        name: A dataset name (a path, for file systems and object stores).
        trimmers: The rules to apply; every built-in one by default (see :data:`TRIMMERS`).

    Returns:
        The trimmed name; ``name`` itself when no rule applies.

    >>> trim_dataset_name("/data/events/dt=2025-09-01")
    '/data/events'
    >>> trim_dataset_name("/tmp/rdd_c/20251030")
    '/tmp/rdd_c'
    >>> trim_dataset_name("/20251030")
    '/20251030'
    """
    rules = tuple(trimmers)
    current = name
    for _ in range(_MAX_ROUNDS):
        changed = False
        for rule in rules:
            trimmed = rule(current)
            if trimmed != current and len(trimmed) < len(current):
                current, changed = trimmed, True
        if not changed:
            return current
    return name
