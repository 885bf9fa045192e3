"""Run a benchmark's measures on this tree and on an earlier commit or release, in turns.

``python -m benchmarks --against REV`` (``nox -s bench -- --against REV``) checks REV out into
a temporary git worktree and runs the same measures on both trees, each in fresh child
processes that take turns round after round, so that both see the same machine, and counts
the CPU time of those processes, which other work on the machine changes far less than the time
on the clock; the median of the rounds' ratios then tells a regression from a slow hour. The generated models are checked in, so a tree needs no
install: it goes first on ``sys.path`` of the child. The measuring code is always this tree's
(the ``benchmarks`` package of the tree under test is never imported), so both trees run the
same measures on the same event.

A benchmark module provides a function ``measures(seconds) -> {name: seconds per call}`` and
calls :func:`race` (and :func:`import_race` for cold imports), then :func:`print_race`.
"""

from __future__ import annotations

import contextlib
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: This tree: the root of the repository the benchmarks run from.
HERE = Path(__file__).resolve().parents[1]

# Runs in the child: the measured tree first on sys.path, this tree's benchmarks package under
# its own name, then one measuring function, whose result is printed as JSON on the last line.
_CHILD = r"""
import importlib, json, sys, types
tree, benchmarks, module, function, kwargs = sys.argv[1:6]
sys.path.insert(0, tree)
package = types.ModuleType("benchmarks")
package.__path__ = [benchmarks]
sys.modules["benchmarks"] = package
import openlineage_sdk
if not openlineage_sdk.__file__.startswith(tree):
    raise SystemExit(f"openlineage_sdk imported from {openlineage_sdk.__file__}, not {tree}")
result = getattr(importlib.import_module(module), function)(**json.loads(kwargs))
print(json.dumps(result))
"""


@contextlib.contextmanager
def checkout(rev: str) -> Iterator[Path]:
    """A temporary worktree of ``rev`` (a commit, branch or tag of this repository).

    Raises:
        RuntimeError: git cannot check ``rev`` out (an unknown name, not a repository).
    """
    parent = Path(tempfile.mkdtemp(prefix="openlineage-sdk-against-"))
    tree = parent / "tree"
    added = subprocess.run(
        ["git", "-C", str(HERE), "worktree", "add", "--detach", str(tree), rev],
        capture_output=True,
        text=True,
    )
    if added.returncode != 0:
        shutil.rmtree(parent, ignore_errors=True)
        raise RuntimeError(f"cannot check out {rev!r}: {added.stderr.strip()}")
    try:
        # Compiled once, as an installed package is, so that no round pays for it.
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(tree / "openlineage_sdk")],
            check=False,
            capture_output=True,
        )
        yield tree
    finally:
        subprocess.run(
            ["git", "-C", str(HERE), "worktree", "remove", "--force", str(tree)],
            capture_output=True,
        )
        shutil.rmtree(parent, ignore_errors=True)
        subprocess.run(["git", "-C", str(HERE), "worktree", "prune"], capture_output=True)


def describe(rev: str) -> str:
    """``rev`` as a short commit id and subject, for the printed report."""
    shown = subprocess.run(
        ["git", "-C", str(HERE), "log", "-1", "--format=%h %s", rev],
        capture_output=True,
        text=True,
    )
    return shown.stdout.strip()[:90] or rev


def measure(tree: Path, module: str, function: str, **kwargs: object) -> dict[str, float]:
    """Run ``module.function(**kwargs)`` of this tree's benchmarks against the SDK of ``tree``.

    Raises:
        RuntimeError: the child failed; the message ends with its error output.
    """
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _CHILD,
            str(tree),
            str(HERE / "benchmarks"),
            module,
            function,
            json.dumps(kwargs),
        ],
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    if done.returncode != 0:
        raise RuntimeError(f"measuring {tree} failed:\n{done.stderr[-3000:]}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@dataclass
class Race:
    """Seconds per call of each measure, one figure per round, for this tree and the other."""

    ours: dict[str, list[float]] = field(default_factory=dict)
    theirs: dict[str, list[float]] = field(default_factory=dict)

    def add(self, ours: dict[str, float], theirs: dict[str, float]) -> None:
        for name, seconds in ours.items():
            self.ours.setdefault(name, []).append(seconds)
        for name, seconds in theirs.items():
            self.theirs.setdefault(name, []).append(seconds)


def race(tree: Path, module: str, function: str, rounds: int, **kwargs: object) -> Race:
    """Run the measures on this tree and on ``tree`` in turns, ``rounds`` times each.

    The side that goes first changes every round.
    """
    result = Race()
    for index in range(rounds):
        if index % 2 == 0:
            ours = measure(HERE, module, function, **kwargs)
            theirs = measure(tree, module, function, **kwargs)
        else:
            theirs = measure(tree, module, function, **kwargs)
            ours = measure(HERE, module, function, **kwargs)
        result.add(ours, theirs)
    return result


def import_race(tree: Path, statements: Sequence[str], repeat: int) -> Race:
    """Cold import times of ``statements`` in fresh interpreters, this tree and ``tree`` in turns.

    Each figure is the CPU time of an interpreter running the statement (which other work on
    the machine changes far less than the time on the clock) minus that of an interpreter that
    only puts the tree on ``sys.path``.
    """

    def run(code: str) -> float:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", code], check=True, cwd=tempfile.gettempdir())
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)

    def once(root: Path, statement: str) -> float:
        prefix = f"import sys; sys.path.insert(0, {str(root)!r})\n"
        empty = run(prefix)
        return max(run(prefix + statement) - empty, 1e-6)

    result = Race()
    for index in range(repeat):
        for statement in statements:
            if index % 2 == 0:
                ours, theirs = once(HERE, statement), once(tree, statement)
            else:
                theirs, ours = once(tree, statement), once(HERE, statement)
            result.add({f"cold {statement}": ours}, {f"cold {statement}": theirs})
    return result


def _figure(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} us"


def print_race(result: Race, against: str) -> None:
    """One line per measure: the best round of each tree, and the ratio of the two.

    The ratio is the median of the rounds' own ratios (both trees measured back to back in
    each round, so a slow minute slows both), with the lowest and highest beside it; above 1,
    this tree takes longer than ``against``.
    """
    print(f"{'':<52} {'this tree':>10} {against[:10]:>10} {'ratio':>7}  rounds")
    for name, ours in result.ours.items():
        theirs = result.theirs.get(name)
        if not theirs:
            continue
        ratios = sorted(o / t for o, t in zip(ours, theirs, strict=False))
        print(
            f"{name:<52} {_figure(min(ours)):>10} {_figure(min(theirs)):>10} "
            f"{statistics.median(ratios):>6.2f}x  {ratios[0]:.2f}x to {ratios[-1]:.2f}x"
        )
