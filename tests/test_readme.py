"""The README's self-contained example runs as written."""

from __future__ import annotations

import re

from tests.conftest import ROOT


def test_the_short_tour_runs() -> None:
    readme = (ROOT / "README.md").read_text()
    tour = readme.split("## A short tour", 1)[1]
    code = re.search(r"```python\n(.*?)```", tour, re.S)
    assert code is not None
    exec(compile(code.group(1), "README.md", "exec"), {})  # the README's own example
