"""The README is the front door: the two commands first, short, and pointing into the site.

Its examples run with every page's (``tests/docs/test_examples.py`` and, for the PySpark one,
``tests/spark/test_docs_spark.py``).
"""

from __future__ import annotations

import re

from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
DEMO = "python3 -m pip install --upgrade nox && python3 -m nox -s demo"
TESTS = "python3 -m pip install --upgrade nox && python3 -m nox -s tests"


def test_the_readme_is_under_250_lines() -> None:
    assert len(README.splitlines()) < 250


def test_the_two_commands_come_first_and_ci_runs_the_tests_one_verbatim() -> None:
    commands = [line.strip() for line in README.splitlines() if line.startswith("    python3")]
    assert commands[:2] == [DEMO, TESTS]
    first_code = min(README.index(DEMO), README.index(TESTS))
    assert "```" not in README[:first_code]  # nothing to run comes before them
    assert TESTS in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_readme_links_into_every_guide_and_every_link_resolves() -> None:
    links = re.findall(r"\]\((docs/[^)#]+)", README)
    for guide in (
        "docs/getting-started/index.md",
        "docs/spark/index.md",
        "docs/spark/platforms/index.md",
        "docs/configuration/reference.md",
        "docs/migration/jvm-agent.md",
        "docs/custom-facets.md",
        "docs/api/index.md",
        "docs/performance.md",
        "docs/report.md",
    ):
        assert guide in links, guide
    for link in links:
        assert (ROOT / link).exists(), link
