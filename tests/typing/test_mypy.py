"""mypy, through the generated types alone (no plugin), accepts correct use and rejects mistakes.

Snippets live in ``snippets/``: ``ok_*.py`` must type-check cleanly; in ``bad_*.py`` every line
marked ``# E: <code>`` must have exactly that error, and no other line may have one.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

SNIPPETS = Path(__file__).parent / "snippets"
_MARK = re.compile(r"#\s*E:\s*([a-z-]+)")
_LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: .*\[(?P<code>[a-z-]+)\]$")

pytest.importorskip("mypy", reason="mypy is part of the test environment")


@pytest.fixture(scope="module")
def mypy_errors() -> dict[tuple[str, int], set[str]]:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--hide-error-context",
            "--no-error-summary",
            "--show-error-codes",
            "--config-file",
            "/dev/null",
            str(SNIPPETS),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    # 0: no errors, 1: errors found; anything else means mypy itself failed.
    assert result.returncode in (0, 1), result.stdout + result.stderr
    errors: dict[tuple[str, int], set[str]] = {}
    for line in result.stdout.splitlines():
        match = _LINE.match(line)
        if match:
            errors.setdefault((Path(match["file"]).name, int(match["line"])), set()).add(
                match["code"]
            )
        elif ": error:" in line:
            # An error without a [code] (a syntax error, say): kept under its file's name too, so
            # that the file's test sees it.
            errors.setdefault((Path(line.split(":", 1)[0]).name, 0), set()).add(line)
    return errors


def _expected(path: Path) -> dict[int, str]:
    return {
        number: match.group(1)
        for number, text in enumerate(path.read_text().splitlines(), start=1)
        if (match := _MARK.search(text))
    }


@pytest.mark.parametrize("path", sorted(SNIPPETS.glob("ok_*.py")), ids=lambda p: p.name)
def test_correct_use_type_checks(path: Path, mypy_errors: dict[tuple[str, int], set[str]]) -> None:
    assert {k: v for k, v in mypy_errors.items() if k[0] == path.name} == {}


@pytest.mark.parametrize("path", sorted(SNIPPETS.glob("bad_*.py")), ids=lambda p: p.name)
def test_mistakes_fail_on_the_marked_lines(
    path: Path, mypy_errors: dict[tuple[str, int], set[str]]
) -> None:
    expected = _expected(path)
    assert len(expected) >= 10
    found = {line: codes for (name, line), codes in mypy_errors.items() if name == path.name}
    assert set(found) == set(expected), (
        f"errors on lines {sorted(found)}, expected {sorted(expected)}"
    )
    for line, code in expected.items():
        assert code in found[line], f"line {line}: expected [{code}], got {found[line]}"
